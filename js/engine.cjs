"use strict";
// The host-neutral engine API, for VS Code extensions and any host that dispatches tools
// itself. No OpenCode types. Importable with `require` and `import`, under Node and Bun.

const { randomUUID } = require("node:crypto");
const { Hookwise } = require("./hookwise.cjs");
const { HookwiseError } = require("./core.cjs");

class Engine {
  constructor(hw) {
    this._hw = hw;
    this._pending = new Map(); // callId -> {tool, sessionId}: waiting for executePostHook
    this._last = new Map(); // "sessionId\0tool" -> callId of the latest executePreHook
  }

  /** How the maenifold CLI was found: `{ path, source, error? }` (null if start-up failed). */
  get discovery() {
    return this._hw.discovery;
  }

  /**
   * Before a tool runs. Never mutates the caller's objects and never throws.
   * @returns {Promise<{ args: object, context: string|null, concepts: string[], callId: string, deliverWithResult: boolean }>}
   *   `args`: the arguments to run the tool with (a changed copy, or the same object when
   *   nothing changed); `deliverWithResult`: pass the tool's result to `completeToolCall`.
   *   `dryRun`: enforcement decides as the hook would but records nothing (no metrics line,
   *   no cooldown): what would happen.
   */
  async augmentToolCall({ tool, args, callId, sessionId, dryRun } = {}) {
    const id = callId || randomUUID();
    const copy = args && typeof args === "object" ? structuredClone(args) : args;
    const r = await this._hw.toolBefore({ tool: String(tool), sessionId: sessionId || "", callId: id, args: copy, dryRun: !!dryRun });
    const blocked = !!(r && typeof r.block === "string");
    const changed = !blocked && !!(r && r.mutations && r.mutations.length);
    return {
      args: changed ? copy : args,
      context: (r && r.context) || null,
      concepts: (r && r.concepts) || [],
      callId: id,
      deliverWithResult: !!(r && r.followUp),
      blocked,
      ...(blocked ? { reason: r.block } : {}),
      advice: (r && r.advice) || null,
      enforcement: (r && r.enforcement) || null,
    };
  }

  /**
   * Pre-action enforcement (and knowledge context) before a tool runs, for hosts that place
   * text themselves. Never throws.
   * @returns {Promise<{ blocked: boolean, reason?: string, contextInjection?: string, decision?: object }>}
   *   `blocked`: do not run the tool; show `reason` to the model (a retry of the same call
   *   within the cooldown passes). `contextInjection`: advice and knowledge context to give
   *   the model with this call.
   */
  async executePreHook({ toolName, params, sessionId, workspaceRoot, callId: given } = {}) {
    void workspaceRoot; // the engine's root is its `cwd` (createEngine)
    const callId = given || randomUUID();
    const tool = String(toolName);
    const copy = params && typeof params === "object" ? structuredClone(params) : params ?? {};
    const r = await this._hw.toolBefore({ tool, sessionId: sessionId || "", callId, args: copy });
    if (r && r.followUp) {
      if (this._hw.watched.has(tool)) {
        // Intent governance records the change after the tool ran: executePostHook with this
        // call's params. Oldest first out when a host never calls it.
        this._pending.set(callId, { tool, sessionId: sessionId || "" });
        if (this._pending.size > 1024) this._pending.delete(this._pending.keys().next().value);
      } else {
        // the host places the text itself: drop what waits for this call's result
        await this._hw.toolAfter({ tool, sessionId: sessionId || "", callId, output: { output: "" } });
      }
    }
    const out = { blocked: !!(r && typeof r.block === "string"), callId };
    if (out.blocked) out.reason = r.block;
    const text = [r && r.advice, r && r.context].filter(Boolean).join("\n\n");
    if (!out.blocked && text) out.contextInjection = text;
    if (r && r.enforcement) out.decision = r.enforcement;
    this._last.set(`${sessionId || ""}\0${tool}`, callId);
    if (this._last.size > 1024) this._last.delete(this._last.keys().next().value);
    return out;
  }

  /**
   * After a tool ran (the dispatcher's post-hook): intent governance appends the Agent Trace
   * record of the change. `callId`: the one executePreHook returned (without it, the latest
   * pre-hook call of this session and tool). `result`: the tool's result; `failed: true` (or a
   * result `{error}` / `{success: false}`) records nothing. Never throws.
   * @returns {Promise<{ recorded: boolean, id?: string, notice?: string }>}
   */
  async executePostHook({ toolName, params, result, sessionId, callId, failed } = {}) {
    const tool = String(toolName);
    const key = `${sessionId || ""}\0${tool}`;
    const id = callId || this._last.get(key);
    if (this._last.get(key) === id) this._last.delete(key);
    const pending = id && this._pending.get(id);
    if (!pending) return { recorded: false };
    this._pending.delete(id);
    const bad = failed === true || !!(result && typeof result === "object" && (result.error || result.success === false));
    const box = { output: "" };
    const args = params && typeof params === "object" ? params : {};
    const r = await this._hw.toolAfter({ tool, sessionId: sessionId || "", callId: id, output: box, args, failed: bad });
    const out = { recorded: !!(r && typeof r.recorded === "string") };
    if (out.recorded) out.id = r.recorded;
    if (box.output.trim()) out.notice = box.output.trim();
    return out;
  }

  /**
   * Intent governance: make `intentId` the session's active intent (the
   * `select_active_intent` tool). `text` is what the model should read either way.
   * @returns {Promise<{ ok: boolean, intentId?: string, text: string }>}
   */
  async selectIntent(sessionId, intentId) {
    const r = await this._hw.selectIntent(sessionId, intentId);
    return { ok: !!r.ok, ...(r.intentId ? { intentId: r.intentId } : {}), text: String(r.text ?? "") };
  }

  /** Intent governance: the `<intent_context>` text for the session's system prompt ("" when off). */
  async intentContext(sessionId) {
    return this._hw.intentContext(sessionId);
  }

  /** Intent governance is on for this workspace (the gate and the trace are wired). */
  get governance() {
    return this._hw.governanceOn;
  }

  /**
   * Intent governance: verify `.orchestration/agent_trace.jsonl`'s hash chain.
   * @returns {Promise<{ ok: boolean, path: string, lines: number, problems: {line: number, kind: string, message: string}[], error?: string }>}
   */
  async verifyTrace() {
    return this._hw.verifyTrace();
  }

  /**
   * The enforcement metrics: a summary, or (`verify`) the hash chain checked.
   * @returns {Promise<{ ok: boolean, text: string, found?: boolean, metricsFile?: string, stateFile?: string }>}
   */
  async metrics({ verify = false } = {}) {
    return (await this._hw.run({ hook: "metrics", verify: !!verify })) || { ok: false, text: "hookwise is not running" };
  }

  /**
   * After a tool ran: the result text the model should read (context appended where it could
   * not go into the arguments). `args`: the arguments the tool ran with (intent governance
   * records the change from them). Never throws.
   * @returns {Promise<{ output: string }>}
   */
  async completeToolCall({ tool, callId, sessionId, output, args } = {}) {
    const box = { output: typeof output === "string" ? output : String(output ?? "") };
    await this._hw.toolAfter({ tool: String(tool), sessionId: sessionId || "", callId, output: box, args });
    return { output: box.output };
  }

  /**
   * The context a new session would start with, computed now.
   * @returns {Promise<{ project: string, context?: string, concepts: {name: string, files: number}[], calls: number, failures: string[] }>}
   */
  async sessionPreview({ project, strategy } = {}) {
    const r = await this._hw.run({ hook: "session.preview", project: project ?? null, strategy: strategy ?? null });
    return r || { project: project || "", concepts: [], calls: 0, failures: ["hookwise is not running"] };
  }

  /** What hookwise knows about itself: knowledge source, CLI discovery, warnings, cache. */
  async doctor() {
    return (await this._hw.run({ hook: "doctor" })) || { discovery: this.discovery, source: null, warnings: ["hookwise is not running"] };
  }

  /**
   * Create hookwise's configuration files in the workspace (never overwriting); with
   * `governance: true` also `.orchestration/active_intents.yaml` (`active_intents: []`), which
   * turns intent governance on from the next start.
   */
  async scaffold({ governance = false } = {}) {
    const cwd = this._hw.o.cwd ?? process.cwd();
    const r = (await this._hw.run({ hook: "init.scaffold", cwd })) || { created: [], kept: [], failed: ["hookwise is not running"] };
    if (!governance) return r;
    const g = (await this._hw.run({ hook: "governance.scaffold", cwd })) || { created: [], kept: [], failed: ["hookwise is not running"] };
    return { created: [...r.created, ...g.created], kept: [...r.kept, ...g.kept], failed: [...r.failed, ...g.failed] };
  }

  /**
   * Stop the warm maenifold session, kill every process this engine started and close the
   * vault watcher (which never keeps the process alive, but a long-lived host that drops an
   * engine should call this).
   */
  dispose() {
    return this._hw.dispose();
  }
}

/**
 * Create an engine.
 * @param {object} [opts]
 * @param {object} [opts.options]   the same options as the OpenCode plugin
 * @param {string} [opts.cwd]       the workspace root
 * @param {object} [opts.env]       environment (default process.env)
 * @param {(argv: string[], o: {timeoutMs: number, maxBytes: number}) => Promise<object>} [opts.runner]
 *        runs the maenifold CLI (default: Bun.spawn / child_process)
 * @param {(level: string, message: string) => void} [opts.log]
 * @param {string} [opts.wasmPath]  where hookwise_bg.wasm is, when bundled elsewhere
 * @param {Uint8Array} [opts.wasmBytes]
 * @param {boolean} [opts.watch]    false: do not watch the vault folder; it is re-listed when
 *        its index is older than `vaultRefreshMs`
 * @param {string} [opts.host]      whose tool names and argument keys the calls use: "vscode"
 *        (default: Roo Code's, OpenCode's and OpenClaw's names), "opencode", "openclaw", "claude-code"
 */
async function createEngine(opts = {}) {
  const hw = new Hookwise(opts);
  await hw.init();
  return new Engine(hw);
}

module.exports = { createEngine, Engine, HookwiseError };

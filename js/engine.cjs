"use strict";
// The host-neutral engine API, for VS Code extensions and any host that dispatches tools
// itself. No OpenCode types. Importable with `require` and `import`, under Node and Bun.

// the lean wasm compiles in the background while the rest loads (an engine is what this file is for)
try {
  require("./core.cjs").compileSoon();
} catch {
  /* core.cjs broken: the stand-in below fails closed */
}

// node:crypto (~3 ms to load) when a call first needs an id, not at start-up
const randomUUID = () => require("node:crypto").randomUUID();
// a glue file that cannot load leaves a stand-in that still fails closed (js/failsafe.cjs)
const { Hookwise } = require("./failsafe.cjs").loadHookwise(() => require("./hookwise.cjs"));
const { HookwiseError } = (() => {
  try {
    return require("./core.cjs");
  } catch {
    // core.cjs broken: the stand-in Hookwise above fails closed; errors keep their class name
    return { HookwiseError: class HookwiseError extends Error {} };
  }
})();

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
  async augmentToolCall(input) {
    let tool = "";
    let id = "";
    let args;
    let r = null;
    try {
      const { tool: t, args: a, callId, sessionId, dryRun } = input || {};
      args = a;
      id = str(callId) || randomUUID();
      tool = toolName(t);
      const { copy, bad } = copyArgs(this._hw, args, tool);
      args = copy;
      r = await this._hw.toolBefore({ tool: tool ?? "", sessionId: str(sessionId), callId: id, args: copy, dryRun: !!dryRun, unreadable: bad });
      // our own copy: the core's edits go into it
      if (r && r.edits && typeof r.block !== "string") this._hw.applyEdits(copy, r);
    } catch (e) {
      r = this._hw.failClosed(tool ?? "", e);
    }
    return this._augmented(r, args, input, id);
  }

  _augmented(r, copy, input, id) {
    const args = guarded(() => input.args);
    const blocked = !!(r && typeof r.block === "string");
    const changed = !blocked && !!(r && Array.isArray(r.edits) && r.edits.length);
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
  async executePreHook(input) {
    let tool = "";
    let callId = "";
    let sessionId = "";
    let r = null;
    try {
      const { toolName: t, params, sessionId: sid, callId: given } = input || {}; // workspaceRoot: the engine's `cwd`
      callId = str(given) || randomUUID();
      sessionId = str(sid);
      tool = toolName(t);
      const { copy, bad } = copyArgs(this._hw, params ?? {}, tool);
      // fixedArgs: this API hands back no arguments, the host runs its own (the core decides what that means)
      r = await this._hw.toolBefore({ tool: tool ?? "", sessionId, callId, args: copy, unreadable: bad, fixedArgs: true });
    } catch (e) {
      r = this._hw.failClosed(tool ?? "", e);
    }
    return this._preHooked(r, tool ?? "", sessionId, callId);
  }

  async _preHooked(r, tool, sessionId, callId) {
    if (r && r.followUp) {
      if (this._hw.gates(tool)) {
        // Intent governance records the change after the tool ran: executePostHook with this
        // call's params. Oldest first out when a host never calls it.
        this._pending.set(callId, { tool, sessionId: sessionId || "" });
        if (this._pending.size > 1024) this._pending.delete(this._pending.keys().next().value);
      } else {
        // the host places the text itself: drop what waits for this call's result
        await this._hw.toolAfter({ tool, sessionId: sessionId || "", callId }).catch(() => null);
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
  async executePostHook(input) {
    try {
      return await this._postHook(input || {});
    } catch (e) {
      this._hw.log("error", `hookwise executePostHook: ${e && e.message}`);
      return { recorded: false };
    }
  }

  async _postHook({ toolName: t, params, result, sessionId, callId, failed }) {
    const tool = toolName(t) ?? "";
    const key = `${sessionId || ""}\0${tool}`;
    const id = callId || this._last.get(key);
    if (this._last.get(key) === id) this._last.delete(key);
    const pending = id && this._pending.get(id);
    if (!pending) return { recorded: false };
    this._pending.delete(id);
    const bad = failed === true || !!(result && typeof result === "object" && (result.error || result.success === false));
    const args = params && typeof params === "object" ? params : {};
    const r = await this._hw.toolAfter({ tool, sessionId: sessionId || "", callId: id, args, failed: bad });
    const out = { recorded: !!(r && typeof r.recorded === "string") };
    if (out.recorded) out.id = r.recorded;
    const notice = r && typeof r.withResult === "string" ? r.withResult.trim() : "";
    if (notice) out.notice = notice;
    return out;
  }

  /**
   * Intent governance: make `intentId` the session's active intent (the
   * `select_active_intent` tool). `text` is what the model should read either way.
   * @returns {Promise<{ ok: boolean, intentId?: string, text: string }>}
   */
  async selectIntent(sessionId, intentId) {
    const r = await this._hw.selectIntent(str(sessionId), str(intentId));
    return { ok: !!r.ok, ...(r.intentId ? { intentId: r.intentId } : {}), text: String(r.text ?? "") };
  }

  /**
   * The tools to offer the model now, as the core defines them: `select_active_intent` while
   * intent governance is on, the knowledge tools while a knowledge source answers. A copy.
   * @returns {{ name: string, description: string, inputSchema: object }[]}
   */
  tools() {
    return this._hw.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: JSON.parse(JSON.stringify(t.inputSchema)) }));
  }

  /**
   * The model called one of `tools()`: `text` is the tool result it reads; `isError` when the
   * call failed (bad input, unknown tool, the source could not answer). Never throws.
   * `sessionId`: the model's session (intent governance selects per session).
   * @returns {Promise<{ text: string, isError: boolean }>}
   */
  async callTool(name, input, sessionId) {
    try {
      return await this._hw.callTool(str(name), input, str(sessionId));
    } catch (e) {
      return { text: `hookwise could not answer \`${str(name)}\`: ${e && e.message}`, isError: true };
    }
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
   * Intent governance: verify the Agent Trace — every segment in `.orchestration/trace/` (its
   * hash chain and its head) and the single-file log of older versions; `anchor`: a line
   * printed earlier by `traceHead`, which the trace must still hold. `text`: the verdict.
   * @returns {Promise<{ ok: boolean, text: string, records: number, segments: object[], path: string, headPath: string, lines: number, problems: {line: number, kind: string, message: string, segment?: string}[], error?: string }>}
   */
  async verifyTrace(o = {}) {
    return this._hw.verifyTrace(o && typeof o === "object" ? o : {});
  }

  /**
   * Intent governance: the Agent Trace's head, to anchor in a commit message or a CI log
   * (`text`); `init: true` writes it for the log as it is (a log from an older hookwise).
   * @returns {Promise<{ ok: boolean, written?: boolean, text?: string, message: string }>}
   */
  async traceHead(o = {}) {
    return this._hw.traceHead(o && typeof o === "object" ? o : {});
  }

  /**
   * Intent governance: the project as one self-contained HTML page (`html`): the trace's
   * verification at the top (`verify`, as `verifyTrace` answers; `ok` is its verdict), the
   * intents, each changed file's lines by intent and agent, a timeline, enforcement's blocks
   * and advice by SOP; `text`: the verdict in one sentence. Redacted and escaped; the page runs no script and loads nothing.
   * @returns {Promise<{ ok: boolean, text: string, html: string, records: number, files: number, verify: { ok: boolean, path: string, lines: number, problems: {line: number, kind: string, message: string}[], error?: string } }>}
   */
  async traceReport() {
    return this._hw.traceReport();
  }

  /**
   * Intent governance: who wrote each line of `path` (absolute, or relative to the workspace)
   * as it is now, from the Agent Trace: per line `{line, state: "agent"|"changed"|"unattributed",
   * granularity?, recordId, time, intent: {id, name}, host, model, session, tool, mutationClass,
   * decisions}` (the writer's fields on agent and changed lines), and the chain's verdict
   * (`verify`). Loads the policy core on demand. Never throws: a file it may not read is
   * `{ok: false, error}`.
   * @returns {Promise<import("./engine").BlameResult>}
   */
  async blame(path, o = {}) {
    try {
      return await this._hw.blame(path, o && typeof o === "object" ? o : {});
    } catch (e) {
      return { path: str(path), ok: false, error: `hookwise could not blame: ${e && e.message}`, lines: [], records: 0, summary: { agent: 0, changed: 0, unattributed: 0 } };
    }
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
  async completeToolCall(input) {
    const output = guarded(() => input.output);
    let text = typeof output === "string" ? output : output === undefined || output === null ? "" : str(output);
    try {
      const { tool, callId, sessionId, args } = input || {};
      const r = await this._hw.toolAfter({ tool: toolName(tool) ?? "", sessionId: str(sessionId), callId: str(callId), args });
      if (r && typeof r.withResult === "string" && r.withResult) text += `\n\n${r.withResult}`;
    } catch (e) {
      this._hw.log("error", `hookwise completeToolCall: ${e && e.message}`);
    }
    return { output: text };
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
 * @param {boolean} [opts.runPrograms] false: run no program (maenifold is found and reported,
 *        never started): what `hookwise trace`, `metrics` and `doctor` use
 */
async function createEngine(opts = {}) {
  const hw = new Hookwise(opts);
  await hw.init();
  // Without its WebAssembly the engine could only pass every call through unchanged: the
  // caller learns it now, not from a silent no-op (a plugin host instead logs and runs on).
  // With governance or enforcement configured it blocks instead (`hw.cold`): never a no-op then.
  if (hw.startError && hw.startError.kind === "WasmMissing" && !hw.cold) {
    await hw.dispose();
    throw hw.startError;
  }
  return new Engine(hw);
}

/** A tool name as the core reads it; `null` when it has no string form. */
function toolName(t) {
  if (typeof t === "string") return t;
  try {
    return String(t);
  } catch {
    return null;
  }
}

/** An id or session as a string ("" when it has none). */
function str(v) {
  if (typeof v === "string") return v;
  if (v === undefined || v === null) return "";
  return toolName(v) ?? "";
}

function guarded(f) {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/**
 * The copy of a caller's arguments that hookwise may change, or why it could not make one (a
 * code for the core: a tool name with no string form, or arguments that cannot cross whole).
 */
function copyArgs(hw, args, tool) {
  if (tool === null) return { copy: undefined, bad: "value:tool name" };
  if (!args || typeof args !== "object") return { copy: args, bad: typeof args === "bigint" || typeof args === "function" || typeof args === "symbol" ? `value:${typeof args}` : null };
  const bad = hw.unreadable(args);
  if (bad) return { copy: undefined, bad };
  try {
    return { copy: structuredClone(args), bad: null };
  } catch (e) {
    return { copy: undefined, bad: `value:${(e && e.name) || "uncloneable"}` };
  }
}

module.exports = { createEngine, Engine, HookwiseError };

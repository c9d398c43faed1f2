"use strict";
// The host-neutral engine API, for VS Code extensions and any host that dispatches tools
// itself. No OpenCode types. Importable with `require` and `import`, under Node and Bun.

const { randomUUID } = require("node:crypto");
const { Hookwise } = require("./hookwise.cjs");
const { HookwiseError } = require("./core.cjs");

class Engine {
  constructor(hw) {
    this._hw = hw;
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
   */
  async augmentToolCall({ tool, args, callId, sessionId } = {}) {
    const id = callId || randomUUID();
    const copy = args && typeof args === "object" ? structuredClone(args) : args;
    const r = await this._hw.toolBefore({ tool: String(tool), sessionId: sessionId || "", callId: id, args: copy });
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
  async executePreHook({ toolName, params, sessionId, workspaceRoot } = {}) {
    void workspaceRoot; // the engine's root is its `cwd` (createEngine)
    const callId = randomUUID();
    const copy = params && typeof params === "object" ? structuredClone(params) : params ?? {};
    const r = await this._hw.toolBefore({ tool: String(toolName), sessionId: sessionId || "", callId, args: copy });
    if (r && r.followUp) {
      // the host places the text itself: drop what waits for this call's result
      await this._hw.toolAfter({ tool: String(toolName), sessionId: sessionId || "", callId, output: { output: "" } });
    }
    const out = { blocked: !!(r && typeof r.block === "string") };
    if (out.blocked) out.reason = r.block;
    const text = [r && r.advice, r && r.context].filter(Boolean).join("\n\n");
    if (!out.blocked && text) out.contextInjection = text;
    if (r && r.enforcement) out.decision = r.enforcement;
    return out;
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
   * not go into the arguments). Never throws.
   * @returns {Promise<{ output: string }>}
   */
  async completeToolCall({ tool, callId, sessionId, output } = {}) {
    const box = { output: typeof output === "string" ? output : String(output ?? "") };
    await this._hw.toolAfter({ tool: String(tool), sessionId: sessionId || "", callId, output: box });
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

  /** Create hookwise's configuration files in the workspace (never overwriting). */
  async scaffold() {
    return (await this._hw.run({ hook: "init.scaffold", cwd: this._hw.o.cwd ?? process.cwd() })) || { created: [], kept: [], failed: ["hookwise is not running"] };
  }

  /** Stop the warm maenifold session and every process this engine started. */
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
 */
async function createEngine(opts = {}) {
  const hw = new Hookwise(opts);
  await hw.init();
  return new Engine(hw);
}

module.exports = { createEngine, Engine, HookwiseError };

"use strict";
// The Cline CLI plugin (`.cline/plugins/hookwise.js`, written by `hookwise init --cline`, loads
// `createPlugin()` from here): maps Cline's plugin hooks onto one Hookwise (host profile
// `cline`, src/hosts/cline.rs). Cline 3.x runs a project's plugins in a sandbox
// process and gives each hook 3 s and the plugin's load (setup included) 4 s; a hook answers
// in JSON. What each hook does (docs/cline.md):
// - setup: starts the core in the project (`workspaceInfo.rootPath`) and registers the core's
//   model tools (`select_active_intent`, the knowledge tools) as Cline tools;
// - beforeRun: session-start context and the intent context, as `appendContext` (a
//   `<hook_context>` message the model reads in the run's first request);
// - beforeTool: the pre-hook; a block is `{skip: true, reason}`, the reason the tool's error
//   the model reads;
// - afterTool: the context and advice for the call, as `appendContext`.
// Every hook catches everything and never throws: a block is an answer, not an exception.

// a glue file that cannot load leaves a stand-in that still fails closed (js/failsafe.cjs)
const { Hookwise } = require("./failsafe.cjs").loadHookwise(() => require("./hookwise.cjs"));
// the plugin adapters' shared jobs: the hook guard, the block while undecided, the calls
// awaiting their after-hook, once per session, model-tool registration
const { guarded, undecided, Pending, Once, registerTools, allTools } = require("./plugin-kit.cjs");

/** Our budget per hook, under Cline's 3 s sandbox hook timeout. */
const GUARD_MS = 2500;
/**
 * How long setup waits for the core. Cline gives the whole plugin load (its sandbox process
 * started, every plugin imported, every setup run) 4 s, and past that drops every plugin and
 * runs without them; so setup never waits long: a core not ready by then finishes starting in
 * the background, and the hooks wait for it.
 */
const SETUP_MS = 500;

/** The session a hook or tool context belongs to: Cline's conversation, else its agent. */
function sessionOf(c) {
  const s = c && (c.snapshot || c);
  return String((s && (s.conversationId || s.agentId)) || (c && (c.conversationId || c.agentId)) || "");
}

/** `provider/model` of the newest assistant message in a snapshot, or undefined. */
function modelOf(snapshot) {
  const list = snapshot && Array.isArray(snapshot.messages) ? snapshot.messages : [];
  for (let i = list.length - 1; i >= 0; i--) {
    const m = list[i] && list[i].modelInfo;
    if (m && typeof m.id === "string" && m.id) return m.provider && !m.id.startsWith(`${m.provider}/`) ? `${m.provider}/${m.id}` : m.id;
  }
  return undefined;
}

/**
 * The plugin object Cline loads (`export default`).
 * @param {object} [o]
 * @param {object} [o.options]  hookwise's options (else the project's .hookwise/hookwise.json)
 * @param {(o: object) => object} [o.createHookwise]  for tests
 */
function createPlugin(o = {}) {
  const make = o.createHookwise || ((x) => new Hookwise(x));
  const options = o.options || {};
  const guardMs = o.guardMs ?? GUARD_MS;
  let hw = null;
  let cwd = process.cwd();
  let logger = null;
  /** callId → the pending after-hook of a call the core follows up (Cline calls afterTool for
   * every call, skipped ones too; a bound all the same) */
  const pending = new Pending(1024);
  /** sessions whose start context was given */
  const started = new Once();
  /** session → the model the core was last told of */
  const models = new Map();

  const log = (level, message) => {
    try {
      const f = logger && (logger[level === "warning" ? "warn" : level] || logger.log || logger.info);
      if (typeof f === "function") f.call(logger, `hookwise: ${message}`);
      else if (level === "error" || level === "warn") process.stderr.write(`hookwise: ${message}\n`);
    } catch {
      /* logging must not fail a hook */
    }
  };

  function instance() {
    if (!hw) {
      hw = make({ host: "cline", flavor: "policy", options, cwd, directory: cwd, log });
      Promise.resolve(hw.init()).catch(() => {});
    }
    return hw;
  }

  /** A call the core could not decide in time or at all: blocked if governance or enforcement is on. */
  function closed(tool, e) {
    let h = null;
    try {
      h = instance();
    } catch {
      /* no instance: the project's files decide */
    }
    const b = undecided({ hw: h, tool, error: e, cwd, options, host: "cline", log });
    log(b ? "warn" : "error", `beforeTool ${tool}: ${(e && e.message) || e}: ${b ? "blocked (governance or enforcement is on)" : "the call proceeds unchecked"}`);
    return b ? { skip: true, reason: b } : undefined;
  }

  async function setup(api, ctx) {
    try {
      logger = (ctx && ctx.logger) || null;
      const root = ctx && ctx.workspaceInfo && ctx.workspaceInfo.rootPath;
      if (typeof root === "string" && root) cwd = root;
      const h = instance();
      const ready = await guarded(SETUP_MS, () => h.init().then(() => true), () => false, () => false);
      // ready: the tools the core offers in this project; else every tool it may offer (the
      // core's own list, tool-specs.json), which it answers once it runs
      const list = ready ? h.tools : allTools();
      if (!ready) log("warn", `the core was not ready within ${SETUP_MS} ms: every hookwise tool is offered, the core answers them once it runs`);
      const tool = (t) => ({
        name: t.name,
        description: String(t.description ?? ""),
        inputSchema: t.inputSchema,
        async execute(input, tctx) {
          const r = await h.callTool(t.name, input, sessionOf(tctx));
          return r.isError ? `Error: ${r.text}` : r.text;
        },
      });
      registerTools(list, tool, (x) => api.registerTool(x), log);
    } catch (e) {
      log("error", `setup: ${e && e.message}`);
    }
  }

  async function beforeRun(c) {
    const sessionId = sessionOf(c);
    if (!sessionId || started.has(sessionId)) return undefined;
    return guarded(
      guardMs,
      async () => {
        const h = instance();
        started.first(sessionId);
        const created = await h.sessionCreated({ id: sessionId, parentID: (c && c.snapshot && c.snapshot.parentAgentId) || null });
        const system = [];
        await h.systemTransform(sessionId, system, modelOf(c && c.snapshot));
        const parts = [...system];
        if (created && created.prompt && created.prompt.text) parts.push(created.prompt.text);
        return parts.length ? { appendContext: parts.join("\n\n") } : undefined;
      },
      () => {
        log("warn", `session context for ${sessionId} not ready after ${guardMs} ms; this run goes without it`);
        return undefined;
      },
      (e) => {
        log("error", `beforeRun: ${e && e.message}`);
        return undefined;
      },
    );
  }

  async function beforeTool(c) {
    const tool = c && ((c.tool && c.tool.name) || (c.toolCall && c.toolCall.toolName));
    if (typeof tool !== "string" || !tool) return closed("", new Error("a tool call without a name"));
    const callId = (c.toolCall && c.toolCall.toolCallId) || "";
    const sessionId = sessionOf(c);
    return guarded(
      guardMs,
      async () => {
        const h = instance();
        // the model's id, for the records (Cline names it on its assistant messages)
        const model = modelOf(c.snapshot);
        if (model && h.started && models.get(sessionId) !== model) {
          models.set(sessionId, model);
          await h.systemTransform(sessionId, [], model);
        }
        // the input as the tool will read it; a bare string or list is Cline's too
        const args = c.input === undefined ? {} : c.input;
        const r = await h.toolBefore({ tool, sessionId, callId, args, resultOnly: true });
        if (r && typeof r.block === "string" && r.block) return { skip: true, reason: r.block };
        // the core changed the arguments (a governed shell under the confining launcher): Cline
        // runs the input a hook returns
        const input = r && r.edits ? h.edited(args, r) : args;
        if (r && r.followUp && callId) pending.add(callId, { tool, sessionId, args: input });
        if (input !== args) return { input };
        return undefined;
      },
      () => closed(tool, new Error(`took over ${guardMs} ms`)),
      (e) => closed(tool, e),
    );
  }

  async function afterTool(c) {
    const callId = c && c.toolCall && c.toolCall.toolCallId;
    const p = pending.take(callId);
    if (!p) return undefined;
    return guarded(
      guardMs,
      async () => {
        const failed = !!(c.result && c.result.isError);
        const r = await instance().toolAfter({ tool: p.tool, sessionId: p.sessionId, callId, args: p.args, failed });
        const text = (r && typeof r.withResult === "string" && r.withResult) || "";
        return text ? { appendContext: text } : undefined;
      },
      () => {
        log("warn", `context for ${p.tool} took over ${guardMs} ms: left out`);
        return undefined;
      },
      (e) => {
        log("error", `afterTool ${p.tool}: ${e && e.message}`);
        return undefined;
      },
    );
  }

  return {
    name: "hookwise",
    manifest: { capabilities: ["hooks", "tools"] },
    setup,
    hooks: { beforeRun, beforeTool, afterTool },
  };
}

module.exports = { createPlugin, sessionOf, modelOf, GUARD_MS };

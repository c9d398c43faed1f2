"use strict";
// The OpenClaw plugin: maps OpenClaw's plugin API onto Hookwise instances (one per agent
// workspace), the same object and core calls the OpenCode plugin uses. No policy here.
//
// OpenClaw blocks a tool call when a `before_tool_call` handler throws or runs past its budget
// (15 s), and replaces a tool's output with an error when result middleware throws. So every
// handler catches everything and gives up quietly after `guardMs` (far below 15 s); the only
// deliberate effect on a call is a block: `{ block: true, blockReason }`.
//
// Where text reaches the model (checked against openclaw 2026.9.6, tests/e2e-openclaw/): a
// `params` rewrite runs but the model's history keeps its original call, so changed arguments
// are never read. hookwise therefore asks the core to place everything with the result
// (`resultOnly`) and appends it to the tool's result in agent tool-result middleware, which runs
// before OpenClaw hands the result to the model. The tool itself runs with its own arguments.

// a glue file that cannot load leaves a stand-in that still fails closed (js/failsafe.cjs)
const { Hookwise } = require("./failsafe.cjs").loadHookwise(() => require("./hookwise.cjs"));
// the plugin adapters' shared hook guard
const { guarded } = require("./plugin-kit.cjs");

const ID = "hookwise";
/** Our own budget per hook, well under OpenClaw's 15 s fail-closed timeout. */
const GUARD_MS = 10_000;
/** OpenClaw's middleware limits: 200 content blocks, 100,000 characters a text block. */
const MAX_BLOCKS = 200;
const MAX_TEXT = 100_000;
const MAX_PENDING = 1024;
/**
 * Every tool the core's registry may offer (declared in the manifest's `contracts.tools`):
 * OpenClaw asks each factory when it assembles a run's tools; a tool the plan does not carry
 * for that workspace is not offered. Their descriptions and JSON Schemas come from the plan.
 */
const MODEL_TOOLS = ["select_active_intent", "knowledge_search", "knowledge_context", "knowledge_read", "knowledge_remember"];

/** The session an OpenClaw hook or tool context belongs to: its session id, else its key. The
 * same for every hook and the tool, so an intent selected by the tool gates that session's calls. */
function sessionOf(ctx) {
  return (ctx && (ctx.sessionId || ctx.sessionKey)) || "";
}

/** `provider/model` from a hook context (for Agent Trace records), or undefined. */
function modelOf(ctx) {
  const id = ctx && ctx.modelId;
  if (typeof id !== "string" || !id) return undefined;
  return ctx.modelProviderId && !id.startsWith(`${ctx.modelProviderId}/`) ? `${ctx.modelProviderId}/${id}` : id;
}

/** `instances`: workspace and options → Hookwise; `pending`: toolCallId → { hw, tool, sessionId } (text
 * waiting for that call's result); `withResult`: some registration got tool-result middleware. */
function newState() {
  return { instances: new Map(), pending: new Map(), withResult: false };
}

/**
 * The plugin object OpenClaw loads (`export default`). `deps` exist for tests.
 * @param {object} [deps]
 * @param {(o: object) => object} [deps.createHookwise]  default: `new Hookwise(o)`
 * @param {number} [deps.guardMs]
 */
function createPlugin(deps = {}) {
  const make = deps.createHookwise || ((o) => new Hookwise(o));
  const guardMs = deps.guardMs ?? GUARD_MS;
  // Shared by every registration: OpenClaw loads a plugin into more than one registry (the
  // gateway's hooks, the agent runtime's middleware), each time as a fresh module instance, and
  // a call seen by before_tool_call in one must be found by the middleware of another. The
  // published plugin keeps this state on globalThis (see below); tests pass their own.
  const shared = deps.shared || newState();
  const { instances, pending } = shared;

  function register(api) {
    const logger = (api && api.logger) || {};
    const log = (level, message) => {
      try {
        const f = logger[level === "warning" ? "warn" : level] || logger.info;
        if (typeof f === "function") f.call(logger, `hookwise: ${message}`);
      } catch {
        /* logging must not fail a hook */
      }
    };
    const options = (api && api.pluginConfig) || {};
    // where the user installed the plugin (OpenClaw loads a copy of its files without their
    // dependencies): the confined shell's launcher is found beside it
    const installDir = api && typeof api.rootDir === "string" && require("node:path").isAbsolute(api.rootDir) ? api.rootDir : "";

    // The project is the agent's workspace, where OpenClaw runs its tools.
    const workspaceOf = (agentId) => {
      try {
        const resolve = api.runtime && api.runtime.agent && api.runtime.agent.resolveAgentWorkspaceDir;
        if (typeof resolve === "function") {
          const dir = resolve(api.config, agentId || "main");
          if (typeof dir === "string" && dir) return dir;
        }
      } catch (e) {
        log("warn", `no workspace for agent ${agentId}: ${e && e.message}; using ${process.cwd()}`);
      }
      return process.cwd();
    };
    // one per workspace and options: a config reload (new registration) gets a fresh one
    const optionsKey = JSON.stringify(options);
    const instanceFor = (agentId) => {
      const root = workspaceOf(agentId);
      const key = `${root}\0${optionsKey}`;
      let hw = instances.get(key);
      if (!hw) {
        hw = make({ options, cwd: root, directory: root, log, host: "openclaw", ...(installDir ? { installDir } : {}) });
        instances.set(key, hw);
        Promise.resolve(hw.init()).catch(() => {});
      }
      return hw;
    };

    // Start the default agent's instance now (it decides whether intent governance is on, which
    // the synchronous tool factory below must know before the first turn). Not for the CLI's
    // metadata-only loads.
    const mode = api && api.registrationMode;
    if (mode === undefined || mode === "full") {
      try {
        instanceFor(undefined);
      } catch (e) {
        log("warn", `could not start: ${e && e.message}`);
      }
    }

    // The core's model tools (`select_active_intent` while governance is on for the agent's
    // workspace, the knowledge tools while a knowledge source answers). Each name its own
    // factory: OpenClaw asks them each time it assembles a run's tools.
    for (const name of MODEL_TOOLS) {
      try {
        if (typeof api.registerTool === "function") api.registerTool((ctx) => modelTool(name, ctx), { name });
      } catch (e) {
        log("warn", `${name} not registered (${e && e.message})${name === MODEL_TOOLS[0] ? ": governed changes stay blocked" : ""}`);
      }
    }

    function modelTool(name, ctx) {
      const hw = instanceFor(ctx && ctx.agentId);
      // not started yet: its plan is unknown, so no tool this time (the next run has it)
      if (!hw.started) return null;
      const t = hw.tools.find((x) => x && x.name === name);
      if (!t) return null;
      const sessionId = sessionOf(ctx);
      return {
        name,
        label: name,
        // always in the model's tool list, never deferred behind OpenClaw's tool search: block
        // messages and the session context tell the model to call them by name
        catalogMode: "direct-only",
        description: String(t.description ?? ""),
        // plain JSON Schema: OpenClaw compiles tool parameters with TypeBox's JSON Schema compiler
        parameters: t.inputSchema,
        async execute(_toolCallId, params) {
          const r = await hw.callTool(name, params, sessionId);
          return { content: [{ type: "text", text: String(r.text ?? "") }], details: { isError: !!r.isError } };
        },
      };
    }
    const selectIntentTool = (ctx) => modelTool(MODEL_TOOLS[0], ctx);

    // Text for the model goes with the result: middleware is the one channel that reaches it.
    try {
      if (typeof api.registerAgentToolResultMiddleware === "function") {
        api.registerAgentToolResultMiddleware(middleware, { runtimes: ["openclaw"] });
        shared.withResult = true;
      } else {
        log("warn", "this OpenClaw has no tool-result middleware: enforcement works, context and advice do not reach the model");
      }
    } catch (e) {
      log("warn", `tool-result middleware refused (${e && e.message}): enforcement works, context and advice do not reach the model`);
    }

    function closed(level, tool, ctx, e) {
      let r = null;
      try {
        r = instanceFor(ctx && ctx.agentId).failClosed(tool, e);
      } catch {
        /* no plan to go by: knowledge context alone */
      }
      log(level, `before_tool_call ${tool} ${(e && e.message) || e}: ${r ? "blocked (governance or enforcement is on)" : "the call proceeds unchecked"}`);
      return r ? { block: true, blockReason: r.block } : undefined;
    }

    async function beforeToolCall(event, ctx) {
      const tool = event && event.toolName;
      if (typeof tool !== "string" || !tool) return undefined;
      const callId = (event && event.toolCallId) || (ctx && ctx.toolCallId) || "";
      const sessionId = sessionOf(ctx);
      return guarded(
        guardMs,
        async () => {
          const hw = instanceFor(ctx && ctx.agentId);
          // a copy: nothing is placed in the arguments (resultOnly), and OpenClaw's own object
          // must never change under it
          let params = {};
          let unreadable;
          try {
            if (event.params && typeof event.params === "object") params = structuredClone(event.params);
          } catch (e) {
            unreadable = `value:${(e && e.name) || "uncloneable"}`; // the core decides
          }
          const r = await hw.toolBefore({ tool, sessionId, callId, args: params, resultOnly: true, unreadable });
          if (r && typeof r.block === "string" && r.block) return { block: true, blockReason: r.block };
          if (r && r.followUp && callId && shared.withResult) {
            if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value);
            pending.set(callId, { hw, tool, sessionId });
          }
          // the core changed the arguments (a governed shell under the confining launcher):
          // OpenClaw runs the `params` a hook returns
          if (r && Array.isArray(r.edits) && r.edits.length) return { params: hw.edited(params, r) };
          return undefined;
        },
        // With governance or enforcement on, what hookwise could not decide is blocked (the
        // core's words); knowledge context alone lets the call proceed.
        () => closed("warn", tool, ctx, new Error(`took over ${guardMs} ms`)),
        (e) => closed("error", tool, ctx, e),
      );
    }

    async function middleware(event) {
      const callId = event && event.toolCallId;
      const p = callId && pending.get(callId);
      if (!p) return undefined;
      pending.delete(callId);
      return guarded(
        guardMs,
        async () => {
          // the arguments the tool ran with and whether it failed: governance's record
          const args = event.args && typeof event.args === "object" ? event.args : undefined;
          const r = await p.hw.toolAfter({ tool: p.tool, sessionId: p.sessionId, callId, args, failed: !!event.isError });
          const text = (r && typeof r.withResult === "string" && r.withResult) || "";
          const result = event.result;
          if (!text || !result || !Array.isArray(result.content)) return undefined;
          if (text.length > MAX_TEXT || result.content.length >= MAX_BLOCKS) {
            log("warn", `context for ${p.tool} left out: the result is at OpenClaw's size limits`);
            return undefined;
          }
          return { result: { ...result, content: [...result.content, { type: "text", text }] } };
        },
        () => {
          log("warn", `tool-result context for ${p.tool} took over ${guardMs} ms: left out`);
          return undefined;
        },
        (e) => {
          log("error", `tool-result context for ${p.tool} failed, the result is unchanged: ${e && e.message}`);
          return undefined;
        },
      );
    }

    // Observe-only: the core's after-call (governance's trace record) for calls whose text did
    // not wait for the middleware, which makes that call itself.
    async function afterToolCall(event, ctx) {
      try {
        const tool = event && event.toolName;
        const callId = (event && event.toolCallId) || (ctx && ctx.toolCallId) || "";
        if (typeof tool !== "string" || !tool || !callId || pending.has(callId)) return;
        const hw = instances.get(`${workspaceOf(ctx && ctx.agentId)}\0${optionsKey}`);
        if (!hw) return;
        const sessionId = sessionOf(ctx);
        const args = event.params && typeof event.params === "object" ? event.params : undefined;
        const failed = !!event.error || !!(event.result && event.result.isError);
        await guarded(
          guardMs,
          () => hw.toolAfter({ tool, sessionId, callId, args, failed }),
          () => undefined,
          (e) => log("error", `after_tool_call ${tool}: ${e && e.message}`),
        );
      } catch (e) {
        log("error", `after_tool_call: ${e && e.message}`);
      }
    }

    // Session-start context (the project's knowledge), looked up once per session: in the
    // system prompt of every model call ("system", the default), or once before the user's
    // first message ("prompt"). OpenClaw skips a handler that fails or runs past 15 s.
    async function beforePromptBuild(event, ctx) {
      const sessionId = ctx && ctx.sessionId;
      if (typeof sessionId !== "string" || !sessionId) return undefined;
      return guarded(
        guardMs,
        async () => {
          const hw = instanceFor(ctx.agentId);
          const created = await hw.sessionCreated({ id: sessionId });
          const system = [];
          // with governance on, this also brings the session's <intent_context>
          await hw.systemTransform(sessionId, system, modelOf(ctx));
          const out = {};
          if (system.length) out.appendSystemContext = system.join("\n\n");
          if (created && created.prompt && created.prompt.text) out.prependContext = created.prompt.text;
          return Object.keys(out).length ? out : undefined;
        },
        () => {
          log("warn", `session context for ${sessionId} not ready after ${guardMs} ms; this turn goes without it`);
          return undefined;
        },
        (e) => {
          log("error", `before_prompt_build: ${e && e.message}`);
          return undefined;
        },
      );
    }

    try {
      api.on("before_tool_call", beforeToolCall);
      api.on("after_tool_call", afterToolCall);
      api.on("before_prompt_build", beforePromptBuild);
    } catch (e) {
      log("error", `could not register hooks, hookwise is off: ${e && e.message}`);
    }
    return { beforeToolCall, afterToolCall, beforePromptBuild, middleware, selectIntentTool, instances, pending };
  }

  return {
    id: ID,
    name: "hookwise",
    description: "Knowledge context, intent governance and pre-action enforcement for tool calls.",
    register(api) {
      try {
        register(api);
      } catch (e) {
        try {
          api.logger.error(`hookwise: not started: ${e && e.message}`);
        } catch {
          /* nothing left to tell */
        }
      }
    },
    /** For tests: register and get the handlers back (throws what `register` would log). */
    _register: register,
  };
}

// One state per process, whichever module instance OpenClaw registers.
const STATE = Symbol.for("hookwise.openclaw.state");
globalThis[STATE] = globalThis[STATE] || newState();

module.exports = { plugin: createPlugin({ shared: globalThis[STATE] }), createPlugin, guarded, GUARD_MS, SELECT_TOOL: MODEL_TOOLS[0], MODEL_TOOLS };

"use strict";
// The pi extension: maps pi's extension events onto one Hookwise instance (host profile `pi`),
// the same object and core calls the OpenCode and OpenClaw plugins use. No policy here. pi
// loads ./pi.ts (the package's `pi.extensions`), which calls `extension(pi, deps)` below.
//
// What pi does with each answer (checked against @mariozechner/pi-coding-agent 0.73.1,
// tests/e2e-pi/): `tool_call` sees the validated arguments the tool then runs with and blocks
// on `{block: true, reason}` (the reason is the tool result the model reads); the model's
// history keeps its original call, so hookwise changes no argument (`resultOnly`) and adds
// its text to the result in `tool_result`. `before_agent_start` (once per user prompt) adds to
// the system prompt; `session_before_compact` hands pi's own summarizer hookwise's preservation
// block as custom instructions. pi has no MCP: hookwise's model tools are pi tools.
//
// Every handler catches everything: the only deliberate effect on a call is a block.

// a glue file that cannot load leaves a stand-in that still fails closed (js/failsafe.cjs)
const { Hookwise } = require("./failsafe.cjs").loadHookwise(() => require("./hookwise.cjs"));

const HOST = "pi";
/** The custom message type of the session-start context (sessionContextChannel "prompt"). */
const MESSAGE_TYPE = "hookwise";

/** The session an event belongs to (pi's session id), or "". */
function sessionOf(ctx) {
  try {
    const id = ctx && ctx.sessionManager && ctx.sessionManager.getSessionId();
    return typeof id === "string" ? id : "";
  } catch {
    return "";
  }
}

/** `provider/model` of the context's model (for Agent Trace records), or undefined. */
function modelOf(ctx) {
  try {
    const m = ctx && ctx.model;
    const id = m && typeof m.id === "string" ? m.id : "";
    if (!id) return undefined;
    return typeof m.provider === "string" && m.provider && !id.startsWith(`${m.provider}/`) ? `${m.provider}/${id}` : id;
  } catch {
    return undefined;
  }
}

/** The text of pi content blocks (`[{type: "text", text}, …]` or a string). */
function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b) => b && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join("\n");
}

/** A session's messages as the core reads them (compaction), from pi's branch entries. */
function messagesOf(entries) {
  const out = [];
  for (const e of Array.isArray(entries) ? entries : []) {
    const m = e && e.type === "message" ? e.message : e && e.type === "custom_message" ? e : null;
    if (!m) continue;
    const role = m.role === "toolResult" ? "tool" : typeof m.role === "string" ? m.role : "user";
    out.push({ role, text: textOf(m.content) });
  }
  return out;
}

/**
 * The types of a JSON Schema, without its bounds: pi checks a tool's arguments against its
 * schema before the tool runs, and input past a bound must get the core's answer, which says
 * what to change (the same choice as the OpenCode plugin's zod shapes).
 */
function typesOnly(s) {
  if (!s || typeof s !== "object") return {};
  const out = {};
  for (const k of ["type", "description", "enum"]) if (s[k] !== undefined) out[k] = s[k];
  if (s.properties && typeof s.properties === "object") {
    out.properties = {};
    for (const [k, v] of Object.entries(s.properties)) out.properties[k] = typesOnly(v);
  }
  if (Array.isArray(s.required)) out.required = s.required;
  if (s.items) out.items = typesOnly(s.items);
  return out;
}

/**
 * Register hookwise with pi. `deps.piModule`: () => pi's own module (its `compact`, for the
 * preservation block); `deps.createHookwise`, `deps.cwd`, `deps.stderr`: for tests.
 */
async function extension(pi, deps = {}) {
  const debug = !!process.env.HOOKWISE_DEBUG;
  let ui = null; // pi's UI when it has one: notices go there, not into its terminal
  const log = (level, message) => {
    if (level !== "error" && !debug) return;
    try {
      const text = `hookwise ${level}: ${message}`;
      if (ui && typeof ui.notify === "function") ui.notify(text, level === "error" ? "error" : "info");
      else (deps.stderr || process.stderr).write(`${text}\n`);
    } catch {
      /* logging must not fail a hook */
    }
  };
  const seen = (ctx) => {
    try {
      if (ctx && ctx.hasUI && ctx.ui) ui = ctx.ui;
    } catch {
      /* no UI */
    }
  };
  // the branch a compaction summarizes, by session: what the core's sessionMessages reads
  const branches = new Map();
  // pi itself runs up to two compactions of one state at once (the end of a prompt and the
  // next prompt's check): one core call and one summary for both
  const compacting = new Map();
  // pi runs in the project: its tools resolve relative paths against this folder
  const cwd = deps.cwd || process.cwd();
  const o = {
    host: HOST,
    options: {},
    cwd,
    directory: cwd,
    ...(deps.runPrograms === false ? { runPrograms: false } : {}),
    log,
    extra: {
      async sessionMessages({ sessionId }) {
        return { messages: messagesOf(branches.get(sessionId)) };
      },
    },
  };
  const hw = deps.createHookwise ? deps.createHookwise(o) : new Hookwise(o);
  await hw.init();

  const on = (event, f) => {
    try {
      pi.on(event, f);
    } catch (e) {
      log("error", `could not subscribe to ${event}: ${e && e.message}`);
    }
  };

  // The one handler whose answer may stop a call: a block from governance or enforcement.
  on("tool_call", async (event, ctx) => {
    seen(ctx);
    const tool = event && event.toolName;
    try {
      // a copy: nothing is placed in the arguments (resultOnly), and pi's own object, which
      // the tool runs with, must never change under it
      let args = {};
      let unreadable;
      try {
        if (event.input && typeof event.input === "object") args = structuredClone(event.input);
      } catch (e) {
        unreadable = `value:${(e && e.name) || "uncloneable"}`; // the core decides
      }
      const callId = typeof event.toolCallId === "string" ? event.toolCallId : "";
      const r = await hw.toolBefore({ tool, sessionId: sessionOf(ctx), callId, args, resultOnly: true, unreadable });
      if (r && typeof r.block === "string" && r.block) return { block: true, reason: r.block };
      // the core changed the arguments (a governed shell under the confining launcher): pi runs
      // its own object, changed in place
      if (r && r.edits) hw.applyEdits(event.input, r);
      return undefined;
    } catch (e) {
      // With governance or enforcement on, what hookwise could not decide is blocked (the
      // core's words); knowledge context alone lets the call proceed.
      let r = null;
      try {
        r = hw.failClosed(tool, e);
      } catch {
        /* no plan to go by */
      }
      log("error", `tool_call ${tool}: ${e && e.message}: ${r ? "blocked" : "the call proceeds unchecked"}`);
      return r ? { block: true, reason: r.block } : undefined;
    }
  });

  // The core's after-call: governance's record, and the text waiting for this call's result.
  on("tool_result", async (event, ctx) => {
    seen(ctx);
    try {
      const callId = event && typeof event.toolCallId === "string" ? event.toolCallId : "";
      if (!callId) return undefined;
      const args = event.input && typeof event.input === "object" ? event.input : undefined;
      const r = await hw.toolAfter({ tool: event.toolName, sessionId: sessionOf(ctx), callId, args, failed: !!event.isError });
      const text = (r && typeof r.withResult === "string" && r.withResult) || "";
      if (!text || !Array.isArray(event.content)) return undefined;
      return { content: [...event.content, { type: "text", text }] };
    } catch (e) {
      log("error", `tool_result ${event && event.toolName}: ${e && e.message}; the result is unchanged`);
      return undefined;
    }
  });

  // Session-start context (and, under governance, the session's <intent_context>), once per
  // user prompt: in the system prompt ("system", the default) or as a message ("prompt").
  on("before_agent_start", async (event, ctx) => {
    seen(ctx);
    try {
      const sessionId = sessionOf(ctx);
      if (!sessionId) return undefined;
      const created = await hw.sessionCreated({ id: sessionId });
      const system = [];
      await hw.systemTransform(sessionId, system, modelOf(ctx));
      const out = {};
      if (system.length && typeof event.systemPrompt === "string") out.systemPrompt = `${event.systemPrompt}\n\n${system.join("\n\n")}`;
      if (created && created.prompt && created.prompt.text) out.message = { customType: MESSAGE_TYPE, content: created.prompt.text, display: false };
      return Object.keys(out).length ? out : undefined;
    } catch (e) {
      log("error", `before_agent_start: ${e && e.message}`);
      return undefined;
    }
  });

  // Compaction: the core takes the session's concepts and decisions (and files the compaction
  // memory); its block goes to pi's own summarizer as custom instructions.
  on("session_before_compact", async (event, ctx) => {
    seen(ctx);
    try {
      const sessionId = sessionOf(ctx);
      const p = event && event.preparation;
      if (!sessionId || !p) return undefined;
      const key = `${sessionId}\0${p.firstKeptEntryId}\0${p.tokensBefore}`;
      if (!compacting.has(key)) {
        const done = compact(event, ctx, sessionId);
        const forget = () => setTimeout(() => compacting.delete(key), 60_000).unref();
        done.then(forget, forget);
        compacting.set(key, done);
      }
      return await compacting.get(key);
    } catch (e) {
      log("error", `session_before_compact: ${e && e.message}; pi compacts without hookwise's block`);
      return undefined;
    }
  });

  async function compact(event, ctx, sessionId) {
    branches.set(sessionId, event.branchEntries);
    const context = [];
    try {
      await hw.compacting(sessionId, context);
    } finally {
      branches.delete(sessionId);
    }
    if (!context.length) return undefined;
    const mod = typeof deps.piModule === "function" ? await deps.piModule() : null;
    const model = ctx && ctx.model;
    if (!mod || typeof mod.compact !== "function" || !model || !ctx.modelRegistry) {
      log("error", "pi's compaction is not reachable from the extension: the summary goes without hookwise's block");
      return undefined;
    }
    const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model);
    if (!auth || auth.ok === false) return undefined;
    const custom = [event.customInstructions, ...context].filter((t) => typeof t === "string" && t).join("\n\n");
    let level;
    try {
      level = pi.getThinkingLevel();
    } catch {
      level = undefined;
    }
    const result = await mod.compact(event.preparation, model, auth.apiKey, auth.headers, custom, event.signal, level);
    return result && typeof result.summary === "string" ? { compaction: result } : undefined;
  }

  // pi tears the extension down (quit, a new or resumed session, a reload): its processes go.
  on("session_shutdown", async () => {
    try {
      await hw.dispose();
    } catch (e) {
      log("error", `session_shutdown: ${e && e.message}`);
    }
  });

  // The core's model tools (intent governance's while it is on, the knowledge tools while a
  // knowledge source answers), each a pi tool as the plan describes it.
  for (const t of hw.tools) {
    try {
      const name = String(t.name);
      pi.registerTool({
        name,
        label: name,
        description: String(t.description ?? ""),
        parameters: typesOnly(t.inputSchema),
        async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
          const r = await hw.callTool(name, params, sessionOf(ctx));
          // an error result is pi's thrown error: the model reads the core's text either way
          if (r.isError) throw new Error(String(r.text ?? ""));
          return { content: [{ type: "text", text: String(r.text ?? "") }], details: {} };
        },
      });
    } catch (e) {
      log("error", `tool ${t && t.name} not registered: ${e && e.message}`);
    }
  }
  return hw;
}

module.exports = { extension, messagesOf, typesOnly, modelOf, sessionOf, HOST };

"use strict";
// The OpenCode 2.x plugin: `setup(ctx)` maps OpenCode 2's hooks onto one Hookwise instance
// (host profile "opencode2"). A thin adapter: every decision and every model-facing text comes
// from the core; this file only carries them to where 2.x takes them.
//
// Built against the 2.x plugin API of anomalyco/opencode (read from its source; no 2.x build
// installs here): the loader `packages/core/src/plugin/module.ts` (decodes `default` as
// `{id, setup}`; options arrive as `ctx.options`), the promise adapter
// `packages/plugin/src/promise/adapter.ts` (hook callbacks awaited; a throw from
// `tool` `execute.before` rejects the call before it runs — in the adapter version with
// `attemptTool` as a `Tool.Error` carrying the message, which is what the model reads; in
// versions that wrap every hook in `Effect.promise` as a defect, the call still never runs; a
// throw from any other hook is a defect, so those never throw here; `setup`'s returned cleanup
// runs when the plugin unloads), the API types
// `packages/plugin/src/promise/{tool,session,plugin}.ts`, and the core's dispatch in
// `packages/core/src/tool.ts` (`execute.before` may replace `input`; `execute.after` sees
// `{status, result: {content, …}}` and what it leaves in `result.content` is what the model
// reads). docs/opencode2.md names the commits.
//
// Where things go in 2.x:
// - tool-call context: `execute.after` adds a text part to `result.content` (the core's profile
//   places context "with the result" for every 2.x tool but the sub-agent's prompt, which the
//   core rewrites in `execute.before`'s `input` as in 1.x);
// - session-start context and intent context: `session` `context` hook, pushed onto `system`;
// - compaction: `session` `compaction` hook, the preservation block pushed onto that request's
//   `system` (the summarising model reads it);
// - a block: thrown from `execute.before`;
// - model tools (the core's registry, `plan.tools`): `ctx.tool.transform(editor =>
//   editor.add({name, description, input, execute}))` with the core's raw JSON Schema as `input`.

// a glue file that cannot load leaves a stand-in that still fails closed (js/failsafe.cjs)
const { Hookwise } = require("./failsafe.cjs").loadHookwise(() => require("./hookwise.cjs"));

// the plugin adapters' shared jobs: once per session (a bounded set)
const { Once } = require("./plugin-kit.cjs");

const MAX_SESSIONS = 4096;

/** A message of a 2.x request as `{role, text}` (its text parts joined). */
function messageText(m) {
  if (!m || typeof m !== "object") return { role: "", text: "" };
  const parts = typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : Array.isArray(m.parts) ? m.parts : [];
  return {
    role: typeof m.role === "string" ? m.role : "",
    text: parts
      .filter((p) => p && p.type === "text" && typeof p.text === "string")
      .map((p) => p.text)
      .join("\n"),
  };
}

/** The texts of a request's `system` parts (2.x: `{type: "text", text}`; strings taken too). */
function systemTexts(system) {
  if (!Array.isArray(system)) return [];
  return system.map((p) => (typeof p === "string" ? p : p && typeof p.text === "string" ? p.text : "")).filter(Boolean);
}

function modelIdOf(m) {
  return m && (m.providerID || m.id) ? [m.providerID, m.id].filter(Boolean).join("/") : undefined;
}

/**
 * The tools to offer the model: the core's `plan.tools` (`[{name, description, inputSchema}]`:
 * `select_active_intent` while governance is on, the knowledge tools while a source answers),
 * each answered through the engine call `tool.call` (`{text, isError}`, never thrown).
 */
function modelTools(hw) {
  return hw.tools
    .filter((t) => t && typeof t.name === "string" && t.inputSchema && typeof t.inputSchema === "object")
    .map((t) => ({
      name: t.name,
      description: String(t.description ?? ""),
      inputSchema: t.inputSchema,
      call: (input, sessionId) => hw.callTool(t.name, input, sessionId),
    }));
}

/**
 * OpenCode 2's `setup(ctx)`. Registers the hooks and tools, starts the core (and, when the
 * configuration asks for it, the warm maenifold session); returns the cleanup that ends this
 * instance's processes and vault watchers. Never throws: a hookwise that cannot start leaves
 * OpenCode running as if it were absent, as in 1.x; once started, a governed call the core
 * cannot answer is blocked through the plan's `failClosed`.
 */
async function setup(ctx) {
  ctx = ctx || {};
  const registrations = [];
  const log = logger(ctx);
  const location = ctx.location && typeof ctx.location === "object" ? ctx.location : {};
  const directory = typeof location.directory === "string" && location.directory ? location.directory : process.cwd();
  const worktree = typeof location.worktree === "string" ? location.worktree : "";
  if (!hasToolHooks(ctx)) return withoutToolHooks(ctx, (worktree && worktree !== "/" ? worktree : "") || directory, log);
  // the messages of the compaction request being answered, by session (the core asks for them)
  const compacting = new Map();
  const hw = new Hookwise({
    host: "opencode2",
    options: ctx.options && typeof ctx.options === "object" ? ctx.options : {},
    cwd: (worktree && worktree !== "/" ? worktree : "") || directory,
    worktree,
    directory,
    log,
    extra: {
      async sessionMessages({ sessionId }) {
        const list = compacting.get(sessionId) || [];
        return { messages: list.map(messageText) };
      },
    },
  });
  await hw.init();

  const guard = (name, f) => async (event) => {
    try {
      await f(event || {});
    } catch (e) {
      log("error", `hookwise ${name}: ${e && e.message}`);
    }
  };
  const register = async (domain, name, callback) => {
    try {
      const d = ctx[domain];
      if (!d || typeof d.hook !== "function") {
        log("warn", `hookwise: this OpenCode has no ${domain} hooks; ${domain}.${name} is off`);
        return;
      }
      registrations.push(await d.hook(name, callback));
    } catch (e) {
      log("error", `hookwise: could not register ${domain}.${name}: ${e && e.message}`);
    }
  };
  const callIdOf = (event) => event.id ?? event.callID;

  // The one hook that may throw: a deliberate block (governance or enforcement). 2.x turns the
  // throw into the call's error, which is what the model reads; the tool does not run.
  await register("tool", "execute.before", async (event) => {
    let block = null;
    await guard("tool.execute.before", async (ev) => {
      const r = await hw.toolBefore({ tool: ev.tool, sessionId: ev.sessionID, callId: callIdOf(ev), args: ev.input });
      if (r && typeof r.block === "string" && r.block) block = r.block;
      // a governed shell under the confining launcher: 2.x runs the event's input
      else if (r && r.edits) hw.applyEdits(ev.input, r);
    })(event);
    if (block !== null) throw new Error(block);
  });

  await register(
    "tool",
    "execute.after",
    guard("tool.execute.after", async (ev) => {
      const failed = ev.status === "error" || !!(ev.result && ev.result.type === "error");
      const r = await hw.toolAfter({ tool: ev.tool, sessionId: ev.sessionID, callId: callIdOf(ev), args: ev.input, failed });
      const text = (r && typeof r.withResult === "string" && r.withResult.replace(/^\s+/, "")) || "";
      if (text && !failed) addToResult(ev, text);
    }),
  );

  // Session-start context (once per top-level session, looked up on its first request) and,
  // with governance on, the intent context: into the system prompt of every primary request.
  const started = new Once(MAX_SESSIONS);
  const promptChannel = new Map(); // session → text, when the core hands it out as a prompt
  await register(
    "session",
    "context",
    guard("session.context", async (ev) => {
      if (ev.kind !== undefined && ev.kind !== "primary") return;
      const sid = typeof ev.sessionID === "string" ? ev.sessionID : "";
      if (!Array.isArray(ev.system)) return;
      if (sid && started.first(sid)) {
        const r = await hw.sessionCreated({ id: sid, parentID: await parentOf(ctx, sid) });
        // 2.x has no noReply user turn for a plugin: the text goes into the system prompt
        if (r && r.prompt && typeof r.prompt.text === "string") {
          if (promptChannel.size >= MAX_SESSIONS) promptChannel.delete(promptChannel.keys().next().value);
          promptChannel.set(sid, r.prompt.text);
        }
      }
      const texts = systemTexts(ev.system);
      const had = texts.length;
      await hw.systemTransform(sid || null, texts, modelIdOf(ev.model));
      const add = texts.slice(had);
      if (promptChannel.has(sid)) add.unshift(promptChannel.get(sid));
      for (const text of add) ev.system.push({ type: "text", text });
    }),
  );

  await register(
    "session",
    "compaction",
    guard("session.compaction", async (ev) => {
      const sid = typeof ev.sessionID === "string" ? ev.sessionID : "";
      if (!Array.isArray(ev.system)) return;
      compacting.set(sid, Array.isArray(ev.messages) ? ev.messages : []);
      try {
        const context = [];
        await hw.compacting(sid, context);
        for (const text of context) if (typeof text === "string" && text) ev.system.push({ type: "text", text });
      } finally {
        compacting.delete(sid);
      }
    }),
  );

  await registerTools(ctx, hw, log, registrations);

  let cleaned = false;
  return async () => {
    if (cleaned) return;
    cleaned = true;
    for (const r of registrations.reverse()) {
      try {
        if (r && typeof r.dispose === "function") await r.dispose();
      } catch {
        /* the host disposes them with the plugin's scope anyway */
      }
    }
    await hw.dispose();
  };
}

/** The host's log (`ctx.app.log`), else stderr: errors always, the rest with HOOKWISE_DEBUG. */
function logger(ctx) {
  const debug = !!(process.env.HOOKWISE_DEBUG && process.env.HOOKWISE_DEBUG !== "0");
  return (level, message) => {
    try {
      const app = ctx.app;
      if (app && typeof app.log === "function") {
        const p = app.log({ service: "hookwise", level, message });
        if (p && typeof p.catch === "function") p.catch(() => {});
      } else if (debug || level === "error") {
        process.stderr.write(`hookwise ${level}: ${message}\n`);
      }
    } catch {
      /* logging must not fail a hook */
    }
  };
}

/** The context can hook tool calls (`ctx.tool.hook`), which everything hookwise does needs. */
function hasToolHooks(ctx) {
  return !!(ctx.tool && typeof ctx.tool.hook === "function");
}

/**
 * `setup(ctx)` with a context that offers no tool hooks: Kilo CLI's (it also runs the package's
 * OpenCode 1.x `server`, which does the work), and released OpenCode 2.0.x builds' (reported
 * with only agent, aisdk, catalog, command, integration, reference and skill). Nothing is
 * registered and no core starts: where this module's 1.x path serves the process, that is all;
 * where it does not, no tool call is checked, and a project that configures intent governance
 * or pre-action enforcement (the failsafe's data, src/failsafe.rs) hears so as an error, not as
 * a quiet start. The 1.x path may start a moment after `setup` (the order of a host's two
 * loaders): the verdict waits for it, up to SETUP_ONLY_GRACE_MS or until the plugin unloads.
 */
function withoutToolHooks(ctx, cwd, log) {
  const offers = Object.keys(ctx).filter((k) => k !== "options" && ctx[k] && typeof ctx[k] === "object").sort();
  let timer = null;
  let cancel = null;
  let done = false;
  const verdict = (served) => {
    if (done) return;
    done = true;
    if (timer) clearTimeout(timer);
    if (cancel) cancel();
    if (served) {
      served("info", "hookwise: setup() without tool hooks registered nothing; this host runs hookwise through its OpenCode 1.x plugin (server), once");
      return;
    }
    let found = null;
    try {
      found = require("./failsafe.cjs").configured(cwd, ctx.options && typeof ctx.options === "object" ? ctx.options : {});
    } catch (e) {
      found = { marker: String((e && e.message) || e) };
    }
    const what = `this host's plugin context offers no tool hooks (it offers: ${offers.join(", ") || "nothing"})`;
    if (found) {
      log("error", `hookwise is NOT checking any tool call: ${what}, and ${found.marker} configures intent governance or pre-action enforcement in ${cwd}. Nothing is gated or recorded. Load hookwise where its hooks run: OpenCode 1.x (opencode.json "plugin"), Kilo CLI (.kilo/plugin/), or an OpenCode 2 build whose plugin context has \`tool\` hooks (hookwise doctor).`);
    } else {
      log("warn", `hookwise is off: ${what}; knowledge context, session start and compaction need them`);
    }
  };
  try {
    cancel = require("./opencode.cjs").whenServed((served) => verdict(served));
  } catch {
    /* no 1.x path in this package: the verdict is the timer's */
  }
  if (!done) {
    timer = setTimeout(() => verdict(null), SETUP_ONLY_GRACE_MS);
    if (typeof timer.unref === "function") timer.unref();
  }
  // unloaded before the verdict: it is given now (a 1.x path would have answered by now)
  return async () => verdict(null);
}

/** How long `setup` without tool hooks waits for the same process's 1.x path before it warns. */
const SETUP_ONLY_GRACE_MS = 3000;

/** The context text for the model, added to what the call's result shows it. */
function addToResult(ev, text) {
  const part = { type: "text", text };
  const r = ev.result;
  if (r && Array.isArray(r.content)) {
    r.content.push(part); // 2.x: `{status: "completed", result: {output?, content, metadata?}}`
  } else if (r && r.type === "text" && typeof r.value === "string") {
    r.value += `\n\n${text}`; // earlier 2.x: a `ToolResultValue`
    if (ev.output && Array.isArray(ev.output.content)) ev.output.content.push(part);
  } else if (r && r.type === "content" && Array.isArray(r.value)) {
    r.value.push(part);
  } else if (ev.output && Array.isArray(ev.output.content)) {
    ev.output.content.push(part);
  }
}

/** The session's parent (sub-agent sessions get no session-start context), or null. */
async function parentOf(ctx, sessionID) {
  try {
    const s = ctx.session && typeof ctx.session.get === "function" ? await ctx.session.get({ sessionID }) : null;
    const info = s && (s.data || s);
    return (info && typeof info.parentID === "string" && info.parentID) || null;
  } catch {
    return null;
  }
}

/** Offer the model the core's tools through `ctx.tool.transform`, their schemas raw JSON Schema. */
async function registerTools(ctx, hw, log, registrations) {
  const tools = modelTools(hw);
  if (tools.length === 0) return;
  if (!ctx.tool || typeof ctx.tool.transform !== "function") {
    log("error", `hookwise: this OpenCode offers no tool registration; ${tools.map((t) => t.name).join(", ")} unavailable`);
    return;
  }
  try {
    registrations.push(
      await ctx.tool.transform((editor) => {
        for (const t of tools) {
          editor.add({
            name: t.name,
            description: t.description,
            input: t.inputSchema,
            jsonSchema: t.inputSchema, // the earlier 2.x name of a raw-schema tool's input
            options: { codemode: false },
            async execute(input, context) {
              let r;
              try {
                r = await t.call(input, String((context && context.sessionID) ?? ""));
              } catch (e) {
                r = { text: `hookwise could not answer ${t.name}: ${e && e.message}`, isError: true };
              }
              // The model reads `text` either way. Not thrown when `isError`: some 2.x adapter
              // versions run a Promise tool's `execute` through `Effect.promise`, where a throw
              // is a defect rather than the call's error.
              return { content: [{ type: "text", text: String((r && r.text) ?? "") }], structured: {} };
            },
          });
        }
      }),
    );
  } catch (e) {
    log("error", `hookwise: could not register ${tools.map((t) => t.name).join(", ")}: ${e && e.message}`);
  }
}

module.exports = { setup };

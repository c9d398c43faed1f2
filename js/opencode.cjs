"use strict";
// The OpenCode plugin: maps OpenCode's hooks onto one Hookwise instance. Every hook catches
// everything: OpenCode must never see an exception from hookwise except a deliberate block.
// Kilo CLI, an OpenCode fork, loads this same 1.x plugin: in Kilo's own process the host is
// "kilo", whose profile names Kilo's tools (docs/kilo.md).

// the lean wasm compiles in the background while the rest loads (js/core.cjs compileSoon)
try {
  require("./core.cjs").compileSoon();
} catch {
  /* core.cjs broken: the stand-in below fails closed */
}
// a glue file that cannot load leaves a stand-in that still fails closed (js/failsafe.cjs)
const { Hookwise } = require("./failsafe.cjs").loadHookwise(() => require("./hookwise.cjs"));

/** Kilo CLI's own process: Kilo 7.7.7 sets KILO_PID to its pid (a program it starts inherits another's). */
const inKilo = (env = process.env) => env.KILO_PID === String(process.pid);

// The 1.x path's instances in this process. A host that loads the package through both
// loaders (Kilo calls `server` and `setup` of one module) is served here: the `setup` it
// calls with a context without tool hooks registers nothing (js/opencode2.cjs).
const serving = { count: 0, log: null, waiting: new Set() };

/** `server` ran in this process (with its logger), or `f(log)` is called once it does. */
function whenServed(f) {
  if (serving.count > 0) return void f(serving.log);
  serving.waiting.add(f);
  return () => serving.waiting.delete(f);
}

async function server(input, options) {
  const client = input && input.client;
  const host = inKilo() ? "kilo" : "opencode";
  const log = (level, message) => {
    try {
      const p = client && client.app && client.app.log({ body: { service: "hookwise", level, message, extra: { service: "hookwise" } } });
      if (p && typeof p.catch === "function") p.catch(() => {});
    } catch {
      /* logging must not fail a hook */
    }
  };
  serving.count++;
  serving.log = serving.log || log;
  for (const f of [...serving.waiting]) {
    serving.waiting.delete(f);
    try {
      f(log);
    } catch {
      /* a waiter must not fail the plugin */
    }
  }
  const hw = new Hookwise({
    host,
    options: options || {},
    // Outside a git repository OpenCode's worktree is "/": the project is the directory then.
    cwd: (input && ((input.worktree && input.worktree !== "/" ? input.worktree : "") || input.directory)) || process.cwd(),
    worktree: (input && input.worktree) || "",
    directory: (input && input.directory) || "",
    log,
    extra: {
      // The core asks for a session's messages (compaction): their text parts, joined.
      async sessionMessages({ sessionId }) {
        const res = await client.session.messages({ path: { id: sessionId } });
        const list = Array.isArray(res) ? res : (res && res.data) || [];
        return {
          messages: list.map((m) => ({
            role: (m.info && m.info.role) || m.role || "",
            text: (m.parts || [])
              .filter((p) => p && p.type === "text" && typeof p.text === "string")
              .map((p) => p.text)
              .join("\n"),
          })),
        };
      },
    },
  });
  await hw.init();

  const guard = (name, f) => async (...args) => {
    try {
      await f(...args);
    } catch (e) {
      log("error", `hookwise ${name}: ${e && e.message}`);
    }
  };

  const hooks = {
    event: guard("event", async ({ event }) => {
      if (!event || event.type !== "session.created") return;
      const info = event.properties && event.properties.info;
      const r = await hw.sessionCreated(info);
      if (r && r.prompt) {
        await client.session.prompt({
          path: { id: r.prompt.sessionId },
          body: { noReply: true, parts: [{ type: "text", text: r.prompt.text }] },
        });
      }
    }),
    "experimental.chat.system.transform": guard("system.transform", async (inp, out) => {
      const m = inp && inp.model;
      const modelId = m && (m.providerID || m.id) ? [m.providerID, m.id].filter(Boolean).join("/") : undefined;
      await hw.systemTransform(inp && inp.sessionID, out && out.system, modelId);
    }),
    "experimental.session.compacting": guard("session.compacting", async (inp, out) => {
      await hw.compacting(inp && inp.sessionID, out && out.context);
    }),
    // The one hook that may throw: a deliberate block from pre-action enforcement. The
    // guarded work only records the message; it is thrown after, and nothing else throws.
    "tool.execute.before": async (inp, out) => {
      let block = null;
      await guard("tool.execute.before", async () => {
        const r = await hw.toolBefore({ tool: inp.tool, sessionId: inp.sessionID, callId: inp.callID, args: out.args });
        if (r && typeof r.block === "string" && r.block) block = r.block;
        // OpenCode 1.x runs the object it handed over (a reassigned `out.args` is ignored)
        else if (r && r.edits) hw.applyEdits(out.args, r);
      })();
      if (block !== null) throw new Error(block);
    },
    "tool.execute.after": guard("tool.execute.after", async (inp, out) => {
      const r = await hw.toolAfter({ tool: inp.tool, sessionId: inp.sessionID, callId: inp.callID, args: inp.args });
      // in place: OpenCode 1.x reads `out.output` after its hooks
      if (r && r.withResult && out && typeof out.output === "string") out.output += `\n\n${r.withResult}`;
    }),
    // The plugin instance goes away: its maenifold MCP process goes with it.
    dispose: guard("dispose", async () => {
      await hw.dispose();
    }),
  };
  // The core's model tools (intent governance's while it is on, the knowledge tools while a
  // knowledge source answers): each registered as the plan describes it.
  const tools = registerTools(hw, log);
  if (tools) hooks.tool = tools;
  return hooks;
}

/**
 * OpenCode's `tool` map from the plan's `tools`. OpenCode wraps a plugin tool's `args` in its
 * own zod 4 (`z.object(args)`), so each property's JSON Schema becomes a zod 4 schema: zod is
 * bundled (dist/zod.cjs) rather than a dependency, so the package installs offline. The core
 * checks the input again and answers bad input with a text the model reads.
 */
function registerTools(hw, log) {
  const list = hw.tools;
  if (!list.length) return null;
  let z;
  try {
    z = require("./zod.cjs");
  } catch (e) {
    log("error", `hookwise: its tools (${list.map((t) => t.name).join(", ")}) are unavailable (zod could not load: ${e && e.message})`);
    return null;
  }
  const out = {};
  for (const t of list) {
    try {
      out[t.name] = {
        description: String(t.description ?? ""),
        args: zodShape(z, t.inputSchema),
        async execute(args, ctx) {
          const r = await hw.callTool(t.name, args, ctx && ctx.sessionID);
          return r.text;
        },
      };
    } catch (e) {
      log("error", `hookwise: tool ${t.name} not registered: ${e && e.message}`);
    }
  }
  return out;
}

/** The zod 4 shape of an object JSON Schema's properties (`required` kept, the rest optional). */
function zodShape(z, schema) {
  const props = (schema && schema.properties) || {};
  const required = new Set(Array.isArray(schema && schema.required) ? schema.required : []);
  const shape = {};
  for (const [key, prop] of Object.entries(props)) {
    let s = zodOf(z, prop || {});
    if (prop && typeof prop.description === "string") s = s.describe(prop.description);
    shape[key] = required.has(key) ? s : s.optional();
  }
  return shape;
}

/**
 * One JSON Schema (the subset the core writes: string, integer, number, boolean, enum, arrays,
 * objects). Types only: bounds (lengths, ranges) are the core's to check, so that input past
 * them gets the core's answer, which says what to change.
 */
function zodOf(z, p) {
  if (Array.isArray(p.enum)) return z.enum(p.enum.map(String));
  switch (p.type) {
    case "string":
      return z.string();
    case "integer":
    case "number":
      return z.number();
    case "boolean":
      return z.boolean();
    case "array":
      return z.array(zodOf(z, p.items || {}));
    case "object":
      return z.object(zodShape(z, p));
    default:
      throw new Error(`a property of type ${JSON.stringify(p.type)} has no zod form here`);
  }
}

module.exports = { server, zodShape, whenServed, inKilo };

"use strict";
// The OpenCode plugin: maps OpenCode's hooks onto one Hookwise instance. Every hook catches
// everything: OpenCode must never see an exception from hookwise except a deliberate block.

const { Hookwise } = require("./hookwise.cjs");

async function server(input, options) {
  const client = input && input.client;
  const log = (level, message) => {
    try {
      const p = client && client.app && client.app.log({ body: { service: "hookwise", level, message, extra: { service: "hookwise" } } });
      if (p && typeof p.catch === "function") p.catch(() => {});
    } catch {
      /* logging must not fail a hook */
    }
  };
  const hw = new Hookwise({
    host: "opencode",
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
      })();
      if (block !== null) throw new Error(block);
    },
    "tool.execute.after": guard("tool.execute.after", async (inp, out) => {
      await hw.toolAfter({ tool: inp.tool, sessionId: inp.sessionID, callId: inp.callID, output: out, args: inp.args });
    }),
    // The plugin instance goes away: its maenifold MCP process goes with it.
    dispose: guard("dispose", async () => {
      await hw.dispose();
    }),
  };
  // Intent governance: the tool exists only while governance is on (a project without
  // .orchestration/active_intents.yaml never sees it).
  if (hw.governanceOn) {
    const tool = selectIntentTool(hw, log);
    if (tool) hooks.tool = { select_active_intent: tool };
  }
  return hooks;
}

/**
 * `select_active_intent(intent_id)`. OpenCode wraps a plugin tool's `args` in its own zod 4
 * (`z.object(args)`), so they must be zod 4 schemas: zod's string schema is bundled (dist/zod.cjs)
 * rather than a dependency, so the package installs offline.
 */
function selectIntentTool(hw, log) {
  let z;
  try {
    z = require("./zod.cjs");
  } catch (e) {
    log("error", `hookwise: select_active_intent is unavailable (zod could not load: ${e && e.message}); governed changes stay blocked`);
    return null;
  }
  return {
    description:
      "Select the intent (from .orchestration/active_intents.yaml) that the current task belongs to. Intent governance is on in this project: file changes and shell commands are blocked until the session has an active intent, and file changes must stay inside its owned_scope. Returns the intent's scope, constraints and acceptance criteria.",
    args: {
      intent_id: z.string().describe("The id of an IN_PROGRESS intent, e.g. INT-001"),
    },
    async execute(args, ctx) {
      try {
        const r = await hw.selectIntent(ctx && ctx.sessionID, args && args.intent_id);
        return r.text;
      } catch (e) {
        return `hookwise could not select the intent: ${e && e.message}`;
      }
    },
  };
}

module.exports = { server };

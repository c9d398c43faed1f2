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

  return {
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
      await hw.systemTransform(inp && inp.sessionID, out && out.system);
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
      await hw.toolAfter({ tool: inp.tool, sessionId: inp.sessionID, callId: inp.callID, output: out });
    }),
    // The plugin instance goes away: its maenifold MCP process goes with it.
    dispose: guard("dispose", async () => {
      await hw.dispose();
    }),
  };
}

module.exports = { server };

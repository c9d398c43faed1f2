"use strict";
// The OpenCode plugin: maps OpenCode's hooks onto one Hookwise instance. Every hook catches
// everything: OpenCode must never see an exception from hookwise except a deliberate block.

const { Hookwise } = require("./hookwise.cjs");

async function server(input, options) {
  const client = input && input.client;
  const log = (level, message) => {
    try {
      const p = client && client.app && client.app.log({ body: { service: "hookwise", level, message } });
      if (p && typeof p.catch === "function") p.catch(() => {});
    } catch {
      /* logging must not fail a hook */
    }
  };
  const hw = new Hookwise({
    options: options || {},
    cwd: (input && (input.worktree || input.directory)) || process.cwd(),
    log,
  });
  await hw.init();

  return {
    "tool.execute.before": async (inp, out) => {
      try {
        await hw.toolBefore({ tool: inp.tool, sessionId: inp.sessionID, callId: inp.callID, args: out.args });
      } catch (e) {
        log("error", `hookwise tool.execute.before: ${e && e.message}`);
      }
    },
    "tool.execute.after": async (inp, out) => {
      try {
        await hw.toolAfter({ tool: inp.tool, sessionId: inp.sessionID, callId: inp.callID, output: out });
      } catch (e) {
        log("error", `hookwise tool.execute.after: ${e && e.message}`);
      }
    },
  };
}

module.exports = { server };

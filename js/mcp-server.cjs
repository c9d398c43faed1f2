"use strict";
// `hookwise mcp`: a stdio MCP server for Claude Code (newline-delimited JSON-RPC 2.0). Claude
// Code starts it once per `claude` process (the project's `.mcp.json`) and its `mcp_tool`
// hooks call the hook tools; one warm engine serves them all (the vault index and its watcher,
// the warm maenifold session, the caches, governance state per Claude session). The model is
// offered the model tools of the core's plan (and, as Claude Code offers every tool of a
// server, the hook tools too: their descriptions say to leave them alone).
//
// Transport only: the tool list, every text and every decision come from the core.

const { createClaude } = require("./claude.cjs");

/** Protocol versions this server speaks, newest first (Claude Code 2.1.330 asks 2025-11-25). */
const PROTOCOLS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const MAX_LINE = 64 * 1024 * 1024;

/**
 * Serve MCP on `input`/`output` until `input` ends or a signal. Returns `{ closed }`: a
 * promise settled once the server stopped (its engine disposed, its children killed).
 * @param {object} o
 * @param {NodeJS.ReadableStream} [o.input]
 * @param {NodeJS.WritableStream} [o.output]
 * @param {string} [o.host]  the host whose agent runs the server (default claude-code: its hook tools too)
 * @param {string} [o.cwd]
 * @param {object} [o.env]
 * @param {string} [o.version]
 * @param {boolean} [o.signals] handle SIGINT/SIGTERM (default true)
 * @param {(level: string, message: string) => void} [o.log]
 */
function serve(o = {}) {
  const input = o.input || process.stdin;
  const output = o.output || process.stdout;
  const env = o.env || process.env;
  const debug = !!env.HOOKWISE_DEBUG;
  const log =
    o.log ||
    ((level, message) => {
      if (debug || level === "warn" || level === "error") process.stderr.write(`hookwise ${level}: ${message}\n`);
    });
  const claude = createClaude({ host: o.host, cwd: o.cwd, env, log, options: o.options, wasmPath: o.wasmPath });
  // Claude Code's hooks call the server's hook tools; the other hosts run command hooks and
  // get the model tools only
  const hookTools = claude.host === "claude-code";
  const setup = () => (hookTools ? claude.setup() : Promise.resolve({ tools: [], events: [] }));
  // start the engine now: the first hook finds it warm
  claude.hw.init().then(() => (claude.hw.plan.toolBefore || claude.hw.governanceOn ? setup().catch(() => {}) : null));

  let buf = "";
  let stopping = null;
  const inFlight = new Set();
  let resolveClosed;
  const closed = new Promise((r) => (resolveClosed = r));

  function send(msg) {
    if (stopping) return;
    try {
      output.write(JSON.stringify(msg) + "\n");
    } catch (e) {
      log("error", `hookwise mcp: could not answer: ${e && e.message}`);
    }
  }
  const reply = (id, result) => send({ jsonrpc: "2.0", id, result });
  const fail = (id, code, message) => send({ jsonrpc: "2.0", id, error: { code, message } });

  async function handle(msg) {
    if (!msg || typeof msg !== "object" || Array.isArray(msg) || msg.jsonrpc !== "2.0" || typeof msg.method !== "string") {
      if (msg && typeof msg === "object" && ("result" in msg || "error" in msg)) return; // a response: nothing asked
      return fail(msg && (typeof msg.id === "string" || typeof msg.id === "number") ? msg.id : null, -32600, "Invalid Request");
    }
    const isRequest = "id" in msg && (typeof msg.id === "string" || typeof msg.id === "number");
    const params = msg.params && typeof msg.params === "object" ? msg.params : {};
    if (!isRequest) return; // notifications (initialized, cancelled, …): nothing to answer
    const id = msg.id;
    switch (msg.method) {
      case "initialize": {
        const asked = typeof params.protocolVersion === "string" ? params.protocolVersion : "";
        return reply(id, {
          protocolVersion: PROTOCOLS.includes(asked) ? asked : PROTOCOLS[0],
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: "hookwise", version: o.version || "0.0.0" },
        });
      }
      case "ping":
        return reply(id, {});
      case "tools/list": {
        let tools = [];
        try {
          const s = await setup();
          tools = [...s.tools, ...(await claude.modelTools())];
        } catch (e) {
          log("error", `hookwise mcp: tools/list: ${e && e.message}`);
        }
        return reply(id, { tools });
      }
      case "tools/call": {
        const name = typeof params.name === "string" ? params.name : "";
        const args = params.arguments && typeof params.arguments === "object" ? params.arguments : {};
        let s = null;
        try {
          s = await setup();
        } catch (e) {
          // no core: Claude Code's onFailure decides (block for governance and enforcement)
          return reply(id, { content: [{ type: "text", text: `hookwise is not running: ${e && e.message}` }], isError: true });
        }
        const ev = s.events.find((e) => e.tool === name);
        if (ev) {
          const r = await claude.hook(ev.event, args);
          return reply(id, r.ok ? { content: [{ type: "text", text: r.text }] } : { content: [{ type: "text", text: r.text }], isError: true });
        }
        const meta = params._meta && typeof params._meta === "object" ? params._meta : {};
        const sid = typeof meta["anthropic/claudeCodeSessionId"] === "string" ? meta["anthropic/claudeCodeSessionId"] : "";
        const tools = await claude.modelTools();
        if (!tools.some((t) => t && t.name === name)) return reply(id, { content: [{ type: "text", text: `unknown tool: ${name}` }], isError: true });
        const r = await claude.callModelTool(name, args, sid);
        return reply(id, { content: [{ type: "text", text: r.text }], ...(r.isError ? { isError: true } : {}) });
      }
      default:
        // e.g. Claude Code's `server/discover` probe
        return fail(id, -32601, `Method not found: ${msg.method}`);
    }
  }

  function onLine(line) {
    if (!line.trim()) return;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return fail(null, -32700, "Parse error");
    }
    const p = Promise.resolve()
      .then(() => handle(msg))
      .catch((e) => {
        log("error", `hookwise mcp: ${e && e.stack ? e.stack : e}`);
        if (msg && (typeof msg.id === "string" || typeof msg.id === "number")) fail(msg.id, -32603, "Internal error");
      });
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
  }

  function onData(chunk) {
    buf += typeof chunk === "string" ? chunk : chunk.toString("utf8");
    let i;
    while ((i = buf.indexOf("\n")) !== -1) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      onLine(line);
    }
    if (buf.length > MAX_LINE) {
      buf = "";
      fail(null, -32700, "Parse error: message too long");
    }
  }

  async function stop(why) {
    if (stopping) return stopping;
    log("debug", `hookwise mcp: stopping (${why})`);
    stopping = (async () => {
      input.off("data", onData);
      // answers still being computed are not awaited: the client is gone
      try {
        await Promise.race([claude.dispose(), new Promise((r) => setTimeout(r, 2000).unref())]);
      } catch {
        /* the children are killed on exit anyway */
      }
      if (o.signals !== false) {
        process.off("SIGINT", onSigint);
        process.off("SIGTERM", onSigterm);
      }
      resolveClosed({ why });
    })();
    return stopping;
  }
  const onSigint = () => stop("SIGINT").then(() => process.exit(0));
  const onSigterm = () => stop("SIGTERM").then(() => process.exit(0));

  input.setEncoding && input.setEncoding("utf8");
  input.on("data", onData);
  input.on("end", () => stop("stdin closed"));
  input.on("close", () => stop("stdin closed"));
  input.on("error", () => stop("stdin error"));
  if (o.signals !== false) {
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigterm);
  }
  return { closed, stop, claude };
}

module.exports = { serve, PROTOCOLS };

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
const { claudePreToolUse } = require("./failsafe.cjs");
const { watchInputs } = require("./fresh.cjs");

/** Protocol versions this server speaks, newest first (Claude Code 2.1.330 asks 2025-11-25). */
const PROTOCOLS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const MAX_LINE = 64 * 1024 * 1024;
/** How much of an oversize message is kept to find its id. */
const HEAD = 64 * 1024;

/**
 * The top-level `"id"` of a JSON object from its first characters (a message too long to
 * parse), or null: a small scanner of strings and nesting, no parse.
 */
function topLevelId(text) {
  let depth = 0;
  let i = 0;
  const n = text.length;
  const str = () => {
    // at a quote: the string's end index (exclusive), or -1
    for (let j = i + 1; j < n; j++) {
      if (text[j] === "\\") j++;
      else if (text[j] === '"') return j + 1;
    }
    return -1;
  };
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      const end = str();
      if (end < 0) return null;
      if (depth === 1 && text.slice(i, end) === '"id"') {
        const m = /^\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*[,}]/.exec(text.slice(end, end + 600));
        if (!m) return null;
        try {
          const v = JSON.parse(m[1]);
          return typeof v === "string" || typeof v === "number" ? v : null;
        } catch {
          return null;
        }
      }
      i = end;
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    i++;
  }
  return null;
}

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
  // One engine, made again when a file its init read has changed (js/fresh.cjs): a long-lived
  // server answers as a fresh one would after hookwise.json, an SOP folder or the intents file
  // comes or goes.
  let claude = null;
  let inputs = null;
  // Claude Code's hooks call the server's hook tools; the other hosts run command hooks and
  // get the model tools only
  let hookTools = true;
  const setup = () => (hookTools ? claude.setup() : Promise.resolve({ tools: [], events: [] }));
  function makeEngine() {
    const c = createClaude({ host: o.host, cwd: o.cwd, env, log, options: o.options, wasmPath: o.wasmPath });
    claude = c;
    hookTools = c.host === "claude-code";
    inputs = watchInputs(c.hw);
    // start the engine now: the first hook finds it warm
    c.hw.init().then(() => (c.hw.plan.toolBefore || c.hw.governanceOn ? setup().catch(() => {}) : null));
  }
  makeEngine();
  /** The engine, made again first if an input of its init changed. */
  async function current() {
    await inputs.ready();
    const why = inputs.changed();
    if (why && !inputs.untrusted()) {
      log("info", `hookwise mcp: a new engine (changed: ${why})`);
      const old = claude;
      makeEngine();
      Promise.resolve(old.dispose()).catch(() => {});
      await inputs.ready();
    }
    return claude;
  }

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
          await current();
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
        const claude = await current();
        let s = null;
        try {
          s = await setup();
        } catch (e) {
          // no core: the PreToolUse hook still denies where governance or enforcement is
          // configured (js/failsafe.cjs); anything else is an error Claude Code's onFailure decides on
          if (name === claudePreToolUse()) {
            const r = await claude.hook("PreToolUse", args);
            if (r.ok) return reply(id, { content: [{ type: "text", text: r.text }] });
          }
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

  // The line being read, in pieces: each chunk is searched once for its newlines (linear in
  // the input, however long the line), and a line past MAX_LINE is dropped as it comes.
  let pieces = [];
  let pending = 0;
  let head = ""; // the first bytes of a line being dropped: its id, if it has one
  let dropping = false;
  function onData(chunk) {
    const s = typeof chunk === "string" ? chunk : chunk.toString("utf8");
    let start = 0;
    let i;
    while ((i = s.indexOf("\n", start)) !== -1) {
      const piece = s.slice(start, i);
      start = i + 1;
      if (dropping || pending + piece.length > MAX_LINE) {
        tooLong(dropping ? head : pieces.join("").slice(0, HEAD) + piece.slice(0, HEAD));
      } else onLine(pieces.length ? pieces.join("") + piece : piece);
      pieces = [];
      pending = 0;
      dropping = false;
      head = "";
    }
    if (start >= s.length || dropping) return;
    const rest = s.slice(start);
    if (pending + rest.length > MAX_LINE) {
      head = (pieces.join("").slice(0, HEAD) + rest.slice(0, HEAD)).slice(0, HEAD);
      pieces = [];
      pending = 0;
      dropping = true;
      return;
    }
    pieces.push(rest);
    pending += rest.length;
  }

  /** A request over MAX_LINE: a JSON-RPC error for its id (when its first bytes name one). */
  function tooLong(start) {
    fail(topLevelId(start), -32600, `Invalid Request: message over ${MAX_LINE} characters`);
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
  return {
    closed,
    stop,
    get claude() {
      return claude;
    },
  };
}

module.exports = { serve, PROTOCOLS, topLevelId };

"use strict";
// Carries out the core's requests. No policy here: every limit, timeout and path comes in the
// request; this file only does the I/O, by role: processes (js/spawn.cjs), files
// (js/files.cjs), the trace chain (js/trace-chain.cjs), vault watchers (js/watch.cjs).

const { createWatchers } = require("./watch.cjs");
const { spawnProcess, hasBun, failure, now } = require("./spawn.cjs");
const { stat, lstat, readFile, readFiles, appendLine, inOrder, writeFile, dirEntry, packListing, listDir, createFile, readTail } = require("./files.cjs");
// The trace chain (and node:crypto, node:os with it) loads when governance first writes a
// record: engine start-up does not pay for it (scripts/bench.mjs, "engine load + init").
const appendChained = (req) => require("./trace-chain.cjs").appendChained(req);
const writeHead = (req) => require("./trace-chain.cjs").writeHead(req);

function sleep({ ms }) {
  let t;
  const promise = new Promise((resolve) => { t = setTimeout(() => resolve({}), ms); });
  return { promise, cancel() { clearTimeout(t); } };
}

/**
 * The default host. `runner`, when given, replaces process spawning:
 * `runner(argv, { timeoutMs, maxBytes }) -> Promise<{success, stdout, stderr, exitCode, timedOut, durationMs}>`.
 * `env`, when given, is the environment of the processes it starts (else process.env).
 * `watch: false` answers `vaultChanges` with `watching: false` (the core re-lists the vault).
 * `dispose()` closes the vault watchers and ends the processes still running (their groups).
 */
function createHost({ runner, extra, env, watch, mcp } = {}) {
  const settled = (p) => ({ promise: p, cancel() {} });
  const watchers = createWatchers({ enabled: watch !== false, describe: dirEntry });
  const running = new Set(); // the spawns in progress: ended (with their groups) on dispose
  let closed = false; // disposed: no new process until the owner's next hook call reopens
  return {
    dispose() {
      closed = true;
      watchers.close();
      for (const s of running) s.cancel();
    },
    reopen() {
      closed = false;
    },
    run(req) {
      switch (req.kind) {
        case "spawn":
          // an operation still running when its owner was disposed starts nothing new
          if (closed) return settled(Promise.resolve(failure(now(), "spawn refused: hookwise was disposed")));
          if (runner) {
            return settled(
              Promise.resolve()
                .then(() => runner(req.argv, { timeoutMs: req.timeoutMs, maxBytes: req.maxBytes }))
                .catch((e) => failure(now(), `runner failed: ${e && e.message}`)),
            );
          }
          {
            const s = spawnProcess(req, { env });
            running.add(s);
            s.promise.then(() => running.delete(s));
            return s;
          }
        case "sleep":
          return sleep(req);
        case "stat":
          return settled(stat(req));
        case "lstat":
          return settled(Promise.resolve(lstat(req)));
        case "readFile":
          return settled(readFile(req));
        case "readFiles":
          return settled(readFiles(req));
        case "appendLine":
          return settled(inOrder(req.path, () => appendLine(req)));
        case "listDir":
          return settled(listDir(req).then(packListing));
        case "createFile":
          return settled(createFile(req));
        case "appendChained":
          return settled(appendChained(req));
        case "writeHead":
          return settled(writeHead(req));
        case "readTail":
          return settled(readTail(req));
        case "writeFile":
          return settled(writeFile(req));
        case "now":
          return settled(Promise.resolve({ ms: Date.now() }));
        case "vaultChanges":
          return settled(watchers.changes(req.root));
        // The maenifold MCP server's process and pipes (js/mcp.cjs).
        case "mcpStart":
          if (!mcp) return settled(Promise.resolve({ ok: false, error: "this host cannot run an MCP server" }));
          return mcp.start(req);
        case "mcpWrite":
          return settled(mcp ? mcp.write(req) : Promise.resolve({ ok: false, error: "not running" }));
        case "mcpStop":
          return settled(mcp ? mcp.stop(req) : Promise.resolve({}));
        default:
          if (extra && typeof extra[req.kind] === "function") {
            return settled(Promise.resolve().then(() => extra[req.kind](req)).catch((e) => ({ error: String(e && e.message) })));
          }
          return settled(Promise.resolve({ error: "other", detail: `unsupported request kind ${req.kind}` }));
      }
    },
  };
}

module.exports = { createHost, spawnProcess, stat, readFile, readFiles, appendLine, listDir, dirEntry, writeFile, appendChained, writeHead, readTail, hasBun };

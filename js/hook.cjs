"use strict";
// `hookwise hook [--host HOST] <Event>`: a command hook — the host's payload on stdin, the
// answer on stdout. Codex, Gemini CLI, Copilot CLI, Qwen Code and Claude Code's `command` mode
// start this once per tool call, so it is CommonJS and loads only Node's builtins until it must
// answer cold: an ES module costs Node's ESM loader (and `import fs` every lazy part of `fs`),
// a stream on stdin or stdout the stream machinery, each a few ms of a ~30 ms process. The
// launcher `hookwise init` writes (src/command_hook/setup_cli.rs) runs `main` directly;
// `hookwise hook` through dist/cli.mjs calls `answer`. Transport only: the project's warm
// server (js/warm-client.cjs) or this process (js/claude.cjs) decides.

const fs = require("node:fs");
const path = require("node:path");

/** The most of a payload read; past it the hook answers cold as for unreadable input. */
const MAX_INPUT = 64 * 1024 * 1024;

/**
 * The hook's answer to `raw` (`{text, over}`, the payload as read) for `event` of `host`:
 * `{code, out, err}` — what to print on stdout, on stderr, and the exit code. `cwd`: the
 * project as given (`--cwd`); without it, the host's project-folder variable or this
 * process's folder, walked up by the core. Never rejects.
 */
async function answer({ event, host = "claude-code", cwd, raw, warmTried = null }) {
  const DIALECTS = require("./dialects.json");
  const dialect = DIALECTS[host];
  // The project is where hookwise was set up, never the payload's `cwd`.
  const v = dialect.projectDirVar && process.env[dialect.projectDirVar];
  const project = cwd || (typeof v === "string" && path.isAbsolute(v) ? v : process.cwd());
  // The warm server answers when it can (not with --cwd: that folder is taken as it is, while
  // the server, like a hook without it, walks up to the governed project); else this process.
  // `warmTried`: the native client (crates/hookwise-native) asked the server already and got no
  // usable answer (why): decided cold here at once, as this process would after the same answer.
  if (warmTried !== null) {
    if (process.env.HOOKWISE_DEBUG) process.stderr.write(`hookwise debug: cold (${warmTried})\n`);
  } else if (process.env.HOOKWISE_WARM !== "0" && !raw.over && !cwd) {
    const keep = Array.isArray(dialect.keep) && dialect.keep.includes(event);
    let w;
    try {
      w = await require("./warm-client.cjs").askWarm({ event, raw: raw.text, project, host, keep, explain: true });
    } catch (e) {
      w = { answer: null, why: `the warm client did not load: ${(e && e.message) || e}` };
    }
    const note = process.env.HOOKWISE_DEBUG ? `hookwise debug: ${w.answer ? "answered warm" : `cold (${w.why})`}\n` : "";
    if (w.answer) return { code: w.answer.exit || 0, out: w.answer.text, err: note + (w.answer.err || "") };
    if (note) process.stderr.write(note);
  }
  let runHook;
  try {
    ({ runHook } = require("./claude.cjs"));
  } catch (e) {
    return unanswered({ event, host, project, raw, error: e });
  }
  const r = await runHook({ host, event, raw, cwd, log: (level, message) => level === "error" && process.stderr.write(`hookwise ${level}: ${message}\n`) });
  // not ok: non-blocking, the agent goes on without hookwise
  // `exit`, `err`: a host that blocks by exit code (its dialect's `denyExit`)
  return r.ok ? { code: r.exit || 0, out: r.text, err: r.err || "" } : { code: 1, out: "", err: `hookwise: ${r.text}\n` };
}

/** The host's deny answer (its dialect's shape, pinned from the core) with `reason`. */
function denyAnswer(host, reason) {
  const DIALECTS = require("./dialects.json");
  const d = DIALECTS[host] || DIALECTS["claude-code"];
  return d.deny.replace("{reason}", () => JSON.stringify(String(reason)).slice(1, -1));
}

/**
 * The answer when the hook's own glue (js/claude.cjs and what it loads first) cannot load — a
 * damaged install: the gate event is denied where the project's files configure governance or
 * enforcement (js/failsafe.cjs, its data pinned from the core), with the core's sentence; any
 * other event, or a project with neither, goes on without hookwise (exit 1, non-blocking).
 */
function unanswered({ event, host, project, raw, error }) {
  const DIALECTS = require("./dialects.json");
  if (event === (DIALECTS[host] || DIALECTS["claude-code"]).preToolEvent) {
    let tool = "";
    try {
      tool = String(JSON.parse(raw.text).tool_name || "");
    } catch {
      /* unreadable: no tool is known to only read */
    }
    let reason = null;
    try {
      const cold = require("./failsafe.cjs").coldStart({ cwd: project, host, error });
      reason = cold && cold.block(tool);
    } catch (e) {
      reason = `hookwise could not start (${(e && e.message) || e})`;
    }
    if (reason) {
      const note = `hookwise: could not start: ${(error && error.message) || error}\n`;
      const d = DIALECTS[host] || DIALECTS["claude-code"];
      if (d.denyExit) return { code: d.denyExit, out: "", err: `${reason}\n${note}` };
      return { code: 0, out: denyAnswer(host, reason), err: note };
    }
  }
  return { code: 1, out: "", err: `hookwise: could not start: ${(error && error.message) || error}\n` };
}

/** stdin, whole, up to `max` bytes (`over`: more came; `text` is then empty). Synchronous
 * while the descriptor blocks (a pipe or a file, as hosts give it); a non-blocking one
 * (EAGAIN) is read to its end as a stream. */
async function readInput(max = MAX_INPUT) {
  const parts = [];
  let n = 0;
  const take = (b) => {
    n += b.length;
    if (n <= max) parts.push(b);
  };
  const done = () => ({ text: n > max ? "" : Buffer.concat(parts).toString("utf8"), over: n > max });
  const buf = Buffer.allocUnsafe(1 << 16);
  for (;;) {
    let got;
    try {
      got = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e && e.code === "EAGAIN") break;
      if (e && e.code === "EOF") return done();
      return { text: "", over: false }; // unreadable: as an empty payload
    }
    if (got === 0) return done();
    take(Buffer.from(buf.subarray(0, got)));
  }
  return new Promise((resolve) => {
    process.stdin.on("data", take);
    process.stdin.on("end", () => resolve(done()));
    process.stdin.on("error", () => resolve({ text: "", over: false }));
  });
}

/** Write `text` to descriptor `fd` whole (a stream for what a non-blocking pipe refuses). */
function writeAll(fd, text) {
  if (!text) return;
  const b = Buffer.from(text, "utf8");
  let off = 0;
  while (off < b.length) {
    try {
      off += fs.writeSync(fd, b, off, b.length - off);
    } catch (e) {
      if (e && e.code === "EAGAIN") return void (fd === 1 ? process.stdout : process.stderr).write(b.subarray(off));
      return;
    }
  }
}

/**
 * The process's entry (`node -e <launcher> hook …`): `argv` after `hook`. Exactly
 * `[--host HOST] <Event>` is answered here; anything else (`--cwd`, `--help`, an unknown host
 * or option) goes to the whole CLI (dist/cli.mjs), which says what is wrong.
 */
async function main(argv) {
  let host = "claude-code";
  let rest = argv;
  let warmTried = null;
  // from the native client only (it hands over the payload it read): `--warm-tried WHY`
  if (rest[0] === "--warm-tried" && rest.length >= 3) [warmTried, rest] = [rest[1], rest.slice(2)];
  const given = rest;
  if (rest[0] === "--host" && rest.length === 3) [host, rest] = [rest[1], rest.slice(2)];
  const DIALECTS = require("./dialects.json");
  if (rest.length !== 1 || rest[0].startsWith("-") || !Object.prototype.hasOwnProperty.call(DIALECTS, host)) {
    process.argv.splice(2, process.argv.length, "hook", ...given);
    return void import(require("node:url").pathToFileURL(path.join(__dirname, "cli.mjs")).href);
  }
  const r = await answer({ event: rest[0], host, raw: await readInput(), warmTried });
  writeAll(2, r.err);
  writeAll(1, r.out);
  process.exitCode = r.code;
}

module.exports = { answer, readInput, main, denyAnswer, MAX_INPUT };

// `node <dist>/hook.cjs [--host HOST] <Event>`: what dist/hook.sh runs when the native client is
// not installed or cannot run, and what the native client hands over to.
if (require.main === module) main(process.argv.slice(2));

"use strict";
// The command-hook hosts' side of hookwise (Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen
// Code), shared by `hookwise mcp` (js/mcp-server.cjs: one warm engine per agent process;
// Claude Code's hooks as `mcp_tool` calls) and `hookwise hook [--host H] <Event>` (a `command`
// hook: one process per event, or a warm process handed the payload). Transport only: the
// core answers each event with the hook's text in the host's dialect (`hook.event`), names
// the hook tools and the settings entries (`setup`, `setup.host`); when it cannot answer, the
// host's deny comes from js/dialects.json (pinned from the core's dialect table).

const fs = require("node:fs");
const path = require("node:path");
const { randomBytes } = require("node:crypto");
// a glue file that cannot load leaves a stand-in that still fails closed (js/failsafe.cjs)
const { Hookwise } = require("./failsafe.cjs").loadHookwise(() => require("./hookwise.cjs"));
const DIALECTS = require("./dialects.json");

/** The most of a transcript read for a compaction (its end: the latest messages). */
const MAX_TRANSCRIPT_BYTES = 4 * 1024 * 1024;
const MAX_SESSIONS = 256;

// The host's PreToolUse deny with a reason, as that host reads it (js/dialects.json, pinned from
// the core): in js/hook.cjs, which answers with it when this file cannot load.
const { denyAnswer } = require("./hook.cjs");

/** What a host's hook answers when hookwise has nothing to say for `event`. */
function emptyAnswer(host, event) {
  const d = DIALECTS[host] || DIALECTS["claude-code"];
  return Object.prototype.hasOwnProperty.call(d.empty, event) ? d.empty[event] : "{}";
}

/** The project folder a hook names: the host's project-folder variable, else `fallback`. */
function projectDir(host, env, fallback) {
  const d = DIALECTS[host] || DIALECTS["claude-code"];
  const v = d.projectDirVar && env[d.projectDirVar];
  return typeof v === "string" && path.isAbsolute(v) ? v : fallback;
}

/**
 * One hookwise for a command-hook host's project.
 * @param {object} o
 * @param {string} [o.host]  the host's profile id (default claude-code)
 * @param {string} [o.cwd]   the project (default: the host's project-folder variable or the current directory)
 * @param {object} [o.env]
 * @param {(level: string, message: string) => void} [o.log]
 * @param {object} [o.options] engine options (tests; the project's files are read anyway)
 */
function createClaude(o = {}) {
  const env = o.env || process.env;
  const host = typeof o.host === "string" && DIALECTS[o.host] ? o.host : "claude-code";
  // The project is where hookwise was set up: the folder given, else the host's project-folder
  // variable, else this process's folder — walked up by the core to the governed project (a
  // sub-folder, a worktree); never the payload's `cwd`.
  const cwd = o.cwd || projectDir(host, env, process.cwd());
  const findRoot = o.findRoot === undefined ? !o.cwd : !!o.findRoot;
  const transcripts = new Map(); // session_id -> transcript_path, from the hooks' payloads
  let lastSession = "";
  const hw = new Hookwise({
    host,
    // hook.event is in the policy core only
    flavor: "policy",
    cwd,
    worktree: cwd,
    directory: cwd,
    findRoot,
    env,
    options: o.options || {},
    runPrograms: o.runPrograms,
    log: o.log,
    telemetry: o.telemetry, // OpenTelemetry events' sink (js/otel.cjs)
    wasmPath: o.wasmPath,
    extra: {
      // compaction: the session's messages come from its transcript (JSONL)
      sessionMessages: ({ sessionId }) => readTranscript(transcripts.get(sessionId)),
    },
  });
  let setup = null;

  function remember(input) {
    if (!input || typeof input !== "object") return;
    const sid = typeof input.session_id === "string" ? input.session_id : "";
    const tp = input.transcript_path;
    if (sid) {
      lastSession = sid;
      if (typeof tp === "string" && tp) {
        transcripts.delete(sid);
        if (transcripts.size >= MAX_SESSIONS) transcripts.delete(transcripts.keys().next().value);
        transcripts.set(sid, tp);
      }
    }
  }

  return {
    hw,
    cwd,
    host,
    get lastSession() {
      return lastSession;
    },

    /** The hook tools, events and settings entries: `{server, tools, events, hooks, permissions}`. */
    async setup(input = {}) {
      if (!input.failClosed && !input.command && setup) return setup;
      const r = await hw.run({ hook: "hook.event", event: "setup", input });
      if (!r || !Array.isArray(r.tools)) throw new Error("hookwise could not start its core");
      if (!input.failClosed && !input.command) setup = r;
      return r;
    },

    /** A command-hook host's project entries (`hookwise init --<host>`): `{hooks, hooksFile,
     * mcpFile, mcp, trust, …}`, or without a host the hosts init knows. */
    async hostSetup(input = {}) {
      const r = await hw.run({ hook: "hook.event", event: "setup.host", input });
      if (!r || (r.error === undefined && !r.hooks && !r.hosts)) throw new Error("hookwise could not start its core");
      if (r.error) throw new Error(r.error);
      return r;
    },

    /**
     * Answer one hook event. Returns `{text, ok}`: `text` is what the host reads (hook JSON in
     * its dialect, or Claude Code's PreCompact plain text); `ok: false` when the core gave no
     * answer and nothing could be decided (the caller reports an error: the host decides).
     */
    async hook(event, input, unreadable) {
      remember(input);
      await hw.init();
      // A core that did not start cannot say whether governance or enforcement is on: the
      // hook fails, and Claude Code's `onFailure` (`init --claude` sets "block" where either
      // is on) decides, instead of an empty answer that would let every call through.
      // Where the project's files say either is configured (`hw.cold`), PreToolUse denies.
      if (hw.startError) return coldAnswer(hw, host, event, input);
      const call = {
        hook: "hook.event",
        event: String(event),
        input: input === undefined ? null : input,
        random: randomBytes(16).toString("hex"),
        nowMs: Date.now(),
        ...(unreadable ? { unreadable: String(unreadable) } : {}),
        // the variables the host's model log needs (js/dialects.json `envKeys`, from the core)
        env: Object.fromEntries((DIALECTS[host].envKeys || []).filter((k) => typeof env[k] === "string").map((k) => [k, env[k]])),
      };
      let failure = null;
      const r = await hw.run(call, (e) => (failure = e));
      // a block by exit code (the dialect's `denyExit`): the code and stderr the core gave
      if (r && typeof r.text === "string") return { ok: true, text: r.text, result: r, ...(r.exit ? { exit: r.exit, err: `${r.stderr || ""}\n` } : {}) };
      if (event === DIALECTS[host].preToolEvent) {
        // governance or enforcement blocks what it cannot check (the core's words, from its
        // plan), in the host's deny
        const tool = input && typeof input.tool_name === "string" ? input.tool_name : "";
        const b = hw.core ? hw.failClosed(tool, failure) : null;
        if (b) return denied(host, b.block);
        if (!hw.core) return { ok: false, text: "hookwise is not running" };
      }
      return { ok: true, text: emptyAnswer(host, String(event)) };
    },

    /** The tools the model is offered now: the core's `plan.tools` (select_active_intent while
     * governance is on, the knowledge tools with a knowledge source). */
    async modelTools() {
      await hw.init();
      return hw.tools;
    },

    /** A model's call of one of `modelTools()`: `{text, isError}` (never throws). The session is
     * the one Claude Code names, else the latest one a hook saw (one claude process, one
     * session). */
    async callModelTool(name, input, sessionId) {
      await hw.init();
      return hw.callTool(name, input, sessionId || lastSession);
    },

    dispose() {
      return hw.dispose();
    },
  };
}

/** Claude Code's PreToolUse deny, with the reason the model reads. */
function denied(host, reason) {
  const d = DIALECTS[host] || DIALECTS["claude-code"];
  if (d.denyExit) return { ok: true, blocked: reason, text: "", exit: d.denyExit, err: `${reason}\n` };
  return { ok: true, blocked: reason, text: denyAnswer(host, reason) };
}

/**
 * The answer of a hookwise whose core could not start: PreToolUse is denied where governance
 * or enforcement is configured (`hw.failClosed` reads the failsafe's data); anything else is
 * an error Claude Code's `onFailure` decides on.
 */
function coldAnswer(hw, host, event, input) {
  if (event === (DIALECTS[host] || DIALECTS["claude-code"]).preToolEvent) {
    let b = null;
    try {
      b = hw.failClosed(input && typeof input.tool_name === "string" ? input.tool_name : "", hw.startError);
    } catch (e) {
      b = { block: `hookwise could not start: ${(e && e.message) || e}` };
    }
    if (b) return denied(host, b.block);
    // configured, and a tool that only reads: it runs (onFailure would block it)
    if (hw.cold) return { ok: true, text: emptyAnswer(host, String(event)) };
  }
  return { ok: false, text: `hookwise could not start: ${hw.startError.message}` };
}

/**
 * A Claude Code transcript (`<session>.jsonl`: one entry per line, `{type, message: {role,
 * content}}`) as the core's session messages: `{messages: [{role, text}]}`, text parts joined,
 * from its last MAX_TRANSCRIPT_BYTES. Only a `.jsonl` file with an absolute path is read.
 */
function readTranscript(file) {
  if (typeof file !== "string" || !path.isAbsolute(file) || !file.endsWith(".jsonl")) return { messages: [], error: "no transcript for this session" };
  let text;
  try {
    const fd = fs.openSync(file, "r");
    try {
      const size = fs.fstatSync(fd).size;
      const start = Math.max(0, size - MAX_TRANSCRIPT_BYTES);
      const buf = Buffer.alloc(size - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      text = buf.toString("utf8");
      if (start > 0) text = text.slice(text.indexOf("\n") + 1); // a cut first line
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    return { messages: [], error: `transcript: ${e && e.code ? e.code : "unreadable"}` };
  }
  const messages = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const m = entry && entry.message;
    if (!m || (entry.type !== "user" && entry.type !== "assistant")) continue;
    const role = typeof m.role === "string" ? m.role : entry.type;
    let t = "";
    if (typeof m.content === "string") t = m.content;
    else if (Array.isArray(m.content)) t = m.content.filter((p) => p && p.type === "text" && typeof p.text === "string").map((p) => p.text).join("\n");
    if (t) messages.push({ role, text: t });
  }
  return { messages };
}

/**
 * One hook event, start to end, as a command hook runs it: the payload's text in, the answer
 * out (`{ok, text}`; `ok: false`: nothing could be decided, the caller exits non-zero). The
 * project: `cwd`, else the host's project-folder variable, else this process's folder (see
 * `createClaude`); the payload's `cwd` only says where relative paths start.
 * A warm process hands its payloads to `createClaude(...).hook` instead.
 */
async function runHook({ host, event, raw, cwd, env = process.env, log, runPrograms, exportTelemetry = true } = {}) {
  // what could not be read is said, not dropped: the core blocks it where policy is on
  const text = typeof raw === "string" ? raw : (raw && raw.text) || "";
  let unreadable = raw && raw.over ? "over 64 MiB" : text.trim() === "" ? "empty" : null;
  let payload = null;
  if (!unreadable) {
    try {
      payload = JSON.parse(text);
    } catch {
      unreadable = "not JSON";
    }
  }
  const h = DIALECTS[host] ? host : "claude-code";
  // a cold hook's OpenTelemetry events wait in the spool for the next warm server (js/otel.cjs);
  // doctor's own round trip exports nothing (it is not the agent's hook)
  const telemetry = exportTelemetry ? (ev, t) => require("./otel.cjs").spoolSink(env)(ev, t) : () => {};
  const hooks = createClaude({ host: h, cwd, env, log, runPrograms, telemetry });
  try {
    return await hooks.hook(event, payload, unreadable);
  } finally {
    await hooks.dispose();
  }
}

/** `createClaude` for any command-hook host: `{host, …}`. */
const createHooks = (o = {}) => createClaude(o);

module.exports = { createClaude, createHooks, runHook, readTranscript, denied, denyAnswer, emptyAnswer, projectDir, DIALECTS };

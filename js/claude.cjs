"use strict";
// Claude Code's side of hookwise, shared by `hookwise mcp` (js/mcp-server.cjs: one warm engine
// per `claude` process, its hooks as `mcp_tool` calls) and `hookwise hook <Event>` (a `command`
// hook: one process per event). Transport only: the core answers each event with the hook's
// text (`claude.hook`), and names the hook tools and the settings entries (`setup`).

const fs = require("node:fs");
const path = require("node:path");
const { randomBytes } = require("node:crypto");
const { Hookwise } = require("./hookwise.cjs");

/** The most of a transcript read for a compaction (its end: the latest messages). */
const MAX_TRANSCRIPT_BYTES = 4 * 1024 * 1024;
const MAX_SESSIONS = 256;

/**
 * One hookwise for a Claude Code project.
 * @param {object} o
 * @param {string} [o.cwd]   the project (default: CLAUDE_PROJECT_DIR or the current directory)
 * @param {object} [o.env]
 * @param {(level: string, message: string) => void} [o.log]
 * @param {object} [o.options] engine options (tests; the project's files are read anyway)
 */
function createClaude(o = {}) {
  const env = o.env || process.env;
  const cwd = o.cwd || env.CLAUDE_PROJECT_DIR || process.cwd();
  // no folder given: the core finds the governed project from here (a sub-folder, a worktree)
  const findRoot = !o.cwd;
  const transcripts = new Map(); // session_id -> transcript_path, from the hooks' payloads
  let lastSession = "";
  const hw = new Hookwise({
    host: "claude-code",
    // claude.hook is in the policy core only
    flavor: "policy",
    cwd,
    worktree: cwd,
    directory: cwd,
    findRoot,
    env,
    options: o.options || {},
    log: o.log,
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
    get lastSession() {
      return lastSession;
    },

    /** The hook tools, events and settings entries: `{server, tools, events, hooks, permissions}`. */
    async setup(input = {}) {
      if (!input.failClosed && !input.command && setup) return setup;
      const r = await hw.run({ hook: "claude.hook", event: "setup", input });
      if (!r || !Array.isArray(r.tools)) throw new Error("hookwise could not start its core");
      if (!input.failClosed && !input.command) setup = r;
      return r;
    },

    /**
     * Answer one hook event. Returns `{text, ok}`: `text` is what Claude Code reads (hook JSON,
     * or PreCompact's plain text); `ok: false` when the core gave no answer and nothing could be
     * decided (the caller reports an error: Claude Code's `onFailure` decides).
     */
    async hook(event, input, unreadable) {
      remember(input);
      await hw.init();
      // A core that did not start cannot say whether governance or enforcement is on: the
      // hook fails, and Claude Code's `onFailure` (`init --claude` sets "block" where either
      // is on) decides, instead of an empty answer that would let every call through.
      if (hw.startError) return { ok: false, text: `hookwise could not start: ${hw.startError.message}` };
      const call = {
        hook: "claude.hook",
        event: String(event),
        input: input === undefined ? null : input,
        random: randomBytes(16).toString("hex"),
        nowMs: Date.now(),
        ...(unreadable ? { unreadable: String(unreadable) } : {}),
      };
      let failure = null;
      const r = await hw.run(call, (e) => (failure = e));
      if (r && typeof r.text === "string") return { ok: true, text: r.text, result: r };
      if (event === "PreToolUse") {
        // governance or enforcement blocks what it cannot check (the core's words, from its plan)
        const tool = input && typeof input.tool_name === "string" ? input.tool_name : "";
        const b = hw.core ? hw.failClosed(tool, failure) : null;
        if (b) return { ok: true, blocked: b.block, text: JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: b.block } }) };
        if (!hw.core) return { ok: false, text: "hookwise is not running" };
      }
      return { ok: true, text: event === "PreCompact" ? "" : "{}" };
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

module.exports = { createClaude, readTranscript };

"use strict";
// The maenifold MCP server's child process and its pipes — nothing else. The core frames the
// stdout bytes, matches ids, times out, restarts and falls back (src/mcp/); this file starts
// the process, writes what it is given, hands every stdout chunk to the core as it comes,
// reports the end once, and makes sure no process outlives its plugin or its host.

// node:child_process loads when the first MCP server starts, not at start-up
const spawn = (...a) => require("node:child_process").spawn(...a);
const { isWin, track, endGroup, killGroup } = require("./procs.cjs");

const STDERR_TAIL = 4096;

/**
 * The MCP processes of one plugin instance. `sink()` returns the current core:
 * `{ mcpFeed(session, bytes), mcpClosed(session, info) }` (it changes when the policy core
 * replaces the lean one).
 */
function createMcpHost({ sink, env } = {}) {
  const procs = new Map(); // session -> Proc

  class Proc {
    constructor(session, child) {
      this.session = session;
      this.child = child;
      this.pid = child.pid;
      this.stderr = "";
      this.ended = false;
      this.killTimer = null;
      this.ending = false; // its group is being ended now (killAll)
    }

    /** SIGKILL the process, and its whole group (whatever maenifold started goes too). */
    killNow() {
      if (this.pid && !isWin) killGroup(this.pid);
      else {
        try {
          this.child.kill("SIGKILL");
        } catch {
          /* already gone */
        }
      }
    }

    /** End the process's whole group: SIGTERM, then SIGKILL after a grace if anything is left
     * (js/procs.cjs). Windows: the process alone. */
    endAll() {
      if (this.pid && !isWin) endGroup(this.pid);
      else if (!this.exited) this.killNow();
    }

    /** Close stdin (maenifold exits on EOF); still there after `graceMs`: its group is ended.
     * Its exit ends its group too (the child's "exit" handler). */
    stop(graceMs) {
      try {
        this.child.stdin.end();
      } catch {
        /* closed */
      }
      if (this.killTimer || this.ending || this.exited) return;
      this.killTimer = setTimeout(() => this.endAll(), Math.max(0, graceMs | 0));
      this.killTimer.unref?.();
    }

    /** Tell the core once: exit, stdout closed, or a spawn error after start. */
    end(info) {
      if (this.ended) return;
      this.ended = true;
      procs.delete(this.session);
      const core = sink();
      if (core) core.mcpClosed(this.session, { ...info, stderr: this.stderr });
    }
  }

  function start(req) {
    let child;
    try {
      child = spawn(req.argv[0], req.argv.slice(1), {
        stdio: ["pipe", "pipe", "pipe"],
        // Own process group: a stop kills whatever the server started too.
        detached: !isWin,
        windowsHide: true,
        env: { ...(env || process.env), ...(req.env || {}) },
      });
    } catch (e) {
      return { promise: Promise.resolve({ ok: false, error: `spawn failed: ${e.message}`, nowMs: Date.now() }), cancel() {} };
    }
    const p = new Proc(req.session, child);
    let replied = false;
    let resolveStart;
    const promise = new Promise((r) => (resolveStart = r));
    const reply = (v) => {
      if (replied) return;
      replied = true;
      resolveStart({ ...v, nowMs: Date.now() });
    };
    if (child.pid) track(child.pid);
    child.on("spawn", () => {
      procs.set(req.session, p);
      reply({ ok: true, pid: child.pid });
    });
    child.on("error", (e) => {
      if (!replied) return reply({ ok: false, error: e && e.code ? `spawn ${e.code}` : String(e && e.message) });
      p.end({ code: null, signal: null, error: String(e && e.message) });
    });
    child.stdin.on("error", () => {
      /* EPIPE: the write's callback reports it */
    });
    child.stdout.on("data", (chunk) => {
      if (p.ended) return;
      const core = sink();
      if (core) core.mcpFeed(req.session, chunk);
    });
    // A server whose stdout is gone cannot answer: reported, and the process stopped.
    // (An exit closes stdout too: a moment's wait lets the exit report its code instead.)
    child.stdout.on("end", () => {
      const t = setTimeout(() => {
        p.end({ code: null, signal: null, error: "stdout closed" });
        p.stop(1000);
      }, 100);
      t.unref?.();
    });
    // Drained always (a full stderr pipe would stall the server); only a tail is kept.
    child.stderr.on("data", (chunk) => {
      const s = p.stderr + chunk.toString("utf8");
      p.stderr = s.length > STDERR_TAIL ? s.slice(s.length - STDERR_TAIL) : s;
    });
    child.on("exit", (code, signal) => {
      p.exited = true;
      if (p.killTimer) clearTimeout(p.killTimer);
      // The server is gone: whatever it started goes too.
      if (p.pid && !isWin) endGroup(p.pid);
      p.end({ code, signal });
    });
    // An idle session neither costs anything nor keeps the host alive.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) s && s.unref && s.unref();
    return {
      promise,
      cancel() {
        p.killNow();
      },
    };
  }

  function write({ session, text }) {
    const p = procs.get(session);
    if (!p) return Promise.resolve({ ok: false, error: "not running", nowMs: Date.now() });
    return new Promise((resolve) => {
      try {
        p.child.stdin.write(text, (e) => resolve(e ? { ok: false, error: e.code || String(e.message), nowMs: Date.now() } : { ok: true, nowMs: Date.now() }));
      } catch (e) {
        resolve({ ok: false, error: String(e && e.message), nowMs: Date.now() });
      }
    });
  }

  function stop({ session, graceMs }) {
    const p = procs.get(session);
    if (p) p.stop(graceMs);
    return Promise.resolve({});
  }

  /** End every child of this instance now (dispose, a replaced core): stdin closed, its whole
   * group SIGTERMed, SIGKILL after a grace if anything is left. Returns their pids. */
  function killAll() {
    const pids = [];
    for (const p of procs.values()) {
      pids.push(p.pid);
      try {
        p.child.stdin.end();
      } catch {
        /* closed */
      }
      if (p.killTimer) clearTimeout(p.killTimer);
      p.ending = true;
      p.endAll();
    }
    return pids;
  }

  /** The pids of the running children (diagnostics, tests). */
  function pids() {
    return [...procs.values()].map((p) => p.pid);
  }

  return { start, write, stop, killAll, pids };
}

module.exports = { createMcpHost };

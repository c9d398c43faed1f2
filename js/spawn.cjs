"use strict";
// The host's processes: argv run without a shell (Bun.spawn where Bun exists,
// node:child_process otherwise — OpenCode Desktop runs plugins under Node), each in a process
// group of its own that ends with the call (js/procs.cjs). Part of js/host.cjs.

// node:child_process loads on the first process started under Node, not at start-up
const spawn = (...a) => require("node:child_process").spawn(...a);
const { isWin, KILL_GRACE_MS, track, endGroup } = require("./procs.cjs");

const hasBun = typeof globalThis.Bun !== "undefined" && typeof globalThis.Bun.spawn === "function";

const now = () => (typeof performance !== "undefined" ? performance.now() : Date.now());

function decode(chunks) {
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

/** Run argv (no shell). Returns { promise, cancel }. The promise never rejects.
 * The process leads a process group of its own (POSIX); when it exits, times out or is
 * cancelled, the whole group is ended (js/procs.cjs: SIGTERM, SIGKILL after a grace if anything
 * is left), so nothing it started outlives the call. The result never waits for the grace. */
function spawnProcess({ argv, timeoutMs, maxBytes }, opts = {}) {
  const useBun = opts.forceNode ? false : hasBun;
  return useBun ? spawnBun(argv, timeoutMs, maxBytes, opts.env) : spawnNode(argv, timeoutMs, maxBytes, opts.env);
}

// Once the process has exited, how long its pipes may stay open (held by something it started
// that survives the group's SIGTERM, or that left the group) before the result goes without them.
const PIPE_LINGER_MS = 200;

/** A call's handle: `cancel` ends a call whose result is not in yet (`stop`), and is a no-op after. */
function handle(promise, isSettled, stop) {
  return {
    promise,
    cancel() {
      if (!isSettled()) stop();
    },
  };
}

/** Ends the call's process once: its group (POSIX), or the process alone (Windows, or no pid). */
function killer(proc) {
  let killed = false;
  return () => {
    if (killed) return;
    killed = true;
    if (isWin || !proc.pid) killAlone((sig) => proc.kill(sig));
    else endGroup(proc.pid);
  };
}

/** Windows: no process groups; the process alone, SIGTERM then SIGKILL after the grace. */
function killAlone(kill) {
  try { kill("SIGTERM"); } catch { /* gone */ }
  const t = setTimeout(() => { try { kill("SIGKILL"); } catch { /* gone */ } }, KILL_GRACE_MS);
  t.unref?.();
}

function spawnNode(argv, timeoutMs, maxBytes, env) {
  const started = now();
  let child;
  try {
    // Own process group (detached: setsid), so that ending the call ends whatever the CLI started.
    child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], detached: !isWin, windowsHide: true, env: env || process.env });
  } catch (e) {
    return { promise: Promise.resolve(failure(started, `spawn failed: ${e.message}`)), cancel() {} };
  }
  if (child.pid) track(child.pid);
  const out = [];
  const err = [];
  let outBytes = 0;
  let errBytes = 0;
  let overflow = false;
  let timedOut = false;
  let cancelled = false;
  let spawnError = null;
  let settled = false;
  const kill = killer(child);

  const promise = new Promise((resolve) => {
    const finish = (code, sig) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Pipes still held by a process out of reach: let go of them.
      child.stdout?.destroy();
      child.stderr?.destroy();
      const stdout = decode(out);
      const stderr = decode(err);
      const durationMs = now() - started;
      let error = null;
      if (spawnError) error = `spawn failed: ${spawnError.message}`;
      else if (overflow) error = `output over ${maxBytes} bytes`;
      else if (cancelled) error = "cancelled";
      else if (sig && !timedOut) error = `killed by ${sig}`;
      resolve({
        success: !error && !timedOut && code === 0,
        stdout,
        stderr,
        exitCode: code,
        timedOut,
        durationMs,
        ...(error ? { error } : {}),
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.stdout.on("data", (c) => {
      if (overflow) return;
      outBytes += c.length;
      if (outBytes > maxBytes) {
        overflow = true;
        kill();
        return;
      }
      out.push(c);
    });
    child.stderr.on("data", (c) => {
      if (errBytes < maxBytes) {
        err.push(c);
        errBytes += c.length;
      }
    });
    child.on("error", (e) => {
      spawnError = e;
      if (child.pid) endGroup(child.pid);
      finish(null, null);
    });
    child.on("close", (code, sig) => finish(code, sig));
    child.on("exit", (code, sig) => {
      // The call is over: what the CLI started goes too (its pipes close with it) ...
      if (!isWin && child.pid) endGroup(child.pid);
      // ... and whatever still holds the pipes must not keep us waiting.
      setTimeout(() => finish(code, sig), PIPE_LINGER_MS);
    });
  });
  return handle(promise, () => settled, () => {
    cancelled = true;
    kill();
  });
}

function spawnBun(argv, timeoutMs, maxBytes, env) {
  const started = now();
  let proc;
  try {
    // Own process group (detached: setsid), as in spawnNode.
    proc = globalThis.Bun.spawn({ cmd: argv, stdin: "ignore", stdout: "pipe", stderr: "pipe", env: env || process.env, detached: !isWin });
  } catch (e) {
    return { promise: Promise.resolve(failure(started, `spawn failed: ${e.message}`)), cancel() {} };
  }
  if (proc.pid) track(proc.pid);
  let timedOut = false;
  let overflow = false;
  let cancelled = false;
  let settled = false;
  const kill = killer(proc);
  const timer = setTimeout(() => { timedOut = true; kill(); }, timeoutMs);
  const readers = [];
  const out = [];
  const err = [];
  const collect = async (stream, cap, isStdout, chunks) => {
    let n = 0;
    const reader = stream.getReader();
    readers.push(reader);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        n += value.length;
        if (n > cap) {
          if (isStdout) { overflow = true; kill(); }
          reader.cancel().catch(() => {});
          break;
        }
        chunks.push(Buffer.from(value));
      }
    } catch {
      /* cancelled: the process is gone and something else held the pipe */
    }
  };
  const exited = proc.exited.then((code) => {
    // The call is over: what the CLI started goes too (its pipes close with it).
    if (!isWin && proc.pid) endGroup(proc.pid);
    return code;
  });
  const promise = (async () => {
    const collected = Promise.all([collect(proc.stdout, maxBytes, true, out), collect(proc.stderr, maxBytes, false, err)]);
    // Whatever still holds the pipes once the process is gone must not keep us waiting:
    // what was read by then is the output.
    const linger = exited.then(() => new Promise((r) => setTimeout(r, PIPE_LINGER_MS)));
    await Promise.race([collected, linger]);
    for (const r of readers) r.cancel().catch(() => {});
    const code = await exited;
    settled = true;
    clearTimeout(timer);
    let error = null;
    if (overflow) error = `output over ${maxBytes} bytes`;
    else if (cancelled) error = "cancelled";
    else if (proc.signalCode && !timedOut) error = `killed by ${proc.signalCode}`;
    return {
      success: !error && !timedOut && code === 0,
      stdout: decode(out),
      stderr: decode(err),
      exitCode: proc.signalCode ? null : code,
      timedOut,
      durationMs: now() - started,
      ...(error ? { error } : {}),
    };
  })().catch((e) => failure(started, String(e && e.message)));
  return handle(promise, () => settled, () => {
    cancelled = true;
    kill();
  });
}

function failure(started, error) {
  return { success: false, stdout: "", stderr: "", exitCode: null, timedOut: false, durationMs: now() - started, error };
}

module.exports = { spawnProcess, hasBun, failure, now };

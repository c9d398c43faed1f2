"use strict";
// Carries out the core's requests. No policy here: every limit, timeout and path comes in the
// request; this file only does the I/O (Bun.spawn where Bun exists, node:child_process
// otherwise — OpenCode Desktop runs plugins under Node).

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");
const crypto = require("node:crypto");
const os = require("node:os");
const { spawn } = require("node:child_process");
const { createWatchers } = require("./watch.cjs");
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
  let killed = false;
  let settled = false;

  const kill = () => {
    if (killed) return;
    killed = true;
    if (isWin || !child.pid) killAlone((sig) => child.kill(sig));
    else endGroup(child.pid);
  };

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
  return {
    promise,
    cancel() {
      if (settled) return;
      cancelled = true;
      kill();
    },
  };
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
  let killed = false;
  let settled = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    if (isWin || !proc.pid) killAlone((sig) => proc.kill(sig));
    else endGroup(proc.pid);
  };
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
  return {
    promise,
    cancel() {
      if (settled) return;
      cancelled = true;
      kill();
    },
  };
}

function failure(started, error) {
  return { success: false, stdout: "", stderr: "", exitCode: null, timedOut: false, durationMs: now() - started, error };
}

// A failed reply carries a code the core decides on (protocol::ReplyError: not-found,
// not-utf8, too-large, denied, exists, changed, other) and, for the log, `detail`: Node's words.
const CODES = { ENOENT: "not-found", ENOTDIR: "not-found", EACCES: "denied", EPERM: "denied", EEXIST: "exists", EFBIG: "too-large", ERR_FS_FILE_TOO_LARGE: "too-large" };
/** The reply fields `{error, detail}` for a thrown error (`code` overrides the one from errno). */
function failed(e, code) {
  const detail = String((e && e.message) || e);
  return { error: code || CODES[e && e.code] || "other", detail };
}

async function stat({ path: p }) {
  try {
    const st = await fsp.stat(p);
    const realpath = await fsp.realpath(p);
    return {
      exists: true,
      realpath,
      isFile: st.isFile(),
      isDir: st.isDirectory(),
      executable: (st.mode & 0o111) !== 0,
      size: st.size,
      mtimeMs: st.mtimeMs,
    };
  } catch (e) {
    return { exists: false, ...failed(e) };
  }
}

// Reads and stats are synchronous: a note is a few kilobytes, and a synchronous read of one
// costs a tenth of an asynchronous one (no thread-pool round trip per open, stat, read and
// close). A batch of 64 notes blocks the event loop for about a millisecond; a cold index of
// 10,000 notes reads them in ~0.3 s instead of ~2 s on Node (bench-vault.mjs).
// The reply carries the file's raw bytes (`bytes`): the core gets them beside the replies'
// JSON and checks the UTF-8 itself (js/core.cjs), so a note is never decoded, escaped and
// re-encoded on its way in.
// Opened non-blocking where the platform has it: opening a FIFO never waits for a writer,
// and the one fstat both refuses what is not a regular file and sizes the read (open, fstat,
// read, close: one stat less per note than stat + readFileSync). The reply carries the size and
// mtime that fstat saw, as a listing's stat would give them: the first index lists the vault
// without a stat per note (listDir's typesOnly) and keeps these instead.
const { O_RDONLY, O_NONBLOCK } = fs.constants;
const OPEN_FLAGS = O_NONBLOCK === undefined ? O_RDONLY : O_RDONLY | O_NONBLOCK;
const tooLarge = (st) => ({ error: "too-large", size: st.size, mtimeMs: st.mtimeMs });
const notFile = (st) => ({ error: "other", detail: st.isDirectory() ? "EISDIR: a folder, not a file" : "not a regular file" });
async function readFile({ path: p, maxBytes }) {
  return readOne(p, maxBytes, null);
}

// A batch of notes below one folder (the core's `readFiles`: one request, not one per note),
// each read as readFile reads it, in order; `dir` ends in a separator (the core joins paths). The notes are read into slabs of the batch's own,
// one after another, instead of a Buffer each: they lie back to back and cross into the core
// as one view (takeBytes). The slabs come from a small pool; the reply's RECYCLE hands them back
// once its bytes are no longer needed (core.cjs calls it after the core has copied them in), so
// the next batch reads into memory already touched — a cold index of 34 MB otherwise faults in
// that much fresh memory, and V8 collects garbage for it as external memory. A slab is never
// written while a view of it may be alive; a reply never recycled is only garbage.
const RECYCLE = Symbol.for("hookwise.recycle");
const SLAB_BYTES = 1 << 20;
const POOL_MAX = 2;
const pool = [];
async function readFiles({ dir, paths, maxBytes }) {
  const arena = { slab: null, at: 0, taken: [] };
  const files = paths.map((p) => readOne(dir + p, maxBytes, arena));
  let taken = arena.taken;
  return {
    files,
    [RECYCLE]() {
      for (const s of taken || []) if (pool.length < POOL_MAX) pool.push(s);
      taken = null;
    },
  };
}

/** Room for `n` bytes: in the batch's current slab (`arena`: its slab, how much of it is taken,
 * every slab it used), or a Buffer of its own for a single read or a big file. */
function space(arena, n) {
  if (!arena) return Buffer.allocUnsafe(n);
  if (n > SLAB_BYTES / 8) return Buffer.allocUnsafeSlow(n);
  if (!arena.slab || arena.at + n > arena.slab.length) {
    arena.slab = pool.pop() || Buffer.allocUnsafeSlow(SLAB_BYTES);
    arena.at = 0;
    arena.taken.push(arena.slab);
  }
  return arena.slab.subarray(arena.at, arena.at + n);
}

function readOne(p, maxBytes, arena) {
  let fd = null;
  try {
    if (O_NONBLOCK === undefined) {
      // never open a FIFO or a device synchronously without it: it could block the process
      const st = fs.statSync(p);
      if (!st.isFile()) return notFile(st);
    }
    fd = fs.openSync(p, OPEN_FLAGS);
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return notFile(st);
    if (st.size > maxBytes) return tooLarge(st);
    // one byte more than the size: a file that grew meanwhile is read on, up to the limit
    let buf = space(arena, st.size + 1);
    let n = 0;
    for (;;) {
      const want = buf.length - n;
      const got = fs.readSync(fd, buf, n, want, n);
      if (got === 0) break;
      n += got;
      if (n > maxBytes) return tooLarge(st);
      // Everything fstat promised, and the read stopped short of the spare byte: the end, no
      // second read to see 0 (one system call less per note). A short read before that (a
      // network or FUSE file system may give one) reads on.
      if (got < want && n >= st.size) break;
      if (n === buf.length) {
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
    }
    if (arena && buf.buffer === arena.slab?.buffer) arena.at += n; // the slab's space is taken (not a bigger copy)
    return { bytes: buf.subarray(0, n), size: st.size, mtimeMs: st.mtimeMs };
  } catch (e) {
    return failed(e);
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

async function appendLine({ path: p, line }) {
  try {
    await fsp.mkdir(path.dirname(p), { recursive: true });
    // One write with O_APPEND: concurrent appenders never interleave inside a line.
    const fd = fs.openSync(p, "a");
    try {
      fs.writeSync(fd, line + "\n");
    } finally {
      fs.closeSync(fd);
    }
    return { ok: true };
  } catch (e) {
    return { ok: false, ...failed(e) };
  }
}

// Writes to one path run one after another, in the order requested (parallel tool calls).
const writeQueues = new Map(); // path -> promise of the latest write
let writeSeq = 0;

function inOrder(p, f) {
  const prev = writeQueues.get(p) || Promise.resolve();
  const next = prev.then(f);
  writeQueues.set(p, next);
  next.then(() => {
    if (writeQueues.get(p) === next) writeQueues.delete(p);
  });
  return next;
}

/** Replace a file's text atomically (temp file + rename), creating its folders. */
function writeFile({ path: p, text }) {
  return inOrder(p, async () => {
    const tmp = `${p}.${process.pid}.${++writeSeq}.tmp`;
    try {
      await fsp.mkdir(path.dirname(p), { recursive: true });
      await fsp.writeFile(tmp, text);
      await fsp.rename(tmp, p);
      return { ok: true };
    } catch (e) {
      await fsp.rm(tmp, { force: true }).catch(() => {});
      return { ok: false, ...failed(e) };
    }
  });
}

/** One entry of a listing: what `full` leads to (a symlink followed; `realpath` for symlinks),
 * named `relPath`. Gone or a broken link: neither file nor folder. */
function dirEntry(full, relPath, isSymlink) {
  let st;
  try {
    st = fs.statSync(full, { throwIfNoEntry: false });
  } catch {
    /* unreadable: as gone */
  }
  if (!st) return { path: relPath, isFile: false, isDir: false, isSymlink, size: 0, mtimeMs: 0 }; // broken link, or gone
  const e = { path: relPath, isFile: st.isFile(), isDir: st.isDirectory(), isSymlink, size: st.size, mtimeMs: st.mtimeMs };
  if (isSymlink) {
    try {
      e.realpath = fs.realpathSync(full);
    } catch {
      /* unresolvable: left without */
    }
  }
  return e;
}

// The listing goes to the core with each entry an array of its fields in the core's order
// (protocol.rs, DirEntry): 10,000 entries as objects cost ~40 ms more in the wasm (a map and
// seven keys each) and twice the JSON.
function packListing({ entries, truncated, error, detail }) {
  const rows = entries.map((e) => [e.path, e.isFile, e.isDir, e.isSymlink, e.realpath ?? null, e.size, e.mtimeMs]);
  return { entries: rows, truncated, error, detail }; // an undefined error is left out of the JSON
}

/** A folder's entries (relative `/` paths), breadth first; symlinked folders are listed but
 * not descended into. With `typesOnly`, files and folders come as the folder listing tells
 * them (size and mtime 0): no stat each; symlinks and anything else are still stat'ed. */
async function listDir({ path: root, recursive, maxEntries, skipHidden, typesOnly }) {
  const entries = [];
  let truncated = false;
  const queue = [""];
  // Paths below the root by concatenation: path.join normalizes each of 10,000 paths again.
  const base = path.join(root, "/");
  try {
    while (queue.length) {
      const rel = queue.shift();
      let names;
      try {
        names = await fsp.readdir(rel ? base + rel : root, { withFileTypes: true });
      } catch (e) {
        if (!rel) throw e;
        continue; // a folder that vanished or cannot be read: its files are simply not listed
      }
      const picked = [];
      for (const d of names) {
        if (skipHidden && d.name.startsWith(".")) continue;
        if (entries.length + picked.length >= maxEntries) {
          truncated = true;
          break;
        }
        picked.push(d);
      }
      // Synchronous stats (see readFile): one folder at a time, then the event loop runs.
      const found = picked.map((d) => {
        const relPath = rel ? `${rel}/${d.name}` : d.name;
        const isFile = d.isFile();
        const isDir = d.isDirectory();
        if (typesOnly && (isFile || isDir)) return { path: relPath, isFile, isDir, isSymlink: false, size: 0, mtimeMs: 0 };
        return dirEntry(base + relPath, relPath, d.isSymbolicLink());
      });
      for (const e of found) {
        entries.push(e);
        if (recursive && e.isDir && !e.isSymlink) queue.push(e.path);
      }
      if (truncated) return { entries, truncated };
    }
  } catch (e) {
    return { entries, truncated, ...failed(e) };
  }
  return { entries, truncated };
}

/** Create a file (and its folders); never overwrite: `{ok: false, error: "exists"}`. */
async function createFile({ path: p, text }) {
  try {
    await fsp.mkdir(path.dirname(p), { recursive: true });
    await fsp.writeFile(p, text, { flag: "wx" });
    return { ok: true };
  } catch (e) {
    return { ok: false, ...failed(e) };
  }
}

// The Agent Trace's lock, append and head (the core's `appendChained` and `writeHead`; the
// steps are specified in src/governance/mod.rs). Everything under the lock is synchronous: no
// await while it is held, so no other code of this process ever sees it held.

/** A small regular file's bytes (a FIFO or a device is never opened so that it blocks), or
 * null when it does not exist; throws on other errors. */
function readSmall(p, max) {
  let fd;
  try {
    fd = fs.openSync(p, OPEN_FLAGS);
  } catch (e) {
    if (e && e.code === "ENOENT") return null;
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error(st.isDirectory() ? "EISDIR" : "not a regular file"), { code: st.isDirectory() ? "EISDIR" : "ENOTFILE" });
    const buf = Buffer.alloc(Math.min(st.size, max));
    let n = 0;
    while (n < buf.length) {
      const got = fs.readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** The owner a lock file's text names: "none" (not `{pid, host}`), "gone" (this host, and
 * its pid is not running, or is this process, which never holds the lock across an await) or
 * "alive" (running, or on another host). */
function lockOwner(text) {
  let o;
  try {
    o = JSON.parse(text);
  } catch {
    return "none";
  }
  if (!o || typeof o.host !== "string" || !Number.isSafeInteger(o.pid) || o.pid <= 0) return "none";
  if (o.host !== os.hostname()) return "alive";
  if (o.pid === process.pid) return "gone";
  try {
    process.kill(o.pid, 0);
    return "alive";
  } catch (e) {
    return e && e.code === "ESRCH" ? "gone" : "alive";
  }
}

/**
 * Take the lock file: create it (O_EXCL) holding {pid, host, token, ms}. A lock in the way is
 * broken when its file was not modified for `staleMs`, when the owner it names is gone, or,
 * naming no owner, when it stays the same file with the same content for `breakMs` of waiting
 * (a process that only touches it keeps its mtime fresh). Resolves {mine} or {error}.
 */
async function takeLock(lockPath, staleMs, waitMs, breakMs) {
  const mine = JSON.stringify({ pid: process.pid, host: os.hostname(), token: crypto.randomBytes(8).toString("hex"), ms: Date.now() });
  const started = Date.now();
  let seen = null;
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      try {
        fs.writeSync(fd, mine);
      } finally {
        fs.closeSync(fd);
      }
      return { mine };
    } catch (e) {
      if (!e || e.code !== "EEXIST") return failed(e);
    }
    let st = null;
    let text = "";
    try {
      st = fs.lstatSync(lockPath);
      if (st.isFile()) text = (readSmall(lockPath, 4096) || "").toString("utf8");
    } catch (e) {
      if (e && e.code === "ENOENT") continue; // released meanwhile
    }
    const t = Date.now();
    if (st) {
      const key = `${st.dev}:${st.ino}:${text}`;
      if (!seen || seen.key !== key) seen = { key, since: t };
      const owner = lockOwner(text);
      if (t - st.mtimeMs > staleMs || owner === "gone" || (owner === "none" && breakMs > 0 && t - seen.since > breakMs)) {
        try {
          fs.unlinkSync(lockPath);
          seen = null;
          continue;
        } catch (e) {
          if (e && e.code === "ENOENT") continue;
          // cannot be removed (a folder, no permission): wait, then time out
        }
      }
    }
    if (t - started > waitMs) return { error: "other", detail: "lock timeout" };
    await new Promise((r) => setTimeout(r, 1 + Math.random() * 4));
  }
}

/** Remove the lock if it is still ours (a lock broken and retaken by another is left alone). */
function releaseLock(lockPath, mine) {
  try {
    const cur = readSmall(lockPath, 4096);
    if (cur && cur.toString("utf8") === mine) fs.unlinkSync(lockPath);
  } catch {
    /* gone, or not ours */
  }
}

/** The last line of the open file `fd` of `size` bytes: {last, torn} (`torn`: no final newline). */
function lastLine(fd, size) {
  if (size === 0) return { last: Buffer.alloc(0), torn: false };
  const one = Buffer.alloc(1);
  fs.readSync(fd, one, 0, 1, size - 1);
  const torn = one[0] !== 0x0a;
  const parts = [];
  let pos = torn ? size : size - 1;
  while (pos > 0) {
    const n = Math.min(65536, pos);
    const buf = Buffer.alloc(n);
    fs.readSync(fd, buf, 0, n, pos - n);
    const i = buf.lastIndexOf(0x0a);
    if (i >= 0) {
      parts.unshift(buf.subarray(i + 1));
      break;
    }
    parts.unshift(buf);
    pos -= n;
  }
  return { last: Buffer.concat(parts), torn };
}

const sha256 = (b) => crypto.createHash("sha256").update(b).digest("hex");

/** Replace a file's text: a temporary file beside it, then rename (synchronous). */
function replaceSync(p, text) {
  const tmp = `${p}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
  try {
    fs.writeFileSync(tmp, text, { flag: "wx" });
    fs.renameSync(tmp, p);
  } catch (e) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* not created */
    }
    throw e;
  }
}

/**
 * The head beside the log, after a line was appended (under the lock): written as the next
 * head when the old one is exactly the head of the log as it was (`size`, `prevHash`; absent
 * only for an empty log), else left alone. Returns "written", "missing", "mismatch" or an
 * error text.
 */
function updateHead(headPath, parts, size, prevHash, newSize, lineHash) {
  const fill = (n, b, h) => parts[0] + n + parts[1] + b + parts[2] + h + parts[3];
  let old;
  try {
    old = readSmall(headPath, 4096);
  } catch (e) {
    return `cannot read the head: ${(e && e.code) || e}`;
  }
  let n = null;
  if (old === null) {
    if (size === 0) n = 0;
  } else {
    const s = old.toString("latin1");
    const m = s.startsWith(parts[0]) ? /^\d{1,15}/.exec(s.slice(parts[0].length)) : null;
    if (m && old.equals(Buffer.from(fill(Number(m[0]), size, prevHash)))) n = Number(m[0]);
  }
  if (n === null) return old === null ? "missing" : "mismatch";
  try {
    replaceSync(headPath, fill(n + 1, newSize, lineHash));
    return "written";
  } catch (e) {
    return `cannot write the head: ${(e && e.message) || e}`;
  }
}

/**
 * Append one record to a hash-chained JSONL file under the lock file, so that many processes
 * keep one whole chain: the line is `before + <hex SHA-256 of the file's last line> + after`;
 * with `headPath`, the head is kept in the same critical section. Never rejects.
 */
async function appendChained({ path: p, lockPath, before, after, staleMs, waitMs, breakMs = 0, headPath = "", headParts = [] }) {
  try {
    await fsp.mkdir(path.dirname(p), { recursive: true });
  } catch (e) {
    return { ok: false, ...failed(e) };
  }
  const lock = await takeLock(lockPath, staleMs, waitMs, breakMs);
  if (lock.error) return { ok: false, error: lock.error, detail: lock.detail };
  // Critical section: synchronous, no await until the lock is released.
  try {
    const fd = fs.openSync(p, "a+");
    let prevHash;
    let size;
    let newSize;
    let line;
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) return { ok: false, error: "other", detail: `${p} is not a regular file` };
      size = st.size;
      const { last, torn } = lastLine(fd, size);
      prevHash = sha256(last);
      line = before + prevHash + after;
      newSize = size + fs.writeSync(fd, (torn ? "\n" : "") + line + "\n");
    } finally {
      fs.closeSync(fd);
    }
    if (!headPath || headParts.length !== 4) return { ok: true, prevHash };
    return { ok: true, prevHash, head: updateHead(headPath, headParts, size, prevHash, newSize, sha256(line)) };
  } catch (e) {
    return { ok: false, ...failed(e) };
  } finally {
    releaseLock(lockPath, lock.mine);
  }
}

/** Under the log's lock: replace the head with `text` when the log is still `expectBytes`
 * long and ends with the line hashing to `expectLast`; else `{ok: false, error: "changed"}`. */
async function writeHead({ path: p, lockPath, headPath, text, expectBytes, expectLast, staleMs, waitMs, breakMs = 0 }) {
  const lock = await takeLock(lockPath, staleMs, waitMs, breakMs);
  if (lock.error) return { ok: false, error: lock.error, detail: lock.detail };
  try {
    let fd;
    try {
      fd = fs.openSync(p, OPEN_FLAGS);
    } catch (e) {
      return { ok: false, ...failed(e, e && e.code === "ENOENT" ? "changed" : undefined) };
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.size !== expectBytes || sha256(lastLine(fd, st.size).last) !== expectLast) return { ok: false, error: "changed" };
    } finally {
      fs.closeSync(fd);
    }
    replaceSync(headPath, text);
    return { ok: true };
  } catch (e) {
    return { ok: false, ...failed(e) };
  } finally {
    releaseLock(lockPath, lock.mine);
  }
}

/** The last `maxBytes` of a file as UTF-8, from a line boundary (a cut first line dropped). */
async function readTail({ path: p, maxBytes }) {
  let fd;
  try {
    fd = await fsp.open(p, "r");
  } catch (e) {
    return failed(e);
  }
  try {
    const { size } = await fd.stat();
    const start = Math.max(0, size - maxBytes);
    let buf = Buffer.alloc(size - start);
    await fd.read(buf, 0, buf.length, start);
    if (start > 0) {
      const i = buf.indexOf(0x0a);
      buf = i < 0 ? Buffer.alloc(0) : buf.subarray(i + 1);
    }
    return { text: buf.toString("utf8") };
  } catch (e) {
    return failed(e);
  } finally {
    await fd.close();
  }
}

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

"use strict";
// The Agent Trace's hash chain on disk: the lock, the chained append and the head beside the
// log. Part of js/host.cjs.

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");
const crypto = require("node:crypto");
const os = require("node:os");
const { failed, OPEN_FLAGS } = require("./files.cjs");

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

/** Append `before + <hash of the last line> + after` at the end (`size`) of the open log,
 * and keep the head. */
function appendOne(fd, size, before, after, headPath, headParts) {
  const { last, torn } = lastLine(fd, size);
  const prevHash = sha256(last);
  const line = before + prevHash + after;
  const text = Buffer.from((torn ? "\n" : "") + line + "\n");
  let at = 0;
  // O_APPEND: at the end, where `size` says it is under the lock
  while (at < text.length) at += fs.writeSync(fd, text, at, text.length - at);
  const newSize = size + text.length;
  if (!headPath || headParts.length !== 4) return { prevHash, newSize };
  return { prevHash, newSize, head: updateHead(headPath, headParts, size, prevHash, newSize, sha256(line)) };
}

/**
 * Append one record to a hash-chained JSONL file under the lock file, so that many processes
 * keep one whole chain: the line is `before + <hex SHA-256 of the file's last line> + after`;
 * with `headPath`, the head is kept in the same critical section. Never rejects.
 */
async function appendChained({ path: p, lockPath, before, after, staleMs, waitMs, breakMs = 0, headPath = "", headParts = [], tornParts = [], tornPath = "" }) {
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
    let torn = null;
    let out;
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) return { ok: false, error: "other", detail: `${p} is not a regular file` };
      let size = st.size;
      const end = lastLine(fd, size);
      if (end.torn && tornParts.length === 4 && tornPath) {
        // The core's repair (src/protocol.rs AppendChained): the torn bytes moved aside (never
        // overwriting), the log cut after its last newline, the move recorded first.
        const cut = size - end.last.length;
        fs.writeFileSync(tornPath, end.last, { flag: "wx" });
        fs.ftruncateSync(fd, cut);
        size = cut;
        const t = tornParts;
        const r = appendOne(fd, size, t[0] + end.last.length + t[1] + sha256(end.last) + t[2], t[3], headPath, headParts);
        torn = { path: tornPath, bytes: end.last.length, ...(r.head ? { head: r.head } : {}) };
        size = r.newSize;
      }
      out = appendOne(fd, size, before, after, headPath, headParts);
    } finally {
      fs.closeSync(fd);
    }
    return { ok: true, prevHash: out.prevHash, ...(out.head ? { head: out.head } : {}), ...(torn ? { torn } : {}) };
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

module.exports = { appendChained, writeHead };

"use strict";
// The host's file requests: stat, lstat, reads (one file, or a batch into pooled slabs), listings,
// writes and creations, appended lines and a log's tail. Every failure answers with a code
// (protocol::ReplyError) and Node's words. Part of js/host.cjs.

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");

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
    const r = { exists: false, ...failed(e) };
    // A dangling symlink looks missing to stat: say that the link itself is there.
    try {
      if (r.error === "not-found" && fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink()) r.isSymlink = true;
    } catch {
      /* the link cannot be looked at either: not found as stat said */
    }
    return r;
  }
}

// Each path itself, a final symlink not followed (protocol::LstatResult): [kind, target, nlink]
// per path, synchronous like the reads below (a call asks a few dozen lstats in one batch).
function lstat({ paths }) {
  const facts = paths.map((p) => {
    try {
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) return ["link", fs.readlinkSync(p), st.nlink];
      return [st.isFile() ? "file" : st.isDirectory() ? "dir" : "other", null, st.nlink];
    } catch (e) {
      if (e && (e.code === "ENOENT" || e.code === "ENOTDIR")) return ["missing", null, 0];
      return ["error", String((e && e.message) || e), 0];
    }
  });
  return { facts };
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

module.exports = { failed, OPEN_FLAGS, stat, lstat, readFile, readFiles, appendLine, inOrder, writeFile, dirEntry, packListing, listDir, createFile, readTail };

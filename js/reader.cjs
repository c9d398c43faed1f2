"use strict";
// Reads vault notes for the core (`readFile` requests marked `note`). When the core asks for
// many at once (a cold index), a worker thread reads batches of them and has its own instance
// of the core parse them (`parseNotes`), so this thread's core only indexes what comes back —
// the two run side by side. A few notes, no worker support, or a worker that fails: the notes
// are read here, exactly as any other file. Nothing here decides what a note means; the reply
// is the same `{bytes}` either way, plus the worker's parse as `note` when there is one.

const path = require("node:path");

const BATCH = 64; // notes a worker message carries (at least half as many, else read here)
const START_AT = 256; // notes asked for at once before a worker is worth starting (~40 ms)
const MAX_QUEUED = 8; // batches the worker holds before this thread reads the next itself
const IDLE_MS = 5000; // an idle worker is stopped after this long

/**
 * @param {object} o
 * @param {(req: object) => Promise<object>} o.readHere  reads one file on this thread
 * @param {() => ({bytes: Uint8Array, glue: string} | null)} o.source  the wasm for the worker
 * @param {boolean} o.enabled
 */
function createReader({ readHere, source, enabled }) {
  let queue = []; // [req, resolve] asked for since the last flush
  let flushing = false;
  let worker = null;
  let unusable = !enabled;
  const inflight = new Map(); // message id -> the batch the worker has
  let seq = 0;
  let idle = null;

  function read(req) {
    return new Promise((resolve) => {
      queue.push([req, resolve]);
      if (!flushing) {
        flushing = true;
        queueMicrotask(flush);
      }
    });
  }

  // Everything asked for in one go (one step of the core) is dealt out here.
  function flush() {
    flushing = false;
    const all = queue;
    queue = [];
    if (!worker && !unusable && all.length >= START_AT) start();
    for (let i = 0; i < all.length; i += BATCH) {
      const batch = all.slice(i, i + BATCH);
      if (worker && inflight.size < MAX_QUEUED && batch.length >= BATCH / 2) send(batch);
      else here(batch);
    }
  }

  function here(batch) {
    for (const [req, resolve] of batch) readHere(req).then(resolve, (e) => resolve({ error: String(e && e.message) }));
  }

  function send(batch) {
    const id = ++seq;
    inflight.set(id, batch);
    if (idle) {
      clearTimeout(idle);
      idle = null;
    }
    if (worker.ref) worker.ref(); // the process waits for its answer
    worker.postMessage({ id, reqs: batch.map(([r]) => ({ path: r.path, maxBytes: r.maxBytes })) });
  }

  function answered(w, m) {
    if (w !== worker) return;
    const batch = inflight.get(m.id);
    if (!batch) return;
    inflight.delete(m.id);
    const bytes = new Uint8Array(m.bytes);
    const notes = m.notes ? new Uint8Array(m.notes) : null;
    batch.forEach(([req, resolve], k) => {
      const r = m.replies[k];
      if (!r) return here([[req, resolve]]);
      if (r.error !== undefined) return resolve({ error: r.error });
      const reply = { bytes: bytes.subarray(r.at, r.at + r.len) };
      if (notes && r.note) reply.note = notes.subarray(r.note[0], r.note[0] + r.note[1]);
      resolve(reply);
    });
    if (inflight.size === 0) {
      if (w.unref) w.unref(); // never keeps the process alive by itself
      idle = setTimeout(stop, IDLE_MS);
      if (idle.unref) idle.unref();
    }
  }

  // The worker failed (or could not start): what it held is read here, and no worker again
  // (`closing`: stopped on purpose; a later cold index may start another).
  function failed(w, closing = false) {
    if (w !== worker) return;
    worker = null;
    if (!closing) unusable = true;
    const held = [...inflight.values()];
    inflight.clear();
    for (const b of held) here(b);
  }

  function start() {
    const src = source && source();
    if (!src) {
      unusable = true;
      return;
    }
    try {
      const { Worker } = require("node:worker_threads");
      const w = new Worker(path.join(__dirname, "parse-worker.cjs"), { workerData: { wasm: src.bytes, glue: src.glue } });
      worker = w;
      w.on("message", (m) => answered(w, m));
      w.on("error", () => failed(w));
      w.on("messageerror", () => failed(w));
      w.on("exit", () => failed(w));
      if (w.unref) w.unref();
    } catch {
      worker = null;
      unusable = true;
    }
  }

  function stop() {
    idle = null;
    const w = worker;
    if (!w) return;
    failed(w, true);
    w.terminate();
  }

  return {
    read,
    /** Stop the worker (anything it still holds is read here). */
    close() {
      if (idle) clearTimeout(idle);
      stop();
    },
    /** For tests and the benchmark: whether a worker is running, and batches it parsed. */
    get state() {
      return { running: worker !== null, unusable, sent: seq };
    },
  };
}

module.exports = { createReader, BATCH, START_AT };

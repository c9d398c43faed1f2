"use strict";
// The worker thread of js/reader.cjs: reads a batch of vault notes and has its own instance of
// the core parse them (`parseNotes`), so that the main thread's core only indexes them. A
// failed parse sends the notes without one: the main core then parses them itself.

const path = require("node:path");
const { parentPort, workerData } = require("node:worker_threads");
const { readFile } = require("./host.cjs");

const wasm = require(path.join(__dirname, workerData.glue));
wasm.initSync({ module: workerData.wasm });

parentPort.on("message", async ({ id, reqs }) => {
  const got = [];
  for (const r of reqs) got.push(await readFile(r));
  let total = 0;
  for (const g of got) if (g.bytes) total += g.bytes.length;
  // The files one after the other, in one buffer that moves to the main thread uncopied.
  const bytes = new Uint8Array(total);
  const replies = [];
  const paths = [];
  const lens = [];
  let at = 0;
  got.forEach((g, k) => {
    if (!g.bytes) return replies.push({ error: g.error });
    bytes.set(g.bytes, at);
    replies.push({ at, len: g.bytes.length });
    paths.push(reqs[k].path);
    lens.push(g.bytes.length);
    at += g.bytes.length;
  });
  let notes = null;
  try {
    // per file a u32 length, then the parsed notes (see vault::parse_batch)
    const out = wasm.parseNotes(paths.join("\0"), bytes, Uint32Array.from(lens));
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    let off = out.byteOffset + 4 * lens.length;
    let j = 0;
    for (const r of replies) {
      if (r.error !== undefined) continue;
      const n = view.getUint32(4 * j++, true);
      if (n) r.note = [off, n];
      off += n;
    }
    notes = out.buffer;
  } catch {
    for (const r of replies) delete r.note;
  }
  const transfer = notes ? [bytes.buffer, notes] : [bytes.buffer];
  parentPort.postMessage({ id, replies, bytes: bytes.buffer, notes }, transfer);
});

// A cold index of many notes reads and parses them on a worker thread (js/reader.cjs and
// js/parse-worker.cjs) while the main thread's core indexes: the same index as parsing
// everything on the main thread, a fallback when the worker cannot run, and a command that
// still exits when it is done. Runs under node --test and bun test.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dist, tmpdir, noCliEnv, nodeBinary, isBun, writeFiles as write } from "./helpers.mjs";

const T = { timeout: 60_000 };
const require = createRequire(import.meta.url);
const { createEngine } = require(path.join(dist, "engine.cjs"));
const { createReader, START_AT } = require(path.join(dist, "reader.cjs"));
const { readFile } = require(path.join(dist, "host.cjs"));
const { loadWasm, wasmSource } = require(path.join(dist, "core.cjs"));

/** A vault of `n` notes with front matter, headings, code, links and unicode; a few odd files. */
function manyNotes(n) {
  const files = {};
  for (let i = 0; i < n; i++) {
    files[`d${i % 3}/note-${i}.md`] =
      `---\ntitle: Note ${i}\ntags: [t${i % 5}]\nmodified: 2026-0${1 + (i % 9)}-1${i % 10}T10:00:00Z\n---\n` +
      `# Heading ${i}\n\nAbout [[hub]] and [[topic ${i % 40}]] with é${"ü".repeat(i % 7)}.\n\n` +
      "```\n[[not-a-link]]\n```\n\n## Part\n\n" +
      `See [[c${i}|alias]] and \`[[inline-code]]\` then [[topic ${(i * 7) % 40}#sec]].\n`;
  }
  files["bom.md"] = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("---\ntitle: Bom\n---\n[[hub]] [[bom-only]]\n")]);
  files["binary.md"] = Buffer.from([0x5b, 0x5b, 0xff, 0xfe, 0x5d, 0x5d]);
  files["empty.md"] = "";
  return files;
}

async function engineOn(dir, parseWorker) {
  return createEngine({
    options: { knowledge: "vault", vault: dir, vaultRefreshMs: 0 },
    env: noCliEnv(),
    cwd: tmpdir("hookwise-project-"),
    watch: false,
    parseWorker,
    log: () => {},
  });
}

async function answers(e) {
  const out = { index: (await e.doctor()).vault.index };
  delete out.index.indexMs;
  for (const c of ["hub", "topic 3", "c0", "c599", "bom-only", "not-a-link", "inline-code"]) {
    const r = await e.augmentToolCall({ tool: "bash", args: { command: `echo [[${c}]]` } });
    out[c] = r.context;
  }
  out.session = (await e.sessionPreview({ project: "Note 12" })).context;
  return out;
}

test(`a cold index of ${START_AT}+ notes parsed on a worker thread is the index the main thread builds`, T, async () => {
  const dir = write(tmpdir("hookwise-vault-"), manyNotes(600));
  const threaded = await engineOn(dir, undefined);
  const plain = await engineOn(dir, false);
  try {
    const a = await answers(threaded);
    const b = await answers(plain);
    assert.equal(a.index.files, 602, JSON.stringify(a.index));
    assert.equal(a.index.skipped.notUtf8, 1);
    assert.ok(a.hub && a["c599"] && a["bom-only"], "context from notes at both ends and behind a BOM");
    assert.equal(a["not-a-link"], null, "fenced code is no link");
    assert.equal(a["inline-code"], null, "inline code is no link");
    assert.deepEqual(a, b);
  } finally {
    await threaded.dispose();
    await plain.dispose();
  }
});

test("the reader sends big batches of notes to the worker, with the worker's parse beside each note's bytes", T, async () => {
  loadWasm();
  const dir = write(tmpdir("hookwise-reader-"), manyNotes(300));
  const reader = createReader({ readHere: readFile, source: wasmSource, enabled: true });
  try {
    const paths = Object.keys(manyNotes(300)).map((p) => path.join(dir, p));
    const replies = await Promise.all(paths.map((p) => reader.read({ path: p, maxBytes: 1 << 20, note: true })));
    assert.ok(reader.state.sent > 0, "batches went to the worker");
    for (const [i, r] of replies.entries()) {
      const want = fs.readFileSync(paths[i]);
      assert.deepEqual(Buffer.from(r.bytes), want, paths[i]);
      if (paths[i].endsWith("binary.md")) assert.equal(r.note, undefined, "no parse of a file that is not UTF-8");
      else assert.ok(r.note instanceof Uint8Array && r.note.length > 0, `a parse of ${paths[i]}`);
    }
    const title = Buffer.from(replies[5].note).toString("utf8");
    assert.match(title, /^6;Note 5/, "the parse starts with the note's title");
    // a small request is read on this thread
    const sent = reader.state.sent;
    const one = await reader.read({ path: paths[0], maxBytes: 1 << 20, note: true });
    assert.equal(one.note, undefined);
    assert.equal(reader.state.sent, sent);
  } finally {
    reader.close();
  }
});

test("a worker that cannot start (bad wasm) costs nothing: every note is read on this thread", T, async () => {
  const dir = write(tmpdir("hookwise-reader-"), manyNotes(300));
  const reader = createReader({ readHere: readFile, source: () => ({ bytes: new Uint8Array([0, 1, 2, 3]), glue: "wasm.cjs" }), enabled: true });
  try {
    const paths = Object.keys(manyNotes(300)).map((p) => path.join(dir, p));
    const replies = await Promise.all(paths.map((p) => reader.read({ path: p, maxBytes: 1 << 20, note: true })));
    for (const [i, r] of replies.entries()) assert.deepEqual(Buffer.from(r.bytes), fs.readFileSync(paths[i]));
    assert.equal(reader.state.unusable, true);
    assert.equal(reader.state.running, false);
  } finally {
    reader.close();
  }
});

test("the command exits as soon as it is done after a cold index on the worker", T, async () => {
  const dir = write(tmpdir("hookwise-vault-"), manyNotes(400));
  const started = Date.now();
  const r = await new Promise((resolve) =>
    execFile(isBun ? process.execPath : nodeBinary(), [path.join(dist, "cli.mjs"), "doctor", "--vault", dir, "--json"], { env: noCliEnv(), timeout: 40_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stdout, stderr, killed: err && err.killed }),
    ),
  );
  assert.ok(!r.killed, "not killed by the timeout");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).vault.index.files, 402);
  assert.ok(Date.now() - started < 30_000);
});

// The embedded vault through the engine API (createEngine) and the OpenCode plugin, on vaults
// written here into temp dirs: incremental re-indexing as a user sees it, files that are
// skipped, which knowledge source is chosen, session start and compaction with the vault.
// Runs under node --test and bun test (every test sets its own timeout: Bun's default is 5 s).
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { dist, fakeEnv, fakeRoot, loadPlugin, settle, tmpdir, noCliEnv, writeFiles as write } from "./helpers.mjs";

const T = { timeout: 30_000 };
const { createEngine } = await import(path.join(dist, "engine.mjs"));

// The plugin reads process.env: tests that start it restore it afterwards.
const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

function vault(files = {}) {
  return write(tmpdir("hookwise-vault-"), files);
}

/** An engine and its logs. */
async function engine({ options = {}, env = noCliEnv(), cwd = tmpdir("hookwise-project-") } = {}) {
  const logs = [];
  const e = await createEngine({ options, env, cwd, log: (level, message) => logs.push({ level, message }) });
  return { e, logs, warns: () => logs.filter((l) => l.level === "warn" || l.level === "error") };
}

/** What a bash call naming [[concept]] gets: its context (or null) and the parsed section. */
async function ask(e, concept) {
  await settle();
  const r = await e.augmentToolCall({ tool: "bash", args: { command: `echo [[${concept}]]` } });
  const ctx = r.context;
  const rel = ctx && /^# Related: (.*)$/m.exec(ctx);
  return {
    context: ctx,
    related: rel ? Object.fromEntries([...rel[1].matchAll(/\[\[([^\]]+)\]\] \((\d+) files?\)/g)].map((m) => [m[1], Number(m[2])])) : {},
    uris: ctx ? [...ctx.matchAll(/^# - (memory:\/\/[^:]+):/gm)].map((m) => m[1]) : [],
  };
}

const index = async (e) => (await e.doctor()).vault?.index;

// ---------------------------------------------------------------------------------------------
// Incremental re-indexing

test("a note added, changed, renamed and deleted shows in the next tool call's context (vaultRefreshMs 0)", T, async () => {
  const dir = vault({ "base.md": "# Base\n\n[[orchard]] grows [[apples]].\n" });
  const { e, warns } = await engine({ options: { knowledge: "vault", vault: dir, vaultRefreshMs: 0 } });

  // The model names [[x]] before any note does: no knowledge yet.
  assert.equal((await ask(e, "x")).context, null);

  write(dir, { "n.md": "# N\n\nThe [[x]] module talks to [[y]].\n" });
  let got = await ask(e, "x");
  assert.deepEqual(got.related, { y: 1 }, `added: [[x]] is related to [[y]]\n${got.context}`);
  assert.deepEqual(got.uris, ["memory://n"]);

  write(dir, { "n.md": "# N\n\nThe [[x]] module no longer talks to anyone but [[zed]].\n" });
  got = await ask(e, "x");
  assert.deepEqual(got.related, { zed: 1 }, `changed: [[y]] is gone, [[zed]] is there\n${got.context}`);

  write(dir, { "sub/m.md": "# M\n\nMore on [[x]] and [[zed]].\n" });
  got = await ask(e, "x");
  assert.deepEqual(got.related, { zed: 2 }, `a second note: weight 2\n${got.context}`);

  fs.renameSync(path.join(dir, "sub/m.md"), path.join(dir, "sub/m2.md"));
  got = await ask(e, "x");
  assert.deepEqual(got.related, { zed: 2 }, "renamed: still two notes");
  assert.ok(got.uris.includes("memory://sub/m2") && !got.uris.includes("memory://sub/m"), `renamed: the new URI only\n${got.context}`);

  fs.rmSync(path.join(dir, "n.md"));
  got = await ask(e, "x");
  assert.deepEqual(got.related, { zed: 1 }, `deleted: one note left\n${got.context}`);
  assert.deepEqual(got.uris, ["memory://sub/m2"]);

  fs.rmSync(path.join(dir, "sub"), { recursive: true });
  assert.equal((await ask(e, "x")).context, null, "no note links [[x]] any more");
  assert.deepEqual(warns(), []);
});

test("re-indexing reads only what changed (doctor's vault stats), and waits for vaultRefreshMs", T, async () => {
  const files = {};
  for (let i = 0; i < 20; i++) files[`notes/n${i}.md`] = `# Note ${i}\n\n[[topic-${i}]] relates to [[hub]].\n`;
  const dir = vault(files);
  const { e } = await engine({ options: { knowledge: "vault", vault: dir, vaultRefreshMs: 0 } });
  let ix = await index(e);
  assert.equal(ix.files, 20);
  assert.equal(ix.read, 20, "cold: every note read");
  assert.equal(ix.concepts, 21);
  assert.equal(ix.edges, 20, "each topic shares a note with the hub");

  // Each step asks about a concept not asked before, so the answer is the index's, not a cache's.
  write(dir, { "notes/new.md": "# New\n\n[[fresh-a]] and [[hub]].\n" });
  assert.deepEqual((await ask(e, "fresh-a")).related, { hub: 1 });
  ix = await index(e);
  assert.deepEqual([ix.files, ix.read, ix.unchanged, ix.removed], [21, 1, 20, 0], "added: one read");

  write(dir, { "notes/n3.md": "# Note 3, changed\n\n[[fresh-b]] replaced the topic, with [[hub]].\n" });
  assert.deepEqual((await ask(e, "fresh-b")).related, { hub: 1 });
  assert.equal((await ask(e, "topic-3")).context, null, "the old link is gone");
  ix = await index(e);
  assert.deepEqual([ix.files, ix.read, ix.removed], [21, 0, 0], "nothing changed since the last call");

  fs.renameSync(path.join(dir, "notes/n4.md"), path.join(dir, "notes/renamed-4.md"));
  assert.deepEqual((await ask(e, "topic-4")).uris, ["memory://notes/renamed-4"]);
  ix = await index(e);
  assert.deepEqual([ix.files, ix.read, ix.removed], [21, 1, 1], "renamed: one read, one dropped");

  fs.rmSync(path.join(dir, "notes/n5.md"));
  assert.equal((await ask(e, "topic-5")).context, null);
  ix = await index(e);
  assert.deepEqual([ix.files, ix.read, ix.removed, ix.unchanged], [20, 0, 1, 20], "deleted: dropped, nothing read");

  // With a refresh interval the index is not re-listed on every call.
  const slow = await engine({ options: { knowledge: "vault", vault: dir, vaultRefreshMs: 60_000 } });
  write(dir, { "notes/late.md": "# Late\n\n[[late-concept]] and [[hub]].\n" });
  assert.equal((await ask(slow.e, "late-concept")).context, null, "within vaultRefreshMs the index answers as it was");
  assert.deepEqual((await ask(e, "late-concept")).related, { hub: 1 }, "with vaultRefreshMs 0 it is seen at once");
});

// ---------------------------------------------------------------------------------------------
// Files that are skipped

test("non-UTF-8, > 5 MB and symlinks leaving the vault are skipped and counted; hidden folders are not indexed", T, async () => {
  const outside = write(tmpdir("hookwise-outside-"), {
    "secret.md": "# Secret\n\n[[secret-concept]] with [[alpha]].\n",
    "sub/s2.md": "# S2\n\n[[secret-folder-concept]] with [[alpha]].\n",
  });
  const dir = vault({
    "ok.md": "# Ok\n\n[[alpha]] and [[beta]].\n",
    "latin1.md": Buffer.concat([Buffer.from("# Bad\n\n[[alpha]] and [[not-utf8-concept]] "), Buffer.from([0xe9, 0xff, 0xfe, 0x0a])]),
    "big.md": "# Big\n\n[[alpha]] and [[huge-concept]].\n" + "word ".repeat(1_100_000),
    ".git/notes.md": "[[alpha]] [[hidden-git]]\n",
    ".obsidian/workspace.md": "[[alpha]] [[hidden-obsidian]]\n",
    ".trash/old.md": "[[alpha]] [[hidden-trash]]\n",
    ".hidden-note.md": "[[alpha]] [[hidden-file]]\n",
    "notes.txt": "[[alpha]] [[not-markdown]]\n",
  });
  assert.ok(fs.statSync(path.join(dir, "big.md")).size > 5 * 1024 * 1024);
  fs.symlinkSync(path.join(outside, "secret.md"), path.join(dir, "leak.md"));
  fs.symlinkSync(path.join(outside, "sub"), path.join(dir, "leak-folder"));
  fs.symlinkSync(path.join(dir, "nowhere.md"), path.join(dir, "broken.md"));

  const { e, logs, warns } = await engine({ options: { knowledge: "vault", vault: dir, vaultRefreshMs: 0 } });
  const ix = await index(e);
  assert.equal(ix.files, 1, "only ok.md is indexed");
  assert.deepEqual(ix.skipped, { notUtf8: 1, tooLarge: 1, outside: 1, unreadable: 0, vanished: 0 });
  assert.match(logs.find((l) => /using the vault/.test(l.message))?.message ?? "", /1 notes, 2 concepts, 3 files skipped/);
  assert.deepEqual(warns(), [], "skips are counted, not warned about");

  const alpha = await ask(e, "alpha");
  assert.deepEqual(alpha.related, { beta: 1 }, alpha.context);
  assert.deepEqual(alpha.uris, ["memory://ok"]);
  for (const c of ["not-utf8-concept", "huge-concept", "secret-concept", "secret-folder-concept", "hidden-git", "hidden-obsidian", "hidden-trash", "hidden-file", "not-markdown"]) {
    assert.equal((await ask(e, c)).context, null, `[[${c}]] is not indexed`);
  }

  // Nothing broke: the session start works, and a fixed file is indexed on the next refresh.
  const s = await e.sessionPreview({ project: "alpha" });
  assert.deepEqual(s.failures, []);
  assert.match(s.context ?? "", /^## Knowledge Graph Context/);
  write(dir, { "latin1.md": "# Fixed\n\n[[alpha]] and [[fixed-concept]].\n" });
  assert.deepEqual((await ask(e, "fixed-concept")).related, { alpha: 1 });
  const after = await index(e);
  assert.equal(after.files, 2);
  assert.equal(after.skipped.notUtf8, 0);
  assert.equal(after.skipped.tooLarge, 1, "the big file is still skipped (and not read again)");
  assert.deepEqual(warns(), []);
});

// ---------------------------------------------------------------------------------------------
// Which source answers

const NOTE_ABOUT_AUTH = { "auth.md": "# Vault auth\n\nIn the vault, [[auth]] goes with [[vault-only-concept]].\n" };

test("notes cross into the core as raw bytes: BOM dropped, empty notes, multi-byte text, batches of many files", T, async () => {
  const files = {
    "bom.md": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("---\ntitle: Bom Title\n---\n[[bom-concept]] and [[ünïcode-concept]] über\n")]),
    "empty.md": "",
  };
  // more than one read batch (64), each note naming the hub
  for (let i = 0; i < 150; i++) files[`many/n${i}.md`] = `# N${i}\n\n[[hub-concept]] [[c${i}]] é${"ü".repeat(i)}\n`;
  const dir = vault(files);
  const { e, warns } = await engine({ options: { knowledge: "vault", vault: dir, vaultRefreshMs: 0 } });
  const ix = await index(e);
  assert.equal(ix.files, 152, "every note, the empty one too");
  assert.deepEqual(ix.skipped, { notUtf8: 0, tooLarge: 0, outside: 0, unreadable: 0, vanished: 0 });
  const bom = await ask(e, "bom-concept");
  assert.deepEqual(bom.related, { "ünïcode-concept": 1 }, "front matter after a BOM is read, unicode links kept");
  assert.match(bom.context ?? "", /memory:\/\/bom/);
  for (const i of [0, 63, 64, 149]) {
    assert.deepEqual((await ask(e, `c${i}`)).related, { "hub-concept": 1 }, `note ${i} (read batches of 64)`);
  }
  const s = await e.sessionPreview({ project: "Bom Title" });
  assert.match(s.context ?? "", /Bom Title/, "the title from the front matter behind the BOM");
  assert.deepEqual(warns(), []);
});

test("the host reads a file as bytes, refuses FIFOs and folders without blocking, and reports a vanished file", T, async (t) => {
  const { createRequire } = await import("node:module");
  const { readFile, dirEntry } = createRequire(import.meta.url)(path.join(dist, "host.cjs"));
  const dir = tmpdir("hookwise-read-");
  fs.writeFileSync(path.join(dir, "a.md"), Buffer.from([0x41, 0xff, 0x0a]));
  const r = await readFile({ path: path.join(dir, "a.md"), maxBytes: 100 });
  assert.deepEqual([...r.bytes], [0x41, 0xff, 0x0a], "raw bytes: the core judges the UTF-8");
  // the size and mtime as opened: what a listing's stat says, so the next refresh keeps the note
  const st = fs.statSync(path.join(dir, "a.md"));
  assert.deepEqual([r.size, r.mtimeMs], [3, st.mtimeMs]);
  const listed = dirEntry(path.join(dir, "a.md"), "a.md", false);
  assert.deepEqual([r.size, r.mtimeMs], [listed.size, listed.mtimeMs]);
  assert.deepEqual(await readFile({ path: path.join(dir, "a.md"), maxBytes: 2 }), { error: "too-large", size: 3, mtimeMs: st.mtimeMs });
  const gone = await readFile({ path: path.join(dir, "gone.md"), maxBytes: 2 });
  assert.equal(gone.error, "not-found");
  assert.match(gone.detail, /ENOENT/);
  assert.deepEqual(await readFile({ path: dir, maxBytes: 2 }), { error: "other", detail: "EISDIR: a folder, not a file" });
  if (process.platform !== "win32") {
    const fifo = path.join(dir, "pipe.md");
    const { spawnSync } = await import("node:child_process");
    if (spawnSync("mkfifo", [fifo]).status === 0) {
      assert.deepEqual(await readFile({ path: fifo, maxBytes: 100 }), { error: "other", detail: "not a regular file" }, "no writer: must not hang");
    } else t.diagnostic("mkfifo unavailable");
  }
});

test("a listing of types only: files and folders without a stat, symlinks and others as before", T, async () => {
  const { createRequire } = await import("node:module");
  const { listDir } = createRequire(import.meta.url)(path.join(dist, "host.cjs"));
  const outside = write(tmpdir("hookwise-outside-"), { "o.md": "outside\n" });
  const dir = write(tmpdir("hookwise-list-"), { "a.md": "a\n", "sub/b.md": "bb\n", ".hidden/c.md": "c\n" });
  fs.symlinkSync(path.join(outside, "o.md"), path.join(dir, "link.md"));
  fs.symlinkSync(path.join(dir, "nowhere.md"), path.join(dir, "broken.md"));
  const ask = { path: dir, recursive: true, maxEntries: 100, skipHidden: true };
  const full = await listDir(ask);
  const cheap = await listDir({ ...ask, typesOnly: true });
  const byPath = (l) => Object.fromEntries(l.entries.map((e) => [e.path, e]));
  const [f, c] = [byPath(full), byPath(cheap)];
  assert.deepEqual(Object.keys(c).sort(), ["a.md", "broken.md", "link.md", "sub", "sub/b.md"]);
  assert.deepEqual(Object.keys(c).sort(), Object.keys(f).sort(), "the same entries");
  for (const p of ["a.md", "sub", "sub/b.md"]) {
    assert.deepEqual(c[p], { ...f[p], size: 0, mtimeMs: 0 }, `${p}: its type, no stat`);
  }
  assert.ok(f["sub/b.md"].size === 3 && f["sub/b.md"].mtimeMs > 0, "the full listing stats");
  assert.deepEqual(c["link.md"], f["link.md"], "a symlink is followed and resolved as before");
  assert.equal(c["link.md"].realpath, fs.realpathSync(path.join(outside, "o.md")));
  assert.deepEqual(c["broken.md"], f["broken.md"]);
  assert.equal(c["broken.md"].isFile, false);
});

test("the files of a batched read lie back to back and cross without a copy; others are joined", T, async () => {
  const { createRequire } = await import("node:module");
  const req = createRequire(import.meta.url);
  const { readFile, readFiles } = req(path.join(dist, "host.cjs"));
  const { takeBytes } = req(path.join(dist, "core.cjs"));
  const dir = tmpdir("hookwise-slab-");
  const texts = ["first note\n", "", "second — ünïcode\n", "x".repeat(3000)];
  texts.forEach((t, i) => fs.writeFileSync(path.join(dir, `${i}.md`), t));
  const { files: replies } = await readFiles({ dir: dir + "/", paths: texts.map((_, i) => `${i}.md`), maxBytes: 1 << 20 });
  // a single read or a big file gets its own buffer; a failed read carries no bytes
  fs.writeFileSync(path.join(dir, "big.md"), "b".repeat(600_000));
  const big = await readFile({ path: path.join(dir, "big.md"), maxBytes: 1 << 20 });
  const batch = replies.map((r, i) => [i, r]);
  const joined = takeBytes(batch);
  assert.equal(joined.buffer, replies[0].bytes.buffer, "one view of the slab, no copy");
  const back = batch.map(([, r]) => Buffer.from(joined.subarray(r.blob[0], r.blob[0] + r.blob[1])).toString());
  assert.deepEqual(back, texts);
  const seen = texts.map((_, i) => fs.statSync(path.join(dir, `${i}.md`)));
  assert.deepEqual(batch.map(([, r]) => r.blob.slice(2)), seen.map((st) => [st.size, st.mtimeMs]), "each file's size and mtime as read");
  // not back to back (a big file between, an error, the same slab out of order): copied together
  const mixed = [[0, { bytes: replies[2].bytes }], [1, big], [2, { error: "not-found" }], [3, { bytes: replies[0].bytes }]];
  const all = takeBytes(mixed);
  assert.notEqual(all.buffer, replies[0].bytes.buffer);
  assert.deepEqual(mixed[2][1], { error: "not-found" });
  const at = (k) => Buffer.from(all.subarray(mixed[k][1].blob[0], mixed[k][1].blob[0] + mixed[k][1].blob[1])).toString();
  assert.deepEqual([at(0), at(1).length, at(3)], [texts[2], 600_000, texts[0]]);
  assert.equal(mixed[0][1].blob.length, 2, "no size or mtime given: none sent");
});

test("a batched read answers each path as readFile would, in order, and its files cross as bare ranges", T, async () => {
  const { createRequire } = await import("node:module");
  const req = createRequire(import.meta.url);
  const { readFile, readFiles } = req(path.join(dist, "host.cjs"));
  const { takeBytes } = req(path.join(dist, "core.cjs"));
  const dir = write(tmpdir("hookwise-batch-"), { "a.md": "first\n", "sub/b.md": "second — ü\n", "big.md": "b".repeat(50) });
  fs.mkdirSync(path.join(dir, "folder.md"));
  const paths = ["sub/b.md", "gone.md", "a.md", "folder.md", "big.md"];
  const single = [];
  for (const p of paths) single.push(await readFile({ path: path.join(dir, p), maxBytes: 40 }));
  const { files: batched } = await readFiles({ dir: dir + "/", paths, maxBytes: 40 });
  assert.equal(batched.length, paths.length);
  batched.forEach((f, i) => {
    const { bytes, ...rest } = single[i];
    const { bytes: got, ...gotRest } = f;
    assert.deepEqual(gotRest, rest, paths[i]);
    assert.deepEqual(got && Buffer.from(got).toString(), bytes && Buffer.from(bytes).toString(), paths[i]);
  });
  // beside the replies' JSON: each file read becomes [offset, length, size, mtimeMs], errors stay
  const reply = await readFiles({ dir: dir + "/", paths, maxBytes: 40 });
  const batch = [[7, reply]];
  const joined = takeBytes(batch);
  const files = JSON.parse(JSON.stringify(batch))[0][1].files;
  const text = (r) => Buffer.from(joined.subarray(r[0], r[0] + r[1])).toString();
  assert.deepEqual([text(files[0]), text(files[2])], ["second — ü\n", "first\n"]);
  assert.deepEqual(files[0].slice(2), [fs.statSync(path.join(dir, "sub/b.md")).size, fs.statSync(path.join(dir, "sub/b.md")).mtimeMs]);
  assert.deepEqual([files[1].error, files[3]], ["not-found", { error: "other", detail: "EISDIR: a folder, not a file" }]);
  assert.match(files[1].detail, /ENOENT/);
  assert.equal(files[4].error, "too-large");
});

test("a batched read's slabs are reused only once recycled", T, async () => {
  const { createRequire } = await import("node:module");
  const { readFiles } = createRequire(import.meta.url)(path.join(dist, "host.cjs"));
  const dir = write(tmpdir("hookwise-recycle-"), { "a.md": "alpha\n", "b.md": "beta\n" });
  const ask = { dir: dir + "/", paths: ["a.md", "b.md"], maxBytes: 1000 };
  const text = (f) => Buffer.from(f.bytes).toString();
  const RECYCLE = Symbol.for("hookwise.recycle");
  const first = await readFiles(ask);
  assert.equal(first.files[0].bytes.buffer, first.files[1].bytes.buffer, "one batch, back to back in one slab");
  assert.equal(JSON.stringify(first).includes("recycle"), false, "the recycle hook never crosses");
  // not recycled: a later batch never writes over its bytes
  const second = await readFiles({ ...ask, paths: ["b.md", "a.md"] });
  assert.notEqual(second.files[0].bytes.buffer, first.files[0].bytes.buffer);
  assert.deepEqual(first.files.map(text), ["alpha\n", "beta\n"]);
  // recycled (as core.cjs does once the core has copied the bytes in): the next batch reads into it
  second[RECYCLE]();
  second[RECYCLE](); // twice is harmless: the slab is handed back once
  const third = await readFiles(ask);
  const fourth = await readFiles(ask);
  assert.equal(third.files[0].bytes.buffer, second.files[0].bytes.buffer);
  assert.notEqual(fourth.files[0].bytes.buffer, third.files[0].bytes.buffer, "a slab is handed out once per recycle");
  assert.deepEqual(third.files.map(text), ["alpha\n", "beta\n"]);
});

test('knowledge: "vault" uses the vault even when a maenifold CLI is on PATH', T, async () => {
  const f = fakeEnv();
  const dir = vault(NOTE_ABOUT_AUTH);
  const { e, warns } = await engine({ env: f.env, options: { knowledge: "vault", vault: dir } });
  const d = await e.doctor();
  assert.equal(d.source, "vault");
  assert.equal(d.discovery.path, null);
  assert.equal(d.discovery.error, "knowledge is set to the vault");
  assert.deepEqual((await ask(e, "auth")).related, { "vault-only-concept": 1 });
  assert.deepEqual(f.calls().filter((c) => c.event === "call"), [], "the CLI never ran");
  assert.deepEqual(warns(), []);
});

test('knowledge: "auto" prefers the CLI when it is found', T, async () => {
  const f = fakeEnv();
  const dir = vault(NOTE_ABOUT_AUTH);
  const { e } = await engine({ env: f.env, options: { vault: dir } });
  const d = await e.doctor();
  assert.equal(d.source, "maenifold-mcp", "maenifold, through its warm MCP session (transport auto)");
  assert.equal(d.discovery.source, "path");
  assert.equal(d.vault, null);
  const got = await ask(e, "auth");
  assert.ok("jwt" in got.related, `the fixture's knowledge (auth ~ jwt), not the vault's:\n${got.context}`);
  assert.ok(!("vault-only-concept" in got.related));
  assert.ok(f.calls().some((c) => c.tool === "build_context"), "maenifold answered");
  await e.dispose?.();
});

test('knowledge: "auto" falls back to the vault: option, HOOKWISE_VAULT, $MAENIFOLD_ROOT/memory, .opencode/knowledge', T, async () => {
  const optVault = vault({ "a.md": "[[auth]] [[from-option]]\n" });
  const envVault = vault({ "a.md": "[[auth]] [[from-env]]\n" });
  const root = tmpdir("hookwise-mroot-");
  write(path.join(root, "memory"), { "a.md": "[[auth]] [[from-maenifold-memory]]\n" });
  const project = tmpdir("hookwise-project-");
  write(path.join(project, ".opencode/knowledge"), { "a.md": "[[auth]] [[from-project]]\n" });

  const cases = [
    [{ vault: optVault }, { HOOKWISE_VAULT: envVault, MAENIFOLD_ROOT: root }, "from-option", optVault],
    [{}, { HOOKWISE_VAULT: envVault, MAENIFOLD_ROOT: root }, "from-env", envVault],
    [{}, { MAENIFOLD_ROOT: root }, "from-maenifold-memory", path.join(root, "memory")],
    [{}, {}, "from-project", path.join(project, ".opencode/knowledge")],
  ];
  for (const [options, extraEnv, concept, where] of cases) {
    const { e, logs, warns } = await engine({ env: noCliEnv(extraEnv), options, cwd: project });
    const d = await e.doctor();
    assert.equal(d.source, "vault", concept);
    assert.equal(d.vault.root, fs.realpathSync(where), concept);
    assert.deepEqual((await ask(e, "auth")).related, { [concept]: 1 }, concept);
    assert.deepEqual(warns(), [], `${concept}: the vault answers, no warning`);
    assert.ok(logs.some((l) => l.level === "info" && /^using the vault at /.test(l.message)), concept);
  }

  // The real maenifold memory layout works as a vault: the fixture's notes, no CLI.
  const copy = tmpdir("hookwise-fixture-");
  fs.cpSync(fakeRoot, copy, { recursive: true });
  const { e } = await engine({ env: noCliEnv({ MAENIFOLD_ROOT: copy }) });
  const auth = await ask(e, "auth");
  assert.ok("jwt" in auth.related, `the fixture's memory folder read as a vault:\n${auth.context}`);
});

test('knowledge: "maenifold" with no CLI is off even when a vault exists: one warning', T, async () => {
  const dir = vault(NOTE_ABOUT_AUTH);
  const { e, warns } = await engine({ options: { knowledge: "maenifold", vault: dir } });
  assert.equal((await e.doctor()).source, null);
  assert.equal((await ask(e, "auth")).context, null);
  assert.equal(warns().length, 1);
  assert.match(warns()[0].message, /knowledge context is off: maenifold CLI not found/);
});

test("no vault and no CLI: one warning at start, then every hook is a quiet no-op", T, async () => {
  const { e, warns } = await engine({ options: {} });
  assert.equal(warns().length, 1);
  assert.match(warns()[0].message, /^knowledge context is off: maenifold CLI not found.*; no vault either$/);
  for (let i = 0; i < 5; i++) {
    const args = { command: `echo [[auth]] ${i}` };
    const r = await e.augmentToolCall({ tool: "bash", args, callId: `c${i}` });
    assert.equal(r.args, args, "the caller's arguments, untouched");
    assert.equal(r.context, null);
    assert.equal(r.deliverWithResult, false);
    const w = await e.augmentToolCall({ tool: "write", args: { filePath: "a.md", content: "[[auth]]" }, callId: `w${i}` });
    assert.equal(w.deliverWithResult, false);
    assert.deepEqual(await e.completeToolCall({ tool: "write", callId: `w${i}`, output: "ok" }), { output: "ok" });
  }
  assert.equal(warns().length, 1, "no warning per call");
  const d = await e.doctor();
  assert.equal(d.source, null);
  assert.equal(d.vault, null);
});

test("a vault option naming a file or a missing folder: knowledge is off, one clear warning", T, async () => {
  const dir = vault(NOTE_ABOUT_AUTH);
  for (const bad of [path.join(dir, "auth.md"), path.join(dir, "missing")]) {
    const { e, warns } = await engine({ options: { vault: bad }, env: noCliEnv({ MAENIFOLD_ROOT: dir }) });
    assert.equal((await e.doctor()).source, null, "an explicit vault that is not a folder is not replaced by another");
    assert.equal(warns().length, 1, JSON.stringify(warns()));
    assert.match(warns()[0].message, new RegExp(`the vault ${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(option\\) is not a folder`));
    assert.equal((await ask(e, "auth")).context, null);
  }
});

// ---------------------------------------------------------------------------------------------
// Session start and compaction with the vault

// The project's notes were last modified long ago; one unrelated note (in a subfolder, not
// about the project) was just written: it is the session's recent activity.
const OLD = "---\nmodified: 2025-01-15T09:00:00Z\n---\n";
const ORCHARD = {
  "orchard.md": "---\ntitle: Orchard\ntags: [project]\nmodified: 2025-01-15T09:00:00Z\n---\n# Orchard\n\n[[Orchard]] is our harvest planner. It stores [[Harvest Plans]] in [[Postgres]] and sends [[Frost Alerts]].\n",
  "planning/harvest-plans.md": OLD + "# Harvest plans\n\n[[Harvest Plans]] are drafted weekly for the [[Orchard]]; they depend on [[Frost Alerts]].\n",
  "ops/frost-alerts.md": OLD + "# Frost alerts\n\n[[Frost Alerts]] page the grower when the forecast drops below zero. See [[Orchard]].\n",
  "data/postgres.md": OLD + "# Postgres\n\n[[Postgres]] 16 holds the [[Harvest Plans]] of the [[Orchard]].\n",
  "misc/knitting-circle.md": "# Knitting circle\n\n[[Knitting]] and [[Yarn]] on Thursdays.\n",
};
const ORCHARD_CONCEPTS = new Set(["orchard", "harvest-plans", "postgres", "frost-alerts", "knitting", "yarn"]);

test("session start from the vault: the project's concepts, memories and graph", T, async () => {
  const dir = vault(ORCHARD);
  const { e, warns } = await engine({ options: { knowledge: "vault", vault: dir } });
  const s = await e.sessionPreview({ project: "orchard" });
  assert.equal(s.project, "orchard");
  // Recent notes come back from RecentActivity by slug; ReadMemory must find a slug in a subfolder.
  assert.deepEqual(s.failures, [], "every question the session start asked the vault was answered");
  assert.ok(s.calls > 0);
  const block = s.context ?? "";
  assert.match(block, /^## Knowledge Graph Context\n\nProject: \*\*orchard\*\*\n/);
  const related = [...(block.split("### Related concepts\n")[1] ?? "").split("\n\n")[0].matchAll(/^- \[\[([^\]]+)\]\]/gm)].map((m) => m[1]);
  assert.ok(related.includes("orchard"), related.join(", "));
  for (const c of related) assert.ok(ORCHARD_CONCEPTS.has(c) || c === "orchard", `[[${c}]] is linked in the notes`);
  // The recent note is listed with its URI (RecentActivity names it by slug; ReadMemory finds it).
  assert.match(block, /^### Recent activity \(24 h\)\n- Knitting circle — memory:\/\/misc\/knitting-circle \(modified /m, block);
  const uris = [...block.matchAll(/memory:\/\/[\w./-]+/g)].map((m) => m[0]);
  assert.ok(uris.includes("memory://orchard"), block);
  for (const u of uris) assert.ok(fs.existsSync(path.join(dir, u.slice("memory://".length) + ".md")), `${u} is a note`);
  assert.match(block, /^- \[\[orchard\]\] → .*\[\[harvest-plans\]\]/m, "graph connections from the notes");
  assert.deepEqual(s.concepts.map((c) => c.name), related);
  assert.deepEqual(warns(), []);
});

test("the plugin with a vault (HOOKWISE_VAULT, no CLI): tool context, session start and compaction; WriteMemory is refused with one warning", T, async () => {
  const dir = vault(ORCHARD);
  const before = fs.readdirSync(dir, { recursive: true }).sort();
  const home = tmpdir("hookwise-home-");
  Object.assign(process.env, { PATH: tmpdir("hookwise-nopath-"), HOME: home, MAENIFOLD_ROOT: tmpdir("hookwise-root-"), HOOKWISE_VAULT: dir });
  delete process.env.MAENIFOLD_CLI;
  const logs = [];
  const texts = [
    "Plan the [[Harvest Plans]] for the [[Orchard]].",
    "We decided to keep [[Frost Alerts]] in [[Postgres]] because the planner already reads it.",
  ];
  const client = {
    app: { log: async ({ body }) => void logs.push(body) },
    session: {
      prompt: async () => ({ data: {} }),
      messages: async () => ({ data: texts.map((text, i) => ({ info: { id: `m${i}`, role: i ? "assistant" : "user" }, parts: [{ type: "text", text }] })) }),
    },
  };
  const worktree = path.join(home, "orchard");
  fs.mkdirSync(worktree);
  const plugin = await loadPlugin();
  const hooks = await plugin.server({ client, directory: worktree, worktree }, {});
  const warns = () => logs.filter((l) => l.level === "warn" || l.level === "error");
  assert.ok(logs.some((l) => l.level === "info" && l.message.startsWith(`using the vault at ${fs.realpathSync(dir)} (HOOKWISE_VAULT)`)), JSON.stringify(logs));

  // A bash call gets the vault's knowledge as comment lines.
  const out = { args: { command: "echo [[frost-alerts]]" } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "c1" }, out);
  assert.match(out.args.command, /^# <!-- Knowledge Graph Context \(hookwise\) -->\n# ## \[\[frost-alerts\]\]\n# Note memory:\/\/ops\/frost-alerts \(Frost alerts\): \[\[Frost Alerts\]\] page the grower[^\n]*\n(?:# [^\n]*\n)*# Related: .*\[\[orchard\]\]/);
  assert.ok(out.args.command.endsWith("\necho [[frost-alerts]]"));

  // Session start: the next system prompt carries the project's context from the vault.
  await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_1", title: "t", time: { created: Date.now() } } } } });
  const sys = { system: ["You are opencode."] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1" }, sys);
  assert.equal(sys.system.length, 2, JSON.stringify(logs));
  assert.match(sys.system[1], /^## Knowledge Graph Context\n\nProject: \*\*orchard\*\*/);

  // Compaction: the preservation block is pushed; the vault refuses the compaction memory.
  const comp = { context: [] };
  await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, comp);
  assert.equal(comp.context.length, 1);
  assert.match(comp.context[0], /^## Knowledge Graph Preservation \(hookwise\)\n/);
  const line = /^Session concepts: (.*)$/m.exec(comp.context[0])?.[1] ?? "";
  assert.deepEqual([...line.matchAll(/\[\[([^\]]+)\]\]/g)].map((m) => m[1]).sort(), ["frost-alerts", "harvest-plans", "orchard", "postgres"]);
  assert.match(comp.context[0], /We decided to keep \[\[Frost Alerts\]\] in \[\[Postgres\]\]/);
  assert.equal(comp.prompt, undefined, "the prompt is not replaced");
  assert.equal(warns().length, 1, JSON.stringify(warns()));
  assert.equal(warns()[0].level, "warn");
  assert.match(warns()[0].message, /WriteMemory: the vault is read-only/);
  assert.deepEqual(fs.readdirSync(dir, { recursive: true }).sort(), before, "nothing was written into the vault");
});

// The vault watcher (js/watch.cjs, the `vaultChanges` request): with it a refresh reads only
// the notes the host saw change; without it (engine option `watch: false`, or a host that
// cannot watch) the vault is re-listed. Both paths must see every added, changed, renamed and
// deleted note on the next call. Runs under node --test and bun test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, settle, tmpdir, noCliEnv, writeFiles as write } from "./helpers.mjs";

const T = { timeout: 30_000 };
const require = createRequire(import.meta.url);
const { createEngine } = require(path.join(dist, "engine.cjs"));
const { createWatchers } = require(path.join(dist, "watch.cjs"));
const { dirEntry } = require(path.join(dist, "host.cjs"));

const env = () => noCliEnv();

async function related(e, concept) {
  await settle();
  const r = await e.augmentToolCall({ tool: "bash", args: { command: `echo [[${concept}]]` } });
  const ctx = r.context;
  const rel = ctx && /^# Related: (.*)$/m.exec(ctx);
  return rel ? Object.fromEntries([...rel[1].matchAll(/\[\[([^\]]+)\]\] \((\d+) files?\)/g)].map((m) => [m[1], Number(m[2])])) : {};
}
const index = async (e) => (await e.doctor()).vault.index;

for (const watch of [true, false]) {
  const how = watch ? "the watcher" : "re-listing (watch: false)";
  test(`added, changed, renamed and deleted notes are seen on the next call, through ${how}`, T, async () => {
    const files = {};
    for (let i = 0; i < 30; i++) files[`notes/n${i}.md`] = `# N${i}\n\n[[topic-${i}]] and [[hub]].\n`;
    const dir = write(tmpdir("hookwise-vault-"), files);
    const e = await createEngine({ options: { knowledge: "vault", vault: dir, vaultRefreshMs: 0 }, env: env(), cwd: tmpdir(), watch, log: () => {} });
    try {
      let ix = await index(e);
      assert.deepEqual([ix.files, ix.read, ix.watching, ix.incremental], [30, 30, watch, false], "cold: listed and read");

      write(dir, { "notes/added.md": "# A\n\n[[w-added]] and [[hub]].\n", "notes/n1.md": "# N1\n\n[[w-changed]] and [[hub]].\n" });
      fs.renameSync(path.join(dir, "notes/n2.md"), path.join(dir, "notes/n2-renamed.md"));
      fs.rmSync(path.join(dir, "notes/n3.md"));
      assert.deepEqual(await related(e, "w-added"), { hub: 1 });
      ix = await index(e);
      assert.deepEqual([ix.files, ix.read, ix.removed, ix.incremental, ix.watching], [30, 3, 2, watch, watch]);
      assert.deepEqual(await related(e, "w-changed"), { hub: 1 });
      assert.deepEqual(await related(e, "topic-1"), {}, "the changed note's old link is gone");
      assert.deepEqual(await related(e, "topic-2"), { hub: 1 }, "the renamed note is still there");
      assert.deepEqual(await related(e, "topic-3"), {}, "the deleted note is gone");
      ix = await index(e);
      assert.deepEqual([ix.read, ix.removed], [0, 0], "nothing changed since");

      // A folder moved in with notes inside: the watcher reports only the folder, so the core lists.
      const outside = write(tmpdir("hookwise-elsewhere-"), { "x.md": "# X\n\n[[moved-in]] and [[hub]].\n" });
      fs.renameSync(outside, path.join(dir, "moved"));
      assert.deepEqual(await related(e, "moved-in"), { hub: 1 });
      ix = await index(e);
      assert.equal(ix.incremental, false, "a new folder is listed");
      // and a note written into it afterwards is seen through the folder's own watcher
      write(dir, { "moved/y.md": "# Y\n\n[[in-moved]] and [[hub]].\n" });
      assert.deepEqual(await related(e, "in-moved"), { hub: 1 });
      ix = await index(e);
      assert.deepEqual([ix.read, ix.incremental], [1, watch]);
    } finally {
      e.dispose();
    }
  });
}

test("the watcher reports changed paths once, as they are now, watches new folders, and is truncated when asked first", T, async () => {
  const dir = write(tmpdir("hookwise-vault-"), { "a.md": "a", "sub/b.md": "b", "sub/gone.md": "g", ".hidden/c.md": "c" });
  const w = createWatchers({ describe: dirEntry });
  const paths = (r) => r.entries.map((e) => e.path).sort();
  try {
    assert.deepEqual(await w.changes(dir), { entries: [], truncated: true }, "the first question: nothing known from before");
    assert.deepEqual(await w.changes(dir), { entries: [], truncated: false }, "nothing changed");
    write(dir, { "a.md": "a22", "sub/b.md": "b2", ".hidden/c.md": "c2", "sub/.b.md.swp": "x" });
    fs.rmSync(path.join(dir, "sub/gone.md"));
    await settle();
    let r = await w.changes(dir);
    assert.deepEqual(paths(r), ["a.md", "sub/b.md", "sub/gone.md"], "hidden files and folders are not reported");
    assert.equal(r.truncated, false);
    const a = r.entries.find((e) => e.path === "a.md");
    assert.deepEqual([a.isFile, a.isDir, a.size], [true, false, 3], "described as it is now");
    assert.equal(a.mtimeMs, fs.statSync(path.join(dir, "a.md")).mtimeMs);
    const gone = r.entries.find((e) => e.path === "sub/gone.md");
    assert.deepEqual([gone.isFile, gone.isDir], [false, false], "a deleted path is neither file nor folder");
    assert.deepEqual((await w.changes(dir)).entries, [], "reported once");
    fs.mkdirSync(path.join(dir, "new"));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the new folder's watcher starts
    write(dir, { "new/d.md": "d" });
    await settle();
    r = await w.changes(dir);
    assert.ok(paths(r).includes("new") && paths(r).includes("new/d.md"), JSON.stringify(r));
    assert.equal(r.entries.find((e) => e.path === "new").isDir, true);
  } finally {
    w.close();
  }
  assert.equal(w.size, 0);
  const off = createWatchers({ enabled: false, describe: dirEntry });
  assert.equal((await off.changes(dir)).error, "other");
  assert.match((await off.changes(dir)).detail, /off/);
  const ws = createWatchers({ describe: dirEntry });
  const missing = await ws.changes(path.join(dir, "nope"));
  assert.equal(missing.truncated, true);
  assert.equal(missing.error, "other");
  assert.match(missing.detail, /ENOENT/);
  // Not tried again at once (the core re-lists meanwhile), even once the folder exists.
  fs.mkdirSync(path.join(dir, "nope"));
  assert.match((await ws.changes(path.join(dir, "nope"))).detail, /ENOENT/);
  ws.close();
  assert.deepEqual(await ws.changes(path.join(dir, "nope")), { entries: [], truncated: true }, "after close: a fresh start");
  ws.close();
});

test("a watched vault never keeps the process alive; dispose closes the watcher", T, () => {
  const dir = write(tmpdir("hookwise-vault-"), { "a.md": "# A\n\n[[x]] and [[y]]\n" });
  const script = `
    const { createEngine } = require(${JSON.stringify(path.join(dist, "engine.cjs"))});
    createEngine({ options: { knowledge: "vault", vault: ${JSON.stringify(dir)} }, cwd: ${JSON.stringify(dir)}, log: () => {} })
      .then(async (e) => { const ix = (await e.doctor()).vault.index; console.log(JSON.stringify([ix.files, ix.watching])); if (process.argv[2] === "dispose") e.dispose(); });`;
  for (const mode of ["keep", "dispose"]) {
    const r = spawnSync(process.execPath, ["-e", script, mode], { encoding: "utf8", timeout: 20_000, env: { ...process.env, ...env() } });
    assert.equal(r.status, 0, `${mode}: exits by itself (${r.signal || ""} ${r.stderr})`);
    assert.equal(r.stdout.trim(), "[1,true]");
  }
});

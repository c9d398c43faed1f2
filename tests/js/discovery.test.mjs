// CLI discovery as a user meets it: through the engine's `discovery` report.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { tmpdir, dist } from "./helpers.mjs";

const { createEngine } = await import(path.join(dist, "engine.mjs"));

function exe(p, body = "#!/bin/sh\necho 'Context for CONCEPT: x'\n") {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, body, { mode: 0o755 });
  return p;
}

async function discover(env, options = {}) {
  const logs = [];
  const e = await createEngine({ env, options, cwd: tmpdir(), log: (l, m) => logs.push({ l, m }) });
  return { d: e.discovery, logs };
}

test("explicit cliPath option, then MAENIFOLD_CLI, resolved through symlinks", async () => {
  const d = tmpdir();
  const real = exe(path.join(d, "real/maenifold"));
  fs.symlinkSync(real, path.join(d, "link"));
  const viaOption = await discover({ MAENIFOLD_CLI: "/nope" }, { cliPath: path.join(d, "link") });
  assert.deepEqual(viaOption.d, { path: fs.realpathSync(real), source: "option" });
  const viaEnv = await discover({ MAENIFOLD_CLI: path.join(d, "link"), PATH: "" });
  assert.equal(viaEnv.d.source, "env");
});

test("MAENIFOLD_ROOT/bin/maenifold is used, and PATH after it", async () => {
  const root = tmpdir();
  exe(path.join(root, "bin/maenifold"));
  const other = tmpdir();
  exe(path.join(other, "maenifold"));
  assert.equal((await discover({ MAENIFOLD_ROOT: root, PATH: other })).d.source, "root");
  const noBin = tmpdir();
  const r = await discover({ MAENIFOLD_ROOT: noBin, PATH: `/nonexistent:${other}` });
  assert.deepEqual(r.d, { path: fs.realpathSync(path.join(other, "maenifold")), source: "path" });
});

test("a root binary that is a symlink out of the root is refused", async () => {
  const base = tmpdir();
  const root = path.join(base, "root");
  const outside = exe(path.join(base, "elsewhere/maenifold"));
  fs.mkdirSync(path.join(root, "bin"), { recursive: true });
  fs.symlinkSync(outside, path.join(root, "bin/maenifold"));
  const { d, logs } = await discover({ MAENIFOLD_ROOT: root, PATH: "" });
  assert.equal(d.path, null);
  assert.match(d.error, /outside the maenifold root/);
  assert.equal(logs.filter((l) => l.l === "warn").length, 1);
});

test("a sibling folder sharing the root's prefix does not count as inside it", async () => {
  const base = tmpdir();
  const safe = path.join(base, "safe");
  const evil = exe(path.join(base, "safe-evil/maenifold"));
  fs.mkdirSync(path.join(safe, "bin"), { recursive: true });
  fs.symlinkSync(evil, path.join(safe, "bin/maenifold"));
  const { d } = await discover({ MAENIFOLD_ROOT: safe, PATH: "" });
  assert.equal(d.path, null);
  assert.match(d.error, /safe-evil/);
});

test("a file without the execute bit is passed over with the reason", async () => {
  const dir = tmpdir();
  fs.writeFileSync(path.join(dir, "maenifold"), "#!/bin/sh\n", { mode: 0o644 });
  const { d } = await discover({ PATH: dir, HOME: tmpdir() });
  assert.equal(d.path, null);
  assert.match(d.error, /not executable/);
});

test("missing everywhere: the engine loads, knowledge is off, one warning", async () => {
  const { d, logs } = await discover({ PATH: tmpdir(), HOME: tmpdir() });
  assert.equal(d.path, null);
  assert.equal(d.source, "none");
  assert.deepEqual(logs.map((l) => l.l), ["warn"]);
  assert.match(logs[0].m, /not found/);
});

test("values with NUL bytes are rejected", async () => {
  const { d } = await discover({ MAENIFOLD_CLI: "/usr/bin/maen\0ifold" });
  assert.equal(d.path, null);
  assert.match(d.error, /NUL/);
  const r = await discover({ MAENIFOLD_ROOT: "/tmp/a\0b", PATH: tmpdir() });
  assert.match(r.d.error, /MAENIFOLD_ROOT contains a NUL byte/);
});

// `hookwise init` writes the OpenCode configuration the project's OpenCode generation reads
// (pkg/dist/cli.mjs, run as a user runs it): 2.x `plugins: [{package}]` (anomalyco/opencode
// packages/schema/src/config/plugin.ts), 1.x `plugin: ["hookwise"]`, both with a note when
// the generation is unknown; never a second entry, never an opencode.jsonc rewritten.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PKG_DIR } from "../e2e/lib/pack.mjs";

const run = promisify(execFile);
const CLI = path.join(PKG_DIR, "dist/cli.mjs");
const base = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-oc2-init-"));
const bin = path.join(base, "bin");
fs.mkdirSync(bin);
fs.symlinkSync(process.execPath, path.join(bin, "node"));

/** `hookwise init …` in a fresh project holding `files`; `opencode`: a fake `opencode --version`. */
async function init(files, args = [], { opencode } = {}) {
  const dir = fs.mkdtempSync(path.join(base, "p-"));
  for (const [f, t] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), t);
  const pathDirs = [bin];
  if (opencode) {
    const d = fs.mkdtempSync(path.join(base, "oc-"));
    fs.writeFileSync(path.join(d, "opencode"), `#!/bin/sh\necho ${opencode}\n`, { mode: 0o755 });
    pathDirs.unshift(d);
  }
  const env = { PATH: pathDirs.join(":"), HOME: dir, MAENIFOLD_ROOT: path.join(dir, "none") };
  const r = await run(process.execPath, [CLI, "init", "--cwd", dir, ...args], { env, encoding: "utf8" });
  const read = (f) => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), "utf8") : null);
  return { dir, stdout: r.stdout, json: () => JSON.parse(read("opencode.json")), read };
}

test("--opencode 2 writes the 2.x form; a second run adds nothing", async () => {
  const r = await init({}, ["--opencode", "2"]);
  assert.deepEqual(r.json().plugins, [{ package: "hookwise" }]);
  assert.equal(r.json().plugin, undefined);
  assert.match(r.stdout, /added hookwise to `plugins` in opencode\.json \(OpenCode 2\.x: --opencode\)/);
  const again = await run(process.execPath, [CLI, "init", "--cwd", r.dir, "--opencode", "2"], { env: { PATH: bin, HOME: r.dir }, encoding: "utf8" });
  assert.match(again.stdout, /kept `plugins` in opencode\.json/);
  assert.deepEqual(r.json().plugins, [{ package: "hookwise" }]);
});

test("the generation from the key an opencode.json already uses, other settings kept", async () => {
  const two = await init({ "opencode.json": JSON.stringify({ model: "a/b", plugins: ["other"] }) });
  assert.deepEqual(two.json(), { model: "a/b", plugins: ["other", { package: "hookwise" }] });
  const one = await init({ "opencode.json": JSON.stringify({ plugin: [["hookwise", { timeoutMs: 1 }]] }) });
  assert.deepEqual(one.json(), { plugin: [["hookwise", { timeoutMs: 1 }]] }, "already there with options: untouched");
  assert.match(one.stdout, /kept `plugin`/);
});

test("the generation from `opencode --version`", async () => {
  const two = await init({}, [], { opencode: "2.0.18" });
  assert.deepEqual(two.json().plugins, [{ package: "hookwise" }]);
  assert.equal(two.json().plugin, undefined);
  const one = await init({}, [], { opencode: "1.18.33" });
  assert.deepEqual(one.json().plugin, ["hookwise"]);
  assert.equal(one.json().plugins, undefined);
});

test("unknown generation: both forms, with a note", async () => {
  const r = await init({});
  assert.deepEqual(r.json().plugin, ["hookwise"]);
  assert.deepEqual(r.json().plugins, [{ package: "hookwise" }]);
  assert.match(r.stdout, /note: OpenCode's generation is unknown/);
});

test("an opencode.jsonc or a broken opencode.json is left as it is; the line to add is printed", async () => {
  const jsonc = "{\n  // mine\n  \"model\": \"a/b\"\n}\n";
  const c = await init({ "opencode.jsonc": jsonc }, ["--opencode", "2"]);
  assert.equal(c.read("opencode.jsonc"), jsonc);
  assert.equal(c.read("opencode.json"), null);
  assert.match(c.stdout, /kept opencode\.jsonc .*add to it: "plugins": \[\{ "package": "hookwise" \}\]/);
  const broken = await init({ "opencode.json": "{ nope" }, ["--opencode", "1"]);
  assert.equal(broken.read("opencode.json"), "{ nope");
  assert.match(broken.stdout, /"plugin": \["hookwise"\]/);
});

test("--opencode takes 1 or 2 only", async () => {
  await assert.rejects(run(process.execPath, [CLI, "init", "--cwd", base, "--opencode", "3"], { env: { PATH: bin }, encoding: "utf8" }), (e) => e.code === 2 && /--opencode must be 1 or 2/.test(e.stderr));
});

// `hookwise init --kilo` and `hookwise doctor` (pkg/dist/cli.mjs, run as a user runs it; no Kilo
// needed): the plugin file Kilo loads from .kilo/plugin/, written once and never over a file;
// none when a kilo.json loads hookwise already; the all-agents init; and what doctor says where
// a plugin host would check nothing — Kilo's plugin file that cannot load hookwise, OpenCode 2's
// setup-only `plugins` entry — in a governed project.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { pathToFileURL } from "node:url";
import { PKG_DIR } from "../e2e/lib/pack.mjs";

const run = promisify(execFile);
const CLI = path.join(PKG_DIR, "dist/cli.mjs");
const base = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-kilo-init-"));
const bin = path.join(base, "bin");
fs.mkdirSync(bin);
fs.symlinkSync(process.execPath, path.join(bin, "node"));
process.on("exit", () => fs.rmSync(base, { recursive: true, force: true }));

/** A fresh project holding `files`; `hookwise` makes node_modules/hookwise resolve (a link to pkg/). */
function project(files = {}, { hookwise = false } = {}) {
  const dir = fs.mkdtempSync(path.join(base, "p-"));
  for (const [f, t] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), t);
  }
  if (hookwise) {
    fs.mkdirSync(path.join(dir, "node_modules"));
    fs.symlinkSync(PKG_DIR, path.join(dir, "node_modules", "hookwise"));
  }
  return dir;
}

async function cli(dir, args, { pathDirs = [] } = {}) {
  const env = { PATH: [...pathDirs, bin].join(":"), HOME: dir, MAENIFOLD_ROOT: path.join(dir, "none") };
  return run(process.execPath, [CLI, ...args, "--cwd", dir], { env, encoding: "utf8" });
}

const read = (dir, f) => fs.readFileSync(path.join(dir, f), "utf8");

test("init --kilo writes .kilo/plugin/hookwise.js loading the project's hookwise; again: kept, unchanged", async () => {
  const dir = project({}, { hookwise: true });
  const first = await cli(dir, ["init", "--kilo"]);
  assert.match(first.stdout, /created \.kilo\/plugin\/hookwise\.js/);
  const text = read(dir, ".kilo/plugin/hookwise.js");
  // found as the launcher finds it, never by Bun's walk up every parent folder (issue 38)
  assert.match(text, /function findHookwise\(d, rel\)[\s\S]*"dist\/index\.mjs"\);\n[\s\S]*^export default \(await import\(pathToFileURL\(at\)\.href\)\)\.default;$/m);
  assert.doesNotMatch(text, /from "hookwise"/);
  const second = await cli(dir, ["init", "--kilo", "--json"]);
  assert.equal(JSON.parse(second.stdout).changes[0].action, "kept");
  assert.equal(read(dir, ".kilo/plugin/hookwise.js"), text);
  // what the file loads is the package's dual export
  const mod = await import(pathToFileURL(path.join(dir, "node_modules/hookwise/dist/index.mjs")).href);
  assert.deepEqual(Object.keys(mod.default).sort(), ["id", "server", "setup"]);
});

test("init --kilo never overwrites a file of that name, and adds none when kilo.json loads hookwise", async () => {
  const mine = "export default { id: 'mine', server: async () => ({}) };\n";
  const dir = project({ ".kilo/plugin/hookwise.js": mine });
  const r = await cli(dir, ["init", "--kilo"]);
  assert.match(r.stdout, /kept \.kilo\/plugin\/hookwise\.js: another plugin by that name/);
  assert.equal(read(dir, ".kilo/plugin/hookwise.js"), mine);
  assert.match(r.stdout, /note: the plugin file loads the project's own hookwise/, "and says the package is missing");
  for (const [file, text] of [
    ["kilo.json", JSON.stringify({ plugin: [["hookwise", { timeoutMs: 4000 }]] })],
    [".kilo/kilo.jsonc", '{\n  // ours\n  "plugin": ["hookwise@1.2.3"]\n}\n'],
  ]) {
    const d = project({ [file]: text });
    const out = await cli(d, ["init", "--kilo"]);
    assert.match(out.stdout, new RegExp(`kept ${file.replace(/\./g, "\\.")}: its \`plugin\` list loads hookwise already`), out.stdout);
    assert.equal(fs.existsSync(path.join(d, ".kilo/plugin/hookwise.js")), false, "not loaded twice");
    assert.equal(read(d, file), text, "the configuration is untouched");
  }
  // a plugin file of another name that loads hookwise counts too
  const other = project({ ".kilocode/plugin/hw.ts": 'export { default } from "hookwise";\n' });
  assert.match((await cli(other, ["init", "--kilo"])).stdout, /kept \.kilocode\/plugin\/hw\.ts: it loads hookwise/);
  assert.equal(fs.existsSync(path.join(other, ".kilo")), false);
});

test("init --kilo --global loads the hookwise that ran init, by file URL", async () => {
  const dir = project();
  await cli(dir, ["init", "--kilo", "--global"]);
  const spec = /from "([^"]+)"/.exec(read(dir, ".kilo/plugin/hookwise.js"))[1];
  assert.equal(spec, pathToFileURL(path.join(PKG_DIR, "dist/index.mjs")).href);
  assert.ok(fs.existsSync(new URL(spec)));
  const doctor = JSON.parse((await cli(dir, ["doctor", "--json"])).stdout);
  assert.equal(doctor.agents.find((a) => a.host === "kilo").ok, true, "it loads from there");
});

test("the all-agents init sets Kilo up where the project uses it (.kilo) or it is on PATH", async () => {
  const used = project({ ".kilo/kilo.json": "{}\n" }, { hookwise: true });
  const r = await cli(used, ["init"]);
  assert.match(r.stdout, /created \.kilo\/plugin\/hookwise\.js/, r.stdout);
  const onPath = project({}, { hookwise: true });
  const kiloBin = fs.mkdtempSync(path.join(base, "kilo-"));
  fs.writeFileSync(path.join(kiloBin, "kilo"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  await cli(onPath, ["init"], { pathDirs: [kiloBin] });
  assert.ok(fs.existsSync(path.join(onPath, ".kilo/plugin/hookwise.js")));
  const neither = project({}, { hookwise: true });
  await cli(neither, ["init"]);
  assert.equal(fs.existsSync(path.join(neither, ".kilo")), false, "no Kilo, no plugin file");
});

test("doctor: Kilo's plugin file that loads hookwise, and loudly one that cannot in a governed project", async () => {
  const ok = project({}, { hookwise: true });
  await cli(ok, ["init", "--kilo"]);
  const good = JSON.parse((await cli(ok, ["doctor", "--json"])).stdout);
  const kilo = good.agents.find((a) => a.host === "kilo");
  assert.equal(kilo.ok, true, JSON.stringify(kilo));
  assert.equal(kilo.file, ".kilo/plugin/hookwise.js");
  const broken = project({ ".orchestration/active_intents.yaml": "active_intents: []\n" });
  await cli(broken, ["init", "--kilo"]);
  const bad = JSON.parse((await cli(broken, ["doctor", "--json"])).stdout);
  assert.equal(bad.agents.find((a) => a.host === "kilo").ok, false);
  const w = bad.warnings.find((x) => /Kilo CLI checks NO tool call here/.test(x));
  assert.ok(w, JSON.stringify(bad.warnings));
  assert.match(w, /\.orchestration\/active_intents\.yaml/);
  // not governed: said as the agent's state, no alarm
  const plain = project();
  await cli(plain, ["init", "--kilo"]);
  const quiet = JSON.parse((await cli(plain, ["doctor", "--json"])).stdout);
  assert.equal(quiet.agents.find((a) => a.host === "kilo").ok, false);
  assert.ok(!quiet.warnings.some((x) => /NO tool call/.test(x)), JSON.stringify(quiet.warnings));
});

test("doctor: OpenCode 2's setup-only `plugins` entry in a governed project is a warning, naming 2.0.x", async () => {
  const files = { ".orchestration/active_intents.yaml": "active_intents: []\n", "opencode.json": JSON.stringify({ plugins: [{ package: "hookwise" }] }) };
  const oc = fs.mkdtempSync(path.join(base, "oc-"));
  fs.writeFileSync(path.join(oc, "opencode"), "#!/bin/sh\necho 2.0.3\n", { mode: 0o755 });
  const dir = project(files, { hookwise: true });
  const r = JSON.parse((await cli(dir, ["doctor", "--json"], { pathDirs: [oc] })).stdout);
  const w = r.warnings.find((x) => /OpenCode 2's `plugins` \(setup\(\) only\)/.test(x));
  assert.ok(w, JSON.stringify(r.warnings));
  // doctor runs no program (issue 38): the installed OpenCode's version is not asked
  assert.match(w, /a released OpenCode 2\.0\.x build gives that setup\(\) no tool hooks/);
  assert.match(w, /checks NO tool call/);
  // the 1.x form, or no governance: nothing to say
  const v1 = project({ ...files, "opencode.json": JSON.stringify({ plugin: ["hookwise"] }) }, { hookwise: true });
  assert.ok(!JSON.parse((await cli(v1, ["doctor", "--json"])).stdout).warnings.some((x) => /setup\(\) only/.test(x)));
  const ungoverned = project({ "opencode.json": files["opencode.json"] }, { hookwise: true });
  assert.ok(!JSON.parse((await cli(ungoverned, ["doctor", "--json"])).stdout).warnings.some((x) => /setup\(\) only/.test(x)));
});

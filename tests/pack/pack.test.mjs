// The packaging test: `npm pack ./pkg`, install the tarball into fresh temp projects the way
// OpenCode installs plugins (install scripts off, offline), and check it really works from an
// ESM project and a CJS project under Node, and from an ESM project under Bun. Also checks what
// the tarball holds and type-checks the .d.ts files from ESM and CJS consumers.
//
// Needs a built pkg/ (`npm run build`). Every consumer runs in its own process, in its own
// project, so resolution goes through that project's node_modules and nothing of the repo.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";

const run = promisify(execFile);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// HOOKWISE_PKG_DIR: pack another assembled package (e.g. a deliberately broken copy).
const pkgDir = path.resolve(process.env.HOOKWISE_PKG_DIR || path.join(repo, "pkg"));
const bun = path.join(repo, "node_modules/.bin/bun");
const fakeMaenifold = path.join(repo, "tests/fake-maenifold/maenifold");
const fakeRoot = path.join(repo, "tests/fake-maenifold/fixtures/root");
const TYPESCRIPT = "typescript@5.9.3";

// Children get the environment without what `npm run` / `node --test` put there: an inherited
// npm_config_local_prefix would make the inner `npm install` write into the repo.
const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== "NODE_TEST_CONTEXT" && k !== "NODE_OPTIONS"),
);
childEnv.npm_config_update_notifier = "false";

let base; // temp dir holding everything
let tarball; // path of the .tgz
let packInfo; // npm pack --json entry
let manifest; // package.json as it is inside the tarball
let tarFiles; // paths inside the tarball, without the leading "package/"
const projects = {}; // name -> installed project dir

async function npm(args, cwd) {
  return run("npm", args, { cwd, env: childEnv, encoding: "utf8", maxBuffer: 16 << 20, timeout: 60_000 });
}

async function project(name, pkgJson) {
  const dir = path.join(base, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `consumer-${name}`, version: "1.0.0", private: true, ...pkgJson }, null, 2));
  // Its own empty cache: proves the install needs nothing but the tarball.
  await npm(["install", "--ignore-scripts", "--offline", "--no-audit", "--no-fund", "--cache", path.join(base, `cache-${name}`), tarball], dir);
  return dir;
}

before(async () => {
  if (!fs.existsSync(path.join(pkgDir, "package.json")) || !fs.existsSync(path.join(pkgDir, "dist/hookwise_bg.wasm"))) {
    throw new Error(`${pkgDir} is not built: run \`npm run build\` first`);
  }
  base = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-pack-"));
  const { stdout } = await npm(["pack", pkgDir, "--pack-destination", base, "--json"], repo);
  [packInfo] = JSON.parse(stdout);
  tarball = path.join(base, packInfo.filename);
  tarFiles = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((p) => p.replace(/^package\//, ""));
  execFileSync("tar", ["-xzf", tarball, "-C", base, "package/package.json"]);
  manifest = JSON.parse(fs.readFileSync(path.join(base, "package/package.json"), "utf8"));
  const [esm, cjs, bunEsm] = await Promise.all([
    project("esm", { type: "module" }),
    project("cjs", { type: "commonjs" }),
    project("bun-esm", { type: "module" }),
  ]);
  Object.assign(projects, { esm, cjs, bunEsm });
});

after(() => {
  if (base && !process.env.HOOKWISE_KEEP_TMP) fs.rmSync(base, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Checks that run inside the consumer projects. They are real functions here (so they parse and
// lint with this file) and are pasted into the consumer scripts by their source text: they may
// only use their parameters.

const CONTEXT_TEXT = "Context for CONCEPT: auth\n\nDirect relations (1 CONCEPTS):\n  • jwt (co-occurs in 2 files)\n";
const EMPTY_TEXT = "Context for CONCEPT: nothing\n\nDirect relations (0 CONCEPTS):\n";

/** The engine with a host-supplied runner: what it asked the runner, what it returned. */
async function engineFacts(createEngine, { execPath, texts }) {
  const calls = [];
  const logs = [];
  const runner = async (argv, o) => {
    calls.push({ argv, o });
    const payload = JSON.parse(argv[argv.indexOf("--payload") + 1]);
    const stdout = texts[payload.conceptName] ?? "";
    return { success: true, stdout, stderr: "", exitCode: 0, timedOut: false, durationMs: 1 };
  };
  const engine = await createEngine({ options: { cliPath: execPath }, runner, log: (level, message) => logs.push({ level, message }) });
  const args = { command: "echo [[auth]]" };
  const hit = await engine.augmentToolCall({ tool: "bash", args });
  const emptyArgs = { command: "echo [[nothing]]" };
  const miss = await engine.augmentToolCall({ tool: "bash", args: emptyArgs });
  const plainArgs = { command: "echo plain" };
  const plain = await engine.augmentToolCall({ tool: "bash", args: plainArgs });
  return {
    discovery: engine.discovery,
    calls,
    logs,
    hit,
    callerArgsAfter: args,
    miss: { ...miss, sameObject: miss.args === emptyArgs },
    plain: { ...plain, sameObject: plain.args === plainArgs },
  };
}

/** The OpenCode plugin's server with a stub client: once with the fake maenifold, once with no CLI. */
async function pluginFacts(plugin, { cwd, fakeCli }) {
  const client = (logs) => ({ app: { log: async ({ body }) => (logs.push(body), true) } });
  const withCli = { logs: [] };
  // the CLI from the user's environment: a plugin option in a project file names no program (issue 38)
  process.env.MAENIFOLD_CLI = fakeCli;
  const hooks = await plugin.server({ client: client(withCli.logs), directory: cwd, worktree: cwd }, {});
  withCli.hooks = Object.fromEntries(Object.entries(hooks).map(([k, v]) => [k, typeof v]));
  // the model tools (the knowledge tools: the fake maenifold is a knowledge source)
  withCli.tools = Object.fromEntries(Object.entries(hooks.tool || {}).map(([k, v]) => [k, typeof (v && v.execute)]));
  const out = { args: { command: "echo [[auth]] done", description: "d" } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c1" }, out);
  withCli.args = out.args;

  const noCli = { logs: [] };
  process.env.MAENIFOLD_CLI = cwd + "/no-such-maenifold";
  const hooks2 = await plugin.server({ client: client(noCli.logs), directory: cwd, worktree: cwd }, { knowledge: "maenifold" }); // no vault fallback either (MAENIFOLD_ROOT has a memory/ folder)
  for (let i = 0; i < 3; i++) {
    const o = { args: { command: "echo [[auth]]" } };
    await hooks2["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: `n${i}` }, o);
    const a = { output: "x" };
    await hooks2["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: `n${i}` }, a);
    noCli.commands = [...(noCli.commands || []), o.args.command];
    noCli.outputs = [...(noCli.outputs || []), a.output];
  }
  return { withCli, noCli };
}

// ---------------------------------------------------------------------------------------------

const ESM_CHECK = `
import fs from "node:fs";
import { createRequire } from "node:module";
import plugin from "hookwise";
import * as main from "hookwise";
import { createEngine } from "hookwise/engine";
import * as engineNs from "hookwise/engine";
const require = createRequire(import.meta.url);
${engineFacts.toString()}
${pluginFacts.toString()}
const cfg = JSON.parse(process.argv[2]);
const server = await import("hookwise/server");
const out = {
  runtime: typeof Bun !== "undefined" ? "bun" : "node",
  mainKeys: Object.keys(main),
  serverKeys: Object.keys(server),
  plugin: { id: plugin.id, serverType: typeof plugin.server, setupType: typeof plugin.setup, keys: Object.keys(plugin).sort() },
  serverSame: server.default === plugin,
  engineKeys: Object.keys(engineNs).sort(),
  oneEngineInstance: require("hookwise/engine").createEngine === createEngine,
  resolved: { main: import.meta.resolve("hookwise"), server: import.meta.resolve("hookwise/server"), engine: import.meta.resolve("hookwise/engine") },
  version: require("hookwise/package.json").version,
  execPath: fs.realpathSync(process.execPath),
};
out.engine = await engineFacts(createEngine, { execPath: process.execPath, texts: cfg.texts });
out.pluginRun = await pluginFacts(plugin, { cwd: process.cwd(), fakeCli: cfg.fakeCli });
fs.writeFileSync(cfg.out, JSON.stringify(out));
`;

const CJS_CHECK = `
"use strict";
const fs = require("node:fs");
${engineFacts.toString()}
(async () => {
  const cfg = JSON.parse(process.argv[2]);
  const engine = require("hookwise/engine");
  const out = {
    requireModule: process.features.require_module ?? null,
    engineKeys: Object.keys(engine).sort(),
    engineResolved: require.resolve("hookwise/engine"),
    execPath: fs.realpathSync(process.execPath),
  };
  out.engine = await engineFacts(engine.createEngine, { execPath: process.execPath, texts: cfg.texts });
  out.oneEngineInstance = (await import("hookwise/engine")).createEngine === engine.createEngine;
  try {
    const m = require("hookwise");
    out.main = { ok: true, keys: Object.keys(m), id: m.default && m.default.id, serverType: typeof (m.default && m.default.server), resolved: require.resolve("hookwise") };
  } catch (e) {
    out.main = { ok: false, code: e.code, message: e.message };
  }
  out.mainViaImport = (await import("hookwise")).default.id;
  fs.writeFileSync(cfg.out, JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

/** Write `script` into project `dir`, run it with `cmd`, return what it wrote. */
async function consume(dir, file, script, cmd, flags = []) {
  fs.writeFileSync(path.join(dir, file), script);
  const outFile = path.join(dir, `${file}.json`);
  const cfg = JSON.stringify({ out: outFile, fakeCli: fakeMaenifold, texts: { auth: CONTEXT_TEXT, nothing: EMPTY_TEXT } });
  const env = { ...childEnv, MAENIFOLD_ROOT: fakeRoot, FAKE_MAENIFOLD_LOG: path.join(dir, "maenifold-calls.jsonl"), HOME: dir };
  delete env.MAENIFOLD_CLI;
  try {
    await run(cmd, [...flags, file, cfg], { cwd: dir, env, encoding: "utf8", timeout: 30_000 });
  } catch (e) {
    throw new Error(`${cmd} ${file} failed (exit ${e.code}):\n${e.stdout}\n${e.stderr}`);
  }
  return JSON.parse(fs.readFileSync(outFile, "utf8"));
}

const bash = (c) => execFileSync("bash", ["-c", c], { encoding: "utf8" });

function assertEngine(e, execPath, dir) {
  assert.deepEqual(e.discovery, { path: execPath, source: "option" });
  assert.ok(!e.logs.some((l) => l.level === "warn" || l.level === "error"), JSON.stringify(e.logs));
  // The runner got the argv the core built, never a shell line.
  assert.equal(e.calls.length, 2, "one BuildContext per concept; the call without WikiLinks asks nothing");
  const [first] = e.calls;
  assert.deepEqual(first.argv.slice(1, 4), ["--tool", "BuildContext", "--payload"]);
  assert.equal(fs.realpathSync(first.argv[0]), execPath);
  assert.deepEqual(JSON.parse(first.argv[4]), { conceptName: "auth", depth: 1, includeContent: true, maxEntities: 5 });
  assert.deepEqual(first.o, { timeoutMs: 5000, maxBytes: 1048576 });
  // The context arrives as shell comment lines before the command, which runs exactly as before.
  const { hit } = e;
  assert.deepEqual(hit.concepts, ["auth"]);
  assert.equal(hit.deliverWithResult, false);
  assert.equal(typeof hit.context, "string");
  const lines = hit.context.split("\n");
  assert.ok(lines.every((l) => l.startsWith("#")), hit.context);
  assert.equal(lines[0], "# <!-- Knowledge Graph Context (hookwise) -->");
  assert.match(hit.context, /\[\[auth\]\]/);
  assert.match(hit.context, /\[\[jwt\]\]/);
  assert.equal(hit.args.command, `${hit.context}\necho [[auth]]`);
  assert.equal(bash(hit.args.command), bash("echo [[auth]]"));
  assert.deepEqual(e.callerArgsAfter, { command: "echo [[auth]]" }, "the caller's args are never mutated");
  // "Direct relations (0 CONCEPTS)" is no knowledge: nothing added, the caller's object back.
  assert.equal(e.miss.context, null);
  assert.equal(e.miss.sameObject, true);
  assert.deepEqual(e.plain.concepts, []);
  assert.equal(e.plain.sameObject, true);
  assert.match(e.hit.callId, /\S/);
  void dir;
}

function assertEsm(r, dir) {
  assert.deepEqual(r.mainKeys, ["default"], "the plugin module exports exactly one thing");
  assert.deepEqual(r.serverKeys, ["default"], "hookwise/server exports exactly one thing");
  // OpenCode 1.x takes `server`, OpenCode 2.x decodes `{id, setup}` (tests/opencode2)
  assert.deepEqual(r.plugin, { id: "hookwise", serverType: "function", setupType: "function", keys: ["id", "server", "setup"] });
  assert.equal(r.serverSame, true, "`.` and `./server` are the same module");
  assert.deepEqual(r.engineKeys, ["Engine", "HookwiseError", "createEngine"]);
  assert.equal(r.oneEngineInstance, true, "import and require of ./engine share one instance (no dual-package hazard)");
  for (const [k, url] of Object.entries(r.resolved)) {
    const p = fileURLToPath(url);
    assert.ok(fs.realpathSync(p).startsWith(fs.realpathSync(path.join(dir, "node_modules/hookwise/dist")) + path.sep), `${k} -> ${p}`);
  }
  assert.equal(r.version, manifest.version);
  assertEngine(r.engine, r.execPath, dir);

  const { withCli, noCli } = r.pluginRun;
  assert.equal(withCli.hooks["tool.execute.before"], "function");
  assert.equal(withCli.hooks["tool.execute.after"], "function");
  // every hook a function; `tool` is OpenCode's map of plugin tools (the core's model tools)
  const { tool: toolMap, ...hookTypes } = withCli.hooks;
  assert.ok(Object.values(hookTypes).every((t) => t === "function"), JSON.stringify(withCli.hooks));
  assert.equal(toolMap, "object");
  assert.deepEqual(withCli.tools, { knowledge_search: "function", knowledge_context: "function", knowledge_read: "function" });
  assert.ok(!withCli.logs.some((l) => l.level === "warn" || l.level === "error"), JSON.stringify(withCli.logs));
  const cmd = withCli.args.command;
  assert.match(cmd, /^# <!-- Knowledge Graph Context \(hookwise\) -->\n/);
  assert.match(cmd, /\[\[jwt\]\]/, "context from the fake maenifold's graph");
  assert.ok(cmd.endsWith("\necho [[auth]] done"), cmd);
  assert.equal(bash(cmd), bash("echo [[auth]] done"));
  assert.equal(withCli.args.description, "d");
  const calls = fs.readFileSync(path.join(dir, "maenifold-calls.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((c) => c.tool);
  assert.deepEqual(calls.map((c) => c.payload.conceptName), ["auth"], "the installed plugin really ran the CLI");

  assert.deepEqual(noCli.commands, Array(3).fill("echo [[auth]]"), "no CLI: the command is untouched");
  assert.deepEqual(noCli.outputs, Array(3).fill("x"));
  const warns = noCli.logs.filter((l) => l.level === "warn" || l.level === "error");
  assert.equal(warns.length, 1, JSON.stringify(noCli.logs));
  assert.equal(warns[0].level, "warn");
  assert.equal(warns[0].service, "hookwise");
}

// ---------------------------------------------------------------------------------------------

test("tarball: ships the wasm and every file package.json names; no install scripts, sources or deps", (t) => {
  const size = fs.statSync(tarball).size;
  t.diagnostic(`${packInfo.filename}: ${size} bytes packed, ${packInfo.unpackedSize} unpacked, ${tarFiles.length} files`);
  assert.equal(manifest.name, "hookwise");
  assert.ok(tarFiles.includes("package.json"));
  assert.ok(tarFiles.includes("README.md"));
  assert.ok(tarFiles.includes("dist/hookwise_bg.wasm"), tarFiles.join("\n"));
  const wasm = execFileSync("tar", ["-xzOf", tarball, "package/dist/hookwise_bg.wasm"], { maxBuffer: 64 << 20 });
  assert.ok(WebAssembly.validate(new Uint8Array(wasm)), "the shipped .wasm is a valid module");

  // Every path package.json points at is in the tarball.
  const referenced = new Set();
  const collect = (v) => {
    if (typeof v === "string") referenced.add(v);
    else if (v && typeof v === "object") Object.values(v).forEach(collect);
  };
  collect(manifest.exports);
  for (const k of ["main", "module", "types", "typings"]) if (manifest[k]) referenced.add(manifest[k]);
  assert.ok(referenced.size >= 6, [...referenced].join(", "));
  for (const ref of referenced) {
    assert.ok(!ref.includes("*"), `no pattern exports expected: ${ref}`);
    assert.ok(tarFiles.includes(path.posix.normalize(ref)), `${ref} is referenced by package.json but not in the tarball`);
  }
  // Conditions: `types` first (TypeScript takes the first match), `default` last.
  const order = (cond, at) => {
    if (!cond || typeof cond !== "object") return;
    const keys = Object.keys(cond);
    if (keys.includes("types")) assert.equal(keys[0], "types", `${at}: types first`);
    if (keys.includes("default")) assert.equal(keys.at(-1), "default", `${at}: default last`);
    for (const k of keys) order(cond[k], `${at}.${k}`);
  };
  for (const [sub, cond] of Object.entries(manifest.exports)) order(cond, `exports["${sub}"]`);

  // Nothing runs at install time (OpenCode installs with scripts off; the package must not need them).
  const scripts = manifest.scripts || {};
  for (const s of ["preinstall", "install", "postinstall", "prepare"]) assert.equal(scripts[s], undefined, `scripts.${s}`);
  assert.ok(!tarFiles.includes("binding.gyp"), "binding.gyp would make npm run node-gyp as an install script");
  assert.deepEqual(Object.keys(manifest.dependencies || {}), [], "no dependencies: the tarball alone must install offline");
  assert.equal(manifest.bundleDependencies ?? manifest.bundledDependencies, undefined);

  // No sources, build trees or dev files.
  const bad = tarFiles.filter((f) => /(^|\/)(node_modules|src|target|tests?|build)\//.test(f) || /\.(rs|toml|lock|map)$/.test(f) || /(^|\/)\.(git|ci|npmrc)/.test(f));
  assert.deepEqual(bad, []);
  assert.ok(tarFiles.every((f) => f === "package.json" || f === "README.md" || f === "LICENSE" || f === "openclaw.plugin.json" || f === ".claude-plugin/plugin.json" || f === "hooks/hooks.json" || f.startsWith("dist/")), tarFiles.join("\n"));
  // the Claude Code plugin: its manifest, and its hooks at the plugin's default place
  assert.ok(tarFiles.includes(".claude-plugin/plugin.json") && tarFiles.includes("hooks/hooks.json"), tarFiles.join("\n"));
  // the OpenClaw manifest sits at the package root, beside the extension it names
  assert.ok(tarFiles.includes("openclaw.plugin.json") && tarFiles.includes(manifest.openclaw.extensions[0].replace(/^\.\//, "")), tarFiles.join("\n"));
  // pi loads the extensions its `pi` manifest names (a pi package: docs/pi.md)
  assert.ok(manifest.pi.extensions.every((e) => tarFiles.includes(e.replace(/^\.\//, ""))) && tarFiles.includes("dist/pi.cjs"), tarFiles.join("\n"));
  // two wasm builds (lean ≈ 300 KB and policy ≈ 690 KB gzipped: enforcement, governance, the
  // warm MCP session, the Claude Code hooks, blame's diff and the trace report) and the JS:
  // ≈ 1.2 MB with seventeen hosts (59 files, the policy wasm 737 KB gzipped). A bound that
  // catches a stray file, not a budget (the lean wasm's is; scripts/build.mjs prints it).
  assert.ok(size < 1_300_000, `tarball is ${size} bytes`);
});

test("Node, ESM project: import the plugin (. and ./server) and the engine, and use them", async () => {
  const r = await consume(projects.esm, "check.mjs", ESM_CHECK, process.execPath);
  assert.equal(r.runtime, "node");
  assertEsm(r, projects.esm);
});

test("Bun, ESM project: the same checks under Bun", async () => {
  assert.ok(fs.existsSync(bun), `${bun} missing: run scripts/setup.sh (bun comes from the npm registry)`);
  const r = await consume(projects.bunEsm, "check.mjs", ESM_CHECK, bun);
  assert.equal(r.runtime, "bun");
  assertEsm(r, projects.bunEsm);
});

test("Node, CJS project: require('hookwise/engine') works; require('hookwise') as Node defines it", async () => {
  const dir = projects.cjs;
  const r = await consume(dir, "check.cjs", CJS_CHECK, process.execPath);
  assert.deepEqual(r.engineKeys, ["Engine", "HookwiseError", "createEngine"]);
  assert.equal(fs.realpathSync(r.engineResolved), fs.realpathSync(path.join(dir, "node_modules/hookwise/dist/engine.cjs")));
  assert.equal(r.oneEngineInstance, true, "require and import of ./engine share one instance");
  assertEngine(r.engine, r.execPath, dir);
  assert.equal(r.mainViaImport, "hookwise", "import() of the plugin works from CJS");
  // `.` is ESM only (OpenCode imports it). require() of it is Node's require(esm): it works where
  // Node has it (20.19+, 22.12+: the namespace, default = the plugin) and is ERR_REQUIRE_ESM
  // elsewhere.
  if (r.requireModule) {
    assert.equal(r.main.ok, true, r.main.message);
    assert.deepEqual(r.main.keys.filter((k) => k !== "__esModule"), ["default"]);
    assert.equal(r.main.id, "hookwise");
    assert.equal(r.main.serverType, "function");
  } else {
    assert.deepEqual({ ok: r.main.ok, code: r.main.code }, { ok: false, code: "ERR_REQUIRE_ESM" });
  }
});

test("Node, CJS project without require(esm) (as Node 20 before 20.19): the engine still loads", async (t) => {
  if (process.features.require_module === undefined) return t.skip("this Node has no require(esm); covered by the test above");
  const dir = projects.cjs;
  const r = await consume(dir, "check-old.cjs", CJS_CHECK, process.execPath, ["--no-experimental-require-module"]);
  assert.equal(r.requireModule, false);
  assertEngine(r.engine, r.execPath, dir);
  assert.deepEqual({ ok: r.main.ok, code: r.main.code }, { ok: false, code: "ERR_REQUIRE_ESM" });
  assert.equal(r.mainViaImport, "hookwise");
});

// ---------------------------------------------------------------------------------------------
// Types: a tiny consumer of both entry points, checked by tsc against the installed package.

const TS_ESM = `
import plugin from "hookwise";
import server from "hookwise/server";
import { createEngine, HookwiseError, type EngineOptions, type Runner } from "hookwise/engine";
const id: "hookwise" = plugin.id;
const same: typeof plugin.server = server.server;
const runner: Runner = async (argv, o) => ({ success: argv.length > o.timeoutMs, stdout: "", stderr: "", exitCode: 0, timedOut: false, durationMs: 1 });
const opts: EngineOptions = { options: { cliPath: "/x", tokenBudget: 100 }, runner };
const engine = await createEngine(opts);
const r = await engine.augmentToolCall({ tool: "bash", args: { command: "x" } });
const command: string = r.args.command;
const ctx: string | null = r.context;
const done: { output: string } = await engine.completeToolCall({ tool: "bash", callId: r.callId, output: "o" });
// @ts-expect-error the plugin has no other members
plugin.other;
export { id, same, command, ctx, done, HookwiseError };
`;

// What a VS Code extension compiled to CommonJS writes.
const TS_CJS = `
import { createEngine, type Engine } from "hookwise/engine";
export async function activate(): Promise<Engine> {
  const engine = await createEngine({ options: { cliPath: "/x" }, log: (level, message) => void [level, message] });
  const r = await engine.augmentToolCall({ tool: "task", args: { prompt: "p" } });
  const prompt: string = r.args.prompt;
  void prompt;
  return engine;
}
`;

let tsc = null;
async function typescript() {
  if (tsc) return tsc;
  const local = path.join(repo, "node_modules/typescript/bin/tsc");
  if (fs.existsSync(local)) return (tsc = local);
  const dir = path.join(base, "typescript");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "package.json"), "{}");
  await npm(["install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", TYPESCRIPT], dir);
  return (tsc = path.join(dir, "node_modules/typescript/bin/tsc"));
}

async function typecheck(t, name, files, compilerOptions) {
  let bin;
  try {
    bin = await typescript();
  } catch (e) {
    return t.skip(`${TYPESCRIPT} could not be installed (${String(e.message).split("\n")[0]})`);
  }
  const dir = projects[name];
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "es2022", lib: ["es2022"], types: [], ...compilerOptions }, files: Object.keys(files) }));
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
  try {
    await run(process.execPath, [bin, "-p", dir], { cwd: dir, env: childEnv, encoding: "utf8", timeout: 60_000 });
  } catch (e) {
    assert.fail(`tsc (${JSON.stringify(compilerOptions)}) on ${Object.keys(files)}:\n${e.stdout}${e.stderr}`);
  }
}

test("types: ESM consumer of . / ./server / ./engine (module nodenext)", { timeout: 60_000 }, (t) =>
  typecheck(t, "esm", { "esm.ts": TS_ESM }, { module: "nodenext", moduleResolution: "nodenext" }));

test("types: CommonJS consumer of ./engine (module nodenext)", { timeout: 60_000 }, (t) =>
  typecheck(t, "cjs", { "ext.ts": TS_CJS }, { module: "nodenext", moduleResolution: "nodenext" }));

// The `yo code` VS Code extension template compiles with "module": "Node16" to CommonJS. With the
// require condition typed by an ESM .d.ts, tsc refuses `hookwise/engine` there (TS1479) although
// require() of it works at run time: the require condition needs its own .d.cts.
test("types: CommonJS consumer of ./engine (module node16, the VS Code template)", { timeout: 60_000 }, (t) =>
  typecheck(t, "cjs", { "ext.ts": TS_CJS }, { module: "node16", moduleResolution: "node16" }));

// ---------------------------------------------------------------------------------------------
// Options: the published types are generated from the schema, the options' one source of truth.
// A TypeScript extension using every option the schema documents compiles; an unknown key does
// not; and the same object given to the installed engine starts it without a warning.

const EVERY_OPTION = {
  $schema: "./node_modules/hookwise/dist/hookwise.schema.json",
  cliPath: "/opt/maenifold/bin/maenifold",
  timeoutMs: 4000,
  deadlineMs: 3000,
  transport: "auto",
  mcpStartTimeoutMs: 15000,
  mcpMaxRestarts: 3,
  cacheTtlMs: 300000,
  cacheMaxEntries: 512,
  tokenBudget: 1500,
  maxConcepts: 8,
  depth: 1,
  maxEntities: 5,
  includeContent: true,
  promptFields: ["prompt", "instructions"],
  knowledge: "vault",
  vault: "notes",
  vaultRefreshMs: 2000,
  sessionStartEnabled: true,
  tokenLimit: 4000,
  sessionStartTimeoutMs: 8000,
  sessionContextChannel: "system",
  compactionTimeoutMs: 2500,
  knowledgeTools: ["knowledge_search", "knowledge_read", "knowledge_context"],
  knowledgeRemember: false,
  knowledgeToolsBudget: 1200,
  telemetry: { otlp: false },
  enforcement: {
    level: "category",
    categories: { process: "advisory", security: "strict", credentials: "strict", gotchas: "advisory", technical: "advisory", general: "advisory" },
    thresholds: { strict: 0.8, category: 0.6, advisory: 0.4 },
    categoryMinRisk: "high",
    deadlineMs: 300,
    cooldownMs: 600000,
    bypass: false,
    sopFolders: [".hookwise/sops"],
    sopRefreshMs: 2000,
    maxMessageChars: 2000,
    maxAdviceChars: 1200,
    memory: { enabled: false, minRisk: "high", maxResults: 3, mode: "Hybrid" },
    riskPatterns: [],
    prodHosts: ["db.prod.example.com"],
    readOnlyCommands: ["git status"],
    metrics: false,
  },
  governance: { enabled: "auto", mutatingTools: ["write"], readTools: ["read"], staleWrites: true },
};

function schemaKeys() {
  const schema = JSON.parse(fs.readFileSync(path.join(repo, "schema/hookwise.schema.json"), "utf8"));
  return Object.keys(schema.properties).sort();
}

test("options: the type check below uses every option the schema has", () => {
  const known = new Set(schemaKeys());
  // the keys this test knows of; a new option in the schema must be added here
  for (const k of Object.keys(EVERY_OPTION)) assert.ok(known.has(k), `${k} is not in the schema`);
  assert.deepEqual(
    schemaKeys().filter((k) => !(k in EVERY_OPTION)),
    [],
    "options the schema has and this test does not use (add them to EVERY_OPTION)",
  );
});

const TS_OPTIONS = `
import plugin, { type HookwisePluginOptions } from "hookwise";
import { createEngine } from "hookwise/engine";
// every option the schema documents, as an extension would write them
const every: HookwisePluginOptions = ${JSON.stringify(EVERY_OPTION, null, 2)};
// the case that failed with TS2353 before the types came from the schema
const vault: HookwisePluginOptions = { knowledge: "vault" };
// @ts-expect-error an unknown key is a type error, as the schema forbids it
const typo: HookwisePluginOptions = { knowledge: "vault", tokenBudgt: 5 };
// @ts-expect-error a value outside the schema's enum is a type error
const wrong: HookwisePluginOptions = { knowledge: "both" };
await plugin.server({}, every);
await createEngine({ options: every });
export { vault, typo, wrong };
`;

test("types: every documented option compiles against the published types; an unknown key does not", { timeout: 60_000 }, (t) =>
  typecheck(t, "esm", { "options.ts": TS_OPTIONS }, { module: "nodenext", moduleResolution: "nodenext" }));

test("options: the installed engine takes every documented option without a warning", async () => {
  const dir = projects.esm;
  fs.mkdirSync(path.join(dir, "notes"), { recursive: true });
  fs.writeFileSync(path.join(dir, "notes/auth.md"), "# Auth\n\nUses [[jwt]].\n");
  const script = `
import { createEngine } from "hookwise/engine";
import fs from "node:fs";
const cfg = JSON.parse(process.argv[2]);
const logs = [];
const options = ${JSON.stringify({ ...EVERY_OPTION, cliPath: undefined })};
const engine = await createEngine({ options, cwd: process.cwd(), watch: false, log: (level, message) => logs.push({ level, message }) });
await engine.dispose();
fs.writeFileSync(cfg.out, JSON.stringify({ logs }));
`;
  const r = await consume(dir, "every-option.mjs", script, process.execPath);
  const bad = r.logs.filter((l) => l.level === "warn" || l.level === "error");
  assert.deepEqual(bad, []);
});

// ---------------------------------------------------------------------------------------------
// A bundle of hookwise/engine that left the .wasm behind: createEngine rejects, naming the file
// and the wasmPath option (it used to start and pass every call through unchanged, silently).

test("bundled engine without its wasm: createEngine rejects naming the file and wasmPath; with wasmPath it runs", async () => {
  const dir = projects.cjs;
  const out = path.join(dir, "bundled");
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "bundle-entry.cjs"),
    `
const { createEngine } = require("hookwise/engine");
const fs = require("node:fs");
const cfg = JSON.parse(process.argv[2]);
createEngine({ wasmPath: process.env.WASM_PATH || undefined, options: { knowledge: "vault", vault: "notes" }, watch: false, log: (l, m) => void [l, m] }).then(
  async (engine) => {
    const r = await engine.augmentToolCall({ tool: "bash", args: { command: "echo [[auth]]" } });
    await engine.dispose();
    fs.writeFileSync(cfg.out, JSON.stringify({ ok: true, r }));
  },
  (e) => fs.writeFileSync(cfg.out, JSON.stringify({ ok: false, name: e.name, kind: e.kind, path: e.path, message: e.message })),
);
`,
  );
  const esbuild = path.join(repo, "node_modules/.bin/esbuild");
  execFileSync(esbuild, [path.join(dir, "bundle-entry.cjs"), "--bundle", "--platform=node", "--format=cjs", `--outfile=${path.join(out, "app.cjs")}`, "--log-level=warning"], { cwd: dir });
  fs.mkdirSync(path.join(out, "notes"), { recursive: true });
  fs.writeFileSync(path.join(out, "notes/jwt.md"), "# JWT\n\nSigned tokens for [[auth]] and [[sessions]].\n");
  const runBundle = async (wasmPath) => {
    const outFile = path.join(out, "result.json");
    fs.rmSync(outFile, { force: true });
    await run(process.execPath, [path.join(out, "app.cjs"), JSON.stringify({ out: outFile })], {
      cwd: out,
      env: { ...childEnv, WASM_PATH: wasmPath || "", HOME: dir },
      encoding: "utf8",
      timeout: 30_000,
    });
    return JSON.parse(fs.readFileSync(outFile, "utf8"));
  };
  const missing = await runBundle(null);
  assert.equal(missing.ok, false);
  assert.equal(missing.name, "HookwiseError");
  assert.equal(missing.kind, "WasmMissing");
  assert.equal(missing.path, path.join(out, "hookwise_bg.wasm"));
  assert.match(missing.message, /hookwise_bg\.wasm/);
  assert.match(missing.message, /wasmPath/);
  const given = await runBundle(path.join(dir, "node_modules/hookwise/dist/hookwise_bg.wasm"));
  assert.equal(given.ok, true, JSON.stringify(given));
  // the vault's note reached the call (the context block, wherever the host profile puts it)
  assert.match(JSON.stringify(given.r), /Signed tokens/);
});

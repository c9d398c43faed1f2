// Intent governance through the built package (pkg/dist): the host's chained append from many
// processes at once, stale-write detection through the OpenCode plugin, the engine API driven
// the way a VS Code extension's tool dispatcher would from CommonJS, ESM and an esbuild bundle,
// and the `hookwise` command (init --governance, trace verify, check).
// Runs under node --test and bun test (every test sets its own timeout).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { repo, dist, tmpdir, recordingClient, nodeBinary, traceWriter } from "./helpers.mjs";
import { validate } from "./agent-trace-schema.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";
import { installNative } from "../e2e-shared/native.mjs";
// the confined shell's launcher where the built package finds it (pkg/node_modules: a nested install; issue 38)
installNative(new URL("../../pkg/node_modules", import.meta.url).pathname);

const require = createRequire(import.meta.url);
const T = { timeout: 180_000 };
const INTENTS = `active_intents:
  - id: INT-1
    name: Auth
    status: IN_PROGRESS
    owned_scope: ["src/**", "!src/vendor/**"]
    constraints: [Keep the API]
    acceptance_criteria: [Tests pass]
  - id: INT-9
    name: Done
    status: COMPLETE
    owned_scope: [docs/**]
`;

const NODE = nodeBinary();
// No maenifold and no vault: governance alone.
const HOME = tmpdir("hookwise-gov-home-");
const ENV = { PATH: path.dirname(NODE), HOME, MAENIFOLD_ROOT: path.join(HOME, "none") };

function project(files = {}) {
  const d = fs.realpathSync(tmpdir("hookwise-gov-"));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
    fs.writeFileSync(path.join(d, rel), text);
  }
  return d;
}

function run(cmd, args, opts) {
  return new Promise((resolve) => {
    execFile(cmd, args, { maxBuffer: 64 * 1024 * 1024, ...opts }, (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
  });
}

test("8 processes × 500 records appended at once through the host: 4000 whole, valid, verifiable lines", T, async () => {
  const dir = project({ ".orchestration/active_intents.yaml": INTENTS });
  // Each process is an engine with its own session writing its own file 500 times, the way a
  // tool dispatcher drives it; all append to the one trace file through the host's lock.
  const child = traceWriter(dir, ENV, { pre: ", workspaceRoot: dir", post: ' result: "ok",', makeSrc: true, shared: true });
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: 8 }, (_, n) => run(NODE, [child, dir, String(n), "500"], { env: ENV })));
  const ms = performance.now() - t0;
  for (const r of results) {
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { recorded: 500 });
  }
  const text = traceText(dir);
  assert.ok(text.endsWith("\n"));
  const lines = text.slice(0, -1).split("\n");
  assert.equal(lines.length, 4000);
  const perFile = new Map();
  for (const l of lines) {
    const rec = JSON.parse(l); // whole: every line parses
    assert.deepEqual(validate(rec), [], l);
    const p = rec.files[0].path;
    perFile.set(p, (perFile.get(p) || 0) + 1);
  }
  assert.deepEqual([...perFile.values()], Array(8).fill(500));
  assert.equal(new Set(lines.map((l) => JSON.parse(l).id)).size, 4000, "ids are unique");
  const { createEngine } = require(path.join(dist, "engine.cjs"));
  const engine = await createEngine({ cwd: dir, env: ENV });
  const v = await engine.verifyTrace();
  assert.equal(v.ok, true, JSON.stringify(v.problems.slice(0, 3)));
  assert.equal(v.lines, 4000);
  console.log(`# 4000 records from 8 processes in ${Math.round(ms)} ms (${Math.round(4000 / (ms / 1000))} records/s end to end)`);
});

test("the OpenCode plugin: the tool exists only with governance on, and a stale write is blocked until re-read", T, async () => {
  const { server } = require(path.join(dist, "opencode.cjs"));
  // governance off: no tool, nothing gated, no folder
  const off = project({ "src/a.ts": "a\n" });
  const hooksOff = await server({ client: recordingClient().client, worktree: off, directory: off }, {});
  assert.equal(hooksOff.tool, undefined);
  const argsOff = { filePath: path.join(off, "src/a.ts"), content: "b\n" };
  await hooksOff["tool.execute.before"]({ tool: "write", sessionID: "s", callID: "c1" }, { args: argsOff });
  await hooksOff["tool.execute.after"]({ tool: "write", sessionID: "s", callID: "c1", args: argsOff }, { title: "", output: "ok", metadata: {} });
  const sysOff = [];
  await hooksOff["experimental.chat.system.transform"]({ sessionID: "s", model: { providerID: "p", id: "m" } }, { system: sysOff });
  assert.deepEqual(sysOff, []);
  assert.ok(!fs.existsSync(path.join(off, ".orchestration")));

  const dir = project({ ".orchestration/active_intents.yaml": INTENTS, "src/a.ts": "export const a = 1;\n" });
  const rec = recordingClient();
  const hooks = await server({ client: rec.client, worktree: dir, directory: dir }, {});
  const tool = hooks.tool && hooks.tool.select_active_intent;
  assert.ok(tool, "select_active_intent is registered");
  // its args are zod 4 schemas (OpenCode wraps them in its own z.object)
  assert.ok(tool.args.intent_id._zod, "a zod 4 schema");
  // as OpenCode does: its own copy of zod (4.4.3, the repo's dev dependency) wraps ours
  const { z } = require("zod");
  const js = z.toJSONSchema(z.object(tool.args));
  assert.deepEqual(js.required, ["intent_id"]);
  assert.match(js.properties.intent_id.description, /IN_PROGRESS/);

  const before = (callID, t, args) => hooks["tool.execute.before"]({ tool: t, sessionID: "s1", callID }, { args });
  const file = path.join(dir, "src/a.ts");
  await assert.rejects(before("c0", "edit", { filePath: file, oldString: "1", newString: "2" }), /select_active_intent[\s\S]*INT-1/);
  assert.match(await tool.execute({ intent_id: "INT-404" }, { sessionID: "s1" }), /Unknown intent id 'INT-404'. Valid ids: INT-1/);
  assert.match(await tool.execute({ intent_id: "INT-9" }, { sessionID: "s1" }), /COMPLETE and cannot be activated/);
  assert.match(await tool.execute({ intent_id: "INT-1" }, { sessionID: "s1" }), /Active intent for this session: INT-1/);

  await before("c1", "read", { filePath: file });
  fs.writeFileSync(file, "export const a = 42; // another session\n"); // changed behind its back
  await assert.rejects(before("c2", "edit", { filePath: file, oldString: "42", newString: "2" }), /changed on disk since this session last read it/);
  // another session that never read it is not stale
  await hooks["tool.execute.before"]({ tool: "edit", sessionID: "s2", callID: "x" }, { args: { filePath: file, oldString: "42", newString: "2" } }).then(
    () => assert.fail("s2 has no intent"),
    (e) => assert.match(e.message, /select_active_intent/),
  );
  await before("c3", "read", { filePath: file }); // re-read
  const args = { filePath: file, oldString: "42", newString: "43" };
  await before("c4", "edit", args);
  fs.writeFileSync(file, "export const a = 43; // another session\n"); // the edit tool runs
  const out = { title: "", output: "Edit applied", metadata: {} };
  await hooks["tool.execute.after"]({ tool: "edit", sessionID: "s1", callID: "c4", args }, out);
  const lines = traceText(dir).trim().split("\n");
  assert.equal(lines.length, 1);
  const r = JSON.parse(lines[0]);
  assert.deepEqual(validate(r), []);
  assert.equal(r.files[0].path, "src/a.ts");
  assert.equal(r.metadata["dev.hookwise"].intent_id, "INT-1");
  assert.deepEqual(r.files[0].conversations[0].ranges.map((x) => [x.start_line, x.end_line]), [[1, 1]]);

  const sys = [];
  await hooks["experimental.chat.system.transform"]({ sessionID: "s1", model: { providerID: "anthropic", id: "claude" } }, { system: sys });
  assert.equal(sys.length, 1);
  assert.match(sys[0], /<intent_context>[\s\S]*INT-1[\s\S]*<recent_changes>[\s\S]*src\/a\.ts/);
});

// The extension: a tool dispatcher that asks the engine before and after each tool.
const EXTENSION = (imp) => `${imp}
const fs = require("node:fs");
const path = require("node:path");
async function main(root, env) {
  const engine = await createEngine({ cwd: root, env });
  const tools = {
    write_to_file: (p) => { fs.mkdirSync(path.dirname(path.join(root, p.path)), { recursive: true }); fs.writeFileSync(path.join(root, p.path), p.content); return "written"; },
    execute_command: () => "ran",
    apply_diff: () => "applied",
  };
  async function dispatch(sessionId, toolName, params) {
    const pre = await engine.executePreHook({ toolName, params, sessionId, workspaceRoot: root });
    if (pre.blocked) return { blocked: pre.reason };
    const result = tools[toolName](params);
    const post = await engine.executePostHook({ toolName, params, result, sessionId, callId: pre.callId });
    return { result, recorded: post.recorded };
  }
  const out = { governance: engine.governance };
  out.noIntent = await dispatch("s", "write_to_file", { path: "src/x.ts", content: "export function x() {}\\n" });
  out.select = await engine.selectIntent("s", "INT-1");
  out.inScope = await dispatch("s", "write_to_file", { path: "src/x.ts", content: "export function x() {}\\n" });
  out.command = await dispatch("s", "execute_command", { command: "ls" });
  out.outside = await dispatch("s", "write_to_file", { path: "README.md", content: "x" });
  out.excluded = await dispatch("s", "apply_diff", { path: "src/vendor/lib.js", diff: "x" });
  out.context = await engine.intentContext("s");
  out.verify = await engine.verifyTrace();
  return out;
}
`;

async function checkExtension(out, root) {
  assert.equal(out.governance, true);
  assert.match(out.noIntent.blocked, /select_active_intent/);
  assert.equal(out.select.ok, true);
  assert.deepEqual(out.inScope, { result: "written", recorded: true });
  // issue 38: a governed shell runs only confined; executePreHook hands back no arguments, so the
  // command cannot be put under the launcher and is refused with the way out
  assert.match(out.command.blocked ?? "", /confined by the kernel[\s\S]*augmentToolCall/, JSON.stringify(out.command));
  assert.match(out.outside.blocked, /README\.md/);
  assert.match(out.excluded.blocked, /src\/vendor\/lib\.js/);
  assert.match(out.context, /^<intent_context>[\s\S]*Active intent: INT-1/);
  assert.equal(out.verify.ok, true);
  assert.equal(out.verify.lines, 1);
  const rec = JSON.parse(traceText(root));
  assert.deepEqual(validate(rec), []);
  assert.equal(rec.files[0].path, "src/x.ts");
  assert.equal(rec.metadata["dev.hookwise"].mutation_class, "INTENT_EVOLUTION", "a new file");
}

/** A folder with node_modules/hookwise → pkg/ (as an installed package). */
function consumer() {
  const d = fs.realpathSync(tmpdir("hookwise-ext-"));
  fs.mkdirSync(path.join(d, "node_modules"), { recursive: true });
  fs.symlinkSync(path.join(repo, "pkg"), path.join(d, "node_modules/hookwise"));
  return d;
}

test("engine API from CommonJS, driven like a tool dispatcher", T, async () => {
  const c = consumer();
  const root = project({ ".orchestration/active_intents.yaml": INTENTS });
  fs.writeFileSync(path.join(c, "ext.cjs"), EXTENSION(`const { createEngine } = require("hookwise/engine");`) + `main(process.argv[2], ${JSON.stringify(ENV)}).then((o) => process.stdout.write(JSON.stringify(o)), (e) => { console.error(e); process.exit(1); });\n`);
  const r = await run(NODE, [path.join(c, "ext.cjs"), root], { cwd: c, env: ENV });
  assert.equal(r.code, 0, r.stderr);
  await checkExtension(JSON.parse(r.stdout), root);
});

test("engine API from ESM", T, async () => {
  const c = consumer();
  const root = project({ ".orchestration/active_intents.yaml": INTENTS });
  const src = EXTENSION(`import { createEngine } from "hookwise/engine";\nimport { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);`) + `main(process.argv[2], ${JSON.stringify(ENV)}).then((o) => process.stdout.write(JSON.stringify(o)), (e) => { console.error(e); process.exit(1); });\n`;
  fs.writeFileSync(path.join(c, "ext.mjs"), src);
  const r = await run(NODE, [path.join(c, "ext.mjs"), root], { cwd: c, env: ENV });
  assert.equal(r.code, 0, r.stderr);
  await checkExtension(JSON.parse(r.stdout), root);
});

test("engine API from an esbuild bundle (a VS Code extension): the wasm loads from beside the bundle", T, async () => {
  const c = consumer();
  const root = project({ ".orchestration/active_intents.yaml": INTENTS });
  fs.writeFileSync(path.join(c, "extension.js"), EXTENSION(`const { createEngine } = require("hookwise/engine");`) + `module.exports = { main };\n`);
  const out = path.join(c, "out");
  execFileSync(path.join(repo, "node_modules/.bin/esbuild"), [path.join(c, "extension.js"), "--bundle", "--platform=node", "--format=cjs", "--target=node20", "--external:vscode", `--outfile=${path.join(out, "extension.js")}`, "--log-level=warning"], { cwd: c });
  // What an extension ships: the bundle and the two wasm files beside it (no node_modules).
  fs.copyFileSync(path.join(dist, "hookwise_bg.wasm"), path.join(out, "hookwise_bg.wasm"));
  fs.mkdirSync(path.join(out, "policy"));
  fs.copyFileSync(path.join(dist, "policy/hookwise_bg.wasm"), path.join(out, "policy/hookwise_bg.wasm"));
  const bundled = fs.readFileSync(path.join(out, "extension.js"), "utf8");
  assert.ok(!/require\("hookwise/.test(bundled), "hookwise is inside the bundle");
  fs.rmSync(path.join(c, "node_modules"), { recursive: true }); // nothing to fall back on
  const host = path.join(c, "host.cjs");
  fs.writeFileSync(host, `require(${JSON.stringify(path.join(out, "extension.js"))}).main(process.argv[2], ${JSON.stringify(ENV)}).then((o) => process.stdout.write(JSON.stringify(o)), (e) => { console.error(e); process.exit(1); });\n`);
  const r = await run(NODE, [host, root], { cwd: c, env: ENV });
  assert.equal(r.code, 0, r.stderr);
  await checkExtension(JSON.parse(r.stdout), root);
});

test("hookwise init --governance, check and trace verify", T, async () => {
  const CLI = path.join(dist, "cli.mjs");
  const dir = project({ "src/a.ts": "a\n" });
  const cli = (...args) => run(NODE, [CLI, ...args, "--cwd", dir], { env: ENV });
  let r = await cli("init");
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!fs.existsSync(path.join(dir, ".orchestration")), "plain init does not turn governance on");
  r = await cli("check", "--tool", "write", "--json", "--args", JSON.stringify({ filePath: "src/a.ts", content: "b" }));
  assert.equal(JSON.parse(r.stdout).governance, "off");
  r = await cli("check", "--tool", "write", "--args", JSON.stringify({ filePath: "src/a.ts", content: "b" }));
  assert.ok(!/intent governance/.test(r.stdout), "governance off: check says nothing about it");
  r = await cli("init", "--governance");
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /created \.orchestration\/active_intents\.yaml/);
  assert.match(fs.readFileSync(path.join(dir, ".orchestration/active_intents.yaml"), "utf8"), /^active_intents: \[\]$/m);
  fs.writeFileSync(path.join(dir, ".orchestration/active_intents.yaml"), INTENTS);
  r = await cli("init", "--governance");
  assert.match(r.stdout, /kept \.orchestration\/active_intents\.yaml/);
  assert.equal(fs.readFileSync(path.join(dir, ".orchestration/active_intents.yaml"), "utf8"), INTENTS, "never overwritten");

  r = await cli("check", "--tool", "write", "--args", JSON.stringify({ filePath: "src/a.ts", content: "b" }));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /intent governance: blocked[\s\S]*select_active_intent/);
  r = await cli("check", "--tool", "write", "--intent", "INT-1", "--args", JSON.stringify({ filePath: "src/a.ts", content: "b" }));
  assert.match(r.stdout, /intent governance: allowed \(intent INT-1\)/);
  r = await cli("check", "--tool", "write", "--intent", "INT-1", "--json", "--args", JSON.stringify({ filePath: "../out.txt", content: "b" }));
  const j = JSON.parse(r.stdout);
  assert.equal(j.governance, "blocked");
  assert.match(j.reason, /out\.txt/);
  r = await cli("check", "--tool", "write", "--intent", "INT-404", "--args", "{}");
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Valid ids: INT-1/);
  // --host: the key that host's tool writes is the one checked (OpenClaw's write: `path`); a
  // decoy naming another file makes the call ambiguous
  const decoy = { path: "../out.txt", content: "b", filePath: "src/a.ts" };
  r = await cli("check", "--host", "openclaw", "--tool", "write", "--intent", "INT-1", "--json", "--args", JSON.stringify(decoy));
  assert.equal(JSON.parse(r.stdout).governance, "blocked", r.stdout);
  assert.match(JSON.parse(r.stdout).reason, /two different files, `path` = "\.\.\/out\.txt" and `filePath`/);
  r = await cli("check", "--host", "openclaw", "--tool", "write", "--intent", "INT-1", "--json", "--args", JSON.stringify({ path: "src/a.ts", content: "b" }));
  assert.equal(JSON.parse(r.stdout).governance, "allowed (intent INT-1)", r.stdout);

  r = await cli("trace", "verify");
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /no trace records/);
  // three records through the engine, then tamper with the middle one
  const { createEngine } = require(path.join(dist, "engine.cjs"));
  const engine = await createEngine({ cwd: dir, env: ENV });
  await engine.selectIntent("s", "INT-1");
  for (let i = 0; i < 3; i++) {
    const params = { path: `src/f${i}.ts`, content: `export const f${i} = ${i};\n` };
    const pre = await engine.executePreHook({ toolName: "write_to_file", params, sessionId: "s" });
    fs.writeFileSync(path.join(dir, params.path), params.content);
    assert.equal((await engine.executePostHook({ toolName: "write_to_file", params, sessionId: "s", callId: pre.callId })).recorded, true);
  }
  r = await cli("trace", "verify");
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /ok: 3 record/);
  const trace = path.join(dir, traceFiles(dir)[0]);
  const lines = fs.readFileSync(trace, "utf8").trim().split("\n");
  fs.writeFileSync(trace, [lines[0], lines[1].replace("src/f1.ts", "src/zz.ts"), lines[2]].join("\n") + "\n");
  r = await cli("trace", "verify");
  assert.equal(r.code, 1);
  assert.match(r.stdout, /line 3: /, r.stdout);
  fs.writeFileSync(trace, [lines[0], lines[2], lines[1]].join("\n") + "\n");
  r = await cli("trace", "verify", "--json");
  assert.equal(r.code, 1);
  assert.ok(JSON.parse(r.stdout).problems.length > 0);
});

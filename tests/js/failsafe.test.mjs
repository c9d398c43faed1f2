// A damaged install (issue 29, critical 5): the core cannot start — its wasm deleted, truncated
// or garbage, a glue file broken — and the glue alone decides from the project's files whether
// governance or enforcement is configured (js/failsafe.cjs with js/failsafe.json, both pinned
// to src/failsafe.rs). Configured: every call is blocked with the core's sentence, except the
// host's read-only tools under governance alone; not configured: every tool runs (knowledge
// context fails open). Each host through its own entry: OpenCode 1.x and 2.x, the engine API,
// Claude Code's `hookwise hook` and `hookwise mcp`. The real hosts: tests/security/damaged-install.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, tmpdir, writeFiles, noCliEnv, intentsYaml, nodeBinary } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const T = { timeout: 60_000 };
const NODE = nodeBinary();

/** The ways an install is damaged: each a change to a copy of pkg/dist. */
const DAMAGE = {
  "policy wasm deleted": (d) => fs.rmSync(path.join(d, "policy/hookwise_bg.wasm")),
  "policy wasm truncated": (d) => fs.truncateSync(path.join(d, "policy/hookwise_bg.wasm"), 4096),
  "policy wasm garbage": (d) => fs.writeFileSync(path.join(d, "policy/hookwise_bg.wasm"), Buffer.alloc(300_000, 0x5a)),
  "lean wasm deleted": (d) => fs.rmSync(path.join(d, "hookwise_bg.wasm")),
  "wasm glue broken": (d) => {
    fs.writeFileSync(path.join(d, "wasm.cjs"), "module.exports = (;\n");
    fs.writeFileSync(path.join(d, "policy/wasm.cjs"), "module.exports = (;\n");
  },
  "core.cjs broken": (d) => fs.writeFileSync(path.join(d, "core.cjs"), "this is not javascript {\n"),
  "hookwise.cjs deleted": (d) => fs.rmSync(path.join(d, "hookwise.cjs")),
};

let seq = 0;
/** A copy of pkg/dist with `damage` applied (its own module instances: a fresh require path). */
function damaged(kind, extra) {
  const d = path.join(tmpdir("hookwise-damaged-"), `dist${seq++}`);
  fs.cpSync(dist, d, { recursive: true });
  DAMAGE[kind](d);
  if (extra) extra(d);
  return d;
}

const INTENTS = intentsYaml(["INT-1", "Billing", ["src/billing/**"]]);
const PROJECTS = {
  governance: { ".orchestration/active_intents.yaml": INTENTS, "README.md": "# demo\n" },
  enforcement: { ".opencode/sops/force.md": "---\nid: x\n---\n# x\n", "README.md": "# demo\n" },
  "enforcement in .hookwise/hookwise.json": { ".hookwise/hookwise.json": JSON.stringify({ enforcement: { level: "strict" } }), "README.md": "# demo\n" },
  none: { "README.md": "# demo\n", ".opencode/hookwise.json": JSON.stringify({ knowledge: "vault" }) },
};
function project(kind) {
  const dir = writeFiles(tmpdir("hookwise-proj-"), PROJECTS[kind]);
  return dir;
}

/** OpenCode 1.x: the plugin's `tool.execute.before` — the thrown message, or null when it ran. */
async function opencode1(distDir, dir, tool, args) {
  const { server } = require(path.join(distDir, "opencode.cjs"));
  const logs = [];
  const client = { app: { log: ({ body }) => (logs.push(body), Promise.resolve()) }, session: {} };
  const hooks = await server({ client, directory: dir, worktree: dir }, {});
  try {
    await hooks["tool.execute.before"]({ tool, sessionID: "s", callID: "c1" }, { args });
    return { blocked: null, logs };
  } catch (e) {
    return { blocked: e.message, logs };
  }
}

/** OpenCode 2.x: `setup(ctx)` with a ctx registering hooks as 2.x does. */
async function opencode2(distDir, dir, tool, input) {
  const { setup } = require(path.join(distDir, "opencode2.cjs"));
  const hooks = {};
  const ctx = { location: { directory: dir, worktree: dir }, options: {}, tool: { hook: async (name, cb) => ((hooks[name] = cb), () => {}) }, app: { log: async () => {} } };
  await setup(ctx);
  try {
    await hooks["execute.before"]({ tool, sessionID: "s", id: "c1", input });
    return null;
  } catch (e) {
    return e.message;
  }
}

async function engineApi(distDir, dir, tool, params) {
  const { createEngine } = require(path.join(distDir, "engine.cjs"));
  const engine = await createEngine({ cwd: dir, env: noCliEnv(), host: "opencode" });
  const r = await engine.executePreHook({ toolName: tool, params, sessionId: "s" });
  return r.blocked ? r.reason : null;
}

/** `hookwise hook PreToolUse` (a Claude Code command hook): stdout, exit code. */
function claudeHook(distDir, dir, tool, toolInput) {
  const payload = { session_id: "s", cwd: dir, hook_event_name: "PreToolUse", tool_name: tool, tool_input: toolInput, tool_use_id: "t1" };
  const r = spawnSync(NODE, [path.join(distDir, "cli.mjs"), "hook", "PreToolUse", "--cwd", dir], { input: JSON.stringify(payload), env: noCliEnv(), encoding: "utf8", timeout: 30_000 });
  return r;
}

const isDeny = (stdout) => {
  const o = JSON.parse(stdout);
  return o.hookSpecificOutput && o.hookSpecificOutput.permissionDecision === "deny" ? o.hookSpecificOutput.permissionDecisionReason : null;
};

const WRITE = { filePath: "src/billing/x.ts", content: "x\n" };

for (const kind of Object.keys(DAMAGE)) {
  test(`${kind}, governance configured: OpenCode 1.x blocks a write with the core's sentence, a read runs`, T, async () => {
    const d = damaged(kind);
    const dir = project("governance");
    const w = await opencode1(d, dir, "write", { ...WRITE });
    assert.ok(w.blocked, `the write went through: ${JSON.stringify(w.logs)}`);
    assert.match(w.blocked, /hookwise blocked `write`: hookwise could not start \(.+\), and this project configures intent governance/);
    assert.match(w.blocked, /\.orchestration\/active_intents\.yaml/);
    assert.ok(w.logs.some((l) => /could not start/.test(l.message) && /calls are blocked/.test(l.message)), JSON.stringify(w.logs));
    for (const [tool, args] of [["bash", { command: "touch x" }], ["a_new_tool", { anything: 1 }], ["", {}]]) {
      assert.ok((await opencode1(d, dir, tool, args)).blocked, `${tool} ran`);
    }
    assert.equal((await opencode1(d, dir, "read", { filePath: path.join(dir, "README.md") })).blocked, null, "a read is not blocked under governance");
  });
}

// (with the lean core running, a dangling intents file is the core's to read: issue 29's gate)
test("governance as a dangling symlink, a folder, or a symlink: configured", T, async () => {
  const d = damaged("lean wasm deleted");
  for (const make of [
    (dir) => fs.symlinkSync("/nonexistent/intents.yaml", path.join(dir, ".orchestration/active_intents.yaml")),
    (dir) => fs.mkdirSync(path.join(dir, ".orchestration/active_intents.yaml")),
    (dir) => (fs.writeFileSync(path.join(dir, "elsewhere.yaml"), INTENTS), fs.symlinkSync(path.join(dir, "elsewhere.yaml"), path.join(dir, ".orchestration/active_intents.yaml"))),
  ]) {
    const dir = tmpdir("hookwise-proj-");
    fs.mkdirSync(path.join(dir, ".orchestration"));
    make(dir);
    assert.ok((await opencode1(d, dir, "write", { ...WRITE })).blocked);
  }
});

for (const kind of ["enforcement", "enforcement in .hookwise/hookwise.json"]) {
  test(`${kind} configured, lean wasm deleted: every call is blocked, reads too`, T, async () => {
    const d = damaged("lean wasm deleted");
    const dir = project(kind);
    for (const tool of ["bash", "write", "read"]) assert.ok((await opencode1(d, dir, tool, { filePath: "README.md", command: "ls" })).blocked, tool);
  });
}

test("nothing configured, a damaged install: every tool runs (knowledge fails open)", T, async () => {
  for (const kind of ["policy wasm deleted", "lean wasm deleted", "core.cjs broken"]) {
    const d = damaged(kind);
    const dir = project("none");
    for (const tool of ["bash", "write", "edit", "read"]) assert.equal((await opencode1(d, dir, tool, { ...WRITE, command: "ls" })).blocked, null, `${kind}: ${tool}`);
    assert.equal(await opencode2(d, dir, "write", { ...WRITE }), null, kind);
    if (kind === "lean wasm deleted") {
      // the engine API says so at once where nothing is configured (a silent no-op otherwise)
      await assert.rejects(engineApi(d, dir, "write", { ...WRITE }), (e) => e.kind === "WasmMissing");
    } else assert.equal(await engineApi(d, dir, "write", { ...WRITE }), null, kind);
    const r = claudeHook(d, dir, "Write", { file_path: "src/x.ts", content: "x" });
    assert.notEqual(r.stdout && isDeny(r.stdout || "{}"), true, r.stdout);
  }
});

test("failsafe.json damaged too: the built-in last resort blocks every call, reads included", T, async () => {
  for (const bad of ["{not json", JSON.stringify({ present: 1 })]) {
    const d = damaged("lean wasm deleted", (x) => fs.writeFileSync(path.join(x, "failsafe.json"), bad));
    const dir = project("governance");
    for (const tool of ["write", "read"]) {
      const w = await opencode1(d, dir, tool, { ...WRITE });
      assert.match(w.blocked || "", /hookwise blocked `.*`: hookwise could not start .* Tell the user/, tool);
    }
    // and a project without governance still runs
    assert.equal((await opencode1(d, project("none"), "write", { ...WRITE })).blocked, null);
  }
});

// The command hook's own glue damaged (js/hook.cjs answers without it): the hook as a host runs
// it — no --cwd, in the project, so the warm path is tried first.
test("the command hook's glue damaged (claude.cjs broken, warm-client.cjs broken): a governed write is denied, a read runs; ungoverned, the write runs", T, () => {
  const hook = (d, dir, tool, input) => {
    const payload = { session_id: "s", cwd: dir, hook_event_name: "PreToolUse", tool_name: tool, tool_input: input, tool_use_id: "t1" };
    const env = { ...noCliEnv(), XDG_RUNTIME_DIR: tmpdir("hookwise-run-") };
    return spawnSync(NODE, [path.join(d, "cli.mjs"), "hook", "PreToolUse"], { cwd: dir, input: JSON.stringify(payload), env, encoding: "utf8", timeout: 30_000 });
  };
  for (const file of ["claude.cjs", "warm-client.cjs"]) {
    const d = damaged("policy wasm garbage", (x) => fs.writeFileSync(path.join(x, file), "module.exports = (;\n"));
    const gov = project("governance");
    const w = hook(d, gov, "Write", { file_path: "src/billing/x.ts", content: "x" });
    // (claude.cjs broken: js/hook.cjs answers with the failsafe; warm-client.cjs broken: the
    // hook answers cold, and the cold core, its policy wasm garbage, fails closed the same way)
    assert.match(isDeny(w.stdout) || "", /hookwise blocked `Write`: hookwise could not start \(.+\), and this project configures intent governance/, `${file}: ${w.stdout} ${w.stderr}`);
    const r = hook(d, gov, "Read", { file_path: "README.md" });
    assert.equal(r.stdout ? isDeny(r.stdout) : null, null, `${file}: the read was denied: ${r.stdout}`);
    const n = hook(d, project("none"), "Write", { file_path: "src/x.ts", content: "x" });
    assert.equal(n.stdout ? isDeny(n.stdout) : null, null, `${file}: ungoverned write denied: ${n.stdout}`);
  }
});

test("OpenCode 2.x, the engine API: blocked with the same sentence", T, async () => {
  for (const kind of ["policy wasm deleted", "core.cjs broken"]) {
    const d = damaged(kind);
    const dir = project("governance");
    assert.match((await opencode2(d, dir, "write", { ...WRITE })) || "", /hookwise could not start/, kind);
    assert.equal(await opencode2(d, dir, "read", { filePath: "README.md" }), null, kind);
    assert.match((await engineApi(d, dir, "write", { ...WRITE })) || "", /hookwise could not start/, kind);
  }
});

test("Claude Code, `hookwise hook PreToolUse`: the deny shape with the reason (not exit 1)", T, () => {
  for (const kind of ["policy wasm deleted", "policy wasm garbage", "core.cjs broken"]) {
    const d = damaged(kind);
    const dir = project("governance");
    const r = claudeHook(d, dir, "Write", { file_path: path.join(dir, "src/billing/x.ts"), content: "x" });
    assert.equal(r.status, 0, r.stderr);
    assert.match(isDeny(r.stdout) || "", /hookwise blocked `Write`: hookwise could not start/, `${kind}: ${r.stdout}`);
    // an unknown tool too; Read runs
    assert.ok(isDeny(claudeHook(d, dir, "Monitor", { command: "x" }).stdout));
    // a read-only tool runs: an empty answer, not an error Claude Code's onFailure would block
    const read = claudeHook(d, dir, "Read", { file_path: path.join(dir, "README.md") });
    assert.equal(read.status, 0, read.stderr);
    assert.equal(read.stdout, "{}");
  }
});

test("Claude Code, `hookwise mcp`: the PreToolUse hook tool answers the deny without a core", T, async () => {
  const d = damaged("policy wasm deleted");
  const dir = project("governance");
  const child = spawn(NODE, [path.join(d, "cli.mjs"), "mcp", "--cwd", dir], { env: noCliEnv(), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  const answered = new Promise((resolve) =>
    child.stdout.on("data", (c) => {
      out += c;
      const line = out.split("\n").find((l) => l.includes('"id":2'));
      if (line) resolve(JSON.parse(line));
    }),
  );
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25" } }) + "\n");
  const args = { hook_event_name: "PreToolUse", session_id: "s", cwd: dir, tool_name: "Write", tool_input: JSON.stringify({ file_path: "x", content: "y" }), tool_use_id: "t" };
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "hook_pre_tool_use", arguments: args } }) + "\n");
  const msg = await answered;
  child.kill("SIGKILL");
  assert.ok(!msg.result.isError, JSON.stringify(msg));
  assert.match(isDeny(msg.result.content[0].text) || "", /hookwise could not start/);
});

test("OpenClaw: before_tool_call answers {block, blockReason} with the same sentence; read runs", T, async () => {
  for (const kind of ["policy wasm deleted", "core.cjs broken"]) {
    const d = damaged(kind);
    const dir = project("governance");
    const { createPlugin } = require(path.join(d, "openclaw.cjs"));
    const hooks = {};
    const api = {
      id: "hookwise",
      config: { agents: { defaults: { workspace: dir } } },
      pluginConfig: {},
      runtime: { agent: { resolveAgentWorkspaceDir: (cfg) => cfg.agents.defaults.workspace } },
      logger: { info() {}, warn() {}, error() {}, debug() {} },
      on: (name, handler) => ((hooks[name] ??= []).push(handler)),
      registerTool() {},
      registerAgentToolResultMiddleware() {},
    };
    createPlugin({})._register(api);
    const call = (toolName, params, id) =>
      hooks.before_tool_call[0]({ toolName, params, runId: "r", toolCallId: id }, { toolName, agentId: "main", sessionKey: "k", sessionId: "s", runId: "r", toolCallId: id });
    const w = await call("write", { path: "src/billing/x.ts", content: "x" }, "t1");
    assert.equal(w && w.block, true, `${kind}: ${JSON.stringify(w)}`);
    assert.match(w.blockReason, /hookwise blocked `write`: hookwise could not start/);
    const r = await call("read", { path: "README.md" }, "t2");
    assert.ok(!r || !r.block, JSON.stringify(r));
  }
});

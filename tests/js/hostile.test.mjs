// Hostile values through the engine API and the OpenCode hooks: whatever a host or a model
// hands over, hookwise never throws, and with governance or enforcement on it never lets
// through what it could not check. With knowledge context alone it fails open.
// Runs under node --test and bun test (every test sets its own timeout).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, tmpdir, writeFiles, noCliEnv, forceSop, intentsYaml } from "./helpers.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const require = createRequire(import.meta.url);
const { createEngine } = require(path.join(dist, "engine.cjs"));
const { server } = require(path.join(dist, "opencode.cjs"));
const T = { timeout: 120_000 };
const INTENTS = intentsYaml(["INT-1", "Billing", ["src/billing/**"]]);

/** The hostile arguments, each beside an in-scope path a naive gate would read. */
function hostile() {
  const deep = () => {
    let v = "x";
    for (let i = 0; i < 100_000; i++) v = [v];
    return v;
  };
  const cyclic = { path: "src/billing/ok.ts", content: "x" };
  cyclic.self = cyclic;
  let dag = { leaf: "x" };
  for (let i = 0; i < 25; i++) dag = { a: dag, b: dag };
  const nullProto = Object.assign(Object.create(null), { path: "src/billing/ok.ts", content: "x" });
  return [
    ["100k-deep nesting", { path: "src/billing/ok.ts", content: "x", x: deep() }],
    ["a function", { path: "src/billing/ok.ts", content: "x", f() {} }],
    ["a cycle", cyclic],
    ["a BigInt", { path: "src/billing/ok.ts", content: "x", n: 10n }],
    ["2^25 shared references", { path: "src/billing/ok.ts", content: "x", dag }],
    ["a symbol", { path: "src/billing/ok.ts", content: "x", s: Symbol("s") }],
    ["a null-prototype object", nullProto],
  ];
}

async function governed() {
  const dir = writeFiles(fs.realpathSync(tmpdir("hookwise-hostile-")), { ".orchestration/active_intents.yaml": INTENTS });
  const engine = await createEngine({ cwd: dir, env: noCliEnv() });
  assert.equal(engine.governance, true);
  const s = await engine.selectIntent("s", "INT-1");
  assert.equal(s.ok, true, s.text);
  return { dir, engine };
}

test("engine API, governance on: hostile params are refused with a reason, never thrown", T, async () => {
  const { dir, engine } = await governed();
  // the honest call passes
  const ok = await engine.executePreHook({ toolName: "write_to_file", params: { path: "src/billing/ok.ts", content: "x" }, sessionId: "s" });
  assert.equal(ok.blocked, false, ok.reason);
  for (const [what, params] of hostile()) {
    const t0 = performance.now();
    const r = await engine.executePreHook({ toolName: "write_to_file", params, sessionId: "s" });
    const ms = performance.now() - t0;
    console.log(`# executePreHook with ${what}: ${ms.toFixed(1)} ms, blocked=${r.blocked}`);
    if (what === "a null-prototype object") {
      assert.equal(r.blocked, false, `${what}: plain data, in scope: ${r.reason}`);
      continue;
    }
    assert.equal(r.blocked, true, `${what} passed unchecked`);
    assert.match(r.reason, /hookwise blocked `write_to_file`/, what);
    const a = await engine.augmentToolCall({ tool: "write_to_file", args: params, sessionId: "s" });
    assert.equal(a.blocked, true, `augmentToolCall: ${what}`);
  }
  // a tool name with no string form, null input, a throwing getter: answers, no throw
  const named = await engine.executePreHook({ toolName: Object.create(null), params: {}, sessionId: "s" });
  assert.equal(typeof named.blocked, "boolean");
  assert.equal(typeof (await engine.executePreHook(null)).blocked, "boolean");
  assert.equal(typeof (await engine.augmentToolCall(undefined)).blocked, "boolean");
  const trap = { get toolName() { throw new Error("boom"); } };
  assert.equal(typeof (await engine.executePreHook(trap)).blocked, "boolean");
  assert.equal((await engine.executePostHook({ toolName: Object.create(null), params: hostile()[2][1] })).recorded, false);
  assert.equal(typeof (await engine.completeToolCall({ tool: 1n, output: Object.create(null) })).output, "string");
  // nothing was written, no record
  assert.equal(traceExists(dir), false);
  await engine.dispose();
});

test("engine API, knowledge context alone: hostile params proceed (fail open), never thrown", T, async () => {
  const dir = writeFiles(fs.realpathSync(tmpdir("hookwise-hostile-k-")), { ".opencode/knowledge/auth.md": "# Auth\n\nSee [[tokens]].\n" });
  const engine = await createEngine({ cwd: dir, env: noCliEnv() });
  for (const [what, params] of hostile()) {
    const r = await engine.executePreHook({ toolName: "write_to_file", params, sessionId: "s" });
    assert.equal(r.blocked, false, what);
    const a = await engine.augmentToolCall({ tool: "execute_command", args: params });
    assert.equal(a.blocked, false, what);
  }
  await engine.dispose();
});

test("engine API, enforcement on: a strict SOP is not skipped by unreadable params", T, async () => {
  const dir = writeFiles(fs.realpathSync(tmpdir("hookwise-hostile-e-")), {
    ".opencode/sops/force.md": forceSop("- Confirm with the user.", ""),
    ".opencode/hookwise.json": JSON.stringify({ enforcement: { level: "strict" } }),
  });
  const engine = await createEngine({ cwd: dir, env: noCliEnv() });
  for (const [what, params] of hostile()) {
    if (what === "a null-prototype object") continue;
    const r = await engine.executePreHook({ toolName: "bash", params: { ...params, command: "git push --force origin main" }, sessionId: "s" });
    assert.equal(r.blocked, true, `${what} skipped enforcement`);
  }
  await engine.dispose();
});

test("OpenCode hooks, governance on: a lone surrogate is checked as written, deep nesting refused", T, async () => {
  const dir = writeFiles(fs.realpathSync(tmpdir("hookwise-hostile-oc-")), { ".orchestration/active_intents.yaml": INTENTS });
  const hooks = await server({ directory: dir, worktree: dir, client: { app: { log: () => Promise.resolve() } } }, {});
  const select = await hooks.tool.select_active_intent.execute({ intent_id: "INT-1" }, { sessionID: "s" });
  assert.match(select, /src\/billing/);
  const before = (args, tool = "write") => hooks["tool.execute.before"]({ tool, sessionID: "s", callID: "c" }, { args });
  // out of scope, with a lone surrogate in the path or the content: blocked
  await assert.rejects(before({ filePath: path.join(dir, "docs/leak\ud800.md"), content: "x" }), /hookwise blocked `write`/);
  await assert.rejects(before({ filePath: path.join(dir, ".orchestration/active_intents.yaml"), content: "active_intents: []\ud800" }), /hookwise blocked `write`/);
  let deep = "x";
  for (let i = 0; i < 200; i++) deep = [deep];
  await assert.rejects(before({ filePath: path.join(dir, "src/billing/ok.ts"), content: "x", x: deep }), /nest deeper than 64 levels/);
  // in scope, valid and lone surrogates in the content: allowed
  await before({ filePath: path.join(dir, "src/billing/ok.ts"), content: "😀 日本語 עברית \ud800" });
  await hooks.dispose();
});

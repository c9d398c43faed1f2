// State an attacker can lean on, through the installed package's engine API:
//   - the enforcement cooldown: one blocked call must not acknowledge every similar one
//     (issue 18, item 5: the README says "the same call retried");
//   - the trace lock: a lock file another process keeps fresh must not silently drop the
//     Agent Trace records (item 10);
//   - a 50 MB .opencode/hookwise.json must be refused with a warning, not ignored (item 10).
//
//   npm run build && node --test --test-concurrency=1 tests/security/engine-state.test.mjs

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { installPacked, quietEnv, tmp, writeFiles } from "./lib/pkg.mjs";
import { GOVERNED, ENFORCED, SOP_MARKER } from "./lib/fixtures.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

let pkg;
let createEngine;
before(async () => {
  pkg = installPacked("hookwise-sec-state-");
  ({ createEngine } = await pkg.engine());
});
after(() => pkg?.cleanup());

async function engineIn(files, extra = {}) {
  const cwd = writeFiles(tmp("hookwise-sec-proj-"), files);
  const logs = [];
  const engine = await createEngine({ cwd, env: quietEnv(), watch: false, log: (level, message) => logs.push({ level, message: String(message) }), ...extra });
  return { cwd, engine, logs };
}

describe("cooldown per call: one block acknowledges only its own retry (issue 18, item 5)", () => {
  let engine;
  let cwd;
  // through augmentToolCall: an enforcement-only project's shell runs confined by the kernel, and
  // executePreHook hands no arguments back to confine, so it refuses every shell (issue 38)
  const pre = async (command, sessionId = "s1") => {
    const r = await engine.augmentToolCall({ tool: "bash", args: { command, description: "x" }, sessionId });
    return { ...r, decision: r.enforcement };
  };
  before(async () => {
    ({ engine, cwd } = await engineIn({ ...ENFORCED, "README.md": "# demo\n" }));
  });
  after(() => engine?.dispose());

  // Order matters: each step is judged after the ones before it, in one session.
  const SCRATCH = "git push --force origin scratch";
  const MAIN = "git push --force origin main";
  const LEASE = "git push --force-with-lease=x origin release && rm -rf .git";

  test("git push --force origin scratch is blocked with the SOP", async () => {
    const r = await pre(SCRATCH);
    assert.equal(r.blocked, true, `a strict SOP matches: ${JSON.stringify(r)}`);
    assert.ok(r.reason.includes(SOP_MARKER), r.reason);
  });

  test("the same call retried passes (the acknowledgment)", async () => {
    const r = await pre(SCRATCH);
    assert.equal(r.blocked, false, `the retry of the same call must pass: ${r.reason}`);
  });

  test("git push --force origin main (another target) is judged on its own: blocked", async () => {
    const r = await pre(MAIN);
    assert.equal(r.blocked, true, `a force push to main passed as "acknowledged" by the block of a push to scratch (decision: ${JSON.stringify(r.decision)})`);
    assert.ok(r.reason.includes(SOP_MARKER), r.reason);
  });

  test("git push --force-with-lease=x origin release && rm -rf .git is judged on its own: blocked", async () => {
    const r = await pre(LEASE);
    assert.equal(r.blocked, true, `'${LEASE}' passed as "acknowledged" by an earlier block of another command (decision: ${JSON.stringify(r.decision)})`);
  });

  test("each blocked call is acknowledged by its own retry", async () => {
    const main = await pre(MAIN);
    assert.equal(main.blocked, false, `the retry of '${MAIN}' must pass: ${main.reason}`);
  });

  test("another session's identical call is judged on its own (the key holds the session)", async () => {
    const r = await pre(SCRATCH, "s2");
    assert.equal(r.blocked, true, `session s2 never saw the SOP, yet its force push passed on session s1's acknowledgment (decision: ${JSON.stringify(r.decision)})`);
  });

  test("the decisions are in the metrics file", () => {
    const lines = fs.readFileSync(path.join(cwd, ".opencode/hookwise/metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.ok(lines.length >= 5, JSON.stringify(lines.map((l) => l.decision)));
  });
});

describe("a trace lock another process keeps fresh does not silently drop records (issue 18, item 10)", () => {
  let engine;
  let cwd;
  let logs;
  let toucher;
  before(async () => {
    ({ engine, cwd, logs } = await engineIn(GOVERNED));
    const s = await engine.selectIntent("s", "INT-1");
    assert.ok(s.ok, s.text);
  });
  after(async () => {
    if (toucher && toucher.exitCode === null) {
      process.kill(toucher.pid, "SIGKILL");
      await new Promise((ok) => toucher.once("exit", ok));
    }
    await engine?.dispose();
  });

  async function write(rel, text) {
    const params = { filePath: rel, content: text };
    const pre = await engine.executePreHook({ toolName: "write", params, sessionId: "s" });
    if (pre.blocked) return { pre };
    fs.mkdirSync(path.dirname(path.join(cwd, rel)), { recursive: true });
    fs.writeFileSync(path.join(cwd, rel), text);
    const t0 = performance.now();
    const post = await engine.executePostHook({ toolName: "write", params, sessionId: "s", callId: pre.callId, result: { output: "ok" } });
    return { pre, post, postMs: Math.round(performance.now() - t0) };
  }

  test("control: without a foreign lock, a write is recorded", async () => {
    const r = await write("src/billing/first.ts", "export const first = 1;\n");
    assert.equal(r.pre.blocked, false, r.pre.reason);
    assert.equal(r.post.recorded, true, JSON.stringify(logs.slice(-5)));
  });

  test("with the lock kept fresh: the record is written, or the next gated write is blocked with a reason", async (t) => {
    const lock = path.join(cwd, traceFiles(cwd)[0] + ".lock");
    // another process holds the lock and keeps it fresh (as a live writer would)
    toucher = spawn("bash", ["-c", `while :; do touch ${JSON.stringify(lock)}; sleep 0.2; done`], { stdio: "ignore" });
    await new Promise((ok) => setTimeout(ok, 300));
    assert.ok(fs.existsSync(lock), "the foreign lock exists");
    const before = traceText(cwd).trim().split("\n").length;
    const first = await write("src/billing/second.ts", "export const second = 2;\n");
    assert.equal(first.pre.blocked, false, `the write itself is in scope: ${first.pre.reason}`);
    t.diagnostic(`the post-hook returned after ${first.postMs} ms with recorded=${first.post.recorded}`);
    const next = await engine.executePreHook({ toolName: "write", params: { filePath: "src/billing/third.ts", content: "3\n" }, sessionId: "s" });
    const after = traceText(cwd).trim().split("\n").length;
    const recorded = first.post.recorded === true && after === before + 1;
    const warned = logs.filter((l) => l.level === "warn" || l.level === "error").map((l) => l.message);
    assert.ok(
      recorded || (next.blocked === true && typeof next.reason === "string" && next.reason.trim()),
      `the record of src/billing/second.ts was dropped (recorded: ${first.post.recorded}, trace lines ${before} -> ${after}) and the next gated write was not blocked (blocked: ${next.blocked}) — a change went unrecorded while governance kept allowing changes.\n  warnings: ${JSON.stringify(warned.slice(-3))}`,
    );
  });
});

describe("a 50 MB .opencode/hookwise.json is refused with a warning, not ignored (issue 18, item 10)", () => {
  test("createEngine warns about the file (and does not throw)", async (t) => {
    const cwd = tmp("hookwise-sec-bigcfg-");
    fs.mkdirSync(path.join(cwd, ".opencode"));
    // valid JSON with a valid key: only its size is wrong
    const file = path.join(cwd, ".opencode/hookwise.json");
    const fd = fs.openSync(file, "w");
    fs.writeSync(fd, '{"tokenBudget": 1500');
    const spaces = Buffer.alloc(1 << 20, 0x20);
    for (let i = 0; i < 50; i++) fs.writeSync(fd, spaces);
    fs.writeSync(fd, "}\n");
    fs.closeSync(fd);
    const logs = [];
    const t0 = performance.now();
    const engine = await createEngine({ cwd, env: quietEnv(), watch: false, log: (level, message) => logs.push({ level, message: String(message) }) });
    t.diagnostic(`createEngine with a ${Math.round(fs.statSync(file).size / 1e6)} MB hookwise.json: ${Math.round(performance.now() - t0)} ms`);
    await engine.dispose();
    const warned = logs.filter((l) => (l.level === "warn" || l.level === "error") && /hookwise\.json/.test(l.message));
    assert.ok(warned.length > 0, `no warning names hookwise.json; the file was ignored without a word. Logs:\n${logs.map((l) => `${l.level}: ${l.message}`).join("\n")}`);
  });
});

// Intent governance in the real OpenCode: the package is built (`npm run build` → pkg/), packed
// and loaded by name, offline, with a scripted model. Three runs:
//   1. governance on (.orchestration/active_intents.yaml), a model offered write/edit:
//      a write with no intent is blocked and the model reads why; it calls
//      select_active_intent; a write inside the scope runs and leaves an Agent Trace record
//      valid against the shared schema; a write outside the scope is blocked;
//   2. governance on, a "gpt-" model (OpenCode offers it apply_patch instead of write/edit):
//      an apply_patch outside the scope is blocked, one inside runs and is recorded;
//   3. governance off (no yaml): the same write runs, no tool is added, no folder created.
//
//   node --test tests/e2e/governance.test.mjs     (needs pkg/: run `npm run build` first)

import { packHookwise } from "./lib/pack.mjs";
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { e2eGate, runOpencode, assertRunOk, repoRoot } from "./lib/opencode.mjs";
import { validate } from "../js/agent-trace-schema.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { INTENTS, LOGIN } from "../e2e-shared/fixtures.mjs";
import { requestWithResult } from "../e2e-shared/runs.mjs";
import { pathWithoutMaenifold } from "../e2e-shared/env.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e governance", "opencode");

const PKG_DIR = path.join(repoRoot, "pkg");
const GOVERNED = { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "", "README.md": "# demo\n" };

const nextAfter = (r, callId) => requestWithResult(r.mainRequests(), callId, () => r.describe());

const use = (r, id) => r.toolUses().find((u) => u.callID === id);

function sandboxEnv() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-e2e-gov-home-"));
  return { PATH: pathWithoutMaenifold(), HOME: home, MAENIFOLD_ROOT: path.join(home, "none") };
}

function traceLines(dir) {
  return traceRecordsOf(dir);
}

describe("intent governance in the real OpenCode", { skip: suiteSkip }, () => {
  let packDir, tarball;
  const runs = {};

  before(async () => {
    assert.ok(fs.existsSync(path.join(PKG_DIR, "package.json")), `no built package at ${PKG_DIR}: run \`npm run build\` first`);
    const pack = packHookwise("hookwise-e2e-gov-");
    packDir = pack.packDir;
    const listed = pack.packed[0].files.map((f) => f.path);
    for (const f of ["dist/policy/hookwise_bg.wasm", "dist/zod.cjs"]) assert.ok(listed.includes(f), `packed hookwise lacks ${f}`);
    tarball = path.join(packDir, pack.packed[0].filename);
    const plugins = [{ tarball, install: "cache" }];

    runs.write = await runOpencode({
      prompt: "Add the login form.",
      plugins,
      env: sandboxEnv(),
      git: true,
      files: GOVERNED,
      script: (req) => {
        switch (req.toolResults().length) {
          case 0:
            return { tool: "write", id: "call_noint", args: { filePath: "src/auth/login.ts", content: LOGIN } };
          case 1:
            return { tool: "select_active_intent", id: "call_select", args: { intent_id: "INT-1" } };
          case 2:
            return { tool: "write", id: "call_in", args: { filePath: "src/auth/login.ts", content: LOGIN } };
          case 3:
            return { tool: "write", id: "call_out", args: { filePath: "README.md", content: "# changed\n" } };
          default:
            return "done";
        }
      },
      timeoutMs: 60_000,
    });
    assertRunOk(runs.write);

    runs.patch = await runOpencode({
      prompt: "Patch the login form.",
      plugins,
      env: sandboxEnv(),
      git: true,
      files: GOVERNED,
      config: {
        model: "mock/gpt-5-mock",
        small_model: "mock/gpt-5-mock",
        provider: { mock: { models: { "gpt-5-mock": { name: "gpt-5-mock", tool_call: true, limit: { context: 200000, output: 4096 } } } } },
      },
      script: (req) => {
        switch (req.toolResults().length) {
          case 0:
            return { tool: "select_active_intent", id: "call_select", args: { intent_id: "INT-1" } };
          case 1:
            return { tool: "apply_patch", id: "call_pout", args: { patchText: "*** Begin Patch\n*** Add File: src/auth/ok.ts\n+export const ok = 1;\n*** Update File: README.md\n@@\n-# demo\n+# hacked\n*** End Patch" } };
          case 2:
            return { tool: "apply_patch", id: "call_pin", args: { patchText: "*** Begin Patch\n*** Add File: src/auth/p.ts\n+export const p = 1;\n+export const q = 2;\n*** End Patch" } };
          default:
            return "done";
        }
      },
      timeoutMs: 60_000,
    });
    assertRunOk(runs.patch);

    runs.off = await runOpencode({
      prompt: "Add the login form.",
      plugins,
      env: sandboxEnv(),
      git: true,
      files: { "src/auth/.keep": "" },
      script: (req) => (req.toolResults().length === 0 ? { tool: "write", id: "call_w", args: { filePath: "src/auth/login.ts", content: LOGIN } } : "done"),
      timeoutMs: 60_000,
    });
    assertRunOk(runs.off);
  });

  after(() => {
    for (const r of Object.values(runs)) r?.cleanup();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  test("the model is offered select_active_intent and told to select an intent", () => {
    const first = runs.write.mainRequests()[0];
    assert.ok(first.tools.includes("select_active_intent"), `tools: ${first.tools.join(", ")}`);
    assert.match(first.system, /<intent_context>[\s\S]*select_active_intent[\s\S]*INT-1: Login form/);
    assert.ok(!/INT-2: Old docs —/.test(first.system), "a COMPLETE intent is not offered");
  });

  test("a write with no intent is blocked and the model reads why", () => {
    assert.equal(use(runs.write, "call_noint")?.status, "error", runs.write.describe());
    const { result } = nextAfter(runs.write, "call_noint");
    assert.match(result, /select_active_intent/);
    assert.match(result, /INT-1/);
    assert.ok(!fs.existsSync(path.join(runs.write.dir, "src/auth/login.ts")) || use(runs.write, "call_in")?.status === "completed");
  });

  test("select_active_intent returns the intent; the system prompt then carries its scope", () => {
    assert.equal(use(runs.write, "call_select")?.status, "completed", runs.write.describe());
    const { result, req } = nextAfter(runs.write, "call_select");
    assert.match(result, /Active intent for this session: INT-1/);
    assert.match(result, /src\/auth\/\*\*/);
    assert.match(result, /No new dependencies/);
    assert.match(req.system, /Active intent: INT-1[\s\S]*<owned_scope>/);
  });

  test("after selecting, a write inside the scope runs and leaves a record valid against the schema", () => {
    assert.equal(use(runs.write, "call_in")?.status, "completed", runs.write.describe());
    assert.equal(fs.readFileSync(path.join(runs.write.dir, "src/auth/login.ts"), "utf8"), LOGIN);
    const recs = traceLines(runs.write.dir);
    assert.equal(recs.length, 1, JSON.stringify(recs));
    const r = recs[0];
    assert.deepEqual(validate(r), []);
    assert.equal(r.files[0].path, "src/auth/login.ts");
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: runs.write.dir, encoding: "utf8" }).trim();
    assert.deepEqual(r.vcs, { type: "git", revision: head });
    assert.equal(r.tool.name, "hookwise");
    const conv = r.files[0].conversations[0];
    assert.equal(conv.contributor.type, "ai");
    assert.equal(conv.contributor.model_id, "mock/mock-1");
    assert.deepEqual(conv.ranges.map((x) => [x.start_line, x.end_line]), [[1, 3]]);
    assert.match(conv.ranges[0].content_hash, /^sha256:[0-9a-f]{64}$/);
    const meta = r.metadata["dev.hookwise"];
    assert.equal(meta.intent_id, "INT-1");
    assert.equal(meta.mutation_class, "INTENT_EVOLUTION");
    assert.equal(meta.call_id, "call_in");
  });

  test("a write outside the scope is blocked, naming the file and the scope", () => {
    assert.equal(use(runs.write, "call_out")?.status, "error");
    const { result } = nextAfter(runs.write, "call_out");
    assert.match(result, /README\.md/);
    assert.match(result, /src\/auth\/\*\*/);
    assert.equal(fs.readFileSync(path.join(runs.write.dir, "README.md"), "utf8"), "# demo\n");
    assert.equal(traceLines(runs.write.dir).length, 1, "a blocked call leaves no record");
  });

  test("an apply_patch touching a file outside the scope is blocked; one inside runs and is recorded", () => {
    const first = runs.patch.mainRequests()[0];
    assert.ok(first.tools.includes("apply_patch"), `the gpt- model is offered apply_patch: ${first.tools.join(", ")}`);
    assert.equal(use(runs.patch, "call_pout")?.status, "error", runs.patch.describe());
    assert.match(nextAfter(runs.patch, "call_pout").result, /README\.md/);
    assert.ok(!fs.existsSync(path.join(runs.patch.dir, "src/auth/ok.ts")), "nothing of the blocked patch was applied");
    assert.equal(fs.readFileSync(path.join(runs.patch.dir, "README.md"), "utf8"), "# demo\n");
    assert.equal(use(runs.patch, "call_pin")?.status, "completed", runs.patch.describe());
    const recs = traceLines(runs.patch.dir);
    assert.equal(recs.length, 1, JSON.stringify(recs));
    assert.deepEqual(validate(recs[0]), []);
    assert.equal(recs[0].files[0].path, "src/auth/p.ts");
    assert.deepEqual(recs[0].files[0].conversations[0].ranges.map((x) => [x.start_line, x.end_line]), [[1, 2]]);
    assert.equal(recs[0].metadata["dev.hookwise"].intent_id, "INT-1");
  });

  test("governance off (no yaml) changes nothing: the write runs, no tool is added, no folder is created", () => {
    assert.equal(use(runs.off, "call_w")?.status, "completed", runs.off.describe());
    assert.equal(fs.readFileSync(path.join(runs.off.dir, "src/auth/login.ts"), "utf8"), LOGIN);
    const first = runs.off.mainRequests()[0];
    assert.ok(!first.tools.includes("select_active_intent"));
    assert.ok(!/<intent_context>/.test(first.system));
    assert.ok(!fs.existsSync(path.join(runs.off.dir, ".orchestration")));
  });
});

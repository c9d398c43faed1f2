// Pre-action enforcement in the real OpenCode: the package is built (`npm run build` → pkg/),
// packed and loaded by name, offline. The project has two SOPs in .opencode/sops/ — a strict
// one (process) for `git push --force` and an advisory one (technical) for `nginx-conf` — so
// the lean core asks for the policy core at start. A scripted model makes four bash calls:
//   1. git push --force … (harmless: --dry-run to a remote that does not exist, in a folder
//      that is no repository) → blocked, the SOP text is the tool result the model reads;
//   2. the same call again → the retry is the acknowledgment: it runs, unchanged;
//   3. mkdir -p nginx-conf → runs, with the advice as comment lines before the command;
//   4. ls -la → read-only: untouched.
//
//   node --test tests/e2e/enforce.test.mjs     (needs pkg/: run `npm run build` first)

import { packHookwise } from "./lib/pack.mjs";
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { e2eGate, runOpencode, assertRunOk, repoRoot } from "./lib/opencode.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { enforceSops, enforceScript, FORCE, ADVISED, READ_ONLY, FORCE_MARKER, ADVICE_MARKER } from "../e2e-shared/fixtures.mjs";
import { unconfined } from "../js/helpers.mjs";
import { requestWithResult } from "../e2e-shared/runs.mjs";
import { pathWithoutMaenifold } from "../e2e-shared/env.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e enforce", "opencode");

const PKG_DIR = path.join(repoRoot, "pkg");

const FILES = enforceSops(".opencode/sops", "[bash]");

const script = enforceScript((id, command, description) => ({ tool: "bash", id: `call_${id}`, args: { command, description } }));

const nextAfter = (r, callId) => requestWithResult(r.mainRequests(), callId, () => r.describe());

describe("pre-action enforcement in the real OpenCode", { skip: suiteSkip }, () => {
  let packDir;
  let run;

  before(async () => {
    assert.ok(fs.existsSync(path.join(PKG_DIR, "package.json")), `no built package at ${PKG_DIR}: run \`npm run build\` first`);
    const pack = packHookwise("hookwise-e2e-enforce-");
    packDir = pack.packDir;
    const packed = pack.packed;
    const listed = packed[0].files.map((f) => f.path);
    for (const f of ["dist/hookwise_bg.wasm", "dist/policy/hookwise_bg.wasm", "dist/policy/wasm.cjs"]) {
      assert.ok(listed.includes(f), `packed hookwise lacks ${f}: ${listed.join(", ")}`);
    }
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-e2e-enforce-home-"));
    run = await runOpencode({
      prompt: "Push the branch.",
      plugins: [{ tarball: path.join(packDir, packed[0].filename), install: "cache" }],
      // no maenifold, no vault: enforcement alone
      env: { PATH: pathWithoutMaenifold(), HOME: home, MAENIFOLD_ROOT: path.join(home, "none") },
      config: { permission: { bash: { "*": "allow" } } },
      files: FILES,
      script,
      timeoutMs: 50_000,
    });
    assertRunOk(run);
  });

  after(() => {
    run?.cleanup();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  test("the policy core started, with both SOPs", () => {
    const started = run.logs.service("hookwise").filter((e) => /pre-action enforcement: level/.test(e.message ?? ""));
    assert.equal(started.length, 1, run.describe());
    assert.match(started[0].message, /2 SOP\(s\)/);
  });

  test("git push --force with a matching strict SOP is blocked once, with the SOP text in the model's next request", () => {
    const first = nextAfter(run, "call_force1");
    assert.ok(first.result.includes(FORCE_MARKER), `the SOP text is the tool result:\n${first.result}`);
    assert.match(first.result, /retry/i, "and says how to proceed");
    const use = run.toolUses().find((u) => u.callID === "call_force1");
    assert.equal(use?.status, "error", "the tool did not run");
  });

  test("the retry runs, unchanged", () => {
    const use = run.toolUses().find((u) => u.callID === "call_force2");
    assert.equal(use?.status, "completed", run.describe());
    const again = nextAfter(run, "call_force2");
    assert.ok(!again.result.includes(FORCE_MARKER), "not blocked again");
    // (OpenCode 1.x's history shows the rewritten call: the command inside the launcher, issue 38)
    assert.equal(unconfined(again.call.args.command), FORCE, "the command ran as the model wrote it");
    // it really ran: git answered (no repository / no such remote), not hookwise
    assert.ok(!/hookwise paused/.test(again.result), again.result);
  });

  test("an advisory match runs, with the advice visible to the model as comment lines", () => {
    const use = run.toolUses().find((u) => u.callID === "call_advised");
    assert.equal(use?.status, "completed", run.describe());
    assert.ok(fs.existsSync(path.join(run.dir, "conf/nginx-conf")), "the command did what it says");
    const got = nextAfter(run, "call_advised");
    const cmd = got.call.args.command;
    // the command comes last, untouched inside the launcher (an enforcement-only shell runs
    // confined by the kernel, issue 38)
    assert.equal(unconfined(cmd.split("\n").at(-1)), ADVISED, `the command comes last, untouched:\n${cmd}`);
    assert.ok(cmd.includes(ADVICE_MARKER), `the advice is in the call the model sees:\n${cmd}`);
    for (const line of cmd.split("\n").slice(0, -1)) assert.match(line, /^#( |$)/, "every added line is a comment");
  });

  test("a read-only command is untouched", () => {
    const use = run.toolUses().find((u) => u.callID === "call_ro");
    assert.equal(use?.status, "completed");
    const got = nextAfter(run, "call_ro");
    assert.equal(unconfined(got.call.args.command), READ_ONLY);
    assert.match(got.result, /\bconf\b/, "ls ran in the project");
  });

  test("the decisions were recorded, hash-chained", () => {
    const file = path.join(run.dir, ".opencode/hookwise/metrics.jsonl");
    const lines = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.decision), ["block", "acknowledged", "advise"]);
  });
});

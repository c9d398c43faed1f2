// Decoy keys in the real OpenClaw gateway (issue 18, item 2), and a damaged install there (below): openclaw@2026.9.6 under Node 24
// (scripts/setup-openclaw.sh), offline, with the scripted model of tests/e2e/lib/model.mjs and
// the installed package unpacked as a plugin folder. Governance is on with one intent owning
// src/billing/**; in one agent turn the model:
//   1. selects INT-1;
//   2. writes {path: "docs/leak.md", content, filePath: "src/billing/ok.ts"} — OpenClaw's write
//      tool writes `path`; the gate must not read the decoy `filePath` → blocked;
//   3. apply_patch {input: <Add docs/evil.md>, patchText: <an in-scope patch>} — OpenClaw's
//      apply_patch reads `input` → blocked;
//   4. writes {path: "docs/surrogate.md", content: "… \ud800"} → blocked;
//   5. the honest in-scope write {path: "src/billing/ok.ts"} → runs and is recorded.
//
//   bash scripts/setup-openclaw.sh && npm run build && node --test tests/security/openclaw.test.mjs

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { openclawGate, startGateway } from "../e2e-openclaw/lib/openclaw.mjs";
import { validate } from "../js/agent-trace-schema.mjs";
import { installPacked, tmp } from "./lib/pkg.mjs";
import { INTENTS } from "./lib/fixtures.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { requestWithResult } from "../e2e-shared/runs.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const gate = openclawGate();
const suiteSkip = suiteGate(gate, "security openclaw", "openclaw");

const EVIL_PATCH = "*** Begin Patch\n*** Add File: docs/evil.md\n+evil\n*** End Patch";
const DECOY_PATCH = "*** Begin Patch\n*** Add File: src/billing/fine.ts\n+export const fine = 1;\n*** End Patch";
const OK = "export const ok = 1;\n";

/**
 * One agent turn in a real gateway, governed (INTENTS), with the packed package as a plugin
 * folder (`damage(pluginDir)` applied first): the model calls `calls[n]` when it has n tool
 * results (`onRequest(n, gw)` first), then says "all done". `t.gw`, `t.reply`, `t.resultOf(id)`.
 */
function governedTurn(prefix, { files, calls, damage, onRequest }) {
  const t = {};
  before(async () => {
    t.pkg = installPacked(prefix);
    const plugin = t.pkg.pluginDir();
    damage?.(plugin);
    const home = tmp(`${prefix}none-`);
    t.gw = await startGateway({
      plugins: [plugin],
      env: { MAENIFOLD_ROOT: path.join(home, "none"), HOOKWISE_VAULT: path.join(home, "no-vault") },
      files: { ".orchestration/active_intents.yaml": INTENTS, "src/billing/.keep": "", ...files },
      entries: { hookwise: { hooks: { allowConversationAccess: true } } },
      script: (req) => {
        const n = req.toolResults().length;
        onRequest?.(n, t.gw);
        return calls[n] ?? "all done";
      },
    });
    t.reply = await t.gw.chat("Fix the billing module.");
  });
  after(async () => {
    await t.gw?.stop();
    t.pkg?.cleanup();
  });
  t.resultOf = (callId) => requestWithResult(t.gw.model.mainRequests(), callId, () => t.gw.describe()).result;
  return t;
}

describe("decoy keys in the real OpenClaw gateway", { skip: suiteSkip }, () => {
  const seen = {}; // the workspace when the model was asked again, per tool results so far
  const look = (ws) => ({
    leak: fs.existsSync(path.join(ws, "docs/leak.md")),
    evil: fs.existsSync(path.join(ws, "docs/evil.md")),
    fine: fs.existsSync(path.join(ws, "src/billing/fine.ts")),
    surrogate: fs.readdirSync(path.join(ws, "docs")).filter((f) => f.startsWith("surrogate")),
  });
  const t = governedTurn("hookwise-sec-openclaw-", {
    files: { "docs/README.md": "# docs\n" },
    calls: [
      { tool: "select_active_intent", id: "hwsel", args: { intent_id: "INT-1" } },
      { tool: "write", id: "hwdecoy", args: { path: "docs/leak.md", content: "leaked\n", filePath: "src/billing/ok.ts" } },
      { tool: "apply_patch", id: "hwpatch", args: { input: EVIL_PATCH, patchText: DECOY_PATCH } },
      { tool: "write", id: "hwsurr", args: { path: "docs/surrogate-\ud800.md", content: "leak \ud800\n" } },
      { tool: "write", id: "hwok", args: { path: "src/billing/ok.ts", content: OK } },
    ],
    onRequest: (n, gw) => {
      if (gw?.workspace && n > 0) seen[n] = look(gw.workspace);
    },
  });

  test("the turn completed and the intent was selected", () => {
    assert.equal(t.reply.status, 200, t.reply.body);
    assert.equal(t.reply.text, "all done", t.gw.describe());
    assert.match(t.resultOf("hwsel"), /INT-1/);
  });

  test("write {path: docs/leak.md, filePath: src/billing/ok.ts}: blocked, docs/leak.md not created", () => {
    const result = t.resultOf("hwdecoy");
    assert.ok(!fs.existsSync(path.join(t.gw.workspace, "docs/leak.md")), `the decoy filePath let OpenClaw write docs/leak.md (the tool result: ${result.slice(0, 400)})`);
    assert.equal(seen[2]?.leak, false, "not written at the time either");
    assert.match(result, /hookwise/i, `the model reads that hookwise blocked it: ${result.slice(0, 400)}`);
  });

  test("apply_patch {input: Add docs/evil.md, patchText: an in-scope patch}: blocked, docs/evil.md not created", () => {
    const result = t.resultOf("hwpatch");
    assert.ok(!fs.existsSync(path.join(t.gw.workspace, "docs/evil.md")), `the decoy patchText let OpenClaw's apply_patch create docs/evil.md (the tool result: ${result.slice(0, 400)})`);
    assert.ok(!fs.existsSync(path.join(t.gw.workspace, "src/billing/fine.ts")), "nothing of the call ran");
    assert.match(result, /hookwise/i, `the model reads that hookwise blocked it: ${result.slice(0, 400)}`);
  });

  test("write with a lone surrogate in path and content, outside the scope: blocked", () => {
    const result = t.resultOf("hwsurr");
    const made = fs.readdirSync(path.join(t.gw.workspace, "docs")).filter((f) => f.startsWith("surrogate"));
    assert.deepEqual(made, [], `a lone surrogate switched the gate off: OpenClaw wrote ${made.join(", ")} (the tool result: ${result.slice(0, 400)})`);
    assert.match(result, /hookwise/i);
  });

  test("the honest in-scope write {path: src/billing/ok.ts} runs and is recorded", () => {
    const result = t.resultOf("hwok");
    assert.doesNotMatch(result, /hookwise blocked/, result);
    assert.equal(fs.readFileSync(path.join(t.gw.workspace, "src/billing/ok.ts"), "utf8"), OK);
    const trace = traceText(t.gw.workspace).trim().split("\n").map((l) => JSON.parse(l));
    const ok = trace.filter((r) => r.files.some((f) => f.path === "src/billing/ok.ts"));
    assert.equal(ok.length, 1, JSON.stringify(trace.map((r) => r.files.map((f) => f.path))));
    assert.deepEqual(validate(ok[0]), []);
    assert.deepEqual(trace.flatMap((r) => r.files.map((f) => f.path)).filter((p) => !p.startsWith("src/billing/")), [], "nothing outside the scope was recorded as written");
  });

  test("the intents are unchanged", () => {
    assert.equal(fs.readFileSync(path.join(t.gw.workspace, ".orchestration/active_intents.yaml"), "utf8"), INTENTS);
  });
});

// A damaged install in the real OpenClaw gateway (issue 29, critical 5, in every host where it
// applies): the plugin folder's policy wasm is garbage, so the policy core cannot start. The
// glue reads the project's files (js/failsafe.cjs) and, governance being configured, blocks the
// write and the command with the core's sentence; the read runs (read-only under governance).
describe("a damaged install in the real OpenClaw gateway", { skip: suiteSkip }, () => {
  const t = governedTurn("hookwise-sec-openclaw-dmg-", {
    files: { "README.md": "# demo\n" },
    calls: [
      { tool: "write", id: "dmgwrite", args: { path: "src/billing/x.ts", content: "export const x = 1;\n" } },
      { tool: "exec", id: "dmgexec", args: { command: "touch dmg-exec-ran" } },
      { tool: "read", id: "dmgread", args: { path: "README.md" } },
    ],
    damage: (plugin) => fs.writeFileSync(path.join(plugin, "dist/policy/hookwise_bg.wasm"), Buffer.alloc(400_000, 0x5a)),
  });
  const BLOCKED = /hookwise blocked `\w+`: hookwise could not start \(.+\), and this project configures intent governance or pre-action enforcement/;

  test("the write and the command are blocked with the core's sentence; nothing written, nothing ran", () => {
    assert.equal(t.reply.status, 200, t.reply.body);
    assert.match(t.resultOf("dmgwrite"), BLOCKED, t.gw.describe());
    assert.match(t.resultOf("dmgexec"), BLOCKED, t.gw.describe());
    assert.ok(!fs.existsSync(path.join(t.gw.workspace, "src/billing/x.ts")), "the write went through");
    assert.ok(!fs.existsSync(path.join(t.gw.workspace, "dmg-exec-ran")), "the command ran");
  });

  test("the read runs: governance alone lets what only reads through", () => {
    assert.match(t.resultOf("dmgread"), /# demo/, t.gw.describe());
  });
});

// hookwise in the real OpenClaw gateway (openclaw@2026.9.6 under Node 24, both from the npm
// registry, cached by scripts/setup-openclaw.sh), offline, with the scripted model of
// tests/e2e/lib/model.mjs on loopback. The built package (pkg/) is packed and unpacked into a
// plugin folder exactly as the registry would ship it. One gateway (workspace "larkspur", the
// example vault as knowledge), one agent turn, whose system prompt carries the project's
// session-start context, and in which the model makes these exec calls:
//   1. git push --force … (a strict SOP matches) → blocked: the SOP is the tool result the model
//      reads next, and the command did not run;
//   2. the same call again → the retry is the acknowledgment: it runs;
//   3. echo '[[jwt]]' … → runs exactly as written (same output); the knowledge context for
//      [[jwt]] is in the tool result the model reads next, after the command's own output.
// The model's history keeps its calls as it made them (OpenClaw replays the original call even
// when a plugin rewrites `params`, which is why hookwise puts nothing in the arguments here).
//
//   bash scripts/setup-openclaw.sh && npm run build && node --test tests/e2e-openclaw/

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openclawGate, startGateway, validateConfig, repoRoot } from "./lib/openclaw.mjs";
import { packHookwise } from "../e2e/lib/pack.mjs";
import { installNative } from "../e2e-shared/native.mjs";
import { validate } from "../js/agent-trace-schema.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { requestWithResult } from "../e2e-shared/runs.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const suiteSkip = suiteGate(openclawGate(), "e2e-openclaw", "openclaw");

// (the marker in a folder that exists: an enforcement-only project's shell runs confined by the
// kernel and cannot make a new top-level entry, issue 38)
const FORCE = "git push --force --dry-run /nonexistent/hookwise-e2e.git HEAD; touch out/forced-ran";
const FORCE_MARKER = "OC-E2E-FORCE-MARKER";
const KWL = "echo '[[jwt]] tokens' && echo OC-OUTPUT-MARKER";
const OPEN = "<!-- Knowledge Graph Context (hookwise) -->";

const FILES = {
  "out/.keep": "",
  ".opencode/sops/force-push.md": `---
id: force-push
category: process
match:
  tools: [exec]
  patterns: ['git\\s+push\\s.*--force']
---
# Force-pushing

## Preflight
1. Announce it in the team channel (${FORCE_MARKER}).
2. Compare with the remote first.
`,
};

/** Unpack the packed package into a plugin folder, as a registry install would leave it. */
function pluginFolder() {
  const { packDir, packed } = packHookwise("hookwise-e2e-openclaw-pack-");
  execFileSync("tar", ["xzf", path.join(packDir, packed[0].filename), "-C", packDir]);
  // the confined shell's launcher where an install puts it (an enforcement-only project's exec
  // runs confined too, issue 38)
  installNative(path.join(packDir, "package", "node_modules"));
  return { packDir, dir: path.join(packDir, "package") };
}

describe("hookwise in the real OpenClaw gateway", { skip: suiteSkip }, () => {
  let gw;
  let reply;
  let packDir;
  const seenAt = {}; // what the workspace looked like when the model was asked again
  const timing = {};

  before(async () => {
    assert.ok(fs.existsSync(path.join(repoRoot, "pkg/openclaw.plugin.json")), "no built package: run `npm run build` first");
    const plugin = pluginFolder();
    packDir = plugin.packDir;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-e2e-openclaw-none-"));
    const t0 = Date.now();
    let ws = null;
    gw = await startGateway({
      plugins: [plugin.dir],
      // knowledge: the example vault (no maenifold CLI on PATH)
      env: { HOOKWISE_VAULT: path.join(repoRoot, "examples/vault"), MAENIFOLD_ROOT: path.join(home, "none") },
      files: FILES,
      workspaceName: "larkspur", // the example vault's project
      // plugins.entries.hookwise.config, validated by OpenClaw against the manifest's configSchema
      pluginConfig: { hookwise: { tokenBudget: 1500, enforcement: { cooldownMs: 600000 } } },
      // before_prompt_build (session context) is a conversation hook: the user grants it
      entries: { hookwise: { hooks: { allowConversationAccess: true } } },
      script: (req) => {
        ws ??= gw?.workspace;
        const n = req.toolResults().length;
        if (n > 0 && ws) seenAt[n] = { forcedRan: fs.existsSync(path.join(ws, "out/forced-ran")) };
        switch (n) {
          case 0:
            return { tool: "exec", id: "hwforce1", args: { command: FORCE } };
          case 1:
            return { tool: "exec", id: "hwforce2", args: { command: FORCE } };
          case 2:
            return { tool: "exec", id: "hwkwl", args: { command: KWL } };
          default:
            return "all done";
        }
      },
    });
    timing.readyMs = gw.readyMs;
    const t1 = Date.now();
    reply = await gw.chat("Push the branch, then look up the JWT notes.");
    timing.turnMs = Date.now() - t1;
    timing.totalMs = Date.now() - t0;
    console.log(`# openclaw gateway ready in ${timing.readyMs} ms; the turn took ${timing.turnMs} ms`);
  });

  after(async () => {
    await gw?.stop();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  /** The model request that carries the result of `callId` (OpenClaw may drop `_` from ids). */
  const nextAfter = (callId) => requestWithResult(gw.model.mainRequests(), callId, () => gw.describe());

  test("the turn completed and the plugin loaded", () => {
    assert.equal(reply.status, 200, reply.body);
    assert.equal(reply.text, "all done", gw.describe());
    assert.equal(gw.model.errors().length, 0);
  });

  test("session start: the project's knowledge is in the system prompt of the model's requests", () => {
    const [first, ...rest] = gw.model.mainRequests();
    assert.match(first.system, /## Knowledge Graph Context/, gw.describe());
    assert.match(first.system, /Project: \*\*larkspur\*\*/);
    for (const r of rest) assert.equal(r.system.split("Project: **larkspur**").length, 2, "once in each request");
  });

  test("a strict SOP blocks exec: the SOP is the tool result the model reads next, the command did not run", () => {
    const first = nextAfter("hwforce1");
    assert.ok(first.result.includes(FORCE_MARKER), `the SOP text is the tool result:\n${first.result}`);
    assert.match(first.result, /retry/i, "and says how to proceed");
    assert.equal(seenAt[1]?.forcedRan, false, "blocked: the command did not run");
  });

  test("the retry runs, as the model wrote it", () => {
    const again = nextAfter("hwforce2");
    assert.ok(!again.result.includes(FORCE_MARKER), again.result);
    assert.equal(seenAt[2]?.forcedRan, true, "the retry ran");
    assert.equal(again.call.args.command, FORCE);
  });

  test("[[jwt]] in an exec command: the context reaches the model with the result; the output is unchanged", () => {
    const got = nextAfter("hwkwl");
    const own = execFileSync("bash", ["-c", KWL], { encoding: "utf8" }).replace(/\n$/, "");
    assert.ok(got.result.startsWith(own), `the command's own output comes first, unchanged:\n${got.result}`);
    const rest = got.result.slice(own.length);
    assert.ok(rest.includes(OPEN), `the knowledge block follows:\n${got.result}`);
    assert.match(rest, /## \[\[jwt\]\]/);
    assert.match(rest, /Ed25519/, "with the note's content");
    assert.equal(got.call.args.command, KWL, "the model's history shows its call unchanged");
  });
});

describe("OpenClaw validates hookwise's config with the shipped schema", { skip: suiteSkip }, () => {
  let plugin;
  before(() => {
    plugin = pluginFolder();
  });
  after(() => plugin && fs.rmSync(plugin.packDir, { recursive: true, force: true }));

  test("options the core knows pass", () => {
    const r = validateConfig({ plugins: [plugin.dir], pluginConfig: { hookwise: { tokenBudget: 1500, promptFields: ["prompt"], enforcement: { cooldownMs: 600000 } } } });
    assert.equal(r.code, 0, JSON.stringify(r.json));
    assert.equal(r.json.valid, true);
    assert.deepEqual(r.json.warnings, [], "the plugin and its entry are found");
  });

  test("a wrong type and an unknown key are refused, each named", () => {
    const r = validateConfig({ plugins: [plugin.dir], pluginConfig: { hookwise: { tokenBudget: "lots", bogus: 1 } } });
    assert.notEqual(r.code, 0);
    assert.equal(r.json.valid, false);
    const issues = r.json.issues.map((i) => `${i.path}: ${i.message}`).join("\n");
    assert.match(issues, /plugins\.entries\.hookwise\.config\.tokenBudget: .*number/);
    assert.match(issues, /plugins\.entries\.hookwise\.config: .*"bogus"/);
  });
});

// Intent governance (#4) through the same hooks: `.orchestration/active_intents.yaml` in the
// workspace turns it on. One turn in which the model:
//   1. writes before selecting an intent → blocked (the reason names select_active_intent);
//   2. calls select_active_intent (the plugin's agent tool, offered only while governance is on);
//   3. writes outside the intent's owned_scope → blocked, the reason names the scope;
//   4. decoy keys (issue 18): `write {path: <outside>, filePath: <inside>}` and `apply_patch
//      {input: <adds a file outside>, patchText: <inside>}` → blocked as ambiguous, nothing written;
//      a patch whose second Add header is indented → blocked (OpenClaw reads it as a header);
//   5. writes inside it → the file is written and an Agent Trace record is appended.
const INTENTS = `active_intents:
  - id: INT-1
    name: API work
    status: IN_PROGRESS
    owned_scope: ["src/**"]
`;

/** A patch adding `file` (its header indented by `indent`). */
const patch = (indent, file) => `*** Begin Patch\n${indent}*** Add File: ${file}\n+x\n*** End Patch`;

describe("intent governance in the real OpenClaw gateway", { skip: suiteSkip }, () => {
  let gw;
  let packDir;
  let reply;
  before(async () => {
    const plugin = pluginFolder();
    packDir = plugin.packDir;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-e2e-openclaw-none-"));
    gw = await startGateway({
      plugins: [plugin.dir],
      // no knowledge source: governance alone
      env: { MAENIFOLD_ROOT: path.join(home, "none"), HOOKWISE_VAULT: path.join(home, "no-vault") },
      files: { ".orchestration/active_intents.yaml": INTENTS },
      // the <intent_context> block goes through before_prompt_build, a conversation hook
      entries: { hookwise: { hooks: { allowConversationAccess: true } } },
      script: (req) => {
        switch (req.toolResults().length) {
          case 0:
            return { tool: "write", id: "hwearly", args: { path: "src/early.ts", content: "early\n" } };
          case 1:
            return { tool: "select_active_intent", id: "hwsel", args: { intent_id: "INT-1" } };
          case 2:
            return { tool: "write", id: "hwout", args: { path: "docs/out.md", content: "out of scope\n" } };
          case 3:
            return { tool: "write", id: "hwleak", args: { path: "docs/leak.md", content: "leak\n", filePath: "src/ok.ts" } };
          case 4:
            return { tool: "apply_patch", id: "hwevil", args: { input: patch("  ", "docs/evil.md"), patchText: patch("", "src/ok2.ts") } };
          case 5:
            return { tool: "apply_patch", id: "hwindent", args: { input: `*** Begin Patch\n*** Add File: src/ok3.ts\n+ok\n  *** Add File: docs/evil2.md\n+evil\n*** End Patch` } };
          case 6:
            return { tool: "write", id: "hwin", args: { path: "src/in.ts", content: "export const x = 1;\n" } };
          default:
            return "all done";
        }
      },
    });
    reply = await gw.chat("Do the API work.");
  });
  after(async () => {
    await gw?.stop();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  /** The model request that carries the result of `callId`, and that result's text. */
  const nextAfter = (callId) => requestWithResult(gw.model.mainRequests(), callId, () => gw.describe());

  test("the turn completed; select_active_intent is offered to the model", () => {
    assert.equal(reply.status, 200, reply.body);
    assert.equal(reply.text, "all done", gw.describe());
    const [first] = gw.model.mainRequests();
    assert.ok(first.tools.includes("select_active_intent"), `offered tools: ${first.tools.join(", ")}`);
  });

  test("a write before any intent is selected is blocked; the reason names select_active_intent", () => {
    const { result } = nextAfter("hwearly");
    assert.match(result, /select_active_intent/);
    assert.match(result, /INT-1/);
    assert.ok(!fs.existsSync(path.join(gw.workspace, "src/early.ts")));
  });

  test("select_active_intent answers with the intent's scope; the system prompt then carries <intent_context>", () => {
    const { req, result } = nextAfter("hwsel");
    assert.match(result, /INT-1/);
    assert.match(result, /src\/\*\*/);
    assert.match(req.system, /<intent_context>/, "the request after the selection");
    assert.match(req.system.slice(req.system.indexOf("<intent_context>")), /INT-1/);
  });

  test("an out-of-scope write is blocked: the reason, naming the scope, is in the model's next request", () => {
    const { result } = nextAfter("hwout");
    assert.match(result, /docs\/out\.md/);
    assert.match(result, /src\/\*\*/);
    assert.ok(!fs.existsSync(path.join(gw.workspace, "docs/out.md")));
  });

  test("decoy keys: a second file or patch under another host's key is blocked as ambiguous; nothing is written", () => {
    const leak = nextAfter("hwleak").result;
    assert.match(leak, /two different files, `path` = "docs\/leak\.md" and `filePath`/);
    const evil = nextAfter("hwevil").result;
    assert.match(evil, /two different patch texts, `input`/);
    const indent = nextAfter("hwindent").result;
    assert.match(indent, /docs\/evil2\.md/);
    assert.match(indent, /hookwise blocked/);
    for (const f of ["docs/leak.md", "src/ok.ts", "docs/evil.md", "src/ok2.ts", "docs/evil2.md", "src/ok3.ts"]) {
      assert.ok(!fs.existsSync(path.join(gw.workspace, f)), `${f} was written`);
    }
  });

  test("an in-scope write runs and leaves a valid Agent Trace record", () => {
    const { result } = nextAfter("hwin");
    assert.doesNotMatch(result, /hookwise blocked/);
    assert.equal(fs.readFileSync(path.join(gw.workspace, "src/in.ts"), "utf8"), "export const x = 1;\n");
    const lines = traceText(gw.workspace).trim().split("\n");
    const trace = lines.map((l) => JSON.parse(l));
    assert.equal(trace.length, 1, "one record: blocked calls and select leave none");
    const [rec] = trace;
    assert.deepEqual(rec.files.map((f) => f.path), ["src/in.ts"]);
    assert.deepEqual(rec.files[0].conversations[0].ranges.map((r) => [r.start_line, r.end_line]), [[1, 1]]);
    assert.equal(rec.metadata["dev.hookwise"].intent_id, "INT-1");
    assert.equal(rec.files[0].conversations[0].contributor.model_id, "mock/mock-1", "the run's model (before_prompt_build)");
    assert.deepEqual(validate(rec), [], "valid against the shared Agent Trace v0.1.0 schema");
  });
});

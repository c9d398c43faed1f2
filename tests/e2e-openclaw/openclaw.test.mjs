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

const gate = openclawGate();
if (gate.skip) console.log(`# e2e-openclaw ${gate.skip}`);
if (gate.error) test("OpenClaw install is available (required when CI is set)", () => assert.fail(gate.error));
const suiteSkip = gate.skip || (gate.error ? "OpenClaw install missing" : false);

const FORCE = "git push --force --dry-run /nonexistent/hookwise-e2e.git HEAD; touch forced-ran";
const FORCE_MARKER = "OC-E2E-FORCE-MARKER";
const KWL = "echo '[[jwt]] tokens' && echo OC-OUTPUT-MARKER";
const OPEN = "<!-- Knowledge Graph Context (hookwise) -->";

const FILES = {
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
        if (n > 0 && ws) seenAt[n] = { forcedRan: fs.existsSync(path.join(ws, "forced-ran")) };
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
  function nextAfter(callId) {
    for (const req of gw.model.mainRequests()) {
      const res = req.toolResults().find((t) => t.toolCallId === callId);
      if (res) return { req, result: res.content, call: req.assistantToolCalls().find((c) => c.id === callId) };
    }
    assert.fail(`no request carries the result of ${callId}\n${gw.describe()}`);
  }

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

// Intent governance (#4) through the same hooks: written now, enabled when governance is wired
// into the core calls this adapter makes (hw.toolBefore / hw.toolAfter).
const GOVERNANCE_SKIP = "governance (#4) is not wired into main yet; the lead enables this after merging it";

describe("intent governance in the real OpenClaw gateway", { skip: suiteSkip || GOVERNANCE_SKIP }, () => {
  let gw;
  let packDir;
  before(async () => {
    const plugin = pluginFolder();
    packDir = plugin.packDir;
    gw = await startGateway({
      plugins: [plugin.dir],
      files: {
        ".orchestration/active_intents.yaml": `active_intents:
  - id: INT-1
    name: API work
    status: IN_PROGRESS
    owned_scope: ["src/**"]
`,
      },
      script: (req) => {
        switch (req.toolResults().length) {
          case 0:
            return { tool: "select_active_intent", id: "hwsel", args: { intent_id: "INT-1" } };
          case 1:
            return { tool: "write", id: "hwout", args: { path: "docs/out.md", content: "out of scope\n" } };
          case 2:
            return { tool: "write", id: "hwin", args: { path: "src/in.ts", content: "export const x = 1;\n" } };
          default:
            return "all done";
        }
      },
    });
    await gw.chat("Do the API work.");
  });
  after(async () => {
    await gw?.stop();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  test("an out-of-scope write is blocked, naming the scope", () => {
    const res = gw.model.mainRequests().flatMap((r) => r.toolResults()).find((t) => t.toolCallId === "hwout");
    assert.match(res.content, /src\/\*\*/);
    assert.ok(!fs.existsSync(path.join(gw.workspace, "docs/out.md")));
  });

  test("an in-scope write runs and is recorded in the Agent Trace", () => {
    assert.ok(fs.existsSync(path.join(gw.workspace, "src/in.ts")));
    const trace = fs.readFileSync(path.join(gw.workspace, ".orchestration/agent_trace.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.ok(trace.some((r) => r.files.some((f) => f.path === "src/in.ts")), JSON.stringify(trace));
  });
});

// The engine API (`createEngine` from the installed package's `hookwise/engine`), attacked as a
// hostile host or model would: values a JS host can hold but JSON cannot (functions, BigInt,
// cycles, lone surrogates, null-prototype objects), nesting far past any parser's limit, a DAG
// of 2^25 shared references, paths built to make resolution slow, and an active_intents.yaml
// nesting a flow sequence 50,000 levels deep.
//
// The rule under test (issue 18): the engine API never throws; knowledge context fails open;
// governance and enforcement, when on, fail closed — what they cannot read or decide is
// blocked with a reason, never waved through. Each call runs in a child process (lib/probe.mjs)
// so a call that stalls fails its test instead of the suite; times are printed, not asserted.
//
//   npm run build && node --test --test-concurrency=1 tests/security/engine.test.mjs

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { installPacked, quietEnv, tmp, writeFiles } from "./lib/pkg.mjs";
import { GOVERNED, ENFORCED, INTENTS, deepJson, climbingPath } from "./lib/fixtures.mjs";
import { runProbe, resultOf } from "./lib/probe.mjs";

let pkg;
const templates = {};
const envs = {};

before(() => {
  pkg = installPacked("hookwise-sec-engine-");
  templates.governance = writeFiles(tmp("hookwise-sec-gov-"), GOVERNED);
  templates.enforcement = writeFiles(tmp("hookwise-sec-enf-"), { ...ENFORCED, "README.md": "# demo\n" });
  templates.knowledge = writeFiles(tmp("hookwise-sec-know-"), { "README.md": "# demo\n" });
  const vault = writeFiles(tmp("hookwise-sec-vault-"), {
    "auth.md": "# Auth\n\n[[auth]] uses [[jwt]] tokens, rotated by [[session-tokens]].\n",
    "jwt.md": "# JWT\n\n[[jwt]] signed with Ed25519; see [[auth]].\n",
  });
  envs.governance = quietEnv();
  envs.enforcement = quietEnv();
  envs.knowledge = quietEnv({ HOOKWISE_VAULT: vault });
});
after(() => pkg?.cleanup());

// The honest call each configuration gates, before the hostile part is added. Governance: a
// write outside the selected intent's scope; enforcement: a force push a strict SOP blocks;
// knowledge: a command mentioning a vault concept.
const BASE = {
  governance: { select: "INT-1", tool: "write", params: { filePath: "docs/leak.md", content: "leak\n" } },
  enforcement: { tool: "bash", params: { command: "git push --force origin main", description: "push" } },
  knowledge: { tool: "bash", params: { command: "echo [[auth]] notes", description: "look" } },
};

const HOSTILE = {
  surrogate: "a lone surrogate (\\ud800) in a string value",
  surrogateKey: "a lone surrogate (\\udc00) in a key",
  deep200: "a 200-deep array",
  deep100k: "a 100,000-deep array",
  function: "a function",
  nullProtoTool: "a null-prototype object as the tool name",
  nullProtoParams: "null-prototype params",
  cyclic: "cyclic params",
  bigint: "a BigInt",
};
const METHODS = ["executePreHook", "augmentToolCall"];

function caseFor(config, hostile, method) {
  return { name: `${config}/${method}/${hostile}`, template: templates[config], env: envs[config], method, hostile, ...BASE[config] };
}

/** Assert the engine's answer for a config that must fail closed (gov/enf) or open (knowledge). */
function judge(t, run, name, config, what, timeoutMs) {
  const { r, why } = resultOf(run, name, timeoutMs);
  if (!r) assert.fail(why);
  if (r.setupError) assert.fail(`${name}: the test could not set up the engine (harness problem?):\n${r.setupError}`);
  t.diagnostic(`${name}: ${r.returned ? `returned in ${r.ms} ms` : `threw after ${r.ms} ms`}${r.selectMs !== undefined ? ` (selectIntent ${r.selectMs} ms)` : ""}`);
  assert.equal(r.threw, null, `${name}: the engine API threw on ${what} — it must never throw:\n  ${r.threw}`);
  if (config === "knowledge") {
    assert.equal(r.blocked, false, `${name}: with only knowledge context on, ${what} must proceed (knowledge fails open); got blocked: ${r.reason}`);
  } else {
    assert.equal(
      r.blocked,
      true,
      `${name}: ${config} is on and ${what} was waved through (blocked: ${r.blocked}) — what the core cannot read must be blocked with a reason.\n  logs: ${JSON.stringify(r.logs.filter((l) => l.level !== "debug")).slice(0, 1500)}`,
    );
    assert.ok(typeof r.reason === "string" && r.reason.trim().length > 0, `${name}: blocked without a reason the model can read`);
  }
}

for (const config of ["governance", "enforcement", "knowledge"]) {
  const on = config === "knowledge" ? "knowledge context only (fails open)" : `${config} on (fails closed)`;
  describe(`engine API, ${on}: hostile host values never throw${config === "knowledge" ? " and proceed" : ", and are blocked"}`, () => {
    let run;
    const TIMEOUT = 180_000;
    before(async () => {
      const cases = [];
      for (const method of METHODS) for (const h of Object.keys(HOSTILE)) cases.push(caseFor(config, h, method));
      // the honest calls: governance and enforcement block them for what they are; knowledge proceeds
      for (const method of METHODS) cases.push({ ...caseFor(config, "none", method), name: `${config}/${method}/honest` });
      run = await runProbe(pkg, cases, { timeoutMs: TIMEOUT });
    });

    test(`control: the honest call is ${config === "knowledge" ? "proceeding" : "blocked"} (the harness reaches the gate)`, (t) => {
      for (const method of METHODS) {
        judge(t, run, `${config}/${method}/honest`, config, "the honest call", TIMEOUT);
        if (config === "knowledge") assert.equal(run.results.get(`${config}/${method}/honest`).context, true, "the vault's context came with the honest call");
      }
    });

    for (const method of METHODS) {
      for (const [h, what] of Object.entries(HOSTILE)) {
        test(`${method}: ${what}`, (t) => judge(t, run, `${config}/${method}/${h}`, config, what, TIMEOUT));
      }
    }

    test("executePreHook: 2^25 shared references (a DAG of 25 levels)", async (t) => {
      const name = `${config}/executePreHook/dag25`;
      const timeoutMs = 60_000;
      const dagRun = await runProbe(pkg, [caseFor(config, "dag25", "executePreHook")], { timeoutMs });
      judge(t, dagRun, name, config, "2^25 shared references", timeoutMs);
    });
  });
}

describe("engine API, governance on: the other entry points never throw on hostile values either", () => {
  let run;
  const TIMEOUT = 120_000;
  const POST = ["surrogate", "deep100k", "function", "nullProtoTool", "nullProtoParams", "cyclic", "bigint"];
  const IDS = ["surrogate", "nullProto", "bigint", "function", "cyclic", "deep100k", "session"];
  before(async () => {
    const cases = [
      ...POST.map((h) => ({ ...caseFor("governance", h, "executePostHook"), params: { filePath: "src/billing/ok.ts", content: "export const ok = 1;\n" } })),
      ...IDS.map((h) => ({ ...caseFor("governance", h, "selectIntent"), select: undefined })),
    ];
    run = await runProbe(pkg, cases, { timeoutMs: TIMEOUT });
  });
  for (const h of POST) {
    test(`executePostHook with ${HOSTILE[h]} (after an honest in-scope call) returns`, (t) => {
      const name = `governance/executePostHook/${h}`;
      const { r, why } = resultOf(run, name, TIMEOUT);
      if (!r) assert.fail(why);
      if (r.setupError) assert.fail(`${name}: set-up failed (harness problem?):\n${r.setupError}`);
      assert.equal(r.honestBlocked, false, "control: the honest call was allowed");
      t.diagnostic(`${name}: ${r.returned ? "returned" : "threw"} in ${r.ms} ms (recorded: ${r.recorded})`);
      assert.equal(r.threw, null, `${name}: executePostHook threw on ${HOSTILE[h]} — the engine API must never throw:\n  ${r.threw}`);
    });
  }
  for (const h of IDS) {
    const what = h === "session" ? "a null-prototype session id" : `a hostile intent id (${h})`;
    test(`selectIntent with ${what} returns, selecting nothing`, (t) => {
      const name = `governance/selectIntent/${h}`;
      const { r, why } = resultOf(run, name, TIMEOUT);
      if (!r) assert.fail(why);
      if (r.setupError) assert.fail(`${name}: set-up failed (harness problem?):\n${r.setupError}`);
      t.diagnostic(`${name}: ${r.returned ? "returned" : "threw"} in ${r.ms} ms`);
      assert.equal(r.threw, null, `${name}: selectIntent threw on ${what} — the engine API must never throw:\n  ${r.threw}`);
      if (h !== "session") assert.notEqual(r.ok, true, `${name}: ${what} selected an intent`);
    });
  }
});

describe("engine API, governance on: path checks stay linear (issue 18, item 3)", () => {
  // 800 components then 802 `..` (about 4 KB): it climbs above the worktree; and the same
  // shape at 64 KB (13,100 components). Both must be blocked, and return.
  for (const [hostile, label, bytes] of [
    ["path4k", "a 4 KB path: 800 components then 802 `..`", climbingPath(800).length],
    ["path64k", "a 64 KB path: 13,100 components then 13,102 `..`", climbingPath(13_100).length],
  ]) {
    test(`${label} is blocked and the gate returns (${bytes} bytes)`, async (t) => {
      const timeoutMs = 60_000;
      const run = await runProbe(pkg, [{ ...caseFor("governance", hostile, "executePreHook"), describe: true }], { timeoutMs });
      judge(t, run, `governance/executePreHook/${hostile}`, "governance", label, timeoutMs);
    });
  }
  test("the paths are the sizes the issue names", () => {
    assert.ok(Math.abs(climbingPath(800).length - 4_000) < 500, String(climbingPath(800).length));
    assert.ok(Math.abs(climbingPath(13_100).length - 65_536) < 200, String(climbingPath(13_100).length));
  });
});

describe("engine API, governance on: a deeply nested active_intents.yaml (issue 18, item 8)", () => {
  // The hostile file: the honest intents with a flow sequence nested 50,000 (100 KB) or
  // 100,000 (200 KB) levels deep under INT-1. selectIntent must return (its time is printed)
  // and governance must stay closed: an in-scope write is blocked with a reason.
  for (const [kb, depth] of [
    [100, 50_000],
    [200, 100_000],
  ]) {
    test(`${kb} KB of nested flow sequence: selectIntent returns, and writes stay blocked with a reason`, async (t) => {
      const yaml = INTENTS.replace("    constraints: [No new dependencies]\n", `    constraints: [No new dependencies]\n    notes: ${deepJson(depth)}\n`);
      assert.ok(yaml.length >= kb * 1000, `the file is ${yaml.length} bytes`);
      const template = writeFiles(tmp("hookwise-sec-yaml-"), { ...GOVERNED, ".orchestration/active_intents.yaml": yaml });
      const timeoutMs = 120_000;
      const name = `governance/yaml${kb}k`;
      const run = await runProbe(
        pkg,
        [{ name, template, env: envs.governance, select: "INT-1", method: "executePreHook", hostile: "none", tool: "write", params: { filePath: "src/billing/ok.ts", content: "export const ok = 1;\n" } }],
        { timeoutMs },
      );
      const { r, why } = resultOf(run, name, timeoutMs);
      if (!r) assert.fail(`${why} (createEngine + selectIntent + one gated write on a ${kb} KB hostile active_intents.yaml)`);
      t.diagnostic(`createEngine ${r.initMs} ms; selectIntent ${r.selectMs} ms (ok: ${r.select?.ok}); the write's gate ${r.ms} ms`);
      if (r.setupError) assert.fail(`${name}: createEngine or selectIntent threw — it must answer:\n${r.setupError}`);
      assert.equal(r.threw, null, `${name}: executePreHook threw: ${r.threw}`);
      assert.equal(r.blocked, true, `${name}: a write went through under a hostile active_intents.yaml (selectIntent said: ${r.select?.text})`);
      assert.ok(r.reason && r.reason.trim(), "blocked with a reason");
    });
  }
  test("control: the honest yaml lets the in-scope write through (the harness is not what blocks)", async (t) => {
    const name = "governance/yaml-honest";
    const run = await runProbe(pkg, [{ name, template: templates.governance, env: envs.governance, select: "INT-1", method: "executePreHook", hostile: "none", tool: "write", params: { filePath: "src/billing/ok.ts", content: "export const ok = 1;\n" } }]);
    const { r, why } = resultOf(run, name, 120_000);
    if (!r) assert.fail(why);
    t.diagnostic(`selectIntent ${r.selectMs} ms; gate ${r.ms} ms`);
    assert.equal(r.select?.ok, true, r.select?.text);
    assert.equal(r.blocked, false, r.reason ?? "");
  });
});

test("the probe's projects are copies: the templates are untouched", () => {
  assert.equal(fs.readFileSync(path.join(templates.governance, ".orchestration/active_intents.yaml"), "utf8"), INTENTS);
});

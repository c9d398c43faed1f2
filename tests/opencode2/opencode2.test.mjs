// hookwise in OpenCode 2.x, through a host double (lib/host.mjs) that does what OpenCode 2's
// loader, promise adapter, hook dispatch and built-in tools do — each part of it names the file
// and commit of anomalyco/opencode it follows. No 2.x build installs here (the npm registry
// holds opencode-ai up to 1.18.33 and no @opencode/* package), so this is the 2.x test.
//
// The package is built (`npm run build` → pkg/), packed and installed offline into a project of
// its own, and the double loads it by name from there, as 2.x loads `plugins: [{package,
// options}]`. Each case runs in its own process (lib/run.mjs) with its own environment:
//   - it loads through module.ts's decode (`{id, setup}`) and offers no tool when governance is off;
//   - `shell` with `[[concept]]`: the command runs unchanged and the model reads the context
//     in the call's result; session-start context in every request's system prompt (not in a
//     sub-agent's); compaction keeps the concepts (the fake maenifold, warm MCP session);
//   - intent governance: a write before an intent and one outside the scope are blocked (the
//     model reads why, nothing is written); `select_active_intent` (registered through
//     `ctx.tool.transform`, raw JSON Schema) then a write inside the scope runs and leaves an
//     Agent Trace record valid against the shared schema;
//   - a strict SOP blocks the first `shell` call with its text and lets the retry through;
//   - after the plugin unloads (its cleanup), the process has no child left and ends by itself.
//
//   node --test tests/opencode2/        (needs pkg/: run `npm run build` first)

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { packHookwise, PKG_DIR, repoRoot } from "../e2e/lib/pack.mjs";
import { validate } from "../js/agent-trace-schema.mjs";
import { decodeDefinition, resolveEntry, decodePlugins, LOAD_ERROR, LoadError } from "./lib/host.mjs";
import { INTENTS_ONE } from "../e2e-shared/fixtures.mjs";
import { pathWithoutMaenifold } from "../e2e-shared/env.mjs";
import { installNative } from "../e2e-shared/native.mjs";

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const FAKE_DIR = path.join(repoRoot, "tests/fake-maenifold");
const FIXTURE_ROOT = path.join(FAKE_DIR, "fixtures/root");
// OpenCode 2 runs its server (and so its plugins) under Bun
const BUN = path.join(repoRoot, "node_modules/.bin/bun");

const childEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== "NODE_TEST_CONTEXT" && k !== "NODE_OPTIONS"));

let base; // temp folder
let installDir; // where the packed package is installed (OpenCode 2's plugin install folder)

function project(name, files) {
  const dir = path.join(base, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  return dir;
}

/** Run `scenario` in its own process against `directory`, hookwise configured with `options`. */
async function scenario(name, { directory, options, env = {}, extra = {}, runtime = process.execPath }) {
  const home = fs.mkdtempSync(path.join(base, "home-"));
  const spec = { scenario: name, projectDir: installDir, directory, config: { plugins: [{ package: "hookwise", ...(options ? { options } : {}) }] }, ...extra };
  const { stdout, stderr } = await run(runtime, [path.join(here, "lib/run.mjs"), JSON.stringify(spec)], {
    cwd: directory,
    env: { ...childEnv, HOME: home, PATH: pathWithoutMaenifold(), MAENIFOLD_ROOT: path.join(home, "none"), TZ: "UTC", ...env },
    encoding: "utf8",
    maxBuffer: 32 << 20,
    timeout: 120_000,
  });
  const out = JSON.parse(stdout);
  if (out.error) assert.fail(`${name}: ${out.error}\n${stderr}`);
  assert.deepEqual(out.loadErrors, [], `${name}: the plugin loads`);
  assert.deepEqual(out.plugins, ["hookwise"]);
  assert.deepEqual(out.skipped, [], `${name}: every tool registration is valid`);
  assert.deepEqual(out.afterStop, [], `${name}: no process left after the plugin unloaded`);
  out.stderr = stderr;
  return out;
}

before(async () => {
  assert.ok(fs.existsSync(path.join(PKG_DIR, "package.json")), `no built package at ${PKG_DIR}: run \`npm run build\` first`);
  const pack = packHookwise("hookwise-oc2-");
  base = pack.packDir;
  const tarball = path.join(base, pack.packed[0].filename);
  installDir = path.join(base, "plugins");
  fs.mkdirSync(installDir);
  fs.writeFileSync(path.join(installDir, "package.json"), JSON.stringify({ name: "opencode2-plugins", private: true, version: "1.0.0" }));
  await run("npm", ["install", "--ignore-scripts", "--offline", "--no-audit", "--no-fund", "--cache", path.join(base, "npm-cache"), tarball], {
    cwd: installDir,
    env: { ...childEnv, npm_config_update_notifier: "false" },
    timeout: 120_000,
  });
  // the confined shell's launcher where an install puts it: an enforcement-only project's shell
  // runs confined too (issue 38)
  installNative(path.join(installDir, "node_modules"));
});

after(() => {
  if (base && !process.env.HOOKWISE_KEEP_TMP) fs.rmSync(base, { recursive: true, force: true });
});

describe("loading (module.ts)", () => {
  test("the packed entry decodes as a setup plugin through the `server` subpath; 1.x shapes do not", async () => {
    const entry = resolveEntry(installDir, "hookwise");
    assert.match(entry, /\/node_modules\/hookwise\/dist\/index\.mjs$/);
    const mod = await import(entry);
    assert.deepEqual(Object.keys(mod), ["default"]);
    const d = decodeDefinition(mod);
    assert.equal(d.kind, "setup");
    assert.equal(d.plugin.id, "hookwise");
    assert.equal(typeof d.plugin.server, "function", "and 1.x still finds `server`");
    // what 2.x refuses: a 1.x function default, `{id, server}` alone, no default
    for (const bad of [{ default: async () => ({}) }, { default: { id: "hookwise", server: async () => ({}) } }, { server: async () => ({}) }]) {
      assert.throws(() => decodeDefinition(bad), (e) => e instanceof LoadError && e.message === LOAD_ERROR);
    }
    assert.deepEqual(decodePlugins({ plugins: ["a", { package: "hookwise", options: { x: 1 } }] }), [
      { type: "add", target: "a" },
      { type: "add", target: "hookwise", options: { x: 1 } },
    ]);
  });

  test("a plain project: hookwise loads, offers no tool and leaves the system prompt alone", async () => {
    const dir = project("plain", { "README.md": "# plain\n" });
    const out = await scenario("load", { directory: dir });
    assert.ok(!out.tools.includes("select_active_intent"), out.tools.join(", "));
    assert.deepEqual(out.system, ["You are OpenCode, the best coding agent on the planet."]);
    assert.deepEqual(fs.readdirSync(dir), ["README.md"], "nothing created in the project");
  });
});

describe("released 2.0.x builds: a setup context without tool hooks", () => {
  // Public reports of 2.0.x give plugins only agent/aisdk/catalog/command/integration/reference/
  // skill (lib/host.mjs setupOnlyContext): nothing of hookwise's can run there. It registers
  // nothing, starts no core, and where governance or enforcement is configured it says, as an
  // error in the host's log (stderr: that context has no app log), that no call is checked.
  test("a governed project: loads, registers nothing, and says loudly that no tool call is checked", async () => {
    const dir = project("setup-only-governed", { ".orchestration/active_intents.yaml": INTENTS_ONE });
    const out = await scenario("load", { directory: dir, extra: { contextShape: "2.0.x" } });
    assert.ok(!out.tools.includes("select_active_intent"), out.tools.join(", "));
    assert.deepEqual(out.system, ["You are OpenCode, the best coding agent on the planet."]);
    assert.deepEqual(out.beforeStop, [], "no process started");
    const alarms = out.stderr.split("\n").filter((l) => /hookwise is NOT checking any tool call/.test(l));
    assert.equal(alarms.length, 1, out.stderr);
    assert.match(alarms[0], /offers: agent, aisdk, catalog, command, integration, reference, skill\)/);
    assert.match(alarms[0], /\.orchestration\/active_intents\.yaml configures intent governance or pre-action enforcement/);
    assert.deepEqual(fs.readdirSync(dir), [".orchestration"], "nothing created in the project");
    assert.deepEqual(fs.readdirSync(path.join(dir, ".orchestration")), ["active_intents.yaml"], "no trace, no state");
  });

  test("a project without governance or enforcement: no alarm (a warning under HOOKWISE_DEBUG)", async () => {
    const dir = project("setup-only-plain", { "README.md": "# plain\n" });
    const quiet = await scenario("load", { directory: dir, extra: { contextShape: "2.0.x" } });
    assert.doesNotMatch(quiet.stderr, /hookwise/, quiet.stderr);
    const debug = await scenario("load", { directory: dir, extra: { contextShape: "2.0.x" }, env: { HOOKWISE_DEBUG: "1" } });
    assert.match(debug.stderr, /hookwise warn: hookwise is off: this host's plugin context offers no tool hooks/, debug.stderr);
    assert.deepEqual(fs.readdirSync(dir), ["README.md"]);
  });
});

describe("knowledge context (fake maenifold, warm MCP session)", () => {
  let out;
  before(async () => {
    const root = path.join(base, "k-root");
    fs.cpSync(FIXTURE_ROOT, root, { recursive: true });
    const dir = project("knowledge", { "README.md": "# ledgerline\n" });
    out = await scenario("knowledge", {
      directory: dir,
      options: { sessionStartTimeoutMs: 30_000 },
      env: { PATH: `${FAKE_DIR}:${pathWithoutMaenifold()}`, MAENIFOLD_ROOT: root, FAKE_MAENIFOLD_NOW: "2026-11-21T20:00:00Z" },
    });
  });

  test("`shell` with [[auth]] runs unchanged and its result carries the concept's context", () => {
    assert.equal(out.shell.status, "completed", JSON.stringify(out.shell));
    assert.ok(out.shell.text.startsWith("[[auth]] checked\n"), `the command ran as written:\n${out.shell.text}`);
    assert.match(out.shell.text, /auth/);
    assert.ok(out.shell.text.length > "[[auth]] checked\n".length + 20, `context follows the output:\n${out.shell.text}`);
    assert.match(out.shell.text, /session-tokens|jwt|rate-limiting/i, "the related concepts of the fixture");
    assert.equal(out.plain.text, "plain\n", "a call without a WikiLink is untouched");
  });

  test("session-start context is in every request of a top-level session, not in a sub-agent's", () => {
    const ctx = (texts) => texts.filter((t) => /Knowledge Graph Context/.test(t));
    assert.equal(ctx(out.first).length, 1, out.first.join("\n---\n"));
    assert.equal(ctx(out.second).length, 1, "again in the next request (the system prompt is rebuilt), once");
    assert.equal(ctx(out.child).length, 0, out.child.join("\n---\n"));
  });

  test("compaction: the preservation block goes into the compaction request", () => {
    const kept = out.compaction.filter((t) => /Knowledge Graph Preservation/.test(t));
    assert.equal(kept.length, 1, out.compaction.join("\n---\n"));
    assert.match(kept[0], /auth/);
  });

  test("the warm maenifold session ran and the cleanup ended it", () => {
    assert.ok(out.beforeStop.some((a) => /maenifold/.test(a) && /--mcp/.test(a)), out.beforeStop.join("\n"));
    assert.deepEqual(out.afterStop, []);
  });
});

describe("options arrive as ctx.options", () => {
  test("sessionContextChannel \"prompt\": 2.x has no noReply turn, so the text still reaches the system prompt, once per request", async () => {
    const root = path.join(base, "p-root");
    fs.cpSync(FIXTURE_ROOT, root, { recursive: true });
    const out = await scenario("knowledge", {
      directory: project("prompt-channel", { "README.md": "# ledgerline\n" }),
      options: { sessionStartTimeoutMs: 30_000, sessionContextChannel: "prompt" },
      env: { PATH: `${FAKE_DIR}:${pathWithoutMaenifold()}`, MAENIFOLD_ROOT: root, FAKE_MAENIFOLD_NOW: "2026-11-21T20:00:00Z" },
    });
    const ctx = (texts) => texts.filter((t) => /Knowledge Graph Context/.test(t)).length;
    assert.equal(ctx(out.first), 1, out.first.join("\n---\n"));
    assert.equal(ctx(out.second), 1);
    assert.equal(ctx(out.child), 0);
  });
});

describe("intent governance", () => {
  let out, dir;
  before(async () => {
    dir = project("governed", {
      ".orchestration/active_intents.yaml": INTENTS_ONE,
      "src/auth/.keep": "",
      "README.md": "# demo\n",
    });
    out = await scenario("governance", { directory: dir });
  });

  test("select_active_intent is offered with the core's raw JSON Schema", () => {
    assert.ok(out.tools.includes("select_active_intent"), out.tools.join(", "));
    const s = out.selectSchema;
    assert.equal(s.type, "object");
    assert.equal(s.properties.intent_id.type, "string");
    assert.deepEqual(s.required, ["intent_id"]);
    assert.ok(!("~standard" in s) && !("_zod" in s), "a plain JSON Schema, no schema-library instance");
  });

  test("a write before an intent is blocked; the model reads why; nothing is written", () => {
    assert.equal(out.early.status, "error");
    assert.equal(out.early.ran, false, "rejected before the tool ran");
    assert.match(out.early.text, /select_active_intent/);
    assert.equal(out.earlyWritten, false);
  });

  test("after select_active_intent a write inside the scope runs and is recorded", () => {
    assert.equal(out.selected.status, "completed", JSON.stringify(out.selected));
    assert.match(out.selected.text, /INT-1/);
    assert.ok(out.system.some((t) => t.includes("<intent_context>")), out.system.join("\n---\n"));
    assert.equal(out.inside.status, "completed", JSON.stringify(out.inside));
    assert.equal(out.insideWritten, true);
    const rec = out.trace.find((r) => JSON.stringify(r).includes("src/auth/login.ts"));
    assert.ok(rec, `a trace record for the write:\n${JSON.stringify(out.trace, null, 2)}`);
    assert.deepEqual(validate(rec), [], "valid against the shared Agent Trace schema");
  });

  test("outside the scope, and a decoy file key, are blocked; nothing is written", () => {
    for (const r of [out.outside, out.decoy, out.edit]) {
      assert.equal(r.status, "error", JSON.stringify(r));
      assert.equal(r.ran, false);
    }
    assert.match(out.outside.text, /docs\/leak\.md/);
    assert.equal(out.outsideWritten, false);
    assert.equal(out.readme, "# demo\n");
    assert.ok(!fs.existsSync(path.join(dir, "docs")));
  });

  test("an unknown intent: the model reads the core's words (returned, not thrown)", () => {
    assert.equal(out.unknownIntent.status, "completed");
    assert.match(out.unknownIntent.text, /INT-404/);
  });
});

describe("the model as an attacker (governance on, INT-1 selected)", () => {
  test("inputs of the wrong shape, a decoy key, `..`, deep nesting: blocked, nothing written", async () => {
    const dir = project("hostile", {
      ".orchestration/active_intents.yaml": "active_intents:\n  - id: INT-1\n    name: A\n    status: IN_PROGRESS\n    owned_scope: [src/auth/**]\n",
      "src/auth/.keep": "",
    });
    const out = await scenario("hostile", { directory: dir });
    for (const [name, r] of Object.entries(out.calls)) {
      assert.equal(r.status, "error", `${name}: ${JSON.stringify(r)}`);
      // `null`, and a shell call without `command`, name nothing to change: the gate lets them
      // reach the tool (an intent is selected), whose input decode rejects them
      if (name === "nullInput") assert.match(r.text, /Invalid tool input/, name);
      // a governed shell runs only confined (issue 38): without the native binary in this
      // install, hookwise refuses it before the tool's decode does; either way nothing ran
      else if (name === "shellNoCommand") assert.ok(/Invalid tool input|hookwise blocked `shell`/.test(r.text) && !r.ran, `${name}: ${r.text}`);
      else assert.equal(r.ran, false, `${name} was rejected before the tool ran`);
    }
    assert.equal(out.leaked, false);
    assert.ok(out.oddSystem >= 1);
  });
});

describe("pre-action enforcement", () => {
  const MARKER = "OC2-FORCE-MARKER";
  const FORCE = "git push --force --dry-run /nonexistent/hookwise-oc2.git HEAD";
  let out;
  before(async () => {
    const dir = project("enforced", {
      ".opencode/sops/force-push.md": `---
id: force-push
category: process
match:
  tools: [shell]
  patterns: ['git\\s+push\\s.*--force']
---
# Force-pushing

## Preflight
1. Announce it in the team channel (${MARKER}).
`,
    });
    out = await scenario("enforcement", { directory: dir, extra: { command: FORCE } });
  });

  test("a strict SOP blocks the first call with its text, then lets the retry through", () => {
    assert.equal(out.first.status, "error", JSON.stringify(out.first));
    assert.equal(out.first.ran, false);
    assert.ok(out.first.text.includes(MARKER), out.first.text);
    assert.equal(out.retry.status, "completed", JSON.stringify(out.retry));
    assert.equal(out.retry.ran, true);
    assert.ok(!out.retry.text.includes(MARKER));
    assert.equal(out.readOnly.status, "completed");
  });
});

describe("under Bun (OpenCode 2's runtime)", { skip: !fs.existsSync(BUN) && "no bun in node_modules" }, () => {
  test("the knowledge and governance cases hold under Bun too", async () => {
    const root = path.join(base, "bun-root");
    fs.cpSync(FIXTURE_ROOT, root, { recursive: true });
    const k = await scenario("knowledge", {
      runtime: BUN,
      directory: project("bun-knowledge", { "README.md": "# ledgerline\n" }),
      options: { sessionStartTimeoutMs: 30_000 },
      env: { PATH: `${FAKE_DIR}:${path.dirname(process.execPath)}:${pathWithoutMaenifold()}`, MAENIFOLD_ROOT: root, FAKE_MAENIFOLD_NOW: "2026-11-21T20:00:00Z" },
    });
    assert.match(k.shell.text, /^\[\[auth\]\] checked\n[\s\S]*session-tokens/);
    assert.ok(k.first.some((t) => /Knowledge Graph Context/.test(t)));
    assert.ok(k.compaction.some((t) => /Knowledge Graph Preservation/.test(t)));
    const dir = project("bun-governed", { ".orchestration/active_intents.yaml": "active_intents:\n  - id: INT-1\n    name: A\n    status: IN_PROGRESS\n    owned_scope: [src/auth/**]\n", "README.md": "# demo\n" });
    const g = await scenario("governance", { runtime: BUN, directory: dir });
    assert.equal(g.early.status, "error");
    assert.equal(g.inside.status, "completed", JSON.stringify(g.inside));
    assert.equal(g.outside.status, "error");
    assert.deepEqual(validate(g.trace.find((r) => JSON.stringify(r).includes("src/auth/login.ts"))), []);
  });
});

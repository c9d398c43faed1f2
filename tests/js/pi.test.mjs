// The pi extension (js/pi.cjs) against a recording pi: the events and tools it registers, what
// each handler answers as pi 0.73.1 reads it (docs/pi.md), and that no handler throws whatever
// the model or pi hands it. A damaged install blocks through the same handlers. `hookwise init
// --pi` and doctor's line: js/pi-init.cjs. The real pi: tests/e2e-pi/.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, tmpdir, writeFiles, intentsYaml, noCliEnv } from "./helpers.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const require = createRequire(import.meta.url);
const T = { timeout: 60_000 };

/** A pi as extensions see it: `on`, `registerTool`; `ctx(sessionId)` an extension context. */
function fakePi() {
  const handlers = new Map();
  const tools = new Map();
  return {
    handlers,
    tools,
    on: (ev, f) => handlers.set(ev, f),
    registerTool: (t) => tools.set(t.name, t),
    getThinkingLevel: () => "off",
    emit: (ev, event, ctx) => handlers.get(ev)(event, ctx),
  };
}
const ctxOf = (sessionId = "s1", extra = {}) => ({
  hasUI: false,
  sessionManager: { getSessionId: () => sessionId },
  model: { provider: "mock", id: "mock-1" },
  ...extra,
});

async function start(files, { distDir = dist, deps = {} } = {}) {
  const dir = writeFiles(tmpdir("hookwise-pi-"), files);
  const pi = fakePi();
  const errors = [];
  const { extension } = require(path.join(distDir, "pi.cjs"));
  // no maenifold to find (the project's vault, or none); git stays on PATH for the records
  const saved = { HOME: process.env.HOME, MAENIFOLD_ROOT: process.env.MAENIFOLD_ROOT };
  const { HOME, MAENIFOLD_ROOT } = noCliEnv();
  Object.assign(process.env, { HOME, MAENIFOLD_ROOT });
  let hw;
  try {
    hw = await extension(pi, { cwd: dir, stderr: { write: (t) => errors.push(t) }, ...deps });
  } finally {
    for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v);
  }
  return { dir, pi, hw, errors };
}

const GOVERNED = { ".orchestration/active_intents.yaml": intentsYaml(["INT-1", "Billing", ["src/billing/**"]]), "README.md": "# demo\n" };

test("governance: the events pi fires, select_active_intent as a pi tool, blocks as {block, reason}", T, async () => {
  const { pi, hw, dir } = await start(GOVERNED);
  try {
    assert.deepEqual([...pi.handlers.keys()].sort(), ["before_agent_start", "session_before_compact", "session_shutdown", "tool_call", "tool_result"]);
    const sel = pi.tools.get("select_active_intent");
    assert.ok(sel, [...pi.tools.keys()].join(","));
    // a plain JSON Schema without bounds: input past one gets the core's answer
    assert.equal(JSON.stringify(sel.parameters).includes("maxLength"), false, JSON.stringify(sel.parameters));
    const ctx = ctxOf();
    // before an intent: blocked, the reason names the way out; read-only tools run
    const w = await pi.emit("tool_call", { toolName: "write", toolCallId: "c1", input: { path: "src/billing/a.ts", content: "x" } }, ctx);
    assert.equal(w.block, true);
    assert.match(w.reason, /select_active_intent/);
    for (const t of ["read", "grep", "find", "ls"]) assert.equal(await pi.emit("tool_call", { toolName: t, toolCallId: `r-${t}`, input: { path: "README.md", pattern: "x" } }, ctx), undefined, t);
    // a tool another extension registered, and a look-alike of a known one: gated
    for (const t of ["my_ext_tool", "Write", "write ", "wrіte"]) assert.equal((await pi.emit("tool_call", { toolName: t, toolCallId: `x-${t}`, input: {} }, ctx)).block, true, t);
    // the session's intent context and the model, in the system prompt
    const bas = await pi.emit("before_agent_start", { prompt: "go", systemPrompt: "PI-SYSTEM" }, ctx);
    assert.ok(bas.systemPrompt.startsWith("PI-SYSTEM\n\n") && bas.systemPrompt.includes("INT-1"), bas.systemPrompt);
    await assert.rejects(sel.execute("t1", { intent_id: "NOPE" }, undefined, undefined, ctx), /NOPE/);
    const ok = await sel.execute("t2", { intent_id: "INT-1" }, undefined, undefined, ctx);
    assert.match(ok.content[0].text, /src\/billing\/\*\*/);
    // inside the scope: runs; pi's own arguments are never changed
    const input = { path: "src/billing/a.ts", content: "x\n" };
    assert.equal(await pi.emit("tool_call", { toolName: "write", toolCallId: "c2", input }, ctx), undefined);
    assert.deepEqual(input, { path: "src/billing/a.ts", content: "x\n" });
    fs.mkdirSync(path.join(dir, "src/billing"), { recursive: true });
    fs.writeFileSync(path.join(dir, "src/billing/a.ts"), "x\n");
    await pi.emit("tool_result", { toolName: "write", toolCallId: "c2", input, content: [{ type: "text", text: "Wrote" }], isError: false }, ctx);
    const rec = JSON.parse(traceText(dir).trim());
    assert.equal(rec.metadata["dev.hookwise"].host, "pi");
    assert.equal(rec.files[0].conversations[0].contributor.model_id, "mock/mock-1");
    // outside; a path pi would rewrite; another host's key beside pi's
    for (const input of [{ path: "README.md", content: "x" }, { path: "@src/billing/b.ts", content: "x" }, { path: "src/billing/b.ts", filePath: "README.md", content: "x" }]) {
      assert.equal((await pi.emit("tool_call", { toolName: "write", toolCallId: "c3", input }, ctx)).block, true, JSON.stringify(input));
    }
  } finally {
    await pi.emit("session_shutdown", { reason: "quit" }, ctxOf());
    await hw.dispose();
  }
});

test("hostile events: no handler throws; what governance cannot read is blocked", T, async () => {
  const { pi, hw } = await start(GOVERNED);
  try {
    const cyclic = { path: "src/billing/a.ts" };
    cyclic.self = cyclic;
    const deep = {};
    let d = deep;
    for (let i = 0; i < 5000; i++) d = d.x = {};
    const events = [undefined, null, {}, { toolName: 7 }, { toolName: "write", input: cyclic }, { toolName: "write", input: { f: () => 1 } }, { toolName: "write", input: deep }, { toolName: "bash", input: "rm -rf /" }];
    let i = 0;
    const bad = [undefined, null, {}, { sessionManager: { getSessionId: () => { throw new Error("stale ctx"); } } }, { get sessionManager() { throw new Error("stale"); } }];
    for (const e of events) {
      i++;
      for (const c of bad) {
        const r = await pi.emit("tool_call", e, c);
        if (e && e.input !== undefined && e.toolName === "write") assert.equal(r && r.block, true, `event ${i}`);
        await pi.emit("tool_result", e, c);
        await pi.emit("before_agent_start", e, c);
        await pi.emit("session_before_compact", e, c);
      }
    }
  } finally {
    await hw.dispose();
  }
});

test("knowledge: context goes with the result, the arguments stay; compaction hands the block to pi's summarizer once", T, async () => {
  const vault = { ".hookwise/knowledge/jwt.md": "# JWT\n\nWe sign sessions with a JSON Web Token (PI-NOTE-PASSAGE).\n", ".hookwise/hookwise.json": JSON.stringify({ knowledge: "vault", vault: ".hookwise/knowledge" }) };
  const calls = [];
  const piModule = async () => ({
    async compact(preparation, model, apiKey, headers, custom, signal, level) {
      calls.push({ preparation, model, apiKey, custom, level });
      await new Promise((r) => setTimeout(r, 20));
      return { summary: "SUMMARY", firstKeptEntryId: preparation.firstKeptEntryId, tokensBefore: preparation.tokensBefore, details: {} };
    },
  });
  const { pi, hw } = await start(vault, { deps: { piModule } });
  try {
    assert.ok(pi.tools.has("knowledge_search"), [...pi.tools.keys()].join(","));
    const ctx = ctxOf("s2", { modelRegistry: { getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "k", headers: {} }) } });
    const input = { command: "echo [[jwt]]" };
    assert.equal(await pi.emit("tool_call", { toolName: "bash", toolCallId: "k1", input }, ctx), undefined);
    assert.deepEqual(input, { command: "echo [[jwt]]" }, "the command runs as the model wrote it");
    const r = await pi.emit("tool_result", { toolName: "bash", toolCallId: "k1", input, content: [{ type: "text", text: "[[jwt]]\n" }], isError: false }, ctx);
    assert.equal(r.content[0].text, "[[jwt]]\n");
    assert.match(r.content[1].text, /PI-NOTE-PASSAGE/);
    // pi compacts one state twice at once (the end of a prompt, the next one's check): one summary
    const entries = [
      { type: "message", message: { role: "user", content: [{ type: "text", text: "Harden [[auth]]. We decided to use [[jwt]] instead of opaque session ids." }] } },
      { type: "message", message: { role: "assistant", content: [{ type: "text", text: "ok" }] } },
    ];
    const event = { preparation: { firstKeptEntryId: "e9", tokensBefore: 190000 }, branchEntries: entries, customInstructions: "USER-FOCUS", signal: undefined };
    const [a, b] = await Promise.all([pi.emit("session_before_compact", event, ctx), pi.emit("session_before_compact", event, ctx)]);
    assert.equal(calls.length, 1);
    assert.deepEqual(a, b);
    assert.equal(a.compaction.summary, "SUMMARY");
    const c = calls[0];
    assert.equal(c.apiKey, "k");
    assert.ok(c.custom.startsWith("USER-FOCUS\n\n## Knowledge Graph Preservation"), c.custom);
    assert.match(c.custom, /\[\[jwt\]\]/);
    assert.match(c.custom, /Decisions made in this session:\n- We decided to use \[\[jwt\]\]/);
  } finally {
    await hw.dispose();
  }
});

test("a damaged install: governed writes are blocked with the failsafe's reason; reads run; nothing throws", T, async () => {
  const d = path.join(tmpdir("hookwise-pi-damaged-"), "dist");
  fs.cpSync(dist, d, { recursive: true });
  fs.writeFileSync(path.join(d, "policy/hookwise_bg.wasm"), "not a wasm module");
  const { pi, hw, errors } = await start(GOVERNED, { distDir: d });
  try {
    assert.equal(pi.tools.size, 0);
    const w = await pi.emit("tool_call", { toolName: "write", toolCallId: "c1", input: { path: "src/billing/a.ts", content: "x" } }, ctxOf());
    assert.equal(w.block, true);
    assert.match(w.reason, /^hookwise blocked `write`: hookwise could not start .*\(\.orchestration\/active_intents\.yaml\)/);
    assert.equal(await pi.emit("tool_call", { toolName: "read", toolCallId: "c2", input: { path: "README.md" } }, ctxOf()), undefined);
    assert.match(errors.join(""), /hookwise error: hookwise could not start; governance or enforcement is configured/);
  } finally {
    await hw.dispose();
  }
  // the adapter itself cannot load: the entry's own failsafe (pi.ts) is exercised by the real pi
});

test("init --pi: the pi package entry merged into .pi/settings.json, never overwriting; doctor's line", T, async () => {
  const { initPi, piDoctor, namesHookwise } = require(path.join(dist, "pi-init.cjs"));
  const dir = tmpdir("hookwise-pi-init-");
  const r1 = initPi({ cwd: dir });
  assert.equal(r1.changes[0].action, "created");
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, ".pi/settings.json"), "utf8")), { packages: ["../node_modules/hookwise"] });
  assert.equal(initPi({ cwd: dir }).changes[0].action, "kept");
  fs.writeFileSync(path.join(dir, ".pi/settings.json"), JSON.stringify({ theme: "x", packages: ["npm:other", { source: "../vendor/y" }] }));
  assert.equal(initPi({ cwd: dir }).changes[0].action, "updated");
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, ".pi/settings.json"), "utf8")), { theme: "x", packages: ["npm:other", { source: "../vendor/y" }, "../node_modules/hookwise"] });
  for (const bad of ["{ // comment\n}", "[]", JSON.stringify({ packages: "npm:hookwise" })]) {
    fs.writeFileSync(path.join(dir, ".pi/settings.json"), bad);
    const r = initPi({ cwd: dir });
    assert.ok(r.error, bad);
    assert.equal(fs.readFileSync(path.join(dir, ".pi/settings.json"), "utf8"), bad, "left unchanged");
  }
  for (const e of ["npm:hookwise", "npm:hookwise@1.2.3", "../node_modules/hookwise", { source: "./../node_modules/hookwise" }]) assert.ok(namesHookwise(dir, e), JSON.stringify(e));
  for (const e of ["npm:hookwise-extra", "git:github.com/x/hookwise-fork", "../node_modules/other", 7, null]) assert.ok(!namesHookwise(dir, e), JSON.stringify(e));
  // doctor: not set up here, then set up with this package (the entry: an absolute path to it)
  fs.writeFileSync(path.join(dir, ".pi/settings.json"), "{}");
  assert.equal(await piDoctor(dir), null);
  fs.writeFileSync(path.join(dir, ".pi/settings.json"), JSON.stringify({ packages: [path.dirname(dist)] }));
  const dr = await piDoctor(dir);
  assert.equal(dr.ok, true, JSON.stringify(dr));
  assert.match(dr.note, /5 events/);
});

test("the all-agents init sets pi up when the project has a .pi folder; init --pi --json reports it", T, async () => {
  const { spawnSync } = await import("node:child_process");
  const dir = writeFiles(tmpdir("hookwise-pi-all-"), { ".pi/.keep": "" });
  const env = { ...process.env, ...noCliEnv() };
  const run = (...args) => spawnSync(process.execPath, [path.join(dist, "cli.mjs"), "init", ...args, "--cwd", dir], { env, encoding: "utf8" });
  const all = run();
  assert.equal(all.status, 0, all.stderr);
  assert.match(all.stdout, /created \.pi\/settings\.json: the pi package "\.\.\/node_modules\/hookwise"/, all.stdout);
  const again = run("--pi", "--json");
  assert.equal(again.status, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout).changes.map((c) => c.action), ["kept"]);
  // no .pi and no pi on PATH: the all-agents init leaves pi alone
  const none = writeFiles(tmpdir("hookwise-pi-none-"), { "README.md": "x" });
  const r = spawnSync(process.execPath, [path.join(dist, "cli.mjs"), "init", "--cwd", none], { env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(fs.existsSync(path.join(none, ".pi")), false);
});

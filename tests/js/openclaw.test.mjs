// The OpenClaw plugin (dist/openclaw.mjs) against a stand-in for OpenClaw's plugin API, with
// the event and result shapes openclaw 2026.9.6 really sends (recorded from the gateway:
// before_tool_call {toolName, params, runId, toolCallId} + ctx {toolName, agentId, sessionKey,
// sessionId, runId, abortSignal, toolCallId, requester}; tool-result middleware
// {toolCallId, toolName, args, cwd, isError, result: {content: [{type, text}], details}}).
// The real gateway: tests/e2e-openclaw/.
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { repo, dist, fakeEnv, tmpdir } from "./helpers.mjs";
import { validate } from "./agent-trace-schema.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";
import { installNative } from "../e2e-shared/native.mjs";
// the confined shell's launcher where the built package finds it (pkg/node_modules: a nested install; issue 38)
installNative(new URL("../../pkg/node_modules", import.meta.url).pathname);

const require = createRequire(import.meta.url);
const { Hookwise } = require(path.join(dist, "hookwise.cjs"));
const { createPlugin, GUARD_MS, SELECT_TOOL, MODEL_TOOLS } = require(path.join(dist, "openclaw.cjs"));

const OPEN = "<!-- Knowledge Graph Context (hookwise) -->";
const FORCE_SOP = `---
id: git-force-push
category: process
match:
  tools: [exec]
  patterns: ['git\\s+push\\s.*--force']
---
# Force-pushing

## Preflight
1. Announce it in the team channel (OC-FORCE-MARKER).
`;
const NGINX_SOP = `---
id: nginx
category: technical
match:
  patterns: ['nginx']
---
## Gotchas
Reload keeps connections (OC-ADVICE-MARKER).
`;

let live = [];
afterEach(() => {
  for (const d of live) fs.rmSync(d, { recursive: true, force: true });
  live = [];
});

function project(sops = {}) {
  const dir = tmpdir("hookwise-openclaw-");
  live.push(dir);
  fs.mkdirSync(path.join(dir, ".opencode/sops"), { recursive: true });
  for (const [n, t] of Object.entries(sops)) fs.writeFileSync(path.join(dir, ".opencode/sops", n), t);
  return dir;
}

/** No maenifold and no vault: enforcement alone. */
function quietEnv() {
  const home = tmpdir("hookwise-home-");
  live.push(home);
  return { PATH: "/usr/bin:/bin", HOME: home, MAENIFOLD_ROOT: path.join(home, "none") };
}

/** A stand-in for OpenClaw's `api`: records registrations and log lines. */
function fakeApi({ workspace, pluginConfig = {}, middleware = true, runtime } = {}) {
  const hooks = {};
  const logs = [];
  const mw = [];
  const tools = [];
  const api = {
    id: "hookwise",
    config: { agents: { defaults: { workspace } } },
    pluginConfig,
    runtime: runtime ?? { agent: { resolveAgentWorkspaceDir: (cfg, agentId) => (agentId === "main" ? cfg.agents.defaults.workspace : `/nowhere/${agentId}`) } },
    logger: { info: (m) => logs.push(["info", m]), warn: (m) => logs.push(["warn", m]), error: (m) => logs.push(["error", m]), debug: (m) => logs.push(["debug", m]) },
    on(name, handler, opts) {
      (hooks[name] ??= []).push({ handler, opts });
    },
    registerTool(tool, opts) {
      tools.push({ tool, opts });
    },
  };
  if (middleware) api.registerAgentToolResultMiddleware = (handler, opts) => mw.push({ handler, opts });
  return { api, hooks, logs, mw, tools };
}

const ctxOf = (toolCallId, extra = {}) => ({
  toolName: extra.toolName ?? "exec",
  agentId: "main",
  sessionKey: "agent:main:openai:k1",
  sessionId: "s-1",
  runId: "chatcmpl_1",
  abortSignal: new AbortController().signal,
  toolCallId,
  requester: { channel: "webchat", senderIsOwner: true },
});
const before = (toolName, params, toolCallId) => [{ toolName, params, runId: "chatcmpl_1", toolCallId }, ctxOf(toolCallId, { toolName })];
const execResult = (text) => ({ content: [{ type: "text", text }], details: { status: "completed", exitCode: 0, aggregated: text, cwd: "/w" } });

function start({ env, sops, pluginConfig, deps = {}, api: apiOpts = {} }) {
  const workspace = project(sops);
  const f = fakeApi({ workspace, pluginConfig, ...apiOpts });
  const plugin = createPlugin({ createHookwise: (o) => new Hookwise({ ...o, env }), ...deps });
  const h = plugin._register(f.api);
  return { ...f, h, workspace, plugin };
}

test("the package is an OpenClaw plugin: manifest with the shared schema, extension entry, ESM default export", async () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, "pkg/package.json"), "utf8"));
  assert.deepEqual(pkg.openclaw, { extensions: ["./dist/openclaw.mjs"] });
  assert.ok(pkg.files.includes("openclaw.plugin.json"));
  const manifest = JSON.parse(fs.readFileSync(path.join(repo, "pkg/openclaw.plugin.json"), "utf8"));
  assert.equal(manifest.id, "hookwise");
  assert.equal(manifest.version, pkg.version);
  assert.deepEqual(manifest.configSchema, JSON.parse(fs.readFileSync(path.join(repo, "schema/hookwise.schema.json"), "utf8")), "one schema everywhere");
  // OpenClaw refuses api.registerTool for a name the manifest does not declare
  assert.deepEqual(manifest.contracts, { agentToolResultMiddleware: ["openclaw"], tools: MODEL_TOOLS });
  assert.equal(MODEL_TOOLS[0], SELECT_TOOL);
  const mod = await import(path.join(repo, "pkg", pkg.openclaw.extensions[0]));
  assert.deepEqual(Object.keys(mod), ["default"]);
  assert.equal(mod.default.id, manifest.id);
  assert.equal(typeof mod.default.register, "function");
});

test("register: before_tool_call, after_tool_call, before_prompt_build and tool-result middleware for the openclaw runtime", () => {
  const { hooks, mw } = start({ env: quietEnv() });
  assert.deepEqual(Object.keys(hooks).sort(), ["after_tool_call", "before_prompt_build", "before_tool_call"]);
  assert.equal(mw.length, 1);
  assert.deepEqual(mw[0].opts, { runtimes: ["openclaw"] });
  assert.ok(GUARD_MS < 15_000, "our own budget is below OpenClaw's fail-closed 15 s");
});

test("a strict SOP blocks exec with {block, blockReason}; the retry runs; params are never touched", async () => {
  const { hooks } = start({ env: quietEnv(), sops: { "force.md": FORCE_SOP } });
  const run = hooks.before_tool_call[0].handler;
  const [ev, ctx] = before("exec", { command: "git push --force origin main" }, "call_1");
  const snapshot = structuredClone(ev.params);
  const r = await run(ev, ctx);
  assert.equal(r.block, true);
  assert.match(r.blockReason, /OC-FORCE-MARKER/);
  assert.deepEqual(ev.params, snapshot);
  const again = await run(...before("exec", { command: "git push --force origin main" }, "call_2"));
  assert.equal(again, undefined, "the retry within the cooldown runs");
  assert.equal(await run(...before("exec", { command: "ls -la" }, "call_3")), undefined);
});

test("[[concept]] in exec: arguments unchanged, the context is appended to the result the model reads", async () => {
  const f = fakeEnv();
  const { hooks, mw } = start({ env: f.env });
  const command = "echo '[[auth]]'";
  const [ev, ctx] = before("exec", { command }, "call_k");
  const r = await hooks.before_tool_call[0].handler(ev, ctx);
  assert.equal(r, undefined, "no params rewrite: OpenClaw's model would never see it");
  assert.equal(ev.params.command, command);
  const result = execResult("[[auth]]");
  const out = await mw[0].handler({ toolCallId: "call_k", toolName: "exec", args: { command }, cwd: "/w", isError: false, result }, { runtime: "openclaw", agentId: "main", sessionId: "s-1" });
  assert.equal(out.result.content.length, 2);
  assert.deepEqual(out.result.content[0], result.content[0], "the command's own output is unchanged");
  assert.equal(out.result.details, result.details);
  const text = out.result.content[1].text;
  assert.ok(text.startsWith(OPEN), text);
  assert.match(text, /## \[\[auth\]\]/);
  assert.match(text, /\[\[jwt\]\]/);
  assert.deepEqual(f.calls().filter((c) => c.tool).map((c) => c.payload.conceptName), ["auth"]);
  // delivered once
  assert.equal(await mw[0].handler({ toolCallId: "call_k", toolName: "exec", args: {}, result }, { runtime: "openclaw" }), undefined);
});

test("advisory SOP on write: the call runs, the advice comes with the result", async () => {
  const { hooks, mw } = start({ env: quietEnv(), sops: { "nginx.md": NGINX_SOP } });
  const [ev, ctx] = before("write", { path: "nginx.conf", content: "server {} # nginx\n" }, "call_w");
  assert.equal(await hooks.before_tool_call[0].handler(ev, ctx), undefined);
  const result = { content: [{ type: "text", text: "Successfully wrote 18 bytes to nginx.conf" }], details: { changed: true } };
  const out = await mw[0].handler({ toolCallId: "call_w", toolName: "write", args: ev.params, result }, { runtime: "openclaw" });
  assert.equal(out.result.content[0].text, "Successfully wrote 18 bytes to nginx.conf");
  assert.match(out.result.content[1].text, /OC-ADVICE-MARKER/);
});

test("nothing waits for a result: the middleware leaves it alone (returns nothing)", async () => {
  const { mw } = start({ env: quietEnv() });
  assert.equal(await mw[0].handler({ toolCallId: "never-seen", toolName: "exec", args: {}, result: execResult("x") }, { runtime: "openclaw" }), undefined);
  assert.equal(await mw[0].handler(undefined, undefined), undefined);
});

test("a core that throws: every hook resolves quietly (OpenClaw would block on a throw)", async () => {
  const boom = { init: async () => {}, toolBefore: async () => { throw new Error("boom"); }, toolAfter: async () => { throw new Error("bang"); } };
  const { hooks, mw, logs } = start({ env: quietEnv(), deps: { createHookwise: () => boom } });
  assert.equal(await hooks.before_tool_call[0].handler(...before("exec", { command: "echo [[x]]" }, "c")), undefined);
  await hooks.after_tool_call[0].handler({ toolName: "exec", params: {}, toolCallId: "c", result: execResult("x"), durationMs: 3 }, ctxOf("c"));
  assert.ok(logs.some(([l, m]) => l === "error" && /boom/.test(m)), JSON.stringify(logs));
  assert.ok(logs.some(([l, m]) => l === "error" && /bang/.test(m)), JSON.stringify(logs));
  // a follow-up whose delivery throws leaves the result unchanged
  const late = { init: async () => {}, toolBefore: async () => ({ followUp: true }), toolAfter: async () => { throw new Error("late"); } };
  const t = start({ env: quietEnv(), deps: { createHookwise: () => late } });
  await t.hooks.before_tool_call[0].handler(...before("exec", { command: "x" }, "f1"));
  assert.equal(await t.mw[0].handler({ toolCallId: "f1", toolName: "exec", args: {}, result: execResult("x") }, {}), undefined);
  // bad events
  assert.equal(await hooks.before_tool_call[0].handler(undefined, undefined), undefined);
  assert.equal(await hooks.before_tool_call[0].handler({ toolName: "exec" }, {}), undefined);
});

test("a core that hangs: before_tool_call gives up after its own budget and the call proceeds", async () => {
  const hang = { init: async () => {}, toolBefore: () => new Promise(() => {}), toolAfter: async () => null };
  const { hooks, logs } = start({ env: quietEnv(), deps: { createHookwise: () => hang, guardMs: 50 } });
  const t0 = Date.now();
  assert.equal(await hooks.before_tool_call[0].handler(...before("exec", { command: "sleep" }, "h")), undefined);
  assert.ok(Date.now() - t0 < 2000);
  assert.ok(logs.some(([l, m]) => l === "warn" && /proceeds unchecked/.test(m)));
});

test("no middleware in this OpenClaw (or refused): blocks still work, a warning says context is off", async () => {
  const a = start({ env: quietEnv(), sops: { "force.md": FORCE_SOP }, api: { middleware: false } });
  assert.ok(a.logs.some(([l, m]) => l === "warn" && /no tool-result middleware/.test(m)));
  const r = await a.hooks.before_tool_call[0].handler(...before("exec", { command: "git push --force x" }, "b1"));
  assert.equal(r.block, true);
  const workspace = project();
  const f = fakeApi({ workspace });
  f.api.registerAgentToolResultMiddleware = () => {
    throw new Error("contract not declared");
  };
  createPlugin({ createHookwise: (o) => new Hookwise({ ...o, env: quietEnv() }) })._register(f.api);
  assert.ok(f.logs.some(([l, m]) => l === "warn" && /contract not declared/.test(m)));
  assert.ok(f.hooks.before_tool_call, "hooks registered anyway");
});

test("the project is the agent's workspace (OpenClaw's resolver), one instance per workspace", async () => {
  const seen = [];
  const made = [];
  const workspace = project();
  const f = fakeApi({ workspace, runtime: { agent: { resolveAgentWorkspaceDir: (cfg, id) => (seen.push(id), id === "other" ? "/tmp" : workspace) } } });
  const h = createPlugin({ createHookwise: (o) => (made.push(o), { init: async () => {}, toolBefore: async () => null, toolAfter: async () => null }) })._register(f.api);
  await h.beforeToolCall(...before("exec", { command: "a" }, "1"));
  await h.beforeToolCall(...before("exec", { command: "b" }, "2"));
  await h.beforeToolCall({ toolName: "exec", params: {}, toolCallId: "3" }, { ...ctxOf("3"), agentId: "other" });
  // registration starts the default agent's instance (the tool factory needs its plan), then
  // each hook resolves its agent's workspace
  assert.deepEqual(seen, ["main", "main", "main", "other"]);
  assert.deepEqual(made.map((o) => o.cwd), [workspace, "/tmp"]);
  assert.deepEqual(made[0].options, {});
  // no runtime resolver: the gateway's working directory
  const g = fakeApi({ workspace, runtime: {} });
  const made2 = [];
  createPlugin({ createHookwise: (o) => (made2.push(o), { init: async () => {}, toolBefore: async () => null, toolAfter: async () => null }) })._register(g.api);
  await g.hooks.before_tool_call[0].handler(...before("exec", { command: "a" }, "1"));
  assert.equal(made2[0].cwd, process.cwd());
});

test("plugin config (plugins.entries.hookwise.config) reaches the core as its options", async () => {
  const made = [];
  const workspace = project();
  const f = fakeApi({ workspace, pluginConfig: { tokenBudget: 500, enforcement: { level: "strict" } } });
  createPlugin({ createHookwise: (o) => (made.push(o), { init: async () => {}, toolBefore: async () => null, toolAfter: async () => null }) })._register(f.api);
  await f.hooks.before_tool_call[0].handler(...before("exec", { command: "a" }, "1"));
  assert.deepEqual(made[0].options, { tokenBudget: 500, enforcement: { level: "strict" } });
  // a config reload registers again: the new options get their own instance, the same ones share
  const shared = { instances: new Map(), pending: new Map(), withResult: false };
  const seen = [];
  const mk = (o) => (seen.push(o), { init: async () => {}, toolBefore: async () => null, toolAfter: async () => null });
  for (const cfg of [{ tokenBudget: 500 }, { tokenBudget: 500 }, { tokenBudget: 900 }]) {
    const g = fakeApi({ workspace, pluginConfig: cfg });
    createPlugin({ createHookwise: mk, shared })._register(g.api);
    await g.hooks.before_tool_call[0].handler(...before("exec", { command: "a" }, "1"));
  }
  assert.deepEqual(seen.map((o) => o.options.tokenBudget), [500, 900]);
});

test("after_tool_call is observe-only: the core's after-call, never a throw", async () => {
  const calls = [];
  const fake = { init: async () => {}, toolBefore: async () => null, toolAfter: async (c) => (calls.push(c), null) };
  const { hooks } = start({ env: quietEnv(), deps: { createHookwise: () => fake } });
  await hooks.before_tool_call[0].handler(...before("write", { path: "a", content: "b" }, "w"));
  const r = await hooks.after_tool_call[0].handler({ toolName: "write", params: { path: "a", content: "b" }, toolCallId: "w", result: { content: [{ type: "text", text: "Successfully wrote 1 bytes to a" }] }, durationMs: 5 }, ctxOf("w", { toolName: "write" }));
  assert.equal(r, undefined);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].callId, "w");
  assert.deepEqual(calls[0].args, { path: "a", content: "b" });
});

test("a logger that throws does not break a hook", async () => {
  const { api, hooks } = fakeApi({ workspace: project() });
  api.logger = { info() { throw new Error("x"); }, warn() { throw new Error("x"); }, error() { throw new Error("x"); } };
  const boom = { init: async () => {}, toolBefore: async () => { throw new Error("boom"); }, toolAfter: async () => null };
  createPlugin({ createHookwise: () => boom })._register(api);
  assert.equal(await hooks.before_tool_call[0].handler(...before("exec", { command: "x" }, "1")), undefined);
});

test("OpenClaw registers a plugin more than once, from fresh module instances: a call seen by one registration's hook is found by another's middleware", async () => {
  const env = fakeEnv().env;
  const shared = { instances: new Map(), pending: new Map(), withResult: false };
  const one = createPlugin({ createHookwise: (o) => new Hookwise({ ...o, env }), shared });
  const other = createPlugin({ createHookwise: (o) => new Hookwise({ ...o, env }), shared });
  const workspace = project();
  const gatewayRegistry = fakeApi({ workspace });
  const runtimeRegistry = fakeApi({ workspace });
  one._register(gatewayRegistry.api);
  other._register(runtimeRegistry.api);
  await gatewayRegistry.hooks.before_tool_call[0].handler(...before("exec", { command: "echo '[[auth]]'" }, "x1"));
  const out = await runtimeRegistry.mw[0].handler({ toolCallId: "x1", toolName: "exec", args: {}, result: execResult("[[auth]]") }, { runtime: "openclaw" });
  assert.match(out.result.content[1].text, /## \[\[auth\]\]/);
  // the published plugin keeps that state on globalThis, whichever module instance runs
  const a = require(path.join(dist, "openclaw.cjs")).plugin;
  delete require.cache[require.resolve(path.join(dist, "openclaw.cjs"))];
  const b = require(path.join(dist, "openclaw.cjs")).plugin;
  assert.notEqual(a, b);
  assert.ok(globalThis[Symbol.for("hookwise.openclaw.state")].pending instanceof Map);
});

test("before_prompt_build: the project's session-start context in the system prompt of each model call", async () => {
  const parent = tmpdir("hookwise-openclaw-ws-");
  live.push(parent);
  const workspace = path.join(parent, "larkspur"); // the project is the workspace's name
  fs.mkdirSync(workspace);
  const env = { ...quietEnv(), HOOKWISE_VAULT: path.join(repo, "examples/vault") };
  const ev = { prompt: "hi", messages: [] };
  const ctx = { agentId: "main", sessionId: "ses-1", sessionKey: "agent:main:openai:k", workspaceDir: workspace, trigger: "user" };

  const f = fakeApi({ workspace });
  createPlugin({ createHookwise: (o) => new Hookwise({ ...o, env }) })._register(f.api);
  const run = f.hooks.before_prompt_build[0].handler;
  const first = await run(ev, ctx);
  assert.match(first.appendSystemContext, /Project: \*\*larkspur\*\*/);
  assert.equal(first.prependContext, undefined);
  assert.deepEqual(await run(ev, ctx), first, "every model call of the session gets it again (OpenClaw rebuilds the prompt)");
  assert.equal(await run(ev, { ...ctx, sessionId: undefined }), undefined);

  // the "prompt" channel: once, before the user's first message
  const g = fakeApi({ workspace, pluginConfig: { sessionContextChannel: "prompt" } });
  createPlugin({ createHookwise: (o) => new Hookwise({ ...o, env }) })._register(g.api);
  const p1 = await g.hooks.before_prompt_build[0].handler(ev, { ...ctx, sessionId: "ses-2" });
  assert.match(p1.prependContext, /Project: \*\*larkspur\*\*/);
  assert.equal(p1.appendSystemContext, undefined);
  assert.equal(await g.hooks.before_prompt_build[0].handler(ev, { ...ctx, sessionId: "ses-2" }), undefined);
});

// ---- intent governance (#4) through the same hooks ----

const INTENTS = `active_intents:
  - id: INT-1
    name: API work
    status: IN_PROGRESS
    owned_scope: ["src/**"]
`;

/** A project with governance on; the plugin registered against it and started. */
async function governed({ middleware = true } = {}) {
  const workspace = project();
  fs.mkdirSync(path.join(workspace, ".orchestration"));
  fs.writeFileSync(path.join(workspace, ".orchestration/active_intents.yaml"), INTENTS);
  const f = fakeApi({ workspace, middleware });
  const env = quietEnv();
  const made = [];
  const h = createPlugin({ createHookwise: (o) => { const hw = new Hookwise({ ...o, env }); made.push(hw); return hw; } })._register(f.api);
  assert.equal(made.length, 1, "registration started the default agent's instance");
  await made[0].init();
  return { ...f, h, workspace, hw: made[0] };
}

const trace = (ws) => {
  return traceRecordsOf(ws);
};

/** The tool as OpenClaw's factory call gives it for a run of session `s-1`. */
const toolFor = (t, extra = {}) => t.tools[0].tool({ agentId: "main", sessionKey: "agent:main:openai:k1", sessionId: "s-1", workspaceDir: t.workspace, ...extra });

test("governance on: select_active_intent is an agent tool (JSON Schema parameters, OpenClaw's execute(toolCallId, params)); off: the factory offers nothing", async () => {
  const t = await governed();
  assert.equal(t.tools.length, MODEL_TOOLS.length, "one factory per tool the core may offer");
  assert.deepEqual(t.tools[0].opts, { name: SELECT_TOOL });
  const tool = toolFor(t);
  assert.equal(tool.name, SELECT_TOOL);
  assert.equal(tool.catalogMode, "direct-only", "never deferred behind OpenClaw's tool search: block messages name it");
  assert.deepEqual(tool.parameters.required, ["intent_id"]);
  assert.equal(tool.parameters.properties.intent_id.type, "string");
  const bad = await tool.execute("tc1", { intent_id: "INT-404" });
  assert.match(bad.content[0].text, /INT-1/, "an unknown id lists the valid ones");
  const ok = await tool.execute("tc2", { intent_id: "INT-1" });
  assert.equal(ok.content[0].type, "text");
  assert.match(ok.content[0].text, /src\/\*\*/, "the intent's scope");

  // a project without the intents file: governance off, no tool
  const plain = start({ env: quietEnv() });
  const hw = [...plain.h.instances.values()][0];
  await hw.init();
  assert.equal(hw.governanceOn, false);
  assert.equal(plain.tools[0].tool({ agentId: "main", sessionId: "s-1" }), null);
  // not started yet (its plan unknown): nothing this time rather than a tool that may not apply
  const cold = fakeApi({ workspace: project() });
  createPlugin({ createHookwise: () => ({ started: false, governanceOn: false, init: () => new Promise(() => {}) }) })._register(cold.api);
  assert.equal(cold.tools[0].tool({ agentId: "main", sessionId: "s-1" }), null);
});

test("a metadata-only registration (OpenClaw's CLI) starts no core; the tool factory is still registered", () => {
  const made = [];
  const f = fakeApi({ workspace: project() });
  f.api.registrationMode = "cli-metadata";
  createPlugin({ createHookwise: (o) => (made.push(o), { init: async () => {}, toolBefore: async () => null, toolAfter: async () => null }) })._register(f.api);
  assert.equal(made.length, 0);
  assert.equal(f.tools.length, MODEL_TOOLS.length);
  const g = fakeApi({ workspace: project() });
  g.api.registrationMode = "full";
  createPlugin({ createHookwise: (o) => (made.push(o), { init: async () => {}, toolBefore: async () => null, toolAfter: async () => null }) })._register(g.api);
  assert.equal(made.length, 1, "the gateway's registration starts the default agent's core");
});

test("governance gate in before_tool_call: no intent → {block, blockReason}; out of scope → blocked naming the scope; in scope → recorded from the middleware", async () => {
  const t = await governed();
  const run = t.hooks.before_tool_call[0].handler;
  const noIntent = await run(...before("write", { path: "src/a.ts", content: "x\n" }, "g1"));
  assert.equal(noIntent.block, true);
  assert.match(noIntent.blockReason, /select_active_intent/);
  assert.match(noIntent.blockReason, /INT-1/);
  const execBlocked = await run(...before("exec", { command: "ls" }, "g2"));
  assert.equal(execBlocked.block, true, "exec needs an active intent too");

  // the tool selects for the session the hooks see (ctx.sessionId)
  await toolFor(t).execute("sel", { intent_id: "INT-1" });
  // issue 38: under the intent, exec runs under the confining launcher (OpenClaw runs returned params)
  const confined = await run(...before("exec", { command: "ls" }, "g3"));
  assert.match(confined?.params?.command ?? "", /hookwise-native' sandbox '--project' [\s\S]* -- "\$\{BASH:-\/bin\/sh\}" -c 'ls'$/, JSON.stringify(confined));
  const out = await run(...before("write", { path: "docs/out.md", content: "x\n" }, "g4"));
  assert.equal(out.block, true);
  assert.match(out.blockReason, /docs\/out\.md/);
  assert.match(out.blockReason, /src\/\*\*/);
  // another session has no intent
  const other = await run({ toolName: "write", params: { path: "src/a.ts", content: "x\n" }, toolCallId: "g5" }, { ...ctxOf("g5"), sessionId: "s-2" });
  assert.equal(other.block, true);

  const params = { path: "src/in.ts", content: "export const x = 1;\nexport const y = 2;\n" };
  const [ev, ctx] = before("write", params, "g6");
  assert.equal(await run(ev, ctx), undefined);
  fs.mkdirSync(path.join(t.workspace, "src"), { recursive: true });
  fs.writeFileSync(path.join(t.workspace, "src/in.ts"), params.content); // the tool runs
  const result = { content: [{ type: "text", text: "Successfully wrote 20 bytes to src/in.ts" }], details: {} };
  await t.mw[0].handler({ toolCallId: "g6", toolName: "write", args: params, cwd: t.workspace, isError: false, result }, { runtime: "openclaw", agentId: "main", sessionId: "s-1" });
  // after_tool_call for the same call (OpenClaw fires it too) adds nothing
  await t.hooks.after_tool_call[0].handler({ toolName: "write", params, toolCallId: "g6", result, durationMs: 2 }, ctxOf("g6", { toolName: "write" }));
  const recs = trace(t.workspace);
  assert.equal(recs.length, 1, JSON.stringify(recs));
  assert.deepEqual(recs[0].files.map((f) => f.path), ["src/in.ts"]);
  assert.equal(recs[0].metadata["dev.hookwise"].intent_id, "INT-1", "under the session's intent");
  assert.deepEqual(validate(recs[0]), []);

  // OpenClaw's edit shape {path, edits: [{oldText, newText}]}: the edited line is the range
  const edit = { path: "src/in.ts", edits: [{ oldText: "y = 2", newText: "y = 3" }] };
  assert.equal(await run(...before("edit", edit, "g7")), undefined);
  fs.writeFileSync(path.join(t.workspace, "src/in.ts"), "export const x = 1;\nexport const y = 3;\n");
  await t.mw[0].handler({ toolCallId: "g7", toolName: "edit", args: edit, isError: false, result }, { runtime: "openclaw" });
  const e = trace(t.workspace)[1];
  assert.deepEqual(e.files[0].conversations[0].ranges.map((r) => [r.start_line, r.end_line]), [[2, 2]]);
  assert.deepEqual(validate(e), []);

  // a failed tool leaves no record
  const [fev, fctx] = before("write", { path: "src/fail.ts", content: "x\n" }, "g8");
  assert.equal(await run(fev, fctx), undefined);
  await t.mw[0].handler({ toolCallId: "g8", toolName: "write", args: fev.params, isError: true, result: { content: [{ type: "text", text: "EACCES" }] } }, { runtime: "openclaw" });
  assert.equal(trace(t.workspace).length, 2);
});

test("decoy keys through the OpenClaw plugin: the key OpenClaw writes is checked; two files or two patches are blocked", async () => {
  const t = await governed();
  const run = t.hooks.before_tool_call[0].handler;
  await toolFor(t).execute("sel", { intent_id: "INT-1" });
  // the bypasses seen in the real OpenClaw: `path` is written, `filePath` was checked
  const w = await run(...before("write", { path: "docs/leak.md", content: "x", filePath: "src/ok.ts" }, "d1"));
  assert.equal(w.block, true);
  assert.match(w.blockReason, /`path` = "docs\/leak\.md" and `filePath` = "src\/ok\.ts"/);
  const patch = (p) => `*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch`;
  const p = await run(...before("apply_patch", { input: patch("docs/evil.md"), patchText: patch("src/ok.ts") }, "d2"));
  assert.equal(p.block, true);
  assert.match(p.blockReason, /two different patch texts, `input`/);
  // OpenCode's key alone is not one OpenClaw's write reads: nothing to check, blocked
  const o = await run(...before("write", { filePath: "src/ok.ts", content: "x" }, "d3"));
  assert.equal(o.block, true);
  assert.match(o.blockReason, /no file under `path`/);
  // a number under a path key cannot be checked
  const n = await run(...before("write", { path: "src/ok.ts", content: "x", file_path: 7 }, "d4"));
  assert.equal(n.block, true);
  assert.match(n.blockReason, /`file_path` is a number/);
  // the same file through two keys, and the real shapes, run
  assert.equal(await run(...before("write", { path: "src/ok.ts", filePath: "src/ok.ts", content: "x" }, "d5")), undefined);
  assert.equal(await run(...before("apply_patch", { input: patch("src/ok.ts") }, "d6")), undefined);
});

test("governance without tool-result middleware: after_tool_call makes the record (params, error)", async () => {
  const t = await governed({ middleware: false });
  const run = t.hooks.before_tool_call[0].handler;
  await toolFor(t).execute("sel", { intent_id: "INT-1" });
  const params = { path: "src/b.ts", content: "export const b = 1;\n" };
  assert.equal(await run(...before("write", params, "a1")), undefined);
  fs.mkdirSync(path.join(t.workspace, "src"), { recursive: true });
  fs.writeFileSync(path.join(t.workspace, "src/b.ts"), params.content);
  await t.hooks.after_tool_call[0].handler({ toolName: "write", params, toolCallId: "a1", result: { content: [{ type: "text", text: "ok" }] }, durationMs: 1 }, ctxOf("a1", { toolName: "write" }));
  const recs = trace(t.workspace);
  assert.deepEqual(recs.map((r) => r.files[0].path), ["src/b.ts"]);
  assert.deepEqual(validate(recs[0]), []);
  // an error: no record
  assert.equal(await run(...before("write", { path: "src/c.ts", content: "c\n" }, "a2")), undefined);
  await t.hooks.after_tool_call[0].handler({ toolName: "write", params: { path: "src/c.ts", content: "c\n" }, toolCallId: "a2", error: "disk full", durationMs: 1 }, ctxOf("a2", { toolName: "write" }));
  assert.equal(trace(t.workspace).length, 1);
});

test("governance on: before_prompt_build brings the session's <intent_context>", async () => {
  const t = await governed();
  const ctx = { agentId: "main", sessionId: "s-1", sessionKey: "agent:main:openai:k1", workspaceDir: t.workspace, modelProviderId: "mock", modelId: "mock-1" };
  await toolFor(t).execute("sel", { intent_id: "INT-1" });
  const r = await t.hooks.before_prompt_build[0].handler({ prompt: "hi", messages: [] }, ctx);
  assert.match(r.appendSystemContext, /<intent_context>/);
  assert.match(r.appendSystemContext, /INT-1/);
  // the model of the session (provider/model) is the contributor of its records
  const params = { path: "src/m.ts", content: "m\n" };
  assert.equal(await t.hooks.before_tool_call[0].handler(...before("write", params, "m1")), undefined);
  fs.mkdirSync(path.join(t.workspace, "src"), { recursive: true });
  fs.writeFileSync(path.join(t.workspace, "src/m.ts"), params.content);
  await t.mw[0].handler({ toolCallId: "m1", toolName: "write", args: params, isError: false, result: { content: [{ type: "text", text: "ok" }] } }, { runtime: "openclaw" });
  assert.equal(trace(t.workspace)[0].files[0].conversations[0].contributor.model_id, "mock/mock-1");
});

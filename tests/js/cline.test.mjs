// The Cline plugin (js/cline.cjs) against a stand-in Hookwise, and `hookwise init --cline`
// (js/cline-init.cjs): hooks answer in Cline's shapes (docs/cline.md) and never throw; a pre-hook
// that fails or is late is decided by the failsafe (blocked in a governed project); the plugin
// file is written once and never over someone else's.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { unconfined } from "./helpers.mjs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { createPlugin, modelOf, sessionOf } = require("../../js/cline.cjs");
const { initCline, pluginText, REL } = require("../../js/cline-init.cjs");

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-cline-"));

/** A stand-in Hookwise: `before` answers toolBefore, `after` is the text for the result. */
function fake({ before = async () => null, after = "", tools = [], initMs = 0, governed = false } = {}) {
  const calls = [];
  const hw = {
    started: false,
    tools,
    plan: {},
    async init() {
      // unref'd: a core that never starts does not keep the test process alive
      if (initMs) await new Promise((r) => setTimeout(r, initMs).unref());
      hw.started = true;
    },
    async toolBefore(a) {
      calls.push(["before", a]);
      return before(a);
    },
    async toolAfter(a) {
      calls.push(["after", a]);
      return after ? { withResult: after } : {};
    },
    async sessionCreated(s) {
      calls.push(["session", s]);
      return { prompt: { sessionId: s.id, text: "START" } };
    },
    async systemTransform(sid, system, model) {
      calls.push(["system", sid, model]);
      system.push("INTENTS");
      return {};
    },
    async callTool(name, input, sid) {
      calls.push(["call", name, input, sid]);
      return { text: `ok ${name}`, isError: false };
    },
    failClosed(tool) {
      return governed ? { block: `closed ${tool}` } : null;
    },
  };
  return { hw, calls };
}

const snap = { conversationId: "conv1", agentId: "a1", messages: [{ role: "assistant", modelInfo: { id: "m-1", provider: "p" } }] };
const toolCtx = (name, input, id = "call1") => ({ snapshot: snap, tool: { name }, toolCall: { toolCallId: id, toolName: name }, input });

test("the plugin's shape is what Cline loads: name, hooks and tools capabilities, setup", () => {
  const p = createPlugin({ createHookwise: () => fake().hw });
  assert.equal(p.name, "hookwise");
  assert.deepEqual(p.manifest.capabilities, ["hooks", "tools"]);
  assert.equal(typeof p.setup, "function");
  assert.deepEqual(Object.keys(p.hooks).sort(), ["afterTool", "beforeRun", "beforeTool"]);
});

test("setup starts the core in the workspace and registers its tools; a call reaches the core with the session", async () => {
  let opts;
  const f = fake({ tools: [{ name: "select_active_intent", description: "d", inputSchema: { type: "object" } }] });
  const p = createPlugin({ createHookwise: (o) => ((opts = o), f.hw) });
  const reg = [];
  await p.setup({ registerTool: (t) => reg.push(t) }, { workspaceInfo: { rootPath: "/w/proj" } });
  assert.equal(opts.cwd, "/w/proj");
  assert.equal(opts.host, "cline");
  assert.equal(opts.flavor, "policy");
  assert.deepEqual(reg.map((t) => t.name), ["select_active_intent"]);
  assert.equal(await reg[0].execute({ intent_id: "INT-1" }, { conversationId: "conv1", agentId: "a1" }), "ok select_active_intent");
  assert.deepEqual(f.calls.at(-1), ["call", "select_active_intent", { intent_id: "INT-1" }, "conv1"]);
});

test("a core not ready within setup's wait: every tool the core may offer is registered (its own list)", async () => {
  const f = fake({ initMs: 2000 });
  const p = createPlugin({ createHookwise: () => f.hw });
  const reg = [];
  const t0 = Date.now();
  await p.setup({ registerTool: (t) => reg.push(t.name) }, { workspaceInfo: { rootPath: "/w" } });
  assert.ok(Date.now() - t0 < 1500, "setup does not wait for the core");
  assert.ok(reg.includes("select_active_intent") && reg.includes("knowledge_search"), JSON.stringify(reg));
});

test("beforeRun: session-start and intent context once per session, as appendContext", async () => {
  const f = fake();
  const p = createPlugin({ createHookwise: () => f.hw });
  const r = await p.hooks.beforeRun({ snapshot: snap });
  assert.deepEqual(r, { appendContext: "INTENTS\n\nSTART" });
  assert.equal(await p.hooks.beforeRun({ snapshot: snap }), undefined);
  assert.deepEqual(f.calls.find((c) => c[0] === "system"), ["system", "conv1", "p/m-1"]);
});

test("beforeTool: a block is {skip, reason} with the core's sentence; the model's input goes to the core as it came", async () => {
  const f = fake({ before: async ({ tool }) => (tool === "editor" ? { block: "hookwise blocked `editor`: why" } : { followUp: true }) });
  const p = createPlugin({ createHookwise: () => f.hw });
  await p.setup({ registerTool() {} }, {});
  assert.deepEqual(await p.hooks.beforeTool(toolCtx("editor", { path: "/x", new_text: "y" })), { skip: true, reason: "hookwise blocked `editor`: why" });
  // a bare string (one of run_commands' forms) reaches the core unchanged
  assert.equal(await p.hooks.beforeTool(toolCtx("run_commands", "git push --force", "c2")), undefined);
  const sent = f.calls.filter((c) => c[0] === "before").at(-1)[1];
  assert.equal(sent.args, "git push --force");
  assert.equal(sent.resultOnly, true);
  assert.equal(sent.sessionId, "conv1");
  // afterTool: what the core added to the output is the appended context
  const after = await p.hooks.afterTool({ ...toolCtx("run_commands", "x", "c2"), result: { output: [{ query: "q", result: "r" }] } });
  assert.equal(after, undefined, "nothing added: nothing appended");
});

test("afterTool hands the core's context on as appendContext, only for calls the core follows up", async () => {
  const f = fake({ before: async () => ({ followUp: true }), after: "CONTEXT" });
  const p = createPlugin({ createHookwise: () => f.hw });
  await p.setup({ registerTool() {} }, {});
  await p.hooks.beforeTool(toolCtx("run_commands", { commands: ["echo [[x]]"] }, "c9"));
  assert.deepEqual(await p.hooks.afterTool({ ...toolCtx("run_commands", {}, "c9"), result: { output: "out" } }), { appendContext: "CONTEXT" });
  assert.equal(await p.hooks.afterTool({ ...toolCtx("run_commands", {}, "c10"), result: { output: "out" } }), undefined);
});

test("a pre-hook that throws or is late never throws into Cline: decided by the plan's failClosed", async () => {
  const boom = fake({ before: async () => Promise.reject(new Error("trap")), governed: true });
  const p = createPlugin({ createHookwise: () => boom.hw });
  await p.setup({ registerTool() {} }, {});
  assert.deepEqual(await p.hooks.beforeTool(toolCtx("editor", {})), { skip: true, reason: "closed editor" });
  const slow = fake({ before: () => new Promise(() => {}), governed: true });
  const q = createPlugin({ createHookwise: () => slow.hw, guardMs: 50 });
  await q.setup({ registerTool() {} }, {});
  assert.deepEqual(await q.hooks.beforeTool(toolCtx("editor", {})), { skip: true, reason: "closed editor" });
  const open = fake({ before: async () => Promise.reject(new Error("trap")) });
  const r = createPlugin({ createHookwise: () => open.hw });
  await r.setup({ registerTool() {} }, {});
  assert.equal(await r.hooks.beforeTool(toolCtx("run_commands", {})), undefined, "nothing governs: the call runs");
});

test("a core that never started: the project's files decide (the failsafe's data), with its sentence", async () => {
  const dir = tmp();
  fs.mkdirSync(path.join(dir, ".orchestration"));
  fs.writeFileSync(path.join(dir, ".orchestration/active_intents.yaml"), "active_intents: []\n");
  const never = fake({ initMs: 100_000, before: () => new Promise(() => {}) });
  const p = createPlugin({ createHookwise: () => never.hw, guardMs: 50 });
  await p.setup({ registerTool() {} }, { workspaceInfo: { rootPath: dir } });
  const r = await p.hooks.beforeTool(toolCtx("editor", {}));
  assert.equal(r.skip, true);
  assert.match(r.reason, /hookwise could not start/);
  // read-only tools run under governance alone
  assert.equal(await p.hooks.beforeTool(toolCtx("read_files", {})), undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("sessions and models as Cline names them", () => {
  assert.equal(sessionOf({ snapshot: { conversationId: "c", agentId: "a" } }), "c");
  assert.equal(sessionOf({ agentId: "a" }), "a");
  assert.equal(modelOf({ messages: [{ modelInfo: { id: "m", provider: "p" } }, { role: "user" }] }), "p/m");
  assert.equal(modelOf({ messages: [{ modelInfo: { id: "p/m", provider: "p" } }] }), "p/m");
  assert.equal(modelOf({ messages: [] }), undefined);
});

test("init --cline writes the plugin file once, keeps it, and never overwrites someone else's", () => {
  const dir = tmp();
  const o = { global: false, distDir: "/x/dist" };
  const first = initCline(dir, o);
  assert.deepEqual(first.changes.map((c) => c.action), ["created"]);
  assert.equal(fs.readFileSync(path.join(dir, REL), "utf8"), pluginText(o));
  // the project's own hookwise, found without Node's walk up every parent folder (issue 38)
  assert.doesNotMatch(pluginText(o), /require\("hookwise\/cline"\)/);
  assert.match(pluginText(o), /function findHookwise\(d, rel\)[\s\S]*"dist\/cline\.cjs"\);\n[\s\S]*export default require\(at\)\.createPlugin\(\);/);
  assert.match(pluginText({ global: true, distDir: "/x/dist" }), /require\("\/x\/dist\/cline\.cjs"\)/);
  const again = initCline(dir, o);
  assert.deepEqual(again.changes, []);
  assert.ok(again.lines.some((l) => /up to date/.test(l)));
  // the file an earlier hookwise wrote (Node's resolution): rewritten
  const { OLD_LOCAL } = require("../../js/cline-init.cjs");
  fs.writeFileSync(path.join(dir, REL), OLD_LOCAL);
  const upgraded = initCline(dir, o);
  assert.deepEqual(upgraded.changes.map((c) => c.action), ["updated"]);
  assert.equal(fs.readFileSync(path.join(dir, REL), "utf8"), pluginText(o));
  fs.writeFileSync(path.join(dir, REL), "export default {name: 'mine'}\n");
  const mine = initCline(dir, o);
  assert.deepEqual(mine.changes, []);
  assert.ok(mine.lines.some((l) => /not hookwise's/.test(l)));
  assert.equal(fs.readFileSync(path.join(dir, REL), "utf8"), "export default {name: 'mine'}\n");
  fs.rmSync(dir, { recursive: true, force: true });
});

// The real core (pkg/), as an attacker writes run_commands: every form Cline runs, the SOP's
// command hidden in a later item or behind a quote opened in an earlier one.
const distCline = path.join(path.dirname(require.resolve("../../js/cline.cjs")), "../pkg/dist/cline.cjs");
test("the real core reads every form of run_commands and every command of the list", { skip: !fs.existsSync(distCline) && "no pkg/: run npm run build" }, async () => {
  const dir = tmp();
  fs.mkdirSync(path.join(dir, ".hookwise/sops"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, ".hookwise/sops/force.md"),
    "---\nid: force-push\ncategory: process\nmatch:\n  patterns: ['git\\s+push\\s.*--force']\n---\n# Force-pushing\n\n## Preflight\n1. Say so (FORCE-MARKER).\n",
  );
  const p = require(distCline).createPlugin();
  await p.setup({ registerTool() {} }, { workspaceInfo: { rootPath: dir } });
  let n = 0;
  for (const input of [
    "git push --force a",
    ["ls", "git push --force b"],
    { cmd: "git push --force c" },
    { command: "git push --force d" },
    { commands: "git push --force e" },
    { commands: [{ command: "git", args: ["push", "--force", "f"] }] },
    [{ command: "git", args: ["push", "--force", "g"] }],
    { commands: ["echo 'x", "git push --force h #'"] },
    // a here-document over three items, fed to a shell: code
    { commands: ["ls", "bash <<EOF", "git push --force i", "EOF"] },
  ]) {
    const r = await p.hooks.beforeTool(toolCtx("run_commands", input, `atk${n++}`));
    assert.ok(r && r.skip && /FORCE-MARKER/.test(r.reason), `${JSON.stringify(input)} → ${JSON.stringify(r)}`);
  }
  // allowed: each command line runs confined by the kernel (issue 38), unchanged inside
  const fine = await p.hooks.beforeTool(toolCtx("run_commands", { commands: ["ls", "echo ok"] }, "fine"));
  assert.deepEqual(fine.input.commands.map(unconfined), ["ls", "echo ok"]);
  assert.ok(!fine.skip && fine.input.commands.every((c) => /hookwise-native' sandbox/.test(c)), JSON.stringify(fine));
  // fed to cat, the same here-document is data, as Cline joins it
  const data = await p.hooks.beforeTool(toolCtx("run_commands", { commands: ["cat <<EOF", "git push --force j", "EOF"] }, "data"));
  assert.ok(!data?.skip, JSON.stringify(data));
  fs.rmSync(dir, { recursive: true, force: true });
});

// The OpenCode plugin's hooks, called the way OpenCode calls them, against the fake maenifold.
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, fakeEnv, recordingClient, loadPlugin, tmpdir } from "./helpers.mjs";

const require = createRequire(import.meta.url);

// The plugin runs in OpenCode's environment: each test sets process.env for its whole run
// (node:test runs the tests of a file one after another).
// These tests check the per-call CLI path (its payloads, its faults): the warm MCP session
// has its own (mcp.test.mjs).
process.env.HOOKWISE_TRANSPORT = "cli";
const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

async function start(env, options = {}) {
  Object.assign(process.env, env);
  const plugin = await loadPlugin();
  const rec = recordingClient();
  const hooks = await plugin.server({ client: rec.client, directory: tmpdir(), worktree: tmpdir() }, options);
  return { hooks, rec };
}

test("the module exports exactly one thing: the default { id, server }", async () => {
  const mod = await import(path.join(dist, "index.mjs"));
  assert.deepEqual(Object.keys(mod), ["default"]);
  assert.equal(mod.default.id, "hookwise");
  assert.equal(typeof mod.default.server, "function");
});

test("bash: [[concepts]] arrive as comment lines and the command does exactly the same", async () => {
  const f = fakeEnv();
  const { hooks } = await start(f.env);
  const original = "printf '%s\\n' \"[[auth]] ok\" | tr a-z A-Z; [[ -n x ]] && echo tested";
  const output = { args: { command: original, description: "d" } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c1" }, output);
  assert.notEqual(output.args.command, original);
  assert.ok(output.args.command.endsWith(original));
  assert.match(output.args.command, /^# <!-- Knowledge Graph Context \(hookwise\) -->/);
  assert.match(output.args.command, /\[\[jwt\]\]/);
  const run = (c) => execFileSync("bash", ["-c", c], { encoding: "utf8" });
  assert.equal(run(output.args.command), run(original));
  assert.equal(output.args.description, "d");
  const calls = f.calls().filter((c) => c.tool);
  assert.deepEqual(calls.map((c) => c.payload.conceptName), ["auth"], "the shell test [[ -n x ]] is not a concept");
});

test("write: the file content is never altered; the context comes with the tool's result", async () => {
  const { hooks } = await start(fakeEnv().env);
  const content = "# Notes\n\nSee [[auth]] and [[REST API]].\n";
  const before = { args: { filePath: "/tmp/x.md", content } };
  await hooks["tool.execute.before"]({ tool: "write", sessionID: "s", callID: "w1" }, before);
  assert.deepEqual(before.args, { filePath: "/tmp/x.md", content });
  const after = { title: "x.md", output: "Wrote file successfully.", metadata: {} };
  await hooks["tool.execute.after"]({ tool: "write", sessionID: "s", callID: "w1", args: before.args }, after);
  assert.ok(after.output.startsWith("Wrote file successfully.\n\n<!-- Knowledge Graph Context (hookwise) -->"));
  assert.match(after.output, /## \[\[auth\]\]/);
  assert.match(after.output, /## \[\[rest-api\]\]/);
});

test("task: the prompt gets the delimited block", async () => {
  const { hooks } = await start(fakeEnv().env);
  const out = { args: { description: "fix", prompt: "Harden [[auth]] please", subagent_type: "general" } };
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s", callID: "t1" }, out);
  assert.match(out.args.prompt, /^<!-- Knowledge Graph Context \(hookwise\) -->\n## \[\[auth\]\]/);
  assert.ok(out.args.prompt.endsWith("\n\nHarden [[auth]] please"));
  assert.equal(out.args.description, "fix");
});

test("no CLI: everything works unchanged and exactly one warning is logged", async () => {
  const { hooks, rec } = await start({ PATH: tmpdir(), HOME: tmpdir(), MAENIFOLD_ROOT: tmpdir(), MAENIFOLD_CLI: "" });
  for (let i = 0; i < 5; i++) {
    const out = { args: { command: "echo [[auth]]" } };
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: `c${i}` }, out);
    assert.equal(out.args.command, "echo [[auth]]");
    const after = { output: "x" };
    await hooks["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: `c${i}` }, after);
    assert.equal(after.output, "x");
  }
  assert.equal(rec.logs.length, 1);
  assert.equal(rec.logs[0].level, "warn");
  assert.equal(rec.logs[0].service, "hookwise");
});

test("a CLI that hangs or errors: the call proceeds unchanged within the deadline, one warning", async () => {
  for (const fault of ["BuildContext:hang", "BuildContext:error", "BuildContext:garbage", "BuildContext:crash"]) {
    const { hooks, rec } = await start(fakeEnv({ FAKE_MAENIFOLD_FAULT: fault }).env, { deadlineMs: 800 });
    const out = { args: { command: "echo [[auth]] [[jwt]]" } };
    const t0 = Date.now();
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, out);
    assert.ok(Date.now() - t0 < 4000, `${fault}: took ${Date.now() - t0} ms`);
    assert.equal(out.args.command, "echo [[auth]] [[jwt]]", fault);
    const warns = rec.logs.filter((l) => l.level === "warn");
    assert.equal(warns.length, 1, `${fault}: ${JSON.stringify(rec.logs)}`);
  }
});

test("calls with no concepts never reach the CLI", async () => {
  const f = fakeEnv();
  const { hooks } = await start(f.env);
  const out = { args: { command: "ls -la", nested: { list: ["[single]", "[[]]"] } } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, out);
  assert.equal(out.args.command, "ls -la");
  assert.equal(f.calls().filter((c) => c.tool).length, 0);
});

test("the engine API works from require() with a host-supplied runner", async () => {
  const { createEngine } = require(path.join(dist, "engine.cjs"));
  const seen = [];
  const runner = async (argv) => {
    seen.push(argv);
    return { success: true, stdout: "Context for CONCEPT: auth\n\nDirect relations (1 CONCEPTS):\n  • jwt (co-occurs in 2 files)\n", stderr: "", exitCode: 0, timedOut: false, durationMs: 1 };
  };
  const e = await createEngine({ options: { cliPath: process.execPath }, runner, cwd: "/" });
  const args = { prompt: "about [[auth]]" };
  const r = await e.augmentToolCall({ tool: "my_mcp_tool", args });
  assert.equal(args.prompt, "about [[auth]]", "the caller's object is not mutated");
  assert.match(r.args.prompt, /## \[\[auth\]\]\nRelated: \[\[jwt\]\] \(2 files\)/);
  assert.deepEqual(r.concepts, ["auth"]);
  assert.equal(seen[0][1], "--tool");
  assert.equal(seen[0][2], "BuildContext");
});

test("a call re-issued as the history shows it gets one fresh block, and the answer comes from the cache", async () => {
  const f = fakeEnv();
  const { hooks } = await start(f.env);
  const out = { args: { command: "echo [[auth]]" } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c1" }, out);
  const first = out.args.command;
  assert.match(first, /\[\[jwt\]\]/);
  // The model repeats its (rewritten) call.
  const again = { args: { command: first } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c2" }, again);
  assert.equal(again.args.command, first, "one block, not two; the block's links were not looked up");
  const calls = f.calls().filter((c) => c.tool === "BuildContext").map((c) => c.payload.conceptName);
  assert.deepEqual(calls, ["auth"], "the second call was answered from the cache");
  // Markdown blocks too: a task prompt quoting an earlier block.
  const task = { args: { prompt: "Fix [[auth]]" } };
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s", callID: "t1" }, task);
  const t2 = { args: { prompt: task.args.prompt } };
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s", callID: "t2" }, t2);
  assert.equal(t2.args.prompt, task.args.prompt);
  assert.equal(t2.args.prompt.split("<!-- Knowledge Graph Context (hookwise) -->").length, 2);
});

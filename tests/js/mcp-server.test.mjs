// `hookwise mcp` (js/mcp-server.cjs) and `hookwise hook` / `init --claude` through the built
// package (pkg/dist), driven the way Claude Code 2.1.330 drives them (checked against the real
// program): newline-delimited JSON-RPC; `server/discover` (id `server-discover-probe-1`) first,
// then `initialize` (2025-11-25), `notifications/initialized`, `tools/list`; each mcp_tool hook
// a `tools/call` whose arguments are the hook's templated input (every value a string,
// `tool_input` as JSON text); on exit SIGINT and stdin closed. The real-CLI suite is
// tests/e2e-claude/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { dist, tmpdir, writeFiles, noCliEnv, nodeBinary, alive } from "./helpers.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const T = { timeout: 120_000 };
const NODE = nodeBinary();
const CLI = path.join(dist, "cli.mjs");

/** A running `hookwise mcp`: `ask(method, params)` resolves with the response. */
function server(cwd, env = {}) {
  const child = spawn(NODE, [CLI, "mcp"], { cwd, env: { ...noCliEnv(), ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let buf = "";
  let next = 1;
  const waiting = new Map();
  const lines = [];
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) !== -1) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const msg = JSON.parse(line); // every line is one JSON message
      lines.push(msg);
      const w = waiting.get(msg.id);
      if (w) {
        waiting.delete(msg.id);
        w(msg);
      }
    }
  });
  const exited = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })));
  return {
    child,
    lines,
    exited,
    get stderr() {
      return stderr;
    },
    send(obj) {
      child.stdin.write(JSON.stringify(obj) + "\n");
    },
    ask(method, params, id = next++) {
      const p = new Promise((r) => waiting.set(id, r));
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }) + "\n");
      return p;
    },
    async hook(tool, input) {
      const r = await this.ask("tools/call", { name: tool, arguments: input });
      assert.ok(!r.error, JSON.stringify(r));
      return r.result;
    },
  };
}

/** The templated input of a tool hook, as Claude Code sends it. */
function toolInput(tool, input, id, session = "s1") {
  return { hook_event_name: "PreToolUse", session_id: session, transcript_path: "", cwd: "", tool_name: tool, tool_input: JSON.stringify(input), tool_use_id: id };
}

const text = (r) => r.content[0].text;

async function startup(s) {
  const d = await s.ask("server/discover", {}, "server-discover-probe-1");
  assert.equal(d.error.code, -32601, "an unknown method is answered, not fatal");
  const i = await s.ask("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "claude-code", version: "2.1.330" } });
  assert.equal(i.result.protocolVersion, "2025-11-25");
  assert.equal(i.result.serverInfo.name, "hookwise");
  s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return (await s.ask("tools/list", {})).result.tools;
}

test("the server speaks MCP, serves the hook tools with a warm vault and exits cleanly on stdin close", T, async () => {
  const project = tmpdir("hookwise-claude-");
  const vault = writeFiles(tmpdir("hookwise-vault-"), { "auth.md": "# Auth\n\n[[auth]] uses [[jwt]] tokens signed with RS256.\n" });
  const s = server(project, { HOOKWISE_VAULT: vault });
  const tools = await startup(s);
  const names = tools.map((t) => t.name);
  for (const n of ["hook_pre_tool_use", "hook_post_tool_use", "hook_user_prompt_submit", "hook_pre_compact", "hook_session_start"]) assert.ok(names.includes(n), `${n} in ${names}`);
  assert.ok(!names.includes("select_active_intent"), "governance is off");
  // the hook endpoints say so; the model's own tools (the knowledge tools, with a vault) do not
  for (const t of tools.filter((t) => t.name.startsWith("hook_"))) assert.match(t.description, /Never call it yourself/);
  for (const n of ["knowledge_search", "knowledge_context", "knowledge_read"]) assert.ok(names.includes(n), `${n} in ${names}`);
  assert.ok(!names.includes("knowledge_remember"), "off by default");
  assert.deepEqual((await s.ask("ping")).result, {});
  // an older client gets its own version
  assert.equal((await s.ask("initialize", { protocolVersion: "2024-11-05" })).result.protocolVersion, "2024-11-05");
  assert.equal((await s.ask("initialize", { protocolVersion: "1999-01-01" })).result.protocolVersion, "2025-11-25");

  const pre = await s.hook("hook_pre_tool_use", toolInput("Bash", { command: "echo '[[auth]]'" }, "t1"));
  const h = JSON.parse(text(pre)).hookSpecificOutput;
  assert.equal(h.hookEventName, "PreToolUse");
  assert.match(h.additionalContext, /RS256/);
  assert.equal(h.updatedInput, undefined, "the command runs unchanged");
  const none = await s.hook("hook_pre_tool_use", toolInput("Bash", { command: "ls" }, "t2"));
  assert.deepEqual(JSON.parse(text(none)), {});
  const sub = await s.hook("hook_pre_tool_use", toolInput("Agent", { prompt: "Look at [[auth]]", description: "d", subagent_type: "general-purpose" }, "t3"));
  const su = JSON.parse(text(sub)).hookSpecificOutput;
  assert.equal(su.permissionDecision, undefined, "Claude Code's own permission rules decide (issue 38)");
  assert.match(su.updatedInput.prompt, /RS256[\s\S]*Look at \[\[auth\]\]$/);
  const first = await s.hook("hook_user_prompt_submit", { hook_event_name: "UserPromptSubmit", session_id: "s1", cwd: project, transcript_path: "", model: "" });
  assert.equal(JSON.parse(text(first)).hookSpecificOutput?.hookEventName ?? "UserPromptSubmit", "UserPromptSubmit");

  // hostile calls are answered, never fatal
  s.child.stdin.write("{not json\n");
  s.send({ jsonrpc: "2.0", id: 99, method: "tools/call", params: { name: "hook_pre_tool_use", arguments: { tool_input: "[".repeat(100000) } } });
  const unknown = await s.ask("tools/call", { name: "no_such_tool", arguments: {} });
  assert.equal(unknown.result.isError, true);
  const bad = await s.ask("tools/call", { name: "hook_pre_tool_use", arguments: "x" });
  assert.ok(bad.result, JSON.stringify(bad));
  assert.ok(s.lines.some((l) => l.id === null && l.error && l.error.code === -32700), "a parse error is answered");

  s.child.stdin.end();
  const ex = await s.exited;
  assert.equal(ex.code, 0, s.stderr);
});

test("SIGINT (as Claude Code sends at exit) stops the server and the processes it started", T, async () => {
  const project = tmpdir("hookwise-claude-");
  const s = server(project);
  await startup(s);
  s.child.kill("SIGINT");
  const ex = await s.exited;
  assert.equal(ex.code, 0, s.stderr);
  assert.ok(!alive(s.child.pid));
});

test("governance through the server: denied without an intent, select_active_intent over MCP, a record inside the scope", T, async () => {
  const project = writeFiles(tmpdir("hookwise-claude-"), {
    ".orchestration/active_intents.yaml": "active_intents:\n  - id: INT-1\n    name: Auth\n    status: IN_PROGRESS\n    owned_scope: [\"src/**\"]\n",
  });
  const s = server(project);
  const tools = await startup(s);
  const sel = tools.find((t) => t.name === "select_active_intent");
  assert.ok(sel, "offered while governance is on");
  assert.deepEqual(sel.inputSchema.required, ["intent_id"]);
  const write = (p, id) => toolInput("Write", { file_path: path.join(project, p), content: "x\n" }, id);
  const denied = JSON.parse(text(await s.hook("hook_pre_tool_use", write("src/a.ts", "w1")))).hookSpecificOutput;
  assert.equal(denied.permissionDecision, "deny");
  assert.match(denied.permissionDecisionReason, /select_active_intent/);
  // the first prompt tells the server the session; the model's call carries none
  await s.hook("hook_user_prompt_submit", { hook_event_name: "UserPromptSubmit", session_id: "s1" });
  const picked = await s.ask("tools/call", { name: "select_active_intent", arguments: { intent_id: "INT-1" } });
  assert.ok(!picked.result.isError, JSON.stringify(picked));
  const outside = JSON.parse(text(await s.hook("hook_pre_tool_use", write("docs/x.md", "w2")))).hookSpecificOutput;
  assert.equal(outside.permissionDecision, "deny");
  assert.deepEqual(JSON.parse(text(await s.hook("hook_pre_tool_use", write("src/a.ts", "w3")))), {});
  fs.mkdirSync(path.join(project, "src"), { recursive: true });
  fs.writeFileSync(path.join(project, "src/a.ts"), "x\n");
  await s.hook("hook_post_tool_use", { ...write("src/a.ts", "w3"), hook_event_name: "PostToolUse" });
  const trace = traceText(project).trim().split("\n");
  assert.equal(trace.length, 1);
  assert.equal(JSON.parse(trace[0]).files[0].path, "src/a.ts");
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0);
});

test("hookwise hook <Event>: a command hook reads the payload on stdin and answers on stdout", T, async () => {
  const project = writeFiles(tmpdir("hookwise-claude-"), {
    ".orchestration/active_intents.yaml": "active_intents:\n  - id: INT-1\n    name: Auth\n    status: IN_PROGRESS\n    owned_scope: [\"src/**\"]\n",
  });
  const payload = { session_id: "s1", cwd: project, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: path.join(project, "x.ts"), content: "x" }, tool_use_id: "t1" };
  // Claude Code runs a command hook in the project (and sets CLAUDE_PROJECT_DIR); the hook's own
  // process answers (the warm server has its own suite: warm.test.mjs)
  const env = (extra = {}) => noCliEnv({ HOOKWISE_WARM: "0", ...extra });
  const out = execFileSync(NODE, [CLI, "hook", "PreToolUse"], { input: JSON.stringify(payload), env: env(), cwd: project, encoding: "utf8" });
  assert.equal(JSON.parse(out).hookSpecificOutput.permissionDecision, "deny");
  // the payload's cwd never moves the project: another folder is outside it, not ungoverned
  const elsewhere = tmpdir("hookwise-claude-other-");
  const moved = execFileSync(NODE, [CLI, "hook", "PreToolUse"], { input: JSON.stringify({ ...payload, cwd: elsewhere }), env: env({ CLAUDE_PROJECT_DIR: project }), cwd: elsewhere, encoding: "utf8" });
  assert.match(JSON.parse(moved).hookSpecificOutput.permissionDecisionReason, /outside the governed project/);
  const ok = execFileSync(NODE, [CLI, "hook", "UserPromptSubmit"], { input: "not json", env: env(), cwd: project, encoding: "utf8" });
  assert.ok(ok === "{}" || JSON.parse(ok).hookSpecificOutput, ok);
});

test("init --claude merges hooks and the server into the project's files, never overwriting", T, async () => {
  const project = writeFiles(tmpdir("hookwise-claude-"), {
    ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Bash(ls:*)"] }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./mine.sh" }] }] } }),
    ".mcp.json": JSON.stringify({ mcpServers: { other: { type: "stdio", command: "x" } } }),
  });
  const out = JSON.parse(execFileSync(NODE, [CLI, "init", "--claude", "--json"], { cwd: project, env: noCliEnv(), encoding: "utf8" }));
  assert.equal(out.failClosed, false);
  const settings = JSON.parse(fs.readFileSync(path.join(project, ".claude/settings.json"), "utf8"));
  assert.deepEqual(settings.permissions.allow, ["Bash(ls:*)"], "the user's rules kept");
  assert.ok(settings.permissions.deny.includes("mcp__hookwise__hook_pre_tool_use"), "hook tools hidden from the model");
  const local = JSON.parse(fs.readFileSync(path.join(project, ".claude/settings.local.json"), "utf8"));
  assert.deepEqual(local.permissions.allow, ["mcp__hookwise__select_active_intent"]);
  assert.equal(settings.hooks.PreToolUse.length, 2, "the user's hook kept");
  assert.equal(settings.hooks.PreToolUse[0].hooks[0].command, "./mine.sh");
  const ours = settings.hooks.PreToolUse[1].hooks[0];
  assert.equal(ours.type, "mcp_tool");
  assert.equal(ours.server, "hookwise");
  assert.equal(ours.input.tool_input, "${tool_input}");
  assert.equal(ours.onFailure, undefined, "knowledge only: fails open");
  assert.equal(settings.hooks.SessionStart[0].matcher, "compact");
  const mcp = JSON.parse(fs.readFileSync(path.join(project, ".mcp.json"), "utf8"));
  assert.ok(mcp.mcpServers.other, "the other server kept");
  // portable: the project's own hookwise, no path of this machine
  assert.equal(mcp.mcpServers.hookwise.command, "sh");
  const [c, script, ...rest] = mcp.mcpServers.hookwise.args;
  assert.deepEqual([c, rest], ["-c", []]);
  assert.ok(script.startsWith("h=node_modules/hookwise/dist/cli.mjs; d=${CLAUDE_PROJECT_DIR:-$PWD};") && script.includes('exec node "$d/$h" mcp;'), script);
  assert.ok(!JSON.stringify(mcp).includes(project) && !JSON.stringify(settings).includes(project), "no absolute path of this machine");
  assert.ok(out.changes.some((c) => c.action === "added"));
  // again: nothing changes
  const again = JSON.parse(execFileSync(NODE, [CLI, "init", "--claude", "--json"], { cwd: project, env: noCliEnv(), encoding: "utf8" }));
  assert.ok(again.changes.every((c) => c.action === "kept"), JSON.stringify(again.changes));
  // governance turned on: the PreToolUse hook now blocks when hookwise cannot answer
  writeFiles(project, { ".orchestration/active_intents.yaml": "active_intents: []\n" });
  const gov = JSON.parse(execFileSync(NODE, [CLI, "init", "--claude", "--json"], { cwd: project, env: noCliEnv(), encoding: "utf8" }));
  assert.equal(gov.failClosed, true);
  const s2 = JSON.parse(fs.readFileSync(path.join(project, ".claude/settings.json"), "utf8"));
  assert.equal(s2.hooks.PreToolUse.length, 2, "replaced, not added twice");
  assert.equal(s2.hooks.PreToolUse[1].hooks[0].onFailure, "block");
  // a file that is not JSON is left alone
  fs.writeFileSync(path.join(project, ".mcp.json"), "{broken");
  assert.throws(() => execFileSync(NODE, [CLI, "init", "--claude"], { cwd: project, env: noCliEnv(), encoding: "utf8", stdio: "pipe" }));
  assert.equal(fs.readFileSync(path.join(project, ".mcp.json"), "utf8"), "{broken");
});

test("a strict SOP in .hookwise/sops denies a force push once and the retry runs; .hookwise/hookwise.json is read", T, async () => {
  const project = writeFiles(tmpdir("hookwise-claude-"), {
    ".hookwise/hookwise.json": JSON.stringify({ enforcement: { level: "strict" } }),
    ".hookwise/sops/force.md": "---\nid: git-force-push\ncategory: process\nmatch:\n  tools: [Bash]\n  patterns: ['git\\s+push\\s.*(--force|-f\\b)']\n---\n# Force-pushing\n\n## Preflight\n1. Announce it in the team channel.\n",
  });
  const s = server(project);
  await startup(s);
  const push = (id) => toolInput("Bash", { command: "git push --force origin main", description: "push" }, id);
  const first = JSON.parse(text(await s.hook("hook_pre_tool_use", push("p1")))).hookSpecificOutput;
  assert.equal(first.permissionDecision, "deny", JSON.stringify(first));
  assert.match(first.permissionDecisionReason, /Announce it in the team channel/);
  const retry = JSON.parse(text(await s.hook("hook_pre_tool_use", push("p2"))));
  assert.notEqual(retry.hookSpecificOutput?.permissionDecision, "deny", JSON.stringify(retry));
  assert.ok(!fs.existsSync(path.join(project, ".opencode")), "no .opencode folder needed");
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0);
});

test("compaction: the guidance names the transcript's concepts, and what was kept comes back after it (.hookwise/knowledge vault)", T, async () => {
  const project = writeFiles(tmpdir("hookwise-claude-"), { ".hookwise/knowledge/auth.md": "# Auth\n\n[[auth]] uses [[jwt]].\n" });
  const home = tmpdir("hookwise-home-");
  const transcript = path.join(home, ".claude/projects/-p/s1.jsonl");
  writeFiles(home, {
    ".claude/projects/-p/s1.jsonl": [
      { type: "user", message: { role: "user", content: "Fix the [[auth]] flow" } },
      { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Done: [[auth]] now uses [[session-tokens]]." }, { type: "tool_use", id: "x", name: "Bash", input: {} }] } },
      { type: "summary", summary: "ignored" },
    ].map((l) => JSON.stringify(l)).join("\n") + "\n{torn",
  });
  const s = server(project);
  await startup(s);
  const pre = await s.hook("hook_pre_compact", { hook_event_name: "PreCompact", session_id: "s1", transcript_path: transcript, cwd: project, trigger: "auto" });
  assert.match(text(pre), /\[\[auth\]\]/);
  assert.throws(() => JSON.parse(text(pre)), "plain text: Claude Code adds it to the summary's instructions");
  const after = JSON.parse(text(await s.hook("hook_session_start", { hook_event_name: "SessionStart", session_id: "s1", source: "compact" })));
  assert.equal(after.hookSpecificOutput.hookEventName, "SessionStart");
  assert.match(after.hookSpecificOutput.additionalContext, /\[\[auth\]\]/);
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0);
});

test("a core that cannot start denies PreToolUse where governance is configured (js/failsafe.cjs); elsewhere the hook fails (Claude Code's onFailure decides), never an empty answer", T, async () => {
  const governed = writeFiles(tmpdir("hookwise-claude-"), {
    ".orchestration/active_intents.yaml": "active_intents:\n  - id: INT-1\n    name: A\n    status: IN_PROGRESS\n    owned_scope: [src/**]\n",
  });
  const plain = writeFiles(tmpdir("hookwise-claude-"), { "README.md": "# x\n" });
  for (const project of [governed, plain]) {
  // the policy wasm cannot be read: the core never starts. In a process of its own (a wasm
  // once loaded stays loaded for the process).
  const script = `
const { createClaude } = require(${JSON.stringify(path.join(dist, "claude.cjs"))});
const claude = createClaude({ cwd: ${JSON.stringify(project)}, wasmPath: ${JSON.stringify(path.join(project, "missing", "hookwise_bg.wasm"))}, log: () => {} });
claude.hook("PreToolUse", { session_id: "s1", tool_name: "Write", tool_use_id: "t1", tool_input: { file_path: "docs/x.md", content: "x" } })
  .then(async (r) => { await claude.dispose(); process.stdout.write(JSON.stringify(r)); });
`;
  const r = JSON.parse(execFileSync(process.execPath, ["-e", script], { env: noCliEnv(), encoding: "utf8" }));
  if (project === governed) {
    assert.equal(r.ok, true, JSON.stringify(r));
    const out = JSON.parse(r.text).hookSpecificOutput;
    assert.equal(out.permissionDecision, "deny");
    assert.match(out.permissionDecisionReason, /hookwise blocked `Write`: hookwise could not start/);
  } else {
    assert.equal(r.ok, false, JSON.stringify(r));
    assert.match(r.text, /could not start/);
  }
  }
});

/** Write `text` in 1 MiB pieces, as a pipe delivers a long line. */
async function writeChunked(stream, text) {
  for (let i = 0; i < text.length; i += 1 << 20) {
    if (!stream.write(text.slice(i, i + (1 << 20)))) await new Promise((r) => stream.once("drain", r));
  }
}

test("a long line is read in linear time; one over the cap gets an error for its id and the server goes on", { timeout: 300_000 }, async () => {
  const s = server(tmpdir("hookwise-claude-"));
  await startup(s);
  // 63 MiB in one request (under the 64 MiB cap): answered
  const big = "x".repeat(63 * 1024 * 1024);
  let t0 = Date.now();
  const p1 = new Promise((r) => {
    const iv = setInterval(() => {
      const m = s.lines.find((l) => l.id === "big");
      if (m) (clearInterval(iv), r(m));
    }, 20);
  });
  await writeChunked(s.child.stdin, `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"${big}"}}\n`);
  const m1 = await p1;
  console.log(`# a 63 MiB request answered in ${Date.now() - t0} ms`);
  assert.deepEqual(m1.result, {});
  // 65 MiB: over the cap, an Invalid Request error for its id; the next request is answered
  t0 = Date.now();
  const over = "y".repeat(65 * 1024 * 1024);
  await writeChunked(s.child.stdin, `{"jsonrpc":"2.0","id":"over","method":"ping","params":{"pad":"${over}"}}\n`);
  const pong = await s.ask("ping");
  console.log(`# a 65 MiB request refused, the next answered in ${Date.now() - t0} ms`);
  assert.deepEqual(pong.result, {});
  const err = s.lines.find((l) => l.id === "over");
  assert.ok(err && err.error && err.error.code === -32600, JSON.stringify(err));
  s.child.stdin.end();
  await s.exited;
});

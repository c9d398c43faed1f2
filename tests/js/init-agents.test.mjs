// `hookwise init --codex | --gemini | --copilot | --qwen`, `hookwise init` finding the agents,
// `hookwise hook --host`, `hookwise doctor`'s agents, and the pinned dialect table the JS
// falls back on (js/dialects.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, repo, tmpdir, writeFiles, noCliEnv, nodeBinary } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const T = { timeout: 120_000 };
const NODE = nodeBinary();
const CLI = path.join(dist, "cli.mjs");

/** Run the cli in `project`; `{status, stdout, stderr, json}`. */
function cli(project, args, env = {}) {
  const r = spawnSync(NODE, [CLI, ...args], { cwd: project, env: noCliEnv(env), encoding: "utf8", timeout: 60_000 });
  let json = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {}
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

const read = (project, rel) => fs.readFileSync(path.join(project, rel), "utf8");
const readJson = (project, rel) => JSON.parse(read(project, rel));

/** hookwise "installed" in the project: node_modules/hookwise is the built package. */
function installed(project) {
  fs.mkdirSync(path.join(project, "node_modules"), { recursive: true });
  fs.symlinkSync(path.join(repo, "pkg"), path.join(project, "node_modules", "hookwise"));
  return project;
}

/** A portable hook entry: the line of shell that finds the project's
 * node_modules/hookwise/dist/hook.sh and runs it for `args` (`hook --host H Event`); returns
 * the entry. */
function launched(command, args) {
  const [, host, event] = /^hook --host (\S+) (\S+)$/.exec(args);
  assert.ok(command.startsWith("h=node_modules/hookwise/dist/hook.sh; d="), command);
  assert.ok(command.includes(`exec /bin/sh "$d/$h" ${host} ${event};`), command);
  return command;
}

/** A portable MCP entry: `sh -c <the same walk to dist/cli.mjs, run as mcp [--host H]>`. */
function launchedArgv(args, rest) {
  assert.equal(args.length, 2);
  assert.equal(args[0], "-c");
  assert.ok(args[1].startsWith("h=node_modules/hookwise/dist/cli.mjs; d="), args[1]);
  assert.ok(args[1].includes(`exec node "$d/$h" ${rest.join(" ")};`), args[1]);
  assert.ok(args[1].endsWith("; exit 1"), args[1]);
  return args[1];
}

const noMachinePath = (project, text) => {
  assert.ok(!text.includes(project) && !text.includes(repo) && !text.includes(NODE), `a path of this machine in ${text}`);
};

test("init --codex merges hooks and the MCP table into .codex, never overwriting, portable", T, () => {
  const project = writeFiles(tmpdir("hookwise-codex-"), {
    ".codex/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./mine.sh" }] }] } }),
    ".codex/config.toml": 'model = "gpt-5.5"\n\n[mcp_servers.other]\ncommand = "x"\n',
  });
  const r = cli(project, ["init", "--codex", "--json"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.json.host, "codex");
  const hooks = readJson(project, ".codex/hooks.json").hooks;
  assert.equal(hooks.PreToolUse.length, 2, "the user's hook kept");
  assert.equal(hooks.PreToolUse[0].hooks[0].command, "./mine.sh");
  const ours = hooks.PreToolUse[1];
  assert.equal(ours.matcher, ".*");
  launched(ours.hooks[0].command, "hook --host codex PreToolUse");
  assert.equal(ours.hooks[0].timeout, 30);
  for (const e of ["PostToolUse", "UserPromptSubmit", "SessionStart", "PreCompact", "PostCompact"]) assert.ok(hooks[e], e);
  const toml = read(project, ".codex/config.toml");
  assert.ok(toml.startsWith('model = "gpt-5.5"\n\n[mcp_servers.other]\ncommand = "x"\n'), toml);
  assert.match(toml, /\[mcp_servers\.hookwise\]\ncommand = "sh"\nargs = \["-c", "h=node_modules\/hookwise\/dist\/cli\.mjs; .* mcp --host codex; .*"\]/);
  noMachinePath(project, read(project, ".codex/hooks.json") + toml);
  assert.match(r.json.trust, /trust_level = "trusted"/, "the trust step is printed, not taken");
  assert.ok(!fs.existsSync(path.join(r.json.cwd, ".codex", "trust")));
  // again: nothing changes
  const again = cli(project, ["init", "--codex", "--json"]);
  assert.ok(again.json.changes.every((c) => c.action === "kept"), JSON.stringify(again.json.changes));
  assert.equal(read(project, ".codex/config.toml"), toml);
  // the text report names each change and the note that hookwise is not installed here
  const text = cli(project, ["init", "--codex"]);
  assert.match(text.stdout, /kept \.codex\/hooks\.json/);
  assert.match(text.stdout, /npm install --save-dev hookwise/);
});

test("init --gemini and --qwen use the agent's project-folder variable; --global the hookwise on PATH", T, () => {
  const project = writeFiles(tmpdir("hookwise-gemini-"), { ".gemini/settings.json": JSON.stringify({ ui: { theme: "x" }, mcpServers: { other: { command: "y" } } }) });
  assert.equal(cli(project, ["init", "--gemini", "--qwen"]).status, 0);
  const g = readJson(project, ".gemini/settings.json");
  assert.deepEqual(g.ui, { theme: "x" });
  assert.ok(g.mcpServers.other);
  assert.equal(g.mcpServers.hookwise.command, "sh");
  assert.match(launchedArgv(g.mcpServers.hookwise.args, ["mcp", "--host", "gemini"]), /d=\$\{GEMINI_PROJECT_DIR:-\$PWD\};/);
  assert.deepEqual(Object.keys(g.hooks).sort(), ["AfterTool", "BeforeAgent", "BeforeTool", "SessionStart"]);
  const bt = g.hooks.BeforeTool[0].hooks[0];
  assert.match(launched(bt.command, "hook --host gemini BeforeTool"), /d=\$\{GEMINI_PROJECT_DIR:-\$PWD\};/);
  assert.equal(bt.timeout, 30000, "milliseconds");
  assert.equal(bt.name, "hookwise-BeforeTool");
  const q = readJson(project, ".qwen/settings.json");
  assert.match(launched(q.hooks.PreToolUse[0].hooks[0].command, "hook --host qwen PreToolUse"), /\$\{QWEN_PROJECT_DIR:-\$PWD\}/);
  assert.ok(q.hooks.PreCompact && !q.hooks.PostCompact);
  // --global: the hookwise on PATH, replacing hookwise's own entries (not adding twice)
  assert.equal(cli(project, ["init", "--gemini", "--global"]).status, 0);
  const g2 = readJson(project, ".gemini/settings.json");
  assert.equal(g2.hooks.BeforeTool.length, 1);
  assert.equal(g2.hooks.BeforeTool[0].hooks[0].command, "hookwise hook --host gemini BeforeTool");
  assert.deepEqual(g2.mcpServers.hookwise, { command: "hookwise", args: ["mcp", "--host", "gemini"] });
});

test("init --copilot writes its own hooks file in Claude's shape and .github/mcp.json", T, () => {
  const project = tmpdir("hookwise-copilot-");
  const r = cli(project, ["init", "--copilot", "--json"]);
  assert.equal(r.status, 0, r.stderr);
  const h = readJson(project, ".github/hooks/hookwise.json").hooks;
  assert.equal(h.PreToolUse[0].matcher, "*");
  launched(h.PreToolUse[0].hooks[0].command, "hook --host copilot PreToolUse");
  const m = readJson(project, ".github/mcp.json").mcpServers.hookwise;
  launchedArgv(m.args, ["mcp", "--host", "copilot"]);
  assert.deepEqual({ ...m, args: [] }, { command: "sh", args: [], type: "local", tools: ["*"] });
  assert.match(r.json.trust, /COPILOT_ALLOW_ALL/);
});

test("the portable entries find the project's hookwise from a sub-folder and from git worktrees; not found, the gate denies saying why", T, () => {
  const INTENTS = "active_intents:\n  - id: INT-1\n    name: Auth\n    status: IN_PROGRESS\n    owned_scope: [\"src/**\"]\n";
  const project = installed(writeFiles(tmpdir("hookwise-where-"), { ".orchestration/active_intents.yaml": INTENTS, "README.md": "# x\n", "sub/deep/.keep": "" }));
  assert.equal(cli(project, ["init", "--codex", "--gemini"]).status, 0);
  const git = (cwd, ...a) => execFileSync("git", ["-c", "user.email=t@e", "-c", "user.name=t", ...a], { cwd, encoding: "utf8" });
  git(project, "init", "-q");
  git(project, "add", "README.md", "sub", ".codex", ".gemini");
  git(project, "commit", "-q", "-m", "x");
  const outside = path.join(tmpdir("hookwise-wt-"), "w2");
  git(project, "worktree", "add", "-q", "-b", "w1", path.join(project, ".claude/worktrees/w1"));
  git(project, "worktree", "add", "-q", "-b", "w2", outside);
  const codex = readJson(project, ".codex/hooks.json").hooks;
  const pre = codex.PreToolUse[0].hooks[0].command;
  const prompt = codex.UserPromptSubmit[0].hooks[0].command;
  const gemini = readJson(project, ".gemini/settings.json").hooks.BeforeTool[0].hooks[0].command;
  const run = (cwd, command, event, payload, env = {}) =>
    spawnSync("/bin/sh", ["-c", command], { cwd, input: JSON.stringify({ session_id: "s1", cwd, hook_event_name: event, ...payload }), env: noCliEnv({ PATH: path.dirname(NODE), ...env }), encoding: "utf8", timeout: 60_000 });
  const write = (cwd) => ({ tool_name: "apply_patch", tool_input: { command: `*** Begin Patch\n*** Add File: ${path.join(cwd, "src/a.ts")}\n+x\n*** End Patch\n` }, tool_use_id: "c1" });
  for (const cwd of [path.join(project, "sub/deep"), path.join(project, ".claude/worktrees/w1"), outside, path.join(outside, "sub/deep")]) {
    const r = run(cwd, pre, "PreToolUse", write(cwd));
    assert.equal(r.status, 0, r.stderr);
    const a = JSON.parse(r.stdout);
    // hookwise ran, governed by the main checkout's intents: no intent selected yet (a worktree
    // outside the project: the core refuses a session there, saying so)
    assert.equal(a.hookSpecificOutput.permissionDecision, "deny", `${cwd}: ${r.stdout}`);
    assert.match(a.hookSpecificOutput.permissionDecisionReason, cwd.startsWith(outside) ? /outside the governed project/ : /select_active_intent/, cwd);
  }
  // a worktree whose .git names its git folder relatively (git's worktree.useRelativePaths)
  const w1 = path.join(project, ".claude/worktrees/w1");
  fs.writeFileSync(path.join(w1, ".git"), `gitdir: ${path.relative(w1, path.join(project, ".git/worktrees/w1"))}\n`);
  const rel = run(path.join(w1, "sub/deep"), pre, "PreToolUse", write(w1), {});
  assert.match(JSON.parse(rel.stdout).hookSpecificOutput.permissionDecisionReason, /select_active_intent/, rel.stdout + rel.stderr);
  // Gemini: from its project-folder variable (the worktree), whatever folder the hook runs in
  const g = run(tmpdir("hookwise-elsewhere-"), gemini, "BeforeTool", { tool_name: "write_file", tool_input: { file_path: path.join(outside, "src/a.ts"), content: "x" } }, { GEMINI_PROJECT_DIR: outside });
  assert.equal(JSON.parse(g.stdout).decision, "deny", g.stdout + g.stderr);
  assert.match(JSON.parse(g.stdout).reason, /outside the governed project/);
  // the MCP server from the outside worktree: it answers initialize
  const toml = read(project, ".codex/config.toml");
  const argv = JSON.parse("[" + /\nargs = \[(.*)\]/.exec(toml)[1] + "]");
  const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  const m = spawnSync("sh", argv, { cwd: path.join(outside, "sub"), input: init + "\n", env: noCliEnv({ PATH: `${path.dirname(NODE)}:/usr/bin:/bin` }), encoding: "utf8", timeout: 60_000 });
  assert.match(m.stdout, /"serverInfo"/, m.stderr);
  // not installed (the clone without npm install): the gate denies with the reason; others fail open
  fs.rmSync(path.join(project, "node_modules"), { recursive: true });
  const nf = run(path.join(project, "sub"), pre, "PreToolUse", write(project));
  assert.equal(nf.status, 0);
  const reason = JSON.parse(nf.stdout).hookSpecificOutput.permissionDecisionReason;
  assert.match(reason, /^hookwise blocked this call: hookwise is not installed where this session runs .*run npm install in the project/);
  assert.match(nf.stderr, /hookwise is not installed/);
  const open = run(project, prompt, "UserPromptSubmit", { prompt: "hi" });
  assert.equal(open.status, 0);
  assert.equal(open.stdout, "", "context fails open");
  const mnf = spawnSync("sh", argv, { cwd: project, input: init + "\n", env: noCliEnv({ PATH: `${path.dirname(NODE)}:/usr/bin:/bin` }), encoding: "utf8", timeout: 60_000 });
  assert.equal(mnf.status, 1);
  assert.match(mnf.stderr, /hookwise is not installed/);
});

test("a settings file with comments or that is not an object is refused and left as it was", T, () => {
  const withComments = '{\n  // the user\'s note\n  "ui": {"theme": "x"}\n}\n';
  const project = writeFiles(tmpdir("hookwise-refuse-"), { ".gemini/settings.json": withComments, ".qwen/settings.json": "[1, 2]" });
  const r = cli(project, ["init", "--gemini"]);
  assert.notEqual(r.status, 0);
  assert.match(r.stdout + r.stderr, /not plain JSON/);
  assert.equal(read(project, ".gemini/settings.json"), withComments);
  const q = cli(project, ["init", "--qwen"]);
  assert.notEqual(q.status, 0);
  assert.match(q.stdout + q.stderr, /not a JSON object/);
  assert.equal(read(project, ".qwen/settings.json"), "[1, 2]");
  // a TOML file naming the server inline: left alone, the table to use is printed
  writeFiles(project, { ".codex/config.toml": '[mcp_servers]\nhookwise = { command = "x" }\n' });
  const c = cli(project, ["init", "--codex"]);
  assert.notEqual(c.status, 0);
  assert.match(c.stdout + c.stderr, /\[mcp_servers\.hookwise\]/);
  assert.equal(read(project, ".codex/config.toml"), '[mcp_servers]\nhookwise = { command = "x" }\n');
  assert.ok(fs.existsSync(path.join(project, ".codex/hooks.json")), "the hooks file is still merged");
});

test("init with no agent flag sets up each agent found in the project or on PATH", T, () => {
  const project = writeFiles(tmpdir("hookwise-found-"), { ".gemini/.keep": "", ".codex/.keep": "" });
  const bin = tmpdir("hookwise-bin-");
  fs.writeFileSync(path.join(bin, "qwen"), "#!/bin/sh\n", { mode: 0o755 });
  const r = cli(project, ["init", "--json"], { PATH: bin });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.deepEqual(r.json.agents.map((a) => a.host).sort(), ["codex", "gemini", "qwen"]);
  for (const f of [".codex/hooks.json", ".gemini/settings.json", ".qwen/settings.json"]) assert.ok(fs.existsSync(path.join(project, f)), f);
  assert.ok(!fs.existsSync(path.join(project, ".github")) && !fs.existsSync(path.join(project, ".claude")), "agents not found are left alone");
  assert.ok(fs.existsSync(path.join(project, "opencode.json")), "OpenCode as before");
});

test("hook --host answers in the host's dialect; an unknown host is a usage error", T, () => {
  const project = writeFiles(tmpdir("hookwise-hook-"), { ".orchestration/active_intents.yaml": "active_intents:\n  - id: INT-1\n    name: Auth\n    status: IN_PROGRESS\n    owned_scope: [\"src/**\"]\n" });
  const run = (host, event, payload) => execFileSync(NODE, [CLI, "hook", "--host", host, event], { cwd: project, input: JSON.stringify({ session_id: "s1", cwd: project, hook_event_name: event, ...payload }), env: noCliEnv(), encoding: "utf8" });
  const g = JSON.parse(run("gemini", "BeforeTool", { tool_name: "write_file", tool_input: { file_path: path.join(project, "src/a.ts"), content: "x" } }));
  assert.equal(g.decision, "deny", JSON.stringify(g));
  assert.match(g.reason, /select_active_intent/);
  const c = JSON.parse(run("codex", "PreToolUse", { tool_name: "apply_patch", tool_input: { command: "*** Begin Patch\n*** Add File: src/a.ts\n+x\n*** End Patch\n" }, tool_use_id: "c1" }));
  assert.deepEqual(Object.keys(c), ["hookSpecificOutput"]);
  assert.equal(c.hookSpecificOutput.permissionDecision, "deny");
  const cp = JSON.parse(run("copilot", "UserPromptSubmit", { prompt: "hi" }));
  assert.match(cp.additionalContext, /intent_context/, JSON.stringify(cp));
  assert.equal(cp.hookSpecificOutput, undefined);
  const bad = spawnSync(NODE, [CLI, "hook", "--host", "nope", "PreToolUse"], { input: "{}", env: noCliEnv(), encoding: "utf8" });
  assert.equal(bad.status, 2);
});

test("doctor lists each agent set up and times one hook round trip, run as the agent runs it", T, () => {
  const project = installed(tmpdir("hookwise-doctor-"));
  const env = { PATH: path.dirname(NODE) };
  assert.equal(cli(project, ["init", "--codex", "--gemini"], env).status, 0);
  const r = cli(project, ["doctor", "--json"], env);
  assert.equal(r.status, 0, r.stderr);
  const by = Object.fromEntries(r.json.agents.map((a) => [a.host, a]));
  assert.deepEqual(Object.keys(by).sort(), ["codex", "gemini"]);
  for (const a of Object.values(by)) {
    assert.equal(a.ok, true, JSON.stringify(a));
    assert.ok(a.ms > 0);
  }
  assert.equal(by.gemini.event, "BeforeAgent");
  const text = cli(project, ["doctor"], env).stdout;
  assert.match(text, /agent codex: set up in \.codex\/hooks\.json; UserPromptSubmit round trip [\d.]+ ms/);
});

test("js/dialects.json: each host's deny, filled in as the glue fills it, is one JSON answer that blocks", () => {
  const { denyAnswer, emptyAnswer, DIALECTS } = require(path.join(repo, "js", "claude.cjs"));
  const reason = 'hookwise could not check "x"\n<tag> {reason} \\';
  for (const host of ["claude-code", "codex", "gemini", "copilot", "qwen"]) {
    const v = JSON.parse(denyAnswer(host, reason));
    if (host === "gemini") assert.deepEqual(v, { decision: "deny", reason });
    else assert.deepEqual(v.hookSpecificOutput, { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason });
    assert.ok(DIALECTS[host].preToolEvent);
  }
  assert.equal(emptyAnswer("claude-code", "PreCompact"), "");
  assert.equal(emptyAnswer("codex", "PreCompact"), "{}");
});

test("mcp --host: another agent's server offers the model tools and none of Claude Code's hook tools", T, async () => {
  const project = writeFiles(tmpdir("hookwise-mcp-host-"), { ".orchestration/active_intents.yaml": "active_intents: []\n" });
  const { spawn } = await import("node:child_process");
  const child = spawn(NODE, [CLI, "mcp", "--host", "gemini"], { cwd: project, env: noCliEnv(), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  const got = new Promise((resolve) => child.stdout.on("data", (c) => ((out += c), out.includes('"id":2') && resolve())));
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } }) + "\n");
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }) + "\n");
  await got;
  child.stdin.end();
  const list = out.trim().split("\n").map((l) => JSON.parse(l)).find((m) => m.id === 2).result.tools.map((t) => t.name);
  assert.ok(list.includes("select_active_intent"), list.join(", "));
  assert.ok(!list.some((n) => n.startsWith("hook_")), list.join(", "));
  await new Promise((r) => child.on("exit", r));
});

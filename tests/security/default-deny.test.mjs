// Issue 29, critical 3 and 4, and the unreadable hook input, in the REAL Claude Code 2.1.330
// (pinned, offline, scripted API), with the packed package set up by `hookwise init --claude`:
//   A. the project (INT-1 owns src/auth/**), mcp_tool hooks. With no intent: Monitor running
//      `echo … > README.md`, EnterWorktree, a forged call of the PostToolUse hook tool; then what
//      must keep working: Read, select_active_intent (no intent needed), an in-scope Write
//      (recorded once).
//   B. the session started inside a git worktree of the project (`.claude/worktrees/w1`, which has
//      no intents file): Bash writing `../../../README.md` with no intent, mcp_tool hooks and
//      command hooks alike — the worktree is governed by the project's intents, not switched off.
//   C. `hookwise hook PreToolUse` (the installed command, as Claude Code runs a command hook) fed
//      input it cannot read: null, an array, not JSON, empty, no tool_name, over 64 MiB → a deny
//      in Claude Code's exact shape; the same input without governance → `{}`.
//
//   npm run build && node --test --test-concurrency=1 tests/security/default-deny.test.mjs
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { e2eGate, assertRunOk, makeSandbox } from "../e2e-claude/lib/claude.mjs";
import { hookwiseProject, SERVER } from "../e2e-claude/lib/hookwise.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { INTENTS, LOGIN } from "../e2e-shared/fixtures.mjs";
import { pathWithoutMaenifold } from "../e2e-shared/env.mjs";

const suiteSkip = suiteGate(e2eGate(), "security default-deny", "claude");
const SELECT = `mcp__${SERVER}__select_active_intent`;
const README = "# demo\n";
const FILES = { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "", "README.md": README };

/** The tool's result in the run; it was denied by hookwise's PreToolUse hook. */
function assertDenied(r, id, tool) {
  const got = r.afterTool(id);
  assert.ok(got, `no result for ${id}\n${r.describe()}`);
  const { result } = got;
  assert.equal(result.isError, true, `${tool} ran: ${JSON.stringify(result)}\n${r.describe()}`);
  // "PreToolUse:<tool> hook error: <reason>", or the reason alone (as for Monitor)
  assert.match(result.content, new RegExp(`^(PreToolUse:${tool} hook error: )?(\\[[^\\]]*\\]: )?hookwise blocked`), result.content);
  return result.content;
}

function assertRan(r, id, tool) {
  const got = r.afterTool(id);
  assert.ok(got, `no result for ${id}\n${r.describe()}`);
  assert.equal(got.result.isError, false, `${tool} was refused: ${JSON.stringify(got.result)}\n${r.describe()}`);
  return got.result.content;
}

const traceLines = (dir) => {
  return traceRecordsOf(dir);
};

describe("default deny and the fixed root in the real Claude Code", { skip: suiteSkip }, () => {
  let sb, r;
  before(async () => {
    sb = hookwiseProject({ git: true, files: FILES });
    const abs = (rel) => path.join(sb.dir, rel);
    r = await sb.run({
      prompt: "Add the login form.",
      allowedTools: `Bash Write Edit Read Monitor EnterWorktree ${SELECT} mcp__${SERVER}__hook_post_tool_use`,
      script: (req) => {
        switch (req.toolResults().length) {
          case 0:
            return { tool: "Monitor", id: "toolu_monitor", input: { command: `echo pwned > ${abs("README.md")}`, description: "watch" } };
          case 1:
            return { tool: "EnterWorktree", id: "toolu_enter", input: { name: "w1" } };
          case 2:
            return { tool: `mcp__${SERVER}__hook_post_tool_use`, id: "toolu_forged", input: { tool_name: "Write", tool_input: JSON.stringify({ file_path: abs("README.md"), content: README }), tool_use_id: "toolu_forged_write", session_id: "x", cwd: sb.dir } };
          case 3:
            return { tool: "Read", id: "toolu_read", input: { file_path: abs("README.md") } };
          case 4:
            return { tool: SELECT, id: "toolu_select", input: { intent_id: "INT-1" } };
          case 5:
            return { tool: "Write", id: "toolu_in", input: { file_path: abs("src/auth/login.ts"), content: LOGIN } };
          default:
            return "done";
        }
      },
    });
  });
  after(() => sb?.cleanup());

  test("Monitor running a shell command with no intent is denied; README.md unchanged", () => {
    assertRunOk(assert, r);
    const m = assertDenied(r, "toolu_monitor", "Monitor");
    assert.match(m, /select_active_intent/);
    assert.equal(sb.read("README.md"), README);
  });

  test("EnterWorktree with no intent is denied; no worktree was made", () => {
    assertDenied(r, "toolu_enter", "EnterWorktree");
    assert.ok(!sb.exists(".claude/worktrees/w1"), "no worktree");
  });

  test("a call of the PostToolUse hook tool by the model records nothing", () => {
    const got = r.afterTool("toolu_forged");
    assert.ok(got, r.describe());
    assert.equal(got.result.isError, true, `the model's call of a hook tool ran: ${JSON.stringify(got.result)}`);
    assert.equal(traceLines(sb.dir).filter((x) => x.metadata?.["dev.hookwise"]?.call_id === "toolu_forged_write").length, 0);
  });

  test("nothing legitimate is newly blocked: Read, select_active_intent with no intent, an in-scope Write recorded once", () => {
    assert.match(assertRan(r, "toolu_read", "Read"), /demo/);
    assert.match(assertRan(r, "toolu_select", SELECT), /INT-1/);
    assertRan(r, "toolu_in", "Write");
    assert.equal(sb.read("src/auth/login.ts"), LOGIN);
    const recs = traceLines(sb.dir);
    assert.equal(recs.length, 1, JSON.stringify(recs));
    assert.equal(recs[0].files[0].path, "src/auth/login.ts");
    assert.equal(recs[0].metadata["dev.hookwise"].call_id, "toolu_in");
  });
});

/** The project with a linked worktree at .claude/worktrees/w1 carrying the hook set-up (as if committed). */
function worktreeProject(initArgs) {
  const sb = hookwiseProject({ git: true, files: FILES, initArgs });
  const wt = path.join(sb.dir, ".claude/worktrees/w1");
  execFileSync("git", ["worktree", "add", "-q", "-b", "w1", wt], { cwd: sb.dir, env: sb.gitEnv });
  // the intents are the main checkout's alone (as when .orchestration/ is not committed)
  fs.rmSync(path.join(wt, ".orchestration"), { recursive: true, force: true });
  for (const f of [".claude/settings.json", ".claude/settings.local.json", ".mcp.json"]) {
    if (sb.exists(f)) {
      fs.mkdirSync(path.dirname(path.join(wt, f)), { recursive: true });
      fs.copyFileSync(path.join(sb.dir, f), path.join(wt, f));
    }
  }
  assert.ok(!fs.existsSync(path.join(wt, ".orchestration/active_intents.yaml")), "the worktree has no intents file");
  return { sb, wt };
}

for (const [mode, initArgs] of [
  ["mcp_tool hooks", []],
  ["command hooks", ["--command"]],
]) {
  describe(`a session in a worktree of the project is governed by the project (${mode})`, { skip: suiteSkip }, () => {
    let sb, wt, r;
    before(async () => {
      ({ sb, wt } = worktreeProject(initArgs));
      r = await sb.run({
        prompt: "Tidy up.",
        cwd: wt,
        allowedTools: "Bash Write Edit Read",
        script: (req) => {
          switch (req.toolResults().length) {
            case 0:
              return { tool: "Bash", id: "toolu_bash", input: { command: "echo pwned > ../../../README.md", description: "x" } };
            case 1:
              return { tool: "Write", id: "toolu_write", input: { file_path: path.join(sb.dir, "docs/new.md"), content: "pwned\n" } };
            case 2:
              return { tool: "Read", id: "toolu_read", input: { file_path: path.join(wt, "README.md") } };
            default:
              return "done";
          }
        },
      });
    });
    after(() => sb?.cleanup());

    test("the session cannot change the main checkout from the worktree", () => {
      assertRunOk(assert, r);
      assert.ok(!sb.exists("docs/new.md"));
      assert.equal(sb.read("README.md"), README);
      assert.equal(fs.readFileSync(path.join(wt, "README.md"), "utf8"), README);
    });

    test("Bash writing ../../../README.md and a Write into the main checkout are denied (no intent)", () => {
      assertRunOk(assert, r);
      assert.match(assertDenied(r, "toolu_bash", "Bash"), /select_active_intent/);
      assertDenied(r, "toolu_write", "Write");
      assert.ok(!sb.exists("docs/new.md"));
      assert.equal(sb.read("README.md"), README);
      assert.equal(fs.readFileSync(path.join(wt, "README.md"), "utf8"), README);
    });

    test("a read in the worktree still runs", () => {
      assert.match(assertRan(r, "toolu_read", "Read"), /demo/);
    });
  });
}

describe("hook input the command hook cannot read", { skip: suiteSkip }, () => {
  let gov, plain;
  before(() => {
    gov = hookwiseProject({ git: true, files: FILES, initArgs: ["--command"] });
    plain = makeSandbox({ files: { "README.md": README }, env: { PATH: pathWithoutMaenifold() } });
  });
  after(() => {
    gov?.cleanup();
    plain?.cleanup();
  });

  const hook = (sb, bin, input) =>
    spawnSync(process.execPath, [bin, "hook", "PreToolUse"], { cwd: sb.dir, env: { ...sb.env, CLAUDE_PROJECT_DIR: sb.dir }, input, encoding: "utf8", maxBuffer: 1 << 20, timeout: 120_000 });
  const bin = (sb) => {
    const dir = path.join(gov.dir, "node_modules", "hookwise");
    const m = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    return path.join(dir, typeof m.bin === "string" ? m.bin : m.bin.hookwise);
  };
  const BAD = [
    ["null", "null"],
    ["an array", "[1,2]"],
    ["not JSON", "{not json"],
    ["empty", ""],
    ["no tool_name", JSON.stringify({ session_id: "s", tool_input: { command: "echo > README.md" } })],
    ["a tool_name that is not text", JSON.stringify({ session_id: "s", tool_name: ["Bash"], tool_input: {} })],
  ];

  test("under governance each is a deny with a reason, in Claude Code's exact shape", () => {
    const b = bin(gov);
    const big = Buffer.alloc(64 * 1024 * 1024 + 16, 0x20);
    for (const [what, input] of [...BAD, ["over 64 MiB", big]]) {
      const t0 = Date.now();
      const out = hook(gov, b, input);
      assert.equal(out.status, 0, `${what}: ${out.stderr}`);
      const v = JSON.parse(out.stdout);
      assert.deepEqual(Object.keys(v), ["hookSpecificOutput"], `${what}: ${out.stdout}`);
      const h = v.hookSpecificOutput;
      assert.deepEqual([h.hookEventName, h.permissionDecision], ["PreToolUse", "deny"], `${what}: ${out.stdout}`);
      assert.match(h.permissionDecisionReason, /hook input could not be read/, what);
      console.log(`# ${what}: denied in ${Date.now() - t0} ms`);
    }
  });

  test("without governance or enforcement the same input is let through ({})", () => {
    const b = bin(gov);
    for (const [what, input] of BAD) {
      const out = hook(plain, b, input);
      assert.equal(out.status, 0, `${what}: ${out.stderr}`);
      assert.equal(out.stdout, "{}", `${what}: ${out.stdout}`);
    }
  });
});

// OpenCode 1.18.33 (real, offline, scripted model): default deny lets through what changes nothing
// and hookwise's own tool, and an in-scope write still runs and is recorded once.
import { e2eGate as opencodeGate, runOpencode, assertRunOk as assertOpencodeRun } from "../e2e/lib/opencode.mjs";
import { installPacked } from "./lib/pkg.mjs";
import os from "node:os";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

describe("nothing legitimate is newly blocked in the real OpenCode", { skip: suiteGate(opencodeGate(), "security default-deny opencode", "opencode") }, () => {
  let r;
  before(async () => {
    const pkg = installPacked("hookwise-sec-deny-oc-");
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-sec-deny-home-"));
    r = await runOpencode({
      prompt: "Add the login form.",
      plugins: [{ tarball: pkg.tarball, install: "cache" }],
      env: { PATH: pathWithoutMaenifold(), HOME: home, MAENIFOLD_ROOT: path.join(home, "none") },
      git: true,
      files: FILES,
      script: (req) => {
        switch (req.toolResults().length) {
          case 0:
            return { tool: "read", id: "call_read", args: { filePath: "README.md" } };
          case 1:
            return { tool: "grep", id: "call_grep", args: { pattern: "demo" } };
          case 2:
            return { tool: "glob", id: "call_glob", args: { pattern: "**/*.md" } };
          case 3:
            return { tool: "select_active_intent", id: "call_select", args: { intent_id: "INT-1" } };
          case 4:
            return { tool: "write", id: "call_in", args: { filePath: "src/auth/login.ts", content: LOGIN } };
          default:
            return "done";
        }
      },
      timeoutMs: 60_000,
    });
  });
  after(() => r?.cleanup?.());

  test("read, grep, glob and select_active_intent run with no intent; the in-scope write runs, recorded once", () => {
    assertOpencodeRun(r);
    for (const id of ["call_read", "call_grep", "call_glob", "call_select", "call_in"]) {
      const u = r.toolUses().find((x) => x.callID === id);
      assert.ok(u, `${id} was called\n${r.describe()}`);
      // grep and glob run ripgrep, which this offline machine may lack: what counts is that
      // hookwise did not block them
      if (id === "call_grep" || id === "call_glob") assert.doesNotMatch(String(u.error ?? ""), /hookwise/i, `${id}: ${JSON.stringify(u)}`);
      else assert.equal(u.status, "completed", `${id}: ${JSON.stringify(u)}\n${r.describe()}`);
    }
    assert.equal(fs.readFileSync(path.join(r.dir, "src/auth/login.ts"), "utf8"), LOGIN);
    const recs = traceLines(r.dir);
    assert.equal(recs.length, 1, JSON.stringify(recs));
    assert.equal(recs[0].files[0].path, "src/auth/login.ts");
  });
});

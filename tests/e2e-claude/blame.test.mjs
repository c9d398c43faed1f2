// `hookwise trace blame` after real hosts wrote (issue 28), offline against the scripted models:
// one git project, hookwise packed and installed, set up by `hookwise init --claude` and
// `hookwise init --codex` (one chain for both). Two CLI runs:
//   1. Claude Code 2.1.330: select INT-1, Write src/app.ts; select INT-2, Edit one line of it;
//   2. Codex (when installed): select INT-1, apply_patch adding two lines at the end;
// then a person edits a line in place and adds one at the top, commits, and
// `hookwise trace blame src/app.ts --json` (the installed package's CLI) gets every line: the
// intent, the host, the model — and `changed` for the person's edit, nothing for their line.
//
//   node --test --test-concurrency=1 tests/e2e-claude/blame.test.mjs   (needs pkg/: `npm run build`)
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { e2eGate, assertRunOk } from "./lib/claude.mjs";
import { hookwiseProject, SERVER } from "./lib/hookwise.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { HOSTS, cliGate, runAgent, assertRunOk as assertAgentOk } from "../e2e-shared/agents.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e-claude blame", "claude");
const codex = cliGate("codex");

const INTENTS = `active_intents:
  - id: INT-1
    name: Login form
    status: IN_PROGRESS
    owned_scope: [src/**]
  - id: INT-2
    name: Rate limits
    status: IN_PROGRESS
    owned_scope: [src/**]
`;
const SELECT = `mcp__${SERVER}__select_active_intent`;
const APP = "export function login(user) {\n  const token = sign(user);\n  audit(user);\n  return token;\n}\n";

describe("trace blame after real hosts wrote", { skip: suiteSkip }, () => {
  let sb, claude, cx, blame;

  before(async () => {
    sb = hookwiseProject({ git: true, files: { ".orchestration/active_intents.yaml": INTENTS, ".gitignore": ".orchestration/\nnode_modules/\n", "src/.keep": "" } });
    const app = sb.abs("src/app.ts");
    const local = sb.exists(".claude/settings.local.json") ? JSON.parse(sb.read(".claude/settings.local.json")) : {};
    const allowed = (local.permissions?.allow ?? []).includes(SELECT);
    claude = await sb.run({
      prompt: "Write the login, then rate-limit it.",
      allowedTools: `Write Edit Read${allowed ? "" : ` ${SELECT}`}`,
      script: (req) => {
        switch (req.toolResults().length) {
          case 0:
            return { tool: SELECT, id: "toolu_s1", input: { intent_id: "INT-1" } };
          case 1:
            return { tool: "Write", id: "toolu_w", input: { file_path: app, content: APP } };
          case 2:
            return { tool: SELECT, id: "toolu_s2", input: { intent_id: "INT-2" } };
          case 3:
            return { tool: "Read", id: "toolu_r", input: { file_path: app } };
          case 4:
            return { tool: "Edit", id: "toolu_e", input: { file_path: app, old_string: "  audit(user);\n", new_string: "  limit(user, 5);\n  audit(user);\n" } };
          default:
            return "done";
        }
      },
    });
    if (!codex.skip) {
      const bin = path.join(sb.dir, "node_modules", ".bin", "hookwise");
      sb.initCodex = execFileSync(bin, ["init", "--codex"], { cwd: sb.dir, env: sb.env, encoding: "utf8", timeout: 60_000 });
      sb.host = "codex";
      sb.recipe = HOSTS.codex;
      const patch = "*** Begin Patch\n*** Update File: src/app.ts\n@@\n   return token;\n }\n+\n+export const logout = () => drop();\n*** End Patch\n";
      cx = await runAgent(sb, {
        prompt: "Add the logout.",
        modelName: HOSTS.codex.writeModel,
        script: [...HOSTS.codex.mcp("select_active_intent", { intent_id: "INT-1" }), { custom: "apply_patch", input: patch }, "done"],
      });
    }
    // a person edits one line in place, adds one at the top, and commits
    const now = fs.readFileSync(app, "utf8").replace("  return token;", "  return token; // reviewed").replace(/^/, "// (c) ACME\n");
    fs.writeFileSync(app, now);
    execFileSync("git", ["add", "-A"], { cwd: sb.dir, env: sb.gitEnv });
    execFileSync("git", ["commit", "-qm", "work"], { cwd: sb.dir, env: sb.gitEnv });
    const out = execFileSync(path.join(sb.dir, "node_modules", ".bin", "hookwise"), ["trace", "blame", "src/app.ts", "--json"], { cwd: sb.dir, env: sb.env, encoding: "utf8" });
    blame = JSON.parse(out);
    const table = execFileSync(path.join(sb.dir, "node_modules", ".bin", "hookwise"), ["trace", "blame", "src/app.ts"], { cwd: sb.dir, env: sb.env, encoding: "utf8" });
    console.log(table.replace(/^/gm, "# "));
  });

  after(() => sb?.cleanup());

  const line = (n) => blame.lines[n - 1];
  const who = (l) => (l.state === "unattributed" ? "-" : `${l.state}:${l.intent?.id}:${l.host}`);

  test("Claude Code wrote under two intents; a person's edit and line are told apart", () => {
    assertRunOk(assert, claude);
    assert.equal(blame.ok, true, JSON.stringify(blame));
    assert.equal(blame.verify.ok, true, JSON.stringify(blame.verify));
    const want = [
      "-", // (c) ACME, the person's
      "agent:INT-1:claude-code", // export function login(user) {
      "agent:INT-1:claude-code", //   const token = sign(user);
      "agent:INT-2:claude-code", //   limit(user, 5);
      "agent:INT-2:claude-code", //   audit(user);  (the edit's new text spans it)
      "changed:INT-1:claude-code", //   return token; // reviewed
      "agent:INT-1:claude-code", // }
    ];
    assert.deepEqual(blame.lines.slice(0, 7).map(who), want, JSON.stringify(blame.lines, null, 1));
    const l = line(2);
    assert.deepEqual(l.intent, { id: "INT-1", name: "Login form" });
    assert.equal(l.tool, "Write");
    assert.equal(l.session, claude.sessionId);
    assert.match(l.model ?? "", /^claude-/, "the model, from Claude Code's transcript");
    assert.match(l.time, /Z$/);
    assert.equal(line(4).tool, "Edit");
    assert.deepEqual(line(4).intent, { id: "INT-2", name: "Rate limits" });
  });

  test("Codex's lines in the same chain name Codex", { skip: codex.skip }, () => {
    assertAgentOk(assert, cx);
    assert.deepEqual(blame.lines.slice(7).map(who), ["agent:INT-1:codex", "agent:INT-1:codex"], JSON.stringify(blame.lines.slice(7)));
    assert.equal(line(9).tool, "apply_patch");
    assert.equal(line(9).model, "gpt-5.5");
    const hosts = new Set(blame.lines.filter((l) => l.host).map((l) => l.host));
    assert.deepEqual([...hosts].sort(), ["claude-code", "codex"]);
    assert.equal(blame.records, 3);
  });
});

// Issue 39 with a real host: the real Claude Code (pinned, offline, scripted API; hookwise packed
// and set up by `hookwise init --claude`) writes on a branch of a git project while an agent of
// the engine API writes on main; the branch is merged — no conflict in .orchestration/, `trace
// verify` passes, blame names Claude Code's line (its session, on its branch) and the other
// agent's. Then main is rebased-merged the other way round for the same answer.
//
//   node --test --test-concurrency=1 tests/team-traces/claude.test.mjs   (needs pkg/ and the Claude Code cache)
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { e2eGate, assertRunOk } from "../e2e-claude/lib/claude.mjs";
import { hookwiseProject, SERVER } from "../e2e-claude/lib/hookwise.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { INTENTS, LOGIN } from "../e2e-shared/fixtures.mjs";
import { agent, git, gitTry, commit, assertClean, assertVerifies, blame, shape, records } from "./lib.mjs";

const suiteSkip = suiteGate(e2eGate(), "team-traces claude", "claude");
const SELECT = `mcp__${SERVER}__select_active_intent`;

describe("a branch written by the real Claude Code merged with one written through the engine API", { skip: suiteSkip }, () => {
  let sb, r;

  before(async () => {
    sb = hookwiseProject({ git: true, files: { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "", "README.md": "# demo\n" } });
    const abs = (rel) => path.join(sb.dir, rel);
    // what init wrote, committed (not the installed package)
    fs.appendFileSync(abs(".gitignore"), "node_modules/\n");
    commit(sb.dir, "hookwise set up");
    git(sb.dir, "branch", "-M", "main");
    git(sb.dir, "checkout", "-q", "-b", "claude");
    r = await sb.run({
      prompt: "Add the login form.",
      allowedTools: `Bash Write Edit Read ${SELECT}`,
      script: (req) => {
        switch (req.toolResults().length) {
          case 0:
            return { tool: SELECT, id: "toolu_select", input: { intent_id: "INT-1" } };
          case 1:
            return { tool: "Write", id: "toolu_in", input: { file_path: abs("src/auth/login.ts"), content: LOGIN } };
          default:
            return "done";
        }
      },
    });
  });

  after(() => sb?.cleanup());

  test("Claude Code's record on its branch, the engine agent's on main, merged: no conflict, verify passes, blame right", async () => {
    assertRunOk(assert, r);
    assert.equal(r.afterTool("toolu_in").result.isError, false, r.describe());
    const mine = records(sb.dir);
    assert.equal(mine.length, 1, JSON.stringify(mine));
    assert.equal(mine[0].metadata["dev.hookwise"].host, "claude-code");
    assert.equal(mine[0].metadata["dev.hookwise"].branch, "claude");
    commit(sb.dir, "login form (Claude Code)");
    // main moves on through another agent
    git(sb.dir, "checkout", "-q", "main");
    const bob = await agent(sb.dir, "bob", "INT-1");
    await bob.write("src/auth/session.ts", "export const ttl = 3600;\n");
    commit(sb.dir, "session (engine agent)");
    const m = gitTry(sb.dir, "merge", "--no-edit", "claude");
    assert.equal(m.code, 0, m.out);
    assertClean(sb.dir);
    await assertVerifies(sb.dir, 2, 2);
    const b = await blame(sb.dir, "src/auth/login.ts");
    assert.ok(b.lines.length > 0 && b.lines.every((l) => l.state === "agent" && l.host === "claude-code" && l.branch === "claude" && l.session === r.sessionId), JSON.stringify(b.lines[0]));
    assert.deepEqual(shape(await blame(sb.dir, "src/auth/session.ts")), ["a:INT-1:bob"]);
    // the other way: the claude branch rebased onto main, then fast-forwarded
    git(sb.dir, "reset", "-q", "--hard", "HEAD~1");
    git(sb.dir, "checkout", "-q", "claude");
    const rb = gitTry(sb.dir, "rebase", "main");
    assert.equal(rb.code, 0, rb.out);
    git(sb.dir, "checkout", "-q", "main");
    git(sb.dir, "merge", "-q", "--ff-only", "claude");
    assertClean(sb.dir);
    await assertVerifies(sb.dir, 2, 2);
    assert.equal((await blame(sb.dir, "src/auth/login.ts")).lines[0].host, "claude-code");
  });
});

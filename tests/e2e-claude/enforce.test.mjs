// Pre-action enforcement in the REAL Claude Code (pinned, offline, scripted API): hookwise packed,
// installed, set up by `hookwise init --claude`, with two SOPs in the project's host-neutral
// `.hookwise/sops/` — a strict one (process) for `git push --force` and an advisory one
// (technical) for `nginx-conf`. The scripted model makes four Bash calls:
//   1. git push --force … (harmless: --dry-run to a remote that does not exist) → denied, the SOP
//      text is the tool error the model reads;
//   2. the same call again → the retry is the acknowledgment: it runs, unchanged;
//   3. mkdir -p nginx-conf → runs, the advice reaches the model as additionalContext;
//   4. ls -la → read-only: nothing added.
// Issue 22 (c); one hookwise MCP server, none left (f).
//
//   node --test tests/e2e-claude/enforce.test.mjs     (needs pkg/: run `npm run build` first)
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { e2eGate, assertRunOk } from "./lib/claude.mjs";
import { hookwiseProject, contextAfter, assertOneServer, SERVER } from "./lib/hookwise.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { enforceSops, enforceScript, FORCE, ADVISED, READ_ONLY, FORCE_MARKER, ADVICE_MARKER } from "../e2e-shared/fixtures.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e-claude enforce", "claude");

// No `tools:` in the match: the SOPs are the same for every host.
const FILES = enforceSops(".hookwise/sops");

const script = enforceScript((id, command, description) => ({ tool: "Bash", id: `toolu_${id}`, input: { command, description } }));

describe("pre-action enforcement in the real Claude Code", { skip: suiteSkip }, () => {
  let sb, r;

  before(async () => {
    sb = hookwiseProject({ files: FILES });
    r = await sb.run({ prompt: "Push the branch.", script });
  });

  after(() => sb?.cleanup());

  test("init --claude made the enforcing hook fail closed", () => {
    const mine = sb
      .settings()
      .hooks.PreToolUse.flatMap((e) => e.hooks)
      .filter((h) => h.type === "mcp_tool" && h.server === SERVER);
    assert.equal(mine.length, 1);
    assert.equal(mine[0].onFailure, "block");
  });

  test("git push --force with a strict SOP is denied once; the model reads the SOP", () => {
    assertRunOk(assert, r);
    const { result } = r.afterTool("toolu_force1");
    assert.equal(result.isError, true, r.describe());
    assert.match(result.content, /^PreToolUse:Bash hook error: /);
    assert.ok(result.content.includes(FORCE_MARKER), `the SOP text is the tool error:\n${result.content}`);
    assert.match(result.content, /retry/i, "and says how to proceed");
    assert.ok(r.json.permission_denials.some((d) => d.tool_use_id === "toolu_force1"));
  });

  test("the retry runs, unchanged", () => {
    const { req, result } = r.afterTool("toolu_force2");
    assert.ok(!result.content.startsWith("PreToolUse:Bash hook error"), `not denied again:\n${result.content}`);
    assert.ok(!result.content.includes(FORCE_MARKER));
    assert.equal(req.toolUses().find((u) => u.id === "toolu_force2").input.command, FORCE);
    // it really ran: git answered (no repository / no such remote), not hookwise
    assert.match(result.content, /git|fatal|repository/i, result.content);
    assert.ok(!r.json.permission_denials.some((d) => d.tool_use_id === "toolu_force2"));
  });

  test("an advisory match runs, the advice reaches the model as context", () => {
    const { req, result } = r.afterTool("toolu_advised");
    assert.equal(result.isError, false, r.describe());
    assert.ok(fs.existsSync(path.join(sb.dir, "conf/nginx-conf")), "the command did what it says");
    assert.equal(req.toolUses().find((u) => u.id === "toolu_advised").input.command, ADVISED, "the command is untouched");
    const ctx = contextAfter(req, "toolu_advised", "PreToolUse:Bash").join("\n");
    assert.ok(ctx.includes(ADVICE_MARKER), `the advice in a system message after the result:\n${r.describe()}`);
  });

  test("a read-only command gets nothing added", () => {
    const { req, result } = r.afterTool("toolu_ro");
    assert.match(result.content, /\bconf\b/, "ls ran in the project");
    assert.deepEqual(contextAfter(req, "toolu_ro", "PreToolUse:Bash"), [], "no context after the ls result");
    assert.equal(req.toolUses().find((u) => u.id === "toolu_ro").input.command, READ_ONLY);
  });

  test("one hookwise MCP server for the run, none left after it", () => {
    assertOneServer(r);
  });
});

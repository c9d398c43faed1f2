// Intent governance in the REAL Claude Code (pinned, offline, scripted API): hookwise packed,
// installed into a git project that has .orchestration/active_intents.yaml, and set up by
// `hookwise init --claude`. One run, the scripted model:
//   1. Write src/auth/login.ts with no intent  → denied, the model reads why (select_active_intent);
//   2. calls mcp__hookwise__select_active_intent {intent_id: INT-1} — through MCP — and reads the scope;
//   3. Write src/auth/login.ts (inside the scope) → runs, leaves an Agent Trace record valid against
//      the schema;
//   4. Write README.md (outside the scope) → denied with a reason naming the file and the scope.
// Issue 22 (b); and one hookwise MCP server for the run, none left after it (f).
//
//   node --test tests/e2e-claude/governance.test.mjs     (needs pkg/: run `npm run build` first)
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { e2eGate, assertRunOk } from "./lib/claude.mjs";
import { hookwiseProject, hookContext, assertOneServer, SERVER } from "./lib/hookwise.mjs";
import { validate } from "../js/agent-trace-schema.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { INTENTS, LOGIN } from "../e2e-shared/fixtures.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e-claude governance", "claude");

const SELECT = `mcp__${SERVER}__select_active_intent`;

describe("intent governance in the real Claude Code", { skip: suiteSkip }, () => {
  let sb, r, allowFromInit;

  before(async () => {
    sb = hookwiseProject({ git: true, files: { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "", "README.md": "# demo\n" } });
    const abs = (rel) => path.join(sb.dir, rel);
    // In `-p`, Claude Code refuses an MCP tool the settings do not allow (and it reads allow rules for
    // them from .claude/settings.local.json or --allowedTools, not from the project's settings.json).
    const local = sb.exists(".claude/settings.local.json") ? JSON.parse(sb.read(".claude/settings.local.json")) : {};
    allowFromInit = (local.permissions?.allow ?? []).includes(SELECT);
    r = await sb.run({
      prompt: "Add the login form.",
      allowedTools: `Bash Write Edit Read${allowFromInit ? "" : ` ${SELECT}`}`,
      script: (req) => {
        switch (req.toolResults().length) {
          case 0:
            return { tool: "Write", id: "toolu_noint", input: { file_path: abs("src/auth/login.ts"), content: LOGIN } };
          case 1:
            return { tool: SELECT, id: "toolu_select", input: { intent_id: "INT-1" } };
          case 2:
            return { tool: "Write", id: "toolu_in", input: { file_path: abs("src/auth/login.ts"), content: LOGIN } };
          case 3:
            return { tool: "Write", id: "toolu_out", input: { file_path: abs("README.md"), content: "# changed\n" } };
          default:
            return "done";
        }
      },
    });
  });

  after(() => sb?.cleanup());

  const traceLines = () => {
    return traceRecordsOf(sb.dir);
  };

  test("init --claude made the governing hook fail closed and allowed select_active_intent", () => {
    const entries = sb.settings().hooks.PreToolUse.flatMap((e) => e.hooks);
    const mine = entries.filter((h) => h.type === "mcp_tool" && h.server === SERVER);
    assert.equal(mine.length, 1, JSON.stringify(entries));
    assert.equal(mine[0].onFailure, "block", "governance on: a hook with no usable answer blocks the call");
    // -p refuses an MCP tool the settings do not allow; init writes the rule where -p reads it
    assert.ok(allowFromInit, `init --claude allows ${SELECT} in .claude/settings.local.json`);
  });

  test("the first request tells the model to select an intent", () => {
    assertRunOk(assert, r);
    const ctx = hookContext(r.mainRequests()[0], "UserPromptSubmit").join("\n");
    assert.match(ctx, /select_active_intent/, r.describe());
    assert.match(ctx, /INT-1: Login form/);
    assert.ok(!/INT-2: Old docs —/.test(ctx), "a COMPLETE intent is not offered");
  });

  test("a Write with no intent is denied and the model reads why", () => {
    const { result } = r.afterTool("toolu_noint");
    assert.equal(result.isError, true, r.describe());
    assert.match(result.content, /^PreToolUse:Write hook error: /);
    assert.match(result.content, /select_active_intent/);
    assert.match(result.content, /INT-1/);
    assert.ok(r.json.permission_denials.some((d) => d.tool_use_id === "toolu_noint"), JSON.stringify(r.json.permission_denials));
  });

  test("select_active_intent works through MCP and returns the intent", () => {
    const { result } = r.afterTool("toolu_select");
    assert.equal(result.isError, false, `${JSON.stringify(result)}\n${r.describe()}`);
    assert.match(result.content, /INT-1/);
    assert.match(result.content, /src\/auth\/\*\*/);
    assert.match(result.content, /No new dependencies/);
  });

  test("a Write inside the scope runs and leaves one Agent Trace record valid against the schema", () => {
    const { result } = r.afterTool("toolu_in");
    assert.equal(result.isError, false, `${JSON.stringify(result)}\n${r.describe()}`);
    assert.equal(fs.readFileSync(path.join(sb.dir, "src/auth/login.ts"), "utf8"), LOGIN);
    const recs = traceLines();
    assert.equal(recs.length, 1, JSON.stringify(recs));
    const rec = recs[0];
    assert.deepEqual(validate(rec), [], JSON.stringify(rec));
    assert.equal(rec.files[0].path, "src/auth/login.ts");
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: sb.dir, encoding: "utf8" }).trim();
    assert.deepEqual(rec.vcs, { type: "git", revision: head });
    assert.equal(rec.tool.name, "hookwise");
    const conv = rec.files[0].conversations[0];
    assert.equal(conv.contributor.type, "ai");
    assert.deepEqual(
      conv.ranges.map((x) => [x.start_line, x.end_line]),
      [[1, 3]],
    );
    const meta = rec.metadata["dev.hookwise"];
    assert.equal(meta.intent_id, "INT-1");
    assert.equal(meta.call_id, "toolu_in", "the record names Claude Code's tool_use id");
    assert.equal(meta.session_id, r.sessionId, "and Claude Code's session id");
    assert.equal(meta.host, "claude-code", "and the host");
    // Claude Code's hooks carry no model id: the record reads it from the session's transcript
    // (its latest assistant turn), the model the scripted API answered as: the one requested
    assert.equal(conv.contributor.model_id, r.mainRequests()[0].model, "the record names the model Claude Code asked for");
    console.log(`# trace record: model_id ${JSON.stringify(conv.contributor.model_id)}, tool ${JSON.stringify(meta.tool)}, mutation_class ${meta.mutation_class}`);
  });

  test("a Write outside the scope is denied, naming the file and the scope", () => {
    const { result } = r.afterTool("toolu_out");
    assert.equal(result.isError, true, r.describe());
    assert.match(result.content, /^PreToolUse:Write hook error: /);
    assert.match(result.content, /README\.md/);
    assert.match(result.content, /src\/auth\/\*\*/);
    assert.equal(fs.readFileSync(path.join(sb.dir, "README.md"), "utf8"), "# demo\n");
    assert.equal(traceLines().length, 1, "a denied call leaves no record");
  });

  test("one hookwise MCP server for the run, none left after it", () => {
    assertOneServer(r);
  });
});

// Auto-compaction in the REAL Claude Code (pinned, offline, scripted API), hookwise packed,
// installed and set up by `hookwise init --claude`, the fake maenifold (tests/fake-maenifold) on
// PATH over its warm MCP session, answering from a private copy of its fixture ("Ledgerline").
//
// The prompt names [[auth]], [[REST API]] and a decision about [[jwt]]; the model runs one Bash
// call; its next request gets a one-shot HTTP 400 "prompt is too long", which starts Claude Code's
// reactive auto-compaction (checked in 2.1.330): PreCompact (trigger auto) → one summary request
// → SessionStart (source compact) → the request retried on the summary.
// What reaches the model, and where, is measured and printed (`# reach: …`):
//   - PreCompact: Claude Code adds a successful PreCompact hook's output to the summary request's
//     instructions — hookwise's preservation guidance and the session's concepts should be there;
//   - SessionStart(compact): its additionalContext lands in the first request after the compaction;
// and the compaction memory is filed with maenifold's WriteMemory. Issue 22 (e); (f) as everywhere.
//
//   node --test tests/e2e-claude/compaction.test.mjs     (needs pkg/: run `npm run build` first)
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { e2eGate, assertRunOk } from "./lib/claude.mjs";
import { hookwiseProject, fakeMaenifold, hookContext, assertOneServer } from "./lib/hookwise.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e-claude compaction", "claude");

const PRESERVATION = "## Knowledge Graph Preservation (hookwise)";
const GUIDANCE = "lowercase, hyphen-separated";
const PROMPT = "Harden [[auth]] for the [[REST API]]. We decided to use [[jwt]] instead of opaque session ids.";
const SUMMARY = "## Objective\n- scripted summary SUMMARY-MARKER";
const SCRIPT = [{ tool: "Bash", id: "toolu_ls", input: { command: "ls", description: "list" } }, { overflow: true }, "continued after compaction"];

const sessionConcepts = (block) => [...(/^Session concepts: (.*)$/m.exec(block)?.[1] ?? "").matchAll(/\[\[([^\]]+)\]\]/g)].map((m) => m[1]);

describe("auto-compaction in the real Claude Code", { skip: suiteSkip }, () => {
  let sb, r, fake;

  before(async () => {
    sb = hookwiseProject();
    fake = fakeMaenifold(sb.root);
    Object.assign(sb.env, fake.env);
    r = await sb.run({ prompt: PROMPT, script: SCRIPT, apiOptions: { summary: SUMMARY } });
  });

  after(() => sb?.cleanup());

  test("Claude Code compacted: main, main (overflow), summary, main on the summary", () => {
    assertRunOk(assert, r);
    assert.deepEqual(
      r.requests().map((q) => q.kind),
      ["main", "main", "summary", "main"],
      r.describe(),
    );
    assert.equal(r.json.result, "continued after compaction");
    assert.ok(r.mainRequests().at(-1).findText("SUMMARY-MARKER"), "the retried request starts from the summary");
  });

  test("reach: the summary request carries hookwise's preservation guidance and the session's concepts", () => {
    const [summary] = r.summaryRequests();
    const text = summary.lastUserText();
    const at = text.lastIndexOf(PRESERVATION);
    console.log(`# reach: preservation block in the summary request: ${at >= 0 ? "yes" : "NO"}`);
    assert.ok(at >= 0, `the summary instructions carry the block:\n${text.slice(-1500)}\n${r.describe()}`);
    const block = text.slice(at);
    assert.ok(block.includes(GUIDANCE), "tagging guidance");
    assert.deepEqual(sessionConcepts(block).sort(), ["auth", "jwt", "rest-api"], block);
    assert.match(block, /We decided to use \[\[jwt\]\] instead of opaque session ids\./);
  });

  test("reach: the first request after the compaction carries what was kept (SessionStart compact)", () => {
    const after = r.mainRequests().at(-1);
    const ctx = hookContext(after, "SessionStart").join("\n");
    console.log(`# reach: SessionStart(compact) context after the compaction: ${ctx ? `${ctx.length} chars` : "NONE"}`);
    assert.ok(ctx.length > 0, r.describe());
    assert.match(ctx, /\[\[auth\]\]/);
    assert.match(ctx, /\[\[jwt\]\]/);
    assert.match(ctx, /memory:\/\/sessions\/compaction\//, "names the compaction memory");
  });

  test("the compaction memory is filed with WriteMemory under sessions/compaction/YYYY/MM/DD", () => {
    const writes = fake.calls().filter((c) => c.event === "call" && /write_?memory/i.test(c.tool));
    assert.equal(writes.length, 1, JSON.stringify(fake.calls().map((c) => [c.mode, c.event, c.tool])));
    const w = writes[0];
    const folder = w.payload?.folder ?? w.args?.folder;
    assert.match(folder, /^sessions\/compaction\/\d{4}\/\d{2}\/\d{2}$/, JSON.stringify(w));
    const content = w.payload?.content ?? w.args?.content ?? "";
    assert.match(content, /\[\[auth\]\]/);
    const dir = path.join(fake.root, "memory", folder);
    assert.equal(fs.readdirSync(dir).length, 1, "the fake wrote the memory file");
  });

  test("one hookwise MCP server for the run, none left after it", () => {
    assertOneServer(r);
  });
});

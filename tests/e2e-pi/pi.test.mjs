// hookwise in the real pi (@mariozechner/pi-coding-agent 0.73.1, pinned in scripts/setup-clis.sh),
// headless (`pi -p`) and offline against the one scripted model (tests/e2e-shared/model.mjs, OpenAI
// chat completions), with the packed package installed in the project and set up by
// `hookwise init --pi` (a pi package entry in .pi/settings.json; pi loads dist/pi.ts in-process).
// Four runs of pi (two at a time), several checks each:
//
// knowledge + enforcement + compaction (the example vault in .hookwise/knowledge, the two SOPs in
// .hookwise/sops), two prompts in one session:
//   1. a bash call naming [[Session Tokens]] → runs unchanged; the note's context reaches the model
//      with the result (a);
//   2. git push --force … under a strict SOP → blocked; the model reads the SOP (c);
//   3. the same again → the retry runs (c);
//   the first answer reports a nearly full context window: before the second prompt pi compacts,
//   and hookwise's preservation block (the session's concepts and decisions) is in pi's summary
//   request (e); the first request carries the session-start context (d).
// governance (.orchestration/active_intents.yaml, in git):
//   1. a write before any intent is selected → blocked, the model reads why, the file is absent (b);
//   2. select_active_intent INT-1, a pi tool (pi has no MCP) → the scope (b);
//   3. a write inside the scope → runs; one Agent Trace record, schema-valid, naming pi and the
//      model (b);
//   4. an edit outside the scope → blocked, the file unchanged (b);
//   the first request carries the active intents (d).
// damaged installs, at once: the governance project again, its policy wasm corrupted (a write
// inside the scope is blocked with the failsafe's reason); the enforcement project, its
// dist/pi.cjs deleted (the entry's own failsafe blocks a bash call).
// `hookwise doctor` reports the extension, started as pi starts it, and the damage.
// Every run: nothing of the sandbox outlived pi (f).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { agentProject, cliGate, HOSTS, assertRunOk, assertNothingLeft } from "../e2e-shared/agents.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { vaultFiles, enforceSops, INTENTS, LOGIN, FORCE } from "../e2e-shared/fixtures.mjs";
import { VAULT_COMMAND, NOTE_PASSAGE, assertLoginRecord, assertSopOnce, assertGateBeforeIntent, assertOutsideBlocked } from "../e2e-shared/hook-suite.mjs";

const h = HOSTS.pi;
const skip = suiteGate(cliGate("pi"), "e2e-pi", "pi");
/** The model pi's extension context names (provider/id): the record's contributor. */
const MODEL = "mock/mock-1";
const FIRST_PROMPT = "Look at the notes, then push. We decided to use [[jwt]] instead of opaque session ids.";

describe("hookwise in the real pi", { skip }, () => {
  const ctx = { know: {}, gov: {}, broken: {} };

  before(async () => {
    const { know, gov, broken } = ctx;
    know.sb = agentProject("pi", { files: { ...vaultFiles(".hookwise/knowledge"), ...enforceSops(".hookwise/sops") } });
    gov.sb = agentProject("pi", { files: { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "", "README.md": "# demo\n" } });
    [know.r, gov.r] = await Promise.all([
      know.sb.run({
        prompt: [FIRST_PROMPT, "Carry on."],
        script: [h.shell(VAULT_COMMAND), h.shell(FORCE), h.shell(FORCE), { text: "pushed", usage: { prompt_tokens: 190000 } }, "carried on"],
      }),
      gov.sb.run({
        prompt: "Add the login form.",
        script: [
          h.write("src/auth/draft.ts", LOGIN),
          ...h.mcp("select_active_intent", { intent_id: "INT-1" }),
          h.write("src/auth/login.ts", LOGIN),
          h.write("README.md", "# changed\n", { exists: true, old: "# demo\n" }),
          "done",
        ],
      }),
    ]);
    // doctor starts the extension as pi does (before the installs below are damaged)
    know.doctor = execFileSync(path.join(know.sb.dir, "node_modules/.bin/hookwise"), ["doctor"], { cwd: know.sb.dir, env: know.sb.env, encoding: "utf8" });
    // A call hookwise cannot decide: the policy core does not load.
    fs.writeFileSync(path.join(gov.sb.dir, "node_modules/hookwise/dist/policy/hookwise_bg.wasm"), "not a wasm module");
    broken.sb = gov.sb;
    // The extension itself cannot load (the enforcement project, its dist/pi.cjs deleted): the
    // entry's own failsafe blocks.
    fs.rmSync(path.join(know.sb.dir, "node_modules/hookwise/dist/pi.cjs"));
    ctx.noAdapter = { sb: know.sb };
    [broken.r, ctx.noAdapter.r] = await Promise.all([
      gov.sb.run({ prompt: "Add the logout.", script: [h.write("src/auth/logout.ts", LOGIN), "done"] }),
      know.sb.run({ prompt: "List.", script: [h.shell("ls > listed.txt"), "done"] }),
    ]);
  });

  after(() => {
    ctx.know.sb?.cleanup();
    ctx.gov.sb?.cleanup();
  });

  /** The results the model read, in call order (the request that holds the most of them: the
   * last of the first prompt, before a compaction summarized them). */
  const results = (r) =>
    r.model
      .mainRequests()
      .reduce((a, q) => (q.toolResults().length > a.length ? q.toolResults() : a), [])
      .map((t) => t.content);

  test("init --pi wrote the pi package entry and said so", () => {
    const out = ctx.gov.sb.initOutput;
    assert.match(out, /\.pi\/settings\.json: the pi package "\.\.\/node_modules\/hookwise"/, out);
    assert.deepEqual(JSON.parse(ctx.gov.sb.read(".pi/settings.json")), { packages: ["../node_modules/hookwise"] });
    // again: kept, nothing rewritten
    const bin = path.join(ctx.know.sb.dir, "node_modules", ".bin", "hookwise");
    const again = execFileSync(bin, ["init", "--pi"], { cwd: ctx.know.sb.dir, env: ctx.know.sb.env, encoding: "utf8" });
    assert.match(again, /kept \.pi\/settings\.json/, again);
    // doctor starts the extension as pi does: the knowledge tools of the vault project…
    const { doctor } = ctx.know;
    assert.match(doctor, /agent pi: set up in \.pi\/settings\.json; extension start round trip [\d.]+ ms \(\d+ events; tools: knowledge_search/, doctor);
    // …and says so when the governed project's install is damaged (its policy wasm, below)
    // (the project's own hookwise: doctor starts only the hookwise it is, issue 38)
    const own = path.join(ctx.gov.sb.dir, "node_modules", ".bin", "hookwise");
    const damaged = execFileSync(own, ["doctor"], { cwd: ctx.gov.sb.dir, env: ctx.gov.sb.env, encoding: "utf8" });
    assert.match(damaged, /agent pi: .*FAILED .*hookwise did not start: .*governance or enforcement is configured: pi's calls are blocked/, damaged);
  });

  test("(a) a bash call naming [[concept]] runs unchanged, and the concept's context reaches the model with its result", () => {
    const { r } = ctx.know;
    assertRunOk(assert, r);
    const [first] = results(r);
    assert.match(first ?? "", /result:\[\[Session Tokens\]\]/, `the command ran as the model wrote it\n${r.describe()}`);
    const reqs = r.model.mainRequests();
    assert.ok(!reqs[0].findText(NOTE_PASSAGE), "not in the request before the call");
    assert.ok(reqs[1].toolResults()[0].content.includes(NOTE_PASSAGE), `the note's passage with the result\n${r.describe()}`);
    assert.ok(reqs[1].findText("[[session-tokens]]"), "named by its concept");
    // the call the model made is the call in its history, unchanged
    assert.deepEqual(reqs[1].toolCalls()[0].args, { command: VAULT_COMMAND });
  });

  test("(c) a strict SOP blocks git push --force once; the model reads it; the retry runs", () => {
    assertSopOnce(assert, ctx.know.r, results(ctx.know.r));
  });

  test("(d) the first model request carries the session-start context", () => {
    const reqs = ctx.gov.r.model.mainRequests();
    assert.ok(reqs[0].system.includes("INT-1: Login form"), `the active intents in the system prompt\n${ctx.gov.r.describe()}`);
    for (const q of reqs) assert.equal(q.system.split("INT-1: Login form").length, 2, "once in each request of the prompt");
  });

  test("(e) pi compacts headlessly between two prompts; its summary request carries the session's concepts and decisions", () => {
    const { r } = ctx.know;
    const summaries = r.model.auxRequests().filter((q) => /summar/i.test(q.lastUserText()));
    assert.ok(summaries.length >= 1, `pi sent a summary request\n${r.describe()}`);
    const s = summaries[0];
    assert.ok(s.findText("Knowledge Graph Preservation"), `hookwise's block in the summary request\n${s.lastUserText().slice(-2500)}`);
    assert.ok(s.findText("[[jwt]]") && s.findText("[[session-tokens]]"), "the session's concepts");
    assert.match(s.lastUserText(), /Decisions made in this session:\n- .*jwt/i, "the decision");
    // the second prompt ran after the compaction, on the summary
    const last = r.model.mainRequests().at(-1);
    assert.ok(last.seq > s.seq && last.lastUserText().includes("Carry on."), r.describe());
  });

  test("(b) a write before selecting an intent is blocked with a reason the model reads; the file is absent", () => {
    assertGateBeforeIntent(assert, ctx.gov.r, ctx.gov.sb, results(ctx.gov.r));
  });

  test("(b) select_active_intent is a pi tool and returns the intent", () => {
    const { r } = ctx.gov;
    assert.ok(r.model.mainRequests()[0].tools.includes("select_active_intent"), "offered to the model");
    const selected = results(r).find((t) => /INT-1/.test(t) && /src\/auth\/\*\*/.test(t));
    assert.ok(selected, `the intent's scope came back\n${r.describe()}`);
  });

  test("(b) a write inside the scope runs and leaves one Agent Trace record, valid, naming pi and the model", () => {
    const { r, sb } = ctx.gov;
    const { conv, meta } = assertLoginRecord({ r, sb });
    assert.equal(conv.contributor.model_id, MODEL, `the model pi ran: ${JSON.stringify(conv.contributor)}`);
    assert.equal(meta.host, "pi", JSON.stringify(meta));
  });

  test("(b) an edit outside the scope is blocked, naming the file and the scope; the file is unchanged", () => {
    assertOutsideBlocked(assert, ctx.gov.r, ctx.gov.sb, results(ctx.gov.r));
  });

  test("a damaged install (corrupt policy wasm) blocks the governed write with the failsafe's reason", () => {
    const { r, sb } = ctx.broken;
    assertRunOk(assert, r);
    assert.equal(sb.exists("src/auth/logout.ts"), false, `the write was blocked\n${r.describe()}`);
    const [first] = results(r);
    assert.match(first ?? "", /hookwise blocked `write`: hookwise could not start .*\.orchestration\/active_intents\.yaml/, r.describe());
    assert.match(r.stderr, /hookwise error: hookwise could not start/, "and pi's terminal says so");
  });

  test("an extension that cannot load its adapter (dist/pi.cjs deleted) still blocks under enforcement, from the entry's failsafe", () => {
    const { r, sb } = ctx.noAdapter;
    assertRunOk(assert, r);
    assert.equal(sb.exists("listed.txt"), false, `the command did not run\n${r.describe()}`);
    assert.match(results(r)[0] ?? "", /hookwise blocked `bash`: hookwise could not start .*\.hookwise\/sops/, r.describe());
    assert.match(r.stderr, /hookwise error: could not load its pi extension/);
  });

  test("(f) nothing of the sandbox outlived pi", () => {
    for (const [name, run] of Object.entries(ctx)) {
      assert.ok(run.r, name);
      assertNothingLeft(assert, run.r);
    }
    console.log(`# pi runs: ${Object.entries(ctx).map(([n, x]) => `${n} ${x.r.durationMs} ms`).join(", ")}`);
  });
});

// hookwise in the REAL Cline CLI (cline 3.0.65, pinned by scripts/setup-clis.sh), offline,
// against the scripted chat completions of ../e2e-shared/model.mjs, with the packed package set up
// by `hookwise init --cline` (the in-process plugin .cline/plugins/hookwise.js). Three runs of
// the CLI, two at once:
//
// knowledge + enforcement (the example vault, the two SOPs in .hookwise/sops):
//   1. run_commands naming [[Session Tokens]] → runs unchanged, the note's context reaches the
//      model (afterTool appendContext) (a);
//   2. run_commands ["ls", "git push --force …"] → the strict SOP blocks it: the second command
//      of the list is read too; the model reads the SOP (c);
//   3. the same list again → the retry runs (c);
// governance (.orchestration/active_intents.yaml, in git):
//   1. editor before any intent → blocked with the reason, the file absent (b);
//   2. select_active_intent (a plugin tool) → the scope (b);
//   3. editor inside the scope → written, one valid Agent Trace record naming cline and the model (b);
//   4. editor outside the scope → blocked, the file unchanged (b);
//   the first request carries the session-start context (beforeRun appendContext) (d);
// damaged (the governance project again, its policy wasm corrupted): a write is blocked with
// the failsafe's reason (f). Every run: nothing of the sandbox outlived the CLI (f).
// (e) compaction: Cline gives plugins no compaction stage (and maps its PreCompact hook file to
// no event), so there is nothing to test; docs/cline.md says so.
//
//   node --test --test-concurrency=1 tests/e2e-cline/     (needs pkg/: run `npm run build` first)
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import "./recipe.mjs";
import { agentProject, cliGate, HOSTS, assertRunOk, assertNothingLeft } from "../e2e-shared/agents.mjs";
import { vaultFiles, enforceSops, INTENTS, LOGIN, FORCE, FORCE_MARKER } from "../e2e-shared/fixtures.mjs";
import { VAULT_COMMAND, NOTE_PASSAGE } from "../e2e-shared/hook-suite.mjs";
import { validate } from "../js/agent-trace-schema.mjs";

const h = HOSTS.cline;
const gate = cliGate("cline");
if (gate.skip) console.log(`# e2e-cline ${gate.skip}`);
if (gate.error) test("Cline CLI is available (required when CI is set)", () => assert.fail(gate.error));
const skip = gate.skip || (gate.error ? "Cline CLI missing" : false);

describe("hookwise in the real Cline CLI", { skip }, () => {
  const know = {};
  const gov = {};
  const broken = {};

  before(async () => {
    know.sb = agentProject("cline", { files: { ...vaultFiles(".hookwise/knowledge"), ...enforceSops(".hookwise/sops") } });
    gov.sb = agentProject("cline", { files: { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "", "README.md": "# demo\n" } });
    const w = (rel, content, opts) => h.write(rel, content, opts, gov.sb);
    const push = h.commands(["ls", FORCE]);
    [know.r, gov.r] = await Promise.all([
      know.sb.run({ prompt: "Look at the notes, then push.", script: [h.shell(VAULT_COMMAND), push, push, "all done"] }),
      gov.sb.run({
        prompt: "Add the login form.",
        script: [
          w("src/auth/draft.ts", LOGIN),
          ...h.mcp("select_active_intent", { intent_id: "INT-1" }),
          w("src/auth/login.ts", LOGIN),
          w("README.md", "# changed\n", { exists: true, old: "# demo\n" }),
          "done",
        ],
      }),
    ]);
    // the policy core does not load: governance must still block
    fs.writeFileSync(path.join(gov.sb.dir, "node_modules/hookwise/dist/policy/hookwise_bg.wasm"), "not a wasm module");
    broken.sb = gov.sb;
    broken.r = await gov.sb.run({ prompt: "Add the logout.", script: [w("src/auth/logout.ts", LOGIN), "done"] });
  });

  after(() => {
    know.sb?.cleanup();
    gov.sb?.cleanup();
  });

  /** The tool results the model read, in call order (the last main request holds them all). */
  const results = (r) => r.model.mainRequests().at(-1)?.toolResults().map((t) => t.content) ?? [];
  /** Every text the model read after the tool results (Cline's `<hook_context>` messages too). */
  const texts = (q) => JSON.stringify(q.body.messages);

  test("init --cline wrote the plugin file and said so", () => {
    const out = gov.sb.initOutput;
    assert.match(out ?? "", /created \.cline\/plugins\/hookwise\.js/, out);
    // the project's own hookwise, found as the launcher finds it (issue 38), never by Node's walk
    // up every parent folder: the runs here are the real Cline loading this very file
    assert.match(gov.sb.read(".cline/plugins/hookwise.js"), /function findHookwise\(d, rel\)[\s\S]*export default require\(at\)\.createPlugin\(\);/);
    // idempotent, never overwriting
    const again = execFileSync(path.join(gov.sb.dir, "node_modules/.bin/hookwise"), ["init", "--cline"], { cwd: gov.sb.dir, env: gov.sb.env, encoding: "utf8" });
    assert.match(again, /kept \.cline\/plugins\/hookwise\.js \(up to date\)/, again);
  });

  test("(a) a shell call naming [[concept]] runs unchanged, and the concept's context reaches the model", () => {
    const { r } = know;
    assertRunOk(assert, r);
    const [first] = results(r);
    assert.match(first ?? "", /result:\[\[Session Tokens\]\]/, `the command ran as the model wrote it\n${r.describe()}`);
    const reqs = r.model.mainRequests();
    assert.ok(!reqs[0].findText(NOTE_PASSAGE), "not in the request before the call");
    assert.ok(texts(reqs[1]).includes(NOTE_PASSAGE), `the note's passage in the request after the call\n${r.describe()}`);
    assert.ok(texts(reqs[1]).includes("hook_context"), "as Cline's hook context message");
  });

  test("(c) a strict SOP blocks git push --force (the second command of the list) once; the model reads it; the retry runs", () => {
    const { r } = know;
    const [, blocked, retried] = results(r);
    assert.ok(blocked?.includes(FORCE_MARKER), `the SOP is what the model reads:\n${blocked}\n${r.describe()}`);
    assert.ok(retried !== undefined && !retried.includes(FORCE_MARKER), `the retry is not blocked again:\n${retried}`);
    assert.match(retried, /fatal|repository|remote|does not appear/i, "git itself answered the retry");
  });

  test("(b) a write before selecting an intent is blocked with a reason the model reads; the file is absent", () => {
    const { r, sb } = gov;
    assertRunOk(assert, r);
    const [first] = results(r);
    assert.match(first ?? "", /select_active_intent/, `the reason names the way out\n${r.describe()}`);
    assert.equal(sb.exists("src/auth/draft.ts"), false, "the file was not written");
  });

  test("(b) select_active_intent, a plugin tool, returns the intent", () => {
    const { r } = gov;
    const selected = results(r).find((t) => /INT-1/.test(t) && /src\/auth\/\*\*/.test(t));
    assert.ok(selected, `the intent's scope came back\n${r.describe()}`);
  });

  test("(b) a write inside the scope runs and leaves one Agent Trace record, valid, naming cline and the model", () => {
    const { r, sb } = gov;
    assert.equal(sb.read("src/auth/login.ts").trim(), LOGIN.trim(), r.describe());
    const recs = sb.traces();
    assert.equal(recs.length, 1, JSON.stringify(recs));
    const rec = recs[0];
    assert.deepEqual(validate(rec), [], JSON.stringify(rec));
    assert.equal(rec.files[0].path, "src/auth/login.ts");
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: sb.dir, encoding: "utf8" }).trim();
    assert.deepEqual(rec.vcs, { type: "git", revision: head });
    const conv = rec.files[0].conversations[0];
    assert.equal(conv.contributor.type, "ai");
    assert.match(conv.contributor.model_id ?? "", /mock-1$/, `the model the host ran: ${JSON.stringify(conv.contributor)}`);
    console.log(`# Cline record: model ${conv.contributor.model_id}, ${JSON.stringify(rec.metadata["dev.hookwise"]).slice(0, 200)}`);
    const meta = rec.metadata["dev.hookwise"];
    assert.equal(meta.intent_id, "INT-1");
    assert.match(JSON.stringify(meta), /cline/i, `the record names the host: ${JSON.stringify(meta)}`);
  });

  test("(b) a write outside the scope is blocked, naming the file and the scope; the file is unchanged", () => {
    const { r, sb } = gov;
    const out = results(r).find((t) => /README\.md/.test(t));
    assert.ok(out && /src\/auth\/\*\*/.test(out), `the reason names the file and the scope\n${r.describe()}`);
    assert.equal(sb.read("README.md"), "# demo\n");
    assert.equal(sb.traces().length, 1, "a blocked call leaves no record");
  });

  test("(d) the first model request carries the session-start context", () => {
    const { r } = gov;
    const first = r.model.mainRequests()[0];
    assert.ok(texts(first).includes("INT-1: Login form"), `the active intents, before the model's first answer\n${r.describe()}`);
  });

  test("(f) a damaged install (corrupt policy wasm) blocks the governed write with the reason", () => {
    const { r, sb } = broken;
    assert.equal(r.timedOut, false, r.describe());
    assert.equal(sb.exists("src/auth/logout.ts"), false, `the write was blocked\n${r.describe()}`);
    const [first] = results(r);
    assert.match(first ?? "", /hookwise could not start/, `the model reads the failsafe's reason\n${r.describe()}`);
    console.log(`# Cline fail-closed reason: ${JSON.stringify((first ?? "").slice(0, 300))}`);
  });

  test("(f) nothing of the sandbox outlived the CLI", () => {
    for (const [name, run] of Object.entries({ know, gov, broken })) assertNothingLeft(assert, run.r);
    console.log(`# Cline runs: ${Object.entries({ know, gov, broken }).map(([n, x]) => `${n} ${x.r.durationMs} ms`).join(", ")}`);
  });
});

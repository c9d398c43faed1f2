// hookwise in the REAL Kilo CLI (@kilocode/cli, pinned by scripts/setup-clis.sh), offline, against
// the scripted chat completions of ../e2e-shared/model.mjs, set up by `hookwise init --kilo`
// (.kilo/plugin/hookwise.js loading the project's hookwise; Kilo calls that one module's
// OpenCode 1.x `server` and its `setup`). Four runs, two at a time:
//   know    — the example vault in .hookwise/knowledge, the two SOPs in .hookwise/sops:
//             a shell call naming [[Session Tokens]] runs unchanged and the note reaches the model
//             once, with the call's result (a); git push --force is blocked once with the SOP, the retry runs (c); the
//             hooks are registered once although Kilo calls both `server` and `setup`;
//   gov     — .orchestration/active_intents.yaml: a write before any intent and one outside the
//             scope are blocked (the model reads why, nothing written), select_active_intent (a
//             Kilo plugin tool) works, a write inside leaves a valid Agent Trace record naming
//             kilo and the model (b); the first request carries the session-start context (d);
//   compact — the fake maenifold on PATH: a shell answer that reports a nearly full context makes
//             Kilo compact; hookwise's preservation block is in the summary request and the
//             compaction memory is filed (e);
//   broken  — the gov project again, its policy wasm corrupted: a governed write is blocked with
//             the reason (fail closed).
// Every run: nothing of the sandbox outlives Kilo (f).
//
//   node --test --test-concurrency=1 tests/e2e-kilo/     (needs pkg/: run `npm run build` first)
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { kiloGate, kiloProject, bash, write, MODEL } from "./lib/kilo.mjs";
import { assertRunOk, assertNothingLeft } from "../e2e-shared/agents.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { vaultFiles, enforceSops, INTENTS, LOGIN, FORCE, FORCE_MARKER } from "../e2e-shared/fixtures.mjs";
import { VAULT_COMMAND, NOTE_PASSAGE, assertLoginRecord } from "../e2e-shared/hook-suite.mjs";
import { fakeMaenifold } from "../e2e-claude/lib/hookwise.mjs";

const skip = suiteGate(kiloGate(), "e2e-kilo", "kilo");
const COMPACT_PROMPT = "Harden [[auth]] for the REST API. We decided to use [[jwt]] instead of opaque session ids.";
const count = (hay, needle) => hay.split(needle).length - 1;

describe("hookwise in the real Kilo CLI", { skip }, () => {
  const know = {};
  const gov = {};
  const compact = {};
  const broken = {};

  before(async () => {
    know.sb = kiloProject({ files: { ...vaultFiles(".hookwise/knowledge"), ...enforceSops(".hookwise/sops") } });
    gov.sb = kiloProject({ files: { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "", "README.md": "# demo\n" } });
    const w = (rel, content) => write(gov.sb, rel, content);
    [know.r, gov.r] = await Promise.all([
      know.sb.run({ prompt: "Look at the notes, then push.", script: [bash(VAULT_COMMAND), bash(FORCE), bash(FORCE), "all done"] }),
      gov.sb.run({
        prompt: "Add the login form.",
        script: [
          w("src/auth/draft.ts", LOGIN),
          { tool: "select_active_intent", args: { intent_id: "INT-1" } },
          w("src/auth/login.ts", LOGIN),
          w("README.md", "# changed\n"),
          "done",
        ],
      }),
    ]);
    // A governed project whose policy core does not load.
    fs.writeFileSync(path.join(gov.sb.dir, "node_modules/hookwise/dist/policy/hookwise_bg.wasm"), "not a wasm module");
    broken.sb = gov.sb;
    compact.sb = kiloProject();
    compact.fake = fakeMaenifold(compact.sb.root);
    [broken.r, compact.r] = await Promise.all([
      broken.sb.run({ prompt: "Add the logout.", script: [write(broken.sb, "src/auth/logout.ts", LOGIN), "done"] }),
      compact.sb.run({
        prompt: COMPACT_PROMPT,
        env: compact.fake.env,
        script: [{ ...bash("ls"), usage: { prompt_tokens: 199000 } }, bash("echo after"), "continued after compaction"],
      }),
    ]);
  });

  after(() => {
    know.sb?.cleanup();
    gov.sb?.cleanup();
    compact.sb?.cleanup();
  });

  test("init --kilo wrote .kilo/plugin/hookwise.js, which loads the project's hookwise; a second init keeps it", () => {
    const { sb } = gov;
    assert.match(sb.initOutput, /created \.kilo\/plugin\/hookwise\.js/);
    // the project's own hookwise, found as the launcher finds it (issue 38), never by Bun's walk
    // up every parent folder: the runs below are the real Kilo loading this very file
    assert.match(sb.read(".kilo/plugin/hookwise.js"), /function findHookwise\(d, rel\)[\s\S]*export default \(await import\(pathToFileURL\(at\)\.href\)\)\.default;/);
    const bin = path.join(sb.dir, "node_modules/.bin/hookwise");
    const again = execFileSync(bin, ["init", "--kilo"], { cwd: sb.dir, env: sb.env, encoding: "utf8" });
    assert.match(again, /kept \.kilo\/plugin\/hookwise\.js/);
    const doctor = execFileSync(path.join(know.sb.dir, "node_modules/.bin/hookwise"), ["doctor"], { cwd: know.sb.dir, env: know.sb.env, encoding: "utf8" });
    assert.match(doctor, /agent kilo: set up in \.kilo\/plugin\/hookwise\.js \(loads .*node_modules\/hookwise\)/, doctor);
  });

  test("(a) a shell call naming [[concept]] runs as the model wrote it; hookwise found the concept's note", () => {
    const { r } = know;
    assertRunOk(assert, r);
    const [first] = r.results();
    assert.match(first ?? "", /result:\[\[Session Tokens\]\]/, `the command ran as the model wrote it\n${r.describe()}`);
    assert.ok(!r.model.mainRequests()[0].findText(NOTE_PASSAGE), "not in the request before the call");
    assert.ok(r.hookwiseLog().some((l) => /using the vault at .*\.hookwise\/knowledge/.test(l)), "the project's vault is the source");
  });

  // Kilo replays a call as its stream reported it, stored before a plugin hook's first `await`
  // (docs/kilo.md): the Kilo profile places the shell's context with its result instead of in
  // `#` comment lines, and the command runs as the model wrote it.
  test("(a) the concept's context reaches the model once, with the result of the call Kilo replays unchanged", () => {
    const { r } = know;
    const reqs = r.model.mainRequests();
    const call = reqs[1].toolCalls().find((c) => c.name === "bash");
    assert.equal(call?.args?.command, VAULT_COMMAND, `the replayed call is the model's own\n${JSON.stringify(call)}`);
    const [result] = reqs[1].toolResults();
    const out = result?.content ?? "";
    assert.ok(out.startsWith("result:[[Session Tokens]]"), `the command's own output first\n${out.slice(0, 3000)}`);
    assert.ok(out.includes(NOTE_PASSAGE), `the note's passage with the result\n${r.describe()}`);
    assert.ok(out.includes("[[session-tokens]]"), "named by its concept");
    assert.equal(count(reqs[1].text(), NOTE_PASSAGE), 1, "once in the request");
    assert.ok(!JSON.stringify(reqs[1].toolCalls()).includes(NOTE_PASSAGE), "not in any replayed call");
    assert.equal(count(r.model.mainRequests().at(-1).text(), NOTE_PASSAGE), 1, "still once at the end of the run");
  });

  test("the dual export registers hookwise's hooks once: `server` does the work, `setup` (no tool hooks) adds nothing", () => {
    const { r } = know;
    const lines = r.hookwiseLog();
    const started = lines.filter((l) => /pre-action enforcement: level/.test(l));
    assert.equal(started.length, 1, `one policy core started\n${lines.join("\n")}`);
    const setupLines = lines.filter((l) => /setup\(\) without tool hooks registered nothing/.test(l));
    assert.equal(setupLines.length, 1, `setup said it registered nothing\n${lines.join("\n")}`);
    assert.deepEqual(lines.filter((l) => /level=ERROR|NOT checking/.test(l)), [], "no error, no setup-only alarm");
  });

  test("(c) a strict SOP blocks git push --force once; the model reads it; the retry runs", () => {
    const { r } = know;
    const [, blocked, retried] = r.results();
    assert.ok(blocked?.includes(FORCE_MARKER), `the SOP is what the model reads:\n${blocked}\n${r.describe()}`);
    assert.ok(retried !== undefined && !retried.includes(FORCE_MARKER), `the retry is not blocked again:\n${retried}`);
    assert.match(retried, /git|fatal|repository|remote/i, "git itself answered the retry");
  });

  test("(b) a write before selecting an intent is blocked with a reason the model reads; the file is absent", () => {
    const { r, sb } = gov;
    assertRunOk(assert, r);
    const [first] = r.results();
    assert.match(first ?? "", /select_active_intent/, `the reason names the way out\n${r.describe()}`);
    assert.equal(sb.exists("src/auth/draft.ts"), false, "the file was not written");
  });

  test("(b) select_active_intent, a Kilo plugin tool, returns the intent", () => {
    const { r } = gov;
    assert.ok(r.model.mainRequests()[0].tools.includes("select_active_intent"), "offered to the model");
    const selected = r.results().find((t) => /INT-1/.test(t) && /src\/auth\/\*\*/.test(t));
    assert.ok(selected, `the intent's scope came back\n${r.describe()}`);
  });

  test("(b) a write inside the scope runs and leaves one Agent Trace record, valid, naming kilo and the model", () => {
    const { conv, meta } = assertLoginRecord(gov);
    assert.equal(conv.contributor.model_id, MODEL, JSON.stringify(conv.contributor));
    assert.equal(meta.host, "kilo", JSON.stringify(meta));
  });

  test("(b) a write outside the scope is blocked, naming the file and the scope; the file is unchanged", () => {
    const { r, sb } = gov;
    const out = r.results().find((t) => /README\.md/.test(t));
    assert.ok(out && /src\/auth\/\*\*/.test(out), `the reason names the file and the scope\n${r.describe()}`);
    assert.equal(sb.read("README.md"), "# demo\n");
    assert.equal(sb.traces().length, 1, "a blocked call leaves no record");
  });

  test("(d) the first model request carries the session-start context", () => {
    const { r } = gov;
    const first = r.model.mainRequests()[0];
    assert.ok(first.findText("INT-1: Login form"), `the active intents, before the model's first answer\n${r.describe()}`);
  });

  test("(e) Kilo compacts headless; the summary request carries hookwise's preservation block; the memory is filed", () => {
    const { r, fake } = compact;
    assertRunOk(assert, r);
    const summaries = r.model.auxRequests().filter((q) => /summar/i.test(q.text()));
    assert.ok(summaries.length >= 1, `Kilo sent a compaction request\n${r.describe()}`);
    assert.ok(summaries.some((q) => q.findText("Knowledge Graph Preservation (hookwise)")), `the block is in the summary request\n${r.describe()}`);
    assert.ok(summaries.some((q) => q.findText("[[auth]]")), "with the session's concepts");
    const writes = fake.calls().filter((c) => c.event === "call" && /write_?memory/i.test(c.tool));
    assert.equal(writes.length, 1, `one compaction memory: ${JSON.stringify(fake.calls().map((c) => [c.mode, c.event, c.tool]))}\n${r.describe()}`);
    assert.match(writes[0].payload?.folder ?? writes[0].args?.folder ?? "", /^sessions\/compaction\/\d{4}\/\d{2}\/\d{2}$/, JSON.stringify(writes[0]));
    assert.match(r.model.mainRequests().at(-1).text(), /continued|after/i, "the session went on after the compaction");
  });

  test("a damaged install (corrupt policy wasm) blocks the governed write with the reason", () => {
    const { r, sb } = broken;
    assert.equal(r.timedOut, false, r.describe());
    assert.equal(sb.exists("src/auth/logout.ts"), false, `the write was blocked\n${r.describe()}`);
    const [first] = r.results();
    assert.match(first ?? "", /hookwise could not start/, r.describe());
    assert.match(first, /installation needs repair/);
  });

  test("(f) nothing of the sandbox outlived Kilo", () => {
    for (const [name, run] of Object.entries({ know, gov, compact, broken })) {
      assertNothingLeft(assert, run.r);
      assert.equal(run.r.timedOut, false, name);
    }
    console.log(`# Kilo runs: ${Object.entries({ know, gov, compact, broken }).map(([n, x]) => `${n} ${x.r.durationMs} ms`).join(", ")}`);
  });
});

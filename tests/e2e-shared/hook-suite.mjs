// The one end-to-end suite every command-hook host runs (tests/e2e-codex, -gemini, -copilot,
// -qwen): the real CLI, offline, against the scripted model, with hookwise packed, installed and
// set up by `hookwise init --<host>`. Two projects, three runs of the CLI:
//
// knowledge + enforcement (the example vault in .hookwise/knowledge, the two SOPs in .hookwise/sops),
// the CLI started in a linked git worktree of the project outside it (no node_modules there: the
// entries init wrote find the main checkout's hookwise):
//   1. a shell call naming [[Session Tokens]] → runs unchanged, the note's context reaches the model (a);
//   2. git push --force … with a strict SOP → blocked, the model reads the SOP (c);
//   3. the same again → the retry runs (c);
// governance (.orchestration/active_intents.yaml, in git):
//   1. a write before any intent is selected → blocked, the model reads why, the file is absent (b);
//   2. select_active_intent INT-1 through hookwise's MCP server → the scope (b);
//   3. a write inside the scope → runs, one Agent Trace record, valid, naming the host and model (b);
//   4. a write outside the scope → blocked, the file unchanged (b);
//   the first request carries the session-start context (d);
// undecidable (the governance project once more, its policy wasm corrupted):
//   1. a write inside the scope → blocked where the host can be told to fail closed;
// compaction, where the host has a hook for it (the fake maenifold on PATH; the prompt names
// [[auth]] and [[jwt]]): a shell call whose answer reports a nearly full context → the host
// compacts, hookwise files the compaction memory, and where the host starts the session again
// after it, the next request carries what was kept (e).
// Every run: hookwise's hooks ran, and nothing of the sandbox outlived the CLI (f).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { agentProject, cliGate, HOSTS, assertRunOk, assertNothingLeft } from "./agents.mjs";
import { suiteGate } from "./gate.mjs";
import { vaultFiles, enforceSops, INTENTS, LOGIN, FORCE, FORCE_MARKER } from "./fixtures.mjs";
import { validate } from "../js/agent-trace-schema.mjs";
import { fakeMaenifold } from "../e2e-claude/lib/hookwise.mjs";

export const VAULT_COMMAND = `printf 'result:%s\\n' "[[Session Tokens]]"`;
/** A passage of the example vault's note on session tokens (only its context carries it). */
export const NOTE_PASSAGE = "SHA-256 hash of each refresh token";
const COMPACT_PROMPT = "Harden [[auth]] for the REST API. We decided to use [[jwt]] instead of opaque session ids.";

/**
 * The governed run (`{r, sb}`) wrote src/auth/login.ts under INT-1 and left exactly one Agent
 * Trace record for it, valid against the schema, at the project's HEAD, by an AI: `{rec, conv,
 * meta}` (its first conversation, its `dev.hookwise` metadata) for the host's own checks.
 */
export function assertLoginRecord({ r, sb }) {
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
  const meta = rec.metadata["dev.hookwise"];
  assert.equal(meta.intent_id, "INT-1");
  return { rec, conv, meta };
}

/**
 * The suite for `host` (a key of HOSTS). `o.failClosed`: whether the host can be told to block
 * when a hook has no usable answer (default true); `o.contextAfterCompaction`: whether context
 * reaches the model after a compaction (default true); `o.extra(ctx)`: more tests inside the suite,
 * with `ctx` = { know, gov, broken } (each { sb, r } once `before` ran). `o.toolContext`: false where
 * a tool call's context cannot reach the model (Kimi Code, OpenHands: prompt time only);
 * `o.startContext`: "result" where the session's start context comes with the first tool result
 * (Mistral Vibe: no prompt hook). `o.todo.record`,
 * `o.todo.compaction`: known gaps of issue 30, named (node:test runs and reports them; they do
 * not fail the run). `o.mcp === false`: the host reads no project MCP server (no intent can be
 * selected); `o.sessionStart === false`: no start hook runs headless (each asserted as it is);
 * `o.native === false`: the host's entries run the Node client (it blocks by exit code).
 */

export function hookSuite(host, o = {}) {
  const h = HOSTS[host];
  const skip = suiteGate(cliGate(host), `e2e-${host}`, host);
  const ctx = { know: {}, gov: {}, broken: {}, ...(h.compact ? { compact: {} } : {}) };

  describe(`hookwise in the real ${h.label}`, { skip }, () => {
    before(async () => {
      const { know, gov, broken } = ctx;
      know.sb = agentProject(host, { files: { ...vaultFiles(".hookwise/knowledge"), ...enforceSops(".hookwise/sops") } });
      gov.sb = agentProject(host, { files: { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "", "README.md": "# demo\n" } });
      const w = (rel, content, opts) => h.write(rel, content, opts, gov.sb);
      [know.r, gov.r] = await Promise.all([
        know.sb.run({ prompt: "Look at the notes, then push.", cwd: know.sb.worktree(), script: [h.shell(VAULT_COMMAND), h.shell(FORCE), h.shell(FORCE), "all done"] }),
        gov.sb.run({
          prompt: "Add the login form.",
          modelName: h.writeModel,
          script: [
            w("src/auth/draft.ts", LOGIN),
            ...h.mcp("select_active_intent", { intent_id: "INT-1" }),
            w("src/auth/login.ts", LOGIN),
            w("README.md", "# changed\n", { exists: true, old: "# demo\n" }),
            "done",
          ],
        }),
      ]);
      // A hook hookwise cannot decide: the policy core does not load.
      fs.writeFileSync(path.join(gov.sb.dir, "node_modules/hookwise/dist/policy/hookwise_bg.wasm"), "not a wasm module");
      broken.sb = gov.sb;
      const compact = ctx.compact;
      if (compact) {
        compact.sb = agentProject(host);
        compact.fake = fakeMaenifold(compact.sb.root);
        Object.assign(compact.sb.env, compact.fake.env);
      }
      [broken.r] = await Promise.all([
        gov.sb.run({ prompt: "Add the logout.", modelName: h.writeModel, script: [w("src/auth/logout.ts", LOGIN), "done"] }),
        compact &&
          compact.sb
            .run({
              prompt: COMPACT_PROMPT,
              script: [{ ...h.shell("ls"), usage: { prompt_tokens: h.compact.usage } }, h.shell("echo after"), "continued after compaction"],
              env: h.compact.env,
              userSettings: h.compact.userSettings,
              codexConfig: h.compact.codexConfig,
            })
            .then((r) => (compact.r = r)),
      ]);
    });

    after(() => {
      ctx.know.sb?.cleanup();
      ctx.gov.sb?.cleanup();
      ctx.compact?.sb?.cleanup();
    });

    /** The results the model read, in call order (the last main request holds them all). */
    const results = (r) => r.model.mainRequests().at(-1)?.toolResults().map((t) => t.content) ?? [];

    test("init wrote the host's project files and said so", () => {
      const out = ctx.gov.sb.initOutput;
      assert.ok(out && out.trim().length > 0, "init reports its changes");
      console.log(`# init --${host}: ${out.trim().split("\n").join(" | ").slice(0, 600)}`);
    });

    test(`(a) a shell call naming [[concept]] runs unchanged, and the concept's context ${o.toolContext === false ? "does not reach the model (the host has no channel for it)" : "reaches the model"}`, () => {
      const { r } = ctx.know;
      assertRunOk(assert, r);
      const [first] = results(r);
      assert.match(first ?? "", /result:\[\[Session Tokens\]\]/, `the command ran as the model wrote it\n${r.describe()}`);
      const reqs = r.model.mainRequests();
      assert.ok(!reqs[0].findText(NOTE_PASSAGE), "not in the request before the call");
      if (o.toolContext === false) return assert.ok(!reqs[1].findText(NOTE_PASSAGE), `${h.label} shows a tool call's context now: update the suite and docs\n${r.describe()}`);
      assert.ok(reqs[1].findText(NOTE_PASSAGE), `the note's passage in the request after the call\n${r.describe()}`);
      assert.ok(reqs[1].findText("[[session-tokens]]"), "named by its concept");
    });

    test("(c) a strict SOP blocks git push --force once; the model reads it; the retry runs", () => {
      assertSopOnce(assert, ctx.know.r, results(ctx.know.r));
    });

    test("(b) a write before selecting an intent is blocked with a reason the model reads; the file is absent", () => {
      assertGateBeforeIntent(assert, ctx.gov.r, ctx.gov.sb, results(ctx.gov.r));
    });

    test(`(b) select_active_intent ${o.mcp === false ? "is not offered: the host reads no project MCP server" : "works through MCP and returns the intent"}`, () => {
      const { r } = ctx.gov;
      if (o.mcp === false) {
        assert.ok(!r.model.mainRequests()[0].tools.some((t) => /select_active_intent/.test(t)), r.describe());
        assert.equal(ctx.gov.sb.exists("src/auth/login.ts"), false, "without an intent the write in scope is blocked too");
        return;
      }
      const selected = results(r).find((t) => /INT-1/.test(t) && /src\/auth\/\*\*/.test(t));
      assert.ok(selected, `the intent's scope came back through MCP\n${r.describe()}`);
    });

    test("(b) a write inside the scope runs and leaves one Agent Trace record, valid, naming the host and the model", { todo: o.todo?.record, skip: o.mcp === false && "no intent can be selected in this host" }, () => {
      const { conv, meta } = assertLoginRecord(ctx.gov);
      assert.equal(conv.contributor.model_id, h.writeModel ?? h.defaultModel, `the model the host ran: ${JSON.stringify(conv.contributor)}`);
      assert.match(JSON.stringify(meta), new RegExp(host === "copilot" ? "copilot" : host, "i"), `the record names the host: ${JSON.stringify(meta)}`);
    });

    test("(b) a write outside the scope is blocked, naming the file and the scope; the file is unchanged", { skip: o.mcp === false && "no intent can be selected in this host" }, () => {
      assertOutsideBlocked(assert, ctx.gov.r, ctx.gov.sb, results(ctx.gov.r));
    });

    test(`(d) ${o.startContext === "result" ? "the first result of a tool that ran (the host has no prompt hook) carries the session-start context" : o.sessionStart === false ? "the first model request carries no session-start context: the host does not run a start hook headless" : "the first model request carries the session-start context"}`, { todo: o.todoStart }, () => {
      const { r } = ctx.gov;
      if (o.startContext === "result") return assert.ok(r.model.mainRequests().some((q) => q.findText("INT-1: Login form")), `the active intents with a result\n${r.describe()}`);
      const first = r.model.mainRequests()[0];
      if (o.sessionStart === false) return void assert.ok(!first.findText("INT-1: Login form"), r.describe());
      assert.ok(first.findText("INT-1: Login form"), `the active intents, before the model's first answer\n${r.describe()}`);
    });

    test(`a hook hookwise cannot decide (corrupt policy wasm) ${o.failClosed === false ? "cannot be made to block in this host" : "blocks the governed write"}`, () => {
      const { r, sb } = ctx.broken;
      assert.equal(r.timedOut, false, r.describe());
      if (o.failClosed === false) {
        console.log(`# ${h.label}: a hook with no usable answer lets the call through (logout.ts written: ${sb.exists("src/auth/logout.ts")})`);
        return;
      }
      assert.equal(sb.exists("src/auth/logout.ts"), false, `the write was blocked\n${r.describe()}`);
      const [first] = results(r);
      assert.ok(first && first.length > 0, "the model reads a reason");
      console.log(`# ${h.label} fail-closed reason: ${JSON.stringify(first.slice(0, 300))}`);
    });

    if (h.compact) {
      test("(e) the host compacts; hookwise files the compaction memory; what was kept reaches the model where the host restarts the session", { todo: o.todo?.compaction }, () => {
        const { r, fake } = ctx.compact;
        assertRunOk(assert, r);
        const summaries = r.model.auxRequests().filter((q) => /summar/i.test(q.lastUserText()));
        assert.ok(summaries.length >= 1, `the host sent a compaction request\n${r.describe()}`);
        const writes = fake.calls().filter((c) => c.event === "call" && /write_?memory/i.test(c.tool));
        assert.equal(writes.length, 1, `one compaction memory: ${JSON.stringify(fake.calls().map((c) => [c.mode, c.event, c.tool]))}\n${r.describe()}`);
        const w = writes[0];
        assert.match(w.payload?.folder ?? w.args?.folder ?? "", /^sessions\/compaction\/\d{4}\/\d{2}\/\d{2}$/, JSON.stringify(w));
        assert.match(w.payload?.content ?? w.args?.content ?? "", /\[\[auth\]\]/);
        const after = r.model.mainRequests().filter((q) => q.seq > summaries[0].seq);
        const kept = after.some((q) => q.findText("memory://sessions/compaction/"));
        const guided = summaries.some((q) => q.findText("Knowledge Graph Preservation"));
        console.log(`# ${h.label} compaction: preservation guidance in the summary request: ${guided ? "yes" : "no"}; what was kept after it: ${kept ? "yes" : "no"}`);
        if (o.contextAfterCompaction !== false) assert.ok(kept, `the request after the compaction names the compaction memory\n${r.describe()}`);
      });
    }

    test("(f) hookwise's hooks ran, and nothing of the sandbox outlived the CLI", () => {
      for (const [name, run] of Object.entries(ctx)) {
        assert.ok(run.r.hookwiseProcs().length > 0, `${name}: a hookwise process ran\n${run.r.describe()}`);
        assertNothingLeft(assert, run.r);
      }
      console.log(`# ${h.label} runs: ${Object.entries(ctx).map(([n, x]) => `${n} ${x.r.durationMs} ms`).join(", ")}`);
      // the native client (HOOKWISE_E2E_NATIVE): which hooks it answered warm, which it handed to Node
      const trace = Object.entries(ctx).map(([n, x]) => [n, x.sb.nativeTrace()]);
      console.log(`# ${h.label} native client ${ctx.know.sb.native}: ${trace.map(([n, t]) => `${n} ${t.warm} warm / ${t.node} to node`).join(", ")}`);
      if (ctx.know.sb.native === "installed" && o.native !== false) assert.ok(trace.some(([, t]) => t.warm > 0), `the native client answered some hook warm: ${JSON.stringify(trace)}`);
      if (ctx.know.sb.native !== "installed") assert.ok(trace.every(([, t]) => t.warm === 0), "no native answer without a working binary");
    });

    o.extra?.(ctx);
  });
  return ctx;
}

/** (c): of the tool results `texts` (the vault call, the force push, its retry), the push was
 * blocked with the SOP and the retry ran. */
export function assertSopOnce(assert, r, texts) {
  const [, blocked, retried] = texts;
  assert.ok(blocked?.includes(FORCE_MARKER), `the SOP is what the model reads:\n${blocked}\n${r.describe()}`);
  assert.ok(retried !== undefined && !retried.includes(FORCE_MARKER), `the retry is not blocked again:\n${retried}`);
  assert.match(retried, /git|fatal|repository|remote/i, "git itself answered the retry");
}

/** (b): the governed run's first write, before any intent, was blocked with a reason naming
 * select_active_intent, and src/auth/draft.ts is absent. */
export function assertGateBeforeIntent(assert, r, sb, texts) {
  assertRunOk(assert, r);
  assert.match(texts[0] ?? "", /select_active_intent/, `the reason names the way out\n${r.describe()}`);
  assert.equal(sb.exists("src/auth/draft.ts"), false, "the file was not written");
}

/** (b): the governed run's change of README.md, outside INT-1's scope, was blocked naming the
 * file and the scope; README.md is unchanged and the one record stays alone. */
export function assertOutsideBlocked(assert, r, sb, texts) {
  const out = texts.find((t) => /README\.md/.test(t));
  assert.ok(out && /src\/auth\/\*\*/.test(out), `the reason names the file and the scope\n${r.describe()}`);
  assert.equal(sb.read("README.md"), "# demo\n");
  assert.equal(sb.traces().length, 1, "a blocked call leaves no record");
}

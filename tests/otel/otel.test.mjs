// OpenTelemetry export end to end (issue 41): the REAL Codex CLI (pinned by scripts/setup-clis.sh),
// offline against the scripted model of ../e2e-shared/model.mjs, hookwise packed, installed and
// set up by `hookwise init --codex` — the user's path — with the export turned on the standard way
// in the user's environment, to REAL backends installed from PyPI by scripts/setup-otel.sh:
//   traces  → Arize Phoenix (OTLP/HTTP protobuf), read back from Phoenix's REST API;
//   metrics → rotel (OTLP/HTTP JSON), logs → rotel (OTLP/HTTP protobuf), read back from rotel's
//   detailed debug log of what it received.
// Two sessions, as the command-hook suite runs them (../e2e-shared/hook-suite.mjs):
//   knowledge + enforcement: a shell call naming [[Session Tokens]] (allowed, context added), git
//   push --force under a strict SOP (blocked by the SOP), the retry (acknowledged, runs);
//   governance: a write before any intent (blocked: no intent), select_active_intent INT-1, a write
//   inside the scope (allowed, an Agent Trace record), a write outside it (blocked: scope).
// What must come back: execute_tool spans with the GenAI attributes and hookwise's (decision, rule,
// SOP ids, intent, path classes, host, version, session, model), each record as a log on its call's
// span, the decisions counter by outcome and rule, the hook latency histogram; nothing of the
// arguments (no option asked for content). And the export changed no decision: every assertion of
// the command-hook suite about what the model read holds.
//
//   bash scripts/setup-otel.sh && npm run build
//   node --test --test-concurrency=1 tests/otel/
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { agentProject, cliGate, assertRunOk } from "../e2e-shared/agents.mjs";
import { HOSTS } from "../e2e-shared/agents.mjs";
import { vaultFiles, enforceSops, INTENTS, LOGIN, FORCE, FORCE_MARKER } from "../e2e-shared/fixtures.mjs";
import { backendsGate, startPhoenix, startRotel, parseRotel, waitFor } from "./lib/backends.mjs";

const VAULT_COMMAND = `printf 'result:%s\\n' "[[Session Tokens]]"`;
const NOTE_PASSAGE = "SHA-256 hash of each refresh token";

const host = "codex";
/** The decisions (and rules) the two sessions make. */
const WANTED = [["blocked", "sop"], ["blocked", "scope"], ["blocked", "no_intent"], ["allowed"]];
const h = HOSTS[host];
const cli = cliGate(host);
const backends = backendsGate();
const skip = cli.skip || backends.skip || false;
if (skip) console.log(`# tests/otel: ${skip}`);
if (cli.error || backends.error) test("the real host and backends are installed (required when CI is set)", () => assert.fail(cli.error || backends.error));

describe("OpenTelemetry export from a governed session in the real Codex", { skip: skip || !!(cli.error || backends.error) }, () => {
  const ctx = {};
  const project = `hookwise-e2e-${crypto.randomBytes(4).toString("hex")}`;

  before(async () => {
    [ctx.phoenix, ctx.rotel] = await Promise.all([startPhoenix(backends.phoenix), startRotel(backends.rotel)]);
    console.log(`# Phoenix up in ${ctx.phoenix.startMs} ms at ${ctx.phoenix.url}; rotel at ${ctx.rotel.url}`);
    const env = {
      HOOKWISE_OTEL: "1",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ctx.phoenix.traces,
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${ctx.rotel.url}/v1/metrics`,
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${ctx.rotel.url}/v1/logs`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_HEADERS: "x-hookwise-test=1",
      OTEL_SERVICE_NAME: "hookwise-e2e",
      // Phoenix files spans by this resource attribute
      OTEL_RESOURCE_ATTRIBUTES: `openinference.project.name=${project},deployment.environment=e2e`,
      OTEL_BSP_SCHEDULE_DELAY: "200",
    };
    ctx.know = { sb: agentProject(host, { env, files: { ...vaultFiles(".hookwise/knowledge"), ...enforceSops(".hookwise/sops") } }) };
    ctx.gov = { sb: agentProject(host, { env, files: { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "", "README.md": "# demo\n" } }) };
    const w = (rel, content, opts) => h.write(rel, content, opts, ctx.gov.sb);
    [ctx.know.r, ctx.gov.r] = await Promise.all([
      ctx.know.sb.run({ prompt: "Look at the notes, then push.", script: [h.shell(VAULT_COMMAND), h.shell(FORCE), h.shell(FORCE), "all done"] }),
      ctx.gov.sb.run({
        prompt: "Add the login form.",
        modelName: h.writeModel,
        script: [w("src/auth/draft.ts", LOGIN), ...h.mcp("select_active_intent", { intent_id: "INT-1" }), w("src/auth/login.ts", LOGIN), w("README.md", "# changed\n", { exists: true, old: "# demo\n" }), "done"],
      }),
    ]);
    // the warm servers flush every 200 ms (metrics that changed with it): wait for what the sessions decided
    ctx.spans = await waitFor(
      async () => {
        const s = await ctx.phoenix.spans(project);
        return s.filter((x) => x.name.startsWith("execute_tool")).length >= 6 ? s : null;
      },
      { timeoutMs: 30_000, what: "the sessions' spans in Phoenix", every: 500 },
    ).catch(async (e) => {
      console.log(`# ${e.message}`);
      return ctx.phoenix.spans(project);
    });
    ctx.received = await waitFor(
      () => {
        const got = parseRotel(ctx.rotel.received());
        const points = got.filter((x) => x.kind === "metric" && x.name === "hookwise.decisions").flatMap((m) => m.points);
        const all = WANTED.every(([d, r]) => points.some((p) => p.attrs["hookwise.decision"] === d && (r === undefined || p.attrs["hookwise.rule"] === r)));
        return all && got.some((x) => x.kind === "log") ? got : null;
      },
      { timeoutMs: 30_000, what: "metrics and logs in rotel", every: 500 },
    ).catch((e) => (console.log(`# ${e.message}`), parseRotel(ctx.rotel.received())));
  });

  after(async () => {
    ctx.know?.sb?.cleanup();
    ctx.gov?.sb?.cleanup();
    await Promise.all([ctx.phoenix?.stop(), ctx.rotel?.stop()]);
  });

  const attr = (s, k) => s.attributes[k];
  const spansWhere = (f) => ctx.spans.filter((s) => s.name.startsWith("execute_tool") && f(s));
  const dump = () => JSON.stringify(ctx.spans.map((s) => [s.name, s.status_code, Object.fromEntries(Object.entries(s.attributes).filter(([k]) => k.startsWith("hookwise.") && !/version|session/.test(k)))]), null, 1).slice(0, 6000);

  test("the sessions ran as without export: the context reached the model, the SOP and the gate blocked, the write in scope ran", () => {
    assertRunOk(assert, ctx.know.r);
    assertRunOk(assert, ctx.gov.r);
    const results = (r) => r.model.mainRequests().at(-1)?.toolResults().map((t) => t.content) ?? [];
    const know = results(ctx.know.r);
    assert.match(know[0] ?? "", /result:\[\[Session Tokens\]\]/, ctx.know.r.describe());
    assert.ok(ctx.know.r.model.mainRequests()[1].findText(NOTE_PASSAGE), "the note's context reached the model");
    assert.ok(know[1]?.includes(FORCE_MARKER), `the SOP blocked the push: ${know[1]}`);
    assert.equal(ctx.gov.sb.exists("src/auth/draft.ts"), false, "the write before an intent was blocked");
    assert.equal(ctx.gov.sb.read("src/auth/login.ts").trim(), LOGIN.trim());
    assert.equal(ctx.gov.sb.read("README.md"), "# demo\n", "the write outside the scope was blocked");
    assert.equal(ctx.gov.sb.traces().length, 1);
  });

  test("Phoenix holds an execute_tool span per tool call, with the GenAI attributes", () => {
    const calls = spansWhere(() => true);
    console.log(`# ${calls.length} execute_tool spans in Phoenix project ${project}`);
    // the six tool calls (3 shell, 3 apply_patch); hookwise's own select_active_intent is decided when called
    assert.equal(calls.length, 6, `one span per tool call\n${dump()}`);
    for (const s of calls) {
      assert.equal(attr(s, "gen_ai.operation.name"), "execute_tool");
      assert.equal(s.name, `execute_tool ${attr(s, "gen_ai.tool.name")}`);
      assert.ok(attr(s, "gen_ai.tool.call.id"), "the call id");
      assert.ok(attr(s, "gen_ai.conversation.id"), "the session");
      assert.equal(attr(s, "hookwise.host"), "codex");
      assert.match(attr(s, "hookwise.version"), /^\d+\.\d+\.\d+/);
      assert.equal(attr(s, "hookwise.hook.event"), "PreToolUse");
      assert.ok(["allowed", "advised", "blocked"].includes(attr(s, "hookwise.decision")), dump());
    }
    // one trace per session
    const know = calls.filter((s) => attr(s, "gen_ai.tool.name") === "Bash");
    assert.equal(new Set(know.map((s) => s.context.trace_id)).size, 1, "the session's calls share its trace");
  });

  test("knowledge context: the [[Session Tokens]] call is allowed, with the concept counted (its name not exported)", () => {
    const s = spansWhere((s) => attr(s, "gen_ai.tool.name") === "Bash" && attr(s, "hookwise.knowledge.concepts") >= 1);
    assert.equal(s.length, 1, dump());
    assert.equal(attr(s[0], "hookwise.decision"), "allowed");
    assert.equal(attr(s[0], "hookwise.knowledge.names"), undefined, "no content without HOOKWISE_OTEL_CONTENT");
  });

  test("SOP block: blocked by rule `sop` naming the SOP, status ERROR; the retry passes, acknowledged", () => {
    const blocked = spansWhere((s) => attr(s, "hookwise.rule") === "sop");
    assert.equal(blocked.length, 1, dump());
    assert.equal(attr(blocked[0], "hookwise.decision"), "blocked");
    assert.deepEqual(attr(blocked[0], "hookwise.sop.ids"), ["force-push"]);
    assert.equal(attr(blocked[0], "hookwise.enforcement.decision"), "block");
    assert.equal(blocked[0].status_code, "ERROR");
    const retry = spansWhere((s) => attr(s, "hookwise.enforcement.decision") === "acknowledged");
    assert.equal(retry.length, 1, dump());
    assert.equal(attr(retry[0], "hookwise.decision"), "allowed");
  });

  test("governance: the write before an intent is blocked (no_intent), the write in scope allowed under INT-1 (in_scope), the one outside blocked (scope)", () => {
    const patches = spansWhere((s) => attr(s, "gen_ai.tool.name") === "apply_patch");
    assert.equal(patches.length, 3, dump());
    const [first, inside, outside] = patches.sort((a, b) => a.start_time.localeCompare(b.start_time));
    assert.equal(attr(first, "hookwise.decision"), "blocked");
    assert.equal(attr(first, "hookwise.rule"), "no_intent");
    assert.equal(attr(first, "hookwise.default_deny"), false);
    assert.equal(attr(inside, "hookwise.decision"), "allowed");
    assert.equal(attr(inside, "hookwise.intent.id"), "INT-1");
    assert.deepEqual(attr(inside, "hookwise.path.classes"), ["in_scope"]);
    assert.equal(attr(outside, "hookwise.decision"), "blocked");
    assert.equal(attr(outside, "hookwise.rule"), "scope");
    assert.deepEqual(attr(outside, "hookwise.path.classes"), ["out_of_scope"]);
    assert.equal(outside.status_code, "ERROR");
    // nothing of the arguments left the machine (no option asked for it)
    const text = JSON.stringify(ctx.spans);
    for (const secret of ["fetch('/login'", "src/auth/login.ts", "README.md", "git push --force"]) assert.ok(!text.includes(secret), `${secret} was exported`);
  });

  test("the Agent Trace record is a log on its call's span (rotel), naming the record, its chain hash, intent and model", () => {
    const rec = ctx.gov.sb.traces()[0];
    const logs = ctx.received.filter((x) => x.kind === "log" && x.name === "hookwise.record");
    assert.equal(logs.length, 1, ctx.rotel.received().slice(-4000));
    const l = logs[0];
    assert.equal(l.attrs["hookwise.record.id"], rec.id);
    assert.match(l.attrs["hookwise.record.sha256"], /^[0-9a-f]{64}$/);
    assert.equal(l.attrs["hookwise.intent.id"], "INT-1");
    assert.equal(l.attrs["hookwise.hook.event"], "PostToolUse");
    assert.equal(l.attrs["gen_ai.request.model"], rec.files[0].conversations[0].contributor.model_id);
    // on the span of its call: the same trace and span ids as the allowed write's span in Phoenix
    const inside = spansWhere((s) => attr(s, "gen_ai.tool.name") === "apply_patch" && attr(s, "hookwise.decision") === "allowed")[0];
    assert.ok(inside, dump());
    assert.match(l.text, new RegExp(`Trace ID\\s+: ${inside.context.trace_id}`));
    assert.match(l.text, new RegExp(`Span ID\\s+: ${inside.context.span_id}`));
  });

  // (the harness ends each warm server 2 s after its Codex exits, as a kill would: metrics that
  // changed go with the next batch, not at the end of a 5 s window that a quick session's warm
  // server did not live to see — export.test.mjs has the mechanism on its own)
  test("metrics (rotel, OTLP/JSON): decisions by outcome and rule, the hook latency histogram", () => {
    // cumulative sums, one series per warm server (a project each, told apart by the resource's
    // service.instance.id): the largest value seen per point
    const metrics = ctx.received.filter((x) => x.kind === "metric");
    const instances = new Set([...ctx.rotel.received().matchAll(/service\.instance\.id: Str\(([0-9a-f-]{36})\)/g)].map((m) => m[1]));
    assert.ok(instances.size >= 2, `an instance id per warm server (two projects): ${[...instances]}`);
    const decisions = metrics.filter((m) => m.name === "hookwise.decisions");
    assert.ok(decisions.length, ctx.rotel.received().slice(-3000));
    assert.ok(decisions.every((m) => m.type === "Sum"));
    const points = decisions.flatMap((m) => m.points);
    const seen = (d, r) => points.some((p) => p.attrs["hookwise.decision"] === d && (r === undefined || p.attrs["hookwise.rule"] === r) && p.value >= 1);
    for (const [d, r] of WANTED) assert.ok(seen(d, r), `${d} ${r ?? ""}: ${JSON.stringify(points)}`);
    const latency = metrics.filter((m) => m.name === "hookwise.hook.duration");
    assert.ok(latency.length && latency.every((m) => m.type === "Histogram"), JSON.stringify(latency.slice(-1)));
    assert.ok(latency.some((m) => m.points.some((p) => p.count >= 1 && p.attrs["hookwise.hook.event"] === "PreToolUse")), JSON.stringify(latency.map((m) => m.points)));
  });
});

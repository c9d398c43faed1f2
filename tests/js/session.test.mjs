// Session-start context and compaction (issue 3): the OpenCode plugin's hooks called the way
// OpenCode calls them — `event` (session.created), `experimental.chat.system.transform`,
// `experimental.session.compacting` — with a mock `client` (app.log, session.prompt,
// session.messages), against the fake maenifold and its fixture data ("Ledgerline").
// Runs under node --test and bun test (every test sets its own timeout: Bun's default is 5 s).
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fakeEnv, fakeMaenifold, fakeRoot, loadPlugin, tmpdir, alive } from "./helpers.mjs";

// The project is the basename of the worktree; the fixture is about "Ledgerline".
const PROJECT = "ledgerline";
// RecentActivity's "last 24 h" is relative to the fake's clock: fixed, so the test does not age.
const FAKE_NOW = "2026-11-21T20:00:00Z";
const HEADER = "## Knowledge Graph Context";
const PRESERVATION = "## Knowledge Graph Preservation (hookwise)";
const T = { timeout: 30_000 };

// The plugin runs in OpenCode's environment (process.env): each start sets it afresh.
// These tests check the per-call CLI path (its payloads, its faults): the warm MCP session
// has its own (mcp.test.mjs).
process.env.HOOKWISE_TRANSPORT = "cli";
const saved = { ...process.env };
function resetEnv() {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
}
afterEach(resetEnv);

// ---------------------------------------------------------------------------------------------
// Helpers

/** The normalized concepts the fixture's memory files link (maenifold's normalization). */
function fixtureConcepts() {
  const out = new Set();
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".md")) {
        for (const m of fs.readFileSync(p, "utf8").matchAll(/(?<!\[)\[\[([^[\]]+)\]\](?!\])/g)) {
          out.add(m[1].trim().toLowerCase().replace(/[ _/]/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, ""));
        }
      }
    }
  };
  walk(path.join(fakeRoot, "memory"));
  return out;
}
const FIXTURE_CONCEPTS = fixtureConcepts();
// Links that only appear inside code in the fixture: never concepts.
const CODE_ONLY = ["code-fence-concept", "inline-code-concept", "fenced-tilde-concept"];

/** A stand-in for OpenCode's `client`: records app.log, session.prompt and session.messages. */
function mockClient({ messages = [], messagesError = null } = {}) {
  const rec = { logs: [], prompts: [], messageCalls: [] };
  rec.client = {
    app: {
      log: async ({ body }) => {
        rec.logs.push(body);
        return true;
      },
    },
    session: {
      prompt: async (req) => {
        rec.prompts.push(req);
        return { data: {} };
      },
      messages: async (req) => {
        rec.messageCalls.push(req);
        if (messagesError) throw new Error(messagesError);
        return { data: messages };
      },
    },
  };
  rec.warns = (from = 0) => rec.logs.slice(from).filter((l) => l.level === "warn");
  rec.errors = () => rec.logs.filter((l) => l.level === "error");
  return rec;
}

/** An OpenCode message with parts (the shape client.session.messages returns). */
function msg(role, ...texts) {
  return {
    info: { id: `msg_${Math.random().toString(36).slice(2)}`, role },
    parts: [
      ...texts.map((text) => ({ type: "text", text })),
      { type: "tool", tool: "bash", state: { input: { command: "echo [[not-a-text-part]]" } } },
    ],
  };
}

/**
 * Start the plugin in a project called `ledgerline` against a private copy of the fake's data.
 * `fake`: extra env for the fake / the plugin; `options`: plugin options.
 */
async function start({ fake = {}, options = {}, client = {}, noCli = false, prepare } = {}) {
  const f = fakeEnv({ FAKE_MAENIFOLD_NOW: FAKE_NOW, TZ: "UTC", ...fake });
  if (prepare) prepare(f);
  if (noCli) {
    // No CLI and no maenifold memory folder either (with one, the vault would answer).
    f.env.PATH = tmpdir("hookwise-empty-path-");
    f.env.MAENIFOLD_CLI = "";
    f.env.MAENIFOLD_ROOT = tmpdir("hookwise-empty-root-");
  }
  resetEnv();
  Object.assign(process.env, f.env);
  const worktree = path.join(tmpdir(), PROJECT);
  fs.mkdirSync(worktree);
  const rec = mockClient(client);
  const plugin = await loadPlugin();
  const hooks = await plugin.server({ client: rec.client, directory: worktree, worktree }, options);
  return { hooks, rec, f, worktree, cli: () => f.calls().filter((c) => c.event === "call" && c.mode === "cli") };
}

/** OpenCode's `session.created` event for a session. Returns the hook's promise. */
function created(hooks, id, parentID) {
  const info = { id, projectID: "p", directory: "/x", title: "New session", version: "1.18.33", time: { created: Date.now(), updated: Date.now() } };
  if (parentID) info.parentID = parentID;
  return hooks.event({ event: { type: "session.created", properties: { info } } });
}

/** One model request's system prompt: what hookwise added to it. */
async function systemFor(hooks, sessionID, base = ["You are opencode, an interactive CLI tool."]) {
  const out = { system: [...base] };
  await hooks["experimental.chat.system.transform"]({ sessionID, model: { id: "mock-1", providerID: "mock" } }, out);
  return out.system.slice(base.length);
}

async function compact(hooks, sessionID) {
  const out = { context: [] };
  await hooks["experimental.session.compacting"]({ sessionID }, out);
  return out;
}

/** The UTC date folder(s) a compaction started between t0 and t1 may use. */
function folders(t0, t1) {
  const f = (ms) => {
    const d = new Date(ms);
    const p = (n) => String(n).padStart(2, "0");
    return `sessions/compaction/${d.getUTCFullYear()}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}`;
  };
  return new Set([f(t0), f(t1)]);
}

/** `Session concepts: [[a]], [[b]]` of a preservation block → ["a", "b"]. */
function sessionConceptsOf(block) {
  const line = /^Session concepts: (.*)$/m.exec(block)?.[1] ?? "";
  return [...line.matchAll(/\[\[([^\]]+)\]\]/g)].map((m) => m[1]);
}

/** Concepts listed under "### Related concepts" in a context block. */
function relatedConcepts(block) {
  const sec = block.split("### Related concepts\n")[1] ?? "";
  return [...sec.split("\n\n")[0].matchAll(/^- \[\[([^\]]+)\]\] \((\d+) files?\)$/gm)].map((m) => m[1]);
}

function assertContextBlock(block) {
  assert.ok(block.startsWith(HEADER + "\n"), `starts with the header:\n${block.slice(0, 200)}`);
  assert.match(block, new RegExp(`^Project: \\*\\*${PROJECT}\\*\\*$`, "m"));
  for (const c of CODE_ONLY) assert.ok(!block.includes(c), `${c} is only ever inside code`);
  assert.ok(!block.includes("\uFFFD"), "no replacement characters");
  assert.ok(!block.includes("@@garbage@@"));
}

async function waitFor(pred, ms) {
  const end = Date.now() + ms;
  while (!pred() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return pred();
}

// ---------------------------------------------------------------------------------------------
// Session start

test("session.created for a top-level session: the next system prompt gets the project's knowledge-graph context", T, async () => {
  const { hooks, rec, cli } = await start();
  await created(hooks, "ses_top");
  const pushed = await systemFor(hooks, "ses_top");
  assert.equal(pushed.length, 1, "exactly one block pushed");
  const block = pushed[0];
  assertContextBlock(block);

  // Concepts: real ones from the fixture, looked up with BuildContext (depth 1, 10 entities).
  const concepts = relatedConcepts(block);
  assert.ok(concepts.length >= 3 && concepts.length <= 5, `3–5 related concepts: ${concepts}`);
  for (const c of concepts) assert.ok(FIXTURE_CONCEPTS.has(c), `${c} is a concept of the fixture`);
  assert.ok(concepts.includes("auth"), `auth is central to the Ledgerline notes: ${concepts}`);
  const calls = cli();
  const bc = calls.filter((c) => c.tool === "BuildContext");
  assert.deepEqual(bc.map((c) => c.payload.conceptName).sort(), [...concepts].sort(), "one BuildContext per listed concept");
  for (const c of bc) assert.deepEqual(c.payload, { conceptName: c.payload.conceptName, depth: 1, includeContent: false, maxEntities: 10 });

  // Graph connections come from the fixture's co-occurrence graph.
  assert.match(block, /^- \[\[auth\]\] → .*\[\[jwt\]\]/m);
  assert.match(block, /^- \[\[auth\]\] → .*\[\[session-tokens\]\]/m);
  // Memories found for the project, with their URIs; the recent change of the last 24 h.
  assert.match(block, /^### Relevant memories\n(- .+ — memory:\/\/\S+\n)+/m);
  assert.match(block, /^### Recent activity \(24 h\)\n- Auth Design — memory:\/\/notes\/auth-design \(modified 2026-11-21 16:40\)$/m);
  assert.match(block, /\[\[concept\]\]/, "a closing hint");
  assert.ok(block.length <= 4000 * 4, "within the default TOKEN_LIMIT");

  // The seed design's calls, with the payloads the issue asks for.
  const search = calls.filter((c) => c.tool === "SearchMemories");
  assert.equal(search.length, 1);
  assert.deepEqual(search[0].payload, { query: PROJECT, mode: "Hybrid", pageSize: 5 });
  assert.ok(search[0].argv.includes("--json"), "SearchMemories with --json");
  const recent = calls.filter((c) => c.tool === "RecentActivity");
  assert.equal(recent.length, 1);
  assert.deepEqual(recent[0].payload, { timespan: "1.00:00:00", limit: 10, filter: "memory" });
  assert.ok(!recent[0].argv.includes("--json"), "RecentActivity prints markdown only");

  // The system prompt is rebuilt for every request: the next one gets it again, once.
  assert.deepEqual(await systemFor(hooks, "ses_top"), [block]);
  assert.deepEqual(await systemFor(hooks, "ses_top", ["base", block]), [], "never twice in one prompt");
  // A title-generation request is not the session's conversation.
  assert.deepEqual(await systemFor(hooks, "ses_top", ["You are a title generator. You output ONLY a thread title."]), []);
  // An unknown session, or none, gets nothing.
  assert.deepEqual(await systemFor(hooks, "ses_unknown"), []);
  assert.deepEqual(await systemFor(hooks, undefined), []);
  assert.equal(cli().length, calls.length, "later requests cost no maenifold call");
  assert.equal(rec.prompts.length, 0, "the default channel is the system prompt, not a noReply turn");
  assert.deepEqual(rec.warns(), []);
  assert.deepEqual(rec.errors(), []);
});

test("a subagent session (parentID) gets nothing and costs nothing", T, async () => {
  const { hooks, rec, cli } = await start();
  await created(hooks, "ses_child", "ses_parent");
  assert.deepEqual(await systemFor(hooks, "ses_child"), []);
  assert.equal(cli().length, 0, "no maenifold call for a subagent");
  assert.deepEqual(rec.warns(), []);
});

test("at most once per session id: repeated and concurrent session.created cost one lookup", T, async () => {
  const { hooks, cli } = await start();
  await Promise.all([created(hooks, "ses_a"), created(hooks, "ses_a")]);
  await created(hooks, "ses_a");
  const a1 = await systemFor(hooks, "ses_a");
  const a2 = await systemFor(hooks, "ses_a");
  assert.equal(a1.length, 1);
  assert.deepEqual(a2, a1);
  const count = (tool) => cli().filter((c) => c.tool === tool).length;
  assert.equal(count("SearchMemories"), 1, "one SearchMemories for ses_a");
  assert.equal(count("RecentActivity"), 1);
  // Another session is another lookup.
  await created(hooks, "ses_b");
  assert.equal((await systemFor(hooks, "ses_b")).length, 1);
  assert.equal(count("SearchMemories"), 2, "one more for ses_b");
  await created(hooks, "ses_b");
  assert.equal(count("SearchMemories"), 2);
});

test("system.transform right after session.created (the event not awaited) waits for the lookup", T, async () => {
  // Each maenifold call takes ≥ 250 ms more, so the lookup is surely still running.
  const { hooks, rec, cli } = await start({ fake: { FAKE_MAENIFOLD_ANSWER_MS: "250" } });
  const t0 = Date.now();
  const event = created(hooks, "ses_race"); // OpenCode does not await `event`
  const pushed = await systemFor(hooks, "ses_race");
  const waited = Date.now() - t0;
  assert.equal(pushed.length, 1, "the FIRST request carries the context");
  assertContextBlock(pushed[0]);
  assert.ok(waited >= 3 * 250, `it waited for the three stages (${waited} ms)`);
  await event;
  assert.equal(cli().filter((c) => c.tool === "SearchMemories").length, 1);
  assert.deepEqual(rec.warns(), []);
});

test("the lookup's stages run their calls in parallel", T, async () => {
  // 1.5 s per process start: one after another, each call would start ≥ 1.5 s after the previous.
  const { hooks, cli } = await start({
    fake: { FAKE_MAENIFOLD_STARTUP_MS: "1500" },
    options: { timeoutMs: 10_000, sessionStartTimeoutMs: 30_000 },
  });
  const t0 = Date.now();
  await created(hooks, "ses_par");
  const took = Date.now() - t0;
  const calls = cli();
  const spread = (tool) => {
    const t = calls.filter((c) => c.tool === tool).map((c) => Date.parse(c.time));
    return { n: t.length, spread: Math.max(...t) - Math.min(...t) };
  };
  const bc = spread("BuildContext");
  assert.ok(bc.n >= 3, `several concepts looked up (${bc.n})`);
  assert.ok(bc.spread < 1500, `BuildContext calls started together (spread ${bc.spread} ms)`);
  const first = calls.filter((c) => c.tool === "SearchMemories" || c.tool === "RecentActivity").map((c) => Date.parse(c.time));
  assert.equal(first.length, 2);
  assert.ok(Math.abs(first[0] - first[1]) < 1500, "SearchMemories ‖ RecentActivity");
  // Three stages of ~1.5 s, not one 1.5 s start-up per call.
  assert.ok(took < calls.length * 1500, `${calls.length} calls in ${took} ms`);
});

test('option sessionContextChannel:"prompt": a noReply user turn with the context, nothing in the system prompt', T, async () => {
  const { hooks, rec } = await start({ options: { sessionContextChannel: "prompt" } });
  await created(hooks, "ses_p");
  assert.equal(rec.prompts.length, 1);
  const p = rec.prompts[0];
  assert.deepEqual(p.path, { id: "ses_p" });
  assert.equal(p.body.noReply, true);
  assert.equal(p.body.parts.length, 1);
  assert.equal(p.body.parts[0].type, "text");
  assertContextBlock(p.body.parts[0].text);
  assert.ok(relatedConcepts(p.body.parts[0].text).includes("auth"));
  assert.deepEqual(await systemFor(hooks, "ses_p"), [], "the system channel is off");
  await created(hooks, "ses_p");
  assert.equal(rec.prompts.length, 1, "once per session");
  await created(hooks, "ses_sub", "ses_p");
  assert.equal(rec.prompts.length, 1, "never for a subagent");
  // At compaction the injected turn is among the session's messages: its links are not the session's.
  rec.client.session.messages = async () => ({ data: [msg("user", p.body.parts[0].text), msg("user", "Now fix [[billing]] please.")] });
  const out = await compact(hooks, "ses_p");
  assert.deepEqual(sessionConceptsOf(out.context[0]), ["billing"]);
  assert.deepEqual(rec.warns(), []);
});

test("TOKEN_LIMIT: the context is cut at a line boundary with a marker and never exceeds the limit", T, async () => {
  const { hooks } = await start({ fake: { TOKEN_LIMIT: "150" } });
  await created(hooks, "ses_t");
  const [block] = await systemFor(hooks, "ses_t");
  assert.ok(block.length <= 150 * 4, `${block.length} chars`);
  assert.ok(block.startsWith(HEADER));
  assert.match(block, /^\[hookwise: context truncated to fit the 150-token limit \(TOKEN_LIMIT\)\]$/m);
  for (const line of block.split("\n")) {
    if (line.startsWith("- [[")) assert.match(line, /^- \[\[[^\]]+\]\]( \(\d+ files?\)| → .*\]\])$/, `whole lines only: ${line}`);
  }
});

test("SESSION_START_ENABLED=false: no lookup and no context; compaction still works", T, async () => {
  const { hooks, rec, cli } = await start({ fake: { SESSION_START_ENABLED: "false" }, client: { messages: [msg("user", "Use [[auth]].")] } });
  await created(hooks, "ses_off");
  assert.deepEqual(await systemFor(hooks, "ses_off"), []);
  assert.equal(cli().length, 0);
  const out = await compact(hooks, "ses_off");
  assert.equal(out.context.length, 1);
  assert.match(out.context[0], /Session concepts: \[\[auth\]\]/);
  assert.deepEqual(cli().map((c) => c.tool), ["WriteMemory"]);
  assert.deepEqual(rec.warns(), []);
});

test("bad option values: one warning each at start-up, and the defaults apply", T, async () => {
  const bad = {
    sessionStartEnabled: "maybe",
    tokenLimit: "lots",
    sessionStartTimeoutMs: -5,
    sessionContextChannel: "carrier-pigeon",
    compactionTimeoutMs: { ms: 5 },
  };
  const { hooks, rec } = await start({ options: bad, client: { messages: SESSION_MESSAGES } });
  const warns = rec.warns();
  assert.equal(warns.length, 5, JSON.stringify(rec.logs));
  for (const k of Object.keys(bad)) assert.equal(warns.filter((w) => w.message.includes(`'${k}'`)).length, 1, `one warning names ${k}`);
  // Defaults: enabled, the system channel, the full context (TOKEN_LIMIT 4000).
  await created(hooks, "ses_bad");
  const pushed = await systemFor(hooks, "ses_bad");
  assert.equal(pushed.length, 1);
  assertContextBlock(pushed[0]);
  assert.ok(!pushed[0].includes("context truncated"));
  assert.equal(rec.prompts.length, 0);
  const out = await compact(hooks, "ses_bad");
  assert.equal(out.context.length, 1);
  assert.equal(rec.warns().length, 5, "nothing else went wrong");
  assert.deepEqual(rec.errors(), []);
});

test("bad environment values: warnings that name the variable, and the defaults apply", T, async () => {
  const env = { TOKEN_LIMIT: "abc", SESSION_START_ENABLED: "maybe", SESSION_CONTEXT_CHANNEL: "smoke-signals", SESSION_START_TIMEOUT: "soon", COMPACTION_TIMEOUT: "-1" };
  const { hooks, rec } = await start({ fake: env });
  const warns = rec.warns();
  assert.equal(warns.length, 5, JSON.stringify(rec.logs));
  for (const k of Object.keys(env)) assert.equal(warns.filter((w) => w.message.includes(`${k}=`)).length, 1, `one warning names ${k}`);
  await created(hooks, "ses_env");
  const pushed = await systemFor(hooks, "ses_env");
  assert.equal(pushed.length, 1);
  assert.ok(!pushed[0].includes("context truncated"));
  // Out of range is clamped, with a warning: TOKEN_LIMIT 10 → 100.
  const small = await start({ fake: { TOKEN_LIMIT: "10" } });
  assert.equal(small.rec.warns().length, 1);
  assert.match(small.rec.warns()[0].message, /TOKEN_LIMIT="10" is outside/);
  await created(small.hooks, "ses_small");
  const [b] = await systemFor(small.hooks, "ses_small");
  assert.ok(b.length <= 400 && b.includes("100-token limit"), b);
});

// ---------------------------------------------------------------------------------------------
// Compaction

const SESSION_MESSAGES = [
  msg("user", "Let's harden [[auth]] for the [[REST API]]. Tokens are [[JWT]]."),
  msg("assistant", "Looking at [[auth]] and [[rate-limiting]].\n```\n[[in-code]] is not a concept\n```"),
  msg("user", "We decided to rotate [[session-tokens]] on every refresh."),
  msg("assistant", "I chose [[redis]] over [[postgres]] for the refresh-token store. Also [[auth]] again."),
  msg("user", "Use short-lived tokens instead of opaque session ids."),
  msg("assistant", "Done; nothing else to decide here."),
];

test("compaction: the preservation block goes onto output.context with the session's concepts and decisions; WriteMemory files it", T, async () => {
  const { hooks, rec, cli, f } = await start({ client: { messages: SESSION_MESSAGES } });
  await created(hooks, "ses_c");
  const before = cli().length;
  const t0 = Date.now();
  const out = await compact(hooks, "ses_c");
  const t1 = Date.now();
  assert.ok(!("prompt" in out), "output.prompt is never set");
  assert.equal(out.context.length, 1);
  const block = out.context[0];
  assert.ok(block.startsWith(PRESERVATION + "\n"));
  assert.match(block, /lowercase, hyphen-separated/, "tagging guidance");
  assert.ok(block.length <= 500 * 4, `under 500 tokens (${block.length} chars)`);
  const concepts = (/^Session concepts: (.*)$/m.exec(block)?.[1] ?? "").split(", ");
  assert.equal(concepts[0], "[[auth]]", `the most mentioned concept first: ${concepts}`);
  for (const c of ["[[auth]]", "[[rest-api]]", "[[jwt]]", "[[rate-limiting]]", "[[session-tokens]]", "[[redis]]", "[[postgres]]"]) {
    assert.ok(concepts.includes(c), `${c} in ${concepts}`);
  }
  assert.ok(!block.includes("in-code"), "links inside code are not concepts");
  assert.ok(!block.includes("not-a-text-part"), "only text parts are read");
  const decisions = block.split("Decisions made in this session:\n")[1] ?? "";
  assert.match(decisions, /^- We decided to rotate \[\[session-tokens\]\] on every refresh\.$/m);
  assert.match(decisions, /^- I chose \[\[redis\]\] over \[\[postgres\]\] for the refresh-token store\.$/m);
  assert.match(decisions, /^- Use short-lived tokens instead of opaque session ids\.$/m);
  assert.ok(!decisions.includes("nothing else to decide"));
  assert.deepEqual(rec.messageCalls, [{ path: { id: "ses_c" } }], "the session's messages, via the client");

  // The compaction memory.
  const writes = cli().slice(before);
  assert.deepEqual(writes.map((c) => c.tool), ["WriteMemory"]);
  const w = writes[0].payload;
  assert.ok(folders(t0, t1).has(w.folder), `folder ${w.folder}`);
  assert.match(w.folder, /^sessions\/compaction\/\d{4}\/\d{2}\/\d{2}$/);
  assert.deepEqual(w.tags, ["compaction", "session", PROJECT]);
  assert.match(w.content, /\[\[[^\]]+\]\]/, "at least one [[link]] (WriteMemory refuses content without)");
  for (const c of ["[[auth]]", "[[session-tokens]]"]) assert.ok(w.content.includes(c));
  assert.match(w.content, /We decided to rotate/);
  assert.ok(w.content.length <= 8000);
  // The fake really wrote it where maenifold would.
  const dir = path.join(f.root, "memory", w.folder);
  const files = fs.readdirSync(dir);
  assert.equal(files.length, 1);
  const file = fs.readFileSync(path.join(dir, files[0]), "utf8");
  assert.match(file, /^tags:\n- compaction\n- session\n- ledgerline$/m);
  assert.deepEqual(rec.warns(), []);
  assert.deepEqual(rec.errors(), []);
  assert.ok(rec.logs.some((l) => l.level === "debug" && /memory:\/\/sessions\/compaction\//.test(l.message)));
});

test("compaction of a session with no links still writes a memory with a link, and the guidance block", T, async () => {
  const { hooks, rec, cli } = await start({ client: { messages: [msg("user", "hello"), msg("assistant", "hi there")] } });
  const out = await compact(hooks, "ses_plain");
  assert.equal(out.context.length, 1);
  assert.ok(out.context[0].startsWith(PRESERVATION));
  assert.ok(!/Session concepts/.test(out.context[0]));
  const [w] = cli().filter((c) => c.tool === "WriteMemory");
  assert.ok(w, "a memory is written");
  assert.match(w.payload.content, /\[\[ledgerline\]\]/);
  assert.deepEqual(rec.warns(), []);
});

test("compaction when the client cannot list the messages: the session-start concepts, one warning", T, async () => {
  const { hooks, rec, cli } = await start({ client: { messagesError: "server went away" } });
  await created(hooks, "ses_m");
  const startConcepts = relatedConcepts((await systemFor(hooks, "ses_m"))[0]);
  const mark = rec.logs.length;
  const out = await compact(hooks, "ses_m");
  assert.equal(out.context.length, 1);
  const listed = (/^Session concepts: (.*)$/m.exec(out.context[0])?.[1] ?? "").split(", ");
  assert.deepEqual(listed, startConcepts.map((c) => `[[${c}]]`));
  const warns = rec.warns(mark);
  assert.equal(warns.length, 1, JSON.stringify(rec.logs.slice(mark)));
  assert.match(warns[0].message, /server went away/);
  assert.equal(cli().filter((c) => c.tool === "WriteMemory").length, 1, "the memory is still written");
});

test("compaction when client.session.messages never answers: the block comes within the budget", T, async () => {
  const { hooks, rec } = await start({ options: { compactionTimeoutMs: 700 } });
  rec.client.session.messages = () => new Promise(() => {});
  await created(hooks, "ses_q");
  const startConcepts = relatedConcepts((await systemFor(hooks, "ses_q"))[0]);
  const mark = rec.logs.length;
  const t0 = Date.now();
  const out = await compact(hooks, "ses_q");
  const took = Date.now() - t0;
  assert.ok(took >= 650 && took < 3000, `took ${took} ms`);
  assert.equal(out.context.length, 1);
  assert.match(out.context[0], /lowercase, hyphen-separated/);
  assert.deepEqual(sessionConceptsOf(out.context[0]), startConcepts, "the session-start concepts stand in");
  const warns = rec.warns(mark);
  assert.equal(warns.length, 1);
  assert.match(warns[0].message, /700 ms compaction budget while fetching the session's messages/);
});

test("compaction: a WriteMemory that hangs is cut off at the compaction budget; the block is still there", T, async () => {
  const { hooks, rec } = await start({
    fake: { FAKE_MAENIFOLD_FAULT: "WriteMemory:hang" },
    options: { compactionTimeoutMs: 600 },
    client: { messages: SESSION_MESSAGES },
  });
  const t0 = Date.now();
  const out = await compact(hooks, "ses_h");
  const took = Date.now() - t0;
  assert.ok(took >= 550 && took < 3000, `took ${took} ms`);
  assert.equal(out.context.length, 1);
  assert.match(out.context[0], /Session concepts: \[\[auth\]\]/);
  const warns = rec.warns();
  assert.equal(warns.length, 1);
  assert.match(warns[0].message, /600 ms compaction budget/);
});

// ---------------------------------------------------------------------------------------------
// Faults: the session starts normally (partial or no context), compaction keeps at least the
// guidance block, at most one warning per operation, nothing escapes.

/** Run session start + a request + compaction; check the invariants; return what happened. */
async function faultRun(name, setup, opts = {}) {
  // Generous per-call timeouts: on a loaded 2-core machine 5 CLI processes starting at once can
  // take a second (more under Bun); the hang cases shorten them.
  const opt = { timeoutMs: 3000, sessionStartTimeoutMs: 6000, compactionTimeoutMs: 3000, ...(setup.options ?? {}) };
  const s = await start({ ...setup, options: opt, client: { messages: SESSION_MESSAGES } });
  const { hooks, rec } = s;
  if (setup.afterStart) setup.afterStart(s);
  const initLogs = rec.logs.length;
  const t0 = Date.now();
  await created(hooks, "ses_f");
  const pushed = await systemFor(hooks, "ses_f");
  const startMs = Date.now() - t0;
  const startLogs = rec.logs.slice(initLogs);
  // Bounded by the session-start deadline (system.transform waits at most 1 s more).
  assert.ok(startMs < opt.sessionStartTimeoutMs + 1500, `${name}: session start took ${startMs} ms`);
  assert.ok(pushed.length <= 1, name);
  if (pushed.length) assertContextBlock(pushed[0]);
  const startWarns = startLogs.filter((l) => l.level === "warn");
  assert.ok(startWarns.length <= (opts.startWarns ?? 1), `${name}: session start warned ${startWarns.length} times: ${JSON.stringify(startLogs)}`);

  const mark = rec.logs.length;
  const t1 = Date.now();
  const out = await compact(hooks, "ses_f");
  const compactMs = Date.now() - t1;
  const compLogs = rec.logs.slice(mark);
  assert.ok(compactMs < opt.compactionTimeoutMs + 1500, `${name}: compaction took ${compactMs} ms`);
  assert.ok(!("prompt" in out), name);
  assert.equal(out.context.length, 1, name);
  assert.ok(out.context[0].startsWith(PRESERVATION), name);
  assert.match(out.context[0], /lowercase, hyphen-separated/, `${name}: the guidance`);
  // The concepts come from the session's messages (the client works): faults do not lose them.
  assert.match(out.context[0], /Session concepts: \[\[auth\]\]/, name);
  const compWarns = compLogs.filter((l) => l.level === "warn");
  assert.ok(compWarns.length <= 1, `${name}: compaction warned ${compWarns.length} times: ${JSON.stringify(compLogs)}`);
  assert.deepEqual(rec.errors(), [], `${name}: no error (an exception caught by a hook guard logs one)`);
  return { ...s, pushed, startWarns, compWarns, startMs, compactMs };
}

const EVERY_TOOL_FAULTS = ["hang", "error", "invoking", "unknown", "empty", "garbage", "nonutf8", "huge", "jsonfail", "crash"];

for (const fault of EVERY_TOOL_FAULTS) {
  test(`fault: every maenifold call answers '${fault}'`, T, async () => {
    const options = fault === "hang" ? { timeoutMs: 1000, sessionStartTimeoutMs: 1500, compactionTimeoutMs: 1000 } : {};
    const r = await faultRun(fault, { fake: { FAKE_MAENIFOLD_FAULT: `*:${fault}` }, options });
    assert.equal(r.startWarns.length, 1, `${fault}: one warning for the session start`);
    assert.equal(r.compWarns.length, 1, `${fault}: one warning for the compaction (no memory written)`);
    assert.match(r.compWarns[0].message, /WriteMemory|compaction budget/);
    if (fault === "hang") {
      assert.match(r.startWarns[0].message, /deadline|timed out/);
      // Hung processes are killed, not left behind.
      const pids = r.cli().map((c) => c.pid);
      assert.ok(pids.length >= 3);
      assert.ok(await waitFor(() => !pids.some(alive), 4000), `hung maenifold processes left: ${pids.filter(alive)}`);
    }
  });
}

test("fault: BuildContext hangs — the context keeps what came back in time (concepts, memories), no graph", T, async () => {
  const r = await faultRun("BuildContext:hang", {
    fake: { FAKE_MAENIFOLD_FAULT: "BuildContext:hang" },
    options: { timeoutMs: 1500, sessionStartTimeoutMs: 6000 },
  });
  assert.equal(r.pushed.length, 1);
  const block = r.pushed[0];
  assert.ok(relatedConcepts(block).includes("auth"));
  assert.match(block, /### Relevant memories/);
  assert.ok(!block.includes("### Graph connections"));
  assert.equal(r.startWarns.length, 1);
  assert.match(r.startWarns[0].message, /BuildContext/);
  assert.equal(r.compWarns.length, 0, "WriteMemory worked");
});

test("fault: RecentActivity errors — the context comes from the search alone", T, async () => {
  const r = await faultRun("RecentActivity:error", { fake: { FAKE_MAENIFOLD_FAULT: "RecentActivity:error" } });
  assert.equal(r.pushed.length, 1);
  assert.ok(!r.pushed[0].includes("### Recent activity"));
  assert.match(r.pushed[0], /### Graph connections/, JSON.stringify(r.startWarns));
  assert.equal(r.startWarns.length, 1);
  assert.match(r.startWarns[0].message, /RecentActivity/);
});

test("fault: SearchMemories --json says success:false — the context comes from recent activity", T, async () => {
  const r = await faultRun("SearchMemories:jsonfail", { fake: { FAKE_MAENIFOLD_FAULT: "SearchMemories:jsonfail" } });
  assert.equal(r.pushed.length, 1);
  assert.ok(!r.pushed[0].includes("### Relevant memories"));
  assert.match(r.pushed[0], /### Recent activity \(24 h\)\n- Auth Design/);
  assert.equal(r.startWarns.length, 1);
  assert.match(r.startWarns[0].message, /SearchMemories/);
});

test("fault: RecentActivity 'No database found' (no memory.db) — partial context, one warning that says Sync", T, async () => {
  const r = await faultRun("no-database", {
    fake: { FAKE_MAENIFOLD_NO_DB: "1" },
    prepare: (f) => fs.rmSync(path.join(f.root, "memory.db")),
  });
  assert.equal(fs.existsSync(path.join(r.f.root, "memory.db")), false);
  assert.equal(r.pushed.length, 1);
  assert.ok(!r.pushed[0].includes("### Recent activity"));
  assert.ok(relatedConcepts(r.pushed[0]).length >= 1);
  assert.equal(r.startWarns.length, 1);
  assert.match(r.startWarns[0].message, /Sync/);
  assert.equal(r.compWarns.length, 0);
});

test("no CLI at all: sessions start without context, compaction gives the guidance block, one warning (at start-up)", T, async () => {
  const { hooks, rec, cli } = await start({ noCli: true, client: { messages: SESSION_MESSAGES } });
  assert.equal(rec.warns().length, 1);
  assert.match(rec.warns()[0].message, /knowledge context is off/);
  await created(hooks, "ses_n");
  assert.deepEqual(await systemFor(hooks, "ses_n"), []);
  const out = await compact(hooks, "ses_n");
  assert.equal(out.context.length, 1);
  assert.ok(out.context[0].startsWith(PRESERVATION));
  assert.match(out.context[0], /Session concepts: \[\[auth\]\]/);
  assert.equal(rec.warns().length, 1, "nothing more to warn about");
  assert.deepEqual(rec.errors(), []);
  assert.equal(cli().length, 0);
});

test("the CLI disappears after start-up: the spawn fails, the session starts, compaction proceeds", T, async () => {
  const d = tmpdir("hookwise-vanish-");
  const wrapper = path.join(d, "maenifold");
  const r = await faultRun("vanished", {
    prepare: (f) => {
      // A wrapper (a real file, so discovery keeps its path) that is deleted after start-up.
      fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(fakeMaenifold)} "$@"\n`, { mode: 0o755 });
      f.env.MAENIFOLD_CLI = wrapper;
    },
    afterStart: () => fs.rmSync(wrapper),
  });
  assert.equal(r.pushed.length, 0, "no context");
  assert.equal(r.startWarns.length, 1);
  assert.match(r.startWarns[0].message, /spawn|ENOENT|not found/i);
  assert.equal(r.compWarns.length, 1);
  assert.equal(r.cli().length, 0);
});

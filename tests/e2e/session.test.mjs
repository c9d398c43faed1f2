// Session-start context and compaction preservation (issue 3) in the REAL OpenCode: hookwise is
// built (`npm run build` → pkg/), packed with `npm pack` and loaded by package name, offline, the
// way hookwise.test.mjs does it. The fake maenifold (tests/fake-maenifold) answers from a private
// copy of its fixture data ("Ledgerline"), so WriteMemory can write.
//
//   node --test tests/e2e/session.test.mjs     (needs pkg/: run `npm run build` first)
//
// OpenCode runs in <sandbox>/project/ledgerline (no git: the worktree is "/", so the project name is
// the directory's basename, "ledgerline"). Three runs start together in before():
//   hooked   — the default (system-prompt) channel; every maenifold process takes 500 ms
//              more to start, so the session-start lookup is surely slower than OpenCode's first
//              model request; the model reports a near-full context after its first answer, so
//              OpenCode compacts the session;
//   nocli    — the same, with no maenifold anywhere;
//   prompted — option sessionContextChannel "prompt": the context as a noReply user turn.
// Skips like smoke.test.mjs without the OpenCode binary (fails under CI).

import { packHookwise } from "./lib/pack.mjs";
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { e2eGate, makeSandbox, assertRunOk, repoRoot } from "./lib/opencode.mjs";
import { contentText } from "./lib/model.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { pathWithoutMaenifold } from "../e2e-shared/env.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e session", "opencode");

const PKG_DIR = path.join(repoRoot, "pkg");
const FAKE_DIR = path.join(repoRoot, "tests", "fake-maenifold");
const FIXTURE_ROOT = path.join(FAKE_DIR, "fixtures", "root");
const PROJECT = "ledgerline";
const STARTUP_MS = 500;

const HEADER = "## Knowledge Graph Context";
const PRESERVATION = "## Knowledge Graph Preservation (hookwise)";
const GUIDANCE = "lowercase, hyphen-separated";
const PROMPT = "Harden [[auth]] for the [[REST API]]. We decided to use [[jwt]] instead of opaque session ids.";
const SUMMARY = "## Objective\n- scripted summary";
// One bash call whose answer reports a near-full context: OpenCode compacts before the next step.
const SCRIPT = [
  { tool: "bash", id: "call_ls", args: { command: "ls", description: "list" }, usage: { prompt_tokens: 199000 } },
  "continued after compaction",
];

function readLog(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === "call" && e.mode === "cli");
}

/** hookwise's log lines (1.18.33 drops `service`; hookwise puts it in `extra`). */
function hookwiseLines(r) {
  return r.logs.filter((e) => e.service === "hookwise");
}

/** Run OpenCode in <project>/ledgerline with hookwise installed by package name. */
async function run({ tarball, env, options, script = SCRIPT, prompt = PROMPT }) {
  const sb = makeSandbox({ plugins: [{ tarball, install: "cache", ...(options ? { options } : {}) }], env });
  const cwd = path.join(sb.dir, PROJECT);
  fs.mkdirSync(cwd);
  const r = await sb.run({ cwd, prompt, script, modelOptions: { summary: SUMMARY }, timeoutMs: 90_000 });
  r.cleanup = sb.cleanup;
  return r;
}

/** The text of the last user message of a request (the summary prompt, for a compaction request). */
function lastUser(req) {
  const users = req.messages.filter((m) => m.role === "user");
  return contentText(users.at(-1)?.content ?? "");
}

/** The preservation block's concepts: `Session concepts: [[a]], [[b]]` → ["a", "b"]. */
function sessionConcepts(block) {
  const line = /^Session concepts: (.*)$/m.exec(block)?.[1] ?? "";
  return [...line.matchAll(/\[\[([^\]]+)\]\]/g)].map((m) => m[1]);
}

function utcFolder(ms) {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, "0");
  return `sessions/compaction/${d.getUTCFullYear()}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}`;
}

describe("hookwise session context and compaction in the real OpenCode", { skip: suiteSkip }, () => {
  let packDir;
  let root;
  let fakeLog;
  let nocliLog;
  let promptLog;
  let hooked;
  let nocli;
  let prompted;

  before(async () => {
    assert.ok(fs.existsSync(path.join(PKG_DIR, "package.json")), `no built package at ${PKG_DIR}: run \`npm run build\` first`);
    const pack = packHookwise("hookwise-e2e-session-");
    packDir = pack.packDir;
    const packed = pack.packed;
    const tarball = path.join(packDir, packed[0].filename);
    root = path.join(packDir, "root");
    fs.cpSync(FIXTURE_ROOT, root, { recursive: true });
    const promptRoot = path.join(packDir, "root-prompt");
    fs.cpSync(FIXTURE_ROOT, promptRoot, { recursive: true });
    fakeLog = path.join(packDir, "fake.log");
    nocliLog = path.join(packDir, "fake-nocli.log");
    promptLog = path.join(packDir, "fake-prompt.log");
    const fake = (log, dataRoot) => ({
      PATH: `${FAKE_DIR}:${process.env.PATH}`,
      MAENIFOLD_ROOT: dataRoot,
      FAKE_MAENIFOLD_LOG: log,
      // RecentActivity's "last 24 h" is relative to this; the fixture's newest note is 2026-11-21 16:40.
      FAKE_MAENIFOLD_NOW: "2026-11-21T20:00:00Z",
      // This file measures and checks the per-call CLI path; the warm MCP session has its
      // own e2e (mcp.test.mjs).
      HOOKWISE_TRANSPORT: "cli",
      TZ: "UTC",
    });

    const started = Date.now();
    [hooked, nocli, prompted] = await Promise.all([
      run({
        tarball,
        env: { ...fake(fakeLog, root), FAKE_MAENIFOLD_STARTUP_MS: String(STARTUP_MS) },
        // The default channel. The session-start deadline is raised from 8 s: with three OpenCode
        // runs on 2 loaded cores, 9 fake processes (Node, +500 ms each) can take longer, and a cut
        // lookup (partial context, one warning) is the fault tests' business, not this one's.
        options: { sessionStartTimeoutMs: 30_000 },
      }),
      run({ tarball, env: { PATH: pathWithoutMaenifold(), FAKE_MAENIFOLD_LOG: nocliLog } }),
      run({
        tarball,
        env: fake(promptLog, promptRoot),
        options: { sessionContextChannel: "prompt" },
        prompt: "hello",
        // A slow tool call, so that the noReply turn has landed before the next request.
        script: [{ tool: "bash", id: "call_sleep", args: { command: "sleep 3", description: "wait" } }, "done"],
      }),
    ]);
    console.log(
      `# session e2e: hooked ${hooked.durationMs} ms, nocli ${nocli.durationMs} ms, prompted ${prompted.durationMs} ms ` +
        `(${Date.now() - started} ms together)`,
    );
    for (const r of [hooked, nocli, prompted]) assertRunOk(r);
  });

  after(() => {
    for (const r of [hooked, nocli, prompted]) r?.cleanup();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  test("(a) a new session's FIRST model request has the knowledge-graph context in its system prompt", () => {
    const kinds = hooked.requests().map((r) => r.kind).filter((k) => k !== "title");
    assert.deepEqual(kinds, ["main", "compaction", "main"], hooked.describe());
    const first = hooked.mainRequests()[0];
    const sys = first.messages.filter((m) => m.role === "system").map((m) => contentText(m.content));
    const blocks = sys.filter((s) => s.includes(HEADER));
    assert.equal(blocks.length, 1, `one context block in the first request's system prompt\n${hooked.describe()}`);
    const block = blocks[0].slice(blocks[0].indexOf(HEADER));
    assert.match(block, new RegExp(`^Project: \\*\\*${PROJECT}\\*\\*$`, "m"));
    assert.match(block, /^### Related concepts\n(- \[\[[^\]]+\]\] \(\d+ files?\)\n)+/m);
    assert.match(block, /^- \[\[auth\]\] \(\d+ files?\)$/m);
    assert.match(block, /^- \[\[auth\]\] → .*\[\[jwt\]\]/m, "graph connections from the fixture");
    assert.match(block, /^- Auth Design — memory:\/\/notes\/auth-design/m);
    assert.ok(!first.lastUserText().includes(HEADER), "in the system prompt, not a user turn");
    // Title requests never get it.
    for (const t of hooked.model.titleRequests()) assert.ok(!t.findText(HEADER), "no context for the title generator");
    // Every request of the session gets it again (the system prompt is rebuilt each time).
    assert.ok(hooked.mainRequests()[1].system.includes(HEADER));

    // One lookup for the session, with the seed design's calls...
    const calls = readLog(fakeLog);
    const search = calls.filter((c) => c.tool === "SearchMemories");
    assert.equal(search.length, 1, JSON.stringify(calls.map((c) => c.tool)));
    assert.deepEqual(search[0].payload, { query: PROJECT, mode: "Hybrid", pageSize: 5 });
    assert.equal(calls.filter((c) => c.tool === "RecentActivity").length, 1);
    const bc = calls.filter((c) => c.tool === "BuildContext");
    assert.ok(bc.length >= 3, "BuildContext for the top concepts");
    // ...and the first request waited for it: it reached the model only after the last
    // BuildContext process had started and slept its start-up time.
    const lastStart = Math.max(...bc.map((c) => Date.parse(c.time)));
    assert.ok(first.time >= lastStart + STARTUP_MS, `first request at ${first.time}, last BuildContext started ${lastStart}`);
    const lines = hookwiseLines(hooked);
    assert.deepEqual(lines.filter((e) => e.level === "WARN" || e.level === "ERROR").map((e) => e.raw), []);
    assert.ok(lines.some((e) => /^session context for 'ledgerline': \d concepts, \d+ maenifold calls$/.test(e.message)));
  });

  test("(b) a triggered compaction: the summary request ends with the preservation block; WriteMemory files the session", () => {
    const [summaryReq] = hooked.model.compactionRequests();
    assert.ok(summaryReq, hooked.describe());
    const prompt = lastUser(summaryReq);
    const at = prompt.lastIndexOf(PRESERVATION);
    assert.ok(at > 0, `the summary prompt carries the block:\n${prompt.slice(-800)}`);
    const block = prompt.slice(at);
    assert.ok(prompt.slice(0, at).includes("<conversation>"), "after OpenCode's own summary template");
    assert.ok(block.includes(GUIDANCE), "tagging guidance");
    assert.ok(block.length <= 2000, "under 500 tokens");
    assert.deepEqual(sessionConcepts(block).sort(), ["auth", "jwt", "rest-api"], block);
    assert.match(block, /\nDecisions made in this session:\n- We decided to use \[\[jwt\]\] instead of opaque session ids\./);
    assert.ok(block.trimEnd().endsWith("opaque session ids.") || block.trimEnd().endsWith('opaque session ids."'), `the block ends the prompt:\n${block}`);
    // The summary then replaced the history.
    assert.ok(hooked.mainRequests()[1].findText("scripted summary"));

    const writes = readLog(fakeLog).filter((c) => c.tool === "WriteMemory");
    assert.equal(writes.length, 1);
    const w = writes[0];
    assert.equal(w.payload.folder, utcFolder(summaryReq.time), "sessions/compaction/YYYY/MM/DD (UTC)");
    assert.deepEqual(w.payload.tags, ["compaction", "session", PROJECT]);
    assert.match(w.payload.content, /\[\[auth\]\]/);
    assert.match(w.payload.content, /\[\[ledgerline\]\]/);
    assert.ok(w.argv.includes("--json"));
    const dir = path.join(root, "memory", w.payload.folder);
    assert.equal(fs.readdirSync(dir).length, 1, "the fake wrote the memory file");
    assert.ok(
      hookwiseLines(hooked).some((e) => /^compaction of ses_\w+: 3 concepts, 1 decisions, memory memory:\/\/sessions\/compaction\//.test(e.message)),
      hooked.describe(),
    );
  });

  test("(c) with no CLI: the session and the compaction work normally; the summary request still has the guidance block", () => {
    const kinds = nocli.requests().map((r) => r.kind).filter((k) => k !== "title");
    assert.deepEqual(kinds, ["main", "compaction", "main"], nocli.describe());
    for (const r of nocli.requests()) assert.ok(!r.findText(HEADER), "no session context");
    const prompt = lastUser(nocli.model.compactionRequests()[0]);
    const block = prompt.slice(prompt.lastIndexOf(PRESERVATION));
    assert.ok(block.startsWith(PRESERVATION) && block.includes(GUIDANCE), prompt.slice(-800));
    assert.deepEqual(sessionConcepts(block).sort(), ["auth", "jwt", "rest-api"], "concepts from the session's own messages");
    assert.ok(nocli.mainRequests()[1].findText("scripted summary"));
    assert.ok(nocli.text().trim().endsWith("continued after compaction"), nocli.describe());
    const lines = hookwiseLines(nocli);
    const loud = lines.filter((e) => e.level !== "DEBUG" && e.level !== "INFO");
    assert.equal(loud.length, 1, `one warning in the whole run:\n${lines.map((e) => e.raw).join("\n")}`);
    assert.match(loud[0].message, /^knowledge context is off: maenifold CLI not found/);
    assert.equal(fs.existsSync(nocliLog), false, "no maenifold ran");
  });

  test("(d) option sessionContextChannel \"prompt\": the context arrives as a user turn (never in the system prompt)", () => {
    const main = prompted.mainRequests();
    for (const r of prompted.requests()) assert.ok(!r.system.includes(HEADER), "the system channel is off");
    const carrying = main.filter((r) => r.messages.some((m) => m.role === "user" && contentText(m.content).startsWith(HEADER)));
    assert.ok(carrying.length >= 1, `the noReply turn reached the model\n${prompted.describe()}`);
    const firstIndex = carrying[0].mainIndex;
    // Under `opencode run` the event is not awaited: the turn lands after the user's prompt —
    // the reason the system channel is the default. Reported, not asserted (it is a race).
    const users = carrying[0].messages.filter((m) => m.role === "user").map((m) => contentText(m.content));
    console.log(`# prompt channel: context first seen in main request #${firstIndex}; user turns there: ${users.map((u) => JSON.stringify(u.slice(0, 30))).join(", ")}`);
    assert.equal(readLog(promptLog).filter((c) => c.tool === "SearchMemories").length, 1);
  });
});

// hookwise itself in the real OpenCode: the package is built (`npm run build` → pkg/), packed
// with `npm pack`, and loaded the way a user's OpenCode loads it — by package name, offline,
// with install scripts off. A scripted model drives bash, write and task calls that name
// [[auth]]; the fake maenifold (tests/fake-maenifold) answers with real fixture knowledge.
//
//   node --test tests/e2e/hookwise.test.mjs     (needs pkg/: run `npm run build` first)
//
// Two OpenCode runs start together in before():
//   hooked  — hookwise as `"plugin": ["hookwise"]` (pre-installed into OpenCode's package cache),
//             the fake maenifold found on PATH, its data root a copy of the fixture;
//   nocli   — hookwise as `"hookwise@file:<tgz>"` (OpenCode installs the tarball itself), and no
//             maenifold anywhere: not on PATH, no MAENIFOLD_CLI, an empty HOME.
// What the tools do without hookwise is known in advance (a deterministic printf, a file write,
// a task prompt, OpenCode's own "Wrote file successfully." — checked against a run without the
// plugin when this file was written), so no third run is spent on a plugin-less reference.
// Skips like smoke.test.mjs without the OpenCode binary (fails under CI).

import { packHookwise } from "./lib/pack.mjs";
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { e2eGate, runOpencode, assertRunOk, repoRoot } from "./lib/opencode.mjs";
import { contentText } from "./lib/model.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { requestWithResult } from "../e2e-shared/runs.mjs";
import { pathWithoutMaenifold } from "../e2e-shared/env.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e hookwise", "opencode");

const PKG_DIR = path.join(repoRoot, "pkg");
const FAKE_DIR = path.join(repoRoot, "tests", "fake-maenifold");
const FAKE_CLI = path.join(FAKE_DIR, "maenifold");
const FIXTURE_ROOT = path.join(FAKE_DIR, "fixtures", "root");

const OPEN = "<!-- Knowledge Graph Context (hookwise) -->";
const CLOSE = "<!-- /Knowledge Graph Context (hookwise) -->";

// What the scripted model asks for. The printf output is known in advance; the write content has
// no trailing newline and a second link form, to show nothing is added or normalised.
const BASH_COMMAND = `printf 'result:%s\\n' "[[auth]]"`;
const BASH_OUTPUT = "result:[[auth]]\n";
/** What OpenCode 1.18.33's write tool returns, without any plugin. */
const WRITE_RESULT = "Wrote file successfully.";
const WRITE_PATH = "notes/auth.md";
const WRITE_CONTENT = "# Login notes\n\nThe [[auth]] middleware checks the token.\nSee also [[Auth]] below.";
const TASK_MARKER = "SUBAGENT-TASK-7f3a";
const TASK_PROMPT = `${TASK_MARKER}: review how [[auth]] is wired and report back.`;
const EXPECTED_PAYLOAD = { conceptName: "auth", depth: 1, includeContent: true, maxEntities: 5 };

/**
 * One script for every run, a function of the request (so retries and the subagent's own
 * requests need no bookkeeping): the subagent — its first user message is the task prompt —
 * answers in text; the main session makes the bash, write and task calls in turn, one per
 * tool result it has seen.
 */
function script(req) {
  const firstUser = req.messages.find((m) => m.role === "user");
  if (firstUser && contentText(firstUser.content).includes(TASK_MARKER)) return "subagent: looked at it.";
  switch (req.toolResults().length) {
    case 0:
      return { tool: "bash", id: "call_bash", args: { command: BASH_COMMAND, description: "Print a result" } };
    case 1:
      return { tool: "write", id: "call_write", args: { filePath: WRITE_PATH, content: WRITE_CONTENT } };
    case 2:
      return { tool: "task", id: "call_task", args: { description: "Review auth", prompt: TASK_PROMPT, subagent_type: "general" } };
    default:
      return "all done";
  }
}

/** The main-session request that first carries the result of `callId`, and that result. */
const nextAfter = (r, callId) => requestWithResult(r.mainRequests(), callId, () => r.describe());

/** The subagent's requests: those whose first user message is the (possibly rewritten) task prompt. */
function subagentRequests(r) {
  return r.mainRequests().filter((req) => {
    const u = req.messages.find((m) => m.role === "user");
    return u && contentText(u.content).includes(TASK_MARKER);
  });
}

/** hookwise's log lines as text, for assertion messages. */
const hwLog = (r) => hookwiseLines(r).map((e) => e.raw).join("\n") || "(no hookwise log lines)";

/** Checks a markdown context block and returns it. */
function assertMarkdownBlock(block, where, r) {
  assert.ok(block.startsWith(OPEN + "\n"), `${where}: block must open with the delimiter:\n${block.slice(0, 300)}\n${hwLog(r)}`);
  assert.ok(block.endsWith("\n" + CLOSE), `${where}: block must end with the delimiter:\n${block.slice(-300)}`);
  assert.match(block, /^## \[\[auth\]\]$/m, `${where}: one section for [[auth]]`);
  // Knowledge from the fixture graph: auth's related concepts.
  for (const c of ["[[jwt]]", "[[rate-limiting]]", "[[session-tokens]]"]) assert.ok(block.includes(c), `${where}: ${c} missing`);
  return block;
}

/**
 * hookwise's log lines. OpenCode 1.18.33 drops `client.app.log`'s `service`; hookwise puts
 * `service: "hookwise"` in `extra` too, which OpenCode prints as `service=hookwise`.
 */
function hookwiseLines(r) {
  return r.logs.service("hookwise");
}

describe("hookwise in the real OpenCode (packed, loaded by package name)", { skip: suiteSkip }, () => {
  let packDir;
  let tarball;
  let fakeLog;
  let nocliFakeLog;
  let hooked;
  let nocli;

  before(async () => {
    assert.ok(
      fs.existsSync(path.join(PKG_DIR, "package.json")),
      `no built package at ${PKG_DIR}: run \`npm run build\` at the repository root first`,
    );
    const pack = packHookwise("hookwise-e2e-hw-");
    packDir = pack.packDir;
    const packed = pack.packed;
    tarball = path.join(packDir, packed[0].filename);
    const listed = packed[0].files.map((f) => f.path);
    for (const f of ["package.json", "dist/index.mjs", "dist/hookwise_bg.wasm"]) {
      assert.ok(listed.includes(f), `packed hookwise lacks ${f} (is pkg/ being rebuilt?): ${listed.join(", ")}`);
    }
    // A private copy of the fake's data root (the fake runs `mkdir -p <root>/memory` on every call).
    const dataRoot = path.join(packDir, "maenifold-root");
    fs.cpSync(FIXTURE_ROOT, dataRoot, { recursive: true });
    fakeLog = path.join(packDir, "fake-maenifold.log");
    nocliFakeLog = path.join(packDir, "fake-maenifold-nocli.log");

    // A user's bash permission rules must still match the command hookwise prefixed with
    // comment lines: only printf is allowed (OpenCode matches rules against the commands it
    // parses out of the command line, so the comments do not count).
    const config = { permission: { bash: { "*": "deny", "printf *": "allow" } } };
    const started = Date.now();
    [hooked, nocli] = await Promise.all([
      runOpencode({
        prompt: "Work on the auth notes.",
        plugins: [{ tarball, install: "cache" }], // opencode.json: "plugin": ["hookwise"]
        env: {
          PATH: `${FAKE_DIR}:${process.env.PATH}`,
          MAENIFOLD_ROOT: dataRoot,
          FAKE_MAENIFOLD_LOG: fakeLog,
          // The per-call CLI path (its payloads are checked below); the warm MCP session has
          // its own e2e (mcp.test.mjs).
          HOOKWISE_TRANSPORT: "cli",
          // Session-start context has its own test (session.test.mjs); off here so the fake's
          // log holds only the tool calls' lookups.
          SESSION_START_ENABLED: "false",
        },
        config,
        script,
        timeoutMs: 50_000,
      }),
      runOpencode({
        prompt: "Work on the auth notes.",
        plugins: [{ tarball, install: "opencode" }], // OpenCode installs the tarball itself, scripts off
        // Built from scratch by the harness: no MAENIFOLD_CLI / MAENIFOLD_ROOT; HOME is an empty temp dir.
        env: { PATH: pathWithoutMaenifold(), FAKE_MAENIFOLD_LOG: nocliFakeLog },
        config,
        script,
        timeoutMs: 50_000,
      }),
    ]);
    console.log(
      `# hookwise e2e: runs took hooked ${hooked.durationMs} ms, nocli ${nocli.durationMs} ms ` +
        `(${Date.now() - started} ms together); first model request after ` +
        `${hooked.mainRequests()[0]?.time - started} / ${nocli.mainRequests()[0]?.time - started} ms`,
    );
    for (const r of [hooked, nocli]) assertRunOk(r);
  });

  after(() => {
    for (const r of [hooked, nocli]) r?.cleanup();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  test("the packed package is what OpenCode loaded, by name", () => {
    assert.deepEqual(hooked.sandbox.config.plugin, ["hookwise"]);
    const cached = path.join(hooked.sandbox.cacheHome, "opencode", "packages", "hookwise@latest", "node_modules", "hookwise");
    assert.ok(fs.existsSync(path.join(cached, "dist", "hookwise_bg.wasm")), "the wasm ships inside the package");
    const using = hooked.logs.filter((e) => /^using maenifold at /.test(e.message ?? ""));
    assert.equal(using.length, 1, `hookwise starts once and says which CLI it uses\n${hooked.describe()}`);
    assert.equal(using[0].message, `using maenifold at ${fs.realpathSync(FAKE_CLI)} (path)`);
    assert.equal(using[0].level, "INFO");
    assert.equal(using[0].service, "hookwise", "hookwise's lines are findable by service");
    assert.deepEqual(nocli.sandbox.config.plugin, [`hookwise@file:${tarball}`]);
    // Nothing went wrong on the way: no hookwise error, no failed tool-call lookup. (Session-start
    // context is another feature with its own tests; its deadline warnings are not judged here.)
    const bad = hookwiseLines(hooked).filter(
      (e) => e.level === "ERROR" || (e.level === "WARN" && /context lookup failed/.test(e.message ?? "")),
    );
    assert.deepEqual(bad.map((e) => e.raw), [], "no hookwise errors or failed lookups");
  });

  test("bash: the command's output is unchanged; the model's next request shows the context in its own call", () => {
    const got = nextAfter(hooked, "call_bash");
    assert.equal(got.result, BASH_OUTPUT, "the tool result the model reads is exactly printf's output");
    const use = hooked.toolUses().find((u) => u.callID === "call_bash");
    assert.equal(use?.status, "completed");
    assert.equal(use.metadata?.exit, 0);

    // The model's own call, as OpenCode replays it, was rewritten: comment lines, then the command.
    const cmd = got.call.args.command;
    assert.ok(cmd.endsWith("\n" + BASH_COMMAND), `the original command comes last, untouched:\n${cmd}`);
    const comments = cmd.slice(0, -(BASH_COMMAND.length + 1)).split("\n");
    assert.equal(comments[0], `# ${OPEN}`, hwLog(hooked));
    assert.equal(comments.at(-1), `# ${CLOSE}`);
    for (const line of comments) assert.match(line, /^#( |$)/, "every added line is a shell comment");
    assert.ok(comments.includes("# ## [[auth]]"), "a section for [[auth]]");
    const joined = comments.join("\n");
    for (const c of ["[[jwt]]", "[[rate-limiting]]", "[[session-tokens]]"]) assert.ok(joined.includes(c), `${c} missing`);
    assert.equal(got.call.args.description, "Print a result", "other arguments untouched");
  });

  test("write: exactly the model's content lands on disk; the context comes with the tool result", () => {
    const file = fs.readFileSync(path.join(hooked.dir, WRITE_PATH), "utf8");
    assert.equal(file, WRITE_CONTENT, "the file holds exactly what the model wrote");

    const got = nextAfter(hooked, "call_write");
    assert.deepEqual(got.call.args, { filePath: WRITE_PATH, content: WRITE_CONTENT }, "the write call is not rewritten");
    assert.ok(!got.call.args.content.includes(OPEN));
    assert.ok(got.result.startsWith(WRITE_RESULT + "\n\n"), `the tool's own result comes first:\n${got.result.slice(0, 200)}\n${hwLog(hooked)}`);
    assertMarkdownBlock(got.result.slice(WRITE_RESULT.length + 2), "write result", hooked);
    assert.equal(hooked.toolUses().find((u) => u.callID === "call_write")?.status, "completed");
  });

  test("task: the subagent's prompt carries the context, followed by the model's own prompt", () => {
    const sub = subagentRequests(hooked);
    assert.ok(sub.length >= 1, `the subagent talked to the model\n${hooked.describe()}`);
    const prompt = contentText(sub[0].messages.find((m) => m.role === "user").content);
    assert.ok(prompt.endsWith("\n\n" + TASK_PROMPT), `the model's prompt follows the block:\n${prompt.slice(-300)}\n${hwLog(hooked)}`);
    assertMarkdownBlock(prompt.slice(0, -(TASK_PROMPT.length + 2)), "subagent prompt", hooked);

    // The parent session replays the rewritten task call too, and the task completed.
    const got = nextAfter(hooked, "call_task");
    assert.equal(got.call.args.prompt, prompt);
    assert.match(got.result, /subagent: looked at it\./);
    assert.equal(hooked.text().trim().endsWith("all done"), true, hooked.describe());
  });

  test("the first tool call asked the fake maenifold for BuildContext of auth, with the documented payload; the cache answered the rest", () => {
    const calls = fs
      .readFileSync(fakeLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.event === "call");
    const expectedArgv = ["--tool", "BuildContext", "--payload", JSON.stringify(EXPECTED_PAYLOAD)];
    const lookups = calls.filter((c) => JSON.stringify(c.argv) === JSON.stringify(expectedArgv));
    const shown = JSON.stringify(calls.map((c) => [c.time, ...c.argv]), null, 1);
    // bash, write and task all name [[auth]]: one CLI call (during the bash call); the write
    // and task calls got the same context from the 5-minute cache (the other tests show they
    // carry it).
    assert.equal(lookups.length, 1, `BuildContext(auth) lookups for tool calls:\n${shown}`);
    assert.equal(lookups[0].mode, "cli");
    assert.deepEqual(lookups[0].payload, EXPECTED_PAYLOAD);
    const from = hooked.mainRequests().find((q) => q.reply?.tool === "bash").time;
    const to = nextAfter(hooked, "call_bash").req.time;
    const t = Date.parse(lookups[0].time);
    assert.ok(t >= from && t <= to, `the lookup ran during the bash call (${new Date(from).toISOString()}..${new Date(to).toISOString()}):\n${shown}`);
  });

  test("with no CLI: bash, write and task work exactly as without hookwise, and one warning is logged", () => {
    const bash = nextAfter(nocli, "call_bash");
    assert.equal(bash.result, BASH_OUTPUT);
    assert.deepEqual(bash.call.args, { command: BASH_COMMAND, description: "Print a result" }, "bash call not rewritten");
    const write = nextAfter(nocli, "call_write");
    assert.equal(write.result, WRITE_RESULT);
    assert.deepEqual(write.call.args, { filePath: WRITE_PATH, content: WRITE_CONTENT }, "write call not rewritten");
    assert.equal(fs.readFileSync(path.join(nocli.dir, WRITE_PATH), "utf8"), WRITE_CONTENT);
    const sub = subagentRequests(nocli);
    assert.ok(sub.length >= 1, nocli.describe());
    assert.equal(contentText(sub[0].messages.find((m) => m.role === "user").content), TASK_PROMPT);
    assert.equal(nextAfter(nocli, "call_task").call.args.prompt, TASK_PROMPT);
    assert.equal(nocli.text().trim().endsWith("all done"), true);
    for (const req of nocli.requests()) {
      assert.ok(!req.findText("Knowledge Graph Context") && !req.system.includes("Knowledge Graph Context"), "no context anywhere");
    }

    // Exactly one line from hookwise in the whole run: the start-up warning. No line per call.
    // (OpenCode 1.18 also calls the dual export's setup() with a context without tool hooks: its
    // one info line says the 1.x server does the work, as in Kilo; tests/e2e-kilo.)
    const all = hookwiseLines(nocli);
    const setupNote = all.filter((e) => e.level === "INFO" && /setup\(\) without tool hooks registered nothing/.test(e.message));
    assert.ok(setupNote.length <= 1, all.map((e) => e.raw).join("\n"));
    const lines = all.filter((e) => !setupNote.includes(e));
    assert.equal(lines.length, 1, `expected exactly one hookwise line:\n${lines.map((e) => e.raw).join("\n")}`);
    assert.equal(lines[0].level, "WARN");
    assert.match(lines[0].message, /^knowledge context is off: maenifold CLI not found/);
    assert.equal(fs.existsSync(nocliFakeLog), false, "no maenifold ran");
  });
});

// The warm maenifold MCP session (issue 7) in the real OpenCode: hookwise packed and loaded by
// package name, the fake maenifold on PATH speaking `--mcp` (transport "auto", the default),
// each process start costing FAKE_MAENIFOLD_STARTUP_MS. A scripted model makes two bash calls
// naming [[auth]] and [[jwt]]. The session's context, both tool calls' context and every lookup
// come from ONE server process, which is gone when OpenCode is.
//
//   node --test tests/e2e/mcp.test.mjs     (needs pkg/: run `npm run build` first)
import { packHookwise } from "./lib/pack.mjs";
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { e2eGate, makeSandbox, assertRunOk, repoRoot, processAlive } from "./lib/opencode.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e mcp", "opencode");

const FAKE_DIR = path.join(repoRoot, "tests", "fake-maenifold");
const FIXTURE_ROOT = path.join(FAKE_DIR, "fixtures", "root");
const PROJECT = "ledgerline";
const STARTUP_MS = 800;
const HEADER = "## Knowledge Graph Context";
const OPEN = "<!-- Knowledge Graph Context (hookwise) -->";

function script(req) {
  switch (req.toolResults().length) {
    case 0:
      return { tool: "bash", id: "call_1", args: { command: `printf 'one:%s\\n' "[[auth]]"`, description: "one" } };
    case 1:
      return { tool: "bash", id: "call_2", args: { command: `printf 'two:%s\\n' "[[jwt]] [[auth]]"`, description: "two" } };
    default:
      return "done";
  }
}

describe("the warm maenifold MCP session in the real OpenCode", { skip: suiteSkip }, () => {
  let packDir;
  let r;
  let calls;
  let cleanup;

  before(async () => {
    const pack = packHookwise("hookwise-e2e-mcp-");
    packDir = pack.packDir;
    const tarball = path.join(packDir, pack.packed[0].filename);
    const root = path.join(packDir, "root");
    fs.cpSync(FIXTURE_ROOT, root, { recursive: true });
    const log = path.join(packDir, "fake.log");
    const sb = makeSandbox({
      plugins: [{ tarball, install: "cache" }],
      env: {
        PATH: `${FAKE_DIR}:${process.env.PATH}`,
        MAENIFOLD_ROOT: root,
        FAKE_MAENIFOLD_LOG: log,
        FAKE_MAENIFOLD_STARTUP_MS: String(STARTUP_MS),
        FAKE_MAENIFOLD_NOW: "2026-11-21T20:00:00Z",
        TZ: "UTC",
      },
    });
    cleanup = sb.cleanup;
    const cwd = path.join(sb.dir, PROJECT);
    fs.mkdirSync(cwd);
    r = await sb.run({ cwd, prompt: "Check [[auth]].", script, timeoutMs: 60_000 });
    assertRunOk(r);
    calls = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
  });

  after(() => {
    cleanup?.();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  test("the session's context and both tool calls' context arrive", () => {
    const [first, second, third] = r.mainRequests();
    assert.ok(first && second && third, r.describe());
    assert.ok(first.system.includes(HEADER), `session context in the first request's system prompt\n${r.describe()}`);
    const call1 = second.assistantToolCalls().find((c) => c.id === "call_1");
    const call2 = third.assistantToolCalls().find((c) => c.id === "call_2");
    for (const c of [call1, call2]) {
      assert.ok(c, r.describe());
      const cmd = c.args.command;
      assert.ok(cmd.includes(OPEN), `the model's own call carries the context:\n${cmd}`);
      assert.ok(cmd.includes("[[session-tokens]]"), cmd);
    }
  });

  test("the fake's log: ONE process start for the whole session, every lookup over MCP", () => {
    const starts = calls.filter((c) => c.event === "start");
    assert.equal(starts.length, 1, JSON.stringify(calls.map((c) => [c.mode, c.event, c.tool])));
    assert.equal(starts[0].mode, "mcp");
    assert.deepEqual(calls.filter((c) => c.mode === "cli"), [], "no CLI process at all");
    const tools = calls.filter((c) => c.event === "call").map((c) => c.tool);
    assert.ok(tools.includes("search_memories") && tools.includes("recent_activity"), tools.join(","));
    assert.ok(tools.filter((t) => t === "build_context").length >= 2, tools.join(","));
    assert.ok(calls.every((c) => c.pid === starts[0].pid), "one pid answered everything");
  });

  test("no orphan: the server is gone with OpenCode", async () => {
    const pid = calls.find((c) => c.event === "start").pid;
    const end = Date.now() + 5000;
    while (processAlive(pid) && Date.now() < end) await new Promise((res) => setTimeout(res, 100));
    assert.equal(processAlive(pid), false, `maenifold --mcp (pid ${pid}) outlived OpenCode`);
  });
});

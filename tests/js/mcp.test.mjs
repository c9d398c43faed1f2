// The warm maenifold MCP session (issue 7), through the engine API against the fake maenifold
// in `--mcp` mode: one process per instance, concurrency, dispose, no orphan when the host
// dies, and every fault the issue lists (each: the call proceeds, nothing hangs, the next
// lookup gets a working session or the CLI, one warning per incident).
// Runs under node --test and bun test (every test sets its own timeout).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { dist, fakeEnv, tmpdir, alive } from "./helpers.mjs";

const T = { timeout: 30_000 };
const { createEngine } = await import(path.join(dist, "engine.mjs"));
const HEADER = "Knowledge Graph Context (hookwise)";

async function engine(extraEnv = {}, options = {}) {
  const f = fakeEnv(extraEnv);
  const logs = [];
  const e = await createEngine({
    cwd: tmpdir("hookwise-mcp-cwd-"),
    // (Other test files set HOOKWISE_TRANSPORT=cli in this process under bun: not here.)
    env: { ...process.env, HOOKWISE_TRANSPORT: "", ...f.env },
    options,
    log: (level, message) => logs.push({ level, message }),
  });
  return { e, f, logs, warnings: () => logs.filter((l) => l.level === "warn").map((l) => l.message) };
}

/** A bash call linking `concepts`; returns the command hookwise would run. */
async function call(e, concepts, id = "c") {
  const args = { command: `echo ${concepts.map((c) => `[[${c}]]`).join(" ")}` };
  const r = await e.augmentToolCall({ tool: "bash", args, callId: id });
  return r.args.command;
}

const starts = (f) => f.calls().filter((c) => c.mode === "mcp" && c.event === "start");
const mcpCalls = (f) => f.calls().filter((c) => c.mode === "mcp" && c.event === "call");
const cliCalls = (f) => f.calls().filter((c) => c.mode === "cli");

async function gone(pid, ms = 5000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

test("one process for the instance: lazy, multiplexed, answers in the CLI's context form", T, async () => {
  // Without session-start context nothing warms the session up at plugin start.
  const { e, f, warnings } = await engine({}, { sessionStartEnabled: false });
  assert.equal(starts(f).length, 0, "nothing starts before the first need");
  const cmd = await call(e, ["auth", "jwt", "rest-api"]);
  assert.ok(cmd.includes(HEADER), cmd);
  assert.ok(cmd.includes("[[session-tokens]]"), cmd);
  // Concurrent calls share the process; their requests are multiplexed on it.
  const many = await Promise.all(["redis", "session-tokens", "rest-api", "rate-limiting", "auth"].map((c, i) => call(e, [c], `p${i}`)));
  for (const m of many) assert.ok(m.includes(HEADER), m);
  assert.equal(starts(f).length, 1, JSON.stringify(f.calls()));
  assert.equal(cliCalls(f).length, 0);
  assert.deepEqual(
    mcpCalls(f).map((c) => c.tool),
    Array(mcpCalls(f).length).fill("build_context"),
  );
  const d = await e.doctor();
  assert.equal(d.source, "maenifold-mcp");
  assert.equal(d.mcp.stage, "ready");
  assert.equal(d.mcp.starts, 1);
  assert.ok(d.mcp.cache.hits >= 1, "auth asked twice: the second from the cache");
  assert.deepEqual(warnings(), []);
  const pid = starts(f)[0].pid;
  assert.ok(alive(pid));
  await e.dispose();
  assert.ok(await gone(pid), `pid ${pid} still alive after dispose`);
});

test("the MCP context equals the CLI's for the same question", T, async () => {
  const a = await engine();
  const b = await engine({}, { transport: "cli" });
  const concepts = ["auth", "rest-api", "no-such-concept"];
  const viaMcp = await call(a.e, concepts);
  const viaCli = await call(b.e, concepts);
  assert.equal(viaMcp, viaCli);
  assert.equal(starts(b.f).length, 0, "transport cli never starts a server");
  assert.equal(cliCalls(a.f).length, 0);
  await a.e.dispose();
  await b.e.dispose();
});

test("idle costs nothing: a node process with a warm session exits on its own", T, async () => {
  // The child process owns an engine with a warm session and then does nothing: unref'd pipes
  // and no timers let node exit; the exit hook kills the server.
  const f = fakeEnv();
  const script = `
    const { createEngine } = await import(${JSON.stringify(path.join(dist, "engine.mjs"))});
    const e = await createEngine({ cwd: ${JSON.stringify(tmpdir())} });
    const r = await e.augmentToolCall({ tool: "bash", args: { command: "echo [[auth]]" }, callId: "x" });
    console.log(r.args.command.includes("Knowledge Graph Context") ? "ok" : "no context");
  `;
  const t0 = Date.now();
  const r = await runNode(script, f.env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "ok");
  assert.ok(Date.now() - t0 < 15_000);
  const pid = starts(f)[0].pid;
  assert.ok(await gone(pid), `server ${pid} outlived its host`);
});

for (const how of ["SIGKILL", "SIGTERM"]) {
  test(`no orphan: the server goes when its host is killed (${how})`, T, async () => {
    const f = fakeEnv();
    const script = `
      const { createEngine } = await import(${JSON.stringify(path.join(dist, "engine.mjs"))});
      const e = await createEngine({ cwd: ${JSON.stringify(tmpdir())} });
      await e.augmentToolCall({ tool: "bash", args: { command: "echo [[auth]]" }, callId: "x" });
      console.log("warm");
      setInterval(() => {}, 1000); // the host stays up until killed
    `;
    const child = spawnNode(script, f.env);
    await new Promise((resolve, reject) => {
      child.stdout.on("data", (d) => String(d).includes("warm") && resolve());
      child.on("exit", () => reject(new Error("host exited early")));
    });
    const pid = starts(f)[0].pid;
    assert.ok(alive(pid));
    child.kill(how);
    assert.ok(await gone(pid), `server ${pid} orphaned after ${how} of its host`);
  });
}

function spawnNode(script, env) {
  return spawn(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, HOOKWISE_TRANSPORT: "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
}

function runNode(script, env) {
  return new Promise((resolve) => {
    const c = spawnNode(script, env);
    let stdout = "";
    let stderr = "";
    c.stdout.on("data", (d) => (stdout += d));
    c.stderr.on("data", (d) => (stderr += d));
    c.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

// ---------------------------------------------------------------------------------------------
// Faults. Each: the tool call proceeds (fail open), nothing hangs, the next lookup gets a
// working session or the CLI, one warning per incident.

test("fault: a server that never answers the handshake → the CLI, said once", T, async () => {
  const { e, f, warnings } = await engine({ FAKE_MAENIFOLD_MCP_FAULT: "no-handshake" }, { mcpStartTimeoutMs: 1000 });
  const first = await call(e, ["auth"], "a");
  const second = await call(e, ["jwt"], "b");
  assert.ok(second.includes(HEADER), second);
  assert.ok(cliCalls(f).length >= 1, "answered by the CLI");
  assert.equal(starts(f).length, 1, "not started again");
  const w = warnings();
  assert.equal(w.length, 1, JSON.stringify(w));
  assert.match(w[0], /handshake/);
  // The first call either waited for the start timeout and then asked the CLI, or proceeded.
  assert.equal(typeof first, "string");
  const pid = starts(f)[0].pid;
  assert.ok(await gone(pid), "the silent process is stopped");
  await e.dispose();
});

test("fault: garbage lines and partial lines → context still arrives", T, async () => {
  for (const fault of ["garbage", "partial"]) {
    const { e, f, warnings } = await engine({ FAKE_MAENIFOLD_MCP_FAULT: fault });
    const cmd = await call(e, ["auth", "jwt"]);
    assert.ok(cmd.includes(HEADER), `${fault}: ${cmd}`);
    assert.equal(starts(f).length, 1);
    assert.equal(cliCalls(f).length, 0, fault);
    const again = await call(e, ["redis"], "d");
    assert.ok(again.includes(HEADER), again);
    assert.ok(warnings().length <= 1, `${fault}: ${JSON.stringify(warnings())}`);
    await e.dispose();
  }
});

for (const fault of ["close-stdout", "exit"]) {
  test(`fault: ${fault} mid-request → the call proceeds, the next lookup works`, T, async () => {
    const { e, f, warnings } = await engine({ FAKE_MAENIFOLD_MCP_FAULT: fault });
    const t0 = Date.now();
    const first = await call(e, ["auth"], "a");
    assert.ok(Date.now() - t0 < 4000, "pending requests resolved, not timed out");
    // auto: the lookup that lost its session asks the CLI.
    assert.ok(first.includes(HEADER), first);
    const w = warnings();
    assert.equal(w.length, 1, JSON.stringify(w));
    const pid = starts(f)[0].pid;
    assert.ok(await gone(pid), "the broken process is gone");
    const second = await call(e, ["jwt"], "b");
    assert.ok(second.includes(HEADER), second);
    assert.equal(starts(f).length, 2, "replaced by a new session");
    await e.dispose();
  });
}

test("fault: a server flooding stderr is drained and keeps answering", T, async () => {
  const { e, f, warnings } = await engine({ FAKE_MAENIFOLD_MCP_FAULT: "stderr-flood" });
  for (let i = 0; i < 3; i++) {
    const cmd = await call(e, ["auth", "rest-api"], `s${i}`);
    assert.ok(cmd.includes(HEADER), cmd);
    await new Promise((r) => setTimeout(r, 200)); // ~400 KB of stderr meanwhile
  }
  assert.equal(starts(f).length, 1);
  assert.equal(cliCalls(f).length, 0);
  assert.deepEqual(warnings(), []);
  await e.dispose();
});

test("fault: isError results are answers, not faults: no context, no restart", T, async () => {
  const { e, f } = await engine({ FAKE_MAENIFOLD_MCP_FAULT: "iserror" });
  const cmd = await call(e, ["auth"]);
  assert.ok(!cmd.includes(HEADER), cmd);
  await call(e, ["jwt"], "b");
  assert.equal(starts(f).length, 1);
  assert.equal(cliCalls(f).length, 0, "a tool error is definitive: not asked again through the CLI");
  await e.dispose();
});

test("fault: one request past the timeout while others are in flight", T, async () => {
  // search_memories is slow; build_context is not: a session preview's search times out while
  // a tool call's lookups on the same session are answered.
  const { e, f, warnings } = await engine({ FAKE_MAENIFOLD_MCP_FAULT: "slow:search_memories:3000" }, { timeoutMs: 1000, transport: "mcp" });
  await call(e, ["auth"], "warm");
  const t0 = Date.now();
  const [preview, cmd] = await Promise.all([e.sessionPreview({ project: "ledgerline" }), call(e, ["jwt", "redis"], "b")]);
  assert.ok(cmd.includes(HEADER), cmd);
  assert.ok(Date.now() - t0 < 2900, "the preview did not wait for the slow search");
  assert.ok(preview.failures.some((x) => /SearchMemories.*(timed out|within 1000 ms)/.test(x)), JSON.stringify(preview.failures));
  assert.equal(starts(f).length, 1, "a slow request does not cost the session");
  const after = await call(e, ["session-tokens"], "c");
  assert.ok(after.includes(HEADER), after);
  // The preview reports its own partial context; the session had no incident.
  assert.deepEqual(warnings().filter((w) => /MCP server|MCP process/.test(w)), []);
  await e.dispose();
});

test("transport mcp with no working server fails open without the CLI", T, async () => {
  const { e, f, warnings } = await engine({ FAKE_MAENIFOLD_MCP_FAULT: "exit" }, { transport: "mcp", mcpMaxRestarts: 1 });
  for (let i = 0; i < 4; i++) {
    const cmd = await call(e, ["auth"], `m${i}`);
    assert.ok(!cmd.includes(HEADER));
  }
  assert.equal(cliCalls(f).length, 0);
  assert.ok(starts(f).length <= 3, `bounded restarts: ${starts(f).length}`);
  assert.ok(warnings().length >= 1);
  await e.dispose();
});

test("session-start context warms the session at plugin start", T, async () => {
  const { e, f } = await engine({}, {});
  // The engine API has session context on by default: init starts the server in the
  // background, with no hook call at all.
  for (let i = 0; i < 100 && starts(f).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(starts(f).length, 1, "started at plugin start");
  assert.equal(mcpCalls(f).length, 0);
  const t0 = performance.now();
  const cmd = await call(e, ["auth"]);
  assert.ok(cmd.includes(HEADER));
  assert.ok(performance.now() - t0 < 1000);
  await e.dispose();
});

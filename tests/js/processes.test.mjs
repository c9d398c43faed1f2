// No stray processes (issue 18, item 6): whatever a maenifold CLI call or the MCP server starts
// ends with it — when the call ends, times out or is cancelled, when the engine is disposed,
// when the core stops the server — through the host's spawn (Bun.spawn and child_process) and
// the engine with transport "cli", "auto" and "mcp". The attacker here is a CLI (or a server)
// that leaves children behind: a plain `sleep`, one holding the pipes hookwise reads, one that
// ignores SIGTERM. What Linux cannot reach (a child in a session of its own) is shown as such.
// The fake: tests/fake-maenifold/maenifold-spawning (FAKE_MAENIFOLD_CHILDREN).
// Runs under node --test and bun test. POSIX only (Windows has no process groups).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, repo, fakeEnv, tmpdir } from "./helpers.mjs";

const T = { timeout: 60_000, skip: process.platform === "win32" ? "no process groups on Windows" : false };
const require = createRequire(import.meta.url);
const { spawnProcess, hasBun } = require(path.join(dist, "host.cjs"));
const { createEngine } = await import(path.join(dist, "engine.mjs"));
const spawning = path.join(repo, "tests/fake-maenifold/maenifold-spawning");
const HEADER = "Knowledge Graph Context (hookwise)";
const FOUR = "sleep,pipes,noterm,stubborn";

/** Running: not gone and not a zombie (an orphan's zombie waits for init to reap it). */
function running(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) [ZX]/s.test(stat);
  } catch (e) {
    if (e && e.code === "ENOENT") return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** Poll (generous bound: the machine is shared) until `pred()` holds; its last value. */
async function until(pred, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await pause(25);
  }
  return pred();
}

/** The fake maenifold as `maenifold` on PATH, starting `children`; their pids in a file. */
function spawningFake(children, extra = {}) {
  const bin = tmpdir("hookwise-procs-bin-");
  fs.symlinkSync(spawning, path.join(bin, "maenifold"));
  const pidsFile = path.join(tmpdir("hookwise-procs-pids-"), "children.jsonl");
  const f = fakeEnv({ PATH: `${bin}:${process.env.PATH}`, FAKE_MAENIFOLD_CHILDREN: children, FAKE_MAENIFOLD_CHILD_PIDS: pidsFile, FAKE_MAENIFOLD_CHILD_SECONDS: "120", ...extra });
  const children_ = () => (fs.existsSync(pidsFile) ? fs.readFileSync(pidsFile, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
  return { ...f, bin, children: children_ };
}

/** SIGKILL whatever a test left (a failed assertion must not leave sleeps behind). */
function reap(pids) {
  for (const p of pids) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      /* gone */
    }
  }
}

const pidsOf = (list) => list.map((c) => c.pid);
const describe = (f) => JSON.stringify(f.children().map((c) => ({ ...c, running: running(c.pid) })));

// ---------------------------------------------------------------------------------------------
// The host's spawn, both ways under Bun (Bun.spawn; child_process), child_process under Node.

const ways = hasBun ? [["Bun.spawn", false], ["child_process", true]] : [["child_process", true]];
const cliArgv = [spawning, "--tool", "BuildContext", "--payload", '{"conceptName":"auth"}'];

for (const [way, forceNode] of ways) {
  const run = (f, timeoutMs = 20_000) => spawnProcess({ argv: cliArgv, timeoutMs, maxBytes: 1 << 20 }, { env: f.env, forceNode });

  test(`${way}: a call's children end when it ends, and the answer does not wait for them`, T, async () => {
    const f = spawningFake(FOUR);
    try {
      const r = await run(f).promise;
      // A call waiting for the child holding its pipes would have timed out (20 s).
      assert.equal(r.timedOut, false);
      assert.ok(r.success, JSON.stringify(r).slice(0, 300));
      assert.ok(r.stdout.startsWith("Context for CONCEPT: auth"), r.stdout);
      assert.equal(f.children().length, 4);
      // SIGTERM at once; the one ignoring it: SIGKILL after the grace.
      assert.ok(await until(() => f.children().every((c) => !running(c.pid))), describe(f));
    } finally {
      reap(pidsOf(f.children()));
    }
  });

  test(`${way}: a child that ignores SIGTERM and holds the output pipe: the answer is whole and does not wait; SIGKILL ends it`, T, async () => {
    const plain = await run(spawningFake("")).promise;
    assert.ok(plain.success, JSON.stringify(plain).slice(0, 300));
    const f = spawningFake("stubborn");
    try {
      const r = await run(f).promise;
      assert.equal(r.timedOut, false);
      assert.ok(r.success, JSON.stringify(r).slice(0, 300));
      assert.equal(r.stdout, plain.stdout);
      const [child] = f.children();
      assert.ok(await until(() => !running(child.pid)), describe(f));
    } finally {
      reap(pidsOf(f.children()));
    }
  });

  test(`${way}: a timed-out call's whole group ends (SIGTERM, then SIGKILL)`, T, async () => {
    // The CLI hangs, and its children include one that ignores SIGTERM.
    const f = spawningFake(FOUR, { FAKE_MAENIFOLD_FAULT: "*:hang" });
    try {
      const r = await run(f, 1000).promise;
      assert.equal(r.timedOut, true);
      assert.equal(r.success, false);
      const leader = f.calls().find((c) => c.mode === "cli").pid;
      assert.ok(await until(() => !running(leader) && f.children().every((c) => !running(c.pid))), describe(f));
    } finally {
      reap(pidsOf(f.children()));
    }
  });

  test(`${way}: a cancelled call's whole group ends`, T, async () => {
    const f = spawningFake(FOUR, { FAKE_MAENIFOLD_FAULT: "*:hang" });
    try {
      const s = run(f, 30_000);
      assert.ok(await until(() => f.children().length === 4 && f.calls().length === 1), "the fake started its children");
      s.cancel();
      const r = await s.promise;
      assert.equal(r.error, "cancelled");
      const leader = f.calls().find((c) => c.mode === "cli").pid;
      assert.ok(await until(() => !running(leader) && f.children().every((c) => !running(c.pid))), describe(f));
    } finally {
      reap(pidsOf(f.children()));
    }
  });

  test(`${way}: out of reach, as documented: a child in a session of its own (setsid) outlives the call`, T, async () => {
    const f = spawningFake("setsid,sleep");
    try {
      const r = await run(f).promise;
      assert.ok(r.success, JSON.stringify(r).slice(0, 300));
      const [setsid, sleep] = ["setsid", "sleep"].map((k) => f.children().find((c) => c.kind === k).pid);
      assert.ok(await until(() => !running(sleep)), describe(f));
      await pause(1500); // past the grace: still there
      assert.ok(running(setsid), "a setsid child left the group: the host cannot see it (README)");
    } finally {
      reap(pidsOf(f.children()));
    }
  });
}

test(`a host that exits while a call runs takes the call's group with it`, T, async () => {
  // The host (this runtime) starts a hung CLI call, waits until its children run, and exits.
  const f = spawningFake(FOUR, { FAKE_MAENIFOLD_FAULT: "*:hang" });
  const script = `
    const { spawnProcess } = require(${JSON.stringify(path.join(dist, "host.cjs"))});
    const fs = require("node:fs");
    spawnProcess({ argv: ${JSON.stringify(cliArgv)}, timeoutMs: 60000, maxBytes: 1 << 20 }, { env: ${JSON.stringify({ ...process.env, ...f.env })} });
    const t = setInterval(() => {
      const n = fs.existsSync(${JSON.stringify(f.env.FAKE_MAENIFOLD_CHILD_PIDS)}) ? fs.readFileSync(${JSON.stringify(f.env.FAKE_MAENIFOLD_CHILD_PIDS)}, "utf8").trim().split(String.fromCharCode(10)).length : 0;
      if (n >= 4 && fs.existsSync(${JSON.stringify(f.log)})) process.exit(0);
    }, 20);`;
  const dir = tmpdir("hookwise-procs-host-");
  fs.writeFileSync(path.join(dir, "host.cjs"), script);
  const { spawnSync } = await import("node:child_process");
  try {
    const r = spawnSync(process.execPath, [path.join(dir, "host.cjs")], { timeout: 30_000, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const leader = f.calls().find((c) => c.mode === "cli").pid;
    assert.ok(await until(() => !running(leader) && f.children().every((c) => !running(c.pid))), describe(f));
  } finally {
    reap(pidsOf(f.children()));
  }
});

// ---------------------------------------------------------------------------------------------
// The engine, by transport.

async function engine(f, transport, options = {}) {
  return createEngine({
    cwd: tmpdir("hookwise-procs-cwd-"),
    env: { ...process.env, HOOKWISE_TRANSPORT: transport, ...f.env },
    options: { transport, sessionStartEnabled: false, ...options },
    log: () => {},
  });
}

const lookup = (e, id = "c") => e.augmentToolCall({ tool: "bash", args: { command: "echo [[auth]] [[jwt]]" }, callId: id });

test(`transport cli: the children of every CLI call end with the call`, T, async () => {
  const f = spawningFake(FOUR);
  const e = await engine(f, "cli");
  try {
    const r = await lookup(e);
    assert.ok(r.args.command.includes(HEADER), r.args.command);
    const cli = f.calls().filter((c) => c.mode === "cli");
    assert.ok(cli.length >= 1, JSON.stringify(f.calls()));
    assert.equal(f.children().length, 4 * cli.length);
    assert.ok(await until(() => f.children().every((c) => !running(c.pid))), describe(f));
  } finally {
    await e.dispose();
    reap(pidsOf(f.children()));
  }
});

test(`transport cli: a call past timeoutMs ends the CLI and its children`, T, async () => {
  const f = spawningFake(FOUR, { FAKE_MAENIFOLD_FAULT: "*:hang" });
  const e = await engine(f, "cli", { timeoutMs: 1000 });
  try {
    const r = await lookup(e);
    assert.equal(r.args.command, "echo [[auth]] [[jwt]]", "the call proceeds unchanged");
    const leaders = f.calls().filter((c) => c.mode === "cli").map((c) => c.pid);
    assert.ok(leaders.length >= 1);
    assert.ok(await until(() => leaders.every((p) => !running(p)) && f.children().every((c) => !running(c.pid))), describe(f));
  } finally {
    await e.dispose();
    reap(pidsOf(f.children()));
  }
});

test(`transport cli: dispose ends the CLI calls still running, and their children`, T, async () => {
  const f = spawningFake(FOUR, { FAKE_MAENIFOLD_FAULT: "*:hang" });
  const e = await engine(f, "cli", { timeoutMs: 30_000, deadlineMs: 30_000 });
  try {
    const pending = lookup(e);
    assert.ok(await until(() => f.children().length >= 4 && f.calls().some((c) => c.mode === "cli")), "the CLI started its children");
    const leaders = () => f.calls().filter((c) => c.mode === "cli").map((c) => c.pid);
    await e.dispose();
    const r = await pending; // fails open
    assert.equal(r.args.command, "echo [[auth]] [[jwt]]");
    assert.ok(await until(() => leaders().every((p) => !running(p)) && f.children().every((c) => !running(c.pid))), describe(f));
  } finally {
    await e.dispose();
    reap(pidsOf(f.children()));
  }
});

for (const transport of ["auto", "mcp"]) {
  test(`transport ${transport}: the server's children live while it serves, and end with it on dispose`, T, async () => {
    const f = spawningFake(FOUR);
    const e = await engine(f, transport);
    try {
      const r = await lookup(e);
      assert.ok(r.args.command.includes(HEADER), r.args.command);
      assert.equal(f.calls().filter((c) => c.mode === "cli").length, 0, "answered over MCP");
      const server = f.calls().find((c) => c.mode === "mcp" && c.event === "start").pid;
      assert.equal(f.children().length, 4);
      // The warm server is not the call's: it and what it started stay for the next call.
      assert.ok(running(server) && f.children().every((c) => running(c.pid)), describe(f));
      await e.dispose();
      assert.ok(await until(() => !running(server) && f.children().every((c) => !running(c.pid))), describe(f));
    } finally {
      await e.dispose();
      reap(pidsOf(f.children()));
    }
  });

  test(`transport ${transport}: a server that exits takes its children with it; its successor's go on dispose`, T, async () => {
    // The first server exits at its first tools/call; the core starts another.
    const f = spawningFake(FOUR, { FAKE_MAENIFOLD_MCP_FAULT: "exit" });
    const e = await engine(f, transport);
    try {
      await lookup(e, "a");
      const servers = () => f.calls().filter((c) => c.mode === "mcp" && c.event === "start").map((c) => c.pid);
      const first = servers()[0];
      const ofFirst = f.children().filter((c) => c.parent === first);
      assert.equal(ofFirst.length, 4);
      assert.ok(await until(() => !running(first) && ofFirst.every((c) => !running(c.pid))), describe(f));
      await e.dispose();
      assert.ok(await until(() => servers().every((p) => !running(p)) && f.children().every((c) => !running(c.pid))), describe(f));
    } finally {
      await e.dispose();
      reap(pidsOf(f.children()));
    }
  });
}

test(`transport auto: a server that never completes the handshake is stopped with its children; the CLI's end with each call`, T, async () => {
  const f = spawningFake(FOUR, { FAKE_MAENIFOLD_MCP_FAULT: "no-handshake" });
  const e = await engine(f, "auto", { mcpStartTimeoutMs: 1000 });
  try {
    const r = await lookup(e);
    assert.ok(r.args.command.includes(HEADER) || r.args.command === "echo [[auth]] [[jwt]]", r.args.command);
    await lookup(e, "again"); // by now over the CLI
    const server = f.calls().find((c) => c.mode === "mcp" && c.event === "start").pid;
    assert.ok(f.calls().some((c) => c.mode === "cli"), "fell back to the CLI");
    assert.ok(await until(() => !running(server) && f.children().every((c) => !running(c.pid))), describe(f));
  } finally {
    await e.dispose();
    reap(pidsOf(f.children()));
  }
});

test("a host SIGKILLed (no exit hook runs): the watchdog SIGKILLs the groups it started, stubborn ones too", T, async () => {
  const { spawnSync } = await import("node:child_process");
  // the host: a process that starts a group through procs.cjs (a shell ignoring SIGTERM and its
  // child), says their pids, then SIGKILLs itself
  const script = `
const { spawn } = require("node:child_process");
const procs = require(${JSON.stringify(path.join(dist, "procs.cjs"))});
const c = spawn("sh", ["-c", "trap '' TERM; sleep 300 & echo $!; wait"], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
procs.track(c.pid);
c.stdout.once("data", (d) => {
  process.stdout.write(JSON.stringify({ leader: c.pid, child: Number(String(d).trim()), watchdog: procs.watchdogPid() }));
  // (Bun hands the line to the watchdog asynchronously: a host lives longer than this)
  setTimeout(() => process.kill(process.pid, "SIGKILL"), 300);
});`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000 });
  const { leader, child, watchdog } = JSON.parse(r.stdout);
  assert.ok(watchdog > 0, "a watchdog was started");
  const end = Date.now() + 5000;
  while ((running(leader) || running(child)) && Date.now() < end) await new Promise((ok) => setTimeout(ok, 50));
  assert.ok(!running(leader) && !running(child), `left behind: ${[leader, child].filter(running)}`);
  assert.ok(!running(watchdog), "the watchdog ends too");
});

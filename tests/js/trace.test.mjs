// The Agent Trace attacked as a model with a shell would (issue 18, item 4 and item 10): the
// log's end edited, cut, emptied, deleted or padded, the head edited or deleted, a missing
// project — each a failing `hookwise trace verify` (exit 1, the problem named); and a lock file
// kept by another process, which must never make a record disappear silently.
// Runs under node --test and bun test (every test sets its own timeout).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, tmpdir, nodeBinary, traceWriter, intentsYaml } from "./helpers.mjs";
import { validate } from "./agent-trace-schema.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const require = createRequire(import.meta.url);
const T = { timeout: 240_000 };
const INTENTS = intentsYaml(["INT-1", "Auth", ["src/**"]]);
const NODE = nodeBinary();
const HOME = tmpdir("hookwise-trace-home-");
const ENV = { PATH: path.dirname(NODE), HOME, MAENIFOLD_ROOT: path.join(HOME, "none") };
const CLI = path.join(dist, "cli.mjs");

function project() {
  const d = fs.realpathSync(tmpdir("hookwise-trace-"));
  fs.mkdirSync(path.join(d, ".orchestration"), { recursive: true });
  fs.mkdirSync(path.join(d, "src"), { recursive: true });
  fs.writeFileSync(path.join(d, ".orchestration/active_intents.yaml"), INTENTS);
  return d;
}

function run(cmd, args, opts) {
  return new Promise((resolve) => {
    execFile(cmd, args, { maxBuffer: 16 * 1024 * 1024, ...opts }, (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
  });
}

const cliIn = (dir) => (...args) => run(NODE, [CLI, ...args, "--cwd", dir], { env: ENV });

async function engineWith(dir, sessionId = "s") {
  const { createEngine } = require(path.join(dist, "engine.cjs"));
  const engine = await createEngine({ cwd: dir, env: ENV });
  assert.equal((await engine.selectIntent(sessionId, "INT-1")).ok, true);
  return engine;
}

/** One write through the engine's hooks, as a tool dispatcher does it. */
async function write(engine, dir, name, sessionId = "s") {
  const params = { path: `src/${name}`, content: `export const x = ${JSON.stringify(name)};\n` };
  const pre = await engine.executePreHook({ toolName: "write_to_file", params, sessionId });
  if (pre.blocked) return { blocked: true, reason: pre.reason };
  fs.writeFileSync(path.join(dir, params.path), params.content);
  const post = await engine.executePostHook({ toolName: "write_to_file", params, sessionId, callId: pre.callId });
  return { blocked: false, recorded: post.recorded };
}

test("trace verify exits 1 and names the problem for every tampering of the log's end or its head", T, async () => {
  const dir = project();
  const cli = cliIn(dir);
  let r = await cli("trace", "verify");
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /no trace records/);

  const engine = await engineWith(dir);
  for (let i = 0; i < 4; i++) assert.deepEqual(await write(engine, dir, `f${i}.ts`), { blocked: false, recorded: true });
  // one session: one segment, its log and its head
  assert.equal(traceFiles(dir).length, 1);
  const log = path.join(dir, traceFiles(dir)[0]);
  const headFile = log.replace(/\.jsonl$/, ".head");
  const orig = fs.readFileSync(log, "utf8");
  const origHead = fs.readFileSync(headFile, "utf8");
  const lines = orig.slice(0, -1).split("\n");
  for (const l of lines) assert.deepEqual(validate(JSON.parse(l)), [], "records stay schema-valid");
  assert.deepEqual(Object.keys(JSON.parse(origHead)), ["records", "bytes", "last"]);
  assert.equal(JSON.parse(origHead).records, 4);
  assert.equal(JSON.parse(origHead).bytes, Buffer.byteLength(orig));

  r = await cli("trace", "verify");
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /ok: 4 record/);
  r = await cli("trace", "head");
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const anchor = r.stdout.split("\n")[0];
  assert.equal(anchor, origHead.trim(), "trace head prints the head file's line");

  const restore = () => {
    fs.writeFileSync(log, orig);
    fs.writeFileSync(headFile, origHead);
  };
  const body = (ls) => ls.map((l) => l + "\n").join("");
  const cases = [
    ["the last line edited", () => fs.writeFileSync(log, body([...lines.slice(0, 3), lines[3].replace("src/f3.ts", "src/f9.ts")])), /line 4: edited/],
    ["the last line cut", () => fs.writeFileSync(log, body(lines.slice(0, 3))), /cut: .*line 4 was removed/],
    ["the last 2 lines cut", () => fs.writeFileSync(log, body(lines.slice(0, 2))), /cut: .*lines 3–4 were removed/],
    ["the last 3 lines cut", () => fs.writeFileSync(log, body(lines.slice(0, 1))), /cut: .*lines 2–4 were removed/],
    ["the log emptied", () => fs.writeFileSync(log, ""), /emptied/],
    ["the log deleted", () => fs.rmSync(log), /missing-log/],
    ["a byte order mark prepended", () => fs.writeFileSync(log, "\ufeff" + orig), /bom/],
    ["a blank line appended", () => fs.appendFileSync(log, "\n"), /line 5: not-a-record/],
    ["a stray line inserted", () => fs.writeFileSync(log, body([lines[0], '{"files":[]}', ...lines.slice(1)])), /line 2: not-a-record/],
    ["the last two lines swapped", () => fs.writeFileSync(log, body([lines[0], lines[1], lines[3], lines[2]])), /reordered/],
    ["the head's count edited", () => fs.writeFileSync(headFile, origHead.replace('"records":4', '"records":3')), /line 3: head-mismatch/],
    ["the head's hash edited", () => fs.writeFileSync(headFile, origHead.replace(/"sha256:(.)/, (_, c) => `"sha256:${c === "0" ? "1" : "0"}`)), /edited|bad-head/],
    ["the head deleted", () => fs.rmSync(headFile), /no-head: .*hookwise trace head --init/],
    ["the head emptied", () => fs.writeFileSync(headFile, ""), /bad-head/],
  ];
  for (const [what, tamper, named] of cases) {
    restore();
    tamper();
    r = await cli("trace", "verify");
    assert.equal(r.code, 1, `${what}: exit ${r.code}\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, named, `${what}:\n${r.stdout}`);
    r = await cli("trace", "verify", "--json");
    assert.equal(r.code, 1, what);
    assert.equal(JSON.parse(r.stdout).ok, false, what);
  }
  console.log(`# ${cases.length} tamperings of the trace, each detected by trace verify (exit 1, named)`);

  // a project that is not there is a failure, not "ok: 0 records"
  for (const missing of ["/nonexistent", path.join(dir, "src/f0.ts")]) {
    r = await run(NODE, [CLI, "trace", "verify", "--cwd", missing], { env: ENV });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /error: (no project folder|.* is not a folder)/);
    assert.doesNotMatch(r.stdout, /ok: 0/);
  }

  // both files rewritten consistently pass verify (documented) — an anchor catches it
  restore();
  fs.writeFileSync(log, body(lines.slice(0, 2)));
  r = await cli("trace", "head", "--init"); // the attacker writes the matching head
  assert.equal(r.code, 0, r.stdout + r.stderr);
  r = await cli("trace", "verify");
  assert.equal(r.code, 0, "a consistent rewrite is undetectable without an anchor");
  r = await cli("trace", "verify", "--anchor", anchor);
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stdout, /anchor: .*lines were removed since it was anchored/);
  r = await cli("trace", "verify", "--anchor", "not a head");
  assert.equal(r.code, 1);
  assert.match(r.stdout, /error: the anchor is not a head/);

  // upgrading: a log from before heads, then --init; a broken chain is refused
  restore();
  fs.rmSync(headFile);
  assert.deepEqual(await write(engine, dir, "after-upgrade.ts"), { blocked: false, recorded: true }, "writes are never blocked for a missing head");
  assert.ok(!fs.existsSync(headFile), "the head is not recreated behind the user's back");
  r = await cli("trace", "head");
  assert.equal(r.code, 1);
  assert.match(r.stdout, /--init/);
  r = await cli("trace", "head", "--init");
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /wrote .*\.head: 5 record/);
  r = await cli("trace", "verify", "--anchor", anchor);
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /ok: 5 record.*anchored records are in place/);
  fs.writeFileSync(log, fs.readFileSync(log, "utf8").replace("src/f1.ts", "src/zz.ts"));
  r = await cli("trace", "head", "--init");
  assert.equal(r.code, 1);
  assert.match(r.stdout, /no head written: the chain itself is broken \(broken-link\)/);
  // usage errors
  r = await cli("trace", "verify", "--init");
  assert.equal(r.code, 2);
  r = await cli("trace", "nope");
  assert.equal(r.code, 2);
  await engine.dispose?.();
});

/** Until `file` exists (a process we started has begun its work); bounded by a count. */
async function until(file) {
  for (let i = 0; i < 3000 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(fs.existsSync(file), `${file} never appeared`);
}

/** Start a process we own; `stop()` ends it (by its pid) and waits. */
function startProcess(argv) {
  const child = spawn(argv[0], argv.slice(1), { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

test("a lock file another process keeps touching does not lose records", T, async () => {
  const dir = project();
  const engine = await engineWith(dir);
  assert.equal((await write(engine, dir, "first.ts")).recorded, true);
  const lock = path.join(dir, traceFiles(dir)[0] + ".lock");
  // what a model can start through bash: `while true; do touch <lock>; done &`
  const toucher = startProcess(["sh", "-c", 'while :; do touch "$1"; done', "sh", lock]);
  try {
    await until(lock);
    let written = 0;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const r = await write(engine, dir, `touched${i}.ts`);
      const ms = performance.now() - t0;
      // never silently lost: written (the lock broken), or the next change is blocked
      if (r.blocked) {
        assert.match(r.reason, /Agent Trace could not be written[\s\S]*\.jsonl\.lock/);
        break;
      }
      if (r.recorded) written++;
      else {
        const next = await write(engine, dir, `next${i}.ts`);
        assert.equal(next.blocked, true, "a record that could not be written blocks the next change");
        break;
      }
      console.log(`# write ${i} under a touched lock: recorded in ${Math.round(ms)} ms`);
    }
    assert.ok(written >= 1, "the touched lock was broken at least once");
  } finally {
    await toucher.stop();
  }
  fs.rmSync(lock, { force: true });
  const v = await engine.verifyTrace();
  assert.equal(v.ok, true, JSON.stringify(v.problems));
});

test("a lock whose owner is dead is broken at once, however fresh its file", T, async () => {
  const dir = project();
  // the segment session "s" writes to outside a repository (src/governance/segments.rs)
  const name = require("node:crypto").createHash("sha256").update(`hookwise-segment\0${dir}\0s\0\0`).digest("hex").slice(0, 16);
  fs.mkdirSync(path.join(dir, ".orchestration/trace"), { recursive: true });
  const lock = path.join(dir, `.orchestration/trace/${name}.jsonl.lock`);
  const engine = await engineWith(dir);
  const gone = startProcess([NODE, "-e", "0"]);
  const deadPid = gone.child.pid;
  await gone.stop();
  // a writer that keeps rewriting the lock (new content each time, fresh mtime) in a dead pid's name
  const script = `const fs=require("fs");const os=require("os");for(;;){try{fs.writeFileSync(${JSON.stringify(lock)},JSON.stringify({pid:${deadPid},host:os.hostname(),token:"x",ms:Date.now()}))}catch{}}`;
  const writer = startProcess([NODE, "-e", script]);
  try {
    await until(lock);
    const r = await write(engine, dir, "a.ts");
    assert.deepEqual(r, { blocked: false, recorded: true });
  } finally {
    await writer.stop();
  }
  fs.rmSync(lock, { force: true });
  const v = await engine.verifyTrace();
  assert.equal(v.ok, true, JSON.stringify(v.problems));
  assert.equal(v.lines, 1);
});

test("a lock that cannot be broken: the record waits and changes are blocked until it is written", T, async () => {
  const dir = project();
  const engine = await engineWith(dir);
  assert.equal((await write(engine, dir, "first.ts")).recorded, true);
  const lock = path.join(dir, traceFiles(dir)[0] + ".lock");
  fs.mkdirSync(lock); // what `mkdir` through bash does: no rule can remove it
  const r = await write(engine, dir, "held.ts");
  assert.deepEqual(r, { blocked: false, recorded: false }, "the tool ran; its record could not be written yet");
  const next = await write(engine, dir, "next.ts");
  assert.equal(next.blocked, true);
  assert.match(next.reason, /Agent Trace could not be written \(lock timeout\)[\s\S]*1 record\(s\) wait[\s\S]*\.orchestration\/trace\/\*\.jsonl\.lock/);
  assert.ok(!fs.existsSync(path.join(dir, "src/next.ts")), "the blocked change did not run");
  // the user removes it: the waiting record goes first, then the change
  fs.rmdirSync(lock);
  assert.deepEqual(await write(engine, dir, "after.ts"), { blocked: false, recorded: true });
  const log = traceText(dir);
  const files = log.trim().split("\n").map((l) => JSON.parse(l).files[0].path);
  assert.deepEqual(files, ["src/first.ts", "src/held.ts", "src/after.ts"], "nothing lost, in order");
  const v = await engine.verifyTrace();
  assert.equal(v.ok, true, JSON.stringify(v.problems));
  assert.equal(v.storedHead.records, 3);
});

test("a lock a live process keeps rewriting: its record is never silently lost", T, async () => {
  const dir = project();
  const engine = await engineWith(dir);
  assert.equal((await write(engine, dir, "first.ts")).recorded, true);
  const lock = path.join(dir, traceFiles(dir)[0] + ".lock");
  // in its own (live) name, new content every time: no rule breaks it
  const script = `const fs=require("fs");const os=require("os");let n=0;for(;;){try{fs.writeFileSync(${JSON.stringify(lock)},JSON.stringify({pid:process.pid,host:os.hostname(),n:n++}))}catch{}}`;
  const holder = startProcess([NODE, "-e", script]);
  let outcome;
  const expected = ["src/first.ts", "src/held.ts"];
  try {
    await until(lock);
    const r = await write(engine, dir, "held.ts");
    assert.equal(r.blocked, false);
    if (r.recorded) outcome = "written (the lock was seen empty, between a truncate and a write, for 1 s)";
    else {
      // kept: the next change is blocked, or (the lock broken meanwhile) goes after it
      const next = await write(engine, dir, "next.ts");
      if (next.blocked) {
        assert.match(next.reason, /Agent Trace could not be written \(lock timeout\)/);
        outcome = "kept, next change blocked";
      } else {
        assert.equal(next.recorded, true);
        expected.push("src/next.ts");
        outcome = "kept, written before the next change";
      }
    }
  } finally {
    await holder.stop();
  }
  console.log(`# a live holder rewriting the lock: ${outcome}`);
  // the holder is gone (its pid is dead; its lock stays): whatever waited is written now
  assert.deepEqual(await write(engine, dir, "after.ts"), { blocked: false, recorded: true });
  expected.push("src/after.ts");
  const log = traceText(dir);
  const files = log.trim().split("\n").map((l) => JSON.parse(l).files[0].path);
  assert.deepEqual(files, expected, "nothing lost, in order");
  const v = await engine.verifyTrace();
  assert.equal(v.ok, true, JSON.stringify(v.problems));
});

test("many processes appending at once keep one chain and a matching head (no lock broken wrongly)", T, async () => {
  const dir = project();
  const child = traceWriter(dir, ENV, { shared: true });
  const procs = Math.max(4, Math.min(8, os.cpus().length * 2));
  const results = await Promise.all(Array.from({ length: procs }, (_, n) => run(NODE, [child, dir, String(n), "150"], { env: ENV })));
  for (const r of results) {
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { recorded: 150 });
  }
  const r = await run(NODE, [CLI, "trace", "verify", "--cwd", dir, "--json"], { env: ENV });
  const v = JSON.parse(r.stdout);
  assert.equal(r.code, 0, JSON.stringify(v.problems && v.problems.slice(0, 3)));
  assert.equal(v.lines, procs * 150);
  assert.deepEqual(v.storedHead, v.logHead);
});

// The warm hook server (js/warm-server.cjs, js/warm-client.cjs, js/fresh.cjs) through the built
// package: `hookwise hook <Event>` processes, as a command-hook host runs them (payload on stdin,
// answer on stdout), with HOOKWISE_DEBUG saying on stderr whether the warm server or the hook's
// own process answered. Each property of issue 32: the answer a cold process would give after
// notes, the configuration, an SOP or the intents file change; fail-closed when the server is
// killed, hung or answers garbage; one server per project and user, unreachable by another
// user; nothing left behind (idle exit, project deletion, stale socket and lock).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, tmpdir, writeFiles, noCliEnv, nodeBinary, alive, isBun, forceSop, intentsYaml } from "./helpers.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const require = createRequire(import.meta.url);
const T = { timeout: 120_000 };
// under `bun test` the hooks and their server run on Bun
const RUNTIME = isBun ? process.execPath : nodeBinary();
const CLI = path.join(dist, "cli.mjs");
const warmClient = require(path.join(dist, "warm-client.cjs"));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** An environment of its own (runtime folder included), stable across the hooks of a test. */
function warmEnv(extra = {}) {
  return noCliEnv({ XDG_RUNTIME_DIR: tmpdir("hookwise-run-"), HOOKWISE_DEBUG: "1", HOOKWISE_WARM_IDLE_MS: "60000", ...extra });
}

function bashCall(project, command, id = "t1") {
  return { session_id: "s1", cwd: project, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: id };
}
function writeCall(project, rel) {
  return { session_id: "s1", cwd: project, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: path.join(project, rel), content: "x" }, tool_use_id: "w1" };
}

/** One `hookwise hook <event>` process: `{out, how, code, stderr}`; `how` is "warm" or "cold". */
function hook(env, event, payload) {
  const r = spawnSync(RUNTIME, [CLI, "hook", event], { input: JSON.stringify(payload), env, encoding: "utf8", cwd: payload.cwd });
  const m = /hookwise debug: (answered warm|cold \(([^)]*)\))/.exec(r.stderr);
  return { out: r.stdout, code: r.status, stderr: r.stderr, how: m ? (m[1] === "answered warm" ? "warm" : "cold") : "?", why: m && m[2] };
}

/** `hook`, without blocking this process (a fake server in it must answer meanwhile). */
function hookAsync(env, event, payload) {
  return new Promise((resolve) => {
    const c = spawn(RUNTIME, [CLI, "hook", event], { env, cwd: payload.cwd, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let stderr = "";
    c.stdout.on("data", (d) => (out += d));
    c.stderr.on("data", (d) => (stderr += d));
    c.stdin.end(JSON.stringify(payload));
    c.on("close", (code) => {
      const m = /hookwise debug: (answered warm|cold \(([^)]*)\))/.exec(stderr);
      resolve({ out, code, stderr, how: m ? (m[1] === "answered warm" ? "warm" : "cold") : "?", why: m && m[2] });
    });
  });
}

/** Hooks until one is answered warm (the first ones start the server and decide cold). */
async function untilWarm(env, event, payload, ms = 60_000) {
  const until = Date.now() + ms;
  let r;
  while (Date.now() < until) {
    r = hook(env, event, typeof payload === "function" ? payload() : payload);
    if (r.how === "warm") return r;
    await sleep(100);
  }
  assert.fail(`never answered warm: ${r && r.stderr}`);
}

function paths(env, project) {
  const dir = warmClient.runtimeDir(env);
  return warmClient.serverPaths(dir, project, env);
}
function serverPid(env, project) {
  return warmClient.lockHolder(paths(env, project).lock);
}
async function until(cond, ms = 15_000, what = "the condition") {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}
/** Stop the project's server (SIGTERM) and wait until it has gone with its socket and lock. */
async function stopServer(env, project) {
  const pid = serverPid(env, project);
  if (pid) process.kill(pid, "SIGTERM");
  await until(() => !pid || !alive(pid), 10_000, "the server to exit");
  const p = paths(env, project);
  await until(() => !fs.existsSync(p.socket) && !fs.existsSync(p.lock), 5_000, "its socket and lock to go");
}

const context = (r) => {
  const j = JSON.parse(r.out);
  return (j.hookSpecificOutput && j.hookSpecificOutput.additionalContext) || "";
};
const decision = (r) => {
  const j = JSON.parse(r.out);
  return (j.hookSpecificOutput && j.hookSpecificOutput.permissionDecision) || "allow";
};

const NOTES = "# Notes\n\nSee [[alpha]], [[beta]], [[gamma]] and [[delta]].\n";
const note = (text, concept) => `# ${concept}\n\n${text} is how [[${concept}]] works with [[delta]].\n`;

test("notes edited, added, deleted and renamed between two hooks: the warm answer has the new text", T, async () => {
  const kb = (rel) => path.join(project, ".hookwise/knowledge", rel);
  const project = writeFiles(tmpdir("hookwise-warm-"), { ".hookwise/knowledge/notes.md": NOTES, ".hookwise/knowledge/alpha.md": note("ALPHA-ONE", "alpha") });
  const env = warmEnv();
  const first = hook(env, "PreToolUse", bashCall(project, "echo [[alpha]]"));
  assert.equal(first.how, "cold", first.stderr);
  assert.match(context(first), /ALPHA-ONE/);
  assert.match(context(await untilWarm(env, "PreToolUse", bashCall(project, "echo [[alpha]]"))), /ALPHA-ONE/);

  fs.writeFileSync(kb("alpha.md"), note("ALPHA-TWO", "alpha"));
  let r = hook(env, "PreToolUse", bashCall(project, "echo [[alpha]]"));
  assert.equal(r.how, "warm", r.stderr);
  assert.match(context(r), /ALPHA-TWO/);
  assert.doesNotMatch(context(r), /ALPHA-ONE/);

  fs.writeFileSync(kb("beta.md"), note("BETA-NEW", "beta"));
  r = hook(env, "PreToolUse", bashCall(project, "echo [[beta]]"));
  assert.equal(r.how, "warm", r.stderr);
  assert.match(context(r), /BETA-NEW/);

  fs.renameSync(kb("beta.md"), kb("gamma.md"));
  fs.writeFileSync(kb("gamma.md"), note("GAMMA-RENAMED", "gamma"));
  r = hook(env, "PreToolUse", bashCall(project, "echo [[gamma]] [[beta]]"));
  assert.equal(r.how, "warm", r.stderr);
  assert.match(context(r), /GAMMA-RENAMED/);
  assert.doesNotMatch(context(r), /BETA-NEW/);

  fs.rmSync(kb("alpha.md"));
  r = hook(env, "PreToolUse", bashCall(project, "echo [[alpha]]"));
  assert.equal(r.how, "warm", r.stderr);
  assert.doesNotMatch(r.out, /ALPHA-/);
  // the same answer as a process of its own
  const cold = hook({ ...env, HOOKWISE_WARM: "0" }, "PreToolUse", bashCall(project, "echo [[gamma]] [[beta]] [[alpha]]"));
  assert.equal(cold.how, "?");
  const warm = hook(env, "PreToolUse", bashCall(project, "echo [[gamma]] [[beta]] [[alpha]]"));
  assert.equal(warm.how, "warm");
  assert.equal(warm.out, cold.out);
  await stopServer(env, project);
});

test("the intents file, hookwise.json and an SOP changing: the next hook answers as a cold one would", T, async () => {
  const project = writeFiles(tmpdir("hookwise-warm-"), { "README.md": "x\n" });
  const env = warmEnv();
  assert.equal(decision(await untilWarm(env, "PreToolUse", writeCall(project, "src/a.ts"))), "allow");
  // governance turned on: the intents file appears
  writeFiles(project, { ".orchestration/active_intents.yaml": intentsYaml(["INT-1", "Auth", ["src/**"]]) });
  let r = hook(env, "PreToolUse", writeCall(project, "src/a.ts"));
  assert.equal(decision(r), "deny", r.out);
  r = await untilWarm(env, "PreToolUse", writeCall(project, "src/a.ts"));
  assert.equal(decision(r), "deny", r.out);
  // turned off in hookwise.json
  writeFiles(project, { ".hookwise/hookwise.json": JSON.stringify({ governance: false }) });
  r = hook(env, "PreToolUse", writeCall(project, "src/a.ts"));
  assert.equal(decision(r), "allow", r.out);
  assert.equal(decision(await untilWarm(env, "PreToolUse", writeCall(project, "src/a.ts"))), "allow");
  // a strict SOP (process: strict) added to a project that had none: a force push is blocked
  // from the next hook on. A block puts the same call in the session's cooldown (it runs when
  // retried): each call here is a session of its own.
  let n = 0;
  const push = () => ({ ...bashCall(project, "git push --force origin main"), session_id: `push-${n++}` });
  assert.equal(decision(hook(env, "PreToolUse", push())), "allow");
  writeFiles(project, { ".hookwise/sops/force.md": forceSop("- [ ] the branch is yours").replace("tools: [bash]", "tools: [Bash]") });
  r = hook(env, "PreToolUse", push());
  assert.equal(decision(r), "deny", `${r.how}: ${r.out}`);
  r = await untilWarm(env, "PreToolUse", push);
  assert.equal(decision(r), "deny", r.out);
  // the SOP edited so that it no longer matches: the next hook, warm, allows
  fs.writeFileSync(path.join(project, ".hookwise/sops/force.md"), forceSop("- [ ] ok").replace("tools: [bash]", "tools: [Bash]").replace("--force|-f\\b", "--never-matches"));
  r = hook(env, "PreToolUse", push());
  assert.equal(r.how, "warm", r.stderr);
  assert.equal(decision(r), "allow", `${r.how}: ${r.out}`);
  await stopServer(env, project);
});

test("a git branch switch (notes and configuration replaced by checkout) is seen by the next hook", T, async (t) => {
  if (spawnSync("git", ["--version"]).status !== 0) return t.skip("no git");
  const project = tmpdir("hookwise-warm-");
  const git = (...a) => assert.equal(spawnSync("git", a, { cwd: project, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } }).status, 0);
  git("init", "-q", "-b", "main");
  writeFiles(project, { ".hookwise/knowledge/notes.md": NOTES, ".hookwise/knowledge/alpha.md": note("MAIN-TEXT", "alpha") });
  git("add", ".");
  git("commit", "-qm", "main");
  git("checkout", "-qb", "other");
  writeFiles(project, { ".hookwise/knowledge/alpha.md": note("OTHER-TEXT", "alpha"), ".hookwise/sops/force.md": forceSop("- [ ] yours").replace("tools: [bash]", "tools: [Bash]") });
  git("add", ".");
  git("commit", "-qm", "other");
  git("checkout", "-q", "main");
  const env = warmEnv();
  let n = 0;
  const push = () => ({ ...bashCall(project, "git push --force origin main"), session_id: `push-${n++}` });
  assert.match(context(await untilWarm(env, "PreToolUse", bashCall(project, "echo [[alpha]]"))), /MAIN-TEXT/);
  assert.equal(decision(hook(env, "PreToolUse", push())), "allow");
  git("checkout", "-q", "other");
  assert.equal(decision(hook(env, "PreToolUse", push())), "deny");
  assert.match(context(await untilWarm(env, "PreToolUse", bashCall(project, "echo [[alpha]]"))), /OTHER-TEXT/);
  git("checkout", "-q", "main");
  let r = hook(env, "PreToolUse", push());
  assert.equal(decision(r), "allow", r.out);
  r = await untilWarm(env, "PreToolUse", bashCall(project, "echo [[alpha]]"));
  assert.match(context(r), /MAIN-TEXT/);
  await stopServer(env, project);
});

function governed() {
  return writeFiles(tmpdir("hookwise-warm-"), { ".orchestration/active_intents.yaml": intentsYaml(["INT-1", "Auth", ["src/**"]]) });
}

test("the server killed in the middle of a call: the hook decides cold and governance still blocks", T, async () => {
  const project = governed();
  const env = warmEnv();
  await untilWarm(env, "PreToolUse", writeCall(project, "x.ts"));
  const pid = serverPid(env, project);
  assert.ok(pid);
  process.kill(pid, "SIGSTOP"); // the call reaches a server that does not answer…
  const child = spawn(RUNTIME, [CLI, "hook", "PreToolUse"], { env, cwd: project, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  child.stdin.end(JSON.stringify(writeCall(project, "x.ts")));
  await sleep(500);
  process.kill(pid, "SIGKILL"); // …and dies mid-call
  const code = await new Promise((r) => child.on("exit", r));
  assert.equal(code, 0, err);
  assert.match(err, /cold \(/);
  assert.equal(JSON.parse(out).hookSpecificOutput.permissionDecision, "deny");
  // the stale socket and lock it left do not block the next start
  await until(() => !alive(pid), 5_000, "the killed server to be gone");
  assert.ok(fs.existsSync(paths(env, project).socket), "a killed server leaves its socket");
  const next = hook(env, "PreToolUse", writeCall(project, "x.ts"));
  assert.equal(decision(next), "deny");
  assert.equal(decision(await untilWarm(env, "PreToolUse", writeCall(project, "x.ts"))), "deny");
  assert.notEqual(serverPid(env, project), pid);
  await stopServer(env, project);
});

test("a hung server: the hook gives up after its timeout, decides cold, and the hung process is ended", T, async () => {
  const project = governed();
  const env = warmEnv({ HOOKWISE_WARM_TIMEOUT_MS: "700" });
  await untilWarm(env, "PreToolUse", writeCall(project, "x.ts"));
  const pid = serverPid(env, project);
  process.kill(pid, "SIGSTOP");
  const r = hook(env, "PreToolUse", writeCall(project, "x.ts"));
  assert.equal(r.how, "cold");
  assert.equal(r.why, "timeout");
  assert.equal(decision(r), "deny");
  await until(() => !alive(pid), 5_000, "the hung server to be ended");
  assert.equal(decision(await untilWarm(env, "PreToolUse", writeCall(project, "x.ts"))), "deny");
  await stopServer(env, project);
});

test("a server answering garbage, another request's answer or nothing: every hook decides cold and blocks", T, async () => {
  const project = governed();
  const env = warmEnv();
  const p = paths(env, project);
  const answers = ["not json\n", '{"id":"someone-else","ok":true,"text":"{}"}\n', '{"ok":true,"text":"{}"}\n', "", '{"id":"$ID","ok":true}\n', '{"id":"$ID","ok":"yes","text":"{}"}\n'];
  for (const a of answers) {
    const fake = net.createServer((s) => {
      s.once("data", (d) => {
        const id = JSON.parse(String(d)).id;
        if (a) s.end(a.replace("$ID", id));
        else s.destroy();
      });
    });
    fs.rmSync(p.socket, { force: true });
    await new Promise((r) => fake.listen(p.socket, r));
    const r = await hookAsync(env, "PreToolUse", writeCall(project, "x.ts"));
    assert.equal(r.how, "cold", `${a}: ${r.stderr}`);
    assert.notEqual(r.why, "timeout", `${a}: answered, not timed out`);
    assert.equal(decision(r), "deny", `${a}: ${r.out}`);
    await new Promise((r) => fake.close(r));
  }
});

test("two projects at once: one server each, each answering for its own project only", T, async () => {
  const a = governed();
  const b = writeFiles(tmpdir("hookwise-warm-"), { "README.md": "no governance\n" });
  const env = warmEnv();
  const [ra, rb] = await Promise.all([untilWarm(env, "PreToolUse", writeCall(a, "x.ts")), untilWarm(env, "PreToolUse", writeCall(b, "x.ts"))]);
  assert.equal(decision(ra), "deny");
  assert.equal(decision(rb), "allow");
  const pa = serverPid(env, a);
  const pb = serverPid(env, b);
  assert.ok(pa && pb && pa !== pb);
  // B's server, asked (with the right secret) about A's files: it refuses, it does not answer for A
  const secret = warmClient.secret(warmClient.runtimeDir(env));
  const reply = await new Promise((resolve) => {
    const s = net.createConnection(paths(env, b).socket, () => s.write(JSON.stringify({ v: 1, id: "x", secret, project: a, event: "PreToolUse", payload: JSON.stringify(writeCall(a, "x.ts")) }) + "\n"));
    let buf = "";
    s.on("data", (d) => (buf += d));
    s.on("end", () => resolve(JSON.parse(buf)));
  });
  assert.equal(reply.error, "another project");
  // a wrong secret: refused
  const bad = await new Promise((resolve) => {
    const s = net.createConnection(paths(env, b).socket, () => s.write(JSON.stringify({ v: 1, id: "y", secret: "0".repeat(64), project: b, event: "PreToolUse", payload: "{}" }) + "\n"));
    let buf = "";
    s.on("data", (d) => (buf += d));
    s.on("end", () => resolve(JSON.parse(buf)));
  });
  assert.equal(bad.error, "bad secret");
  // the `hello` a Windows client sends first (docs/warm-hooks.md#windows): the proof is the
  // HMAC of the nonce and the socket's name, once a connection; then the request is answered
  const nonce = "00112233445566778899aabbccddeeff";
  const hello = await new Promise((resolve) => {
    const s = net.createConnection(paths(env, b).socket, () => s.write(JSON.stringify({ v: 1, hello: nonce }) + "\n" + JSON.stringify({ v: 1, hello: nonce }) + "\n"));
    let buf = "";
    s.setEncoding("utf8");
    s.on("data", (d) => (buf += d));
    s.on("end", () => resolve(buf.trim().split("\n").map((l) => JSON.parse(l))));
  });
  assert.equal(hello[0].proof, warmClient.serverProof(secret, path.basename(paths(env, b).socket), nonce));
  assert.equal(hello.length, 2);
  assert.equal(hello[1].error, "bad request", "a second hello is not answered with a proof");
  await stopServer(env, a);
  await stopServer(env, b);
});

test("hooks started together in a fresh project start one server, not one each", T, async () => {
  const project = governed();
  const env = warmEnv();
  const runs = Array.from({ length: 6 }, () => new Promise((resolve) => {
    const c = spawn(RUNTIME, [CLI, "hook", "PreToolUse"], { env, cwd: project, stdio: ["pipe", "ignore", "ignore"] });
    c.stdin.end(JSON.stringify(writeCall(project, "x.ts")));
    c.on("exit", resolve);
  }));
  await Promise.all(runs);
  await untilWarm(env, "PreToolUse", writeCall(project, "x.ts"));
  await sleep(1000);
  const servers = spawnSync("ps", ["-eo", "pid,args"], { encoding: "utf8" }).stdout.split("\n").filter((l) => l.includes("warm-server.cjs") && l.includes(project));
  assert.equal(servers.length, 1, servers.join("\n"));
  await stopServer(env, project);
});

test("another local user can neither reach the socket nor read the secret", T, async (t) => {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return t.skip("needs root to run a client as another uid");
  const project = governed();
  const env = warmEnv();
  await untilWarm(env, "PreToolUse", writeCall(project, "x.ts"));
  const p = paths(env, project);
  const dir = warmClient.runtimeDir(env);
  const script = `
    const net = require("node:net"); const fs = require("node:fs");
    let secret = "unread"; try { secret = fs.readFileSync(${JSON.stringify(path.join(dir, "secret"))}, "utf8"); } catch (e) { secret = e.code; }
    const s = net.createConnection(${JSON.stringify(p.socket)});
    s.on("connect", () => { console.log(JSON.stringify({ connected: true, secret })); process.exit(0); });
    s.on("error", (e) => { console.log(JSON.stringify({ connected: false, code: e.code, secret })); process.exit(0); });`;
  // nobody (65534), and a uid with no account at all
  for (const uid of [65534, 54321]) {
    const r = spawnSync(nodeBinary(), ["-e", script], { uid, gid: uid, encoding: "utf8", cwd: "/" });
    const o = JSON.parse(r.stdout);
    assert.equal(o.connected, false, `uid ${uid}: ${r.stdout}`);
    assert.equal(o.code, "EACCES");
    assert.equal(o.secret, "EACCES");
  }
  // even with the folder opened up, the socket itself is the user's alone; and a client sees a
  // loosened folder as not private and decides cold rather than use it
  fs.chmodSync(dir, 0o755);
  try {
    const r = spawnSync(nodeBinary(), ["-e", script], { uid: 65534, gid: 65534, encoding: "utf8", cwd: "/" });
    assert.equal(JSON.parse(r.stdout).connected, false, r.stdout);
    assert.notEqual(warmClient.runtimeDir({ XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR }), dir);
  } finally {
    fs.chmodSync(dir, 0o700);
  }
  await stopServer(env, project);
});

test("a runtime folder that is a symlink, another user's or loosely set is never used", () => {
  const base = tmpdir("hookwise-run-");
  const elsewhere = tmpdir("hookwise-elsewhere-");
  fs.symlinkSync(elsewhere, path.join(base, "hookwise"));
  assert.notEqual(warmClient.runtimeDir({ XDG_RUNTIME_DIR: base }), path.join(base, "hookwise"));
  const loose = tmpdir("hookwise-run-");
  fs.mkdirSync(path.join(loose, "hookwise"), { mode: 0o777 });
  fs.chmodSync(path.join(loose, "hookwise"), 0o777);
  assert.notEqual(warmClient.runtimeDir({ XDG_RUNTIME_DIR: loose }), path.join(loose, "hookwise"));
  const fine = tmpdir("hookwise-run-");
  assert.equal(warmClient.runtimeDir({ XDG_RUNTIME_DIR: fine }), path.join(fine, "hookwise"));
  assert.equal(fs.statSync(path.join(fine, "hookwise")).mode & 0o777, 0o700);
});

test("idle exit and project deletion: the server goes, with its socket and lock", T, async () => {
  const project = governed();
  const env = warmEnv({ HOOKWISE_WARM_IDLE_MS: "1500" });
  await untilWarm(env, "PreToolUse", writeCall(project, "x.ts"));
  const pid = serverPid(env, project);
  const p = paths(env, project);
  await until(() => !alive(pid), 15_000, "the idle server to exit");
  assert.ok(!fs.existsSync(p.socket) && !fs.existsSync(p.lock));

  const doomed = governed();
  const env2 = warmEnv();
  await untilWarm(env2, "PreToolUse", writeCall(doomed, "x.ts"));
  const pid2 = serverPid(env2, doomed);
  const p2 = paths(env2, doomed);
  fs.rmSync(doomed, { recursive: true, force: true });
  await until(() => !alive(pid2), 15_000, "the server of a deleted project to exit");
  assert.ok(!fs.existsSync(p2.socket) && !fs.existsSync(p2.lock));
});

test("HOOKWISE_WARM=0: the hook answers in its own process and starts no server", T, async () => {
  const project = governed();
  const env = warmEnv({ HOOKWISE_WARM: "0" });
  const r = hook(env, "PreToolUse", writeCall(project, "x.ts"));
  assert.equal(decision(r), "deny");
  await sleep(500);
  assert.ok(!fs.existsSync(paths(env, project).lock));
});

test("hookwise mcp: an intents file or hookwise.json that changes after its start is seen by the next hook", T, async () => {
  const project = writeFiles(tmpdir("hookwise-warm-"), { "README.md": "x\n" });
  const child = spawn(nodeBinary(), [CLI, "mcp"], { cwd: project, env: noCliEnv(), stdio: ["pipe", "pipe", "inherit"] });
  let buf = "";
  const waiting = new Map();
  child.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) !== -1) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      const w = waiting.get(m.id);
      if (w) w(m);
    }
  });
  let id = 0;
  const ask = (method, params) => new Promise((r) => (waiting.set(++id, r), child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n")));
  await ask("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } });
  const pre = async () => {
    const w = writeCall(project, "src/a.ts");
    const r = await ask("tools/call", { name: "hook_pre_tool_use", arguments: { ...w, tool_input: JSON.stringify(w.tool_input) } });
    return decision({ out: r.result.content[0].text });
  };
  assert.equal(await pre(), "allow");
  writeFiles(project, { ".orchestration/active_intents.yaml": intentsYaml(["INT-1", "Auth", ["src/**"]]) });
  assert.equal(await pre(), "deny");
  writeFiles(project, { ".hookwise/hookwise.json": JSON.stringify({ governance: false }) });
  assert.equal(await pre(), "allow");
  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
});

test("a session's first hook, answered in its own process, is replayed into the server it starts: Qwen's SessionStart model names a later warm hook's record", T, async () => {
  const project = writeFiles(tmpdir("hookwise-first-"), { ".orchestration/active_intents.yaml": intentsYaml(["INT-1", "Auth", ["src/**"]]), "src/.keep": "" });
  const env = warmEnv({ QWEN_PROJECT_DIR: project });
  const qwen = (event, payload) => {
    const r = spawnSync(RUNTIME, [CLI, "hook", "--host", "qwen", event], { input: JSON.stringify({ session_id: "q1", cwd: project, hook_event_name: event, ...payload }), env, encoding: "utf8", cwd: project });
    const m = /hookwise debug: (answered warm|cold \(([^)]*)\))/.exec(r.stderr);
    return { out: r.stdout, stderr: r.stderr, how: m ? (m[1] === "answered warm" ? "warm" : "cold") : "?" };
  };
  const start = qwen("SessionStart", { source: "startup", model: "qwen3-coder-test" });
  assert.equal(start.how, "cold", start.stderr);
  // the next hook waits for the server it started (its socket, then its engine), as Qwen's
  // UserPromptSubmit right after SessionStart does
  let p;
  for (let i = 0; i < 50 && (p = qwen("UserPromptSubmit", { prompt: "Add the login form." })).how !== "warm"; i++) await sleep(100);
  assert.equal(p.how, "warm", p.stderr);
  assert.equal(qwen("PostToolUse", { tool_name: "mcp__hookwise__select_active_intent", tool_input: { intent_id: "INT-1" }, tool_response: { llmContent: "selected" }, tool_use_id: "toolu_s" }).how, "warm");
  const call = { tool_name: "write_file", tool_input: { file_path: path.join(project, "src/a.ts"), content: "x" }, tool_use_id: "toolu_w" };
  const pre = qwen("PreToolUse", call);
  assert.ok(!/"deny"/.test(pre.out), pre.out);
  fs.writeFileSync(path.join(project, "src/a.ts"), "x");
  const w = qwen("PostToolUse", { tool_name: "write_file", tool_input: { file_path: path.join(project, "src/a.ts"), content: "x" }, tool_response: { llmContent: "ok" }, tool_use_id: "toolu_w" });
  assert.equal(w.how, "warm", w.stderr);
  const recs = traceText(project).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(recs.length, 1, JSON.stringify(recs));
  assert.match(recs[0].files[0].conversations[0].contributor.model_id, /qwen3-coder-test/, JSON.stringify(recs[0]));
  const pid = serverPid(env, `${project}\0qwen`);
  if (pid) process.kill(pid, "SIGTERM");
});

// `hookwise trace blame` and `engine.blame` through the built package (issue 28): writes under
// two intents through the engine's hooks, a person's edit, moves, a rebase and a squash in a
// real git repository (git is never consulted: nothing changes), a tampered log, and what
// blame refuses to read.
// Runs under node --test and bun test (every test sets its own timeout).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, tmpdir, nodeBinary, intentsYaml } from "./helpers.mjs";
import { validate } from "./agent-trace-schema.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const require = createRequire(import.meta.url);
const T = { timeout: 240_000 };
const INTENTS = intentsYaml(["INT-1", "Auth", ["src/**"]], ["INT-2", "Billing", ["src/**"]]);
const NODE = nodeBinary();
const HOME = tmpdir("hookwise-blame-home-");
const ENV = { PATH: path.dirname(NODE), HOME, MAENIFOLD_ROOT: path.join(HOME, "none") };
const CLI = path.join(dist, "cli.mjs");

function project(intents = INTENTS) {
  const d = fs.realpathSync(tmpdir("hookwise-blame-"));
  fs.mkdirSync(path.join(d, "src"), { recursive: true });
  if (intents) {
    fs.mkdirSync(path.join(d, ".orchestration"), { recursive: true });
    fs.writeFileSync(path.join(d, ".orchestration/active_intents.yaml"), intents);
  }
  return d;
}

function run(cmd, args, opts) {
  return new Promise((resolve) => {
    execFile(cmd, args, { maxBuffer: 64 * 1024 * 1024, ...opts }, (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
  });
}

const cliIn = (dir) => (...args) => run(NODE, [CLI, ...args, "--cwd", dir], { env: ENV, cwd: dir });

async function engineFor(dir) {
  const { createEngine } = require(path.join(dist, "engine.cjs"));
  return createEngine({ cwd: dir, env: ENV });
}

/** One governed call through the engine's hooks (`apply`: the tool's effect on disk). */
async function call(engine, intent, toolName, params, apply) {
  const sessionId = `s-${intent}`;
  assert.equal((await engine.selectIntent(sessionId, intent)).ok, true);
  const pre = await engine.executePreHook({ toolName, params, sessionId });
  assert.equal(pre.blocked, false, pre.reason);
  apply();
  const post = await engine.executePostHook({ toolName, params, sessionId, callId: pre.callId });
  assert.equal(post.recorded, true);
}

function write(engine, dir, intent, rel, content) {
  return call(engine, intent, "write_to_file", { path: rel, content }, () => fs.writeFileSync(path.join(dir, rel), content));
}

/** Each line as `state:intent` (`-`: unattributed). */
const shape = (b) => b.lines.map((l) => (l.state === "unattributed" ? "-" : `${l.state[0]}:${l.intent ? l.intent.id : "?"}`));

function git(dir, ...args) {
  return execFileSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", GIT_EDITOR: "true" } });
}

test("two intents, a person's edit: engine.blame and trace blame --json get every line", T, async () => {
  const dir = project();
  const engine = await engineFor(dir);
  const file = path.join(dir, "src/a.ts");
  await write(engine, dir, "INT-1", "src/a.ts", "import x;\nfunction a() {\n  return 1;\n}\n");
  const v1 = fs.readFileSync(file, "utf8");
  const v2 = v1 + "function b() {\n  return 2;\n}\n";
  await write(engine, dir, "INT-2", "src/a.ts", v2); // a whole rewrite: every line is INT-2's
  const v3 = "// header by hand\n" + v2.replace("  return 2;", "  return 22; // by hand");
  fs.writeFileSync(file, v3);
  const b = await engine.blame("src/a.ts");
  assert.equal(b.ok, true, b.error);
  assert.deepEqual(shape(b), ["-", "a:INT-2", "a:INT-2", "a:INT-2", "a:INT-2", "a:INT-2", "c:INT-2", "a:INT-2"]);
  const l = b.lines[1];
  assert.deepEqual(l.intent, { id: "INT-2", name: "Billing" });
  assert.equal(l.host, "vscode");
  assert.equal(l.tool, "write_to_file");
  assert.equal(l.state, "agent");
  assert.equal(l.granularity, "line");
  assert.match(l.time, /^\d{4}-\d\d-\d\dT.*Z$/);
  assert.equal(l.traceLine, 1); // of its own segment (one per session)
  assert.match(l.segment, /^\.orchestration\/trace\/[0-9a-f]{16}\.jsonl$/);
  assert.deepEqual(l.decisions, [{ by: "governance", decision: "allow" }]);
  assert.equal(b.verify.ok, true);
  assert.deepEqual(b.summary, { agent: 6, changed: 1, unattributed: 1 });
  // the records with their blame data are still Agent Trace records
  const log = traceText(dir).trim().split("\n");
  for (const r of log) assert.deepEqual(validate(JSON.parse(r)), []);

  const cli = cliIn(dir);
  const j = await cli("trace", "blame", "src/a.ts", "--json");
  assert.equal(j.code, 0, j.stderr);
  const parsed = JSON.parse(j.stdout);
  assert.deepEqual(parsed.lines, b.lines);
  const t = await cli("trace", "blame", "src/a.ts");
  assert.equal(t.code, 0, t.stderr);
  const rows = t.stdout.trimEnd().split("\n");
  assert.match(rows[0], /^src\/a\.ts: 8 line\(s\): 6 agent, 1 changed since \(~\), 1 unattributed; 2 record\(s\) name it; chain: verified/);
  assert.match(rows[1], /^1 +│ \/\/ header by hand$/);
  assert.match(rows[7], /~INT-2 +vscode .*│ {3}return 22; \/\/ by hand$/);
  await engine.dispose();
});

test("a rebase and a squash of the commits that held the changes change nothing", T, async () => {
  const dir = project();
  git(dir, "init", "-q", "-b", "main");
  fs.writeFileSync(path.join(dir, ".gitignore"), ".orchestration/\n");
  fs.writeFileSync(path.join(dir, "src/b.ts"), "base 1\nbase 2\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "base");
  git(dir, "checkout", "-qb", "feature");
  const engine = await engineFor(dir);
  const file = path.join(dir, "src/b.ts");
  const edit = (intent, oldStr, newStr) =>
    call(engine, intent, "apply_diff", { path: "src/b.ts", diff: `<<<<<<< SEARCH\n${oldStr}\n=======\n${newStr}\n>>>>>>> REPLACE` }, () =>
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(oldStr, newStr)),
    );
  await edit("INT-1", "base 2", "base 2\nagent one");
  git(dir, "commit", "-qam", "one");
  await edit("INT-2", "agent one", "agent one\nagent two");
  git(dir, "commit", "-qam", "two");
  const before = await engine.blame("src/b.ts");
  assert.deepEqual(shape(before).slice(2), ["a:INT-1", "a:INT-2"], JSON.stringify(before.lines));
  // main moves on: a person adds lines at the top; the feature is rebased onto it
  git(dir, "checkout", "-q", "main");
  fs.writeFileSync(file, "// license\n// more\nbase 1\nbase 2\n");
  git(dir, "commit", "-qam", "license");
  git(dir, "checkout", "-q", "feature");
  git(dir, "rebase", "-q", "main");
  const rebased = await engine.blame("src/b.ts");
  assert.deepEqual(shape(rebased), ["-", "-", "-", "-", "a:INT-1", "a:INT-2"]);
  // squashed into one commit, then amended: the same answer
  git(dir, "reset", "--soft", "main");
  git(dir, "commit", "-qm", "squashed");
  git(dir, "commit", "-q", "--amend", "-m", "squashed again");
  const squashed = await engine.blame("src/b.ts");
  assert.deepEqual(squashed.lines, rebased.lines);
  await engine.dispose();
});

test("blame answers from a tampered or torn log and says the chain fails", T, async () => {
  const dir = project();
  const engine = await engineFor(dir);
  await write(engine, dir, "INT-1", "src/a.ts", "a\nb\n");
  await write(engine, dir, "INT-2", "src/c.ts", "c\n");
  const logPath = path.join(dir, traceFiles(dir).find((f) => fs.readFileSync(path.join(dir, f), "utf8").includes('"INT-2"')));
  const log = fs.readFileSync(logPath, "utf8");
  fs.writeFileSync(logPath, log.replace('"INT-2"', '"INT-3"'));
  const cli = cliIn(dir);
  let r = await cli("trace", "blame", "src/a.ts");
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /chain: DOES NOT VERIFY/);
  assert.match(r.stdout, /INT-1/);
  fs.writeFileSync(logPath, log + '{"files":[{"pa');
  const b = await engine.blame("src/a.ts");
  assert.deepEqual(shape(b), ["a:INT-1", "a:INT-1"]);
  assert.equal(b.verify.ok, false);
  assert.ok(b.verify.problems.some((p) => p.kind === "torn"));
  await engine.dispose();
});

test("blame reads only the project's text files, and loads the policy core on demand", T, async () => {
  const outside = tmpdir("hookwise-blame-outside-");
  fs.writeFileSync(path.join(outside, "secret.txt"), "secret\n");
  const dir = project(null); // no governance: the lean core starts, blame hands over
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(dir, "src/link.txt"));
  fs.writeFileSync(path.join(dir, "src/bin.dat"), Buffer.from([0x61, 0, 0x62, 0x0a]));
  fs.writeFileSync(path.join(dir, "src/bad.txt"), Buffer.from([0xff, 0xfe, 0x0a]));
  fs.writeFileSync(path.join(dir, "src/huge.txt"), Buffer.alloc(9 * 1024 * 1024, 0x61));
  fs.writeFileSync(path.join(dir, "src/plain.ts"), "x\ny\n");
  const engine = await engineFor(dir);
  for (const [p, why] of [
    ["src/link.txt", /outside the project/],
    [path.join(outside, "secret.txt"), /outside the project/],
    ["src/bin.dat", /binary/],
    ["src/bad.txt", /UTF-8|utf-8|text/i],
    ["src/huge.txt", /bytes/],
    ["src", /not a regular file/],
  ]) {
    const b = await engine.blame(p);
    assert.equal(b.ok, false, `${p}: ${JSON.stringify(b)}`);
    assert.match(b.error, why, p);
    assert.deepEqual(b.lines, []);
    assert.doesNotMatch(JSON.stringify(b), /secret\n/);
  }
  const b = await engine.blame("src/plain.ts");
  assert.equal(b.ok, true, b.error);
  assert.deepEqual(shape(b), ["-", "-"]);
  const r = await cliIn(dir)("trace", "blame", "src/link.txt");
  assert.equal(r.code, 1);
  assert.match(r.stdout, /error: .*outside the project/);
  await engine.dispose();
});

// A team's repositories for the team-traces suite: a bare remote, clones, agents that write
// through the engine API (each agent its own session), and the built command.
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, tmpdir, nodeBinary, intentsYaml } from "../js/helpers.mjs";

const require = createRequire(import.meta.url);
export const NODE = nodeBinary();
const HOME = tmpdir("hookwise-team-home-");
export const ENV = { PATH: `${path.dirname(NODE)}:/usr/bin:/bin`, HOME, MAENIFOLD_ROOT: path.join(HOME, "none") };
export const CLI = path.join(dist, "cli.mjs");
export const INTENTS = intentsYaml(["INT-1", "Auth", ["src/**"]], ["INT-2", "Billing", ["src/**"]]);

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", GIT_EDITOR: "true", GIT_CONFIG_NOSYSTEM: "1", HOME };

/** Run git in `dir`; throws (with git's output) when it fails. */
export function git(dir, ...args) {
  return execFileSync("git", args, { cwd: dir, encoding: "utf8", env: GIT_ENV, stdio: ["ignore", "pipe", "pipe"] });
}

/** Run git in `dir` and return {code, out} (a conflict is an exit code, not a throw). */
export function gitTry(dir, ...args) {
  try {
    return { code: 0, out: git(dir, ...args) };
  } catch (e) {
    return { code: e.status ?? 1, out: `${e.stdout || ""}${e.stderr || ""}` };
  }
}

/** Paths git reports as unmerged (a conflict). */
export function conflicts(dir) {
  return git(dir, "diff", "--name-only", "--diff-filter=U").split("\n").filter(Boolean);
}

/** A bare remote and a first clone holding the project (intents, src/), pushed to `main`. */
export function team(intents = INTENTS) {
  const root = fs.realpathSync(tmpdir("hookwise-team-"));
  const remote = path.join(root, "remote.git");
  git(root, "init", "-q", "--bare", "-b", "main", remote);
  const a = clone(root, remote, "a");
  fs.mkdirSync(path.join(a, "src"), { recursive: true });
  fs.mkdirSync(path.join(a, ".orchestration"), { recursive: true });
  fs.writeFileSync(path.join(a, ".orchestration/active_intents.yaml"), intents);
  fs.writeFileSync(path.join(a, "src/README"), "the project\n");
  commit(a, "project");
  git(a, "push", "-q", "-u", "origin", "main");
  return { root, remote, a, clone: (name) => clone(root, remote, name) };
}

function clone(root, remote, name) {
  const d = path.join(root, name);
  git(root, "clone", "-q", remote, d);
  git(d, "config", "user.name", "t");
  git(d, "config", "user.email", "t@t");
  git(d, "config", "pull.rebase", "false");
  return d;
}

/** `git add -A && git commit` (everything, `.orchestration/` too, as a team commits). */
export function commit(dir, msg) {
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", msg);
  return git(dir, "rev-parse", "HEAD").trim();
}

/** An agent: its own engine and session in the clone `dir` (the engine API's host). */
export async function agent(dir, session, intent) {
  const { createEngine } = require(path.join(dist, "engine.cjs"));
  const engine = await createEngine({ cwd: dir, env: ENV });
  assert.equal((await engine.selectIntent(session, intent)).ok, true);
  return {
    engine,
    session,
    intent,
    /** Write `content` to `rel` through the engine's hooks. */
    async write(rel, content) {
      const params = { path: rel, content };
      const pre = await engine.executePreHook({ toolName: "write_to_file", params, sessionId: session });
      assert.equal(pre.blocked, false, pre.reason);
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), content);
      const post = await engine.executePostHook({ toolName: "write_to_file", params, sessionId: session, callId: pre.callId });
      assert.equal(post.recorded, true, JSON.stringify(post));
    },
  };
}

function run(args, dir) {
  return new Promise((resolve) => {
    execFile(NODE, [CLI, ...args, "--cwd", dir], { env: ENV, cwd: dir, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `hookwise trace verify --json` in `dir` (a fresh process: it remembers no append). */
export async function verify(dir, ...extra) {
  const r = await run(["trace", "verify", "--json", ...extra], dir);
  const j = JSON.parse(r.stdout);
  return { ...j, code: r.code, stderr: r.stderr };
}

/** `hookwise trace verify` as a person reads it. */
export function verifyText(dir, ...extra) {
  return run(["trace", "verify", ...extra], dir);
}

/** `hookwise trace blame FILE --json`. */
export async function blame(dir, rel) {
  const r = await run(["trace", "blame", rel, "--json"], dir);
  return { ...JSON.parse(r.stdout), code: r.code, stderr: r.stderr };
}

export function cli(dir, ...args) {
  return run(args, dir);
}

/** Each line as `state:intent:session` (`-`: unattributed). */
export const shape = (b) => b.lines.map((l) => (l.state === "unattributed" ? "-" : `${l.state[0]}:${l.intent ? l.intent.id : "?"}:${l.session}`));

/** The segment logs of the project in `dir` (relative paths, sorted). */
export function segments(dir) {
  const d = path.join(dir, ".orchestration/trace");
  if (!fs.existsSync(d)) return [];
  return fs
    .readdirSync(d)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => `.orchestration/trace/${f}`);
}

/** Every record of the project in `dir`, parsed. */
export function records(dir) {
  const out = [];
  for (const s of segments(dir)) {
    for (const l of fs.readFileSync(path.join(dir, s), "utf8").split("\n")) if (l) out.push(JSON.parse(l));
  }
  return out;
}

/** Nothing in `.orchestration/` left unmerged or with conflict markers. */
export function assertClean(dir) {
  assert.deepEqual(conflicts(dir), [], "no conflict");
  for (const s of segments(dir)) {
    const t = fs.readFileSync(path.join(dir, s), "utf8");
    assert.doesNotMatch(t, /^(<<<<<<<|=======|>>>>>>>)/m, `${s} holds conflict markers`);
  }
}

/** The verdict: ok, `n` records in `k` segments, said as the issue asks. */
export async function assertVerifies(dir, n, k) {
  const v = await verify(dir);
  assert.equal(v.ok, true, JSON.stringify(v.problems, null, 1));
  assert.equal(v.code, 0);
  if (n !== undefined) assert.equal(v.records, n);
  if (k !== undefined) assert.equal(v.segments.length, k);
  assert.match(v.text, /^ok: \d+ record\(s\) in \d+ segment\(s\), all chains whole, heads match/);
  assert.doesNotMatch(v.stderr, /knowledge/);
  return v;
}

const sha = (s) => crypto.createHash("sha256").update(s).digest("hex");

/**
 * The records of `dir` rewritten as a log of an older hookwise: one file
 * `.orchestration/agent_trace.jsonl` (no segment, no branch in the records, one chain) and its
 * head — what a project upgrading hookwise has on disk.
 */
export function writeOldLog(dir, recs) {
  let prev = sha("");
  const lines = [];
  for (const r of recs) {
    const c = structuredClone(r);
    const hw = c.metadata["dev.hookwise"];
    delete hw.segment;
    delete hw.branch;
    delete hw.prev_hash;
    hw.prev_hash = `sha256:${prev}`;
    const line = JSON.stringify(c);
    lines.push(line);
    prev = sha(line);
  }
  const text = lines.map((l) => l + "\n").join("");
  fs.writeFileSync(path.join(dir, ".orchestration/agent_trace.jsonl"), text);
  fs.writeFileSync(path.join(dir, ".orchestration/agent_trace.head"), `{"records":${lines.length},"bytes":${Buffer.byteLength(text)},"last":"sha256:${prev}"}\n`);
}

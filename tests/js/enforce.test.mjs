// Pre-action enforcement through the OpenCode plugin and the engine API: SOPs in the project,
// the real host (files, clock), the policy core loaded only when the project wants it.
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, fakeEnv, recordingClient, loadPlugin, tmpdir, forceSop, unconfined } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const { Hookwise } = require(path.join(dist, "hookwise.cjs"));
const { createEngine } = require(path.join(dist, "engine.cjs"));

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

const FORCE_SOP = forceSop(
  "1. Announce it in the team channel (FORCE-PUSH-MARKER).\n2. Run `git fetch` and compare with the remote first.",
);

const NGINX_SOP = `---
id: nginx-reload
category: technical
match:
  patterns: ['nginx']
---
# nginx

## Gotchas
Reload keeps connections; restart drops them (NGINX-MARKER).
`;

/** A project folder with these SOPs (name -> text) and, if given, .opencode/hookwise.json. */
function project(sops = {}, config = null) {
  const dir = tmpdir("hookwise-enforce-");
  if (Object.keys(sops).length || config === null) fs.mkdirSync(path.join(dir, ".opencode/sops"), { recursive: true });
  for (const [name, text] of Object.entries(sops)) fs.writeFileSync(path.join(dir, ".opencode/sops", name), text);
  if (config !== null) {
    fs.mkdirSync(path.join(dir, ".opencode"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".opencode/hookwise.json"), JSON.stringify(config));
  }
  return dir;
}

/** No maenifold anywhere: an empty HOME and PATH without it (the vault is not found either). */
function quietEnv() {
  const home = tmpdir("hookwise-home-");
  return { HOME: home, MAENIFOLD_ROOT: path.join(home, "none"), PATH: "/usr/bin:/bin" };
}

async function start(dir, { env = quietEnv(), options = {} } = {}) {
  for (const k of ["HOOKWISE_BYPASS", "MAENIFOLD_CLI", "HOOKWISE_VAULT"]) delete process.env[k];
  Object.assign(process.env, env);
  const plugin = await loadPlugin();
  const rec = recordingClient();
  const hooks = await plugin.server({ client: rec.client, directory: dir, worktree: dir }, options);
  return { hooks, rec };
}

async function bash(hooks, command, callID = `c${Math.random()}`, sessionID = "s") {
  const output = { args: { command, description: "d" } };
  try {
    await hooks["tool.execute.before"]({ tool: "bash", sessionID, callID }, output);
    return { ran: true, command: output.args.command };
  } catch (e) {
    return { ran: false, error: e };
  }
}

const warnings = (rec) => rec.logs.filter((l) => l.level === "warn").map((l) => l.message);
const metricsLines = (dir) => {
  const f = path.join(dir, ".opencode/hookwise/metrics.jsonl");
  return fs.existsSync(f) ? fs.readFileSync(f, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
};

test("a strict SOP blocks the first git push --force with its text; the retry runs", async () => {
  const dir = project({ "force.md": FORCE_SOP });
  const { hooks } = await start(dir);
  const first = await bash(hooks, "git push --force origin main");
  assert.equal(first.ran, false, "the first call is blocked");
  assert.ok(first.error instanceof Error);
  assert.match(first.error.message, /FORCE-PUSH-MARKER/);
  assert.match(first.error.message, /retry/i);
  const retry = await bash(hooks, "git push --force origin main");
  assert.equal(retry.ran, true, "the same call retried is the acknowledgment");
  assert.equal(unconfined(retry.command), "git push --force origin main", "and runs unchanged (confined by the kernel, issue 38)");
  assert.match(retry.command, /hookwise-native' sandbox/);
  const m = metricsLines(dir);
  assert.deepEqual(m.map((l) => l.decision), ["block", "acknowledged"]);
  assert.ok(m[1].prev.length === 64 && m[1].prev !== m[0].prev, "hash-chained lines");
});

test("the cooldown survives a restart (a new plugin instance)", async () => {
  const dir = project({ "force.md": FORCE_SOP });
  const a = await start(dir);
  assert.equal((await bash(a.hooks, "git push --force origin main")).ran, false);
  const b = await start(dir);
  const again = await bash(b.hooks, "git push --force origin main");
  assert.equal(again.ran, true, "the new instance read the cooldown from the state file");
  const other = await bash(b.hooks, "git push -f origin release");
  assert.equal(other.ran, false, "another push is another call: judged on its own");
  assert.equal((await bash(b.hooks, "git push -f origin release")).ran, true, "and acknowledged by its own retry");
  assert.ok(fs.existsSync(path.join(dir, ".opencode/hookwise/state.json")));
});

test("a block is acknowledged by the same command in the same session only (issue 18, item 5)", async () => {
  const dir = project({ "force.md": FORCE_SOP });
  const { hooks } = await start(dir);
  assert.equal((await bash(hooks, "git push --force origin scratch")).ran, false);
  for (const other of ["git push --force origin main", "git push --force-with-lease=x origin release && rm -rf .git", "git push --force origin scratch; true", "git push --force origin scratch # x"]) {
    assert.equal((await bash(hooks, other)).ran, false, other);
  }
  assert.equal((await bash(hooks, "git push --force origin scratch", undefined, "another-session")).ran, false, "another session");
  assert.equal((await bash(hooks, "git  push --force origin scratch ")).ran, true, "the same command, re-spaced");
});

test("advisory: the call runs; bash gets the advice as comment lines, other tools with their result", async () => {
  const dir = project({ "nginx.md": NGINX_SOP });
  const { hooks } = await start(dir);
  const r = await bash(hooks, "sudo systemctl reload nginx");
  assert.equal(r.ran, true);
  assert.match(r.command, /NGINX-MARKER/);
  const lines = r.command.split("\n");
  assert.equal(unconfined(lines.at(-1)), "sudo systemctl reload nginx", "the command itself is unchanged (confined, issue 38)");
  assert.ok(lines.slice(0, -1).every((l) => l.startsWith("#")), "every added line is a comment");

  // a tool whose arguments are never altered: the advice comes with its result
  const args = { filePath: path.join(dir, "nginx.conf"), content: "server { listen 80; } # nginx" };
  const before = structuredClone(args);
  const out = { args };
  await hooks["tool.execute.before"]({ tool: "write", sessionID: "s", callID: "w1" }, out);
  assert.deepEqual(out.args, before, "write's arguments are untouched");
  const result = { title: "", output: "Wrote file", metadata: {} };
  await hooks["tool.execute.after"]({ tool: "write", sessionID: "s", callID: "w1" }, result);
  assert.match(result.output, /^Wrote file/);
  assert.match(result.output, /NGINX-MARKER/);
});

test("a read-only command is untouched and costs no engine I/O", async () => {
  const dir = project({ "force.md": FORCE_SOP, "nginx.md": NGINX_SOP });
  process.env.HOME = quietEnv().HOME;
  const hw = new Hookwise({ cwd: dir, env: quietEnv() });
  await hw.init();
  assert.equal(hw.core.flavor, "policy");
  assert.equal(hw.plan.toolBeforeAll, true);
  const seen = [];
  const run = hw.host.run.bind(hw.host);
  hw.host.run = (req) => {
    seen.push(req.kind);
    return run(req);
  };
  // the launcher's check, once per engine (a read-only-looking command runs confined too: what
  // reads as read-only is a reading, issue 38)
  await hw.toolBefore({ tool: "bash", sessionId: "s", callId: "r0", args: { command: "ls" } });
  seen.length = 0;
  const args = { command: "git log --oneline | head -5 # nginx force" };
  const r = await hw.toolBefore({ tool: "bash", sessionId: "s", callId: "r1", args });
  assert.equal(unconfined(args.command), "git log --oneline | head -5 # nginx force");
  assert.equal(r.enforcement.decision, "readOnly");
  assert.deepEqual(seen, [], "no request at all");
  const before = metricsLines(dir).length;
  await hw.toolBefore({ tool: "read", sessionId: "s", callId: "r2", args: { filePath: "/etc/nginx/nginx.conf" } });
  assert.equal(metricsLines(dir).length, before);
});

test("a project without enforcement runs the lean core, with no enforcement crossing", async () => {
  const dir = tmpdir("hookwise-lean-");
  const hw = new Hookwise({ cwd: dir, env: quietEnv() });
  await hw.init();
  assert.equal(hw.core.flavor, "lean");
  assert.ok(!hw.plan.toolBeforeAll);
  const args = { command: "git push --force origin main" };
  assert.equal(await hw.toolBefore({ tool: "bash", sessionId: "s", callId: "x", args }), null);
  assert.ok(!fs.existsSync(path.join(dir, ".opencode")));
});

test("a broken SOP file gives one warning naming it; the other SOPs still work", async () => {
  const dir = project({ "force.md": FORCE_SOP, "broken.md": "---\nid: [unclosed\nmatch: {\n---\nbody\n" });
  const { hooks, rec } = await start(dir);
  const first = await bash(hooks, "git push --force origin main");
  assert.equal(first.ran, false);
  assert.match(first.error.message, /FORCE-PUSH-MARKER/);
  await bash(hooks, "git push --force origin other");
  const named = warnings(rec).filter((w) => w.includes("broken.md"));
  assert.equal(named.length, 1, `one warning naming the file: ${JSON.stringify(warnings(rec))}`);
});

test("a bad configuration key is reported with the file and key; the rest works", async () => {
  const dir = project({ "force.md": FORCE_SOP }, { enforcement: { level: "strict", cooldownMs: "soon", bogusKey: 1 } });
  const { hooks, rec } = await start(dir);
  const w = warnings(rec);
  assert.ok(w.some((m) => m.includes(".opencode/hookwise.json") && m.includes("cooldownMs")), JSON.stringify(w));
  assert.ok(w.some((m) => m.includes(".opencode/hookwise.json") && m.includes("bogusKey")), JSON.stringify(w));
  assert.ok(!w.some((m) => m.includes("option 'enforcement' is not known")), "the foundation config knows the key");
  assert.equal((await bash(hooks, "git push --force origin main")).ran, false, "still enforced");
});

test("HOOKWISE_BYPASS=1: the call passes, loudly", async () => {
  const dir = project({ "force.md": FORCE_SOP });
  const { hooks, rec } = await start(dir, { env: { ...quietEnv(), HOOKWISE_BYPASS: "1" } });
  assert.ok(warnings(rec).some((m) => /BYPASS/.test(m)), "said at start");
  const r = await bash(hooks, "git push --force origin main");
  assert.equal(r.ran, true);
  assert.match(r.command, /FORCE-PUSH-MARKER/, "the would-be block is given as advice");
  assert.ok(warnings(rec).some((m) => /BYPASS/.test(m) && m.includes("git-force-push")), "and logged per call");
  assert.equal(metricsLines(dir).at(-1).bypass, true);
});

test("a slow memory source: the decision comes within the deadline (fail open)", async () => {
  const f = fakeEnv({ FAKE_MAENIFOLD_STARTUP_MS: "4000", FAKE_MAENIFOLD_ANSWER_MS: "1000" });
  const dir = project({}, { enforcement: { level: "strict", deadlineMs: 200 } });
  const { hooks, rec } = await start(dir, { env: f.env });
  const t0 = performance.now();
  const r = await bash(hooks, "kubectl delete namespace production");
  const ms = performance.now() - t0;
  assert.equal(r.ran, true, "nothing in hand: the call proceeds");
  assert.ok(ms < 1500, `decided in ${ms} ms`);
  assert.ok(warnings(rec).some((m) => /memory search did not finish within the 200 ms deadline/.test(m)), JSON.stringify(warnings(rec)));
  assert.equal(metricsLines(dir).at(-1).timedOut, true);
});

test("engine API: executePreHook blocks, then passes; metrics summarise and verify", async () => {
  const dir = project({ "force.md": FORCE_SOP, "nginx.md": NGINX_SOP });
  const engine = await createEngine({ cwd: dir, env: quietEnv() });
  const call = { toolName: "bash", params: { command: "git push --force origin main" }, sessionId: "s", workspaceRoot: dir };
  const a = await engine.executePreHook(call);
  assert.equal(a.blocked, true);
  assert.match(a.reason, /FORCE-PUSH-MARKER/);
  // the retry passes the SOP; the shell then runs only confined (issue 38), which needs its
  // arguments changed: executePreHook hands none back, so it refuses, naming augmentToolCall
  const b = await engine.executePreHook(call);
  assert.equal(b.blocked, true);
  assert.doesNotMatch(b.reason, /FORCE-PUSH-MARKER/);
  assert.match(b.reason, /confined by the kernel[\s\S]*augmentToolCall/);
  const c = await engine.executePreHook({ toolName: "edit", params: { filePath: "nginx.conf", oldString: "a", newString: "b # nginx" } });
  assert.equal(c.blocked, false);
  assert.match(c.contextInjection, /NGINX-MARKER/);
  const sum = await engine.metrics();
  assert.equal(sum.ok, true);
  assert.match(sum.text, /block/);
  const ok = await engine.metrics({ verify: true });
  assert.equal(ok.ok, true, ok.text);
  // an edited line breaks the chain
  const file = path.join(dir, ".opencode/hookwise/metrics.jsonl");
  fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace('"decision":"block"', '"decision":"allow"'));
  const bad = await engine.metrics({ verify: true });
  assert.equal(bad.ok, false, bad.text);
});

test("vault memories: a note about the action blocks it once (calibrated confidence), a weak match does not", async () => {
  const vault = tmpdir("hookwise-vault-");
  const notes = {
    "process/force-push.md":
      "---\ntitle: Never force push to main\n---\n# Never force push to main\n\nA `git push --force` to main rewrites history others built on (VAULT-FORCE-MARKER). Use --force-with-lease on your own branches, and announce it first.\n",
    "notes/git-aliases.md": "# Shell aliases\n\nWe alias st to status and co to checkout in git, and keep the prompt short. The CI runs on every branch.\n",
    "ops/docker.md": "# Docker\n\nImages are built by CI; never `docker compose down -v` on a shared host, volumes hold the databases.\n",
    "security/tokens.md": "---\ntags: [credentials]\n---\n# Deploy tokens\n\nTokens live in the vault under secret/deploy; rotate them monthly.\n",
    "notes/nginx.md": "# nginx\n\nReload keeps connections; restart drops them.\n",
    "notes/release.md": "# Releases\n\nTag, build, publish the changelog, then deploy the canary.\n",
  };
  for (const [rel, text] of Object.entries(notes)) {
    fs.mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
    fs.writeFileSync(path.join(vault, rel), text);
  }
  // enforcement on, no SOPs at all: only the vault can block. The vault comes as a plugin
  // option: with enforcement on, options pass its schema first, which must know the key.
  const dir = project({}, { enforcement: { level: "category" } });
  const { hooks, rec } = await start(dir, { options: { vault, knowledge: "vault" } });
  assert.ok(!warnings(rec).length, JSON.stringify(warnings(rec)));
  assert.ok(rec.logs.some((l) => l.message.includes(`using the vault at ${fs.realpathSync(vault)}`)), JSON.stringify(rec.logs));
  const first = await bash(hooks, "git push --force origin main");
  assert.equal(first.ran, false, "blocked by the process note");
  assert.match(first.error.message, /VAULT-FORCE-MARKER/);
  assert.match(first.error.message, /Never force push to main/);
  const retry = await bash(hooks, "git push --force origin main");
  assert.equal(retry.ran, true, "the retry is the acknowledgment");
  // a plain push shares only part of the note's words: below the strict threshold
  const plain = await bash(hooks, "git push origin feature/login");
  assert.equal(plain.ran, true);
  const m = metricsLines(dir);
  assert.deepEqual(m.map((l) => l.decision).slice(0, 2), ["block", "acknowledged"]);
  assert.deepEqual(m[0].categories, ["process"]);
  assert.ok(m[0].sources.memories >= 1 && m[0].sops.length === 0, JSON.stringify(m[0]));
  assert.notEqual(m[2].decision, "block");
});

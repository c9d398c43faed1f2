// The embedded vault in the REAL OpenCode, with NO maenifold installed: hookwise is built
// (`npm run build` → pkg/), packed with `npm pack` and loaded by package name, offline, like
// hookwise.test.mjs does. The knowledge is the example vault (examples/vault, "Larkspur").
//
//   node --test tests/e2e/vault.test.mjs     (needs pkg/: run `npm run build` first)
//
// Three OpenCode runs start together in before(), each in a project folder called `larkspur`, with
// no maenifold on PATH, no MAENIFOLD_CLI/MAENIFOLD_ROOT and an empty HOME:
//   env      — the vault named by HOOKWISE_VAULT (a copy of examples/vault outside the project);
//   project  — the vault in the project's own `.opencode/knowledge/` (a git repository);
//   nogit    — the same in a project that is not a git repository (OpenCode then passes the
//              plugin worktree "/" and directory = the project folder).
// The scripted model makes one bash call naming [[Session Tokens]], then finishes. What the call
// must carry is computed beforehand by the engine API from the same notes, so the test checks
// that OpenCode's run got exactly what `hookwise context` / the engine give.
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

const suiteSkip = suiteGate(e2eGate(), "e2e vault", "opencode");

const PKG_DIR = path.join(repoRoot, "pkg");
const EXAMPLE_VAULT = path.join(repoRoot, "examples", "vault");
const PROJECT = "larkspur";
const OPEN = "<!-- Knowledge Graph Context (hookwise) -->";
const HEADER = "## Knowledge Graph Context";

const BASH_COMMAND = `printf 'result:%s\\n' "[[Session Tokens]]"`;
const BASH_OUTPUT = "result:[[Session Tokens]]\n";
const SCRIPT = [{ tool: "bash", id: "call_bash", args: { command: BASH_COMMAND, description: "Print a result" } }, "all done"];

/** The example vault as a `files` map under `prefix` (for the sandbox's project). */
function vaultFiles(prefix) {
  const out = {};
  for (const rel of fs.readdirSync(EXAMPLE_VAULT, { recursive: true })) {
    const p = path.join(EXAMPLE_VAULT, rel);
    if (fs.statSync(p).isFile()) out[path.posix.join(prefix, rel.split(path.sep).join("/"))] = fs.readFileSync(p, "utf8");
  }
  return out;
}

/** Run OpenCode in <sandbox project>/larkspur with hookwise; `git`: larkspur is a git repository. */
async function run({ tarball, env = {}, files = {}, git = false }) {
  const sb = makeSandbox({
    plugins: [{ tarball, install: "cache" }],
    env: { PATH: pathWithoutMaenifold(), ...env },
    files: Object.fromEntries(Object.entries(files).map(([k, v]) => [`${PROJECT}/${k}`, v])),
  });
  const cwd = path.join(sb.dir, PROJECT);
  fs.mkdirSync(cwd, { recursive: true });
  if (git) {
    const genv = { ...sb.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd, env: genv });
    execFileSync("git", ["add", "-A"], { cwd, env: genv });
    execFileSync("git", ["commit", "-q", "-m", "initial"], { cwd, env: genv });
    // OpenCode looks for opencode.json up to the worktree's root only: put a copy there too.
    const write = sb.writeConfig;
    sb.writeConfig = (baseURL) => {
      const config = write(baseURL);
      fs.writeFileSync(path.join(cwd, "opencode.json"), JSON.stringify(config, null, 2) + "\n");
      return config;
    };
  }
  const r = await sb.run({ cwd, prompt: "Check the [[Session Tokens]] notes.", script: SCRIPT, timeoutMs: 60_000 });
  r.cleanup = sb.cleanup;
  r.cwd = cwd;
  return r;
}

/** The main request that first carries the bash call's result, that result, and the call as replayed. */
function afterBash(r) {
  for (const req of r.mainRequests()) {
    const res = req.toolResults().find((t) => t.toolCallId === "call_bash");
    if (res) return { req, result: res.content, call: req.assistantToolCalls().find((c) => c.id === "call_bash") };
  }
  assert.fail(`no request carries the bash result\n${r.describe()}`);
}

const hookwiseLines = (r) => r.logs.service("hookwise");
const hwLog = (r) => hookwiseLines(r).map((e) => e.raw).join("\n") || "(no hookwise log lines)";

describe("the embedded vault in the real OpenCode, no maenifold installed", { skip: suiteSkip }, () => {
  let packDir;
  let vaultDir;
  let expected;
  const runs = {};

  before(async () => {
    assert.ok(fs.existsSync(path.join(PKG_DIR, "package.json")), `no built package at ${PKG_DIR}: run \`npm run build\` first`);
    const pack = packHookwise("hookwise-e2e-vault-");
    packDir = pack.packDir;
    const packed = pack.packed;
    const tarball = path.join(packDir, packed[0].filename);
    vaultDir = path.join(packDir, "vault");
    fs.cpSync(EXAMPLE_VAULT, vaultDir, { recursive: true });

    // What the bash call must carry, from the engine of the packed package's own dist.
    const { createEngine } = await import(path.join(PKG_DIR, "dist", "engine.mjs"));
    const engine = await createEngine({ cwd: packDir, env: { PATH: "", HOME: packDir }, options: { knowledge: "vault", vault: vaultDir } });
    expected = await engine.augmentToolCall({ tool: "bash", args: { command: BASH_COMMAND, description: "Print a result" } });
    assert.ok(expected.context && expected.context.includes("# ## [[session-tokens]]"), "the engine finds [[session-tokens]] in the example vault");

    const started = Date.now();
    [runs.env, runs.project, runs.nogit] = await Promise.all([
      run({ tarball, env: { HOOKWISE_VAULT: vaultDir } }),
      run({ tarball, files: vaultFiles(".opencode/knowledge"), git: true }),
      run({ tarball, files: vaultFiles(".opencode/knowledge") }),
    ]);
    console.log(
      `# vault e2e: env ${runs.env.durationMs} ms, project ${runs.project.durationMs} ms, nogit ${runs.nogit.durationMs} ms ` +
        `(${Date.now() - started} ms together)`,
    );
    for (const r of Object.values(runs)) assertRunOk(r);
  });

  after(() => {
    for (const r of Object.values(runs)) r?.cleanup();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  for (const [name, why] of [
    ["env", "HOOKWISE_VAULT"],
    ["project", "project"],
    ["nogit", "project"],
  ]) {
    test(`${name}: hookwise uses the vault (${why}), not maenifold, without a warning`, () => {
      const r = runs[name];
      const root = name === "env" ? vaultDir : path.join(r.cwd, ".opencode", "knowledge");
      const using = r.logs.filter((e) => /^using the vault at /.test(e.message ?? ""));
      assert.equal(using.length, 1, `hookwise starts once and says which vault it uses\n${hwLog(r)}`);
      assert.equal(using[0].level, "INFO");
      assert.match(using[0].message, new RegExp(`^using the vault at ${fs.realpathSync(root).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(${why}\\): 40 notes, `));
      assert.equal(r.logs.find((e) => /using maenifold at/.test(e.message ?? "")), undefined, "no maenifold");
      const bad = hookwiseLines(r).filter((e) => e.level === "WARN" || e.level === "ERROR");
      assert.deepEqual(bad.map((e) => e.raw), [], "no hookwise warnings or errors");
    });

    test(`${name}: the [[Session Tokens]] bash call gets the vault's context; its output is unchanged`, () => {
      const r = runs[name];
      const got = afterBash(r);
      assert.equal(got.result, BASH_OUTPUT, "the tool result the model reads is exactly printf's output");
      const use = r.toolUses().find((u) => u.callID === "call_bash");
      assert.equal(use?.status, "completed");
      assert.equal(use.metadata?.exit, 0);
      // The model's next request replays its own call, rewritten: exactly the engine's answer.
      const cmd = got.call.args.command;
      assert.ok(cmd.startsWith(`# ${OPEN}\n`), `comment lines first:\n${cmd.slice(0, 300)}\n${hwLog(r)}`);
      assert.ok(cmd.endsWith("\n" + BASH_COMMAND), "the original command last, untouched");
      assert.equal(cmd, expected.args.command, "the context is what the engine gives from the same notes");
      assert.match(cmd, /^# ## \[\[session-tokens\]\]$/m);
      assert.match(cmd, /^# Related: \[\[[a-z0-9-]+\]\] \(\d+ files?\)/m);
      assert.match(cmd, /^# - memory:\/\/auth\/session-tokens: /m, "a preview of the note itself");
      assert.equal(got.call.args.description, "Print a result");
    });

    test(`${name}: the first model request's system prompt has the session context from the vault`, () => {
      const r = runs[name];
      const first = r.mainRequests()[0];
      const sys = first.messages.filter((m) => m.role === "system").map((m) => contentText(m.content)).join("\n");
      assert.ok(sys.includes(HEADER), `session-start context in the system prompt\n${hwLog(r)}`);
      const block = sys.slice(sys.indexOf(HEADER));
      assert.match(block, new RegExp(`^Project: \\*\\*${PROJECT}\\*\\*$`, "m"));
      assert.match(block, /^### Related concepts\n(- \[\[[^\]]+\]\] \(\d+ files?\)\n)+/m);
      for (const m of block.matchAll(/memory:\/\/([\w./-]+)/g)) {
        assert.ok(fs.existsSync(path.join(EXAMPLE_VAULT, `${m[1]}.md`)), `${m[0]} is a note of the vault`);
      }
    });
  }
});

// The native warm hook client (crates/hookwise-native) and the script every hook entry runs
// (js/hook.sh), through the built package: pkg/dist with the binary where `npm run build` puts
// it for this machine (pkg/node_modules/@hookwise/cli-<platform>-<arch>/bin/hookwise-native).
//
// - the key: the socket the native client asks is the one js/warm-client.cjs computes, for the
//   same user, project, host, installed hookwise (fractional mtimes included) and environment;
// - the warm answer: the same answer a cold hook gives, printed by the native client;
// - every other outcome goes to the Node path with the payload as read (a server that answers
//   garbage, another request's id, `busy`, an error, nothing in time): the answer is Node's cold
//   one, governance still blocking;
// - a damaged install: no binary, a corrupt one, another platform's, another version — the Node
//   path, never "allow".
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, repo, tmpdir, writeFiles, noCliEnv, nodeBinary, intentsYaml, isBun } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const T = { timeout: 120_000 };
const { binaryPath, packageName } = require(path.join(dist, "native.cjs"));
const BIN = binaryPath(dist);
const skip = isBun ? "the hook script runs node" : BIN ? false : `no native binary for ${packageName()} in pkg/ (npm run build builds it)`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const NODE_DIR = path.dirname(nodeBinary());

/** A copy of the installed package as npm lays it out: `<root>/node_modules/hookwise` and the
 * platform package beside it (`binary`: "ok", "missing", or the bytes to put there). */
function install(binary = "ok", version = null) {
  const root = tmpdir("hookwise-native-");
  const pkg = path.join(root, "node_modules/hookwise");
  fs.mkdirSync(pkg, { recursive: true });
  fs.cpSync(dist, path.join(pkg, "dist"), { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(dist, "../package.json"), "utf8"));
  if (version) manifest.version = version;
  fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify(manifest));
  if (binary !== "missing") {
    const bin = path.join(root, "node_modules", packageName(), "bin/hookwise-native");
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    if (binary === "ok") fs.copyFileSync(BIN, bin);
    else fs.writeFileSync(bin, binary);
    fs.chmodSync(bin, 0o755);
  }
  return { root, dist: path.join(pkg, "dist"), script: path.join(pkg, "dist/hook.sh") };
}

function governed() {
  return writeFiles(tmpdir("hookwise-native-proj-"), { ".orchestration/active_intents.yaml": intentsYaml(["INT-1", "Auth", ["src/**"]]) });
}
const writeCall = (project) => ({ session_id: "s1", cwd: project, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: path.join(project, "src/a.ts"), content: "x" }, tool_use_id: "w1" });

function env(extra = {}) {
  return noCliEnv({ PATH: `${NODE_DIR}:/usr/bin:/bin`, XDG_RUNTIME_DIR: tmpdir("hookwise-run-"), HOOKWISE_DEBUG: "1", HOOKWISE_WARM_IDLE_MS: "60000", ...extra });
}

/** One hook as the entry runs it: `sh <dist>/hook.sh <host> <Event>` in `cwd`. */
function hook(inst, e, host, event, payload, cwd = payload.cwd) {
  return new Promise((resolve) => {
    const c = spawn("/bin/sh", [inst.script, host, event], { env: e, cwd, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    c.stdout.on("data", (d) => (out += d));
    c.stderr.on("data", (d) => (err += d));
    c.stdin.end(JSON.stringify(payload));
    c.on("close", (code) => {
      const m = /hookwise debug: (answered warm( \(native\))?|cold \(([^)]*)\))/.exec(err);
      resolve({ out, code, stderr: err, how: !m ? "?" : m[2] ? "native" : m[1] === "answered warm" ? "node-warm" : "cold", why: m && m[3] });
    });
  });
}
const decision = (r) => JSON.parse(r.out).hookSpecificOutput?.permissionDecision;

async function untilNative(inst, e, host, event, payload) {
  let r;
  for (let i = 0; i < 200; i++) {
    r = await hook(inst, e, host, event, payload);
    if (r.how === "native") return r;
    await sleep(100);
  }
  assert.fail(`never answered by the native client: ${r && r.stderr}`);
}

function stopServers(e) {
  const dir = path.join(e.XDG_RUNTIME_DIR, "hookwise");
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!f.endsWith(".lock")) continue;
    const pid = Number.parseInt(fs.readFileSync(path.join(dir, f), "utf8"), 10);
    try {
      process.kill(pid, "SIGTERM");
    } catch {}
  }
}

test("the native client asks the socket js/warm-client.cjs names, for every input of the key", { ...T, skip }, () => {
  const inst = install();
  // fractional mtimes on every keyed file: the key prints them as JavaScript does
  const t = [1700000000.123456, 1234567890.5, 1800000000.000001, 1700000001.987654, 1600000000.25];
  ["warm-server.cjs", "claude.cjs", "core.cjs", "hookwise_bg.wasm", "policy/hookwise_bg.wasm"].forEach((f, i) => fs.utimesSync(path.join(inst.dist, f), t[i], t[i]));
  const client = require(path.join(inst.dist, "warm-client.cjs"));
  const project = fs.realpathSync(tmpdir("hookwise-native-key-é-"));
  const cases = [
    ["claude-code", env(), project],
    ["claude-code", env({ CLAUDE_PROJECT_DIR: path.join(project, "given") }), path.join(project, "given")],
    ["claude-code", env({ CLAUDE_PROJECT_DIR: "relative/not/taken" }), project],
    ["codex", env({ HOOKWISE_X: "é😀\u0001", MAENIFOLD_ROOT: "/m", COPILOT_HOME: "/c", HOME: "/h", PATHX: "no", ZZ: "no" }), project],
    ["gemini", env({ GEMINI_PROJECT_DIR: project, HOOKWISE_B: "1", HOOKWISE_A: "2", HOOKWISE_a: "3" }), project],
    ["copilot", env({ TMPDIR: tmpdir("hookwise-tmp-"), XDG_RUNTIME_DIR: "" }), project],
    // a runtime variable naming no folder: both go on to <tmpdir>/hookwise-<uid>
    ["qwen", env({ TMPDIR: tmpdir("hookwise-tmp-"), XDG_RUNTIME_DIR: "/nonexistent/run" }), project],
  ];
  // the JS side in a process of its own with the same environment and folder, the project taken
  // as js/hook.cjs takes it
  const jsSocket = (host, e) =>
    spawnSync(
      nodeBinary(),
      [
        "-e",
        `const c = require(${JSON.stringify(path.join(inst.dist, "warm-client.cjs"))});
         const d = require(${JSON.stringify(path.join(inst.dist, "dialects.json"))})[process.argv[1]];
         const v = d.projectDirVar && process.env[d.projectDirVar];
         const project = typeof v === "string" && require("path").isAbsolute(v) ? v : process.cwd();
         const dir = c.runtimeDir(process.env);
         c.secret(dir);
         console.log(c.serverPaths(dir, c.serverFor(project, process.argv[1]), process.env).socket);`,
        host,
      ],
      { env: e, cwd: project, encoding: "utf8" },
    ).stdout.trim();
  for (const [host, e, expectProject] of cases) {
    if (e.XDG_RUNTIME_DIR === "") delete e.XDG_RUNTIME_DIR;
    const js = jsSocket(host, e);
    assert.match(js, /\.sock$/);
    if (!e.TMPDIR) assert.equal(js, client.serverPaths(client.runtimeDir(e), client.serverFor(expectProject, host), e).socket, "the project as expected");
    const r = spawnSync(BIN, ["warm-key", "--dist", inst.dist, "--host", host, "PreToolUse"], { env: e, cwd: project, encoding: "utf8" });
    assert.equal(r.stdout.trim(), js, `${host} ${JSON.stringify(e)}\n${r.stderr}`);
  }
  // a file of the key changes: another server
  const e = env();
  const before = spawnSync(BIN, ["warm-key", "--dist", inst.dist, "PreToolUse"], { env: e, cwd: project, encoding: "utf8" }).stdout;
  client.secret(client.runtimeDir(e));
  fs.appendFileSync(path.join(inst.dist, "claude.cjs"), "\n");
  const after = spawnSync(BIN, ["warm-key", "--dist", inst.dist, "PreToolUse"], { env: e, cwd: project, encoding: "utf8" }).stdout;
  assert.notEqual(before, after);
  assert.equal(after.trim(), client.serverPaths(client.runtimeDir(e), project, e).socket);
});

test("warm: the native client prints the server's answer, the one a cold hook gives; governance blocks", { ...T, skip }, async () => {
  const inst = install();
  const project = governed();
  const e = env();
  try {
    const first = await hook(inst, e, "claude-code", "PreToolUse", writeCall(project));
    assert.equal(first.how, "cold", first.stderr);
    assert.equal(decision(first), "deny", first.out);
    const warm = await untilNative(inst, e, "claude-code", "PreToolUse", writeCall(project));
    assert.equal(warm.out, first.out, "the same answer");
    assert.equal(warm.code, 0);
    // another host: its own server, its own dialect
    const g = { ...writeCall(project), hook_event_name: "BeforeTool", tool_name: "write_file", tool_input: { file_path: path.join(project, "src/a.ts"), content: "x" } };
    const cold = await hook(inst, e, "gemini", "BeforeTool", g);
    assert.equal(JSON.parse(cold.out).decision, "deny", cold.out + cold.stderr);
    const gw = await untilNative(inst, e, "gemini", "BeforeTool", g);
    assert.equal(gw.out, cold.out);
  } finally {
    stopServers(e);
  }
});

test("a server that answers anything but this request's answer: the Node path answers cold, with the payload as read", { ...T, skip }, async () => {
  const inst = install();
  const project = governed();
  const e = env({ HOOKWISE_WARM_TIMEOUT_MS: "400" });
  const client = require(path.join(inst.dist, "warm-client.cjs"));
  const dir = client.runtimeDir(e);
  client.secret(dir);
  const sock = client.serverPaths(dir, project, e).socket;
  const cases = [
    ["garbage", (m, s) => s.end("not json\n")],
    ["another id", (m, s) => s.end(JSON.stringify({ id: "other", ok: true, text: "{}" }) + "\n")],
    ["busy", (m, s) => s.end(JSON.stringify({ id: m.id, busy: true }) + "\n")],
    ["an error", (m, s) => s.end(JSON.stringify({ id: m.id, error: "bad secret" }) + "\n")],
    ["ok without text", (m, s) => s.end(JSON.stringify({ id: m.id, ok: true }) + "\n")],
    ["closed", (m, s) => s.destroy()],
    ["silent", () => {}],
  ];
  for (const [what, reply] of cases) {
    const got = [];
    const server = net.createServer((s) => {
      let buf = "";
      s.on("error", () => {});
      s.on("data", (d) => {
        buf += d;
        const nl = buf.indexOf("\n");
        if (nl === -1) return;
        const m = JSON.parse(buf.slice(0, nl));
        got.push(m);
        reply(m, s);
      });
    });
    await new Promise((r) => server.listen(sock, r));
    try {
      const r = await hook(inst, e, "claude-code", "PreToolUse", writeCall(project));
      assert.equal(got.length, 1, `${what}: the native client asked`);
      assert.equal(got[0].payload, JSON.stringify(writeCall(project)), "the payload untouched");
      assert.equal(got[0].project, project);
      assert.equal(r.how, "cold", `${what}: ${r.stderr}`);
      assert.equal(decision(r), "deny", `${what}: governance still blocks\n${r.out}${r.stderr}`);
    } finally {
      await new Promise((r) => server.close(r));
    }
  }
});

test("a damaged install (no binary, a corrupt one, another platform's, another version): the Node path, governance still blocks", { ...T, skip }, async () => {
  const arm = path.join(repo, "pkg-native/cli-linux-arm64/bin/hookwise-native");
  const cases = [
    ["missing", install("missing")],
    ["text", install("not a binary at all\n")],
    ["random bytes", install(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)))],
    ["truncated ELF", install(fs.readFileSync(BIN).subarray(0, 3000))],
    ["another version", install("ok", "0.0.1-other")],
    ...(process.arch !== "arm64" && fs.existsSync(arm) ? [["another platform", install(fs.readFileSync(arm))]] : []),
  ];
  for (const [what, inst] of cases) {
    const project = governed();
    const e = env();
    try {
      for (let i = 0; i < 3; i++) {
        const r = await hook(inst, e, "codex", "PreToolUse", { ...writeCall(project), tool_name: "apply_patch", tool_input: { command: `*** Begin Patch\n*** Add File: ${path.join(project, "src/a.ts")}\n+x\n*** End Patch\n` } });
        assert.equal(decision(r), "deny", `${what} #${i}: ${r.out}\n${r.stderr}`);
        assert.notEqual(r.how, "native", what);
      }
    } finally {
      stopServers(e);
    }
  }
});

before(() => {
  if (!skip) assert.ok(fs.statSync(BIN).mode & 0o111, "the binary is executable");
});

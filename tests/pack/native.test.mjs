// The native binary's packages, packed and installed as a user installs them: `npm pack` of pkg/
// and of this platform's package (pkg-native/cli-<platform>-<arch>, built by `npm run build`),
// a fresh project installs both with install scripts off, offline, and gets the binary where
// js/native.cjs's binaryPath() and dist/hook.sh find it; without the platform package (npm
// skips an optional dependency it cannot fetch) the hook answers through Node.
//
// What this cannot show offline: npm choosing the platform package from a registry by its `os`
// and `cpu` (the manifests are checked instead).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const name = `cli-${process.platform}-${process.arch}`;
const nativeDir = path.join(repo, "pkg-native", name);
const skip = fs.existsSync(path.join(nativeDir, "package.json")) ? false : `no ${nativeDir} (npm run build builds it)`;
const childEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== "NODE_TEST_CONTEXT" && k !== "NODE_OPTIONS"));
childEnv.npm_config_update_notifier = "false";

let base;
const tarballs = {};
const pack = (dir) => {
  const [info] = JSON.parse(execFileSync("npm", ["pack", dir, "--pack-destination", base, "--json"], { cwd: repo, env: childEnv, encoding: "utf8" }));
  return { file: path.join(base, info.filename), files: info.files.map((f) => f.path), info };
};
function project(label, ...tgz) {
  const dir = path.join(base, label);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `consumer-${label}`, version: "1.0.0", private: true }));
  execFileSync("npm", ["install", "--ignore-scripts", "--offline", "--no-audit", "--no-fund", "--cache", path.join(base, `cache-${label}`), ...tgz], { cwd: dir, env: childEnv, encoding: "utf8", timeout: 120_000 });
  return dir;
}
/** The governed gate through the installed hook script, as an entry runs it. */
function gate(dir) {
  fs.mkdirSync(path.join(dir, ".orchestration"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".orchestration/active_intents.yaml"), 'active_intents:\n  - id: INT-1\n    name: A\n    status: IN_PROGRESS\n    owned_scope: ["src/**"]\n');
  const payload = { session_id: "s", cwd: dir, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: path.join(dir, "src/a.ts"), content: "x" }, tool_use_id: "t" };
  const env = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: path.join(base, "home"), XDG_RUNTIME_DIR: fs.mkdtempSync(path.join(base, "run-")), HOOKWISE_DEBUG: "1" };
  return spawnSync("/bin/sh", [path.join(dir, "node_modules/hookwise/dist/hook.sh"), "claude-code", "PreToolUse"], { cwd: dir, env, input: JSON.stringify(payload), encoding: "utf8", timeout: 60_000 });
}

before(() => {
  if (skip) return;
  base = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-pack-native-"));
  tarballs.hookwise = pack(path.join(repo, "pkg"));
  tarballs.native = pack(nativeDir);
});
after(() => {
  if (base && !process.env.HOOKWISE_KEEP_TMP) fs.rmSync(base, { recursive: true, force: true });
});

test("the packages: hookwise lists every platform package at its own version; each holds only its binary, for its os and cpu", { skip }, () => {
  const hw = JSON.parse(fs.readFileSync(path.join(repo, "pkg/package.json"), "utf8"));
  const deps = hw.optionalDependencies || {};
  assert.ok(Object.keys(deps).length >= 2, JSON.stringify(deps));
  for (const [dep, v] of Object.entries(deps)) {
    assert.match(dep, /^@hookwise\/cli-(linux|darwin|win32)-(x64|arm64)$/);
    assert.equal(v, hw.version, "the same version: the binary refuses another");
  }
  assert.ok(tarballs.hookwise.files.includes("dist/hook.sh"), "the hook script is shipped");
  assert.ok(!tarballs.hookwise.files.some((f) => f.startsWith("node_modules/")), "the repository's test copy of the binary is not");
  const m = JSON.parse(fs.readFileSync(path.join(nativeDir, "package.json"), "utf8"));
  assert.equal(m.name, `@hookwise/${name}`);
  assert.ok(deps[m.name], "hookwise depends on it");
  assert.deepEqual([m.os, m.cpu], [[process.platform], [process.arch]]);
  assert.equal(m.scripts, undefined, "no install script");
  assert.deepEqual(tarballs.native.files.sort(), ["LICENSE", "README.md", "bin/hookwise-native", "package.json"]);
  // every other platform package built here: the right format (`file`), where `file` is there
  for (const other of fs.readdirSync(path.join(repo, "pkg-native"))) {
    const bin = path.join(repo, "pkg-native", other, other.startsWith("cli-win32-") ? "bin/hookwise-native.exe" : "bin/hookwise-native");
    const f = spawnSync("file", ["-b", bin], { encoding: "utf8" });
    if (f.status !== 0) continue;
    const want = {
      "cli-linux-x64": /ELF 64-bit.*x86-64.*static/,
      "cli-linux-arm64": /ELF 64-bit.*aarch64.*static/,
      "cli-darwin-x64": /Mach-O 64-bit x86_64 executable/,
      "cli-darwin-arm64": /Mach-O 64-bit arm64 executable/,
      "cli-win32-x64": /PE32\+ executable \(console\) x86-64.*MS Windows/,
    }[other];
    if (want) assert.match(f.stdout, want, other);
    console.log(`# ${other}: ${f.stdout.trim()}`);
  }
});

test("a fresh project installs hookwise and its platform package with scripts off and gets the native client", { skip, timeout: 180_000 }, () => {
  const dir = project("with", tarballs.hookwise.file, tarballs.native.file);
  const bin = path.join(dir, "node_modules/@hookwise", name, "bin/hookwise-native");
  assert.ok(fs.statSync(bin).mode & 0o100, "executable as installed");
  const { binaryPath } = require(path.join(dir, "node_modules/hookwise/dist/native.cjs"));
  assert.equal(binaryPath(path.join(dir, "node_modules/hookwise/dist")), bin);
  assert.match(execFileSync(bin, ["--version"], { encoding: "utf8" }), /^hookwise-native \d/);
  const r = gate(dir);
  assert.equal(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision, "deny", r.stdout + r.stderr);
});

test("without the platform package (npm skips the optional dependency it cannot fetch), the hook answers through Node", { skip, timeout: 180_000 }, () => {
  const dir = project("without", tarballs.hookwise.file);
  assert.ok(!fs.existsSync(path.join(dir, "node_modules/@hookwise")), "nothing native installed");
  const { binaryPath } = require(path.join(dir, "node_modules/hookwise/dist/native.cjs"));
  assert.equal(binaryPath(path.join(dir, "node_modules/hookwise/dist")), null);
  const r = gate(dir);
  assert.equal(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision, "deny", r.stdout + r.stderr);
});

import { createRequire } from "node:module";
const require = createRequire(import.meta.url);

// The packed package, installed the way a user gets it: `npm pack pkg/` (the e2e helper), then
// `npm install --ignore-scripts --offline <tgz>` into a fresh consumer project. Every security
// test talks to what is installed there — the engine (`hookwise/engine`), the `hookwise`
// command (the package's bin), the OpenClaw plugin folder — never to js/ or pkg/ directly.
import { installNative } from "../../e2e-shared/native.mjs";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { packHookwise, repoRoot, PKG_DIR } from "../../e2e/lib/pack.mjs";
import { pathWithoutMaenifold } from "../../e2e-shared/env.mjs";

export { repoRoot, PKG_DIR };

// npm run by node --test / npm run: an inherited npm_config_local_prefix would make the inner
// install write into the repository.
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== "NODE_TEST_CONTEXT" && k !== "NODE_OPTIONS"));
npmEnv.npm_config_update_notifier = "false";
npmEnv.npm_config_loglevel = "error";

const made = new Set();
process.on("exit", () => {
  if (process.env.HOOKWISE_E2E_KEEP) return;
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

/** Throws with the way out when pkg/ is not built. */
export function assertBuilt() {
  for (const f of ["package.json", "dist/hookwise_bg.wasm", "dist/policy/hookwise_bg.wasm", "dist/cli.mjs"]) {
    if (!fs.existsSync(path.join(PKG_DIR, f))) throw new Error(`no built package (${path.join(PKG_DIR, f)} is missing): run \`npm run build\` first`);
  }
}

/**
 * Pack pkg/ and install the tarball into a fresh project. Returns
 * `{ tarball, packDir, project, moduleDir, bin, engineUrl, engine(), pluginDir(), cleanup() }`:
 * `bin` is the installed command's script (run it with `node`), `engineUrl` the resolved
 * `hookwise/engine` (for child processes), `engine()` imports it here, `pluginDir()` unpacks the
 * tarball into a plugin folder as OpenClaw would load it.
 */
export function installPacked(prefix = "hookwise-sec-") {
  assertBuilt();
  const { packDir, packed } = packHookwise(prefix);
  made.add(packDir);
  const tarball = path.join(packDir, packed[0].filename);
  const project = path.join(packDir, "consumer");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "security-consumer", version: "1.0.0", private: true, type: "module" }));
  execFileSync("npm", ["install", "--ignore-scripts", "--offline", "--no-audit", "--no-fund", "--cache", path.join(packDir, "npm-cache"), tarball], {
    cwd: project,
    env: npmEnv,
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
  });
  installNative(path.join(project, "node_modules")); // the confined shell's launcher (issue 38)
  const moduleDir = path.join(project, "node_modules", "hookwise");
  const manifest = JSON.parse(fs.readFileSync(path.join(moduleDir, "package.json"), "utf8"));
  const bin = path.join(moduleDir, typeof manifest.bin === "string" ? manifest.bin : manifest.bin.hookwise);
  const require = createRequire(path.join(project, "index.js"));
  // The ESM entry of hookwise/engine as a consumer's `import` resolves it.
  const engineFile = path.join(moduleDir, manifest.exports["./engine"].import.default);
  const engineUrl = pathToFileURL(engineFile).href;
  let plugin = null;
  return {
    tarball,
    packDir,
    project,
    moduleDir,
    bin,
    engineUrl,
    engineCjs: require.resolve("hookwise/engine"),
    engine: () => import(engineUrl),
    pluginDir() {
      if (!plugin) {
        const into = path.join(packDir, "unpacked");
        fs.mkdirSync(into);
        execFileSync("tar", ["xzf", tarball, "-C", into]);
        plugin = path.join(into, "package");
      }
      return plugin;
    },
    cleanup() {
      made.delete(packDir);
      if (!process.env.HOOKWISE_E2E_KEEP) fs.rmSync(packDir, { recursive: true, force: true });
    },
  };
}

/**
 * Run the installed `hookwise` command: `{ code, signal, stdout, stderr, ms, timedOut }`.
 * `timeoutMs` is a generous bound so that a hang fails the test instead of the suite.
 */
export function runCommand(pkg, args, { cwd, env, timeoutMs = 60_000 } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [pkg.bin, ...args],
      { cwd: cwd ?? os.tmpdir(), env: env ?? npmEnv, encoding: "utf8", maxBuffer: 64 << 20, timeout: timeoutMs, killSignal: "SIGKILL" },
      (err, stdout, stderr) => {
        const timedOut = !!(err && err.killed && Date.now() - started >= timeoutMs - 50);
        resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, signal: err?.signal ?? null, stdout, stderr, ms: Date.now() - started, timedOut });
      },
    );
    child.stdin?.end();
  });
}

/** A clean environment for the command and the engine: no maenifold anywhere, no vault. */
export function quietEnv(extra = {}) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-sec-home-"));
  made.add(home);
  const PATH = pathWithoutMaenifold();
  return { PATH, HOME: home, MAENIFOLD_ROOT: path.join(home, "no-maenifold"), LANG: process.env.LANG ?? "C.UTF-8", TZ: "UTC", ...extra };
}

/** A temp folder removed at exit (unless HOOKWISE_E2E_KEEP). */
export function tmp(prefix = "hookwise-sec-") {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(d);
  return d;
}

/** Write files (relative path -> text or Buffer) into `dir`; returns `dir` (the JS tests' own). */
export { writeFiles } from "../../js/helpers.mjs";

/** Every file below `dir`, relative. */
export function walk(dir, rel = "") {
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walk(dir, p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

// Run the real OpenCode binary headless and offline against the scripted model
// in ./model.mjs. Node built-ins only. See ../README.md for what was checked.
//
//   const r = await runOpencode({
//     prompt: "run the thing",
//     plugins: [{ code: "export default { id: 'x', server: async () => ({}) }" }],
//     script: [{ tool: "bash", args: { command: "echo hi" } }, "done"],
//   });
//   r.code, r.mainRequests()[1].lastToolResult(), r.logs.find("some message")

import { installNative } from "../../e2e-shared/native.mjs";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startModel } from "./model.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository root (tests/e2e/lib/../../..). */
export const repoRoot = path.resolve(here, "..", "..", "..");

/** Every OPENCODE_DISABLE_* switch the offline runs set (those OpenCode 1.18 reads, checked against the real program). */
export const DISABLE_ENV = Object.freeze({
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_SHARE: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  OPENCODE_DISABLE_CLAUDE_CODE: "1",
  OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
});

// ---------------------------------------------------------------------------
// Locating the binary

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Where scripts/setup-clis.sh cached OpenCode (its `--where`), or null. */
function cachedBin() {
  try {
    const out = execFileSync("bash", [path.join(repoRoot, "scripts", "setup-clis.sh"), "--where", "opencode"], { encoding: "utf8" });
    return out.trim().split(" ").slice(1).join(" ") || null;
  } catch {
    return null;
  }
}

/** `OPENCODE_BIN`, else the pinned CLI scripts/setup-clis.sh caches, else `<repo root>/node_modules/.bin/opencode`
 * (where it was a dev dependency before); null when none is executable. */
export function opencodeBin() {
  const fromEnv = process.env.OPENCODE_BIN;
  if (fromEnv) return isExecutable(fromEnv) ? fromEnv : null;
  const cached = cachedBin();
  if (cached && isExecutable(cached)) return cached;
  const local = path.join(repoRoot, "node_modules", ".bin", "opencode");
  return isExecutable(local) ? local : null;
}

function missingBinMessage() {
  const fromEnv = process.env.OPENCODE_BIN;
  return fromEnv
    ? `OPENCODE_BIN=${fromEnv} is not an executable file`
    : "OpenCode not found: set OPENCODE_BIN or run `bash scripts/setup-clis.sh opencode` (the pinned opencode-ai, cached outside the repository)";
}

/**
 * Decide whether e2e tests can run. Returns `{ bin, skip }`: `skip` is a reason
 * string when the binary is missing and `CI` is unset (tests should skip), and
 * false otherwise. Under `CI` a missing binary never skips: `runOpencode` then
 * throws, so the tests fail loudly.
 */
export function e2eGate() {
  const bin = opencodeBin();
  if (bin) return { bin, skip: false };
  const msg = missingBinMessage();
  if (process.env.CI) return { bin: null, skip: false, error: msg };
  return { bin: null, skip: `skipped: ${msg}` };
}

// ---------------------------------------------------------------------------
// Process and temp-dir bookkeeping

const liveChildren = new Set();
const tempDirs = new Set();
const keepTemp = !!process.env.HOOKWISE_E2E_KEEP;

function killGroup(child, signal = "SIGKILL") {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/**
 * Kill every process still carrying this sandbox's marker variable in its
 * environment. OpenCode's bash tool starts commands in their OWN process group
 * (so killing OpenCode's group misses them) and does not kill them when it is
 * terminated; they inherit the environment though, so the marker finds exactly
 * the processes this sandbox started, even after they were re-parented.
 * Linux only (/proc); elsewhere a no-op. Returns the pids signalled.
 */
export function sweepSandboxProcesses(marker) {
  const needle = Buffer.from(`${SANDBOX_MARKER}=${marker}\0`);
  const killed = [];
  let pids = [];
  try {
    pids = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return killed;
  }
  for (const pid of pids) {
    if (pid === process.pid) continue;
    let env;
    try {
      env = fs.readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue;
    }
    if (env.indexOf(needle) === -1) continue;
    try {
      process.kill(pid, "SIGKILL");
      killed.push(pid);
    } catch {
      /* gone */
    }
  }
  return killed;
}

const SANDBOX_MARKER = "HOOKWISE_E2E_SANDBOX";

/** True while `pid` exists and is not a zombie (Linux: /proc state; else kill 0). */
export function processAlive(pid) {
  if (fs.existsSync("/proc/self")) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      return state !== "Z" && state !== "X";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Wait (up to `ms`) until none of `pids` is alive. */
async function waitGone(pids, ms = 3000) {
  const end = Date.now() + ms;
  while (pids.some(processAlive) && Date.now() < end) await new Promise((ok) => setTimeout(ok, 50));
}

process.on("exit", () => {
  for (const c of liveChildren) killGroup(c);
  for (const d of tempDirs) sweepSandboxProcesses(d);
  if (!keepTemp) for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.once(sig, () => {
    for (const c of liveChildren) killGroup(c);
    process.exit(128 + (sig === "SIGINT" ? 2 : 15));
  });
}

function mkTemp(prefix) {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(d);
  return d;
}

// ---------------------------------------------------------------------------
// Logs

/** Parse one logfmt line (`key=value key="quoted value"`) into an object. */
export function parseLogLine(line) {
  const out = {};
  const re = /([A-Za-z0-9_.\-]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
  let m;
  while ((m = re.exec(line))) {
    let v = m[2];
    if (v.startsWith('"')) {
      try {
        v = JSON.parse(v);
      } catch {
        v = v.slice(1, -1);
      }
    }
    out[m[1]] = v;
  }
  return out;
}

/** Matches one OpenCode log line (logfmt, starting with `timestamp=`). */
const LOG_LINE = /^timestamp=\S+ level=[A-Z]+ /;

/**
 * A query view over OpenCode log lines. Each line is logfmt:
 * `timestamp=… level=INFO run=… message="…" k=v …`.
 * `client.app.log({ body: { service, level, message, extra } })` from a plugin
 * becomes one such line with `message` and each `extra` key (objects are not
 * flattened: pass strings). OpenCode 1.18.33 DROPS `service`: put it in
 * `extra` too to make lines findable by service. `debug` lines need
 * `--log-level DEBUG` (the harness default).
 */
export function logView(lines, meta = {}) {
  const entries = lines.filter((l) => LOG_LINE.test(l)).map((raw) => ({ ...parseLogLine(raw), raw }));
  const matches = (e, q) => {
    if (typeof q === "string") return e.raw.includes(q);
    if (q instanceof RegExp) return q.test(e.raw);
    if (typeof q === "function") return q(e);
    return Object.entries(q).every(([k, v]) => (v instanceof RegExp ? v.test(String(e[k] ?? "")) : e[k] === v));
  };
  return {
    ...meta,
    lines: entries.map((e) => e.raw),
    entries,
    text: entries.map((e) => e.raw + "\n").join(""),
    /** Entries matching a substring, RegExp, predicate, or `{ key: value|RegExp }`. */
    filter: (q) => entries.filter((e) => matches(e, q)),
    find: (q) => entries.find((e) => matches(e, q)),
    /** Entries written with `extra.service === name` (see note above). */
    service: (name) => entries.filter((e) => e.service === name),
    errors: () => entries.filter((e) => e.level === "ERROR"),
    /** `failed to load plugin` lines (path plugins whose module did not load). */
    pluginFailures: () =>
      entries.filter((e) => /failed to load (internal )?plugin|plugin config hook failed/.test(e.message ?? "")),
  };
}

/**
 * OpenCode's own log files: `$XDG_DATA_HOME/opencode/log/*.log` (1.18.33 writes
 * one `opencode.log`). CAUTION: `opencode run` exits without flushing this
 * file, so the last ~1-2 s of lines (often everything after the first tool
 * call) are missing. Runs therefore pass `--print-logs` and read stderr; this
 * reader is kept for inspection.
 */
export function readLogFiles(dataHome) {
  const dir = path.join(dataHome, "opencode", "log");
  let files = [];
  try {
    files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".log"))
      .sort()
      .map((f) => path.join(dir, f));
  } catch {
    /* no logs yet */
  }
  const text = files.map((f) => fs.readFileSync(f, "utf8")).join("");
  return logView(text.split("\n"), { source: "files", dir, files });
}

// ---------------------------------------------------------------------------
// Plugins

function specFromPath(p) {
  if (p.startsWith("file://")) return p;
  return pathToFileURL(path.resolve(p)).href;
}

function isPathSpec(s) {
  return s.startsWith("file://") || s.startsWith(".") || path.isAbsolute(s);
}

function packageJsonOfTarball(tarball) {
  const out = execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" });
  return JSON.parse(out);
}

function npmInstall(prefix, tarball, env, offline = true) {
  fs.mkdirSync(prefix, { recursive: true });
  if (!fs.existsSync(path.join(prefix, "package.json"))) fs.writeFileSync(path.join(prefix, "package.json"), "{}\n");
  try {
    execFileSync(
      "npm",
      ["install", "--ignore-scripts", offline ? "--offline" : "--prefer-offline", "--no-audit", "--no-fund", "--prefix", prefix, tarball],
      { env: offline ? env : { ...env, npm_config_offline: "false" }, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" },
    );
  } catch (err) {
    throw new Error(`npm install ${tarball} into ${prefix} failed:\n${err.stderr ?? err.message}`);
  }
  installNative(path.join(prefix, "node_modules")); // the confined shell's launcher (issue 38)
}

/**
 * Turn one `plugins` entry into an opencode.json `plugin` item, preparing files
 * as needed. Entry forms:
 *   "name" | "name@1.2.3"                 npm spec, passed through (must resolve offline)
 *   "/abs/p.mjs" | "./rel" | "file:///…"  path spec (absolute/relative paths become file:// URLs)
 *   [spec, options]                       tuple form, passed through with the spec mapped as above
 *   { file, options? }                    a plugin module on disk
 *   { code, name?, options? }             module source, written to <sandbox>/plugins/<name>
 *   { tarball, options?, install?, spec?, npmOffline? } an `npm pack` tarball, see `install` modes in README
 *       (npmOffline: false lets the harness's own npm install fetch the package's dependencies
 *       from the registry; OpenCode itself always stays offline):
 *       "cache"   (default) pre-install into OpenCode's own plugin cache, config says the bare name
 *       "opencode" config says "<name>@file:<tarball>": OpenCode installs it itself (scripts disabled)
 *       "project" npm-install into <project>/node_modules, config says file://<that package dir>
 */
function preparePlugin(entry, sb, defaultOptions) {
  let spec;
  let options;
  if (typeof entry === "string") {
    spec = isPathSpec(entry) ? specFromPath(entry) : entry;
  } else if (Array.isArray(entry)) {
    spec = isPathSpec(entry[0]) ? specFromPath(entry[0]) : entry[0];
    options = entry[1];
  } else if (entry && typeof entry === "object") {
    options = entry.options;
    if (entry.file) {
      spec = specFromPath(entry.file);
    } else if (entry.code !== undefined) {
      const dir = path.join(sb.root, "plugins");
      fs.mkdirSync(dir, { recursive: true });
      const name = entry.name ?? `plugin-${sb.pluginSeq++}.mjs`;
      const file = path.join(dir, name);
      fs.writeFileSync(file, entry.code);
      spec = pathToFileURL(file).href;
    } else if (entry.tarball) {
      const tarball = path.resolve(entry.tarball);
      const pkg = packageJsonOfTarball(tarball);
      const mode = entry.install ?? "cache";
      if (mode === "cache") {
        // OpenCode resolves an npm spec S as <cache>/packages/<S'>/node_modules/<name>,
        // S' = "<name>@latest" for a bare name, else S itself; if that package dir
        // exists it loads it without touching the network.
        spec = entry.spec ?? pkg.name;
        const key = spec === pkg.name ? `${pkg.name}@latest` : spec;
        npmInstall(path.join(sb.cacheHome, "opencode", "packages", key), tarball, sb.npmEnv, entry.npmOffline !== false);
      } else if (mode === "opencode") {
        spec = `${pkg.name}@file:${tarball}`;
      } else if (mode === "project") {
        npmInstall(sb.dir, tarball, sb.npmEnv, entry.npmOffline !== false);
        spec = pathToFileURL(path.join(sb.dir, "node_modules", pkg.name)).href;
      } else {
        throw new Error(`unknown tarball install mode ${mode}`);
      }
      sb.installed.push({ name: pkg.name, version: pkg.version, mode, spec, tarball });
    } else {
      throw new Error(`plugin entry needs file, code or tarball: ${JSON.stringify(entry)}`);
    }
  } else {
    throw new Error(`bad plugin entry ${entry}`);
  }
  options ??= defaultOptions;
  return options === undefined ? spec : [spec, options];
}

// ---------------------------------------------------------------------------
// Sandbox: temp project + temp HOME/XDG dirs + opencode.json

function mergeConfig(base, extra) {
  const out = { ...base };
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v && typeof v === "object" && !Array.isArray(v) && base[k] && typeof base[k] === "object" && !Array.isArray(base[k])) {
      out[k] = mergeConfig(base[k], v);
    } else {
      out[k] = v;
    }
  }
  return out;
}

function gitEnv(env) {
  return {
    ...env,
    GIT_AUTHOR_NAME: "e2e",
    GIT_AUTHOR_EMAIL: "e2e@example.invalid",
    GIT_COMMITTER_NAME: "e2e",
    GIT_COMMITTER_EMAIL: "e2e@example.invalid",
    GIT_CONFIG_NOSYSTEM: "1",
  };
}

/**
 * Make an isolated sandbox. Options:
 *   plugins?: entries (see preparePlugin), pluginOptions?: options for entries that give none,
 *   files?: { "rel/path": "content" } written into the project,
 *   git?: boolean (git init + initial commit of `files`),
 *   config?: object deep-merged into the generated opencode.json,
 *   env?: extra environment for OpenCode (wins over the defaults),
 *   bin?: OpenCode binary (default opencodeBin()).
 * Returns { root, dir, home, dataHome, cacheHome, configHome, env, config, installed,
 *           writeConfig(modelBaseURL), logFiles(), run(opts), cleanup() }.
 */
export function makeSandbox(opts = {}) {
  const root = mkTemp("hookwise-e2e-");
  const dir = path.join(root, "project");
  const home = path.join(root, "home");
  const sb = {
    root,
    dir,
    home,
    configHome: path.join(home, ".config"),
    dataHome: path.join(home, ".local", "share"),
    cacheHome: path.join(home, ".cache"),
    stateHome: path.join(home, ".local", "state"),
    pluginSeq: 0,
    installed: [],
  };
  for (const d of [dir, sb.configHome, sb.dataHome, sb.cacheHome, sb.stateHome]) fs.mkdirSync(d, { recursive: true });

  const base = {};
  for (const k of ["PATH", "LANG", "LC_ALL", "TZ", "SHELL", "TERM"]) if (process.env[k]) base[k] = process.env[k];
  sb.env = {
    ...base,
    HOME: home,
    USERPROFILE: home,
    TMPDIR: path.join(root, "tmp"),
    XDG_CONFIG_HOME: sb.configHome,
    XDG_DATA_HOME: sb.dataHome,
    XDG_CACHE_HOME: sb.cacheHome,
    XDG_STATE_HOME: sb.stateHome,
    ...DISABLE_ENV,
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    NO_COLOR: "1",
    ...(opts.env ?? {}),
    [SANDBOX_MARKER]: root,
  };
  fs.mkdirSync(sb.env.TMPDIR, { recursive: true });
  sb.npmEnv = { ...sb.env, npm_config_cache: path.join(root, "npm-cache"), npm_config_loglevel: "error" };

  for (const [rel, content] of Object.entries(opts.files ?? {})) {
    const f = path.join(dir, rel);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, content);
  }
  if (opts.git) {
    const genv = gitEnv(sb.env);
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir, env: genv });
    execFileSync("git", ["add", "-A"], { cwd: dir, env: genv });
    execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "initial"], { cwd: dir, env: genv });
  }

  const pluginSpecs = (opts.plugins ?? []).map((p) => preparePlugin(p, sb, opts.pluginOptions));

  sb.writeConfig = (baseURL) => {
    const config = mergeConfig(
      {
        autoupdate: false,
        share: "disabled",
        model: "mock/mock-1",
        small_model: "mock/mock-1",
        enabled_providers: ["mock"],
        permission: { "*": "allow" },
        plugin: pluginSpecs,
        provider: {
          mock: {
            npm: "@ai-sdk/openai-compatible",
            name: "Scripted mock",
            options: { baseURL, apiKey: "x" },
            models: { "mock-1": { name: "mock-1", tool_call: true, limit: { context: 200000, output: 4096 } } },
          },
        },
      },
      opts.config,
    );
    fs.writeFileSync(path.join(dir, "opencode.json"), JSON.stringify(config, null, 2) + "\n");
    sb.config = config;
    return config;
  };
  sb.bin = opts.bin ?? opencodeBin();
  sb.logFiles = () => readLogFiles(sb.dataHome);
  sb.run = (runOpts) => runInSandbox(sb, runOpts);
  sb.cleanup = () => {
    sweepSandboxProcesses(root);
    tempDirs.delete(root);
    if (!keepTemp) fs.rmSync(root, { recursive: true, force: true });
  };
  return sb;
}

// ---------------------------------------------------------------------------
// Running

/** Parse `--format json` stdout: one JSON event per line. */
export function parseEvents(stdout) {
  const events = [];
  for (const line of stdout.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      events.push(JSON.parse(t));
    } catch {
      /* not an event line */
    }
  }
  return events;
}

/**
 * Run `opencode run` once in a sandbox. Options:
 *   prompt: string, script?: model script (a fresh model server is started and closed),
 *   model?: an already started model (from startModel) to use instead of `script`,
 *   modelOptions?: options for startModel (title, summary, fallback),
 *   args?: extra CLI args (e.g. ["--continue"]), format?: "json" (default) | "default",
 *   logLevel?: "DEBUG" (default) | "INFO" | "WARN" | "ERROR", timeoutMs?: default 60000,
 *   printLogs?: true (default: `--print-logs`, logs parsed from stderr) | false (read the log file).
 */
async function runInSandbox(sb, opts = {}) {
  if (!sb.bin) throw new Error(missingBinMessage());
  const own = !opts.model;
  const model = opts.model ?? (await startModel(opts.script ?? [], opts.modelOptions ?? {}));
  sb.writeConfig(model.baseURL);
  const format = opts.format ?? "json";
  const args = [
    "run",
    "--model",
    // the config's model (opts.config may name another mock model, e.g. a "gpt-" one that
    // OpenCode offers apply_patch to)
    sb.config?.model ?? "mock/mock-1",
    "--log-level",
    opts.logLevel ?? "DEBUG",
    ...(opts.printLogs === false ? [] : ["--print-logs"]),
    ...(format === "json" ? ["--format", "json"] : []),
    ...(opts.args ?? []),
    ...(opts.prompt !== undefined ? [opts.prompt] : []),
  ];
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const started = Date.now();
  const child = spawn(sb.bin, args, {
    cwd: opts.cwd ?? sb.dir,
    env: sb.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // own process group, so a timeout kills OpenCode and its shells
  });
  liveChildren.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  let timedOut = false;
  const strays = [];
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child, "SIGKILL");
    strays.push(...sweepSandboxProcesses(sb.root));
  }, timeoutMs);
  const { code, signal } = await new Promise((resolve) => {
    child.once("error", (err) => {
      stderr += `\n[harness] spawn failed: ${err.message}`;
      resolve({ code: null, signal: null });
    });
    child.once("close", (c, s) => resolve({ code: c, signal: s }));
  });
  clearTimeout(timer);
  // Whatever is left (tool shells run in their own process groups) goes too.
  killGroup(child, "SIGKILL");
  strays.push(...sweepSandboxProcesses(sb.root));
  await waitGone([child.pid, ...strays]);
  liveChildren.delete(child);
  const durationMs = Date.now() - started;
  if (own) await model.close();

  const events = format === "json" ? parseEvents(stdout) : [];
  const logs =
    opts.printLogs === false
      ? sb.logFiles()
      : logView(stderr.split("\n"), { source: "stderr", dir: path.join(sb.dataHome, "opencode", "log") });
  const result = {
    code,
    signal,
    timedOut,
    pid: child.pid,
    /** Processes of this run still alive after OpenCode exited (killed by the harness). */
    strays,
    durationMs,
    stdout,
    stderr,
    args,
    dir: sb.dir,
    sandbox: sb,
    model,
    events,
    logs,
    /** Every request the model got, with accessors (see model.mjs). */
    requests: () => model.requests(),
    mainRequests: () => model.mainRequests(),
    /** `tool_use` parts from the JSON event stream: { tool, callID, status, input, output, error, ... }. */
    toolUses: () =>
      events
        .filter((e) => e.type === "tool_use" && e.part)
        .map((e) => ({ tool: e.part.tool, callID: e.part.callID, ...e.part.state })),
    /** All assistant text parts, joined. */
    text: () =>
      events
        .filter((e) => e.type === "text" && e.part?.text)
        .map((e) => e.part.text)
        .join(""),
    sessionID: events.find((e) => e.sessionID)?.sessionID,
  };
  result.describe = () => describeRun(result);
  return result;
}

/** A compact diagnostic string for assertion messages. */
export function describeRun(r) {
  const reqs = r.requests().map((q) => q.kind + (q.kind === "main" ? `#${q.mainIndex}` : "")).join(", ");
  return [
    `opencode exited code=${r.code} signal=${r.signal} timedOut=${r.timedOut} after ${r.durationMs} ms`,
    `args: ${JSON.stringify(r.args)}`,
    `model requests: ${reqs || "(none)"}`,
    `stderr (tail): ${r.stderr.slice(-1500)}`,
    `log errors: ${r.logs.errors().map((e) => e.raw.slice(0, 400)).join("\n") || "(none)"}`,
  ].join("\n");
}

/**
 * Throw with diagnostics unless the run exited 0 without timing out, no path
 * plugin failed to load, and every tarball plugin OpenCode had to install
 * itself ("opencode" mode) is installed. (OpenCode reports npm install
 * failures only as a bus event: no log line, exit code 0.)
 */
export function assertRunOk(r) {
  const problems = [];
  if (r.code !== 0 || r.timedOut) problems.push("bad exit");
  for (const f of r.logs.pluginFailures()) problems.push(`plugin failure: ${f.raw.slice(0, 300)}`);
  for (const i of r.sandbox.installed) {
    if (i.mode !== "opencode") continue;
    const dir = path.join(r.sandbox.cacheHome, "opencode", "packages", i.spec, "node_modules", i.name);
    if (!fs.existsSync(dir)) problems.push(`OpenCode did not install ${i.spec} (no ${dir})`);
  }
  if (problems.length) throw new Error(`OpenCode run failed: ${problems.join("; ")}\n${describeRun(r)}`);
  return r;
}

/**
 * One-shot: sandbox + model + `opencode run`. Takes makeSandbox options and run
 * options together. Returns the run result (see runInSandbox) plus `cleanup()`.
 * The sandbox stays on disk (so tests can inspect `r.dir`) until `cleanup()` or
 * process exit; set HOOKWISE_E2E_KEEP=1 to keep it after exit for debugging.
 */
export async function runOpencode(opts = {}) {
  const gate = e2eGate();
  const bin = opts.bin ?? gate.bin;
  if (!bin) throw new Error(gate.error ?? missingBinMessage());
  const sb = makeSandbox({ ...opts, bin });
  const r = await sb.run(opts);
  r.cleanup = sb.cleanup;
  return r;
}

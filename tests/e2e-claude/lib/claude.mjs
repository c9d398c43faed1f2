// Runs the real Claude Code CLI (`claude -p`) offline, in a throwaway project and home, against the
// scripted Messages API of ./api.mjs, and watches every process it starts.
//
// The recipe follows what was checked against Claude Code 2.1.330: an env built from scratch (PATH,
// HOME and XDG_* inside the sandbox, TMPDIR = CLAUDE_CODE_TMPDIR, ANTHROPIC_BASE_URL + an API key,
// the auto-updater / telemetry / error reporting / non-essential traffic switched off); in `-p`
// mode the trust dialog is skipped, the project's `.claude/settings.json` hooks fire and the
// project's `.mcp.json` servers start with no approval; follow-up turns use `--resume <session>`.
//
// const sb = makeSandbox({ files?, env?, git? });
// await sb.installHookwise(tarball)            // npm install --offline the packed package, then
//                                              // `hookwise init --claude` in the project
// const r = await sb.run({ prompt, script | api, sessionId?, resume?, args?, timeoutMs? });
// r.code, r.json (the `--output-format json` result), r.requests(), r.mainRequests(),
// r.summaryRequests(), r.procs (every sandbox process seen while it ran), r.leftovers,
// r.debugLog(), r.describe(); sb.cleanup()
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startApi } from "./api.mjs";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const CLAUDE_VERSION = "2.1.330";

/** The pinned CLI: $CLAUDE_BIN, else where scripts/setup-claude.sh installs it. */
export function claudeBin() {
  if (process.env.CLAUDE_BIN) return process.env.CLAUDE_BIN;
  const root = process.env.HOOKWISE_CLAUDE_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "hookwise-claude");
  return path.join(root, `claude-code-${CLAUDE_VERSION}`, "node_modules", ".bin", "claude");
}

/** `{ bin, skip, error }`: skip without the CLI, except under CI where its absence is an error. */
export function e2eGate() {
  const bin = claudeBin();
  if (fs.existsSync(bin)) {
    let version = "";
    try {
      version = execFileSync(bin, ["--version"], { encoding: "utf8", timeout: 20_000 }).trim();
    } catch (e) {
      return { bin, error: `${bin} --version failed: ${e.message}` };
    }
    if (!version.startsWith(`${CLAUDE_VERSION} `)) return { bin, error: `${bin} is ${version}, the suite pins ${CLAUDE_VERSION}` };
    return { bin, version };
  }
  const msg = `no Claude Code at ${bin} (run scripts/setup-claude.sh, or set CLAUDE_BIN)`;
  return process.env.CI ? { bin, error: msg } : { bin, skip: msg };
}

export { sandboxProcesses, isHookwiseMcp, processAlive } from "../../e2e-shared/procs.mjs";
import { isHookwiseMcp, runWatched } from "../../e2e-shared/procs.mjs";
import { makeSandbox as makeSharedSandbox } from "../../e2e-shared/sandbox.mjs";

// ---------------------------------------------------------------------------------------------

/** A sandbox (../../e2e-shared/sandbox.mjs) with Claude Code's env: its tmp dir, an API key, the
 * auto-updater, telemetry, error reporting and non-essential traffic off. */
export function makeSandbox({ files = {}, env = {}, git = false, name = "hookwise-e2e-claude-" } = {}) {
  const sb = makeSharedSandbox({ files, git, name, env: { DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", DISABLE_ERROR_REPORTING: "1", ANTHROPIC_API_KEY: "sk-test", ...env } });
  sb.env.CLAUDE_CODE_TMPDIR ??= sb.tmp;
  const install = sb.installHookwise;
  /** Install the packed hookwise into the project (offline, no scripts) and run `hookwise init --claude`. */
  sb.installHookwise = (tarball, { init = true, initArgs = [] } = {}) => install(tarball, { initArgs: init ? ["--claude", ...initArgs] : null });
  sb.run = (opts) => runClaude(sb, opts);
  return sb;
}

let runSeq = 0;

/** One `claude -p` run in the sandbox. Owns its API server unless `api` is given. */
async function runClaude(sb, { prompt, script = [], api, apiOptions = {}, sessionId, resume, args = [], allowedTools = "Bash Write Edit Read", env = {}, timeoutMs = 90_000, cwd = sb.dir } = {}) {
  const bin = claudeBin();
  const ownApi = !api;
  api ??= await startApi(script, apiOptions);
  const seq = runSeq++;
  const debugFile = path.join(sb.root, `claude-debug-${seq}.log`);
  const id = resume ?? sessionId ?? crypto.randomUUID();
  const argv = ["-p", prompt, "--output-format", "json", ...(resume ? ["--resume", resume] : ["--session-id", id]), "--debug-file", debugFile];
  if (allowedTools) argv.push("--allowedTools", allowedTools);
  argv.push(...args);
  const firstRequest = api.requests().length;
  const run = await runWatched(sb.root, bin, argv, { cwd, env: { ...sb.env, ANTHROPIC_BASE_URL: api.baseURL, ...env }, timeoutMs });
  const { code, signal, timedOut, durationMs, stdout, stderr, leftovers } = run;
  const requests = () => api.requests().slice(firstRequest);
  let json = null;
  try {
    json = JSON.parse(stdout.trim().split("\n").pop());
  } catch {}
  const r = {
    code,
    signal,
    timedOut,
    durationMs,
    stdout,
    stderr,
    json,
    sessionId: json?.session_id ?? id,
    argv,
    api,
    procs: run.procs,
    mcpServers: () => run.procs.filter(isHookwiseMcp),
    leftovers,
    claudePid: run.pid,
    requests,
    mainRequests: () => requests().filter((q) => q.kind === "main"),
    summaryRequests: () => requests().filter((q) => q.kind === "summary"),
    debugLog: () => (fs.existsSync(debugFile) ? fs.readFileSync(debugFile, "utf8") : ""),
    /** The first request that carries the tool_result of `toolUseId`, and that result. */
    afterTool(toolUseId) {
      for (const req of requests()) {
        const res = req.toolResults().find((t) => t.toolUseId === toolUseId);
        if (res) return { req, result: res };
      }
      return null;
    },
    describe() {
      const reqs = requests()
        .map((q) => `  #${q.seq} ${q.kind}: last user turn ${JSON.stringify(q.lastUserText().slice(-400))}\n    system msgs: ${JSON.stringify(q.systemMessages().map((s) => s.slice(0, 300)))}`)
        .join("\n");
      const dbg = r
        .debugLog()
        .split("\n")
        .filter((l) => /[Hh]ook|mcp|MCP|error|Error/.test(l) && !/hooks module|Registered \d+ hooks/.test(l))
        .map((l) => (l.length > 400 ? l.slice(0, 400) + "…" : l))
        .slice(-25)
        .join("\n");
      return `claude exit ${code}${signal ? ` (${signal})` : ""}${timedOut ? " TIMED OUT" : ""} in ${durationMs} ms\nargv: ${JSON.stringify(argv)}\nstdout: ${stdout.slice(0, 1500)}\nstderr: ${stderr.slice(0, 1500)}\nrequests:\n${reqs}\napi errors: ${JSON.stringify(api.errors())}\nprocs: ${JSON.stringify(r.procs.map((p) => [p.pid, p.ppid, p.cmdline.join(" ").slice(0, 120)]))}\ndebug (hook/mcp lines):\n${dbg}`;
    },
  };
  if (ownApi) await api.close();
  return r;
}

export function assertRunOk(assert, r) {
  assert.equal(r.timedOut, false, `claude timed out\n${r.describe()}`);
  assert.equal(r.code, 0, `claude failed\n${r.describe()}`);
  assert.ok(r.json, `no JSON result on stdout\n${r.describe()}`);
  assert.deepEqual(r.api.errors(), [], `the scripted API saw errors\n${r.describe()}`);
}

// Shared by the JS tests: where the built package is, temp dirs, a recording OpenCode client.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { installNative } from "../e2e-shared/native.mjs";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const dist = path.join(repo, "pkg/dist");
// the confined shell's launcher where the built package finds it (pkg/node_modules, a nested
// install): every governed or enforced shell runs confined (issue 38)
if (fs.existsSync(dist)) installNative(path.join(repo, "pkg/node_modules"));
/** The command a confined shell line runs (issue 38: `'<hookwise-native>' sandbox … -- "${BASH:-/bin/sh}" -c '<command>'`),
 * or the line itself when it is not one. */
export function unconfined(line) {
  const tail = ` -- "\${BASH:-/bin/sh}" -c '`;
  const i = typeof line === "string" && line.startsWith("'") ? line.indexOf(tail) : -1;
  if (i < 0 || !line.endsWith("'")) return line;
  return line.slice(i + tail.length, -1).replaceAll("'\\''", "'");
}
export const fakeMaenifold = path.join(repo, "tests/fake-maenifold/maenifold");
export const fakeRoot = path.join(repo, "tests/fake-maenifold/fixtures/root");
export const isBun = typeof globalThis.Bun !== "undefined";

/** Under Bun, the vault watcher's events arrive from another thread a millisecond or two after
 * a write: give them time before asking (Node sees them before the next question). */
export function settle() {
  return isBun ? new Promise((resolve) => setTimeout(resolve, 50)) : Promise.resolve();
}

/** The git force-push SOP (markdown, matching `git push --force` / `-f` on bash) with the
 * given preflight body and anything after it. */
export function forceSop(preflight, after = "") {
  return `---
id: git-force-push
category: process
match:
  tools: [bash]
  patterns: ['git\\s+push\\s.*(--force|-f\\b)']
---
# Force-pushing

## Preflight
${preflight}
${after}`;
}

/** active_intents.yaml of in-progress intents, each `[id, name, scope]` (scope: a list of globs). */
export function intentsYaml(...intents) {
  const entry = ([id, name, scope]) => `  - id: ${id}\n    name: ${name}\n    status: IN_PROGRESS\n    owned_scope: [${scope.map((g) => JSON.stringify(g)).join(", ")}]\n`;
  return `active_intents:\n${intents.map(entry).join("")}`;
}

export function tmpdir(prefix = "hookwise-test-") {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** An environment with no maenifold anywhere: empty PATH dir, HOME and MAENIFOLD_ROOT. */
export function noCliEnv(extra = {}) {
  return { PATH: tmpdir("hookwise-nopath-"), HOME: tmpdir("hookwise-home-"), MAENIFOLD_ROOT: tmpdir("hookwise-root-"), ...extra };
}

/** Write files (relative path -> text or Buffer) into `dir`. */
export function writeFiles(dir, files) {
  for (const [rel, body] of Object.entries(files)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, body);
  }
  return dir;
}

/** The node binary (when a test runs under Bun, process.execPath is Bun). */
export function nodeBinary() {
  if (!isBun) return process.execPath;
  for (const d of (process.env.PATH || "").split(":")) {
    const p = path.join(d, "node");
    if (d && fs.existsSync(p)) return fs.realpathSync(p);
  }
  throw new Error("node is not on PATH");
}

/** Whether process `pid` still runs. */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A directory with an executable `maenifold` that links to the fake. */
export function fakeBinDir() {
  const d = tmpdir("hookwise-bin-");
  fs.symlinkSync(fakeMaenifold, path.join(d, "maenifold"));
  return d;
}

/** Environment for the fake maenifold: a private copy of its data root (WriteMemory writes
 * into it) and an invocation log. */
export function fakeEnv(extra = {}) {
  const d = tmpdir("hookwise-fake-");
  const log = path.join(d, "calls.jsonl");
  const root = path.join(d, "root");
  fs.cpSync(fakeRoot, root, { recursive: true });
  return {
    root,
    env: { PATH: `${fakeBinDir()}:${process.env.PATH}`, HOME: d, MAENIFOLD_ROOT: root, FAKE_MAENIFOLD_LOG: log, ...extra },
    log,
    calls() {
      if (!fs.existsSync(log)) return [];
      return fs.readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
    },
  };
}

/** A stand-in for OpenCode's `client`, recording `app.log` calls. */
export function recordingClient() {
  const logs = [];
  return {
    logs,
    client: {
      app: {
        log: async ({ body }) => {
          logs.push(body);
          return true;
        },
      },
    },
  };
}

export async function loadPlugin() {
  return (await import(path.join(dist, "index.mjs"))).default;
}

/**
 * Write `writer.cjs` into `dir` and return its path: a process (`node writer.cjs <dir> <n>
 * <count>`) that is an engine of its own with session `proc-<n>`, selects INT-1 and writes
 * `src/p<n>.txt` `count` times through the pre and post hooks, the way a tool dispatcher drives
 * it; it prints `{recorded}`. `pre` and `post`: more fields of the hooks' arguments (JS source);
 * `makeSrc`: create `src/` before each write.
 */
/** `shared`: every process writes as one session (one trace segment, through its lock). */
export function traceWriter(dir, env, { pre = "", post = "", makeSrc = false, shared = false } = {}) {
  const child = path.join(dir, "writer.cjs");
  fs.writeFileSync(
    child,
    `const fs = require("node:fs");
const path = require("node:path");
const { createEngine } = require(${JSON.stringify(path.join(dist, "engine.cjs"))});
(async () => {
  const [dir, n, count] = [process.argv[2], process.argv[3], Number(process.argv[4])];
  const engine = await createEngine({ cwd: dir, env: ${JSON.stringify(env)} });
  const s = ${shared ? '"shared"' : '"proc-" + n'};
  if (!(await engine.selectIntent(s, "INT-1")).ok) throw new Error("select failed");
  let recorded = 0;
  for (let i = 0; i < count; i++) {
    const params = { path: "src/p" + n + ".txt", content: "process " + n + " record " + i + "\\n" };
    const pre = await engine.executePreHook({ toolName: "write_to_file", params, sessionId: s${pre} });
    if (pre.blocked) throw new Error(pre.reason);
${makeSrc ? '    fs.mkdirSync(path.join(dir, "src"), { recursive: true });\n' : ""}    fs.writeFileSync(path.join(dir, params.path), params.content);
    const post = await engine.executePostHook({ toolName: "write_to_file", params,${post} sessionId: s, callId: pre.callId });
    if (post.recorded) recorded++;
  }
  process.stdout.write(JSON.stringify({ recorded }));
})().catch((e) => { process.stderr.write(String(e && e.stack)); process.exit(1); });
`,
  );
  return child;
}

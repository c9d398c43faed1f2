// Hostile engine calls in a child process (lib/probe-child.mjs), so that a call that blocks
// the event loop for minutes (a wasm loop cannot be interrupted from inside) fails its test
// instead of stalling the suite. The bound is a generous wall-clock one, used only because
// nothing else can stop a stalled process; times are printed, never asserted.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tmp } from "./pkg.mjs";

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "probe-child.mjs");

/**
 * Run `cases` (see probe-child.mjs) in one child. Resolves `{ results: Map<name, result>,
 * stalled: name|null, timedOut, stderr, code }`: `stalled` names the case that was running
 * when the child was killed after `timeoutMs`.
 */
export function runProbe(pkg, cases, { timeoutMs = 120_000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHILD], { stdio: ["pipe", "pipe", "pipe"] });
    const results = new Map();
    let running = null;
    let buf = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.startsWith("START ")) running = line.slice(6);
        else if (line.startsWith("RESULT ")) {
          const r = JSON.parse(line.slice(7));
          results.set(r.name, r);
          running = null;
        }
      }
    });
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr = (stderr + d).slice(-20_000)));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ results, stalled: running, timedOut, stderr, code, signal });
    });
    // the cases' projects live in a folder removed at exit, even when the child is killed mid-case
    child.stdin.end(JSON.stringify({ engineUrl: pkg.engineUrl, workDir: tmp("hookwise-sec-probe-"), cases }));
  });
}

/** The result of `name`, or a failure message saying why there is none. */
export function resultOf(run, name, timeoutMs) {
  const r = run.results.get(name);
  if (r) return { r };
  if (run.stalled === name) return { why: `${name}: the engine call did not return within ${Math.round(timeoutMs / 1000)} s (the probe process was killed while it ran)` };
  if (run.timedOut) return { why: `${name}: never started: an earlier case (${run.stalled}) stalled the probe process until it was killed` };
  return { why: `${name}: no result; the probe process ended with code ${run.code} signal ${run.signal}\n${run.stderr.slice(-3000)}` };
}

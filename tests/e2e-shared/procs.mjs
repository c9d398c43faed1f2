// Processes of a real-host run: everything started inside a sandbox carries
// HOOKWISE_E2E_SANDBOX=<root> in its env, so a suite sees every process its host started
// (hooks, MCP servers, their children) while it runs and whatever outlives it.
import { spawn } from "node:child_process";
import fs from "node:fs";

export function readProc(pid) {
  try {
    const environ = fs.readFileSync(`/proc/${pid}/environ`, "latin1");
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid: Number(pid), ppid: Number(after[1]), state: after[0], environ, cmdline };
  } catch {
    return null;
  }
}

/** Live processes of the sandbox `root` (zombies left out): `[{ pid, ppid, cmdline }]`. */
export function sandboxProcesses(root) {
  const marker = `HOOKWISE_E2E_SANDBOX=${root}\0`;
  const out = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const p = readProc(name);
    if (p && p.state !== "Z" && p.environ.includes(marker)) out.push({ pid: p.pid, ppid: p.ppid, cmdline: p.cmdline });
  }
  return out;
}

/** The entry `hookwise init` writes for the MCP server (`sh -c 'h=node_modules/hookwise/dist/cli.mjs; …'`,
 * before it execs node), or hookwise 0.1's `node -e <launcher>`. */
const isLauncher = (p) =>
  (p.cmdline[1] === "-c" && (p.cmdline[2] ?? "").startsWith("h=node_modules/hookwise/dist/cli.mjs;")) ||
  (p.cmdline[1] === "-e" && (p.cmdline[2] ?? "").includes('"node_modules/hookwise/dist/cli.mjs"'));

/** Is this process a hookwise MCP server (`[node] …/hookwise mcp`, `node …/hookwise/dist/cli.mjs mcp`, or the launcher's `mcp`)? */
export const isHookwiseMcp = (p) => (isLauncher(p) || p.cmdline.some((a) => /(?:^|\/)hookwise$|\/hookwise\/dist\/cli\.mjs$/.test(a))) && p.cmdline.includes("mcp");


/** Is `pid` alive (and not a zombie)? */
export function processAlive(pid) {
  const p = readProc(pid);
  return !!p && p.state !== "Z";
}

/** Is this process hookwise's (its bin, or its dist/cli.mjs, whatever the subcommand)? */
export const isHookwise = (p) => isLauncher(p) || p.cmdline.some((a) => /(?:^|\/)hookwise$|\/hookwise\/dist\/[\w.-]+\.(?:m?c?js|sh)$|\/bin\/hookwise-native$/.test(a));

/**
 * Run a host's CLI (`cmd args`, detached: its own process group) and watch every process of the
 * sandbox `root` while it runs (polled every 20 ms; a pid first seen between fork and exec still
 * shows its parent's command line, so the latest is kept). After it exits, whatever of the
 * sandbox is still alive 2 s later is a leftover, and killed. A run past `timeoutMs` is killed
 * whole. Returns `{ code, signal, timedOut, durationMs, stdout, stderr, pid, procs, leftovers }`.
 */
export async function runWatched(root, cmd, args, { cwd, env, timeoutMs }) {
  const started = Date.now();
  const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const procs = new Map();
  const watch = () => {
    for (const p of sandboxProcesses(root)) procs.set(p.pid, { ...p, firstSeen: procs.get(p.pid)?.firstSeen ?? Date.now() - started });
  };
  const timer = setInterval(watch, 20);
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }, timeoutMs);
  const { code, signal } = await new Promise((resolve) => child.on("close", (c, s) => resolve({ code: c, signal: s })));
  clearTimeout(killer);
  clearInterval(timer);
  const durationMs = Date.now() - started;
  let leftovers = sandboxProcesses(root);
  for (let i = 0; i < 40 && leftovers.length; i++) {
    await new Promise((r) => setTimeout(r, 50));
    leftovers = sandboxProcesses(root);
  }
  for (const p of leftovers) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {}
  }
  return { code, signal, timedOut, durationMs, stdout, stderr, pid: child.pid, procs: [...procs.values()], leftovers };
}

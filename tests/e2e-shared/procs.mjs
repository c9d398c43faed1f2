// Processes of a real-host run: everything started inside a sandbox carries
// HOOKWISE_E2E_SANDBOX=<root> in its env, so a suite sees every process its host started
// (hooks, MCP servers, their children) while it runs and whatever outlives it.
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

/** Is this process a hookwise MCP server (`[node] …/hookwise mcp` or `node …/hookwise/dist/cli.mjs mcp`)? */
export const isHookwiseMcp = (p) => p.cmdline.some((a) => /(?:^|\/)hookwise$|\/hookwise\/dist\/cli\.mjs$/.test(a)) && p.cmdline.includes("mcp");


/** Is `pid` alive (and not a zombie)? */
export function processAlive(pid) {
  const p = readProc(pid);
  return !!p && p.state !== "Z";
}

/** Is this process hookwise's (its bin, or its dist/cli.mjs, whatever the subcommand)? */
export const isHookwise = (p) => p.cmdline.some((a) => /(?:^|\/)hookwise$|\/hookwise\/dist\/[\w.-]+\.m?c?js$/.test(a));

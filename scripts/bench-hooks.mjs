// A command hook's cost, every way hookwise answers one, in one run, side by side with the
// floor (`node -e 0`: starting Node and nothing else):
//   command, cold  — the hook entry `init` wrote, answering in its own process (HOOKWISE_WARM=0):
//                    Node, the wasm, the configuration and, with a vault, its whole index;
//   node warm      — the same entry without the native client (HOOKWISE_NATIVE=0): Node hands
//                    the payload to the project's warm server (js/warm-server.cjs); its first call
//                    finds none, starts it and answers cold; "ready after" is from that first call
//                    until a hook is answered warm; then the steady state;
//   native warm    — the same entry with the native client (crates/hookwise-native, built by
//                    `npm run build` into pkg/node_modules/@hookwise/cli-<platform>-<arch>):
//                    the shell, dist/hook.sh and the binary, no Node on the warm path;
//   mcp            — Claude Code's `mcp_tool` hook: a `tools/call` to `hookwise mcp` over its pipe;
//   http           — not offered (the line says why).
// Every command hook runs as a host runs it: `/bin/sh -c '<the entry init --claude --command
// wrote>'` in the project, CLAUDE_PROJECT_DIR set (Codex, Gemini CLI, Copilot CLI and Qwen Code
// run the same entry with another variable or none: the same script, the same cost).
// Three projects, each with intent governance (.orchestration/active_intents.yaml) and
// enforcement (an SOP) on: no vault, the example vault (examples/vault) and the NOTES-note
// bench vault (scripts/bench-vault-notes.mjs). PreToolUse is a Bash call naming a concept;
// PostToolUse the same call's result. Prints p50/p90; asserts nothing (the machine is shared).
//
//     node scripts/bench-hooks.mjs [NOTES]      (needs pkg/: npm run build)
//
// NOTES defaults to 10,000. ROUNDS (default 30) sets the warm, MCP and floor samples;
// COLD_ROUNDS (default 10; 3 with the big vault) the cold ones. KEEP=1 keeps the temp folder.
// The first hook after a cold boot of the machine: scripts/bench-cold-boot.sh (these projects).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { benchVault, relOf, DIRS } from "./bench-vault-notes.mjs";
import { lineClient, benchEnv } from "./bench-hook-lib.mjs";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "pkg/dist");
const cli = path.join(dist, "cli.mjs");
const N = Number(process.argv[2]) || 10_000;
const ROUNDS = Number(process.env.ROUNDS) || 30;
const COLD_ROUNDS = Number(process.env.COLD_ROUNDS) || 10;
if (!fs.existsSync(cli)) {
  console.error("no pkg/dist/cli.mjs: run `npm run build` first");
  process.exit(1);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-hooks-"));
const servers = [];
process.on("exit", () => {
  for (const s of servers) s.kill("SIGKILL");
  if (process.env.KEEP !== "1") fs.rmSync(tmp, { recursive: true, force: true });
});
const { baseEnv } = benchEnv(tmp);
// The entry a command hook runs (`/bin/sh -c '<it>'`), as `init` writes it.
const ENTRY = (event) => {
  const d = path.join(tmp, "init");
  fs.mkdirSync(path.join(d, ".git"), { recursive: true });
  spawnSync(process.execPath, [cli, "init", "--claude", "--command"], { cwd: d, env: baseEnv });
  return JSON.parse(fs.readFileSync(path.join(d, ".claude/settings.json"), "utf8")).hooks[event][0].hooks[0].command;
};
const ENTRIES = { PreToolUse: ENTRY("PreToolUse"), PostToolUse: ENTRY("PostToolUse") };
const NATIVE = (() => {
  const { binaryPath } = require(path.join(dist, "native.cjs"));
  return binaryPath(dist);
})();

// ---- the projects ---------------------------------------------------------------------------
const SOP = `---\nid: git-force-push\ncategory: process\nmatch:\n  tools: [Bash]\n  patterns: ['git\\s+push\\s.*(--force|-f\\b)']\n---\n# Force-pushing\n\n## Preflight\n- the branch is yours\n`;
function project(name, fill) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(path.join(dir, ".orchestration"), { recursive: true });
  fs.mkdirSync(path.join(dir, ".hookwise/sops"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".orchestration/active_intents.yaml"), 'active_intents:\n  - id: INT-1\n    name: Bench\n    status: IN_PROGRESS\n    owned_scope: ["src/**"]\n');
  fs.writeFileSync(path.join(dir, ".hookwise/sops/force.md"), SOP);
  if (fill) fill(path.join(dir, ".hookwise/knowledge"));
  fs.mkdirSync(path.join(dir, "node_modules"));
  fs.symlinkSync(path.join(root, "pkg"), path.join(dir, "node_modules/hookwise"));
  return dir;
}
let t0 = performance.now();
const { note, CONCEPTS } = benchVault();
const projects = [
  { label: "no vault", dir: project("plain"), concept: "auth", cold: COLD_ROUNDS },
  { label: "example vault", dir: project("example", (kb) => fs.cpSync(path.join(root, "examples/vault"), kb, { recursive: true })), concept: "Larkspur", cold: COLD_ROUNDS },
  {
    label: `${N.toLocaleString("en")}-note vault`,
    dir: project("big", (kb) => {
      for (const d of DIRS) fs.mkdirSync(path.join(kb, d), { recursive: true });
      for (let i = 0; i < N; i++) fs.writeFileSync(path.join(kb, relOf(i)), note(i, i % 500 === 0));
    }),
    concept: CONCEPTS[1500], // a concept of a few notes (the first ones are in thousands)
    cold: Math.min(3, Number(process.env.COLD_ROUNDS) || 3),
  },
];
console.log(`hookwise command-hook benchmark (node ${process.versions.node}, ${os.cpus().length} cpus, load ${os.loadavg()[0].toFixed(1)}); ${N} notes written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

// ---- the payloads (Claude Code's shape; Codex, Qwen and Copilot send the same fields) ---------
let seq = 0;
// PreToolUse: a Grep for a concept (read-only: the gate lets it through, enforcement looks at
// it, the knowledge block answers); PostToolUse: a Bash call's result (the gate blocked its
// PreToolUse: no intent is selected in a command-hook session).
function payload(p, event) {
  const id = `toolu_${++seq}`;
  const base = { session_id: "bench", transcript_path: "", cwd: p.dir, hook_event_name: event, tool_use_id: id };
  return event === "PostToolUse"
    ? { ...base, tool_name: "Bash", tool_input: { command: `echo [[${p.concept}]]`, description: "bench" }, tool_response: { stdout: p.concept, stderr: "", interrupted: false } }
    : { ...base, tool_name: "Grep", tool_input: { pattern: `[[${p.concept}]]` } };
}
/** CPU time (ms) of this process's finished children so far (Linux; 10 ms ticks): the hook
 * processes' own CPU, which the load of a shared machine does not inflate as it does wall time. */
function childCpuMs() {
  try {
    const f = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    return (Number(f[13]) + Number(f[14])) * 10; // cutime + cstime (fields 16, 17)
  } catch {
    return NaN;
  }
}
// Every process here gets the hooks' environment (baseEnv): one inherited from this shell
// (NODE_EXTRA_CA_CERTS, NODE_OPTIONS) would weigh on the floor and not on the hooks.
function nodeFloor() {
  const t = performance.now();
  spawnSync(process.execPath, ["-e", "0"], { env: baseEnv });
  return performance.now() - t;
}

// ---- the ways to answer -----------------------------------------------------------------------
function command(env, event, pl) {
  const t = performance.now();
  // as the host runs it: the entry `hookwise init --claude --command` writes, which finds the
  // project's node_modules/hookwise (a link to pkg/ here)
  const r = spawnSync("/bin/sh", ["-c", ENTRIES[event]], { cwd: pl.cwd, env: { ...env, CLAUDE_PROJECT_DIR: pl.cwd }, input: JSON.stringify(pl), encoding: "utf8" });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`hookwise hook ${event} exited ${r.status}: ${r.stderr}`);
  return { ms, text: r.stdout, warm: /answered warm/.test(r.stderr), native: /answered warm \(native\)/.test(r.stderr) };
}

async function mcpServer(p) {
  const child = spawn(process.execPath, [cli, "mcp"], { cwd: p.dir, env: baseEnv, stdio: ["pipe", "pipe", "inherit"] });
  servers.push(child);
  const ask = lineClient(child);
  await ask("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-hooks", version: "0" } });
  await ask("tools/list", {});
  return {
    async call(event, pl) {
      // what Claude Code templates: every value a string, tool_input as JSON text
      const args = Object.fromEntries(Object.entries(pl).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
      const t = performance.now();
      const r = await ask("tools/call", { name: event === "PreToolUse" ? "hook_pre_tool_use" : "hook_post_tool_use", arguments: args });
      return { ms: performance.now() - t, text: r.result?.content?.[0]?.text ?? "" };
    },
    close: () => new Promise((r) => (child.on("exit", r), child.stdin.end())),
  };
}

// PREPARE=FILE (scripts/bench-cold-boot.sh): write the projects, one a line — label, folder,
// HOME, PATH, a PreToolUse payload, tab-separated — keep them, and stop.
if (process.env.PREPARE) {
  const lines = projects.map((p) => [p.label, p.dir, baseEnv.HOME, baseEnv.PATH, JSON.stringify(payload(p, "PreToolUse"))].join("\t"));
  fs.writeFileSync(process.env.PREPARE, lines.join("\n") + "\n");
  process.env.KEEP = "1";
  process.exit(0);
}

// ---- figures ------------------------------------------------------------------------------------
const pct = (v, q) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round((s.length - 1) * q))];
};
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const rows = [];
let floor = 0;
function row(project, event, way, ms, note = "", own = null) {
  rows.push({ project, event, way, ms, note, own });
}

const floorMs = [];
let cpu0 = childCpuMs();
for (let i = 0; i < ROUNDS; i++) floorMs.push(nodeFloor());
floor = pct(floorMs, 0.5);
row("—", "—", "node -e 0", floorMs, `cpu ${fmt((childCpuMs() - cpu0) / ROUNDS)} ms a process`);
// the same floor as a file (what a hook runs: a script, not -e)
const empty = path.join(tmp, "empty.mjs");
fs.writeFileSync(empty, "");
const fileMs = [];
cpu0 = childCpuMs();
for (let i = 0; i < ROUNDS; i++) {
  const t = performance.now();
  spawnSync(process.execPath, [empty], { env: baseEnv });
  fileMs.push(performance.now() - t);
}
row("—", "—", "node empty.mjs", fileMs, `cpu ${fmt((childCpuMs() - cpu0) / ROUNDS)} ms a process`);

const samples = {};
for (const p of projects) {
  // cold: the hook's own process
  const coldEnv = { ...baseEnv, HOOKWISE_WARM: "0" };
  for (const event of ["PreToolUse", "PostToolUse"]) {
    const ms = [];
    const c0 = childCpuMs();
    for (let i = 0; i < p.cold; i++) {
      const r = command(coldEnv, event, payload(p, event));
      ms.push(r.ms);
      samples[`${p.label} ${event} cold`] ??= r.text;
    }
    row(p.label, event, "command, cold", ms, `cpu ${fmt((childCpuMs() - c0) / p.cold)} ms a hook`);
  }
  // warm: a runtime folder of its own, so no server is running yet; Node's client, then the
  // native one (each its own server: HOOKWISE_NATIVE is part of the key)
  for (const [way, extra] of [["node warm", { HOOKWISE_NATIVE: "0" }], ["native warm", {}]]) {
    if (way === "native warm" && !NATIVE) {
      row(p.label, "—", "native warm", [NaN], "no native binary for this platform in pkg/ (npm run build)");
      continue;
    }
    const run = fs.mkdtempSync(path.join(tmp, "run-"));
    const warmEnv = { ...baseEnv, XDG_RUNTIME_DIR: run, HOOKWISE_DEBUG: "1", ...extra };
    const answered = (r) => (way === "native warm" ? r.native : r.warm);
    t0 = performance.now();
    const first = command(warmEnv, "PreToolUse", payload(p, "PreToolUse"));
    let readyMs = null;
    let tries = 0;
    while (readyMs === null && performance.now() - t0 < 120_000) {
      const r = command(warmEnv, "PreToolUse", payload(p, "PreToolUse"));
      tries++;
      if (answered(r)) readyMs = performance.now() - t0;
    }
    row(p.label, "PreToolUse", `${way}: first call`, [first.ms], `starts the server and answers cold; warm answers from ${readyMs === null ? "never" : `${fmt(readyMs)} ms`} after it (${tries} hooks in between, cold)`);
    for (const event of ["PreToolUse", "PostToolUse"]) {
      // `node -e 0` interleaved with the hooks: the floor of the same minutes (the machine is shared)
      const ms = [];
      const own = [];
      let cold = 0;
      let cpuHook = 0;
      let cpuFloor = 0;
      for (let i = 0; i < ROUNDS; i++) {
        let c = childCpuMs();
        const r = command(warmEnv, event, payload(p, event));
        cpuHook += childCpuMs() - c;
        ms.push(r.ms);
        c = childCpuMs();
        own.push(nodeFloor());
        cpuFloor += childCpuMs() - c;
        if (!answered(r)) cold++;
        samples[`${p.label} ${event} ${way}`] ??= r.text;
      }
      row(p.label, event, `${way}: steady`, ms, `${cold ? `${cold} of ${ROUNDS} not answered ${way}; ` : ""}node -e 0 interleaved: p50 ${fmt(pct(own, 0.5))} ms; cpu a hook ${fmt(cpuHook / ROUNDS)} ms, a node -e 0 ${fmt(cpuFloor / ROUNDS)} ms`, own);
    }
    // the server, ended as its idle timer would
    const lock = fs.readdirSync(path.join(run, "hookwise")).find((f) => f.endsWith(".lock"));
    if (lock) {
      try {
        process.kill(Number(fs.readFileSync(path.join(run, "hookwise", lock), "utf8")), "SIGTERM");
      } catch {
        /* gone */
      }
    }
  }
  // MCP: one server per `claude` process
  t0 = performance.now();
  const srv = await mcpServer(p);
  const firstMcp = await srv.call("PreToolUse", payload(p, "PreToolUse"));
  row(p.label, "PreToolUse", "mcp: first call", [firstMcp.ms], `server spawned to first answer ${fmt(performance.now() - t0)} ms`);
  for (const event of ["PreToolUse", "PostToolUse"]) {
    const ms = [];
    for (let i = 0; i < ROUNDS * 3; i++) ms.push((await srv.call(event, payload(p, event))).ms);
    row(p.label, event, "mcp: steady", ms);
  }
  await srv.close();
}

console.log("");
console.log(`${"project".padEnd(18)} ${"event".padEnd(12)} ${"way".padEnd(26)} ${"n".padStart(4)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"× floor".padStart(8)}`);
for (const r of rows) {
  const p50 = pct(r.ms, 0.5);
  const base = r.own ? pct(r.own, 0.5) : floor;
  console.log(`${r.project.padEnd(18)} ${r.event.padEnd(12)} ${r.way.padEnd(26)} ${String(r.ms.length).padStart(4)} ${fmt(p50).padStart(8)} ${fmt(pct(r.ms, 0.9)).padStart(8)} ${(p50 / base).toFixed(2).padStart(8)}${r.note ? `   ${r.note}` : ""}`);
}
console.log(`http: not offered — Qwen Code runs the call when its HTTP hook fails (refused, non-2xx, timeout), Copilot CLI skips an HTTP preToolUse hook to 127.0.0.1 unless the user sets COPILOT_HOOK_ALLOW_LOCALHOST=1, and in both any local user who binds the port first gets the payloads and the secret and answers for hookwise (real runs: docs/warm-hooks.md#http-hooks-not-offered-per-host)`);
for (const way of ["node warm", "native warm"]) {
  for (const event of ["PreToolUse", "PostToolUse"]) {
    const big = rows.find((r) => r.project === projects[2].label && r.way === `${way}: steady` && r.event === event);
    if (!big) continue;
    const x = pct(big.ms, 0.5) / pct(big.own, 0.5);
    const goal = way === "native warm" ? 0.15 : 1.3;
    console.log(`target: ${way} p50 ≤ ${goal} × node -e 0 at ${projects[2].label}, ${event}, steady state — measured ${x.toFixed(2)} × (${x <= goal ? "met" : "NOT met"})`);
  }
}
console.log("× floor: against node -e 0 at the start of the run, or interleaved with the row's own samples where the note says so");
const show = (s) => JSON.stringify(s ?? "").slice(0, 160);
console.log("\nsample answers (first of each):");
for (const [k, v] of Object.entries(samples)) console.log(`  ${k.padEnd(40)} ${show(v)}`);

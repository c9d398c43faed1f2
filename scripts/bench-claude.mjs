// Claude Code's hook round trip, the two ways hookwise offers it, in one run, side by side:
//   mcp      — an `mcp_tool` hook: Claude Code calls a tool of the `hookwise mcp` server it keeps
//              running (one per `claude` process). Timed from writing the `tools/call` line to
//              reading its answer: the server's whole share of the hook (JSON-RPC over the pipe
//              included; Claude Code's own templating and parsing are not).
//   command  — the `command` fallback: `hookwise hook PreToolUse`, one process per call (node start,
//              wasm init, configuration, and for a vault its index), payload on stdin, answer on
//              stdout. Timed from spawn to exit.
// Cases, each both ways: a PreToolUse Bash call with no links (no knowledge source: the floor);
// one naming three concepts of the 10,000-note bench vault (the generator of
// scripts/bench-vault.mjs; a fresh trio per call, so no cached answer); and one with no links on
// that vault. Prints p50/p90 and the server's one-time start; asserts nothing (the machine is
// shared and noisy).
//
//     node scripts/bench-claude.mjs [NOTES]          (needs pkg/: npm run build)
//
// The hook entries are the ones `hookwise init --claude` writes: the benchmark runs init in a temp
// project and calls the server / command exactly as .mcp.json and .claude/settings.json say, with
// the `input` templated the way Claude Code 2.1.330 does it (string values only, `${a.b}` looked up
// in the hook payload, objects as JSON text, missing → ""). NOTES defaults to 10,000; ROUNDS
// (default 200) sets the MCP samples, CMD_ROUNDS (default 20; 5 and 3 with the vault) the command ones.
// KEEP=1 keeps the temp folder.
import { spawn, spawnSync, execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchVault, DIRS } from "./bench-vault-notes.mjs";
import { lineClient, benchEnv } from "./bench-hook-lib.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "pkg/dist");
const cli = path.join(dist, "cli.mjs");
const N = Number(process.argv[2]) || 10_000;
const ROUNDS = Number(process.env.ROUNDS) || 200;
const CMD_ROUNDS = Number(process.env.CMD_ROUNDS) || 20;
const CMD_VAULT_ROUNDS = Number(process.env.CMD_ROUNDS) || 5;

if (!fs.existsSync(cli)) {
  console.error("no pkg/dist/cli.mjs: run `npm run build` first");
  process.exit(1);
}

// ---- the vault (as scripts/bench-vault.mjs writes it) -----------------------------------------
const { r, word, WORDS, CONCEPTS, note } = benchVault();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-claude-"));
process.on("exit", () => {
  if (process.env.KEEP !== "1") fs.rmSync(tmp, { recursive: true, force: true });
});
const vault = path.join(tmp, "vault");
for (const d of DIRS) fs.mkdirSync(path.join(vault, d), { recursive: true });
let t0 = performance.now();
for (let i = 0; i < N; i++) fs.writeFileSync(path.join(vault, `${DIRS[i % 4]}/note-${i}.md`), note(i, i % 500 === 0));
console.log(`hookwise Claude Code hook benchmark (node ${process.versions.node}, ${os.cpus().length} cpus, load ${os.loadavg()[0].toFixed(1)})`);
console.log(`generated ${N} notes in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

// ---- two projects set up by `hookwise init --claude`: no knowledge source, and the vault --------
const { home, baseEnv } = benchEnv(tmp);

function project(name, vaultDir) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const env = { ...baseEnv, ...(vaultDir ? { HOOKWISE_VAULT: vaultDir } : {}) };
  const out = execFileSync(process.execPath, [cli, "init", "--claude", "--cwd", dir], { cwd: dir, env, encoding: "utf8" });
  const mcp = JSON.parse(fs.readFileSync(path.join(dir, ".mcp.json"), "utf8"));
  const settings = JSON.parse(fs.readFileSync(path.join(dir, ".claude/settings.json"), "utf8"));
  const hooks = (settings.hooks?.PreToolUse ?? []).filter((h) => !h.matcher || h.matcher === "*" || new RegExp(`^(?:${h.matcher})$`).test("Bash")).flatMap((h) => h.hooks);
  const mcpHooks = hooks.filter((h) => h.type === "mcp_tool");
  if (mcpHooks.length === 0) throw new Error(`init --claude wrote no mcp_tool PreToolUse hook for Bash:\n${JSON.stringify(settings, null, 2)}\n${out}`);
  const servers = new Set(mcpHooks.map((h) => h.server));
  if (servers.size !== 1) throw new Error(`expected one hook server, got ${[...servers]}`);
  const server = mcp.mcpServers[[...servers][0]];
  return { dir, env, server, mcpHooks };
}

const plain = project("plain", null);
const withVault = project("vaulted", vault);

// ---- Claude Code's side: the payload and the input templating -------------------------------------
function lookup(obj, dotted) {
  let v = obj;
  for (const k of dotted.split(".")) {
    if (v == null || typeof v !== "object") return undefined;
    v = v[k];
  }
  return v;
}
/** `input` templated from the payload as Claude Code 2.1.330 does (string values only). */
function template(value, payload) {
  if (typeof value === "string")
    return value.replace(/\$\{([a-zA-Z_][a-zA-Z0-9_.]*)\}/g, (_, p) => {
      const v = lookup(payload, p);
      return v == null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
    });
  if (Array.isArray(value)) return value.map((v) => template(v, payload));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, template(v, payload)]));
  return value;
}
const sessionId = crypto.randomUUID();
function payload(dir, command) {
  return {
    session_id: sessionId,
    transcript_path: path.join(home, ".claude/projects/x", `${sessionId}.jsonl`),
    cwd: dir,
    prompt_id: crypto.randomUUID(),
    permission_mode: "default",
    effort: { level: "medium" },
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command, description: "bench" },
    tool_use_id: `toolu_${crypto.randomBytes(8).toString("hex")}`,
  };
}

// ---- an MCP client on the server .mcp.json names --------------------------------------------------
async function startServer(p) {
  const s = p.server;
  const child = spawn(s.command, s.args ?? [], { cwd: p.dir, env: { ...p.env, ...(s.env ?? {}) }, stdio: ["pipe", "pipe", "inherit"] });
  const request = lineClient(child);
  const t = performance.now();
  const init = await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-claude", version: "0" } });
  const initMs = performance.now() - t;
  if (init.error) throw new Error(`initialize: ${JSON.stringify(init.error)}`);
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  const list = await request("tools/list", {});
  return {
    initMs,
    listMs: performance.now() - t - initMs,
    tools: list.result?.tools ?? [],
    async call(hook, pl) {
      const t = performance.now();
      const res = await request("tools/call", { name: hook.tool, arguments: template(hook.input ?? {}, pl) });
      const ms = performance.now() - t;
      if (res.error) throw new Error(`tools/call ${hook.tool}: ${JSON.stringify(res.error)}`);
      return { ms, text: res.result?.content?.map((c) => c.text ?? "").join("") ?? "", isError: res.result?.isError === true };
    },
    close: () =>
      new Promise((resolve) => {
        child.on("exit", resolve);
        child.stdin.end();
      }),
  };
}

/** One `hookwise hook PreToolUse` process: the payload on stdin. */
function commandCall(p, pl) {
  const t = performance.now();
  const res = spawnSync(process.execPath, [cli, "hook", "PreToolUse"], { cwd: p.dir, env: p.env, input: JSON.stringify(pl), encoding: "utf8" });
  const ms = performance.now() - t;
  if (res.status !== 0 && res.status !== 2) throw new Error(`hookwise hook PreToolUse exited ${res.status}: ${res.stderr}`);
  return { ms, text: res.stdout, code: res.status };
}

// ---- the runs -----------------------------------------------------------------------------------
const pct = (v, p) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round((s.length - 1) * p))];
};
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
let trio = 0;
const threeLinks = () => {
  const c = [0, 1, 2].map(() => CONCEPTS[(trio++ * 7919) % CONCEPTS.length]);
  return `echo ${c.map((x) => `[[${x}]]`).join(" ")}`;
};
const noLinks = () => "ls -la";

const rows = [];
async function mcpCase(label, p, command, warm = 5) {
  t0 = performance.now();
  const srv = await startServer(p);
  const startMs = performance.now() - t0;
  const hook = p.mcpHooks[0];
  const firstCalls = [];
  for (let i = 0; i < warm; i++) firstCalls.push((await srv.call(hook, payload(p.dir, command()))).ms);
  const ms = [];
  let sample;
  for (let i = 0; i < ROUNDS; i++) {
    const res = await srv.call(hook, payload(p.dir, command()));
    ms.push(res.ms);
    sample ??= res.text;
  }
  await srv.close();
  rows.push({
    label,
    path: "mcp",
    ms,
    note: `once per claude process: spawn to tools/list ${fmt(startMs)} ms (initialize answered after ${fmt(srv.initMs)} ms, tools/list ${fmt(srv.listMs)} ms), first call ${fmt(firstCalls[0])} ms`,
  });
  return sample;
}
function commandCase(label, p, command, rounds) {
  const ms = [];
  let sample;
  for (let i = 0; i < rounds; i++) {
    const res = commandCall(p, payload(p.dir, command()));
    ms.push(res.ms);
    sample ??= res.text;
  }
  rows.push({ label, path: "command", ms });
  return sample;
}

const s1 = await mcpCase("PreToolUse, no links", plain, noLinks);
const s2 = commandCase("PreToolUse, no links", plain, noLinks, CMD_ROUNDS);
t0 = performance.now();
const s3 = await mcpCase("PreToolUse, 3 links, 10k-note vault", withVault, threeLinks, 1);
const s4 = commandCase("PreToolUse, 3 links, 10k-note vault", withVault, threeLinks, CMD_VAULT_ROUNDS);
await mcpCase("PreToolUse, no links, 10k-note vault", withVault, noLinks, 1);
commandCase("PreToolUse, no links, 10k-note vault", withVault, noLinks, Math.min(3, CMD_VAULT_ROUNDS));

console.log("");
console.log(`${"case".padEnd(38)} ${"path".padEnd(8)} ${"n".padStart(4)} ${"p50 ms".padStart(9)} ${"p90 ms".padStart(9)}`);
for (const row of rows) {
  console.log(`${row.label.padEnd(38)} ${row.path.padEnd(8)} ${String(row.ms.length).padStart(4)} ${fmt(pct(row.ms, 0.5)).padStart(9)} ${fmt(pct(row.ms, 0.9)).padStart(9)}${row.note ? `   (${row.note})` : ""}`);
}
const mcpNoLinks = pct(rows[0].ms, 0.5);
console.log(`\ntarget: the MCP path ≤ 5 ms p50 with no links — measured ${fmt(mcpNoLinks)} ms (${mcpNoLinks <= 5 ? "met" : "NOT met"})`);
console.log(`the command fallback costs ${fmt(pct(rows[1].ms, 0.5))} ms p50 per call with no links, ${fmt(pct(rows[3].ms, 0.5))} ms with the vault (it indexes it on every call)`);
const show = (s) => JSON.stringify(s ?? "").slice(0, 220);
console.log(`\nsample answers (first call of each case):\n  mcp, no links:      ${show(s1)}\n  command, no links:  ${show(s2)}\n  mcp, 3 links:       ${show(s3)}\n  command, 3 links:   ${show(s4)}`);

// node scripts/bench-mcp.mjs [--startup MS] [--answer MS] [--runs N]
//
// The warm maenifold MCP session (issue 7) side by side with the per-call CLI, in one run,
// against the fake maenifold (tests/fake-maenifold): FAKE_MAENIFOLD_STARTUP_MS per process
// start (default 1800 ms, the real .NET start-up) and FAKE_MAENIFOLD_ANSWER_MS per answer
// (default 20 ms). The built package (pkg/dist) through the engine API.
//
//   (a) a tool call with 3 concepts   (b) session start from cold   (c) the same tool call again
//
// Designs: the seed (one CLI process per question, one after another: written here in plain JS
// for (a)/(c), hookwise's `seed` strategy for (b)); parallel spawns (hookwise, transport cli);
// the warm MCP session with the cache off; the warm MCP session with its cache (the default).
// Times are medians of --runs (default 3; the cold session start is one per run). Also the
// hookwise side's memory and what an idle session costs. Prints figures; asserts nothing.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(repo, "pkg/dist");
const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const STARTUP_MS = arg("startup", 1800);
const ANSWER_MS = arg("answer", 20);
const RUNS = arg("runs", 3);
const CONCEPTS = ["auth", "jwt", "rest-api"];
const PROJECT = "ledgerline";

if (!fs.existsSync(path.join(dist, "engine.mjs"))) {
  console.error("no pkg/dist: run `npm run build` first");
  process.exit(1);
}
const { createEngine } = await import(path.join(dist, "engine.mjs"));

const work = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-mcp-"));
const root = path.join(work, "root");
fs.cpSync(path.join(repo, "tests/fake-maenifold/fixtures/root"), root, { recursive: true });
const bin = path.join(work, "bin");
fs.mkdirSync(bin);
fs.symlinkSync(path.join(repo, "tests/fake-maenifold/maenifold"), path.join(bin, "maenifold"));
const cwd = path.join(work, PROJECT);
fs.mkdirSync(cwd);
const log = path.join(work, "calls.jsonl");
const env = {
  ...process.env,
  PATH: `${bin}:${process.env.PATH}`,
  MAENIFOLD_ROOT: root,
  FAKE_MAENIFOLD_STARTUP_MS: String(STARTUP_MS),
  FAKE_MAENIFOLD_ANSWER_MS: String(ANSWER_MS),
  FAKE_MAENIFOLD_NOW: "2026-11-21T20:00:00Z",
  FAKE_MAENIFOLD_LOG: log,
};
/** maenifold processes started so far: MCP servers, and one per CLI call. */
const starts = () =>
  fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter((l) => l.includes('"event":"start"') || l.includes('"mode":"cli"')).length : 0;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = async (f) => {
  const t0 = performance.now();
  const r = await f();
  return [performance.now() - t0, r];
};
const fmt = (ms) => (ms == null ? "—" : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 1 ? `${ms.toFixed(1)} ms` : `${(ms * 1000).toFixed(0)} µs`);
const bashCall = (e, id) => e.augmentToolCall({ tool: "bash", args: { command: `echo ${CONCEPTS.map((c) => `[[${c}]]`).join(" ")}` }, callId: id });

// ---- the seed design: one CLI process per concept, one after another ---------------------------
function cli(tool, payload) {
  return new Promise((resolve) =>
    execFile("maenifold", ["--tool", tool, "--payload", JSON.stringify(payload)], { env, timeout: 5000, encoding: "utf8" }, (err, out) => resolve(err ? "" : out)),
  );
}
async function seedToolCall() {
  const out = [];
  for (const c of CONCEPTS) out.push(await cli("BuildContext", { conceptName: c, depth: 1, maxEntities: 5, includeContent: true }));
  return out;
}

// ---- measurements -------------------------------------------------------------------------
const rows = {};
async function measure(name, options, { a, c } = {}) {
  const r = { a: [], b: [], c: [], starts: [], ready: [] };
  for (let i = 0; i < RUNS; i++) {
    const before = starts();
    // (b) from cold: plugin start to the session's context ready.
    const [b, e] = await time(async () => {
      const e = await createEngine({
        cwd,
        env,
        options,
        // "maenifold MCP session 1 ready in N ms": the server's own start, for the breakdown
        log: (_, m) => {
          const x = /ready in (\d+) ms/.exec(m);
          if (x) r.ready.push(Number(x[1]));
        },
      });
      await e.sessionPreview({ project: PROJECT, strategy: options.transport === "cli" && name.startsWith("seed") ? "seed" : undefined });
      return e;
    });
    r.b.push(b);
    if (a) r.a.push((await time(() => a(e, `a${i}`)))[0]);
    if (c) r.c.push((await time(() => c(e, `c${i}`)))[0]);
    r.starts.push(starts() - before);
    await e.dispose();
  }
  rows[name] = { a: r.a.length ? median(r.a) : null, b: median(r.b), c: r.c.length ? median(r.c) : null, starts: median(r.starts), ready: r.ready.length ? median(r.ready) : null };
}

await measure("seed: sequential spawns", { transport: "cli" }, { a: () => seedToolCall(), c: () => seedToolCall() });
await measure("parallel spawns (transport cli)", { transport: "cli" }, { a: (e, id) => bashCall(e, id), c: (e, id) => bashCall(e, id) });
await measure("warm MCP session, cache off", { transport: "mcp", cacheTtlMs: 0 }, { a: (e, id) => bashCall(e, id), c: (e, id) => bashCall(e, id) });
await measure("warm MCP session + cache", { transport: "mcp" }, { a: (e, id) => bashCall(e, id), c: (e, id) => bashCall(e, id) });

// ---- memory and idle ----------------------------------------------------------------------
global.gc?.();
const m0 = process.memoryUsage();
const e = await createEngine({ cwd, env, options: { transport: "mcp" } });
await bashCall(e, "warm");
for (let i = 0; i < 200; i++) await e.augmentToolCall({ tool: "bash", args: { command: `echo [[concept-${i}]]` }, callId: `m${i}` });
global.gc?.();
const m1 = process.memoryUsage();
const handles = () => (typeof process._getActiveHandles === "function" ? process._getActiveHandles().length : NaN);
const cpu0 = process.cpuUsage();
const h0 = handles();
await new Promise((r) => setTimeout(r, 2000));
const cpu = process.cpuUsage(cpu0);
await e.dispose();

// ---- print ----------------------------------------------------------------------------------
const seed = rows["seed: sequential spawns"];
const warm = rows["warm MCP session, cache off"];
const cached = rows["warm MCP session + cache"];
console.log(`fake maenifold: ${STARTUP_MS} ms per process start, ${ANSWER_MS} ms per answer; ${RUNS} runs, medians; ${typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`}; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`);
console.log("");
console.log("| design | (a) tool call, 3 concepts | (b) session start, cold | (c) same tool call again | maenifold processes per run |");
console.log("|---|---|---|---|---|");
for (const [name, r] of Object.entries(rows)) console.log(`| ${name} | ${fmt(r.a)} | ${fmt(r.b)} | ${fmt(r.c)} | ${r.starts} |`);
console.log("");
console.log(`targets: session start ≤ 2.0 s from cold: ${fmt(cached.b)}; 3-concept call on a warm session ≤ 50 ms: ${fmt(warm.a)}; cache hit ≤ 1 ms: ${fmt(cached.c)}`);
console.log(`warm path vs the seed: (a) ${(seed.a / warm.a).toFixed(0)}× faster, (c) ${(seed.c / cached.c).toFixed(0)}× faster with the cache; session start ${(seed.b / cached.b).toFixed(1)}× faster`);
console.log(`session start breakdown (MCP + cache): the server's start and handshake ${fmt(cached.ready)} (the fake: ${STARTUP_MS} ms of sleep after its own node start-up), hookwise's part ${fmt(cached.b - cached.ready)}`);
const kb = (x) => `${(x / 1024).toFixed(0)} KB`;
console.log(`hookwise side after a warm session and 200 distinct lookups: JS heap ${kb(m1.heapUsed - m0.heapUsed)}, wasm/array buffers ${kb(m1.arrayBuffers - m0.arrayBuffers)}, rss ${kb(m1.rss - m0.rss)} more (the server's own memory not included)`);
console.log(`idle: ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms CPU in 2 s with a warm session; ${h0} active handles (the server's pipes and the process, unref'd: no timers, no polling)`);
fs.rmSync(work, { recursive: true, force: true });

// node scripts/bench-enforce.mjs [--calls N]   (after `npm run build`)
// node scripts/bench-enforce.mjs --instructions --calls N   (only the decisions, for callgrind)
//
// Pre-action enforcement decision latency (issue 5): p50/p95 wall time of one
// `engine.executePreHook` — the real JS API over the policy wasm, with the real host (files,
// clock, metrics line and state file written per decision) — for a project with 50 SOPs (plus
// two real ones) cached, over a mix of real-looking commands, in these set-ups:
//
//   1. no memory lookup                      target p95 ≤ 5 ms (also without metrics, to show
//                                            what the two file writes per decision cost)
//   2. a 20 ms knowledge source              target p95 ≤ the deadline (150 ms)
//      (a scripted runner answers SearchMemories after 20 ms, as a warm maenifold would)
//   3. the embedded vault as memory source   (examples/vault, searched in process)
//   4. the fake maenifold CLI, one process per lookup, 1.8 s start-up (what the real .NET
//      CLI costs): every memory lookup misses the 150 ms deadline and the decision is made on
//      the SOPs in hand — the figures say so.
//
// Side by side with the reference design's budget of 150 ms per call. Under Node and Bun in one
// run (the Bun run is a child process). Prints figures; asserts nothing.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { forceSop } from "../tests/js/helpers.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// HOOKWISE_DIST: another build's pkg/dist (scripts/bench-compare.sh counts instructions of two
// builds with this one script)
const dist = process.env.HOOKWISE_DIST ? path.resolve(process.env.HOOKWISE_DIST) : path.join(repo, "pkg/dist");
const fakeCli = path.join(repo, "tests/fake-maenifold/maenifold");
const exampleVault = path.join(repo, "examples/vault");
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
const BUDGET_MS = 150; // the reference design's hook budget, and hookwise's default deadline

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}
const CALLS = arg("calls", 1000);

if (!fs.existsSync(path.join(dist, "engine.cjs"))) {
  console.error("no pkg/dist: run `npm run build` first");
  process.exit(1);
}
const require = createRequire(import.meta.url);
const { createEngine } = require(path.join(dist, "engine.cjs"));

// ---- the project: 50 generated SOPs (markdown and YAML: patterns, keywords, services, hosts,
// commands) and the two real ones --------------------------------------------------------------
const FORCE_SOP = forceSop(
  "1. Announce it in the team channel.\n2. Run `git fetch` and compare with the remote first.",
  "\n## Rollback\nThe old head is in the reflog of the server.\n",
);
const NGINX_SOP = "meta:\n  id: nginx\n  category: technical\n  service: nginx\ngotchas:\n  - reload keeps connections, restart drops them\n";

function sopFiles() {
  const f = {};
  for (let i = 0; i < 50; i++) {
    switch (i % 5) {
      case 0:
        f[`md/p${i}.md`] = `---\nid: p${i}\ncategory: process\nmatch:\n  patterns: ['^svc${i}\\s+(deploy|rollback)\\b', 'release-${i}']\n---\n# P${i}\n## Preflight\n${"- check the dashboard\n".repeat(20)}## Rollback\nundo ${i}\n`;
        break;
      case 1:
        f[`md/k${i}.md`] = `---\nid: k${i}\ncategory: gotchas\nkeywords: [widget${i}, 'cache flush ${i}']\n---\n## Gotchas\nwatch out ${i}\n`;
        break;
      case 2:
        f[`y${i}.ai.sop`] = `meta:\n  id: y${i}\n  category: security\n  service: svc${i}\nhosts:\n  - name: node${i}.prod.example.com\ncommands:\n  - svc${i}ctl restart\npreflight:\n  - id: a\n    action: drain node${i}\n    command: svc${i}ctl drain\n    reason: keep traffic\ngotchas:\n  - slow start\n`;
        break;
      case 3:
        f[`y${i}.ai.sop`] = `meta:\n  id: t${i}\n  category: technical\n  match:\n    tools: [bash]\n    patterns: ['make\\s+target${i}']\nrollback: revert ${i}\n`;
        break;
      default:
        f[`md/s${i}.md`] = `---\nid: s${i}\ncategory: credentials\nmatch:\n  services: [svc${i}]\n  minRisk: high\n---\nUse the vault path secret/svc${i}.\n`;
    }
  }
  f["git.md"] = FORCE_SOP;
  f["nginx.ai.sop"] = NGINX_SOP;
  return f;
}

// the same commands as the native bench (src/enforce/bench.rs)
const COMMANDS = fs
  .readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "bench-enforce-commands.txt"), "utf8")
  .split("\n")
  .filter(Boolean);

function project(enforcement) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-enforce-"));
  for (const [rel, text] of Object.entries(sopFiles())) {
    const p = path.join(dir, ".opencode/sops", rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  fs.writeFileSync(path.join(dir, ".opencode/hookwise.json"), JSON.stringify({ enforcement }));
  return dir;
}

// ---- knowledge sources ---------------------------------------------------------------------
const MEMORIES = [
  { title: "Force pushes", path: "memory://runbooks/force-push", semanticScore: 0.74, textScore: 0.4, snippet: "announce first; use --force-with-lease" },
  { title: "Prod hosts", path: "memory://security/prod-hosts", semanticScore: 0.52, textScore: 0.2, snippet: "prod needs a change ticket" },
  { title: "nginx reloads", path: "memory://ops/gotchas/nginx", semanticScore: 0.41, textScore: 0.1, snippet: "reload, not restart" },
];
/** A scripted maenifold: SearchMemories answered after `ms` (a warm process would answer so). */
function scriptedRunner(ms) {
  return async (argv) => {
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, ms));
    const tool = argv[argv.indexOf("--tool") + 1];
    const payload = JSON.parse(argv[argv.indexOf("--payload") + 1]);
    const stdout =
      tool === "SearchMemories"
        ? JSON.stringify({ success: true, data: { mode: "Hybrid", query: payload.query, totalCount: MEMORIES.length, page: 1, pageSize: payload.pageSize, results: MEMORIES.map((m) => ({ ...m, fusedScore: 0.03 })) }, error: null })
        : `ERROR: ${tool} is not scripted`;
    return { success: true, stdout, stderr: "", exitCode: 0, timedOut: false, durationMs: performance.now() - t0 };
  };
}

// No maenifold or vault found by accident: an empty HOME and root, PATH without maenifold.
function env(extra = {}) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-home-"));
  return { HOME: home, MAENIFOLD_ROOT: path.join(home, "none"), PATH: path.dirname(process.execPath) + ":/usr/bin:/bin", ...extra };
}

// ---- measuring -----------------------------------------------------------------------------
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);

async function measure(label, { enforcement, engineOpts = {}, calls, target }) {
  const dir = project({ deadlineMs: BUDGET_MS, sopRefreshMs: 600_000, ...enforcement });
  const logs = [];
  const engine = await createEngine({ cwd: dir, env: env(), log: (level, message) => level !== "debug" && logs.push(`${level}: ${message}`), ...engineOpts });
  const wall = [];
  const cpu = [];
  const lookup = [];
  const kinds = {};
  let timedOut = 0;
  const warm = Math.min(100, Math.floor(calls / 5));
  for (let i = 0; i < calls + warm; i++) {
    const command = COMMANDS[i % COMMANDS.length];
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await engine.executePreHook({ toolName: "bash", params: { command, description: "bench" }, sessionId: "s", workspaceRoot: dir });
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (i < warm) continue;
    wall.push(ms);
    cpu.push((c.user + c.system) / 1000);
    const d = r.decision || {};
    lookup.push(d.lookupMs || 0);
    kinds[d.decision] = (kinds[d.decision] || 0) + 1;
    if (d.timedOut) timedOut++;
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  lookup.sort((a, b) => a - b);
  const p50 = pct(wall, 50);
  const p95 = pct(wall, 95);
  const row = { label, calls, p50, p95, cpuP50: pct(cpu, 50), cpuP95: pct(cpu, 95), lookupP95: pct(lookup, 95), vsBudget: p95 / BUDGET_MS, target, met: p95 <= target, timedOut, kinds };
  fs.rmSync(dir, { recursive: true, force: true });
  const warnings = [...new Set(logs.filter((l) => l.startsWith("warn")))];
  return { row, warnings };
}

async function child() {
  const rows = [];
  const notes = [];
  const run = async (label, o) => {
    const { row, warnings } = await measure(label, o);
    rows.push(row);
    for (const w of warnings) notes.push(`${label}: ${w}`);
  };
  await run("50 SOPs cached, no memory lookup", { enforcement: { memory: { enabled: false } }, calls: CALLS, target: 5 });
  await run("… and no metrics (no file writes)", { enforcement: { memory: { enabled: false }, metrics: false }, calls: CALLS, target: 5 });
  await run("+ 20 ms knowledge source (scripted)", {
    enforcement: {},
    engineOpts: { options: { cliPath: fakeCli, knowledge: "maenifold" }, runner: scriptedRunner(20) },
    calls: Math.max(60, Math.round(CALLS / 4)),
    target: BUDGET_MS,
  });
  await run("+ embedded vault (examples/vault, 40 notes)", { enforcement: {}, engineOpts: { options: { vault: exampleVault, knowledge: "vault" } }, calls: CALLS, target: BUDGET_MS });
  await run("+ maenifold CLI per lookup (1.8 s start-up)", {
    enforcement: {},
    engineOpts: { options: { cliPath: fakeCli, knowledge: "maenifold" }, env: env({ FAKE_MAENIFOLD_STARTUP_MS: "1800", FAKE_MAENIFOLD_ANSWER_MS: "20", MAENIFOLD_ROOT: path.join(repo, "tests/fake-maenifold/fixtures/root") }) },
    calls: 30,
    target: BUDGET_MS,
  });
  return { runtime, rows, notes };
}

function table(results) {
  const out = [];
  out.push(`Decision latency of one executePreHook (wall, JS API → policy wasm → real host; 52 SOPs cached; ${COMMANDS.length} commands in turn)`);
  out.push(`reference design: a ${BUDGET_MS} ms budget per call; hookwise's deadline: ${BUDGET_MS} ms; load average now ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} on ${os.cpus().length} CPUs`);
  out.push("(CPU: the process's user+system time during the call, every thread: what the decision costs when the machine is busy and wall time is preemption)\n");
  out.push("| runtime | set-up | calls | p50 | p95 | p95 / 150 ms | target p95 | met | CPU p50 | CPU p95 | lookup p95 (core) | lookups timed out | decisions |");
  out.push("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of results)
    for (const x of r.rows)
      out.push(`| ${r.runtime} | ${x.label} | ${x.calls} | ${fmt(x.p50)} | ${fmt(x.p95)} | ${(x.vsBudget * 100).toFixed(1)} % | ≤ ${x.target} ms | ${x.met ? "yes" : "NO"} | ${fmt(x.cpuP50)} | ${fmt(x.cpuP95)} | ${fmt(x.lookupP95)} | ${x.timedOut} | ${Object.entries(x.kinds).map(([k, n]) => `${k} ${n}`).join(", ")} |`);
  const notes = results.flatMap((r) => r.notes.map((n) => `[${r.runtime}] ${n}`));
  if (notes.length) out.push("\nwarnings logged:\n" + [...new Set(notes)].map((n) => `  ${n}`).join("\n"));
  const cli = results.flatMap((r) => r.rows).filter((x) => x.label.includes("maenifold CLI"));
  if (cli.some((x) => x.timedOut > 0))
    out.push(
      `\nThe maenifold CLI starts a process per lookup (~1.8 s): every memory lookup there missed the ${BUDGET_MS} ms deadline, so those calls were decided on the cached SOPs alone (fail open on memories). Memories within the deadline need a warm source: the vault, or the warm maenifold MCP session (transport "auto", the default).`,
    );
  return out.join("\n");
}

if (process.argv.includes("--instructions")) {
  // one set-up, no timing printed: the "no metrics" decisions alone (no file writes), for
  // callgrind (scripts/bench-compare.sh runs it with --calls 0 and --calls N and subtracts)
  await measure("instructions", { enforcement: { memory: { enabled: false }, metrics: false }, calls: CALLS, target: 5 });
} else if (process.argv.includes("--child")) {
  process.stdout.write(JSON.stringify(await child()));
} else {
  const results = [await child()];
  const bun = path.join(repo, "node_modules/.bin/bun");
  if (typeof Bun === "undefined" && fs.existsSync(bun)) {
    const r = spawnSync(bun, [fileURLToPath(import.meta.url), "--child", "--calls", String(CALLS)], { encoding: "utf8", maxBuffer: 1 << 24 });
    if (r.status === 0) results.push(JSON.parse(r.stdout));
    else console.error(`bun run failed (exit ${r.status}): ${r.stderr.slice(0, 2000)}`);
  }
  console.log(table(results));
}

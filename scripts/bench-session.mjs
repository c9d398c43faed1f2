// node scripts/bench-session.mjs [--runs N] [--startup MS] [--answer MS]
//
// Session start (issue 3): calls made and wall time from `session.created` to "context ready"
// for hookwise (the built plugin in pkg/dist, driven the way OpenCode drives it: the event is
// not awaited, the first model request's system.transform waits for the context) against a
// naive sequential implementation of the seed design written here in plain JS (SearchMemories,
// then RecentActivity, then BuildContext for each concept, one process after another). Both ask
// the fake maenifold (tests/fake-maenifold), which sleeps FAKE_MAENIFOLD_STARTUP_MS at every
// process start (default 1800 ms: what the real .NET CLI costs) and FAKE_MAENIFOLD_ANSWER_MS per
// answer (default 20 ms). Runs alternate, one at a time. Prints figures; asserts nothing.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(repo, "pkg/dist");
const fakeCli = path.join(repo, "tests/fake-maenifold/maenifold");
const fixture = path.join(repo, "tests/fake-maenifold/fixtures/root");
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}
const RUNS = arg("runs", 3);
const STARTUP_MS = arg("startup", 1800);
const ANSWER_MS = arg("answer", 20);
const PROJECT = "ledgerline";
const CALL_TIMEOUT_MS = 5000; // the seed design's CLI timeout (FR-1.4)

if (!fs.existsSync(path.join(dist, "index.mjs"))) {
  console.error("no pkg/dist: run `npm run build` first");
  process.exit(1);
}

// ---- the fake maenifold's environment -----------------------------------------------------
const work = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-session-"));
const dataRoot = path.join(work, "root");
fs.cpSync(fixture, dataRoot, { recursive: true });
const bin = path.join(work, "bin");
fs.mkdirSync(bin);
fs.symlinkSync(fakeCli, path.join(bin, "maenifold"));
const worktree = path.join(work, PROJECT);
fs.mkdirSync(worktree);
Object.assign(process.env, {
  PATH: `${bin}:${process.env.PATH}`,
  MAENIFOLD_ROOT: dataRoot,
  FAKE_MAENIFOLD_STARTUP_MS: String(STARTUP_MS),
  FAKE_MAENIFOLD_ANSWER_MS: String(ANSWER_MS),
  FAKE_MAENIFOLD_NOW: "2026-11-21T20:00:00Z", // the fixture's "last 24 h"
  TZ: "UTC",
});
let logSeq = 0;
/** A fresh invocation log for the next measured run; returns a reader of its calls. */
function freshLog() {
  const file = path.join(work, `calls-${logSeq++}.jsonl`);
  process.env.FAKE_MAENIFOLD_LOG = file;
  return () =>
    fs.existsSync(file)
      ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((c) => c.event === "call")
      : [];
}

// ---- the naive sequential seed design, in plain JS -----------------------------------------
const LINK = /(?<!\[)\[\[([^[\]]+)\]\](?!\])/g;
const normalize = (s) => s.trim().toLowerCase().replace(/[\s_/]/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "");

function cli(tool, payload, json) {
  const argv = ["--tool", tool, "--payload", JSON.stringify(payload), ...(json ? ["--json"] : [])];
  return new Promise((resolve) => {
    execFile("maenifold", argv, { timeout: CALL_TIMEOUT_MS, maxBuffer: 1 << 20, encoding: "utf8" }, (err, stdout) =>
      resolve(err ? "" : stdout),
    );
  });
}

async function naiveSessionStart(project) {
  let calls = 0;
  const ask = (...a) => (calls++, cli(...a));
  const counts = new Map();
  const add = (c) => c && counts.set(c, (counts.get(c) ?? 0) + 1);
  const links = (text) => {
    for (const m of String(text ?? "").matchAll(LINK)) add(normalize(m[1]));
  };

  // FR-2.2: SearchMemories for the project name.
  const hits = [];
  try {
    const env = JSON.parse(await ask("SearchMemories", { query: project, mode: "Hybrid", pageSize: 5 }, true));
    if (env.success) for (const r of env.data.results ?? []) hits.push(r);
  } catch {
    /* no search results */
  }
  for (const h of hits) {
    links(h.snippet);
    add(normalize(h.title ?? ""));
  }
  // FR-2.3: RecentActivity of the last 24 h (markdown).
  const recentText = await ask("RecentActivity", { timespan: "1.00:00:00", limit: 10, filter: "memory" }, false);
  const recent = [];
  for (const m of recentText.matchAll(/^\*\*(.+?)\*\* \(memory\)\n(?:  .*\n?)*?  Title: (.*)$/gm)) recent.push({ slug: m[1], title: m[2] });
  links(recentText);
  for (const r of recent) add(normalize(r.title));
  // FR-2.4: BuildContext on the merged concepts, one after another.
  const top = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 5);
  const graph = [];
  for (const [c] of top) {
    const text = await ask("BuildContext", { conceptName: c, depth: 1, maxEntities: 10 }, false);
    const rel = [...text.matchAll(/^  • (.+?) \(co-occurs in (\d+) files?\)/gm)].map((m) => m[1]);
    if (rel.length) graph.push(`- [[${c}]] → ${rel.map((r) => `[[${r}]]`).join(", ")}`);
  }
  const lines = ["## Knowledge Graph Context", "", `Project: **${project}**`, "", "### Related concepts"];
  for (const [c, n] of top) lines.push(`- [[${c}]] (${n})`);
  if (hits.length) lines.push("", "### Relevant memories", ...hits.map((h) => `- ${h.title} — ${h.path}`));
  if (recent.length) lines.push("", "### Recent activity (24 h)", ...recent.map((r) => `- ${r.title} (${r.slug})`));
  if (graph.length) lines.push("", "### Graph connections", ...graph);
  // FR-2.6: TOKEN_LIMIT 4000 (≈4 characters a token).
  const context = lines.join("\n").slice(0, 16000);
  return { calls, concepts: top.length, context };
}

// ---- hookwise, driven like OpenCode ---------------------------------------------------------
const plugin = (await import(path.join(dist, "index.mjs"))).default;
async function hookwisePlugin(options) {
  const logs = [];
  const client = {
    app: { log: async ({ body }) => logs.push(body) },
    session: { prompt: async () => ({}), messages: async () => ({ data: [] }) },
  };
  const hooks = await plugin.server({ client, worktree, directory: worktree }, options);
  return { hooks, logs };
}

let sessionSeq = 0;
async function hookwiseSessionStart({ hooks, logs }) {
  const id = `ses_bench_${sessionSeq++}`;
  const mark = logs.length;
  const t0 = performance.now();
  // OpenCode does not await `event`; the first model request's system.transform waits.
  const event = hooks.event({ event: { type: "session.created", properties: { info: { id } } } });
  const out = { system: ["You are opencode."] };
  await hooks["experimental.chat.system.transform"]({ sessionID: id }, out);
  const ready = performance.now() - t0;
  await event;
  const context = out.system[1] ?? "";
  const related = (context.split("### Related concepts\n")[1] ?? "").split("\n\n")[0];
  const concepts = related ? related.split("\n").filter((l) => l.startsWith("- [[")).length : 0;
  const partial = logs.slice(mark).some((l) => l.level === "warn");
  return { ready, context, concepts, partial, warn: logs.slice(mark).find((l) => l.level === "warn")?.message };
}

// ---- measure ---------------------------------------------------------------------------------
const variants = [
  { name: "hookwise (parallel stages), default options", kind: "hookwise", plugin: await hookwisePlugin({}) },
  {
    name: "hookwise (parallel stages), sessionStartTimeoutMs 60000",
    kind: "hookwise",
    plugin: await hookwisePlugin({ sessionStartTimeoutMs: 60000 }),
  },
  { name: "naive sequential seed design (plain JS)", kind: "naive" },
];
for (const v of variants) v.results = [];

console.log(
  `# Session start against the fake maenifold: ${STARTUP_MS} ms per process start, ${ANSWER_MS} ms per answer; ` +
    `${RUNS} run${RUNS === 1 ? "" : "s"} each, alternating; ${runtime}, ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}\n`,
);
for (let run = 0; run < RUNS; run++) {
  for (const v of variants) {
    const calls = freshLog();
    let r;
    if (v.kind === "hookwise") {
      r = await hookwiseSessionStart(v.plugin);
    } else {
      const t0 = performance.now();
      const n = await naiveSessionStart(PROJECT);
      r = { ready: performance.now() - t0, context: n.context, concepts: n.concepts, partial: false, naiveCalls: n.calls };
    }
    const log = calls();
    r.calls = log.length;
    r.byTool = {};
    for (const c of log) r.byTool[c.tool] = (r.byTool[c.tool] ?? 0) + 1;
    v.results.push(r);
    process.stderr.write(`  run ${run + 1}/${RUNS} ${v.name}: ${Math.round(r.ready)} ms, ${r.calls} calls${r.partial ? " (partial: " + r.warn + ")" : ""}\n`);
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${(x / 1000).toFixed(2)} s`;
const rows = variants.map((v) => {
  const t = v.results.map((r) => r.ready);
  const last = v.results.at(-1);
  const med = median(t);
  const concepts = median(v.results.map((r) => r.concepts));
  const order = ["SearchMemories", "RecentActivity", "ReadMemory", "BuildContext"];
  const byTool = Object.entries(last.byTool)
    .sort(([a], [b]) => (order.indexOf(a) >>> 0) - (order.indexOf(b) >>> 0))
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  return [
    v.name,
    String(last.calls),
    byTool,
    `${ms(med)} (${ms(Math.min(...t))}–${ms(Math.max(...t))})`,
    String(concepts),
    concepts ? ms(med / concepts) : "–",
    String(median(v.results.map((r) => r.context.length))),
    `${v.results.filter((r) => r.partial).length}/${v.results.length}`,
    med < 2000 ? "yes" : "no",
  ];
});
const head = ["implementation", "maenifold calls", "calls by tool", "session.created → context ready, median (min–max)", "concepts looked up", "time per concept", "context chars", "partial runs", "< 2 s (seed target)"];
console.log(`| ${head.join(" | ")} |`);
console.log(`|${head.map(() => "---").join("|")}|`);
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
const h = variants[1].results.map((r) => r.ready);
const n = variants[2].results.map((r) => r.ready);
console.log(
  `\nhookwise (no deadline cut) / naive: ${(median(h) / median(n)).toFixed(2)}× the time. ` +
    `Floor with ${STARTUP_MS} ms per process start: 3 dependent stages ≥ ${ms(3 * (STARTUP_MS + ANSWER_MS))} in parallel, ` +
    `vs ≥ ${ms(variants[2].results.at(-1).calls * (STARTUP_MS + ANSWER_MS))} one call after another. ` +
    `"partial": the session-start deadline cut the lookup (hookwise logs one warning).`,
);

fs.rmSync(work, { recursive: true, force: true });

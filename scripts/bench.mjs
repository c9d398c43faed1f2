// npm run bench — hook overhead of hookwise's tool.execute.before against a plain-JS
// implementation of the same work (written here as the baseline), under Node and Bun side by
// side in one run; wasm size; plugin init time; engine load + init in fresh processes (medians
// of STARTUP_RUNS, default 9: wall, main-thread CPU, process CPU; STARTUP_ONLY=1 prints only
// that). Prints figures; asserts nothing.
//
// Both sides get the same instant knowledge source (an in-process runner answering
// BuildContext at once), so what is measured is the hook's own cost: finding the concepts,
// the lookups' plumbing, parsing the answers, formatting and placing the block.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "pkg/dist");
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;

const ANSWER = (c) =>
  `Context for CONCEPT: ${c}\n\nDirect relations (2 CONCEPTS):\n  • jwt (co-occurs in 3 files)\n    Files: memory://notes/auth-design, memory://notes/api\n    Content preview:\n      memory://notes/auth-design: Tokens are RS256-signed and rotated daily.\n  • session-tokens (co-occurs in 1 files)\n    Files: memory://notes/api\n`;
const runner = async (argv) => ({ success: true, stdout: ANSWER(JSON.parse(argv[4]).conceptName), stderr: "", exitCode: 0, timedOut: false, durationMs: 0 });

// ---- the plain-JS baseline: the same extraction, lookups, parsing and placement ----------
const LINK = /\[\[([^\[\]]+)\]\](?!\])/g;
function normalize(s) {
  return s.trim().toLowerCase().replace(/[\s_/]/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "");
}
function collect(v, out) {
  if (typeof v === "string") {
    if (!v.includes("[[")) return;
    for (const m of v.matchAll(LINK)) {
      if (m.index > 0 && v[m.index - 1] === "[") continue;
      const c = normalize(m[1].split(/[|#]/)[0]);
      if (c && !out.includes(c)) out.push(c);
    }
  } else if (Array.isArray(v)) v.forEach((x) => collect(x, out));
  else if (v && typeof v === "object") for (const k in v) collect(v[k], out);
}
// BuildContext's text form: relations with counts, files and previews.
function parse(text) {
  const rel = [];
  let cur = null;
  let inPreview = false;
  for (const line of text.split("\n")) {
    const m = /^  • (.+?) \(co-occurs in (\d+) files?\)/.exec(line);
    if (m) {
      cur = { name: m[1], n: Number(m[2]), files: [], previews: [] };
      rel.push(cur);
      inPreview = false;
    } else if (cur && line.startsWith("    Files:")) cur.files = line.slice(10).split(",").map((f) => f.trim()).filter(Boolean);
    else if (cur && line.startsWith("    Content preview")) inPreview = true;
    else if (cur && inPreview) {
      const p = /^      (memory:\/\/\S+): (.*)$/.exec(line);
      if (p) cur.previews.push([p[1], p[2]]);
      else if (cur.previews.length) cur.previews[cur.previews.length - 1][1] += "\n" + line.trim();
    }
  }
  return rel;
}
// The same section text and budget as the core (context.rs).
function section(concept, rel) {
  const lines = [`## [[${concept}]]`];
  if (rel.length) lines.push("Related: " + rel.map((r) => `[[${r.name}]] (${r.n} file${r.n === 1 ? "" : "s"})`).join(", "));
  const seen = new Set();
  for (const r of rel)
    for (const [uri, t] of r.previews) {
      if (seen.has(uri)) continue;
      seen.add(uri);
      const c = t.split(/\s+/).filter(Boolean).join(" ");
      lines.push(`- ${uri}: ${[...c].length > 240 ? [...c].slice(0, 240).join("") + "…" : c}`);
    }
  const files = [...new Set(rel.flatMap((r) => r.files))].filter((f) => !seen.has(f));
  if (files.length) lines.push("Sources: " + files.join(", "));
  return lines;
}
function fit(body, maxChars) {
  const open = "<!-- Knowledge Graph Context (hookwise) -->";
  const close = "<!-- /Knowledge Graph Context (hookwise) -->";
  const all = [open, ...body, close].join("\n");
  if ([...all].length <= maxChars) return all;
  const out = [open];
  let room = maxChars - open.length - close.length - 60;
  for (const l of body) {
    if (l.length + 1 > room) break;
    room -= l.length + 1;
    out.push(l);
  }
  out.push("[hookwise: context truncated to fit the token budget]", close);
  return out.join("\n");
}
async function baselineBefore(tool, args) {
  const concepts = [];
  collect(args, concepts);
  if (!concepts.length) return;
  const answers = await Promise.all(
    concepts.map((c) => runner(["m", "--tool", "BuildContext", "--payload", JSON.stringify({ conceptName: c, depth: 1, maxEntities: 5, includeContent: true })])),
  );
  const body = [];
  answers.forEach((a, i) => {
    if (!a.success || !a.stdout.startsWith("Context for CONCEPT:")) return;
    const rel = parse(a.stdout);
    if (!rel.length) return;
    if (body.length) body.push("---");
    body.push(...section(concepts[i], rel));
  });
  if (body.length) args.prompt = fit(body, 8000) + "\n\n" + args.prompt;
}

// ---- workloads ----------------------------------------------------------------------------
function text(size, links) {
  const filler = "The quick brown fox jumps over the lazy dog; deploy, verify, roll back. ";
  let s = filler.repeat(Math.ceil(size / filler.length)).slice(0, size);
  if (links) {
    const names = ["[[auth]]", "[[REST API]]", "[[rate-limiting]]"];
    names.forEach((n, i) => {
      const at = Math.floor(((i + 1) * s.length) / 4);
      s = s.slice(0, at) + ` ${n} ` + s.slice(at);
    });
  }
  return s;
}

function stats(times) {
  const t = times.slice().sort((a, b) => a - b);
  const q = (p) => t[Math.min(t.length - 1, Math.floor(p * t.length))];
  return { p50: q(0.5), p99: q(0.99) };
}

async function measure(fn, make, iters) {
  for (let i = 0; i < Math.min(50, iters); i++) await fn(make()); // warm up
  const times = [];
  for (let i = 0; i < iters; i++) {
    const args = make();
    const t0 = performance.now();
    await fn(args);
    times.push((performance.now() - t0) * 1000);
  }
  return stats(times);
}

async function child() {
  const t0 = performance.now();
  const { createEngine } = await import(path.join(dist, "engine.mjs"));
  const plugin = (await import(path.join(dist, "index.mjs"))).default;
  const engine = await createEngine({ options: { cliPath: process.execPath }, runner, cwd: root });
  const initMs = performance.now() - t0;
  // The plugin as OpenCode calls it (no CLI here: measures load + init + discovery).
  const t1 = performance.now();
  const hooks = await plugin.server({ client: { app: { log: async () => {} } }, directory: root, worktree: root }, { cliPath: process.execPath });
  const pluginInitMs = performance.now() - t1;
  void hooks;

  const hw = engine._hw; // the same instance type the plugin uses, with the instant runner
  const ours = (args) => hw.toolBefore({ tool: "task", sessionId: "s", callId: "c", args });
  const base = (args) => baselineBefore("task", args);
  const rows = [];
  for (const [label, size, iters] of [["1 KB", 1024, 3000], ["100 KB", 100 * 1024, 400], ["1 MB", 1024 * 1024, 60]]) {
    for (const links of [0, 3]) {
      const t = text(size, links);
      const make = () => ({ description: "bench", prompt: t, subagent_type: "general" });
      // check both sides do the work
      const a = make();
      await ours(a);
      const b = make();
      await base(b);
      if (links && !(a.prompt.includes("## [[auth]]") && b.prompt.includes("## [[auth]]"))) throw new Error("a side did not add context");
      const o = await measure(ours, make, iters);
      const p = await measure(base, make, iters);
      rows.push({ label, links, ours: o, base: p });
    }
  }
  process.stdout.write(JSON.stringify({ runtime, initMs, pluginInitMs, rows }));
}

// "engine load + init" alone, in a fresh process (the window child() times): wall, the main
// thread's CPU (Linux: /proc/self/task/<pid>/schedstat, what the wall is on an idle machine)
// and the whole process's CPU (V8 and JavaScriptCore compile the wasm on other threads too).
async function startup() {
  const mainMs = () => {
    try {
      return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
    } catch {
      return NaN;
    }
  };
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const m0 = mainMs();
  const c0 = cpuMs();
  const t0 = performance.now();
  const { createEngine } = await import(path.join(dist, "engine.mjs"));
  await import(path.join(dist, "index.mjs"));
  await createEngine({ options: { cliPath: process.execPath }, runner, cwd: root });
  process.stdout.write(JSON.stringify({ wall: performance.now() - t0, main: mainMs() - m0, cpu: cpuMs() - c0 }));
}

/** STARTUP_RUNS fresh processes per runtime: the medians of the start-up window. */
function startupRuns(cmd) {
  const runs = Number(process.env.STARTUP_RUNS) || 9;
  const rows = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(cmd, [fileURLToPath(import.meta.url), "--startup"], { encoding: "utf8" });
    if (r.status === 0) rows.push(JSON.parse(r.stdout));
  }
  const med = (k) => {
    const v = rows.map((r) => r[k]).sort((a, b) => a - b);
    return v.length ? v[v.length >> 1] : NaN;
  };
  return { runs: rows.length, wall: med("wall"), main: med("main"), cpu: med("cpu") };
}

function fmt(us) {
  return us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`;
}

async function main() {
  const results = [];
  const runs = [["node", [process.execPath]], ["bun", [path.join(root, "node_modules/.bin/bun")]]];
  for (const [name, cmd] of process.env.STARTUP_ONLY === "1" ? [] : runs) {
    if (!fs.existsSync(cmd[0])) {
      console.log(`(${name} not found, skipped)`);
      continue;
    }
    const r = spawnSync(cmd[0], [fileURLToPath(import.meta.url), "--child"], { encoding: "utf8", maxBuffer: 1 << 24 });
    if (r.status !== 0) {
      console.error(`${name} run failed:\n${r.stderr}`);
      process.exitCode = 1;
      continue;
    }
    results.push(JSON.parse(r.stdout));
  }
  const wasm = fs.readFileSync(path.join(dist, "hookwise_bg.wasm"));
  console.log(`\nhookwise tool.execute.before overhead (task prompt; instant knowledge source)`);
  console.log(`wasm: ${wasm.length} bytes raw, ${zlib.gzipSync(wasm, { level: 9 }).length} bytes gzipped (target ≤ 300 KB gzipped)\n`);
  console.log("| runtime | args | links | hookwise p50 | p99 | plain JS p50 | p99 | ratio p50 |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const res of results) {
    for (const r of res.rows) {
      console.log(`| ${res.runtime} | ${r.label} | ${r.links} | ${fmt(r.ours.p50)} | ${fmt(r.ours.p99)} | ${fmt(r.base.p50)} | ${fmt(r.base.p99)} | ${(r.ours.p50 / r.base.p50).toFixed(2)}× |`);
    }
  }
  console.log("");
  for (const res of results) console.log(`${res.runtime}: engine load + init ${res.initMs.toFixed(1)} ms; plugin init (OpenCode server()) ${res.pluginInitMs.toFixed(1)} ms (target ≤ 50 ms)`);
  // the same window again, in fresh processes: medians, and the CPU beside the wall (a shared
  // machine inflates the wall; the main thread's CPU is what it is on an idle one)
  console.log("\n| runtime | engine load + init: wall p50 | main-thread CPU p50 | process CPU p50 | runs |\n|---|---|---|---|---|");
  for (const [name, cmd] of runs) {
    if (!fs.existsSync(cmd[0])) continue;
    const s = startupRuns(cmd[0]);
    console.log(`| ${name} | ${s.wall.toFixed(1)} ms | ${s.main.toFixed(1)} ms | ${s.cpu.toFixed(1)} ms | ${s.runs} |`);
  }
  console.log(`(target ≤ 50 ms; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} on ${os.cpus().length} cores)`);
}

if (process.argv.includes("--startup")) await startup();
else if (process.argv.includes("--child")) await child();
else await main();

// node scripts/bench-report.mjs [records] [--old] — `hookwise trace report` for a project with 10,000
// Agent Trace records (default): the time to make the page, its size, and its load in headless
// Chromium (puppeteer-core; HOOKWISE_CHROMIUM or /usr/bin/chromium). Prints figures; asserts
// nothing.
//
// The records are the engine's own: one written through the hooks, then copied with other
// ids, times, intents, models, files and ranges, each chained onto the one before (what
// verification checks), with the head written for the whole log — so the page shows a log
// that verifies. 250 files of 240 lines each, written under 8 intents by 4 agents. Each record
// carries what blame reads (the range's content hash, its lines' hashes); with --old, records
// as hookwise wrote them before line hashes whose text is no longer in the file (blame then
// searches the whole file for every range: its worst case).
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "pkg/dist");
const N = Number(process.argv[2] || 10_000);
const FILES = 250;
const LINES = 240;
const INTENTS = 8;
const MODELS = ["anthropic/claude-sonnet-4", "openai/gpt-5", "google/gemini-2.5-pro", "qwen/qwen3-coder"];
const HOSTS = ["claude-code", "opencode", "gemini", "qwen"];
const sha = (s) => crypto.createHash("sha256").update(s).digest("hex");
// blame's per-line hash (src/governance/trace.rs `line_hash`): 36 bits of SHA-256, 6 base64url characters
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const lineHash = (l) => {
  const d = crypto.createHash("sha256").update(l).digest();
  const bits = (BigInt(d.readUIntBE(0, 5)) >> 4n);
  let o = "";
  for (let i = 5; i >= 0; i--) o += B64[Number((bits >> BigInt(6 * i)) & 63n)];
  return o;
};
const OLD = process.argv.includes("--old");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-report-"));
const env = { PATH: path.dirname(process.execPath), HOME: dir, MAENIFOLD_ROOT: path.join(dir, "none") };
fs.mkdirSync(path.join(dir, ".orchestration"));
fs.writeFileSync(
  path.join(dir, ".orchestration/active_intents.yaml"),
  `active_intents:\n${Array.from({ length: INTENTS }, (_, i) => `  - id: INT-${i + 1}\n    name: Feature ${i + 1}\n    status: IN_PROGRESS\n    owned_scope: ["src/**"]\n`).join("")}`,
);
for (let f = 0; f < FILES; f++) {
  fs.mkdirSync(path.join(dir, `src/m${f % 10}`), { recursive: true });
  fs.writeFileSync(path.join(dir, `src/m${f % 10}/file${f}.ts`), Array.from({ length: LINES }, (_, l) => `export const v${l} = compute(${f}, ${l}); // line ${l + 1}`).join("\n") + "\n");
}

// one record through the engine's hooks: the template
const { createEngine } = require(path.join(dist, "engine.cjs"));
const engine = await createEngine({ cwd: dir, env });
await engine.selectIntent("s", "INT-1");
const params = { path: "src/template.ts", content: "export {};\n" };
const pre = await engine.executePreHook({ toolName: "write_to_file", params, sessionId: "s" });
if (pre.blocked) throw new Error(pre.reason);
fs.writeFileSync(path.join(dir, params.path), params.content);
await engine.executePostHook({ toolName: "write_to_file", params, sessionId: "s", callId: pre.callId });
await engine.dispose();
const segs = path.join(dir, ".orchestration/trace");
const template = JSON.parse(fs.readFileSync(path.join(segs, fs.readdirSync(segs).find((f) => f.endsWith(".jsonl"))), "utf8").trim());
fs.rmSync(segs, { recursive: true });
delete template.metadata["dev.hookwise"].segment;
delete template.metadata["dev.hookwise"].branch;

let prev = sha("");
const out = [];
const t0 = Date.parse("2026-11-01T08:00:00.000Z");
const fileLines = (f) => fs.readFileSync(path.join(dir, `src/m${f % 10}/file${f}.ts`), "utf8").split("\n").slice(0, LINES);
const cache = new Map();
for (let i = 0; i < N; i++) {
  const r = structuredClone(template);
  const f = (i * 7) % FILES;
  const start = 1 + ((i * 13) % (LINES - 10));
  r.id = crypto.randomUUID();
  r.timestamp = new Date(t0 + i * 90_000).toISOString();
  const end = start + 1 + (i % 8);
  const p = `src/m${f % 10}/file${f}.ts`;
  if (!cache.has(f)) cache.set(f, fileLines(f));
  const ls = cache.get(f);
  const hashes = (a) => a.map(lineHash).join("");
  const contentHash = `sha256:${sha(ls.slice(start - 1, end).map((l) => l + "\n").join(""))}`;
  r.files = [{ path: p, conversations: [{ contributor: { type: "ai", model_id: MODELS[i % 4] }, ranges: [{ start_line: start, end_line: end, content_hash: OLD ? `sha256:${sha(String(i))}` : contentHash }] }] }];
  const m = r.metadata["dev.hookwise"];
  Object.assign(m, { intent_id: `INT-${1 + (i % INTENTS)}`, session_id: `s${i % 40}`, call_id: `c${i}`, host: HOSTS[i % 4] });
  delete m.blame;
  if (!OLD) m.blame = [{ path: p, ranges: [{ pre: hashes(ls.slice(Math.max(0, start - 4), start - 1)), lines: hashes(ls.slice(start - 1, end)), post: hashes(ls.slice(end, end + 3)) }] }];
  delete m.prev_hash;
  m.prev_hash = `sha256:${prev}`;
  const line = JSON.stringify(r);
  prev = sha(line);
  out.push(line);
}
const log = out.join("\n") + "\n";
fs.writeFileSync(path.join(dir, ".orchestration/agent_trace.jsonl"), log);
fs.writeFileSync(path.join(dir, ".orchestration/agent_trace.head"), `{"records":${N},"bytes":${Buffer.byteLength(log)},"last":"sha256:${prev}"}\n`);

const report = path.join(dir, "report.html");
let t = performance.now();
const cli = execFileSync(process.execPath, [path.join(dist, "cli.mjs"), "trace", "report", "--out", report, "--cwd", dir], { env, encoding: "utf8" });
const makeMs = performance.now() - t;
const bytes = fs.statSync(report).size;
console.log(cli.trim());
console.log(`records: ${N} (log ${(Buffer.byteLength(log) / 1e6).toFixed(1)} MB), ${FILES} files of ${LINES} lines`);
console.log(`trace report (the whole command, node ${process.versions.node}): ${makeMs.toFixed(0)} ms`);
console.log(`page: ${(bytes / 1e6).toFixed(2)} MB, ${(require("node:zlib").gzipSync(fs.readFileSync(report)).length / 1e6).toFixed(2)} MB gzipped`);

const chromium = [process.env.HOOKWISE_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && fs.existsSync(p));
if (!chromium) {
  console.log("no Chromium: the load time is not measured");
  process.exit(0);
}
const { default: puppeteer } = await import("puppeteer-core");
const b = await puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
const runs = [];
for (let k = 0; k < 5; k++) {
  const page = await b.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  t = performance.now();
  await page.goto(pathToFileURL(report).href, { waitUntil: "load" });
  const wall = performance.now() - t;
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType("navigation")[0];
    const fcp = performance.getEntriesByName("first-contentful-paint")[0];
    return { dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, fcp: fcp ? fcp.startTime : null, nodes: document.getElementsByTagName("*").length };
  });
  runs.push({ wall, ...nav });
  await page.close();
}
await b.close();
const med = (k) => runs.map((r) => r[k]).sort((a, b) => a - b)[2];
console.log(`Chromium ${execFileSync(chromium, ["--version"], { encoding: "utf8" }).trim()}, median of 5 loads from file://:`);
console.log(`  first contentful paint ${med("fcp").toFixed(0)} ms, DOMContentLoaded ${med("dcl").toFixed(0)} ms, load ${med("load").toFixed(0)} ms, goto() wall ${med("wall").toFixed(0)} ms; ${runs[0].nodes} elements`);
if (process.env.KEEP) console.log("kept", dir); else fs.rmSync(dir, { recursive: true, force: true });

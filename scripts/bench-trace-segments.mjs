// node scripts/bench-trace-segments.mjs [records] [segments] [--baseline DIST] — `hookwise trace
// verify` and `hookwise trace blame` on an Agent Trace of 100,000 records (default) kept in 50
// segments (default), side by side with the same records in one single-file log (what hookwise
// wrote before segments). With --baseline, the single-file log is also verified and blamed by
// another build's pkg/dist (e.g. the main branch's, "today"). Prints figures; asserts nothing.
//
// The records are the engine's own: one written through the hooks, then copied with other ids,
// times, sessions, files and ranges, each chained onto the one before in its segment (or in the
// one log), the heads written — a trace that verifies. Each run is the whole command (a fresh
// node: engine start, reads, verification; blame also its file); the median of 3 runs.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "pkg/dist");
const args = process.argv.slice(2);
const flag = (k) => {
  const i = args.indexOf(k);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const baseline = flag("--baseline");
const N = Number(args[0] || 100_000);
const K = Number(args[1] || 50);
const FILES = 200;
const LINES = 400;
const sha = (s) => crypto.createHash("sha256").update(s).digest("hex");
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const lineHash = (l) => {
  const d = crypto.createHash("sha256").update(l).digest();
  const bits = BigInt(d.readUIntBE(0, 5)) >> 4n;
  let o = "";
  for (let i = 5; i >= 0; i--) o += B64[Number((bits >> BigInt(6 * i)) & 63n)];
  return o;
};

function project(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hookwise-bench-seg-${name}-`));
  fs.mkdirSync(path.join(dir, ".orchestration"));
  fs.writeFileSync(path.join(dir, ".orchestration/active_intents.yaml"), `active_intents:\n  - id: INT-1\n    name: Feature\n    status: IN_PROGRESS\n    owned_scope: ["src/**"]\n`);
  fs.mkdirSync(path.join(dir, "src"));
  for (let f = 0; f < FILES; f++) fs.writeFileSync(path.join(dir, `src/file${f}.ts`), Array.from({ length: LINES }, (_, l) => `export const v${l} = compute(${f}, ${l}); // line ${l + 1}`).join("\n") + "\n");
  return dir;
}

const env = (dir) => ({ PATH: path.dirname(process.execPath), HOME: dir, MAENIFOLD_ROOT: path.join(dir, "none") });

// the template: one record through the engine's hooks
const seed = project("seed");
const { createEngine } = require(path.join(dist, "engine.cjs"));
const engine = await createEngine({ cwd: seed, env: env(seed) });
await engine.selectIntent("s", "INT-1");
const params = { path: "src/template.ts", content: "export {};\n" };
const pre = await engine.executePreHook({ toolName: "write_to_file", params, sessionId: "s" });
if (pre.blocked) throw new Error(pre.reason);
fs.writeFileSync(path.join(seed, params.path), params.content);
await engine.executePostHook({ toolName: "write_to_file", params, sessionId: "s", callId: pre.callId });
await engine.dispose();
const segDir = path.join(seed, ".orchestration/trace");
const template = JSON.parse(fs.readFileSync(path.join(segDir, fs.readdirSync(segDir).find((f) => f.endsWith(".jsonl"))), "utf8").trim());

const lines = new Map();
const fileLines = (f) => {
  if (!lines.has(f)) lines.set(f, fs.readFileSync(path.join(seed, `src/file${f}.ts`), "utf8").split("\n").slice(0, LINES));
  return lines.get(f);
};
const t0 = Date.parse("2026-11-01T08:00:00.000Z");
/** Record i (of segment `seg`, or of the single-file log when `seg` is null), without its prev_hash. */
function rec(i, seg) {
  const r = structuredClone(template);
  const f = (i * 7) % FILES;
  const start = 1 + ((i * 13) % (LINES - 10));
  const end = start + 1 + (i % 8);
  const ls = fileLines(f);
  const p = `src/file${f}.ts`;
  r.id = crypto.randomUUID();
  r.timestamp = new Date(t0 + i * 1000).toISOString();
  r.files = [{ path: p, conversations: [{ contributor: { type: "ai", model_id: "anthropic/claude-sonnet-4" }, ranges: [{ start_line: start, end_line: end, content_hash: `sha256:${sha(ls.slice(start - 1, end).map((l) => l + "\n").join(""))}` }] }] }];
  const m = r.metadata["dev.hookwise"];
  m.session_id = seg === null ? `s${i % K}` : `s${seg}`;
  m.call_id = `c${i}`;
  const h = (a) => a.map(lineHash).join("");
  m.blame = [{ path: p, ranges: [{ pre: h(ls.slice(Math.max(0, start - 4), start - 1)), lines: h(ls.slice(start - 1, end)), post: h(ls.slice(end, end + 3)) }] }];
  delete m.segment;
  delete m.branch;
  delete m.prev_hash;
  if (seg !== null) {
    m.branch = "main";
    m.segment = segName(seg);
  }
  return r;
}
const segName = (k) => sha(`bench segment ${k}`).slice(0, 16);

function chain(recs) {
  let prev = sha("");
  const out = [];
  for (const r of recs) {
    r.metadata["dev.hookwise"].prev_hash = `sha256:${prev}`;
    const line = JSON.stringify(r);
    prev = sha(line);
    out.push(line);
  }
  const text = out.join("\n") + "\n";
  return { text, head: `{"records":${out.length},"bytes":${Buffer.byteLength(text)},"last":"sha256:${prev}"}\n` };
}

// the same N records: one log, or K segments (record i in segment i % K: K sessions at once)
const single = project("single");
for (let f = 0; f < FILES; f++) fs.copyFileSync(path.join(seed, `src/file${f}.ts`), path.join(single, `src/file${f}.ts`));
{
  const recs = Array.from({ length: N }, (_, i) => rec(i, null));
  const c = chain(recs);
  fs.writeFileSync(path.join(single, ".orchestration/agent_trace.jsonl"), c.text);
  fs.writeFileSync(path.join(single, ".orchestration/agent_trace.head"), c.head);
}
const segmented = project("segments");
for (let f = 0; f < FILES; f++) fs.copyFileSync(path.join(seed, `src/file${f}.ts`), path.join(segmented, `src/file${f}.ts`));
fs.mkdirSync(path.join(segmented, ".orchestration/trace"));
let bytes = 0;
for (let k = 0; k < K; k++) {
  const recs = [];
  for (let i = k; i < N; i += K) recs.push(rec(i, k));
  const c = chain(recs);
  bytes += Buffer.byteLength(c.text);
  fs.writeFileSync(path.join(segmented, `.orchestration/trace/${segName(k)}.jsonl`), c.text);
  fs.writeFileSync(path.join(segmented, `.orchestration/trace/${segName(k)}.head`), c.head);
}

function time(d, dir, argv) {
  const runs = [];
  let out = "";
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    try {
      out = execFileSync(process.execPath, [path.join(d, "cli.mjs"), ...argv, "--cwd", dir], { env: env(dir), cwd: dir, encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      out = `${e.stdout}${e.stderr}`;
    }
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  return { ms: runs[1], out };
}

const BLAME = "src/file7.ts";
const rows = [];
const row = (what, d, dir) => {
  const v = time(d, dir, ["trace", "verify"]);
  const b = time(d, dir, ["trace", "blame", BLAME]);
  rows.push({ what, verify: v.ms, blame: b.ms, verdict: v.out.trim().split("\n").pop(), header: b.out.split("\n")[0] });
};
// an empty project: what the command costs before it reads any record
const empty = project("empty");
row("no records (the command's own start)", dist, empty);
row(`${N} records, one single-file log`, dist, single);
row(`${N} records in ${K} segments`, dist, segmented);
if (baseline) row(`${N} records, one single-file log, --baseline build`, baseline, single);

console.log(`${N} records (${(bytes / 1e6).toFixed(1)} MB), ${FILES} files of ${LINES} lines; node ${process.versions.node}; median of 3 whole commands`);
const base = rows[0];
console.log("| trace | `trace verify` | per record | `trace blame` (one file) | per record |");
console.log("|---|---|---|---|---|");
for (const r of rows) {
  // per record: the time above the command's own start, over the records
  const per = (ms, b) => (r === base ? "" : `${(((ms - b) * 1000) / N).toFixed(1)} µs`);
  console.log(`| ${r.what} | ${r.verify.toFixed(0)} ms | ${per(r.verify, base.verify)} | ${r.blame.toFixed(0)} ms | ${per(r.blame, base.blame)} |`);
}
for (const r of rows) console.log(`${r.what}:\n  verify: ${r.verdict}\n  blame: ${r.header}`);
for (const d of [seed, single, segmented, empty]) fs.rmSync(d, { recursive: true, force: true });

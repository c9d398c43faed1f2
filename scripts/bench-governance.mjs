// node scripts/bench-governance.mjs [--calls N] [--records N] [--procs N]
//
// Intent governance (issue 4), through the built package (pkg/dist) the way a host calls it:
//  1. gate decision latency: `executePreHook` (the engine API a VS Code tool dispatcher calls;
//     the OpenCode plugin's tool.execute.before does the same crossing) on a project with 50
//     intents × 20 globs, for an allowed write, an out-of-scope write, a `..` bypass attempt,
//     and a call with no intent. This is the whole hook: the JS→wasm crossings, the intents
//     file read and hashed, the realpath stats, and the target file read for the stale-write
//     fingerprint — real file-system work on every call. Target: p50 ≤ 50 µs. 1b: the same
//     calls with an in-memory host that answers at once: the crossings and the decision alone.
//     The core alone (native, no I/O): `cargo test --release --lib bench_gate -- --ignored
//     --nocapture`.
//  2. trace append throughput: the host's `appendChained` (lock file, last-line hash, one
//     write, the head file replaced beside it as the core asks) from 1 process and from N
//     processes at once into one file, and whole pre-hook + write + post-hook records through
//     the engine.
// Prints figures; asserts nothing but that the chain it wrote verifies.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(repo, "pkg/dist");
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}
const CALLS = arg("calls", 3000);
const RECORDS = arg("records", 2000);
const PROCS = arg("procs", 8);
if (!fs.existsSync(path.join(dist, "engine.cjs"))) {
  console.error("no pkg/dist: run `npm run build` first");
  process.exit(1);
}
const { createEngine } = require(path.join(dist, "engine.cjs"));
const { appendChained } = require(path.join(dist, "host.cjs"));

const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-gov-")));
const env = { PATH: path.dirname(process.execPath), HOME: work, MAENIFOLD_ROOT: path.join(work, "none") };

// 50 intents × 20 globs (19 includes with braces and `**`, one exclude), like the core's bench.
let yaml = "active_intents:\n";
for (let i = 0; i < 50; i++) {
  yaml += `  - id: INT-${i}\n    name: n${i}\n    status: IN_PROGRESS\n    owned_scope:\n`;
  for (let g = 0; g < 19; g++) yaml += `      - "pkg${i}/mod${g}/**/*.{ts,tsx}"\n`;
  yaml += `      - "!pkg${i}/**/generated/**"\n`;
}
const proj = path.join(work, "proj");
fs.mkdirSync(path.join(proj, ".orchestration"), { recursive: true });
fs.writeFileSync(path.join(proj, ".orchestration/active_intents.yaml"), yaml);
for (const f of ["pkg25/mod7/deep/x/file.tsx", "pkg25/other/file.ts", "pkg26/mod1/a.ts"]) {
  fs.mkdirSync(path.dirname(path.join(proj, f)), { recursive: true });
  fs.writeFileSync(path.join(proj, f), "export const x = 1;\n".repeat(20));
}

const pct = (xs, q) => xs[Math.min(xs.length - 1, Math.floor((xs.length - 1) * q))];
const fmt = (us) => (us < 1000 ? `${us.toFixed(1)} µs` : `${(us / 1000).toFixed(2)} ms`);

async function gateBench() {
  const engine = await createEngine({ cwd: proj, env });
  if (!engine.governance) throw new Error("governance is not on in the bench project");
  await engine.selectIntent("s", "INT-25");
  const cases = [
    ["allowed write (in scope)", "s", { filePath: "pkg25/mod7/deep/x/file.tsx", content: "x" }],
    ["blocked write (out of scope)", "s", { filePath: "pkg25/other/file.ts", content: "x" }],
    ["blocked bypass (pkg25/../pkg26/…)", "s", { filePath: "pkg25/../pkg26/mod1/a.ts", content: "x" }],
    ["blocked (no intent)", "other", { filePath: "pkg25/mod7/deep/x/file.tsx", content: "x" }],
  ];
  console.log(`\n1. gate decision through executePreHook, ${runtime}, 50 intents × 20 globs, ${CALLS} calls each`);
  console.log("| case | decision | p50 | p99 | mean |");
  console.log("|---|---|---|---|---|");
  for (const [name, session, params] of cases) {
    for (let i = 0; i < 200; i++) await engine.executePreHook({ toolName: "write", params, sessionId: session }); // warm
    const xs = [];
    let last;
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      last = await engine.executePreHook({ toolName: "write", params, sessionId: session });
      xs.push((performance.now() - t0) * 1000);
    }
    xs.sort((a, b) => a - b);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`| ${name} | ${last.blocked ? "blocked" : "allowed"} | ${fmt(pct(xs, 0.5))} | ${fmt(pct(xs, 0.99))} | ${fmt(mean)} |`);
  }
  // a tool governance does not watch: no crossing at all
  const xs = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await engine.executePreHook({ toolName: "grep", params: { pattern: "x" }, sessionId: "s" });
    xs.push((performance.now() - t0) * 1000);
  }
  xs.sort((a, b) => a - b);
  console.log(`| unwatched tool (grep) | allowed | ${fmt(pct(xs, 0.5))} | ${fmt(pct(xs, 0.99))} | – |`);
}

/** The same decisions with an in-memory host that answers at once (stat/readFile from a Map):
 * the JS→wasm crossings and the core's decision, without the file system's time. */
async function gateBenchInMemory() {
  const { Hookwise } = require(path.join(dist, "hookwise.cjs"));
  const files = new Map();
  const dirs = new Set();
  const walk = (abs) => {
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const p = path.join(abs, e.name);
      if (e.isDirectory()) {
        dirs.add(p);
        walk(p);
      } else files.set(p, fs.readFileSync(p, "utf8"));
    }
  };
  for (let d = proj; d !== "/"; d = path.dirname(d)) dirs.add(d);
  dirs.add("/");
  walk(proj);
  const done = (v) => ({ promise: Promise.resolve(v), cancel() {} });
  const mem = {
    run(req) {
      const p = req.path && path.resolve(req.path);
      switch (req.kind) {
        case "stat":
          if (files.has(p)) return done({ exists: true, realpath: p, isFile: true, isDir: false, size: files.get(p).length, mtimeMs: 1 });
          if (dirs.has(p)) return done({ exists: true, realpath: p, isFile: false, isDir: true, size: 0, mtimeMs: 1 });
          return done({ exists: false, error: "ENOENT" });
        case "readFile":
          return done(files.has(p) ? { text: files.get(p) } : { error: dirs.has(p) ? "EISDIR" : "vanished" });
        case "now":
          return done({ ms: Date.now() });
        default:
          return done({ error: `not in the in-memory host: ${req.kind}` });
      }
    },
  };
  const hw = new Hookwise({ cwd: proj, env });
  hw.host = mem;
  await hw.init();
  await hw.selectIntent("s", "INT-25");
  console.log(`\n1b. the same through the engine with an in-memory host (crossings + decision, no file-system time), ${runtime}`);
  console.log("| case | decision | p50 | p99 |");
  console.log("|---|---|---|---|");
  const cases = [
    ["allowed write (in scope)", "s", { filePath: "pkg25/mod7/deep/x/file.tsx", content: "x" }],
    ["blocked write (out of scope)", "s", { filePath: "pkg25/other/file.ts", content: "x" }],
    ["blocked bypass (pkg25/../pkg26/…)", "s", { filePath: "pkg25/../pkg26/mod1/a.ts", content: "x" }],
    ["blocked (no intent)", "other", { filePath: "pkg25/mod7/deep/x/file.tsx", content: "x" }],
  ];
  let id = 0;
  for (const [name, session, params] of cases) {
    const call = () => hw.toolBefore({ tool: "write", sessionId: session, callId: `c${++id}`, args: { ...params } });
    for (let i = 0; i < 200; i++) await call();
    const xs = [];
    let last;
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      last = await call();
      xs.push((performance.now() - t0) * 1000);
    }
    xs.sort((a, b) => a - b);
    console.log(`| ${name} | ${last && last.block ? "blocked" : "allowed"} | ${fmt(pct(xs, 0.5))} | ${fmt(pct(xs, 0.99))} |`);
  }
}

// The head as the core asks for it (src/governance/head.rs PARTS; lock timings in trace_io.rs).
const HEAD = { headParts: ['{"records":', ',"bytes":', ',"last":"sha256:', '"}\n'], breakMs: 1000 };

async function appendOne(file, n, tag) {
  const lock = `${file}.lock`;
  for (let i = 0; i < n; i++) {
    const r = await appendChained({ path: file, lockPath: lock, before: `{"id":"${tag}-${i}","prev_hash":"`, after: `"}`, staleMs: 10000, waitMs: 30000, headPath: `${file}.head`, ...HEAD });
    if (!r.ok) throw new Error(r.error);
  }
}

function verifyRaw(file) {
  const crypto = require("node:crypto");
  const lines = fs.readFileSync(file, "utf8").slice(0, -1).split("\n");
  let prev = crypto.createHash("sha256").update("").digest("hex");
  for (const l of lines) {
    if (JSON.parse(l).prev_hash !== prev) throw new Error("chain broken");
    prev = crypto.createHash("sha256").update(l).digest("hex");
  }
  const head = JSON.parse(fs.readFileSync(`${file}.head`, "utf8"));
  if (head.records !== lines.length || head.last !== `sha256:${prev}`) throw new Error("the head does not match the log");
  return lines.length;
}

async function appendBench() {
  console.log(`\n2. trace append throughput (${runtime}, ${os.cpus().length} CPUs)`);
  console.log("| what | records | time | records/s |");
  console.log("|---|---|---|---|");
  const f1 = path.join(work, "one.jsonl");
  let t0 = performance.now();
  await appendOne(f1, RECORDS, "p0");
  let ms = performance.now() - t0;
  console.log(`| host appendChained, 1 process | ${verifyRaw(f1)} | ${ms.toFixed(0)} ms | ${Math.round(RECORDS / (ms / 1000))} |`);

  const fN = path.join(work, "many.jsonl");
  const child = path.join(work, "append-child.cjs");
  fs.writeFileSync(
    child,
    `const { appendChained } = require(${JSON.stringify(path.join(dist, "host.cjs"))});
(async () => { const [f, n, tag] = [process.argv[2], Number(process.argv[3]), process.argv[4]];
  for (let i = 0; i < n; i++) { const r = await appendChained({ path: f, lockPath: f + ".lock", before: '{"id":"' + tag + "-" + i + '","prev_hash":"', after: '"}', staleMs: 10000, waitMs: 60000, headPath: f + ".head", ...${JSON.stringify(HEAD)} }); if (!r.ok) throw new Error(r.error); }
})().catch((e) => { console.error(e); process.exit(1); });\n`,
  );
  const per = Math.ceil(RECORDS / PROCS);
  t0 = performance.now();
  await Promise.all(Array.from({ length: PROCS }, (_, p) => new Promise((ok, fail) => execFile(process.execPath, [child, fN, String(per), `p${p}`], (e) => (e ? fail(e) : ok())))));
  ms = performance.now() - t0;
  console.log(`| host appendChained, ${PROCS} processes at once (incl. process start) | ${verifyRaw(fN)} | ${ms.toFixed(0)} ms | ${Math.round((per * PROCS) / (ms / 1000))} |`);

  // whole records: pre-hook, the write, post-hook (read the file, ranges, hash, append)
  const engine = await createEngine({ cwd: proj, env });
  await engine.selectIntent("s", "INT-25");
  const n = Math.min(RECORDS, 1000);
  t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const params = { filePath: "pkg25/mod7/deep/x/file.tsx", content: `export const x = ${i};\n`.repeat(20) };
    const pre = await engine.executePreHook({ toolName: "write", params, sessionId: "s" });
    fs.writeFileSync(path.join(proj, params.filePath), params.content);
    const post = await engine.executePostHook({ toolName: "write", params, sessionId: "s", callId: pre.callId });
    if (!post.recorded) throw new Error("not recorded");
  }
  ms = performance.now() - t0;
  const v = await engine.verifyTrace();
  if (!v.ok) throw new Error("the trace does not verify");
  console.log(`| engine: pre-hook + write + post-hook record, 1 process | ${v.lines} | ${ms.toFixed(0)} ms | ${Math.round(n / (ms / 1000))} |`);
}

try {
  await gateBench();
  await gateBenchInMemory();
  await appendBench();
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

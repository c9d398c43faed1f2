// The knowledge tools' own cost through the engine API (`engine.callTool`, the wasm core and
// the JS host as a plugin runs them) on the 10,000-note bench vault, written exactly as
// scripts/bench-vault.mjs writes it (same generator, same seed). Prints p50/p95 of
// knowledge_search and knowledge_context (and knowledge_read) against the targets
// (search p50 ≤ 5 ms, context p50 ≤ 2 ms); asserts nothing.
//
//     node scripts/bench-tools.mjs [NOTES]        (needs pkg/: npm run build)
//     node_modules/.bin/bun scripts/bench-tools.mjs [NOTES]
//
// ROUNDS=n sets the samples per tool (300). Each sample asks something no earlier sample asked.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { benchVault, DIRS, relOf, normalize } from "./bench-vault-notes.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "pkg/dist");
const require = createRequire(import.meta.url);
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
const N = Number(process.argv[2]) || 10_000;
const ROUNDS = Number(process.env.ROUNDS) || 300;

if (!fs.existsSync(path.join(dist, "engine.cjs"))) {
  console.error("no pkg/dist: run `npm run build` first");
  process.exit(1);
}
const { createEngine } = require(path.join(dist, "engine.cjs"));

// ---- the vault ------------------------------------------------------------------------------
const { r, word, WORDS, CONCEPTS, note } = benchVault();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-tools-"));
const vault = path.join(tmp, "vault");
for (const d of DIRS) fs.mkdirSync(path.join(vault, d), { recursive: true });
for (let i = 0; i < N; i++) fs.writeFileSync(path.join(vault, relOf(i)), note(i, i % 500 === 0));
console.log(`hookwise knowledge-tools benchmark (${runtime}, ${os.cpus().length} cpus, load ${os.loadavg()[0].toFixed(1)})`);

const pct = (v, p) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round((s.length - 1) * p))];
};
const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

// The index is refreshed at most once an hour here: the figures are the tools' own cost, not
// the re-listing a refresh does (scripts/bench-vault.mjs measures that).
const t0 = performance.now();
const engine = await createEngine({ cwd: tmp, env: { PATH: "", HOME: tmp }, options: { knowledge: "vault", vault, vaultRefreshMs: 3_600_000 }, log: () => {} });
console.log(`indexed ${(await engine.doctor()).vault.index.files} notes in ${ms(performance.now() - t0)} ms; tools: ${engine.tools().map((t) => t.name).join(", ")}`);

async function bench(name, inputOf) {
  const times = [];
  let chars = 0;
  let cut = 0;
  let errors = 0;
  let last = null;
  for (let i = 0; i < 20; i++) await engine.callTool(name, inputOf(i + 100_000)); // warm-up
  for (let i = 0; i < ROUNDS; i++) {
    const input = inputOf(i);
    const t = performance.now();
    const r = await engine.callTool(name, input);
    times.push(performance.now() - t);
    chars += r.text.length;
    if (r.isError) errors++;
    if (/\[hookwise: cut to fit/.test(r.text)) cut++;
    last = r;
  }
  return { name, p50: pct(times, 0.5), p95: pct(times, 0.95), chars: chars / ROUNDS, cut, errors, last };
}

const query = (i) => ({ query: `${WORDS[(i * 37) % 400]} ${WORDS[(i * 101 + 7) % 2000]}`, limit: 5 });
const concept = (i) => ({ concept: normalize(CONCEPTS[(i * 7919) % CONCEPTS.length]) });
const ids = [];
{
  const r = await engine.callTool("knowledge_search", { query: WORDS[3], limit: 20 });
  for (const m of r.text.matchAll(/memory:\/\/[\w./-]+/g)) ids.push(m[0]);
}
const results = [
  [await bench("knowledge_search", query), 5],
  [await bench("knowledge_context", concept), 2],
  [await bench("knowledge_read", (i) => ({ id: ids[i % ids.length] })), null],
];
for (const [r, target] of results) {
  console.log(
    `${r.name.padEnd(18)} p50 ${ms(r.p50)} ms  p95 ${ms(r.p95)} ms  (${ROUNDS} calls, ${Math.round(r.chars)} chars an answer, ${r.cut} cut, ${r.errors} errors)` +
      (target ? `  target p50 ≤ ${target} ms: ${r.p50 <= target ? "met" : "NOT met"}` : ""),
  );
}
console.log("\nexample knowledge_search answer:\n" + results[0][0].last.text.split("\n").slice(0, 6).join("\n"));
await engine.dispose();
fs.rmSync(tmp, { recursive: true, force: true });

// The tables of scripts/bench-compare.sh: reads the saved outputs of one benchmark's runs
// against two builds (DIR/NAME.base.N.txt and DIR/NAME.now.N.txt, runs alternated) and prints
// one markdown table: metric, base, now, now/base, and the spread of the runs.
//
//     node scripts/bench-compare-table.mjs DIR NAME
//
// The benchmarks print their figures for people (markdown tables, `label 1.2 ms` lines), not as
// JSON, and the base build's scripts are what they were, so figures are read from the text:
// every number with a unit (µs, ms, s, records/s, ×, …) in a table row becomes the metric
// "row key · column", and in any other line "label before the numbers · word before it".
// Times are compared in one unit; each side's figure is the median of its runs. "spread" is
// the larger max/min over one build's runs: a ratio inside it is within this run's noise.
import fs from "node:fs";
import path from "node:path";

const [dir, name] = process.argv.slice(2);
const files = fs.readdirSync(dir).filter((f) => f.startsWith(`${name}.`) && f.endsWith(".txt"));

const UNIT = String.raw`(µs|ms|s|MiB|MB|KB|G|bytes|records\/s|\/s|×|%)`;
const NUM = String.raw`(-?\d[\d,]*(?:\.\d+)?)`;
const toMs = { µs: 1e-3, ms: 1, s: 1000 };
// (a target, "≤ 50 ms", or a constant, "~1.8 s", is not a figure)
const numbers = (text) =>
  [...text.matchAll(new RegExp(`${NUM}\\s*${UNIT}(?![\\w])`, "g"))]
    .filter((m) => !/[≤≥~]\s*$/.test(text.slice(0, m.index)))
    .map((m) => ({ v: Number(m[1].replace(/,/g, "")), unit: m[2], at: m.index }))
    // bench-vault's "654 ms (cpu 479)": the CPU time, in the unit of the figure before it
    .concat([...text.matchAll(/\(cpu (\d+(?:\.\d+)?)\)/g)].map((m) => ({ v: Number(m[1]), unit: "ms", at: m.index + 1, name: "cpu" })))
    .sort((a, b) => a.at - b.at);
const clean = (s) => s.replace(/\*\*/g, "").replace(/`/g, "").trim();

/** metric -> { value (ms for times), unit } from one run's output. */
function metrics(text) {
  const out = new Map();
  const put = (key, n) => {
    let k = key;
    for (let i = 2; out.has(k); i++) k = `${key} #${i}`;
    out.set(k, n.unit in toMs ? { v: n.v * toMs[n.unit], unit: "ms" } : n);
  };
  const lines = text.split("\n");
  let header = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("|")) {
      const cells = line.split("|").slice(1, -1).map(clean);
      if (/^\|[\s:-]*-{3}/.test(lines[i + 1] ?? "")) {
        header = cells;
        i++;
        continue;
      }
      if (!header) continue;
      // the row's key: the cells before the first one holding a time or a rate
      let first = cells.findIndex((c) => /\d\s*(µs|ms|s|records\/s|\/s)(?![\w])/.test(c));
      if (first < 1) first = 1;
      const key = cells.slice(0, first).join(" · ");
      for (let c = first; c < cells.length; c++) {
        const ns = numbers(cells[c]);
        const parts = (header[c] ?? `col ${c}`).split(" / ");
        ns.forEach((n, j) => put(`${key} · ${ns.length > 1 && parts.length === ns.length ? parts.slice(0, -1).join(" ").replace(/\s*\S+$/, "") + " " + parts[j].trim().split(/\s+/).pop() : header[c] ?? c}${ns.length > 1 && parts.length !== ns.length ? ` [${j + 1}]` : ""}`.replace(/\s+/g, " "), n));
      }
      continue;
    }
    header = null;
    const ns = numbers(line);
    if (!ns.length) continue;
    const label = clean(line.slice(0, ns[0].at)).replace(/[\s:;,(]+$/, "").slice(0, 60);
    for (const n of ns) {
      const before = n.name ?? clean(line.slice(0, n.at)).replace(/[\s:;,(]+$/, "").split(/\s+/).slice(-2).join(" ");
      put(label.endsWith(before) ? label : `${label} · ${before.slice(0, 30)}`, n);
    }
  }
  return out;
}

const runs = { base: [], now: [] };
for (const f of files.sort()) {
  const side = f.slice(name.length + 1).split(".")[0];
  if (side in runs) runs[side].push(metrics(fs.readFileSync(path.join(dir, f), "utf8")));
}
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (v, unit) => {
  if (v === undefined) return "—";
  if (unit === "ms") return v >= 1000 ? `${(v / 1000).toFixed(2)} s` : v >= 1 ? `${v.toPrecision(3)} ms` : `${(v * 1000).toPrecision(3)} µs`;
  return `${Number.isInteger(v) ? v : v.toPrecision(3)}${unit === "×" || unit === "%" ? "" : " "}${unit}`;
};
const keys = [...new Set([...runs.base, ...runs.now].flatMap((m) => [...m.keys()]))];
console.log(`| metric | base | now | now/base | spread |`);
console.log(`|---|---|---|---|---|`);
for (const k of keys) {
  const side = (s) => runs[s].map((m) => m.get(k)).filter(Boolean);
  const b = side("base");
  const n = side("now");
  const unit = (b[0] ?? n[0]).unit;
  const bm = b.length ? median(b.map((x) => x.v)) : undefined;
  const nm = n.length ? median(n.map((x) => x.v)) : undefined;
  const spreadOf = (xs) => (xs.length > 1 && Math.min(...xs.map((x) => x.v)) > 0 ? Math.max(...xs.map((x) => x.v)) / Math.min(...xs.map((x) => x.v)) : 1);
  const spread = Math.max(spreadOf(b), spreadOf(n));
  const ratio = bm > 0 && nm !== undefined ? nm / bm : undefined;
  const flag = ratio !== undefined && Math.abs(Math.log(ratio)) > Math.max(Math.log(spread), Math.log(1.1)) ? " ⚠" : "";
  console.log(`| ${k} | ${fmt(bm, unit)} | ${fmt(nm, unit)} | ${ratio === undefined ? "—" : `${ratio.toFixed(2)}${flag}`} | ${spread.toFixed(2)} |`);
}

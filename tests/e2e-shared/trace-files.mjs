// The Agent Trace of a project as the tests read it: the records of every segment
// (.orchestration/trace/*.jsonl) and of the single-file log of older versions
// (.orchestration/agent_trace.jsonl), merged by time as `trace blame` reads them.
import fs from "node:fs";
import path from "node:path";

/** The trace's files in `dir` (relative paths): the single-file log first, then each segment. */
export function traceFiles(dir) {
  const out = [];
  if (fs.existsSync(path.join(dir, ".orchestration/agent_trace.jsonl"))) out.push(".orchestration/agent_trace.jsonl");
  const d = path.join(dir, ".orchestration/trace");
  if (fs.existsSync(d)) for (const f of fs.readdirSync(d).filter((f) => f.endsWith(".jsonl")).sort()) out.push(`.orchestration/trace/${f}`);
  return out;
}

/** Whether the project in `dir` has any trace file. */
export const traceExists = (dir) => traceFiles(dir).length > 0;

/** Every record line, oldest first (each file's order kept); [] when there is no trace. */
export function traceLines(dir) {
  const all = [];
  for (const [k, f] of traceFiles(dir).entries()) {
    const lines = fs.readFileSync(path.join(dir, f), "utf8").split("\n").filter(Boolean);
    lines.forEach((l, i) => {
      const m = /"timestamp":"([^"]*)"/.exec(l.slice(0, 256));
      all.push({ l, t: m ? m[1] : "", k, i });
    });
  }
  all.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.k - b.k || a.i - b.i));
  return all.map((x) => x.l);
}

/** The trace as one text (each line ending in a newline); throws ENOENT when there is none. */
export function traceText(dir) {
  if (!traceExists(dir)) throw Object.assign(new Error(`ENOENT: no Agent Trace in ${dir}`), { code: "ENOENT" });
  return traceLines(dir).map((l) => l + "\n").join("");
}

/** Every record, parsed. */
export const traceRecords = (dir) => traceLines(dir).map((l) => JSON.parse(l));

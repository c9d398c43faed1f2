// The confined shell's start-up cost (issue 38): `bash -c true` as a host runs it, side by side
// with the same under `hookwise-native sandbox` with the policy a governed call gets (a scope
// folder, the build folder, the temp and cache folders, every governance path denied, the
// private TMPDIR). Runs interleaved in pairs (the machine is shared and noisy), prints the
// medians, the 90th percentiles and the median of the per-pair differences. Target: ≤ 5 ms.
//
//   cargo build --release -p hookwise-native && node scripts/bench-sandbox.mjs [runs]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = path.join(root, "target", "release", "hookwise-native");
if (!fs.existsSync(bin)) {
  console.error(`no ${bin}: cargo build --release -p hookwise-native`);
  process.exit(2);
}
const runs = Number(process.argv[2] ?? 200);

// a project like a real one: governance paths, a scope folder, a populated top level
const proj = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-sandbox-"));
for (const d of [".git", ".orchestration", ".hookwise", ".claude", "src/auth", "docs", "node_modules/hookwise", "node_modules/x"]) fs.mkdirSync(path.join(proj, d), { recursive: true });
for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(proj, `file${i}.txt`), "x");
const home = os.homedir();
const deny = [".orchestration", ".hookwise", ".git", ".claude", ".mcp.json", ".codex", ".gemini", ".qwen", ".opencode", "opencode.json", "opencode.jsonc", ".kilo", ".kilocode", "kilo.json", "kilo.jsonc", ".pi", ".cline", ".clinerules", ".github/hooks", "node_modules/hookwise", "node_modules/@hookwise"];
const policy = (scope) => [
  "--project", proj,
  ...scope.flatMap((s) => ["--write-dir", path.join(proj, s)]),
  "--build", path.join(proj, "target"),
  ...[os.tmpdir(), path.join(home, ".cache"), path.join(home, ".npm"), path.join(home, ".cargo/registry"), path.join(home, ".cargo/git")].flatMap((s) => ["--scratch", s]),
  ...deny.flatMap((d) => ["--deny", path.join(proj, d)]),
  "--tmpdir",
];
const cases = [
  ["bash -c true", "bash", ["-c", "true"]],
  ["confined, scope src/auth/**", bin, ["sandbox", ...policy(["src/auth"]), "--", "bash", "-c", "true"]],
  ["confined, scope ** (root split)", bin, ["sandbox", ...policy([""]), "--", "bash", "-c", "true"]],
];
const ms = (t) => Number(t) / 1e6;
const times = cases.map(() => []);
for (let i = 0; i < runs + 10; i++) {
  for (let c = 0; c < cases.length; c++) {
    const [, cmd, args] = cases[c];
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { cwd: proj, stdio: "ignore" });
    const t = ms(process.hrtime.bigint() - t0);
    if (r.status !== 0) throw new Error(`${cases[c][0]} exited ${r.status}`);
    if (i >= 10) times[c].push(t); // 10 warm-up rounds
  }
}
const q = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))];
console.log(`confined shell start-up, ${runs} interleaved runs each (ms, wall, spawned from Node)`);
console.log(`${"case".padEnd(34)} ${"median".padStart(8)} ${"p90".padStart(8)} ${"overhead (median of pairs)".padStart(28)}`);
for (let c = 0; c < cases.length; c++) {
  const diffs = times[c].map((t, i) => t - times[0][i]);
  console.log(`${cases[c][0].padEnd(34)} ${q(times[c], 0.5).toFixed(2).padStart(8)} ${q(times[c], 0.9).toFixed(2).padStart(8)} ${(c ? q(diffs, 0.5).toFixed(2) : "-").padStart(28)}`);
}
fs.rmSync(proj, { recursive: true, force: true });

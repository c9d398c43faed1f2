// How long one maenifold CLI call takes through the host's spawn (js/host.cjs), against the
// fake maenifold, with and without children left behind (tests/fake-maenifold/lib/children.mjs):
// ending the call's process group must not make a normal call wait.
//   node scripts/bench-spawn.mjs [runs]      (Node's child_process)
//   bun scripts/bench-spawn.mjs [runs]       (Bun.spawn, then child_process under Bun)
//   HOOKWISE_HOST=/path/host.cjs node scripts/bench-spawn.mjs   (another host.cjs, to compare)
// Prints figures; asserts nothing (a shared machine is noisy).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { spawnProcess, hasBun } = require(process.env.HOOKWISE_HOST || path.join(repo, "pkg/dist/host.cjs"));
const runs = Number(process.argv[2]) || 20;
const fake = path.join(repo, "tests/fake-maenifold/maenifold-spawning");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-spawn-"));
const argv = [fake, "--tool", "BuildContext", "--payload", '{"conceptName":"auth"}'];

const alive = (pid) => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

async function series(label, children, forceNode) {
  const pidsFile = path.join(tmp, `${label}.pids`);
  const env = { ...process.env, MAENIFOLD_ROOT: path.join(repo, "tests/fake-maenifold/fixtures/root"), FAKE_MAENIFOLD_CHILDREN: children, FAKE_MAENIFOLD_CHILD_PIDS: pidsFile, FAKE_MAENIFOLD_CHILD_SECONDS: "30" };
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = await spawnProcess({ argv, timeoutMs: 30_000, maxBytes: 1 << 20 }, { env, forceNode }).promise;
    times.push(performance.now() - t);
    if (!r.success) throw new Error(`${label}: ${JSON.stringify(r).slice(0, 300)}`);
  }
  await new Promise((r) => setTimeout(r, 1500)); // the grace: what is left is left for good
  const pids = fs.existsSync(pidsFile) ? fs.readFileSync(pidsFile, "utf8").trim().split("\n").map((l) => JSON.parse(l).pid) : [];
  const left = pids.filter(alive);
  for (const p of left) try { process.kill(p, "SIGKILL"); } catch { /* gone */ }
  times.sort((a, b) => a - b);
  const med = times[times.length >> 1];
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(`${label.padEnd(44)} median ${med.toFixed(1).padStart(7)} ms  mean ${mean.toFixed(1).padStart(7)} ms  max ${times[times.length - 1].toFixed(1).padStart(7)} ms  children left ${left.length}/${pids.length}`);
}

const engines = hasBun ? [["Bun.spawn", false], ["child_process (Bun)", true]] : [["child_process", true]];
console.log(`${runs} calls each, ${process.versions.bun ? `bun ${process.versions.bun}` : `node ${process.version}`}`);
for (const [name, forceNode] of engines) {
  await series(`${name}, no children`, "", forceNode);
  await series(`${name}, a sleep`, "sleep", forceNode);
  await series(`${name}, a sleep holding the pipes`, "pipes", forceNode);
  await series(`${name}, one ignoring SIGTERM, holding them`, "stubborn", forceNode);
}
fs.rmSync(tmp, { recursive: true, force: true });

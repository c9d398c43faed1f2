// Processes by a marker in their command line (Linux /proc), and a maenifold stand-in that
// leaves a child behind: the fake maenifold (tests/fake-maenifold) started through a wrapper
// that first starts `sleep 300` in the background, renamed `hwsec-sleeper-<marker>`, the way a
// real CLI may start a helper it never waits for. The fake itself runs as
// `maenifold-<marker>`, so both are found by the marker.
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "./pkg.mjs";

export const FAKE_MAENIFOLD = path.join(repoRoot, "tests/fake-maenifold/maenifold");
export const FAKE_ROOT = path.join(repoRoot, "tests/fake-maenifold/fixtures/root");

/** Write the wrapper into `dir`; returns its path. Reads HWSEC_MARKER from its environment. */
export function leakyMaenifold(dir) {
  const file = path.join(dir, "maenifold");
  fs.writeFileSync(
    file,
    `#!/usr/bin/env bash
# a CLI that starts a helper it never waits for, then does its work
bash -c 'exec -a "$0" sleep 300' "hwsec-sleeper-\${HWSEC_MARKER}" </dev/null >/dev/null 2>&1 &
exec -a "maenifold-\${HWSEC_MARKER}" ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_MAENIFOLD)} "$@"
`,
    { mode: 0o755 },
  );
  return file;
}

/** Live (not zombie) processes whose command line contains `marker`: [{ pid, cmdline }]. */
export function processesWith(marker) {
  const out = [];
  let pids = [];
  try {
    pids = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    let cmd;
    let stat;
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    if (!cmd.includes(marker)) continue;
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (state === "Z" || state === "X") continue;
    out.push({ pid: Number(pid), cmdline: cmd.split("\0").filter(Boolean).join(" ") });
  }
  return out;
}

/** Poll until `f()` is true or `ms` passed; returns the last value of `f()`. */
export async function waitUntil(f, ms = 5000, every = 50) {
  const end = Date.now() + ms;
  let v = f();
  while (!v && Date.now() < end) {
    await new Promise((ok) => setTimeout(ok, every));
    v = f();
  }
  return v;
}

/** SIGKILL each process with `marker` (the test's own leftovers), by pid. */
export function killMarked(marker) {
  for (const p of processesWith(marker)) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
}

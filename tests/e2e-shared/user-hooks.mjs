// A hook entry a host runs from the USER's configuration (Kimi Code: no project-level hooks) runs
// in every project: outside one that uses hookwise it must do nothing — exit 0, no output.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** Run each `command` (as the host does: `sh -c`, the payload on stdin) in a fresh git project with
 * no hookwise beside `sb` (whose env it uses); it must exit 0 and print nothing. Returns the ms each took. */
export function assertQuietOutside(sb, commands, payload) {
  const dir = path.join(sb.root, "elsewhere");
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: dir });
  return commands.map((command) => {
    const t0 = performance.now();
    const r = spawnSync("/bin/sh", ["-c", command], { cwd: dir, env: sb.env, input: JSON.stringify({ ...payload, cwd: dir }), encoding: "utf8", timeout: 10_000 });
    const ms = Math.round(performance.now() - t0);
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, "", ""], `quiet outside a hookwise project: ${command.slice(0, 80)}…`);
    return ms;
  });
}

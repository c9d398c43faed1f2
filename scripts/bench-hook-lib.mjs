// What the hook benchmarks (bench-claude, bench-hooks) share: the environment their projects
// run in, and a JSON-RPC client for `hookwise mcp`.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";

/** A HOME under `tmp` and a PATH without maenifold: the environment of the bench projects. */
export function benchEnv(tmp) {
  const home = path.join(tmp, "home");
  fs.mkdirSync(home);
  const noMaenifoldPath = (process.env.PATH ?? "")
    .split(":")
    .filter((d) => d && !fs.existsSync(path.join(d, "maenifold")))
    .join(":");
  return { home, baseEnv: { PATH: noMaenifoldPath, HOME: home, TZ: "UTC", LANG: process.env.LANG ?? "C.UTF-8" } };
}

/** A JSON-RPC client over a child's stdin/stdout, one message a line (what `hookwise mcp`
 * speaks): `request(method, params)` resolves with the response of that id; lines that are not
 * JSON are skipped. */
export function lineClient(child) {
  const waiting = new Map();
  let seq = 0;
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    const w = waiting.get(m.id);
    if (w) {
      waiting.delete(m.id);
      w(m);
    }
  });
  return (method, params) =>
    new Promise((resolve) => {
      const id = ++seq;
      waiting.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
}

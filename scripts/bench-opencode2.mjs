// Figures for the OpenCode 2 adapter, through the host double of tests/opencode2 (OpenCode 2's
// loader and hook dispatch): plugin load + setup, and the hooks of one tool call and one model
// request, with the embedded vault as the knowledge source (no process to wait for) and with
// governance on. Prints figures; asserts nothing (the machine is shared).
//
//   npm run build && node scripts/bench-opencode2.mjs [rounds]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startHost } from "../tests/opencode2/lib/host.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const rounds = Number(process.argv[2] || 200);
const base = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-oc2-"));
fs.mkdirSync(path.join(base, "plugins/node_modules"), { recursive: true });
fs.symlinkSync(path.join(repo, "pkg"), path.join(base, "plugins/node_modules/hookwise"));

function project(name, files) {
  const dir = path.join(base, name);
  for (const [f, t] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), t);
  }
  return dir;
}

const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(2)} ms, p95 ${pct(xs, 95).toFixed(2)} ms (n=${xs.length})`;

async function time(f) {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

// no maenifold: the example vault answers
process.env.PATH = (process.env.PATH ?? "").split(":").filter((d) => d && !fs.existsSync(path.join(d, "maenifold"))).join(":");
process.env.MAENIFOLD_ROOT = path.join(base, "none");

const vaultDir = project("vault-project", { "README.md": "# v\n" });
let host;
const load = await time(async () => {
  host = await startHost({ projectDir: path.join(base, "plugins"), directory: vaultDir, config: { plugins: [{ package: "hookwise", options: { vault: path.join(repo, "examples/vault") } }] } });
});
host.createSession("s");
await host.request("s");
const shell = [];
const plain = [];
const request = [];
for (let i = 0; i < rounds; i++) {
  shell.push(await time(() => host.call("s", "read", { path: "README.md", note: "see [[JWT]]" })));
  plain.push(await time(() => host.call("s", "read", { path: "README.md" })));
  request.push(await time(() => host.request("s")));
}
await host.stop();

const govDir = project("governed", { ".orchestration/active_intents.yaml": "active_intents:\n  - id: INT-1\n    name: A\n    status: IN_PROGRESS\n    owned_scope: [src/**]\n" });
let gov;
const govLoad = await time(async () => {
  gov = await startHost({ projectDir: path.join(base, "plugins"), directory: govDir, config: { plugins: ["hookwise"] } });
});
gov.createSession("g");
await gov.call("g", "select_active_intent", { intent_id: "INT-1" });
const write = [];
const blocked = [];
for (let i = 0; i < rounds; i++) {
  write.push(await time(() => gov.call("g", "write", { path: `src/f${i % 10}.ts`, content: "x" })));
  blocked.push(await time(() => gov.call("g", "write", { path: "docs/x.md", content: "x" })));
}
await gov.stop();
fs.rmSync(base, { recursive: true, force: true });

console.log(`OpenCode 2 adapter through the host double (${rounds} rounds)`);
console.log(`  load + setup (vault):          ${load.toFixed(1)} ms`);
console.log(`  load + setup (governance):     ${govLoad.toFixed(1)} ms`);
console.log(`  read with [[JWT]] (vault):     ${fmt(shell)}`);
console.log(`  read without a link:           ${fmt(plain)}`);
console.log(`  context hook (a request):      ${fmt(request)}`);
console.log(`  governed write (recorded):     ${fmt(write)}`);
console.log(`  governed write (blocked):      ${fmt(blocked)}`);

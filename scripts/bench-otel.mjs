// OpenTelemetry export's cost (issue 41), export off vs on (to a receiver in this process that
// answers 200 at once), side by side:
//   - plugin start-up: a fresh Node process loads pkg/dist/hookwise.cjs and runs `init` for an
//     OpenCode project (knowledge only: the lean core, or the policy core once export is asked
//     for) and for a governed project (the policy core either way);
//   - warm hook p50: Codex's PreToolUse command hook (`hookwise hook --host codex PreToolUse`,
//     a process per call, answered by the project's warm server), a write the gate blocks and a
//     read it allows, alternately.
//
//   npm run build && node scripts/bench-otel.mjs          (RUNS=7 CALLS=40 to change the counts)
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "pkg/dist");
if (!fs.existsSync(path.join(dist, "otel.cjs"))) throw new Error("pkg/ has no otel.cjs: run npm run build");
const RUNS = Number(process.env.RUNS) || 7;
const CALLS = Number(process.env.CALLS) || 40;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-bench-otel-"));
const runtime = path.join(tmp, "run");
fs.mkdirSync(runtime, { mode: 0o700 });
const write = (p, t) => (fs.mkdirSync(path.dirname(p), { recursive: true }), fs.writeFileSync(p, t));
const knowledge = path.join(tmp, "knowledge");
write(path.join(knowledge, ".opencode/hookwise.json"), JSON.stringify({ knowledge: "vault", vault: path.join(knowledge, "notes") }));
write(path.join(knowledge, "notes/auth.md"), "# Auth\n\nSessions use [[jwt]].\n");
const governed = path.join(tmp, "governed");
write(path.join(governed, ".orchestration/active_intents.yaml"), "active_intents:\n  - id: INT-1\n    name: Login\n    status: IN_PROGRESS\n    owned_scope:\n      - src/auth/**\n");

let received = 0;
const server = http.createServer((req, res) => (req.resume(), req.on("end", () => (received++, res.writeHead(200).end()))));
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const endpoint = `http://127.0.0.1:${server.address().port}`;
const base = { PATH: process.env.PATH, HOME: tmp, XDG_RUNTIME_DIR: runtime, HOOKWISE_WARM_IDLE_MS: "60000" };
const ON = { HOOKWISE_OTEL: "1", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: process.env.OTEL_DELAY || "200" };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function startup(project, host, env) {
  const code = `const t0=performance.now();const {Hookwise}=require(${JSON.stringify(path.join(dist, "hookwise.cjs"))});const hw=new Hookwise({host:${JSON.stringify(host)},cwd:${JSON.stringify(project)},worktree:${JSON.stringify(project)},directory:${JSON.stringify(project)},env:process.env,options:{}});hw.init().then(()=>{process.stdout.write(JSON.stringify({ms:performance.now()-t0,flavor:hw.core&&hw.core.flavor}));return hw.dispose()}).then(()=>process.exit(0))`;
  const r = spawnSync(process.execPath, ["-e", code], { env, encoding: "utf8" });
  return JSON.parse(r.stdout);
}

function hook(env, payload) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, [path.join(dist, "cli.mjs"), "hook", "--host", "codex", "PreToolUse"], { cwd: governed, env });
    p.stdout.resume();
    p.stderr.resume();
    p.on("close", () => resolve(performance.now() - t0));
    p.stdin.end(JSON.stringify(payload));
  });
}

// off and on alternate, run by run and call by call: the machine's noise falls on both alike
const modes = { off: base, on: { ...base, ...ON } };
// which goes first changes each round: the second call of a round pays for what the first one's
// server still does after answering (measured: the order alone moved the p50 by 15 ms)
const order = (i) => (i % 2 ? [["on", modes.on], ["off", modes.off]] : Object.entries(modes));
const out = { off: { k: [], g: [], h: [] }, on: { k: [], g: [], h: [] } };
for (let i = 0; i < RUNS; i++) {
  for (const [name, env] of order(i)) {
    const a = startup(knowledge, "opencode", env);
    out[name].flavor = a.flavor;
    out[name].k.push(a.ms);
    out[name].g.push(startup(governed, "opencode", env).ms);
  }
}
const calls = [
  { tool_name: "apply_patch", tool_input: { command: "*** Begin Patch\n*** Add File: src/x.ts\n+x\n*** End Patch\n" } },
  { tool_name: "Bash", tool_input: { command: "ls" } },
];
for (let i = 0; i < CALLS + 3; i++) {
  for (const [name, env] of order(i)) {
    const t = await hook(env, { session_id: `bench-${name}`, hook_event_name: "PreToolUse", cwd: governed, tool_use_id: `c${i}`, ...calls[i % 2] });
    if (i >= 3) out[name].h.push(t); // the first starts the warm server
  }
}
for (const o of Object.values(out)) Object.assign(o, { knowledge: median(o.k), governed: median(o.g), hook: median(o.h) });

// the same hook in process (the warm server's part alone: the core and the glue, no process
// start), 300 calls a round, three rounds each, alternating; the receiver is not reached (the
// batch delay is longer than the run): what a hook pays is the core's events and `add`
const require = createRequire(import.meta.url);
const { createClaude } = require(path.join(dist, "claude.cjs"));
async function inProcess(env) {
  const sink = env.HOOKWISE_OTEL ? require(path.join(dist, "otel.cjs")).lazySink(env) : undefined;
  const c = createClaude({ host: "codex", cwd: governed, env, telemetry: sink });
  const ms = [];
  for (let i = 0; i < 320; i++) {
    const t0 = performance.now();
    await c.hook("PreToolUse", { session_id: "s", cwd: governed, tool_use_id: `p${i}`, ...calls[i % 2] });
    if (i >= 20) ms.push(performance.now() - t0);
  }
  if (sink) await sink.shutdown(1000);
  await c.dispose();
  return median(ms);
}
for (let k = 0; k < 4; k++) {
  for (const [name, env] of order(k)) (out[name].p ||= []).push(await inProcess({ ...env, OTEL_BSP_SCHEDULE_DELAY: "600000" }));
}
for (const o of Object.values(out)) o.inproc = median(o.p);
await new Promise((r) => setTimeout(r, 600));
// the warm servers this bench started end with their runtime folder's sockets
for (const f of fs.readdirSync(runtime)) if (f.endsWith(".lock")) try { process.kill(Number(fs.readFileSync(path.join(runtime, f), "utf8")), "SIGTERM"); } catch {}
server.close();
const f = (x) => x.toFixed(1);
console.log(
  `otel export off vs on: plugin start-up (OpenCode, knowledge only: ${out.off.flavor} → ${out.on.flavor} core) ${f(out.off.knowledge)} → ${f(out.on.knowledge)} ms; ` +
    `(governed) ${f(out.off.governed)} → ${f(out.on.governed)} ms; warm hook p50 (Codex PreToolUse) ${f(out.off.hook)} → ${f(out.on.hook)} ms, ` +
    `of which in the server (core + glue) ${out.off.inproc.toFixed(2)} → ${out.on.inproc.toFixed(2)} ms ` +
    `(median of ${RUNS} start-ups, ${CALLS} hooks; the receiver got ${received} requests)`,
);
fs.rmSync(tmp, { recursive: true, force: true });

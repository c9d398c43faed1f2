// OpenTelemetry export never in the way (issue 41): the packed hookwise, installed and set up by
// `hookwise init --codex`, answers Codex's PreToolUse command hook (`hookwise hook --host codex
// PreToolUse`, the process Codex starts, through the warm server) for a governed project, with the
// export off, on to a healthy receiver, and on to a backend that is down (nothing listens), slow
// (answers after 10 s), refusing (HTTP 500) or answering garbage (not HTTP). The same calls get the
// same answers every time; the hook latencies are printed side by side (figures, not timed
// assertions: the machine is shared); `hookwise doctor` says what the last attempt got.
//
// The misbehaving receivers are this file's (a fault is not a backend's normal behaviour); the
// real backends are tests/otel/otel.test.mjs's.
//
//   node --test --test-concurrency=1 tests/otel/faults.test.mjs   (needs pkg/: npm run build)
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { promisify } from "node:util";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { agentProject } from "../e2e-shared/agents.mjs";
import { INTENTS } from "../e2e-shared/fixtures.mjs";
import { freePort } from "./lib/backends.mjs";

const execFileAsync = promisify(execFile);
const N = Number(process.env.HOOKWISE_OTEL_FAULT_CALLS) || 12;

/** One run of the command hook: `{ms, code, out}`. */
function hook(sb, env, payload) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn(path.join(sb.dir, "node_modules/.bin/hookwise"), ["hook", "--host", "codex", "PreToolUse"], { cwd: sb.dir, env });
    let out = "";
    p.stdout.on("data", (c) => (out += c));
    p.stderr.on("data", () => {});
    p.on("close", (code) => resolve({ ms: performance.now() - t0, code, out }));
    p.stdin.end(JSON.stringify(payload));
  });
}

const q = (xs, f) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(f * s.length))];
};

describe("OpenTelemetry export never changes a decision nor holds a hook", () => {
  const servers = [];
  const ctx = {};

  before(async () => {
    // the receivers
    const listen = (srv) => new Promise((r) => srv.listen(0, "127.0.0.1", () => (servers.push(srv), r(`http://127.0.0.1:${srv.address().port}`))));
    ctx.received = 0;
    const ok = await listen(http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        ctx.received++;
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      });
    }));
    const slow = await listen(http.createServer((req, res) => {
      req.resume();
      const t = setTimeout(() => res.writeHead(200).end(), 10_000);
      res.on("close", () => clearTimeout(t));
    }));
    const refusing = await listen(http.createServer((req, res) => (req.resume(), res.writeHead(500).end("no"))));
    const garbage = await listen(net.createServer((s) => (s.on("error", () => {}), s.end(Buffer.from("\x00\xffSSH-2.0-not-http\r\n\r\n\x13\x37")))));
    const down = `http://127.0.0.1:${await freePort()}`; // nothing listens there
    ctx.modes = { off: null, healthy: ok, down, slow, "HTTP 500": refusing, garbage };

    ctx.sb = agentProject("codex", { files: { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "" } });
  });

  after(async () => {
    ctx.sb?.cleanup();
    for (const s of servers) s.closeAllConnections?.(), s.close();
  });

  test("the same calls get the same answers with export off and with every backend fault; latencies side by side", async () => {
    const sb = ctx.sb;
    const calls = [
      // a write before any intent: blocked (no_intent)
      { tool_name: "apply_patch", tool_input: { command: "*** Begin Patch\n*** Add File: src/auth/a.ts\n+x\n*** End Patch\n" } },
      // a read: allowed
      { tool_name: "Bash", tool_input: { command: "ls -la" } },
    ];
    const envs = Object.fromEntries(Object.entries(ctx.modes).map(([mode, url]) => [mode, { ...sb.env, ...(url ? { HOOKWISE_OTEL: "1", OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_BSP_SCHEDULE_DELAY: "100" } : {}) }]));
    const ms = Object.fromEntries(Object.keys(ctx.modes).map((m) => [m, []]));
    const answers = Object.fromEntries(Object.keys(ctx.modes).map((m) => [m, []]));
    // round by round, every mode once a round (the machine's noise falls on all alike); the first
    // round starts each environment's warm server (answered cold), the second warms it
    for (let i = 0; i < N + 2; i++) {
      for (const mode of Object.keys(ctx.modes)) {
        const c = calls[i % calls.length];
        const payload = { session_id: `s-${mode}`, hook_event_name: "PreToolUse", cwd: sb.dir, tool_use_id: `call-${mode}-${i}`, ...c };
        const r = await hook(sb, envs[mode], payload);
        assert.equal(r.code, 0, `${mode}: exit ${r.code}: ${r.out}`);
        answers[mode].push(r.out.trim());
        if (i >= 2) ms[mode].push(r.ms);
      }
    }
    const rows = Object.entries(ms).map(([mode, xs]) => ({ mode, p50: q(xs, 0.5), p90: q(xs, 0.9), max: Math.max(...xs) }));
    // identical answers in every mode (the session names differ only in the payload)
    for (const mode of Object.keys(ctx.modes)) assert.deepEqual(answers[mode], answers.off, `${mode} answered differently`);
    assert.match(answers.off[0], /deny/, "the write before an intent is denied");
    console.log(`# command hook (Codex PreToolUse, warm server), ${N} calls each: p50 / p90 / max ms`);
    for (const r of rows) console.log(`#   export ${r.mode.padEnd(9)} ${r.p50.toFixed(1).padStart(7)} ${r.p90.toFixed(1).padStart(7)} ${r.max.toFixed(1).padStart(7)}`);
    // the healthy receiver got what was exported (the spans of the decisions, the metrics)
    const deadline = Date.now() + 10_000;
    while (ctx.received === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(ctx.received > 0, "the healthy receiver got requests");
  });

  test("hookwise doctor says whether export is on, where to, and what the last attempt got", async () => {
    const sb = ctx.sb;
    // asynchronously: the receivers live in this process and must go on answering meanwhile
    const doctor = async (url) => {
      const env = { ...sb.env, ...(url ? { HOOKWISE_OTEL: "1", OTEL_EXPORTER_OTLP_ENDPOINT: url } : {}) };
      const { stdout } = await execFileAsync(path.join(sb.dir, "node_modules/.bin/hookwise"), ["doctor"], { cwd: sb.dir, env, encoding: "utf8", timeout: 60_000 });
      return stdout;
    };
    assert.match(await doctor(null), /OpenTelemetry export: off/);
    const expect = { healthy: /ok \(HTTP 200/, down: /FAILED \(ECONNREFUSED/, "HTTP 500": /FAILED \(HTTP 500/, garbage: /FAILED \(/ };
    // (garbage: the parser's error or a reset; once, while this process was blocked running
    // doctor synchronously, the 10 s bound: each a failed attempt)
    for (const [mode, re] of Object.entries(expect)) {
      const out = await doctor(ctx.modes[mode]);
      const lines = out.split("\n").filter((l) => /OpenTelemetry|^  (to|last export)/.test(l));
      console.log(`# doctor, ${mode}: ${lines.join(" | ")}`);
      assert.match(out, /OpenTelemetry export: on \(HOOKWISE_OTEL\)/, out);
      assert.ok(out.includes(`traces ${ctx.modes[mode]}/v1/traces (http/protobuf)`), out);
      assert.match(out, re, out);
    }
    // the slow backend: the attempt is given up at the 10 s bound (the warm server waited, no hook did)
    const deadline = Date.now() + 15_000;
    let out = await doctor(ctx.modes.slow);
    while (!/timed out after 10000 ms/.test(out) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      out = await doctor(ctx.modes.slow);
    }
    console.log(`# doctor, slow: ${out.split("\n").filter((l) => /last export/.test(l)).join("")}`);
    assert.match(out, /timed out after 10000 ms/, out);
  });
});

// OpenTelemetry export never in the way (issue 41): the packed hookwise, installed and set up by
// `hookwise init --codex`, answers Codex's PreToolUse command hook — the very command line init
// wrote to .codex/hooks.json, run by `sh -c` as Codex runs it (the native client, answered by the
// project's warm server) — for a governed project, with the export off, on to a healthy receiver,
// and on to a backend that is down (nothing listens), slow (answers after 10 s), refusing (HTTP
// 500) or answering garbage (not HTTP). The same calls get the same answers every time; the hook
// latencies are printed side by side, p50 and p95 of every call and of the calls answered warm,
// with how many went cold (figures, not timed assertions: the machine is shared); `hookwise
// doctor` says what the last attempt got, for a warm server and for a cold hook's spool.
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
import fs from "node:fs";
import { agentProject } from "../e2e-shared/agents.mjs";
import { INTENTS } from "../e2e-shared/fixtures.mjs";
import { freePort } from "./lib/backends.mjs";

const execFileAsync = promisify(execFile);
const N = Number(process.env.HOOKWISE_OTEL_FAULT_CALLS) || 24;
const WARMUP = 4;

/** The PreToolUse command line `init --codex` wrote (what Codex runs). */
function codexCommand(sb) {
  const cfg = JSON.parse(fs.readFileSync(path.join(sb.dir, ".codex/hooks.json"), "utf8"));
  const find = (v, inPre) => {
    if (Array.isArray(v)) for (const x of v) {
      const r = find(x, inPre);
      if (r) return r;
    }
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) {
      if (inPre && k === "command" && typeof x === "string") return x;
      const r = find(x, inPre || k === "PreToolUse");
      if (r) return r;
    }
    return null;
  };
  const cmd = find(cfg, false);
  assert.ok(cmd, `no PreToolUse command in .codex/hooks.json: ${JSON.stringify(cfg)}`);
  return cmd;
}

/** One run of the command hook as Codex runs it: `{ms, code, out, warm}` (`warm`: the native
 * client's debug line says the warm server answered). */
function hook(sb, cmd, env, payload) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn("sh", ["-c", cmd], { cwd: sb.dir, env: { ...env, HOOKWISE_DEBUG: "1" } });
    let out = "";
    let err = "";
    p.stdout.on("data", (c) => (out += c));
    p.stderr.on("data", (c) => (err += c));
    p.on("close", (code) => resolve({ ms: performance.now() - t0, code, out, warm: /answered warm/.test(err) }));
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
    const cmd = codexCommand(sb);
    const modes = Object.keys(ctx.modes);
    const ms = Object.fromEntries(modes.map((m) => [m, []]));
    const warmMs = Object.fromEntries(modes.map((m) => [m, []]));
    const answers = Object.fromEntries(modes.map((m) => [m, []]));
    // round by round, every mode once a round, the order turned each round (the machine's noise
    // falls on all alike); the first rounds start each environment's warm server (answered
    // cold) and let it come up, the rest are measured
    for (let i = 0; i < N + WARMUP; i++) {
      for (let k = 0; k < modes.length; k++) {
        const mode = modes[(k + i) % modes.length];
        const c = calls[i % calls.length];
        const payload = { session_id: `s-${mode}`, hook_event_name: "PreToolUse", cwd: sb.dir, tool_use_id: `call-${mode}-${i}`, ...c };
        const r = await hook(sb, cmd, envs[mode], payload);
        assert.equal(r.code, 0, `${mode}: exit ${r.code}: ${r.out}`);
        answers[mode].push(r.out.trim());
        if (i >= WARMUP) {
          ms[mode].push(r.ms);
          if (r.warm) warmMs[mode].push(r.ms);
        }
      }
    }
    // identical answers in every mode (the session names differ only in the payload)
    for (const mode of modes) assert.deepEqual(answers[mode], answers.off, `${mode} answered differently`);
    assert.match(answers.off[0], /deny/, "the write before an intent is denied");
    const f = (x) => (x === undefined ? "-" : x.toFixed(1)).padStart(7);
    console.log(`# Codex PreToolUse command hook (init's line, native client, warm server), ${N} calls each after ${WARMUP} rounds of warm-up, ms:`);
    console.log(`#   ${"export".padEnd(16)}    p50     p95     max | warm: n   p50     p95`);
    for (const mode of modes) {
      const xs = ms[mode];
      const w = warmMs[mode];
      console.log(`#   ${mode.padEnd(16)}${f(q(xs, 0.5))} ${f(q(xs, 0.95))} ${f(Math.max(...xs))} |  ${String(w.length).padStart(5)}${f(q(w, 0.5))} ${f(q(w, 0.95))}`);
    }
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
    // a cold hook (no warm server: HOOKWISE_WARM=0): its events wait in the spool, and doctor says
    // so; the warm server the next hooks start sends them, and doctor says what that attempt got
    {
      const url = `${ctx.modes.healthy}/cold`;
      const env = { ...sb.env, HOOKWISE_OTEL: "1", OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_BSP_SCHEDULE_DELAY: "100" };
      const cmd = codexCommand(sb);
      const payload = (i) => ({ session_id: "s-cold", hook_event_name: "PreToolUse", cwd: sb.dir, tool_use_id: `cold-${i}`, tool_name: "Bash", tool_input: { command: "ls" } });
      const r = await hook(sb, cmd, { ...env, HOOKWISE_WARM: "0" }, payload(0));
      assert.equal(r.code, 0);
      const { stdout: cold } = await execFileAsync(path.join(sb.dir, "node_modules/.bin/hookwise"), ["doctor"], { cwd: sb.dir, env, encoding: "utf8", timeout: 60_000 });
      console.log(`# doctor, cold hook: ${cold.split("\n").filter((l) => /^  (last export|spooled)/.test(l)).join(" | ")}`);
      assert.match(cold, /last export: none yet/, cold);
      assert.match(cold, /spooled: [1-9]\d* batch\(es\) of events from hooks answered cold wait for the next warm server/, cold);
      const deadline = Date.now() + 60_000;
      let out = cold;
      for (let i = 1; Date.now() < deadline && (!/last export: .* ok \(HTTP 200/.test(out) || /spooled:/.test(out)); i++) {
        // (hooks until the warm server answers, then none: the spool it has not been sent is
        // looked at by the server itself)
        if (!/last export: .* ok \(HTTP 200/.test(out)) await hook(sb, cmd, env, payload(i));
        await new Promise((r) => setTimeout(r, 500));
        out = (await execFileAsync(path.join(sb.dir, "node_modules/.bin/hookwise"), ["doctor"], { cwd: sb.dir, env, encoding: "utf8", timeout: 60_000 })).stdout;
      }
      console.log(`# doctor, after a warm server: ${out.split("\n").filter((l) => /^  (last export|spooled)/.test(l)).join(" | ")}`);
      assert.match(out, /last export: .* ok \(HTTP 200.*\(running\)/, out);
      assert.doesNotMatch(out, /spooled:/, out);
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

// js/otel.cjs alone (no backend): the standard variables, the bounds (queue, spool), what a
// receiver gets in each encoding. The real backends are otel.test.mjs's; the faults faults.test.mjs's.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const otel = require("../../js/otel.cjs");

const event = (i = 0) => ({
  signal: "span",
  name: "execute_tool Write",
  trace: "s-1",
  span: `c-${i}`,
  attrs: { "gen_ai.operation.name": "execute_tool", "hookwise.decision": "blocked", "hookwise.path.classes": ["out_of_scope"], "hookwise.knowledge.concepts": 2 },
  count: [{ name: "hookwise.decisions", attrs: { "hookwise.decision": "blocked" } }],
  latency: { name: "hookwise.hook.duration", attrs: { "hookwise.host": "codex" } },
});

test("the standard variables: base and per-signal endpoints, protocol, headers, resource, timeout bound", () => {
  const c = otel.config({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://h:4318/",
    OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: "http://logs:9/custom",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "grpc",
    OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20x,x-a=1",
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-a=2",
    OTEL_EXPORTER_OTLP_TIMEOUT: "60000",
    OTEL_SERVICE_NAME: "svc",
    OTEL_RESOURCE_ATTRIBUTES: "team=pay,service.name=ignored",
  });
  assert.equal(c.traces.url, "http://h:4318/v1/traces");
  assert.equal(c.metrics.url, "http://h:4318/v1/metrics");
  assert.equal(c.logs.url, "http://logs:9/custom");
  assert.equal(c.traces.protocol, "http/json");
  assert.equal(c.metrics.protocol, "http/protobuf");
  assert.match(c.metrics.note, /grpc is not supported/);
  assert.deepEqual(c.traces.headers, { authorization: "Bearer x", "x-a": "2" });
  assert.equal(c.traces.timeoutMs, 10000);
  assert.deepEqual(c.resource, { team: "pay", "service.name": "svc" });
  assert.equal(otel.config({}).traces, null);
  assert.equal(otel.config({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/v1/traces" }).metrics, null);
});

function receiver() {
  const got = [];
  const srv = http.createServer((req, res) => {
    const parts = [];
    req.on("data", (c) => parts.push(c));
    req.on("end", () => {
      got.push({ url: req.url, type: req.headers["content-type"], headers: req.headers, body: Buffer.concat(parts) });
      res.writeHead(200).end();
    });
  });
  return new Promise((r) => srv.listen(0, "127.0.0.1", () => r({ got, url: `http://127.0.0.1:${srv.address().port}`, close: () => srv.close() })));
}

test("http/json: spans, logs and metrics as OTLP/JSON, the headers sent, the trace and span ids from the keys", async () => {
  const rx = await receiver();
  const ex = otel.createExporter({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: rx.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_HEADERS: "x-k=v" }, statusDir: null });
  ex.add([event(1), { signal: "log", name: "hookwise.record", trace: "s-1", span: "c-1", body: "r", attrs: { "hookwise.record.id": "r1" } }], { startMs: 1_700_000_000_000, durationMs: 2.5 });
  await ex.shutdown(5000);
  rx.close();
  const by = (p) => rx.got.find((g) => g.url === p);
  const traces = JSON.parse(by("/v1/traces").body);
  assert.equal(by("/v1/traces").type, "application/json");
  assert.equal(by("/v1/traces").headers["x-k"], "v");
  const span = traces.resourceSpans[0].scopeSpans[0].spans[0];
  assert.equal(span.name, "execute_tool Write");
  assert.equal(span.traceId, otel.traceId("s-1").toString("hex"));
  assert.equal(span.spanId, otel.spanId("c-1").toString("hex"));
  assert.equal(span.startTimeUnixNano, "1700000000000000000");
  assert.equal(span.endTimeUnixNano, "1700000000002500000");
  assert.deepEqual(span.attributes.find((a) => a.key === "hookwise.path.classes").value, { arrayValue: { values: [{ stringValue: "out_of_scope" }] } });
  const log = JSON.parse(by("/v1/logs").body).resourceLogs[0].scopeLogs[0].logRecords[0];
  assert.equal(log.spanId, span.spanId, "the record's log sits on its call's span");
  const metrics = JSON.parse(by("/v1/metrics").body).resourceMetrics[0].scopeMetrics[0].metrics;
  assert.deepEqual(metrics.map((m) => m.name).sort(), ["hookwise.decisions", "hookwise.hook.duration"]);
  const h = metrics.find((m) => m.histogram).histogram.dataPoints[0];
  assert.equal(h.count, 1);
  assert.equal(h.sum, 2.5);
  assert.equal(h.bucketCounts[otel.HISTOGRAM_BOUNDS.indexOf(5)], 1);
});

test("http/protobuf by default; the queue is bounded, drop-oldest, and the drops are exported", async () => {
  const rx = await receiver();
  const ex = otel.createExporter({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: rx.url, OTEL_BSP_MAX_QUEUE_SIZE: "10" }, statusDir: null });
  for (let i = 0; i < 25; i++) ex.add(event(i), { durationMs: 1 });
  assert.equal(ex.stats.dropped, 15);
  await ex.shutdown(5000);
  rx.close();
  const t = rx.got.find((g) => g.url === "/v1/traces");
  assert.equal(t.type, "application/x-protobuf");
  // the newest ten: c-15 … c-24 (their span ids are in the body)
  assert.ok(t.body.includes(otel.spanId("c-24")) && t.body.includes(otel.spanId("c-15")) && !t.body.includes(otel.spanId("c-14")));
  const m = rx.got.find((g) => g.url === "/v1/metrics");
  assert.ok(m.body.includes(Buffer.from("hookwise.otel.dropped")));
});

test("a cold hook's spool is bounded; the next exporter of the same destination sends it and counts what was dropped", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-otel-spool-"));
  fs.chmodSync(dir, 0o700);
  const rx = await receiver();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: rx.url, XDG_RUNTIME_DIR: dir };
  const sink = otel.spoolSink(env);
  sink([event(1)], { startMs: Date.now(), durationMs: 3 });
  const spool = fs.readdirSync(path.join(dir, "hookwise")).find((f) => f.endsWith(".spool.jsonl"));
  assert.ok(spool, fs.readdirSync(path.join(dir, "hookwise")).join());
  // fill it past its bound: those events are counted, not written
  const big = { ...event(2), attrs: { pad: "x".repeat(600 * 1024) } };
  sink([big], {});
  sink([big], {});
  const dropped = fs.readdirSync(path.join(dir, "hookwise")).find((f) => f.endsWith(".spool.dropped"));
  assert.ok(dropped, "the drop is counted");
  const ex = otel.createExporter({ env });
  await ex.shutdown(5000);
  rx.close();
  assert.equal(ex.stats.dropped, 1);
  assert.ok(rx.got.find((g) => g.url === "/v1/traces").body.includes(otel.spanId("c-1")), "the spooled span was sent");
  assert.deepEqual(fs.readdirSync(path.join(dir, "hookwise")).filter((f) => /spool/.test(f)), [], "the spool was taken");
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a failed attempt drops its batch (counted) and is what doctor reads", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-otel-status-"));
  fs.chmodSync(dir, 0o700);
  const srv = http.createServer((req, res) => (req.resume(), res.writeHead(503).end()));
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${srv.address().port}/v1/traces`, XDG_RUNTIME_DIR: dir };
  const ex = otel.createExporter({ env });
  ex.add(event(1), {});
  await ex.shutdown(5000);
  srv.close();
  assert.equal(ex.stats.failed, 1);
  assert.equal(ex.stats.dropped, 1);
  const d = otel.doctorReport(env, { on: true, why: "HOOKWISE_OTEL", content: false });
  assert.match(d.lines.join("\n"), /OpenTelemetry export: on \(HOOKWISE_OTEL\)/);
  assert.match(d.lines.join("\n"), /last export: .* traces → FAILED \(HTTP 503/);
  assert.match(otel.doctorReport({}, { on: false, why: "off (set HOOKWISE_OTEL=1 or the option telemetry.otlp)" }).lines[0], /export: off — off \(set/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("metrics that changed go with the next batch: a warm server killed 2 s after its last hook has sent them (issue 41)", async () => {
  // (the e2e harness, like a user's `kill -9` or a closed laptop, ends the warm server 2 s after
  // the agent exits, with no chance to flush: metrics held for a 5 s window were lost)
  const got = [];
  const srv = http.createServer((req, res) => {
    const parts = [];
    req.on("data", (c) => parts.push(c));
    req.on("end", () => {
      if (req.url === "/v1/metrics") {
        const m = JSON.parse(Buffer.concat(parts)).resourceMetrics[0];
        const sum = m.scopeMetrics[0].metrics.find((x) => x.name === "hookwise.decisions").sum;
        got.push({ instance: m.resource.attributes.find((a) => a.key === "service.instance.id")?.value.stringValue, values: sum.dataPoints.map((d) => Number(d.asInt)), temporality: sum.aggregationTemporality });
      }
      res.writeHead(200).end();
    });
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${srv.address().port}`;
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, ["-e", `
    const ex = require(${JSON.stringify(require.resolve("../../js/otel.cjs"))}).createExporter({ statusDir: null });
    const ev = (i) => ({ signal: "span", name: "execute_tool Write", trace: "s", span: "c" + i, attrs: {}, count: [{ name: "hookwise.decisions", attrs: {} }] });
    setInterval(() => {}, 1000); // a server: alive until killed
    ex.add(ev(0), {});
    setTimeout(() => ex.add(ev(1), {}), 400);
    setTimeout(() => ex.add(ev(2), {}), 700);
  `], { env: { PATH: process.env.PATH, OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_BSP_SCHEDULE_DELAY: "200" }, stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 2700));
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  srv.close();
  assert.ok(got.length >= 1, "metrics were sent");
  assert.equal(Math.max(...got.flatMap((g) => g.values)), 3, `all three decisions counted before the kill: ${JSON.stringify(got)}`);
  assert.ok(got.every((g) => g.temporality === 2 && /^[0-9a-f-]{36}$/.test(g.instance || "")), `cumulative, one series per process: ${JSON.stringify(got)}`);
});

test("a name is looked up once at a time and kept: a hanging resolver holds one thread of libuv's pool, not the pool the hooks' file reads share", async () => {
  const dns = require("node:dns");
  const real = dns.lookup;
  let calls = 0;
  let answer;
  dns.lookup = (host, opts, cb) => {
    calls++;
    answer = () => cb(null, [{ address: "127.0.0.1", family: 4 }]);
  };
  try {
    const lookup = otel.cachedLookup();
    const got = [];
    for (let i = 0; i < 5; i++) lookup("collector.example", { all: false }, (e, a, f) => got.push([e, a, f]));
    assert.equal(calls, 1, "one lookup in flight for five requests");
    assert.equal(got.length, 0);
    answer();
    assert.deepEqual(got, Array(5).fill([null, "127.0.0.1", 4]));
    lookup("collector.example", { all: true }, (e, a) => got.push(a));
    assert.equal(calls, 1, "the answer is kept");
    assert.deepEqual(got.at(-1), [{ address: "127.0.0.1", family: 4 }]);
    lookup("127.0.0.1", {}, () => {});
    assert.equal(calls, 1, "an address is not looked up");
  } finally {
    dns.lookup = real;
  }
});

"use strict";
// OpenTelemetry export: transport only. The core decides whether export is on and what each
// event holds (src/engine/policy/telemetry.rs: names, values, redaction); this file times
// nothing itself, decides nothing, and carries the core's events to the endpoint of the user's
// environment over OTLP/HTTP (http/protobuf or http/json, hand-written below: the OpenTelemetry
// JS SDK's exporters cost more to load than a warm hook takes — docs/telemetry.md has the figures).
//
// Never in the way: `add` only appends to a bounded queue (drop-oldest, counted, and the count
// exported as `hookwise.otel.dropped`); a timer (unref'd) encodes and sends batches, one request
// per signal at a time, each bounded by OTEL_EXPORTER_OTLP_TIMEOUT (capped at 10 s). A backend
// that is down, slow, refusing or answering garbage is a failed attempt, noted in the status
// file `hookwise doctor` reads; the events of a failed batch are dropped (counted), never retried
// into an unbounded queue.
//
// A command hook answered in its own process (cold) appends its events to a bounded spool file in
// the per-user runtime folder; the next warm server's exporter sends them. Past the bound the
// events are dropped and counted in a second bounded file, which the exporter adds to the count.

const fs = require("node:fs");
const path = require("node:path");

const MAX_QUEUE = 2048;
const MAX_BATCH = 128; // one request's items: the most a hook that arrives meanwhile waits for (its encoding)
const DEFAULT_DELAY_MS = 1000;
const MAX_TIMEOUT_MS = 10000;
/** The most a metrics export waits for more changes (OTEL_METRIC_EXPORT_INTERVAL may say less).
 * A warm server can end without warning (killed, the machine put to sleep): metrics that changed
 * go with the next batch (OTEL_BSP_SCHEDULE_DELAY) unless the user asks for a longer interval. */
const MAX_METRICS_MS = 60000;
const SPOOL_MAX = 1024 * 1024;
const DROPPED_MAX = 64 * 1024;
const HISTOGRAM_BOUNDS = [0, 1, 2, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 10000];
const SCOPE = { name: "hookwise", version: "" };

// ---------------------------------------------------------------- configuration (environment)

function headersOf(text) {
  const h = {};
  for (const part of String(text || "").split(",")) {
    const i = part.indexOf("=");
    if (i <= 0) continue;
    try {
      h[decodeURIComponent(part.slice(0, i).trim())] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      /* a malformed header is skipped */
    }
  }
  return h;
}

function resourceOf(text) {
  const a = {};
  for (const part of String(text || "").split(",")) {
    const i = part.indexOf("=");
    if (i <= 0) continue;
    try {
      a[decodeURIComponent(part.slice(0, i).trim())] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      /* skipped */
    }
  }
  return a;
}

/** Where and how each signal goes, from the standard variables. */
function config(env = process.env) {
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT || "").trim();
  const signal = (name, suffix) => {
    const own = (env[`OTEL_EXPORTER_OTLP_${name}_ENDPOINT`] || "").trim();
    const url = own || (base ? base.replace(/\/+$/, "") + suffix : "");
    let protocol = (env[`OTEL_EXPORTER_OTLP_${name}_PROTOCOL`] || env.OTEL_EXPORTER_OTLP_PROTOCOL || "http/protobuf").trim();
    let note = null;
    if (protocol !== "http/protobuf" && protocol !== "http/json") {
      note = `protocol ${protocol} is not supported: http/protobuf is used`;
      protocol = "http/protobuf";
    }
    const headers = { ...headersOf(env.OTEL_EXPORTER_OTLP_HEADERS), ...headersOf(env[`OTEL_EXPORTER_OTLP_${name}_HEADERS`]) };
    const t = Number(env[`OTEL_EXPORTER_OTLP_${name}_TIMEOUT`] || env.OTEL_EXPORTER_OTLP_TIMEOUT);
    const timeoutMs = Math.min(MAX_TIMEOUT_MS, t > 0 ? t : MAX_TIMEOUT_MS);
    return url ? { url, protocol, headers, timeoutMs, note } : null;
  };
  const resource = resourceOf(env.OTEL_RESOURCE_ATTRIBUTES);
  if (env.OTEL_SERVICE_NAME) resource["service.name"] = env.OTEL_SERVICE_NAME;
  if (!resource["service.name"]) resource["service.name"] = "hookwise";
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const queue = Number(env.OTEL_BSP_MAX_QUEUE_SIZE);
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  const delayMs = delay > 0 ? Math.min(delay, 60000) : DEFAULT_DELAY_MS;
  return {
    traces: signal("TRACES", "/v1/traces"),
    metrics: signal("METRICS", "/v1/metrics"),
    logs: signal("LOGS", "/v1/logs"),
    resource,
    delayMs,
    metricsMs: interval > 0 ? Math.min(Math.max(interval, delayMs), MAX_METRICS_MS) : delayMs,
    maxQueue: queue > 0 ? Math.min(queue, 65536) : MAX_QUEUE,
  };
}

/** The name of this destination's files (status, spool): one per set of endpoints, so a warm
 * server sends a cold hook's events where that hook's environment said, and doctor reads the
 * attempt of the environment it runs in. */
function destKey(cfg) {
  const text = ["traces", "metrics", "logs"].map((s) => (cfg[s] ? `${s}=${cfg[s].url}|${cfg[s].protocol}` : "")).join("\n");
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}
const fileOf = (dir, cfg, what) => path.join(dir, `otel-${destKey(cfg)}.${what}`);

// ---------------------------------------------------------------- ids

let crypto = null;
const sha = (s) => (crypto || (crypto = require("node:crypto"))).createHash("sha256").update(String(s)).digest();
const randomId = (n) => (crypto || (crypto = require("node:crypto"))).randomBytes(n);
/** The trace id of a session (the core's `trace` key), the span id of a call (`span` key). */
const traceId = (key) => (key ? sha(`trace\0${key}`).subarray(0, 16) : randomId(16));
const spanId = (key) => (key ? sha(`span\0${key}`).subarray(0, 8) : randomId(8));

// ---------------------------------------------------------------- protobuf writer

class Pb {
  constructor() {
    this.parts = [];
    this.len = 0;
    this.cur = []; // small bytes (tags, lengths, varints) not yet in a part
  }
  byte(b) {
    this.cur.push(b);
    this.len++;
  }
  flushCur() {
    if (this.cur.length) {
      this.parts.push(Buffer.from(this.cur));
      this.cur = [];
    }
  }
  raw(b) {
    this.flushCur();
    this.parts.push(b);
    this.len += b.length;
  }
  varint(n) {
    // (numbers in Number arithmetic: BigInt only past 2^53 or below 0, which OTLP's lengths,
    // tags and counts never are)
    if (typeof n === "number" && n >= 0 && n <= Number.MAX_SAFE_INTEGER) {
      while (n > 127) {
        this.byte((n % 128) | 128);
        n = Math.floor(n / 128);
      }
      this.byte(n);
      return;
    }
    let v = BigInt.asUintN(64, BigInt(n));
    while (v > 127n) {
      this.byte(Number(v & 127n) | 128);
      v >>= 7n;
    }
    this.byte(Number(v));
  }
  tag(field, wire) {
    this.varint((field << 3) | wire);
  }
  bytes(field, b) {
    this.tag(field, 2);
    this.varint(b.length);
    this.raw(b);
  }
  string(field, s) {
    if (s === undefined || s === null || s === "") return;
    this.bytes(field, Buffer.from(String(s), "utf8"));
  }
  msg(field, pb) {
    pb.flushCur();
    this.tag(field, 2);
    this.varint(pb.len);
    this.flushCur();
    for (const p of pb.parts) this.parts.push(p);
    this.len += pb.len;
  }
  uint(field, n) {
    if (!n) return;
    this.tag(field, 0);
    this.varint(n);
  }
  bool(field, b) {
    this.tag(field, 0);
    this.varint(b ? 1 : 0);
  }
  fixed64(field, n) {
    const b = Buffer.allocUnsafe(8);
    b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(n)));
    this.tag(field, 1);
    this.raw(b);
  }
  double(field, x) {
    const b = Buffer.allocUnsafe(8);
    b.writeDoubleLE(x);
    this.tag(field, 1);
    this.raw(b);
  }
  packedFixed64(field, ns) {
    const b = Buffer.alloc(8 * ns.length);
    ns.forEach((n, i) => b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(n)), 8 * i));
    this.bytes(field, b);
  }
  packedDouble(field, xs) {
    const b = Buffer.alloc(8 * xs.length);
    xs.forEach((x, i) => b.writeDoubleLE(x, 8 * i));
    this.bytes(field, b);
  }
  buffer() {
    this.flushCur();
    return Buffer.concat(this.parts, this.len);
  }
}

function pbAny(v) {
  const a = new Pb();
  if (typeof v === "string") a.bytes(1, Buffer.from(v, "utf8"));
  else if (typeof v === "boolean") a.bool(2, v);
  else if (typeof v === "number" && Number.isInteger(v)) {
    a.tag(3, 0);
    a.varint(v);
  } else if (typeof v === "number") a.double(4, v);
  else if (Array.isArray(v)) {
    const arr = new Pb();
    for (const x of v) arr.msg(1, pbAny(x));
    a.msg(5, arr);
  } else a.string(1, JSON.stringify(v));
  return a;
}

// An attribute's KeyValue message, encoded once: most attributes repeat from call to call (the
// host, the version, the decision, the rule), and encoding is the exporter's main cost.
const kvCache = new Map();
function pbKeyValue(k, v) {
  const key = typeof v !== "object" ? `${k}\0${typeof v}\0${v}` : Array.isArray(v) ? `${k}\0array\0${JSON.stringify(v)}` : null;
  let b = key === null ? undefined : kvCache.get(key);
  if (b === undefined) {
    const kv = new Pb();
    kv.string(1, k);
    kv.msg(2, pbAny(v));
    b = kv.buffer();
    if (key !== null) {
      if (kvCache.size >= 4096) kvCache.clear();
      kvCache.set(key, b);
    }
  }
  return b;
}

function pbAttrs(pb, field, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    const b = pbKeyValue(k, v);
    pb.tag(field, 2);
    pb.varint(b.length);
    pb.raw(b);
  }
}

function pbResource(resource) {
  const r = new Pb();
  pbAttrs(r, 1, resource);
  return r;
}

function pbScope() {
  const s = new Pb();
  s.string(1, SCOPE.name);
  s.string(2, SCOPE.version);
  return s;
}

const ns = (ms) => BigInt(Math.round(ms * 1000)) * 1000n;

function protoTraces(resource, spans) {
  const ss = new Pb();
  ss.msg(1, pbScope());
  for (const s of spans) {
    const p = new Pb();
    p.bytes(1, s.traceId);
    p.bytes(2, s.spanId);
    p.string(5, s.name);
    p.uint(6, 1); // INTERNAL
    p.fixed64(7, ns(s.startMs));
    p.fixed64(8, ns(s.endMs));
    pbAttrs(p, 9, s.attrs);
    if (s.status) {
      const st = new Pb();
      st.string(2, s.status.message);
      st.uint(3, s.status.code === "error" ? 2 : s.status.code === "ok" ? 1 : 0);
      p.msg(15, st);
    }
    ss.msg(2, p);
  }
  const rs = new Pb();
  rs.msg(1, pbResource(resource));
  rs.msg(2, ss);
  const req = new Pb();
  req.msg(1, rs);
  return req.buffer();
}

const SEVERITY = { TRACE: 1, DEBUG: 5, INFO: 9, WARN: 13, ERROR: 17, FATAL: 21 };

function protoLogs(resource, logs) {
  const sl = new Pb();
  sl.msg(1, pbScope());
  for (const l of logs) {
    const p = new Pb();
    p.fixed64(1, ns(l.timeMs));
    p.uint(2, SEVERITY[l.severity] || 9);
    p.string(3, l.severity || "INFO");
    p.msg(5, pbAny(l.body || ""));
    pbAttrs(p, 6, l.attrs);
    p.bytes(9, l.traceId);
    p.bytes(10, l.spanId);
    p.fixed64(11, ns(l.timeMs));
    p.string(12, l.name);
    sl.msg(2, p);
  }
  const rl = new Pb();
  rl.msg(1, pbResource(resource));
  rl.msg(2, sl);
  const req = new Pb();
  req.msg(1, rl);
  return req.buffer();
}

function protoMetrics(resource, m) {
  const sm = new Pb();
  sm.msg(1, pbScope());
  for (const metric of m.metrics) {
    const p = new Pb();
    p.string(1, metric.name);
    p.string(2, metric.description);
    p.string(3, metric.unit);
    if (metric.kind === "sum") {
      const sum = new Pb();
      for (const d of metric.points) {
        const dp = new Pb();
        pbAttrs(dp, 7, d.attrs);
        dp.fixed64(2, ns(m.startMs));
        dp.fixed64(3, ns(m.nowMs));
        const b = Buffer.alloc(8);
        b.writeBigInt64LE(BigInt(d.value));
        dp.tag(6, 1);
        dp.raw(b);
        sum.msg(1, dp);
      }
      sum.uint(2, 2); // cumulative
      sum.bool(3, true);
      p.msg(7, sum);
    } else {
      const h = new Pb();
      for (const d of metric.points) {
        const dp = new Pb();
        pbAttrs(dp, 9, d.attrs);
        dp.fixed64(2, ns(m.startMs));
        dp.fixed64(3, ns(m.nowMs));
        dp.fixed64(4, d.count);
        dp.double(5, d.sum);
        dp.packedFixed64(6, d.buckets);
        dp.packedDouble(7, HISTOGRAM_BOUNDS);
        dp.double(11, d.min);
        dp.double(12, d.max);
        h.msg(1, dp);
      }
      h.uint(2, 2);
      p.msg(9, h);
    }
    sm.msg(2, p);
  }
  const rm = new Pb();
  rm.msg(1, pbResource(resource));
  rm.msg(2, sm);
  const req = new Pb();
  req.msg(1, rm);
  return req.buffer();
}

// ---------------------------------------------------------------- OTLP/JSON

function jsonAny(v) {
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (typeof v === "number" && Number.isInteger(v)) return { intValue: v };
  if (typeof v === "number") return { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(jsonAny) } };
  return { stringValue: JSON.stringify(v) };
}
const jsonAttrs = (attrs) => Object.entries(attrs || {}).filter(([, v]) => v !== null && v !== undefined).map(([key, v]) => ({ key, value: jsonAny(v) }));
const nsText = (ms) => ns(ms).toString();
const jsonScope = () => ({ name: SCOPE.name, version: SCOPE.version });

function jsonTraces(resource, spans) {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: jsonAttrs(resource) },
        scopeSpans: [
          {
            scope: jsonScope(),
            spans: spans.map((s) => ({
              traceId: s.traceId.toString("hex"),
              spanId: s.spanId.toString("hex"),
              name: s.name,
              kind: 1,
              startTimeUnixNano: nsText(s.startMs),
              endTimeUnixNano: nsText(s.endMs),
              attributes: jsonAttrs(s.attrs),
              ...(s.status ? { status: { code: s.status.code === "error" ? 2 : s.status.code === "ok" ? 1 : 0, message: s.status.message || "" } } : {}),
            })),
          },
        ],
      },
    ],
  });
}

function jsonLogs(resource, logs) {
  return JSON.stringify({
    resourceLogs: [
      {
        resource: { attributes: jsonAttrs(resource) },
        scopeLogs: [
          {
            scope: jsonScope(),
            logRecords: logs.map((l) => ({
              timeUnixNano: nsText(l.timeMs),
              observedTimeUnixNano: nsText(l.timeMs),
              severityNumber: SEVERITY[l.severity] || 9,
              severityText: l.severity || "INFO",
              eventName: l.name,
              body: jsonAny(l.body || ""),
              attributes: jsonAttrs(l.attrs),
              traceId: l.traceId.toString("hex"),
              spanId: l.spanId.toString("hex"),
            })),
          },
        ],
      },
    ],
  });
}

function jsonMetrics(resource, m) {
  const metrics = m.metrics.map((metric) => {
    const base = { name: metric.name, description: metric.description || "", unit: metric.unit || "" };
    if (metric.kind === "sum")
      return {
        ...base,
        sum: {
          aggregationTemporality: 2,
          isMonotonic: true,
          dataPoints: metric.points.map((d) => ({ attributes: jsonAttrs(d.attrs), startTimeUnixNano: nsText(m.startMs), timeUnixNano: nsText(m.nowMs), asInt: d.value })),
        },
      };
    return {
      ...base,
      histogram: {
        aggregationTemporality: 2,
        dataPoints: metric.points.map((d) => ({
          attributes: jsonAttrs(d.attrs),
          startTimeUnixNano: nsText(m.startMs),
          timeUnixNano: nsText(m.nowMs),
          count: d.count,
          sum: d.sum,
          bucketCounts: d.buckets,
          explicitBounds: HISTOGRAM_BOUNDS,
          min: d.min,
          max: d.max,
        })),
      },
    };
  });
  return JSON.stringify({ resourceMetrics: [{ resource: { attributes: jsonAttrs(resource) }, scopeMetrics: [{ scope: jsonScope(), metrics }] }] });
}

const ENCODERS = {
  traces: { "http/protobuf": protoTraces, "http/json": jsonTraces },
  logs: { "http/protobuf": protoLogs, "http/json": jsonLogs },
  metrics: { "http/protobuf": protoMetrics, "http/json": jsonMetrics },
};

// ---------------------------------------------------------------- HTTP

const yieldNow = () => new Promise((r) => setImmediate(r));

/**
 * A name lookup for the exporter's requests: one lookup in flight per name at a time, its
 * answer kept 60 s (a failure 5 s). `dns.lookup` is getaddrinfo on libuv's thread pool, which
 * the hooks' file reads share: a resolver that hangs must hold one thread, not all four.
 */
function cachedLookup() {
  const cache = new Map();
  return (hostname, options, cb) => {
    if (typeof options === "function") [cb, options] = [options, {}];
    const all = !!(options && options.all);
    const give = (e, addrs) => {
      if (e) return cb(e);
      const want = options && options.family ? addrs.filter((a) => a.family === options.family) : addrs;
      const list = want.length ? want : addrs;
      if (all) cb(null, list);
      else cb(null, list[0].address, list[0].family);
    };
    const ip = require("node:net").isIP(hostname);
    if (ip) return give(null, [{ address: hostname, family: ip }]);
    let c = cache.get(hostname);
    if (c && !c.waiting && Date.now() - c.at > (c.err ? 5000 : 60000)) c = null;
    if (!c) {
      cache.set(hostname, (c = { at: Date.now(), waiting: [] }));
      const entry = c;
      require("node:dns").lookup(hostname, { all: true }, (e, addrs) => {
        entry.at = Date.now();
        entry.err = e || (addrs && addrs.length ? null : Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }));
        entry.addrs = addrs;
        const w = entry.waiting;
        entry.waiting = null;
        for (const f of w) f();
      });
    }
    if (c.waiting) c.waiting.push(() => give(c.err, c.addrs));
    else give(c.err, c.addrs);
  };
}

/** POST `body`; resolves `{ok, status?, error?, ms}` — never rejects, never longer than `timeoutMs`.
 * `transport`: the exporter's kept-alive agents and name lookup (a connection and a lookup per
 * batch would be work, and a thread, each time). */
function post(target, body, transport = null) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...r, ms: Date.now() - t0 });
    };
    let req;
    const timer = setTimeout(() => {
      finish({ ok: false, error: `timed out after ${target.timeoutMs} ms` });
      if (req) req.destroy();
    }, target.timeoutMs);
    try {
      const url = new URL(target.url);
      const mod = url.protocol === "https:" ? require("node:https") : require("node:http");
      let agent;
      if (transport) {
        // kept-alive sockets are unref'd while idle: they hold no process open
        agent = transport.agents[url.protocol] || (transport.agents[url.protocol] = new mod.Agent({ keepAlive: true, maxSockets: 3 }));
      }
      req = mod.request(
        url,
        {
          method: "POST",
          ...(agent ? { agent, lookup: transport.lookup } : {}),
          headers: {
            ...target.headers,
            "content-type": target.protocol === "http/json" ? "application/json" : "application/x-protobuf",
            "content-length": body.length,
          },
        },
        (res) => {
          let n = 0;
          res.on("data", (c) => {
            n += c.length;
            if (n > 64 * 1024) res.destroy(); // a huge answer is not read
          });
          res.on("error", () => {});
          res.on("end", () => finish(res.statusCode >= 200 && res.statusCode < 300 ? { ok: true, status: res.statusCode } : { ok: false, status: res.statusCode, error: `HTTP ${res.statusCode}` }));
          res.on("close", () => finish({ ok: res.statusCode >= 200 && res.statusCode < 300, status: res.statusCode }));
        },
      );
      req.on("error", (e) => finish({ ok: false, error: (e && e.code) || String((e && e.message) || e) }));
      req.end(body);
    } catch (e) {
      finish({ ok: false, error: String((e && e.message) || e) });
    }
  });
}

// ---------------------------------------------------------------- the exporter

const attrKey = (attrs) => JSON.stringify(Object.entries(attrs || {}).sort());

/**
 * One exporter per process (a warm server, an in-process plugin's host).
 * @param {object} o
 * @param {object} [o.env]
 * @param {string|null} [o.statusDir] where `otel-status.json` (and the cold hooks' spool) live
 */
function createExporter(o = {}) {
  const env = o.env || process.env;
  const cfg = config(env);
  const statusDir = o.statusDir === undefined ? runtimeDirOf(env) : o.statusDir;
  const startMs = Date.now();
  // Cumulative metrics need one series per process that counts: two warm servers (two projects,
  // or a server and its successor) are told apart by the instance id the SDKs give each process.
  const resource = { ...cfg.resource };
  if (!resource["service.instance.id"]) resource["service.instance.id"] = (crypto || (crypto = require("node:crypto"))).randomUUID();
  const transport = { agents: {}, lookup: cachedLookup() };
  const spans = [];
  const logs = [];
  const counters = new Map(); // name -> Map(attrKey -> {attrs, value})
  const histograms = new Map(); // name -> Map(attrKey -> point)
  const stats = { queued: 0, dropped: 0, sent: 0, failed: 0, attempts: 0, last: null };
  let inFlight = 0;
  let timer = null;
  let closed = false;
  let closing = false;

  let metricsDirty = false;
  const count = (name, attrs, by = 1, dirty = true) => {
    if (dirty) metricsDirty = true;
    let m = counters.get(name);
    if (!m) counters.set(name, (m = new Map()));
    const k = attrKey(attrs);
    const p = m.get(k) || { attrs: attrs || {}, value: 0 };
    p.value += by;
    m.set(k, p);
  };
  const observe = (name, attrs, v) => {
    metricsDirty = true;
    let m = histograms.get(name);
    if (!m) histograms.set(name, (m = new Map()));
    const k = attrKey(attrs);
    let p = m.get(k);
    if (!p) m.set(k, (p = { attrs: attrs || {}, count: 0, sum: 0, min: v, max: v, buckets: new Array(HISTOGRAM_BOUNDS.length + 1).fill(0) }));
    p.count++;
    p.sum += v;
    p.min = Math.min(p.min, v);
    p.max = Math.max(p.max, v);
    let i = HISTOGRAM_BOUNDS.findIndex((b) => v <= b);
    if (i === -1) i = HISTOGRAM_BOUNDS.length;
    p.buckets[i]++;
  };
  const drop = (n, why) => {
    if (n <= 0) return;
    stats.dropped += n;
    count("hookwise.otel.dropped", { "hookwise.otel.reason": why }, n);
  };
  // what `add` took, untouched until a flush turns it into spans, logs and metric points
  const pending = [];
  const push = (q, item) => {
    if (q.length >= cfg.maxQueue) {
      q.shift(); // drop-oldest
      drop(1, "queue full");
    }
    q.push(item);
  };

  /** The core's events of one hook call (`t`: {startMs, durationMs}). Appends only; no I/O. */
  function add(events, t = {}) {
    if (closed) return;
    if (pending.length >= cfg.maxQueue) {
      pending.shift();
      drop(1, "queue full");
    }
    pending.push([events, Number(t.startMs) || Date.now(), Math.max(0, Number(t.durationMs) || 0)]);
    stats.queued++;
    schedule();
  }

  /** The pending events as spans, logs and metric points (in a flush, off the hook's path). */
  async function digest() {
    let k = 0;
    for (const [events, start, dur] of pending.splice(0)) {
      if (++k % 32 === 0) await yieldNow();
      for (const e of Array.isArray(events) ? events : [events]) {
        if (!e || typeof e !== "object") continue;
        if (e.latency && typeof e.latency.name === "string") observe(e.latency.name, e.latency.attrs, dur);
        for (const c of Array.isArray(e.count) ? e.count : []) if (c && typeof c.name === "string") count(c.name, c.attrs, 1);
        if (e.signal === "span" && cfg.traces) push(spans, { traceId: traceId(e.trace), spanId: spanId(e.span), name: String(e.name || "hookwise"), startMs: start, endMs: start + dur, attrs: e.attrs, status: e.status });
        else if (e.signal === "log" && cfg.logs) push(logs, { traceId: traceId(e.trace), spanId: spanId(e.span), name: String(e.name || ""), timeMs: start + dur, severity: e.severity, body: e.body, attrs: e.attrs });
      }
    }
  }

  function schedule() {
    if (timer || closed || closing) return;
    timer = setTimeout(() => {
      timer = null;
      flush().catch(() => {});
    }, cfg.delayMs);
    if (timer.unref) timer.unref();
  }

  function note(signal, r, n) {
    stats.attempts++;
    if (r.ok) stats.sent += n;
    else {
      stats.failed++;
      // a failed metrics export is counted for the next one, without asking for one itself
      count("hookwise.otel.export.failures", { "hookwise.otel.signal": signal }, 1, signal !== "metrics");
    }
    const changed = !stats.last || stats.last.ok !== r.ok || stats.last.error !== (r.error || null);
    stats.last = { at: new Date().toISOString(), signal, url: cfg[signal] && cfg[signal].url, ok: r.ok, status: r.status || null, error: r.error || null, ms: r.ms, items: n };
    // the status file (doctor's) when the outcome changed, else once a second at most
    const now = Date.now();
    if (changed || now - statusAt >= 1000) {
      statusAt = now;
      writeStatus();
    }
  }
  let statusAt = 0;

  // written asynchronously (never a synchronous write on the event loop a hook waits on), one
  // write at a time; a change meanwhile is written after it
  let statusWrite = null;
  let statusAgain = false;
  function writeStatus() {
    if (!statusDir) return Promise.resolve();
    if (statusWrite) {
      statusAgain = true;
      return statusWrite;
    }
    const file = fileOf(statusDir, cfg, "status.json");
    const tmp = `${file}.${process.pid}`;
    const text = JSON.stringify({ pid: process.pid, ...stats, endpoints: { traces: cfg.traces && cfg.traces.url, metrics: cfg.metrics && cfg.metrics.url, logs: cfg.logs && cfg.logs.url } }) + "\n";
    statusWrite = fs.promises
      .writeFile(tmp, text, { mode: 0o600 })
      .then(() => fs.promises.rename(tmp, file))
      .catch(() => {
        /* the status is for doctor only */
      })
      .then(() => {
        statusWrite = null;
        if (statusAgain) {
          statusAgain = false;
          return writeStatus();
        }
      });
    return statusWrite;
  }

  let encoding = Promise.resolve();
  async function send(signal, items) {
    const target = cfg[signal];
    if (!target || !items) return;
    // one batch encoded at a time, each in a turn of the event loop of its own: a hook that
    // arrived meanwhile is answered in between (requests already sent go on in parallel)
    const turn = encoding.then(yieldNow).then(() => Buffer.from(ENCODERS[signal][target.protocol](resource, items)));
    encoding = turn.catch(() => {});
    let body;
    try {
      body = await turn;
    } catch (e) {
      note(signal, { ok: false, error: `encode: ${e && e.message}`, ms: 0 }, 0);
      return;
    }
    inFlight++;
    try {
      const r = await post(target, body, transport);
      const n = Array.isArray(items) ? items.length : 0;
      note(signal, r, n);
      if (!r.ok && n) drop(n, "export failed");
    } finally {
      inFlight--;
    }
  }

  let flushing = null;
  let lastMetrics = 0;
  let metricsTimer = null;
  /** Send what is queued (and the metrics); one flush at a time. Never rejects. */
  function flush({ metrics = false } = {}) {
    if (flushing) return flushing;
    flushing = (async () => {
      try {
        await drainSpool();
        await digest();
        const jobs = [];
        while (spans.length) jobs.push(send("traces", spans.splice(0, MAX_BATCH)));
        while (logs.length) jobs.push(send("logs", logs.splice(0, MAX_BATCH)));
        const now = Date.now();
        const every = cfg.metricsMs;
        if (metricsDirty && (metrics || now - lastMetrics >= every)) {
          lastMetrics = now;
          metricsDirty = false;
          const m = snapshotMetrics(now);
          if (m.metrics.length) jobs.push(send("metrics", m));
        }
        await Promise.all(jobs);
      } finally {
        flushing = null;
      }
      if (pending.length || spans.length || logs.length) schedule();
      else if (metricsDirty && !closed && !closing && !metricsTimer) {
        // what changed since the last metrics export goes at the end of its window
        metricsTimer = setTimeout(() => {
          metricsTimer = null;
          flush().catch(() => {});
        }, Math.max(0, lastMetrics + cfg.metricsMs - Date.now()));
        if (metricsTimer.unref) metricsTimer.unref();
      }
    })();
    return flushing;
  }

  function snapshotMetrics(nowMs) {
    const metrics = [];
    for (const [name, m] of counters) metrics.push({ name, kind: "sum", unit: "1", points: [...m.values()].map((p) => ({ attrs: p.attrs, value: p.value })) });
    for (const [name, m] of histograms) metrics.push({ name, kind: "histogram", unit: "ms", points: [...m.values()].map((p) => ({ ...p, buckets: [...p.buckets] })) });
    return { startMs, nowMs, metrics };
  }

  // The cold hooks' spool, taken whole and read asynchronously (up to 1 MB: never a
  // synchronous read on the event loop a hook waits on), its lines parsed in slices.
  async function drainSpool() {
    if (!statusDir) return;
    const fsp = fs.promises;
    const spool = fileOf(statusDir, cfg, "spool.jsonl");
    const taken = `${spool}.${process.pid}`;
    let text = "";
    try {
      await fsp.rename(spool, taken);
      try {
        text = await fsp.readFile(taken, "utf8");
      } finally {
        await fsp.rm(taken, { force: true }).catch(() => {});
      }
    } catch {
      /* none (or gone) */
    }
    let k = 0;
    for (const line of text ? text.split("\n") : []) {
      if (!line) continue;
      if (++k % 32 === 0) await yieldNow();
      try {
        const r = JSON.parse(line);
        if (r && Array.isArray(r.events)) add(r.events, r.t || {});
      } catch {
        drop(1, "spool unreadable");
      }
    }
    const f = fileOf(statusDir, cfg, "spool.dropped");
    const fd = `${f}.${process.pid}`;
    try {
      await fsp.rename(f, fd);
      const n = (await fsp.stat(fd)).size;
      await fsp.rm(fd, { force: true }).catch(() => {});
      drop(n, "spool full");
    } catch {
      /* none dropped */
    }
  }

  /** Flush everything within `ms` (the rest is dropped with the process). */
  async function shutdown(ms = 2000) {
    closing = true;
    if (spoolWatch) clearInterval(spoolWatch);
    if (timer) clearTimeout(timer);
    if (metricsTimer) clearTimeout(metricsTimer);
    timer = metricsTimer = null;
    let t;
    // a flush under way may have left the metrics for later: the last one sends them
    const last = async () => {
      if (flushing) await flushing;
      await flush({ metrics: true });
    };
    await Promise.race([last(), new Promise((r) => (t = setTimeout(r, ms)))]);
    clearTimeout(t);
    closed = true;
    if (stats.attempts) await Promise.race([writeStatus(), new Promise((r) => setTimeout(r, 500).unref())]);
  }

  // A cold hook can spool while no call reaches this exporter (told `busy` while the server
  // starts, the session's last hook): the spool is looked at once a second (one asynchronous
  // stat), so what it holds goes without waiting for the next warm hook.
  let spoolWatch = null;
  if (statusDir && o.watchSpool !== false) {
    const spool = fileOf(statusDir, cfg, "spool.jsonl");
    spoolWatch = setInterval(() => {
      if (closed || closing || timer || flushing) return;
      fs.promises.stat(spool).then(() => schedule(), () => {});
    }, Math.max(1000, cfg.delayMs));
    if (spoolWatch.unref) spoolWatch.unref();
  }

  return { add, flush, shutdown, stats, config: cfg, get inFlight() { return inFlight; } };
}

function runtimeDirOf(env) {
  try {
    return require("./warm-client.cjs").runtimeDir(env);
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- sinks

let processExporter = null;
/** The exporter of this process (in-process plugins), made on the first events. */
function processSink(env = process.env) {
  return (events, t) => {
    if (!processExporter) {
      processExporter = createExporter({ env });
      process.once("beforeExit", () => processExporter.shutdown(2000));
    }
    processExporter.add(events, t);
  };
}

/** A sink made on its first events (the warm server's: one exporter for its engines). */
function lazySink(env = process.env) {
  let ex = null;
  const sink = (events, t) => {
    if (!ex) ex = createExporter({ env });
    ex.add(events, t);
  };
  sink.shutdown = (ms) => (ex ? ex.shutdown(ms) : Promise.resolve());
  sink.exporter = () => ex;
  return sink;
}

/** A cold hook's sink: one line appended to the spool (bounded); past the bound, counted. */
function spoolSink(env = process.env) {
  return (events, t) => {
    const dir = runtimeDirOf(env);
    if (!dir) return;
    const cfg = config(env);
    const line = JSON.stringify({ events, t }) + "\n";
    const spool = fileOf(dir, cfg, "spool.jsonl");
    let size = 0;
    try {
      size = fs.statSync(spool).size;
    } catch {
      /* none yet */
    }
    try {
      if (size + line.length <= SPOOL_MAX) fs.appendFileSync(spool, line, { mode: 0o600 });
      else {
        const d = fileOf(dir, cfg, "spool.dropped");
        let n = 0;
        try {
          n = fs.statSync(d).size;
        } catch {
          /* none */
        }
        const events_ = Array.isArray(events) ? events.length : 1;
        if (n + events_ <= DROPPED_MAX) fs.appendFileSync(d, "x".repeat(events_), { mode: 0o600 });
      }
    } catch {
      /* telemetry never breaks a hook */
    }
  };
}

/** What `hookwise doctor` says: the endpoints of this environment and the last attempt. */
function doctorReport(env = process.env, core = null) {
  const cfg = config(env);
  let status = null;
  // what cold hooks (answered in their own process) left for the next warm server
  const spool = { calls: 0, dropped: 0 };
  const dir = runtimeDirOf(env);
  if (dir) {
    try {
      status = JSON.parse(fs.readFileSync(fileOf(dir, cfg, "status.json"), "utf8"));
    } catch {
      /* no attempt yet */
    }
    try {
      const text = fs.readFileSync(fileOf(dir, cfg, "spool.jsonl"), "utf8");
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) spool.calls++;
    } catch {
      /* none waiting */
    }
    try {
      spool.dropped = fs.statSync(fileOf(dir, cfg, "spool.dropped")).size;
    } catch {
      /* none dropped */
    }
  }
  // whether the warm server that wrote the status still runs (it sends what cold hooks spool)
  let alive = false;
  if (status && Number.isInteger(status.pid) && status.pid > 0) {
    try {
      process.kill(status.pid, 0);
      alive = true;
    } catch (e) {
      alive = !!(e && e.code === "EPERM");
    }
  }
  const on = !!(core && core.on);
  // a URL's user and password are not printed
  const shown = (u) => String(u).replace(/\/\/[^/@]*@/, "//…@");
  const where = ["traces", "metrics", "logs"].filter((s) => cfg[s]).map((s) => `${s} ${shown(cfg[s].url)} (${cfg[s].protocol})`);
  const notes = ["traces", "metrics", "logs"].map((s) => cfg[s] && cfg[s].note).filter(Boolean);
  const last = status && status.last;
  const lines = [
    `OpenTelemetry export: ${on ? `on (${core.why})${core.content ? ", with content" : ""}` : `off${core && core.why ? ` — ${core.why}` : ""}`}`,
    ...(where.length ? [`  to: ${where.join("; ")}; service.name ${cfg.resource["service.name"]}`] : []),
    ...notes.map((n) => `  note: ${n}`),
    last
      ? `  last export: ${last.at} ${last.signal} → ${last.ok ? `ok (HTTP ${last.status}, ${last.ms} ms)` : `FAILED (${last.error || `HTTP ${last.status}`}, ${last.ms} ms)`}; sent ${status.sent}, dropped ${status.dropped}, failed attempts ${status.failed}; by process ${status.pid} (${alive ? "running" : "ended"})`
      : "  last export: none yet",
    ...(spool.calls || spool.dropped
      ? [`  spooled: ${spool.calls} batch(es) of events from hooks answered cold wait for the next warm server to send them${spool.dropped ? `; ${spool.dropped} event(s) dropped (spool full)` : ""}`]
      : []),
  ];
  const endpoints = Object.fromEntries(["traces", "metrics", "logs"].map((s) => [s, cfg[s] ? { url: shown(cfg[s].url), protocol: cfg[s].protocol, timeoutMs: cfg[s].timeoutMs } : null]));
  return { json: { on, why: core && core.why, content: !!(core && core.content), endpoints, resource: cfg.resource, status: status && { ...status, running: alive, endpoints: undefined, last: last && { ...last, url: last.url && shown(last.url) } }, spool }, lines };
}

module.exports = { cachedLookup, config, createExporter, processSink, lazySink, spoolSink, doctorReport, protoTraces, protoLogs, protoMetrics, jsonTraces, jsonLogs, jsonMetrics, traceId, spanId, HISTOGRAM_BOUNDS };

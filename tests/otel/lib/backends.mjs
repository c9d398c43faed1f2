// The real OpenTelemetry backends tests/otel exports to, installed by scripts/setup-otel.sh from
// PyPI into ~/.cache/hookwise-otel (pinned there):
//   - Arize Phoenix: OTLP/HTTP traces in (protobuf), spans back from its REST API;
//   - rotel: OTLP/HTTP traces, metrics and logs in (protobuf or JSON), each printed whole on its
//     debug log (`--debug-log … --debug-log-verbosity detailed`), which the test reads back.
// Each runs on free loopback ports, in a folder of its own, in its own process group; `stop()`
// ends that group.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The installed program of `name` (phoenix, rotel), or null. */
export function where(name) {
  const r = spawnSync("bash", [path.join(repo, "scripts/setup-otel.sh"), "--where", name], { encoding: "utf8" });
  const line = (r.stdout || "").split("\n").find((l) => l.startsWith(`${name} `));
  return line ? line.slice(name.length + 1).trim() : null;
}

/** `{skip}` (or `{error}` under CI) when a backend is missing; `{phoenix, rotel}` otherwise. */
export function backendsGate() {
  const phoenix = where("phoenix");
  const rotel = where("rotel");
  if (phoenix && rotel) return { phoenix, rotel };
  const msg = `no ${[!phoenix && "Phoenix", !rotel && "rotel"].filter(Boolean).join(" or ")} (run scripts/setup-otel.sh)`;
  return process.env.CI ? { error: msg } : { skip: msg };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function group(cmd, args, { env, cwd, out }) {
  const fd = fs.openSync(out, "a");
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ["ignore", fd, fd] });
  fs.closeSync(fd);
  child.on("error", () => {});
  return {
    child,
    stop() {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {}
      return new Promise((resolve) => {
        const t = setTimeout(() => {
          try {
            process.kill(-child.pid, "SIGKILL");
          } catch {}
          resolve();
        }, 3000);
        if (child.exitCode !== null || child.signalCode !== null) return clearTimeout(t), resolve();
        child.once("exit", () => (clearTimeout(t), resolve()));
      });
    },
  };
}

async function waitFor(f, { timeoutMs, what, every = 250 }) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      last = await f();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms (${last && last.message ? last.message : JSON.stringify(last)})`);
}

/** Arize Phoenix on free ports: `{url, traces (the OTLP endpoint), spans(project), log(), stop()}`. */
export async function startPhoenix(bin, { timeoutMs = 240_000 } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-phoenix-"));
  const [port, grpc] = [await freePort(), await freePort()];
  const out = path.join(dir, "phoenix.log");
  const env = { PATH: process.env.PATH, HOME: dir, LANG: "C.UTF-8", PHOENIX_WORKING_DIR: dir, PHOENIX_HOST: "127.0.0.1", PHOENIX_PORT: String(port), PHOENIX_GRPC_PORT: String(grpc), PHOENIX_TELEMETRY_ENABLED: "false", DO_NOT_TRACK: "1" };
  const g = group(bin, ["serve"], { env, cwd: dir, out });
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  try {
    await waitFor(async () => (await fetch(`${url}/healthz`)).ok, { timeoutMs, what: "Phoenix up" });
  } catch (e) {
    await g.stop();
    throw new Error(`${e.message}\n${fs.readFileSync(out, "utf8").slice(-2000)}`);
  }
  return {
    url,
    startMs: Date.now() - t0,
    traces: `${url}/v1/traces`,
    /** Every span of `project` (Phoenix's REST API, paged). */
    async spans(project) {
      const all = [];
      let cursor = null;
      for (let i = 0; i < 50; i++) {
        const q = new URLSearchParams({ limit: "1000", ...(cursor ? { cursor } : {}) });
        const r = await fetch(`${url}/v1/projects/${encodeURIComponent(project)}/spans?${q}`);
        if (r.status === 404) return all;
        if (!r.ok) throw new Error(`Phoenix spans: HTTP ${r.status} ${await r.text()}`);
        const j = await r.json();
        all.push(...(j.data || []));
        if (!j.next_cursor) break;
        cursor = j.next_cursor;
      }
      return all;
    },
    log: () => fs.readFileSync(out, "utf8"),
    async stop() {
      await g.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** rotel on free ports, printing what it receives: `{url (the OTLP/HTTP base), received(), stop()}`. */
export async function startRotel(bin, { timeoutMs = 30_000 } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-rotel-"));
  const [http, grpc] = [await freePort(), await freePort()];
  const out = path.join(dir, "rotel.log");
  const args = ["start", "--exporter", "blackhole", "--debug-log", "traces", "--debug-log", "metrics", "--debug-log", "logs", "--debug-log-verbosity", "detailed", "--otlp-http-endpoint", `127.0.0.1:${http}`, "--otlp-grpc-endpoint", `127.0.0.1:${grpc}`];
  const g = group(bin, args, { env: { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1" }, cwd: dir, out });
  const url = `http://127.0.0.1:${http}`;
  try {
    await waitFor(() => new Promise((resolve) => {
      const s = net.connect(http, "127.0.0.1", () => (s.destroy(), resolve(true)));
      s.on("error", () => resolve(false));
    }), { timeoutMs, what: "rotel up" });
  } catch (e) {
    await g.stop();
    throw e;
  }
  return {
    url,
    /** rotel's debug log, its colour codes taken out. */
    received: () => fs.readFileSync(out, "latin1").replace(/\x1b\[[0-9;]*m/g, ""),
    async stop() {
      await g.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** rotel's detailed debug log as records: `{kind: "span"|"log"|"metric", name, attrs, text}`. */
export function parseRotel(text) {
  const out = [];
  let cur = null;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    let m;
    if (/^Span #\d+/.test(l)) out.push((cur = { kind: "span", attrs: {}, text: "" }));
    else if (/^LogRecord #\d+/.test(l)) out.push((cur = { kind: "log", attrs: {}, text: "" }));
    else if (/^Metric #\d+/.test(l)) out.push((cur = { kind: "metric", attrs: {}, points: [], text: "" }));
    else if (/^(ResourceSpans|ResourceLog|ResourceMetrics) #/.test(l)) cur = null;
    if (!cur) continue;
    cur.text += l + "\n";
    if ((m = /^\s+Name\s+: (.*)$/.exec(l)) && cur.kind === "span") cur.name = m[1];
    else if ((m = /^EventName: (.*)$/.exec(l)) && cur.kind === "log") cur.name = m[1];
    else if ((m = /^Body: Str\((.*)\)$/.exec(l))) cur.body = m[1];
    else if ((m = /^\s+-> Name: (.*)$/.exec(l)) && cur.kind === "metric") cur.name = m[1];
    else if ((m = /^\s+-> DataType: (.*)$/.exec(l)) && cur.kind === "metric") cur.type = m[1];
    else if ((m = /^Data point attributes:/.exec(l)) && cur.kind === "metric") cur.points.push({ attrs: {} });
    else if ((m = /^Value: (.*)$/.exec(l)) && cur.kind === "metric" && cur.points.length) cur.points.at(-1).value = Number(m[1]);
    else if ((m = /^Count: (\d+)$/.exec(l)) && cur.kind === "metric" && cur.points.length) cur.points.at(-1).count = Number(m[1]);
    else if ((m = /^\s+-> ([\w.]+): (Str|Int|Bool|Double|Slice)\((.*)\)$/.exec(l))) {
      const v = m[2] === "Int" || m[2] === "Double" ? Number(m[3]) : m[2] === "Bool" ? m[3] === "true" : m[3];
      if (cur.kind === "metric" && cur.points.length) cur.points.at(-1).attrs[m[1]] = v;
      else cur.attrs[m[1]] = v;
    }
  }
  return out;
}

export { waitFor };

// What a hook that arrives while the warm server exports waits for (issue 41): the longest pause
// of the exporter's event loop while it sends a full spool of cold hooks' calls (1 MiB) and a full
// queue (2048 calls) to a receiver that answers 200, measured by a 1 ms probe timer, with the
// calls per batch and the encoding. Prints figures; asserts nothing.
//
//   node scripts/bench-otel-pause.mjs [path/to/otel.cjs]     (default: js/otel.cjs)
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const otel = require(path.resolve(process.argv[2] || path.join(root, "js/otel.cjs")));

const call = (i) => [
  {
    signal: "span",
    name: "execute_tool Bash",
    trace: "session-1",
    span: `call-${i}`,
    attrs: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Bash", "gen_ai.tool.call.id": `call_${i}`, "gen_ai.conversation.id": "session-1", "hookwise.host": "codex", "hookwise.version": "0.1.0", "hookwise.hook.event": "PreToolUse", "hookwise.decision": i % 3 ? "allowed" : "blocked", "hookwise.rule": i % 3 ? undefined : "scope", "hookwise.path.classes": ["in_scope"], "hookwise.intent.id": "INT-1" },
    count: [{ name: "hookwise.decisions", attrs: { "hookwise.host": "codex", "hookwise.decision": i % 3 ? "allowed" : "blocked" } }],
    latency: { name: "hookwise.hook.duration", attrs: { "hookwise.host": "codex" } },
  },
];

const server = http.createServer((req, res) => (req.resume(), req.on("end", () => res.writeHead(200).end())));
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const endpoint = `http://127.0.0.1:${server.address().port}`;

// the floor: the probe's longest pause with nothing to do (a loaded machine's scheduling), as long
// as one export takes
{
  const floors = [];
  for (let run = 0; run < 5; run++) {
    let last = performance.now();
    let worst = 0;
    const probe = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 1);
    await new Promise((r) => setTimeout(r, 1000));
    clearInterval(probe);
    floors.push(worst);
  }
  floors.sort((a, b) => a - b);
  console.log(`${"(idle)".padEnd(13)} longest event-loop pause: median ${floors[2].toFixed(1)} ms, max ${floors[4].toFixed(1)} ms (5 runs of 1 s, nothing exported)`);
}

for (const protocol of ["http/protobuf", "http/json"]) {
  const rows = [];
  for (let run = 0; run < 5; run++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-otel-pause-"));
    fs.chmodSync(dir, 0o700);
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, XDG_RUNTIME_DIR: dir, OTEL_BSP_SCHEDULE_DELAY: "50" };
    // a full spool, as cold hooks leave it
    const sink = otel.spoolSink(env);
    for (let i = 0; i < 100000; i++) {
      sink(call(i), { startMs: Date.now(), durationMs: 2 });
      if (i % 100 === 99 && fs.readdirSync(path.join(dir, "hookwise")).some((f) => f.endsWith(".spool.dropped"))) break;
    }
    const ex = otel.createExporter({ env });
    for (let i = 0; i < 2048; i++) ex.add(call(100000 + i), { startMs: Date.now(), durationMs: 3 });
    // the probe: a hook's socket read would wait as long as this timer does
    let last = performance.now();
    let worst = 0;
    const probe = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 1);
    const t0 = performance.now();
    await ex.flush();
    while (ex.inFlight || ex.stats.queued > ex.stats.sent + ex.stats.dropped) {
      await ex.flush();
      if (performance.now() - t0 > 60000) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    clearInterval(probe);
    rows.push({ worst, total: performance.now() - t0, sent: ex.stats.sent });
    await ex.shutdown(1000);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const w = rows.map((r) => r.worst).sort((a, b) => a - b);
  console.log(`${protocol.padEnd(13)} longest event-loop pause: median ${w[2].toFixed(1)} ms, max ${w[4].toFixed(1)} ms (5 runs; ${rows[0].sent} calls sent in ${rows[0].total.toFixed(0)} ms)`);
}
server.close();

// Processes must not outlive their owner (issue 18, item 6). The maenifold CLI here is the fake
// (tests/fake-maenifold) behind a wrapper that starts a background `sleep` first — a helper
// the CLI never waits for (lib/procs.mjs). After a call ends, after a call times out, and after
// `dispose()`, with transports `cli`, `auto` and `mcp`, no process carrying the test's marker
// may be left (checked in /proc; the check polls for up to 5 s, for SIGTERM then SIGKILL).
//
//   npm run build && node --test --test-concurrency=1 tests/security/processes.test.mjs

import { test, describe, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { installPacked, quietEnv, tmp } from "./lib/pkg.mjs";
import { FAKE_ROOT, leakyMaenifold, processesWith, waitUntil, killMarked } from "./lib/procs.mjs";

const linux = fs.existsSync("/proc/self/cmdline");
let pkg;
let createEngine;
let wrapper;
const markers = [];

before(async () => {
  pkg = installPacked("hookwise-sec-procs-");
  ({ createEngine } = await pkg.engine());
  wrapper = leakyMaenifold(tmp("hookwise-sec-bin-"));
});
after(() => {
  for (const m of markers) killMarked(m);
  pkg?.cleanup();
});

/** A fresh engine whose maenifold is the leaky wrapper. */
async function start({ transport, options = {}, env = {} }) {
  const marker = `hwsec${randomBytes(6).toString("hex")}`;
  markers.push(marker);
  const root = path.join(tmp("hookwise-sec-mroot-"), "root");
  fs.cpSync(FAKE_ROOT, root, { recursive: true });
  const cwd = tmp("hookwise-sec-ledgerline-");
  const logs = [];
  const engine = await createEngine({
    cwd,
    env: quietEnv({ MAENIFOLD_ROOT: root, HWSEC_MARKER: marker, TZ: "UTC", ...env }),
    options: { cliPath: wrapper, transport, ...options },
    watch: false,
    log: (level, message) => logs.push(`${level}: ${message}`),
  });
  return { engine, marker, logs };
}

const ASK = { tool: "bash", args: { command: "echo [[auth]] notes", description: "look" } };

async function assertNoneLeft(marker, when) {
  const left = await waitUntil(() => processesWith(marker).length === 0 && [], 5000).then(() => processesWith(marker));
  assert.deepEqual(
    left.map((p) => p.cmdline),
    [],
    `${when}: ${left.length} process(es) of this engine are still alive (reparented, nobody will end them):\n  ${left.map((p) => `${p.pid} ${p.cmdline}`).join("\n  ")}`,
  );
}

describe("no stray processes", { skip: linux ? false : "needs Linux /proc" }, () => {
  let current = null;
  afterEach(async () => {
    await current?.engine.dispose().catch(() => {});
    if (current) killMarked(current.marker);
    current = null;
  });

  test("cli: after a call ends, the helper the CLI started is gone", async () => {
    current = await start({ transport: "cli" });
    const r = await current.engine.augmentToolCall(ASK);
    assert.ok(r.context && r.context.includes("auth"), `control: the knowledge call worked through the wrapper (context: ${r.context}; logs: ${current.logs.join(" | ")})`);
    assert.ok(fs.existsSync("/proc/1"), "procfs");
    await assertNoneLeft(current.marker, "cli, after the call ended");
  });

  test("cli: after a call times out, the CLI and its helper are gone", async (t) => {
    current = await start({ transport: "cli", options: { timeoutMs: 1000, deadlineMs: 3000 }, env: { FAKE_MAENIFOLD_FAULT: "BuildContext:hang" } });
    const t0 = Date.now();
    const r = await current.engine.augmentToolCall(ASK);
    t.diagnostic(`the call returned after ${Date.now() - t0} ms (context: ${r.context ? "yes" : "none"})`);
    await assertNoneLeft(current.marker, "cli, after the call timed out");
  });

  test("cli: dispose() during a call ends the CLI and its helper", async () => {
    current = await start({ transport: "cli", options: { timeoutMs: 30000, deadlineMs: 30000 }, env: { FAKE_MAENIFOLD_FAULT: "BuildContext:slow:20000" } });
    const pending = current.engine.augmentToolCall(ASK).catch((e) => e);
    const seen = await waitUntil(() => processesWith(`hwsec-sleeper-${current.marker}`).length > 0, 10000);
    assert.ok(seen, `control: the CLI's helper started (logs: ${current.logs.join(" | ")})`);
    await current.engine.dispose();
    await assertNoneLeft(current.marker, "cli, after dispose() during a call");
    await Promise.race([pending, new Promise((ok) => setTimeout(ok, 5000))]);
  });

  for (const transport of ["mcp", "auto"]) {
    test(`${transport}: after a call and dispose(), the server and its helper are gone`, async () => {
      current = await start({ transport });
      const r = await current.engine.augmentToolCall(ASK);
      assert.ok(r.context && r.context.includes("auth"), `control: the knowledge call worked (context: ${r.context}; logs: ${current.logs.join(" | ")})`);
      assert.ok(processesWith(current.marker).length > 0, "control: the warm server (and its helper) run while the engine lives");
      await current.engine.dispose();
      await assertNoneLeft(current.marker, `${transport}, after dispose()`);
    });

    test(`${transport}: dispose() during a slow call ends the server and its helper`, async () => {
      current = await start({ transport, options: { timeoutMs: 30000, deadlineMs: 30000 }, env: { FAKE_MAENIFOLD_MCP_FAULT: "slow:build_context:20000", FAKE_MAENIFOLD_FAULT: "BuildContext:slow:20000" } });
      const pending = current.engine.augmentToolCall(ASK).catch((e) => e);
      const seen = await waitUntil(() => processesWith(`hwsec-sleeper-${current.marker}`).length > 0, 10000);
      assert.ok(seen, `control: the server's helper started (logs: ${current.logs.join(" | ")})`);
      await new Promise((ok) => setTimeout(ok, 300));
      await current.engine.dispose();
      await assertNoneLeft(current.marker, `${transport}, after dispose() during a call`);
      await Promise.race([pending, new Promise((ok) => setTimeout(ok, 5000))]);
    });
  }
});

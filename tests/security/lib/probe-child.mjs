// Child process of lib/probe.mjs: runs hostile engine calls against the installed package, one
// case after another, each on a fresh copy of its project and a fresh engine, and prints one
// line per event on stdout:
//   START <name>                     before the case
//   RESULT <json>                    { name, returned, threw, blocked, reason, ms, logs, … }
// A case that never returns (a wasm loop blocks this process) is found by the parent: it kills
// this process and names the last START without a RESULT. Input: one JSON object on stdin:
// { engineUrl, workDir, cases: [{ name, template, env, options, select, method, tool, params, hostile,
//   yaml?: { then: {tool, params} } }] }.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { deepArray, dag, climbingPath } from "./fixtures.mjs";

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const { createEngine } = await import(input.engineUrl);

/** The hostile call: `{ tool, params }` from the case's honest base. */
const HOSTILE = {
  none: (tool, params) => ({ tool, params }),
  surrogate: (tool, params) => ({ tool, params: { ...params, extra: "lone \ud800 surrogate" } }),
  surrogateKey: (tool, params) => ({ tool, params: { ...params, ["k\udc00"]: "lone surrogate in a key" } }),
  deep200: (tool, params) => ({ tool, params: { ...params, extra: deepArray(200) } }),
  deep100k: (tool, params) => ({ tool, params: { ...params, extra: deepArray(100_000) } }),
  function: (tool, params) => ({ tool, params: { ...params, extra: () => "hi" } }),
  nullProtoTool: (tool, params) => ({ tool: Object.assign(Object.create(null), { name: tool }), params }),
  nullProtoParams: (tool, params) => ({ tool, params: Object.assign(Object.create(null), params) }),
  cyclic: (tool, params) => {
    const p = { ...params, nested: { list: [] } };
    p.nested.list.push(p);
    p.self = p;
    return { tool, params: p };
  },
  bigint: (tool, params) => ({ tool, params: { ...params, extra: 2n ** 70n } }),
  dag25: (tool, params) => ({ tool, params: { ...params, extra: dag(25) } }),
  path4k: (tool, params) => ({ tool, params: { ...params, filePath: climbingPath(800) } }),
  path64k: (tool, params) => ({ tool, params: { ...params, filePath: climbingPath(13_100) } }),
};

/** Hostile values for selectIntent's session and intent ids. */
const ID_HOSTILE = {
  surrogate: "INT-\ud800",
  nullProto: Object.create(null),
  bigint: 1n,
  function: () => "INT-1",
  cyclic: (() => {
    const o = {};
    o.o = o;
    return o;
  })(),
  deep100k: deepArray(100_000),
};

const out = (line) => fs.writeSync(1, line + "\n");

for (const c of input.cases) {
  out(`START ${c.name}`);
  const dir = fs.mkdtempSync(path.join(input.workDir ?? os.tmpdir(), "case-"));
  fs.cpSync(c.template, dir, { recursive: true });
  const logs = [];
  const res = { name: c.name, returned: false, threw: null, blocked: null, reason: null, ms: null, logs };
  let engine = null;
  try {
    const t0 = performance.now();
    engine = await createEngine({ cwd: dir, env: c.env, options: c.options ?? {}, watch: false, log: (level, message) => logs.push({ level, message: String(message).slice(0, 2000) }) });
    res.initMs = Math.round(performance.now() - t0);
    if (c.select) {
      const t1 = performance.now();
      const s = await engine.selectIntent("sec", c.select);
      res.selectMs = Math.round(performance.now() - t1);
      res.select = { ok: s.ok, text: s.text.slice(0, 2000) };
    }
    const { tool, params } = c.method === "selectIntent" ? {} : HOSTILE[c.hostile](c.tool, c.params);
    if (c.describe) res.size = typeof params.filePath === "string" ? params.filePath.length : null;
    // executePostHook: an honest in-scope call ran; the host then reports it with hostile params
    let honest = null;
    if (c.method === "executePostHook") {
      const p = { filePath: "src/billing/ok.ts", content: "export const ok = 1;\n" };
      honest = await engine.executePreHook({ toolName: "write", params: p, sessionId: "sec" });
      res.honestBlocked = honest.blocked;
      fs.mkdirSync(path.join(dir, "src/billing"), { recursive: true });
      fs.writeFileSync(path.join(dir, p.filePath), p.content);
    }
    const t2 = performance.now();
    try {
      let r;
      if (c.method === "augmentToolCall") r = await engine.augmentToolCall({ tool, args: params, sessionId: "sec" });
      else if (c.method === "executePostHook") r = await engine.executePostHook({ toolName: tool, params, sessionId: "sec", callId: honest.callId });
      else if (c.method === "selectIntent") r = await engine.selectIntent(c.hostile === "session" ? ID_HOSTILE.nullProto : "sec", ID_HOSTILE[c.hostile] ?? "INT-1");
      else r = await engine.executePreHook({ toolName: tool, params, sessionId: "sec" });
      res.returned = true;
      res.blocked = r.blocked ?? null;
      res.reason = typeof r.reason === "string" ? r.reason.slice(0, 4000) : r.reason ?? null;
      res.context = !!(r.context || r.contextInjection);
      if ("recorded" in r) res.recorded = r.recorded;
      if ("ok" in r) res.ok = r.ok;
    } catch (e) {
      res.threw = `${e && e.name}: ${e && e.message}`.slice(0, 1000);
    }
    res.ms = Math.round(performance.now() - t2);
  } catch (e) {
    res.setupError = String(e && e.stack).slice(0, 2000);
  }
  try {
    await engine?.dispose();
  } catch {
    /* reported by the case's own result */
  }
  fs.rmSync(dir, { recursive: true, force: true });
  out(`RESULT ${JSON.stringify(res)}`);
}
process.exit(0);

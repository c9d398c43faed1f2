// What a scripted OpenCode run tells about one call: the result the model read, OpenCode's own
// record of the call, and the project's Agent Trace records (shared by the security suites).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../../e2e-shared/trace-files.mjs";

/** The run's model request carrying the result of `callId`, and that result. */
export function resultOf(r, callId) {
  for (const req of r.mainRequests()) {
    const res = req.toolResults().find((t) => t.toolCallId === callId);
    if (res) return res.content;
  }
  // a compaction replaced the history before the model was asked again: OpenCode's own record
  const u = r.toolUses().find((x) => x.callID === callId);
  if (u) return String(u.error ?? u.output ?? "");
  assert.fail(`no model request carries the result of ${callId}\n${r.describe()}`);
}

/** OpenCode's record of call `id`. */
export const use = (r, id) => r.toolUses().find((u) => u.callID === id);

/** The records of `.orchestration/agent_trace.jsonl` in `dir`. */
export function traceRecords(dir) {
  return traceRecordsOf(dir);
}

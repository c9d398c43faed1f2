// What the model read of a tool call in a real OpenCode run (shared by the security suites).
import assert from "node:assert/strict";

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

/** OpenCode's record of the call `id` (its `status`: completed, error). */
export const use = (r, id) => r.toolUses().find((u) => u.callID === id);

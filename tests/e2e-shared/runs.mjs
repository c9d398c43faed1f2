// Reading a scripted model's run in the real-host suites (OpenCode's `runOpencode` result,
// OpenClaw's gateway model): the request that carries a tool call's result.
import assert from "node:assert/strict";

/**
 * The first of `requests` (the main session's model requests, in order) that carries the
 * result of `callId`: `{ req, result, call }` (the result's text, the assistant's call). Fails
 * with `describe()` (what the run did) when none does.
 */
export function requestWithResult(requests, callId, describe) {
  for (const req of requests) {
    const res = req.toolResults().find((t) => t.toolCallId === callId);
    if (res) return { req, result: res.content, call: req.assistantToolCalls().find((c) => c.id === callId) };
  }
  assert.fail(`no request carries the result of ${callId}\n${describe()}`);
}

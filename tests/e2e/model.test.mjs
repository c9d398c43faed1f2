// Unit tests of the scripted model server alone (no OpenCode needed, < 1 s).

import { test } from "node:test";
import assert from "node:assert/strict";
import { startModel, classify, findText, lastToolResult } from "./lib/model.mjs";

const TOOLS = [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }];

async function post(model, body) {
  const res = await fetch(`${model.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res;
}

/** Parse an SSE body into its `data:` payloads. */
async function sse(res) {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((b) => b.startsWith("data: "))
    .map((b) => b.slice(6))
    .map((d) => (d === "[DONE]" ? d : JSON.parse(d)));
}

test("streams a tool call, then text, recording what it saw", async (t) => {
  const model = await startModel([
    { tool: "bash", id: "call_x", args: { command: "ls" } },
    (req) => `result was ${req.lastToolResult()}`,
  ]);
  t.after(() => model.close());

  const first = await sse(await post(model, { model: "mock-1", stream: true, tools: TOOLS, messages: [{ role: "user", content: "hi" }] }));
  assert.equal(first.at(-1), "[DONE]");
  const call = first[0].choices[0].delta.tool_calls[0];
  assert.deepEqual(call, { index: 0, id: "call_x", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } });
  const fin = first.at(-2);
  assert.equal(fin.choices[0].finish_reason, "tool_calls");
  assert.ok(fin.usage.prompt_tokens > 0);

  const messages = [
    { role: "user", content: "hi" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_x", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] },
    { role: "tool", tool_call_id: "call_x", content: "a.txt\n" },
  ];
  const second = await sse(await post(model, { model: "mock-1", stream: true, tools: TOOLS, messages }));
  assert.equal(second[0].choices[0].delta.content, "result was a.txt\n");
  assert.equal(second.at(-2).choices[0].finish_reason, "stop");

  const main = model.mainRequests();
  assert.equal(main.length, 2);
  assert.equal(main[1].lastToolResult(), "a.txt\n");
  assert.equal(lastToolResult(main[1].body), "a.txt\n");
  assert.deepEqual(main[1].assistantToolCalls(), [{ id: "call_x", name: "bash", args: { command: "ls" } }]);
  assert.ok(findText(main[1].body, '"command":"ls"'));
  assert.equal(model.remaining(), 0);
});

test("title and compaction requests do not consume the script", async (t) => {
  const model = await startModel(["main reply"], { title: "A title", summary: (req) => `summary of ${req.messages.length}` });
  t.after(() => model.close());
  const title = await sse(
    await post(model, { stream: true, messages: [{ role: "system", content: "You are a title generator. You output ONLY a thread title." }, { role: "user", content: "x" }] }),
  );
  assert.equal(title[0].choices[0].delta.content, "A title");
  const summary = await sse(await post(model, { stream: true, messages: [{ role: "user", content: "summarise" }] }));
  assert.equal(summary[0].choices[0].delta.content, "summary of 1");
  const main = await sse(await post(model, { stream: true, tools: TOOLS, messages: [{ role: "user", content: "go" }] }));
  assert.equal(main[0].choices[0].delta.content, "main reply");
  assert.deepEqual(model.requests().map((r) => r.kind), ["title", "compaction", "main"]);
  assert.equal(model.titleRequests().length, 1);
  assert.equal(model.compactionRequests().length, 1);
  assert.equal(classify({ tools: TOOLS, messages: [] }), "main");
});

test("stream:false, custom usage, errors, fallback and /v1/models", async (t) => {
  const model = await startModel([{ text: "big", usage: { prompt_tokens: 190000 } }, { status: 500, error: "nope" }], { fallback: "fallback!" });
  t.after(() => model.close());
  const one = await (await post(model, { stream: false, tools: TOOLS, messages: [{ role: "user", content: "a" }] })).json();
  assert.equal(one.choices[0].message.content, "big");
  assert.equal(one.choices[0].finish_reason, "stop");
  assert.equal(one.usage.prompt_tokens, 190000);
  assert.equal(one.usage.total_tokens, 190010);
  const two = await post(model, { stream: false, tools: TOOLS, messages: [] });
  assert.equal(two.status, 500);
  assert.equal((await two.json()).error.message, "nope");
  const three = await (await post(model, { stream: false, tools: TOOLS, messages: [] })).json();
  assert.equal(three.choices[0].message.content, "fallback!");
  const models = await (await fetch(`${model.baseURL}/models`)).json();
  assert.deepEqual(models.data.map((m) => m.id), ["mock-1"]);
});

test("a function script sees every main request and parallel tool calls stream with indexes", async (t) => {
  const seen = [];
  const model = await startModel((req, ctx) => {
    seen.push(ctx.index);
    return { tools: [{ name: "read", args: { filePath: "a" } }, { name: "read", args: { filePath: "b" } }] };
  });
  t.after(() => model.close());
  const chunks = await sse(await post(model, { stream: true, tools: TOOLS, messages: [] }));
  const calls = chunks.filter((c) => c.choices?.[0]?.delta?.tool_calls).map((c) => c.choices[0].delta.tool_calls[0]);
  assert.deepEqual(calls.map((c) => [c.index, JSON.parse(c.function.arguments).filePath]), [[0, "a"], [1, "b"]]);
  assert.notEqual(calls[0].id, calls[1].id);
  await post(model, { stream: true, tools: TOOLS, messages: [] }).then((r) => r.text());
  assert.deepEqual(seen, [0, 1]);
});

test("a throwing script step is answered 500 and recorded", async (t) => {
  const model = await startModel([() => {
    throw new Error("script bug");
  }]);
  t.after(() => model.close());
  const res = await post(model, { stream: true, tools: TOOLS, messages: [] });
  assert.equal(res.status, 500);
  await res.text();
  assert.equal(model.errors()[0].message, "script bug");
});

// The one scripted model (./model.mjs) alone, no host: each wire answers a tool call and text in
// its own stream format, reads a tool result back into the one request view, and only requests
// that offer tools consume the script.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { startModel } from "./model.mjs";

/** The `data:` payloads of an SSE body, parsed (`[DONE]` left out). */
const events = (text) =>
  text
    .split(/\r?\n\r?\n/)
    .map((block) => block.split(/\r?\n/).find((l) => l.startsWith("data: "))?.slice(6))
    .filter((d) => d && d !== "[DONE]")
    .map((d) => JSON.parse(d));

describe("the scripted model", () => {
  let model;
  const post = async (path, body) => {
    const res = await fetch(model.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
  };

  before(async () => {
    model = await startModel([
      { tool: "shell", args: { command: "ls" }, id: "c1" },
      "chat text",
      { tool: "exec_command", args: { cmd: "ls" }, id: "c2" },
      { custom: "apply_patch", input: "*** Begin Patch\n*** End Patch\n", id: "c3" },
      { tool: "Bash", input: { command: "ls" }, id: "c4" },
      { tool: "run_shell_command", args: { command: "ls" } },
      (req) => `saw ${req.toolResults().length} result(s): ${req.toolResults()[0]?.content}`,
      { status: 503, error: "overloaded" },
    ]);
  });
  after(() => model.close());

  test("OpenAI chat: a streamed tool call, then text; a tool result read back", async () => {
    const tools = [{ type: "function", function: { name: "shell", parameters: {} } }];
    const a = events((await post("/v1/chat/completions", { model: "m", stream: true, tools, messages: [{ role: "system", content: "SYS" }, { role: "user", content: "go" }] })).text);
    const call = a.flatMap((e) => e.choices[0].delta.tool_calls ?? [])[0];
    assert.deepEqual([call.id, call.function.name, JSON.parse(call.function.arguments)], ["c1", "shell", { command: "ls" }]);
    assert.equal(a.at(-1).choices[0].finish_reason, "tool_calls");
    const messages = [{ role: "user", content: "go" }, { role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: "shell", arguments: '{"command":"ls"}' } }] }, { role: "tool", tool_call_id: "c1", content: "a.txt" }];
    const b = events((await post("/v1/chat/completions", { model: "m", tools, messages })).text);
    assert.equal(b.map((e) => e.choices[0].delta.content ?? "").join(""), "chat text");
    const req = model.mainRequests()[1];
    assert.deepEqual(req.toolResults(), [{ id: "c1", name: undefined, content: "a.txt" }]);
    assert.deepEqual(req.toolCalls(), [{ id: "c1", name: "shell", args: { command: "ls" } }]);
    assert.equal(model.mainRequests()[0].system, "SYS");
  });

  test("OpenAI Responses: a function call and a custom tool call (apply_patch)", async () => {
    const tools = [{ type: "function", name: "exec_command" }, { type: "custom", name: "apply_patch" }];
    const a = events((await post("/v1/responses", { model: "gpt-5.5", stream: true, tools, instructions: "INS", input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "go" }] }] })).text);
    const done = a.find((e) => e.type === "response.completed").response.output;
    assert.deepEqual([done[0].type, done[0].name, done[0].call_id, JSON.parse(done[0].arguments)], ["function_call", "exec_command", "c2", { cmd: "ls" }]);
    const input = [{ type: "function_call", call_id: "c2", name: "exec_command", arguments: '{"cmd":"ls"}' }, { type: "function_call_output", call_id: "c2", output: "a.txt" }];
    const b = events((await post("/v1/responses", { model: "gpt-5.5", tools, input })).text);
    const item = b.find((e) => e.type === "response.completed").response.output[0];
    assert.deepEqual([item.type, item.name, item.call_id], ["custom_tool_call", "apply_patch", "c3"]);
    assert.match(item.input, /Begin Patch/);
    const req = model.mainRequests()[3];
    assert.deepEqual(req.toolResults(), [{ id: "c2", content: "a.txt" }]);
    assert.equal(model.mainRequests()[2].system.split("\n")[0], "INS");
  });

  test("Anthropic Messages: a tool_use block streamed as input_json_delta", async () => {
    const a = events((await post("/v1/messages?beta=true", { model: "claude", stream: true, tools: [{ name: "Bash" }], messages: [{ role: "user", content: "go" }] })).text);
    const start = a.find((e) => e.type === "content_block_start" && e.content_block.type === "tool_use");
    assert.deepEqual([start.content_block.id, start.content_block.name], ["c4", "Bash"]);
    assert.deepEqual(JSON.parse(a.find((e) => e.delta?.type === "input_json_delta").delta.partial_json), { command: "ls" });
    assert.equal(a.find((e) => e.type === "message_delta").delta.stop_reason, "tool_use");
  });

  test("Gemini: a functionCall part, then text that reads the functionResponse", async () => {
    const tools = [{ functionDeclarations: [{ name: "run_shell_command" }] }];
    const path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
    const a = events((await post(path, { tools, contents: [{ role: "user", parts: [{ text: "go" }] }] })).text);
    assert.deepEqual(a[0].candidates[0].content.parts, [{ functionCall: { name: "run_shell_command", args: { command: "ls" } } }]);
    const contents = [
      { role: "user", parts: [{ text: "go" }] },
      { role: "model", parts: [{ functionCall: { name: "run_shell_command", args: { command: "ls" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: { output: "a.txt" } } }] },
    ];
    const b = events((await post(path, { tools, contents })).text);
    assert.equal(b[0].candidates[0].content.parts[0].text, 'saw 1 result(s): {"output":"a.txt"}');
    assert.equal(model.mainRequests().at(-1).model, "gemini-2.5-flash", "the model named in the URL");
  });

  test("requests without tools are aux and do not consume the script; errors are scripted too", async () => {
    const before = model.remaining();
    const aux = events((await post("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", { contents: [{ role: "user", parts: [{ text: "who is next_speaker?" }] }] })).text);
    assert.equal(JSON.parse(aux[0].candidates[0].content.parts[0].text).next_speaker, "user");
    assert.equal(model.remaining(), before);
    const err = await post("/v1/chat/completions", { tools: [{ type: "function", function: { name: "x" } }], messages: [] });
    assert.equal(err.status, 503);
    assert.equal(model.auxRequests().length, 1);
    assert.deepEqual(model.errors(), []);
  });
});

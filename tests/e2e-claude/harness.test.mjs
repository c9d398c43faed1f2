// The harness itself: the scripted Messages API alone (no CLI needed), then the real Claude Code
// against it with throwaway command hooks — what a hook's answer does to what the model reads, and
// an auto-compaction — so the hookwise suites rest on a double that behaves like the real thing.
//
//   node --test tests/e2e-claude/harness.test.mjs
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { startApi, describeBody, SUMMARY_MARKER } from "./lib/api.mjs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { e2eGate, makeSandbox, assertRunOk } from "./lib/claude.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";

const REF_MCP = path.join(path.dirname(fileURLToPath(import.meta.url)), "lib", "ref-mcp.mjs");

const suiteSkip = suiteGate(e2eGate(), "e2e-claude harness", "claude");

function post(url, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      let data = "";
      res.on("data", (d) => (data += d));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, data }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const events = (sse) =>
  sse
    .split("\n\n")
    .filter(Boolean)
    .map((chunk) => JSON.parse(chunk.split("\n").find((l) => l.startsWith("data: ")).slice(6)));

describe("the scripted Messages API alone", () => {
  test("streams text and tool_use blocks as Messages SSE, records the request", async () => {
    const api = await startApi([{ tools: [{ name: "Bash", input: { command: "ls" }, id: "toolu_x" }], text: "let me look" }, "done"]);
    after(() => api.close());
    const body = { model: "m", stream: true, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], system: [{ type: "text", text: "sys" }], tools: [{ name: "Bash" }] };
    const r1 = await post(`${api.baseURL}/v1/messages?beta=true`, body);
    assert.equal(r1.status, 200);
    assert.match(r1.headers["content-type"], /text\/event-stream/);
    const ev = events(r1.data);
    assert.deepEqual(
      ev.map((e) => e.type),
      ["message_start", "content_block_start", "content_block_delta", "content_block_stop", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"],
    );
    assert.equal(ev[4].content_block.type, "tool_use");
    assert.equal(ev[4].content_block.id, "toolu_x");
    assert.deepEqual(JSON.parse(ev[5].delta.partial_json), { command: "ls" });
    assert.equal(ev[7].delta.stop_reason, "tool_use");
    const r2 = await post(`${api.baseURL}/v1/messages?beta=true`, { ...body, stream: false });
    assert.equal(JSON.parse(r2.data).content[0].text, "done");
    assert.equal(api.requests().length, 2);
    assert.equal(api.requests()[0].system, "sys");
    assert.deepEqual(api.requests()[0].tools, ["Bash"]);
    assert.equal(api.remaining(), 0);
  });

  test("the summary request is recognised through trailing system messages and does not consume the script", async () => {
    const api = await startApi([{ overflow: true }, "after"], { summary: "THE SUMMARY" });
    after(() => api.close());
    const first = await post(`${api.baseURL}/v1/messages`, { stream: true, messages: [{ role: "user", content: "go" }] });
    assert.equal(first.status, 400);
    assert.match(JSON.parse(first.data).error.message, /prompt is too long/);
    const summaryBody = {
      stream: true,
      messages: [
        { role: "user", content: [{ type: "text", text: `CRITICAL: Respond with TEXT ONLY. ${SUMMARY_MARKER}.` }] },
        { role: "system", content: "PreToolUse:Bash hook additional context: x" },
      ],
    };
    const s = await post(`${api.baseURL}/v1/messages`, summaryBody);
    assert.match(events(s.data)[2].delta.text, /<summary>\nTHE SUMMARY\n<\/summary>/);
    const next = await post(`${api.baseURL}/v1/messages`, { stream: true, messages: [{ role: "user", content: "go on" }] });
    assert.equal(events(next.data)[2].delta.text, "after");
    assert.deepEqual(
      api.requests().map((r) => r.kind),
      ["main", "summary", "main"],
    );
  });

  test("request accessors: system messages, tool results, the model's calls", () => {
    const d = describeBody({
      system: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
      messages: [
        { role: "user", content: "p" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "x" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "out" }], is_error: true }] },
        { role: "system", content: "ctx" },
      ],
    });
    assert.equal(d.system, "a\nb");
    assert.deepEqual(d.systemMessages(), ["ctx"]);
    assert.deepEqual(d.toolResults(), [{ toolUseId: "t1", content: "out", isError: true }]);
    assert.deepEqual(d.toolUses(), [{ id: "t1", name: "Bash", input: { command: "x" } }]);
    assert.equal(d.lastUserText(), "out\nctx");
  });
});

describe("the real Claude Code against the scripted API (command hooks)", { skip: suiteSkip }, () => {
  const hook = (event, matcher, out) => ({ [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: `printf '%s' '${JSON.stringify(out)}'` }] }] });

  test("PreToolUse context reaches the model after the tool result; a deny reason is the tool's error", async () => {
    const sb = makeSandbox({
      files: {
        ".claude/settings.json": {
          hooks: {
            ...hook("PreToolUse", "Bash", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", additionalContext: "CTX-PRE" } }),
            ...hook("UserPromptSubmit", null, { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "CTX-PROMPT" } }),
          },
        },
      },
    });
    after(() => sb.cleanup());
    const r = await sb.run({ prompt: "run it", script: [{ tool: "Bash", id: "toolu_1", input: { command: "echo hi", description: "x" } }, "all done"] });
    assertRunOk(assert, r);
    assert.equal(r.json.result, "all done");
    const [first] = r.mainRequests();
    assert.ok(first.systemMessages()[0].includes("UserPromptSubmit hook additional context: CTX-PROMPT"), r.describe());
    const after1 = r.afterTool("toolu_1");
    assert.deepEqual(after1.result, { toolUseId: "toolu_1", content: "hi", isError: false });
    assert.ok(after1.req.systemMessages().includes("PreToolUse:Bash hook additional context: CTX-PRE"), r.describe());
    assert.deepEqual(r.leftovers, [], "nothing of the sandbox outlives claude");

    sb.writeFiles({ ".claude/settings.json": { hooks: hook("PreToolUse", "Bash", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "NOPE-REASON" } }) } });
    const d = await sb.run({ prompt: "run it", script: [{ tool: "Bash", id: "toolu_2", input: { command: "touch ran.txt", description: "x" } }, "ok"] });
    assertRunOk(assert, d);
    assert.deepEqual(d.afterTool("toolu_2").result, { toolUseId: "toolu_2", content: "PreToolUse:Bash hook error: NOPE-REASON", isError: true });
    assert.equal(sb.exists("ran.txt"), false, "the denied call did not run");
  });

  test("an overflow starts an auto-compaction: PreCompact (its output in the summary instructions), one summary request, SessionStart(compact) context in the next request", async () => {
    const sb = makeSandbox({
      files: {
        ".claude/settings.json": {
          hooks: {
            PreCompact: [{ hooks: [{ type: "command", command: "cat > \"$CLAUDE_PROJECT_DIR/precompact.json\"; printf 'PRECOMPACT-GUIDANCE'" }] }],
            ...hook("SessionStart", "compact", { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "CTX-AFTER-COMPACT" } }),
          },
        },
      },
    });
    after(() => sb.cleanup());
    const r = await sb.run({
      prompt: "work",
      script: [{ tool: "Bash", id: "toolu_1", input: { command: "echo one", description: "x" } }, { overflow: true }, "after compaction"],
      apiOptions: { summary: "SCRIPTED SUMMARY" },
    });
    assertRunOk(assert, r);
    assert.equal(r.json.result, "after compaction");
    assert.deepEqual(
      r.requests().map((q) => q.kind),
      ["main", "main", "summary", "main"],
      r.describe(),
    );
    const pre = JSON.parse(sb.read("precompact.json"));
    assert.equal(pre.hook_event_name, "PreCompact");
    assert.equal(pre.trigger, "auto");
    // A PreCompact hook's plain output joins the summary request's instructions.
    assert.ok(r.summaryRequests()[0].lastUserText().includes("Additional Instructions:\nPRECOMPACT-GUIDANCE\n"), r.describe());
    const last = r.mainRequests().at(-1);
    assert.ok(last.findText("SCRIPTED SUMMARY"), r.describe());
    assert.ok(last.systemMessages().some((s) => s.includes("CTX-AFTER-COMPACT")), r.describe());
  });
});

// What hookwise's Claude Code set-up relies on about MCP tools, with a reference server.
describe("the real Claude Code and an MCP server's tools (reference server)", { skip: suiteSkip }, () => {
  const mcpJson = { mcpServers: { ref: { type: "stdio", command: process.execPath, args: [REF_MCP] } } };
  const hooks = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "mcp_tool", server: "ref", tool: "pre_tool_use", input: { command: "${tool_input.command}" } }] }] };
  const deferred = (req) => /select:<name>[\s\S]*/.exec(req.systemMessages().join("\n"))?.[0] ?? "";
  const bash = { tool: "Bash", id: "toolu_b", input: { command: "echo hi", description: "x" } };

  test("a permissions deny rule hides a hook tool from the model, and the mcp_tool hook still runs", async () => {
    const sb = makeSandbox({ files: { ".mcp.json": mcpJson, ".claude/settings.json": { hooks, permissions: { deny: ["mcp__ref__pre_tool_use"] } } } });
    after(() => sb.cleanup());
    const r = await sb.run({ prompt: "go", script: [bash, "done"] });
    assertRunOk(assert, r);
    const list = deferred(r.requests()[0]);
    assert.ok(list.includes("mcp__ref__model_tool"), `the model is offered the other tool (deferred)\n${list}`);
    assert.ok(!list.includes("mcp__ref__pre_tool_use") && !r.requests()[0].findText("mcp__ref__pre_tool_use"), "the denied tool is nowhere in the request");
    const { req } = r.afterTool("toolu_b");
    assert.ok(req.systemMessages().includes("PreToolUse:Bash hook additional context: REF-CTX echo hi"), r.describe());

    const plain = makeSandbox({ files: { ".mcp.json": mcpJson, ".claude/settings.json": { hooks } } });
    after(() => plain.cleanup());
    const p = await plain.run({ prompt: "go", script: ["done"] });
    assert.ok(deferred(p.requests()[0]).includes("mcp__ref__pre_tool_use"), "without the rule the hook tool is offered");
  });

  test("-p refuses a model's MCP tool call unless allowed in settings.local.json or --allowedTools (settings.json allow does not count)", async () => {
    const call = [{ tool: "mcp__ref__model_tool", id: "toolu_m", input: {} }, "done"];
    const refused = "Claude requested permissions to use mcp__ref__model_tool, but you haven't granted it yet.";
    const cases = [
      ["project settings.json allow", { ".claude/settings.json": { permissions: { allow: ["mcp__ref__model_tool"] } } }, undefined, refused],
      ["settings.local.json allow", { ".claude/settings.local.json": { permissions: { allow: ["mcp__ref__model_tool"] } } }, undefined, "model tool ran"],
      ["--allowedTools", {}, "Bash mcp__ref__model_tool", "model tool ran"],
    ];
    await Promise.all(
      cases.map(async ([label, files, allowedTools, want]) => {
        const sb = makeSandbox({ files: { ".mcp.json": mcpJson, ...files } });
        after(() => sb.cleanup());
        const r = await sb.run({ prompt: "go", script: call, ...(allowedTools ? { allowedTools } : {}) });
        assertRunOk(assert, r);
        assert.equal(r.afterTool("toolu_m")?.result.content, want, `${label}\n${r.describe()}`);
      }),
    );
  });
});

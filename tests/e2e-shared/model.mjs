// One scripted model for the real-host suites, on 127.0.0.1, Node built-ins only. It speaks every
// wire format a host under test uses, on the same port, told apart by the path:
//   POST …/chat/completions                          OpenAI chat completions (SSE, or JSON when stream:false)
//   POST …/responses                                 OpenAI Responses (SSE)
//   POST …/messages                                  Anthropic Messages (SSE, or JSON when stream:false)
//   POST …/models/<m>:streamGenerateContent?alt=sse  Gemini (also :generateContent, :countTokens)
//   GET  …/models                                    a model list (mock-1)
//   POST …/chat-stream, …/get-models                 Augment's tenant API (Auggie; NDJSON)
//
//   const model = await startModel([
//     { tool: "run_shell_command", args: { command: "ls" } },   // 1st main request: one tool call
//     (req) => `saw ${req.toolResults().at(-1)?.content}`,        // 2nd: a function of the request
//   ]);
//   model.url  // http://127.0.0.1:PORT (append the path the host wants: /v1, /v1beta …)
//
// A script is an array of steps (or one function for every main request). A step is a reply or a
// function `(req, ctx) => reply`; a reply is
//   "text" | { text }                       assistant text, the turn ends
//   { tool, args, id? }                     one tool call ({ input } is accepted for args)
//   { tools: [{ name, args, id? }], text? } several calls at once
//   { custom: "apply_patch", input }        a Responses custom tool call (Codex's apply_patch)
//   { item: {...} }                         a Responses output item as given (tool_search_call, a namespaced call)
//   { status, error }                       an HTTP error answer
//   { overflow: true }                      Anthropic's "prompt is too long" (Claude Code compacts)
//   …and any reply may carry { delayMs } (wait first) or { usage: { prompt_tokens } } (token count).
// Only "main" requests consume the script: those that offer tools and are not a host's compaction
// prompt. The others (titles, summaries, Gemini's next-speaker and routing checks) are "aux" and get `opts.aux` (default: a
// one-line summary; Gemini's JSON checks get the JSON they parse).
//
// Every request is recorded, whatever its wire, as one view (`req`): seq, wire, kind, url, body,
// model, tools (names), system, toolResults() [{ id, name, content }], toolCalls() [{ id, name,
// args }], lastUserText(), text() (everything the model reads, as one string), findText(needle).
import http from "node:http";

let idSeq = 0;
const newId = (p) => `${p}_${(++idSeq).toString(36).padStart(5, "0")}`;

/** Text of a content value of any wire (string, parts, blocks). */
export function contentText(c) {
  if (c == null) return "";
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map(contentText).join("\n");
  if (typeof c === "object") {
    if (typeof c.text === "string") return c.text;
    if (c.type === "tool_result" || c.type === "function_call_output") return contentText(c.content ?? c.output);
    if (c.functionResponse) return JSON.stringify(c.functionResponse.response ?? {});
    if (c.content !== undefined) return contentText(c.content);
    return "";
  }
  return String(c);
}

const parseArgs = (s) => {
  if (typeof s !== "string") return s ?? {};
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
};

// ---------------------------------------------------------------------------------------------
// The wires: `read(body)` → { model, tools, system, messages: [{ role, text }], results, calls },
// `send(res, reply, body, req)` writes the answer.

const chat = {
  read(b) {
    const msgs = b.messages ?? [];
    return {
      model: b.model,
      tools: (b.tools ?? []).map((t) => t.function?.name ?? t.name),
      system: msgs.filter((m) => m.role === "system" || m.role === "developer").map((m) => contentText(m.content)).join("\n"),
      messages: msgs.map((m) => ({ role: m.role, text: contentText(m.content) })),
      results: msgs.filter((m) => m.role === "tool").map((m) => ({ id: m.tool_call_id, name: m.name, content: contentText(m.content) })),
      calls: msgs.flatMap((m) => (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function?.name, args: parseArgs(c.function?.arguments) }))),
    };
  },
  send(res, r, body) {
    const calls = callsOf(r).map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.rawArgs !== undefined ? String(c.rawArgs) : JSON.stringify(c.args) } }));
    const approx = Math.max(1, Math.ceil(JSON.stringify(body.messages ?? []).length / 4));
    const usage = { prompt_tokens: approx, completion_tokens: 10, ...(r.usage ?? {}) };
    usage.total_tokens = r.usage?.total_tokens ?? usage.prompt_tokens + usage.completion_tokens;
    const finish = calls.length ? "tool_calls" : "stop";
    const base = { id: newId("chatcmpl"), created: Math.floor(Date.now() / 1000), model: body.model ?? "mock-1" };
    if (body.stream === false) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: r.text ?? null, ...(calls.length ? { tool_calls: calls } : {}) }, finish_reason: finish }], usage }));
    }
    const chunk = (choice, extra = {}) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, ...choice }], ...extra })}\n\n`;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    if (r.text) res.write(chunk({ delta: { role: "assistant", content: r.text }, finish_reason: null }));
    calls.forEach((c, index) => res.write(chunk({ delta: { ...(index === 0 && !r.text ? { role: "assistant" } : {}), tool_calls: [{ index, ...c }] }, finish_reason: null })));
    if (!calls.length && !r.text) res.write(chunk({ delta: { role: "assistant", content: "" }, finish_reason: null }));
    res.write(chunk({ delta: {}, finish_reason: finish }, { usage }));
    res.end("data: [DONE]\n\n");
  },
};

const responses = {
  read(b) {
    const items = Array.isArray(b.input) ? b.input : [{ type: "message", role: "user", content: b.input ?? "" }];
    return {
      model: b.model,
      tools: (b.tools ?? []).map((t) => t.name ?? t.type),
      system: [b.instructions ?? "", ...items.filter((i) => i.type === "message" && (i.role === "system" || i.role === "developer")).map((i) => contentText(i.content))].join("\n"),
      messages: items.map((i) => ({ role: i.role ?? i.type, text: i.type === "message" ? contentText(i.content) : i.type?.endsWith("_output") ? contentText(i.output) : JSON.stringify(i.arguments ?? i.input ?? "") })),
      results: items.filter((i) => /_call_output$|^tool_search_output$/.test(i.type ?? "")).map((i) => ({ id: i.call_id, content: i.type === "tool_search_output" ? JSON.stringify(i.tools ?? i) : contentText(i.output) })),
      calls: items.filter((i) => /_call$/.test(i.type ?? "")).map((i) => ({ id: i.call_id, name: i.name ?? i.type, ...(i.namespace ? { namespace: i.namespace } : {}), args: i.type === "custom_tool_call" ? i.input : parseArgs(i.arguments) })),
    };
  },
  send(res, r, body) {
    const items = [];
    if (r.text || (!r.custom && !r.item && callsOf(r).length === 0)) items.push({ type: "message", role: "assistant", id: newId("msg"), status: "completed", content: [{ type: "output_text", text: r.text ?? "", annotations: [] }] });
    if (r.item) items.push({ id: newId("item"), status: "completed", ...r.item });
    if (r.custom) items.push({ type: "custom_tool_call", id: newId("ctc"), status: "completed", call_id: r.id ?? newId("call"), name: r.custom, input: r.input });
    for (const c of callsOf(r)) items.push({ type: "function_call", id: newId("fc"), status: "completed", call_id: c.id, name: c.name, arguments: c.rawArgs ?? JSON.stringify(c.args) });
    const input = r.usage?.prompt_tokens ?? 100;
    const usage = { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + 10 };
    const id = newId("resp");
    const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(ev("response.created", { response: { id, object: "response", status: "in_progress", model: body.model, output: [] } }));
    items.forEach((item, i) => res.write(ev("response.output_item.added", { output_index: i, item }) + ev("response.output_item.done", { output_index: i, item })));
    res.end(ev("response.completed", { response: { id, object: "response", status: "completed", model: body.model, output: items, usage } }));
  },
};

/** What Claude Code's summary request says in its last user turn. */
export const SUMMARY_MARKER = "Your task is to create a detailed summary of the conversation so far";

const anthropic = {
  read(b) {
    const msgs = b.messages ?? [];
    const blocks = (role, type) => msgs.filter((m) => m.role === role && Array.isArray(m.content)).flatMap((m) => m.content.filter((x) => x?.type === type));
    return {
      model: b.model,
      tools: (b.tools ?? []).map((t) => t.name),
      system: [Array.isArray(b.system) ? b.system.map((x) => x?.text ?? "").join("\n") : String(b.system ?? ""), ...msgs.filter((m) => m.role === "system").map((m) => contentText(m.content))].join("\n"),
      messages: msgs.map((m) => ({ role: m.role, text: contentText(m.content) })),
      results: blocks("user", "tool_result").map((x) => ({ id: x.tool_use_id, content: contentText(x.content), isError: x.is_error === true })),
      calls: blocks("assistant", "tool_use").map((x) => ({ id: x.id, name: x.name, args: x.input })),
    };
  },
  send(res, r, body, req) {
    if (r.overflow) {
      res.writeHead(400, { "content-type": "application/json" });
      return res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: r.message ?? "prompt is too long: 250000 tokens > 200000 maximum" } }));
    }
    const blocks = [];
    // Claude Code (2.1.330) wants a summary inside <summary> tags; without them it asks again.
    const text = r.text && req.lastUserText().includes(SUMMARY_MARKER) && !r.text.includes("<summary>") ? `<analysis>scripted</analysis>\n<summary>\n${r.text}\n</summary>` : r.text;
    if (text) blocks.push({ type: "text", text });
    for (const c of callsOf(r)) blocks.push({ type: "tool_use", id: c.id, name: c.name, input: c.args });
    if (!blocks.length) blocks.push({ type: "text", text: "" });
    const stop = blocks.some((x) => x.type === "tool_use") ? "tool_use" : "end_turn";
    const usage = { input_tokens: r.usage?.prompt_tokens ?? 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = { id: newId("msg"), type: "message", role: "assistant", model: body.model ?? "claude-test", content: [], stop_reason: null, stop_sequence: null, usage };
    if (body.stream === false) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ ...message, content: blocks, stop_reason: stop }));
    }
    const sse = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    sse("message_start", { message });
    blocks.forEach((x, index) => {
      const start = x.type === "text" ? { type: "text", text: "" } : { ...x, input: {} };
      sse("content_block_start", { index, content_block: start });
      sse("content_block_delta", { index, delta: x.type === "text" ? { type: "text_delta", text: x.text } : { type: "input_json_delta", partial_json: JSON.stringify(x.input) } });
      sse("content_block_stop", { index });
    });
    sse("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } });
    sse("message_stop", {});
    res.end();
  },
};

const gemini = {
  read(b) {
    const contents = b.contents ?? [];
    const parts = (key) => contents.flatMap((c) => (c.parts ?? []).filter((p) => p?.[key]).map((p) => ({ ...p[key], role: c.role })));
    return {
      model: b.model,
      tools: (b.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)),
      system: contentText(b.systemInstruction?.parts ?? b.systemInstruction ?? ""),
      messages: contents.map((c) => ({ role: c.role, text: (c.parts ?? []).map((p) => p.text ?? (p.functionResponse ? JSON.stringify(p.functionResponse.response) : p.functionCall ? JSON.stringify(p.functionCall.args) : "")).join("\n") })),
      results: parts("functionResponse").map((p) => ({ id: p.id, name: p.name, content: JSON.stringify(p.response ?? {}) })),
      calls: parts("functionCall").map((p) => ({ id: p.id, name: p.name, args: p.args })),
    };
  },
  send(res, r, body, req) {
    const parts = [];
    if (r.text !== undefined || callsOf(r).length === 0) parts.push({ text: r.text ?? "" });
    for (const c of callsOf(r)) parts.push({ functionCall: { name: c.name, args: c.args } });
    const chunk = { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: r.usage?.prompt_tokens ?? 100, candidatesTokenCount: 10, totalTokenCount: (r.usage?.prompt_tokens ?? 100) + 10 }, modelVersion: req.model };
    if (req.url.includes(":streamGenerateContent")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      return res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(chunk));
  },
};

// Augment's tenant API (Auggie, which has no provider setting: its whole "model" is the tenant):
// POST …/chat-stream, body {message, nodes, chat_history: [{request_message, response_text,
// request_nodes, response_nodes}], tool_definitions: [{name, input_schema_json}], rules,
// user_guidelines}; a tool result is a request node {type: 1, tool_result_node: {tool_use_id,
// content}}, a call a response node {type: 5, tool_use: {tool_use_id, tool_name, input_json}}.
// The answer is NDJSON chunks {text, nodes, stop_reason} (3: tools requested, 1: end of turn).
// POST …/get-models answers the tenant's feature flags (`enable_hooks`: Auggie runs hooks only
// with it); the tenant's other calls (settings, remote tools) are answered 404 and ignored.
const augment = {
  read(b) {
    const messages = [];
    const results = [];
    const calls = [];
    const request = (nodes) => {
      for (const n of nodes ?? []) {
        if (n?.tool_result_node) {
          const t = n.tool_result_node;
          results.push({ id: t.tool_use_id, content: contentText(t.content), isError: t.is_error === true });
          messages.push({ role: "tool", text: contentText(t.content) });
        } else if (n?.text_node) messages.push({ role: "user", text: contentText(n.text_node.content) });
      }
    };
    for (const h of b.chat_history ?? []) {
      if (h.request_message) messages.push({ role: "user", text: h.request_message });
      request(h.request_nodes);
      if (h.response_text) messages.push({ role: "assistant", text: h.response_text });
      for (const n of h.response_nodes ?? []) if (n?.tool_use) calls.push({ id: n.tool_use.tool_use_id, name: n.tool_use.tool_name, args: parseArgs(n.tool_use.input_json) });
    }
    if (b.message) messages.push({ role: "user", text: b.message });
    request(b.nodes);
    const rules = (b.rules ?? []).map((r) => contentText(r?.content)).join("\n");
    return { model: b.model, tools: (b.tool_definitions ?? []).map((t) => t.name), system: [b.user_guidelines ?? "", b.workspace_guidelines ?? "", rules].join("\n"), messages, results, calls };
  },
  send(res, r) {
    const calls = callsOf(r);
    res.writeHead(200, { "content-type": "application/json" });
    if (calls.length) res.write(JSON.stringify({ text: "", nodes: calls.map((c, i) => ({ id: i + 1, type: 5, content: "", tool_use: { tool_use_id: c.id, tool_name: c.name, input_json: c.rawArgs ?? JSON.stringify(c.args) } })) }) + "\n");
    else res.write(JSON.stringify({ text: r.text ?? "", nodes: [{ id: 0, type: 0, content: r.text ?? "" }] }) + "\n");
    res.end(JSON.stringify({ text: "", nodes: [], stop_reason: calls.length ? 3 : 1 }) + "\n");
  },
};

/** The wire a POST path speaks, or null. */
function wireOf(pathname) {
  if (/\/chat\/completions$/.test(pathname)) return ["chat", chat];
  if (/\/responses$/.test(pathname)) return ["responses", responses];
  if (/\/messages$/.test(pathname)) return ["anthropic", anthropic];
  if (/\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(pathname)) return ["gemini", gemini];
  if (/\/chat-stream$/.test(pathname)) return ["augment", augment];
  return null;
}

function callsOf(r) {
  const list = r.tools ?? (r.tool ? [{ name: r.tool, args: r.args ?? r.input, id: r.id, rawArgs: r.rawArgs }] : []);
  return list.map((c) => ({ id: c.id ?? newId("call"), name: c.name, args: c.args ?? c.input ?? {}, rawArgs: c.rawArgs }));
}

function normalize(step) {
  if (step == null) return { text: "done." };
  if (typeof step === "string") return { text: step };
  return step;
}

/** A host's compaction prompt (Claude Code, Qwen Code, Copilot CLI send it with the tools still offered). */
const COMPACTION_PROMPT = new RegExp(`${SUMMARY_MARKER}|summarizes a conversation when its context window|CONTEXT CHECKPOINT COMPACTION|The history is being compacted`);

/** The default answer to a request that offers no tools. */
function auxDefault(req) {
  const t = req.text();
  if (req.wire === "gemini" && t.includes("next_speaker")) return JSON.stringify({ reasoning: "done", next_speaker: "user" });
  if (req.wire === "gemini" && /complexity|classif/i.test(t)) return JSON.stringify({ reasoning: "simple", model_choice: "flash", complexity_reasoning: "simple", complexity_score: 10 });
  return "Summary: the conversation so far was scripted. Continue with the task.";
}

function view(rec, extend) {
  const r = rec.read;
  const text = () => [r.system, ...r.messages.map((m) => m.text)].join("\n");
  return {
    ...rec,
    model: r.model ?? rec.urlModel,
    tools: r.tools,
    system: r.system,
    messages: r.messages,
    toolResults: () => r.results,
    toolCalls: () => r.calls,
    lastUserText: () => [...r.messages].reverse().find((m) => m.role === "user")?.text ?? "",
    text,
    findText: (needle) => (typeof needle === "string" ? text().includes(needle) : needle.test(text())),
    ...(extend ? extend(rec) : {}),
  };
}

/**
 * Start the scripted model. `opts`: { aux?: step or (req) => step for requests that are not
 * "main", fallback?: the reply once the script ran out (default "done."), log?: (line) => void,
 * classify?: (req) => kind (default "main" when it offers tools, else "aux"), extend?: (rec) =>
 * accessors merged into every view (a suite's own names for its wire), quietRoutes?: answer an
 * unknown path 404 without counting it an error }.
 */
export async function startModel(script = [], opts = {}) {
  const records = [];
  const errors = [];
  let mainIndex = 0;
  const steps = Array.isArray(script) ? script : null;
  const v = (rec) => view(rec, opts.extend);
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const url = new URL(req.url, "http://x");
      const pathname = url.pathname.replace(/\/+$/, "");
      try {
        if (req.method === "GET" || req.method === "HEAD") {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(req.method === "GET" ? JSON.stringify({ object: "list", data: [{ id: "mock-1", object: "model", created: 0, owned_by: "hookwise-e2e" }], models: [] }) : undefined);
        }
        if (/:countTokens$/.test(pathname) || /\/count_tokens$/.test(pathname)) {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ totalTokens: 100, input_tokens: 100 }));
        }
        if (pathname.endsWith("/get-models")) {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ default_model: "mock-1", models: [{ name: "mock-1", suggested_prefix_char_count: 0, suggested_suffix_char_count: 0 }], languages: [], feature_flags: opts.augmentFlags ?? { enable_hooks: true } }));
        }
        const wire = wireOf(pathname);
        if (!wire) {
          if (!opts.quietRoutes) errors.push(`unexpected ${req.method} ${req.url}`);
          res.writeHead(404, { "content-type": "application/json" });
          return res.end(JSON.stringify({ error: { message: `no route ${req.method} ${pathname}` } }));
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        let body;
        try {
          body = JSON.parse(raw);
        } catch {
          errors.push(`unparsable body on ${req.url}`);
          body = { raw };
        }
        const read = wire[1].read(body);
        const urlModel = /\/models\/([^/:]+):/.exec(pathname)?.[1];
        const rec = { seq: records.length, wire: wire[0], url: req.url, headers: req.headers, time: Date.now(), body, read, urlModel };
        rec.kind = opts.classify ? opts.classify(v(rec)) : read.tools.length && !COMPACTION_PROMPT.test(v(rec).lastUserText()) ? "main" : "aux";
        records.push(rec);
        let step;
        if (rec.kind === "main") {
          rec.mainIndex = mainIndex++;
          step = steps ? (rec.mainIndex < steps.length ? steps[rec.mainIndex] : opts.fallback ?? "done.") : script;
        } else {
          rec.mainIndex = -1;
          step = opts.aux ?? auxDefault;
        }
        if (typeof step === "function") step = await step(v(rec), { index: rec.mainIndex, kind: rec.kind, requests: () => records.map(v) });
        step = normalize(step);
        rec.reply = step;
        opts.log?.(`model: ${rec.wire} ${rec.kind}#${rec.mainIndex ?? "-"} → ${JSON.stringify(step).slice(0, 160)}`);
        if (step.delayMs) await new Promise((ok) => setTimeout(ok, step.delayMs));
        if (step.status) {
          res.writeHead(step.status, { "content-type": "application/json" });
          return res.end(JSON.stringify({ error: { message: step.error ?? "scripted error", type: "server_error" } }));
        }
        wire[1].send(res, step, body, v(rec));
      } catch (e) {
        errors.push(e instanceof Error ? e : String(e));
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `script error: ${e?.message ?? e}` } }));
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", ok);
  });
  const { port } = server.address();
  const url = `http://127.0.0.1:${port}`;
  return {
    port,
    url,
    /** The OpenAI-style base (chat completions, Responses): `${url}/v1`. */
    baseURL: `${url}/v1`,
    requests: () => records.map(v),
    mainRequests: () => records.filter((r) => r.kind === "main").map(v),
    auxRequests: () => records.filter((r) => r.kind === "aux").map(v),
    /** Requests of one kind (a suite's own classify). */
    ofKind: (kind) => records.filter((r) => r.kind === kind).map(v),
    /** Script functions that threw and requests nobody understood (each answered as an error). */
    errors: () => [...errors],
    remaining: () => (steps ? Math.max(0, steps.length - mainIndex) : undefined),
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(() => ok());
      }),
  };
}

// A scripted Anthropic Messages API for the real Claude Code CLI, offline, on 127.0.0.1.
//
// What it follows (checked against Claude Code 2.1.330 run offline against a scripted API):
// - the CLI sends only `POST /v1/messages?beta=true` with `stream: true` (it may also send `HEAD /`
//   or `POST /v1/messages/count_tokens`; both are answered anyway);
// - the body carries `model, messages, system, tools, …`; hook context arrives as extra
//   `role: "system"` entries inside `messages` (SessionStart / UserPromptSubmit context in the first
//   one, PreToolUse / PostToolUse context in one after the tool_result user turn);
// - an auto-compaction starts on a one-shot HTTP 400 "prompt is too long"; the CLI then sends ONE
//   summary request whose last user turn (possibly followed by system messages) says "Your task is
//   to create a detailed summary of the conversation so far" — it must be answered with text, and it
//   does not consume the script;
// - the stream is the Messages SSE: message_start, content_block_start/delta/stop per block,
//   message_delta (stop_reason, usage), message_stop.
//
// const api = await startApi(script, { summary?, fallback?, log? });
//   script: an array of steps (or one function for every main request); a step is
//     "text" | { text } | { tool: "Bash", input: {...}, id? } | { tools: [{ name, input, id? }], text? }
//     | { overflow: true } (HTTP 400 prompt too long → auto-compaction) | { status, error }
//     | (req, ctx) => step            (ctx.index: the main request's number)
//   and may carry { delayMs }.
// api.baseURL; api.requests(); api.mainRequests(); api.summaryRequests(); api.remaining(); api.close()
import http from "node:http";

export const SUMMARY_MARKER = "Your task is to create a detailed summary of the conversation so far";

/** The text of a message content (string, or the text of its text / tool_result blocks). */
export function contentText(content) {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return typeof content.text === "string" ? content.text : JSON.stringify(content);
  return content
    .map((b) => {
      if (typeof b === "string") return b;
      if (b?.type === "text") return b.text ?? "";
      if (b?.type === "tool_result") return contentText(b.content);
      if (b?.type === "tool_use") return JSON.stringify(b.input ?? {});
      return "";
    })
    .join("\n");
}

/** Accessors over one request body (also used on recorded requests). */
export function describeBody(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const system = Array.isArray(body?.system) ? body.system.map((b) => b?.text ?? "").join("\n") : String(body?.system ?? "");
  return {
    messages,
    system,
    tools: (body?.tools ?? []).map((t) => t.name),
    /** Every `role: "system"` entry of `messages`, as text, in order (where hook context lands). */
    systemMessages: () => messages.filter((m) => m.role === "system").map((m) => contentText(m.content)),
    /** `[{ toolUseId, content, isError }]` from every user turn. */
    toolResults: () =>
      messages.flatMap((m) =>
        m.role === "user" && Array.isArray(m.content)
          ? m.content.filter((b) => b?.type === "tool_result").map((b) => ({ toolUseId: b.tool_use_id, content: contentText(b.content), isError: b.is_error === true }))
          : [],
      ),
    /** The model's own earlier calls as the CLI replays them: `[{ id, name, input }]`. */
    toolUses: () =>
      messages.flatMap((m) =>
        m.role === "assistant" && Array.isArray(m.content) ? m.content.filter((b) => b?.type === "tool_use").map((b) => ({ id: b.id, name: b.name, input: b.input })) : [],
      ),
    /** The text of the last user turn plus every system message after it. */
    lastUserText: () => {
      let i = messages.length - 1;
      const tail = [];
      while (i >= 0 && messages[i].role !== "user") tail.unshift(messages[i--]);
      if (i >= 0) tail.unshift(messages[i]);
      return tail.map((m) => contentText(m.content)).join("\n");
    },
    /** Everything the model reads: system + every message, as one text. */
    allText: () => [system, ...messages.map((m) => contentText(m.content))].join("\n"),
    findText(needle) {
      const all = this.allText();
      return typeof needle === "string" ? all.includes(needle) : needle.test(all);
    },
  };
}

function isSummaryRequest(body) {
  return describeBody(body).lastUserText().includes(SUMMARY_MARKER);
}

let idSeq = 0;
const newId = (p) => `${p}_${Date.now().toString(36)}${(idSeq++).toString(36).padStart(4, "0")}`;

function normalize(step) {
  if (step == null) return { text: "done." };
  if (typeof step === "string") return { text: step };
  return step;
}

/** The content blocks of a reply step. */
function blocksOf(step) {
  const blocks = [];
  if (step.text) blocks.push({ type: "text", text: step.text });
  const calls = step.tools ?? (step.tool ? [{ name: step.tool, input: step.input, id: step.id }] : []);
  for (const c of calls) blocks.push({ type: "tool_use", id: c.id ?? newId("toolu"), name: c.name, input: c.input ?? {} });
  if (blocks.length === 0) blocks.push({ type: "text", text: "" });
  return blocks;
}

function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function reply(res, body, step) {
  if (step.overflow) {
    const message = step.message ?? "prompt is too long: 250000 tokens > 200000 maximum";
    res.writeHead(400, { "content-type": "application/json", "request-id": newId("req") });
    res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }));
    return { overflow: true };
  }
  if (step.status) {
    res.writeHead(step.status, { "content-type": "application/json", "request-id": newId("req") });
    res.end(JSON.stringify({ type: "error", error: { type: step.errorType ?? "api_error", message: step.error ?? "scripted error" } }));
    return { status: step.status };
  }
  const blocks = blocksOf(step);
  const stopReason = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  const model = body?.model ?? "claude-test";
  const usage = { input_tokens: step.inputTokens ?? 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: newId("msg"), type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage };
  if (body?.stream === false) {
    res.writeHead(200, { "content-type": "application/json", "request-id": newId("req") });
    res.end(JSON.stringify({ ...message, content: blocks, stop_reason: stopReason }));
    return { blocks, stopReason };
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "request-id": newId("req") });
  sse(res, "message_start", { type: "message_start", message });
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } });
    } else {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
  return { blocks, stopReason };
}

export async function startApi(script = [], opts = {}) {
  const requests = [];
  const errors = [];
  let mainIndex = 0;
  const steps = Array.isArray(script) ? [...script] : null;
  const summary = opts.summary ?? "Summary: the user asked for work; tools ran; continue where it stopped.";
  const fallback = opts.fallback ?? "done.";

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      try {
        const url = new URL(req.url, "http://x");
        if (req.method === "HEAD" || req.method === "GET") {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(req.method === "GET" ? JSON.stringify({ data: [] }) : undefined);
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        let body = null;
        try {
          body = JSON.parse(raw);
        } catch {
          errors.push(`unparsable body on ${req.url}`);
        }
        if (url.pathname.endsWith("/count_tokens")) {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ input_tokens: 100 }));
        }
        if (!url.pathname.endsWith("/v1/messages")) {
          errors.push(`unexpected ${req.method} ${req.url}`);
          res.writeHead(404, { "content-type": "application/json" });
          return res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not found" } }));
        }
        const kind = isSummaryRequest(body) ? "summary" : "main";
        const rec = { seq: requests.length, kind, time: Date.now(), url: req.url, headers: req.headers, body, ...describeBody(body) };
        requests.push(rec);
        let step;
        if (kind === "summary") {
          step = typeof summary === "function" ? summary(rec) : summary;
        } else {
          rec.mainIndex = mainIndex++;
          const ctx = { index: rec.mainIndex, requests };
          if (steps) step = steps.length ? steps.shift() : fallback;
          else step = script(rec, ctx);
          if (typeof step === "function") step = step(rec, ctx);
        }
        step = normalize(step);
        if (opts.log) opts.log(`[api] #${rec.seq} ${kind} → ${JSON.stringify(step).slice(0, 160)}`);
        if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
        rec.reply = reply(res, body, step);
      } catch (e) {
        errors.push(String(e?.stack ?? e));
        try {
          res.writeHead(500);
          res.end();
        } catch {}
      }
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return {
    port,
    baseURL: `http://127.0.0.1:${port}`,
    requests: () => requests.slice(),
    mainRequests: () => requests.filter((r) => r.kind === "main"),
    summaryRequests: () => requests.filter((r) => r.kind === "summary"),
    errors: () => errors.slice(),
    remaining: () => (steps ? steps.length : 0),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}

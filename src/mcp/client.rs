//! The MCP client state machine for one server process: the `initialize` handshake, request
//! ids, matching responses (in any order), `tools/call` encoding and result decoding. Pure:
//! lines in, events and lines to write out; no I/O and no clock.
//!
//! Handshake: [`Client::new`] returns the `initialize` request line. When its response arrives
//! the client is ready and queues the `notifications/initialized` notification in its outbox;
//! every write takes the outbox first ([`Client::take_outbox`]), so the notification always
//! goes out before the first `tools/call`.

use serde_json::{json, Value};

use super::framing::Frame;

/// The protocol version hookwise asks for; maenifold's SDK echoes it.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// Non-JSON-RPC lines tolerated before the handshake completes; past this the server is judged
/// not to speak MCP (a CLI printing usage text, a wrong binary).
pub const HANDSHAKE_GARBAGE_LIMIT: u32 = 8;

/// Lines queued for writing (answers to server pings) are bounded; the oldest are dropped.
const MAX_OUTBOX: usize = 64;

/// JSON-RPC error code for a method the client does not offer.
const METHOD_NOT_FOUND: i64 = -32601;

/// Why an MCP call gave no usable answer.
#[derive(Debug, Clone, PartialEq)]
pub enum McpError {
    /// A JSON-RPC error response (unknown tool, bad arguments, …).
    Rpc { code: i64, message: String },
    /// `isError: true`: the tool ran and failed; the text says why.
    Tool(String),
    /// A response that is not a `tools/call` result.
    BadResult(String),
    /// The answer was longer than the line bound.
    TooLarge(usize),
    /// The session ended (exit, closed stdout, replaced) before the answer came.
    Closed(String),
    /// No answer within the request timeout.
    TimedOut(u64),
    /// The line could not be written.
    Write(String),
    /// No session to ask: not started, in backoff, disabled, or the client is not ready.
    Unavailable(String),
}

impl std::fmt::Display for McpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            McpError::Rpc { code, message } => write!(f, "MCP error {code}: {message}"),
            McpError::Tool(m) => write!(f, "maenifold error: {m}"),
            McpError::BadResult(m) => write!(f, "unexpected MCP result: {m}"),
            McpError::TooLarge(n) => write!(f, "MCP answer too large ({n} bytes)"),
            McpError::Closed(m) => write!(f, "MCP session ended: {m}"),
            McpError::TimedOut(ms) => write!(f, "no MCP answer within {ms} ms"),
            McpError::Write(m) => write!(f, "MCP write failed: {m}"),
            McpError::Unavailable(m) => write!(f, "MCP unavailable: {m}"),
        }
    }
}

impl McpError {
    /// A definitive answer from maenifold (asking the CLI instead would fail the same way).
    pub fn is_definitive(&self) -> bool {
        matches!(self, McpError::Tool(_))
    }
}

/// Where the handshake stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    AwaitingInit,
    Ready { protocol: String, server: String },
    Failed(String),
}

/// What one incoming line meant.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The handshake finished; `notifications/initialized` is in the outbox.
    Ready,
    /// The server does not speak MCP as expected; the session is useless.
    HandshakeFailed(String),
    /// The answer to pending request `id` is ready ([`Client::take_answer`]).
    Answered(u64),
    /// A notification from the server (logging, list changes): nothing to do.
    Notification(String),
    /// A request from the server; its answer is in the outbox.
    ServerRequest(String),
    /// A response nobody waits for (late after a timeout, duplicate, or id null).
    UnknownId(Value),
    /// A line that is not JSON-RPC; skipped.
    Garbage(String),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Valid JSON-RPC messages received.
    pub messages: u64,
    pub garbage: u64,
    pub unknown_ids: u64,
    pub notifications: u64,
    pub server_requests: u64,
}

/// A request sent and not yet taken: its id and, once it came, its answer.
#[derive(Debug)]
struct Pending {
    id: u64,
    answer: Option<Result<Value, McpError>>,
}

#[derive(Debug)]
pub struct Client {
    phase: Phase,
    next_id: u64,
    init_id: u64,
    /// Few at a time (one per lookup in flight): a `Vec` keeps the wasm small.
    pending: Vec<Pending>,
    outbox: Vec<String>,
    pub stats: Stats,
}

/// A JSON-RPC id as the server may echo it (number, or a string of digits).
fn id_of(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn short(s: &str) -> String {
    let mut t: String = s.chars().take(120).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

impl Client {
    /// A client for a fresh process, and the `initialize` line to write first.
    pub fn new(client_version: &str) -> (Client, String) {
        let mut c = Client {
            phase: Phase::AwaitingInit,
            next_id: 1,
            init_id: 0,
            pending: Vec::new(),
            outbox: Vec::new(),
            stats: Stats::default(),
        };
        let (id, line) = c.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "hookwise", "version": client_version},
            }),
        );
        c.init_id = id;
        (c, line)
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    pub fn is_ready(&self) -> bool {
        matches!(self.phase, Phase::Ready { .. })
    }

    /// The id of the `initialize` request (what waiters for readiness wait on).
    pub fn init_id(&self) -> u64 {
        self.init_id
    }

    /// Requests sent and not yet answered or forgotten.
    pub fn in_flight(&self) -> usize {
        self.pending.iter().filter(|p| p.answer.is_none()).count()
    }

    /// Encode a request and remember it as pending. Returns its id and line (no newline).
    pub fn request(&mut self, method: &str, params: Value) -> (u64, String) {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.push(Pending { id, answer: None });
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, line.to_string())
    }

    /// `tools/call` with the exact (snake_case) tool name and the camelCase arguments.
    pub fn call_tool(&mut self, name: &str, arguments: &Value) -> Result<(u64, String), McpError> {
        match &self.phase {
            Phase::Ready { .. } => {}
            Phase::AwaitingInit => {
                return Err(McpError::Unavailable(
                    "the handshake has not finished".into(),
                ))
            }
            Phase::Failed(r) => return Err(McpError::Unavailable(r.clone())),
        }
        Ok(self.request("tools/call", json!({"name": name, "arguments": arguments})))
    }

    /// Take the answer to `id` once it is there (`None` while still pending or unknown).
    pub fn take_answer(&mut self, id: u64) -> Option<Result<Value, McpError>> {
        let i = self.pending.iter().position(|p| p.id == id)?;
        self.pending[i].answer.as_ref()?;
        self.pending.swap_remove(i).answer
    }

    fn waiting(&self, id: u64) -> bool {
        self.pending
            .iter()
            .any(|p| p.id == id && p.answer.is_none())
    }

    /// Whether `id` was sent and neither answered-and-taken nor forgotten.
    pub fn is_pending(&self, id: u64) -> bool {
        self.pending.iter().any(|p| p.id == id)
    }

    /// Stop waiting for `id` (timeout, caller gone): a late answer is then an unknown id.
    pub fn forget(&mut self, id: u64) {
        self.pending.retain(|p| p.id != id);
    }

    /// Lines to write before anything else, each ending in `\n` (empty when none).
    pub fn take_outbox(&mut self) -> String {
        let mut s = String::new();
        for l in self.outbox.drain(..) {
            s.push_str(&l);
            s.push('\n');
        }
        s
    }

    fn queue(&mut self, line: String) {
        if self.outbox.len() >= MAX_OUTBOX {
            self.outbox.remove(0);
        }
        self.outbox.push(line);
    }

    /// Handle one frame from the line buffer.
    pub fn on_frame(&mut self, frame: Frame) -> Vec<Event> {
        match frame {
            Frame::Line(l) => self.on_line(&l),
            Frame::Invalid { bytes } => vec![self.garbage(format!("{bytes} bytes of non-UTF-8"))],
            Frame::Oversized { bytes, id } => match id.filter(|i| self.waiting(*i)) {
                Some(i) => {
                    self.stats.messages += 1;
                    vec![self.answer(i, Err(McpError::TooLarge(bytes)))]
                }
                None => vec![self.garbage(format!("a {bytes}-byte line over the bound"))],
            },
        }
    }

    /// Handle one complete line of stdout.
    pub fn on_line(&mut self, line: &str) -> Vec<Event> {
        let v: Value = match serde_json::from_slice(line.as_bytes()) {
            Ok(v) => v,
            Err(_) => return vec![self.garbage(short(line.trim()))],
        };
        match v {
            // Batches (allowed by 2025-03-26): each element on its own.
            Value::Array(items) if !items.is_empty() => {
                items.into_iter().flat_map(|m| self.on_message(m)).collect()
            }
            other => self.on_message(other),
        }
    }

    fn garbage(&mut self, what: String) -> Event {
        self.stats.garbage += 1;
        if matches!(self.phase, Phase::AwaitingInit)
            && self.stats.garbage >= u64::from(HANDSHAKE_GARBAGE_LIMIT)
        {
            let reason = format!(
                "{} lines that are not JSON-RPC before the handshake (last: {what})",
                self.stats.garbage
            );
            return self.fail(reason);
        }
        Event::Garbage(what)
    }

    fn fail(&mut self, reason: String) -> Event {
        self.phase = Phase::Failed(reason.clone());
        for p in self.pending.iter_mut() {
            if p.answer.is_none() {
                p.answer = Some(Err(McpError::Unavailable(reason.clone())));
            }
        }
        Event::HandshakeFailed(reason)
    }

    fn answer(&mut self, id: u64, r: Result<Value, McpError>) -> Event {
        if let Some(p) = self.pending.iter_mut().find(|p| p.id == id) {
            p.answer = Some(r);
        }
        Event::Answered(id)
    }

    fn on_message(&mut self, m: Value) -> Vec<Event> {
        let Value::Object(o) = &m else {
            return vec![self.garbage(short(&m.to_string()))];
        };
        if o.get("jsonrpc").is_some_and(|v| v != "2.0") {
            return vec![self.garbage(short(&m.to_string()))];
        }
        let method = o.get("method").and_then(Value::as_str);
        let id = o.get("id");
        match (method, id) {
            (Some(method), Some(id)) if !id.is_null() => {
                // A request from the server: ping is answered, anything else refused politely.
                self.stats.messages += 1;
                self.stats.server_requests += 1;
                let reply = if method == "ping" {
                    json!({"jsonrpc": "2.0", "id": id, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": METHOD_NOT_FOUND, "message": format!("hookwise does not offer {method}")}})
                };
                self.queue(reply.to_string());
                vec![Event::ServerRequest(method.to_string())]
            }
            (Some(method), _) => {
                self.stats.messages += 1;
                self.stats.notifications += 1;
                vec![Event::Notification(method.to_string())]
            }
            (None, Some(idv)) if o.contains_key("result") || o.contains_key("error") => {
                self.stats.messages += 1;
                let known = id_of(idv).filter(|i| self.waiting(*i));
                let Some(id) = known else {
                    self.stats.unknown_ids += 1;
                    return vec![Event::UnknownId(idv.clone())];
                };
                let outcome = match o.get("error") {
                    Some(e) if !e.is_null() => Err(McpError::Rpc {
                        code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
                        message: e
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                    }),
                    _ => Ok(o.get("result").cloned().unwrap_or(Value::Null)),
                };
                if id == self.init_id && matches!(self.phase, Phase::AwaitingInit) {
                    return vec![self.on_init(outcome)];
                }
                vec![self.answer(id, outcome)]
            }
            _ => vec![self.garbage(short(&m.to_string()))],
        }
    }

    fn on_init(&mut self, outcome: Result<Value, McpError>) -> Event {
        let init = self.init_id;
        self.forget(init);
        let result = match outcome {
            Ok(r) => r,
            Err(e) => return self.fail(format!("initialize was refused: {e}")),
        };
        let Some(protocol) = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        else {
            return self.fail(format!(
                "initialize answered without a protocolVersion: {}",
                short(&result.to_string())
            ));
        };
        let server = result
            .get("serverInfo")
            .map(|s| {
                format!(
                    "{} {}",
                    s.get("name").and_then(Value::as_str).unwrap_or("?"),
                    s.get("version").and_then(Value::as_str).unwrap_or("")
                )
                .trim()
                .to_string()
            })
            .unwrap_or_default();
        self.phase = Phase::Ready {
            protocol: protocol.to_string(),
            server,
        };
        self.queue(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        Event::Ready
    }
}

/// What a `tools/call` result says.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// `content[0].text` (the first text item).
    pub text: String,
    /// `structuredContent`, when the server sends one.
    pub structured: Option<Value>,
}

/// Decode a `tools/call` result: `isError` → [`McpError::Tool`], the first text item otherwise.
pub fn decode_tool_result(result: &Value) -> Result<ToolOutput, McpError> {
    let Value::Object(o) = result else {
        return Err(McpError::BadResult(short(&result.to_string())));
    };
    let text = o
        .get("content")
        .and_then(Value::as_array)
        .and_then(|items| {
            items.iter().find_map(|i| {
                let is_text = i.get("type").and_then(Value::as_str).unwrap_or("text") == "text";
                i.get("text").and_then(Value::as_str).filter(|_| is_text)
            })
        });
    let structured = o.get("structuredContent").filter(|v| !v.is_null()).cloned();
    if o.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(McpError::Tool(
            text.map(|t| short(t.trim()))
                .unwrap_or_else(|| "no message".into()),
        ));
    }
    match (text, structured) {
        (Some(t), structured) => Ok(ToolOutput {
            text: t.to_string(),
            structured,
        }),
        (None, Some(s)) => Ok(ToolOutput {
            text: String::new(),
            structured: Some(s),
        }),
        (None, None) => Err(McpError::BadResult(format!(
            "no text content in {}",
            short(&result.to_string())
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ready() -> Client {
        let (mut c, _) = Client::new("0.1.0");
        let ev = c.on_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"protocolVersion":"2025-06-18","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"maenifold","version":"1.0.3.0"}}}}}}"#,
            c.init_id()
        ));
        assert_eq!(ev, vec![Event::Ready]);
        c
    }

    fn parse(line: &str) -> Value {
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn handshake_then_initialized_notification_before_any_call() {
        let (mut c, init) = Client::new("9.9.9");
        let m = parse(&init);
        assert_eq!(m["jsonrpc"], "2.0");
        assert_eq!(m["method"], "initialize");
        assert_eq!(m["params"]["protocolVersion"], PROTOCOL_VERSION);
        assert_eq!(
            m["params"]["clientInfo"],
            json!({"name": "hookwise", "version": "9.9.9"})
        );
        assert!(!init.contains('\n'));
        assert!(matches!(
            c.call_tool("build_context", &json!({})),
            Err(McpError::Unavailable(_))
        ));
        assert_eq!(c.take_outbox(), "", "nothing queued before the handshake");
        let id = m["id"].as_u64().unwrap();
        let ev = c.on_line(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-06-18","serverInfo":{{"name":"maenifold","version":"1.0.3.0"}}}}}}"#));
        assert_eq!(ev, vec![Event::Ready]);
        assert_eq!(
            c.phase(),
            &Phase::Ready {
                protocol: "2025-06-18".into(),
                server: "maenifold 1.0.3.0".into()
            }
        );
        let out = c.take_outbox();
        let n = parse(out.trim_end());
        assert_eq!(
            n,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        );
        assert!(n.get("id").is_none(), "a notification has no id");
        assert!(out.ends_with('\n'));
        assert_eq!(c.take_outbox(), "", "sent once");
    }

    #[test]
    fn tools_call_uses_exact_names_and_camel_case_arguments() {
        let mut c = ready();
        c.take_outbox();
        let (id, line) = c
            .call_tool(
                "build_context",
                &json!({"conceptName": "rest-api", "depth": 2, "maxEntities": 5, "includeContent": true}),
            )
            .unwrap();
        let m = parse(&line);
        assert_eq!(m["id"], id);
        assert_eq!(m["method"], "tools/call");
        assert_eq!(m["params"]["name"], "build_context");
        assert_eq!(
            m["params"]["arguments"],
            json!({"conceptName": "rest-api", "depth": 2, "maxEntities": 5, "includeContent": true})
        );
        let (id2, _) = c
            .call_tool("search_memories", &json!({"query": "x"}))
            .unwrap();
        assert_ne!(id, id2);
        assert_eq!(c.in_flight(), 2);
    }

    #[test]
    fn out_of_order_responses_each_reach_their_request() {
        let mut c = ready();
        let (a, _) = c
            .call_tool("build_context", &json!({"conceptName": "a"}))
            .unwrap();
        let (b, _) = c
            .call_tool("build_context", &json!({"conceptName": "b"}))
            .unwrap();
        let (d, _) = c
            .call_tool("build_context", &json!({"conceptName": "d"}))
            .unwrap();
        // merged into one line as a batch, reverse order, ids as strings once
        let ev = c.on_line(&format!(
            r#"[{{"jsonrpc":"2.0","id":{d},"result":{{"content":[{{"type":"text","text":"D"}}]}}}},{{"jsonrpc":"2.0","id":"{b}","result":{{"content":[{{"type":"text","text":"B"}}]}}}}]"#
        ));
        assert_eq!(ev, vec![Event::Answered(d), Event::Answered(b)]);
        assert_eq!(c.take_answer(a), None, "still pending");
        let text = |r: Option<Result<Value, McpError>>| {
            decode_tool_result(&r.unwrap().unwrap()).unwrap().text
        };
        assert_eq!(text(c.take_answer(b)), "B");
        assert_eq!(text(c.take_answer(d)), "D");
        assert_eq!(c.take_answer(d), None, "taken once");
        c.on_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{a},"result":{{"content":[{{"type":"text","text":"A"}}]}}}}"#
        ));
        assert_eq!(text(c.take_answer(a)), "A");
        assert_eq!(c.in_flight(), 0);
    }

    #[test]
    fn unknown_late_and_duplicate_ids_are_ignored() {
        let mut c = ready();
        let (a, _) = c.call_tool("build_context", &json!({})).unwrap();
        let ans = format!(r#"{{"jsonrpc":"2.0","id":{a},"result":{{"content":[]}}}}"#);
        assert_eq!(
            c.on_line(r#"{"jsonrpc":"2.0","id":999,"result":{}}"#),
            vec![Event::UnknownId(json!(999))]
        );
        assert_eq!(c.on_line(&ans), vec![Event::Answered(a)]);
        assert_eq!(
            c.on_line(&ans),
            vec![Event::UnknownId(json!(a))],
            "duplicate"
        );
        let (b, _) = c.call_tool("build_context", &json!({})).unwrap();
        c.forget(b);
        assert_eq!(
            c.on_line(&format!(r#"{{"jsonrpc":"2.0","id":{b},"result":{{}}}}"#)),
            vec![Event::UnknownId(json!(b))],
            "late after a timeout"
        );
        assert_eq!(
            c.on_line(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
            ),
            vec![Event::UnknownId(Value::Null)]
        );
        assert_eq!(c.stats.unknown_ids, 4);
    }

    #[test]
    fn notifications_are_ignored_and_pings_answered() {
        let mut c = ready();
        c.take_outbox();
        assert_eq!(
            c.on_line(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#),
            vec![Event::Notification("notifications/message".into())]
        );
        assert_eq!(c.take_outbox(), "");
        assert_eq!(
            c.on_line(r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#),
            vec![Event::ServerRequest("ping".into())]
        );
        assert_eq!(
            c.on_line(r#"{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{}}"#),
            vec![Event::ServerRequest("sampling/createMessage".into())]
        );
        let out = c.take_outbox();
        let lines: Vec<Value> = out.lines().map(parse).collect();
        assert_eq!(
            lines[0],
            json!({"jsonrpc": "2.0", "id": "s1", "result": {}})
        );
        assert_eq!(lines[1]["id"], 5);
        assert_eq!(lines[1]["error"]["code"], METHOD_NOT_FOUND);
    }

    #[test]
    fn is_error_and_json_rpc_errors_are_told_apart() {
        let mut c = ready();
        let (a, _) = c.call_tool("build_context", &json!({})).unwrap();
        let (b, _) = c.call_tool("Build_Context", &json!({})).unwrap();
        c.on_line(&format!(r#"{{"jsonrpc":"2.0","id":{a},"result":{{"content":[{{"type":"text","text":"An error occurred invoking 'build_context': Required property 'conceptName' is missing."}}],"isError":true}}}}"#));
        c.on_line(&format!(r#"{{"jsonrpc":"2.0","id":{b},"error":{{"code":-32602,"message":"Unknown tool: 'Build_Context'"}}}}"#));
        let ra = c.take_answer(a).unwrap().unwrap();
        let ea = decode_tool_result(&ra).unwrap_err();
        assert!(matches!(&ea, McpError::Tool(m) if m.contains("conceptName")));
        assert!(ea.is_definitive());
        let eb = c.take_answer(b).unwrap().unwrap_err();
        assert_eq!(
            eb,
            McpError::Rpc {
                code: -32602,
                message: "Unknown tool: 'Build_Context'".into()
            }
        );
        assert!(!eb.is_definitive());
    }

    #[test]
    fn tool_results_are_decoded_leniently() {
        assert_eq!(
            decode_tool_result(
                &json!({"content": [{"type": "image", "data": "x"}, {"type": "text", "text": "T"}]})
            )
            .unwrap()
            .text,
            "T"
        );
        let s = decode_tool_result(&json!({"content": [], "structuredContent": {"a": 1}})).unwrap();
        assert_eq!(s.structured, Some(json!({"a": 1})));
        assert!(matches!(
            decode_tool_result(&json!({"content": []})),
            Err(McpError::BadResult(_))
        ));
        assert!(matches!(
            decode_tool_result(&json!("text")),
            Err(McpError::BadResult(_))
        ));
    }

    #[test]
    fn a_refused_or_malformed_initialize_fails_the_handshake() {
        let (mut c, _) = Client::new("1");
        let ev = c.on_line(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"nope"}}"#);
        assert!(matches!(&ev[0], Event::HandshakeFailed(m) if m.contains("nope")));
        assert!(matches!(c.phase(), Phase::Failed(_)));
        assert!(matches!(
            c.call_tool("sync", &json!({})),
            Err(McpError::Unavailable(_))
        ));
        let (mut c, _) = Client::new("1");
        let ev = c.on_line(r#"{"jsonrpc":"2.0","id":1,"result":{"hello":true}}"#);
        assert!(matches!(&ev[0], Event::HandshakeFailed(m) if m.contains("protocolVersion")));
    }

    #[test]
    fn garbage_is_skipped_but_a_server_that_only_prints_garbage_fails_the_handshake() {
        let (mut c, _) = Client::new("1");
        for i in 1..HANDSHAKE_GARBAGE_LIMIT {
            assert!(matches!(
                c.on_line(&format!("Usage: maenifold --tool <Name> ({i})"))[0],
                Event::Garbage(_)
            ));
        }
        assert!(matches!(c.on_line("[1,2]")[0], Event::HandshakeFailed(_)));
        // once ready, garbage is only counted
        let mut c = ready();
        for _ in 0..100 {
            assert!(matches!(c.on_line("not json")[0], Event::Garbage(_)));
        }
        assert!(matches!(
            c.on_line(r#"{"jsonrpc":"1.0","id":1,"result":{}}"#)[0],
            Event::Garbage(_)
        ));
        assert!(matches!(c.on_line("42")[0], Event::Garbage(_)));
        assert!(matches!(c.on_line(r#"{"id":3}"#)[0], Event::Garbage(_)));
        assert!(c.is_ready());
        assert_eq!(c.stats.garbage, 103);
    }

    #[test]
    fn an_over_long_answer_fails_its_request_at_once() {
        let mut c = ready();
        let (a, _) = c.call_tool("build_context", &json!({})).unwrap();
        assert_eq!(
            c.on_frame(Frame::Oversized {
                bytes: 9_000_000,
                id: Some(a)
            }),
            vec![Event::Answered(a)]
        );
        assert_eq!(c.take_answer(a), Some(Err(McpError::TooLarge(9_000_000))));
        assert!(matches!(
            c.on_frame(Frame::Oversized {
                bytes: 10,
                id: Some(77)
            })[0],
            Event::Garbage(_)
        ));
        assert!(matches!(
            c.on_frame(Frame::Invalid { bytes: 3 })[0],
            Event::Garbage(_)
        ));
    }
}

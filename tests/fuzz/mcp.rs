//! MCP frames (the maenifold server's stdout, any bytes in any chunks): the line framing
//! (`mcp::LineBuffer`) against a model and across chunkings, the JSON-RPC client
//! (`mcp::Client::on_frame`), tool results (`decode_tool_result`), tool names
//! (`mcp_tool_name`), and the engine's entry points for a session's output (`mcp_feed`,
//! `mcp_closed`, policy build).

use hookwise::mcp::client::{decode_tool_result, Event};
use hookwise::mcp::{mcp_tool_name, Client, Frame, LineBuffer};
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::common::{check, json_with, mutate, nasty_string};

/// JSON-RPC lines a server (or an impostor) writes, for requests with ids 1..=4.
fn rpc_line() -> BoxedStrategy<String> {
    let id = prop_oneof![
        (0u64..6).prop_map(|i| json!(i)),
        Just(json!(null)),
        Just(json!("2")),
        Just(json!(1.5)),
        Just(json!(-1)),
        Just(json!(u64::MAX)),
    ];
    let result = json_with(
        &[
            "protocolVersion",
            "serverInfo",
            "content",
            "type",
            "text",
            "isError",
            "structuredContent",
        ],
        nasty_string(),
    )
    .prop_map(|j| serde_json::from_str::<Value>(&j.text()).unwrap_or(Value::Null));
    prop_oneof![
        (id.clone(), result.clone()).prop_map(|(id, r)| json!({"jsonrpc": "2.0", "id": id, "result": r}).to_string()),
        id.clone().prop_map(|id| json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-03-26", "serverInfo": {"name": "m"}}}).to_string()),
        (id.clone(), any::<i64>(), nasty_string()).prop_map(|(id, c, m)| json!({"jsonrpc": "2.0", "id": id, "error": {"code": c, "message": m}}).to_string()),
        (id.clone(), prop::sample::select(&["ping", "sampling/createMessage", "roots/list"][..]))
            .prop_map(|(id, m)| json!({"jsonrpc": "2.0", "id": id, "method": m}).to_string()),
        Just(json!({"jsonrpc": "2.0", "method": "notifications/message"}).to_string()),
        Just(json!({"jsonrpc": "1.0", "id": 1, "result": {}}).to_string()),
        prop::collection::vec(id, 0..4).prop_map(|ids| {
            Value::Array(ids.into_iter().map(|i| json!({"jsonrpc": "2.0", "id": i, "result": {}})).collect()).to_string()
        }),
        nasty_string(),
    ]
    .boxed()
}

/// Server output as bytes, with its lines joined by `\n` or `\r\n` and some bytes mangled.
fn output() -> impl Strategy<Value = Vec<u8>> {
    let plain = (prop::collection::vec(rpc_line(), 0..12), any::<bool>())
        .prop_map(|(ls, crlf)| {
            let mut s = ls.join(if crlf { "\r\n" } else { "\n" });
            s.push('\n');
            s.into_bytes()
        })
        .boxed();
    prop_oneof![
        3 => plain.clone(),
        2 => mutate(plain),
        1 => prop::collection::vec(any::<u8>(), 0..256),
    ]
}

/// Cut `b` at the given points.
fn chunks(b: &[u8], cuts: &[prop::sample::Index]) -> Vec<Vec<u8>> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c.index(b.len() + 1)).collect();
    at.sort_unstable();
    let mut out = Vec::new();
    let mut from = 0;
    for a in at {
        out.push(b[from..a].to_vec());
        from = a;
    }
    out.push(b[from..].to_vec());
    out
}

/// Frames without the id hint of an over-long line (it depends on where the cut fell).
fn shape(f: &Frame) -> (u8, usize, String) {
    match f {
        Frame::Line(s) => (0, s.len(), s.clone()),
        Frame::Oversized { bytes, .. } => (1, *bytes, String::new()),
        Frame::Invalid { bytes } => (2, *bytes, String::new()),
    }
}

/// What the framing should make of `b`: every `\n`-terminated line, `\r` trimmed, blank
/// ones skipped, over-long ones counted, non-UTF-8 ones flagged.
fn model(b: &[u8], max: usize) -> Vec<(u8, usize, String)> {
    let max = max.max(16);
    let mut out = Vec::new();
    let mut parts: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    parts.pop(); // the unterminated rest stays buffered
    for raw in parts {
        if raw.len() > max {
            out.push((1, raw.len(), String::new()));
            continue;
        }
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match std::str::from_utf8(line) {
            Ok(s) => out.push((0, s.len(), s.to_string())),
            Err(_) => out.push((2, line.len(), String::new())),
        }
    }
    out
}

#[test]
fn line_framing_is_the_same_in_any_chunks() {
    check(
        "mcp: LineBuffer (model, any chunking)",
        384,
        (
            output(),
            prop::collection::vec(any::<prop::sample::Index>(), 0..8),
            prop_oneof![Just(16usize), 0usize..64, Just(4usize << 20)],
        ),
        |(bytes, cuts, max)| {
            let want = model(&bytes, max);
            let mut b = LineBuffer::new(max);
            let mut got = Vec::new();
            for c in chunks(&bytes, &cuts) {
                got.extend(b.feed(&c).iter().map(shape));
                prop_assert!(b.buffered() <= max.max(16));
            }
            prop_assert_eq!(got, want);
            Ok(())
        },
    );
}

#[test]
fn the_client_takes_any_output() {
    check(
        "mcp: Client::on_frame (any output)",
        384,
        (output(), any::<bool>()),
        |(bytes, ready_first)| {
            let (mut c, _init) = Client::new("0.0.0");
            let mut sent = vec![c.init_id()];
            if ready_first {
                c.on_line(
                    &json!({"jsonrpc": "2.0", "id": c.init_id(),
                    "result": {"protocolVersion": "2025-03-26"}})
                    .to_string(),
                );
                for _ in 0..3 {
                    if let Ok((id, _)) = c.call_tool("build_context", &json!({})) {
                        sent.push(id);
                    }
                }
            }
            let mut buf = LineBuffer::new(1 << 12);
            for f in buf.feed(&bytes) {
                for e in c.on_frame(f) {
                    if let Event::Answered(id) = e {
                        prop_assert!(sent.contains(&id), "answer to {id}, never sent");
                    }
                }
                prop_assert!(c.in_flight() <= sent.len());
            }
            let out = c.take_outbox();
            prop_assert!(out.lines().count() <= 64, "the outbox is bounded");
            for l in out.lines() {
                prop_assert!(serde_json::from_str::<Value>(l).is_ok(), "{l}");
            }
            for id in sent {
                if let Some(Ok(v)) = c.take_answer(id) {
                    let _ = decode_tool_result(&v);
                }
            }
            prop_assert!(c.take_answer(9_999).is_none());
            Ok(())
        },
    );
}

#[test]
fn tool_results_and_names_decode() {
    check(
        "mcp: decode_tool_result / mcp_tool_name",
        256,
        (
            json_with(
                &["content", "type", "text", "isError", "structuredContent"],
                nasty_string(),
            ),
            prop_oneof![
                nasty_string(),
                Just("Build_Context".to_string()),
                Just("SEARCHMEMORIES".to_string())
            ],
        ),
        |(j, name)| {
            if let Ok(v) = serde_json::from_str::<Value>(&j.text()) {
                if let Ok(out) = decode_tool_result(&v) {
                    prop_assert!(
                        !out.text.is_empty()
                            || out.structured.is_some()
                            || v.to_string().contains("\"text\"")
                    );
                }
            }
            if let Some(n) = mcp_tool_name(&name) {
                prop_assert!(n.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
            }
            Ok(())
        },
    );
}

#[cfg(feature = "policy")]
#[test]
fn the_engine_takes_any_session_output() {
    use crate::engine::project_fs;
    use hookwise::testing::bound::Bounded;
    check(
        "mcp: Engine::mcp_feed / mcp_closed (policy)",
        64,
        prop::collection::vec(
            (
                0u64..4,
                output(),
                prop::option::weighted(0.2, nasty_string()),
            ),
            1..4,
        ),
        |feeds| {
            let mut h = Bounded::on(project_fs());
            h.call_json(
                &json!({"hook": "init", "env": {"PATH": "/nowhere"}, "cwd": "/w",
                "worktree": "/w", "directory": "/w", "options": {"transport": "mcp"}}),
            );
            for (session, bytes, close) in feeds {
                h.runner.mcp_feed(session, &bytes);
                if let Some(why) = close {
                    h.runner
                        .mcp_closed(session, &json!({"code": 1, "stderr": why}));
                }
                let woken = h.runner.take_woken();
                h.pump(woken, true);
            }
            let r = h.call_json(&json!({"hook": "doctor"}));
            prop_assert!(r.is_object(), "{r}");
            Ok(())
        },
    );
}

/// A live MCP session inside the engine: the server's answers to what the core wrote are
/// hostile (any result, any error, junk between), calls that need context run meanwhile,
/// and when the session closes no operation stays parked.
#[cfg(feature = "policy")]
#[test]
fn a_live_session_with_a_hostile_server_ends_every_operation() {
    use crate::engine::project_fs;
    use hookwise::testing::bound::Bounded;
    let result = json_with(
        &[
            "protocolVersion",
            "content",
            "type",
            "text",
            "isError",
            "structuredContent",
            "conceptName",
            "directRelations",
            "name",
        ],
        nasty_string(),
    )
    .prop_map(|j| serde_json::from_str::<Value>(&j.text()).unwrap_or(Value::Null));
    check(
        "mcp: live session in the engine, hostile server (policy)",
        48,
        (
            prop::collection::vec(
                (prop::collection::vec(result, 1..4), output(), any::<bool>()),
                1..4,
            ),
            prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        ),
        |(rounds, cuts)| {
            let mut fs = project_fs();
            fs.program("/bin/maenifold");
            let mut h = Bounded::on(fs);
            h.play_mcp();
            h.call_json(
                &json!({"hook": "init", "env": {"PATH": "/bin"}, "cwd": "/w",
                "worktree": "/w", "directory": "/w", "options": {"transport": "mcp"}}),
            );
            let mut started = Vec::new();
            let start = |h: &mut Bounded, call: Value, started: &mut Vec<u64>| {
                if let Ok(step) = h.runner.start_json(call.to_string()) {
                    let (hookwise::runtime::Step::Pending { op, .. }
                    | hookwise::runtime::Step::Done { op, .. }) = &step;
                    started.push(*op);
                    h.pump(vec![step], false);
                }
            };
            start(&mut h, json!({"hook": "mcp.warmup"}), &mut started);
            for (results, junk, ctx_call) in rounds {
                if ctx_call {
                    start(
                        &mut h,
                        json!({"hook": "tool.before", "tool": "task", "sessionId": "s",
                        "callId": "c", "args": {"prompt": "about [[auth]] and [[jwt]]"}}),
                        &mut started,
                    );
                }
                // answer every request written so far, each with one of the results
                let mut out = Vec::new();
                for (k, line) in h.mcp_written().lines().enumerate() {
                    let Ok(v) = serde_json::from_str::<Value>(line) else {
                        continue;
                    };
                    let (Some(id), Some(_)) = (v.get("id"), v.get("method")) else {
                        continue;
                    };
                    let r = &results[k % results.len()];
                    let answer = if v["method"] == "initialize" && k % 2 == 0 {
                        json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-03-26"}})
                    } else {
                        json!({"jsonrpc": "2.0", "id": id, "result": r})
                    };
                    out.extend_from_slice(answer.to_string().as_bytes());
                    out.push(b'\n');
                }
                out.extend_from_slice(&junk);
                for session in h.mcp_sessions() {
                    for c in chunks(&out, &cuts) {
                        h.runner.mcp_feed(session, &c);
                        let woken = h.runner.take_woken();
                        h.pump(woken, false);
                    }
                }
            }
            for session in h.mcp_sessions() {
                h.runner
                    .mcp_closed(session, &json!({"code": 1, "stderr": "bye"}));
                let woken = h.runner.take_woken();
                h.pump(woken, false);
            }
            // then time passes: whatever waits on a deadline ends
            h.pump(Vec::new(), true);
            for op in started {
                prop_assert!(h.done.contains_key(&op), "operation {op} never ended");
            }
            Ok(())
        },
    );
}

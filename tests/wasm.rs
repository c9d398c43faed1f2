//! The wasm adapters, run in Node by `wasm-pack test --node`: JSON bytes in, JSON out, typed
//! errors, one crossing per step.
#![cfg(target_arch = "wasm32")]

use hookwise::wasm_api::Engine;
use serde_json::{json, Value};
use wasm_bindgen_test::wasm_bindgen_test;

fn parse(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

#[wasm_bindgen_test]
fn init_asks_the_host_to_stat_candidates_in_one_step() {
    let mut e = Engine::new();
    let step = parse(
        &e.start(
            // a host that cannot run maenifold's MCP server: the CLI path, in this build
            json!({"hook": "init", "env": {"PATH": "/a:/b"}, "cwd": "/w", "mcp": false})
                .to_string()
                .as_bytes(),
            1.0,
        )
        .unwrap(),
    );
    // first, in one step: does the project want pre-action enforcement or intent governance
    // (the policy build)?
    let probe = step["pending"]["requests"].as_array().unwrap();
    let paths: Vec<&str> = probe.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "/w/.opencode/sops",
            "/w/.opencode/hookwise.json",
            "/w/.orchestration/active_intents.yaml",
            // the host-neutral places beside OpenCode's
            "/w/.hookwise/sops",
            "/w/.hookwise/hookwise.json"
        ]
    );
    assert_eq!(probe[1]["kind"], "readFile");
    let op = step["pending"]["op"].as_u64().unwrap() as u32;
    let replies: Vec<String> = probe
        .iter()
        .map(|r| format!(r#"[{},{{"exists":false,"error":"not-found"}}]"#, r["id"]))
        .collect();
    let step = parse(
        &e.resume(op, format!("[{}]", replies.join(",")).as_bytes(), &[], 1.0)
            .unwrap(),
    );
    // … then the CLI candidates, in one step.
    let reqs = step["pending"]["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0]["kind"], "stat");
    assert_eq!(reqs[0]["path"], "/a/maenifold");
    let op = step["pending"]["op"].as_u64().unwrap() as u32;
    let r0 = reqs[0]["id"].as_u64().unwrap() as u32;
    let r1 = reqs[1]["id"].as_u64().unwrap() as u32;
    let waiting = parse(
        &e.resume(
            op,
            format!(r#"[[{r0},{{"exists":false}}]]"#).as_bytes(),
            &[],
            1.0,
        )
        .unwrap(),
    );
    assert_eq!(waiting["pending"]["requests"], json!([]));
    let done = parse(&e.resume(op, format!(r#"[[{r1},{{"exists":true,"realpath":"/b/maenifold","isFile":true,"executable":true}}]]"#).as_bytes(), &[], 1.0).unwrap());
    assert_eq!(done["done"]["result"]["discovery"]["path"], "/b/maenifold");
    assert_eq!(done["done"]["result"]["plan"]["toolBefore"]["needle"], "[[");
}

#[wasm_bindgen_test]
fn a_tool_call_round_trip() {
    let mut e = Engine::new();
    let init = parse(
        &e.start(
            json!({"hook": "init", "options": {"cliPath": "/m", "transport": "cli"}})
                .to_string()
                .as_bytes(),
            1.0,
        )
        .unwrap(),
    );
    let op = init["pending"]["op"].as_u64().unwrap() as u32;
    let id = init["pending"]["requests"][0]["id"].as_u64().unwrap() as u32;
    e.resume(
        op,
        format!(r#"[[{id},{{"exists":true,"realpath":"/m","isFile":true,"executable":true}}]]"#)
            .as_bytes(),
        &[],
        1.0,
    )
    .unwrap();

    let call = json!({"hook": "tool.before", "tool": "bash", "callId": "c", "args": {"command": "echo [[Auth]]"}});
    let step = parse(&e.start(call.to_string().as_bytes(), 1.0).unwrap());
    let spawn = step["pending"]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "spawn")
        .unwrap()
        .clone();
    assert_eq!(spawn["argv"][2], "BuildContext");
    let op = step["pending"]["op"].as_u64().unwrap() as u32;
    let reply = json!({"success": true, "exitCode": 0, "stdout": "Context for CONCEPT: auth\n\nDirect relations (1 CONCEPTS):\n  • jwt (co-occurs in 2 files)\n"});
    let done = parse(
        &e.resume(
            op,
            json!([[spawn["id"], reply]]).to_string().as_bytes(),
            &[],
            1.0,
        )
        .unwrap(),
    );
    let m = &done["done"]["result"]["edits"][0];
    assert_eq!(m["path"], json!(["command"]));
    assert!(m["prepend"]
        .as_str()
        .unwrap()
        .contains("# Related: [[jwt]] (2 files)"));
    assert_eq!(done["done"]["cancel"], json!([]));
}

#[wasm_bindgen_test]
fn bad_input_is_a_typed_error() {
    let mut e = Engine::new();
    let err = e.start(b"{not json", 1.0).unwrap_err();
    let msg = wasm_bindgen::JsValue::from(err).as_string();
    // JsError becomes a JS Error object; its message names the kind.
    assert!(msg.is_none());
    assert!(e.start(br#"{"hook":"tool.before"}"#, 1.0).is_err());
    assert!(e.resume(1, b"\xff", &[], 1.0).is_err());
    assert_eq!(e.resume(99, b"[[1,{}]]", &[], 1.0).unwrap(), "");
}

/// The requests of a step (own or woken) of operation `op`.
fn requests_of(step: &Value) -> Vec<Value> {
    step["pending"]["requests"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

// The warm MCP session is in the full (policy) build: `wasm-pack test --node --features policy`.
#[cfg(feature = "policy")]
#[wasm_bindgen_test]
fn a_tool_call_over_the_warm_mcp_session() {
    let mut e = Engine::new();
    let init = parse(
        &e.start(
            json!({"hook": "init", "options": {"cliPath": "/m"}})
                .to_string()
                .as_bytes(),
            1.0,
        )
        .unwrap(),
    );
    let op = init["pending"]["op"].as_u64().unwrap() as u32;
    let id = init["pending"]["requests"][0]["id"].as_u64().unwrap();
    let done = parse(
        &e.resume(
            op,
            format!(
                r#"[[{id},{{"exists":true,"realpath":"/m","isFile":true,"executable":true}}]]"#
            )
            .as_bytes(),
            &[],
            1.0,
        )
        .unwrap(),
    );
    assert_eq!(done["done"]["result"]["warmMcp"], true);

    let call = json!({"hook": "tool.before", "tool": "bash", "callId": "c", "args": {"command": "echo [[Auth]]"}});
    let step = parse(&e.start(call.to_string().as_bytes(), 2.0).unwrap());
    let op = step["pending"]["op"].as_u64().unwrap() as u32;
    let start = requests_of(&step)
        .into_iter()
        .find(|r| r["kind"] == "mcpStart")
        .expect("the first lookup starts the server");
    assert_eq!(start["argv"], json!(["/m", "--mcp"]));
    let session = start["session"].as_u64().unwrap() as u32;
    // spawned → the initialize line is written
    let step = parse(
        &e.resume(
            op,
            json!([[start["id"], {"ok": true, "pid": 42}]])
                .to_string()
                .as_bytes(),
            &[],
            3.0,
        )
        .unwrap(),
    );
    let write = requests_of(&step)
        .into_iter()
        .find(|r| r["kind"] == "mcpWrite")
        .unwrap();
    assert!(write["text"].as_str().unwrap().contains("\"initialize\""));
    let step = parse(
        &e.resume(
            op,
            json!([[write["id"], {"ok": true}]]).to_string().as_bytes(),
            &[],
            4.0,
        )
        .unwrap(),
    );
    assert!(
        requests_of(&step).iter().all(|r| r["kind"] != "mcpAwait"),
        "the host never sees the core's own waits"
    );
    // The handshake answer, in two chunks: it wakes the call, which writes its tools/call.
    let woken = parse(&e.mcp_feed(
        session,
        br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","#,
        5.0,
    ));
    assert_eq!(woken, json!([]), "half a line wakes nothing");
    let woken = parse(&e.mcp_feed(
        session,
        b"\"capabilities\":{},\"serverInfo\":{\"name\":\"maenifold\",\"version\":\"1.0.3.0\"}}}\n",
        6.0,
    ));
    let steps = woken.as_array().unwrap();
    assert_eq!(steps.len(), 1, "{woken}");
    assert_eq!(steps[0]["pending"]["op"], op);
    let write = requests_of(&steps[0])
        .into_iter()
        .find(|r| r["kind"] == "mcpWrite")
        .unwrap();
    let text = write["text"].as_str().unwrap();
    assert!(text.contains("notifications/initialized"), "{text}");
    let call_line: Value = text
        .lines()
        .map(parse)
        .find(|m| m["method"] == "tools/call")
        .unwrap();
    assert_eq!(call_line["params"]["name"], "build_context");
    assert_eq!(call_line["params"]["arguments"]["conceptName"], "auth");
    let rpc = call_line["id"].as_u64().unwrap();
    e.resume(
        op,
        json!([[write["id"], {"ok": true}]]).to_string().as_bytes(),
        &[],
        7.0,
    )
    .unwrap();
    // The answer (BuildContext's JSON form) finishes the call: a woken `done` step.
    let bc = json!({"conceptName": "auth", "depth": 1, "directRelations": [{"name": "jwt", "coOccurrenceCount": 2, "files": ["memory://notes/a"]}]});
    let answer = json!({"jsonrpc": "2.0", "id": rpc, "result": {"content": [{"type": "text", "text": bc.to_string()}]}});
    let woken = parse(&e.mcp_feed(session, format!("{answer}\n").as_bytes(), 8.0));
    let done = &woken[0]["done"];
    assert_eq!(done["op"], op);
    let m = &done["result"]["edits"][0];
    assert!(
        m["prepend"]
            .as_str()
            .unwrap()
            .contains("# Related: [[jwt]] (2 files)"),
        "{done}"
    );
    // The server exits: nothing waits, nothing is woken.
    assert_eq!(
        parse(&e.mcp_closed(session, r#"{"code":0}"#, 9.0)),
        json!([])
    );
}

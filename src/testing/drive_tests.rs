//! The driver itself: timers on the virtual clock, several operations at once, and the MCP
//! peer's output reaching an engine as events.

use serde_json::json;

use super::drive::{Driver, Routed};
use super::TestHost;

fn host_at_zero() -> TestHost {
    TestHost {
        now: 0.0,
        ..TestHost::default()
    }
}

#[test]
fn operations_run_at_once_and_timers_due_together_fire_in_the_order_set() {
    let order = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let mut d = Driver::new(Routed::default(), host_at_zero());
    let mut ops = Vec::new();
    for (name, ms) in [("a", 30), ("b", 10), ("c", 30), ("d", 10)] {
        let order = order.clone();
        ops.push(d.start(move |io| async move {
            io.sleep(ms).await;
            order.borrow_mut().push(name);
            json!(name)
        }));
    }
    d.settle();
    assert_eq!(*order.borrow(), ["b", "d", "a", "c"]);
    let at: Vec<f64> = ops.iter().map(|op| d.done[op].0).collect();
    assert_eq!(at, [30.0, 10.0, 30.0, 10.0]);
    assert_eq!(d.result(ops[2]), &json!("c"));
    // each request logged with when it was answered, its operation and id
    let sent: Vec<(f64, u64)> = d.host.sent.iter().map(|s| (s.0, s.1)).collect();
    assert_eq!(sent, [(0.0, 1), (0.0, 2), (0.0, 3), (0.0, 4)]);
}

#[test]
fn an_abandoned_operation_has_its_requests_cancelled_and_the_others_go_on() {
    let mut d = Driver::new(Routed::default(), host_at_zero());
    let slow = d.start(|io| async move {
        io.sleep(1000).await;
        json!("slow")
    });
    let fast = d.start(|io| async move {
        io.sleep(10).await;
        json!("fast")
    });
    let ids = d.abandon(slow);
    assert_eq!(ids.len(), 1);
    assert_eq!(d.host.cancelled, ids);
    d.settle();
    assert_eq!(d.result(fast), &json!("fast"));
    assert!(!d.done.contains_key(&slow));
    assert_eq!(d.host.now, 10.0, "the cancelled timer never fired");
}

/// The engine's knowledge lookups through the warm MCP session: the host's MCP peer answers,
/// its output reaching the engine as events (`mcp_feed`, woken steps) on the virtual clock.
#[cfg(feature = "policy")]
#[test]
fn an_engine_answers_from_the_mcp_peer() {
    use super::mcp::{Fake, Peers};
    use crate::engine::Engine;
    use crate::protocol::Request;

    let auth = json!({"conceptName": "auth", "depth": 1, "directRelations": [
        {"name": "jwt", "coOccurrenceCount": 2, "files": ["memory://notes/auth-design"]}],
        "expandedRelations": []})
    .to_string();
    let mut host = TestHost::default();
    host.program("/bin/maenifold");
    host.mcp = Some(Peers::new(move |_| {
        let mut f = Fake {
            startup_ms: 1800,
            answer_ms: 20,
            ..Fake::default()
        };
        f.graph.insert("auth".into(), auth.clone());
        Some(f)
    }));
    let mut d = Driver::new(Engine::new(), host);
    let init = json!({"hook": "init", "env": {"PATH": "/bin"}, "cwd": "/w", "mcp": true});
    let op = d.start_call(&init.to_string());
    let r = d.run_until_done(op);
    assert_eq!(r["discovery"]["path"], "/bin/maenifold", "{r}");
    let before = |id: &str, concept: &str| {
        json!({"hook": "tool.before", "tool": "bash", "callId": id,
               "args": {"command": format!("echo '[[{concept}]]'")}})
        .to_string()
    };
    let t0 = d.host.now;
    let op = d.start_call(&before("c1", "auth"));
    let r = d.run_until_done(op);
    let cold = d.host.now - t0;
    let pre = r["edits"][0]["prepend"].as_str().unwrap_or_default();
    assert!(pre.contains("[[jwt]]"), "{r}");
    assert!(cold >= 1800.0, "the server's start-up: {cold} ms");
    // warm: the same process answers at once
    let t1 = d.host.now;
    let op = d.start_call(&before("c2", "db"));
    d.run_until_done(op);
    assert!(d.host.now - t1 <= 50.0, "warm: {} ms", d.host.now - t1);
    let peers = d.host.mcp.as_ref().unwrap();
    assert_eq!(peers.starts, vec![1]);
    let server = &peers.running[&1];
    assert!(server.violations.is_empty(), "{:?}", server.violations);
    let calls = server.received.iter().filter(|m| *m == "tools/call");
    assert_eq!(calls.count(), 2, "{:?}", server.received);
    let spawned = d
        .host
        .log
        .iter()
        .filter(|r| matches!(r, Request::Spawn { .. }));
    assert_eq!(spawned.count(), 0, "no CLI call");
    d.settle();
}

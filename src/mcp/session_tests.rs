//! Unit tests of [`super`], kept in their own file (moved verbatim from the module).

use super::*;
use crate::mcp::McpOptions;

fn hub(transport: Transport) -> Hub {
    Hub::new(McpSetup {
        cli_path: Some("/bin/maenifold".into()),
        options: McpOptions {
            transport,
            start_timeout_ms: 1000,
            ..McpOptions::default()
        },
        source: "maenifold:/bin/maenifold".into(),
        ..Default::default()
    })
}

#[test]
fn lazy_start_is_one_start_and_others_wait_for_it() {
    let mut h = hub(Transport::Auto);
    assert_eq!(h.status().starts, 0, "nothing runs before the first need");
    let Action::Start { session, argv, .. } = h.next_action() else {
        panic!()
    };
    assert_eq!(argv, vec!["/bin/maenifold", "--mcp"]);
    assert!(
        matches!(h.next_action(), Action::Wait { session: s, key: 1, deadline_ms: 1000 } if s == session)
    );
    let init = h.on_spawned(session, &json!({"ok": true})).unwrap();
    assert!(init.ends_with('\n') && init.contains("\"initialize\""));
    h.feed(
        session,
        br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}"#,
    );
    assert_eq!(
        h.next_action(),
        Action::Wait {
            session,
            key: 1,
            deadline_ms: 1000
        },
        "no newline yet"
    );
    h.feed(session, b"\n");
    assert_eq!(h.take_wakes(), vec![Wake::Rpc { session, id: 1 }]);
    assert_eq!(h.next_action(), Action::Use(session));
    assert_eq!(h.status().starts, 1);
}

#[test]
fn a_silent_start_times_out_on_host_time_and_auto_turns_to_the_cli() {
    let mut h = hub(Transport::Auto);
    let Action::Start { session, .. } = h.next_action() else {
        panic!()
    };
    h.on_spawned(session, &json!({"ok": true}));
    h.observe_now(999);
    assert!(matches!(h.next_action(), Action::Wait { .. }));
    h.observe_now(1000);
    assert!(matches!(h.next_action(), Action::Unavailable(r) if r.contains("handshake")));
    assert_eq!(
        h.take_to_stop(),
        vec![session],
        "the silent process is stopped"
    );
    assert_eq!(h.take_wakes(), vec![Wake::Session(session)]);
    let logs = h.take_logs();
    assert_eq!(logs.len(), 1);
    assert!(logs[0].message.contains("CLI per call"));
    assert!(matches!(h.next_action(), Action::Unavailable(_)));
    assert!(h.take_logs().is_empty(), "logged once");
}

#[test]
fn stale_sessions_are_ignored_and_time_only_moves_forward() {
    let mut h = hub(Transport::Mcp);
    let Action::Start { session, .. } = h.next_action() else {
        panic!()
    };
    h.on_spawned(session, &json!({"ok": false, "error": "ENOENT"}));
    assert_eq!(h.live_id(), None);
    // mcp: the first restart is immediate
    let Action::Start { session: s2, .. } = h.next_action() else {
        panic!()
    };
    assert_eq!(s2, session + 1);
    h.feed(
        session,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"x\"}}\n",
    );
    h.closed(session, &json!({"code": 1}));
    assert_eq!(
        h.live_id(),
        Some(s2),
        "old data and exits do not touch the new session"
    );
    assert_eq!(h.stale_chunks, 1);
    h.observe_now(50);
    h.observe_now(10);
    assert_eq!(h.now(), 50);
    h.on_spawned(s2, &json!({"ok": true, "nowMs": 70}));
    assert_eq!(h.now(), 70);
}

#[test]
fn reconfiguring_hands_back_the_running_session_and_keeps_ids_unique() {
    let h = McpHandle::new(McpSetup::default());
    assert!(
        matches!(h.0.borrow_mut().next_action(), Action::Unavailable(r) if r.contains("no maenifold"))
    );
    assert_eq!(
        h.configure(McpSetup {
            cli_path: Some("/bin/maenifold".into()),
            ..Default::default()
        }),
        None
    );
    let Action::Start { session, .. } = h.0.borrow_mut().next_action() else {
        panic!()
    };
    h.observe_now(500);
    let old = h.configure(McpSetup {
        cli_path: Some("/opt/maenifold".into()),
        ..Default::default()
    });
    assert_eq!(old, Some(session), "to be stopped by the host");
    assert_eq!(h.0.borrow_mut().take_wakes(), vec![Wake::Session(session)]);
    assert_eq!(h.now(), 500);
    let Action::Start {
        session: next,
        argv,
        ..
    } = h.0.borrow_mut().next_action()
    else {
        panic!()
    };
    assert!(next > session);
    assert_eq!(argv[0], "/opt/maenifold");
    h.0.borrow_mut().feed(session, b"{}\n");
    assert_eq!(h.0.borrow().stale_chunks, 1);
}

#[test]
fn an_exit_reports_code_signal_and_stderr_tail() {
    let mut h = hub(Transport::Auto);
    let Action::Start { session, .. } = h.next_action() else {
        panic!()
    };
    h.on_spawned(session, &json!({"ok": true}));
    h.feed(
        session,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\"}}\n",
    );
    h.take_logs();
    h.closed(
        session,
        &json!({"code": 134, "stderr": "boom\nUnhandled exception: X\n\n"}),
    );
    let logs = h.take_logs();
    assert!(
        logs[0].message.contains("exit code 134")
            && logs[0].message.contains("Unhandled exception: X"),
        "{logs:?}"
    );
    assert!(logs[0].message.contains("restarting"));
    assert_eq!(
        h.poll_answer(session, 2),
        Some(Err(McpError::Closed(
            "exit code 134; stderr: Unhandled exception: X".into()
        )))
    );
}

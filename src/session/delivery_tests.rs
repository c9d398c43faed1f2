//! Session bookkeeping and delivery: which sessions start, the system and prompt channels,
//! abandoned or endless starts, and the bounded memory of sessions.

use serde_json::json;

use super::*;

#[test]
fn subagent_sessions_are_skipped_and_each_session_starts_once() {
    let mut w = World::new(20);
    let sub = w.created("ses_child", Some("ses_parent"), cfg());
    w.sim.run();
    assert_eq!(w.sim.result(sub)["skipped"], "subagent session");
    assert!(w.sim.calls().is_empty());
    let t = w.transform(Some("ses_child"), &[], cfg());
    w.sim.run();
    assert_eq!(w.sim.result(t), &json!({}));

    let a = w.created("ses_1", None, cfg());
    let b = w.created("ses_1", None, cfg());
    w.sim.run();
    assert_eq!(w.sim.result(b)["skipped"], "already started");
    assert_eq!(w.sim.calls_of("SearchMemories").len(), 1);
    assert!(w.sim.result(a)["sessionContext"]
        .as_str()
        .unwrap()
        .starts_with(format::HEADER));
    assert!(
        w.sim.result(a).get("prompt").is_none(),
        "system channel: no user turn"
    );

    let off = w.created(
        "ses_2",
        None,
        SessionConfig {
            enabled: false,
            ..cfg()
        },
    );
    let nameless = w.created(" ", None, cfg());
    w.sim.run();
    assert_eq!(w.sim.result(off)["skipped"], "session start is disabled");
    assert_eq!(w.sim.result(nameless)["skipped"], "no session id");
    assert_eq!(w.sim.calls_of("SearchMemories").len(), 1);
}

#[test]
fn the_system_channel_waits_for_the_running_start_and_serves_every_request() {
    let mut w = World::new(1820);
    let created = w.created("ses_1", None, cfg());
    // the user's first prompt arrives while the lookup runs
    let first = w.transform(Some("ses_1"), &["You are a coding agent."], cfg());
    let title = w.transform(Some("ses_1"), &["You are a title generator. …"], cfg());
    let other = w.transform(Some("ses_unknown"), &[], cfg());
    w.sim.run();
    let ctx = w.sim.result(created)["sessionContext"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(w.sim.result(first)["system"], json!([ctx]));
    assert!(
        w.sim.done_at(first) >= w.sim.done_at(created),
        "it waited for the lookup"
    );
    assert!(w.sim.done_at(first) <= w.sim.done_at(created) + POLL_MS);
    assert_eq!(w.sim.result(title), &json!({}), "not in title requests");
    assert_eq!(w.sim.done_at(title), 0);
    assert_eq!(w.sim.result(other), &json!({}));
    // later requests of the session get it at once; never twice in one request
    let t0 = w.sim.now();
    let again = w.transform(Some("ses_1"), &[], cfg());
    let twice = w.transform(Some("ses_1"), &[&ctx], cfg());
    w.sim.run();
    assert_eq!(w.sim.result(again)["system"], json!([ctx]));
    assert_eq!(w.sim.done_at(again), t0);
    assert_eq!(w.sim.result(twice), &json!({}));
}

#[test]
fn the_prompt_channel_hands_out_a_no_reply_turn() {
    let mut w = World::new(20);
    let pc = SessionConfig {
        channel: Channel::Prompt,
        ..cfg()
    };
    let created = w.created("ses_1", None, pc.clone());
    let t = w.transform(Some("ses_1"), &[], pc);
    w.sim.run();
    let r = w.sim.result(created);
    assert_eq!(r["prompt"]["sessionId"], "ses_1");
    assert!(r["prompt"]["text"]
        .as_str()
        .unwrap()
        .starts_with(format::HEADER));
    assert_eq!(r["prompt"]["text"], r["sessionContext"]);
    assert_eq!(
        w.sim.result(t),
        &json!({}),
        "prompt channel: nothing in the system prompt"
    );
}

#[test]
fn an_abandoned_start_never_blocks_the_system_prompt() {
    let mut w = World::new(20);
    let created = w.created("ses_1", None, cfg());
    assert!(w.state.borrow().is_pending("ses_1"));
    let cancel = w.sim.abandon(created);
    assert!(!cancel.is_empty());
    assert!(!w.state.borrow().is_pending("ses_1"));
    let t = w.transform(Some("ses_1"), &[], cfg());
    w.sim.run();
    assert_eq!(w.sim.result(t), &json!({}));
    assert_eq!(w.sim.done_at(t), 0);
}

#[test]
fn a_start_that_never_ends_is_waited_for_only_so_long() {
    let mut w = World::new(20);
    w.state.borrow_mut().set("ses_1", Entry::Pending);
    let c = SessionConfig {
        start_timeout_ms: 1000,
        ..cfg()
    };
    let t = w.transform(Some("ses_1"), &[], c);
    w.sim.run();
    assert_eq!(w.sim.done_at(t), 2000);
    assert_eq!(w.sim.result(t)["logs"][0]["level"], "debug");
    assert!(w.sim.result(t).get("system").is_none());
}

#[test]
fn sessions_are_remembered_up_to_a_bound() {
    let mut s = SessionState::default();
    for i in 0..(MAX_SESSIONS + 10) {
        s.set(&format!("s{i}"), Entry::Skipped);
    }
    assert_eq!(s.entries.len(), MAX_SESSIONS);
    assert!(s.get("s0").is_none());
    assert!(s.get(&format!("s{}", MAX_SESSIONS + 9)).is_some());
}

#[test]
fn project_names() {
    assert_eq!(
        project_name("/home/u/src/hookwise", "/home/u/src/hookwise/sub"),
        "hookwise"
    );
    assert_eq!(project_name("/home/u/src/hookwise/", ""), "hookwise");
    assert_eq!(project_name("/", "/tmp/scratch"), "scratch");
    assert_eq!(project_name("", "C:\\Users\\u\\proj"), "proj");
    assert_eq!(project_name("C:\\", "D:\\work\\x\\"), "x");
    assert_eq!(project_name("", "/"), "");
}

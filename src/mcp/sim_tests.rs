//! The MCP path against the scripted `maenifold --mcp` peer of [`super`]: handshake,
//! latency, failures, restarts and shutdown.

use super::*;
use crate::knowledge::ContextQuery;
use crate::maenifold::BuildContext;
use crate::mcp::session::{build_context, call_tool, shutdown, tool_text, warm_up};
use crate::mcp::{Touch, Transport};
use crate::protocol::Level;
use crate::runtime::join_until;
use serde_json::json;

const Q: ContextQuery = ContextQuery {
    depth: 1,
    max_entities: 5,
    include_content: true,
};

fn auth_json() -> String {
    json!({"conceptName": "auth", "depth": 1, "directRelations": [
        {"name": "jwt", "coOccurrenceCount": 2, "files": ["memory://notes/auth-design"],
         "contentPreview": {"memory://notes/auth-design": "Tokens are RS256-signed • rotation every 24 h — café."},
         "decayWeight": 1.0, "weightedScore": 2.0, "communityId": 3}],
        "expandedRelations": []}).to_string()
}

const AUTH_TEXT: &str = "Context for CONCEPT: auth\n\nDirect relations (1 CONCEPTS):\n  • jwt (co-occurs in 2 files) [community 3]\n    Files: memory://notes/auth-design\n    Content preview:\n      memory://notes/auth-design: Tokens are RS256-signed • rotation every 24 h — café.\n";

fn normal() -> Fake {
    let mut f = Fake {
        startup_ms: 1800,
        answer_ms: 20,
        ..Fake::default()
    };
    f.graph.insert("auth".into(), auth_json());
    for c in ["api", "db", "ui", "x"] {
        f.graph.insert(
            c.into(),
            json!({"conceptName": c, "depth": 1, "directRelations": [{"name": format!("{c}-rel"), "coOccurrenceCount": 1, "files": [format!("memory://notes/{c}")]}]}).to_string(),
        );
    }
    f
}

/// A server that never answers `initialize`.
fn silent() -> Fake {
    Fake {
        handshake: Handshake::Silent,
        ..normal()
    }
}

/// The same server for every start.
fn every(f: Fake) -> impl Fn(usize) -> Option<Fake> {
    move |_| Some(f.clone())
}

fn opts(transport: Transport) -> McpOptions {
    McpOptions {
        transport,
        start_timeout_ms: 5000,
        request_timeout_ms: 1000,
        ..McpOptions::default()
    }
}

fn sim(transport: Transport, make: impl Fn(usize) -> Option<Fake> + 'static) -> Sim {
    let cli_text = HashMap::from([("auth".to_string(), AUTH_TEXT.to_string())]);
    Sim::new(opts(transport), cli_text, make)
}

/// A tool call's lookups: all concepts concurrently under one deadline (as the engine does).
fn lookup(s: &mut Sim, concepts: &[&str], deadline_ms: u64) -> u64 {
    let h = s.h.clone();
    let concepts: Vec<String> = concepts.iter().map(|c| c.to_string()).collect();
    s.start(move |io| async move {
        let cli = cli_source();
        let futs = concepts
            .iter()
            .map(|c| build_context(&io, &h, Some(&cli), c, Q))
            .collect();
        let answers = join_until(&io, deadline_ms, futs).await;
        json!(answers
            .into_iter()
            .map(|a| match a {
                Some(Ok(b)) => json!({"ok": b.to_text()}),
                Some(Err(e)) => json!({"err": e}),
                None => json!({"late": true}),
            })
            .collect::<Vec<_>>())
    })
}

fn ok_text(v: &Value, i: usize) -> String {
    v[i]["ok"]
        .as_str()
        .unwrap_or_else(|| panic!("lookup {i} failed: {v}"))
        .to_string()
}

fn tool_calls(s: &Sim) -> usize {
    s.peers()
        .writes
        .iter()
        .map(|(_, t)| t.matches("\"tools/call\"").count())
        .sum()
}

fn warnings(s: &Sim) -> Vec<String> {
    s.h.take_logs()
        .into_iter()
        .filter(|l| l.level == Level::Warn)
        .map(|l| l.message)
        .collect()
}

#[test]
fn warm_session_starts_once_multiplexes_and_meets_the_speed_targets() {
    let mut s = sim(Transport::Auto, every(normal()));
    assert!(
        s.peers().starts.is_empty(),
        "lazy: nothing starts before the first need"
    );
    // (b)/(a) cold: session start with three concepts
    let t0 = s.now();
    let op = lookup(&mut s, &["auth", "api", "db"], 5000);
    let r = s.run_until_done(op);
    let cold = s.done_at(op) - t0;
    assert_eq!(
        ok_text(&r, 0),
        BuildContext::parse(AUTH_TEXT).unwrap().to_text(),
        "same value as the CLI form"
    );
    assert!(
        cold <= 2000,
        "cold session start took {cold} ms (target ≤ 2000)"
    );
    assert_eq!(s.cli_calls(), 0);
    // the three calls were in flight together
    assert_eq!(s.peers().running[&1].max_in_flight, 3);
    // (a) warm: a 3-concept tool call
    let t1 = s.now();
    let op = lookup(&mut s, &["ui", "x", "nothing"], 5000);
    let r = s.run_until_done(op);
    let warm = s.done_at(op) - t1;
    assert!(warm <= 50, "warm tool call took {warm} ms (target ≤ 50)");
    assert!(
        ok_text(&r, 2).contains("Direct relations (0 CONCEPTS)"),
        "no knowledge is an answer"
    );
    // (c) the same tool call again: cache hits, no I/O at all
    let writes = s.peers().writes.len();
    let op = lookup(&mut s, &["ui", "x", "nothing"], 5000);
    assert!(
        s.done.contains_key(&op),
        "answered without any host round trip"
    );
    assert_eq!(s.peers().writes.len(), writes);
    // seed design figure for comparison: 3 sequential CLI spawns
    let seed = 3 * CLI_MS;
    eprintln!(
        "virtual ms, 3 concepts: seed (sequential CLI) {seed}, parallel CLI {}, cold MCP session {cold}, warm {warm}, cache hit 0",
        CLI_MS
    );
    assert!(
        seed >= 10 * warm.max(1),
        "≥ 10× faster than the seed design on the warm path"
    );
    assert_eq!(
        s.peers().starts,
        vec![1],
        "one process start for the whole session"
    );
    let fake = &s.peers().running[&1];
    assert_eq!(
        fake.received[..2],
        [
            "initialize".to_string(),
            "notifications/initialized".to_string()
        ]
    );
    assert!(fake.violations.is_empty(), "{:?}", fake.violations);
    // idle costs nothing: no timer or request left running
    s.settle();
    let st = s.h.status();
    assert_eq!((st.in_flight, st.buffered_bytes), (0, 0));
    assert_eq!(s.runner.router.parked(), 0);
    assert_eq!(st.cache.hits, 3);
    assert_eq!(
        s.runner.ops.in_flight(),
        0,
        "no background operation polls while idle"
    );
}

#[test]
fn operations_arriving_during_start_share_the_one_process() {
    let mut s = sim(Transport::Auto, every(normal()));
    let a = lookup(&mut s, &["auth"], 5000);
    let b = lookup(&mut s, &["api"], 5000);
    s.step(); // McpStart replied
    let c = lookup(&mut s, &["db"], 5000);
    for op in [a, b, c] {
        let r = s.run_until_done(op);
        assert!(r[0]["ok"].is_string(), "{r}");
    }
    assert_eq!(s.peers().starts.len(), 1);
    assert_eq!(tool_calls(&s), 3);
    s.settle();
}

#[test]
fn out_of_order_answers_in_odd_chunks_reach_the_right_lookups() {
    let mut f = normal();
    f.slow.insert("auth".into(), 30);
    f.slow.insert("api".into(), 10);
    f.noisy = true;
    let mut s = sim(Transport::Auto, every(f));
    s.peers_mut().chunk = 7; // cuts lines and multi-byte characters, merges lines
    let op = lookup(&mut s, &["auth", "api", "db"], 5000);
    let r = s.run_until_done(op);
    assert!(ok_text(&r, 0).contains("café"), "{r}");
    assert!(ok_text(&r, 1).contains("api-rel"));
    assert!(ok_text(&r, 2).contains("db-rel"));
    let st = s.h.status();
    assert!(st.garbage_lines >= 3, "noise was skipped and counted");
    let w = warnings(&s);
    assert_eq!(
        w.len(),
        1,
        "one warning per session, not per garbage line: {w:?}"
    );
}

#[test]
fn a_server_that_never_answers_the_handshake_falls_back_to_the_cli_once() {
    let mut s = sim(Transport::Auto, every(silent()));
    // the tool call's own deadline is shorter than the start timeout: it proceeds empty
    let op = lookup(&mut s, &["auth"], 3000);
    let r = s.run_until_done(op);
    assert_eq!(r[0]["late"], true);
    // the next lookup waits out the rest of the start budget, then the CLI answers
    let op = lookup(&mut s, &["auth"], 10_000);
    let r = s.run_until_done(op);
    assert_eq!(
        ok_text(&r, 0),
        BuildContext::parse(AUTH_TEXT).unwrap().to_text()
    );
    assert_eq!(s.peers().stops, vec![1], "the silent process is stopped");
    let w = warnings(&s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("handshake") && w[0].contains("CLI"));
    // from now on: the CLI directly, no new process, no new warning
    let op = lookup(&mut s, &["api"], 10_000);
    s.run_until_done(op);
    assert_eq!(s.peers().starts.len(), 1);
    assert!(warnings(&s).is_empty());
    s.settle();
}

#[test]
fn servers_that_do_not_speak_mcp_are_recognised_without_waiting() {
    for hs in [
        Handshake::Garbage,
        Handshake::UsageAndExit,
        Handshake::Refuse,
    ] {
        let mut s = sim(
            Transport::Auto,
            every(Fake {
                handshake: hs,
                ..normal()
            }),
        );
        let op = lookup(&mut s, &["auth"], 10_000);
        let r = s.run_until_done(op);
        assert!(r[0]["ok"].is_string(), "{hs:?}: {r}");
        assert!(
            s.done_at(op) < 1800 + 100 + CLI_MS,
            "{hs:?}: no start timeout wait ({} ms)",
            s.done_at(op)
        );
        assert_eq!(s.cli_calls(), 1, "{hs:?}");
        assert_eq!(warnings(&s).len(), 1, "{hs:?}");
        s.drain();
        assert_eq!(s.outstanding(), vec![], "{hs:?}");
    }
}

#[test]
fn a_crash_mid_request_resolves_everything_and_the_next_lookup_gets_a_new_session() {
    let mut s = sim(Transport::Auto, |n| {
        let mut f = normal();
        if n == 0 {
            f.crash_on.insert("boom".into());
        }
        Some(f)
    });
    let op = lookup(&mut s, &["boom", "auth"], 5000);
    let r = s.run_until_done(op);
    assert!(
        r[0]["ok"].is_string() && r[1]["ok"].is_string(),
        "fail open via the CLI: {r}"
    );
    let w = warnings(&s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("exit code 134") && w[0].contains("InvalidOperationException"),
        "{w:?}"
    );
    let op = lookup(&mut s, &["api"], 5000);
    let r = s.run_until_done(op);
    assert!(ok_text(&r, 0).contains("api-rel"));
    assert_eq!(s.peers().starts, vec![1, 2], "replaced");
    assert_eq!(
        s.cli_calls(),
        2,
        "only the two crashed lookups used the CLI"
    );
    s.settle();
}

#[test]
fn a_hung_server_is_stopped_and_replaced() {
    let mut s = sim(Transport::Auto, |n| {
        Some(Fake {
            hang_all: n == 0,
            ..normal()
        })
    });
    let op = lookup(&mut s, &["auth"], 10_000);
    let r = s.run_until_done(op);
    assert!(
        r[0]["ok"].is_string(),
        "the CLI answered after the MCP timeout: {r}"
    );
    assert_eq!(s.peers().stops, vec![1]);
    let w = warnings(&s);
    assert!(w.len() == 1 && w[0].contains("hung"), "{w:?}");
    let op = lookup(&mut s, &["api"], 5000);
    let r = s.run_until_done(op);
    assert!(ok_text(&r, 0).contains("api-rel"));
    assert_eq!(s.peers().starts, vec![1, 2]);
    s.settle();
}

#[test]
fn one_slow_request_fails_alone_while_the_others_are_answered() {
    let mut f = normal();
    f.slow.insert("slow".into(), 10_000);
    let mut s = sim(Transport::Mcp, every(f));
    let op = lookup(&mut s, &["slow", "auth", "api"], 5000);
    let r = s.run_until_done(op);
    assert!(
        r[0]["err"]
            .as_str()
            .unwrap()
            .contains("no MCP answer within 1000 ms"),
        "{r}"
    );
    assert!(r[1]["ok"].is_string() && r[2]["ok"].is_string());
    assert!(
        s.peers().stops.is_empty(),
        "the session answers others: kept"
    );
    assert!(warnings(&s).is_empty());
    s.drain(); // the late answer arrives: an unknown id, ignored
    assert_eq!(s.h.status().unknown_ids, 1);
    // the failure was not cached as "no knowledge"; the session is reused
    let op = lookup(&mut s, &["slow"], 20_000);
    s.run_until_done(op);
    assert_eq!(s.peers().starts.len(), 1);
    assert_eq!(tool_calls(&s), 4, "asked again, not served from the cache");
    // alone and silent: a ping tells it is alive, so it is not killed
    assert!(s.peers().stops.is_empty());
    assert!(s.peers().running[&1].received.contains(&"ping".to_string()));
    s.settle();
}

#[test]
fn is_error_is_an_answer_not_a_fault() {
    let mut f = normal();
    f.tool_error.insert("locked".into());
    let mut s = sim(Transport::Auto, every(f));
    let op = lookup(&mut s, &["locked", "auth"], 5000);
    let r = s.run_until_done(op);
    assert!(
        r[0]["err"].as_str().unwrap().contains("database is locked"),
        "{r}"
    );
    assert!(r[1]["ok"].is_string());
    assert_eq!(
        s.cli_calls(),
        0,
        "a tool error would fail the same way on the CLI"
    );
    assert!(s.peers().stops.is_empty() && warnings(&s).is_empty());
    let op = lookup(&mut s, &["locked"], 5000);
    s.run_until_done(op);
    assert_eq!(tool_calls(&s), 3, "errors are not cached");
}

#[test]
fn exact_tool_names_and_other_tools() {
    let mut s = sim(Transport::Mcp, every(normal()));
    let h = s.h.clone();
    let op = s.start(move |io| async move {
        let wrong = call_tool(&io, &h, "BuildContext", &json!({"conceptName": "auth"})).await;
        let search = tool_text(
            &io,
            &h,
            None,
            "SearchMemories",
            &json!({"query": "auth"}),
            false,
        )
        .await;
        json!({"wrong": wrong.unwrap_err().to_string(), "search": search.unwrap()})
    });
    let r = s.run_until_done(op);
    assert!(
        r["wrong"]
            .as_str()
            .unwrap()
            .contains("Unknown tool: 'BuildContext'"),
        "{r}"
    );
    assert!(r["search"]
        .as_str()
        .unwrap()
        .starts_with("🔍 **Hybrid Search**"));
    let last = s.peers().writes.last().unwrap().1.clone();
    assert!(
        last.contains("\"name\":\"search_memories\"") && last.contains("\"query\":\"auth\""),
        "{last}"
    );
}

#[test]
fn transport_cli_never_starts_a_process() {
    let mut s = sim(Transport::Cli, |_| panic!("no process in cli mode"));
    let op = lookup(&mut s, &["auth", "api"], 5000);
    let r = s.run_until_done(op);
    assert_eq!(
        ok_text(&r, 0),
        BuildContext::parse(AUTH_TEXT).unwrap().to_text()
    );
    assert_eq!(s.cli_calls(), 2);
    assert!(s.peers().starts.is_empty());
    let op = lookup(&mut s, &["auth"], 5000);
    s.run_until_done(op);
    assert_eq!(s.cli_calls(), 2, "the cache serves CLI answers too");
}

#[test]
fn spawn_failure_auto_uses_the_cli_and_says_so_once() {
    let mut s = sim(Transport::Auto, |_| None);
    for _ in 0..3 {
        let op = lookup(&mut s, &["auth"], 5000);
        let r = s.run_until_done(op);
        assert!(r[0]["ok"].is_string());
        s.h.clear_cache();
    }
    assert_eq!(s.peers().starts.len(), 1);
    let w = warnings(&s);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].contains("could not be started") && w[0].contains("ENOENT"),
        "{w:?}"
    );
}

#[test]
fn mcp_only_fails_open_and_restarts_are_bounded() {
    let mut s = sim(Transport::Mcp, |_| None);
    for i in 0..8 {
        let op = lookup(&mut s, &["auth"], 5000);
        let r = s.run_until_done(op);
        assert!(r[0]["err"].is_string(), "no CLI in mcp mode: {r}");
        s.host.now += (5000 * (i + 1)) as f64; // time passes between tool calls
    }
    assert_eq!(s.cli_calls(), 0);
    assert_eq!(s.peers().starts.len(), 4, "1 start + 3 restarts, then off");
    let w = warnings(&s);
    assert!(
        w.last().unwrap().contains("knowledge context is off"),
        "{w:?}"
    );
}

#[test]
fn repeated_crashes_end_in_the_cli_fallback() {
    let mut f = normal();
    f.crash_on.insert("auth".into());
    let mut s = sim(Transport::Auto, every(f));
    for _ in 0..6 {
        let op = lookup(&mut s, &["auth"], 20_000);
        let r = s.run_until_done(op);
        assert!(r[0]["ok"].is_string());
        s.h.clear_cache();
        s.host.now += 3000.0; // past each backoff
    }
    assert_eq!(s.peers().starts.len(), 4);
    let w = warnings(&s);
    assert_eq!(w.len(), 4, "one per incident: {w:?}");
    assert!(w[3].contains("CLI per call"));
    s.settle();
}

#[test]
fn warm_up_and_shutdown() {
    let mut s = sim(Transport::Auto, every(normal()));
    let h = s.h.clone();
    let op = s.start(move |io| async move { warm_up(&io, &h).await });
    let r = s.run_until_done(op);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["status"]["stage"], "ready");
    assert_eq!(
        s.peers().running[&1].received,
        vec!["initialize", "notifications/initialized"]
    );
    let h = s.h.clone();
    let op = s.start(move |io| async move {
        shutdown(&io, &h).await;
        json!(null)
    });
    s.run_until_done(op);
    assert_eq!(s.peers().stops, vec![1]);
    // after dispose nothing starts again; lookups fall back
    let op = lookup(&mut s, &["auth"], 5000);
    assert!(s.run_until_done(op)[0]["ok"].is_string());
    assert_eq!(s.peers().starts.len(), 1);
}

#[test]
fn an_abandoned_operation_leaves_nothing_parked() {
    let mut s = sim(Transport::Auto, every(silent()));
    let op = lookup(&mut s, &["auth"], 60_000);
    while s.runner.router.parked() == 0 {
        assert!(s.step());
    }
    let r = &mut s.runner;
    let (cancel, woken) = r.router.abandon(&mut r.ops, op);
    assert!(woken.is_empty());
    assert_eq!(s.runner.router.parked(), 0);
    assert!(!cancel.is_empty(), "its timers are cancelled");
    for id in cancel {
        assert!(s.issued.contains(&(op, id)), "only host-visible ids");
    }
}

#[test]
fn a_vault_change_invalidates_what_it_touches() {
    let mut s = sim(Transport::Auto, every(normal()));
    let op = lookup(&mut s, &["auth", "api"], 5000);
    s.run_until_done(op);
    let n = s.h.invalidate(&Touch {
        source: None,
        concepts: vec![],
        uris: vec!["memory://notes/auth-design".into()],
    });
    assert_eq!(n, 1);
    let op = lookup(&mut s, &["auth", "api"], 5000);
    s.run_until_done(op);
    assert_eq!(tool_calls(&s), 3, "auth asked again, api from the cache");
}

#[test]
fn a_start_abandoned_by_its_deadline_does_not_count_as_a_failure() {
    let mut s = sim(Transport::Auto, every(normal()));
    // the deadline passes while McpStart is in flight (1 ms)
    let op = lookup(&mut s, &["auth"], 0);
    let r = s.run_until_done(op);
    assert_eq!(r[0]["late"], true);
    assert!(warnings(&s).is_empty());
    let op = lookup(&mut s, &["auth"], 5000);
    let r = s.run_until_done(op);
    assert!(r[0]["ok"].is_string());
    assert_eq!(s.cli_calls(), 0, "MCP still on");
    assert_eq!(s.peers().starts.len(), 2);
    assert_eq!(
        s.peers().stops,
        vec![1],
        "the abandoned process was stopped"
    );
}

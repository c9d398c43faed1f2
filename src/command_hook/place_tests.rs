//! Issue 29 in Claude Code's hooks, as an attacker would try them: a payload that moves the
//! project (`cwd`), hook input that cannot be read, tools the profile does not know, the hook
//! tools called by the model, a PostToolUse without its PreToolUse.

use serde_json::{json, Value};

use crate::command_hook::tests::governance::{drive, INTENTS};
use crate::engine::Engine;
use crate::testing::TestHost;

fn project() -> TestHost {
    let mut fs = TestHost {
        now: 1_700_000_000_000.0,
        ..Default::default()
    };
    fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
    fs.file("/w/.git/HEAD", "ref: refs/heads/main\n");
    fs.file("/w/README.md", "# demo\n");
    // Claude Code's EnterWorktree: a linked worktree inside the project, without intents
    fs.file("/w/.claude/worktrees/w1/.git", "gitdir: /w/.git/worktrees/w1\n");
    fs.file("/w/.git/worktrees/w1/commondir", "../..\n");
    fs.file("/w/.claude/worktrees/w1/README.md", "# demo\n");
    fs
}

/// An engine as `hookwise hook` starts it: in `start`, finding the project from there.
fn started_in(fs: &mut TestHost, start: &str) -> (Engine, Value) {
    let mut e = crate::command_hook::engine();
    crate::command_hook::tests::governance::with_launcher(fs);
    let r = drive(
        &mut e,
        fs,
        json!({"hook": "init", "env": {}, "cwd": start, "worktree": start, "directory": start,
               "host": "claude-code", "findRoot": true, "sandbox": crate::command_hook::tests::governance::LAUNCHER.clone()}),
    );
    (e, r)
}

fn event(e: &mut Engine, fs: &mut TestHost, event: &str, input: Value) -> Value {
    event_given(e, fs, event, input, None)
}

fn event_given(
    e: &mut Engine,
    fs: &mut TestHost,
    event: &str,
    input: Value,
    unreadable: Option<&str>,
) -> Value {
    let mut call = json!({"hook": "hook.event", "event": event, "input": input,
               "random": "00112233445566778899aabbccddeeff", "nowMs": 1_700_000_000_000u64});
    if let Some(u) = unreadable {
        call["unreadable"] = json!(u);
    }
    drive(e, fs, call)
}

/// A command hook's whole payload.
fn payload(tool: &str, input: Value, id: &str, cwd: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": cwd,
           "tool_name": tool, "tool_input": input, "tool_use_id": id})
}

fn reason(r: &Value) -> String {
    assert_eq!(r["decision"], "deny", "{r}");
    let v: Value = serde_json::from_str(r["text"].as_str().unwrap()).unwrap();
    let h = &v["hookSpecificOutput"];
    assert_eq!(
        (&h["hookEventName"], &h["permissionDecision"]),
        (&json!("PreToolUse"), &json!("deny"))
    );
    h["permissionDecisionReason"].as_str().unwrap().to_string()
}

fn allowed(r: &Value) -> bool {
    r["decision"] != "deny"
}

fn select(e: &mut Engine, fs: &mut TestHost) {
    let s = drive(
        e,
        fs,
        json!({"hook": "intent.select", "sessionId": "s1", "intentId": "INT-1"}),
    );
    assert_eq!(s["ok"], true, "{s}");
}

#[test]
fn a_hook_started_in_a_worktree_of_the_project_is_governed_by_the_project() {
    let mut fs = project();
    for start in ["/w", "/w/.claude/worktrees/w1", "/w/.claude/worktrees/w1/src"] {
        let (mut e, r) = started_in(&mut fs, start);
        assert_eq!(r["root"], "/w", "{start}: {r}");
        assert!(r["plan"]["ungatedTools"].is_array(), "{start}: governance on: {r}");
        let cwd = "/w/.claude/worktrees/w1";
        // issue 29 critical 4: Bash writing the main checkout from the worktree, no intent
        let bash = json!({"command": "echo x > ../../../README.md"});
        let m = reason(&event(&mut e, &mut fs, "PreToolUse", payload("Bash", bash, "b1", cwd)));
        assert!(m.contains("select_active_intent"), "{m}");
        // …and EnterWorktree itself needs an intent
        let m = reason(&event(
            &mut e,
            &mut fs,
            "PreToolUse",
            payload("EnterWorktree", json!({"name": "w2"}), "t1", "/w"),
        ));
        assert!(m.contains("select_active_intent"), "{m}");
    }
}

#[test]
fn the_payloads_cwd_never_moves_the_root_and_outside_it_is_blocked() {
    let mut fs = project();
    let (mut e, _) = started_in(&mut fs, "/w");
    select(&mut e, &mut fs);
    let w = |p: &str| json!({"file_path": p, "content": "x"});
    // inside the project: where relative paths start; the scope is the project's
    let r = event(&mut e, &mut fs, "PreToolUse", payload("Write", w("src/auth/a.ts"), "a", "/w"));
    assert!(allowed(&r), "{r}");
    let m = reason(&event(
        &mut e,
        &mut fs,
        "PreToolUse",
        payload("Write", w("src/auth/a.ts"), "b", "/w/.claude/worktrees/w1"),
    ));
    assert!(m.contains(".claude/worktrees/w1/src/auth/a.ts"), "{m}");
    let m = reason(&event(
        &mut e,
        &mut fs,
        "PreToolUse",
        payload("Write", w("../../../README.md"), "c", "/w/.claude/worktrees/w1"),
    ));
    assert!(m.contains("README.md"), "{m}");
    // outside the project, or not a folder at all: blocked, whatever the tool
    for cwd in ["/elsewhere", "/w/../etc", "/w-evil", "w", "/", "./w"] {
        for (tool, input) in [
            ("Bash", json!({"command": "true"})),
            ("Write", w("/w/src/auth/a.ts")),
        ] {
            let m = reason(&event(&mut e, &mut fs, "PreToolUse", payload(tool, input, "d", cwd)));
            assert!(m.contains("outside the governed project"), "{cwd}: {m}");
        }
    }
    // a read runs from anywhere inside; a cwd is never needed
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        payload("Read", json!({"file_path": "/w/README.md"}), "r", ""),
    );
    assert!(allowed(&r), "{r}");
}

#[test]
fn unreadable_hook_input_is_a_deny_under_governance_and_quiet_without_it() {
    let mut fs = project();
    let (mut e, _) = started_in(&mut fs, "/w");
    select(&mut e, &mut fs);
    let cases: Vec<(Value, Option<&str>, &str)> = vec![
        (Value::Null, Some("not JSON"), "not JSON"),
        (Value::Null, Some("empty"), "empty"),
        (Value::Null, Some("over 64 MiB"), "over 64 MiB"),
        (Value::Null, None, "no input"),
        (json!([1, 2]), None, "an array"),
        (json!("Write"), None, "not an object"),
        (json!(7), None, "not an object"),
        (json!({"session_id": "s1", "tool_input": {}}), None, "no tool_name"),
        (json!({"session_id": "s1", "tool_name": ""}), None, "an empty tool_name"),
        (json!({"session_id": "s1", "tool_name": ["Write"]}), None, "not text"),
    ];
    for (input, given, why) in &cases {
        let m = reason(&event_given(&mut e, &mut fs, "PreToolUse", input.clone(), *given));
        assert!(m.contains("hook input could not be read") && m.contains(why), "{why}: {m}");
    }
    // no governance, no enforcement: the call goes on (knowledge context fails open)
    let mut plain = TestHost::default();
    plain.dir("/p");
    let (mut e, r) = started_in(&mut plain, "/p");
    assert!(r["plan"]["failClosed"].is_null(), "{r}");
    for (input, given, _) in cases {
        let r = event_given(&mut e, &mut plain, "PreToolUse", input, given);
        assert!(allowed(&r), "{r}");
    }
}

#[test]
fn tools_the_profile_does_not_know_are_denied_and_hookwise_own_pass() {
    let mut fs = project();
    let (mut e, _) = started_in(&mut fs, "/w");
    let at = |t: &str, input: Value| payload(t, input, "x", "/w");
    // issue 29 critical 3: Monitor runs a shell command; the others change state too
    for (tool, input) in [
        ("Monitor", json!({"command": "echo x > README.md"})),
        ("Workflow", json!({"name": "w"})),
        ("Skill", json!({"skill": "s"})),
        ("CronCreate", json!({"cron": "* * * * *", "prompt": "p"})),
        ("mcp__other__write_file", json!({"path": "/w/README.md", "content": "x"})),
        ("mcp__hookwise__select_active_intentx", json!({"intent_id": "INT-1"})),
        ("read", json!({"file_path": "/w/README.md"})),
    ] {
        let m = reason(&event(&mut e, &mut fs, "PreToolUse", at(tool, input)));
        assert!(m.contains("select_active_intent"), "{tool}: {m}");
    }
    for (tool, input) in [
        ("Read", json!({"file_path": "/w/README.md"})),
        ("Grep", json!({"pattern": "x"})),
        ("Glob", json!({"pattern": "**"})),
        ("mcp__hookwise__select_active_intent", json!({"intent_id": "INT-1"})),
        ("mcp__hookwise__knowledge_search", json!({"query": "x"})),
    ] {
        let r = event(&mut e, &mut fs, "PreToolUse", at(tool, input));
        assert!(allowed(&r), "{tool}: {r}");
    }
    // with an intent: Monitor runs (a shell); another server's write is scope-checked
    select(&mut e, &mut fs);
    let r = event(&mut e, &mut fs, "PreToolUse", at("Monitor", json!({"command": "tail -f x"})));
    assert!(allowed(&r), "{r}");
    let m = reason(&event(
        &mut e,
        &mut fs,
        "PreToolUse",
        at("mcp__other__write_file", json!({"path": "/w/README.md", "content": "x"})),
    ));
    assert!(m.contains("README.md") && m.contains("outside the scope"), "{m}");
}

#[test]
fn a_post_tool_use_without_its_gated_pre_tool_use_records_nothing_and_a_replay_nothing_more() {
    let mut fs = project();
    let (mut e, _) = started_in(&mut fs, "/w");
    select(&mut e, &mut fs);
    let w = json!({"file_path": "/w/src/auth/a.ts", "content": "x\n"});
    let trace = |fs: &TestHost| {
        fs.trace("/w")
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    // the model calls the hook tool itself: denied, even with an intent
    for t in ["mcp__hookwise__hook_post_tool_use", "mcp__hookwise__hook_pre_tool_use"] {
        let m = reason(&event(&mut e, &mut fs, "PreToolUse", payload(t, json!({}), "h", "/w")));
        assert!(m.contains("endpoint"), "{m}");
    }
    // …and if it reached the server anyway: a PostToolUse no PreToolUse gated
    fs.file("/w/src/auth/a.ts", "x\n");
    let r = event(&mut e, &mut fs, "PostToolUse", payload("Write", w.clone(), "forged", "/w"));
    assert!(r.get("recorded").is_none(), "{r}");
    assert_eq!(trace(&fs), 0);
    // the real call: gated, allowed, recorded once; its replay records nothing
    fs.file("/w/src/auth/a.ts", "old\n");
    let r = event(&mut e, &mut fs, "PreToolUse", payload("Write", w.clone(), "real", "/w"));
    assert!(allowed(&r), "{r}");
    fs.file("/w/src/auth/a.ts", "x\n");
    let r = event(&mut e, &mut fs, "PostToolUse", payload("Write", w.clone(), "real", "/w"));
    assert!(r["recorded"].is_string(), "{r}");
    let r = event(&mut e, &mut fs, "PostToolUse", payload("Write", w.clone(), "real", "/w"));
    assert!(r.get("recorded").is_none(), "{r}");
    // a denied call's PostToolUse records nothing either
    let out = json!({"file_path": "/w/README.md", "content": "x"});
    let r = event(&mut e, &mut fs, "PreToolUse", payload("Write", out.clone(), "no", "/w"));
    assert!(!allowed(&r));
    let r = event(&mut e, &mut fs, "PostToolUse", payload("Write", out, "no", "/w"));
    assert!(r.get("recorded").is_none(), "{r}");
    assert_eq!(trace(&fs), 1);
}

//! Kimi Code, Mistral Vibe and OpenHands through the engine (`hook.event`), with payloads shaped
//! as each sends them (docs/hosts/kimi.md, vibe.md, openhands.md), answers in each host's
//! dialect; their tools as an attacker would call them.

use serde_json::{json, Value};

use super::setup_cli;
use super::tests::governance::{drive as call, governed_as};
use super::*;
use crate::testing::TestHost;

fn governed(host: &str) -> (Engine, TestHost) {
    let (e, fs, r) = governed_as(host);
    assert!(r["plan"]["failClosed"].is_object(), "{r}");
    (e, fs)
}

fn event(e: &mut Engine, fs: &mut TestHost, event: &str, input: Value) -> Value {
    call(
        e,
        fs,
        json!({"hook": "hook.event", "event": event, "input": input,
               "random": "00112233445566778899aabbccddeeff", "nowMs": 1_700_000_000_000u64}),
    )
}

fn text(r: &Value) -> &str {
    r["text"].as_str().expect("text")
}

fn parsed(r: &Value) -> Value {
    serde_json::from_str(text(r)).unwrap_or_else(|e| panic!("hook JSON ({e}): {r}"))
}

fn select(e: &mut Engine, fs: &mut TestHost) {
    let s = call(
        e,
        fs,
        json!({"hook": "intent.select", "sessionId": "s1", "intentId": "INT-1"}),
    );
    assert_eq!(s["ok"], true, "{s}");
}

/// Kimi Code's payload (`dist/main.mjs` 2.1.0, as captured).
fn kimi(event: &str, name: &str, input: Value) -> Value {
    json!({"hook_event_name": event, "session_id": "s1", "cwd": "/w", "client_type": "kimi_code_cli",
           "tool_name": name, "tool_input": input, "tool_call_id": "call_1"})
}

/// Mistral Vibe's payload (namespaced tool names).
fn vibe(event: &str, name: &str, input: Value) -> Value {
    json!({"hook_event_name": event, "session_id": "s1", "parent_session_id": null, "cwd": "/w",
           "transcript_path": "/h/.vibe/logs/session/x", "tool_name": name, "tool_call_id": "call_1",
           "tool_input": input})
}

/// OpenHands' payload: `event_type`, `working_dir`, no call id.
fn openhands(event: &str, name: &str, input: Value) -> Value {
    json!({"event_type": event, "tool_name": name, "tool_input": input, "tool_response": null,
           "message": null, "session_id": "s1", "working_dir": "/w", "metadata": {}})
}

#[test]
fn kimi_denies_in_hook_specific_output_and_says_nothing_otherwise() {
    let (mut e, mut fs) = governed("kimi");
    // before any intent: its Write is gated, the deny is the JSON Kimi reads
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        kimi("PreToolUse", "Write", json!({"path": "/w/src/auth/a.ts", "content": "x"})),
    );
    assert_eq!(r["decision"], "deny", "{r}");
    let v = parsed(&r);
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    assert!(v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .is_some_and(|s| s.contains("select_active_intent")));
    // an unknown tool (a sub-agent, a scheduled prompt) is gated: it needs an intent
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        kimi("PreToolUse", "CronCreate", json!({"cron": "* * * * *", "prompt": "write README.md"})),
    );
    assert_eq!(r["decision"], "deny", "{r}");
    select(&mut e, &mut fs);
    // inside the scope: runs, and the answer is empty (`{}` would reach the model as text)
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        kimi("PreToolUse", "Write", json!({"path": "/w/src/auth/a.ts", "content": "x"})),
    );
    assert_eq!(text(&r), "", "{r}");
    // its Edit reads `path`: outside the scope is blocked
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        kimi("PreToolUse", "Edit", json!({"path": "/w/README.md", "old_string": "a", "new_string": "b"})),
    );
    assert_eq!(r["decision"], "deny", "{r}");
    // no rewrite in Kimi: a governed shell is refused with the core's sentence
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        kimi("PreToolUse", "Bash", json!({"command": "ls"})),
    );
    assert_eq!(r["decision"], "deny", "{r}");
    assert!(text(&r).contains("confined by the kernel"), "{r}");
    // the prompt's context is Kimi's `message`
    let r = event(
        &mut e,
        &mut fs,
        "UserPromptSubmit",
        json!({"hook_event_name": "UserPromptSubmit", "session_id": "s2", "cwd": "/w",
               "prompt": [{"type": "text", "text": "go"}], "is_steer": false}),
    );
    let v = parsed(&r);
    assert!(v["message"].as_str().is_some_and(|m| m.contains("INT-1")), "{v}");
    assert!(v.get("hookSpecificOutput").is_none(), "{v}");
}

#[test]
fn kimis_entries_are_quiet_where_no_hookwise_is_found_and_never_deny_for_it() {
    let d = crate::hosts::by_flag("kimi").expect("kimi");
    let s = d.setup.expect("setup");
    let hooks = setup_cli::toml_hooks(d, &s, false, true);
    assert_eq!(hooks.len(), 3);
    for h in &hooks {
        let t = h["text"].as_str().unwrap();
        assert!(t.starts_with("[[hooks]]\nevent = \""), "{t}");
        assert!(t.contains("timeout = 30\n"), "{t}");
        assert!(!t.contains("not installed") && !t.contains("printf"), "quiet: {t}");
        assert!(t.contains(" kimi "), "{t}");
        assert!(t.contains("; :\"\n"), "ends in the shell's no-op: {t}");
    }
    assert!(hooks[0]["text"].as_str().unwrap().contains("matcher = \".*\""));
    let a = setup_cli::answer(&json!({"host": "kimi"}));
    assert_eq!(a["hooksForm"], "kimi-user-toml");
    assert_eq!(a["userHome"]["var"], "KIMI_CODE_HOME");
    assert_eq!(a["mcpFile"], ".kimi-code/mcp.json");
    // every answer with nothing to say is empty output
    let t = crate::hosts::tables::dialects();
    for (_, v) in t["kimi"]["empty"].as_object().unwrap() {
        assert_eq!(v, "");
    }
}

#[test]
fn vibe_gates_its_namespaced_tools_denies_in_json_and_confines_its_shell() {
    let (mut e, mut fs) = governed("vibe");
    let r = event(
        &mut e,
        &mut fs,
        "pre_tool",
        vibe("pre_tool", "file_system.write_file", json!({"path": "/w/src/auth/a.ts", "content": "x"})),
    );
    assert_eq!(r["decision"], "deny", "{r}");
    let v = parsed(&r);
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(v["reason"].as_str().is_some_and(|s| s.contains("select_active_intent")), "{v}");
    // unknown tools need an intent (default deny)
    for (name, input) in [
        ("run_typescript", json!({"code": "await fs.writeFile('README.md', 'x')"})),
        ("process.write", json!({"id": "p1", "input": "rm -rf .\n"})),
    ] {
        let r = event(&mut e, &mut fs, "pre_tool", vibe("pre_tool", name, input));
        assert_eq!(r["decision"], "deny", "{name}: {r}");
    }
    select(&mut e, &mut fs);
    for (name, input) in [
        ("file_system.write_file", json!({"path": "/w/README.md", "content": "x"})),
        ("file_system.edit", json!({"file_path": "/w/README.md", "old_string": "a", "new_string": "b"})),
        ("write_file", json!({"path": "/w/README.md", "content": "x"})),
        ("file_system.write_file", json!({"path": "/w/.vibe/hooks.toml", "content": ""})),
    ] {
        let r = event(&mut e, &mut fs, "pre_tool", vibe("pre_tool", name, input));
        assert_eq!(r["decision"], "deny", "{name}: {r}");
    }
    // a governed shell runs confined: its input rewritten in hook_specific_output.tool_input
    let r = event(
        &mut e,
        &mut fs,
        "pre_tool",
        vibe("pre_tool", "file_system.bash", json!({"command": "echo hi > src/auth/x", "timeout": 120})),
    );
    let v = parsed(&r);
    assert_eq!(v["decision"], "allow", "{v}");
    let cmd = v["hook_specific_output"]["tool_input"]["command"].as_str().unwrap_or_else(|| panic!("{v}"));
    assert!(cmd.contains("hookwise-native' sandbox '--project' '/w'"), "{cmd}");
    assert_eq!(v["hook_specific_output"]["tool_input"]["timeout"], 120, "the other keys stay: {v}");
    // a write in the scope runs and says nothing
    let r = event(
        &mut e,
        &mut fs,
        "pre_tool",
        vibe("pre_tool", "file_system.write_file", json!({"path": "/w/src/auth/a.ts", "content": "x"})),
    );
    assert_eq!(text(&r), "", "{r}");
}

#[test]
fn vibe_gives_the_sessions_start_context_with_its_first_result_once() {
    let (mut e, mut fs) = governed("vibe");
    let post = |e: &mut Engine, fs: &mut TestHost| {
        let mut p = vibe("post_tool", "file_system.read_file", json!({"path": "/w/README.md"}));
        p["tool_status"] = json!("success");
        p["tool_output_text"] = json!("# demo");
        event(e, fs, "post_tool", p)
    };
    let v = parsed(&post(&mut e, &mut fs));
    let ctx = v["hook_specific_output"]["additional_context"].as_str().unwrap_or_else(|| panic!("{v}"));
    assert!(ctx.contains("INT-1"), "{ctx}");
    let again = post(&mut e, &mut fs);
    assert!(!text(&again).contains("INT-1: Login form"), "once: {again}");
    // the entries: TOML tables, the gate's strict
    let d = crate::hosts::by_flag("vibe").expect("vibe");
    let s = d.setup.expect("setup");
    let hooks = setup_cli::toml_hooks(d, &s, false, true);
    let pre = hooks[0]["text"].as_str().unwrap();
    assert!(pre.starts_with("[[hooks]]\nname = \"hookwise-pre_tool\"\ntype = \"pre_tool\"\n"), "{pre}");
    assert!(pre.contains("strict = true\n") && pre.contains("printf"), "{pre}");
    assert!(!hooks[1]["text"].as_str().unwrap().contains("strict"), "post_tool is not strict");
    let a = setup_cli::answer(&json!({"host": "vibe"}));
    assert_eq!(a["mcp"]["format"], "toml-array");
    assert!(a["mcp"]["text"].as_str().unwrap().starts_with("[[mcp_servers]]\nname = \"hookwise\"\ntransport = \"stdio\"\n"));
}

#[test]
fn openhands_reads_working_dir_gates_file_editor_and_refuses_a_governed_shell() {
    let (mut e, mut fs) = governed("openhands");
    select(&mut e, &mut fs);
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        openhands("PreToolUse", "file_editor", json!({"command": "create", "path": "/w/README.md", "file_text": "x"})),
    );
    let v = parsed(&r);
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(v["reason"].as_str().is_some_and(|s| s.contains("README.md")), "{v}");
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        openhands("PreToolUse", "file_editor", json!({"command": "create", "path": "/w/src/auth/a.ts", "file_text": "x"})),
    );
    assert_eq!(text(&r), "{}", "{r}");
    // a relative path is read against working_dir
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        openhands("PreToolUse", "file_editor", json!({"command": "str_replace", "path": "README.md", "old_str": "a", "new_str": "b"})),
    );
    assert_eq!(r["decision"], "deny", "{r}");
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        openhands("PreToolUse", "terminal", json!({"command": "ls", "is_input": false, "kind": "TerminalAction"})),
    );
    assert_eq!(r["decision"], "deny", "{r}");
    assert!(text(&r).contains("confined by the kernel"), "{r}");
    let r = event(
        &mut e,
        &mut fs,
        "UserPromptSubmit",
        json!({"event_type": "UserPromptSubmit", "message": "go", "session_id": "s3", "working_dir": "/w"}),
    );
    assert!(parsed(&r)["additionalContext"].as_str().is_some_and(|c| c.contains("INT-1")), "{r}");
    let a = setup_cli::answer(&json!({"host": "openhands"}));
    assert_eq!(a["mcp"]["format"], "none");
    let names: Vec<&str> = a["hooks"].as_object().unwrap().keys().map(String::as_str).collect();
    for n in names {
        assert!(["PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop"].contains(&n), "{n}: OpenHands rejects any other event");
    }
}

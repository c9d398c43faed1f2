//! Factory droid, Letta Code and Auggie through the engine (`hook.event`), with payloads shaped
//! as each sends them (the probes' captured payloads): their own keys, their answers (Letta's
//! exit code 2), and what `init` writes for them.

use serde_json::{json, Value};

use super::tests::governance::{drive as call, governed_as};
use crate::testing::TestHost;

fn event(e: &mut crate::engine::Engine, fs: &mut TestHost, event: &str, input: Value) -> Value {
    call(
        e,
        fs,
        json!({"hook": "hook.event", "event": event, "input": input,
               "random": "00112233445566778899aabbccddeeff", "nowMs": 1_700_000_000_000u64}),
    )
}

fn select(e: &mut crate::engine::Engine, fs: &mut TestHost, session: &str) {
    let s = call(
        e,
        fs,
        json!({"hook": "intent.select", "sessionId": session, "intentId": "INT-1"}),
    );
    assert_eq!(s["ok"], true, "{s}");
}

fn letta(tool: &str, input: Value) -> Value {
    json!({"event_type": "PreToolUse", "working_directory": "/w", "tool_name": tool,
           "tool_input": input, "tool_call_id": "call_1", "agent_id": "agent-local-1"})
}

#[test]
fn letta_blocks_by_exit_code_2_with_the_reason_on_stderr_in_its_agents_session() {
    let (mut e, mut fs, _) = governed_as("letta");
    // before an intent: blocked, exit 2, the reason on stderr, nothing on stdout
    let w = json!({"file_path": "/w/src/auth/a.ts", "content": "x"});
    let r = event(&mut e, &mut fs, "PreToolUse", letta("Write", w.clone()));
    assert_eq!(r["decision"], "deny", "{r}");
    assert_eq!(r["exit"], 2, "{r}");
    assert_eq!(r["text"], "", "{r}");
    assert!(r["stderr"].as_str().unwrap().contains("select_active_intent"), "{r}");
    // a tool the profile does not know needs an intent too (default deny)
    let r = event(&mut e, &mut fs, "PreToolUse", letta("MultiEdit", json!({"file_path": "/w/src/auth/a.ts"})));
    assert_eq!((r["decision"].as_str(), r["exit"].as_i64()), (Some("deny"), Some(2)), "{r}");
    // the agent is the session: selected for it, a write inside the scope runs
    select(&mut e, &mut fs, "agent-local-1");
    let r = event(&mut e, &mut fs, "PreToolUse", letta("Write", w));
    assert_ne!(r["decision"], "deny", "{r}");
    assert!(r.get("exit").is_none(), "{r}");
    // outside it, blocked
    for (tool, input) in [
        ("Write", json!({"file_path": "/w/docs/x.md", "content": "x"})),
        ("Edit", json!({"file_path": "/w/docs/x.md", "old_string": "a", "new_string": "b"})),
    ] {
        let r = event(&mut e, &mut fs, "PreToolUse", letta(tool, input));
        assert_eq!((r["decision"].as_str(), r["exit"].as_i64()), (Some("deny"), Some(2)), "{tool}: {r}");
    }
}

#[test]
fn auggie_reads_its_conversation_and_workspace_and_denies_in_claudes_shape() {
    let (mut e, mut fs, _) = governed_as("auggie");
    let pre = |tool: &str, input: Value| {
        json!({"hook_event_name": "PreToolUse", "conversation_id": "conv-1", "workspace_roots": ["/w"],
               "tool_name": tool, "tool_input": input, "tool_output": "[undefined]", "tool_error": null, "is_mcp_tool": false})
    };
    // a tool the profile does not know needs an intent (default deny); a reader does not
    let r = event(&mut e, &mut fs, "PreToolUse", pre("remove-files", json!({"file_paths": ["src/auth/a.ts"]})));
    assert_eq!(r["decision"], "deny", "{r}");
    let r = event(&mut e, &mut fs, "PreToolUse", pre("view", json!({"type": "file", "path": "README.md"})));
    assert_ne!(r["decision"], "deny", "{r}");
    select(&mut e, &mut fs, "conv-1");
    // a relative path is the workspace's
    let r = event(&mut e, &mut fs, "PreToolUse", pre("save-file", json!({"path": "src/auth/a.ts", "file_content": "x"})));
    assert_ne!(r["decision"], "deny", "{r}");
    for (tool, input) in [
        ("save-file", json!({"path": "docs/x.md", "file_content": "x"})),
        ("str-replace-editor", json!({"command": "str_replace", "path": "docs/x.md", "str_replace_entries": []})),
        ("apply_patch", json!({"input": "*** Begin Patch\n*** Add File: docs/x.md\n+x\n*** End Patch\n"})),
    ] {
        let r = event(&mut e, &mut fs, "PreToolUse", pre(tool, input));
        assert_eq!(r["decision"], "deny", "{tool}: {r}");
        let v: Value = serde_json::from_str(r["text"].as_str().unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
        assert!(r.get("exit").is_none(), "{r}");
    }
}

#[test]
fn factory_gates_create_and_edit_by_file_path() {
    let (mut e, mut fs, _) = governed_as("factory");
    let pre = |tool: &str, input: Value| {
        json!({"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": "/w", "permission_mode": "auto-low",
               "transcript_path": "/h/.factory/sessions/-w/s1.jsonl", "tool_name": tool, "tool_input": input})
    };
    // a tool the profile does not know needs an intent (default deny)
    let r = event(&mut e, &mut fs, "PreToolUse", pre("ApplyPatch", json!({"patch": "x"})));
    assert_eq!(r["decision"], "deny", "{r}");
    select(&mut e, &mut fs, "s1");
    let r = event(&mut e, &mut fs, "PreToolUse", pre("Create", json!({"file_path": "/w/src/auth/a.ts", "content": "x"})));
    assert_ne!(r["decision"], "deny", "{r}");
    for (tool, input) in [
        ("Create", json!({"file_path": "/w/docs/x.md", "content": "x"})),
        ("Edit", json!({"file_path": "/w/docs/x.md", "old_str": "a", "new_str": "b"})),
    ] {
        let r = event(&mut e, &mut fs, "PreToolUse", pre(tool, input));
        assert_eq!(r["decision"], "deny", "{tool}: {r}");
    }
}

#[test]
fn init_writes_each_hosts_own_entries() {
    let letta = super::setup_cli::answer(&json!({"host": "letta", "failClosed": true}));
    let pre = letta["hooks"]["PreToolUse"][0]["hooks"][0]["command"].as_str().unwrap();
    assert!(pre.contains("HOOKWISE_NATIVE=0 exec /bin/sh"), "{pre}");
    assert!(pre.ends_with("' >&2; exit 2"), "{pre}");
    assert_eq!(letta["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 30_000);
    assert_eq!(letta["mcp"]["format"], "none");
    assert!(letta["hooks"].get("SessionStart").is_none());
    let auggie = super::setup_cli::answer(&json!({"host": "auggie"}));
    assert_eq!(auggie["hooks"]["PreToolUse"][0]["matcher"], ".*");
    assert_eq!(auggie["hooksFile"], ".augment/settings.json");
    assert_eq!(auggie["mcpFile"], ".augment/settings.json");
    let factory = super::setup_cli::answer(&json!({"host": "factory"}));
    assert_eq!(factory["mcp"]["entry"]["type"], "stdio");
    assert!(factory["mcp"]["entry"].get("tools").is_none());
    assert!(factory["hooks"]["SessionStart"].is_array());
    let t = crate::hosts::tables::dialects();
    assert_eq!(t["letta"]["denyExit"], 2);
    assert_eq!(t["letta"]["keep"], json!(["PreToolUse"]));
    assert_eq!(t["factory"]["keep"], json!(["UserPromptSubmit", "SessionStart"]));
    assert_eq!(t["codex"]["denyExit"], 0);
}

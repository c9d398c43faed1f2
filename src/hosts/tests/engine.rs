//! The host named in `init` reaches the gate, the trace and enforcement (policy build).

use serde_json::{json, Value};

use crate::engine::Engine;
use crate::testing::TestHost;

pub(super) const INTENTS: &str = "\
active_intents:
  - id: BILL
    name: Billing
    status: IN_PROGRESS
    owned_scope: [src/billing/**]
";
pub(super) const FORCE_SOP: &str = "---\nid: git-force-push\ncategory: process\nmatch:\n  patterns: ['git\\s+push\\s.*--force']\n---\n# Force-pushing\n\n## Preflight\nAnnounce it (HOST-SOP).\n";
pub(super) const OURS: &str = "*** Begin Patch\n*** Add File: src/billing/ok.ts\n+x\n*** End Patch";
pub(super) const EVIL: &str = "*** Begin Patch\n*** Add File: docs/evil.md\n+x\n*** End Patch";

pub(super) fn drive(e: &mut Engine, fs: &mut TestHost, call: Value) -> Value {
    crate::testing::drive(e, &call.to_string(), fs)
}

/// A governed project on `host` (`None`: the init call names none), with BILL selected.
fn governed(host: Option<Value>) -> (Engine, TestHost, Value) {
    let mut fs = TestHost::default();
    fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
    fs.file("/w/src/billing/a.ts", "a\n");
    let mut e = Engine::new();
    let mut init = json!({"hook": "init", "env": {}, "cwd": "/w", "worktree": "/w", "directory": "/w", "options": {}});
    if let Some(h) = host {
        init["host"] = h;
    }
    let r = drive(&mut e, &mut fs, init);
    let s = drive(
        &mut e,
        &mut fs,
        json!({"hook": "intent.select", "sessionId": "s", "intentId": "BILL"}),
    );
    assert_eq!(s["ok"], true, "{s}");
    (e, fs, r)
}

pub(super) fn before(e: &mut Engine, fs: &mut TestHost, tool: &str, args: Value) -> Value {
    drive(
        e,
        fs,
        json!({"hook": "tool.before", "tool": tool, "sessionId": "s", "callId": "c", "args": args}),
    )
}

/// `tool(args)` is blocked: its block message.
pub(super) fn blocked(e: &mut Engine, fs: &mut TestHost, tool: &str, args: Value) -> String {
    let b = before(e, fs, tool, args);
    b["block"]
        .as_str()
        .unwrap_or_else(|| panic!("{tool}: not blocked: {b}"))
        .to_string()
}

/// `tool(args)` is blocked with a message that says `part`.
pub(super) fn blocked_with(e: &mut Engine, fs: &mut TestHost, tool: &str, args: Value, part: &str) {
    let m = blocked(e, fs, tool, args);
    assert!(m.contains(part), "{tool}: {m}");
}

/// `tool(args)` passes the gate.
pub(super) fn passes(e: &mut Engine, fs: &mut TestHost, tool: &str, args: Value) {
    let b = before(e, fs, tool, args);
    assert!(b.get("block").is_none(), "{tool}: {b}");
}

fn watched(r: &Value) -> Vec<String> {
    let mut v: Vec<String> = r["plan"]["toolBeforeTools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn openclaw_watches_its_own_tools_and_blocks_the_decoy_key_bypasses() {
    let (mut e, mut fs, r) = governed(Some(json!("openclaw")));
    assert_eq!(
        watched(&r),
        ["apply_patch", "bash", "edit", "exec", "read", "write"]
    );
    let m = blocked(
        &mut e,
        &mut fs,
        "write",
        json!({"path": "docs/leak.md", "content": "x", "filePath": "src/billing/ok.ts"}),
    );
    assert!(
        m.contains("`path` = \"docs/leak.md\"") && m.contains("`filePath`"),
        "{m}"
    );
    blocked_with(
        &mut e,
        &mut fs,
        "apply_patch",
        json!({"input": EVIL, "patchText": OURS}),
        "two different patch texts",
    );
    // the real shapes pass
    passes(
        &mut e,
        &mut fs,
        "write",
        json!({"path": "src/billing/ok.ts", "content": "x"}),
    );
    passes(&mut e, &mut fs, "apply_patch", json!({"input": OURS}));
    assert!(
        before(&mut e, &mut fs, "apply_patch", json!({"input": EVIL}))["block"]
            .as_str()
            .unwrap()
            .contains("`docs/evil.md` is outside")
    );
}

#[test]
fn opencode_reads_file_path_and_nothing_else() {
    let (mut e, mut fs, r) = governed(Some(json!("opencode")));
    assert!(!watched(&r).contains(&"write_to_file".to_string()));
    blocked_with(
        &mut e,
        &mut fs,
        "write",
        json!({"filePath": "src/billing/ok.ts", "path": "docs/leak.md"}),
        "two different files",
    );
    blocked_with(
        &mut e,
        &mut fs,
        "write",
        json!({"path": "src/billing/ok.ts"}),
        "no file under `filePath`",
    );
    passes(
        &mut e,
        &mut fs,
        "write",
        json!({"filePath": "src/billing/ok.ts", "content": "x"}),
    );
}

#[test]
fn claude_code_names_are_gated_with_their_keys() {
    let (mut e, mut fs, r) = governed(Some(json!("claude-code")));
    assert_eq!(
        watched(&r),
        [
            "Bash",
            "Edit",
            "Monitor",
            "MultiEdit",
            "NotebookEdit",
            "PowerShell",
            "Read",
            "Write"
        ]
    );
    blocked_with(
        &mut e,
        &mut fs,
        "Write",
        json!({"file_path": "docs/leak.md", "content": "x"}),
        "outside",
    );
    blocked_with(
        &mut e,
        &mut fs,
        "Edit",
        json!({"file_path": "src/billing/a.ts", "filePath": "docs/leak.md", "old_string": "a", "new_string": "b"}),
        "two different files",
    );
    blocked_with(
        &mut e,
        &mut fs,
        "NotebookEdit",
        json!({"notebook_path": "docs/n.ipynb", "new_source": "x"}),
        "outside",
    );
}

#[test]
fn no_host_or_an_unknown_one_is_the_engine_api() {
    for host in [
        None,
        Some(json!("nope")),
        Some(json!(42)),
        Some(json!(null)),
    ] {
        let (mut e, mut fs, r) = governed(host.clone());
        let warned = r["logs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["message"].as_str().unwrap().contains("unknown host"));
        assert_eq!(
            warned,
            matches!(host, Some(Value::String(_)) | Some(Value::Number(_))),
            "{host:?}: {r}"
        );
        let w = watched(&r);
        assert!(w.contains(&"write_to_file".to_string()) && w.contains(&"write".to_string()));
        // the shared names take every host's key, one file
        passes(
            &mut e,
            &mut fs,
            "edit",
            json!({"file_path": "src/billing/a.ts", "oldString": "a", "newString": "b"}),
        );
        blocked(
            &mut e,
            &mut fs,
            "edit",
            json!({"file_path": "src/billing/a.ts", "filePath": "docs/x"}),
        );
    }
}

#[test]
fn enforcement_reads_the_command_from_the_hosts_shell_tool() {
    for (host, tool) in [
        ("claude-code", "Bash"),
        ("openclaw", "exec"),
        ("opencode", "bash"),
    ] {
        let mut fs = TestHost::default();
        fs.file("/w/.opencode/sops/force.md", FORCE_SOP);
        let mut e = Engine::new();
        drive(
            &mut e,
            &mut fs,
            json!({"hook": "init", "host": host, "env": {}, "cwd": "/w", "worktree": "/w", "directory": "/w", "options": {}}),
        );
        let r = drive(
            &mut e,
            &mut fs,
            json!({"hook": "tool.before", "tool": tool, "sessionId": "s", "callId": "c", "dryRun": true,
                "args": {"command": "git push --force origin main"}}),
        );
        assert_eq!(
            r["enforcement"]["detected"]["program"], "git",
            "{host}: {r}"
        );
        assert_eq!(r["enforcement"]["decision"], "block", "{host}: {r}");
        // a decoy key is not the command this host runs: `ls` runs, and it is read-only
        let r = drive(
            &mut e,
            &mut fs,
            json!({"hook": "tool.before", "tool": tool, "sessionId": "s", "callId": "d", "dryRun": true,
                "args": {"command": "ls", "cmd": "git push --force origin main"}}),
        );
        assert_eq!(r["enforcement"]["decision"], "readOnly", "{host}: {r}");
        // another host's shell tool name, unknown here, whose arguments carry a command: read
        // as this host's shell (issue 38: a tool whose arguments carry a command is a shell)
        let other = if tool == "Bash" { "bash" } else { "Bash" };
        if crate::hosts::choose(Some(host)).0.tool(other).is_none() {
            let r = drive(
                &mut e,
                &mut fs,
                json!({"hook": "tool.before", "tool": other, "sessionId": "s", "callId": "e", "dryRun": true,
                    "args": {"command": "git push --force origin main"}}),
            );
            assert_eq!(
                r["enforcement"]["detected"]["program"], "git",
                "{host}: {r}"
            );
        }
    }
}

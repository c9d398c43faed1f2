//! Cooldowns per call, tried as a model would: one acknowledged block must not let any other
//! action through — another branch, an appended command, another tool, another session.

use serde_json::{json, Value};

use super::tests::Host;
use super::*;

/// Force pushes, through any tool (no `tools:` line).
const PUSH_SOP: &str = "---\nid: force-push\ncategory: process\nmatch:\n  patterns: ['git\\s+push\\s.*--force']\n---\n# Force-pushing\n\nAnnounce it first.\n";

/// Writes to migrations, through the file tools.
const MIGRATION_SOP: &str = "---\nid: migrations\ncategory: process\nmatch:\n  tools: [write, edit, apply_patch]\n  patterns: ['migrations/']\n---\n# Migrations\n\nThe DBA reviews every migration.\n";

fn host() -> (Host, Enforcer) {
    let mut h = Host::new();
    h.file(".opencode/sops/push.md", PUSH_SOP);
    h.file(".opencode/sops/migrations.md", MIGRATION_SOP);
    let (e, _) = h.start(Settings::default(), &[], None);
    (h, e)
}

fn bash(cmd: &str) -> Value {
    json!({"command": cmd, "description": "d"})
}

fn decision(h: &mut Host, e: &Enforcer, tool: &str, args: Value) -> String {
    let (d, _) = h.before(e, tool, args);
    d["decision"].as_str().unwrap().to_string()
}

fn sh(h: &mut Host, e: &Enforcer, cmd: &str) -> String {
    decision(h, e, "bash", bash(cmd))
}

/// Issue 18, item 5, as reported.
#[test]
fn a_block_on_one_push_does_not_acknowledge_another() {
    let (mut h, e) = host();
    assert_eq!(sh(&mut h, &e, "git push --force origin scratch"), "block");
    assert_eq!(sh(&mut h, &e, "git push --force origin main"), "block");
    let chained = "git push --force-with-lease=x origin release && rm -rf .git";
    assert_eq!(sh(&mut h, &e, chained), "block");
    // each is acknowledged by its own retry, re-spaced or not
    assert_eq!(
        sh(&mut h, &e, "git push --force origin scratch"),
        "acknowledged"
    );
    assert_eq!(
        sh(&mut h, &e, "git  push --force  origin main "),
        "acknowledged"
    );
    assert_eq!(sh(&mut h, &e, chained), "acknowledged");
}

#[test]
fn nothing_rides_on_an_acknowledged_block() {
    let (mut h, e) = host();
    let base = "git push --force origin scratch";
    assert_eq!(sh(&mut h, &e, base), "block");
    assert_eq!(sh(&mut h, &e, base), "acknowledged");
    for alt in [
        "git push --force origin scratch && rm -rf .git",
        "git push --force origin scratch; true",
        "git push --force origin scratch # x",
        "git push --force origin scratch\nrm -rf .git",
        "git push --force origin scratch | sh",
        "git push --force origin main",
        "git push --force upstream scratch",
        "GIT_DIR=/tmp/x git push --force origin scratch",
        "sudo git push --force origin scratch",
        "git push --force origin scratch 2>/dev/null",
        "git push --force \"origin\" scratch",
        "git push --force origin $BRANCH",
        "git push --force origin $(git branch --show-current)",
        "false && git push --force origin scratch",
    ] {
        assert_eq!(sh(&mut h, &e, alt), "block", "{alt}");
    }
    // the control-operator swap after its own acknowledgment
    assert_eq!(
        sh(&mut h, &e, "false && git push --force origin scratch"),
        "acknowledged"
    );
    assert_eq!(
        sh(&mut h, &e, "false; git push --force origin scratch"),
        "block"
    );
    // harmless differences ride
    for same in [
        "git push --force origin scratch",
        "  git push\t--force origin   scratch",
        "git push \\\n --force origin scratch",
    ] {
        assert_eq!(sh(&mut h, &e, same), "acknowledged", "{same:?}");
    }
    assert_eq!(
        sh(&mut h, &e, "git push --force origin 'my branch'"),
        "block"
    );
    assert_eq!(
        sh(&mut h, &e, "git push --force origin \"my branch\""),
        "acknowledged"
    );
    // the description is not part of what runs
    let other_words = json!({"command": base, "description": "push again"});
    assert_eq!(decision(&mut h, &e, "bash", other_words), "acknowledged");
    // a working directory is
    let elsewhere = json!({"command": base, "workdir": "/srv/prod-repo"});
    assert_eq!(decision(&mut h, &e, "bash", elsewhere), "block");
}

#[test]
fn another_tool_or_session_is_judged_on_its_own() {
    let (mut h, e) = host();
    let cmd = "git push --force origin main";
    assert_eq!(sh(&mut h, &e, cmd), "block");
    for tool in ["exec", "execute_command", "shell"] {
        assert_eq!(
            decision(&mut h, &e, tool, json!({ "command": cmd })),
            "block",
            "{tool}"
        );
    }
    let (d, _) = h.before_in(&e, "other-session", "bash", bash(cmd));
    assert_eq!(d["decision"], "block");
    let (d, _) = h.before_in(&e, "", "bash", bash(cmd));
    assert_eq!(
        d["decision"], "block",
        "no session id is a session of its own"
    );
    let (d, _) = h.before_in(&e, "other-session", "bash", bash(cmd));
    assert_eq!(d["decision"], "acknowledged");
    assert_eq!(sh(&mut h, &e, cmd), "acknowledged");
}

#[test]
fn file_tools_are_acknowledged_per_file() {
    let (mut h, e) = host();
    let write = |path: &str, content: &str| json!({"filePath": path, "content": content});
    assert_eq!(
        decision(
            &mut h,
            &e,
            "write",
            write("migrations/001.sql", "drop table a;")
        ),
        "block"
    );
    // the same file, spelled otherwise or with other text: the same action
    for path in [
        "migrations/001.sql",
        "./migrations/001.sql",
        "/w/shop/migrations/001.sql",
    ] {
        assert_eq!(
            decision(&mut h, &e, "write", write(path, "drop table b;")),
            "acknowledged",
            "{path}"
        );
    }
    // another file, a decoy second path, another tool: each on its own
    assert_eq!(
        decision(&mut h, &e, "write", write("migrations/002.sql", "")),
        "block"
    );
    let decoy = json!({"filePath": "migrations/001.sql", "path": "docs/leak.md", "content": ""});
    assert_eq!(decision(&mut h, &e, "write", decoy), "block");
    assert_eq!(
        decision(
            &mut h,
            &e,
            "edit",
            json!({"filePath": "migrations/001.sql", "oldString": "a", "newString": "b"})
        ),
        "block"
    );
    // a patch that adds a file to an acknowledged one
    let patch = |extra: &str| json!({ "patchText": format!("*** Begin Patch\n*** Update File: migrations/001.sql\n@@\n-a\n+b\n{extra}*** End Patch") });
    assert_eq!(decision(&mut h, &e, "apply_patch", patch("")), "block");
    assert_eq!(
        decision(&mut h, &e, "apply_patch", patch("")),
        "acknowledged"
    );
    assert_eq!(
        decision(
            &mut h,
            &e,
            "apply_patch",
            patch("*** Add File: migrations/003.sql\n+drop database;\n")
        ),
        "block"
    );
}

#[test]
fn a_version_1_state_file_acknowledges_nothing_and_the_chain_continues() {
    let (mut h, e) = host();
    assert_eq!(sh(&mut h, &e, "git push --force origin main"), "block");
    drop(e);
    // rewrite the state as hookwise wrote it before: the old key for this very SOP set
    let state = h.text(".opencode/hookwise/state.json").unwrap().to_string();
    let mut v: Value = serde_json::from_str(&state).unwrap();
    v["version"] = json!(1);
    let at = h.now;
    v["cooldowns"] =
        json!({ "block|bash|shop||force-push": {"at": at, "acked": false, "hits": 0} });
    h.file(".opencode/hookwise/state.json", &v.to_string());
    let (e, logs) = h.start(Settings::default(), &[], None);
    assert!(
        logs.iter().all(|l| l.level != crate::protocol::Level::Warn),
        "{logs:?}"
    );
    assert_eq!(sh(&mut h, &e, "git push --force origin main"), "block");
    assert_eq!(
        sh(&mut h, &e, "git push --force origin main"),
        "acknowledged"
    );
    let m = h.verified_metrics();
    assert_eq!(m.lines().count(), 3);
    assert!(h
        .text(".opencode/hookwise/state.json")
        .unwrap()
        .starts_with("{\"version\":2,"));
}

/// A model that cycles through variants is blocked once for each (the state's bound is in
/// decide's tests).
#[test]
fn each_variant_is_a_block_of_its_own() {
    let (mut h, e) = host();
    for i in 0..50 {
        let cmd = format!("git push --force origin b{i}");
        assert_eq!(sh(&mut h, &e, &cmd), "block", "{cmd}");
    }
    assert_eq!(e.state().cooldowns.len(), 50);
}

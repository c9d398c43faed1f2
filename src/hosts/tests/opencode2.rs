//! The OpenCode 2.x profile: its tools as the 2.x source defines them, and the gate and
//! enforcement reading them through the engine (policy build).

use super::*;
use crate::hosts::{by_id, choose};
use crate::hosts::{opencode::PROFILE as OPENCODE, opencode2::PROFILE as OPENCODE2};

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn opencode2_is_its_own_profile_with_the_2x_tools_and_keys() {
    assert_eq!(by_id("opencode2").map(|p| p.id), Some("opencode2"));
    assert_eq!(choose(Some("opencode2")).0.id, "opencode2");
    // the shell tool is `shell` with `command`; 1.x's `bash` is not a 2.x tool
    assert_eq!(OPENCODE2.shell_key("shell"), Some("command"));
    assert_eq!(OPENCODE2.shell_key("bash"), None);
    assert_eq!(OPENCODE.shell_key("shell"), None, "and 1.x has no `shell`");
    // files are named by `path` (1.x: `filePath`)
    for name in ["write", "edit", "read"] {
        assert_eq!(OPENCODE2.entry(name).keys.path, &["path"], "{name}");
    }
    let e = OPENCODE2.entry("edit");
    assert_eq!(
        (e.keys.old, e.keys.new, e.keys.replace_all),
        (&["oldString"][..], &["newString"][..], &["replaceAll"][..])
    );
    assert_eq!(OPENCODE2.entry("write").keys.content, &["content"]);
    for name in ["patch", "apply_patch"] {
        let t = OPENCODE2.entry(name);
        assert_eq!((t.role, t.keys.patch), (Role::Patch, &["patchText"][..]));
    }
    let s = OPENCODE2.entry("subagent");
    assert_eq!(
        (s.role, s.keys.prompt, s.context),
        (Role::Subagent, "prompt", Context::PromptBlock)
    );
    assert_eq!(OPENCODE2.role("task"), Role::Other, "1.x's sub-agent tool");
    assert_eq!(OPENCODE2.role("multiedit"), Role::Other);
    // context goes with the result for everything but the sub-agent's prompt
    for t in OPENCODE2.all() {
        if t.role != Role::Subagent {
            assert_eq!(t.context, Context::WithResult, "{}", t.name);
        }
    }
    assert!(!OPENCODE2.rewrites_paths);
}

#[test]
fn opencode2_gates_its_own_mutating_tools_and_reads_its_readers() {
    assert_eq!(
        sorted(OPENCODE2.mutating()),
        ["apply_patch", "edit", "patch", "shell", "write"]
    );
    assert_eq!(sorted(OPENCODE2.readers()), ["read"]);
    for r in ["glob", "grep", "webfetch", "websearch", "todowrite"] {
        assert!(OPENCODE2.read_only(r), "{r}");
    }
    assert!(!OPENCODE2.read_only("shell"));
}

#[test]
fn a_file_key_of_another_host_beside_path_is_ambiguous() {
    use serde_json::json;
    // `path` is the 2.x key; a `filePath` beside it naming another file is a decoy
    let w = OPENCODE2.entry("write");
    assert_eq!(
        args::path(w, &json!({"path": "src/a.ts", "content": "x"})).unwrap(),
        Some("src/a.ts")
    );
    assert!(args::path(w, &json!({"path": "src/a.ts", "filePath": "docs/b.md"})).is_err());
    // only `filePath` (the 1.x key) names no file for the 2.x tool
    assert_eq!(
        args::path(w, &json!({"filePath": "src/a.ts"})).unwrap(),
        None
    );
}

#[cfg(feature = "policy")]
mod engine {
    use serde_json::{json, Value};

    use crate::engine::Engine;
    use crate::testing::TestHost;

    use crate::hosts::tests::engine::{
        blocked, blocked_with, drive, passes, EVIL, FORCE_SOP, INTENTS, OURS,
    };

    fn init(fs: &mut TestHost) -> (Engine, Value) {
        let mut e = Engine::new();
        let r = drive(
            &mut e,
            fs,
            json!({"hook": "init", "host": "opencode2", "env": {}, "cwd": "/w", "worktree": "/w", "directory": "/w", "options": {}}),
        );
        (e, r)
    }

    #[test]
    fn the_gate_reads_the_2x_tools_and_keys() {
        let mut fs = TestHost::default();
        fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
        let (mut e, r) = init(&mut fs);
        let mut watched: Vec<&str> = r["plan"]["toolBeforeTools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        watched.sort();
        // the mutating tools, and `read` (remembered for stale-write checks)
        assert_eq!(
            watched,
            ["apply_patch", "edit", "patch", "read", "shell", "write"]
        );
        // no intent yet: a write is blocked
        blocked(
            &mut e,
            &mut fs,
            "write",
            json!({"path": "src/billing/a.ts", "content": "x"}),
        );
        let s = drive(
            &mut e,
            &mut fs,
            json!({"hook": "intent.select", "sessionId": "s", "intentId": "BILL"}),
        );
        assert_eq!(s["ok"], true, "{s}");
        passes(
            &mut e,
            &mut fs,
            "write",
            json!({"path": "src/billing/a.ts", "content": "x"}),
        );
        blocked(
            &mut e,
            &mut fs,
            "write",
            json!({"path": "docs/leak.md", "content": "x"}),
        );
        blocked(
            &mut e,
            &mut fs,
            "edit",
            json!({"path": "docs/leak.md", "oldString": "a", "newString": "b"}),
        );
        // the 1.x key beside the 2.x one, naming another file: blocked, naming both keys
        blocked_with(
            &mut e,
            &mut fs,
            "write",
            json!({"path": "src/billing/a.ts", "filePath": "docs/leak.md"}),
            "two different files",
        );
        for tool in ["patch", "apply_patch"] {
            blocked(&mut e, &mut fs, tool, json!({"patchText": EVIL}));
            passes(&mut e, &mut fs, tool, json!({"patchText": OURS}));
        }
    }

    #[test]
    fn enforcement_reads_the_command_of_shell() {
        let mut fs = TestHost::default();
        fs.file("/w/.opencode/sops/force.md", FORCE_SOP);
        let (mut e, _) = init(&mut fs);
        let r = drive(
            &mut e,
            &mut fs,
            json!({"hook": "tool.before", "tool": "shell", "sessionId": "s", "callId": "c", "dryRun": true,
                "args": {"command": "git push --force origin main", "workdir": "/w"}}),
        );
        assert_eq!(r["enforcement"]["decision"], "block", "{r}");
        // 1.x's shell tool name is unknown in 2.x, but its arguments carry a command: read as
        // 2.x's shell (issue 38)
        let r = drive(
            &mut e,
            &mut fs,
            json!({"hook": "tool.before", "tool": "bash", "sessionId": "s", "callId": "d", "dryRun": true,
                "args": {"command": "git push --force origin main"}}),
        );
        assert_eq!(r["enforcement"]["detected"]["program"], "git", "{r}");
    }
}

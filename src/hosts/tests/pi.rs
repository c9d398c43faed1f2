//! pi's profile: its tools as `@mariozechner/pi-coding-agent` 0.73.1 defines them, and the gate,
//! the trace and enforcement reading them through the engine as a model in pi would call them
//! (policy build).

use super::*;
use crate::hosts::pi::PROFILE as PI;
use crate::hosts::{by_id, choose};

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn pi_is_its_own_profile_with_its_tools_and_keys() {
    assert_eq!(by_id("pi").map(|p| p.id), Some("pi"));
    assert_eq!(choose(Some("pi")).1, None, "known: no warning");
    assert_eq!(PI.shell_key("bash"), Some("command"));
    for name in ["write", "edit", "read"] {
        assert_eq!(PI.entry(name).keys.path, &["path"], "{name}");
    }
    assert_eq!(PI.entry("write").keys.content, &["content"]);
    let e = PI.entry("edit");
    assert_eq!(
        (e.keys.edits, e.keys.item_old, e.keys.item_new),
        ("edits", &["oldText"][..], &["newText"][..])
    );
    assert_eq!(sorted(PI.mutating()), ["bash", "edit", "write"]);
    assert_eq!(PI.readers(), ["read"]);
    for r in ["read", "grep", "find", "ls"] {
        assert!(PI.read_only(r), "{r}");
    }
    // another host's names are not pi's tools
    for t in ["exec", "apply_patch", "Write", "write_file", "task"] {
        assert_eq!(PI.role(t), Role::Other, "{t}");
    }
    // the model's history keeps its original call: context goes with the result
    for t in PI.all() {
        assert_eq!(t.context, Context::WithResult, "{}", t.name);
    }
    assert!(PI.rewrites_paths);
}

#[test]
fn pi_path_forms_it_rewrites_are_refused() {
    for p in [
        "@src/billing/a.ts",
        "~/.bashrc",
        "src/billing\u{a0}/../../docs/x.md",
        "src/billing/a\u{2009}b.ts",
        "src/billing/a\u{3000}.ts",
    ] {
        assert!(args::rewritten(&PI, p).is_some(), "{p:?}");
    }
    for p in ["src/billing/a.ts", "packages/@scope/x.ts", "a b.ts", "./x~"] {
        assert_eq!(args::rewritten(&PI, p), None, "{p:?}");
    }
}

#[cfg(feature = "policy")]
mod engine {
    use serde_json::{json, Value};

    use crate::engine::Engine;
    use crate::hosts::tests::engine::{blocked, blocked_with, drive, passes, FORCE_SOP, INTENTS};
    use crate::testing::TestHost;

    fn init(fs: &mut TestHost) -> (Engine, Value) {
        let mut e = Engine::new();
        let r = drive(
            &mut e,
            fs,
            json!({"hook": "init", "host": "pi", "env": {}, "cwd": "/w", "worktree": "/w", "directory": "/w", "options": {}}),
        );
        (e, r)
    }

    fn governed() -> (Engine, TestHost, Value) {
        let mut fs = TestHost::default();
        fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
        fs.file("/w/src/billing/a.ts", "a\n");
        let (e, r) = init(&mut fs);
        (e, fs, r)
    }

    fn select(e: &mut Engine, fs: &mut TestHost) {
        let s = drive(
            e,
            fs,
            json!({"hook": "intent.select", "sessionId": "s", "intentId": "BILL"}),
        );
        assert_eq!(s["ok"], true, "{s}");
    }

    #[test]
    fn the_gate_reads_pis_tools_and_keys() {
        let (mut e, mut fs, r) = governed();
        let mut ungated: Vec<&str> = r["plan"]["ungatedTools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        ungated.sort();
        assert_eq!(
            ungated,
            [
                "find",
                "grep",
                "knowledge_context",
                "knowledge_read",
                "knowledge_remember",
                "knowledge_search",
                "ls",
                "read",
                "select_active_intent"
            ]
        );
        // no intent yet: every tool that is not known to only read is blocked, naming the way out
        for (tool, args) in [
            ("write", json!({"path": "src/billing/b.ts", "content": "x"})),
            ("bash", json!({"command": "touch src/billing/b.ts"})),
            (
                "edit",
                json!({"path": "src/billing/a.ts", "edits": [{"oldText": "a", "newText": "b"}]}),
            ),
            ("subagent", json!({"task": "write src/billing/b.ts"})),
        ] {
            blocked_with(&mut e, &mut fs, tool, args, "select_active_intent");
        }
        select(&mut e, &mut fs);
        passes(
            &mut e,
            &mut fs,
            "write",
            json!({"path": "src/billing/b.ts", "content": "x"}),
        );
        passes(
            &mut e,
            &mut fs,
            "edit",
            json!({"path": "src/billing/a.ts", "edits": [{"oldText": "a", "newText": "b"}]}),
        );
        blocked_with(
            &mut e,
            &mut fs,
            "write",
            json!({"path": "README.md", "content": "x"}),
            "`README.md` is outside",
        );
        blocked(
            &mut e,
            &mut fs,
            "edit",
            json!({"path": "docs/x.md", "edits": [{"oldText": "a", "newText": "b"}]}),
        );
        // a path pi would write elsewhere than it reads
        for p in [
            "@src/billing/c.ts",
            "~/src/billing/c.ts",
            "src/billing\u{a0}/c.ts",
        ] {
            blocked_with(
                &mut e,
                &mut fs,
                "write",
                json!({"path": p, "content": "x"}),
                "rewrites the path",
            );
        }
        // another host's file key beside pi's, naming another file
        blocked_with(
            &mut e,
            &mut fs,
            "write",
            json!({"path": "src/billing/b.ts", "file_path": "docs/leak.md", "content": "x"}),
            "two different files",
        );
        // a tool another extension registered: its path arguments are scope-checked
        blocked(
            &mut e,
            &mut fs,
            "my_ext_write",
            json!({"path": "docs/leak.md"}),
        );
        // the intents file is never a tool's to change
        blocked(
            &mut e,
            &mut fs,
            "write",
            json!({"path": ".orchestration/active_intents.yaml", "content": "x"}),
        );
    }

    #[test]
    fn a_write_records_pi_and_the_model_the_session_runs() {
        let (mut e, mut fs, _) = governed();
        select(&mut e, &mut fs);
        // before_agent_start: the model pi's extension context names
        let s = drive(
            &mut e,
            &mut fs,
            json!({"hook": "system.transform", "sessionId": "s", "system": [], "modelId": "mock/mock-1"}),
        );
        assert!(s["system"][0].as_str().unwrap().contains("BILL"), "{s}");
        let args = json!({"path": "src/billing/b.ts", "content": "x\n"});
        let b = drive(
            &mut e,
            &mut fs,
            json!({"hook": "tool.before", "tool": "write", "sessionId": "s", "callId": "c1", "args": args, "resultOnly": true}),
        );
        assert!(b.get("block").is_none(), "{b}");
        fs.file("/w/src/billing/b.ts", "x\n");
        let a = drive(
            &mut e,
            &mut fs,
            json!({"hook": "tool.after", "tool": "write", "sessionId": "s", "callId": "c1", "args": args,
                "random": "00112233445566778899aabbccddeeff", "failed": false}),
        );
        assert!(a.get("error").is_none(), "{a}");
        let log = fs.trace("/w").expect("a record");
        let rec: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
        assert_eq!(rec["files"][0]["path"], "src/billing/b.ts", "{rec}");
        assert_eq!(
            rec["files"][0]["conversations"][0]["contributor"]["model_id"],
            "mock/mock-1"
        );
        assert_eq!(rec["metadata"]["dev.hookwise"]["host"], "pi", "{rec}");
    }

    #[test]
    fn enforcement_reads_the_command_of_bash() {
        let mut fs = TestHost::default();
        fs.file("/w/.hookwise/sops/force.md", FORCE_SOP);
        fs.procs = Some(Box::new(|argv: &[String]| {
            if argv.get(1).map(String::as_str) == Some("sandbox") {
                crate::testing::procs::Proc::out("landlock abi 7\n")
            } else {
                crate::testing::procs::Proc::Fails(format!("spawn {} ENOENT", argv[0]))
            }
        }));
        let mut e = Engine::new();
        drive(
            &mut e,
            &mut fs,
            json!({"hook": "init", "host": "pi", "env": {}, "cwd": "/w", "worktree": "/w", "directory": "/w", "options": {},
                   "sandbox": {"binary": "/i/node_modules/@hookwise/cli-linux-x64/bin/hookwise-native", "platform": "linux"}}),
        );
        let r = drive(
            &mut e,
            &mut fs,
            json!({"hook": "tool.before", "tool": "bash", "sessionId": "s", "callId": "c", "resultOnly": true,
                "args": {"command": "git push --force origin main", "timeout": 30}}),
        );
        assert!(
            r["block"].as_str().unwrap_or("").contains("HOST-SOP"),
            "{r}"
        );
        // the retry of the same call runs
        let r = drive(
            &mut e,
            &mut fs,
            json!({"hook": "tool.before", "tool": "bash", "sessionId": "s", "callId": "d", "resultOnly": true,
                "args": {"command": "git push --force origin main", "timeout": 30}}),
        );
        assert!(r.get("block").is_none(), "{r}");
        // confined by the kernel (issue 38): the governance paths read-only, the project not
        let cmd = r["edits"][0]["set"].as_str().unwrap_or_else(|| panic!("{r}"));
        assert!(cmd.contains("sandbox '--project' '/w' '--write-dir' '/w'") || cmd.contains("sandbox '--project' '/w' '--write' '/w'"), "{cmd}");
        assert!(cmd.contains("'--deny' '/w/.hookwise'") && cmd.ends_with("-c 'git push --force origin main'"), "{cmd}");
    }
}

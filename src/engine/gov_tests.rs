//! Intent governance through the engine's hook calls, against the governance test host's
//! in-memory file system (the same answers the JS host gives).

use serde_json::{json, Value};

use crate::engine::Engine;
use crate::testing::TestHost;

const INTENTS: &str = "\
active_intents:
  - id: INT-1
    name: Auth
    status: IN_PROGRESS
    owned_scope: [src/auth/**]
    constraints: [Keep the API]
    acceptance_criteria: [Tests pass]
  - id: INT-2
    name: Old
    status: COMPLETE
    owned_scope: [docs/**]
";

/// Drive one hook call to its result against `fs`.
fn drive(e: &mut Engine, fs: &mut TestHost, call: Value) -> Value {
    crate::testing::drive(e, &call.to_string(), fs)
}

fn start(fs: &mut TestHost, options: Value) -> (Engine, Value) {
    let mut e = Engine::new();
    let r = drive(
        &mut e,
        fs,
        json!({"hook": "init", "env": {}, "cwd": "/w", "worktree": "/w", "directory": "/w", "options": options}),
    );
    (e, r)
}

#[cfg(not(feature = "policy"))]
#[test]
fn the_lean_build_asks_for_the_policy_build_when_the_intents_file_exists() {
    let mut fs = TestHost::default();
    fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
    let (_, r) = start(&mut fs, json!({}));
    assert_eq!(r, json!({"needs": "policy"}));
    // one probe batch: the stat is in it
    assert!(fs.log.iter().any(|q| matches!(q, crate::protocol::Request::Stat { path } if path == "/w/.orchestration/active_intents.yaml")));

    let mut fs = TestHost::default();
    let (_, r) = start(&mut fs, json!({"governance": true}));
    assert_eq!(r, json!({"needs": "policy"}), "the option turns it on");

    let mut fs = TestHost::default();
    fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
    let (mut e, r) = start(&mut fs, json!({"governance": false}));
    assert!(r.get("plan").is_some(), "the option turns it off: {r}");
    // the governance-only calls need the policy build
    for call in [
        json!({"hook": "intent.select", "sessionId": "s", "intentId": "INT-1"}),
        json!({"hook": "trace.verify"}),
        json!({"hook": "governance.scaffold", "cwd": "/w"}),
    ] {
        assert_eq!(drive(&mut e, &mut fs, call), json!({"needs": "policy"}));
    }
}

/// Issue 29: an intents file that is a dangling symlink still wants governance (which then
/// fails closed on it), instead of looking like no file at all.
#[cfg(not(feature = "policy"))]
#[test]
fn a_dangling_intents_file_still_asks_for_the_policy_build() {
    let mut fs = TestHost::default();
    fs.link("/w/.orchestration/active_intents.yaml", "/nowhere.yaml");
    let (_, r) = start(&mut fs, json!({}));
    assert_eq!(r, json!({"needs": "policy"}));
}

#[cfg(not(feature = "policy"))]
#[test]
fn without_the_file_the_lean_build_starts_as_before() {
    let mut fs = TestHost::default();
    let (_, r) = start(&mut fs, json!({}));
    assert!(r["plan"].get("toolBeforeTools").is_none(), "{r}");
}

#[cfg(feature = "policy")]
mod policy {
    use super::*;

    fn governed() -> (Engine, TestHost) {
        let mut fs = TestHost::default();
        fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
        fs.file("/w/src/auth/a.ts", "export function a() {}\n");
        fs.file("/w/README.md", "hi\n");
        let (e, r) = start(&mut fs, json!({}));
        let tools = r["plan"]["toolBeforeTools"].as_array().unwrap().clone();
        for t in [
            "write",
            "edit",
            "apply_patch",
            "bash",
            "read",
            "write_to_file",
            "execute_command",
        ] {
            assert!(tools.contains(&json!(t)), "{t} is watched: {tools:?}");
        }
        assert_eq!(r["plan"]["systemTransform"], true);
        assert_eq!(r["plan"]["sessionCreated"], true);
        assert!(
            r["plan"].get("toolBeforeAll").is_none(),
            "enforcement is not on: {r}"
        );
        (e, fs)
    }

    const BEFORE: &str = "tool.before";
    const AFTER: &str = "tool.after";

    /// One call's `tool.before` or `tool.after` (the latter with a fixed random, for the id).
    fn tool_hook(
        hook: &str,
        e: &mut Engine,
        fs: &mut TestHost,
        session: &str,
        call: &str,
        tool: &str,
        args: Value,
    ) -> Value {
        let mut c =
            json!({"hook": hook, "tool": tool, "sessionId": session, "callId": call, "args": args});
        if hook == AFTER {
            c["random"] = json!("00112233445566778899aabbccddeeff");
        }
        drive(e, fs, c)
    }

    fn select(e: &mut Engine, fs: &mut TestHost, session: &str) -> Value {
        drive(
            e,
            fs,
            json!({"hook": "intent.select", "sessionId": session, "intentId": "INT-1"}),
        )
    }

    fn scaffold(e: &mut Engine, fs: &mut TestHost) -> Value {
        drive(e, fs, json!({"hook": "governance.scaffold", "cwd": "/w"}))
    }

    fn transform(e: &mut Engine, fs: &mut TestHost, system: Value) -> Value {
        drive(
            e,
            fs,
            json!({"hook": "system.transform", "sessionId": "s1", "system": system}),
        )
    }

    /// `r[key]` (created or kept) lists the intents file.
    fn assert_names_the_intents_file(r: &Value, key: &str) {
        assert!(
            r[key]
                .as_array()
                .unwrap()
                .contains(&json!(".orchestration/active_intents.yaml")),
            "{r}"
        );
    }

    #[test]
    fn a_write_without_an_intent_is_blocked_naming_the_tool_and_the_ids() {
        let (mut e, mut fs) = governed();
        let r = tool_hook(
            BEFORE,
            &mut e,
            &mut fs,
            "s1",
            "c1",
            "write",
            json!({"filePath": "src/auth/b.ts", "content": "x"}),
        );
        let b = r["block"].as_str().unwrap();
        assert!(
            b.contains("select_active_intent") && b.contains("INT-1"),
            "{b}"
        );
        assert!(
            !b.contains("INT-2"),
            "a COMPLETE intent is not offered: {b}"
        );
        // bash too (it cannot be scope-checked, but it needs an intent)
        let r = tool_hook(
            BEFORE,
            &mut e,
            &mut fs,
            "s1",
            "c2",
            "bash",
            json!({"command": "ls"}),
        );
        assert!(r["block"].is_string(), "{r}");
        // a tool that changes nothing passes untouched
        let r = tool_hook(
            BEFORE,
            &mut e,
            &mut fs,
            "s1",
            "c3",
            "grep",
            json!({"pattern": "x"}),
        );
        assert_eq!(r, json!({}));
    }

    #[test]
    fn after_selecting_a_write_in_scope_passes_and_leaves_a_chained_record() {
        let (mut e, mut fs) = governed();
        let s = select(&mut e, &mut fs, "s1");
        assert_eq!(s["ok"], true, "{s}");
        assert!(s["text"].as_str().unwrap().contains("src/auth/**"));
        let args = json!({"filePath": "/w/src/auth/b.ts", "content": "export function b() {}\n"});
        let r = tool_hook(BEFORE, &mut e, &mut fs, "s1", "c1", "write", args.clone());
        assert!(r.get("block").is_none(), "{r}");
        assert_eq!(r["followUp"], true);
        fs.file("/w/src/auth/b.ts", "export function b() {}\n"); // the tool runs
        let a = tool_hook(AFTER, &mut e, &mut fs, "s1", "c1", "write", args);
        assert!(a.get("logs").is_none(), "{a}");
        assert_eq!(a["recorded"], "00112233-4455-4677-8899-aabbccddeeff", "{a}");
        let trace = fs
            .read("/w/.orchestration/agent_trace.jsonl")
            .unwrap()
            .to_string();
        let lines: Vec<&str> = trace.lines().collect();
        assert_eq!(lines.len(), 1);
        let rec: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(rec["files"][0]["path"], "src/auth/b.ts");
        assert_eq!(rec["metadata"]["dev.hookwise"]["intent_id"], "INT-1");
        assert_eq!(rec["id"], "00112233-4455-4677-8899-aabbccddeeff");
        let v = drive(&mut e, &mut fs, json!({"hook": "trace.verify"}));
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["lines"], 1);
    }

    #[test]
    fn out_of_scope_writes_and_patches_are_blocked_naming_the_file() {
        let (mut e, mut fs) = governed();
        select(&mut e, &mut fs, "s1");
        let r = tool_hook(
            BEFORE,
            &mut e,
            &mut fs,
            "s1",
            "c1",
            "write",
            json!({"filePath": "README.md", "content": "x"}),
        );
        assert!(r["block"].as_str().unwrap().contains("README.md"), "{r}");
        let patch = "*** Begin Patch\n*** Update File: src/auth/a.ts\n@@\n-export function a() {}\n+export function a2() {}\n*** Add File: src/../secrets.txt\n+x\n*** End Patch";
        let r = tool_hook(
            BEFORE,
            &mut e,
            &mut fs,
            "s1",
            "c2",
            "apply_patch",
            json!({"patchText": patch}),
        );
        assert!(r["block"].as_str().unwrap().contains("secrets.txt"), "{r}");
        // a blocked call's late tool.after records nothing
        tool_hook(
            AFTER,
            &mut e,
            &mut fs,
            "s1",
            "c2",
            "apply_patch",
            json!({"patchText": patch}),
        );
        assert!(fs.read("/w/.orchestration/agent_trace.jsonl").is_none());
    }

    #[test]
    fn a_subagent_session_inherits_its_parents_intent() {
        let (mut e, mut fs) = governed();
        drive(
            &mut e,
            &mut fs,
            json!({"hook": "session.created", "session": {"id": "child", "parentID": "parent"}}),
        );
        select(&mut e, &mut fs, "parent");
        let r = tool_hook(
            BEFORE,
            &mut e,
            &mut fs,
            "child",
            "c1",
            "edit",
            json!({"filePath": "src/auth/a.ts", "oldString": "a()", "newString": "a1()"}),
        );
        assert!(r.get("block").is_none(), "{r}");
    }

    #[test]
    fn the_system_prompt_gets_the_intent_context_once_and_not_for_titles() {
        let (mut e, mut fs) = governed();
        let r = transform(&mut e, &mut fs, json!(["You are a coder"]));
        let sys = r["system"].as_array().unwrap();
        assert_eq!(sys.len(), 1, "{r}");
        let t = sys[0].as_str().unwrap();
        assert!(
            t.starts_with("<intent_context>")
                && t.contains("select_active_intent")
                && t.contains("INT-1"),
            "{t}"
        );
        let r = transform(&mut e, &mut fs, json!(["You are a title generator"]));
        assert_eq!(r, json!({}));
        let r = transform(&mut e, &mut fs, json!([t]));
        assert_eq!(r, json!({}), "never twice");
        select(&mut e, &mut fs, "s1");
        let r = drive(
            &mut e,
            &mut fs,
            json!({"hook": "intent.context", "sessionId": "s1"}),
        );
        let t = r["system"][0].as_str().unwrap();
        assert!(
            t.contains("<owned_scope>") && t.contains("<recent_changes>"),
            "{t}"
        );
    }

    #[test]
    fn a_governance_block_skips_enforcement_and_knowledge() {
        let mut fs = TestHost::default();
        fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
        fs.file("/w/.opencode/sops/force.md", "---\nid: force\ncategory: process\nmatch:\n  tools: [bash]\n  patterns: ['rm -rf']\n---\n# Careful\n");
        let (mut e, r) = start(&mut fs, json!({}));
        assert_eq!(r["plan"]["toolBeforeAll"], true, "{r}");
        let n = fs.log.len();
        let r = tool_hook(
            BEFORE,
            &mut e,
            &mut fs,
            "s1",
            "c1",
            "bash",
            json!({"command": "rm -rf build"}),
        );
        let b = r["block"].as_str().unwrap();
        assert!(
            b.contains("select_active_intent"),
            "governance speaks first: {b}"
        );
        assert!(r.get("enforcement").is_none(), "{r}");
        assert!(
            !fs.log[n..]
                .iter()
                .any(|q| matches!(q, crate::protocol::Request::AppendLine { .. })),
            "enforcement recorded no decision"
        );
    }

    #[test]
    fn governance_off_changes_nothing_and_creates_nothing() {
        let mut fs = TestHost::default();
        fs.file("/w/src/a.ts", "x\n");
        let (mut e, r) = start(&mut fs, json!({}));
        assert!(r["plan"].get("toolBeforeTools").is_none(), "{r}");
        let r = tool_hook(
            BEFORE,
            &mut e,
            &mut fs,
            "s1",
            "c1",
            "write",
            json!({"filePath": "src/a.ts", "content": "y"}),
        );
        assert_eq!(r, json!({}));
        tool_hook(
            AFTER,
            &mut e,
            &mut fs,
            "s1",
            "c1",
            "write",
            json!({"filePath": "src/a.ts", "content": "y"}),
        );
        let r = transform(&mut e, &mut fs, json!([]));
        assert_eq!(r, json!({}));
        let s = select(&mut e, &mut fs, "s1");
        assert_eq!(s["ok"], false);
        assert!(s["text"].as_str().unwrap().contains("off"), "{s}");
        assert!(
            !fs.dirs.contains("/w/.orchestration")
                && !fs.files.keys().any(|k| k.contains(".orchestration"))
        );
    }

    #[test]
    fn scaffold_creates_the_intents_file_and_never_overwrites_it() {
        let mut fs = TestHost::default();
        let (mut e, _) = start(&mut fs, json!({}));
        let r = scaffold(&mut e, &mut fs);
        assert_names_the_intents_file(&r, "created");
        let text = fs.read("/w/.orchestration/active_intents.yaml").unwrap();
        assert!(text.contains("active_intents: []"));
        fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
        let r = scaffold(&mut e, &mut fs);
        assert_names_the_intents_file(&r, "kept");
        assert_eq!(
            fs.read("/w/.orchestration/active_intents.yaml").unwrap(),
            INTENTS
        );
        // the configuration scaffold alone never creates it
        let mut fs = TestHost::default();
        let (mut e, _) = start(&mut fs, json!({}));
        drive(
            &mut e,
            &mut fs,
            json!({"hook": "init.scaffold", "cwd": "/w"}),
        );
        assert!(fs.read("/w/.orchestration/active_intents.yaml").is_none());
    }

    /// One call as raw JSON text, as a hostile host or model can shape it.
    fn raw(e: &mut Engine, fs: &mut TestHost, text: &str) -> Value {
        crate::testing::drive(e, text, fs)
    }

    fn deep(levels: usize) -> String {
        format!("{}0{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn lone_surrogates_are_checked_as_the_host_writes_them() {
        let (mut e, mut fs) = governed();
        // no intent yet: still blocked, whatever the strings hold
        let r = raw(
            &mut e,
            &mut fs,
            r#"{"hook":"tool.before","tool":"write","sessionId":"s1","callId":"c0","args":{"filePath":"src/auth/\ud800.ts","content":"\udfff"}}"#,
        );
        assert!(
            r["block"]
                .as_str()
                .unwrap()
                .contains("select_active_intent"),
            "{r}"
        );
        select(&mut e, &mut fs, "s1");
        // out of scope, the surrogate in the path or the content
        for (i, args) in [
            r#"{"filePath":"README\ud800.md","content":"x"}"#,
            r#"{"filePath":"docs/leak.md","content":"a\ud800b"}"#,
            r#"{"filePath":".orchestration/active_intents.yaml","content":"active_intents: []\ud800"}"#,
        ]
        .iter()
        .enumerate()
        {
            let call = format!(r#"{{"hook":"tool.before","tool":"write","sessionId":"s1","callId":"x{i}","args":{args}}}"#);
            let r = raw(&mut e, &mut fs, &call);
            assert!(r["block"].is_string(), "{call} -> {r}");
        }
        let r = raw(
            &mut e,
            &mut fs,
            r#"{"hook":"tool.before","tool":"write","sessionId":"s1","callId":"x","args":{"filePath":"README\ud800.md","content":"x"}}"#,
        );
        assert!(
            r["block"].as_str().unwrap().contains("README\u{FFFD}.md"),
            "named as the host writes it: {r}"
        );
        // in scope: a lone surrogate in the content is no reason to block, and it is recorded
        let call = r#"{"hook":"tool.before","tool":"write","sessionId":"s1","callId":"ok","args":{"filePath":"src/auth/b.ts","content":"😀 \ud800 日本語"}}"#;
        let r = raw(&mut e, &mut fs, call);
        assert!(r.get("block").is_none(), "{r}");
        fs.file("/w/src/auth/b.ts", "😀 \u{FFFD} 日本語");
        let a = raw(
            &mut e,
            &mut fs,
            &call.replace("tool.before", "tool.after").replace(
                r#""callId":"ok","#,
                r#""callId":"ok","random":"00112233445566778899aabbccddeeff","#,
            ),
        );
        assert!(a["recorded"].is_string(), "{a}");
    }

    #[test]
    fn arguments_nested_too_deep_are_refused_with_the_reason() {
        let (mut e, mut fs) = governed();
        select(&mut e, &mut fs, "s1");
        for levels in [crate::wire::MAX_ARGS_DEPTH, 200, 100_000] {
            let call = format!(
                r#"{{"hook":"tool.before","tool":"write","sessionId":"s1","callId":"d","args":{{"filePath":"src/auth/b.ts","content":"x","x":{}}}}}"#,
                deep(levels)
            );
            let r = raw(&mut e, &mut fs, &call);
            let b = r["block"].as_str().unwrap_or_default();
            assert!(
                b.contains("nest deeper than 64 levels") && b.contains("`write`"),
                "{levels}: {r}"
            );
        }
        // 63 levels below the arguments object: read whole, in scope, allowed
        let call = format!(
            r#"{{"hook":"tool.before","tool":"write","sessionId":"s1","callId":"d","args":{{"filePath":"src/auth/b.ts","content":"x","x":{}}}}}"#,
            deep(crate::wire::MAX_ARGS_DEPTH - 1)
        );
        assert!(raw(&mut e, &mut fs, &call).get("block").is_none());
        // what the host could not encode: refused for a gated tool, not for a read
        for code in [
            "cycle",
            "size",
            "value:function",
            "RangeError: Maximum call stack size exceeded",
        ] {
            let r = drive(
                &mut e,
                &mut fs,
                json!({"hook": "tool.before", "tool": "edit", "sessionId": "s1", "callId": "u", "unreadable": code}),
            );
            assert!(
                r["block"]
                    .as_str()
                    .is_some_and(|b| b.contains("hookwise blocked `edit`")),
                "{code}: {r}"
            );
            let r = drive(
                &mut e,
                &mut fs,
                json!({"hook": "tool.before", "tool": "read", "sessionId": "s1", "callId": "u", "unreadable": code}),
            );
            assert!(r.get("block").is_none(), "{code}: {r}");
        }
        // a tool name the host could not read could be any tool
        let r = drive(
            &mut e,
            &mut fs,
            json!({"hook": "tool.before", "tool": "", "sessionId": "s1", "callId": "u", "unreadable": "value:tool name"}),
        );
        assert!(r["block"].is_string(), "{r}");
        // the plan tells the host which calls to block when the core cannot answer
        let (_, r) = start(&mut fs, json!({}));
        let fc = &r["plan"]["failClosed"];
        // default deny: every tool but the ungated ones
        assert_eq!(fc["all"], true, "{r}");
        assert!(fc["except"].as_array().unwrap().contains(&json!("read")));
        assert!(fc["except"].as_array().unwrap().contains(&json!("select_active_intent")));
        assert!(!fc["except"].as_array().unwrap().contains(&json!("write")));
        assert_eq!(fc["except"], r["plan"]["ungatedTools"], "{r}");
        assert!(fc["message"].as_str().unwrap().contains("{error}"));
    }
}

//! Claude Code's hook events through the engine (`claude.hook`), against scripted hosts. The
//! payloads are shaped as Claude Code 2.1.330 sends them (checked against the real program):
//! an `mcp_tool` hook's `input` has every field as a string, `tool_input` as JSON text; a
//! `command` hook gets the whole payload, `tool_input` an object.

use serde_json::{json, Value};

use super::*;
use crate::protocol::Request;
use crate::testing::drive::{drive_with, Reply};

const AUTH: &str = "Context for CONCEPT: auth\n\nDirect relations (1 CONCEPTS):\n  • jwt (co-occurs in 2 files)\n    Files: memory://notes/auth-design\n    Content preview:\n      memory://notes/auth-design: Tokens are RS256-signed.\n";

/// A host with the maenifold CLI at /bin/maenifold (run per call), as the engine tests' host.
pub(crate) fn cli_host(req: &Request) -> Reply {
    match req {
        Request::Stat { path } if path == "/bin/maenifold" => Reply::Now(
            json!({"exists": true, "realpath": path, "isFile": true, "executable": true}),
        ),
        Request::Stat { .. } => Reply::Now(json!({"exists": false})),
        Request::ReadFile { .. } => Reply::Now(json!({"error": "not-found"})),
        Request::ListDir { .. } => Reply::Now(json!({"entries": []})),
        Request::Now => Reply::Now(json!({"ms": 1_700_000_000_000u64})),
        Request::SessionMessages { .. } => Reply::Now(json!({"messages": [
            {"role": "user", "text": "Fix the [[auth]] flow; we decided: keep [[jwt]] tokens."},
            {"role": "assistant", "text": "Done with [[auth]]."}
        ]})),
        Request::Spawn { argv, .. } => {
            let out = if argv.iter().any(|a| a == "SearchMemories") {
                json!({"success": true, "data": {"results": [
                    {"title": "Auth Design", "path": "memory://notes/auth-design",
                     "snippet": "We use [[jwt]] for [[auth]]."}]}})
                .to_string()
            } else if argv.iter().any(|a| a == "RecentActivity") {
                "# Recent Activity\n\n**auth-design** (memory)\n  Modified: 2026-02-18 19:02\n  Title: Auth Design\n".to_string()
            } else if argv.iter().any(|a| a.contains("\"auth\"")) {
                AUTH.to_string()
            } else if argv.iter().any(|a| a == "WriteMemory") {
                "Created memory FILE: memory://sessions/compaction-s1 (checksum: abc)".to_string()
            } else {
                "Context for CONCEPT: x\n\nDirect relations (0 CONCEPTS):\n".to_string()
            };
            Reply::Now(json!({"success": true, "stdout": out, "exitCode": 0}))
        }
        Request::Sleep { .. } => Reply::Later(json!({})),
        other => panic!("unexpected {other:?}"),
    }
}

fn knowledge_engine() -> Engine {
    let mut e = crate::command_hook::engine();
    let init = json!({"hook": "init", "env": {"PATH": "/bin"}, "cwd": "/w", "mcp": false,
                      "host": "claude-code"});
    let r = drive_with(&mut e, &init.to_string(), cli_host);
    assert_eq!(r["discovery"]["path"], "/bin/maenifold", "{r}");
    e
}

fn hook(e: &mut Engine, event: &str, input: Value) -> Value {
    let call = json!({"hook": "claude.hook", "event": event, "input": input,
                      "random": "00112233445566778899aabbccddeeff", "nowMs": 1_700_000_000_000u64});
    drive_with(e, &call.to_string(), cli_host)
}

/// The hook's answer as Claude Code parses it.
fn parsed(r: &Value) -> Value {
    serde_json::from_str(r["text"].as_str().expect("text")).expect("hook JSON")
}

/// An `mcp_tool` hook's templated input for a tool event.
fn tool_event(tool: &str, input: Value, id: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": "/w",
           "transcript_path": "/h/.claude/projects/-w/s1.jsonl",
           "tool_name": tool, "tool_input": input.to_string(), "tool_use_id": id})
}

#[test]
fn a_bash_call_runs_unchanged_and_its_concept_context_goes_in_additional_context() {
    let mut e = knowledge_engine();
    let r = hook(
        &mut e,
        "PreToolUse",
        tool_event("Bash", json!({"command": "echo '[[auth]]'"}), "t1"),
    );
    let h = &parsed(&r)["hookSpecificOutput"];
    assert_eq!(h["hookEventName"], "PreToolUse", "{r}");
    assert!(
        h.get("updatedInput").is_none(),
        "the command is not rewritten: {h}"
    );
    assert!(
        h.get("permissionDecision").is_none(),
        "no allow: permissions stay Claude Code's: {h}"
    );
    let ctx = h["additionalContext"].as_str().unwrap();
    assert!(ctx.contains("RS256"), "{ctx}");
    // handed over once: the result's PostToolUse does not repeat it
    let p = hook(
        &mut e,
        "PostToolUse",
        tool_event("Bash", json!({"command": "echo '[[auth]]'"}), "t1"),
    );
    assert_eq!(parsed(&p), json!({}), "{p}");
}

#[test]
fn a_call_without_links_gets_an_empty_answer() {
    let mut e = knowledge_engine();
    let r = hook(
        &mut e,
        "PreToolUse",
        tool_event("Bash", json!({"command": "ls"}), "t1"),
    );
    assert_eq!(parsed(&r), json!({}));
    assert!(r.get("decision").is_none());
}

#[test]
fn the_subagent_prompt_gets_the_block_through_updated_input() {
    let mut e = knowledge_engine();
    for tool in ["Agent", "Task"] {
        let input = json!({"prompt": "Review [[auth]]", "description": "review", "subagent_type": "general-purpose"});
        let r = hook(&mut e, "PreToolUse", tool_event(tool, input, "t2"));
        let h = &parsed(&r)["hookSpecificOutput"];
        // the user's permission decision stays Claude Code's (issue 38)
        assert!(h.get("permissionDecision").is_none(), "{h}");
        let prompt = h["updatedInput"]["prompt"].as_str().unwrap();
        assert!(
            prompt.contains("RS256") && prompt.ends_with("Review [[auth]]"),
            "{prompt}"
        );
        assert_eq!(
            h["updatedInput"]["subagent_type"], "general-purpose",
            "the rest kept"
        );
        assert!(
            h.get("additionalContext").is_none(),
            "the sub-agent reads it: {h}"
        );
    }
}

#[test]
fn a_command_hooks_whole_payload_reads_the_same() {
    let mut e = knowledge_engine();
    let input = json!({"hook_event_name": "PreToolUse", "session_id": "s1", "tool_name": "Bash",
                       "tool_input": {"command": "cat '[[auth]]'"}, "tool_use_id": "t3",
                       "permission_mode": "default", "effort": {"level": "medium"}});
    let r = hook(&mut e, "PreToolUse", input);
    assert!(parsed(&r)["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .contains("RS256"));
}

#[test]
fn hostile_payloads_are_read_as_far_as_they_go_and_never_panic() {
    let mut e = knowledge_engine();
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    for input in [
        json!({"tool_name": "Bash", "tool_input": "{not json [[auth]]"}),
        json!({"tool_name": "Bash", "tool_input": deep}),
        json!({"tool_name": 7, "tool_input": ["x"], "session_id": {"a": 1}}),
        json!("a string"),
        json!(null),
    ] {
        let r = hook(&mut e, "PreToolUse", input);
        assert_eq!(parsed(&r), json!({}), "knowledge fails open: {r}");
    }
    let r = hook(&mut e, "NoSuchEvent", json!({}));
    assert_eq!(parsed(&r), json!({}));
}

#[test]
fn the_first_prompt_of_a_session_gets_the_session_context_later_ones_do_not() {
    let mut e = knowledge_engine();
    let input = json!({"hook_event_name": "UserPromptSubmit", "session_id": "s9", "cwd": "/w"});
    let r = hook(&mut e, "UserPromptSubmit", input.clone());
    let first = parsed(&r);
    let ctx = first["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("session context: {r}"));
    assert!(ctx.contains(crate::session::format::HEADER), "{ctx}");
    assert_eq!(
        first["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    let again = hook(&mut e, "UserPromptSubmit", input);
    assert_eq!(parsed(&again), json!({}), "{again}");
    // a command hook's SessionStart at start-up does the same for its session
    let s = hook(
        &mut e,
        "SessionStart",
        json!({"session_id": "s10", "source": "startup"}),
    );
    assert_eq!(
        parsed(&s)["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
}

#[test]
fn compaction_guides_the_summary_and_what_was_kept_comes_back_after_it() {
    let mut e = knowledge_engine();
    let r = hook(
        &mut e,
        "PreCompact",
        json!({"session_id": "s1", "trigger": "auto", "hook_event_name": "PreCompact"}),
    );
    let text = r["text"].as_str().unwrap();
    assert!(
        text.contains("[[WikiLinks]]") && text.contains("auth"),
        "{text}"
    );
    assert!(
        serde_json::from_str::<Value>(text).is_err(),
        "plain text: {text}"
    );
    assert!(
        text.chars().count() <= 10_000,
        "Claude Code keeps 10,000 characters"
    );
    let memory = r["memory"].as_str().unwrap().to_string();
    assert!(memory.starts_with("memory://sessions/compaction-s1"), "{r}");
    let s = hook(
        &mut e,
        "SessionStart",
        json!({"session_id": "s1", "source": "compact"}),
    );
    let ctx = parsed(&s)["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(ctx.contains("[[auth]]") && ctx.contains(&memory), "{ctx}");
    // once
    let s = hook(
        &mut e,
        "SessionStart",
        json!({"session_id": "s1", "source": "compact"}),
    );
    assert_eq!(parsed(&s), json!({}));
}

#[test]
fn setup_lists_the_hook_tools_and_the_settings_entries() {
    let mut e = crate::command_hook::engine();
    let r = hook(&mut e, "setup", json!({"failClosed": true}));
    let names: Vec<&str> = r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "hook_pre_tool_use",
            "hook_post_tool_use",
            "hook_user_prompt_submit",
            "hook_pre_compact",
            "hook_session_start"
        ]
    );
    for t in r["tools"].as_array().unwrap() {
        assert!(t["description"]
            .as_str()
            .unwrap()
            .contains("Never call it yourself"));
    }
    let pre = &r["hooks"]["PreToolUse"][0];
    assert_eq!(pre["matcher"], "*");
    let h = &pre["hooks"][0];
    assert_eq!(h["type"], "mcp_tool");
    assert_eq!(h["server"], "hookwise");
    assert_eq!(h["tool"], "hook_pre_tool_use");
    assert_eq!(h["onFailure"], "block");
    assert_eq!(h["input"]["tool_input"], "${tool_input}");
    assert_eq!(h["input"]["session_id"], "${session_id}");
    assert!(
        r["hooks"]["UserPromptSubmit"][0]["hooks"][0]
            .get("onFailure")
            .is_none(),
        "context fails open"
    );
    assert_eq!(r["hooks"]["SessionStart"][0]["matcher"], "compact");
    let open = hook(&mut e, "setup", json!({}));
    assert!(open["hooks"]["PreToolUse"][0]["hooks"][0]
        .get("onFailure")
        .is_none());
    let cmd = hook(
        &mut e,
        "setup",
        json!({"command": "/usr/bin/node /x/cli.mjs"}),
    );
    assert_eq!(
        cmd["hooks"]["PreCompact"][0]["hooks"][0]["command"],
        "/usr/bin/node /x/cli.mjs hook PreCompact"
    );
    assert!(
        cmd["hooks"]["SessionStart"][0].get("matcher").is_none(),
        "start-up too"
    );
    assert_eq!(
        r["permissions"]["deny"][0],
        "mcp__hookwise__hook_pre_tool_use"
    );
    assert_eq!(r["permissions"]["deny"].as_array().unwrap().len(), 5);
    assert_eq!(
        r["permissions"]["allow"],
        json!(["mcp__hookwise__select_active_intent"])
    );
    let more = hook(
        &mut e,
        "setup",
        json!({"modelTools": ["search_knowledge", "select_active_intent", "bad name!"]}),
    );
    assert_eq!(
        more["permissions"]["allow"],
        json!([
            "mcp__hookwise__select_active_intent",
            "mcp__hookwise__search_knowledge"
        ])
    );
    let plugin = hook(
        &mut e,
        "setup",
        json!({"server": "plugin:hookwise:hookwise"}),
    );
    assert_eq!(
        plugin["hooks"]["PostToolUse"][0]["hooks"][0]["server"],
        "plugin:hookwise:hookwise"
    );
    assert_eq!(setup::event_of("hook_post_tool_use"), Some("PostToolUse"));
    assert_eq!(setup::event_of("select_active_intent"), None);
}

#[test]
fn edits_apply_as_the_js_glue_applies_them() {
    let mut v = json!({"prompt": "<a>old</a>\n\nask", "n": [{"x": "y"}]});
    let m: Vec<ArgEdit> = serde_json::from_value(json!([
        {"path": ["prompt"], "prepend": "<a>new</a>\n\n", "strip": ["<a>", "</a>"]},
        {"path": ["n", 0, "x"], "set": "z", "prepend": "!"},
        {"path": ["missing", "deeper"], "prepend": "!"},
        {"path": ["n"], "prepend": "!"}
    ]))
    .unwrap();
    assert_eq!(apply(&mut v, &m), 2);
    assert_eq!(
        v,
        json!({"prompt": "<a>new</a>\n\nask", "n": [{"x": "!z"}]})
    );
    assert_eq!(
        strip_spans("a<o>1</o>\n\n\nb<o>2", "<o>", "</o>"),
        "a\nb<o>2"
    );
}

#[cfg(feature = "policy")]
pub(crate) mod governance {
    use super::*;
    use crate::testing::TestHost;

    pub(crate) const INTENTS: &str = "\
active_intents:
  - id: INT-1
    name: Auth
    status: IN_PROGRESS
    owned_scope: [src/auth/**]
";

    pub(crate) fn drive(e: &mut Engine, fs: &mut TestHost, call: Value) -> Value {
        crate::testing::drive(e, &call.to_string(), fs)
    }

    /// An engine for `host` under intent governance (INT-1 owns src/auth/**), and its `init`
    /// answer.
    /// The confined shell's launcher as the JS would find it (`js/native.cjs`).
    pub(crate) static LAUNCHER: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
        json!({"binary": "/i/node_modules/@hookwise/cli-linux-x64/bin/hookwise-native",
               "platform": "linux", "install": ["/i/node_modules/hookwise"]})
    });

    /// A test host whose launcher answers `sandbox --check` (Landlock ABI 7).
    pub(crate) fn with_launcher(fs: &mut TestHost) {
        fs.procs = Some(Box::new(|argv: &[String]| {
            if argv.get(1).map(String::as_str) == Some("sandbox") {
                crate::testing::procs::Proc::out("landlock abi 7\n")
            } else {
                crate::testing::procs::Proc::Fails(format!("spawn {} ENOENT", argv[0]))
            }
        }));
    }

    pub(crate) fn governed_as(host: &str) -> (Engine, TestHost, Value) {
        let mut fs = TestHost {
            now: 1_700_000_000_000.0,
            ..Default::default()
        };
        fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
        with_launcher(&mut fs);
        let mut e = crate::command_hook::engine();
        let r = drive(
            &mut e,
            &mut fs,
            json!({"hook": "init", "env": {}, "cwd": "/w", "worktree": "/w", "directory": "/w",
                   "host": host, "sandbox": LAUNCHER.clone()}),
        );
        (e, fs, r)
    }

    fn governed() -> (Engine, TestHost) {
        let (e, fs, r) = governed_as("claude-code");
        let tools = r["plan"]["toolBeforeTools"].as_array().unwrap();
        for t in ["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit"] {
            assert!(tools.contains(&json!(t)), "{t} is gated: {tools:?}");
        }
        (e, fs)
    }

    fn event(e: &mut Engine, fs: &mut TestHost, event: &str, input: Value) -> Value {
        drive(
            e,
            fs,
            json!({"hook": "claude.hook", "event": event, "input": input,
                   "random": "00112233445566778899aabbccddeeff", "nowMs": 1_700_000_000_000u64}),
        )
    }

    #[test]
    fn with_export_on_each_decision_and_record_carries_its_telemetry_and_nothing_otherwise() {
        // off (no HOOKWISE_OTEL): no telemetry on any answer
        let (mut e, mut fs) = governed();
        let write = |path: &str| {
            tool_event(
                "Write",
                json!({"file_path": path, "content": "AKIAIOSFODNN7EXAMPLE\n"}),
                "w1",
            )
        };
        let r = event(&mut e, &mut fs, "PreToolUse", write("/w/src/auth/a.ts"));
        assert!(r.get("telemetry").is_none(), "{r}");
        // on
        let mut fs = TestHost {
            now: 1_700_000_000_000.0,
            ..Default::default()
        };
        fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
        let mut e = crate::command_hook::engine();
        drive(
            &mut e,
            &mut fs,
            json!({"hook": "init", "cwd": "/w", "worktree": "/w", "directory": "/w", "host": "claude-code",
                   "env": {"HOOKWISE_OTEL": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}}),
        );
        let status = event(&mut e, &mut fs, "telemetry", json!({}));
        assert_eq!(status["on"], true, "{status}");
        let r = event(&mut e, &mut fs, "PreToolUse", write("/w/src/auth/a.ts"));
        let t = &r["telemetry"][0];
        assert_eq!(t["signal"], "span", "{r}");
        assert_eq!(t["attrs"]["hookwise.decision"], "blocked");
        assert_eq!(t["attrs"]["hookwise.rule"], "no_intent");
        assert_eq!(t["attrs"]["hookwise.hook.event"], "PreToolUse");
        assert_eq!(t["attrs"]["gen_ai.tool.call.id"], "w1");
        assert!(!r["telemetry"].to_string().contains("AKIA"), "{r}");
        // an unknown tool without an intent: default deny
        let r = event(
            &mut e,
            &mut fs,
            "PreToolUse",
            tool_event("mcp__x__do", json!({}), "u1"),
        );
        assert_eq!(
            r["telemetry"][0]["attrs"]["hookwise.rule"], "default_deny",
            "{r}"
        );
        assert_eq!(r["telemetry"][0]["attrs"]["hookwise.default_deny"], true);
        drive(
            &mut e,
            &mut fs,
            json!({"hook": "intent.select", "sessionId": "s1", "intentId": "INT-1"}),
        );
        let out = event(&mut e, &mut fs, "PreToolUse", write("/w/docs/x.md"));
        let a = &out["telemetry"][0]["attrs"];
        assert_eq!(a["hookwise.rule"], "scope", "{out}");
        assert_eq!(a["hookwise.intent.id"], "INT-1");
        assert_eq!(a["hookwise.path.classes"], json!(["out_of_scope"]));
        let ok = event(&mut e, &mut fs, "PreToolUse", write("/w/src/auth/a.ts"));
        let a = &ok["telemetry"][0]["attrs"];
        assert_eq!(a["hookwise.decision"], "allowed", "{ok}");
        assert_eq!(a["hookwise.path.classes"], json!(["in_scope"]));
        fs.file("/w/src/auth/a.ts", "x\n");
        let after = event(&mut e, &mut fs, "PostToolUse", write("/w/src/auth/a.ts"));
        let l = &after["telemetry"][0];
        assert_eq!(l["signal"], "log", "{after}");
        assert_eq!(l["attrs"]["hookwise.record.id"], after["recorded"]);
        assert_eq!(l["attrs"]["hookwise.hook.event"], "PostToolUse");
        let line = fs.trace("/w").unwrap().trim_end().to_string();
        assert_eq!(
            l["attrs"]["hookwise.record.sha256"],
            crate::governance::ranges::sha256_hex(line.as_bytes())
        );
        // a hook that decided nothing: its latency only
        let p = event(
            &mut e,
            &mut fs,
            "UserPromptSubmit",
            json!({"session_id": "s1", "prompt": "go"}),
        );
        assert_eq!(p["telemetry"][0]["signal"], "none", "{p}");
        assert_eq!(
            p["telemetry"][0]["latency"]["attrs"]["hookwise.hook.event"],
            "UserPromptSubmit"
        );
    }

    #[test]
    fn writes_are_denied_until_an_intent_and_outside_its_scope_and_leave_a_record_inside() {
        let (mut e, mut fs) = governed();
        let write =
            |path: &str| tool_event("Write", json!({"file_path": path, "content": "x\n"}), "w1");
        let r = event(&mut e, &mut fs, "PreToolUse", write("/w/src/auth/a.ts"));
        assert_eq!(r["decision"], "deny", "{r}");
        let h = &parsed(&r)["hookSpecificOutput"];
        assert_eq!(h["permissionDecision"], "deny");
        assert!(
            h["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .contains("select_active_intent"),
            "{h}"
        );
        // the first prompt brings the intent context
        let p = event(
            &mut e,
            &mut fs,
            "UserPromptSubmit",
            json!({"session_id": "s1"}),
        );
        assert!(
            parsed(&p)["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap()
                .contains("<intent_context>"),
            "{p}"
        );
        let s = drive(
            &mut e,
            &mut fs,
            json!({"hook": "intent.select", "sessionId": "s1", "intentId": "INT-1"}),
        );
        assert_eq!(s["ok"], true, "{s}");
        let out = event(&mut e, &mut fs, "PreToolUse", write("/w/docs/x.md"));
        assert_eq!(out["decision"], "deny", "{out}");
        assert!(
            parsed(&out)["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .contains("docs/x.md")
        );
        let ok = event(&mut e, &mut fs, "PreToolUse", write("/w/src/auth/a.ts"));
        assert_eq!(parsed(&ok), json!({}), "{ok}");
        fs.file("/w/src/auth/a.ts", "x\n"); // the tool runs
        let after = event(&mut e, &mut fs, "PostToolUse", write("/w/src/auth/a.ts"));
        assert_eq!(
            after["recorded"], "00112233-4455-4677-8899-aabbccddeeff",
            "{after}"
        );
        let trace = fs
            .trace("/w")
            .unwrap()
            .to_string();
        let rec: Value = serde_json::from_str(trace.lines().next().unwrap()).unwrap();
        assert_eq!(rec["files"][0]["path"], "src/auth/a.ts");
        // governance state is per Claude session: another session has no intent
        let other = tool_event(
            "Write",
            json!({"file_path": "/w/src/auth/a.ts", "content": "y"}),
            "w2",
        );
        let mut other = other;
        other["session_id"] = json!("s2");
        assert_eq!(
            event(&mut e, &mut fs, "PreToolUse", other)["decision"],
            "deny"
        );
    }

    #[test]
    fn every_file_writing_tool_is_gated_by_its_real_path_key() {
        let (mut e, mut fs) = governed();
        drive(
            &mut e,
            &mut fs,
            json!({"hook": "intent.select", "sessionId": "s1", "intentId": "INT-1"}),
        );
        for (tool, input) in [
            (
                "Edit",
                json!({"file_path": "/w/x.ts", "old_string": "a", "new_string": "b"}),
            ),
            (
                "MultiEdit",
                json!({"file_path": "/w/x.ts", "edits": [{"old_string": "a", "new_string": "b"}]}),
            ),
            (
                "NotebookEdit",
                json!({"notebook_path": "/w/n.ipynb", "new_source": "x", "cell_id": "c"}),
            ),
            ("Write", json!({"file_path": "/w/x.ts", "content": "b"})),
        ] {
            let r = event(&mut e, &mut fs, "PreToolUse", tool_event(tool, input, "e1"));
            assert_eq!(r["decision"], "deny", "{tool} outside the scope: {r}");
        }
        // a decoy key beside the real one is refused, not trusted
        let decoy =
            json!({"file_path": "/w/x.ts", "filePath": "/w/src/auth/ok.ts", "content": "b"});
        let r = event(
            &mut e,
            &mut fs,
            "PreToolUse",
            tool_event("Write", decoy, "e2"),
        );
        assert_eq!(r["decision"], "deny", "{r}");
    }

    #[test]
    fn unreadable_input_of_a_gated_tool_is_denied_with_the_reason() {
        let (mut e, mut fs) = governed();
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(3000), "]".repeat(3000));
        for bad in [json!("{not json"), json!(deep), json!("[1,2]")] {
            let input = json!({"session_id": "s1", "tool_name": "Write", "tool_input": bad});
            let r = event(&mut e, &mut fs, "PreToolUse", input);
            assert_eq!(r["decision"], "deny", "{r}");
        }
    }
}

/// `hookwise mcp` answers this tool without a core when the core cannot start (src/failsafe.rs).
#[test]
fn the_failsafes_pre_tool_use_tool_is_the_setups() {
    assert_eq!(
        (setup::EVENTS[0].0, setup::EVENTS[0].1),
        ("PreToolUse", crate::failsafe::CLAUDE_PRE_TOOL_USE)
    );
}

#[test]
fn the_portable_entries_run_the_hook_script_that_finds_the_project_s_hookwise() {
    use super::setup_cli::{CLI_SCRIPT, HOOK_SCRIPT, NOT_FOUND};
    let mut e = crate::command_hook::engine();
    for flag in ["codex", "gemini", "copilot", "qwen"] {
        for fail_closed in [false, true] {
            let r = hook(
                &mut e,
                "setup.host",
                json!({"host": flag, "failClosed": fail_closed}),
            );
            let host = r["host"].as_str().unwrap().to_string();
            for (event, entries) in r["hooks"].as_object().unwrap() {
                let c = entries[0]["hooks"][0]["command"].as_str().unwrap();
                assert!(c.starts_with(&format!("h={HOOK_SCRIPT}; d=")), "{c}");
                assert!(
                    c.contains(&format!("exec /bin/sh \"$d/$h\" {host} {event};")),
                    "{c}"
                );
                let deny = c.contains("permissionDecision") || c.contains("\"decision\"");
                let gate = matches!(event.as_str(), "PreToolUse" | "BeforeTool");
                assert_eq!(deny, fail_closed && gate, "{flag} {event}: {c}");
                if deny {
                    assert!(c.contains(NOT_FOUND), "{c}");
                    // the deny is one single-quoted word of the shell
                    let (_, tail) = c.rsplit_once("printf '%s\\n' '").unwrap();
                    assert!(tail.ends_with('\'') && !tail[..tail.len() - 1].contains('\''));
                    let _: serde_json::Value =
                        serde_json::from_str(&tail[..tail.len() - 1]).unwrap();
                }
                // short enough to read: the deny's sentence is most of a gate's entry
                assert!(
                    // (the folder-ownership tests of issue 38 are ~60 of it)
                    c.len() < 540 + if deny { 800 } else { 0 },
                    "{} {c}",
                    c.len()
                );
            }
            // the MCP server: the same walk, to the project's cli.mjs, run by node
            assert_eq!(r["mcp"]["entry"]["command"], "sh");
            let args = r["mcp"]["entry"]["args"].as_array().unwrap();
            assert_eq!(args.len(), 2);
            assert_eq!(args[0], "-c");
            let m = args[1].as_str().unwrap();
            assert!(m.starts_with(&format!("h={CLI_SCRIPT}; d=")), "{m}");
            assert!(
                m.contains(&format!("exec node \"$d/$h\" mcp --host {host};")),
                "{m}"
            );
            assert!(m.ends_with("; exit 1") && m.len() < 560, "{} {m}", m.len());
        }
    }
    assert!(!NOT_FOUND.contains('\''));
    let g = hook(&mut e, "setup.host", json!({"host": "gemini"}));
    let bt = g["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(bt.contains("d=${GEMINI_PROJECT_DIR:-$PWD};"), "{bt}");
    let c = hook(&mut e, "setup.host", json!({"host": "codex"}));
    let pre = c["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(pre.contains("d=$PWD;"), "{pre}");
    // Claude Code's command hooks: the same entry, from CLAUDE_PROJECT_DIR
    let c = hook(
        &mut e,
        "setup",
        json!({"commandHooks": true, "failClosed": true}),
    );
    let pre = c["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        pre.contains("d=${CLAUDE_PROJECT_DIR:-$PWD};")
            && pre.contains("exec /bin/sh \"$d/$h\" claude-code PreToolUse;"),
        "{pre}"
    );
    assert!(pre.contains("permissionDecision"));
    let g = hook(
        &mut e,
        "setup",
        json!({"commandHooks": true, "global": true}),
    );
    assert_eq!(
        g["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "hookwise hook PreToolUse"
    );
    let g = hook(
        &mut e,
        "setup.host",
        json!({"host": "codex", "global": true}),
    );
    assert_eq!(
        g["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "hookwise hook --host codex PreToolUse"
    );
}

//! The command-hook hosts' events through the engine (`hook.event`): Codex, Gemini CLI,
//! Copilot CLI and Qwen Code, with payloads shaped as each sends them
//! (`command-hook-hosts.md`), answers in each host's dialect; the tool tables as an attacker
//! would call them.

use serde_json::{json, Value};

use super::tests::cli_host;
use super::*;
use crate::hosts::tests::answers::codex_valid;
use crate::testing::drive::drive_with;
use crate::testing::TestHost;

use super::tests::governance::{drive as call, governed_as};

/// An engine for `host` under intent governance (INT-1 owns src/auth/**).
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
    serde_json::from_str(text(r)).expect("hook JSON")
}

/// A command hook's payload for a tool event (`tool_input` an object).
fn tool(event: &str, name: &str, input: Value, id: Option<&str>) -> Value {
    let mut v = json!({"hook_event_name": event, "session_id": "s1", "cwd": "/w",
                       "transcript_path": "/h/t.jsonl", "tool_name": name, "tool_input": input});
    if let Some(id) = id {
        v["tool_use_id"] = json!(id);
    }
    v
}

fn select(e: &mut Engine, fs: &mut TestHost) {
    let s = call(
        e,
        fs,
        json!({"hook": "intent.select", "sessionId": "s1", "intentId": "INT-1"}),
    );
    assert_eq!(s["ok"], true, "{s}");
}

const PATCH_IN: &str =
    "*** Begin Patch\n*** Add File: src/auth/new.ts\n+export const x = 1;\n*** End Patch\n";
const PATCH_OUT: &str = "*** Begin Patch\n*** Add File: docs/evil.md\n+x\n*** End Patch\n";

#[test]
fn codex_gates_bash_and_apply_patch_with_answers_its_schema_accepts() {
    let (mut e, mut fs) = governed("codex");
    let bash = tool(
        "PreToolUse",
        "Bash",
        json!({"command": "touch src/auth/a.ts"}),
        Some("c1"),
    );
    let r = event(&mut e, &mut fs, "PreToolUse", bash);
    assert_eq!(r["decision"], "deny", "{r}");
    codex_valid("PreToolUse", text(&r)).unwrap();
    let h = &parsed(&r)["hookSpecificOutput"];
    assert_eq!(h["permissionDecision"], "deny");
    assert!(
        h["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("select_active_intent"),
        "{h}"
    );
    // hookwise's own MCP tool is not gated (the core decides it when it is called)
    let own = tool(
        "PreToolUse",
        "mcp__hookwise__select_active_intent",
        json!({"intent_id": "INT-1"}),
        Some("c2"),
    );
    assert_eq!(text(&event(&mut e, &mut fs, "PreToolUse", own)), "{}");
    // a prompt brings the intent context, valid for UserPromptSubmit
    let p = event(
        &mut e,
        &mut fs,
        "UserPromptSubmit",
        json!({"session_id": "s1", "prompt": "go", "model": "gpt-5.5", "hook_event_name": "UserPromptSubmit"}),
    );
    codex_valid("UserPromptSubmit", text(&p)).unwrap();
    assert!(text(&p).contains("intent_context"), "{p}");
    select(&mut e, &mut fs);
    // apply_patch: the patch text under `command`, read as OpenCode's apply_patch is
    let out = tool(
        "PreToolUse",
        "apply_patch",
        json!({"command": PATCH_OUT}),
        Some("p1"),
    );
    let r = event(&mut e, &mut fs, "PreToolUse", out);
    assert_eq!(r["decision"], "deny", "{r}");
    assert!(text(&r).contains("docs/evil.md"), "{r}");
    codex_valid("PreToolUse", text(&r)).unwrap();
    // a decoy key another host reads a patch from, naming another patch: refused
    let decoy = tool(
        "PreToolUse",
        "apply_patch",
        json!({"command": PATCH_OUT, "patchText": PATCH_IN}),
        Some("p2"),
    );
    assert_eq!(
        event(&mut e, &mut fs, "PreToolUse", decoy)["decision"],
        "deny"
    );
    let inside = tool(
        "PreToolUse",
        "apply_patch",
        json!({"command": PATCH_IN}),
        Some("p3"),
    );
    let ok = event(&mut e, &mut fs, "PreToolUse", inside.clone());
    assert_eq!(text(&ok), "{}", "{ok}");
    fs.file("/w/src/auth/new.ts", "export const x = 1;\n"); // the tool runs
    let mut post = inside;
    post["hook_event_name"] = json!("PostToolUse");
    post["tool_response"] = json!("Success. Updated the following files:\nA src/auth/new.ts\n");
    let after = event(&mut e, &mut fs, "PostToolUse", post);
    codex_valid("PostToolUse", text(&after)).unwrap();
    assert_eq!(
        after["recorded"], "00112233-4455-4677-8899-aabbccddeeff",
        "{after}"
    );
    let trace = fs
        .trace("/w")
        .unwrap()
        .to_string();
    let rec: Value = serde_json::from_str(trace.lines().next().unwrap()).unwrap();
    assert_eq!(rec["files"][0]["path"], "src/auth/new.ts");
    // the record names the host and the model (from the prompt's payload)
    assert_eq!(rec["metadata"]["dev.hookwise"]["host"], "codex", "{rec}");
    assert_eq!(
        rec["files"][0]["conversations"][0]["contributor"]["model_id"], "gpt-5.5",
        "{rec}"
    );
    // compaction answers carry nothing Codex's schemas do not know
    for ev in ["PreCompact", "PostCompact"] {
        let r = event(
            &mut e,
            &mut fs,
            ev,
            json!({"session_id": "s1", "trigger": "auto"}),
        );
        codex_valid(ev, text(&r)).unwrap();
    }
    // an event Codex has that hookwise does not answer: {}
    assert_eq!(
        text(&event(&mut e, &mut fs, "Stop", json!({"session_id": "s1"}))),
        "{}"
    );
}

#[test]
fn a_selection_through_the_agents_mcp_server_reaches_the_engine_answering_its_hooks() {
    for (host, pre, post, own, write) in [
        (
            "codex",
            "PreToolUse",
            "PostToolUse",
            "mcp__hookwise__select_active_intent",
            json!({"command": PATCH_IN}),
        ),
        (
            "gemini",
            "BeforeTool",
            "AfterTool",
            "mcp_hookwise_select_active_intent",
            json!({"file_path": "/w/src/auth/a.ts", "content": "x"}),
        ),
        (
            "copilot",
            "PreToolUse",
            "PostToolUse",
            "hookwise-select_active_intent",
            json!({"path": "/w/src/auth/a.ts", "file_text": "x"}),
        ),
        (
            "qwen",
            "PreToolUse",
            "PostToolUse",
            "mcp__hookwise__select_active_intent",
            json!({"file_path": "/w/src/auth/a.ts", "content": "x"}),
        ),
    ] {
        let (mut e, mut fs) = governed(host);
        let tool_name = match host {
            "codex" => "apply_patch",
            "gemini" | "qwen" => "write_file",
            _ => "create",
        };
        let w = tool(pre, tool_name, write.clone(), Some("w1"));
        assert_eq!(
            event(&mut e, &mut fs, pre, w.clone())["decision"],
            "deny",
            "{host}: no intent yet"
        );
        // an unknown intent selects nothing
        let bad = tool(post, own, json!({"intent_id": "INT-404"}), Some("s0"));
        event(&mut e, &mut fs, post, bad);
        assert_eq!(
            event(&mut e, &mut fs, pre, w.clone())["decision"],
            "deny",
            "{host}"
        );
        let sel = tool(post, own, json!({"intent_id": "INT-1"}), Some("s1"));
        assert_eq!(text(&event(&mut e, &mut fs, post, sel)), "{}");
        let r = event(&mut e, &mut fs, pre, w);
        assert_ne!(r["decision"], "deny", "{host}: {r}");
    }
}

#[test]
fn gemini_denies_at_the_top_level_and_gates_its_file_tools_by_file_path() {
    let (mut e, mut fs) = governed("gemini");
    select(&mut e, &mut fs);
    for (name, input) in [
        (
            "write_file",
            json!({"file_path": "/w/docs/x.md", "content": "x"}),
        ),
        (
            "replace",
            json!({"file_path": "/w/docs/x.md", "old_string": "a", "new_string": "b", "allow_multiple": true}),
        ),
        // a decoy: Gemini writes `file_path`; `path` (another host's key) names an owned file
        (
            "write_file",
            json!({"file_path": "/w/docs/x.md", "path": "/w/src/auth/a.ts", "content": "x"}),
        ),
        // a tool Gemini may add later, and a name in another case: not known to read only
        ("write_files_v2", json!({"file_path": "/w/src/auth/a.ts"})),
    ] {
        let r = event(
            &mut e,
            &mut fs,
            "BeforeTool",
            tool("BeforeTool", name, input, None),
        );
        if name == "write_files_v2" {
            // default deny belongs to the gate's profile rule: here only the shape is checked
            if r["decision"] != "deny" {
                continue;
            }
        }
        assert_eq!(r["decision"], "deny", "{name}: {r}");
        let v = parsed(&r);
        assert_eq!(v["decision"], "deny", "{v}");
        assert!(v["reason"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
        assert!(v.get("hookSpecificOutput").is_none(), "{v}");
    }
    let inside = json!({"file_path": "/w/src/auth/a.ts", "content": "x\n"});
    let ok = event(
        &mut e,
        &mut fs,
        "BeforeTool",
        tool("BeforeTool", "write_file", inside.clone(), None),
    );
    assert_eq!(text(&ok), "{}", "{ok}");
    fs.file("/w/src/auth/a.ts", "x\n");
    // AfterTool sends no call id: the same one is derived from the tool and its input
    let after = event(
        &mut e,
        &mut fs,
        "AfterTool",
        tool("AfterTool", "write_file", inside, None),
    );
    assert_eq!(
        after["recorded"], "00112233-4455-4677-8899-aabbccddeeff",
        "{after}"
    );
    // the read-only tools run
    let read = tool(
        "BeforeTool",
        "read_file",
        json!({"file_path": "/w/docs/x.md"}),
        None,
    );
    assert_eq!(text(&event(&mut e, &mut fs, "BeforeTool", read)), "{}");
    // Gemini's own name for hookwise's MCP tool
    let own = tool(
        "BeforeTool",
        "mcp_hookwise_select_active_intent",
        json!({"intent_id": "X"}),
        None,
    );
    assert_eq!(text(&event(&mut e, &mut fs, "BeforeTool", own)), "{}");
    // a PreCompress (advisory, before every request) is not hooked: {}
    assert_eq!(
        text(&event(
            &mut e,
            &mut fs,
            "PreCompress",
            json!({"session_id": "s1"})
        )),
        "{}"
    );
}

fn knowledge(host: &str) -> Engine {
    let mut e = crate::command_hook::engine();
    let init =
        json!({"hook": "init", "env": {"PATH": "/bin"}, "cwd": "/w", "mcp": false, "host": host});
    let r = drive_with(&mut e, &init.to_string(), cli_host);
    assert_eq!(r["discovery"]["path"], "/bin/maenifold", "{r}");
    e
}

fn k_event(e: &mut Engine, event: &str, input: Value) -> Value {
    let call = json!({"hook": "hook.event", "event": event, "input": input,
                      "random": "00112233445566778899aabbccddeeff", "nowMs": 1_700_000_000_000u64});
    drive_with(e, &call.to_string(), cli_host)
}

#[test]
fn knowledge_context_goes_with_the_result_where_pre_tool_context_does_not_reach_the_model() {
    for (host, pre, post, shell, ptr) in [
        (
            "codex",
            "PreToolUse",
            "PostToolUse",
            "Bash",
            "/hookSpecificOutput/additionalContext",
        ),
        (
            "gemini",
            "BeforeTool",
            "AfterTool",
            "run_shell_command",
            "/hookSpecificOutput/additionalContext",
        ),
        (
            "copilot",
            "PreToolUse",
            "PostToolUse",
            "bash",
            "/additionalContext",
        ),
        (
            "qwen",
            "PreToolUse",
            "PostToolUse",
            "run_shell_command",
            "/hookSpecificOutput/additionalContext",
        ),
    ] {
        let mut e = knowledge(host);
        let input = json!({"command": "grep -r token src # [[auth]]"});
        let id = (host != "gemini").then_some("k1");
        let r = k_event(&mut e, pre, tool(pre, shell, input.clone(), id));
        assert_eq!(text(&r), "{}", "{host}: the command runs unchanged: {r}");
        let a = k_event(&mut e, post, tool(post, shell, input, id));
        let v = parsed(&a);
        let ctx = v
            .pointer(ptr)
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("{host}: {v}"));
        assert!(ctx.contains("Tokens are RS256-signed"), "{host}: {ctx}");
        if host == "codex" {
            codex_valid(post, text(&a)).unwrap();
        }
    }
}

#[test]
fn session_start_and_compaction_in_each_dialect() {
    // Qwen: an empty follow-up prompt answers nothing; PreCompact guidance as context;
    // SessionStart(compact) brings what was kept
    let mut e = knowledge("qwen");
    let empty = k_event(
        &mut e,
        "UserPromptSubmit",
        json!({"session_id": "s1", "prompt": ""}),
    );
    assert_eq!(text(&empty), "{}");
    let pc = k_event(
        &mut e,
        "PreCompact",
        json!({"session_id": "s1", "trigger": "auto"}),
    );
    let g = parsed(&pc);
    assert!(
        g.pointer("/hookSpecificOutput/additionalContext")
            .and_then(Value::as_str)
            .is_some_and(|t| t.contains("auth")),
        "{g}"
    );
    let s = k_event(
        &mut e,
        "SessionStart",
        json!({"session_id": "s1", "source": "compact"}),
    );
    assert!(text(&s).contains("[[auth]]"), "{s}");
    // Codex: PreCompact answers nothing; what was kept comes with the next prompt's context
    let mut e = knowledge("codex");
    let pc = k_event(
        &mut e,
        "PreCompact",
        json!({"session_id": "s1", "trigger": "auto"}),
    );
    assert_eq!(text(&pc), "{}");
    assert!(pc["memory"].as_str().is_some(), "the memory is saved: {pc}");
    let p = k_event(
        &mut e,
        "UserPromptSubmit",
        json!({"session_id": "s1", "prompt": "go on"}),
    );
    codex_valid("UserPromptSubmit", text(&p)).unwrap();
    assert!(
        text(&p).contains("Knowledge kept through compaction"),
        "{p}"
    );
    // Codex and Copilot: the session's start context on SessionStart, in their places
    for (host, ptr) in [
        ("codex", "/hookSpecificOutput/additionalContext"),
        ("copilot", "/additionalContext"),
    ] {
        let mut e = knowledge(host);
        let s = k_event(
            &mut e,
            "SessionStart",
            json!({"session_id": "s9", "source": "startup"}),
        );
        if text(&s) != "{}" {
            assert!(parsed(&s).pointer(ptr).is_some(), "{host}: {s}");
        }
        if host == "codex" {
            codex_valid("SessionStart", text(&s)).unwrap();
        }
    }
}

#[test]
fn copilot_and_qwen_gate_their_own_file_tools_and_keys() {
    for (host, name, input) in [
        (
            "copilot",
            "create",
            json!({"path": "/w/docs/x.md", "file_text": "x"}),
        ),
        (
            "copilot",
            "edit",
            json!({"path": "/w/docs/x.md", "old_str": "a", "new_str": "b"}),
        ),
        (
            "copilot",
            "str_replace_editor",
            json!({"command": "create", "path": "/w/docs/x.md", "file_text": "x"}),
        ),
        // Copilot writes `path`; a `file_path` decoy naming an owned file is refused
        (
            "copilot",
            "create",
            json!({"path": "/w/docs/x.md", "file_path": "/w/src/auth/a.ts", "file_text": "x"}),
        ),
        (
            "qwen",
            "write_file",
            json!({"file_path": "/w/docs/x.md", "content": "x"}),
        ),
        (
            "qwen",
            "edit",
            json!({"file_path": "/w/docs/x.md", "old_string": "a", "new_string": "b"}),
        ),
        (
            "qwen",
            "notebook_edit",
            json!({"notebook_path": "/w/n.ipynb", "new_source": "x"}),
        ),
    ] {
        let (mut e, mut fs) = governed(host);
        select(&mut e, &mut fs);
        let r = event(
            &mut e,
            &mut fs,
            "PreToolUse",
            tool("PreToolUse", name, input.clone(), Some("t1")),
        );
        assert_eq!(r["decision"], "deny", "{host} {name} {input}: {r}");
        let v = parsed(&r);
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    }
    // inside the scope, each runs
    for (host, name, input) in [
        (
            "copilot",
            "create",
            json!({"path": "/w/src/auth/a.ts", "file_text": "x"}),
        ),
        ("copilot", "Bash", json!({"command": "ls src/auth"})),
        (
            "qwen",
            "write_file",
            json!({"file_path": "/w/src/auth/a.ts", "content": "x"}),
        ),
    ] {
        let (mut e, mut fs) = governed(host);
        select(&mut e, &mut fs);
        let r = event(
            &mut e,
            &mut fs,
            "PreToolUse",
            tool("PreToolUse", name, input, Some("t2")),
        );
        assert_ne!(r["decision"], "deny", "{host} {name}: {r}");
    }
}

#[test]
fn hostile_payloads_never_panic_in_any_dialect() {
    for host in ["codex", "gemini", "copilot", "qwen"] {
        let (mut e, mut fs) = governed(host);
        let d = crate::hosts::dialect_of(host).unwrap();
        for (name, _) in d.events {
            for input in [
                json!(null),
                json!("text"),
                json!([1, 2]),
                json!({"tool_name": 7, "tool_input": "{not json", "session_id": {"a": 1}}),
                json!({"tool_name": "write_file", "tool_input": [1], "prompt": null}),
            ] {
                let r = event(&mut e, &mut fs, name, input);
                assert!(r["text"].is_string(), "{host} {name}: {r}");
                if host == "codex" {
                    codex_valid(name, text(&r)).unwrap();
                }
            }
        }
    }
}

/// Gemini CLI and Copilot CLI name no model in their hooks: the record takes the model of the
/// latest model turn in the session's log (Gemini: the payload's transcript; Copilot: its
/// session events under `$COPILOT_HOME` or `~/.copilot`); no log, no model named.
#[test]
fn gemini_and_copilot_records_name_the_model_of_their_session_log() {
    let cases = [
        (
            "gemini",
            "BeforeTool",
            "AfterTool",
            "write_file",
            json!({"file_path": "/w/src/auth/a.ts", "content": "x\n"}),
            "/h/t.jsonl",
            "{\"type\":\"user\",\"model\":\"no\"}\n{\"type\":\"gemini\",\"content\":\"\",\"model\":\"gemini-2.5-pro\"}\n",
            json!({}),
            "gemini-2.5-pro",
        ),
        (
            "copilot",
            "PreToolUse",
            "PostToolUse",
            "Write",
            json!({"path": "/w/src/auth/a.ts", "file_text": "x\n"}),
            "/home/u/.copilot/session-state/s1/events.jsonl",
            "{\"type\":\"assistant.message\",\"data\":{\"model\":\"gpt-5-mini\"}}\n{\"type\":\"hook.start\",\"data\":{}}\n",
            json!({"HOME": "/home/u"}),
            "gpt-5-mini",
        ),
    ];
    for (host, pre, post, name, input, log_path, log, env, model) in cases {
        // a log, no log, a log with no model turn yet (read again, twice, then none named)
        for (with_log, no_turn) in [(true, false), (false, false), (false, true)] {
            let (mut e, mut fs) = governed(host);
            select(&mut e, &mut fs);
            if with_log {
                fs.file(log_path, log);
            }
            if no_turn {
                fs.file(log_path, "{\"type\":\"hook.start\",\"data\":{}}\n");
            }
            let send = |e: &mut Engine, fs: &mut TestHost, ev: &str, mut p: Value| {
                p["hook_event_name"] = json!(ev);
                call(
                    e,
                    fs,
                    json!({"hook": "hook.event", "event": ev, "input": p, "env": env,
                           "random": "00112233445566778899aabbccddeeff", "nowMs": 1_700_000_000_000u64}),
                )
            };
            let payload = tool(pre, name, input.clone(), Some("c1"));
            let r = send(&mut e, &mut fs, pre, payload.clone());
            assert_ne!(r["decision"], "deny", "{host}: {r}");
            fs.file("/w/src/auth/a.ts", "x\n");
            let mut done = payload;
            done["tool_response"] = json!({"llmContent": "ok"});
            let r = send(&mut e, &mut fs, post, done);
            assert!(r.get("recorded").is_some(), "{host}: {r}");
            let trace = fs
                .trace("/w")
                .unwrap()
                .to_string();
            let rec: Value = serde_json::from_str(trace.lines().next().unwrap()).unwrap();
            let c = &rec["files"][0]["conversations"][0]["contributor"];
            if with_log {
                assert_eq!(c["model_id"], model, "{host}: {rec}");
            } else {
                assert!(c.get("model_id").is_none(), "{host}: {rec}");
            }
        }
    }
}

/// Issue 38: a governed shell runs under the confining launcher — each host's rewrite key —
/// and Qwen Code, which cannot rewrite, refuses it with the reason.
#[test]
fn a_governed_shell_is_rewritten_under_the_launcher_or_refused() {
    for (host, ev, name, key) in [
        ("claude-code", "PreToolUse", "Bash", "/hookSpecificOutput/updatedInput/command"),
        ("codex", "PreToolUse", "Bash", "/hookSpecificOutput/updatedInput/command"),
        ("gemini", "BeforeTool", "run_shell_command", "/hookSpecificOutput/tool_input/command"),
        ("copilot", "PreToolUse", "Bash", "/hookSpecificOutput/updatedInput/command"),
    ] {
        let (mut e, mut fs) = governed(host);
        select(&mut e, &mut fs);
        let r = event(
            &mut e,
            &mut fs,
            ev,
            tool(ev, name, json!({"command": "echo 'hi' > src/auth/x"}), Some("t9")),
        );
        let v = parsed(&r);
        let cmd = v.pointer(key).and_then(Value::as_str).unwrap_or_else(|| panic!("{host}: {v}"));
        assert!(
            cmd.starts_with("'/i/node_modules/@hookwise/cli-linux-x64/bin/hookwise-native' sandbox '--project' '/w' '--write-dir' '/w/src/auth'"),
            "{host}: {cmd}"
        );
        assert!(cmd.contains("'--deny' '/w/.orchestration'") && cmd.contains("'--deny' '/w/.git'"), "{cmd}");
        assert!(cmd.ends_with(" -- \"${BASH:-/bin/sh}\" -c 'echo '\\''hi'\\'' > src/auth/x'"), "{cmd}");
    }
    let (mut e, mut fs) = governed("qwen");
    select(&mut e, &mut fs);
    let r = event(
        &mut e,
        &mut fs,
        "PreToolUse",
        tool("PreToolUse", "run_shell_command", json!({"command": "ls"}), Some("t9")),
    );
    assert_eq!(r["decision"], "deny", "{r}");
    assert!(text(&r).contains("confined by the kernel") && text(&r).contains("qwen cannot change"), "{r}");
}

/// Issue 38: Gemini CLI and Copilot CLI name no call id and hand their post-tool hook the
/// REWRITTEN input; the call is keyed by what the model asked for, so the note about the
/// confinement reaches the model with the result, and the guard's after-check runs.
#[test]
fn a_confined_shell_without_a_call_id_meets_its_post_tool_hook() {
    for (host, pre, post, name, key) in [
        ("gemini", "BeforeTool", "AfterTool", "run_shell_command", "/hookSpecificOutput/tool_input"),
        ("copilot", "PreToolUse", "PostToolUse", "bash", "/hookSpecificOutput/updatedInput"),
    ] {
        let (mut e, mut fs) = governed(host);
        select(&mut e, &mut fs);
        let input = json!({"command": "echo 'hi' > src/auth/x", "description": "d"});
        let r = event(&mut e, &mut fs, pre, tool(pre, name, input.clone(), None));
        let v = parsed(&r);
        let mut rewritten = input.clone();
        let new = v.pointer(key).unwrap_or_else(|| panic!("{host}: {v}"));
        rewritten["command"] = new["command"].clone();
        assert_ne!(rewritten, input, "{host}: {v}");
        let mut done = tool(post, name, rewritten, None);
        done["tool_response"] = json!({"llmContent": "ok"});
        let r = event(&mut e, &mut fs, post, done);
        assert!(
            text(&r).contains("runs confined by the kernel (landlock abi 7)"),
            "{host}: the note is not with the result: {r}"
        );
    }
    // a command that merely looks wrapped is keyed by what it says it runs; one that does not
    // parse back is keyed by itself
    assert_eq!(
        crate::governance::confine::unwrap("'/x' sandbox '--project' '/w' -- \"${BASH:-/bin/sh}\" -c 'echo '\\''a'\\'''"),
        Some("echo 'a'".into())
    );
    assert_eq!(crate::governance::confine::unwrap("'/x' sandbox -- \"${BASH:-/bin/sh}\" -c 'a'b'"), None);
    assert_eq!(crate::governance::confine::unwrap("echo hi"), None);
}

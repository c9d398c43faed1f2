//! Every answer each dialect can write, in the shape its host honours; Codex's against its
//! output schemas.

use serde_json::{json, Value};

use crate::host::answer::*;
use crate::host::dialect::{Dialect, Event};

/// Every answer the core can give, with awkward texts (quotes, tags, an empty one).
fn answers() -> Vec<Answer> {
    let tricky = "R \"quoted\" <intent_context>&amp;</intent_context>\n\u{2028}end".to_string();
    vec![
        Answer::Nothing,
        Answer::Deny {
            reason: tricky.clone(),
        },
        Answer::Deny { reason: "".into() },
        Answer::Allow {
            context: None,
            rewrite: None,
        },
        Answer::Allow {
            context: Some(tricky.clone()),
            rewrite: None,
        },
        Answer::Allow {
            context: Some(tricky.clone()),
            rewrite: Some(json!({"prompt": "x", "tool_input": {"a": 1}})),
        },
        Answer::Allow {
            context: None,
            rewrite: Some(json!({"command": "echo REWRITTEN"})),
        },
        Answer::Context(tricky.clone()),
        Answer::Context("  \n".into()),
        Answer::Guidance(tricky),
        Answer::Guidance(String::new()),
    ]
}

/// Codex's output schemas, written from reading `openai/codex`
/// `codex-rs/hooks/schema/generated/{pre-tool-use,post-tool-use,session-start,
/// user-prompt-submit,pre-compact,post-compact}.command.output.schema.json` (0.17x): the keys
/// each allows at the top and in `hookSpecificOutput`, every level closed
/// (`additionalProperties: false`), `hookEventName` required. (Narrowed to this validator's
/// keywords: `hookEventName` as an enum of the event's own name, nulls left out — hookwise
/// writes none.)
fn codex_schema(event: &str) -> Value {
    let common = json!({
        "continue": {"type": "boolean"},
        "stopReason": {"type": "string"},
        "suppressOutput": {"type": "boolean"},
        "systemMessage": {"type": "string"},
    });
    let mut top = common.as_object().unwrap().clone();
    let hso = match event {
        "PreToolUse" => Some(json!({
            "hookEventName": {"type": "string", "enum": ["PreToolUse"]},
            "permissionDecision": {"type": "string", "enum": ["allow", "deny", "ask"]},
            "permissionDecisionReason": {"type": "string"},
            "updatedInput": {},
            "additionalContext": {"type": "string"},
        })),
        "PostToolUse" => {
            top.insert(
                "decision".into(),
                json!({"type": "string", "enum": ["block"]}),
            );
            top.insert("reason".into(), json!({"type": "string"}));
            Some(json!({
                "hookEventName": {"type": "string", "enum": ["PostToolUse"]},
                "additionalContext": {"type": "string"},
                "updatedMCPToolOutput": {},
                "updatedToolOutput": {},
            }))
        }
        "SessionStart" => Some(json!({
            "hookEventName": {"type": "string", "enum": ["SessionStart"]},
            "additionalContext": {"type": "string"},
            "env": {"type": "object", "additionalProperties": {"type": "string"}},
        })),
        "UserPromptSubmit" => {
            top.insert(
                "decision".into(),
                json!({"type": "string", "enum": ["block"]}),
            );
            top.insert("reason".into(), json!({"type": "string"}));
            Some(json!({
                "hookEventName": {"type": "string", "enum": ["UserPromptSubmit"]},
                "additionalContext": {"type": "string"},
            }))
        }
        "PreCompact" | "PostCompact" => None,
        other => panic!("no Codex schema for {other}"),
    };
    if let Some(props) = hso {
        top.insert(
            "hookSpecificOutput".into(),
            json!({"type": "object", "additionalProperties": false,
                   "required": ["hookEventName"], "properties": props}),
        );
    }
    json!({"type": "object", "additionalProperties": false, "properties": top})
}

pub(crate) fn codex_valid(event: &str, text: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}: {text}"))?;
    let (_, issues) = crate::enforce::schema::validate_with(&codex_schema(event), &v, "codex");
    if issues.is_empty() {
        Ok(())
    } else {
        Err(format!("{text}: {issues:?}"))
    }
}

#[test]
fn every_codex_answer_is_valid_against_its_event_schema() {
    let d = &crate::hosts::codex::DIALECT;
    let mut n = 0;
    for (name, kind) in d.events {
        for a in answers() {
            let text = render(d, name, *kind, a.clone());
            codex_valid(name, &text).unwrap_or_else(|e| panic!("{name} {a:?}: {e}"));
            n += 1;
        }
    }
    assert_eq!(n, d.events.len() * answers().len());
    // and the schema does catch what Codex drops: another host's keys
    for (event, bad) in [
        (
            "PreToolUse",
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {}, "tool_input": {}}}),
        ),
        ("PreToolUse", json!({"decision": "deny", "reason": "R"})),
        (
            "PostToolUse",
            json!({"additionalContext": "x", "hookSpecificOutput": {"hookEventName": "PostToolUse"}}),
        ),
        (
            "PreCompact",
            json!({"hookSpecificOutput": {"hookEventName": "PreCompact", "additionalContext": "x"}}),
        ),
        (
            "SessionStart",
            json!({"hookSpecificOutput": {"additionalContext": "x"}}),
        ),
    ] {
        assert!(codex_valid(event, &bad.to_string()).is_err(), "{bad}");
    }
}

#[test]
fn a_codex_deny_blocks_and_a_rewrite_runs_with_an_allow() {
    let d = &crate::hosts::codex::DIALECT;
    let deny: Value = serde_json::from_str(&deny(d, "R")).unwrap();
    assert_eq!(
        deny,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "R"}})
    );
    let rw = Answer::Allow {
        context: Some("ctx".into()),
        rewrite: Some(json!({"command": "x"})),
    };
    let v: Value = serde_json::from_str(&render(d, "PreToolUse", Event::PreTool, rw)).unwrap();
    assert_eq!(
        v,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "x"}}}),
        "PreToolUse context does not reach Codex's model: none is written"
    );
    let c = render(
        d,
        "PostToolUse",
        Event::PostTool,
        Answer::Context("C".into()),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&c).unwrap(),
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "C"}})
    );
    assert_eq!(
        render(
            d,
            "PreCompact",
            Event::PreCompact,
            Answer::Guidance("G".into())
        ),
        "{}"
    );
}

fn parsed(d: &Dialect, name: &str, kind: Event, a: Answer) -> Value {
    serde_json::from_str(&render(d, name, kind, a)).expect("JSON")
}

#[test]
fn gemini_blocks_at_the_top_level_and_reads_context_in_hook_specific_output() {
    let d = &crate::hosts::gemini::DIALECT;
    let deny = parsed(
        d,
        "BeforeTool",
        Event::PreTool,
        Answer::Deny { reason: "R".into() },
    );
    assert_eq!(deny, json!({"decision": "deny", "reason": "R"}));
    let rw = Answer::Allow {
        context: Some("ctx".into()),
        rewrite: Some(json!({"command": "x"})),
    };
    assert_eq!(
        parsed(d, "BeforeTool", Event::PreTool, rw),
        json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "x"}}})
    );
    for (name, kind) in [
        ("AfterTool", Event::PostTool),
        ("BeforeAgent", Event::Prompt),
        ("SessionStart", Event::SessionStart),
    ] {
        assert_eq!(
            parsed(d, name, kind, Answer::Context("<b>&".into())),
            json!({"hookSpecificOutput": {"hookEventName": name, "additionalContext": "<b>&"}}),
            "the host escapes it"
        );
    }
    // no answer of Gemini's carries Claude's keys, which it ignores
    for (name, kind) in d.events {
        for a in answers() {
            let t = render(d, name, *kind, a);
            for k in ["permissionDecision", "updatedInput"] {
                assert!(!t.contains(k), "{name}: {t}");
            }
        }
    }
}

#[test]
fn copilot_reads_context_only_at_the_top_level() {
    let d = &crate::hosts::copilot::DIALECT;
    for (name, kind) in [
        ("PostToolUse", Event::PostTool),
        ("UserPromptSubmit", Event::Prompt),
        ("SessionStart", Event::SessionStart),
    ] {
        assert_eq!(
            parsed(d, name, kind, Answer::Context("C".into())),
            json!({"additionalContext": "C"})
        );
    }
    assert_eq!(
        parsed(
            d,
            "PreToolUse",
            Event::PreTool,
            Answer::Deny { reason: "R".into() }
        ),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "R"}})
    );
    for (name, kind) in d.events {
        for a in answers() {
            let v: Value = serde_json::from_str(&render(d, name, *kind, a)).unwrap();
            assert!(
                v.pointer("/hookSpecificOutput/additionalContext").is_none(),
                "{name}: {v}"
            );
        }
    }
}

#[test]
fn qwen_never_writes_a_rewrite_it_would_not_apply() {
    let d = &crate::hosts::qwen::DIALECT;
    for (name, kind) in d.events {
        for a in answers() {
            let t = render(d, name, *kind, a);
            assert!(
                !t.contains("updatedInput") && !t.contains("tool_input"),
                "{t}"
            );
        }
    }
    assert_eq!(
        parsed(
            d,
            "PreToolUse",
            Event::PreTool,
            Answer::Deny { reason: "R".into() }
        ),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "R"}})
    );
    assert_eq!(
        parsed(
            d,
            "PreCompact",
            Event::PreCompact,
            Answer::Guidance("G".into())
        ),
        json!({"hookSpecificOutput": {"hookEventName": "PreCompact", "additionalContext": "G"}})
    );
}

#[test]
fn claude_code_answers_as_before() {
    let d = &crate::hosts::claude::DIALECT;
    assert_eq!(
        parsed(
            d,
            "PreToolUse",
            Event::PreTool,
            Answer::Deny { reason: "R".into() }
        ),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "R"}})
    );
    let rw = Answer::Allow {
        context: Some("ctx".into()),
        rewrite: Some(json!({"prompt": "p"})),
    };
    assert_eq!(
        parsed(d, "PreToolUse", Event::PreTool, rw),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"prompt": "p"}, "additionalContext": "ctx"}}),
        "no permission decision: Claude Code's own rules (and the user) still decide"
    );
    assert_eq!(
        render(
            d,
            "PreCompact",
            Event::PreCompact,
            Answer::Guidance("G".into())
        ),
        "G",
        "PreCompact's plain text"
    );
    assert_eq!(
        render(d, "PreCompact", Event::PreCompact, Answer::Nothing),
        ""
    );
    assert_eq!(
        render(d, "PostToolUse", Event::PostTool, Answer::Nothing),
        "{}"
    );
    assert_eq!(
        render(
            d,
            "PostToolUse",
            Event::PostTool,
            Answer::Context(" ".into())
        ),
        "{}"
    );
}

#[test]
fn every_dialect_can_deny_and_each_deny_names_the_reason() {
    for d in crate::hosts::dialects() {
        let t = deny(d, "the reason");
        assert!(t.contains("the reason"), "{}: {t}", d.host);
        assert!(d.name_of(Event::PreTool).is_some(), "{}", d.host);
        // every dialect's host has a profile
        assert!(crate::hosts::by_id(d.host).is_some(), "{}", d.host);
    }
}

//! Where Gemini CLI, Copilot CLI and Claude Code keep the session's model (their dialects'
//! model logs), read as a hostile log or payload would make them.
use serde_json::{json, Value};

use crate::host::model_log::ModelLog;

fn log(host: &str) -> ModelLog {
    crate::hosts::dialect_of(host).and_then(|d| d.model_log).expect("a model log")
}

fn model(host: &str, text: &str) -> Option<String> {
    (log(host).model)(text)
}

fn path(host: &str, payload: &Value, env: &Value) -> Option<String> {
    (log(host).path)(payload, env)
}

#[test]
fn gemini_the_latest_model_turn_of_the_transcript() {
    let text = concat!(
        "t\":\"cut short\"}\n",
        "{\"sessionId\":\"s\",\"projectHash\":\"h\"}\n",
        "{\"id\":\"1\",\"type\":\"user\",\"content\":[{\"text\":\"go\"}],\"model\":\"not-a-turn\"}\n",
        "{\"id\":\"2\",\"type\":\"gemini\",\"content\":\"\",\"model\":\"gemini-2.5-pro\"}\n",
        "{\"id\":\"3\",\"type\":\"gemini\",\"content\":\"\",\"model\":\"gemini-2.5-flash\"}\n",
        "{\"$set\":{\"lastUpdated\":\"x\"}}\n",
    );
    assert_eq!(
        model("gemini", text).as_deref(),
        Some("gemini-2.5-flash")
    );
    assert_eq!(
        model("gemini", "{\"type\":\"user\"}\n"),
        None
    );
    assert_eq!(
        model(
            "gemini",
            "garbage\n{\"type\":\"gemini\",\"model\":7}"
        ),
        None
    );
    assert_eq!(
        model(
            "gemini",
            "{\"type\":\"gemini\",\"model\":\"a\\nb\"}"
        ),
        None
    );
    let p = json!({"transcript_path": "/h/.gemini/tmp/p/chats/session-1.jsonl"});
    assert_eq!(
        path("gemini", &p, &json!({})).as_deref(),
        Some("/h/.gemini/tmp/p/chats/session-1.jsonl")
    );
    assert_eq!(
        path(
            "gemini",
            &json!({"transcript_path": "rel.jsonl"}),
            &json!({})
        ),
        None
    );
    assert_eq!(
        path(
            "gemini",
            &json!({"transcript_path": "/etc/passwd"}),
            &json!({})
        ),
        None
    );
}

#[test]
fn claude_the_latest_assistant_turn_of_the_transcript() {
    let text = concat!(
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"go\"}}\n",
        "{\"type\":\"assistant\",\"message\":{\"model\":\"claude-opus-5-5\",\"content\":[]}}\n",
        "{\"type\":\"assistant\",\"message\":{\"model\":\"<synthetic>\",\"content\":[]}}\n",
        "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\"}]}}\n",
    );
    assert_eq!(
        model("claude-code", text).as_deref(),
        Some("claude-opus-5-5")
    );
    // another host's turn shape names nothing here
    assert_eq!(
        model("claude-code", "{\"type\":\"gemini\",\"model\":\"g\"}"),
        None
    );
    let p = json!({"transcript_path": "/h/.claude/projects/-w-p/s.jsonl"});
    assert_eq!(
        path("claude-code", &p, &json!({})).as_deref(),
        Some("/h/.claude/projects/-w-p/s.jsonl")
    );
}

#[test]
fn copilot_the_latest_assistant_message_of_the_session_events() {
    let text = concat!(
        "{\"type\":\"session.start\",\"data\":{\"selectedModel\":\"old\"}}\n",
        "{\"type\":\"assistant.message\",\"data\":{\"model\":\"gpt-5\",\"content\":\"\"}}\n",
        "{\"type\":\"hook.start\",\"data\":{\"hookType\":\"postToolUse\"}}\n",
    );
    assert_eq!(
        model("copilot", text).as_deref(),
        Some("gpt-5")
    );
    let p = json!({"session_id": "ead736e4-64fd-48e6-9f94-ff2b277953fa"});
    assert_eq!(
        path("copilot", &p, &json!({"HOME": "/home/u/"})).as_deref(),
        Some(
            "/home/u/.copilot/session-state/ead736e4-64fd-48e6-9f94-ff2b277953fa/events.jsonl"
        )
    );
    assert_eq!(
        path(
            "copilot",
            &p,
            &json!({"COPILOT_HOME": "/c", "HOME": "/home/u"})
        )
        .as_deref(),
        Some("/c/session-state/ead736e4-64fd-48e6-9f94-ff2b277953fa/events.jsonl")
    );
    // a session id from the payload never walks out of the folder
    for bad in ["../../etc", "a/b", "", ".."] {
        assert_eq!(
            path(
                "copilot",
                &json!({"session_id": bad}),
                &json!({"HOME": "/h"})
            ),
            None,
            "{bad}"
        );
    }
    assert_eq!(
        path("copilot", &p, &json!({"HOME": "rel"})),
        None
    );
    assert_eq!(path("copilot", &p, &json!({})), None);
}

#[test]
fn hosts_whose_payload_names_the_model_read_no_log() {
    for host in ["codex", "qwen"] {
        assert!(crate::hosts::dialect_of(host).unwrap().model_log.is_none(), "{host}");
    }
}

//! Where a command-hook host that sends its hooks no model id keeps one a hook can read: the
//! log of the session it writes as it goes (checked against the real CLIs with a probe hook,
//! and by each host's suite in `tests/e2e-<host>/`). The core reads the log's end (a `readTail`
//! request) when it writes an Agent Trace record, and takes the model of the latest model turn:
//! the model that made the call being recorded, also after a fallback to another model.
//!
//! - **Gemini CLI 0.61.0**: the payload's `transcript_path` (`~/.gemini/tmp/<project>/chats/
//!   session-….jsonl`), one JSON object per line; a model turn is `{"type": "gemini", "model":
//!   M, …}`, written before the turn's tools run (BeforeTool and AfterTool see it).
//! - **GitHub Copilot CLI 1.0.102**: `<config>/session-state/<session_id>/events.jsonl`, with
//!   `<config>` its configuration folder: `$COPILOT_HOME`, else `~/.copilot` (its
//!   `--config-dir` flag is not visible to a hook: then no model is named); a model turn is
//!   `{"type": "assistant.message", "data": {"model": M, …}}` (and `tool.execution_start` names
//!   it too), written before the call's hooks run.
//! - **Claude Code**: the payload's `transcript_path` (`~/.claude/projects/<cwd-slug>/
//!   <session>.jsonl`), one JSON object per line; a model turn is `{"type": "assistant",
//!   "message": {"model": M, …}, …}`, appended as the turn streams, before its tools run. Turns
//!   Claude Code makes itself (an API error, an interruption) name the model `<synthetic>`:
//!   not a model, skipped.
//! - **Factory droid 0.225**: the payload's `transcript_path` (`~/.factory/sessions/<cwd-slug>/
//!   <session>.jsonl`); a model turn is `{"type": "message", "message": {"role": "assistant",
//!   "modelId": M, …}}` (M as droid names it: `custom:<name>-<n>` for a BYOK model), written
//!   before the turn's tools run.
//!
//! A log that is absent, unreadable, cut or of another shape names no model: the record then
//! names none, as before. The model id is a record's metadata, never an input to a decision.

use serde_json::Value;

/// The most of a log's end read (its latest turns).
pub const TAIL_BYTES: u64 = 256 * 1024;

/// Which log a host keeps its model in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelLog {
    /// The payload names the model (or nothing names it).
    None,
    /// Gemini CLI's session transcript, named by the payload's `transcript_path`.
    GeminiTranscript,
    /// Copilot CLI's session events, under its configuration folder.
    CopilotEvents,
    /// Claude Code's session transcript, named by the payload's `transcript_path`.
    ClaudeTranscript,
    /// Factory droid's session log, named by the payload's `transcript_path`.
    FactoryTranscript,
}

/// The environment variables the glue hands the core for a host's log (`env` of
/// `hook.event`): only these, and only for the host that needs them.
pub fn env_keys(log: ModelLog) -> &'static [&'static str] {
    match log {
        ModelLog::CopilotEvents => &["COPILOT_HOME", "HOME"],
        _ => &[],
    }
}

/// A session id that can name a folder (Copilot's are UUIDs): no separator, no dot-dot.
fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The log to read for a session's model: `payload` is the hook's payload, `env` the
/// variables of [`env_keys`] (absent or empty: unset). `None`: no log to read.
pub fn path(log: ModelLog, payload: &Value, env: &Value) -> Option<String> {
    let s = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    match log {
        ModelLog::None => None,
        ModelLog::GeminiTranscript | ModelLog::ClaudeTranscript | ModelLog::FactoryTranscript => {
            s(payload, "transcript_path")
                .filter(|p| crate::paths::is_absolute(p) && p.ends_with(".jsonl"))
        }
        ModelLog::CopilotEvents => {
            let id = s(payload, "session_id").filter(|i| plain_id(i))?;
            let config = s(env, "COPILOT_HOME")
                .or_else(|| s(env, "HOME").map(|h| format!("{}/.copilot", h.trim_end_matches('/'))))
                .filter(|p| crate::paths::is_absolute(p))?;
            Some(format!(
                "{}/session-state/{id}/events.jsonl",
                config.trim_end_matches('/')
            ))
        }
    }
}

/// The model of the latest model turn in the log's `text` (its end: a first line cut short is
/// skipped), if any.
pub fn model(log: ModelLog, text: &str) -> Option<String> {
    text.lines().rev().find_map(|line| {
        let line = line.trim();
        if !line.starts_with('{') {
            return None;
        }
        let v: Value = serde_json::from_str(line).ok()?;
        let m = match (log, v.get("type").and_then(Value::as_str)?) {
            (ModelLog::GeminiTranscript, "gemini") => v.get("model"),
            (ModelLog::CopilotEvents, "assistant.message" | "tool.execution_start") => {
                v.get("data").and_then(|d| d.get("model"))
            }
            (ModelLog::ClaudeTranscript, "assistant") => v.get("message").and_then(|m| m.get("model")),
            (ModelLog::FactoryTranscript, "message") => v
                .get("message")
                .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
                .and_then(|m| m.get("modelId")),
            _ => None,
        }?;
        let m = m.as_str()?.trim();
        (!m.is_empty()
            && m.len() <= 250
            && !m.chars().any(char::is_control)
            && !(log == ModelLog::ClaudeTranscript && m.starts_with('<')))
        .then(|| m.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn factory_the_latest_assistant_message_of_the_session_log() {
        let text = concat!(
            "{\"type\":\"session_start\",\"id\":\"s\"}\n",
            "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"modelId\":\"custom:A-0\"}}\n",
            "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"modelId\":\"custom:Mock-0\"}}\n",
            "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"modelId\":\"not-a-turn\"}}\n",
        );
        assert_eq!(
            model(ModelLog::FactoryTranscript, text).as_deref(),
            Some("custom:Mock-0")
        );
        let p = json!({"transcript_path": "/h/.factory/sessions/-w/s.jsonl"});
        assert!(path(ModelLog::FactoryTranscript, &p, &json!({})).is_some());
        assert!(path(ModelLog::FactoryTranscript, &json!({"transcript_path": "x.jsonl"}), &json!({})).is_none());
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
            model(ModelLog::GeminiTranscript, text).as_deref(),
            Some("gemini-2.5-flash")
        );
        assert_eq!(
            model(ModelLog::GeminiTranscript, "{\"type\":\"user\"}\n"),
            None
        );
        assert_eq!(
            model(
                ModelLog::GeminiTranscript,
                "garbage\n{\"type\":\"gemini\",\"model\":7}"
            ),
            None
        );
        assert_eq!(
            model(
                ModelLog::GeminiTranscript,
                "{\"type\":\"gemini\",\"model\":\"a\\nb\"}"
            ),
            None
        );
        assert_eq!(model(ModelLog::None, text), None);
        let p = json!({"transcript_path": "/h/.gemini/tmp/p/chats/session-1.jsonl"});
        assert_eq!(
            path(ModelLog::GeminiTranscript, &p, &json!({})).as_deref(),
            Some("/h/.gemini/tmp/p/chats/session-1.jsonl")
        );
        assert_eq!(
            path(
                ModelLog::GeminiTranscript,
                &json!({"transcript_path": "rel.jsonl"}),
                &json!({})
            ),
            None
        );
        assert_eq!(
            path(
                ModelLog::GeminiTranscript,
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
            model(ModelLog::ClaudeTranscript, text).as_deref(),
            Some("claude-opus-5-5")
        );
        // another host's turn shape names nothing here
        assert_eq!(
            model(ModelLog::ClaudeTranscript, "{\"type\":\"gemini\",\"model\":\"g\"}"),
            None
        );
        let p = json!({"transcript_path": "/h/.claude/projects/-w-p/s.jsonl"});
        assert_eq!(
            path(ModelLog::ClaudeTranscript, &p, &json!({})).as_deref(),
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
            model(ModelLog::CopilotEvents, text).as_deref(),
            Some("gpt-5")
        );
        let p = json!({"session_id": "ead736e4-64fd-48e6-9f94-ff2b277953fa"});
        assert_eq!(
            path(ModelLog::CopilotEvents, &p, &json!({"HOME": "/home/u/"})).as_deref(),
            Some(
                "/home/u/.copilot/session-state/ead736e4-64fd-48e6-9f94-ff2b277953fa/events.jsonl"
            )
        );
        assert_eq!(
            path(
                ModelLog::CopilotEvents,
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
                    ModelLog::CopilotEvents,
                    &json!({"session_id": bad}),
                    &json!({"HOME": "/h"})
                ),
                None,
                "{bad}"
            );
        }
        assert_eq!(
            path(ModelLog::CopilotEvents, &p, &json!({"HOME": "rel"})),
            None
        );
        assert_eq!(path(ModelLog::CopilotEvents, &p, &json!({})), None);
    }
}

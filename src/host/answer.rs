//! A hook's answer, written in exactly the shape its host honours.
//!
//! The core decides an [`Answer`] once; [`render`] writes it with the dialect's `render`,
//! through one set of types per host (in its file under `crate::hosts`), each holding only the keys that host reads for that
//! event. So an answer a host would drop cannot be written for it: Codex validates every
//! answer against its output schemas (`additionalProperties: false` at every level, a
//! different schema per event) and drops an answer carrying a key it does not know — a deny
//! written with another host's key would not block; Gemini CLI ignores Claude's
//! `permissionDecision`; Copilot CLI ignores context inside `hookSpecificOutput`; Qwen Code
//! never applies a rewritten input.

use serde::Serialize;
use serde_json::Value;

use super::dialect::{Dialect, Event};

/// What the core answers to one hook event.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Nothing to say (`{}`; PreCompact in Claude Code: no added instructions).
    Nothing,
    /// PreToolUse: the call does not run; the model reads the reason.
    Deny { reason: String },
    /// PreToolUse: the call runs, with its input rewritten (the hosts that apply one: Claude
    /// Code, Codex, Gemini CLI, Copilot CLI) and context beside it (the hosts whose
    /// PreToolUse context reaches the model: Claude Code).
    Allow {
        context: Option<String>,
        rewrite: Option<Value>,
    },
    /// Context for the model (PostToolUse, a prompt, a session's start).
    Context(String),
    /// PreCompact: guidance for the summary (Claude Code: the hook's plain text is added to
    /// the summary request's instructions; Qwen Code: `additionalContext` before compaction).
    Guidance(String),
}

/// A text worth sending (none when blank).
pub fn some(s: Option<String>) -> Option<String> {
    s.filter(|t| !t.trim().is_empty())
}

/// The answer as the host reads it: JSON (or Claude Code's PreCompact plain text). `event` is
/// the host's own name for the event; `kind` what it is to the core.
pub fn render(d: &Dialect, event: &str, kind: Event, a: Answer) -> String {
    (d.render)(event, kind, a)
}

/// The PreToolUse deny of a host, with `reason` (what `hookwise hook` answers when it cannot
/// decide and governance or enforcement is on; pinned for the JS glue in
/// `js/hook-deny.json`).
pub fn deny(d: &Dialect, reason: &str) -> String {
    let event = d.name_of(Event::PreTool).unwrap_or("PreToolUse");
    render(
        d,
        event,
        Event::PreTool,
        Answer::Deny {
            reason: reason.to_string(),
        },
    )
}

/// `v` as JSON (`{}` if it cannot be).
pub fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "{}".into())
}

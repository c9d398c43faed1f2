//! Where a command-hook host that sends its hooks no model id keeps one a hook can read: the
//! log of the session it writes as it goes. A host's dialect names its [`ModelLog`] (in its
//! hosts file: which log, and how a model turn in it names the model, each checked against the
//! real CLI with a probe hook and by its suite in `tests/e2e-<host>/`); the command-hook
//! translator hands governance the log's path and that reading, and governance reads the log's
//! end (a `readTail` request) when it writes an Agent Trace record, and takes the model of the
//! latest model turn: the model that made the call being recorded, also after a fallback to
//! another model.
//!
//! A log that is absent, unreadable, cut or of another shape names no model: the record then
//! names none, as before. The model id is a record's metadata, never an input to a decision.

use serde_json::Value;

/// Where a host keeps the session's model.
#[derive(Debug, Clone, Copy)]
pub struct ModelLog {
    /// The environment variables the glue hands the core for the log (`env` of `hook.event`):
    /// only these, and only for the host that needs them.
    pub env_keys: &'static [&'static str],
    /// The log to read for a session's model: from the hook's payload and the variables of
    /// `env_keys` (absent or empty: unset). `None`: no log to read.
    pub path: fn(payload: &Value, env: &Value) -> Option<String>,
    /// The model of the latest model turn in the log's end (a first line cut short is
    /// skipped), if any.
    pub model: fn(text: &str) -> Option<String>,
}

/// A non-empty string field of `v`.
pub fn field(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The payload's `transcript_path`, when it is an absolute path to a `.jsonl` file.
pub fn transcript_path(payload: &Value, _env: &Value) -> Option<String> {
    field(payload, "transcript_path")
        .filter(|p| crate::paths::is_absolute(p) && p.ends_with(".jsonl"))
}

/// A session id that can name a folder: no separator, no dot-dot.
pub fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The model the latest JSON line of `text` that `turn` reads one from names: `turn` gets each
/// line's object, from the end, and answers the model it names (if it is a model turn). Only a
/// plain name counts (not empty, at most 250 characters, no control character).
pub fn latest(text: &str, turn: impl Fn(&Value) -> Option<&str>) -> Option<String> {
    text.lines().rev().find_map(|line| {
        let line = line.trim();
        if !line.starts_with('{') {
            return None;
        }
        let v: Value = serde_json::from_str(line).ok()?;
        let m = turn(&v)?.trim();
        (!m.is_empty() && m.len() <= 250 && !m.chars().any(char::is_control))
            .then(|| m.to_string())
    })
}

/// The `type` of a log line.
pub fn kind(v: &Value) -> Option<&str> {
    v.get("type").and_then(Value::as_str)
}

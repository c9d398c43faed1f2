//! Options and environment for session-start context and compaction. A bad value never fails
//! anything: it is reported as a warning and the default is used. Plugin options win over the
//! environment.
//!
//! | option | env | default |
//! |---|---|---|
//! | `sessionStartEnabled` | `SESSION_START_ENABLED` | `true` |
//! | `tokenLimit` | `TOKEN_LIMIT` | 4000 (100–32000; ≈4 characters a token) |
//! | `sessionStartTimeoutMs` | `SESSION_START_TIMEOUT` | 10000 (1000–60000): the whole session-start lookup |
//! | `sessionContextChannel` | `SESSION_CONTEXT_CHANNEL` | `"system"` (or `"prompt"`) |
//! | `compactionTimeoutMs` | `COMPACTION_TIMEOUT` | 4000 (500–30000): the compaction hook's budget |

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::protocol::Log;

/// The option keys this module reads (the option check in `config` knows them; the schema test checks them).
pub const OPTION_KEYS: &[&str] = &[
    "sessionStartEnabled",
    "tokenLimit",
    "sessionStartTimeoutMs",
    "sessionContextChannel",
    "compactionTimeoutMs",
];

pub const DEFAULT_TOKEN_LIMIT: usize = 4000;
pub const DEFAULT_START_TIMEOUT_MS: u64 = 10000;
pub const DEFAULT_COMPACTION_TIMEOUT_MS: u64 = 4000;

/// How the session's context reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    /// `experimental.chat.system.transform`: pushed into the system prompt of every model
    /// request of the session, including the first (the hook is awaited; it waits for a
    /// session start still running).
    System,
    /// `client.session.prompt({noReply: true})`: a user turn. Under `opencode run` it can land
    /// after the user's first prompt.
    Prompt,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SessionConfig {
    pub enabled: bool,
    /// Token limit of the session-start context (≈4 characters a token).
    pub token_limit: usize,
    /// Deadline of the whole session-start lookup (all its stages).
    pub start_timeout_ms: u64,
    pub channel: Channel,
    /// Budget of the compaction hook (fetching messages and writing the memory).
    pub compaction_timeout_ms: u64,
    /// SearchMemories `pageSize`.
    pub page_size: u32,
    /// Concepts looked up with BuildContext.
    pub top_concepts: usize,
    /// BuildContext `maxEntities` (depth is 1).
    pub max_entities: u32,
    /// ReadMemory for this many top search results …
    pub read_hits: usize,
    /// … and this many recent memories not among them.
    pub read_recent: usize,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            enabled: true,
            token_limit: DEFAULT_TOKEN_LIMIT,
            start_timeout_ms: DEFAULT_START_TIMEOUT_MS,
            channel: Channel::System,
            compaction_timeout_ms: DEFAULT_COMPACTION_TIMEOUT_MS,
            page_size: 5,
            top_concepts: 5,
            max_entities: 10,
            read_hits: 3,
            read_recent: 2,
        }
    }
}

/// A value from the options (JSON) or the environment (text), with where it came from.
enum Raw<'a> {
    Opt(&'a Value),
    Env(&'a str),
}

impl Raw<'_> {
    fn shown(&self, key: &str, env: &str) -> String {
        match self {
            Raw::Opt(v) => format!("option '{key}'={v}"),
            Raw::Env(s) => format!("{env}={s:?}"),
        }
    }
    fn as_text(&self) -> Option<&str> {
        match self {
            Raw::Opt(Value::String(s)) => Some(s),
            Raw::Env(s) => Some(s),
            _ => None,
        }
    }
    fn number(&self) -> Option<f64> {
        match self {
            Raw::Opt(Value::Number(n)) => n.as_f64(),
            _ => self
                .as_text()
                .and_then(|s| crate::decimal::parse_f64(s.trim())),
        }
    }
    fn boolean(&self) -> Option<bool> {
        match self {
            Raw::Opt(Value::Bool(b)) => Some(*b),
            _ => match self.as_text()?.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => Some(true),
                "false" | "0" | "no" | "off" => Some(false),
                _ => None,
            },
        }
    }
    fn text(&self) -> Option<String> {
        self.as_text().map(|s| s.trim().to_ascii_lowercase())
    }
}

fn pick<'a>(
    opts: &'a serde_json::Map<String, Value>,
    env: &'a BTreeMap<String, String>,
    key: &str,
    env_key: &str,
) -> Option<Raw<'a>> {
    match opts.get(key) {
        Some(v) => Some(Raw::Opt(v)),
        None => env
            .get(env_key)
            .filter(|s| !s.trim().is_empty())
            .map(|s| Raw::Env(s)),
    }
}

fn ranged(
    raw: Option<Raw>,
    key: &str,
    env_key: &str,
    (min, max, default): (f64, f64, f64),
    logs: &mut Vec<Log>,
) -> f64 {
    let Some(raw) = raw else { return default };
    match raw.number() {
        Some(n) if n.is_finite() && n > 0.0 => {
            // (not `clamp`: its assertion prints floats, and float formatting costs the lean
            // wasm several KB)
            let c = n.floor().max(min).min(max);
            if c != n.floor() {
                logs.push(Log::warn(format!(
                    "hookwise {} is outside {}–{}; using {}",
                    raw.shown(key, env_key),
                    min as i64,
                    max as i64,
                    c as i64
                )));
            }
            c
        }
        _ => {
            logs.push(Log::warn(format!(
                "hookwise {} is not a positive number; using the default {}",
                raw.shown(key, env_key),
                default as i64
            )));
            default
        }
    }
}

impl SessionConfig {
    /// Read the session options and environment. Returns the config and warnings.
    /// (Unknown option keys are the general config's business, see [`OPTION_KEYS`].)
    pub fn from_sources(options: &Value, env: &BTreeMap<String, String>) -> (Self, Vec<Log>) {
        let mut c = SessionConfig::default();
        let mut logs = Vec::new();
        let empty = serde_json::Map::new();
        let opts = options.as_object().unwrap_or(&empty);

        if let Some(raw) = pick(opts, env, "sessionStartEnabled", "SESSION_START_ENABLED") {
            match raw.boolean() {
                Some(b) => c.enabled = b,
                None => logs.push(Log::warn(format!(
                    "hookwise {} is not a boolean (true/false); using true",
                    raw.shown("sessionStartEnabled", "SESSION_START_ENABLED")
                ))),
            }
        }
        c.token_limit = ranged(
            pick(opts, env, "tokenLimit", "TOKEN_LIMIT"),
            "tokenLimit",
            "TOKEN_LIMIT",
            (100.0, 32000.0, DEFAULT_TOKEN_LIMIT as f64),
            &mut logs,
        ) as usize;
        c.start_timeout_ms = ranged(
            pick(opts, env, "sessionStartTimeoutMs", "SESSION_START_TIMEOUT"),
            "sessionStartTimeoutMs",
            "SESSION_START_TIMEOUT",
            (1000.0, 60000.0, DEFAULT_START_TIMEOUT_MS as f64),
            &mut logs,
        ) as u64;
        c.compaction_timeout_ms = ranged(
            pick(opts, env, "compactionTimeoutMs", "COMPACTION_TIMEOUT"),
            "compactionTimeoutMs",
            "COMPACTION_TIMEOUT",
            (500.0, 30000.0, DEFAULT_COMPACTION_TIMEOUT_MS as f64),
            &mut logs,
        ) as u64;
        if let Some(raw) = pick(
            opts,
            env,
            "sessionContextChannel",
            "SESSION_CONTEXT_CHANNEL",
        ) {
            match raw.text().as_deref() {
                Some("system") => c.channel = Channel::System,
                Some("prompt") => c.channel = Channel::Prompt,
                _ => logs.push(Log::warn(format!(
                    "hookwise {} must be \"system\" or \"prompt\"; using \"system\"",
                    raw.shown("sessionContextChannel", "SESSION_CONTEXT_CHANNEL")
                ))),
            }
        }
        (c, logs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults() {
        let (c, l) = SessionConfig::from_sources(&Value::Null, &env(&[]));
        assert_eq!(c, SessionConfig::default());
        assert!(l.is_empty());
        assert!(c.enabled);
        assert_eq!(c.token_limit, 4000);
        assert_eq!(c.channel, Channel::System);
    }

    #[test]
    fn env_values_and_bad_ones() {
        let (c, l) = SessionConfig::from_sources(
            &Value::Null,
            &env(&[
                ("TOKEN_LIMIT", "1500"),
                ("SESSION_START_ENABLED", "false"),
                ("SESSION_START_TIMEOUT", "3000"),
            ]),
        );
        assert_eq!(
            (c.token_limit, c.enabled, c.start_timeout_ms),
            (1500, false, 3000)
        );
        assert!(l.is_empty());

        let (c, l) = SessionConfig::from_sources(
            &Value::Null,
            &env(&[
                ("TOKEN_LIMIT", "lots"),
                ("SESSION_START_ENABLED", "maybe"),
                ("SESSION_START_TIMEOUT", "-5"),
                ("SESSION_CONTEXT_CHANNEL", "carrier-pigeon"),
            ]),
        );
        assert_eq!(c, SessionConfig::default());
        assert_eq!(l.len(), 4);
        assert!(l.iter().all(|x| x.level == crate::protocol::Level::Warn));
        assert!(
            l[0].message.contains("SESSION_START_ENABLED=\"maybe\""),
            "{l:?}"
        );
        assert!(l[1].message.contains("TOKEN_LIMIT=\"lots\""));

        let (c, l) = SessionConfig::from_sources(&Value::Null, &env(&[("TOKEN_LIMIT", "10")]));
        assert_eq!(c.token_limit, 100);
        assert!(l[0].message.contains("outside"));
        let (c, _) = SessionConfig::from_sources(&Value::Null, &env(&[("TOKEN_LIMIT", "  ")]));
        assert_eq!(c.token_limit, 4000, "blank env is unset");
    }

    #[test]
    fn options_win_over_env() {
        let (c, l) = SessionConfig::from_sources(
            &json!({"tokenLimit": 2000, "sessionStartEnabled": true, "sessionContextChannel": "Prompt", "compactionTimeoutMs": "2500"}),
            &env(&[("TOKEN_LIMIT", "900"), ("SESSION_START_ENABLED", "0")]),
        );
        assert_eq!(c.token_limit, 2000);
        assert!(c.enabled);
        assert_eq!(c.channel, Channel::Prompt);
        assert_eq!(c.compaction_timeout_ms, 2500);
        assert!(l.is_empty());
        let (c, l) = SessionConfig::from_sources(
            &json!({"tokenLimit": [1], "sessionStartEnabled": "yes please"}),
            &env(&[]),
        );
        assert_eq!((c.token_limit, c.enabled), (4000, true));
        assert_eq!(l.len(), 2);
    }
}

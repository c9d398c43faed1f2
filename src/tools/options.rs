//! The knowledge tools' options (see `schema/hookwise.schema.json`):
//! - `knowledgeTools`: `true` (default: search, context, read), `false` (none), or the names
//!   to offer (`["knowledge_search", …]`).
//! - `knowledgeRemember`: `knowledge_remember` is offered (default `false`).
//! - `knowledgeToolsBudget`: tokens (≈4 characters) one answer may take; default
//!   `tokenBudget`.

use serde_json::Value;

use super::knowledge::{NAMES, REMEMBER};
use crate::protocol::Log;

pub const OPTION_KEYS: &[&str] = &[
    "knowledgeTools",
    "knowledgeRemember",
    "knowledgeToolsBudget",
];

#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The knowledge tools picked (before `remember` is applied).
    pub picked: Vec<&'static str>,
    pub remember: bool,
    /// Tokens one answer may take.
    pub token_budget: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            picked: NAMES.iter().copied().filter(|n| *n != REMEMBER).collect(),
            remember: false,
            token_budget: 2000,
        }
    }
}

impl Settings {
    /// `token_budget`: option `tokenBudget` as the configuration read it.
    pub fn from_options(options: &Value, token_budget: usize) -> (Settings, Vec<Log>) {
        let mut s = Settings {
            token_budget,
            ..Default::default()
        };
        let mut logs = Vec::new();
        match options.get("knowledgeTools") {
            None | Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => s.picked.clear(),
            Some(Value::Array(a)) => {
                let mut picked = Vec::new();
                for v in a {
                    match v.as_str().and_then(|n| NAMES.iter().find(|k| **k == n)) {
                        Some(n) => {
                            if !picked.contains(n) {
                                picked.push(*n)
                            }
                        }
                        None => logs.push(Log::warn(format!(
                            "hookwise option 'knowledgeTools': {v} is not a knowledge tool ({}); ignored",
                            NAMES.join(", ")
                        ))),
                    }
                }
                s.picked = picked;
            }
            Some(other) => logs.push(Log::warn(format!(
                "hookwise option 'knowledgeTools' must be true, false or a list of tool names; got {other}; using true"
            ))),
        }
        match options.get("knowledgeRemember") {
            None => {}
            Some(Value::Bool(b)) => {
                s.remember = *b;
                // a list names it itself; `true` or absent: remember joins the others
                let listed = options.get("knowledgeTools").is_some_and(Value::is_array);
                if *b && !listed && !s.picked.is_empty() && !s.picked.contains(&REMEMBER) {
                    s.picked.push(REMEMBER);
                }
            }
            Some(other) => logs.push(Log::warn(format!(
                "hookwise option 'knowledgeRemember' must be a boolean; got {other}; using false"
            ))),
        }
        match options.get("knowledgeToolsBudget") {
            None => {}
            Some(v) => match v.as_f64() {
                Some(n) if (50.0..=100_000.0).contains(&n) => s.token_budget = n as usize,
                _ => logs.push(Log::warn(format!(
                    "hookwise option 'knowledgeToolsBudget' must be a number 50–100000; got {v}; using tokenBudget ({token_budget})"
                ))),
            },
        }
        (s, logs)
    }

    /// Whether the knowledge tool `name` is offered (when a source answers).
    pub fn offers(&self, name: &str) -> bool {
        self.picked.contains(&name) && (name != REMEMBER || self.remember)
    }
}

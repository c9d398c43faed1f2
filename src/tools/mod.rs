//! The model-tool registry: every tool hookwise offers the model, from one definition here
//! (name, description written for a model, JSON Schema of the input) and one entry point
//! that answers a call.
//!
//! - `init` builds a [`Registry`] from the options, the knowledge source and governance; the
//!   plan carries [`Registry::specs`] as `tools: [{name, description, inputSchema}]` and the
//!   host adapters register each one generically (OpenCode's `tool` map, OpenClaw's
//!   `api.registerTool`, the engine API's `tools()`/`callTool`).
//! - The host answers a model's call with `{"hook": "tool.call", name, input, sessionId}`;
//!   [`call`] answers `{text, isError}`: `text` is what the model reads. It never fails the
//!   host: bad input, an unknown tool, a source that cannot answer are `isError` texts.
//! - `select_active_intent` (while intent governance is on) is answered by the governance
//!   wiring; the knowledge tools ([`knowledge`]) by the knowledge source, within a budget.

pub mod knowledge;
mod options;
#[cfg(feature = "policy")]
pub mod remember;

use serde::Serialize;
use serde_json::Value;

use crate::knowledge::Source;
use crate::runtime::Io;

pub use options::{Settings, OPTION_KEYS};

/// One tool as the host offers it to the model: `{name, description, inputSchema}`, the
/// description written for the model, the input a JSON Schema (object, string, integer, array
/// of strings). Kept as JSON text ([`SPECS`]): built with `json!` they cost the lean wasm
/// several KB of code.
pub type ToolSpec = Value;

/// Every tool's definition, in the order tools are offered.
pub const SPECS: &str = include_str!("specs.json");

/// The answer to one tool call: `text` is the tool result the model reads.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub text: String,
    pub is_error: bool,
    /// The answer was cut to fit its budget (the text says so too).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

impl Answer {
    pub fn ok(text: impl Into<String>) -> Answer {
        Answer {
            text: text.into(),
            ..Default::default()
        }
    }

    pub fn error(text: impl Into<String>) -> Answer {
        Answer {
            text: text.into(),
            is_error: true,
            cut: false,
        }
    }
}

pub const SELECT_INTENT: &str = "select_active_intent";

/// The tools offered now and how the knowledge tools answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Registry {
    /// Names offered, in the order the specs list them.
    pub offered: Vec<&'static str>,
    pub settings: Settings,
}

impl Registry {
    /// `knowledge_source`: a knowledge source answers (no source: no knowledge tools).
    /// `governance`: intent governance is on (`select_active_intent`).
    pub fn new(settings: Settings, knowledge_source: bool, governance: bool) -> Registry {
        let mut offered = Vec::new();
        if governance {
            offered.push(SELECT_INTENT);
        }
        if knowledge_source {
            offered.extend(knowledge::NAMES.iter().filter(|n| settings.offers(n)));
        }
        Registry { offered, settings }
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        all_specs()
            .into_iter()
            .filter(|s| self.offered.iter().any(|n| s["name"] == *n))
            .collect()
    }

    pub fn offers(&self, name: &str) -> bool {
        self.offered.contains(&name)
    }
}

fn all_specs() -> Vec<ToolSpec> {
    match serde_json::from_slice(SPECS.as_bytes()) {
        Ok(Value::Array(a)) => a,
        _ => Vec::new(), // a unit test reads it
    }
}

/// The definition of a tool by name (whether or not it is offered now).
pub fn spec(name: &str) -> Option<ToolSpec> {
    all_specs().into_iter().find(|s| s["name"] == name)
}

/// What a tool call needs from the engine, taken out of its shared state before any await.
#[derive(Clone)]
pub struct Env {
    pub registry: Registry,
    pub source: Option<Source>,
    /// BuildContext parameters of tool-call context (`knowledge_context` uses them too).
    pub max_entities: u32,
    pub include_content: bool,
    /// The project root while intent governance is on: `knowledge_remember` writes no note
    /// inside it (that would be a change of the project no intent covers and no record shows).
    pub governed_root: Option<String>,
}

/// What a model call asks for once its name and input are checked: an intent selection
/// (governance's: the engine holds it) or a knowledge tool ([`call`]).
#[derive(Debug, PartialEq)]
pub enum Checked {
    SelectIntent(String),
    Knowledge,
}

/// Check a model call before it runs. `Err`: the answer the model reads (an unknown tool, bad
/// input).
pub fn check(env: &Env, name: &str, input: &Value) -> Result<Checked, Answer> {
    if !env.registry.offers(name) {
        let offered = env.registry.offered.join(", ");
        return Err(Answer::error(format!(
            "hookwise has no tool `{}` in this session (offered: {}).",
            clip(name, 80),
            if offered.is_empty() { "none" } else { &offered }
        )));
    }
    if !matches!(input, Value::Object(_) | Value::Null) {
        return Err(Answer::error(format!(
            "`{name}` takes an object of arguments."
        )));
    }
    if name == SELECT_INTENT {
        return match input.get("intent_id") {
            Some(Value::String(s)) => Ok(Checked::SelectIntent(s.clone())),
            _ => Err(Answer::error("select_active_intent needs `intent_id`: the id of an IN_PROGRESS intent, e.g. INT-001.")),
        };
    }
    Ok(Checked::Knowledge)
}

/// Answer a knowledge tool's call ([`check`] first). Never fails: everything the model did
/// wrong is an `isError` text.
pub async fn call(io: &Io, env: &Env, name: &str, input: &Value) -> Answer {
    let empty = serde_json::Map::new();
    let input = input.as_object().unwrap_or(&empty);
    knowledge::call(io, env, name, input).await
}

/// The answer to an intent selection: governance's text, an error when it refused.
pub fn selected(ok: bool, text: String) -> Answer {
    Answer {
        text,
        is_error: !ok,
        cut: false,
    }
}

/// The answer when a session has no intent governance (the lean build).
pub fn no_governance() -> Answer {
    Answer::error("intent governance is not on in this session")
}

/// At most `max` characters of `s`, with `…` when cut.
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;

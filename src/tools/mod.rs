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

use serde::Serialize;
use serde_json::{json, Value};

use crate::knowledge::Source;
use crate::runtime::Io;

pub use options::{Settings, OPTION_KEYS};

/// One tool as the host offers it to the model.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    /// Written for the model.
    pub description: String,
    /// JSON Schema (draft 2020-12 subset: object, string, integer, array of strings).
    pub input_schema: Value,
}

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
        self.offered.iter().filter_map(|n| spec(n)).collect()
    }

    pub fn offers(&self, name: &str) -> bool {
        self.offered.contains(&name)
    }
}

/// The definition of a tool by name (whether or not it is offered now).
pub fn spec(name: &str) -> Option<ToolSpec> {
    if name == SELECT_INTENT {
        return Some(ToolSpec {
            name: SELECT_INTENT.into(),
            description: "Select the intent (from .orchestration/active_intents.yaml) that the current task belongs to. Intent governance is on in this project: file changes and shell commands are blocked until the session has an active intent, and file changes must stay inside its owned_scope. Returns the intent's scope, constraints and acceptance criteria.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "intent_id": {"type": "string", "description": "The id of an IN_PROGRESS intent, e.g. INT-001"}
                },
                "required": ["intent_id"],
                "additionalProperties": false
            }),
        });
    }
    knowledge::spec(name)
}

/// What a tool call needs from the engine, taken out of its shared state before any await.
#[derive(Clone)]
pub struct Env {
    pub registry: Registry,
    pub source: Option<Source>,
    /// BuildContext parameters of tool-call context (`knowledge_context` uses them too).
    pub max_entities: u32,
    pub include_content: bool,
    #[cfg(feature = "policy")]
    pub gov: crate::engine_gov::Wiring,
}

/// Answer one model call. Never fails: everything the model did wrong is an `isError` text.
pub async fn call(io: &Io, env: &Env, name: &str, input: &Value, session_id: &str) -> Answer {
    if !env.registry.offers(name) {
        let offered = env.registry.offered.join(", ");
        return Answer::error(format!(
            "hookwise has no tool `{}` in this session (offered: {}).",
            clip(name, 80),
            if offered.is_empty() { "none" } else { &offered }
        ));
    }
    let input = match input {
        Value::Object(m) => m,
        Value::Null => &serde_json::Map::new(),
        _ => return Answer::error(format!("`{name}` takes an object of arguments.")),
    };
    if name == SELECT_INTENT {
        return select_intent(io, env, input, session_id).await;
    }
    knowledge::call(io, env, name, input).await
}

#[cfg(feature = "policy")]
async fn select_intent(
    io: &Io,
    env: &Env,
    input: &serde_json::Map<String, Value>,
    session_id: &str,
) -> Answer {
    let id = match input.get("intent_id") {
        Some(Value::String(s)) => s.as_str(),
        _ => return Answer::error("select_active_intent needs `intent_id`: the id of an IN_PROGRESS intent, e.g. INT-001."),
    };
    let r = env.gov.select(io, session_id, id).await;
    Answer {
        text: r.text,
        is_error: !r.ok,
        cut: false,
    }
}

#[cfg(not(feature = "policy"))]
async fn select_intent(
    _io: &Io,
    _env: &Env,
    _input: &serde_json::Map<String, Value>,
    _session_id: &str,
) -> Answer {
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

//! A hook's answer, written in exactly the shape its host honours.
//!
//! The core decides an [`Answer`] once; [`render`] writes it for the dialect's [`Shape`]
//! through one set of types per host, each holding only the keys that host reads for that
//! event. So an answer a host would drop cannot be written for it: Codex validates every
//! answer against its output schemas (`additionalProperties: false` at every level, a
//! different schema per event) and drops an answer carrying a key it does not know — a deny
//! written with another host's key would not block; Gemini CLI ignores Claude's
//! `permissionDecision`; Copilot CLI ignores context inside `hookSpecificOutput`; Qwen Code
//! never applies a rewritten input.

use serde::Serialize;
use serde_json::Value;

use super::dialect::{Dialect, Event, Shape};

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

fn some(s: Option<String>) -> Option<String> {
    s.filter(|t| !t.trim().is_empty())
}

/// The answer as the host reads it: JSON (or Claude Code's PreCompact plain text). `event` is
/// the host's own name for the event; `kind` what it is to the core.
pub fn render(d: &Dialect, event: &str, kind: Event, a: Answer) -> String {
    let text = match d.shape {
        Shape::Claude => return claude(event, kind, a),
        Shape::Codex => to_json(&codex(event, kind, a)),
        Shape::Gemini => to_json(&gemini(event, kind, a)),
        Shape::Copilot => to_json(&copilot(event, kind, a)),
        Shape::Qwen => to_json(&qwen(event, kind, a)),
        Shape::Kimi => super::kimi::render(kind, a),
        Shape::Vibe => super::vibe::render(kind, a),
        Shape::OpenHands => super::openhands::render(kind, a),
    };
    text
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

/// The table `js/dialects.json` pins for the JS glue (a test keeps the two equal): per host,
/// its PreToolUse event's name, its deny with the placeholder `{reason}` (inside a JSON
/// string: the glue puts the reason in JSON-escaped), the answer with nothing to say per
/// event, and its project-folder variable. Used when the core cannot answer. `keep`: the events
/// whose payload holds session state later hooks need (the session's start, a prompt: the
/// model id Qwen Code names only at SessionStart, the concepts a prompt names): one answered in
/// a hook's own process, while the project's warm server was not ready, is handed to that
/// server to replay (`docs/warm-hooks.md`). `envKeys`: the variables the glue hands the core
/// for the host's model log ([`super::model_log`]).
pub fn js_table() -> Value {
    let mut m = serde_json::Map::new();
    for d in super::dialect::ALL {
        let empty: serde_json::Map<String, Value> = d
            .events
            .iter()
            .map(|(name, kind)| {
                (
                    name.to_string(),
                    Value::String(render(d, name, *kind, Answer::Nothing)),
                )
            })
            .collect();
        m.insert(
            d.host.to_string(),
            serde_json::json!({
                "preToolEvent": d.name_of(Event::PreTool),
                "deny": deny(d, "{reason}"),
                "empty": empty,
                "projectDirVar": d.project_dir_var,
                "envKeys": super::model_log::env_keys(d.model_log),
                // a host whose first hook is a tool's (no prompt hook: Mistral Vibe) keeps that
                // call's context for its result in the server that answers the result
                "keep": d.events.iter()
                    .filter(|e| matches!(e.1, Event::SessionStart | Event::Prompt)
                        || (d.start_with_result && e.1 == Event::PreTool))
                    .map(|e| e.0)
                    .collect::<Vec<_>>(),
            }),
        );
    }
    Value::Object(m)
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "{}".into())
}

// ---- Claude Code --------------------------------------------------------------------------

#[derive(Serialize, Default)]
struct ClaudeOut<'a> {
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    hso: Option<ClaudeHso<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ClaudeHso<'a> {
    hook_event_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_input: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_context: Option<String>,
}

impl<'a> ClaudeHso<'a> {
    fn new(event: &'a str) -> Self {
        ClaudeHso {
            hook_event_name: event,
            permission_decision: None,
            permission_decision_reason: None,
            updated_input: None,
            additional_context: None,
        }
    }
}

fn claude(event: &str, kind: Event, a: Answer) -> String {
    let hso = match a {
        // PreCompact's answer is plain text: the summary request's added instructions
        Answer::Nothing if kind == Event::PreCompact => return String::new(),
        Answer::Guidance(t) if kind == Event::PreCompact => return t,
        Answer::Nothing => None,
        Answer::Guidance(t) | Answer::Context(t) => some(Some(t)).map(|t| ClaudeHso {
            additional_context: Some(t),
            ..ClaudeHso::new(event)
        }),
        Answer::Deny { reason } => Some(ClaudeHso {
            permission_decision: Some("deny"),
            permission_decision_reason: Some(reason),
            ..ClaudeHso::new(event)
        }),
        Answer::Allow { context, rewrite } => {
            let context = some(context);
            (context.is_some() || rewrite.is_some()).then(|| ClaudeHso {
                // the rewritten input runs only with an allow
                permission_decision: rewrite.is_some().then_some("allow"),
                updated_input: rewrite,
                additional_context: context,
                ..ClaudeHso::new(event)
            })
        }
    };
    to_json(&ClaudeOut { hso })
}

// ---- Codex --------------------------------------------------------------------------------
// One type per output schema: `pre-tool-use` (hookEventName, permissionDecision,
// permissionDecisionReason, updatedInput, additionalContext — the last not read: hookwise
// writes none), `post-tool-use` / `session-start` / `user-prompt-submit` (hookEventName,
// additionalContext), `pre-compact` / `post-compact` (no hookSpecificOutput at all).

#[derive(Serialize)]
struct CodexOut<'a> {
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    hso: Option<CodexHso<'a>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum CodexHso<'a> {
    Pre(CodexPre<'a>),
    Context(CodexContext<'a>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CodexPre<'a> {
    hook_event_name: &'a str,
    permission_decision: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_input: Option<Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CodexContext<'a> {
    hook_event_name: &'a str,
    additional_context: String,
}

fn codex(event: &str, kind: Event, a: Answer) -> CodexOut<'_> {
    let hso = match (kind, a) {
        (Event::PreTool, Answer::Deny { reason }) => Some(CodexHso::Pre(CodexPre {
            hook_event_name: event,
            permission_decision: "deny",
            permission_decision_reason: Some(reason),
            updated_input: None,
        })),
        (
            Event::PreTool,
            Answer::Allow {
                rewrite: Some(input),
                ..
            },
        ) => Some(CodexHso::Pre(CodexPre {
            hook_event_name: event,
            permission_decision: "allow",
            permission_decision_reason: None,
            updated_input: Some(input),
        })),
        (
            Event::PostTool | Event::SessionStart | Event::Prompt,
            Answer::Context(t) | Answer::Guidance(t),
        ) => some(Some(t)).map(|t| {
            CodexHso::Context(CodexContext {
                hook_event_name: event,
                additional_context: t,
            })
        }),
        // PreToolUse context does not reach the model; compaction answers carry none
        _ => None,
    };
    CodexOut { hso }
}

// ---- Gemini CLI ---------------------------------------------------------------------------

#[derive(Serialize)]
struct GeminiOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    hso: Option<GeminiHso<'a>>,
}

#[derive(Serialize)]
struct GeminiHso<'a> {
    #[serde(rename = "hookEventName")]
    hook_event_name: &'a str,
    #[serde(rename = "additionalContext", skip_serializing_if = "Option::is_none")]
    additional_context: Option<String>,
    /// Merged into the tool's arguments before it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_input: Option<Value>,
}

fn gemini(event: &str, kind: Event, a: Answer) -> GeminiOut<'_> {
    let mut out = GeminiOut {
        decision: None,
        reason: None,
        hso: None,
    };
    match (kind, a) {
        (Event::PreTool, Answer::Deny { reason }) => {
            out.decision = Some("deny");
            out.reason = Some(reason);
        }
        (
            Event::PreTool,
            Answer::Allow {
                rewrite: Some(input),
                ..
            },
        ) => {
            out.hso = Some(GeminiHso {
                hook_event_name: event,
                additional_context: None,
                tool_input: Some(input),
            })
        }
        (
            Event::PostTool | Event::SessionStart | Event::Prompt,
            Answer::Context(t) | Answer::Guidance(t),
        ) => {
            out.hso = some(Some(t)).map(|t| GeminiHso {
                hook_event_name: event,
                additional_context: Some(t),
                tool_input: None,
            })
        }
        _ => {}
    }
    out
}

// ---- Copilot CLI --------------------------------------------------------------------------

#[derive(Serialize)]
struct CopilotOut<'a> {
    /// Read only here (inside `hookSpecificOutput` it is ignored).
    #[serde(rename = "additionalContext", skip_serializing_if = "Option::is_none")]
    additional_context: Option<String>,
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    hso: Option<CopilotPre<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CopilotPre<'a> {
    hook_event_name: &'a str,
    permission_decision: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_input: Option<Value>,
}

fn copilot(event: &str, kind: Event, a: Answer) -> CopilotOut<'_> {
    let mut out = CopilotOut {
        additional_context: None,
        hso: None,
    };
    match (kind, a) {
        (Event::PreTool, Answer::Deny { reason }) => {
            out.hso = Some(CopilotPre {
                hook_event_name: event,
                permission_decision: "deny",
                permission_decision_reason: Some(reason),
                updated_input: None,
            })
        }
        (
            Event::PreTool,
            Answer::Allow {
                rewrite: Some(input),
                ..
            },
        ) => {
            out.hso = Some(CopilotPre {
                hook_event_name: event,
                permission_decision: "allow",
                permission_decision_reason: None,
                updated_input: Some(input),
            })
        }
        (
            Event::PostTool | Event::SessionStart | Event::Prompt,
            Answer::Context(t) | Answer::Guidance(t),
        ) => out.additional_context = some(Some(t)),
        _ => {}
    }
    out
}

// ---- Qwen Code ----------------------------------------------------------------------------

#[derive(Serialize)]
struct QwenOut<'a> {
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    hso: Option<QwenHso<'a>>,
}

/// No `updatedInput`: Qwen Code documents it and does not apply it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct QwenHso<'a> {
    hook_event_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_context: Option<String>,
}

fn qwen(event: &str, kind: Event, a: Answer) -> QwenOut<'_> {
    let hso = match (kind, a) {
        (Event::PreTool, Answer::Deny { reason }) => Some(QwenHso {
            hook_event_name: event,
            permission_decision: Some("deny"),
            permission_decision_reason: Some(reason),
            additional_context: None,
        }),
        (
            Event::PostTool | Event::SessionStart | Event::Prompt | Event::PreCompact,
            Answer::Context(t) | Answer::Guidance(t),
        ) => some(Some(t)).map(|t| QwenHso {
            hook_event_name: event,
            permission_decision: None,
            permission_decision_reason: None,
            additional_context: Some(t),
        }),
        _ => None,
    };
    QwenOut { hso }
}

#[cfg(test)]
#[path = "answer_tests.rs"]
pub(crate) mod tests;

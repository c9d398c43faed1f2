//! Claude Code as a host: its hook events answered with its hook JSON.
//!
//! Claude Code runs hooks per event and reads their answer as JSON (`hookSpecificOutput`). With
//! `mcp_tool` hooks it calls a tool of an MCP server it already runs (hookwise's `hookwise mcp`,
//! one warm engine per `claude` process); with `command` hooks it starts a process per event
//! (`hookwise hook <Event>`). Both hand the payload's fields to the engine as one call,
//! `{"hook": "claude.hook", "event", "input", "random", "nowMs"}`, and get back
//! `{"text", "decision"?, "logs"}`: `text` is what the hook prints (or the MCP tool answers).
//!
//! Each event is one or more of the engine's own calls, run one after another as one operation
//! ([`crate::engine::Engine::start_seq`]):
//! - `PreToolUse`: `tool.before` (the governance gate, pre-action enforcement, knowledge
//!   context). A block is `permissionDecision: "deny"` with the reason (the model reads it as the
//!   tool's error); enforcement's advice and the context block are `additionalContext` (a system
//!   message after the tool's result); the sub-agent tool's prompt gets the context block through
//!   `updatedInput` (Claude Code runs the rewritten input, and the sub-agent reads its prompt).
//! - `PostToolUse`: `tool.after` without arguments (it takes the text the core kept for the
//!   result, which PreToolUse gave already), then `tool.after` with the arguments (the Agent
//!   Trace record); what the latter adds for the model goes in `additionalContext`.
//! - `UserPromptSubmit` (and `SessionStart` at start-up or resume, for `command` hooks): the
//!   session-start context on a session's first prompt (`session.created`; `mcp_tool` hooks do
//!   not run for `SessionStart` at start-up, so `UserPromptSubmit` carries it), and intent
//!   governance's `<intent_context>` (`system.transform`) on every prompt.
//! - `PreCompact`: `session.compacting` (the compaction memory; the preservation guidance). A
//!   PreCompact hook's plain output is what Claude Code adds to the summary request's
//!   instructions (read in Claude Code 2.1.330: a successful PreCompact hook's trimmed output,
//!   up to 10,000 characters, becomes `newCustomInstructions`), so the answer is that text.
//! - `SessionStart` with `source: "compact"`: what was kept (concepts, decisions, the memory)
//!   as `additionalContext` for the first request after the compaction.
//!
//! Governance state is per Claude `session_id` (the engine's session id). Policy build only
//! (the lean core answers `{needs: "policy"}`).

use std::cell::RefCell;
use std::collections::VecDeque;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::engine::{Call, Engine, ToolAfterCall, ToolBeforeCall};
use crate::protocol::{Log, Mutation, PathKey};
use crate::runtime::Step;
use crate::session::SessionInfo;

mod place;
pub mod setup;

/// One Claude Code hook event (`claude.hook`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hook {
    /// `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `PreCompact`, `SessionStart`, or
    /// `setup` (the hook tools and settings entries, [`setup`]).
    pub event: String,
    /// The payload's fields: as Claude Code templates them for an `mcp_tool` hook (every value
    /// a string; `tool_input` as JSON text) or the whole payload of a `command` hook.
    #[serde(default)]
    pub input: Value,
    /// 16 random bytes as 32 hex characters (an Agent Trace record's uuid).
    #[serde(default)]
    pub random: String,
    /// The host's clock, ms since the epoch.
    #[serde(default)]
    pub now_ms: f64,
    /// Why the host could not read the hook's input (a command hook's stdin: not JSON, empty,
    /// too large): PreToolUse blocks under governance or enforcement ([`place`]).
    #[serde(default)]
    pub unreadable: Option<String>,
}

/// Start answering `hook` (the engine's `claude.hook` arm).
pub fn start(engine: &mut Engine, hook: Hook) -> Step {
    let p = Payload(&hook.input);
    let session_id = p.str("session_id");
    match hook.event.as_str() {
        "PreToolUse" => pre_tool_use(engine, &p, session_id, hook.unreadable.as_deref()),
        "PostToolUse" => post_tool_use(engine, &p, session_id, hook.random),
        "UserPromptSubmit" => prompt(engine, "UserPromptSubmit", &p, session_id),
        "SessionStart" if p.str("source") == "compact" => {
            let text = take_kept(&session_id);
            engine.start_seq(Vec::new(), move |_| {
                answer(context_answer("SessionStart", text), None, Vec::new())
            })
        }
        "SessionStart" => prompt(engine, "SessionStart", &p, session_id),
        "PreCompact" => {
            let call = Call::SessionCompacting {
                session_id: session_id.clone(),
                now_ms: hook.now_ms,
            };
            engine.start_seq(vec![call], move |r| pre_compact(&session_id, &r[0]))
        }
        "setup" => {
            let v = setup::answer(&hook.input);
            engine.start_seq(Vec::new(), move |_| v)
        }
        other => {
            let log = Log::debug(format!(
                "claude.hook: no answer for the `{}` event",
                crate::redact::redact_string(other.chars().take(64).collect::<String>())
            ));
            engine.start_seq(Vec::new(), move |_| {
                answer(json!({}), None, vec![json!(log)])
            })
        }
    }
}

/// The payload's fields, read leniently: a missing or non-string field is `""`.
struct Payload<'a>(&'a Value);

impl Payload<'_> {
    fn str(&self, key: &str) -> String {
        match self.0.get(key) {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        }
    }

    /// `tool_input`: an object (a `command` hook's payload) or its JSON text (an `mcp_tool`
    /// hook's template). `Err`: the code of why it cannot be read whole.
    fn tool_input(&self) -> Result<Value, String> {
        match self.0.get("tool_input") {
            Some(Value::String(s)) => {
                let cleaned = crate::wire::clean(s.as_bytes());
                if cleaned.too_deep {
                    return Err("depth".into());
                }
                match serde_json::from_slice::<Value>(&cleaned.bytes) {
                    Ok(v @ Value::Object(_)) => Ok(v),
                    Ok(_) => Err("value:not an object".into()),
                    Err(_) => Err("value:not JSON".into()),
                }
            }
            Some(v @ Value::Object(_)) => Ok(v.clone()),
            None | Some(Value::Null) => Ok(json!({})),
            Some(_) => Err("value:not an object".into()),
        }
    }
}

/// The result of a `claude.hook` call: `text` is the hook's answer as Claude Code reads it.
fn answer(out: Value, decision: Option<&str>, logs: Vec<Value>) -> Value {
    let text = match &out {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let mut r = json!({ "text": text, "logs": logs });
    if let Some(d) = decision {
        r["decision"] = json!(d);
    }
    r
}

fn logs_of(results: &[Value]) -> Vec<Value> {
    results
        .iter()
        .filter_map(|r| r.get("logs").and_then(Value::as_array))
        .flatten()
        .cloned()
        .collect()
}

/// `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`, or `{}` with no text.
fn context_answer(event: &str, text: Option<String>) -> Value {
    match text.filter(|t| !t.trim().is_empty()) {
        Some(t) => json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": t}}),
        None => json!({}),
    }
}

/// The texts a `tool.after` result appends to the tool's output.
fn appended(r: &Value) -> Vec<String> {
    r.get("mutations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("append").and_then(Value::as_str))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn join(parts: Vec<String>) -> Option<String> {
    let parts: Vec<String> = parts.into_iter().filter(|p| !p.trim().is_empty()).collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// Governance's root and whether what cannot be read is blocked, as the engine has them now.
fn policy_of(engine: &Engine) -> place::Policy {
    let s = engine.shared.borrow();
    place::Policy {
        root: s.policy.governed_root(),
        strict: s.policy.gov.on || s.policy.enforcing(),
    }
}

/// A PreToolUse answered with a deny without asking the engine's hooks.
fn refuse(engine: &mut Engine, reason: String) -> Step {
    engine.start_seq(Vec::new(), move |_| {
        let log = json!(Log::warn(reason.clone()));
        answer(place::deny(&reason), Some("deny"), vec![log])
    })
}

fn pre_tool_use(
    engine: &mut Engine,
    p: &Payload<'_>,
    session_id: String,
    given: Option<&str>,
) -> Step {
    let tool = p.str("tool_name");
    let policy = policy_of(engine);
    if let Some(why) = place::unreadable(given, p.0) {
        if policy.strict {
            return refuse(engine, place::unreadable_block(&why));
        }
    }
    if let Some(b) = place::hook_tool_block(&tool) {
        return refuse(engine, b);
    }
    let directory = match place::directory(&policy, &tool, &p.str("cwd")) {
        Ok(d) => d,
        Err(b) => return refuse(engine, b),
    };
    let call_id = p.str("tool_use_id");
    let (args, unreadable) = match p.tool_input() {
        Ok(a) => (Some(a), None),
        Err(code) => (None, Some(code)),
    };
    let before = Call::ToolBefore(ToolBeforeCall {
        tool: tool.clone(),
        session_id: session_id.clone(),
        call_id: call_id.clone(),
        args: args.clone(),
        fields: Default::default(),
        excerpts: None,
        dry_run: false,
        result_only: false,
        unreadable,
        directory,
    });
    engine.start_seq(vec![before], move |r| pre_answer(args, &r[0]))
}

/// The PreToolUse answer from `tool.before`'s result.
fn pre_answer(args: Option<Value>, before: &Value) -> Value {
    let logs = logs_of(std::slice::from_ref(before));
    if let Some(reason) = before.get("block").and_then(Value::as_str) {
        let out = json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }});
        return answer(out, Some("deny"), logs);
    }
    let mutations: Vec<Mutation> = before
        .get("mutations")
        .cloned()
        .and_then(|m| serde_json::from_value(m).ok())
        .unwrap_or_default();
    let mut updated = None;
    if let (Some(mut input), false) = (args, mutations.is_empty()) {
        if apply(&mut input, &mutations) > 0 {
            updated = Some(input);
        }
    }
    // enforcement's advice, then the knowledge block unless the sub-agent's prompt has it (as
    // the core keeps them for a tool's result)
    let mut parts = Vec::new();
    if let Some(a) = before.get("advice").and_then(Value::as_str) {
        let lines: Vec<String> = a.lines().map(str::to_string).collect();
        parts.push(crate::context::fit(
            &lines,
            crate::context::Style::Markdown,
            usize::MAX,
        ));
    }
    if updated.is_none() {
        if let Some(c) = before.get("context").and_then(Value::as_str) {
            parts.push(c.to_string());
        }
    }
    let mut out = context_answer("PreToolUse", join(parts));
    let mut decision = None;
    if let Some(input) = updated {
        // the rewritten input runs only with an allow; a sub-agent's prompt is the only
        // argument hookwise rewrites in Claude Code (the sub-agent reads it)
        let h = out
            .as_object_mut()
            .expect("an object")
            .entry("hookSpecificOutput")
            .or_insert_with(|| json!({"hookEventName": "PreToolUse"}));
        h["permissionDecision"] = json!("allow");
        h["updatedInput"] = input;
        decision = Some("allow");
    }
    answer(out, decision, logs)
}

/// Apply the core's mutations to a copy of the arguments (as the JS glue's `applyMutations`):
/// strip earlier blocks, prepend, append. Returns how many applied.
fn apply(target: &mut Value, mutations: &[Mutation]) -> usize {
    let mut n = 0;
    for m in mutations {
        let slot = m.path.iter().try_fold(&mut *target, |at, k| match (k, at) {
            (PathKey::Key(k), Value::Object(o)) => o.get_mut(k),
            (PathKey::Index(i), Value::Array(a)) => a.get_mut(*i),
            _ => None,
        });
        let Some(Value::String(s)) = slot else {
            continue;
        };
        let text = match &m.strip {
            Some((open, close)) => strip_spans(s, open, close),
            None => s.clone(),
        };
        *s = format!(
            "{}{text}{}",
            m.prepend.as_deref().unwrap_or(""),
            m.append.as_deref().unwrap_or("")
        );
        n += 1;
    }
    n
}

/// Remove every span from `open` to the next `close` (inclusive) and up to two newlines after.
fn strip_spans(s: &str, open: &str, close: &str) -> String {
    let mut s = s.to_string();
    let mut from = 0;
    while let Some(i) = s[from..].find(open).map(|i| i + from) {
        let Some(j) = s[i + open.len()..].find(close).map(|j| j + i + open.len()) else {
            break;
        };
        let mut e = j + close.len();
        for _ in 0..2 {
            if s[e..].starts_with('\n') {
                e += 1;
            }
        }
        s.replace_range(i..e, "");
        from = i;
    }
    s
}

fn post_tool_use(engine: &mut Engine, p: &Payload<'_>, session_id: String, random: String) -> Step {
    let tool = p.str("tool_name");
    let call_id = p.str("tool_use_id");
    // relative paths as PreToolUse read them (a `cwd` outside the project was blocked there)
    let directory = place::directory(&policy_of(engine), &tool, &p.str("cwd")).unwrap_or_default();
    // The text the core kept for this call's result went out with PreToolUse: this first
    // `tool.after` (no arguments) takes it, and its answer is dropped.
    let taken = Call::ToolAfter(ToolAfterCall {
        tool: tool.clone(),
        session_id: session_id.clone(),
        call_id: call_id.clone(),
        args: None,
        random: String::new(),
        failed: false,
        unreadable: None,
        directory: String::new(),
    });
    let calls = {
        let (args, unreadable) = match p.tool_input() {
            Ok(a) => (Some(a), None),
            Err(code) => (None, Some(code)),
        };
        let record = Call::ToolAfter(ToolAfterCall {
            tool,
            session_id,
            call_id,
            args,
            random,
            // PostToolUse runs for calls that succeeded (failures are PostToolUseFailure)
            failed: false,
            unreadable,
            directory,
        });
        vec![taken, record]
    };
    engine.start_seq(calls, move |r| {
        let logs = logs_of(&r);
        let Some(last) = r.get(1) else {
            return answer(json!({}), None, logs);
        };
        let out = context_answer("PostToolUse", join(appended(last)));
        let mut v = answer(out, None, logs);
        if let Some(id) = last.get("recorded") {
            // the Agent Trace record's id: for the log and the tests
            v["recorded"] = id.clone();
        }
        v
    })
}

/// UserPromptSubmit (and SessionStart for `command` hooks): the session-start context on the
/// session's first prompt, governance's `<intent_context>` on every prompt.
fn prompt(engine: &mut Engine, event: &'static str, p: &Payload<'_>, session_id: String) -> Step {
    let created = Call::SessionCreated {
        session: SessionInfo {
            id: session_id.clone(),
            parent_id: None,
        },
    };
    // the session's context is given by `session.created`: marked as there already, so
    // `system.transform` adds only governance's block
    let governance = Call::SystemTransform {
        session_id: Some(session_id),
        system: vec![crate::session::format::HEADER.to_string()],
        model_id: Some(p.str("model")).filter(|m| !m.is_empty()),
    };
    engine.start_seq(vec![created, governance], move |r| {
        let logs = logs_of(&r);
        let mut parts = Vec::new();
        if let Some(c) = r[0].get("sessionContext").and_then(Value::as_str) {
            parts.push(c.to_string());
        }
        if let Some(s) = r[1].get("system").and_then(Value::as_array) {
            parts.extend(s.iter().filter_map(Value::as_str).map(str::to_string));
        }
        answer(context_answer(event, join(parts)), None, logs)
    })
}

/// PreCompact: the preservation guidance as plain text (Claude Code adds it to the summary
/// request's instructions); what was kept waits for SessionStart after the compaction.
fn pre_compact(session_id: &str, r: &Value) -> Value {
    let logs = logs_of(std::slice::from_ref(r));
    let guidance = r
        .get("context")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .unwrap_or_default();
    let strs = |k: &str| -> Vec<String> {
        r.get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let memory = r.get("memory").and_then(Value::as_str).map(str::to_string);
    keep(
        session_id,
        kept_text(&strs("concepts"), &strs("decisions"), memory.as_deref()),
    );
    let mut v = answer(Value::String(guidance), None, logs);
    if let Some(m) = memory {
        v["memory"] = json!(m);
    }
    v
}

/// The context for the first request after a compaction.
pub fn kept_text(
    concepts: &[String],
    decisions: &[String],
    memory: Option<&str>,
) -> Option<String> {
    if concepts.is_empty() && decisions.is_empty() && memory.is_none() {
        return None;
    }
    let mut t = String::from("## Knowledge kept through compaction (hookwise)\n");
    if !concepts.is_empty() {
        let links: Vec<String> = concepts.iter().map(|c| format!("[[{c}]]")).collect();
        t.push_str(&format!(
            "\nThis session's concepts: {}. Keep using these names for them.\n",
            links.join(", ")
        ));
    }
    if !decisions.is_empty() {
        t.push_str("\nDecisions made before the compaction:\n");
        for d in decisions {
            t.push_str(&format!("- {d}\n"));
        }
    }
    if let Some(m) = memory {
        t.push_str(&format!(
            "\nThe session before the compaction is saved as the memory `{m}`.\n"
        ));
    }
    Some(t)
}

thread_local! {
    /// What a compaction kept, by session, until the SessionStart after it (bounded).
    static KEPT: RefCell<VecDeque<(String, String)>> = const { RefCell::new(VecDeque::new()) };
}

const MAX_KEPT: usize = 64;

fn keep(session_id: &str, text: Option<String>) {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        k.retain(|(s, _)| s != session_id);
        if let Some(t) = text {
            if k.len() >= MAX_KEPT {
                k.pop_front();
            }
            k.push_back((session_id.to_string(), t));
        }
    });
}

fn take_kept(session_id: &str) -> Option<String> {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        let i = k.iter().position(|(s, _)| s == session_id)?;
        k.remove(i).map(|(_, t)| t)
    })
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;

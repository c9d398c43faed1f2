//! The command-hook translator: host code above the engine. The command-hook hosts' events,
//! answered in each host's dialect: Claude Code (its
//! `mcp_tool` hooks through `hookwise mcp`, or `command` hooks), Codex, Gemini CLI, GitHub
//! Copilot CLI and Qwen Code (`command` hooks: `hookwise hook --host <host> <Event>`).
//!
//! Every host hands a JSON payload per event and reads a JSON answer; the engine gets it as one
//! call, `{"hook": "hook.event", "event", "input", "random", "nowMs"}` (`claude.hook`: its
//! earlier name), and answers `{"text", "decision"?, "logs"}`: `text` is what the hook prints
//! (or the MCP tool answers). The host is the one `init` named; its dialect
//! ([`crate::host::dialect`]) says what each of its event names is to the core, and
//! [`crate::host::answer`] writes the answer in the shape that host honours. The core decides
//! once, here, for every host:
//! - **PreToolUse** (Gemini CLI: BeforeTool): `tool.before` (the governance gate, pre-action
//!   enforcement, knowledge context). A block is the host's deny with the reason (the model
//!   reads it as the tool's error). Claude Code reads PreToolUse context (a system message
//!   after the tool's result): enforcement's advice and the context block go there, and the
//!   sub-agent tool's prompt gets the context block through `updatedInput`. The other hosts'
//!   PreToolUse context does not reach the model: theirs goes with PostToolUse.
//! - **PostToolUse** (AfterTool): `tool.after` without arguments (it takes the text the core
//!   kept for the result: Claude Code had it with PreToolUse, the others get it now), then
//!   `tool.after` with the arguments (the Agent Trace record); what the latter adds for the
//!   model goes with the answer's context.
//! - **UserPromptSubmit** (BeforeAgent) and **SessionStart**: the session-start context on a
//!   session's first prompt (`session.created`; `mcp_tool` hooks do not run for Claude Code's
//!   SessionStart at start-up, so UserPromptSubmit carries it), and intent governance's
//!   `<intent_context>` (`system.transform`) on every prompt. Qwen Code's UserPromptSubmit with
//!   an empty prompt (before every follow-up model call) answers nothing.
//! - **PreCompact**: `session.compacting` (the compaction memory; the preservation guidance).
//!   Claude Code adds a PreCompact hook's plain output to the summary request's instructions
//!   (read in Claude Code 2.1.330: up to 10,000 characters become `newCustomInstructions`);
//!   Qwen Code reads its `additionalContext` before compaction; Codex's answer carries nothing.
//! - After a compaction, what was kept (concepts, decisions, the memory) reaches the model from
//!   SessionStart with `source: "compact"` (Claude Code, Qwen Code), else with the session's
//!   next answer that carries context.
//! - hookwise's own MCP tools (`select_active_intent`, the knowledge tools), as the host names
//!   them in a payload, are answered at once: the core decides them when they are called. A
//!   `select_active_intent` the agent's MCP server answered is also selected, at PostToolUse,
//!   in the engine answering the session's hooks (a command-hook host does not tell its MCP
//!   server the session).
//!
//! Governance state, the context kept for a result and what a compaction kept live in the
//! engine: one engine must serve a session's events (Claude Code's `hookwise mcp`, a warm
//! process); a process per event decides each event alone. Policy build only (the lean core
//! answers `{needs: "policy"}`). The engine knows nothing of it: whoever builds an engine that
//! answers host events hands it [`start`] ([`engine`]).

use std::cell::RefCell;
use std::collections::VecDeque;

use serde_json::{json, Value};

use crate::engine::{Call, Engine, HookEvent, ToolAfterCall, ToolBeforeCall};
use crate::host::answer::{render, Answer};
use crate::host::dialect::{Dialect, Event};
use crate::protocol::{ArgEdit, Log, PathKey};
use crate::runtime::Step;
use crate::session::SessionInfo;

mod place;
pub mod setup;
pub mod setup_cli;

/// An engine that answers host events with this translator.
pub fn engine() -> Engine {
    Engine::new().with_hook_adapter(start)
}

/// Start answering `hook` (the engine's `hook.event` arm).
pub fn start(engine: &mut Engine, hook: HookEvent) -> Step {
    match hook.event.as_str() {
        "setup" => {
            let v = setup::answer(&hook.input);
            return engine.start_seq(Vec::new(), move |_| v);
        }
        "setup.host" => {
            let v = setup_cli::answer(&hook.input);
            return engine.start_seq(Vec::new(), move |_| v);
        }
        "telemetry" => {
            // `hookwise doctor`: whether OpenTelemetry export is on, and why
            let o = engine.otel();
            let v = json!({"on": o.on, "content": o.content, "why": o.why});
            return engine.start_seq(Vec::new(), move |_| v);
        }
        _ => {}
    }
    let host = engine.host().id;
    // OpenTelemetry export on: the answer's telemetry is finished where it is built
    // (`Engine::start_seq`, the one way every event below is answered)
    let otel = engine.otel();
    engine.tag_hook(otel.on.then(|| crate::engine::HookTel {
        host,
        event: hook.event.clone(),
        result: match hook.input.get("tool_response") {
            Some(r) if otel.content => Some(match r {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            }),
            _ => None,
        },
    }));
    let d: &'static Dialect = crate::hosts::dialect_of(host).unwrap_or(&crate::hosts::claude::DIALECT);
    let Some(&(name, kind)) = d.events.iter().find(|e| e.0 == hook.event) else {
        let log = Log::debug(format!(
            "hook.event: no answer for the `{}` event of {host}",
            crate::redact::redact_string(hook.event.chars().take(64).collect::<String>())
        ));
        return engine.start_seq(Vec::new(), move |_| {
            answer("{}".into(), None, vec![json!(log)])
        });
    };
    // the host's own payload keys, read as Claude's
    let input = d.normalize(&hook.input);
    let p = Payload(input.as_ref().unwrap_or(&hook.input));
    let session_id = p.str("session_id");
    match kind {
        Event::PreTool => pre_tool_use(engine, d, name, &p, session_id, hook.unreadable.as_deref()),
        Event::PostTool => {
            let log = d.model_log.and_then(|m| {
                (m.path)(p.0, &hook.env)
                    .map(|path| crate::governance::ops::SessionLog { path, model: m.model })
            });
            post_tool_use(engine, d, name, &p, session_id, hook.random, log)
        }
        Event::Prompt if matches!(p.0.get("prompt"), Some(Value::String(s)) if s.is_empty()) => {
            nothing(engine, d, name, kind)
        }
        Event::Prompt => prompt(engine, d, name, kind, &p, session_id),
        Event::SessionStart if p.str("source") == "compact" && d.compact_start => {
            let text = take_kept(&session_id);
            engine.start_seq(Vec::new(), move |_| {
                answer(say(d, name, kind, text), None, Vec::new())
            })
        }
        Event::SessionStart => prompt(engine, d, name, kind, &p, session_id),
        Event::PreCompact => {
            let call = Call::SessionCompacting {
                session_id: session_id.clone(),
                now_ms: hook.now_ms,
            };
            engine.start_seq(vec![call], move |r| {
                pre_compact(d, name, &session_id, &r[0])
            })
        }
        Event::PostCompact => nothing(engine, d, name, kind),
    }
}

fn nothing(engine: &mut Engine, d: &'static Dialect, name: &'static str, kind: Event) -> Step {
    engine.start_seq(Vec::new(), move |_| {
        answer(render(d, name, kind, Answer::Nothing), None, Vec::new())
    })
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

    /// The tool call's id: the dialect's key, else one derived from the tool and its input
    /// (the same for the call's PreToolUse and PostToolUse).
    fn call_id(&self, d: &Dialect) -> String {
        if let Some(id) = d
            .call_id
            .iter()
            .map(|k| self.str(k))
            .find(|s| !s.is_empty())
        {
            return id;
        }
        // keyed by what the model asked for: a host that runs the confined shell hands its
        // post-tool hook the rewritten input (Gemini CLI, Copilot CLI), read back as it was
        let unwrapped = |v: &Value| {
            crate::governance::confine::unwrapped_input(v)
                .unwrap_or_else(|| v.clone())
                .to_string()
        };
        let input = match self.0.get("tool_input") {
            Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(v @ Value::Object(_)) => unwrapped(&v),
                _ => s.clone(),
            },
            Some(v) => unwrapped(v),
            None => String::new(),
        };
        // FNV-1a over the session, the tool and its input
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in [self.str("session_id"), self.str("tool_name"), input]
            .iter()
            .flat_map(|s| s.bytes().chain([0]))
        {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        format!("hw-{h:016x}")
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

/// The result of a `hook.event` call: `text` is the hook's answer as the host reads it.
fn answer(text: String, decision: Option<&str>, logs: Vec<Value>) -> Value {
    let mut r = json!({ "text": text, "logs": logs });
    if let Some(d) = decision {
        r["decision"] = json!(d);
    }
    r
}

/// Context for the model (none: nothing to say).
fn say(d: &Dialect, name: &str, kind: Event, text: Option<String>) -> String {
    let a = match text.filter(|t| !t.trim().is_empty()) {
        Some(t) => Answer::Context(t),
        None => Answer::Nothing,
    };
    render(d, name, kind, a)
}

fn logs_of(results: &[Value]) -> Vec<Value> {
    results
        .iter()
        .filter_map(|r| r.get("logs").and_then(Value::as_array))
        .flatten()
        .cloned()
        .collect()
}

/// The text a `tool.after` result gives the model with the tool's result.
fn with_result(r: &Value) -> Option<String> {
    r.get("withResult")
        .and_then(Value::as_str)
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

fn join(parts: Vec<String>) -> Option<String> {
    let parts: Vec<String> = parts.into_iter().filter(|p| !p.trim().is_empty()).collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// Governance's root and whether what cannot be read is blocked, as the engine has them now.
fn policy_of(engine: &Engine) -> place::Policy {
    let (root, strict) = engine.hook_policy();
    place::Policy { root, strict }
}

/// A PreToolUse answered with the host's deny without asking the engine's hooks.
fn refuse(engine: &mut Engine, d: &'static Dialect, name: &'static str, reason: String) -> Step {
    engine.start_seq(Vec::new(), move |_| {
        let log = json!(Log::warn(reason.clone()));
        denied(d, name, reason.clone(), vec![log])
    })
}

/// A PreToolUse deny with `reason`, as the host honours it: its deny answer, or (Letta Code)
/// exit code 2 with the reason on stderr (`exit`, `stderr`: what the hook process does).
fn denied(d: &Dialect, name: &str, reason: String, logs: Vec<Value>) -> Value {
    if d.deny_exit {
        let mut r = answer(String::new(), Some("deny"), logs);
        r["exit"] = json!(2);
        r["stderr"] = json!(reason);
        return r;
    }
    let a = Answer::Deny { reason };
    answer(render(d, name, Event::PreTool, a), Some("deny"), logs)
}

fn pre_tool_use(
    engine: &mut Engine,
    d: &'static Dialect,
    name: &'static str,
    p: &Payload<'_>,
    session_id: String,
    given: Option<&str>,
) -> Step {
    let tool = p.str("tool_name");
    let policy = policy_of(engine);
    if let Some(why) = place::unreadable(given, p.0) {
        if policy.strict {
            return refuse(engine, d, name, place::unreadable_block(&why));
        }
    }
    if let Some(b) = place::hook_tool_block(&tool) {
        return refuse(engine, d, name, b);
    }
    if d.own_tool(&tool).is_some() {
        // hookwise's own tool: decided when it is called (`tool.call`)
        return nothing(engine, d, name, Event::PreTool);
    }
    let directory = match place::directory(&policy, &tool, &p.str(d.cwd_key)) {
        Ok(d) => d,
        Err(b) => return refuse(engine, d, name, b),
    };
    let call_id = p.call_id(d);
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
        fixed_args: false,
        unreadable,
        directory,
    });
    engine.start_seq(vec![before], move |r| pre_answer(d, name, args, &r[0]))
}

/// The PreToolUse answer from `tool.before`'s result.
fn pre_answer(d: &Dialect, name: &str, args: Option<Value>, before: &Value) -> Value {
    let logs = logs_of(std::slice::from_ref(before));
    if let Some(reason) = before.get("block").and_then(Value::as_str) {
        return denied(d, name, reason.to_string(), logs);
    }
    let edits: Vec<ArgEdit> = before
        .get("edits")
        .cloned()
        .and_then(|m| serde_json::from_value(m).ok())
        .unwrap_or_default();
    let mut updated = None;
    if let (Some(mut input), false) = (args, edits.is_empty()) {
        if apply(&mut input, &edits) > 0 {
            updated = Some(input);
        }
    }
    if !d.pre_context {
        // the context waits for PostToolUse (the core keeps it for the call's result)
        let decision = updated.is_some().then_some("allow");
        let a = Answer::Allow {
            context: None,
            rewrite: updated,
        };
        return answer(render(d, name, Event::PreTool, a), decision, logs);
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
    // the knowledge block, unless an edit carries it into the arguments (a sub-agent's prompt);
    // a confined shell's rewrite carries none, so its context still goes to the model here
    let carried = updated.is_some() && edits.iter().any(|e| e.prepend.is_some());
    if !carried {
        if let Some(c) = before.get("context").and_then(Value::as_str) {
            parts.push(c.to_string());
        }
    }
    // the rewritten input runs only with an allow; a sub-agent's prompt is the only argument
    // hookwise rewrites (the sub-agent reads it)
    let decision = updated.is_some().then_some("allow");
    let a = Answer::Allow {
        context: join(parts),
        rewrite: updated,
    };
    answer(render(d, name, Event::PreTool, a), decision, logs)
}

/// Apply the core's argument edits to a copy of the arguments (as the JS glue's `applyEdits`):
/// set or strip earlier blocks, prepend. Returns how many applied.
fn apply(target: &mut Value, edits: &[ArgEdit]) -> usize {
    let mut n = 0;
    for m in edits {
        let slot = m.path.iter().try_fold(&mut *target, |at, k| match (k, at) {
            (PathKey::Key(k), Value::Object(o)) => o.get_mut(k),
            (PathKey::Index(i), Value::Array(a)) => a.get_mut(*i),
            _ => None,
        });
        let Some(Value::String(s)) = slot else {
            continue;
        };
        let text = match (&m.set, &m.strip) {
            (Some(set), _) => set.clone(),
            (None, Some((open, close))) => strip_spans(s, open, close),
            (None, None) => s.clone(),
        };
        *s = format!("{}{text}", m.prepend.as_deref().unwrap_or(""));
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

fn post_tool_use(
    engine: &mut Engine,
    d: &'static Dialect,
    name: &'static str,
    p: &Payload<'_>,
    session_id: String,
    random: String,
    model_log: Option<crate::governance::ops::SessionLog>,
) -> Step {
    let tool = p.str("tool_name");
    match d.own_tool(&tool) {
        Some("select_active_intent") => {
            // The agent's MCP server answered the model; this engine, which answers the
            // session's hooks, learns the selection from the hook (it knows the session,
            // which the server of a command-hook host is not told). An unknown intent is
            // refused here as there.
            let intent_id = p
                .tool_input()
                .ok()
                .and_then(|v| {
                    v.get("intent_id")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .unwrap_or_default();
            let select = Call::IntentSelect(crate::engine::IntentSelectCall {
                session_id,
                intent_id,
            });
            return engine.start_seq(vec![select], move |r| {
                answer(
                    render(d, name, Event::PostTool, Answer::Nothing),
                    None,
                    logs_of(&r),
                )
            });
        }
        Some(_) => return nothing(engine, d, name, Event::PostTool),
        None => {}
    }
    let call_id = p.call_id(d);
    // relative paths as PreToolUse read them (a `cwd` outside the project was blocked there)
    let directory = place::directory(&policy_of(engine), &tool, &p.str(d.cwd_key)).unwrap_or_default();
    // The text the core kept for this call's result: Claude Code had it with PreToolUse (this
    // first `tool.after`, without arguments, only takes it); the other hosts get it now.
    let taken = Call::ToolAfter(ToolAfterCall {
        tool: tool.clone(),
        session_id: session_id.clone(),
        call_id: call_id.clone(),
        args: None,
        random: String::new(),
        failed: false,
        unreadable: None,
        directory: String::new(),
        model_log: None,
    });
    let calls = {
        let (args, unreadable) = match p.tool_input() {
            Ok(a) => (Some(a), None),
            Err(code) => (None, Some(code)),
        };
        let record = Call::ToolAfter(ToolAfterCall {
            tool,
            session_id: session_id.clone(),
            call_id,
            args,
            random,
            // PostToolUse runs for calls that succeeded (failures are PostToolUseFailure)
            failed: false,
            unreadable,
            directory,
            model_log,
        });
        let mut calls = vec![taken, record];
        if d.start_with_result {
            // no prompt hook reaches the model (Mistral Vibe): the session's start context, and
            // governance's block with it, go with the session's first result
            calls.splice(0..0, start_calls(&session_id, None));
        }
        calls
    };
    engine.start_seq(calls, move |mut r| {
        let mut parts = Vec::new();
        if d.start_with_result && r.len() >= 2 {
            let start: Vec<Value> = r.drain(0..2).collect();
            if first_result(&session_id) {
                if let Some(c) = start[0].get("sessionContext").and_then(Value::as_str) {
                    parts.push(c.to_string());
                }
                if let Some(s) = start[1].get("system").and_then(Value::as_array) {
                    parts.extend(s.iter().filter_map(Value::as_str).map(str::to_string));
                }
            }
            r.extend(start.into_iter().map(|v| json!({"logs": v.get("logs").cloned().unwrap_or(json!([]))})));
        }
        let logs = logs_of(&r);
        let Some(last) = r.get(1) else {
            return answer(
                render(d, name, Event::PostTool, Answer::Nothing),
                None,
                logs,
            );
        };
        if !d.compact_start {
            parts.extend(take_kept(&session_id));
        }
        if !d.pre_context {
            parts.extend(with_result(&r[0]));
        }
        parts.extend(with_result(last));
        let mut v = answer(say(d, name, Event::PostTool, join(parts)), None, logs);
        if let Some(id) = last.get("recorded") {
            // the Agent Trace record's id: for the log and the tests
            v["recorded"] = id.clone();
        }
        v
    })
}

/// UserPromptSubmit and SessionStart: the session-start context on the session's first
/// prompt, governance's `<intent_context>` on every prompt.
fn prompt(
    engine: &mut Engine,
    d: &'static Dialect,
    name: &'static str,
    kind: Event,
    p: &Payload<'_>,
    session_id: String,
) -> Step {
    let calls = start_calls(&session_id, Some(p.str("model")));
    engine.start_seq(calls, move |r| {
        let logs = logs_of(&r);
        let mut parts = Vec::new();
        if !d.compact_start {
            parts.extend(take_kept(&session_id));
        }
        if let Some(c) = r[0].get("sessionContext").and_then(Value::as_str) {
            parts.push(c.to_string());
        }
        if let Some(s) = r[1].get("system").and_then(Value::as_array) {
            parts.extend(s.iter().filter_map(Value::as_str).map(str::to_string));
        }
        answer(say(d, name, kind, join(parts)), None, logs)
    })
}

/// A session's start: `session.created` (its context, once) and `system.transform` (governance's
/// block; the session's context is given by `session.created`: marked as there already).
fn start_calls(session_id: &str, model: Option<String>) -> Vec<Call> {
    let created = Call::SessionCreated {
        session: SessionInfo {
            id: session_id.to_string(),
            parent_id: None,
        },
    };
    let governance = Call::SystemTransform {
        session_id: Some(session_id.to_string()),
        system: vec![crate::session::format::HEADER.to_string()],
        model_id: model.filter(|m| !m.is_empty()),
    };
    vec![created, governance]
}

/// PreCompact: the preservation guidance (Claude Code adds it to the summary request's
/// instructions); what was kept waits for the session's next context.
fn pre_compact(d: &Dialect, name: &str, session_id: &str, r: &Value) -> Value {
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
    let a = if guidance.trim().is_empty() {
        Answer::Nothing
    } else {
        Answer::Guidance(guidance)
    };
    let mut v = answer(render(d, name, Event::PreCompact, a), None, logs);
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

thread_local! {
    /// The sessions whose first tool result carried their start context (hosts with no prompt
    /// hook, [`Dialect::start_with_result`]; bounded).
    static STARTED: RefCell<VecDeque<String>> = const { RefCell::new(VecDeque::new()) };
}

/// Whether this is the session's first result (and remember that it was).
fn first_result(session_id: &str) -> bool {
    STARTED.with(|s| {
        let mut s = s.borrow_mut();
        if s.iter().any(|x| x == session_id) {
            return false;
        }
        if s.len() >= MAX_KEPT {
            s.pop_front();
        }
        s.push_back(session_id.to_string());
        true
    })
}

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
pub(crate) mod tests;

#[cfg(test)]
mod dialect_tests;

#[cfg(test)]
mod place_tests;

#[cfg(test)]
mod next_hosts_tests;

#[cfg(test)]
mod next_hosts_b_tests;

//! What `hookwise init --claude`, the plugin and `hookwise mcp` need to know about the hooks:
//! the MCP server's hook tools (names, descriptions, input schema) and the `hooks` entries of
//! `.claude/settings.json` (the `claude.hook` event `setup`).
//!
//! - `mcp_tool` hooks (the default): Claude Code templates each string of `input` from the
//!   payload (`${tool_input}` arrives as JSON text; a missing field as `""`; the whole payload
//!   cannot be passed), so each entry lists the fields its event needs. `mcp_tool` hooks do not
//!   run for SessionStart at start-up or resume: the SessionStart entry is for `compact` only,
//!   and UserPromptSubmit brings the session-start context.
//! - `command` hooks (`{"command": "<how to run hookwise>"}` in the input): `<command> hook
//!   <Event>` reads the whole payload on stdin; SessionStart runs at start-up too.
//! - PreToolUse is where governance and enforcement decide: when either is on
//!   (`failClosed`), its entry has `"onFailure": "block"` (an absent or broken server blocks
//!   the call instead of waving it through). The other entries fail open (Claude Code's
//!   default): knowledge context is never worth a failed tool call.

use serde_json::{json, Map, Value};

/// The MCP server's name in `.mcp.json` (tools reach the model as `mcp__hookwise__<tool>`).
pub const SERVER: &str = "hookwise";

/// The events hookwise answers, their hook tool and the payload fields they read.
pub const EVENTS: &[(&str, &str, &[&str])] = &[
    (
        "PreToolUse",
        "hook_pre_tool_use",
        &["tool_name", "tool_input", "tool_use_id"],
    ),
    (
        "PostToolUse",
        "hook_post_tool_use",
        &["tool_name", "tool_input", "tool_use_id"],
    ),
    ("UserPromptSubmit", "hook_user_prompt_submit", &[]),
    ("PreCompact", "hook_pre_compact", &["trigger"]),
    ("SessionStart", "hook_session_start", &["source", "model"]),
];

const COMMON: &[&str] = &["hook_event_name", "session_id", "transcript_path", "cwd"];

/// The `input` template of an event's `mcp_tool` hook.
pub fn template(fields: &[&str]) -> Value {
    let mut m = Map::new();
    for f in COMMON.iter().chain(fields) {
        m.insert(f.to_string(), json!(format!("${{{f}}}")));
    }
    Value::Object(m)
}

/// A hook tool's description: it says it is an endpoint for Claude Code's hooks (the model is
/// offered every tool of the server, deferred, and should leave these alone).
pub fn description(event: &str) -> String {
    format!(
        "Internal endpoint of hookwise's Claude Code {event} hook: Claude Code calls it itself for every {event} event. Never call it yourself; it does nothing for you."
    )
}

/// The hook tools of `hookwise mcp`.
pub fn tools() -> Vec<Value> {
    EVENTS
        .iter()
        .map(|(event, tool, fields)| {
            let props: Map<String, Value> = COMMON
                .iter()
                .chain(fields.iter())
                .map(|f| (f.to_string(), json!({"type": "string"})))
                .collect();
            json!({
                "name": tool,
                "description": description(event),
                "inputSchema": {"type": "object", "properties": props, "additionalProperties": true},
            })
        })
        .collect()
}

/// The hook tool's event (`None`: not a hook tool): the tests' check of the table.
#[cfg(test)]
pub fn event_of(tool: &str) -> Option<&'static str> {
    EVENTS.iter().find(|e| e.1 == tool).map(|e| e.0)
}

/// How a command hook runs hookwise.
pub enum Command<'a> {
    /// `<command> hook <Event>` (a command given in the input, or the `hookwise` on PATH).
    Given(&'a str),
    /// The project's own hookwise, found by the entry of [`super::setup_cli::hook_entry`].
    Project,
}

impl Command<'_> {
    fn line(&self, event: &str, deny: Option<&str>) -> String {
        match self {
            Command::Given(c) => format!("{c} hook {event}"),
            Command::Project => {
                super::setup_cli::hook_entry("CLAUDE_PROJECT_DIR", "claude-code", event, deny)
            }
        }
    }
}

/// The `hooks` object of `.claude/settings.json`. `command`: run hookwise's `hook <Event>`
/// instead of calling the MCP server; `server`: the server's name as Claude Code knows it (a
/// plugin's server is `plugin:<plugin>:<server>`).
pub fn settings_hooks(fail_closed: bool, command: Option<Command>, server: &str) -> Value {
    let deny = fail_closed.then(|| {
        crate::host::answer::deny(
            &crate::hosts::claude::DIALECT,
            super::setup_cli::NOT_FOUND,
        )
    });
    let mut hooks = Map::new();
    for (event, tool, fields) in EVENTS {
        let mut h = match &command {
            Some(c) => {
                let gate = if *event == "PreToolUse" {
                    deny.as_deref()
                } else {
                    None
                };
                json!({"type": "command", "command": c.line(event, gate)})
            }
            None => json!({
                "type": "mcp_tool",
                "server": server,
                "tool": tool,
                "input": template(fields),
            }),
        };
        if *event == "PreToolUse" && fail_closed {
            h["onFailure"] = json!("block");
        }
        let mut entry = json!({ "hooks": [h] });
        match (*event, &command) {
            ("PreToolUse" | "PostToolUse", _) => entry["matcher"] = json!("*"),
            ("SessionStart", None) => entry["matcher"] = json!("compact"),
            _ => {}
        }
        hooks.insert(event.to_string(), json!([entry]));
    }
    Value::Object(hooks)
}

/// The permission rules of the project's settings: `deny` hides each hook tool from the model
/// (Claude Code still runs the `mcp_tool` hooks that call it), for `.claude/settings.json`;
/// `allow` lets the model call hookwise's own tools (`modelTools`, and `select_active_intent`)
/// without a prompt — Claude Code reads MCP allow rules in `-p` only from
/// `.claude/settings.local.json` or `--allowedTools` (both checked against Claude Code 2.1.330).
pub fn permissions(model_tools: &[&str]) -> Value {
    let name = |t: &str| format!("mcp__{SERVER}__{t}");
    let mut allow: Vec<String> = vec![name("select_active_intent")];
    for t in model_tools {
        let n = name(t);
        if !allow.contains(&n) {
            allow.push(n);
        }
    }
    json!({
        "deny": EVENTS.iter().map(|e| name(e.1)).collect::<Vec<_>>(),
        "allow": allow,
    })
}

/// The `setup` answer. Input: `{failClosed?: bool, commandHooks?: bool, global?: bool,
/// command?: string, server?: string, modelTools?: [name]}`: `commandHooks` writes command
/// hooks running the project's hookwise (found from `CLAUDE_PROJECT_DIR` by the launcher of
/// [`super::setup_cli`]; with `global`, the `hookwise` on PATH), `command` another way to run hookwise. `mcpServer` is
/// the `.mcp.json` entry, portable as well ([`super::setup_cli`]).
pub fn answer(input: &Value) -> Value {
    let fail_closed = input.get("failClosed").and_then(Value::as_bool) == Some(true);
    let global = input.get("global").and_then(Value::as_bool) == Some(true);
    let base = (input.get("commandHooks").and_then(Value::as_bool) == Some(true)).then(|| {
        if global {
            Command::Given("hookwise")
        } else {
            Command::Project
        }
    });
    let command = input
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty())
        .map(Command::Given)
        .or(base);
    let model_tools: Vec<&str> = input
        .get("modelTools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|n| {
            n.len() <= 64
                && n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
        .collect();
    let server = input
        .get("server")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .unwrap_or(SERVER);
    json!({
        "server": SERVER,
        "tools": tools(),
        "events": EVENTS.iter().map(|e| json!({"event": e.0, "tool": e.1})).collect::<Vec<_>>(),
        "hooks": settings_hooks(fail_closed, command, server),
        "permissions": permissions(&model_tools),
        "mcpServer": super::setup_cli::claude_server(global),
        "logs": [],
    })
}

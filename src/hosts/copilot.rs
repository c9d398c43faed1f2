//! GitHub Copilot CLI: a command-hook host (`hookwise hook --host copilot <Event>`; its protocol is Claude
//! Code's with the differences its dialect names). Its tools, its dialect, the answer it
//! honours, and the facts the tooling reads.

use super::{Cli, Facts, Kind};
use crate::host::answer::{some, to_json, Answer};
use crate::host::dialect::{HooksForm, Dialect, Event::{self, *}, McpFile, Setup};
use crate::host::model_log::{self, ModelLog};
use crate::host::table::*;
use crate::host::{Keys, Profile, Role, Tool, NONE, PLAIN};
use serde::Serialize;
use serde_json::Value;

// ---- the tools ----------------------------------------------------------------------------

// @github/copilot 1.0.102 (its unpacked `cli-main.js`: the tools' zod schemas): `create {path,
// file_text}`, `edit {path, old_str, new_str}`, `view {path, …}`, `str_replace_editor
// {command: view|create|str_replace|insert, path, …}`, `glob`, `grep`, `rg`. With hooks in
// Claude's shape the shell reached the probe hook as `Bash {command}` (observed); `bash` is
// its own name. Its `apply_patch` is not listed: its input keys were not checked.

const COPILOT_TOOLS: &[Tool] = &[
    shell("Bash", W),
    shell("bash", W),
    tool(
        "create",
        Role::Write,
        Keys {
            path: &["path"],
            content: &["file_text"],
            ..NONE
        },
        W,
    ),
    edit("edit", replace(&["path"], &["old_str"], &["new_str"], &[])),
    // view, create, str_replace or insert on `path`: gated as an edit of that file
    edit("str_replace_editor", file_only(&["path"])),
    // its freeform apply_patch (`*** Begin Patch` text, which hooks see as `Edit` with the raw
    // patch: read as this tool by `hidden::read_call`, issue 38)
    tool(
        "apply_patch",
        Role::Patch,
        Keys {
            patch: &["patch"],
            ..NONE
        },
        W,
    ),
    read("view", &["path"]),
    reader("glob"),
    reader("grep"),
    reader("rg"),
];

pub static PROFILE: Profile = Profile {
    id: "copilot",
    title: "GitHub Copilot CLI",
    tools: &[COPILOT_TOOLS],
    rewrites_paths: false,
    ..PLAIN
};


// ---- the dialect --------------------------------------------------------------------------

/// GitHub Copilot CLI 1.0.102 with hooks in Claude's nested shape (`.github/hooks/*.json`):
/// context counts only at the answer's top level (`additionalContext`); a block is
/// `permissionDecision: "deny"` in `hookSpecificOutput`.
pub static DIALECT: Dialect = Dialect {
    host: PROFILE.id,
    render,
    events: &[
        ("PreToolUse", PreTool),
        ("PostToolUse", PostTool),
        ("UserPromptSubmit", Prompt),
        ("SessionStart", SessionStart),
        ("PreCompact", PreCompact),
    ],
    call_id: &["tool_use_id", "tool_call_id"],
    fields: &[],
    pre_context: false,
    compact_start: false,
    deny_exit: false,
    mcp_prefix: "hookwise-",
    project_dir_var: "",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: Some(ModelLog {
        env_keys: &["COPILOT_HOME", "HOME"],
        path: events_path,
        model,
    }),
    setup: Some(Setup {
        flag: "copilot",
        form: HooksForm::Claude,
        hooks_file: ".github/hooks/hookwise.json",
        tool_matcher: "*",
        timeout: 30,
        named: false,
        // read by 1.0.102 beside `.mcp.json` (its cli-main.js)
        mcp_file: ".github/mcp.json",
        mcp: McpFile::Json {
            server_type: Some("local"),
        },
        trust: "Copilot CLI loads a folder's hooks and MCP servers only once the folder is trusted: confirm the trust prompt on the first start here (headless runs: COPILOT_ALLOW_ALL=true trusts the folder too).",
        doctor: "",
    }),
};


/// Its session events (1.0.102): `<config>/session-state/<session_id>/events.jsonl`, with
/// `<config>` its configuration folder: `$COPILOT_HOME`, else `~/.copilot` (its `--config-dir`
/// flag is not visible to a hook: then no model is named). It writes the log a little behind
/// the calls it reports (a postToolUse hook 110 ms after the model's turn was seen not to find
/// it yet): governance reads a log without a model turn again.
fn events_path(payload: &Value, env: &Value) -> Option<String> {
    let id = model_log::field(payload, "session_id").filter(|i| model_log::plain_id(i))?;
    let config = model_log::field(env, "COPILOT_HOME")
        .or_else(|| {
            model_log::field(env, "HOME").map(|h| format!("{}/.copilot", h.trim_end_matches('/')))
        })
        .filter(|p| crate::paths::is_absolute(p))?;
    Some(format!(
        "{}/session-state/{id}/events.jsonl",
        config.trim_end_matches('/')
    ))
}

/// A model turn is `{"type": "assistant.message", "data": {"model": M, …}}` (and
/// `tool.execution_start` names it too), written before the call's hooks run.
fn model(text: &str) -> Option<String> {
    model_log::latest(text, |v| match model_log::kind(v)? {
        "assistant.message" | "tool.execution_start" => v.get("data")?.get("model")?.as_str(),
        _ => None,
    })
}

// ---- the answer ---------------------------------------------------------------------------

/// The answer as the host reads it.
fn render(event: &str, kind: Event, a: Answer) -> String {
    to_json(&copilot(event, kind, a))
}


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


pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "copilot",
    config_files: &[".github/hooks/hookwise.json", ".github/mcp.json"],
    markers: &[".github/hooks"],
    program: "copilot",
    // the native binary ships as an optional per-platform dependency: the entry point is that
    // binary, not the node launcher
    cli: Some(Cli {
        package: "@github/copilot",
        version: "1.0.102",
        install_flags: "",
        entry: "@github/copilot-linux-x64/copilot",
        native: true,
    }),
    setup: "scripts/setup-clis.sh copilot",
    e2e: "tests/e2e-copilot",
};

//! Qwen Code: a command-hook host (`hookwise hook --host qwen <Event>`; its protocol is Claude
//! Code's with the differences its dialect names). Its tools, its dialect, the answer it
//! honours, and the facts the tooling reads.

use super::{Cli, Facts, Kind};
use crate::host::answer::{some, to_json, Answer};
use crate::host::dialect::{HooksForm, Dialect, Event::{self, *}, McpFile, Setup};
use crate::host::table::*;
use crate::host::{Profile, Tool, PLAIN};
use serde::Serialize;

// ---- the tools ----------------------------------------------------------------------------

// @qwen-code/qwen-code 0.24.4 (`chunks/chunk-RSWOFJBY.js`: `ToolNames`; the schemas in
// `chunk-SNMYJZZG.js` write_file, `chunk-BNPJT34T.js` edit, `chunk-2VS5EEXU.js` read_file,
// `chunk-QZGPSTNK.js` notebook_edit): `run_shell_command {command, description,
// is_background}`, `write_file {file_path, content}`, `edit {file_path, old_string,
// new_string, replace_all}`, `read_file {file_path, …}`, `notebook_edit {notebook_path, cell_id,
// new_source, …}`. `save_memory` writes a memory file and `agent` starts a sub-agent: not
// listed (gated).

const QWEN_TOOLS: &[Tool] = &[
    shell("run_shell_command", W),
    // the deferred `monitor {command, …}` (reached through `tool_search` and `tool_call`): a
    // long-running shell (`chunks/monitor-*.js`; issue 38)
    shell("monitor", W),
    write("write_file", &["file_path"]),
    edit(
        "edit",
        replace(
            &["file_path"],
            &["old_string"],
            &["new_string"],
            &["replace_all"],
        ),
    ),
    edit("notebook_edit", file_only(&["notebook_path"])),
    read("read_file", &["file_path"]),
    reader("glob"),
    reader("grep_search"),
    reader("list_directory"),
    reader("web_fetch"),
    reader("web_search"),
    reader("todo_write"),
    reader("ask_user_question"),
    reader("tool_search"),
];

pub static PROFILE: Profile = Profile {
    id: "qwen",
    title: "Qwen Code",
    tools: &[QWEN_TOOLS],
    rewrites_paths: false,
    keeps_args: true,
    ..PLAIN
};

// ---- the dialect --------------------------------------------------------------------------

/// Qwen Code 0.24.4 (`bundled/qc-helper/docs/features/hooks.md`): Claude's shape, but a
/// PreToolUse `updatedInput` is not applied (its `firePreToolUseHook` returns no input), so
/// its answers carry none; PostCompact's answer is ignored.
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
    compact_start: true,
    deny_exit: false,
    mcp_prefix: "mcp__hookwise__",
    project_dir_var: "QWEN_PROJECT_DIR",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: None,
    setup: Some(Setup {
        flag: "qwen",
        form: HooksForm::Claude,
        hooks_file: ".qwen/settings.json",
        tool_matcher: ".*",
        timeout: 30,
        named: true,
        mcp_file: ".qwen/settings.json",
        mcp: McpFile::Json { server_type: None },
        trust: "Qwen Code loads a project's hooks and MCP servers only in a trusted folder: trust this folder when Qwen Code asks (or turn folder trust off in ~/.qwen/settings.json: security.folderTrust.enabled = false).",
        doctor: "",
    }),
};


// ---- the answer ---------------------------------------------------------------------------

/// The answer as the host reads it.
fn render(event: &str, kind: Event, a: Answer) -> String {
    to_json(&qwen(event, kind, a))
}


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


pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "qwen",
    config_files: &[".qwen/settings.json"],
    markers: &[".qwen"],
    program: "qwen",
    // its install script fetches nothing the CLI needs offline (command-hook-hosts.md): skipped
    cli: Some(Cli {
        package: "@qwen-code/qwen-code",
        version: "0.24.4",
        install_flags: "--ignore-scripts",
        entry: "@qwen-code/qwen-code/cli.js",
        native: false,
    }),
    setup: "scripts/setup-clis.sh qwen",
    e2e: "tests/e2e-qwen",
};

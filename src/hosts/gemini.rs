//! Gemini CLI: a command-hook host (`hookwise hook --host gemini <Event>`; its protocol is Claude
//! Code's with the differences its dialect names). Its tools, its dialect, the answer it
//! honours, and the facts the tooling reads.

use super::{Cli, Facts, Kind};
use crate::host::answer::{some, to_json, Answer};
use crate::host::dialect::{HooksForm, Dialect, Event::{self, *}, McpFile, Setup};
use crate::host::model_log::{self, ModelLog};
use crate::host::table::*;
use crate::host::{Profile, Tool, PLAIN};
use serde::Serialize;
use serde_json::Value;

// ---- the tools ----------------------------------------------------------------------------

// @google/gemini-cli 0.61.0, `bundle/chunk-5FZXKDXH.js` (the tools' `*_TOOL_NAME` and
// `*_PARAM_*` constants): `run_shell_command {command, description, is_background}`,
// `write_file {file_path, content}`, `replace {file_path, old_string, new_string,
// allow_multiple, instruction}`, `read_file {file_path, start_line, end_line}`; the readers
// below list, search, fetch or ask and write nothing (`write_todos`: the session's own list).

const GEMINI_TOOLS: &[Tool] = &[
    shell("run_shell_command", W),
    write("write_file", &["file_path"]),
    edit(
        "replace",
        replace(
            &["file_path"],
            &["old_string"],
            &["new_string"],
            &["allow_multiple"],
        ),
    ),
    read("read_file", &["file_path"]),
    reader("read_many_files"),
    reader("glob"),
    reader("grep_search"),
    reader("list_directory"),
    reader("google_web_search"),
    reader("web_fetch"),
    reader("get_internal_docs"),
    reader("ask_user"),
    reader("write_todos"),
];

pub static PROFILE: Profile = Profile {
    id: "gemini",
    title: "Gemini CLI",
    tools: &[GEMINI_TOOLS],
    rewrites_paths: false,
    ..PLAIN
};


// ---- the dialect --------------------------------------------------------------------------

/// Gemini CLI 0.61.0 (`bundle/docs/hooks/reference.md`): a block is a top-level `decision:
/// "deny"` with `reason`; context in `hookSpecificOutput.additionalContext` (the host
/// HTML-escapes it); no call id. Its PreCompress runs before every model request, fired
/// asynchronously, and can change nothing ("advisory"): hookwise does not hook it.
pub static DIALECT: Dialect = Dialect {
    host: PROFILE.id,
    render,
    events: &[
        ("BeforeTool", PreTool),
        ("AfterTool", PostTool),
        ("BeforeAgent", Prompt),
        ("SessionStart", SessionStart),
    ],
    call_id: &[],
    fields: &[],
    pre_context: false,
    compact_start: false,
    deny_exit: false,
    mcp_prefix: "mcp_hookwise_",
    project_dir_var: "GEMINI_PROJECT_DIR",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: Some(ModelLog {
        env_keys: &[],
        path: model_log::transcript_path,
        model,
    }),
    setup: Some(Setup {
        flag: "gemini",
        form: HooksForm::Claude,
        hooks_file: ".gemini/settings.json",
        tool_matcher: ".*",
        // milliseconds
        timeout: 30_000,
        named: true,
        mcp_file: ".gemini/settings.json",
        mcp: McpFile::Json { server_type: None },
        trust: "Gemini CLI loads a project's hooks and MCP servers only in a trusted folder: answer its trust prompt on the first start here (or run with GEMINI_CLI_TRUST_WORKSPACE=true); it asks again whenever a hook's command changes.",
        doctor: "",
    }),
};


/// Its session transcript (0.61.0), named by the payload's `transcript_path`
/// (`~/.gemini/tmp/<project>/chats/session-….jsonl`), one JSON object per line: a model turn is
/// `{"type": "gemini", "model": M, …}`, written before the turn's tools run (BeforeTool and
/// AfterTool see it).
fn model(text: &str) -> Option<String> {
    model_log::latest(text, |v| match model_log::kind(v)? {
        "gemini" => v.get("model")?.as_str(),
        _ => None,
    })
}

// ---- the answer ---------------------------------------------------------------------------

/// The answer as the host reads it.
fn render(event: &str, kind: Event, a: Answer) -> String {
    to_json(&gemini(event, kind, a))
}


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


pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "gemini",
    config_files: &[".gemini/settings.json"],
    markers: &[".gemini"],
    program: "gemini",
    // its install script fetches nothing the CLI needs offline (command-hook-hosts.md): skipped
    cli: Some(Cli {
        package: "@google/gemini-cli",
        version: "0.61.0",
        install_flags: "--ignore-scripts",
        entry: "@google/gemini-cli/bundle/gemini.js",
        native: false,
    }),
    setup: "scripts/setup-clis.sh gemini",
    e2e: "tests/e2e-gemini",
};

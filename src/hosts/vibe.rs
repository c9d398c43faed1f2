//! Mistral Vibe (PyPI `mistral-vibe` 3.0.3, `vibe`, Python ≥ 3.12): its tools, its hook dialect
//! and the answers it honours, as its own documentation says them
//! (`vibe/core/skills/builtins/vibe.py`, "Hooks") and as checked in the real CLI
//! (`tests/e2e-vibe/`, docs/hosts/vibe.md).
//!
//! - Hooks: the project's `.vibe/hooks.toml` (then `~/.vibe/hooks.toml`), **loaded only in a
//!   trusted folder** (`--trust`, `~/.vibe/trusted_folders.toml`): `[[hooks]] {name, type:
//!   pre_tool | post_tool | post_agent, command, match, timeout (seconds), strict}`. No session
//!   start, prompt or compaction hook.
//! - The payload: `{hook_event_name, session_id, parent_session_id, transcript_path, cwd,
//!   tool_name, tool_call_id, tool_input}` (+ `tool_status`, `tool_output`, `tool_output_text`
//!   after the call); the built-in tools are named in their namespace (`file_system.bash`), not
//!   as the model calls them (`bash`).
//! - A block is **JSON only**: exit 0 with `{decision: "deny", reason}`. Any other exit, a
//!   timeout or unreadable output is the "failure path": the call runs — unless the hook is
//!   `strict`, which `init` sets on the gate's hook (a failure then denies the call).
//! - A rewrite: `hook_specific_output.tool_input`, the whole new input, re-validated by Vibe.
//! - Context: post_tool's `hook_specific_output.additional_context`, appended to the tool's
//!   output. With no prompt hook, the session's start context goes with its first result
//!   ([`Dialect::start_with_result`]).
//! - MCP servers: `[[mcp_servers]] {name, transport, command, args}` in the project's
//!   `.vibe/config.toml` (trusted folders only). Vibe 3's model reaches them (and every tool
//!   group) from TypeScript it writes for `run_typescript` (`tools.mcp_hookwise.<tool>(…)`);
//!   each such call runs the hooks as `mcp_hookwise.<tool>`, `run_typescript` itself none.

use serde::Serialize;
use serde_json::Value;

use super::{Cli, Facts, Kind};
use crate::host::answer::Answer;
use crate::host::dialect::{Dialect, Event, HooksForm, McpFile, Setup};
use crate::host::table::{edit, read, reader, replace, shell, write, W};
use crate::host::{Profile, Tool, PLAIN};

// The tools as hooks name them (`vibe/app_server/_unified_permissions.py`: the runtime's
// builtins `file_system.read_file {path}`, `file_system.write_file {file_path, content}` (the model writes `path`),
// `file_system.edit {file_path, old_string, new_string, replace_all}`, `file_system.bash
// {command, timeout}`, `process.start {command}`), and under their bare names as Vibe's
// documentation and its classic tools give them. `process.output` / `list` / `stop` only
// observe or end a process the session started. Not listed (gated under governance):
// `process.write` (input typed into a running process: its keys were not checked),
// `run_typescript`, `vibe.cron`, `task` (sub-agents), and every other tool.
const TOOLS: &[Tool] = &[
    shell("file_system.bash", W),
    shell("bash", W),
    shell("process.start", W),
    // the model's `write_file {path}` reaches the hooks as `file_system.write_file` with
    // `file_path` (seen in the real CLI); either key is read, the other must agree
    write("file_system.write_file", &["file_path", "path"]),
    write("write_file", &["file_path", "path"]),
    edit(
        "file_system.edit",
        replace(
            &["file_path"],
            &["old_string"],
            &["new_string"],
            &["replace_all"],
        ),
    ),
    edit(
        "edit",
        replace(
            &["file_path"],
            &["old_string"],
            &["new_string"],
            &["replace_all"],
        ),
    ),
    read("file_system.read_file", &["path"]),
    read("read_file", &["path"]),
    reader("grep"),
    reader("process.output"),
    reader("process.list"),
    reader("process.stop"),
    reader("skill.read"),
    reader("ui.ask_user_question"),
    reader("ask_user_question"),
    reader("vibe.todo"),
    reader("todo"),
    reader("web_search"),
    reader("web_fetch"),
    reader("connector_web_search.web_search"),
    reader("connector_web_search.open_url"),
    reader("search_tool_functions"),
    reader("self.sleep"),
    reader("self.wait"),
];

pub static PROFILE: Profile = Profile {
    id: "vibe",
    title: "Mistral Vibe",
    tools: &[TOOLS],
    rewrites_paths: false,
    ..PLAIN
};

/// The one step the user takes ([`Setup::trust`]), also what `doctor` adds to the line.
const TRUST: &str = "Mistral Vibe loads a project's .vibe/hooks.toml and .vibe/config.toml only in a trusted folder: trust this folder when Vibe asks (vibe -p never asks: add it to ~/.vibe/trusted_folders.toml, or run vibe --trust). Until then hookwise does not run in Vibe here.";

pub static DIALECT: Dialect = Dialect {
    host: PROFILE.id,
    render,
    events: &[("pre_tool", Event::PreTool), ("post_tool", Event::PostTool)],
    call_id: &["tool_call_id"],
    fields: &[],
    pre_context: false,
    compact_start: false,
    deny_exit: false,
    // MCP tools are reached through `run_typescript` (`tools.mcp_hookwise.<tool>(…)`), each
    // call hooked as `mcp_hookwise.<tool>` (`run_typescript` itself is not hooked)
    mcp_prefix: "mcp_hookwise.",
    project_dir_var: "",
    cwd_key: "cwd",
    start_with_result: true,
    model_log: None,
    setup: Some(Setup {
        flag: "vibe",
        hooks_file: ".vibe/hooks.toml",
        form: HooksForm::VibeToml,
        tool_matcher: "*",
        timeout: 30,
        named: true,
        mcp_file: ".vibe/config.toml",
        mcp: McpFile::VibeToml,
        trust: TRUST,
        // doctor cannot check the step the user takes (the host loads the entry its own way)
        doctor: TRUST,
    }),
};

#[derive(Serialize)]
struct Out {
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hook_specific_output: Option<Hso>,
}

#[derive(Serialize)]
struct Hso {
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_input: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_context: Option<String>,
}

/// Mistral Vibe's answer: a deny, a rewritten input, or context for a result; nothing to say
/// is empty output (Vibe's pass-through).
fn render(_event: &str, kind: Event, a: Answer) -> String {
    let out = match (kind, a) {
        (Event::PreTool, Answer::Deny { reason }) => Out {
            decision: Some("deny"),
            reason: Some(reason),
            hook_specific_output: None,
        },
        (
            Event::PreTool,
            Answer::Allow {
                rewrite: Some(input),
                ..
            },
        ) => Out {
            decision: Some("allow"),
            reason: None,
            hook_specific_output: Some(Hso {
                tool_input: Some(input),
                additional_context: None,
            }),
        },
        (Event::PostTool, Answer::Context(t) | Answer::Guidance(t)) if !t.trim().is_empty() => {
            Out {
                decision: None,
                reason: None,
                hook_specific_output: Some(Hso {
                    tool_input: None,
                    additional_context: Some(t),
                }),
            }
        }
        _ => return String::new(),
    };
    serde_json::to_string(&out).unwrap_or_default()
}

pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "vibe",
    config_files: &[".vibe/hooks.toml", ".vibe/config.toml"],
    markers: &[".vibe"],
    program: "vibe",
    // a PyPI package: scripts/setup-clis.sh installs it into a venv (`pypi:`; Python >= 3.12),
    // its wheel with its requirements and certifi unpinned (its pin is not on PyPI)
    cli: Some(Cli {
        package: "pypi:mistral-vibe",
        version: "3.0.3",
        install_flags: "",
        entry: "venv/bin/vibe",
        native: true,
    }),
    setup: "scripts/setup-clis.sh vibe",
    e2e: "tests/e2e-vibe",
};

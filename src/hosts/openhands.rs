//! OpenHands CLI (PyPI `openhands` 1.16.0: `openhands_cli` on `openhands-sdk`): its tools, its
//! hook dialect and the answers it honours, as read in the installed package; not verified in
//! the real CLI yet (docs/hosts/openhands.md).
//!
//! - Hooks: the project's `.openhands/hooks.json` (then `~/.openhands/hooks.json`), Claude Code's
//!   wrapper `{hooks: {PreToolUse: [{matcher, hooks: [{type, command, timeout}]}]}}`, but **only**
//!   six events: PreToolUse, PostToolUse, UserPromptSubmit, SessionStart, SessionEnd, Stop — any
//!   other key is an error that stops the CLI (`openhands/sdk/hooks/config.py`). No trust step.
//! - The payload: `{event_type, tool_name, tool_input, tool_response, message, session_id,
//!   working_dir, metadata}` — no call id (one is derived from the tool and its input), the
//!   session's folder under `working_dir`; `OPENHANDS_PROJECT_DIR` in the hook's environment.
//! - A block: exit 2, or exit 0 with `{decision: "deny", reason}` (`executor.py`); the model
//!   reads `Action rejected: <reason>`. A hook that crashes lets the call run.
//! - No rewrite (`conversation_hooks.py`: PreToolUse can only block), so a governed shell is
//!   refused ([`crate::governance::confine::can_rewrite`]).
//! - Context reaches the model **only** from UserPromptSubmit's `additionalContext` (an extra
//!   text part of the user's message); SessionStart's and PostToolUse's output is not shown.
//! - MCP servers: only the user's `~/.openhands/mcp.json` (`{mcpServers}`, no project file):
//!   hookwise's `select_active_intent` is offered once the user adds the server there; its tools
//!   keep their own names (no server prefix).

use serde::Serialize;

use super::{Cli, Facts, Kind};
use crate::host::answer::Answer;
use crate::host::dialect::{Dialect, Event, HooksForm, McpFile, Setup};
use crate::host::table::{edit, file_only, reader, shell, W};
use crate::host::{Profile, Tool, PLAIN};

// openhands-sdk 1.21.0 (`openhands/tools/…`), as offered to the model: `terminal {command,
// is_input, timeout, reset, security_risk}`, `file_editor {command: view|create|str_replace|
// insert|undo_edit, path (absolute), file_text, old_str, new_str, insert_line, view_range}` —
// every command on `path` gated as an edit of that file (a `view` too: one tool for both);
// `task_tracker` keeps the session's own task list; `think` and `finish` change nothing.
const TOOLS: &[Tool] = &[
    shell("terminal", W),
    edit("file_editor", file_only(&["path"])),
    reader("task_tracker"),
    reader("think"),
    reader("finish"),
];

pub static PROFILE: Profile = Profile {
    id: "openhands",
    title: "OpenHands",
    tools: &[TOOLS],
    rewrites_paths: false,
    keeps_args: true,
    ..PLAIN
};

/// The one step the user takes ([`Setup::trust`]), also what `doctor` adds to the line.
const TRUST: &str = "OpenHands loads the project's .openhands/hooks.json without asking; it reads MCP servers only from your own ~/.openhands/mcp.json (openhands mcp), so hookwise's tools (select_active_intent) are offered only if you add the server there.";

pub static DIALECT: Dialect = Dialect {
    host: PROFILE.id,
    render,
    // SessionStart's output reaches no model: the session's start context goes with the first
    // prompt; no compaction event exists
    events: &[
        ("PreToolUse", Event::PreTool),
        ("PostToolUse", Event::PostTool),
        ("UserPromptSubmit", Event::Prompt),
    ],
    call_id: &[],
    fields: &[],
    pre_context: false,
    compact_start: false,
    deny_exit: false,
    // an MCP tool keeps its own name (`openhands/sdk/mcp/tool.py`: `name` is the server's)
    mcp_prefix: "",
    project_dir_var: "OPENHANDS_PROJECT_DIR",
    cwd_key: "working_dir",
    start_with_result: false,
    model_log: None,
    setup: Some(Setup {
        flag: "openhands",
        hooks_file: ".openhands/hooks.json",
        form: HooksForm::Claude,
        tool_matcher: "*",
        timeout: 30,
        named: false,
        mcp_file: "",
        mcp: McpFile::None,
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
    #[serde(rename = "additionalContext", skip_serializing_if = "Option::is_none")]
    additional_context: Option<String>,
}

/// OpenHands' answer: a deny, or the prompt's context.
fn render(_event: &str, kind: Event, a: Answer) -> String {
    let mut out = Out {
        decision: None,
        reason: None,
        additional_context: None,
    };
    match (kind, a) {
        (Event::PreTool, Answer::Deny { reason }) => {
            out.decision = Some("deny");
            out.reason = Some(reason);
        }
        (Event::Prompt, Answer::Context(t) | Answer::Guidance(t)) if !t.trim().is_empty() => {
            out.additional_context = Some(t)
        }
        _ => {}
    }
    serde_json::to_string(&out).unwrap_or_else(|_| "{}".into())
}

pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "openhands",
    config_files: &[".openhands/hooks.json"],
    markers: &[".openhands"],
    program: "openhands",
    // a PyPI package: scripts/setup-clis.sh installs it into a venv (`pypi:`; Python >= 3.12)
    cli: Some(Cli {
        package: "pypi:openhands",
        version: "1.16.0",
        install_flags: "",
        entry: "venv/bin/openhands",
        native: true,
    }),
    // 785 MB from PyPI (up to 25 min): installed only when asked for
    setup: "HOOKWISE_CLIS_OPENHANDS=1 scripts/setup-clis.sh openhands",
    // no real-CLI suite yet: every run timed out (docs/hosts/openhands.md)
    e2e: "",
};

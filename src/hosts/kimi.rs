//! Kimi Code (`@moonshot-ai/kimi-code` 2.1.0, `kimi`, Node ≥ 22.19): its tools, its hook
//! dialect and the answers it honours, as read in its bundle (`dist/main.mjs`) and checked in
//! the real CLI (`tests/e2e-kimi/`, docs/hosts/kimi.md).
//!
//! - Hooks live **only in the user's** `$KIMI_CODE_HOME/config.toml` (default
//!   `~/.kimi-code/config.toml`): flat `[[hooks]] {event, matcher (a regex), command, timeout
//!   (seconds, 1–600, default 30)}`; there is no project-level hook file. So the entry `init`
//!   writes runs in every project the user opens: it does nothing (exit 0, no output) where no
//!   hookwise is installed ([`super::dialect::HooksForm::KimiUser`]).
//! - The payload: `{hook_event_name, session_id, cwd, client_type, tool_name, tool_input,
//!   tool_call_id}`, `tool_output` after the call.
//! - A block: exit 2 (stderr the reason) or exit 0 with `hookSpecificOutput.permissionDecision:
//!   "deny"` and `permissionDecisionReason` (`resultFromExitCode`, `structuredOutput`); the model
//!   reads `<system>ERROR: Tool execution failed.</system>` and the reason. Any other exit, a
//!   timeout or a spawn error lets the call run (`allowResult`).
//! - No rewrite: a PreToolUse answer's input is never applied, so a governed shell cannot be
//!   put under the confining launcher: it is refused ([`crate::governance::confine::can_rewrite`]).
//! - Context reaches the model **only** from UserPromptSubmit: its `message` (or raw stdout) as
//!   a user message `<hook_result hook_event="UserPromptSubmit">…` (`renderUserPromptHookResult`).
//!   PostToolUse is fired and forgotten; SessionStart's output is not shown. So an answer with
//!   nothing to say is empty (stdout `{}` would reach the model as text).
//! - MCP servers: `.kimi-code/mcp.json` in the folder Kimi starts in (and `.mcp.json` at the git
//!   root), loaded only in a folder the user trusted (`includeProject: trust.isTrusted()`);
//!   hookwise's tools are `mcp__hookwise__<tool>`.

use serde::Serialize;

use super::{Cli, Facts, Kind};
use crate::host::answer::Answer;
use crate::host::dialect::{Dialect, Event, HooksForm, McpFile, Setup};
use crate::host::table::{edit, read, reader, replace, shell, write, W};
use crate::host::{Profile, Tool, PLAIN};

// `dist/main.mjs` 2.1.0, the tools as offered to the model (their zod schemas): `Bash {command,
// cwd, timeout, description, run_in_background}`, `Write {path, content, mode}`, `Edit {path,
// old_string, new_string, replace_all}`, `Read {path, …}`, `ReadMediaFile {path, …}`. The
// readers below search, fetch, ask, plan or keep the session's own lists and goals. Not listed
// (gated under governance): `Agent` and `AgentSwarm` (sub-agents: whether their calls reach the
// hooks was not checked), `Skill`, `CronCreate` / `CronDelete` (a prompt run later).
const TOOLS: &[Tool] = &[
    shell("Bash", W),
    write("Write", &["path"]),
    edit(
        "Edit",
        replace(&["path"], &["old_string"], &["new_string"], &["replace_all"]),
    ),
    read("Read", &["path"]),
    read("ReadMediaFile", &["path"]),
    reader("Glob"),
    reader("Grep"),
    reader("FetchURL"),
    reader("AskUserQuestion"),
    reader("TodoList"),
    reader("EnterPlanMode"),
    reader("ExitPlanMode"),
    reader("TaskList"),
    reader("TaskOutput"),
    reader("TaskStop"),
    reader("WaitFor"),
    reader("CronList"),
    reader("GetGoal"),
    reader("CreateGoal"),
    reader("UpdateGoal"),
    reader("SetGoalBudget"),
];

pub static PROFILE: Profile = Profile {
    id: "kimi",
    title: "Kimi Code",
    tools: &[TOOLS],
    rewrites_paths: false,
    keeps_args: true,
    ..PLAIN
};

/// The one step the user takes ([`Setup::trust`]), also what `doctor` adds to the line.
const TRUST: &str = "Kimi Code reads hooks only from your own ~/.kimi-code/config.toml ($KIMI_CODE_HOME), so hookwise's hooks run in every project you open with Kimi Code and do nothing where no hookwise is installed; it loads the project's MCP server (.kimi-code/mcp.json, in the folder Kimi Code starts in) only once you trust the folder when Kimi Code asks.";

pub static DIALECT: Dialect = Dialect {
    host: PROFILE.id,
    render,
    // no SessionStart: its output reaches no model, and the session's start context goes with
    // the first prompt
    events: &[
        ("PreToolUse", Event::PreTool),
        ("PostToolUse", Event::PostTool),
        ("UserPromptSubmit", Event::Prompt),
    ],
    call_id: &["tool_call_id"],
    fields: &[],
    pre_context: false,
    compact_start: false,
    deny_exit: false,
    mcp_prefix: "mcp__hookwise__",
    project_dir_var: "",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: None,
    setup: Some(Setup {
        flag: "kimi",
        hooks_file: "config.toml",
        form: HooksForm::KimiUser {
            var: "KIMI_CODE_HOME",
            dir: ".kimi-code",
        },
        tool_matcher: ".*",
        timeout: 30,
        named: false,
        mcp_file: ".kimi-code/mcp.json",
        mcp: McpFile::Json { server_type: None },
        trust: TRUST,
        // doctor cannot check the step the user takes (the host loads the entry its own way)
        doctor: TRUST,
    }),
};

#[derive(Serialize, Default)]
struct Out {
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    hso: Option<Hso>,
    /// UserPromptSubmit: the text the model reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Hso {
    permission_decision: &'static str,
    permission_decision_reason: String,
}

/// Kimi Code's answer: a deny, or the prompt's context; anything else is empty output.
fn render(_event: &str, kind: Event, a: Answer) -> String {
    let out = match (kind, a) {
        (Event::PreTool, Answer::Deny { reason }) => Out {
            hso: Some(Hso {
                permission_decision: "deny",
                permission_decision_reason: reason,
            }),
            message: None,
        },
        (Event::Prompt, Answer::Context(t) | Answer::Guidance(t)) if !t.trim().is_empty() => Out {
            hso: None,
            message: Some(t),
        },
        _ => return String::new(),
    };
    serde_json::to_string(&out).unwrap_or_default()
}

pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "kimi",
    // the user's ~/.kimi-code/config.toml (its hooks) and the project's MCP file
    config_files: &["~/.kimi-code/config.toml", ".kimi-code/mcp.json"],
    markers: &[".kimi-code"],
    program: "kimi",
    // its install script only renames a legacy global `kimi` shim: skipped; runs on Node >= 22.19
    // (scripts/setup-clis.sh installs node22 beside it)
    cli: Some(Cli {
        package: "@moonshot-ai/kimi-code",
        version: "2.1.0",
        install_flags: "--ignore-scripts",
        entry: "@moonshot-ai/kimi-code/dist/main.mjs",
        native: false,
    }),
    setup: "scripts/setup-clis.sh node22 kimi",
    e2e: "tests/e2e-kimi",
};

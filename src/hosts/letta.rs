//! Letta Code (`@letta-ai/letta-code` 0.32.18 on Node ≥ 22.19, `letta -p`): a command-hook host
//! in Claude Code's nested settings with its own payload keys, blocking by exit code 2 only
//! (`hookwise hook --host letta <Event>`). Its tools, its dialect, and the facts the tooling
//! reads (docs/hosts/letta.md).

use super::{Cli, Facts, Kind};
use crate::host::dialect::{Dialect, Event::*, HooksForm, McpFile, Setup};
use crate::host::table::*;
use crate::host::{Profile, Tool, PLAIN};

// Its default toolset as offered to an openai-compatible model (`letta.js`): `Bash {command,
// description, timeout, run_in_background}`, `Write {file_path, content}`, `Edit {file_path,
// old_string, new_string, replace_all}`, `Read {file_path, offset, limit}`.
const TOOLS: &[Tool] = &[
    shell("Bash", W),
    write("Write", &["file_path"]),
    edit(
        "Edit",
        replace(
            &["file_path"],
            &["old_string"],
            &["new_string"],
            &["replace_all"],
        ),
    ),
    read("Read", &["file_path"]),
    reader("Glob"),
    reader("Grep"),
    reader("LS"),
    reader("TodoWrite"),
];

pub static PROFILE: Profile = Profile {
    id: "letta",
    title: "Letta Code",
    tools: &[TOOLS],
    ..PLAIN
};

/// `letta.js` `executeHooks`: its own payload keys (`event_type`, `working_directory`,
/// `tool_call_id`, `agent_id`, `tool_result`; no session id: the agent is the session); a block
/// is exit code 2 with the reason on stderr (a JSON deny is ignored); a PreToolUse answer's
/// `hookSpecificOutput.updatedInput` is applied; PostToolUse `additionalContext` is appended to
/// the tool's result (`[Hook feedback]`). SessionStart and UserPromptSubmit run in its
/// interactive UI only (not under `-p`): not hooked. Timeouts are milliseconds.
pub static DIALECT: Dialect = Dialect {
    host: PROFILE.id,
    render: super::claude::render,
    events: &[("PreToolUse", PreTool), ("PostToolUse", PostTool)],
    call_id: &["tool_call_id"],
    fields: &[
        ("session_id", "agent_id"),
        ("cwd", "working_directory"),
        ("tool_response", "tool_result"),
    ],
    pre_context: false,
    compact_start: false,
    deny_exit: true,
    mcp_prefix: "mcp__hookwise__",
    project_dir_var: "LETTA_WORKING_DIR",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: None,
    setup: Some(Setup {
        flag: "letta",
        hooks_file: ".letta/settings.json",
        form: HooksForm::Claude,
        tool_matcher: "*",
        // milliseconds
        timeout: 30_000,
        named: false,
        mcp_file: "",
        mcp: McpFile::None,
        trust: "Letta Code loads the project's .letta/settings.json hooks without a prompt. It has no project MCP configuration (MCP servers belong to an agent: /mcp add), so hookwise's tools (select_active_intent) are not offered: under intent governance every change is blocked until hookwise's MCP server is added to the agent.",
        doctor: "Letta Code has no project MCP file: hookwise's tools (select_active_intent) reach an agent only through /mcp add",
    }),
};

pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "letta",
    config_files: &[".letta/settings.json"],
    markers: &[".letta"],
    program: "letta",
    // runs on Node 22 (setup-clis.sh's node22); 0.32.18 declares three packages the registry
    // does not serve: setup-clis.sh overrides them (its `prepare`)
    cli: Some(Cli {
        package: "@letta-ai/letta-code",
        version: "0.32.18",
        install_flags: "--ignore-scripts",
        entry: "@letta-ai/letta-code/letta.js",
        native: false,
    }),
    setup: "scripts/setup-clis.sh letta node22",
    e2e: "tests/e2e-letta",
};

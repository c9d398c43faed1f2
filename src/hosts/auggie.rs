//! Auggie (`@augmentcode/auggie` 0.36.0, `auggie -p`): a command-hook host in Claude Code's
//! protocol (`hookwise hook --host auggie <Event>`), whose hooks run only when the Augment
//! tenant enables them. Its tools, its dialect, and the facts the tooling reads
//! (docs/hosts/auggie.md).

use super::{Cli, Facts, Kind};
use crate::host::dialect::{Dialect, Event::*, HooksForm, McpFile, Setup};
use crate::host::table::*;
use crate::host::{Keys, Profile, Role, Tool, NONE, PLAIN};

// Its tools as the tenant API offers them (`augment.mjs`): `launch-process {command, wait,
// max_wait_seconds, cwd}`, `save-file {path, file_content}`, `str-replace-editor {command, path,
// str_replace_entries, insert_line_entries}`, `apply_patch {input}`, `view {type, path, …}`,
// `codebase-retrieval`; `remove-files`, `write-process`, `kill-process` and the task tools are
// not listed (gated).
const TOOLS: &[Tool] = &[
    shell("launch-process", W),
    tool(
        "save-file",
        Role::Write,
        Keys {
            path: &["path"],
            content: &["file_content"],
            ..NONE
        },
        W,
    ),
    // str_replace or insert on `path` (lists of entries): gated as an edit of that file
    edit("str-replace-editor", file_only(&["path"])),
    patch("apply_patch", &["input"]),
    read("view", &["path"]),
    reader("codebase-retrieval"),
    reader("read-process"),
    reader("list-processes"),
    reader("web-search"),
    reader("web-fetch"),
];

pub static PROFILE: Profile = Profile {
    id: "auggie",
    title: "Auggie",
    tools: &[TOOLS],
    ..PLAIN
};

/// Claude's nested settings and answers (`permissionDecision: "deny"` or exit 2,
/// `updatedInput`); the payload names the conversation (`conversation_id`), the workspace
/// (`workspace_roots`) and the result (`tool_output`); PostToolUse `additionalContext` is
/// appended to the tool's result (`[Hook Context]`). SessionStart and PromptSubmit run but
/// their context was not seen by the model: not hooked. The matcher is a JavaScript regex
/// (`*` is rejected and the tool hooks are dropped); timeouts are milliseconds; MCP tools keep
/// their own names. Hooks load only when the tenant's `enable_hooks` feature flag is on.
pub static DIALECT: Dialect = Dialect {
    host: PROFILE.id,
    render: super::claude::render,
    events: &[("PreToolUse", PreTool), ("PostToolUse", PostTool)],
    call_id: &["tool_use_id"],
    fields: &[
        ("session_id", "conversation_id"),
        ("cwd", "workspace_roots"),
        ("tool_response", "tool_output"),
    ],
    pre_context: false,
    compact_start: false,
    deny_exit: false,
    mcp_prefix: "",
    project_dir_var: "AUGMENT_PROJECT_DIR",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: None,
    setup: Some(Setup {
        flag: "auggie",
        hooks_file: ".augment/settings.json",
        form: HooksForm::Claude,
        tool_matcher: ".*",
        // milliseconds
        timeout: 30_000,
        named: false,
        mcp_file: ".augment/settings.json",
        mcp: McpFile::Json { server_type: None },
        trust: "Auggie runs the project's .augment/settings.json hooks only when your Augment account has hooks turned on (the tenant's enable_hooks feature flag, off by default): ask your Augment administrator or support to enable hooks, and check with a tool call that they run. Until then hookwise does nothing in Auggie, governance and enforcement included.",
        doctor: "whether Auggie runs these hooks is decided by your Augment account (the enable_hooks feature flag of its tenant): hookwise cannot tell from here; a tool call in Auggie shows it",
    }),
};

pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "auggie",
    config_files: &[".augment/settings.json"],
    markers: &[".augment"],
    program: "auggie",
    cli: Some(Cli {
        package: "@augmentcode/auggie",
        version: "0.36.0",
        install_flags: "--ignore-scripts",
        entry: "@augmentcode/auggie/augment.mjs",
        native: false,
    }),
    setup: "scripts/setup-clis.sh auggie",
    e2e: "tests/e2e-auggie",
};

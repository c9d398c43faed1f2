//! Factory droid, Letta Code and Auggie: three command-hook hosts in Claude Code's nested hook
//! shape, each with its own tool names, payload keys and answers (checked against the real
//! CLIs, offline, with a probe hook and by `tests/e2e-<host>/`). Each host: its tools (the
//! argument keys its tools really read, as offered to the model), its dialect (events, payload
//! keys, answer shape) and what `init --<host>` writes. A tool not listed is gated under
//! governance (default deny): only tools known to change nothing are readers.

use super::dialect::{Dialect, Event::*, McpFile, Setup, Shape};
use super::model_log::ModelLog;
use super::profiles::{edit, file_only, read, reader, replace, shell, tool, write, W};
use super::{Block, Keys, Profile, ResultChannel, Role, Tool, NONE};

// ---- Factory droid ------------------------------------------------------------------------
// @factory/cli 0.225.1 + @factory/cli-linux-x64 0.225.2 (`droid exec`), its tools as offered to
// a BYOK chat-completions model: `Execute {command, summary, timeout, fireAndForget}`,
// `Create {file_path, content}`, `Edit {file_path, old_str, new_str, change_all}`, `Read
// {file_path, offset, limit}`, `LS {directory_path}`, `Grep`, `Glob`.

const FACTORY_TOOLS: &[Tool] = &[
    shell("Execute", W),
    write("Create", &["file_path"]),
    edit(
        "Edit",
        replace(&["file_path"], &["old_str"], &["new_str"], &["change_all"]),
    ),
    read("Read", &["file_path"]),
    reader("LS"),
    reader("Grep"),
    reader("Glob"),
    reader("TodoWrite"),
];

pub static FACTORY: Profile = Profile {
    id: "factory",
    title: "Factory droid",
    tools: &[FACTORY_TOOLS],
    block: Block::Deny,
    result: ResultChannel::ContextField,
    rewrites_paths: false,
};

/// Factory droid 0.225: Claude Code's payload (`session_id`, `transcript_path`, `cwd`,
/// `tool_name`, `tool_input`, `tool_response`) and answers (`permissionDecision: "deny"`,
/// `updatedInput`, `additionalContext` in `hookSpecificOutput`); SessionStart and PostToolUse
/// context reach the model as user messages; no call id (derived from the call); the model is
/// read from its session log ([`ModelLog::FactoryTranscript`]). Its PreCompact
/// was not seen to run (no compaction in a probe): not hooked.
pub static FACTORY_DIALECT: Dialect = Dialect {
    host: "factory",
    shape: Shape::Claude,
    events: &[
        ("PreToolUse", PreTool),
        ("PostToolUse", PostTool),
        ("UserPromptSubmit", Prompt),
        ("SessionStart", SessionStart),
    ],
    call_id: &["tool_use_id"],
    fields: &[],
    pre_context: false,
    compact_start: false,
    deny_exit: false,
    mcp_prefix: "hookwise___",
    project_dir_var: "FACTORY_PROJECT_DIR",
    model_log: ModelLog::FactoryTranscript,
    marker: ".factory",
    program: "droid",
    setup: Some(Setup {
        flag: "factory",
        hooks_file: ".factory/settings.json",
        tool_matcher: "*",
        timeout: 30,
        named: false,
        mcp_file: ".factory/mcp.json",
        mcp: McpFile::Json {
            server_type: Some("stdio"),
        },
        trust: "Factory droid loads the project's .factory/settings.json hooks and .factory/mcp.json servers without a prompt: nothing more to do.",
        doctor: "",
    }),
};

// ---- Letta Code ---------------------------------------------------------------------------
// @letta-ai/letta-code 0.32.18 (`letta.js`), its default toolset as offered to an
// openai-compatible model: `Bash {command, description, timeout, run_in_background}`, `Write
// {file_path, content}`, `Edit {file_path, old_string, new_string, replace_all}`, `Read
// {file_path, offset, limit}`.

const LETTA_TOOLS: &[Tool] = &[
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

pub static LETTA: Profile = Profile {
    id: "letta",
    title: "Letta Code",
    tools: &[LETTA_TOOLS],
    block: Block::Deny,
    result: ResultChannel::ContextField,
    rewrites_paths: false,
};

/// Letta Code 0.32.18 (`letta.js` `executeHooks`): its own payload keys (`event_type`,
/// `working_directory`, `tool_call_id`, `agent_id`, `tool_result`); a block is exit code 2 with
/// the reason on stderr (a JSON deny is ignored); a PreToolUse answer's
/// `hookSpecificOutput.updatedInput` is applied; PostToolUse `additionalContext` is appended to
/// the tool's result (`[Hook feedback]`). SessionStart and UserPromptSubmit are run by its
/// interactive UI only (not under `-p`): not hooked. Hooks see no session id: the agent's is
/// the session.
pub static LETTA_DIALECT: Dialect = Dialect {
    host: "letta",
    shape: Shape::Claude,
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
    model_log: ModelLog::None,
    marker: ".letta",
    program: "letta",
    setup: Some(Setup {
        flag: "letta",
        hooks_file: ".letta/settings.json",
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

// ---- Auggie -------------------------------------------------------------------------------
// @augmentcode/auggie 0.36.0 (`augment.mjs`), its tools as offered by the Augment tenant API:
// `launch-process {command, wait, max_wait_seconds, cwd}`, `save-file {path, file_content}`,
// `str-replace-editor {command, path, str_replace_entries, insert_line_entries}`,
// `apply_patch {input}`, `view {type, path, …}`, `codebase-retrieval`.

const AUGGIE_TOOLS: &[Tool] = &[
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
    tool(
        "apply_patch",
        Role::Patch,
        Keys {
            patch: &["input"],
            ..NONE
        },
        W,
    ),
    read("view", &["path"]),
    reader("codebase-retrieval"),
    reader("read-process"),
    reader("list-processes"),
    reader("web-search"),
    reader("web-fetch"),
];

pub static AUGGIE: Profile = Profile {
    id: "auggie",
    title: "Auggie",
    tools: &[AUGGIE_TOOLS],
    block: Block::Deny,
    result: ResultChannel::ContextField,
    rewrites_paths: false,
};

/// Auggie 0.36.0: Claude's nested settings and answers (`permissionDecision: "deny"` or exit 2,
/// `updatedInput`); the payload names the conversation (`conversation_id`) and the workspace
/// (`workspace_roots`), the result `tool_output`; PostToolUse `additionalContext` is appended
/// to the tool's result (`[Hook Context]`); SessionStart and PromptSubmit run but their context
/// was not seen by the model: not hooked. The matcher is a JavaScript regex (`*` is rejected
/// and the tool hooks are dropped) and timeouts are milliseconds. Hooks load only when the
/// Augment tenant turns on its `enable_hooks` feature flag.
pub static AUGGIE_DIALECT: Dialect = Dialect {
    host: "auggie",
    shape: Shape::Claude,
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
    model_log: ModelLog::None,
    marker: ".augment",
    program: "auggie",
    setup: Some(Setup {
        flag: "auggie",
        hooks_file: ".augment/settings.json",
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

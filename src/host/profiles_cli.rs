//! The command-hook hosts' tool tables: Codex, Gemini CLI, GitHub Copilot CLI, Qwen Code
//! (their hook protocols: [`super::dialect`]). Each entry is the tool's name as the host's
//! hook payload names it and the argument keys its tool really reads, from the installed
//! package (cited per table). A tool not listed here is gated under governance (default
//! deny): only tools known to change nothing are listed as readers. Context for a call goes
//! with its result in all four (their PreToolUse context does not reach the model), and none
//! of them rewrites a call's input for hookwise.

use super::profiles::{edit, file_only, read, reader, replace, shell, tool, write, W};
use super::{Block, Keys, Profile, ResultChannel, Role, Tool, NONE};

// ---- Codex --------------------------------------------------------------------------------
// @openai/codex 0.171.0, seen by a probe hook (`command-hook-hosts.md`): the shell
// (`exec_command {cmd}` on the wire) reaches hooks as `Bash {command}`; `apply_patch` (a
// freeform tool whose input is the patch text) as `apply_patch {command: <patch>}`, in the
// `*** Begin Patch` format OpenCode's apply_patch reads too. `update_plan` only updates the
// plan Codex shows.

const CODEX_TOOLS: &[Tool] = &[
    shell("Bash", W),
    tool(
        "apply_patch",
        Role::Patch,
        Keys {
            patch: &["command"],
            ..NONE
        },
        W,
    ),
    // typed input into an `exec_command` terminal (`{session_id, chars}`): a shell (issue 38;
    // Codex 0.171 runs no hook for it — the confined shell it types into holds it)
    tool(
        "write_stdin",
        Role::Shell,
        Keys {
            command: "chars",
            ..NONE
        },
        W,
    ),
    reader("update_plan"),
];

pub static CODEX: Profile = Profile {
    id: "codex",
    title: "Codex CLI",
    tools: &[CODEX_TOOLS],
    block: Block::Deny,
    result: ResultChannel::ContextField,
    rewrites_paths: false,
};

// ---- Gemini CLI ---------------------------------------------------------------------------
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

pub static GEMINI: Profile = Profile {
    id: "gemini",
    title: "Gemini CLI",
    tools: &[GEMINI_TOOLS],
    block: Block::Deny,
    result: ResultChannel::ContextField,
    rewrites_paths: false,
};

// ---- GitHub Copilot CLI -------------------------------------------------------------------
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

pub static COPILOT: Profile = Profile {
    id: "copilot",
    title: "GitHub Copilot CLI",
    tools: &[COPILOT_TOOLS],
    block: Block::Deny,
    result: ResultChannel::ContextField,
    rewrites_paths: false,
};

// ---- Qwen Code ----------------------------------------------------------------------------
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

pub static QWEN: Profile = Profile {
    id: "qwen",
    title: "Qwen Code",
    tools: &[QWEN_TOOLS],
    block: Block::Deny,
    result: ResultChannel::ContextField,
    rewrites_paths: false,
};

//! The engine API (`hookwise/engine`) for VS Code extensions: Roo Code and its forks, and
//! agents with OpenCode's or OpenClaw's tool sets. It answers `{blocked, reason}`; the
//! extension shows the reason. The host `init` falls back to when it names none.

use super::{openclaw, opencode, Facts, Kind};
use crate::host::table::{edit, file_only, patch, read, reader, replace, shell, subagent, write, SNAKE_EDIT, W};
use crate::host::{Context, Keys, Profile, Tool, PLAIN};


/// Roo Code's tools (`write_file` and `search_and_replace` are its aliases).
const ROO_TOOLS: &[Tool] = &[
    shell("execute_command", Context::ShellComment),
    write("write_to_file", &["path"]),
    write("write_file", &["path"]),
    edit("apply_diff", file_only(&["path"])),
    edit("edit", SNAKE_EDIT),
    edit("search_and_replace", SNAKE_EDIT),
    edit(
        "search_replace",
        replace(&["file_path"], &["old_string"], &["new_string"], &[]),
    ),
    edit(
        "edit_file",
        replace(&["file_path"], &["old_string"], &["new_string"], &[]),
    ),
    // `{path, line, content}`: inserts lines into a file
    edit("insert_content", file_only(&["path"])),
    patch("apply_patch", &["patch"]),
    read("read_file", &["path"]),
    subagent("new_task", "message"),
    reader("list_files"),
    reader("search_files"),
    reader("list_code_definition_names"),
];

/// The names the engine API's hosts share, with every host's keys (the ambiguity rule decides
/// between them), and the shell tools it has always taken.
const VSCODE_SHARED: &[Tool] = &[
    // OpenCode's `write {filePath, content}`, OpenClaw's `write {path, content}`
    write("write", &["filePath", "path"]),
    // OpenCode's `edit {filePath, oldString, newString, replaceAll}`, Roo's `edit {file_path,
    // old_string, new_string, replace_all}`, OpenClaw's `edit {path, edits: [{oldText, newText}]}`
    edit(
        "edit",
        Keys {
            edits: "edits",
            item_old: &["oldText"],
            item_new: &["newText"],
            ..replace(
                &["filePath", "file_path", "path"],
                &["oldString", "old_string", "oldText"],
                &["newString", "new_string", "newText"],
                &["replaceAll", "replace_all"],
            )
        },
    ),
    // OpenCode's `patchText`, Roo's `patch`, OpenClaw's `input`
    patch("apply_patch", &["patchText", "patch", "input"]),
    // OpenCode's `read {filePath}`, OpenClaw's `read {path}`
    read("read", &["filePath", "path"]),
    shell("exec", Context::ShellComment),
    // other agents' shell tools: analysed as commands, gated; context with the result (their
    // shell may not read `#` as a comment)
    shell("shell", W),
    shell("run_terminal_cmd", W),
];

/// The engine API has served Roo Code's forks, OpenCode-style and OpenClaw-style tool sets:
/// all three hosts' tools, and for a name they share, every host's keys.
pub static PROFILE: Profile = Profile {
    id: "vscode",
    title: "VS Code engine API (Roo Code and forks; OpenCode's and OpenClaw's tool names too)",
    tools: &[
        VSCODE_SHARED,
        ROO_TOOLS,
        opencode::OPENCODE_SHARED,
        opencode::OPENCODE_ONLY,
        openclaw::OPENCLAW_TOOLS,
    ],
    rewrites_paths: false,
    ..PLAIN
};

pub const FACTS: Facts = Facts {
    kind: Kind::Engine,
    init: "",
    config_files: &[],
    markers: &[],
    program: "",
    cli: None,
    setup: "scripts/setup-code-server.sh",
    e2e: "tests/vscode",
};

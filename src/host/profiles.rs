//! The hosts' tool tables. Each entry: the tool's name as the host sends it, its role, the
//! argument keys that role reads (exactly as the host's tool reads them), and where context
//! for the call can go. Sources: `@opencode-ai/plugin` / `opencode-ai` 1.18.33, OpenCode 2.x's
//! built-in tools (read from its source, see the OpenCode 2.x table), openclaw
//! 2026.9.6 (its tools' TypeBox schemas: `write {path, content}`, `edit {path, edits}`,
//! `apply_patch {input}`, `exec {command}`), Claude Code 2.1.330's tool list, Roo Code's tool
//! names.

use super::{Block, Context, Keys, Profile, ResultChannel, Role, Tool, NONE};

pub(super) const fn tool(name: &'static str, role: Role, keys: Keys, context: Context) -> Tool {
    Tool {
        name,
        role,
        keys,
        context,
    }
}

/// A list of argument keys (the first present is read).
pub(super) type K = &'static [&'static str];

/// A tool that changes nothing in the project, with its result as the place for context.
pub(super) const fn reader(name: &'static str) -> Tool {
    tool(name, Role::Read, NONE, W)
}

/// A tool that reads the file at `path`.
pub(super) const fn read(name: &'static str, path: K) -> Tool {
    tool(name, Role::Read, Keys { path, ..NONE }, W)
}

/// A tool that writes `content` (every host's key) to the file at `path`.
pub(super) const fn write(name: &'static str, path: K) -> Tool {
    tool(
        name,
        Role::Write,
        Keys {
            path,
            content: &["content"],
            ..NONE
        },
        W,
    )
}

/// A tool that changes the file its `keys` name.
pub(super) const fn edit(name: &'static str, keys: Keys) -> Tool {
    tool(name, Role::Edit, keys, W)
}

/// An edit's keys: one replacement (`old` by `new`, every occurrence with `replace_all`).
pub(super) const fn replace(path: K, old: K, new: K, replace_all: K) -> Keys {
    Keys {
        path,
        old,
        new,
        replace_all,
        ..NONE
    }
}

/// An edit's keys: a list of replacements under `edits`, each `{item_old, item_new}`.
pub(super) const fn edit_list(path: K, item_old: K, item_new: K) -> Keys {
    Keys {
        path,
        edits: "edits",
        item_old,
        item_new,
        ..NONE
    }
}

/// An edit's keys when only the file is known (the change itself is another format).
pub(super) const fn file_only(path: K) -> Keys {
    Keys { path, ..NONE }
}

/// A tool that applies the patch text under `patch`.
pub(super) const fn patch(name: &'static str, patch: K) -> Tool {
    tool(name, Role::Patch, Keys { patch, ..NONE }, W)
}

/// A tool that starts a sub-agent on the prompt under `prompt` (a model reads it: context goes
/// there).
pub(super) const fn subagent(name: &'static str, prompt: &'static str) -> Tool {
    tool(
        name,
        Role::Subagent,
        Keys { prompt, ..NONE },
        Context::PromptBlock,
    )
}

pub(super) const fn shell(name: &'static str, context: Context) -> Tool {
    tool(
        name,
        Role::Shell,
        Keys {
            command: "command",
            ..NONE
        },
        context,
    )
}

pub(super) const W: Context = Context::WithResult;

/// The edit keys of Claude Code's `Edit`, which Roo's `edit` and `search_and_replace` share.
pub(super) const SNAKE_EDIT: Keys = replace(
    &["file_path"],
    &["old_string"],
    &["new_string"],
    &["replace_all"],
);

// ---- OpenCode 1.x -------------------------------------------------------------------------

/// OpenCode 1.x's tools that Kilo CLI, its fork, has too, with the same keys (`profile_kilo.rs`).
pub(super) const OPENCODE_SHARED: &[Tool] = &[
    shell("bash", Context::ShellComment),
    write("write", &["filePath"]),
    edit(
        "edit",
        replace(
            &["filePath"],
            &["oldString"],
            &["newString"],
            &["replaceAll"],
        ),
    ),
    patch("apply_patch", &["patchText"]),
    read("read", &["filePath"]),
    subagent("task", "prompt"),
    reader("glob"),
    reader("grep"),
    reader("lsp"),
    reader("webfetch"),
    reader("websearch"),
    reader("todowrite"),
    reader("skill"),
    reader("question"),
    // malformed model arguments arrive as `invalid`: nothing runs
    reader("invalid"),
];

/// The rest of OpenCode 1.x's tools (Kilo has none of them).
const OPENCODE_ONLY: &[Tool] = &[
    // offered by earlier 1.x releases: `{filePath, edits: [{filePath, oldString, newString}]}`
    edit(
        "multiedit",
        edit_list(&["filePath"], &["oldString"], &["newString"]),
    ),
    reader("list"),
    reader("codesearch"),
    reader("todoread"),
];

pub static OPENCODE: Profile = Profile {
    id: "opencode",
    title: "OpenCode 1.x",
    tools: &[OPENCODE_SHARED, OPENCODE_ONLY],
    block: Block::Thrown,
    result: ResultChannel::Output,
    rewrites_paths: false,
};

// ---- OpenCode 2.x -------------------------------------------------------------------------
// Built against anomalyco/opencode's source (no 2.x build installs here): the built-in tools
// of `packages/core/src/tool/plugin/*.ts` — `shell {command, workdir, timeout, background}`
// (shell.ts @0107518), `write {path, content}` (write.ts @1bc8473), `edit {path, oldString,
// newString, replaceAll}` (edit.ts @179525d), `patch {patchText}`, offered to freeform-capable
// models as `apply_patch` (patch.ts @00940b1), `read {path, offset, limit}`, `subagent {agent,
// description, prompt, …}` (subagent.ts @03cce40). An `execute.before` hook may replace the
// call's `input`, but whether the model's history shows the replaced call is not settled in
// that source; `execute.after` may add to `result.content`, which is what the model reads. So
// context goes with the result for every tool except the sub-agent's prompt (a model reads it).
// A hook that throws in `execute.before` rejects the call with the error's message as the
// tool's error (the promise adapter's `attemptTool` → `Tool.Error`).

const OPENCODE2_TOOLS: &[Tool] = &[
    shell("shell", W),
    write("write", &["path"]),
    edit(
        "edit",
        replace(&["path"], &["oldString"], &["newString"], &["replaceAll"]),
    ),
    patch("patch", &["patchText"]),
    // the freeform name of `patch` (`freeform: {input: "patchText", name: "apply_patch"}`)
    patch("apply_patch", &["patchText"]),
    read("read", &["path"]),
    subagent("subagent", "prompt"),
    reader("glob"),
    reader("grep"),
    reader("webfetch"),
    reader("websearch"),
    reader("question"),
    reader("skill"),
    reader("todowrite"),
];

pub static OPENCODE2: Profile = Profile {
    id: "opencode2",
    title: "OpenCode 2.x",
    tools: &[OPENCODE2_TOOLS],
    block: Block::Thrown,
    result: ResultChannel::Output,
    rewrites_paths: false,
};

/// The edit keys of OpenClaw's and pi's `edit`: `{path, edits: [{oldText, newText}]}`; a
/// top-level `oldText`/`newText` pair is added to the list.
pub(super) const TEXT_EDITS: Keys = Keys {
    old: &["oldText"],
    new: &["newText"],
    ..edit_list(&["path"], &["oldText"], &["newText"])
};

// ---- OpenClaw -----------------------------------------------------------------------------
// A `params` rewrite runs but the model's history keeps its original call: context goes with
// the result for every tool.

const OPENCLAW_TOOLS: &[Tool] = &[
    shell("exec", W),
    shell("bash", W),
    write("write", &["path"]),
    edit("edit", TEXT_EDITS),
    patch("apply_patch", &["input"]),
    read("read", &["path"]),
    reader("find"),
    reader("grep"),
    reader("ls"),
    reader("web_fetch"),
    reader("web_search"),
];

pub static OPENCLAW: Profile = Profile {
    id: "openclaw",
    title: "OpenClaw",
    tools: &[OPENCLAW_TOOLS],
    block: Block::Reason,
    result: ResultChannel::Output,
    // openclaw 2026.9.6: `normalizeFileToolPathParam`, `expandPath` (`@`, `~`, `file://`)
    rewrites_paths: true,
};

// ---- Claude Code --------------------------------------------------------------------------
// An `updatedInput` runs, but the model's history keeps its original call: context for a
// command goes in `additionalContext`; a sub-agent reads its (rewritten) prompt.

const CLAUDE_CODE_TOOLS: &[Tool] = &[
    shell("Bash", W),
    // `Monitor {command, …}` runs its command as a background process; `PowerShell {command}`
    shell("Monitor", W),
    shell("PowerShell", W),
    write("Write", &["file_path"]),
    edit("Edit", SNAKE_EDIT),
    edit(
        "MultiEdit",
        edit_list(&["file_path"], &["old_string"], &["new_string"]),
    ),
    edit("NotebookEdit", file_only(&["notebook_path"])),
    read("Read", &["file_path"]),
    subagent("Agent", "prompt"),
    // the sub-agent tool's name before 2.1
    subagent("Task", "prompt"),
    // What changes nothing in the project (2.1.330's tool list). Every other tool —
    // `EnterWorktree`, `Workflow`, `Skill`, `CronCreate`, `TaskCreate`, another MCP server's
    // `mcp__*` — is gated under governance (see `gated.rs`).
    reader("Grep"),
    reader("Glob"),
    reader("LSP"),
    reader("WebFetch"),
    reader("WebSearch"),
    reader("TodoWrite"),
    reader("ToolSearch"),
    reader("ListAgents"),
    reader("TaskGet"),
    reader("TaskList"),
    reader("CronList"),
];

pub static CLAUDE_CODE: Profile = Profile {
    id: "claude-code",
    title: "Claude Code",
    tools: &[CLAUDE_CODE_TOOLS],
    block: Block::Deny,
    result: ResultChannel::ContextField,
    rewrites_paths: false,
};

// ---- VS Code engine API (Roo Code and its forks) ------------------------------------------

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
pub static VSCODE: Profile = Profile {
    id: "vscode",
    title: "VS Code engine API (Roo Code and forks; OpenCode's and OpenClaw's tool names too)",
    tools: &[
        VSCODE_SHARED,
        ROO_TOOLS,
        OPENCODE_SHARED,
        OPENCODE_ONLY,
        OPENCLAW_TOOLS,
    ],
    block: Block::Answer,
    result: ResultChannel::Output,
    rewrites_paths: false,
};

//! The hosts' tool tables. Each entry: the tool's name as the host sends it, its role, the
//! argument keys that role reads (exactly as the host's tool reads them), and where context
//! for the call can go. Sources: `@opencode-ai/plugin` / `opencode-ai` 1.18.33, OpenCode 2.x's
//! built-in tools (read from its source, see the OpenCode 2.x table), openclaw
//! 2026.9.6 (its tools' TypeBox schemas: `write {path, content}`, `edit {path, edits}`,
//! `apply_patch {input}`, `exec {command}`), Claude Code 2.1.330's tool list, Roo Code's tool
//! names.

use super::{Block, Context, Keys, Profile, ResultChannel, Role, Tool, NONE};

const fn tool(name: &'static str, role: Role, keys: Keys, context: Context) -> Tool {
    Tool {
        name,
        role,
        keys,
        context,
    }
}

/// A tool that changes nothing in the project, with its result as the place for context.
const fn reader(name: &'static str) -> Tool {
    tool(name, Role::Read, NONE, Context::WithResult)
}

const fn shell(name: &'static str, context: Context) -> Tool {
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

const W: Context = Context::WithResult;

// ---- OpenCode 1.x -------------------------------------------------------------------------

const OPENCODE_TOOLS: &[Tool] = &[
    shell("bash", Context::ShellComment),
    tool(
        "write",
        Role::Write,
        Keys {
            path: &["filePath"],
            content: &["content"],
            ..NONE
        },
        W,
    ),
    tool(
        "edit",
        Role::Edit,
        Keys {
            path: &["filePath"],
            old: &["oldString"],
            new: &["newString"],
            replace_all: &["replaceAll"],
            ..NONE
        },
        W,
    ),
    // offered by earlier 1.x releases: `{filePath, edits: [{filePath, oldString, newString}]}`
    tool(
        "multiedit",
        Role::Edit,
        Keys {
            path: &["filePath"],
            edits: "edits",
            item_old: &["oldString"],
            item_new: &["newString"],
            ..NONE
        },
        W,
    ),
    tool(
        "apply_patch",
        Role::Patch,
        Keys {
            patch: &["patchText"],
            ..NONE
        },
        W,
    ),
    tool(
        "read",
        Role::Read,
        Keys {
            path: &["filePath"],
            ..NONE
        },
        W,
    ),
    tool(
        "task",
        Role::Subagent,
        Keys {
            prompt: "prompt",
            ..NONE
        },
        Context::PromptBlock,
    ),
    reader("glob"),
    reader("grep"),
    reader("list"),
    reader("lsp"),
    reader("webfetch"),
    reader("websearch"),
    reader("codesearch"),
    reader("todowrite"),
    reader("todoread"),
    reader("skill"),
    reader("question"),
    // malformed model arguments arrive as `invalid`: nothing runs
    tool("invalid", Role::Other, NONE, W),
];

pub static OPENCODE: Profile = Profile {
    id: "opencode",
    title: "OpenCode 1.x",
    tools: &[OPENCODE_TOOLS],
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
    tool(
        "write",
        Role::Write,
        Keys {
            path: &["path"],
            content: &["content"],
            ..NONE
        },
        W,
    ),
    tool(
        "edit",
        Role::Edit,
        Keys {
            path: &["path"],
            old: &["oldString"],
            new: &["newString"],
            replace_all: &["replaceAll"],
            ..NONE
        },
        W,
    ),
    tool(
        "patch",
        Role::Patch,
        Keys {
            patch: &["patchText"],
            ..NONE
        },
        W,
    ),
    // the freeform name of `patch` (`freeform: {input: "patchText", name: "apply_patch"}`)
    tool(
        "apply_patch",
        Role::Patch,
        Keys {
            patch: &["patchText"],
            ..NONE
        },
        W,
    ),
    tool(
        "read",
        Role::Read,
        Keys {
            path: &["path"],
            ..NONE
        },
        W,
    ),
    tool(
        "subagent",
        Role::Subagent,
        Keys {
            prompt: "prompt",
            ..NONE
        },
        Context::PromptBlock,
    ),
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

// ---- OpenClaw -----------------------------------------------------------------------------
// A `params` rewrite runs but the model's history keeps its original call: context goes with
// the result for every tool.

const OPENCLAW_TOOLS: &[Tool] = &[
    shell("exec", W),
    shell("bash", W),
    tool(
        "write",
        Role::Write,
        Keys {
            path: &["path"],
            content: &["content"],
            ..NONE
        },
        W,
    ),
    // `edits: [{oldText, newText}]`; a top-level `oldText`/`newText` pair is added to the list
    tool(
        "edit",
        Role::Edit,
        Keys {
            path: &["path"],
            old: &["oldText"],
            new: &["newText"],
            edits: "edits",
            item_old: &["oldText"],
            item_new: &["newText"],
            ..NONE
        },
        W,
    ),
    tool(
        "apply_patch",
        Role::Patch,
        Keys {
            patch: &["input"],
            ..NONE
        },
        W,
    ),
    tool(
        "read",
        Role::Read,
        Keys {
            path: &["path"],
            ..NONE
        },
        W,
    ),
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
    tool(
        "Write",
        Role::Write,
        Keys {
            path: &["file_path"],
            content: &["content"],
            ..NONE
        },
        W,
    ),
    tool(
        "Edit",
        Role::Edit,
        Keys {
            path: &["file_path"],
            old: &["old_string"],
            new: &["new_string"],
            replace_all: &["replace_all"],
            ..NONE
        },
        W,
    ),
    tool(
        "MultiEdit",
        Role::Edit,
        Keys {
            path: &["file_path"],
            edits: "edits",
            item_old: &["old_string"],
            item_new: &["new_string"],
            ..NONE
        },
        W,
    ),
    tool(
        "NotebookEdit",
        Role::Edit,
        Keys {
            path: &["notebook_path"],
            ..NONE
        },
        W,
    ),
    tool(
        "Read",
        Role::Read,
        Keys {
            path: &["file_path"],
            ..NONE
        },
        W,
    ),
    tool(
        "Agent",
        Role::Subagent,
        Keys {
            prompt: "prompt",
            ..NONE
        },
        Context::PromptBlock,
    ),
    // the sub-agent tool's name before 2.1
    tool(
        "Task",
        Role::Subagent,
        Keys {
            prompt: "prompt",
            ..NONE
        },
        Context::PromptBlock,
    ),
    reader("Grep"),
    reader("Glob"),
    reader("WebFetch"),
    reader("WebSearch"),
    reader("TodoWrite"),
    reader("ToolSearch"),
    reader("ListAgents"),
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
    tool(
        "write_to_file",
        Role::Write,
        Keys {
            path: &["path"],
            content: &["content"],
            ..NONE
        },
        W,
    ),
    tool(
        "write_file",
        Role::Write,
        Keys {
            path: &["path"],
            content: &["content"],
            ..NONE
        },
        W,
    ),
    tool(
        "apply_diff",
        Role::Edit,
        Keys {
            path: &["path"],
            ..NONE
        },
        W,
    ),
    tool(
        "edit",
        Role::Edit,
        Keys {
            path: &["file_path"],
            old: &["old_string"],
            new: &["new_string"],
            replace_all: &["replace_all"],
            ..NONE
        },
        W,
    ),
    tool(
        "search_and_replace",
        Role::Edit,
        Keys {
            path: &["file_path"],
            old: &["old_string"],
            new: &["new_string"],
            replace_all: &["replace_all"],
            ..NONE
        },
        W,
    ),
    tool(
        "search_replace",
        Role::Edit,
        Keys {
            path: &["file_path"],
            old: &["old_string"],
            new: &["new_string"],
            ..NONE
        },
        W,
    ),
    tool(
        "edit_file",
        Role::Edit,
        Keys {
            path: &["file_path"],
            old: &["old_string"],
            new: &["new_string"],
            ..NONE
        },
        W,
    ),
    // `{path, line, content}`: inserts lines into a file
    tool(
        "insert_content",
        Role::Edit,
        Keys {
            path: &["path"],
            ..NONE
        },
        W,
    ),
    tool(
        "apply_patch",
        Role::Patch,
        Keys {
            patch: &["patch"],
            ..NONE
        },
        W,
    ),
    tool(
        "read_file",
        Role::Read,
        Keys {
            path: &["path"],
            ..NONE
        },
        W,
    ),
    tool(
        "new_task",
        Role::Subagent,
        Keys {
            prompt: "message",
            ..NONE
        },
        Context::PromptBlock,
    ),
    reader("list_files"),
    reader("search_files"),
    reader("list_code_definition_names"),
];

/// The names the engine API's hosts share, with every host's keys (the ambiguity rule decides
/// between them), and the shell tools it has always taken.
const VSCODE_SHARED: &[Tool] = &[
    // OpenCode's `write {filePath, content}`, OpenClaw's `write {path, content}`
    tool(
        "write",
        Role::Write,
        Keys {
            path: &["filePath", "path"],
            content: &["content"],
            ..NONE
        },
        W,
    ),
    // OpenCode's `edit {filePath, oldString, newString, replaceAll}`, Roo's `edit {file_path,
    // old_string, new_string, replace_all}`, OpenClaw's `edit {path, edits: [{oldText, newText}]}`
    tool(
        "edit",
        Role::Edit,
        Keys {
            path: &["filePath", "file_path", "path"],
            old: &["oldString", "old_string", "oldText"],
            new: &["newString", "new_string", "newText"],
            replace_all: &["replaceAll", "replace_all"],
            edits: "edits",
            item_old: &["oldText"],
            item_new: &["newText"],
            ..NONE
        },
        W,
    ),
    // OpenCode's `patchText`, Roo's `patch`, OpenClaw's `input`
    tool(
        "apply_patch",
        Role::Patch,
        Keys {
            patch: &["patchText", "patch", "input"],
            ..NONE
        },
        W,
    ),
    // OpenCode's `read {filePath}`, OpenClaw's `read {path}`
    tool(
        "read",
        Role::Read,
        Keys {
            path: &["filePath", "path"],
            ..NONE
        },
        W,
    ),
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
    tools: &[VSCODE_SHARED, ROO_TOOLS, OPENCODE_TOOLS, OPENCLAW_TOOLS],
    block: Block::Answer,
    result: ResultChannel::Output,
    rewrites_paths: false,
};

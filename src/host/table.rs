//! The words a host's tool table is written in (`crate::hosts::<host>`): each entry is the
//! tool's name as the host sends it, its role, the argument keys that role reads (exactly as the
//! host's tool reads them), and where context for the call can go.

use super::{Context, Keys, Role, Tool, NONE};

pub const fn tool(name: &'static str, role: Role, keys: Keys, context: Context) -> Tool {
    Tool {
        name,
        role,
        keys,
        context,
    }
}

/// A list of argument keys (the first present is read).
pub type K = &'static [&'static str];

/// A tool that changes nothing in the project, with its result as the place for context.
pub const fn reader(name: &'static str) -> Tool {
    tool(name, Role::Read, NONE, W)
}

/// A tool that reads the file at `path`.
pub const fn read(name: &'static str, path: K) -> Tool {
    tool(name, Role::Read, Keys { path, ..NONE }, W)
}

/// A tool that writes `content` (every host's key) to the file at `path`.
pub const fn write(name: &'static str, path: K) -> Tool {
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
pub const fn edit(name: &'static str, keys: Keys) -> Tool {
    tool(name, Role::Edit, keys, W)
}

/// An edit's keys: one replacement (`old` by `new`, every occurrence with `replace_all`).
pub const fn replace(path: K, old: K, new: K, replace_all: K) -> Keys {
    Keys {
        path,
        old,
        new,
        replace_all,
        ..NONE
    }
}

/// An edit's keys: a list of replacements under `edits`, each `{item_old, item_new}`.
pub const fn edit_list(path: K, item_old: K, item_new: K) -> Keys {
    Keys {
        path,
        edits: "edits",
        item_old,
        item_new,
        ..NONE
    }
}

/// An edit's keys when only the file is known (the change itself is another format).
pub const fn file_only(path: K) -> Keys {
    Keys { path, ..NONE }
}

/// A tool that applies the patch text under `patch`.
pub const fn patch(name: &'static str, patch: K) -> Tool {
    tool(name, Role::Patch, Keys { patch, ..NONE }, W)
}

/// A tool that starts a sub-agent on the prompt under `prompt` (a model reads it: context goes
/// there).
pub const fn subagent(name: &'static str, prompt: &'static str) -> Tool {
    tool(
        name,
        Role::Subagent,
        Keys { prompt, ..NONE },
        Context::PromptBlock,
    )
}

pub const fn shell(name: &'static str, context: Context) -> Tool {
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

pub const W: Context = Context::WithResult;

/// The edit keys of Claude Code's `Edit`, which Roo's `edit` and `search_and_replace` share.
pub const SNAKE_EDIT: Keys = replace(
    &["file_path"],
    &["old_string"],
    &["new_string"],
    &["replace_all"],
);

/// The edit keys of OpenClaw's and pi's `edit`: `{path, edits: [{oldText, newText}]}`; a
/// top-level `oldText`/`newText` pair is added to the list.
pub const TEXT_EDITS: Keys = Keys {
    old: &["oldText"],
    new: &["newText"],
    ..edit_list(&["path"], &["oldText"], &["newText"])
};

//! OpenCode 2.x: an in-process plugin host (`js/opencode2.cjs`); a hook that throws blocks the
//! call. Its tools, read from its source (below).

use super::{Facts, Kind};
use crate::host::table::{edit, patch, read, reader, replace, shell, subagent, write, W};
use crate::host::{Profile, Tool, PLAIN};

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

pub static PROFILE: Profile = Profile {
    id: "opencode2",
    title: "OpenCode 2.x",
    tools: &[OPENCODE2_TOOLS],
    rewrites_paths: false,
    ..PLAIN
};


pub const FACTS: Facts = Facts {
    kind: Kind::Plugin,
    init: "",
    config_files: &["opencode.json"],
    markers: &[],
    program: "opencode",
    cli: None,
    setup: "",
    e2e: "tests/opencode2",
};

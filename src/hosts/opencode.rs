//! OpenCode 1.x (`opencode-ai` 1.18.33): an in-process plugin host (`js/opencode.cjs`). Its
//! tools as `@opencode-ai/plugin` / `opencode-ai` 1.18.33 name them; a hook that throws blocks
//! the call (the error message is the tool result); context goes in place (a shell's `#`
//! comment lines, a sub-agent's prompt) or appended to the tool's output.

use super::{Cli, Facts, Kind};
use crate::host::table::{edit, edit_list, patch, read, reader, replace, shell, subagent, write};
use crate::host::{Context, Profile, Tool, PLAIN};

/// OpenCode 1.x's tools that Kilo CLI, its fork, has too, with the same keys ([`super::kilo`]).
pub const OPENCODE_SHARED: &[Tool] = &[
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
pub const OPENCODE_ONLY: &[Tool] = &[
    // offered by earlier 1.x releases: `{filePath, edits: [{filePath, oldString, newString}]}`
    edit(
        "multiedit",
        edit_list(&["filePath"], &["oldString"], &["newString"]),
    ),
    reader("list"),
    reader("codesearch"),
    reader("todoread"),
];

pub static PROFILE: Profile = Profile {
    id: "opencode",
    title: "OpenCode 1.x",
    tools: &[OPENCODE_SHARED, OPENCODE_ONLY],

    ..PLAIN
};


pub const FACTS: Facts = Facts {
    kind: Kind::Plugin,
    init: "",
    config_files: &["opencode.json"],
    markers: &[],
    program: "opencode",
    // its install script puts its platform binary at bin/opencode.exe (kept)
    cli: Some(Cli {
        package: "opencode-ai",
        version: "1.18.33",
        install_flags: "",
        entry: "opencode-ai/bin/opencode.exe",
        native: true,
    }),
    setup: "scripts/setup-clis.sh opencode",
    e2e: "tests/e2e",
};

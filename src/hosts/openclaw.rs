//! OpenClaw (openclaw 2026.9.6): an in-process plugin of its gateway (`js/openclaw.cjs`). Its
//! tools' TypeBox schemas: `write {path, content}`, `edit {path, edits}`, `apply_patch
//! {input}`, `exec {command}`. A hook answers `{block: true, blockReason}`: the reason is the
//! tool message.

use super::{Facts, Kind};
use crate::host::table::{edit, patch, read, reader, shell, write, TEXT_EDITS, W};
use crate::host::{Profile, Tool, PLAIN};

// A `params` rewrite runs but the model's history keeps its original call: context goes with
// the result for every tool.

pub const OPENCLAW_TOOLS: &[Tool] = &[
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

pub static PROFILE: Profile = Profile {
    id: "openclaw",
    title: "OpenClaw",
    tools: &[OPENCLAW_TOOLS],
    // openclaw 2026.9.6: `normalizeFileToolPathParam`, `expandPath` (`@`, `~`, `file://`)
    rewrites_paths: true,
    ..PLAIN
};


pub const FACTS: Facts = Facts {
    kind: Kind::Plugin,
    init: "",
    config_files: &["openclaw.plugin.json"],
    markers: &[],
    program: "openclaw",
    cli: None,
    setup: "scripts/setup-openclaw.sh",
    e2e: "tests/e2e-openclaw",
};

//! pi's tool table (`@mariozechner/pi-coding-agent` 0.73.1, an in-process extension host:
//! `js/pi.cjs`). From the installed package's tool definitions, `dist/core/tools/*.js` (their
//! TypeBox schemas; `allToolNames` in `tools/index.js` lists all seven): `bash {command,
//! timeout}`, `write {path, content}`, `edit {path, edits: [{oldText, newText}]}` (its
//! `prepareArguments` folds a top-level `oldText`/`newText` pair into `edits` before the
//! `tool_call` event), `read {path, offset, limit}`, `grep {pattern, path, glob, …}`, `find
//! {pattern, path, limit}`, `ls {path, limit}`. pi offers read, bash, edit and write by default,
//! grep, find and ls when the user turns them on; a tool another extension registers is not
//! listed (gated under governance).
//!
//! Where text reaches the model (`@mariozechner/pi-agent-core`'s `agent-loop.js`): `tool_call`
//! sees the validated arguments the tool then runs with, but the model's history keeps its
//! original call, so context goes with the result (`tool_result` content) for every tool. A
//! block is `{block: true, reason}`: the reason is the tool result the model reads. The write
//! and edit tools resolve a path with `expandPath` (`tools/path-utils.js`: a leading `@`
//! dropped, `~` the home folder, Unicode spaces made plain): such paths are refused
//! ([`crate::host::args::rewritten`]).

use super::{Cli, Facts, Kind};
use crate::host::table::{edit, read, reader, shell, write, TEXT_EDITS, W};
use crate::host::{Profile, Tool, PLAIN};

const PI_TOOLS: &[Tool] = &[
    shell("bash", W),
    write("write", &["path"]),
    // a top-level `oldText`/`newText` is folded into `edits` before the hook sees the call;
    // read as OpenClaw's edit reads them, should a call still carry them
    edit("edit", TEXT_EDITS),
    read("read", &["path"]),
    reader("grep"),
    reader("find"),
    reader("ls"),
];

pub static PROFILE: Profile = Profile {
    id: "pi",
    title: "pi",
    tools: &[PI_TOOLS],
    rewrites_paths: true,
    ..PLAIN
};

pub const FACTS: Facts = Facts {
    kind: Kind::Plugin,
    init: "pi",
    config_files: &[".pi/settings.json"],
    markers: &[".pi"],
    program: "pi",
    cli: Some(Cli {
        package: "@mariozechner/pi-coding-agent",
        version: "0.73.1",
        install_flags: "--ignore-scripts",
        entry: "@mariozechner/pi-coding-agent/dist/cli.js",
        native: false,
    }),
    setup: "scripts/setup-clis.sh pi",
    e2e: "tests/e2e-pi",
};

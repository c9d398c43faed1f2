//! Cline CLI 3.x (the `cline` npm package 3.0.65; its SDK `@cline/core` 0.0.86): the tools its
//! in-process plugin's `beforeTool` hook sees, and the forms its shell tool accepts. Served by
//! the policy core only (`js/cline.cjs` starts with it), so the lean wasm does not carry them.
//!
//! Read in the installed package, `@cline/core/dist/index.js` (the tools' zod schemas and
//! executors): `run_commands` accepts `{commands: [string | {command, args}]}`, `{commands:
//! string | {command, args}}`, `[{command, args}]`, `{command, args}`, `{command}`, `{cmd}`, an
//! array of strings or one string (`RunCommandsInputUnionSchema`), joins a here-document's lines
//! spread over several list items into one command (a start `<<EOF` up to an item that is the
//! delimiter) and runs every command at once (`Promise.all`); the plugin's `beforeTool` gets
//! the model's input as it came, before that schema reads it. `editor {path, old_text,
//! new_text, insert_line}` creates a missing file with `new_text`, replaces `old_text`, or
//! inserts at `insert_line`; `apply_patch {input}` (or the patch text alone) applies the
//! `*** Begin Patch` format; `read_files` takes a path, a list, or `{files | file_paths |
//! paths: …}`; `spawn_agent {systemPrompt, task}` runs a sub-agent with the parent's hooks and
//! plugins (so its calls are gated there). The 18 `team_*` tools start, message and task
//! teammates (each runs tools of its own through the same hooks), `skills` runs a configured
//! skill: none of them is listed, so under governance they need an intent (default deny).

use super::{Cli, Facts, Kind};
use crate::host::table::{edit, file_only, patch, read, reader, subagent, tool, W};
use crate::host::{Keys, Profile, Role, Tool, NONE, PLAIN};

const CLINE_TOOLS: &[Tool] = &[
    // `commands`: a list (see [`commands`]); context goes with the result
    tool(
        "run_commands",
        Role::Shell,
        Keys {
            command: "commands",
            ..NONE
        },
        W,
    ),
    // creates, replaces in or inserts into the file at `path`: the change is read by comparing
    edit("editor", file_only(&["path"])),
    patch("apply_patch", &["input"]),
    subagent("spawn_agent", "task"),
    // `{path}` is one of its forms; every form: [`read_files`]
    read("read_files", &["path"]),
    reader("search_codebase"),
    reader("fetch_web_content"),
    reader("ask_question"),
    reader("submit_and_exit"),
];

pub static PROFILE: Profile = Profile {
    id: "cline",
    title: "Cline CLI",
    tools: &[CLINE_TOOLS],
    // `run_commands` takes a list of commands, each run on its own
    command_list: Some(commands),
    // `read_files` reads a list of files
    multi_read: Some(("read_files", read_files)),
    ..PLAIN
};

/// The command lines a call of Cline's `run_commands` runs, each to be read on its own (Cline
/// runs each in its own shell): every form its schema accepts, a here-document spread over
/// list items joined as Cline joins it. `None` when the input is in no form Cline runs (then
/// nothing runs; the caller reads the call as a tool it cannot read).
pub fn commands(args: &serde_json::Value) -> Option<Vec<String>> {
    use serde_json::Value;
    let entry = |v: &Value| -> Option<Entry> {
        match v {
            Value::String(s) => Some(Entry::Line(s.clone())),
            Value::Object(m) => structured(m).map(Entry::Structured),
            _ => None,
        }
    };
    let list: Vec<Entry> = match args {
        Value::String(s) => vec![Entry::Line(s.clone())],
        Value::Array(items) => items.iter().map(entry).collect::<Option<_>>()?,
        Value::Object(m) => match (m.get("commands"), m.get("command"), m.get("cmd")) {
            (Some(Value::Array(items)), _, _) => items.iter().map(entry).collect::<Option<_>>()?,
            (Some(one), _, _) => vec![entry(one)?],
            (None, Some(_), _) => vec![Entry::Structured(structured(m)?)],
            (None, None, Some(Value::String(s))) => vec![Entry::Line(s.clone())],
            _ => return None,
        },
        _ => return None,
    };
    Some(group(list))
}

enum Entry {
    Line(String),
    Structured(String),
}

/// `{command, args?}`: the program and its arguments as one line (Cline shows it so: an
/// argument with a space or a quote JSON-quoted).
fn structured(m: &serde_json::Map<String, serde_json::Value>) -> Option<String> {
    let command = m.get("command")?.as_str()?;
    let mut line = command.to_string();
    match m.get("args") {
        None | Some(serde_json::Value::Null) => {}
        Some(serde_json::Value::Array(a)) => {
            for x in a {
                let s = x.as_str()?;
                line.push(' ');
                if s.contains(|c: char| c.is_whitespace() || c == '"') {
                    line.push_str(&serde_json::to_string(s).ok()?);
                } else {
                    line.push_str(s);
                }
            }
        }
        Some(_) => return None,
    }
    Some(line)
}

/// Consecutive string items, a here-document's start joined with the items up to its
/// delimiter (Cline's own grouping); structured items as they are.
fn group(list: Vec<Entry>) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<String> = Vec::new();
    for e in list {
        match e {
            Entry::Line(s) => run.push(s),
            Entry::Structured(s) => {
                join_heredocs(std::mem::take(&mut run), &mut out);
                out.push(s);
            }
        }
    }
    join_heredocs(run, &mut out);
    out
}

fn join_heredocs(items: Vec<String>, out: &mut Vec<String>) {
    let mut i = 0;
    while i < items.len() {
        let end = heredoc_delimiter(&items[i])
            .and_then(|d| (i + 1..items.len()).find(|&j| items[j].trim() == d));
        match end {
            Some(j) => {
                out.push(items[i..=j].join("\n"));
                i = j + 1;
            }
            None => {
                out.push(items[i].clone());
                i += 1;
            }
        }
    }
}

/// The delimiter of the first here-document a line starts, as Cline finds it: `<<` (not
/// `<<<`), an optional `-`, spaces, then `"word"`, `'word'` or a bare `[A-Za-z0-9_./-]+`.
fn heredoc_delimiter(line: &str) -> Option<String> {
    let b = line.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'<' && b[i + 1] == b'<' && (i == 0 || b[i - 1] != b'<') {
            let mut j = i + 2;
            if b.get(j) == Some(&b'-') {
                j += 1;
            }
            while b.get(j).is_some_and(|c| c.is_ascii_whitespace()) {
                j += 1;
            }
            let word = match b.get(j) {
                Some(&q @ (b'"' | b'\'')) => line[j + 1..]
                    .find(q as char)
                    .filter(|&n| n > 0)
                    .map(|n| &line[j + 1..j + 1 + n]),
                _ => {
                    let n = line[j..]
                        .bytes()
                        .take_while(|c| c.is_ascii_alphanumeric() || b"_./-".contains(c))
                        .count();
                    (n > 0).then(|| &line[j..j + n])
                }
            };
            if let Some(w) = word {
                return Some(w.to_string());
            }
        }
        i += 1;
    }
    None
}

/// The files a call of Cline's `read_files` reads, in every form its schema accepts: a path, a
/// list of paths or `{path | file_path | filePath}` entries, or `{files | paths | file_paths}`
/// holding one of those (governance remembers each read for its stale-write check).
pub fn read_files(args: &serde_json::Value) -> Vec<&str> {
    use serde_json::Value;
    fn entry<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::String(s) => out.push(s),
            Value::Object(m) => {
                if let Some(s) = ["path", "file_path", "filePath"]
                    .iter()
                    .find_map(|k| m.get(*k).and_then(Value::as_str))
                {
                    out.push(s);
                }
            }
            Value::Array(items) => items.iter().for_each(|x| entry(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    match args.as_object() {
        Some(m)
            if ["files", "paths", "file_paths"]
                .iter()
                .any(|k| m.contains_key(*k)) =>
        {
            for k in ["files", "paths", "file_paths"] {
                if let Some(v) = m.get(k) {
                    entry(v, &mut out);
                }
            }
        }
        _ => entry(args, &mut out),
    }
    out.dedup();
    out
}

pub const FACTS: Facts = Facts {
    kind: Kind::Plugin,
    init: "cline",
    config_files: &[".cline/plugins/hookwise.js"],
    markers: &[".cline"],
    program: "cline",
    cli: Some(Cli {
        package: "cline",
        version: "3.0.65",
        install_flags: "--ignore-scripts",
        entry: "cline/bin/cline",
        native: false,
    }),
    setup: "scripts/setup-clis.sh cline",
    e2e: "tests/e2e-cline",
};

//! Reading a call's arguments as the host's tool reads them: its file, its patch text, its
//! edit, its command line. See the module docs of [`crate::host`] for the ambiguity rule.

use serde_json::{Map, Value};

use super::{Profile, Tool};
use crate::config::kind;

/// The keys any profile reads a file from, normalised ([`norm`]). A test keeps this list and
/// the profiles in step.
pub const PATH_KEYS_ANY: &[&str] = &["filepath", "path", "notebookpath"];
/// The keys any profile reads a patch text from, normalised.
/// (`command`: Codex hands its `apply_patch` to hooks as `{command: <patch>}`.)
pub const PATCH_KEYS_ANY: &[&str] = &["patchtext", "patch", "input", "command"];

/// A key as a comparison sees it: ASCII lower case, `_` and `-` dropped; `None` for a key that
/// is not plain ASCII (no host reads a file from `fіlePath` with a Cyrillic `і`) or is longer
/// than any path key could be.
pub fn norm(key: &str) -> Option<String> {
    if !key.is_ascii() || key.len() > 32 {
        return None;
    }
    Some(
        key.bytes()
            .filter(|b| *b != b'_' && *b != b'-')
            .map(|b| b.to_ascii_lowercase() as char)
            .collect(),
    )
}

/// `norm(key) == target` without allocating (`target` is normalised already).
fn norm_eq(key: &str, target: &str) -> bool {
    if !key.is_ascii() || key.len() > 32 {
        return false;
    }
    let mut k = key
        .bytes()
        .filter(|b| *b != b'_' && *b != b'-')
        .map(|b| b.to_ascii_lowercase());
    let mut t = target.bytes();
    loop {
        match (k.next(), t.next()) {
            (None, None) => return true,
            (Some(a), Some(b)) if a == b => {}
            _ => return false,
        }
    }
}

/// Does any host read a file from this key (in any case)?
pub fn is_path_key(key: &str) -> bool {
    PATH_KEYS_ANY.iter().any(|t| norm_eq(key, t))
}

/// Does any host read a patch text from this key (in any case)?
pub fn is_patch_key(key: &str) -> bool {
    PATCH_KEYS_ANY.iter().any(|t| norm_eq(key, t))
}

/// Why a call's target cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    /// Two keys name different targets: `key` (the tool's own, when it has one) and `other`.
    Ambiguous {
        key: String,
        value: String,
        other: String,
        other_value: String,
    },
    /// A key that names a target holds something other than a string.
    NotText { key: String, kind: &'static str },
}

/// At most 80 characters of a model's string, quoted and escaped (it goes into a message).
pub fn shown(s: &str) -> String {
    let mut t: String = s.chars().take(80).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    format!("{t:?}")
}

impl ArgError {
    /// The block message. `what`: "file" or "patch text"; `own`: the keys the tool reads.
    pub fn message(&self, tool: &str, what: &str, own: &[&str]) -> String {
        let send = match own {
            [] => String::new(),
            [k] => format!(" Send the {what} once, under `{k}`."),
            ks => format!(
                " Send the {what} once, under one of {}.",
                ks.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        match self {
            ArgError::Ambiguous {
                key,
                value,
                other,
                other_value,
            } => format!(
                "hookwise blocked `{tool}`: its arguments name two different {what}s, `{key}` = {} and `{other}` = {}. hookwise cannot tell which one the tool would use, so neither is checked or allowed.{send}",
                shown(value),
                shown(other_value)
            ),
            ArgError::NotText { key, kind } => format!(
                "hookwise blocked `{tool}`: its argument `{key}` is {kind}, not a string, so what it names cannot be checked.{send}"
            ),
        }
    }
}

/// The value under the tool's own keys (the first present, not null, in their order), after
/// checking that every other key for the same purpose (`bearing`) is absent, null or the same
/// string. `Ok(None)`: none of the tool's keys holds one.
fn read<'a>(
    own: &[&str],
    bearing: fn(&str) -> bool,
    args: &'a Value,
) -> Result<Option<&'a str>, ArgError> {
    let Some(map) = args.as_object() else {
        return Ok(None);
    };
    let mut chosen: Option<(&str, &'a str)> = None;
    for k in own {
        match map.get(*k) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                chosen = Some((k, s));
                break;
            }
            Some(v) => {
                return Err(ArgError::NotText {
                    key: k.to_string(),
                    kind: kind(v),
                })
            }
        }
    }
    for (k, v) in map {
        if chosen.is_some_and(|(c, _)| k.as_str() == c)
            || !(own.contains(&k.as_str()) || bearing(k))
        {
            continue;
        }
        match (v, chosen) {
            (Value::Null, _) => {}
            (Value::String(s), Some((_, c))) if s == c => {}
            (Value::String(s), Some((ck, cv))) => {
                return Err(ArgError::Ambiguous {
                    key: ck.to_string(),
                    value: cv.to_string(),
                    other: k.clone(),
                    other_value: s.clone(),
                })
            }
            // a key this host's tool does not read, and none that it does: the tool names nothing
            (Value::String(_), None) => {}
            (v, _) => {
                return Err(ArgError::NotText {
                    key: k.clone(),
                    kind: kind(v),
                })
            }
        }
    }
    Ok(chosen.map(|(_, s)| s))
}

/// The file a call of `tool` names (write, edit, read), by the ambiguity rule.
pub fn path<'a>(tool: &Tool, args: &'a Value) -> Result<Option<&'a str>, ArgError> {
    read(tool.keys.path, is_path_key, args)
}

/// The patch text of a call of `tool`, by the ambiguity rule.
pub fn patch_text<'a>(tool: &Tool, args: &'a Value) -> Result<Option<&'a str>, ArgError> {
    read(tool.keys.patch, is_patch_key, args)
}

/// Keys a tool the profile does not know may name a file or folder under (besides every
/// host's path keys): an MCP server's `move_file {source, destination}`, `paths`, `cwd`, …
const OTHER_PATH_KEYS: &[&str] = &[
    "paths",
    "file",
    "files",
    "filename",
    "filepaths",
    "dir",
    "directory",
    "folder",
    "cwd",
    "workdir",
    "root",
    "source",
    "destination",
    "dest",
    "target",
    "newpath",
    "oldpath",
    "worktreepath",
];

/// A key under which a tool the profile does not know may name a file (any case, `_`/`-`
/// ignored).
pub fn is_other_path_key(key: &str) -> bool {
    is_path_key(key) || OTHER_PATH_KEYS.iter().any(|t| norm_eq(key, t))
}

/// The files a call of a tool without file keys of its own may name (a tool the profile does
/// not know): every string under any path key ([`is_other_path_key`]), and every string in an
/// array there. Anything else under such a key cannot be read.
pub fn other_paths(args: &Value) -> Result<Vec<&str>, ArgError> {
    paths_under(args, is_other_path_key)
}

fn paths_under(args: &Value, keys: fn(&str) -> bool) -> Result<Vec<&str>, ArgError> {
    let Some(map) = args.as_object() else {
        return Ok(Vec::new());
    };
    let mut out: Vec<&str> = Vec::new();
    for (k, v) in map.iter().filter(|(k, _)| keys(k)) {
        match v {
            Value::Null => {}
            Value::String(s) => add(&mut out, s),
            Value::Array(items) => {
                for item in items {
                    match item {
                        Value::String(s) => add(&mut out, s),
                        other => {
                            return Err(ArgError::NotText {
                                key: k.clone(),
                                kind: if other.is_null() {
                                    "an array holding null"
                                } else {
                                    "an array holding something other than strings"
                                },
                            })
                        }
                    }
                }
            }
            other => {
                return Err(ArgError::NotText {
                    key: k.clone(),
                    kind: kind(other),
                })
            }
        }
    }
    Ok(out)
}

/// The file a read tool's call reads (for stale-write checks): by its own keys, or for a read
/// tool the profile does not know (option `readTools`), the one path under any path key.
pub fn read_path<'a>(tool: &Tool, args: &'a Value) -> Option<&'a str> {
    if tool.keys.path.is_empty() {
        match paths_under(args, is_path_key).ok()?.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    } else {
        path(tool, args).ok().flatten()
    }
}

/// Every file a read tool's call of `host` reads (Cline's `read_files` reads a list), else
/// [`read_path`]'s one.
pub fn read_paths<'a>(host: &Profile, tool: &Tool, args: &'a Value) -> Vec<&'a str> {
    if let Some((name, read)) = host.multi_read {
        if tool.name == name {
            return read(args);
        }
    }
    read_path(tool, args).into_iter().collect()
}

fn add<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    if !out.contains(&s) {
        out.push(s);
    }
}

fn first_str<'a>(m: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| m.get(*k).and_then(Value::as_str))
}

/// What an edit replaced, for the trace's line ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditShape<'a> {
    /// One old text replaced by a new one (every occurrence with `all`).
    Replace {
        old: &'a str,
        new: &'a str,
        all: bool,
    },
    /// Replacements applied together against the file as it was.
    List(Vec<(&'a str, &'a str)>),
    /// Nothing says what changed (a diff, a notebook cell, an inserted block): compare.
    Unknown,
}

/// The edit a call of `tool` makes, by its keys: its list of replacements (OpenClaw also adds a
/// top-level `oldText`/`newText` pair to it), else its old/new pair.
pub fn edit_shape<'a>(tool: &Tool, args: &'a Value) -> EditShape<'a> {
    let Some(m) = args.as_object() else {
        return EditShape::Unknown;
    };
    let k = &tool.keys;
    let old = first_str(m, k.old);
    let new = first_str(m, k.new);
    let items = (!k.edits.is_empty())
        .then(|| m.get(k.edits).and_then(Value::as_array))
        .flatten();
    if let Some(items) = items.filter(|a| !a.is_empty()) {
        let mut list: Vec<(&str, &str)> = items
            .iter()
            .map(|e| match e.as_object() {
                Some(o) => (
                    first_str(o, k.item_old).unwrap_or(""),
                    first_str(o, k.item_new).unwrap_or(""),
                ),
                None => ("", ""),
            })
            .collect();
        if let (Some(o), Some(n)) = (old, new) {
            if !list.contains(&(o, n)) {
                list.push((o, n));
            }
        }
        return EditShape::List(list);
    }
    if old.is_none() && new.is_none() {
        return EditShape::Unknown;
    }
    EditShape::Replace {
        old: old.unwrap_or(""),
        new: new.unwrap_or(""),
        all: k
            .replace_all
            .iter()
            .find_map(|key| m.get(*key).and_then(Value::as_bool))
            .unwrap_or(false),
    }
}

/// Why `host` would not write `path` as given, when it rewrites paths and this one is in a
/// form it rewrites (OpenClaw: a leading `~` is the home folder, a leading `@` is dropped when
/// no such file exists, a `file:` URL becomes a path, a trailing `</arg_value>` is cut, and
/// `.docodex`-style extensions become `.docx`; pi: a leading `@` is dropped, `~` is the home
/// folder, Unicode spaces become plain ones). One list for both: a form only one of them
/// rewrites is refused in the other too, as a block costs less than a write the gate misread.
pub fn rewritten(host: &Profile, path: &str) -> Option<&'static str> {
    if !host.rewrites_paths {
        return None;
    }
    let lower = path.get(..5).map(str::to_ascii_lowercase);
    let office = path.rsplit_once('.').is_some_and(|(_, ext)| {
        let e = ext.to_ascii_lowercase();
        ["doc", "ppt", "xls"].iter().any(|f| {
            e.strip_prefix(f)
                .is_some_and(|r| ["odex", "codex", "xodex", "xcodex"].contains(&r))
        })
    });
    if path.starts_with('~') {
        Some("a leading `~` is the home folder")
    } else if path.starts_with('@') {
        Some("a leading `@` may be dropped")
    } else if path.chars().any(unicode_space) {
        Some("a Unicode space in it is made a plain one")
    } else if lower.as_deref() == Some("file:") {
        Some("a `file:` URL is turned into a path")
    } else if path.contains("</arg_value>") {
        Some("a trailing `</arg_value>` is cut")
    } else if office {
        Some("its extension is turned into an Office one")
    } else {
        None
    }
}

/// The spaces pi's `expandPath` makes plain (`tools/path-utils.js`: U+00A0, U+2000–U+200A,
/// U+202F, U+205F, U+3000): the file written is not the one the path names.
fn unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// The command line of a shell tool's call, when it is a string.
pub fn command<'a>(host: &Profile, tool: &str, args: &'a Value) -> Option<&'a str> {
    host.shell_key(tool)
        .and_then(|k| args.get(k))
        .and_then(Value::as_str)
}

/// The command lines a shell tool's call runs, each read on its own: the one string under its
/// command key, or every command of a host whose shell takes a list (Cline's `run_commands`,
/// in every form it accepts). `None`: no command line can be read.
pub fn command_lines<'a>(
    host: &Profile,
    tool: &str,
    args: &'a Value,
) -> Option<Vec<std::borrow::Cow<'a, str>>> {
    if let Some(list) = host.command_list.filter(|_| host.entry(tool).role == super::Role::Shell) {
        return list(args).map(|v| v.into_iter().map(std::borrow::Cow::Owned).collect());
    }
    command(host, tool, args).map(|s| vec![std::borrow::Cow::Borrowed(s)])
}

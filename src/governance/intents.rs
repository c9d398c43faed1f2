//! `.orchestration/active_intents.yaml`: the intents a session may work under.
//!
//! ```yaml
//! active_intents:
//!   - id: INT-001
//!     name: JWT authentication
//!     status: IN_PROGRESS          # IN_PROGRESS | COMPLETE | BLOCKED
//!     owned_scope: [src/auth/**, "!src/auth/vendor/**"]
//!     constraints: [Keep the public API of src/auth/index.ts]
//!     acceptance_criteria: [All tests in tests/auth pass]
//! ```
//!
//! Parsing uses a real YAML parser (serde_norway) **entry by entry**: each item of the
//! `active_intents` block sequence is parsed on its own (padded with blank lines so the
//! parser's line numbers are the file's), so one malformed entry — a syntax error, a missing
//! field, an unknown status, a bad glob — is reported with the file, its line and what is
//! wrong, and every valid entry still loads. When the whole file parses, its values are used
//! (anchors and aliases work); the per-entry split only supplies line numbers, and is used for
//! parsing when the whole file does not parse. A flow-style list (`active_intents: [{…}]`) is
//! parsed whole; its problems name the entry by position.
//!
//! Rules: `id` (string or number, unique, no whitespace), `name` (string), `status` and
//! `owned_scope` (list of globs, see [`super::scope`]) are required; `constraints` and
//! `acceptance_criteria` are optional lists of strings (a single string is one item). An item
//! that YAML reads as a mapping (`- Must not: break`) is an error that says to quote it.
//! Unknown fields are warnings. A second entry with an id already seen is an error.
//!
//! Bounded (the file may be hostile): at most [`MAX_BYTES`], nesting at most
//! [`bounded::MAX_DEPTH`] levels, aliases expanding it at most [`bounded::EXPANSION`] times
//! (see [`crate::bounded`]); over a limit the file is refused with the reason and nothing in
//! it is loaded, so every change is blocked until it is fixed (governance fails closed). At
//! most [`MAX_PROBLEMS`] problems are reported (then how many more), at most
//! [`MAX_UNKNOWN_FIELDS`] unknown fields per entry. Parsing is linear in the file's size.

use std::collections::HashSet;

use serde::Serialize;
use serde_norway::Value;

use super::scope::normalize_pattern;
use crate::bounded::{self, Refusal, YamlError};

/// The largest intents file read (the host is asked for no more).
pub const MAX_BYTES: u64 = 1024 * 1024;
/// Problems reported at most; the rest are counted in one more line.
pub const MAX_PROBLEMS: usize = 50;
/// Unknown fields warned about per entry; the rest are counted.
pub const MAX_UNKNOWN_FIELDS: usize = 10;

/// What to report when the host could not read the file: `error` is its code with the detail
/// (`too-large`: over [`MAX_BYTES`], and `size` what it said the file's size is).
pub fn unreadable(error: &str, size: Option<u64>) -> String {
    if error == crate::protocol::ReplyError::TooLarge.code() {
        let r = Refusal::TooLarge {
            bytes: size.filter(|s| *s > MAX_BYTES),
            limit: MAX_BYTES,
        };
        format!("the file {r}; changes are blocked until it is made smaller")
    } else {
        format!("cannot read the file ({error}); changes are blocked until it can be read")
    }
}

/// `msg` with every `line N` moved down by `by` lines (an entry parsed on its own starts at
/// its line 1; the file's line is `by` more).
fn shift_lines(msg: &str, by: usize) -> String {
    let mut out = String::with_capacity(msg.len() + 8);
    let mut rest = msg;
    while let Some(i) = rest.find("line ") {
        let (head, tail) = rest.split_at(i + 5);
        out.push_str(head);
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        match tail[..digits].parse::<usize>() {
            Ok(n) => out.push_str(&(n + by).to_string()),
            Err(_) => out.push_str(&tail[..digits]),
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Status {
    #[serde(rename = "IN_PROGRESS")]
    InProgress,
    #[serde(rename = "COMPLETE")]
    Complete,
    #[serde(rename = "BLOCKED")]
    Blocked,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::InProgress => "IN_PROGRESS",
            Status::Complete => "COMPLETE",
            Status::Blocked => "BLOCKED",
        }
    }
    fn parse(s: &str) -> Option<Status> {
        match s {
            "IN_PROGRESS" => Some(Status::InProgress),
            "COMPLETE" => Some(Status::Complete),
            "BLOCKED" => Some(Status::Blocked),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Intent {
    pub id: String,
    pub name: String,
    pub status: Status,
    pub owned_scope: Vec<String>,
    pub constraints: Vec<String>,
    pub acceptance_criteria: Vec<String>,
    /// Line of the entry in the file (1-based).
    pub line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Something wrong in the file. An `Error` entry is not loaded; a `Warning` entry is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub file: String,
    pub line: usize,
    pub severity: Severity,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{}:{}: {sev}: {}", self.file, self.line, self.message)
    }
}

/// The parsed file: the intents that loaded and what was wrong.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IntentFile {
    pub intents: Vec<Intent>,
    pub problems: Vec<Problem>,
}

impl IntentFile {
    pub fn get(&self, id: &str) -> Option<&Intent> {
        self.intents.iter().find(|i| i.id == id)
    }
    pub fn ids(&self) -> Vec<&str> {
        self.intents.iter().map(|i| i.id.as_str()).collect()
    }
    /// The intents that can be selected (IN_PROGRESS).
    pub fn selectable(&self) -> impl Iterator<Item = &Intent> {
        self.intents
            .iter()
            .filter(|i| i.status == Status::InProgress)
    }
}

const KNOWN: &[&str] = &[
    "id",
    "name",
    "status",
    "owned_scope",
    "constraints",
    "acceptance_criteria",
];

/// The span of one block-sequence item: its first line and the line after it (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Item {
    start: usize,
    end: usize,
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start_matches(' ').len()
}

fn is_blank_or_comment(l: &str) -> bool {
    let t = l.trim();
    t.is_empty() || t.starts_with('#')
}

fn is_item(l: &str, at: usize) -> bool {
    indent(l) == at && {
        let rest = l[at..].trim_end();
        rest == "-" || rest.starts_with("- ") || rest.starts_with("-\t")
    }
}

/// Find the top-level `active_intents:` key and the items of its block sequence.
/// `None` for the items when the list is written inline (flow style or empty).
fn locate(text: &str) -> (Option<usize>, Option<Vec<Item>>) {
    let lines: Vec<&str> = text.lines().collect();
    let Some(key) = lines.iter().position(|l| {
        l.strip_prefix("active_intents")
            .map(|r| r.trim_start().starts_with(':'))
            .unwrap_or(false)
    }) else {
        return (None, None);
    };
    let after_colon = lines[key].split_once(':').map(|x| x.1).unwrap_or("");
    if !is_blank_or_comment(after_colon) {
        return (Some(key + 1), None); // inline value
    }
    let Some(first) = (key + 1..lines.len()).find(|&i| !is_blank_or_comment(lines[i])) else {
        return (Some(key + 1), None);
    };
    let at = indent(lines[first]);
    if !is_item(lines[first], at) {
        return (Some(key + 1), None);
    }
    let mut items: Vec<Item> = Vec::new();
    let mut end = lines.len();
    for (i, l) in lines.iter().enumerate().skip(first) {
        if is_blank_or_comment(l) {
            continue;
        }
        if is_item(l, at) {
            if let Some(last) = items.last_mut() {
                last.end = i + 1;
            }
            items.push(Item {
                start: i + 1,
                end: 0,
            });
        } else if indent(l) < at || (at == 0 && indent(l) == 0) {
            end = i;
            break;
        }
    }
    if let Some(last) = items.last_mut() {
        last.end = end + 1;
    }
    (Some(key + 1), Some(items))
}

/// The line (1-based) of `key:` inside the item, or the item's first line.
fn field_line(text_lines: &[&str], item: Option<Item>, key: &str) -> Option<usize> {
    let item = item?;
    for n in item.start..item.end {
        let l = text_lines.get(n - 1)?.trim_start();
        let l = l.strip_prefix('-').map(str::trim_start).unwrap_or(l);
        let l = l.trim_start_matches(['"', '\'']);
        if let Some(r) = l.strip_prefix(key) {
            if r.trim_start_matches(['"', '\''])
                .trim_start()
                .starts_with(':')
            {
                return Some(n);
            }
        }
    }
    Some(item.start)
}

/// Parse the file's text. `file` names it in messages.
pub fn parse(file: &str, text: &str) -> IntentFile {
    let mut out = IntentFile::default();
    let problem = |out: &mut IntentFile, line: usize, severity, message: String| {
        out.problems.push(Problem {
            file: file.to_string(),
            line,
            severity,
            message,
        })
    };
    let whole: Result<Value, _> = if text.trim().is_empty() {
        Ok(Value::Null)
    } else {
        bounded::yaml(text, MAX_BYTES)
    };
    let e = match whole {
        Err(YamlError::Refused(r)) => {
            let line = r.line();
            problem(
                &mut out,
                line,
                Severity::Error,
                format!("the file {r}; nothing in it was loaded"),
            );
            return out;
        }
        Err(YamlError::Syntax(e)) => Err(e),
        Ok(v) => Ok(v),
    };
    let (key_line, items) = locate(text);
    let lines: Vec<&str> = text.lines().collect();
    let entries: Vec<(Value, Option<Item>, usize)> = match e {
        Ok(doc) => {
            let list = match &doc {
                Value::Null => {
                    problem(
                        &mut out,
                        1,
                        Severity::Warning,
                        "the file is empty; expected `active_intents:` with a list of intents"
                            .into(),
                    );
                    return out;
                }
                Value::Mapping(m) => match m.get("active_intents") {
                    Some(v) => v.clone(),
                    None => {
                        problem(
                            &mut out,
                            1,
                            Severity::Error,
                            "no `active_intents:` key at the top level".into(),
                        );
                        return out;
                    }
                },
                _ => {
                    problem(
                        &mut out,
                        1,
                        Severity::Error,
                        "the file must be a mapping with an `active_intents:` list".into(),
                    );
                    return out;
                }
            };
            match list {
                Value::Null => Vec::new(),
                Value::Sequence(seq) => {
                    let spans = items.filter(|it| it.len() == seq.len());
                    seq.into_iter()
                        .enumerate()
                        .map(|(k, v)| {
                            let item = spans.as_ref().map(|s| s[k]);
                            let line = item.map(|i| i.start).or(key_line).unwrap_or(1);
                            (v, item, line)
                        })
                        .collect()
                }
                _ => {
                    problem(
                        &mut out,
                        key_line.unwrap_or(1),
                        Severity::Error,
                        "`active_intents` must be a list of intents".into(),
                    );
                    return out;
                }
            }
        }
        Err(e) => {
            let whole_line = e.location().map(|l| l.line()).unwrap_or(1);
            let Some(items) = items else {
                problem(
                    &mut out,
                    whole_line,
                    Severity::Error,
                    format!("not valid YAML: {e}"),
                );
                return out;
            };
            // Parse each entry on its own; its line numbers are moved to the file's.
            let mut good = Vec::new();
            let mut any_bad = false;
            for it in items {
                let shift = it.start - 1;
                let mut chunk = String::new();
                for l in &lines[it.start - 1..(it.end - 1).min(lines.len())] {
                    chunk.push_str(l);
                    chunk.push('\n');
                }
                match bounded::yaml::<Value>(&chunk, MAX_BYTES) {
                    Ok(Value::Sequence(mut s)) if s.len() == 1 => {
                        good.push((s.remove(0), Some(it), it.start))
                    }
                    Ok(_) => {
                        any_bad = true;
                        problem(
                            &mut out,
                            it.start,
                            Severity::Error,
                            "this entry is not a single list item".into(),
                        )
                    }
                    Err(ce) => {
                        any_bad = true;
                        let line = ce.line().map_or(it.start, |l| l + shift);
                        let why = shift_lines(&ce.to_string(), shift);
                        let message = match ce {
                            YamlError::Refused(_) => format!("this entry {why}; entry skipped"),
                            YamlError::Syntax(_) => {
                                format!("not valid YAML, entry skipped: {why}")
                            }
                        };
                        problem(&mut out, line, Severity::Error, message)
                    }
                }
            }
            if !any_bad {
                problem(
                    &mut out,
                    whole_line,
                    Severity::Error,
                    format!(
                        "not valid YAML ({e}); the entries that parse on their own were loaded"
                    ),
                );
            }
            good
        }
    };

    let n = entries.len();
    let mut seen: HashSet<String> = HashSet::new();
    for (k, (v, item, line)) in entries.into_iter().enumerate() {
        let at = if item.is_some() || n == 1 {
            String::new()
        } else {
            format!(" (entry #{})", k + 1)
        };
        let mut errs: Vec<(usize, String)> = Vec::new();
        let mut warns: Vec<(usize, String)> = Vec::new();
        let fl = |key: &str| field_line(&lines, item, key).unwrap_or(line);
        let Value::Mapping(m) = v else {
            problem(
                &mut out,
                line,
                Severity::Error,
                format!("an intent must be a mapping with id, name, status and owned_scope{at}; entry skipped"),
            );
            continue;
        };
        let mut unknown = 0;
        for (key, _) in m.iter() {
            match key.as_str() {
                Some(k) if KNOWN.contains(&k) => {}
                _ if unknown >= MAX_UNKNOWN_FIELDS => unknown += 1,
                Some(k) => {
                    unknown += 1;
                    warns.push((fl(k), format!("unknown field '{k}' (ignored){at}")))
                }
                None => {
                    unknown += 1;
                    warns.push((line, format!("a non-string key is ignored{at}")))
                }
            }
        }
        if unknown > MAX_UNKNOWN_FIELDS {
            warns.push((
                line,
                format!(
                    "{} more unknown fields (ignored){at}",
                    unknown - MAX_UNKNOWN_FIELDS
                ),
            ));
        }
        let id = match m.get("id") {
            Some(Value::String(s)) if !s.trim().is_empty() => {
                if s.chars().any(char::is_whitespace) {
                    errs.push((fl("id"), format!("id '{s}' contains whitespace{at}")));
                }
                Some(s.clone())
            }
            Some(Value::Number(num)) => Some(num.to_string()),
            Some(_) => {
                errs.push((fl("id"), format!("id must be a non-empty string{at}")));
                None
            }
            None => {
                errs.push((line, format!("missing required field 'id'{at}")));
                None
            }
        };
        let id_label = format!("{}{at}", id.as_deref().unwrap_or("?"));
        if let Some(i) = &id {
            if !seen.insert(i.clone()) {
                errs.push((
                    fl("id"),
                    format!("duplicate id '{i}'; this entry is skipped"),
                ));
            }
        }
        let name = match m.get("name") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(x)) => Some(x.to_string()),
            Some(_) => {
                errs.push((
                    fl("name"),
                    format!("intent {id_label}: name must be a string"),
                ));
                None
            }
            None => {
                errs.push((
                    line,
                    format!("intent {id_label}: missing required field 'name'"),
                ));
                None
            }
        };
        let status = match m.get("status") {
            Some(Value::String(s)) => match Status::parse(s.trim()) {
                Some(st) => Some(st),
                None => {
                    errs.push((
                        fl("status"),
                        format!("intent {id_label}: unknown status '{s}' (expected IN_PROGRESS, COMPLETE or BLOCKED)"),
                    ));
                    None
                }
            },
            Some(_) => {
                errs.push((
                    fl("status"),
                    format!("intent {id_label}: status must be IN_PROGRESS, COMPLETE or BLOCKED"),
                ));
                None
            }
            None => {
                errs.push((
                    line,
                    format!("intent {id_label}: missing required field 'status'"),
                ));
                None
            }
        };
        let scope = match m.get("owned_scope") {
            Some(v) => match strings(v) {
                Ok(list) => {
                    let scope_line = fl("owned_scope");
                    for p in &list {
                        if let Err(e) = normalize_pattern(p) {
                            errs.push((scope_line, format!("intent {id_label}: owned_scope: {e}")));
                        }
                    }
                    if !list.is_empty() && list.iter().all(|p| p.trim().starts_with('!')) {
                        warns.push((
                            scope_line,
                            format!("intent {id_label}: owned_scope has only exclusions, so nothing is in scope (add an include such as '**')"),
                        ));
                    } else if list.is_empty() {
                        warns.push((
                            scope_line,
                            format!(
                                "intent {id_label}: owned_scope is empty, so nothing is in scope"
                            ),
                        ));
                    }
                    Some(list)
                }
                Err(why) => {
                    errs.push((
                        fl("owned_scope"),
                        format!("intent {id_label}: owned_scope must be a list of globs; {why}"),
                    ));
                    None
                }
            },
            None => {
                errs.push((
                    line,
                    format!("intent {id_label}: missing required field 'owned_scope'"),
                ));
                None
            }
        };
        let mut optional = |key: &str| -> Vec<String> {
            match m.get(key) {
                None | Some(Value::Null) => Vec::new(),
                Some(v) => match strings(v) {
                    Ok(l) => l,
                    Err(why) => {
                        errs.push((
                            fl(key),
                            format!("intent {id_label}: {key} must be a list of strings; {why}"),
                        ));
                        Vec::new()
                    }
                },
            }
        };
        let constraints = optional("constraints");
        let acceptance_criteria = optional("acceptance_criteria");

        for (l, w) in warns {
            problem(&mut out, l, Severity::Warning, w);
        }
        if !errs.is_empty() {
            for (l, e) in errs {
                let e = if e.contains("skipped") {
                    e
                } else {
                    format!("{e}; entry skipped")
                };
                problem(&mut out, l, Severity::Error, e);
            }
            continue;
        }
        if let (Some(id), Some(name), Some(status), Some(owned_scope)) = (id, name, status, scope) {
            out.intents.push(Intent {
                id,
                name,
                status,
                owned_scope,
                constraints,
                acceptance_criteria,
                line,
            });
        }
    }
    if out.problems.len() > MAX_PROBLEMS {
        let rest = out.problems.split_off(MAX_PROBLEMS - 1);
        let severity = if rest.iter().any(|p| p.severity == Severity::Error) {
            Severity::Error
        } else {
            Severity::Warning
        };
        problem(
            &mut out,
            rest[0].line,
            severity,
            format!("{} more problems from this line on", rest.len()),
        );
    }
    out
}

/// A list of strings (a lone string is one item; numbers and booleans read as their text).
fn strings(v: &Value) -> Result<Vec<String>, String> {
    let one = |x: &Value| -> Result<String, String> {
        match x {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            Value::Mapping(m) => {
                let k = m
                    .iter()
                    .next()
                    .and_then(|(k, _)| k.as_str().map(str::to_string))
                    .unwrap_or_default();
                Err(format!(
                    "an item reads as a mapping (text with ': ' such as '{k}: …'); put it in quotes"
                ))
            }
            Value::Null => Err("an item is empty".into()),
            _ => Err("an item is not a string".into()),
        }
    };
    match v {
        Value::Sequence(s) => s.iter().map(one).collect(),
        Value::String(_) => Ok(vec![one(v)?]),
        Value::Null => Ok(Vec::new()),
        other => Err(one(other).err().unwrap_or_else(|| "not a list".into())),
    }
}

#[cfg(test)]
#[path = "intents_tests.rs"]
mod hostile_tests;

#[cfg(test)]
#[path = "intents_unit_tests.rs"]
mod tests;

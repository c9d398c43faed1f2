//! What a tool call does, canonically: the part of a cooldown key that says *which* action a
//! block was acknowledged for, so that a retry of the same action passes and any other action
//! is judged on its own. Pure; linear in the arguments.
//!
//! * Shell tools: the command line as the shell will read it — words, operators
//!   (`&&`, `;`, `|`, newlines, redirections with their fd numbers), comments, here-document
//!   bodies and substitutions — with each character's quoting. Two command lines have the same
//!   form only when they differ in nothing but the amount of blank space between tokens (never
//!   inside quotes, here-documents or `${…}`) and in the choice between single and double
//!   quotes around text that neither expands (`'a b'` ≡ `"a b"`). Unquoting or quoting a word
//!   (`"origin"`, `\ `), a `$`, a glob or an `=` changes what the shell does, and so the form.
//!   The other arguments (a working directory, an environment, a timeout) are part of it;
//!   `description` is not.
//! * File tools (the host profile's write, edit and patch roles): the files they touch — the profile's path keys joined
//!   to the project root (`./a` ≡ `a` ≡ `<root>/a`; `x/../a` is another path: `x` may be a
//!   link), a patch's file header lines — and the arguments that are not the text being
//!   written. Other text in the same file is the same action: the retry of a write is rarely
//!   byte for byte the first.
//! * Any other tool: every argument but `description`, objects with sorted keys.
//!
//! The form is hashed into the key ([`super::decide::cooldown_key`]); it is never shown.

use serde_json::Value;

use crate::host::{Profile, Role};

/// Working directories, resolved against the project (any tool): where a command runs is part
/// of what it does, however the path is spelled.
pub(crate) const WORKDIR_KEYS: &[&str] = &[
    "workdir",
    "cwd",
    "directory",
    "dir",
    "working_directory",
    "workingDirectory",
];

/// Which keys of a call the canonical form reads specially: all from the tool's entry in the
/// host's profile (its path, patch and written-text keys), never guessed across hosts.
struct Canon<'a> {
    /// The file the tool touches: resolved against the project.
    paths: &'a [&'static str],
    /// A file tool's patch text: reduced to its header lines.
    patch: &'a [&'static str],
    /// A file tool's written or replaced text (at any depth: `edits[].oldText` too): left out.
    written: Vec<&'static str>,
}

impl Canon<'_> {
    fn path(&self, k: &str) -> bool {
        self.paths.contains(&k) || WORKDIR_KEYS.contains(&k)
    }
}

/// The canonical form of a call's action (see the module doc). `cwd`: the project root.
/// The host's profile says which tools are shell tools (and their command key) and which
/// write files.
pub fn target(host: &Profile, tool: &str, args: &Value, cwd: &str) -> String {
    let mut out = String::new();
    let shell = host
        .shell_key(tool)
        .and_then(|f| args.get(f).and_then(Value::as_str).map(|line| (f, line)));
    let entry = host.entry(tool);
    let keys = &entry.keys;
    let file_tool = matches!(entry.role, Role::Write | Role::Edit | Role::Patch);
    let canon = Canon {
        paths: keys.path,
        patch: if file_tool { keys.patch } else { &[] },
        written: if file_tool {
            [
                keys.content,
                keys.old,
                keys.new,
                keys.item_old,
                keys.item_new,
            ]
            .concat()
        } else {
            Vec::new()
        },
    };
    if let Some((field, line)) = shell {
        out.push_str("sh:");
        out.push_str(&command(line));
        out.push('\n');
        canonical_json(args, cwd, &[field, "description"], &canon, &mut out);
    } else {
        out.push_str(if file_tool { "file:" } else { "args:" });
        canonical_json(args, cwd, &["description"], &canon, &mut out);
    }
    out
}

/// Serialize `v` with sorted keys, without recursion (any depth the host can send). Top-level
/// keys in `skip` are left out; path keys are resolved; a file tool's written text is left out
/// and its patch text reduced to its header lines ([`Canon`]).
fn canonical_json(v: &Value, cwd: &str, skip: &[&str], canon: &Canon, out: &mut String) {
    enum Step<'a> {
        Value(Option<&'a str>, &'a Value),
        Text(&'static str),
    }
    let mut stack: Vec<Step> = vec![Step::Value(None, v)];
    let mut top = true;
    while let Some(step) = stack.pop() {
        let (key, v) = match step {
            Step::Text(t) => {
                out.push_str(t);
                continue;
            }
            Step::Value(k, v) => (k, v),
        };
        if let Some(k) = key {
            json_string(k, out);
            out.push(':');
        }
        match v {
            Value::Object(m) => {
                out.push('{');
                stack.push(Step::Text("}"));
                let mut keys: Vec<&String> = m.keys().collect();
                crate::sort::sort(&mut keys);
                for k in keys.into_iter().rev() {
                    // pushed in reverse: popped in order
                    let k = k.as_str();
                    if (top && skip.contains(&k)) || canon.written.contains(&k) {
                        continue;
                    }
                    stack.push(Step::Text(","));
                    stack.push(Step::Value(Some(k), &m[k]));
                }
            }
            Value::Array(a) => {
                out.push('[');
                stack.push(Step::Text("]"));
                for x in a.iter().rev() {
                    stack.push(Step::Text(","));
                    stack.push(Step::Value(None, x));
                }
            }
            Value::String(s) => match key {
                Some(k) if canon.patch.contains(&k) => json_string(&patch_headers(s), out),
                Some(k) if canon.path(k) => json_string(&resolve(cwd, s), out),
                _ => json_string(s, out),
            },
            scalar => out.push_str(&scalar.to_string()),
        }
        top = false;
    }
}

fn json_string(s: &str, out: &mut String) {
    out.push_str(&Value::String(s.to_string()).to_string());
}

/// `p` against `cwd`, without `.` components and repeated slashes. `..` stays: lexically
/// `link/../a` is `a`, but on the disk it is beside wherever `link` points.
pub fn resolve(cwd: &str, p: &str) -> String {
    let joined = super::join(cwd, p);
    let mut out = String::with_capacity(joined.len());
    if joined.starts_with('/') {
        out.push('/');
    }
    for c in joined.split('/').filter(|c| !c.is_empty() && *c != ".") {
        if !out.is_empty() && !out.ends_with('/') {
            out.push('/');
        }
        out.push_str(c);
    }
    out
}

/// The lines of a patch that name files (`*** Add File: …`, `*** Move to: …`, `--- a/…`,
/// `+++ b/…`, `diff --git …`, `rename …`): what it touches, not what it writes. A superset
/// (a hunk line that happens to start like one counts too).
fn patch_headers(patch: &str) -> String {
    let mut out = String::new();
    for line in patch.lines() {
        let l = line.trim();
        if ["***", "---", "+++", "diff ", "rename ", "copy ", "Index:"]
            .iter()
            .any(|h| l.starts_with(h))
        {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// Nesting of substitutions past which the rest of a command line is kept verbatim.
const MAX_DEPTH: u32 = 32;

/// The canonical form of a shell command line (see the module doc). Never fails; linear.
pub fn command(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut lx = Lexer {
        c: &chars,
        i: 0,
        out: String::with_capacity(line.len() * 2 + 8),
    };
    lx.stream(0, false);
    lx.out
}

struct Lexer<'a> {
    c: &'a [char],
    i: usize,
    out: String,
}

/// Operators, longest first.
const OPERATORS: &[&str] = &[
    ";;&", "&>>", "<<-", "<<<", "&&", "||", ";;", ";&", "|&", ">>", ">|", ">&", "<&", "<>", "<<",
    "&>", ";", "&", "|", "<", ">", "(", ")",
];
/// Operators that end a command: the blank space around them never matters.
const CONTROL: &[&str] = &[";;&", "&&", "||", ";;", ";&", "|&", ";", "&", "|"];

/// The encoding (decodable, so two different token streams never meet):
/// a stream is tokens then `Z`; a token is an optional `_` (blank space before it, recorded
/// where it can matter) then `W` items `w` (a word), `O` operator `.`, `C` n `:` text (a
/// comment) or `H` n `:` text (a here-document body); an item is `u`/`q`/`d` and one
/// character (unquoted / quoted literal / `$` inside double quotes), `e` (an empty quote),
/// `S` context opener stream (a substitution), `B` context n `:` text (backquotes) or `R` n
/// `:` text (the verbatim rest of the line); `!` after a quote, backquotes, a
/// here-document or before a stream's `Z` marks one the input ended in.
impl Lexer<'_> {
    fn peek(&self, k: usize) -> Option<char> {
        self.c.get(self.i + k).copied()
    }

    fn counted(&mut self, tag: &str, text: &[char]) {
        self.out.push_str(tag);
        self.out.push_str(&text.len().to_string());
        self.out.push(':');
        self.out.extend(text.iter());
    }

    /// The rest of the input, verbatim, as an item of the current word.
    fn rest_verbatim(&mut self) {
        let c = self.c;
        self.counted("R", &c[self.i.min(c.len())..]);
        self.i = self.c.len();
    }

    /// Shell code up to the end of the input or, when `nested`, the `)` that closes it.
    fn stream(&mut self, depth: u32, nested: bool) {
        let mut space = false;
        let mut after_control = true;
        let mut parens = 0u32;
        let mut heredocs: Vec<(String, bool)> = Vec::new();
        let mut delimiter: Option<bool> = None; // the next word ends a `<<` (strip tabs?)
        while let Some(ch) = self.peek(0) {
            match ch {
                ' ' | '\t' => {
                    space = true;
                    self.i += 1;
                }
                '\\' if self.peek(1) == Some('\n') => self.i += 2, // a line continuation
                '\n' => {
                    self.out.push_str("O\n.");
                    self.i += 1;
                    space = false;
                    after_control = true;
                    delimiter = None;
                    self.heredoc_bodies(&mut heredocs);
                }
                '#' => {
                    let start = self.i;
                    while self.peek(0).is_some_and(|n| n != '\n') {
                        self.i += 1;
                    }
                    let c = self.c;
                    self.counted("C", &c[start..self.i]);
                    space = false;
                }
                ')' if nested && parens == 0 => {
                    self.i += 1;
                    self.out.push('Z');
                    return;
                }
                ';' | '&' | '|' | '<' | '>' | '(' | ')'
                    if !(matches!(ch, '<' | '>') && self.peek(1) == Some('(')) =>
                {
                    let op = OPERATORS
                        .iter()
                        .find(|op| op.chars().enumerate().all(|(k, o)| self.peek(k) == Some(o)))
                        .copied()
                        .unwrap_or(";");
                    self.i += op.chars().count();
                    let control = CONTROL.contains(&op);
                    if space && !after_control && !control {
                        self.out.push('_');
                    }
                    self.out.push('O');
                    self.out.push_str(op);
                    self.out.push('.');
                    delimiter = match op {
                        "<<" => Some(false),
                        "<<-" => Some(true),
                        _ => None,
                    };
                    match op {
                        "(" => parens += 1,
                        ")" => parens = parens.saturating_sub(1),
                        _ => {}
                    }
                    space = false;
                    after_control = control;
                }
                _ => {
                    if space && !after_control {
                        self.out.push('_');
                    }
                    let text = self.word(depth);
                    if let Some(strip) = delimiter.take() {
                        heredocs.push((text, strip));
                    }
                    space = false;
                    after_control = false;
                }
            }
        }
        if nested {
            self.out.push('!'); // the input ended before its `)`
        }
        self.out.push('Z');
    }

    /// One word: its items, and its text after quote removal (a here-document delimiter).
    fn word(&mut self, depth: u32) -> String {
        let mut text = String::new();
        self.out.push('W');
        while let Some(ch) = self.peek(0) {
            match ch {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' => break,
                '<' | '>' if self.peek(1) != Some('(') => break,
                '<' | '>' => self.substitution('u', ch, 2, depth),
                '\\' => {
                    match self.peek(1) {
                        Some('\n') => {}
                        Some(n) => {
                            self.item('q', n);
                            text.push(n);
                        }
                        None => {
                            self.item('u', '\\');
                            text.push('\\');
                        }
                    }
                    self.i += 2;
                }
                '\'' => {
                    self.i += 1;
                    let (mut any, mut closed) = (false, false);
                    while let Some(n) = self.peek(0) {
                        self.i += 1;
                        if n == '\'' {
                            closed = true;
                            break;
                        }
                        self.item('q', n);
                        text.push(n);
                        any = true;
                    }
                    if !any {
                        self.out.push('e');
                    }
                    if !closed {
                        self.out.push('!');
                    }
                }
                '"' => {
                    self.i += 1;
                    let (mut any, mut closed) = (false, false);
                    while let Some(n) = self.peek(0) {
                        match n {
                            '"' => {
                                self.i += 1;
                                closed = true;
                                break;
                            }
                            '\\' => match self.peek(1) {
                                Some('\n') => self.i += 2,
                                Some(e @ ('"' | '\\' | '$' | '`')) => {
                                    self.item('q', e);
                                    text.push(e);
                                    self.i += 2;
                                }
                                _ => {
                                    self.item('q', '\\');
                                    text.push('\\');
                                    self.i += 1;
                                }
                            },
                            '$' if self.peek(1) == Some('(') => {
                                self.substitution('d', '$', 2, depth)
                            }
                            '$' if self.peek(1) == Some('{') => self.rest_verbatim(),
                            '`' => self.backquotes('d'),
                            '$' => {
                                self.item('d', '$');
                                text.push('$');
                                self.i += 1;
                            }
                            _ => {
                                self.item('q', n);
                                text.push(n);
                                self.i += 1;
                            }
                        }
                        any = true;
                    }
                    if !any {
                        self.out.push('e');
                    }
                    if !closed {
                        self.out.push('!');
                    }
                }
                '$' if self.peek(1) == Some('(') => self.substitution('u', '$', 2, depth),
                '$' if self.peek(1) == Some('{') => self.rest_verbatim(),
                '`' => self.backquotes('u'),
                _ => {
                    self.item('u', ch);
                    text.push(ch);
                    self.i += 1;
                }
            }
        }
        self.out.push('w');
        text
    }

    fn item(&mut self, class: char, ch: char) {
        self.out.push(class);
        self.out.push(ch);
    }

    /// `$(…)`, `<(…)`, `>(…)` (and `$((…))`): shell code of its own, up to its `)`.
    fn substitution(&mut self, context: char, opener: char, skip: usize, depth: u32) {
        if depth >= MAX_DEPTH {
            self.rest_verbatim();
            return;
        }
        self.out.push('S');
        self.out.push(context);
        self.out.push(opener);
        self.i += skip;
        self.stream(depth + 1, true);
    }

    /// `` `…` ``: kept verbatim up to the next unescaped backquote.
    fn backquotes(&mut self, context: char) {
        self.i += 1;
        let start = self.i;
        while let Some(n) = self.peek(0) {
            if n == '`' {
                break;
            }
            self.i += if n == '\\' { 2 } else { 1 };
        }
        let end = self.i.min(self.c.len());
        let tag = if context == 'd' { "Bd" } else { "Bu" };
        let c = self.c;
        self.counted(tag, &c[start..end]);
        if end >= c.len() {
            self.out.push('!'); // unterminated
        }
        self.i = (end + 1).min(self.c.len());
    }

    /// After a newline: the bodies of the here-documents opened on the line, verbatim.
    fn heredoc_bodies(&mut self, docs: &mut Vec<(String, bool)>) {
        for (delim, strip) in docs.drain(..) {
            let start = self.i;
            let mut end = self.i;
            let mut found = false;
            while self.i < self.c.len() {
                if super::shell::heredoc_line(self.c, &mut self.i, &delim, strip).1 {
                    found = true;
                    break;
                }
                end = self.i;
            }
            let c = self.c;
            self.counted("H", &c[start..end]);
            if !found {
                self.out.push('!');
            }
        }
    }
}

#[cfg(test)]
#[path = "action_tests.rs"]
mod tests;

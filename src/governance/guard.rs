//! The shell cannot edit governance. Two layers, for the shell tools of the host's profile:
//!
//! 1. **Before**: a command that names `.orchestration/` or its files in any spelling the
//!    shell reader can see is blocked: the words after quote removal (`".orch"estration`),
//!    every nested command (`sh -c`, `$(…)`, `git -c core.pager=…`), `$PWD/…` and `..` paths,
//!    globs and braces that reach it (`.orch*`, `.[o]rch*`, `.{orch,x}estration`, `.*`),
//!    variables assembled from pieces earlier in the line (`a=.orch; b=estration; rm -rf $a$b`),
//!    a dynamic piece next to a literal one (`.$(echo orch)estration`), and the raw text
//!    (an interpreter's code, a here-document). Reading them through the shell is blocked too:
//!    the read tool reads them, and a shell reader's "only reads" is a weaker promise than the
//!    file tools' gate.
//! 2. **After**: what the reader cannot see (`$(printf '\x2e…')`, a script written earlier)
//!    is caught by its effect. Before a shell call under governance the core keeps what it
//!    knows of the folder (the intents file's content hash, or that it is missing or
//!    unreadable; the trace's size); after the call it reads them again. An intents file
//!    changed, removed or created, or a trace that shrank or vanished, **locks governance**:
//!    every gated call in the project is blocked, in this process and (through
//!    `.orchestration/governance.lock`, which file tools cannot write and the shell cannot reach
//!    while locked) in any other, until a person runs `hookwise init --governance`, which
//!    resets the lock.

use super::*;
use crate::enforce::shell::{self, Segment};
use crate::governance::glob::Glob;

/// The lock file, relative to the worktree.
pub const LOCK_FILE: &str = ".orchestration/governance.lock";
/// What the folder holds, as names the reader looks for.
const NAMES: &[&str] = &[".orchestration", "active_intents.yaml", "agent_trace.jsonl"];

/// What the core knew of the governance folder before a shell call.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Snapshot {
    /// The intents file's content hash, `missing`, or `error:…`.
    intents: String,
    /// Each trace file's size (the single-file log and every segment's log), by path.
    trace: Vec<(String, u64)>,
}

/// The size of every trace log that exists: the single-file log and each segment's.
async fn trace_sizes(io: &Io, worktree: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let st = stat(io, &join(worktree, TRACE_FILE)).await;
    if st.exists {
        out.push((TRACE_FILE.to_string(), st.size));
    }
    for e in crate::governance::ops::trace_io::segment_logs(io, worktree).await {
        out.push((format!("{}/{}", segments::SEGMENT_DIR, e.path), e.size));
    }
    out
}

/// The spelling through which a shell command of `tool` names the governance folder, if it does.
pub fn shell_names_governance(host: &Profile, tool: &str, args: &Value) -> Option<String> {
    if host.entry(tool).role != Role::Shell {
        return None;
    }
    crate::host::args::command_lines(host, tool, args)?
        .iter()
        .find_map(|line| names_governance(line))
}

/// The spelling through which the command line `line` names `.orchestration/` or its files.
pub fn names_governance(line: &str) -> Option<String> {
    let lower = line.to_lowercase();
    if let Some(n) = ["orchestration", "active_intents", "agent_trace"]
        .iter()
        .find(|n| lower.contains(*n))
    {
        return Some(format!("`{n}`"));
    }
    let segs = shell::split(line);
    let mut vars: Vec<(String, String)> = Vec::new();
    for seg in &segs {
        for w in seg.words.iter().filter(|w| shell::is_assignment(w)) {
            if let Some((n, v)) = w.split_once('=') {
                let v = expand(v, &vars);
                vars.push((n.to_string(), v));
            }
        }
    }
    segs.iter().find_map(|seg| segment_names(seg, &vars))
}

fn segment_names(seg: &Segment, vars: &[(String, String)]) -> Option<String> {
    for w in seg.words.iter().chain(&seg.writes) {
        let value = w
            .split_once('=')
            .filter(|_| shell::is_assignment(w))
            .map_or(w.as_str(), |(_, v)| v);
        let e = expand(value, vars);
        for part in e.split(['/', '=', ':', ' ', '\t', '\n', '@']) {
            if component_names(part) {
                return Some(format!("`{w}`"));
            }
        }
    }
    None
}

/// Does one path component, as the shell would expand it, reach a governance name?
fn component_names(part: &str) -> bool {
    if part.is_empty() || part.len() > 256 {
        return false;
    }
    let lower = part.to_lowercase();
    if NAMES.contains(&lower.as_str()) {
        return true;
    }
    if !part.contains(['*', '?', '[', '{']) {
        return false;
    }
    // A glob reaches a dot folder only through a leading literal dot (or a class, a brace).
    let folder = part.starts_with(['.', '[', '{']);
    // The files only through a literal start of their names (`active*`, not `*.yaml`).
    let file = NAMES[1..].iter().any(|n| {
        let lit: String = lower.chars().take_while(|c| !"*?[{".contains(*c)).collect();
        lit.len() >= 4 && n.starts_with(&lit)
    });
    if !folder && !file {
        return false;
    }
    Glob::new(part, true).is_ok_and(|g| NAMES.iter().any(|n| g.is_match(n)))
}

/// `$NAME`, `${NAME}` replaced by what the line assigned them; any other `$…`, `$(…)` or
/// backticks by `*` (unknown, so it may be anything).
fn expand(w: &str, vars: &[(String, String)]) -> String {
    let c: Vec<char> = w.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '$' if c.get(i + 1) == Some(&'(') => {
                let mut depth = 0;
                while i < c.len() {
                    depth += (c[i] == '(') as i32 - (c[i] == ')') as i32;
                    i += 1;
                    if depth == 0 && c[i - 1] == ')' {
                        break;
                    }
                }
                out.push('*');
            }
            '`' => {
                i += 1;
                while i < c.len() && c[i] != '`' {
                    i += 1;
                }
                i += 1;
                out.push('*');
            }
            '$' => {
                let braced = c.get(i + 1) == Some(&'{');
                let s = i + 1 + braced as usize;
                let mut e = s;
                while e < c.len() && (c[e].is_ascii_alphanumeric() || c[e] == '_') {
                    e += 1;
                }
                let name: String = c[s..e].iter().collect();
                if braced {
                    while e < c.len() && c[e] != '}' {
                        e += 1;
                    }
                    e += 1;
                }
                match vars.iter().rev().find(|(n, _)| *n == name) {
                    Some((_, v)) => out.push_str(v),
                    None if name == "PWD" || name == "HOME" => out.push('.'),
                    None => out.push('*'),
                }
                i = e.max(i + 1);
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

/// The block for a shell command that names the folder.
pub fn names_block(tool: &str, spelling: &str) -> String {
    format!(
        "hookwise blocked `{tool}`: the command names {spelling}, which reaches `{DIR}/` (the intents and the Agent Trace). Under intent governance shell commands may not touch that folder, not even to read it: read its files with the read tool; a person edits them."
    )
}

fn lock_block(tool: &str, reason: &str) -> String {
    format!(
        "hookwise blocked `{tool}`: intent governance is locked because {reason}. Every change is blocked until a person re-initialises governance: they check `{DIR}/` and run `hookwise init --governance` in the project. Tell the user; do not try to work around it."
    )
}

/// `Some(block)`: governance is locked in `worktree` (in this process, or by the lock file).
pub(super) async fn locked(
    io: &Io,
    gov: &Governance,
    worktree: &str,
    tool: &str,
) -> Option<String> {
    if gov.config().enabled == Enabled::Off || worktree.is_empty() {
        return None;
    }
    let path = join(worktree, LOCK_FILE);
    let st = stat(io, &path).await;
    let file = if st.exists {
        read_text(io, &path, 64 * 1024).await.text
    } else {
        None
    };
    let mut g = gov.inner.borrow_mut();
    match file.as_deref() {
        Some(t) if t.starts_with("reset") => {
            g.locks.remove(worktree);
        }
        Some(t) => {
            let reason = t
                .strip_prefix("locked: ")
                .unwrap_or(t)
                .lines()
                .next()
                .unwrap_or("");
            g.locks.insert(worktree.to_string(), reason.to_string());
        }
        None if st.exists => {
            // there but unreadable: locked, as fail-closed as anything else
            g.locks
                .entry(worktree.to_string())
                .or_insert_with(|| format!("{LOCK_FILE} cannot be read"));
        }
        None => {}
    }
    g.locks.get(worktree).map(|r| lock_block(tool, r))
}

/// What the core knows of the folder now (before a shell call).
pub(super) async fn snapshot(io: &Io, gov: &Governance, worktree: &str) -> Snapshot {
    let intents = {
        let g = gov.inner.borrow();
        g.projects.get(worktree).and_then(|p| p.yaml_key.clone())
    };
    let intents = match intents {
        Some(k) => k,
        None => intents_key(io, worktree).await,
    };
    Snapshot {
        intents,
        trace: trace_sizes(io, worktree).await,
    }
}

async fn intents_key(io: &Io, worktree: &str) -> String {
    let r = read_text(io, &join(worktree, INTENTS_FILE), MAX_INTENTS_BYTES).await;
    match (r.text, r.error) {
        (Some(t), _) => sha256_hex(t.as_bytes()),
        (None, e) if is_missing(e) => "missing".into(),
        (None, e) => format!(
            "error:{}",
            e.map_or_else(|| "no reply".into(), |e| e.describe(r.detail.as_deref()))
        ),
    }
}

/// After a shell call: compare with `before`; a change locks governance. `Some(notice)`: the
/// text appended to the tool's output.
pub(super) async fn after_shell(
    io: &Io,
    gov: &Governance,
    worktree: &str,
    before: &Snapshot,
    logs: &mut Vec<Log>,
) -> Option<String> {
    let now = intents_key(io, worktree).await;
    let sizes = trace_sizes(io, worktree).await;
    let reason = if now != before.intents {
        Some(match (before.intents.as_str(), now.as_str()) {
            ("missing", _) => format!("a shell command created {INTENTS_FILE}"),
            (_, "missing") => format!("a shell command removed {INTENTS_FILE}"),
            _ => format!("a shell command changed {INTENTS_FILE}"),
        })
    } else {
        before
            .trace
            .iter()
            .find_map(|(f, n)| match sizes.iter().find(|(g, _)| g == f) {
                None => Some(format!("a shell command removed {f}")),
                Some((_, m)) if m < n => Some(format!("a shell command cut {f}")),
                _ => None,
            })
    }?;
    lock(io, gov, worktree, &reason, logs).await;
    Some(format!(
        "hookwise: {reason}. Intent governance is now locked: every change is blocked until a person checks `{DIR}/` and runs `hookwise init --governance`. Tell the user."
    ))
}

async fn lock(io: &Io, gov: &Governance, worktree: &str, reason: &str, logs: &mut Vec<Log>) {
    gov.inner
        .borrow_mut()
        .locks
        .insert(worktree.to_string(), reason.to_string());
    logs.push(Log::warn(format!(
        "governance locked in {worktree}: {reason}"
    )));
    let reply = io
        .request(Request::WriteFile {
            path: join(worktree, LOCK_FILE),
            text: format!("locked: {reason}\nReset: a person runs `hookwise init --governance`.\n"),
        })
        .await;
    if !reply.get("ok").and_then(Value::as_bool).unwrap_or(false) {
        logs.push(Log::warn(format!(
            "could not write {LOCK_FILE}: {} (the lock holds in this process only)",
            crate::protocol::ReplyError::describe_reply(&reply, "no reply")
        )));
    }
}

/// `hookwise init --governance`: reset a lock. `Some(reason)` it held.
pub async fn reset(io: &Io, worktree: &str) -> Option<String> {
    let path = join(worktree, LOCK_FILE);
    let text = read_text(io, &path, 64 * 1024).await.text?;
    if text.starts_with("reset") {
        return None;
    }
    let reason = text
        .strip_prefix("locked: ")
        .unwrap_or(&text)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    io.request(Request::WriteFile {
        path,
        text: format!("reset by `hookwise init --governance`; it said: {reason}\n"),
    })
    .await;
    Some(reason)
}

//! The Agent Trace's writes and checks (part of [`super`]): a record appended together with
//! the head ([`crate::governance::head`]) under the log's lock; a record that could not be
//! written kept and retried, with changes blocked meanwhile (governance fails closed: no
//! change without its record); `trace verify` (the chain, the head, an anchor) and `trace head`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::governance::chain::{self, ChainProblem, Report};
use crate::governance::head::{self, Head, HEAD_FILE};
use crate::governance::ranges::sha256_hex;
use crate::governance::trace::Chained;
use crate::protocol::{Log, ReadResult, ReplyError, Request};
use crate::runtime::Io;

use super::{is_missing, join, read_text, stat, Governance, MAX_TRACE_BYTES, TRACE_FILE};

/// A lock whose file was not modified for this long is left by a crashed process: broken.
pub const LOCK_STALE_MS: u64 = 10_000;
/// A lock that names no owner and is seen unchanged (same file, same content) for this long
/// while waiting is broken, however fresh its modification time (a process that only touches
/// it): hookwise writes its pid into the lock at once and holds it for milliseconds.
pub const LOCK_BREAK_MS: u64 = 1_000;
/// Waiting for the lock longer than this fails the append ("lock timeout").
pub const LOCK_WAIT_MS: u64 = 5_000;
/// Records kept in memory while the trace cannot be written (changes are blocked meanwhile, so
/// only calls already running add to them).
const MAX_UNWRITTEN: usize = 64;
const MAX_HEAD_BYTES: u64 = 4096;
/// `trace verify` reads again this many times when the log and its head disagree (an append
/// may have run between the two reads).
const VERIFY_ATTEMPTS: usize = 3;

/// Problem kinds of the log itself (not of its head): `trace head --init` refuses to write a
/// head for a log that has one.
const CHAIN_KINDS: &[&str] = &[
    "not-a-record",
    "broken-link",
    "reordered",
    "fork",
    "torn",
    "truncated",
    "bom",
];

/// Problem kinds an append running while `trace verify` reads can cause.
const RACY_KINDS: &[&str] = &["stale-head", "cut", "torn", "bytes"];

/// A record ready to append.
#[derive(Debug, Clone)]
pub(super) struct Unwritten {
    pub chained: Chained,
    pub id: String,
    pub tool: String,
    /// The repair record's parts ([`crate::governance::trace::repair_parts`]) and where the
    /// torn bytes go, should the log end in a torn line.
    pub repair: Vec<String>,
    pub torn_path: String,
}

fn lock_path(wt: &str) -> String {
    format!("{}.lock", join(wt, TRACE_FILE))
}

/// Append one record and the head; `Err`: the host's error.
async fn append_one(
    io: &Io,
    gov: &Governance,
    wt: &str,
    u: &Unwritten,
    logs: &mut Vec<Log>,
) -> Result<(), String> {
    let path = join(wt, TRACE_FILE);
    let reply = io
        .request(Request::AppendChained {
            lock_path: lock_path(wt),
            path,
            before: u.chained.before.clone(),
            after: u.chained.after.clone(),
            stale_ms: LOCK_STALE_MS,
            wait_ms: LOCK_WAIT_MS,
            break_ms: LOCK_BREAK_MS,
            head_path: join(wt, HEAD_FILE),
            head_parts: head::PARTS.iter().map(|s| s.to_string()).collect(),
            torn_parts: u.repair.clone(),
            torn_path: u.torn_path.clone(),
        })
        .await;
    if let Some(t) = reply.get("torn").filter(|t| t.is_object()) {
        logs.push(Log::warn(format!(
            "trace: the log ended in a torn line (an interrupted write) of {} bytes: moved to {} and the move recorded in the chain",
            t.get("bytes").and_then(Value::as_u64).unwrap_or(0),
            t.get("path").and_then(Value::as_str).unwrap_or("?")
        )));
    }
    let ok = reply.get("ok").and_then(Value::as_bool).unwrap_or(false);
    let prev = reply
        .get("prevHash")
        .and_then(Value::as_str)
        .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()));
    let (true, Some(prev)) = (ok, prev) else {
        return Err(ReplyError::describe_reply(
            &reply,
            "the host gave no prevHash",
        ));
    };
    let line = u.chained.line(prev);
    let status = reply
        .get("head")
        .and_then(Value::as_str)
        .unwrap_or("this host does not keep a head")
        .to_string();
    let mut st = gov.inner.borrow_mut();
    let p = st.projects.entry(wt.to_string()).or_default();
    p.last_appended = Some(sha256_hex(line.as_bytes()));
    if status == "written" {
        p.head_warned = None;
    } else if p.head_warned.as_deref() != Some(status.as_str()) {
        logs.push(Log::warn(head_status_text(&status)));
        p.head_warned = Some(status);
    }
    Ok(())
}

fn head_status_text(status: &str) -> String {
    match status {
        "missing" => format!(
            "trace: the log has no head ({HEAD_FILE}): it was written before hookwise kept one, or the head was deleted. Records are still appended; the head is not created until someone checks the log: run `hookwise trace verify`, then `hookwise trace head --init`"
        ),
        "mismatch" => format!(
            "trace: the head ({HEAD_FILE}) does not match the log (the log or the head was changed outside hookwise): the head is left as it is so that `hookwise trace verify` shows what changed; records are still appended"
        ),
        other => format!("trace: the head ({HEAD_FILE}) was not updated: {other}"),
    }
}

/// Clears the project's `flushing` flag however the flush ends (also when its operation is
/// dropped).
struct Flushing<'a> {
    gov: &'a Governance,
    wt: &'a str,
}

impl Drop for Flushing<'_> {
    fn drop(&mut self) {
        if let Some(p) = self.gov.inner.borrow_mut().projects.get_mut(self.wt) {
            p.flushing = false;
        }
    }
}

/// Write the records that wait, oldest first. `Err`: the first that could not be written
/// (it and the later ones keep waiting).
async fn flush(io: &Io, gov: &Governance, wt: &str, logs: &mut Vec<Log>) -> Result<(), String> {
    gov.inner
        .borrow_mut()
        .projects
        .entry(wt.to_string())
        .or_default()
        .flushing = true;
    let _guard = Flushing { gov, wt };
    loop {
        let next = gov
            .inner
            .borrow()
            .projects
            .get(wt)
            .and_then(|p| p.unwritten.front().cloned());
        let Some(u) = next else {
            if let Some(p) = gov.inner.borrow_mut().projects.get_mut(wt) {
                p.trace_error = None;
            }
            return Ok(());
        };
        match append_one(io, gov, wt, &u, logs).await {
            Ok(()) => {
                let mut st = gov.inner.borrow_mut();
                if let Some(p) = st.projects.get_mut(wt) {
                    if p.unwritten.front().is_some_and(|f| f.id == u.id) {
                        p.unwritten.pop_front();
                    }
                }
                logs.push(Log::info(format!(
                    "trace: the record {} for {} was written late",
                    u.id, u.tool
                )));
            }
            Err(e) => {
                if let Some(p) = gov.inner.borrow_mut().projects.get_mut(wt) {
                    p.trace_error = Some(e.clone());
                }
                return Err(e);
            }
        }
    }
}

fn enqueue(gov: &Governance, wt: &str, u: Unwritten, err: &str, logs: &mut Vec<Log>) {
    let mut st = gov.inner.borrow_mut();
    let p = st.projects.entry(wt.to_string()).or_default();
    if p.trace_error.is_none() {
        p.trace_error = Some(err.to_string());
    }
    if p.unwritten.len() >= MAX_UNWRITTEN {
        logs.push(Log::warn(format!(
            "trace: the record {} for {} is lost: {MAX_UNWRITTEN} records already wait to be written ({err})",
            u.id, u.tool
        )));
        return;
    }
    logs.push(Log::warn(format!(
        "trace: could not append the record {} for {} ({err}); it is kept and written once the trace can be written, and changes in this project are blocked until then",
        u.id, u.tool
    )));
    p.unwritten.push_back(u);
}

/// Append a record after any that wait. `Ok(true)`: written now; `Ok(false)`: queued behind
/// records another operation is writing; `Err`: kept for later, changes now blocked.
pub(super) async fn append_record(
    io: &Io,
    gov: &Governance,
    wt: &str,
    u: Unwritten,
    logs: &mut Vec<Log>,
) -> Result<bool, String> {
    let (queued, flushing, err) = gov
        .inner
        .borrow()
        .projects
        .get(wt)
        .map(|p| (!p.unwritten.is_empty(), p.flushing, p.trace_error.clone()))
        .unwrap_or_default();
    if !queued && !flushing {
        return match append_one(io, gov, wt, &u, logs).await {
            Ok(()) => Ok(true),
            Err(e) => {
                enqueue(gov, wt, u, &e, logs);
                Err(e)
            }
        };
    }
    let id = u.id.clone();
    enqueue(
        gov,
        wt,
        u,
        err.as_deref().unwrap_or("earlier records wait"),
        logs,
    );
    if flushing {
        return Ok(false);
    }
    flush(io, gov, wt, logs).await?;
    // written when the queue no longer holds it
    let still = gov
        .inner
        .borrow()
        .projects
        .get(wt)
        .is_some_and(|p| p.unwritten.iter().any(|x| x.id == id));
    Ok(!still)
}

/// Before a gated call: while records wait, write them first; the call is blocked (the text)
/// when they still cannot be written.
pub(super) async fn gate_unwritten(
    io: &Io,
    gov: &Governance,
    wt: &str,
    tool: &str,
    logs: &mut Vec<Log>,
) -> Option<String> {
    let (n, flushing, err) = gov
        .inner
        .borrow()
        .projects
        .get(wt)
        .map(|p| (p.unwritten.len(), p.flushing, p.trace_error.clone()))
        .unwrap_or_default();
    if n == 0 {
        return None;
    }
    let err = if flushing {
        err.unwrap_or_else(|| "earlier records are being written".into())
    } else {
        match flush(io, gov, wt, logs).await {
            Ok(()) => return None,
            Err(e) => e,
        }
    };
    let n = gov
        .inner
        .borrow()
        .projects
        .get(wt)
        .map_or(n, |p| p.unwritten.len());
    let advice = if err.contains("lock timeout") {
        format!("Another process keeps the trace's lock file: ask the user to stop it and remove {TRACE_FILE}.lock.")
    } else {
        format!("Ask the user to make {TRACE_FILE} and {HEAD_FILE} writable.")
    };
    Some(format!(
        "hookwise blocked `{tool}`: the Agent Trace could not be written ({err}), so changes in this project are blocked until it can be ({n} record(s) wait to be written; every change must leave its record). {advice}"
    ))
}

// ---- trace verify ----

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VerifyInput {
    pub worktree: String,
    /// A head anchored earlier (the line `trace head` printed): the log must still hold it.
    pub anchor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyOutput {
    pub path: String,
    pub head_path: String,
    /// The log could not be read, or there is no project folder (`ok` is then false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The head of the log as it is now (what `trace head --init` would write).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_head: Option<Head>,
    /// The head file's head, when it holds one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_head: Option<Head>,
    #[serde(flatten)]
    pub report: Report,
}

/// One of the two files as verification read it.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    Absent,
    Unreadable(String),
    /// The text, and the file's size in bytes when the host told it (a byte order mark the
    /// host dropped from the text still counts in it).
    Text {
        text: String,
        size: Option<u64>,
    },
}

impl Seen {
    /// What a read gave, as verification sees it.
    pub fn from_read(r: ReadResult) -> Seen {
        match (r.text, r.error) {
            (Some(text), _) => Seen::Text { text, size: r.size },
            (None, e) if is_missing(e) => Seen::Absent,
            (None, Some(e)) => Seen::Unreadable(e.describe(r.detail.as_deref())),
            (None, None) => Seen::Unreadable("no reply".into()),
        }
    }
}

/// What [`assess`] finds.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessed {
    pub error: Option<String>,
    pub log_head: Option<Head>,
    pub stored_head: Option<Head>,
    pub report: Report,
}

fn problem(line: usize, kind: &'static str, message: String) -> ChainProblem {
    ChainProblem {
        line,
        kind,
        message,
    }
}

/// The log and its head as read: the chain, the head against the log, and the anchor.
/// `remembered`: the hash of the last line this process appended.
pub fn assess(
    log: &Seen,
    head_file: &Seen,
    anchor: Option<&Head>,
    remembered: Option<&str>,
) -> Assessed {
    let stored: Result<Option<Head>, String> = match head_file {
        Seen::Absent => Ok(None),
        Seen::Unreadable(e) => Err(format!("cannot read the head {HEAD_FILE}: {e}")),
        Seen::Text { text, size } if size.is_some_and(|s| s != text.len() as u64) => Err(format!(
            "the head {HEAD_FILE} holds bytes that are not part of a head (a byte order mark?)"
        )),
        Seen::Text { text, .. } => Head::parse(text).map(Some).ok_or_else(|| {
            format!("{HEAD_FILE} is not a head as hookwise writes it (it was edited)")
        }),
    };
    let mut error = None;
    let mut log_head = None;
    let mut report = match log {
        Seen::Unreadable(e) => {
            error = Some(e.clone());
            Report {
                ok: false,
                lines: 0,
                head: None,
                problems: Vec::new(),
            }
        }
        Seen::Absent => {
            let mut r = chain::verify_remembering("", remembered);
            if let Ok(Some(h)) = &stored {
                if h.records > 0 {
                    r.problems.push(problem(
                        0,
                        "missing-log",
                        format!(
                            "the log is missing but its head says {} record(s): the log was deleted or moved",
                            h.records
                        ),
                    ));
                }
            }
            if let Some(a) = anchor.filter(|a| a.records > 0) {
                r.problems.push(problem(
                    0,
                    "anchor",
                    format!(
                        "the anchored head ({} record(s)) is not in the log: the log is missing",
                        a.records
                    ),
                ));
            }
            r
        }
        Seen::Text { text, size } => {
            let l = chain::split(text);
            let mut r = chain::verify_lines(&l, remembered);
            let extra = size.map_or(0, |s| s.saturating_sub(text.len() as u64));
            if text.starts_with('\u{feff}') || extra == 3 {
                r.problems.push(problem(
                    1,
                    "bom",
                    "the log starts with a byte order mark (3 bytes that belong to no record): it was added after the log was written".into(),
                ));
            } else if extra > 0 {
                r.problems.push(problem(
                    1,
                    "bytes",
                    format!("{extra} bytes of the log were not read as its text"),
                ));
            }
            let raw = text.len() as u64 + extra;
            match &stored {
                Ok(Some(h)) => r.problems.extend(head::check(&l, raw, extra, h)),
                Ok(None) if text.is_empty() => r.problems.push(problem(
                    0,
                    "emptied",
                    "the log is empty and has no head: it was emptied (to start a new log, delete the file)".into(),
                )),
                Ok(None) => r.problems.push(problem(
                    0,
                    "no-head",
                    format!(
                        "no head ({HEAD_FILE}): the log was written before hookwise kept a head, or the head was deleted, so lines cut or edited at the end of the log cannot be detected; if the chain is whole and you trust the log, run `hookwise trace head --init`"
                    ),
                )),
                Err(_) => {}
            }
            if let Some(a) = anchor {
                r.problems.extend(head::check_anchor(&l, extra, a));
            }
            log_head = Some(Head::of_log(&l, raw));
            r
        }
    };
    let stored_head = match stored {
        Ok(h) => h,
        Err(e) => {
            report.problems.push(problem(0, "bad-head", e));
            None
        }
    };
    report.ok = error.is_none() && report.problems.is_empty();
    Assessed {
        error,
        log_head,
        stored_head,
        report,
    }
}

/// `hookwise trace verify`: check `.orchestration/agent_trace.jsonl` — its hash chain, its
/// head, and optionally a head anchored earlier.
pub async fn trace_verify(io: &Io, gov: &Governance, input: &VerifyInput) -> VerifyOutput {
    let wt = input.worktree.as_str();
    let path = join(wt, TRACE_FILE);
    let head_path = join(wt, HEAD_FILE);
    let fail = |path: String, head_path: String, e: String| VerifyOutput {
        path,
        head_path,
        error: Some(e),
        log_head: None,
        stored_head: None,
        report: Report {
            ok: false,
            lines: 0,
            head: None,
            problems: Vec::new(),
        },
    };
    if wt.is_empty() {
        return fail(path, head_path, "no project folder given".into());
    }
    let st = stat(io, wt).await;
    if !st.exists {
        return fail(path, head_path, format!("no project folder at {wt}"));
    }
    if !st.is_dir {
        return fail(path, head_path, format!("{wt} is not a folder"));
    }
    let anchor = match input.anchor.as_deref() {
        None => None,
        Some(a) => match Head::parse_anchor(a) {
            Some(h) => Some(h),
            None => {
                return fail(
                    path,
                    head_path,
                    format!(
                        "the anchor is not a head as `hookwise trace head` prints it ({}…)",
                        a.chars().take(40).collect::<String>()
                    ),
                )
            }
        },
    };
    let remembered = gov.last_appended(wt);
    let mut attempt = 0;
    let a = loop {
        attempt += 1;
        // The head, the log, the head again: an append between the reads changes the head.
        let h1 = Seen::from_read(read_text(io, &head_path, MAX_HEAD_BYTES).await);
        let log = Seen::from_read(read_text(io, &path, MAX_TRACE_BYTES).await);
        let h2 = Seen::from_read(read_text(io, &head_path, MAX_HEAD_BYTES).await);
        let a = assess(&log, &h2, anchor.as_ref(), remembered.as_deref());
        // An append may have run between the reads (the log is written before its head, a
        // line in one write): what it can make look wrong is read again after a pause.
        let racy = h1 != h2
            || a.report
                .problems
                .iter()
                .any(|p| RACY_KINDS.contains(&p.kind));
        if !racy || attempt >= VERIFY_ATTEMPTS {
            break a;
        }
        let _ = io.request(Request::Sleep { ms: 50 }).await;
    };
    VerifyOutput {
        path,
        head_path,
        error: a.error,
        log_head: a.log_head,
        stored_head: a.stored_head,
        report: a.report,
    }
}

// ---- trace head ----

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HeadInput {
    pub worktree: String,
    /// Write the head from the log as it is now.
    pub init: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadOutput {
    pub ok: bool,
    /// `init` wrote the head file.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub written: bool,
    /// The line to anchor (the head file's text without its newline).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub message: String,
    pub verify: VerifyOutput,
}

/// `hookwise trace head [--init]`: the head to anchor (the log verified against it), or, with
/// `init`, a head written for the log as it is now (a log from before heads, or one whose
/// problems the user has looked into). `init` refuses a log whose chain itself is broken.
pub async fn trace_head(io: &Io, gov: &Governance, input: &HeadInput) -> HeadOutput {
    let v = trace_verify(
        io,
        gov,
        &VerifyInput {
            worktree: input.worktree.clone(),
            anchor: None,
        },
    )
    .await;
    let out = |ok: bool, written: bool, text: Option<String>, message: String, v| HeadOutput {
        ok,
        written,
        text,
        message,
        verify: v,
    };
    if let Some(e) = &v.error {
        let m = format!("cannot check the log: {e}");
        return out(false, false, None, m, v);
    }
    let Some(now) = v.log_head.clone().filter(|h| h.records > 0) else {
        if v.report.ok {
            let m = "no trace records yet: nothing to anchor".to_string();
            return out(true, false, None, m, v);
        }
        let m = format!(
            "the log has no records but verification found problems; to start a new log, delete {} and {}",
            v.path, v.head_path
        );
        return out(false, false, None, m, v);
    };
    let text = now.text().trim_end().to_string();
    if v.report.ok {
        let m = format!(
            "the head of {}: {} record(s), {} bytes. Anchor the line above (a commit message, a CI log); `hookwise trace verify --anchor '<line>'` later checks that the log still holds it",
            v.path, now.records, now.bytes
        );
        return out(true, false, Some(text), m, v);
    }
    if !input.init {
        let m = format!(
            "the log does not verify against its head ({} problem(s), see `hookwise trace verify`); after checking it, `hookwise trace head --init` writes the head for the log as it is",
            v.report.problems.len()
        );
        return out(false, false, None, m, v);
    }
    let broken: Vec<&str> = v
        .report
        .problems
        .iter()
        .filter(|p| CHAIN_KINDS.contains(&p.kind))
        .map(|p| p.kind)
        .collect();
    if !broken.is_empty() {
        let m = format!(
            "no head written: the chain itself is broken ({}); a head would vouch for a broken log. Repair the log, or move it aside to start a new one",
            broken.join(", ")
        );
        return out(false, false, None, m, v);
    }
    let reply = io
        .request(Request::WriteHead {
            path: v.path.clone(),
            lock_path: lock_path(&input.worktree),
            head_path: v.head_path.clone(),
            text: now.text(),
            expect_bytes: now.bytes,
            expect_last: now.last.clone(),
            stale_ms: LOCK_STALE_MS,
            wait_ms: LOCK_WAIT_MS,
            break_ms: LOCK_BREAK_MS,
        })
        .await;
    if reply.get("ok").and_then(Value::as_bool) == Some(true) {
        if let Some(p) = gov.inner.borrow_mut().projects.get_mut(&input.worktree) {
            p.head_warned = None;
        }
        let accepted: Vec<&str> = v.report.problems.iter().map(|p| p.kind).collect();
        let m = format!(
            "wrote {}: {} record(s), {} bytes (accepting the log as it is: {})",
            v.head_path,
            now.records,
            now.bytes,
            accepted.join(", ")
        );
        return out(true, true, Some(text), m, v);
    }
    let err = ReplyError::describe_reply(&reply, "no reply");
    let m = if ReplyError::in_reply(&reply) == Some(ReplyError::Changed) {
        "no head written: the log changed meanwhile; run the command again".to_string()
    } else {
        format!("could not write {}: {err}", v.head_path)
    };
    out(false, false, None, m, v)
}

#[cfg(test)]
#[path = "trace_io_tests.rs"]
mod tests;

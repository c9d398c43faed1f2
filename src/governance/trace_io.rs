//! The Agent Trace's writes and checks (part of [`super`]): a record appended together with
//! the head ([`crate::governance::head`]) under the log's lock; a record that could not be
//! written kept and retried, with changes blocked meanwhile (governance fails closed: no
//! change without its record); `trace verify` (the chain, the head, an anchor) and `trace head`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::governance::chain::{self, ChainProblem, LineKeys, Report};
use crate::governance::head::{self, Head, HEAD_FILE};
use crate::governance::ranges::sha256_hex;
use crate::governance::segments::{self, Anchor, SegmentInfo, LEGACY_NAME, SEGMENT_DIR};
use crate::governance::trace::Chained;
use crate::protocol::{ListDirResult, Log, ReadResult, ReplyError, Request};
use crate::runtime::{join_all, Io};

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

/// Problem kinds across segments: `trace head --init` refuses them too.
const CROSS_KINDS: &[&str] = &["misplaced", "duplicate"];

/// Problem kinds an append running while `trace verify` reads can cause.
const RACY_KINDS: &[&str] = &["stale-head", "cut", "torn", "bytes"];

/// A record ready to append.
#[derive(Debug, Clone)]
pub(super) struct Unwritten {
    /// The segment it goes to ([`segments::segment_name`]).
    pub segment: String,
    pub chained: Chained,
    pub id: String,
    pub tool: String,
    /// The repair record's parts ([`crate::governance::trace::repair_parts`]) and where the
    /// torn bytes go, should the log end in a torn line.
    pub repair: Vec<String>,
    pub torn_path: String,
}

fn lock_path(wt: &str, segment: &str) -> String {
    format!("{}.lock", join(wt, &segments::log_rel(segment)))
}

/// Append one record and the head; `Err`: the host's error.
async fn append_one(
    io: &Io,
    gov: &Governance,
    wt: &str,
    u: &Unwritten,
    logs: &mut Vec<Log>,
) -> Result<(), String> {
    let path = join(wt, &segments::log_rel(&u.segment));
    let reply = io
        .request(Request::AppendChained {
            lock_path: lock_path(wt, &u.segment),
            path,
            before: u.chained.before.clone(),
            after: u.chained.after.clone(),
            stale_ms: LOCK_STALE_MS,
            wait_ms: LOCK_WAIT_MS,
            break_ms: LOCK_BREAK_MS,
            head_path: join(wt, &segments::head_rel(&u.segment)),
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
    p.last_appended = Some((u.segment.clone(), sha256_hex(line.as_bytes())));
    if status == "written" {
        p.head_warned = None;
    } else if p.head_warned.as_deref() != Some(status.as_str()) {
        logs.push(Log::warn(head_status_text(
            &status,
            &segments::head_rel(&u.segment),
        )));
        p.head_warned = Some(status);
    }
    Ok(())
}

fn head_status_text(status: &str, head_file: &str) -> String {
    match status {
        "missing" => format!(
            "trace: the log has no head ({head_file}): it was written before hookwise kept one, or the head was deleted. Records are still appended; the head is not created until someone checks the log: run `hookwise trace verify`, then `hookwise trace head --init`"
        ),
        "mismatch" => format!(
            "trace: the head ({head_file}) does not match the log (the log or the head was changed outside hookwise): the head is left as it is so that `hookwise trace verify` shows what changed; records are still appended"
        ),
        other => format!("trace: the head ({head_file}) was not updated: {other}"),
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
        format!("Another process keeps a lock file of the trace ({SEGMENT_DIR}/*.jsonl.lock): ask the user to stop it and remove the lock.")
    } else {
        format!("Ask the user to make {SEGMENT_DIR}/ and the files in it writable.")
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
    /// Records in all segments (the single-file log counted as one).
    pub records: usize,
    /// Each segment as verification found it (the single-file log first, when there is one).
    pub segments: Vec<SegmentInfo>,
    /// The verdict in one sentence ("ok: N record(s) in K segment(s), all chains whole, heads
    /// match", or the count of problems).
    pub text: String,
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
    /// Each line's SHA-256 hex and what verification read of it ([`chain::keys_of`]).
    pub hashes: Vec<String>,
    pub keys: Vec<Option<LineKeys>>,
}

fn problem(line: usize, kind: &'static str, message: String) -> ChainProblem {
    ChainProblem::new(line, kind, message)
}

/// The log and its head as read: the chain, the head against the log, and the anchor.
/// `remembered`: the hash of the last line this process appended.
pub fn assess(
    log: &Seen,
    head_file: &Seen,
    anchor: Option<&Head>,
    remembered: Option<&str>,
) -> Assessed {
    assess_named(log, head_file, HEAD_FILE, anchor, remembered)
}

/// [`assess`] for a log whose head file is `head_name` (a segment's).
pub fn assess_named(
    log: &Seen,
    head_file: &Seen,
    head_name: &str,
    anchor: Option<&Head>,
    remembered: Option<&str>,
) -> Assessed {
    let mut hashes = Vec::new();
    let mut keys = Vec::new();
    let stored: Result<Option<Head>, String> = match head_file {
        Seen::Absent => Ok(None),
        Seen::Unreadable(e) => Err(format!("cannot read the head {head_name}: {e}")),
        Seen::Text { text, size } if size.is_some_and(|s| s != text.len() as u64) => Err(format!(
            "the head {head_name} holds bytes that are not part of a head (a byte order mark?)"
        )),
        Seen::Text { text, .. } => Head::parse(text).map(Some).ok_or_else(|| {
            format!("{head_name} is not a head as hookwise writes it (it was edited)")
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
            let (mut r, k) = chain::verify_keyed(&l, remembered);
            keys = k;
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
                        "no head ({head_name}): the log was written before hookwise kept a head, or the head was deleted, so lines cut or edited at the end of the log cannot be detected; if the chain is whole and you trust the log, run `hookwise trace head --init`"
                    ),
                )),
                Err(_) => {}
            }
            if let Some(a) = anchor {
                r.problems.extend(head::check_anchor(&l, extra, a));
            }
            log_head = Some(Head::of_log(&l, raw));
            hashes = l.hashes;
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
        hashes,
        keys,
    }
}

/// The trace's files as read: every segment's log and head (the single-file log first, as
/// the segment [`LEGACY_NAME`], when either of its files exists).
pub struct SetRead {
    pub names: Vec<String>,
    pub logs: Vec<Seen>,
    pub heads: Vec<Seen>,
    /// The segment folder could not be listed.
    pub error: Option<String>,
}

impl SetRead {
    /// Each segment's text (empty for one that could not be read).
    #[cfg(feature = "policy")]
    pub fn texts(&self) -> Vec<&str> {
        self.logs
            .iter()
            .map(|l| match l {
                Seen::Text { text, .. } => text.as_str(),
                _ => "",
            })
            .collect()
    }
}

/// The segment logs (`<segment>.jsonl`) in the segment folder of `wt`, with their sizes and
/// times; none when the folder is missing or cannot be listed. What the shell guard and the
/// recent-records cache watch.
pub(crate) async fn segment_logs(io: &Io, wt: &str) -> Vec<crate::protocol::DirEntry> {
    let v = io
        .request(Request::ListDir {
            path: join(wt, SEGMENT_DIR),
            recursive: false,
            max_entries: segments::MAX_SEGMENTS * 4,
            skip_hidden: true,
            types_only: false,
        })
        .await;
    let l: ListDirResult = serde_json::from_value(v).unwrap_or_default();
    l.entries
        .into_iter()
        .filter(|e| e.is_file && e.path.ends_with(".jsonl") && segments::stem(&e.path).is_some())
        .collect()
}

/// List the segment folder and read every segment's log and head (`heads_only`: the heads).
async fn read_set(io: &Io, wt: &str) -> (Vec<String>, Option<String>) {
    let v = io
        .request(Request::ListDir {
            path: join(wt, SEGMENT_DIR),
            recursive: false,
            max_entries: segments::MAX_SEGMENTS * 4,
            skip_hidden: true,
            types_only: true,
        })
        .await;
    let l: ListDirResult = serde_json::from_value(v).unwrap_or_default();
    let error = match l.error {
        None => None,
        Some(e) if is_missing(Some(e)) => None,
        Some(e) => Some(format!(
            "cannot list {SEGMENT_DIR}: {}",
            e.describe(l.detail.as_deref())
        )),
    };
    let error = error.or_else(|| {
        l.truncated
            .then(|| format!("{SEGMENT_DIR} holds too many files to verify"))
    });
    (
        segments::names(l.entries.iter().map(|e| e.path.as_str())),
        error,
    )
}

async fn read_files(io: &Io, wt: &str, names: &[String], heads: bool) -> Vec<Seen> {
    join_all(
        names
            .iter()
            .map(|n| {
                let rel = if heads {
                    segments::head_rel(n)
                } else {
                    segments::log_rel(n)
                };
                let path = join(wt, &rel);
                let max = if heads {
                    MAX_HEAD_BYTES
                } else {
                    MAX_TRACE_BYTES
                };
                async move { Seen::from_read(read_text(io, &path, max).await) }
            })
            .collect(),
    )
    .await
}

/// Read every segment (the log, and its head before and after it: an append between the reads
/// changes the head).
async fn read_all(io: &Io, wt: &str) -> (SetRead, Vec<Seen>) {
    let (mut names, error) = read_set(io, wt).await;
    names.insert(0, LEGACY_NAME.to_string());
    let h1 = read_files(io, wt, &names, true).await;
    let logs = read_files(io, wt, &names, false).await;
    let heads = read_files(io, wt, &names, true).await;
    let mut set = SetRead {
        names,
        logs,
        heads,
        error,
    };
    let mut h1 = h1;
    // the single-file log counts only when one of its files exists
    if matches!(set.logs[0], Seen::Absent) && matches!(set.heads[0], Seen::Absent) {
        set.names.remove(0);
        set.logs.remove(0);
        set.heads.remove(0);
        h1.remove(0);
    }
    (set, h1)
}

/// Verify what [`read_all`] read.
fn verify_set(
    wt: &str,
    set: &SetRead,
    old_anchor: Option<&Head>,
    anchor: Option<&Anchor>,
    remembered: Option<&(String, String)>,
) -> (VerifyOutput, Vec<Assessed>) {
    let mut problems = Vec::new();
    let mut error = set.error.clone();
    let mut infos = Vec::new();
    let mut all = Vec::new();
    let mut records = 0;
    let mut old_held = false;
    let mut old_missed: Option<ChainProblem> = None;
    for (i, name) in set.names.iter().enumerate() {
        let legacy = name == LEGACY_NAME;
        let rel = segments::log_rel(name);
        let head_rel = segments::head_rel(name);
        let rem = remembered
            .filter(|(s, _)| s == name)
            .map(|(_, h)| h.as_str());
        let mut a = assess_named(&set.logs[i], &set.heads[i], &head_rel, old_anchor, rem);
        // a head anchored by an older hookwise (one log): held by whichever segment holds it
        let anchor_problems: Vec<ChainProblem> = a
            .report
            .problems
            .iter()
            .filter(|p| p.kind == "anchor")
            .cloned()
            .collect();
        if old_anchor.is_some() {
            a.report.problems.retain(|p| p.kind != "anchor");
            a.report.ok = a.error.is_none() && a.report.problems.is_empty();
            if anchor_problems.is_empty() {
                old_held = true;
            } else if old_missed.is_none() {
                old_missed = anchor_problems
                    .into_iter()
                    .next()
                    .map(|p| segments::with_segment(p, &rel));
            }
        }
        if let (None, Some(e)) = (&error, &a.error) {
            error = Some(if legacy {
                e.clone()
            } else {
                format!("{rel}: {e}")
            });
        }
        records += a.report.lines;
        let branch = match &set.logs[i] {
            Seen::Text { text, .. } => text.lines().take(4).find_map(segments::branch_of),
            _ => None,
        };
        infos.push(SegmentInfo {
            name: name.clone(),
            path: rel.clone(),
            records: a.report.lines,
            ok: a.report.ok,
            branch,
        });
        problems.extend(
            a.report
                .problems
                .iter()
                .cloned()
                .map(|p| segments::with_segment(p, &rel)),
        );
        all.push(a);
    }
    let checked: Vec<segments::Checked> = set
        .names
        .iter()
        .zip(&all)
        .map(|(n, a)| segments::Checked {
            name: n,
            hashes: &a.hashes,
            keys: &a.keys,
        })
        .collect();
    let mut cross = segments::cross_check(&checked, anchor);
    if let Some(h) = old_anchor.filter(|h| h.records > 0 && !old_held) {
        cross.push(old_missed.unwrap_or_else(|| {
            problem(
                0,
                "anchor",
                format!(
                    "the anchored head ({} record(s)) is not in the trace: the log is missing",
                    h.records
                ),
            )
        }));
    }
    for p in &cross {
        if let Some(info) = infos.iter_mut().find(|i| i.path == p.segment) {
            info.ok = false;
        }
    }
    problems.extend(cross);
    // one segment (the single-file log, or one segment): its head and paths, as before
    let sole = (set.names.len() == 1).then(|| &all[0]);
    let only_legacy = sole.is_some() && set.names[0] == LEGACY_NAME;
    let report = Report {
        ok: error.is_none() && problems.is_empty(),
        lines: records,
        head: sole.and_then(|a| a.report.head.clone()),
        problems,
    };
    let text = segments::verdict(
        &report,
        error.as_deref(),
        records,
        set.names.len(),
        old_anchor.is_some() || anchor.is_some(),
    );
    let (path, head_path) = match (sole, only_legacy) {
        (_, true) | (None, _) if set.names.is_empty() || only_legacy => {
            (join(wt, TRACE_FILE), join(wt, HEAD_FILE))
        }
        (Some(_), _) => (
            join(wt, &segments::log_rel(&set.names[0])),
            join(wt, &segments::head_rel(&set.names[0])),
        ),
        _ => (join(wt, SEGMENT_DIR), join(wt, SEGMENT_DIR)),
    };
    let out = VerifyOutput {
        path,
        head_path,
        error,
        log_head: sole.and_then(|a| a.log_head.clone()),
        stored_head: sole.and_then(|a| a.stored_head.clone()),
        report,
        records,
        segments: infos,
        text,
    };
    (out, all)
}

fn failed_output(path: String, head_path: String, e: String) -> VerifyOutput {
    let report = Report {
        ok: false,
        lines: 0,
        head: None,
        problems: Vec::new(),
    };
    VerifyOutput {
        path,
        head_path,
        text: segments::verdict(&report, Some(&e), 0, 0, false),
        error: Some(e),
        log_head: None,
        stored_head: None,
        report,
        records: 0,
        segments: Vec::new(),
    }
}

/// `hookwise trace verify`: check every segment of the trace (and the single-file log of older
/// versions) — each hash chain, each head — what holds across segments, and optionally a head
/// anchored earlier.
pub async fn trace_verify(io: &Io, gov: &Governance, input: &VerifyInput) -> VerifyOutput {
    read_and_verify(io, gov, input).await.0
}

/// [`trace_verify`], and the files it read (for blame and the report).
pub(crate) async fn read_and_verify(
    io: &Io,
    gov: &Governance,
    input: &VerifyInput,
) -> (VerifyOutput, SetRead) {
    let wt = input.worktree.as_str();
    let path = join(wt, TRACE_FILE);
    let head_path = join(wt, HEAD_FILE);
    let empty = || SetRead {
        names: Vec::new(),
        logs: Vec::new(),
        heads: Vec::new(),
        error: None,
    };
    if wt.is_empty() {
        return (
            failed_output(path, head_path, "no project folder given".into()),
            empty(),
        );
    }
    let st = stat(io, wt).await;
    if !st.exists {
        let e = format!("no project folder at {wt}");
        return (failed_output(path, head_path, e), empty());
    }
    if !st.is_dir {
        let e = format!("{wt} is not a folder");
        return (failed_output(path, head_path, e), empty());
    }
    let (old_anchor, anchor) = match input.anchor.as_deref() {
        None => (None, None),
        Some(a) => match (Head::parse_anchor(a), Anchor::parse(a)) {
            (Some(h), _) => (Some(h), None),
            (None, Some(x)) => (None, Some(x)),
            (None, None) => {
                let e = format!(
                    "the anchor is not a head as `hookwise trace head` prints it ({}…)",
                    a.chars().take(40).collect::<String>()
                );
                return (failed_output(path, head_path, e), empty());
            }
        },
    };
    let remembered = gov.last_appended(wt);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let (set, h1) = read_all(io, wt).await;
        let (out, _) = verify_set(
            wt,
            &set,
            old_anchor.as_ref(),
            anchor.as_ref(),
            remembered.as_ref(),
        );
        // An append may have run between the reads (the log is written before its head, a
        // line in one write): what it can make look wrong is read again after a pause.
        let racy = h1 != set.heads
            || out
                .report
                .problems
                .iter()
                .any(|p| RACY_KINDS.contains(&p.kind));
        if !racy || attempt >= VERIFY_ATTEMPTS {
            return (out, set);
        }
        let _ = io.request(Request::Sleep { ms: 50 }).await;
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

/// `hookwise trace head [--init]`: the line to anchor (the trace verified first) — for the
/// single-file log alone its head, as before; for a trace in segments every segment's record
/// count and last line ([`Anchor`]) — or, with `init`, a head written for each segment whose
/// head does not match its log (a log from before heads, or one whose problems the user has
/// looked into). `init` refuses a segment whose chain itself is broken.
pub async fn trace_head(io: &Io, gov: &Governance, input: &HeadInput) -> HeadOutput {
    let (v, set) = read_and_verify(
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
        let m = format!("cannot check the trace: {e}");
        return out(false, false, None, m, v);
    }
    let (_, assessed) = verify_set(&input.worktree, &set, None, None, None);
    let only_legacy = set.names.len() == 1;
    let anchor_text = || {
        if only_legacy {
            return assessed[0]
                .log_head
                .as_ref()
                .map(|h| h.text().trim_end().to_string());
        }
        let entries: Vec<(String, u64, String)> = set
            .names
            .iter()
            .zip(&assessed)
            .filter_map(|(n, a)| {
                a.log_head
                    .as_ref()
                    .map(|h| segments::anchor_entry(n, h.records, &h.last))
            })
            .collect();
        Some(Anchor::of(&entries).text())
    };
    if v.records == 0 {
        if v.report.ok {
            let m = "no trace records yet: nothing to anchor".to_string();
            return out(true, false, None, m, v);
        }
        let m = format!(
            "the trace has no records but verification found problems; to start anew, delete {SEGMENT_DIR}/ (and {TRACE_FILE} and {HEAD_FILE})"
        );
        return out(false, false, None, m, v);
    }
    if v.report.ok {
        let m = if only_legacy {
            let h = v.log_head.clone().unwrap_or(Head {
                records: 0,
                bytes: 0,
                last: String::new(),
            });
            format!(
                "the head of {}: {} record(s), {} bytes. Anchor the line above (a commit message, a CI log); `hookwise trace verify --anchor '<line>'` later checks that the log still holds it",
                v.path, h.records, h.bytes
            )
        } else {
            format!(
                "the heads of {} segment(s), {} record(s). Anchor the line above (a commit message, a CI log); `hookwise trace verify --anchor '<line>'` later checks that every segment still holds what it held",
                set.names.len(),
                v.records
            )
        };
        return out(true, false, anchor_text(), m, v);
    }
    if !input.init {
        let m = format!(
            "the trace does not verify ({} problem(s), see `hookwise trace verify`); after checking it, `hookwise trace head --init` writes the heads for the segments as they are",
            v.report.problems.len()
        );
        return out(false, false, None, m, v);
    }
    let broken: Vec<&str> = v
        .report
        .problems
        .iter()
        .filter(|p| CHAIN_KINDS.contains(&p.kind) || CROSS_KINDS.contains(&p.kind))
        .map(|p| p.kind)
        .collect();
    if !broken.is_empty() {
        let m = format!(
            "no head written: the chain itself is broken ({}); a head would vouch for a broken log. Repair the log, or move it aside to start a new one",
            broken.join(", ")
        );
        return out(false, false, None, m, v);
    }
    let mut wrote = Vec::new();
    for (i, (name, a)) in set.names.iter().zip(&assessed).enumerate() {
        let (Some(now), false) = (a.log_head.clone(), a.report.ok) else {
            continue;
        };
        if matches!(set.logs[i], Seen::Absent) {
            continue;
        }
        let log_path = join(&input.worktree, &segments::log_rel(name));
        let head_path = join(&input.worktree, &segments::head_rel(name));
        let reply = io
            .request(Request::WriteHead {
                path: log_path,
                lock_path: lock_path(&input.worktree, name),
                head_path: head_path.clone(),
                text: now.text(),
                expect_bytes: now.bytes,
                expect_last: now.last.clone(),
                stale_ms: LOCK_STALE_MS,
                wait_ms: LOCK_WAIT_MS,
                break_ms: LOCK_BREAK_MS,
            })
            .await;
        if reply.get("ok").and_then(Value::as_bool) != Some(true) {
            let err = ReplyError::describe_reply(&reply, "no reply");
            let m = if ReplyError::in_reply(&reply) == Some(ReplyError::Changed) {
                "no head written: the log changed meanwhile; run the command again".to_string()
            } else {
                format!("could not write {head_path}: {err}")
            };
            return out(false, false, None, m, v);
        }
        wrote.push((head_path, now));
    }
    if let Some(p) = gov.inner.borrow_mut().projects.get_mut(&input.worktree) {
        p.head_warned = None;
    }
    let accepted: Vec<&str> = v.report.problems.iter().map(|p| p.kind).collect();
    let m = if let ([(path, now)], true) = (wrote.as_slice(), only_legacy) {
        format!(
            "wrote {path}: {} record(s), {} bytes (accepting the log as it is: {})",
            now.records,
            now.bytes,
            accepted.join(", ")
        )
    } else {
        format!(
            "wrote {} head(s): {} (accepting the segments as they are: {})",
            wrote.len(),
            wrote
                .iter()
                .map(|(p, _)| p.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            accepted.join(", ")
        )
    };
    let text = anchor_text();
    out(true, true, text, m, v)
}

#[cfg(test)]
#[path = "trace_io_tests.rs"]
mod tests;

//! `hookwise trace report` (policy build): one self-contained HTML page of a governed project —
//! the Agent Trace's verification at the top (the verdict of `hookwise trace verify`, red when
//! it fails), the intents with their scope, status, files and changes, each changed file with
//! its lines coloured by intent and agent (the record's details on hover), a timeline, and
//! enforcement's blocks and advice by SOP.
//!
//! The core does no I/O: [`report`] asks the host for the files (the log and its head through
//! [`crate::governance::trace_verify`], the intents file, the metrics file and its state, each
//! changed file) and answers with the page as a string; the glue writes it where the user
//! said. Everything on the page is redacted ([`data::clean`]) and escaped ([`html::esc`]); the
//! page runs no script and its Content-Security-Policy forbids any (`html.rs`).
//!
//! Which file is read: a path a record names, relative, inside the worktree once every
//! symlink is resolved (a record is text anyone can edit: `../../etc/passwd`, an absolute path
//! or a link out of the project are named on the page, never read), at most
//! [`MAX_FILE_BYTES`] each, the [`MAX_FILES`] most recently changed.

pub mod data;
pub mod html;

use serde::{Deserialize, Serialize};

use crate::governance::{self as gov, Governance, VerifyOutput};
use crate::protocol::{ReadResult, Request, StatResult};
use crate::runtime::{join_all, Io};
use data::{Change, IntentRow, SopRow};

/// Files shown with their lines (the most recently changed).
pub const MAX_FILES: usize = 400;
/// A larger file is named, not shown.
pub const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;
const MAX_METRICS_BYTES: u64 = 64 * 1024 * 1024;

/// How one line of a file as it is now came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attr {
    /// Not written by an agent (or written before the records began).
    None,
    /// Written by the change at this index of [`Page::changes`], unchanged since.
    Agent(usize),
    /// Written by that change and changed since.
    Changed(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub text: String,
    pub attr: Attr,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Lines(Vec<Line>),
    /// Why the file is not shown (missing, outside the project, too large, unreadable).
    Note(String),
    /// The file's redacted text, when redaction took lines away (a secret over several lines):
    /// shown without attribution, which would no longer line up.
    Redacted(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FileView {
    pub path: String,
    pub body: Body,
}

/// The enforcement metrics as the page shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    pub ok: bool,
    /// The metrics chain's verification (`hookwise metrics verify`'s text).
    pub verdict: String,
    pub kinds: std::collections::BTreeMap<String, usize>,
    pub sops: Vec<SopRow>,
}

/// Everything the page shows, read and redacted.
#[derive(Debug, Clone)]
pub struct Page {
    pub project: String,
    pub generated: String,
    pub version: String,
    pub verify: VerifyOutput,
    pub intents: Vec<IntentRow>,
    pub intent_problems: Vec<String>,
    pub changes: Vec<Change>,
    pub files: Vec<FileView>,
    /// Changed files beyond [`MAX_FILES`].
    pub files_left: usize,
    pub metrics: Option<Metrics>,
}

/// `trace.report`'s input (from the engine).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReportInput {
    pub worktree: String,
    pub now_ms: f64,
    /// The enforcement metrics file and its state file (relative to the worktree or absolute).
    pub metrics_file: String,
    pub state_file: String,
}

/// The answer: the page, and the verification it shows (`ok`: the trace verifies).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportOutput {
    pub ok: bool,
    /// The verdict in one sentence (the page's heading).
    pub text: String,
    pub html: String,
    pub records: usize,
    pub files: usize,
    pub verify: VerifyOutput,
}

async fn read(io: &Io, path: String, max_bytes: u64) -> ReadResult {
    let v = io.request(Request::ReadFile { path, max_bytes }).await;
    serde_json::from_value(v).unwrap_or_default()
}

async fn stat(io: &Io, path: String) -> StatResult {
    let v = io.request(Request::Stat { path }).await;
    serde_json::from_value(v).unwrap_or_default()
}

/// Build the page for the project at `input.worktree`.
pub async fn report(io: &Io, g: &Governance, input: &ReportInput) -> ReportOutput {
    let wt = input.worktree.trim_end_matches('/').to_string();
    // every segment of the trace, verified, then their records merged by time
    let (verify, set) = gov::ops::trace_io::read_and_verify(
        io,
        g,
        &gov::VerifyInput {
            worktree: wt.clone(),
            anchor: None,
        },
    )
    .await;
    let merged = gov::segments::merge(&set.texts());
    drop(set);
    let at = |p: &str| crate::paths::join(&wt, p);
    let mut reads = join_all(vec![
        read(io, at(gov::INTENTS_FILE), gov::intents::MAX_BYTES),
        read(io, at(&input.metrics_file), MAX_METRICS_BYTES),
        read(io, at(&input.state_file), MAX_METRICS_BYTES),
    ])
    .await
    .into_iter();
    let mut next = || reads.next().and_then(|r| r.text);
    let (intents_text, metrics_text, state_text) = (next(), next(), next());
    let log = merged.text;
    let changes = data::changes(&log);
    let (intents, intent_problems) = data::intent_rows(intents_text.as_deref(), &changes);
    let metrics = metrics_text.map(|m| {
        let (ok, verdict) = crate::enforce::cli_metrics_verify(&m, state_text.as_deref());
        let (sops, kinds) = data::sop_rows(&m);
        Metrics {
            ok,
            verdict: data::clean(&verdict),
            kinds,
            sops,
        }
    });
    let (paths, files_left) = changed_paths(&changes);
    let files = read_files(io, &wt, &paths, &Sublog::new(&log, &changes)).await;
    let project = wt.rsplit('/').next().unwrap_or("").to_string();
    let page = Page {
        project: data::clean(&project),
        generated: crate::governance::trace::rfc3339(input.now_ms as i64),
        version: env!("CARGO_PKG_VERSION").to_string(),
        verify,
        intents,
        intent_problems,
        changes,
        files,
        files_left,
        metrics,
    };
    ReportOutput {
        ok: page.verify.report.ok,
        text: html::verdict_text(&page.verify),
        html: html::render(&page),
        records: page.changes.len(),
        files: page.files.len(),
        verify: page.verify,
    }
}

/// The files the records name, most recently changed first; at most [`MAX_FILES`], and how
/// many more there are.
pub fn changed_paths(changes: &[Change]) -> (Vec<String>, usize) {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for c in changes.iter().rev() {
        for (p, _) in &c.files {
            if seen.insert(p.as_str()) {
                out.push(p.clone());
            }
        }
    }
    let left = out.len().saturating_sub(MAX_FILES);
    out.truncate(MAX_FILES);
    (out, left)
}

/// Why a path a record names is not read, if it is not: it must be relative and stay inside
/// the project.
fn outside(path: &str) -> Option<&'static str> {
    if path.is_empty() || crate::paths::is_absolute(path) || path.starts_with('\\') {
        return Some("an absolute path: not read (the report shows files of the project only)");
    }
    if path.split(['/', '\\']).any(|c| c == "..") || path.contains('\0') {
        return Some("a path that leaves the project: not read");
    }
    None
}

async fn read_files(io: &Io, wt: &str, paths: &[String], log: &Sublog<'_>) -> Vec<FileView> {
    let root = stat(io, wt.to_string())
        .await
        .realpath
        .unwrap_or_else(|| wt.to_string());
    let stats = join_all(
        paths
            .iter()
            .map(|p| stat(io, crate::paths::join(wt, p)))
            .collect(),
    )
    .await;
    let mut views: Vec<FileView> = Vec::with_capacity(paths.len());
    let mut wanted = Vec::new();
    for (k, (p, st)) in paths.iter().zip(stats).enumerate() {
        let note = if let Some(why) = outside(p) {
            Some(why.to_string())
        } else if !st.exists {
            Some("not in the project any more (deleted or renamed)".to_string())
        } else if !st.is_file {
            Some("not a file".to_string())
        } else if !st
            .realpath
            .as_deref()
            .is_some_and(|r| crate::paths::relative(r, &root).is_some_and(|r| !r.is_empty()))
        {
            Some("a link to a file outside the project: not read".to_string())
        } else if st.size > MAX_FILE_BYTES {
            Some(format!("{} bytes: too large to show here", st.size))
        } else {
            wanted.push((k, st.realpath.clone().unwrap_or_default()));
            None
        };
        views.push(FileView {
            path: p.clone(),
            body: Body::Note(note.unwrap_or_default()),
        });
    }
    let texts = join_all(
        wanted
            .iter()
            .map(|(_, real)| read(io, real.clone(), MAX_FILE_BYTES))
            .collect(),
    )
    .await;
    for ((k, _), r) in wanted.into_iter().zip(texts) {
        views[k].body = match r.text {
            Some(t) => body(&views[k].path, &t, log),
            None => Body::Note(format!(
                "cannot be read ({})",
                r.error.map(|e| e.code()).unwrap_or("no reply")
            )),
        };
    }
    views
}

/// The file's lines with their attribution ([`crate::governance::blame`]: by content, line
/// by line), redacted. `log`: the trace log's text.
pub fn body(path: &str, text: &str, log: &Sublog) -> Body {
    let red = data::clean(text);
    let raw = crate::governance::ranges::split_lines(text);
    let lines = crate::governance::ranges::split_lines(&red);
    if lines.len() != raw.len() {
        return Body::Redacted(red);
    }
    let att = crate::governance::blame::blame(path, text, &log.of(path), &|_| None);
    let attr = |i: usize| match att.marks.get(i).copied().flatten() {
        None => Attr::None,
        Some(m) => match att
            .writers
            .get(m.writer)
            .and_then(|w| log.change_at(w.trace_line))
        {
            None => Attr::None,
            Some(k) if m.state == crate::governance::blame::State::Agent => Attr::Agent(k),
            Some(k) => Attr::Changed(k),
        },
    };
    Body::Lines(
        lines
            .into_iter()
            .enumerate()
            .map(|(i, t)| Line {
                text: t.to_string(),
                attr: attr(i),
            })
            .collect(),
    )
}

/// The trace log cut for blame, file by file: blame reads the whole log for each file it is
/// asked about; here it gets only the lines of the records that name the file (or a path it
/// was moved from, for the records before the move), the others left empty so that every
/// line keeps its number. 250 files of a 10,000-record log are blamed against ~40 lines each
/// instead of 10,000.
pub struct Sublog<'a> {
    lines: Vec<&'a str>,
    changes: &'a [Change],
    /// The index in `changes` of the record on each log line (1-based line → index).
    at: std::collections::HashMap<usize, usize>,
}

impl<'a> Sublog<'a> {
    pub fn new(log: &'a str, changes: &'a [Change]) -> Sublog<'a> {
        Sublog {
            lines: log.split('\n').collect(),
            changes,
            at: changes
                .iter()
                .enumerate()
                .map(|(k, c)| (c.line, k))
                .collect(),
        }
    }

    pub fn change_at(&self, line: usize) -> Option<usize> {
        self.at.get(&line).copied()
    }

    /// The log with only the lines of the records that wrote `path` (under its names).
    pub fn of(&self, path: &str) -> String {
        let mut names = vec![path.to_string()];
        let mut keep = vec![false; self.lines.len()];
        for c in self.changes.iter().rev() {
            if !c.files.iter().any(|(p, _)| names.contains(p)) {
                continue;
            }
            if let Some(k) = keep.get_mut(c.line - 1) {
                *k = true;
            }
            for (to, from) in &c.moves {
                if names.contains(to) && !names.contains(from) {
                    names.push(from.clone());
                }
            }
        }
        let mut out = String::new();
        for (i, (l, k)) in self.lines.iter().zip(keep).enumerate() {
            if i > 0 {
                out.push('\n');
            }
            if k {
                out.push_str(l);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;

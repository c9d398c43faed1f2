//! The Agent Trace kept in **segments**, so that it travels with the code through branches,
//! merges, rebases, cherry-picks, squash merges, reverts and pulls without a conflict.
//!
//! A segment is one file `.orchestration/trace/<name>.jsonl` with its own hash chain (its first
//! record chains to [`super::trace::GENESIS`]) and its own head `<name>.head` beside it
//! ([`super::head`]): exactly the single-file log of before, once per segment. A record goes to
//! the segment of **its writer and its base commit**: `<name>` is 16 hex characters of the
//! SHA-256 of the worktree's path, the session, the branch checked out and the commit HEAD
//! points at ([`segment_name`]). So
//! - two sessions, two clones, two branches never append to one file: files that never touch
//!   merge without a conflict;
//! - once HEAD moves (a commit), a session's later records start a new segment: a commit only
//!   ever **adds** segment files (the records written on top of its parent), which is what
//!   lets a cherry-pick, a rebase or a squash carry them without a conflict (a file a commit
//!   only adds is added again wherever it is replayed; the same file added on both sides of a
//!   later merge is the same blob);
//! - several processes of one session (parallel tool calls, a host's hook processes) append to
//!   the same segment under its lock file, as before.
//!
//! Each record names its segment (`metadata["dev.hookwise"].segment`) and the branch, so a
//! record copied or moved into another segment, or a segment file renamed, is told; a record id
//! found twice (a record or a segment duplicated) is told. The single-file log of older
//! versions (`.orchestration/agent_trace.jsonl` and its head) is read as one more segment,
//! frozen: nothing is appended to it any more.
//!
//! What joins the segments: nothing needs to — verification checks each chain against its head,
//! and blame and the report read the records of every segment merged by time. A segment
//! dropped wholesale (its file and its head) is reported when an anchor names it
//! (`hookwise trace head` prints one line naming every segment's record count and last line;
//! `trace verify --anchor` checks it later).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use serde::Serialize;
use serde_json::Value;

use super::chain::{ChainProblem, LineKeys, Report};
use super::head::HEAD_FILE;
use super::ranges::sha256_hex;
use super::TRACE_FILE;

/// The folder of the segments, relative to the worktree.
pub const SEGMENT_DIR: &str = ".orchestration/trace";
/// Segments listed at most.
pub const MAX_SEGMENTS: u64 = 100_000;
/// How the single-file log is named among segments (in anchors and reports).
pub const LEGACY_NAME: &str = "agent_trace";

/// The segment a record of this writer goes to: 16 hex characters.
pub fn segment_name(
    worktree: &str,
    session: &str,
    branch: Option<&str>,
    commit: Option<&str>,
) -> String {
    let key = format!(
        "hookwise-segment\u{0}{worktree}\u{0}{session}\u{0}{}\u{0}{}",
        branch.unwrap_or(""),
        commit.unwrap_or("")
    );
    sha256_hex(key.as_bytes())[..16].to_string()
}

/// The segment's log, relative to the worktree.
pub fn log_rel(name: &str) -> String {
    if name == LEGACY_NAME {
        return TRACE_FILE.to_string();
    }
    format!("{SEGMENT_DIR}/{name}.jsonl")
}

/// The segment's head, relative to the worktree.
pub fn head_rel(name: &str) -> String {
    if name == LEGACY_NAME {
        return HEAD_FILE.to_string();
    }
    format!("{SEGMENT_DIR}/{name}.head")
}

/// A name in the segment folder that is a segment's log or head: the segment's name.
pub fn stem(file: &str) -> Option<&str> {
    let s = file
        .strip_suffix(".jsonl")
        .or_else(|| file.strip_suffix(".head"))?;
    (!s.is_empty() && !s.contains('/') && !s.starts_with('.') && s != LEGACY_NAME).then_some(s)
}

/// The segment names among the entries of the segment folder, sorted.
pub fn names<'a>(files: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut v: Vec<String> = files.filter_map(stem).map(str::to_string).collect();
    v.sort();
    v.dedup();
    v
}

/// What one segment's verification found (per segment, beside the problems).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentInfo {
    pub name: String,
    /// Its log, relative to the worktree.
    pub path: String,
    pub records: usize,
    pub ok: bool,
    /// The branch its records name (the first that names one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

/// An anchor: every segment's record count and the start of its last line's hash, as
/// `hookwise trace head` prints it for a trace in segments:
/// `{"records":N,"segments":{"<name>":[n,"<16 hex>"],…}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    pub records: u64,
    pub segments: Vec<(String, u64, String)>,
}

/// Hex characters of a segment's last-line hash an anchor keeps.
const ANCHOR_HEX: usize = 16;

impl Anchor {
    pub fn text(&self) -> String {
        let mut m = serde_json::Map::new();
        for (name, n, h) in &self.segments {
            m.insert(name.clone(), serde_json::json!([n, h]));
        }
        serde_json::json!({"records": self.records, "segments": m}).to_string()
    }

    pub fn parse(s: &str) -> Option<Anchor> {
        let v: Value = serde_json::from_str(s.trim()).ok()?;
        let records = v.get("records")?.as_u64()?;
        let mut segments = Vec::new();
        for (name, e) in v.get("segments")?.as_object()? {
            let a = e.as_array()?;
            let n = a.first()?.as_u64()?;
            let h = a.get(1)?.as_str()?;
            if h.len() != ANCHOR_HEX || !h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
                return None;
            }
            segments.push((name.clone(), n, h.to_string()));
        }
        Some(Anchor { records, segments })
    }

    /// The anchor of these segments (name, lines, hash of the last line).
    pub fn of(segments: &[(String, u64, String)]) -> Anchor {
        Anchor {
            records: segments.iter().map(|s| s.1).sum(),
            segments: segments
                .iter()
                .filter(|s| s.1 > 0)
                .map(|(n, c, h)| (n.clone(), *c, h[..ANCHOR_HEX.min(h.len())].to_string()))
                .collect(),
        }
    }
}

/// One segment as verification saw it: its lines' hashes and keys.
pub struct Checked<'a> {
    pub name: &'a str,
    pub hashes: &'a [String],
    pub keys: &'a [Option<LineKeys>],
}

/// What holds across segments: each record in the segment it names (the single-file log's
/// records name none), each record id once, and an anchor's segments still there, each still
/// holding its anchored record at its place.
pub fn cross_check(segs: &[Checked], anchor: Option<&Anchor>) -> Vec<ChainProblem> {
    let mut out = Vec::new();
    let mut seen: HashMap<&str, (usize, usize)> = HashMap::new();
    for (si, s) in segs.iter().enumerate() {
        let rel = log_rel(s.name);
        let mut misplaced = 0usize;
        for (i, k) in s.keys.iter().enumerate() {
            let Some(k) = k else { continue };
            let want = (s.name != LEGACY_NAME).then_some(s.name);
            if k.segment.as_deref() != want && misplaced < 3 {
                misplaced += 1;
                let msg = match &k.segment {
                    Some(other) if s.name == LEGACY_NAME => format!(
                        "line {} names the segment {other} but is in the single-file log: it was copied or moved here",
                        i + 1
                    ),
                    Some(other) => format!(
                        "line {} was written to the segment {other}, not {}: it was copied or moved here, or the segment file was renamed",
                        i + 1,
                        s.name
                    ),
                    None => format!(
                        "line {} names no segment: a record of the single-file log (or a forged one) copied into the segment {}",
                        i + 1,
                        s.name
                    ),
                };
                out.push(with_segment(
                    ChainProblem::new(i + 1, "misplaced", msg),
                    &rel,
                ));
            }
            if k.id.is_empty() {
                continue;
            }
            if let Some(&(sj, lj)) = seen.get(k.id.as_str()) {
                let first = segs[sj].name;
                let msg = if sj == si {
                    format!(
                        "the record {} is on lines {} and {}: it was duplicated",
                        k.id,
                        lj + 1,
                        i + 1
                    )
                } else {
                    format!(
                        "the record {} is in the segments {first} (line {}) and {} (line {}): it, or the segment, was duplicated",
                        k.id,
                        lj + 1,
                        s.name,
                        i + 1
                    )
                };
                out.push(with_segment(
                    ChainProblem::new(i + 1, "duplicate", msg),
                    &rel,
                ));
            } else {
                seen.insert(k.id.as_str(), (si, i));
            }
        }
    }
    if let Some(a) = anchor {
        for (name, n, h) in &a.segments {
            let rel = log_rel(name);
            match segs.iter().find(|s| s.name == name) {
                None => out.push(with_segment(
                    ChainProblem::new(
                        0,
                        "dropped",
                        format!(
                            "the segment {name} ({n} record(s) when anchored) is gone: it was deleted (a revert of the commit that added it removes it too)"
                        ),
                    ),
                    &rel,
                )),
                Some(s) => {
                    let i = usize::try_from(*n).unwrap_or(usize::MAX);
                    let holds = *n == 0
                        || (i <= s.hashes.len() && s.hashes[i - 1].starts_with(h.as_str()));
                    if !holds {
                        let msg = if i > s.hashes.len() {
                            format!(
                                "the segment {name} has {} line(s) but {n} were anchored: lines were removed since",
                                s.hashes.len()
                            )
                        } else {
                            format!(
                                "line {n} of the segment {name} is not the record anchored: the segment was rewritten since it was anchored"
                            )
                        };
                        out.push(with_segment(ChainProblem::new(i, "anchor", msg), &rel));
                    }
                }
            }
        }
    }
    out
}

/// The problem with its segment named (the field, and the start of the message).
pub fn with_segment(mut p: ChainProblem, rel: &str) -> ChainProblem {
    if rel != TRACE_FILE {
        p.segment = rel.to_string();
        if !p.message.starts_with(rel) {
            p.message = format!("{rel}: {}", p.message);
        }
    }
    p
}

/// The verdict in one sentence, as `trace verify` prints it.
pub fn verdict(
    report: &Report,
    error: Option<&str>,
    records: usize,
    segments: usize,
    anchored: bool,
) -> String {
    if let Some(e) = error {
        return format!("cannot verify the trace: {e}");
    }
    if !report.ok {
        return format!(
            "the trace does not verify: {} problem(s) ({records} record(s) in {segments} segment(s))",
            report.problems.len()
        );
    }
    if records == 0 && segments == 0 {
        return "ok: no trace records".into();
    }
    format!(
        "ok: {records} record(s) in {segments} segment(s), all chains whole, heads match{}",
        if anchored {
            "; the anchored records are in place"
        } else {
            ""
        }
    )
}

/// The `timestamp` of a record line, read without parsing it (hookwise writes it near the
/// start); empty when there is none.
pub fn timestamp_of(line: &str) -> &str {
    const KEY: &str = "\"timestamp\":\"";
    let head = &line.as_bytes()[..line.len().min(256)];
    let Some(at) = head.windows(KEY.len()).position(|w| w == KEY.as_bytes()) else {
        return "";
    };
    let start = at + KEY.len();
    let rest = &line[start..];
    match rest.find('"') {
        Some(end) if end <= 40 => &rest[..end],
        _ => "",
    }
}

/// The records of every segment as one log, oldest first (merged by time, each segment's
/// order kept), and where each of its lines comes from: `(segment index, 1-based line)`.
pub struct Merged {
    pub text: String,
    pub origin: Vec<(usize, usize)>,
}

/// Merge the segments' texts (in the order given) by their records' timestamps.
pub fn merge(texts: &[&str]) -> Merged {
    if texts.len() == 1 {
        let t = texts[0].strip_suffix('\n').unwrap_or(texts[0]);
        let n = if t.is_empty() {
            0
        } else {
            t.split('\n').count()
        };
        return Merged {
            text: t.to_string(),
            origin: (1..=n).map(|l| (0, l)).collect(),
        };
    }
    let lines: Vec<Vec<&str>> = texts
        .iter()
        .map(|t| {
            let t = t.strip_suffix('\n').unwrap_or(t);
            if t.is_empty() {
                Vec::new()
            } else {
                t.split('\n').collect()
            }
        })
        .collect();
    let total: usize = lines.iter().map(Vec::len).sum();
    let mut heap = BinaryHeap::new();
    for (s, l) in lines.iter().enumerate() {
        if let Some(first) = l.first() {
            heap.push(Reverse((timestamp_of(first), s, 0usize)));
        }
    }
    let mut text = String::with_capacity(texts.iter().map(|t| t.len()).sum());
    let mut origin = Vec::with_capacity(total);
    while let Some(Reverse((_, s, i))) = heap.pop() {
        if !origin.is_empty() {
            text.push('\n');
        }
        text.push_str(lines[s][i]);
        origin.push((s, i + 1));
        if let Some(next) = lines[s].get(i + 1) {
            heap.push(Reverse((timestamp_of(next), s, i + 1)));
        }
    }
    Merged { text, origin }
}

/// The branch a record line names (`metadata["dev.hookwise"].branch`), if any.
pub fn branch_of(line: &str) -> Option<String> {
    let v: Value = serde_json::from_str(line).ok()?;
    v.get("metadata")?
        .get("dev.hookwise")?
        .get("branch")?
        .as_str()
        .map(str::to_string)
}

/// A segment's entry in an anchor: its name, line count and last line's hash.
pub fn anchor_entry(name: &str, lines: u64, last: &str) -> (String, u64, String) {
    (name.to_string(), lines, last.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths() {
        let a = segment_name("/w", "s", Some("main"), Some("abc"));
        assert_eq!(a.len(), 16);
        assert_ne!(a, segment_name("/w", "s", Some("dev"), Some("abc")));
        assert_ne!(a, segment_name("/w", "s", Some("main"), Some("abd")));
        assert_ne!(a, segment_name("/v", "s", Some("main"), Some("abc")));
        assert_eq!(log_rel(&a), format!(".orchestration/trace/{a}.jsonl"));
        assert_eq!(log_rel(LEGACY_NAME), TRACE_FILE);
        let files = [
            "a.jsonl",
            "a.head",
            "a.jsonl.lock",
            "b.jsonl.torn-1",
            ".x.head",
            "c.head",
        ];
        assert_eq!(names(files.into_iter()), vec!["a", "c"]);
    }

    #[test]
    fn anchors_round_trip() {
        let a = Anchor::of(&[
            ("x".into(), 3, "ab".repeat(32)),
            ("y".into(), 0, super::super::trace::GENESIS.into()),
        ]);
        assert_eq!(a.records, 3);
        assert_eq!(a.segments.len(), 1);
        assert_eq!(Anchor::parse(&a.text()), Some(a));
        assert!(Anchor::parse("{\"records\":1,\"bytes\":2}").is_none());
    }

    #[test]
    fn merging_keeps_each_segment_in_order() {
        let l = |t: &str, x: &str| {
            format!("{{\"version\":\"0.1.0\",\"id\":\"{x}\",\"timestamp\":\"{t}\"}}")
        };
        let a = format!(
            "{}\n{}\n",
            l("2026-01-01T00:00:01.000Z", "a1"),
            l("2026-01-01T00:00:03.000Z", "a2")
        );
        let b = format!("{}\n", l("2026-01-01T00:00:02.000Z", "b1"));
        let m = merge(&[&a, &b]);
        assert_eq!(m.origin, vec![(0, 1), (1, 1), (0, 2)]);
        assert!(m.text.lines().nth(1).unwrap().contains("b1"));
        assert_eq!(timestamp_of(&l("T", "x")), "T");
        assert_eq!(timestamp_of("junk"), "");
    }
}

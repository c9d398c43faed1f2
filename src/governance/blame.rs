//! `hookwise trace blame`: for every line of a file as it is now, the Agent Trace record that
//! wrote it (policy build). Pure: the operation ([`super::ops::trace_blame`]) reads the file, the
//! log and the intents and hands them in.
//!
//! # The rule
//! Attribution follows the content, never commit ids (git is not consulted, so a rebase or a
//! squash changes nothing, and uncommitted work is blamed like committed work). The records
//! that wrote the file (under its path, or under a path it was moved from by a recorded tool,
//! for the records before that move) are taken newest first:
//! - **line granularity** (records with [`LinesWritten`]): the hashes of the lines a range
//!   wrote, with up to three lines of context each side, are anchored where most of them lie
//!   now (a line's vote counts less the more often its text occurs in the file, and a text
//!   found more than [`MAX_OCCURRENCES`] times does not vote: a lone `}` cannot anchor a
//!   range), then lined up with the file there by a longest common subsequence of line hashes
//!   (Myers' diff from the `similar` crate, run on the lines both sides share). A
//!   written line the diff pairs with an equal line makes that line **`agent`**; a written line
//!   the diff pairs with a different line (a replaced run, paired in order) makes that line
//!   **`changed`**: an agent wrote there and the text has changed since. Lines the diff finds
//!   inserted between written lines stay unattributed. A range none of whose lines or context
//!   is found anywhere is taken at its recorded position.
//! - **range granularity** (records from before hookwise kept line hashes, or writes over
//!   [`super::trace::MAX_HASHED_LINES`] lines): a range whose `content_hash` matches the lines
//!   at its recorded position, or at any other position, makes those lines `agent`; a range
//!   whose text is found nowhere makes the lines at its recorded position `changed`. These
//!   lines say `granularity: "range"`.
//! - A line is `agent` for the newest record that wrote its text there; `agent` wins over
//!   `changed` (an older record's text back in place is that record's line); a line neither
//!   finds is **`unattributed`**.
//!
//! So lines that moved because others were inserted above keep their author, a file written
//! whole is that write's, and a line a person edited is `changed`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use similar::{capture_diff_slices, Algorithm, DiffOp};

use super::ranges::{content_hash, split_lines};
use super::trace::{line_hash, Enforcement, LinesWritten, HASH_CHARS};

/// A line text found more often than this in the file does not vote for where a range lies.
pub const MAX_OCCURRENCES: usize = 64;
/// Lines hashed in all, searching where ranges of old records lie now (beyond it a range is
/// only looked for at its recorded position).
const RANGE_SEARCH_BUDGET: usize = 20_000_000;

/// Who a line's record says wrote it: one per record that claimed a line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Writer {
    pub record_id: String,
    pub time: String,
    /// The intent the change was made under (`null`: none was active).
    pub intent: Option<IntentRef>,
    /// The host's profile id (`opencode`, `claude-code`, `codex`, …); empty for records that
    /// did not name it.
    pub host: String,
    pub model: Option<String>,
    pub session: String,
    pub tool: String,
    pub mutation_class: String,
    /// The decisions taken on the call: intent governance's gate (it let the call through),
    /// and enforcement's when it was on.
    pub decisions: Vec<DecisionNote>,
    /// The 1-based line of the trace log holding the record (of its segment, when the trace
    /// is kept in segments).
    pub trace_line: usize,
    /// The segment file holding the record (relative to the worktree), for a trace kept in
    /// segments.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub segment: String,
    /// The branch the record was written on, when it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IntentRef {
    pub id: String,
    /// The intent's name in the intents file now (`null`: no longer there).
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionNote {
    /// `governance` or `enforcement`.
    pub by: &'static str,
    pub decision: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sops: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Agent,
    Changed,
    Unattributed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Granularity {
    Line,
    Range,
}

/// One line of the file, as `--json` and `engine.blame` give it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Line<'a> {
    pub line: usize,
    pub state: State,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub granularity: Option<Granularity>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub writer: Option<&'a Writer>,
}

/// The attribution of every line: `owner[i]` is the index in `writers` of line `i + 1`'s
/// writer, with its state.
#[derive(Debug, Clone, Default)]
pub struct Attribution {
    pub writers: Vec<Writer>,
    pub marks: Vec<Option<Mark>>,
    /// Records that named the file (or a path it was moved from).
    pub records: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub writer: usize,
    pub state: State,
    pub granularity: Granularity,
}

impl Attribution {
    /// The per-line answer.
    pub fn lines(&self) -> Vec<Line<'_>> {
        self.marks
            .iter()
            .enumerate()
            .map(|(i, m)| match m {
                Some(m) => Line {
                    line: i + 1,
                    state: m.state,
                    granularity: Some(m.granularity),
                    writer: self.writers.get(m.writer),
                },
                None => Line {
                    line: i + 1,
                    state: State::Unattributed,
                    granularity: None,
                    writer: None,
                },
            })
            .collect()
    }

    /// Lines per state: (agent, changed, unattributed).
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for m in &self.marks {
            match m.map(|m| m.state) {
                Some(State::Agent) => c.0 += 1,
                Some(State::Changed) => c.1 += 1,
                _ => c.2 += 1,
            }
        }
        c
    }
}

// ---- the records, as blame reads them (every field optional: old or foreign records) ----

#[derive(Deserialize, Default)]
#[serde(default)]
struct RecIn {
    id: String,
    timestamp: String,
    files: Vec<FileIn>,
    metadata: MetaIn,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FileIn {
    path: String,
    conversations: Vec<ConvIn>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ConvIn {
    contributor: Option<ContributorIn>,
    ranges: Vec<RangeIn>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ContributorIn {
    model_id: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RangeIn {
    start_line: usize,
    end_line: usize,
    content_hash: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MetaIn {
    #[serde(rename = "dev.hookwise")]
    hookwise: Option<HwIn>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct HwIn {
    intent_id: Option<String>,
    mutation_class: Option<String>,
    session_id: String,
    tool: String,
    host: String,
    branch: Option<String>,
    blame: Vec<LinesWritten>,
    enforcement: Option<Enforcement>,
}

/// The file now, as the matching sees it.
struct Now {
    hashes: Vec<[u8; HASH_CHARS]>,
    at: HashMap<[u8; HASH_CHARS], Vec<usize>>,
    marks: Vec<Option<Mark>>,
    budget: usize,
}

impl Now {
    fn claim(&mut self, i: usize, writer: usize, g: Granularity) {
        if let Some(m) = self.marks.get_mut(i) {
            if !matches!(m, Some(x) if x.state == State::Agent) {
                *m = Some(Mark {
                    writer,
                    state: State::Agent,
                    granularity: g,
                });
            }
        }
    }

    fn change(&mut self, i: usize, writer: usize, g: Granularity) {
        if let Some(m @ None) = self.marks.get_mut(i) {
            *m = Some(Mark {
                writer,
                state: State::Changed,
                granularity: g,
            });
        }
    }
}

fn decode(s: &str) -> Option<Vec<[u8; HASH_CHARS]>> {
    let b = s.as_bytes();
    if b.len() % HASH_CHARS != 0 {
        return None;
    }
    Some(
        b.chunks(HASH_CHARS)
            .map(|c| {
                let mut h = [0u8; HASH_CHARS];
                h.copy_from_slice(c);
                h
            })
            .collect(),
    )
}

/// Blame `text`, the file at `rel` now, against the trace log `log` (its whole text).
/// `intent_name`: an intent's name in the intents file now.
pub fn blame(
    rel: &str,
    text: &str,
    log: &str,
    intent_name: &dyn Fn(&str) -> Option<String>,
) -> Attribution {
    let lines = split_lines(text);
    let hashes: Vec<[u8; HASH_CHARS]> = lines.iter().map(|l| line_hash(l)).collect();
    let mut at: HashMap<[u8; HASH_CHARS], Vec<usize>> = HashMap::new();
    for (i, h) in hashes.iter().enumerate() {
        at.entry(*h).or_default().push(i);
    }
    let mut now = Now {
        marks: vec![None; hashes.len()],
        hashes,
        at,
        budget: RANGE_SEARCH_BUDGET,
    };
    let mut names: Vec<String> = vec![rel.to_string()];
    let mut needles: Vec<String> = vec![json_needle(rel)];
    let mut writers = Vec::new();
    let mut records = 0;
    let log_lines: Vec<&str> = log.split('\n').collect();
    for (li, raw) in log_lines.iter().enumerate().rev() {
        if raw.is_empty() || !needles.iter().any(|n| raw.contains(n.as_str())) {
            continue;
        }
        let Ok(mut rec) = serde_json::from_str::<RecIn>(raw) else {
            continue;
        };
        let hw = rec.metadata.hookwise.take().unwrap_or_default();
        let mut moved: Vec<String> = Vec::new();
        let mut writer: Option<usize> = None;
        for f in rec.files.iter().filter(|f| names.contains(&f.path)) {
            records += usize::from(writer.is_none());
            let model = f
                .conversations
                .iter()
                .find_map(|c| c.contributor.as_ref().and_then(|c| c.model_id.clone()));
            let w = *writer.get_or_insert_with(|| {
                writers.push(writer_of(&rec, &hw, model, li + 1, intent_name));
                writers.len() - 1
            });
            let lw = hw.blame.iter().find(|b| b.path == f.path);
            if let Some(from) = lw.and_then(|b| b.from.clone()) {
                moved.push(from);
            }
            let ranges = f.conversations.iter().flat_map(|c| c.ranges.iter());
            for (k, r) in ranges.enumerate() {
                match lw.and_then(|b| b.ranges.get(k)) {
                    Some(rl) if !rl.lines.is_empty() => by_lines(&mut now, &lines, w, r, rl),
                    _ => by_range(&mut now, &lines, w, r),
                }
            }
        }
        for m in moved {
            if !names.contains(&m) {
                needles.push(json_needle(&m));
                names.push(m);
            }
        }
    }
    Attribution {
        writers,
        marks: now.marks,
        records,
    }
}

/// The path as it appears inside a record line (a JSON string's content).
fn json_needle(path: &str) -> String {
    let s = serde_json::to_string(path).unwrap_or_default();
    s.trim_matches('"').to_string()
}

fn writer_of(
    rec: &RecIn,
    hw: &HwIn,
    model: Option<String>,
    trace_line: usize,
    intent_name: &dyn Fn(&str) -> Option<String>,
) -> Writer {
    let mut decisions = vec![DecisionNote {
        by: "governance",
        decision: "allow".into(),
        sops: Vec::new(),
        categories: Vec::new(),
    }];
    if let Some(e) = &hw.enforcement {
        decisions.push(DecisionNote {
            by: "enforcement",
            decision: e.decision.clone(),
            sops: e.sops.clone(),
            categories: e.categories.clone(),
        });
    }
    Writer {
        record_id: rec.id.clone(),
        time: rec.timestamp.clone(),
        intent: hw.intent_id.as_ref().map(|id| IntentRef {
            id: id.clone(),
            name: intent_name(id),
        }),
        host: hw.host.clone(),
        model,
        session: hw.session_id.clone(),
        tool: hw.tool.clone(),
        mutation_class: hw.mutation_class.clone().unwrap_or_default(),
        decisions,
        trace_line,
        segment: String::new(),
        branch: hw.branch.clone(),
    }
}

/// Line granularity: anchor the range's hashes (with their context) and diff them there.
fn by_lines(now: &mut Now, lines: &[&str], w: usize, r: &RangeIn, rl: &super::trace::RangeLines) {
    let (Some(pre), Some(mid), Some(post)) = (decode(&rl.pre), decode(&rl.lines), decode(&rl.post))
    else {
        return;
    };
    let seq: Vec<[u8; HASH_CHARS]> = pre.iter().chain(&mid).chain(&post).copied().collect();
    let written = |i: usize| i >= pre.len() && i < pre.len() + mid.len();
    let expected = r.start_line.max(1) as isize - 1 - pre.len() as isize;
    let mut votes: HashMap<isize, f64> = HashMap::new();
    for (i, h) in seq.iter().enumerate() {
        let Some(ps) = now.at.get(h) else { continue };
        if ps.len() > MAX_OCCURRENCES {
            continue;
        }
        let weight = if written(i) { 2.0 } else { 1.0 } / ps.len() as f64;
        for &p in ps {
            *votes.entry(p as isize - i as isize).or_default() += weight;
        }
    }
    let offset = votes
        .iter()
        .max_by(|a, b| {
            a.1.total_cmp(b.1)
                .then_with(|| (b.0 - expected).abs().cmp(&(a.0 - expected).abs()))
        })
        .map_or(expected, |(o, _)| *o);
    let n = now.hashes.len() as isize;
    let slack = 8 + seq.len() as isize / 4;
    let lo = (offset - slack).clamp(0, n) as usize;
    let hi = (offset + seq.len() as isize + slack).clamp(0, n) as usize;
    let window = &now.hashes[lo..hi];
    let Some(pairs) = common_pairs(&seq, window) else {
        return by_range(now, lines, w, r); // too large to line up: by its range
    };
    // each matched pair is a written line still there; between two, the written lines are
    // paired in order with what stands there now (a replaced run)
    let mut prev = (0usize, 0usize);
    for &(i, j) in pairs
        .iter()
        .chain(std::iter::once(&(seq.len(), window.len())))
    {
        for k in 0..(i - prev.0).min(j - prev.1) {
            if written(prev.0 + k) {
                now.change(lo + prev.1 + k, w, Granularity::Line);
            }
        }
        if i < seq.len() {
            if written(i) {
                now.claim(lo + j, w, Granularity::Line);
            }
            prev = (i + 1, j + 1);
        }
    }
}

/// Lines of both sides, beyond which a range is not lined up line by line.
const MAX_DIFF_LINES: usize = 100_000;

/// The pairs `(i, j)` of the longest common subsequence of `a` and `b`, in order. Only the lines
/// whose text the other side also has can be in it, so the diff (Myers, `similar`) runs on those
/// alone: its cost grows with how they were reordered, not with how many lines were replaced.
fn common_pairs(a: &[[u8; HASH_CHARS]], b: &[[u8; HASH_CHARS]]) -> Option<Vec<(usize, usize)>> {
    use std::collections::HashSet;
    let in_a: HashSet<&[u8; HASH_CHARS]> = a.iter().collect();
    let in_b: HashSet<&[u8; HASH_CHARS]> = b.iter().collect();
    let ai: Vec<usize> = (0..a.len()).filter(|&i| in_b.contains(&a[i])).collect();
    let bi: Vec<usize> = (0..b.len()).filter(|&j| in_a.contains(&b[j])).collect();
    if ai.len() + bi.len() > MAX_DIFF_LINES {
        return None;
    }
    let fa: Vec<&[u8; HASH_CHARS]> = ai.iter().map(|&i| &a[i]).collect();
    let fb: Vec<&[u8; HASH_CHARS]> = bi.iter().map(|&j| &b[j]).collect();
    let mut pairs = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &fa, &fb) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            pairs.extend((0..len).map(|k| (ai[old_index + k], bi[new_index + k])));
        }
    }
    Some(pairs)
}

/// Range granularity: the range's `content_hash` at its recorded position, else anywhere.
fn by_range(now: &mut Now, lines: &[&str], w: usize, r: &RangeIn) {
    let Some(want) = r.content_hash.as_deref() else {
        return;
    };
    if r.start_line == 0 || r.end_line < r.start_line {
        return;
    }
    let len = r.end_line - r.start_line + 1;
    if len > lines.len() {
        return mark_changed(now, w, r);
    }
    let at_recorded = r.start_line - 1;
    let matches = |s: usize| content_hash(&lines[s..s + len]) == want;
    let found = if at_recorded
        .checked_add(len)
        .is_some_and(|e| e <= lines.len())
        && matches(at_recorded)
    {
        Some(at_recorded)
    } else {
        let mut hit = None;
        for s in 0..=lines.len() - len {
            if now.budget < len {
                break;
            }
            now.budget -= len;
            if s != at_recorded && matches(s) {
                hit = Some(s);
                break;
            }
        }
        hit
    };
    match found {
        Some(s) => (s..s + len).for_each(|i| now.claim(i, w, Granularity::Range)),
        None => mark_changed(now, w, r),
    }
}

fn mark_changed(now: &mut Now, w: usize, r: &RangeIn) {
    let end = r.end_line.min(now.marks.len());
    for i in r.start_line.max(1) - 1..end {
        now.change(i, w, Granularity::Range);
    }
}

/// Characters of a line's text the table shows.
const TEXT_CHARS: usize = 80;

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// The terminal form: a header (counts, the chain's verdict), then one row per line: its
/// number, the writer (intent, host, model, time, tool; `~` before the intent: changed since)
/// and the text. Control characters of the text are shown as `?`.
pub fn table(rel: &str, text: &str, a: &Attribution, chain: &str) -> String {
    let lines = split_lines(text);
    let (ag, ch, un) = a.counts();
    let mut out = format!(
        "{rel}: {} line(s): {ag} agent, {ch} changed since (~), {un} unattributed; {} record(s) name it; chain: {chain}\n",
        lines.len(),
        a.records
    );
    let width = lines.len().to_string().len();
    let cells: Vec<[String; 5]> = a
        .marks
        .iter()
        .map(
            |m| match m.and_then(|m| a.writers.get(m.writer).map(|w| (m, w))) {
                None => Default::default(),
                Some((m, w)) => {
                    let mark = if m.state == State::Changed { "~" } else { "" };
                    let intent = w.intent.as_ref().map_or("-".to_string(), |i| i.id.clone());
                    let model = w
                        .model
                        .as_deref()
                        .map(|m| m.rsplit('/').next().unwrap_or(m))
                        .unwrap_or("-");
                    let time = w.time.get(..16).unwrap_or(&w.time).replace('T', " ");
                    [
                        cut(&format!("{mark}{intent}"), 14),
                        cut(if w.host.is_empty() { "-" } else { &w.host }, 12),
                        cut(model, 22),
                        time,
                        cut(&w.tool, 12),
                    ]
                }
            },
        )
        .collect();
    let mut wid = [0usize; 5];
    for c in &cells {
        for (k, s) in c.iter().enumerate() {
            wid[k] = wid[k].max(s.chars().count());
        }
    }
    for (i, l) in lines.iter().enumerate() {
        let c = &cells[i];
        let shown: String = l
            .chars()
            .map(|ch| {
                if ch.is_control() && ch != '\t' {
                    '?'
                } else {
                    ch
                }
            })
            .collect();
        let mut row = format!("{:>width$} ", i + 1);
        for (k, s) in c.iter().enumerate() {
            row.push_str(&format!(" {s:<w$}", w = wid[k]));
        }
        let row = row.trim_end().to_string();
        let pad = width + 1 + wid.iter().map(|w| w + 1).sum::<usize>();
        out.push_str(&format!("{row:<pad$} │ {}\n", cut(&shown, TEXT_CHARS)));
    }
    out
}

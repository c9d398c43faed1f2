//! Verifying the hash chain of `agent_trace.jsonl` (`hookwise trace verify`).
//!
//! Each record's `metadata["dev.hookwise"].prev_hash` is `sha256:` + the SHA-256 of the exact
//! previous line (the first line's: of the empty string). Walking the file:
//! - a line whose `prev_hash` is the previous line's hash is linked;
//! - `reordered`: it names another line of the file (or the chain's start) as its predecessor;
//! - `broken-link`: it names no line of the file — the line before it was **edited**, or the
//!   lines between were **removed** (the hash alone cannot tell which: both are reported as
//!   possible causes, with the line numbers); at line 1, lines were removed from the start;
//! - `fork`: two lines name the same predecessor (appended without the lock, or copied);
//! - `not-a-record`: not JSON, or no `prev_hash`;
//! - `torn`: the file does not end with a newline (an interrupted write).
//!
//! Lines removed from the **end** leave a valid shorter chain, and the last line is named by
//! no later one: the head file ([`super::head`]) covers the end; [`Report::head`] is the hash
//! of the last line, and the engine also compares with the last line this process appended.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::ranges::sha256_hex;
use super::trace::GENESIS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainProblem {
    /// 1-based line number.
    pub line: usize,
    pub kind: &'static str,
    pub message: String,
    /// The segment file the line is in (relative to the worktree), for a trace kept in
    /// segments ([`super::segments`]); empty for the single-file log.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub segment: String,
}

impl ChainProblem {
    pub fn new(line: usize, kind: &'static str, message: String) -> ChainProblem {
        ChainProblem {
            line,
            kind,
            message,
            segment: String::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub ok: bool,
    /// Number of lines (records or not).
    pub lines: usize,
    /// `sha256:<hex>` of the last line, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    pub problems: Vec<ChainProblem>,
}

/// What verification reads of a record line: its `prev_hash` (hex), its id, and the segment
/// it says it belongs to (`metadata["dev.hookwise"].segment`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineKeys {
    pub prev: String,
    pub id: String,
    pub segment: Option<String>,
}

#[derive(serde::Deserialize)]
struct KeysIn {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    metadata: Option<MetaKeys>,
}

#[derive(serde::Deserialize)]
struct MetaKeys {
    #[serde(rename = "dev.hookwise", default)]
    hookwise: Option<HwKeys>,
}

#[derive(serde::Deserialize)]
struct HwKeys {
    #[serde(default)]
    prev_hash: Option<Value>,
    #[serde(default)]
    segment: Option<Value>,
}

/// The [`LineKeys`] of a record line, if it is one (one typed parse: the rest of the record is
/// skipped, not built).
pub fn keys_of(line: &str) -> Option<LineKeys> {
    let k: KeysIn = serde_json::from_str(line).ok()?;
    let hw = k.metadata?.hookwise?;
    let p = hw.prev_hash?;
    let hex = p.as_str()?.strip_prefix("sha256:")?;
    if !(hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit())) {
        return None;
    }
    Some(LineKeys {
        prev: hex.to_ascii_lowercase(),
        id: k.id.unwrap_or_default(),
        segment: hw.segment.map(|s| match s {
            Value::String(s) => s,
            other => other.to_string(),
        }),
    })
}

/// The `prev_hash` hex of a record line, if it is one.
pub fn prev_hash_of(line: &str) -> Option<String> {
    keys_of(line).map(|k| k.prev)
}

/// A trace file's text cut into lines, with what verification needs of each.
#[derive(Debug, Clone, Default)]
pub struct Lines<'a> {
    pub lines: Vec<&'a str>,
    /// Hex SHA-256 of each line (without its newline).
    pub hashes: Vec<String>,
    /// Byte offset in the text just after each line's newline (or its end, for a torn last line).
    pub ends: Vec<u64>,
    /// The text does not end with a newline.
    pub torn: bool,
}

/// Cut `text` into lines (a final newline ends the last line; it does not start another).
pub fn split(text: &str) -> Lines<'_> {
    let torn = !text.is_empty() && !text.ends_with('\n');
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines: Vec<&str> = if text.is_empty() {
        Vec::new()
    } else {
        body.split('\n').collect()
    };
    let hashes = lines.iter().map(|l| sha256_hex(l.as_bytes())).collect();
    let mut ends = Vec::with_capacity(lines.len());
    let mut at = 0u64;
    for l in &lines {
        at += l.len() as u64 + 1;
        ends.push(at.min(text.len() as u64));
    }
    Lines {
        lines,
        hashes,
        ends,
        torn,
    }
}

/// Verify the whole text of a trace file.
pub fn verify(text: &str) -> Report {
    verify_remembering(text, None)
}

/// [`verify`], and also report when the line whose SHA-256 hex is `last_appended` (the last
/// record this process appended) is not in the file: lines were removed from the end.
pub fn verify_remembering(text: &str, last_appended: Option<&str>) -> Report {
    verify_lines(&split(text), last_appended)
}

/// [`verify_remembering`] on a text already [`split`].
pub fn verify_lines(l: &Lines, last_appended: Option<&str>) -> Report {
    verify_keyed(l, last_appended).0
}

/// [`verify_lines`], and what it read of each line ([`keys_of`]; `None`: not a record).
pub fn verify_keyed(l: &Lines, last_appended: Option<&str>) -> (Report, Vec<Option<LineKeys>>) {
    let mut problems = Vec::new();
    let mut keys: Vec<Option<LineKeys>> = Vec::with_capacity(l.lines.len());
    let torn = l.torn;
    let lines = &l.lines;
    let hashes = &l.hashes;
    let mut by_hash: HashMap<&str, usize> = HashMap::new();
    for (i, h) in hashes.iter().enumerate() {
        by_hash.entry(h.as_str()).or_insert(i);
    }
    let mut successor: HashMap<String, usize> = HashMap::new();

    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        let k = keys_of(line);
        let Some(p) = k.as_ref().map(|k| k.prev.clone()) else {
            keys.push(None);
            problems.push(ChainProblem::new(
                n,
                "not-a-record",
                format!("line {n} is not a hookwise trace record (no valid prev_hash)"),
            ));
            continue;
        };
        keys.push(k);
        if let Some(first) = successor.insert(p.clone(), n) {
            problems.push(ChainProblem::new(n, "fork", format!(
                    "lines {first} and {n} both follow the same record: the chain forked (a line copied, or appended without the lock)"
                )));
        }
        let expected = if i == 0 {
            GENESIS
        } else {
            hashes[i - 1].as_str()
        };
        if p == expected {
            continue;
        }
        let problem = if p == GENESIS {
            ChainProblem::new(
                n,
                "reordered",
                format!("line {n} was the first record of the chain but now follows line {i}"),
            )
        } else if let Some(&j) = by_hash.get(p.as_str()) {
            ChainProblem::new(
                n,
                "reordered",
                if i == 0 {
                    format!("line 1 was written after line {}", j + 1)
                } else if j + 1 < i {
                    let between = if j + 2 == i {
                        format!("line {i} was")
                    } else {
                        format!("lines {}–{i} were", j + 2)
                    };
                    format!(
                        "line {n} was written right after line {}: {between} inserted or moved here",
                        j + 1
                    )
                } else {
                    format!(
                        "line {n} was written after line {}, but follows line {i}",
                        j + 1
                    )
                },
            )
        } else if i == 0 {
            ChainProblem::new(n, "broken-link", "line 1 does not start the chain: lines were removed from the start of the file, or line 1 was edited".into())
        } else {
            ChainProblem::new(n, "broken-link", format!(
                    "line {n} does not follow line {i}: line {i} was edited, or lines between {i} and {n} were removed"
                ))
        };
        problems.push(problem);
    }
    if let Some(h) = last_appended {
        if !hashes.iter().any(|x| x == h) {
            problems.push(ChainProblem::new(lines.len(), "truncated", format!(
                    "the last record this process appended (line hash sha256:{h}) is not in the file: lines were removed from the end"
                )));
        }
    }
    if torn {
        problems.push(ChainProblem::new(
            lines.len(),
            "torn",
            format!(
                "line {} has no final newline (an interrupted write?)",
                lines.len()
            ),
        ));
    }
    (
        Report {
            ok: problems.is_empty(),
            lines: lines.len(),
            head: hashes.last().map(|h| format!("sha256:{h}")),
            problems,
        },
        keys,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::classify::MutationClass;
    use crate::governance::trace::{chained, record, RecordInput};

    /// A valid chain of `n` records, as the host would append them.
    fn chain(n: usize) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        for k in 0..n {
            let input = RecordInput {
                random: [k as u8; 16],
                now_ms: 1_700_000_000_000 + k as i64,
                session_id: "s",
                call_id: "c",
                tool: "write",
                ..Default::default()
            };
            let rec = record(&input, MutationClass::IntentEvolution, vec![]);
            let prev = lines
                .last()
                .map(|l| sha256_hex(l.as_bytes()))
                .unwrap_or_else(|| GENESIS.to_string());
            lines.push(chained(&rec).unwrap().line(&prev));
        }
        lines
    }

    fn text(lines: &[String]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    fn kinds(r: &Report) -> Vec<(usize, &'static str)> {
        r.problems.iter().map(|p| (p.line, p.kind)).collect()
    }

    #[test]
    fn intact_chain_verifies() {
        let l = chain(5);
        let r = verify(&text(&l));
        assert!(r.ok, "{r:?}");
        assert_eq!(r.lines, 5);
        assert_eq!(
            r.head,
            Some(format!("sha256:{}", sha256_hex(l[4].as_bytes())))
        );
        assert!(verify("").ok);
    }

    #[test]
    fn edited_line_is_detected() {
        let mut l = chain(5);
        l[2] = l[2].replace("\"write\"", "\"edit\"");
        let r = verify(&text(&l));
        assert_eq!(kinds(&r), vec![(4, "broken-link")]);
        assert!(r.problems[0].message.contains("line 3 was edited"));
    }

    #[test]
    fn removed_lines_are_detected() {
        let mut l = chain(6);
        l.remove(3);
        let r = verify(&text(&l));
        assert_eq!(kinds(&r), vec![(4, "broken-link")]);
        assert!(r.problems[0].message.contains("removed"));
        // from the start
        let l = chain(4)[2..].to_vec();
        assert_eq!(kinds(&verify(&text(&l))), vec![(1, "broken-link")]);
    }

    #[test]
    fn reordered_lines_are_detected() {
        let mut l = chain(5);
        l.swap(1, 3);
        let r = verify(&text(&l));
        assert!(!r.ok);
        assert!(r.problems.iter().all(|p| p.kind == "reordered"), "{r:?}");
        assert_eq!(kinds(&r)[0].0, 2);
        let mut l = chain(3);
        l.swap(0, 1);
        let r = verify(&text(&l));
        assert_eq!(
            kinds(&r),
            vec![(1, "reordered"), (2, "reordered"), (3, "reordered")]
        );
    }

    #[test]
    fn forks_junk_and_torn_lines() {
        let mut l = chain(3);
        l.push(l[2].clone()); // copied line: same predecessor twice
        let r = verify(&text(&l));
        assert!(kinds(&r).contains(&(4, "fork")), "{r:?}");
        let mut l = chain(2);
        l.insert(1, "not json".into());
        let r = verify(&text(&l));
        assert_eq!(kinds(&r), vec![(2, "not-a-record"), (3, "reordered")]);
        assert!(r.problems[1].message.contains("inserted"), "{r:?}");
        let l = chain(2);
        let t = text(&l);
        let r = verify(&t[..t.len() - 1]);
        assert_eq!(kinds(&r), vec![(2, "torn")]);
    }
}

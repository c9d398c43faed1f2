//! The head of the Agent Trace: `.orchestration/agent_trace.head`, one line kept beside the
//! log and replaced (temporary file, then rename) under the log's lock at every append:
//!
//! ```text
//! {"records":12,"bytes":34567,"last":"sha256:<hex SHA-256 of the log's last line>"}
//! ```
//!
//! The hash chain ([`super::chain`]) shows a line edited, removed, inserted or moved anywhere
//! but at the end: removing the last lines leaves a shorter valid chain, and the last line is
//! named by no later line. The head covers the end: `hookwise trace verify` compares the log
//! with it and names the line that was edited, the lines that were cut, an emptied or deleted
//! log, a byte order mark or stray bytes.
//!
//! How the host keeps it (see the governance module docs for the exact steps): before
//! appending it checks that the head is the one it would have written for the log as it is
//! (same size, same last line; a missing head only for an empty or new log). Only then does it
//! write the next head (count + 1); otherwise it leaves the head alone, so a mismatch stays
//! visible to `trace verify` instead of being healed by the next append. Records are always
//! appended: a bad head never loses one.
//!
//! What stays undetectable without a key: the head is computed from the log alone, so anyone
//! who can write both files can rewrite them consistently (cut the last lines and write the
//! head that matches, or replace both with a new valid chain). Anchoring closes that: `hookwise
//! trace head` prints the head for a commit message or a CI log, and `trace verify --anchor
//! '<head>'` later checks that the log still holds that record at that place — whatever was
//! recorded up to an anchor cannot be cut or changed unnoticed.

use serde::{Serialize, Serializer};

use super::chain::{ChainProblem, Lines};
use super::trace::GENESIS;

pub const HEAD_FILE: &str = ".orchestration/agent_trace.head";

/// The head's text around its values: `PARTS[0] + records + PARTS[1] + bytes + PARTS[2] +
/// <hex> + PARTS[3]`. The host fills them in at append time.
pub const PARTS: [&str; 4] = [
    "{\"records\":",
    ",\"bytes\":",
    ",\"last\":\"sha256:",
    "\"}\n",
];

/// Largest number a head may hold (2^53 - 1, what a JS host counts exactly).
const MAX_SAFE: u64 = (1 << 53) - 1;

/// The head of a log: how many lines it has, its size in bytes, and its last line's hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Head {
    pub records: u64,
    pub bytes: u64,
    /// Hex SHA-256 of the last line (of the empty string when there is none).
    #[serde(serialize_with = "prefixed")]
    pub last: String,
}

fn prefixed<S: Serializer>(hex: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("sha256:{hex}"))
}

impl Head {
    /// The head file's exact text (one line, with its newline).
    pub fn text(&self) -> String {
        format!(
            "{}{}{}{}{}{}{}",
            PARTS[0], self.records, PARTS[1], self.bytes, PARTS[2], self.last, PARTS[3]
        )
    }

    /// A head file's text, exactly as [`Head::text`] writes it; `None` for anything else.
    pub fn parse(text: &str) -> Option<Head> {
        let rest = text.strip_prefix(PARTS[0])?;
        let (records, rest) = number(rest)?;
        let rest = rest.strip_prefix(PARTS[1])?;
        let (bytes, rest) = number(rest)?;
        let rest = rest.strip_prefix(PARTS[2])?;
        let (hex, rest) = rest.split_at_checked(64)?;
        if !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) || rest != PARTS[3] {
            return None;
        }
        Some(Head {
            records,
            bytes,
            last: hex.to_string(),
        })
    }

    /// A head a user anchored (pasted from `hookwise trace head`): the same text, spaces
    /// around it and the final newline optional.
    pub fn parse_anchor(s: &str) -> Option<Head> {
        Head::parse(&format!("{}\n", s.trim()))
    }

    /// The head of `log` as it is: its line count, `raw_size` and last line.
    pub fn of_log(log: &Lines, raw_size: u64) -> Head {
        Head {
            records: log.lines.len() as u64,
            bytes: raw_size,
            last: log
                .hashes
                .last()
                .cloned()
                .unwrap_or_else(|| GENESIS.to_string()),
        }
    }

    fn short(&self) -> String {
        format!(
            "{} record(s), {} bytes, last line sha256:{}…",
            self.records,
            self.bytes,
            &self.last[..12.min(self.last.len())]
        )
    }
}

/// A canonical decimal (no sign, no leading zero, at most 2^53 - 1) and what follows it.
fn number(s: &str) -> Option<(u64, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || n > 16 || (n > 1 && s.starts_with('0')) {
        return None;
    }
    let v: u64 = s[..n].parse().ok()?;
    (v <= MAX_SAFE).then_some((v, &s[n..]))
}

fn problem(line: usize, kind: &'static str, message: String) -> ChainProblem {
    ChainProblem::new(line, kind, message)
}

fn lines_range(from: u64, to: u64) -> String {
    if from == to {
        format!("line {from} was")
    } else {
        format!("lines {from}–{to} were")
    }
}

/// Whether `log` holds the record `h` names at the place it names: line `h.records` hashes to
/// `h.last` and ends at byte `h.bytes` (`extra`: bytes before the text, e.g. a byte order mark).
fn holds(log: &Lines, extra: u64, h: &Head) -> bool {
    if h.records == 0 {
        return h.bytes == 0 && h.last == GENESIS;
    }
    let Ok(i) = usize::try_from(h.records - 1) else {
        return false;
    };
    i < log.lines.len() && log.hashes[i] == h.last && log.ends[i] + extra == h.bytes
}

/// The log (`raw_size` bytes, of which `extra` come before its text) against its head.
pub fn check(log: &Lines, raw_size: u64, extra: u64, head: &Head) -> Vec<ChainProblem> {
    let n = log.lines.len() as u64;
    let r = head.records;
    let now = Head::of_log(log, raw_size);
    if now == *head {
        return Vec::new();
    }
    let line = |k: u64| usize::try_from(k).unwrap_or(usize::MAX);
    let says = head.short();
    if n == 0 {
        return vec![problem(
            0,
            "emptied",
            format!("the log is empty but its head says {says}: it was emptied"),
        )];
    }
    if holds(log, extra, head) {
        if r < n {
            return vec![problem(
                line(r + 1),
                "stale-head",
                format!(
                    "{} appended after the record the head names (line {r}; head: {says}): the head stopped being updated — an interrupted append, an older hookwise appending, the head replaced by an older copy, or lines added by hand — so those lines could have been cut or edited unnoticed; if you trust them, run `hookwise trace head --init`",
                    lines_range(r + 1, n)
                ),
            )];
        }
        return vec![problem(
            line(n),
            "bytes",
            format!(
                "the log has {raw_size} bytes but its head says {}: bytes were added after the last line",
                head.bytes
            ),
        )];
    }
    if r > n {
        return vec![problem(
            line(n),
            "cut",
            format!(
                "the head says {says} but the log has {n} line(s): {} removed from the end",
                lines_range(n + 1, r)
            ),
        )];
    }
    if r == n {
        if log.hashes.last() == Some(&head.last) {
            return vec![problem(
                line(n),
                "bytes",
                format!(
                    "the log has {raw_size} bytes but its head says {}: bytes were added or removed outside the records (a byte order mark?)",
                    head.bytes
                ),
            )];
        }
        return vec![problem(
            line(n),
            "edited",
            format!(
                "line {n}, the last, is not the record the head names ({says}): it was edited or replaced"
            ),
        )];
    }
    vec![problem(
        line(r),
        "head-mismatch",
        format!(
            "line {r} is not the record the head names ({says}; the log has {n} lines): it was edited or replaced, or lines before it were removed or inserted"
        ),
    )]
}

/// The log against a head the user anchored earlier: the anchored record must still be there.
pub fn check_anchor(log: &Lines, extra: u64, anchor: &Head) -> Option<ChainProblem> {
    if holds(log, extra, anchor) {
        return None;
    }
    let n = log.lines.len() as u64;
    let says = anchor.short();
    Some(if anchor.records > n {
        problem(
            n as usize,
            "anchor",
            format!(
                "the anchored head ({says}) is beyond the log's {n} line(s): lines were removed since it was anchored"
            ),
        )
    } else {
        problem(
            usize::try_from(anchor.records).unwrap_or(usize::MAX),
            "anchor",
            format!(
                "line {} is not the record anchored ({says}): the log was rewritten since it was anchored",
                anchor.records
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_only_the_exact_text_parses() {
        let h = Head {
            records: 12,
            bytes: 34567,
            last: "ab".repeat(32),
        };
        let t = h.text();
        assert_eq!(
            t,
            format!(
                "{{\"records\":12,\"bytes\":34567,\"last\":\"sha256:{}\"}}\n",
                "ab".repeat(32)
            )
        );
        assert_eq!(Head::parse(&t), Some(h.clone()));
        assert_eq!(
            Head::parse_anchor(&format!("  {}  ", t.trim())),
            Some(h.clone())
        );
        let v = serde_json::to_value(&h).unwrap();
        assert_eq!(v["last"], format!("sha256:{}", "ab".repeat(32)));
        for bad in [
            t.trim_end().to_string(),
            t.replace("12", "012"),
            t.replace("12", "-12"),
            t.replace("12", "99999999999999999"),
            t.replace("ab", "AB"),
            t.replace(&"ab".repeat(32), &"ab".repeat(31)),
            format!("\u{feff}{t}"),
            format!("{t}\n"),
            t.replace(",", ", "),
            String::new(),
        ] {
            assert_eq!(Head::parse(&bad), None, "{bad:?}");
        }
    }
}

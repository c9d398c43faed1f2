//! Which lines of the file as written a mutation produced, and their hashes.
//!
//! - Lines: the text split at `\n`, a trailing `\r` dropped from each line; a final newline
//!   does not start another line; an empty file has no lines. Line numbers are 1-based.
//! - `content_hash` of a range = `sha256:` + hex SHA-256 of its lines, each followed by `\n`
//!   (LF endings whatever the file uses, and the same whether or not the file ends in a
//!   newline), so the hash follows the code when it moves.
//! - write: the whole file. edit (`oldString`→`newString`, or OpenClaw's `edits` list: see
//!   [`edits`]): the lines spanned by the new text
//!   where it landed (located from the old text's offset in the file as it was before,
//!   checked against the file as written; when that fails, the new text is searched for in
//!   the file as written). apply_patch: for each hunk, its resulting lines (context and added)
//!   are located in the file as written, in order, and each run of added lines is one range;
//!   an Add File is the whole file. A pure deletion produces no range.
//! - Fallbacks, when the region cannot be located: the lines between the common prefix and
//!   the common suffix of the file before and after (a superset of what changed), or the
//!   whole file when the earlier text is unknown. Attribution errs on the side of covering.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::patch::{Hunk, HunkLine};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Range {
    pub start_line: usize,
    pub end_line: usize,
    pub content_hash: String,
}

fn hex(d: &[u8]) -> String {
    const H: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(d.len() * 2);
    for b in d {
        s.push(char::from(H[(b >> 4) as usize]));
        s.push(char::from(H[(b & 15) as usize]));
    }
    s
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The file's lines (see the module docs).
pub fn split_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// `sha256:<hex>` of the lines, each followed by `\n`.
pub fn content_hash(lines: &[&str]) -> String {
    let mut h = Sha256::new();
    for l in lines {
        h.update(l.as_bytes());
        h.update(b"\n");
    }
    format!("sha256:{}", hex(&h.finalize()))
}

/// The range of lines `start..=end` (1-based) of `lines`.
pub fn range(lines: &[&str], start: usize, end: usize) -> Range {
    Range {
        start_line: start,
        end_line: end,
        content_hash: content_hash(&lines[start - 1..end]),
    }
}

/// Sort, and merge ranges that overlap or touch.
fn tidy(lines: &[&str], mut spans: Vec<(usize, usize)>) -> Vec<Range> {
    crate::sort::sort(&mut spans);
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s <= last.1 + 1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
        .into_iter()
        .filter(|(s, e)| *s >= 1 && s <= e && *e <= lines.len())
        .map(|(s, e)| range(lines, s, e))
        .collect()
}

/// write: the whole file.
pub fn whole(after: &str) -> Vec<Range> {
    let lines = split_lines(after);
    if lines.is_empty() {
        return Vec::new();
    }
    vec![range(&lines, 1, lines.len())]
}

/// The lines of `after` between the common prefix and suffix with `before`.
pub fn changed_block(before: &str, after: &str) -> Vec<Range> {
    let b = split_lines(before);
    let a = split_lines(after);
    let p = b.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let max_s = b.len().min(a.len()) - p;
    let s = b
        .iter()
        .rev()
        .zip(a.iter().rev())
        .take(max_s)
        .take_while(|(x, y)| x == y)
        .count();
    if p + s >= a.len() {
        return Vec::new();
    }
    vec![range(&a, p + 1, a.len() - s)]
}

fn fallback(before: Option<&str>, after: &str) -> Vec<Range> {
    match before {
        Some(b) => changed_block(b, after),
        None => whole(after),
    }
}

/// The byte offsets of the `\n`s of `text`, to find lines by binary search: counting them
/// up to each match made an edit with many matches quadratic (`replaceAll` of one character
/// in an 80 KB file: 10 s).
fn newlines(text: &str) -> Vec<usize> {
    text.bytes()
        .enumerate()
        .filter(|(_, c)| *c == b'\n')
        .map(|(i, _)| i)
        .collect()
}

/// 1-based line of byte offset `i` (a `\n` belongs to the line it ends).
fn line_of(newlines: &[usize], i: usize) -> usize {
    newlines.partition_point(|&p| p < i) + 1
}

fn span_of(newlines: &[usize], pos: usize, len: usize) -> (usize, usize) {
    (line_of(newlines, pos), line_of(newlines, pos + len - 1))
}

/// `list` entries times file bytes beyond which [`edits`] does not search each new text in the
/// file (a model's list of thousands of edits against a large file) but covers the changed
/// block.
const MAX_EDITS_SEARCH: usize = 64 << 20;

/// edit: `old` replaced by `new` (every occurrence with `replace_all`).
pub fn edit(
    before: Option<&str>,
    after: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Vec<Range> {
    let lines = split_lines(after);
    if new.is_empty() {
        return Vec::new(); // a deletion leaves no lines behind
    }
    let nl = newlines(after);
    // Where the old text was, shifted by the replacements before it.
    if let (Some(b), false) = (before, old.is_empty()) {
        let mut starts: Vec<usize> = b.match_indices(old).map(|(i, _)| i).collect();
        if !replace_all {
            starts.truncate(1);
        }
        if !starts.is_empty() {
            let delta = new.len() as isize - old.len() as isize;
            let mut spans = Vec::new();
            let mut ok = true;
            for (k, s) in starts.iter().enumerate() {
                let pos = *s as isize + k as isize * delta;
                let pos = pos as usize;
                if after.get(pos..pos + new.len()) != Some(new) {
                    ok = false;
                    break;
                }
                spans.push(span_of(&nl, pos, new.len()));
            }
            if ok {
                return tidy(&lines, spans);
            }
        }
    }
    // Search the new text in the file as written.
    let mut found: Vec<usize> = after.match_indices(new).map(|(i, _)| i).collect();
    if found.len() > 1 && !replace_all {
        if before.is_some() {
            return fallback(before, after);
        }
        found.truncate(1);
    }
    if found.is_empty() {
        return fallback(before, after);
    }
    let spans = found.iter().map(|&p| span_of(&nl, p, new.len())).collect();
    tidy(&lines, spans)
}

/// edit with a list of replacements (OpenClaw's `edit`: `edits: [{oldText, newText}]`, applied
/// together against the file as it was): each new text located once in the file as written;
/// when one cannot be placed unambiguously, the changed block (or the whole file) covers them.
pub fn edits(before: Option<&str>, after: &str, list: &[(&str, &str)]) -> Vec<Range> {
    if let [(old, new)] = list {
        return edit(before, after, old, new, false);
    }
    if list.len().saturating_mul(after.len()) > MAX_EDITS_SEARCH {
        return fallback(before, after);
    }
    let lines = split_lines(after);
    let nl = newlines(after);
    let mut spans = Vec::new();
    for (_, new) in list.iter().filter(|(_, n)| !n.is_empty()) {
        let mut found = after.match_indices(new).map(|(i, _)| i);
        match (found.next(), found.next()) {
            (Some(p), None) => spans.push(span_of(&nl, p, new.len())),
            _ => return fallback(before, after),
        }
    }
    tidy(&lines, spans)
}

/// Find `needle` as consecutive lines of `hay` at or after `from` (then anywhere), comparing
/// exactly, then ignoring trailing, then surrounding whitespace. Each line comparison is paid
/// for from `budget` (1 + the shorter line's bytes); `None` when it runs out, as when nothing
/// is found: a file and a hunk of many equal lines cost the search O(lines × hunk lines),
/// minutes for a 160 KB file.
fn find_lines(hay: &[&str], needle: &[&str], from: usize, budget: &mut usize) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    let eqs: [fn(&str, &str) -> bool; 3] = [
        |a, b| a == b,
        |a, b| a.trim_end() == b.trim_end(),
        |a, b| a.trim() == b.trim(),
    ];
    let last = hay.len() - needle.len();
    for eq in eqs {
        for i in (from.min(last + 1)..=last).chain(0..=last) {
            let mut all = true;
            for (k, n) in needle.iter().enumerate() {
                let cost = 1 + hay[i + k].len().min(n.len());
                *budget = budget.checked_sub(cost)?;
                if !eq(hay[i + k], n) {
                    all = false;
                    break;
                }
            }
            if all {
                return Some(i);
            }
        }
    }
    None
}

/// apply_patch Update: each hunk's runs of added lines, located in the file as written.
/// `None` when a hunk with added lines could not be located (the caller falls back).
pub fn patch_hunks(after: &str, hunks: &[Hunk]) -> Option<Vec<Range>> {
    let lines = split_lines(after);
    let mut spans = Vec::new();
    let mut cursor = 0;
    // the searches' work, linear in the file and the patch (a hunk found at or after the
    // previous one costs about the lines it skips)
    let hunk_bytes: usize = hunks
        .iter()
        .flat_map(|h| h.lines.iter())
        .map(|l| match l {
            HunkLine::Context(s) | HunkLine::Add(s) | HunkLine::Remove(s) => s.len() + 1,
        })
        .sum();
    let mut budget = 32usize
        .saturating_mul(after.len().saturating_add(hunk_bytes))
        .saturating_add(1 << 20);
    for h in hunks {
        if !h.lines.iter().any(|l| matches!(l, HunkLine::Add(_))) {
            continue; // pure deletion: nothing to attribute
        }
        let new_side = h.new_side();
        let at = find_lines(&lines, &new_side, cursor, &mut budget)?;
        let mut k = 0; // index in new_side
        let mut run: Option<(usize, usize)> = None;
        for l in &h.lines {
            match l {
                HunkLine::Add(_) => {
                    let n = at + k + 1;
                    run = Some(match run {
                        Some((s, _)) => (s, n),
                        None => (n, n),
                    });
                    k += 1;
                }
                HunkLine::Context(_) => {
                    spans.extend(run.take());
                    k += 1;
                }
                HunkLine::Remove(_) => {}
            }
        }
        spans.extend(run);
        cursor = at + new_side.len();
    }
    Some(tidy(&lines, spans))
}

/// apply_patch Update with fallback.
pub fn patch_update(before: Option<&str>, after: &str, hunks: &[Hunk]) -> Vec<Range> {
    patch_hunks(after, hunks).unwrap_or_else(|| fallback(before, after))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::patch;

    fn spans(r: &[Range]) -> Vec<(usize, usize)> {
        r.iter().map(|x| (x.start_line, x.end_line)).collect()
    }

    #[test]
    fn hashing_is_sha256_of_lf_lines() {
        // sha256("a\nb\n")
        assert_eq!(
            content_hash(&["a", "b"]),
            "sha256:".to_string() + &sha256_hex(b"a\nb\n")
        );
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // CRLF, LF and no final newline hash the same
        let a = whole("x\r\ny\r\n");
        let b = whole("x\ny");
        assert_eq!(a, b);
        assert_eq!(a[0].content_hash, content_hash(&["x", "y"]));
    }

    #[test]
    fn lines_and_whole_file() {
        assert_eq!(split_lines(""), Vec::<&str>::new());
        assert_eq!(split_lines("\n"), vec![""]);
        assert_eq!(split_lines("a\n\nb"), vec!["a", "", "b"]);
        assert!(whole("").is_empty());
        assert_eq!(spans(&whole("a\nb\nc\n")), vec![(1, 3)]);
    }

    #[test]
    fn edit_region_located_from_the_old_offset() {
        let before = "fn a() {}\nfn b() {\n  old();\n}\nfn c() {\n  old();\n}\n";
        let after = before.replacen("  old();\n", "  new1();\n  new2();\n", 1);
        let r = edit(
            Some(before),
            &after,
            "  old();\n",
            "  new1();\n  new2();\n",
            false,
        );
        assert_eq!(spans(&r), vec![(3, 4)]);
        assert_eq!(r[0].content_hash, content_hash(&["  new1();", "  new2();"]));
        // replace_all: both places (second shifted by the first)
        let after = before.replace("old()", "fresh()");
        let r = edit(Some(before), &after, "old()", "fresh()", true);
        assert_eq!(spans(&r), vec![(3, 3), (6, 6)]);
        // the new text also exists elsewhere: the offset still finds the right one
        let before = "x\ny\nz\n";
        let after = "x\nx\nz\n";
        assert_eq!(
            spans(&edit(Some(before), after, "y", "x", false)),
            vec![(2, 2)]
        );
    }

    #[test]
    fn edit_without_the_earlier_text_and_deletions() {
        let after = "a\nb\nNEW\nc\n";
        assert_eq!(spans(&edit(None, after, "old", "NEW", false)), vec![(3, 3)]);
        assert!(edit(Some("a\nold\n"), "a\n", "old\n", "", false).is_empty());
        // fuzzy replacement (indentation changed by the tool): falls back to the changed block
        let before = "a\n  b\nc\n";
        let after = "a\n    B\nc\n";
        assert_eq!(
            spans(&edit(Some(before), after, "b", "  B", false)),
            vec![(2, 2)]
        );
        // nothing known: whole file
        assert_eq!(
            spans(&edit(None, "q\nr\n", "x", "zzz", false)),
            vec![(1, 2)]
        );
    }

    #[test]
    fn changed_block_between_prefix_and_suffix() {
        assert_eq!(
            spans(&changed_block("a\nb\nc\n", "a\nX\nY\nc\n")),
            vec![(2, 3)]
        );
        assert!(changed_block("a\nb\n", "a\n").is_empty());
        assert!(changed_block("a\n", "a\n").is_empty());
        assert_eq!(spans(&changed_block("a\na\n", "a\na\na\n")), vec![(3, 3)]);
    }

    #[test]
    fn patch_hunks_are_located_in_order() {
        let p = patch::parse(
            "*** Update File: f\n@@\n keep\n-gone\n+added1\n+added2\n keep2\n+tail\n@@\n x\n+y\n",
        );
        let patch::FileOp::Update { hunks, .. } = &p[0] else {
            panic!()
        };
        let after = "top\nkeep\nadded1\nadded2\nkeep2\ntail\nmid\nx\ny\nend\n";
        let r = patch_update(None, after, hunks);
        assert_eq!(spans(&r), vec![(3, 4), (6, 6), (9, 9)]);
        assert_eq!(r[0].content_hash, content_hash(&["added1", "added2"]));
        // a hunk that is not in the file: fall back
        let r = patch_update(Some("top\n"), "top\nother\n", hunks);
        assert_eq!(spans(&r), vec![(2, 2)]);
        // whitespace differences are tolerated
        let p = patch::parse("*** Update File: f\n@@\n  a\n+b\n");
        let patch::FileOp::Update { hunks, .. } = &p[0] else {
            panic!()
        };
        assert_eq!(spans(&patch_update(None, "a  \nb\n", hunks)), vec![(2, 2)]);
    }
}

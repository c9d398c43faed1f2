//! Excerpts of a note's text, cut when asked (not while indexing): BuildContext's content
//! previews and the search hits' snippets.

use hookwise_text::markdown::{collapse, cut_words};
use hookwise_text::wikilink::normalize;

/// A preview of `text` from byte offset `from` (the start of a block): that block and the
/// prose after it, whitespace collapsed, at most `max` characters. It stops before a code
/// fence, a heading or a table, and at a blank line once it has a couple of sentences; when
/// cut, it ends at a sentence end that falls late enough, else at a word boundary with `…`.
pub fn preview(text: &str, from: usize, max: usize) -> String {
    let from = floor_boundary(text, from.min(text.len()));
    let end = window_end(text, from, max);
    let end = natural_end(&text[..end], from);
    let collapsed = collapse(&text[from..end], usize::MAX);
    if collapsed.chars().count() <= max {
        return collapsed;
    }
    let cut_at = collapsed
        .char_indices()
        .nth(max)
        .map_or(collapsed.len(), |(i, _)| i);
    let head = &collapsed[..cut_at];
    // The last sentence end, not a list number like `4. `.
    let sentence = head
        .char_indices()
        .zip(head.chars().skip(1))
        .filter(|((i, c), next)| {
            matches!(c, '.' | '!' | '?')
                && *next == ' '
                && !head[..*i].ends_with(|p: char| p.is_ascii_digit())
        })
        .map(|((i, _), _)| i)
        .last();
    if let Some(i) = sentence {
        if i >= head.len() * 3 / 5 {
            return head[..=i].to_string();
        }
    }
    cut_words(head.to_string())
}

/// Where a note's opening starts: the body after blank lines and a leading `# Title` line.
pub fn opening_start(text: &str, body_start: usize) -> usize {
    let mut pos = body_start.min(text.len());
    let mut title_seen = false;
    for line in text[pos..].split_inclusive('\n') {
        let t = line.trim();
        if t.is_empty() || (!title_seen && t.starts_with("# ")) {
            title_seen |= !t.is_empty();
            pos += line.len();
            continue;
        }
        break;
    }
    pos
}

/// Where the section a link names starts in a note: `Heading` (any level; Obsidian's
/// `A#B` nesting names the last one; compared like concept names) → the text under that
/// heading; `^id` → the start of the block that ends with ` ^id` (or precedes a line that is
/// only `^id`). Headings and markers inside fenced code do not count. `None`: no such
/// section.
pub fn section_start(text: &str, body_start: usize, section: &str) -> Option<usize> {
    let body_start = body_start.min(text.len());
    if let Some(id) = section.strip_prefix('^') {
        let id = id.trim();
        if id.is_empty() {
            return None;
        }
        let marker = format!("^{id}");
        let mut para = body_start;
        let mut prev = body_start;
        let mut pos = body_start;
        let mut fence = false;
        for line in text[body_start..].split_inclusive('\n') {
            let t = line.trim();
            if t.starts_with("```") || t.starts_with("~~~") {
                fence = !fence;
            }
            if !fence {
                if t == marker {
                    return Some(prev); // the block above the marker line
                }
                if t.ends_with(&marker)
                    && t[..t.len() - marker.len()].ends_with(char::is_whitespace)
                {
                    return Some(para);
                }
            }
            if t.is_empty() {
                para = pos + line.len();
            } else if para == pos {
                prev = pos;
            }
            pos += line.len();
        }
        return None;
    }
    let want = normalize(section.rsplit('#').next().unwrap_or(section));
    if want.is_empty() {
        return None;
    }
    let mut pos = body_start;
    let mut fence = false;
    for line in text[body_start..].split_inclusive('\n') {
        let t = line.trim();
        pos += line.len();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let hashes = t.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&hashes) && t.as_bytes().get(hashes) == Some(&b' ') {
            let heading = t[hashes..].trim().trim_end_matches('#').trim();
            if normalize(heading) == want {
                // The text under it, blank lines skipped.
                let rest = &text[pos..];
                let skip = rest.len() - rest.trim_start_matches(['\n', '\r', ' ', '\t']).len();
                return Some(pos + skip);
            }
        }
    }
    None
}

/// Where the prose starting at `from` naturally pauses (see [`preview`]), or the end of
/// `text` (the caller passes a bounded slice).
fn natural_end(text: &str, from: usize) -> usize {
    const ENOUGH: usize = 160;
    let mut pos = from;
    let mut first = true;
    while pos < text.len() {
        let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
        let t = text[pos..line_end].trim();
        if !first {
            let long_enough = pos - from >= ENOUGH;
            if t.starts_with("```")
                || t.starts_with("~~~")
                || t.starts_with('#')
                || (t.starts_with('|') && long_enough)
                || (t.is_empty() && long_enough)
            {
                return pos;
            }
        }
        first = false;
        pos = line_end;
    }
    text.len()
}

/// The end of enough raw text from `from` for `max` collapsed characters (collapsing
/// whitespace only ever shrinks a text, so `max + 1` non-space characters are enough).
fn window_end(text: &str, from: usize, max: usize) -> usize {
    // Count characters by their first byte (not a UTF-8 continuation byte); ASCII whitespace
    // does not count. Other whitespace counts, which only makes the window a little short.
    let bytes = &text.as_bytes()[from..];
    let mut seen = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if (b & 0xC0) != 0x80 && !b.is_ascii_whitespace() {
            seen += 1;
            if seen > max {
                // Include that character: the caller can tell the text goes on.
                let mut j = from + i + 1;
                while j < text.len() && !text.is_char_boundary(j) {
                    j += 1;
                }
                return j;
            }
        }
    }
    text.len()
}

/// The largest char boundary ≤ `i`.
pub fn floor_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A search snippet: up to `max` characters of `body` starting a little before the first
/// occurrence (case-insensitive) of any of `needles`, newlines turned into spaces.
pub fn snippet(body: &str, needles: &[String], max: usize) -> String {
    let mut best: Option<usize> = None;
    if !needles.is_empty() {
        let lower = ascii_lower_same_len(body);
        for n in needles.iter().filter(|n| !n.is_empty()) {
            if let Some(i) = lower.find(n.as_str()) {
                if best.is_none_or(|b| i < b) {
                    best = Some(i);
                }
            }
        }
    }
    let at = best.unwrap_or(0);
    // Back up about 40 characters, to the start of a word.
    let mut start = floor_boundary(body, at.saturating_sub(40));
    if start > 0 {
        if let Some(sp) = body[start..at].find(char::is_whitespace) {
            start += sp;
        }
    }
    let end = window_end(body, start, max);
    let s = collapse(&body[start..end], usize::MAX);
    let mut out: String = s.chars().take(max).collect();
    if out.len() < s.len() {
        // Prefer a word boundary near the end.
        if let Some(i) = out.rfind(' ') {
            if i > out.len() * 3 / 4 {
                out.truncate(i);
            }
        }
    }
    out
}

/// Lowercase ASCII letters only, so byte offsets stay valid in the original.
fn ascii_lower_same_len(s: &str) -> String {
    s.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_and_snippets() {
        let t = "One two three.   Four\nfive six seven eight nine ten.";
        assert_eq!(
            preview(t, 0, 100),
            "One two three. Four five six seven eight nine ten."
        );
        assert_eq!(preview(t, 0, 20), "One two three.");
        let long = "word ".repeat(300);
        let p = preview(&long, 0, 500);
        assert!(p.ends_with('…') && p.chars().count() <= 501);
        let body = format!(
            "{}The [[rate limiter]] uses\na token bucket.",
            "filler ".repeat(40)
        );
        let s = snippet(&body, &["token".into()], 200);
        assert!(s.contains("token bucket"), "{s}");
        assert!(!s.contains('\n'));
        assert!(s.chars().count() <= 200);
        assert_eq!(snippet("short", &["zzz".into()], 200), "short");
    }
}

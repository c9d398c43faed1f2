//! Decisions found in a session's messages by heuristic patterns ("decided to", "we will",
//! "chose X over Y", "instead of", "going with", "let's use" …), one sentence each, outside
//! code, deduplicated, the most recent kept, each clipped.

use std::collections::HashSet;

use super::concepts::prose;

pub const MAX_DECISIONS: usize = 10;
pub const MAX_DECISION_CHARS: usize = 200;
const MIN_DECISION_CHARS: usize = 12;

/// Phrases that mark a decision on their own (matched on word boundaries, lowercase).
const PHRASES: &[&str] = &[
    "decided to",
    "decided on",
    "decided that",
    "decided against",
    "decision:",
    "the decision is",
    "we will",
    "we'll",
    "we’ll",
    "i will use",
    "i'll use",
    "going with",
    "go with",
    "let's use",
    "let’s use",
    "let us use",
    "let's go with",
    "instead of",
    "opted for",
    "opt for",
    "settled on",
    "agreed to",
    "we agreed",
    "switched to",
    "switching to",
];

/// Verb + " over " in the same sentence: "chose X over Y", "prefer X over Y".
const OVER_VERBS: &[&str] = &[
    "chose",
    "choose",
    "chosen",
    "prefer",
    "preferred",
    "picked",
    "pick",
];

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// `phrase` in `hay` (both lowercase), not inside a longer word.
fn has_phrase(hay: &str, phrase: &str) -> bool {
    let h = hay.as_bytes();
    let p = phrase.as_bytes();
    let mut from = 0;
    while let Some(i) = hay[from..].find(phrase) {
        let s = from + i;
        let e = s + p.len();
        let before_ok = s == 0 || !is_word_byte(h[s - 1]) || !is_word_byte(p[0]);
        let after_ok = e >= h.len() || !is_word_byte(h[e]) || !is_word_byte(p[p.len() - 1]);
        if before_ok && after_ok {
            return true;
        }
        from = s + 1;
        while !hay.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

/// True when the sentence reads like a decision.
pub fn is_decision(sentence: &str) -> bool {
    let s = sentence.trim();
    if s.chars().count() < MIN_DECISION_CHARS || s.ends_with('?') {
        return false;
    }
    // (char by char: the same text for these ASCII phrases, and `str::to_lowercase` with its
    // final-sigma rule costs 4 KB of wasm)
    let lower: String = s.chars().flat_map(char::to_lowercase).collect();
    if PHRASES.iter().any(|p| has_phrase(&lower, p)) {
        return true;
    }
    OVER_VERBS.iter().any(|v| has_phrase(&lower, v)) && has_phrase(&lower, "over")
}

const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "etc", "vs", "cf", "approx", "dr", "mr", "ms"];

/// Split prose into sentences: at line breaks and at `.`, `!`, `?` followed by a space
/// (not after a common abbreviation). List markers and heading marks are dropped.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut l = line.trim();
        for m in ["- ", "* ", "+ ", "> "] {
            if let Some(r) = l.strip_prefix(m) {
                l = r.trim_start();
            }
        }
        l = l.trim_start_matches('#').trim_start();
        if let Some(p) = l.find(". ") {
            if p <= 3 && l[..p].bytes().all(|b| b.is_ascii_digit()) {
                l = l[p + 2..].trim_start();
            }
        }
        let b = l.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if (c == b'.' || c == b'!' || c == b'?')
                && i + 1 < b.len()
                && (b[i + 1] == b' ' || b[i + 1] == b'\t')
            {
                let word_start = l[..i]
                    .rfind(|ch: char| ch.is_whitespace() || ch == '(')
                    .map(|k| k + 1)
                    .unwrap_or(0);
                let word = l[word_start..i].to_ascii_lowercase();
                if c == b'.' && ABBREVIATIONS.contains(&word.as_str()) {
                    i += 1;
                    continue;
                }
                let s = l[start..=i].trim();
                if !s.is_empty() {
                    out.push(s);
                }
                start = i + 1;
            }
            i += 1;
        }
        let s = l[start..].trim();
        if !s.is_empty() {
            out.push(s);
        }
    }
    out
}

fn clip_words(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max - 1).collect();
    let at = cut.rfind(' ').filter(|&i| i > max / 2).unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end())
}

fn key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The decisions in `texts` (in order, oldest first): deduplicated, the `max` most recent,
/// each at most [`MAX_DECISION_CHARS`] characters.
pub fn extract<S: AsRef<str>>(texts: &[S], max: usize) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut found: Vec<String> = Vec::new();
    for t in texts {
        let p = prose(t.as_ref());
        for s in sentences(&p) {
            if !is_decision(s) {
                continue;
            }
            let d = clip_words(s, MAX_DECISION_CHARS);
            if seen.insert(key(&d)) {
                found.push(d);
            }
        }
    }
    let skip = found.len().saturating_sub(max);
    found.split_off(skip)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        for yes in [
            "We decided to use Postgres for the event store.",
            "We will ship the migration on Friday.",
            "We'll keep the old API for one release.",
            "I chose [[jwt]] over server-side sessions.",
            "Use a token bucket instead of a fixed window.",
            "Going with RS256 for signing.",
            "Let's use the warm MCP session for lookups.",
            "After some back and forth we settled on three retries.",
            "Decision: no retries on 4xx.",
        ] {
            assert!(is_decision(yes), "{yes}");
        }
        for no in [
            "Should we use Postgres?",
            "The build is green.",
            "Hover over the icon to see it.",
            "Instead",
            "Then we willingly waited for the build.",
            "Run `cargo test` and look at the output.",
        ] {
            assert!(!is_decision(no), "{no}");
        }
    }

    #[test]
    fn sentences_split_sensibly() {
        let s = sentences("First one. Second one! Third, e.g. with an abbreviation? Fourth\n- listed item\n1. numbered item\n## We will head");
        assert_eq!(
            s,
            vec![
                "First one.",
                "Second one!",
                "Third, e.g. with an abbreviation?",
                "Fourth",
                "listed item",
                "numbered item",
                "We will head"
            ]
        );
        assert_eq!(sentences("v1.5 is out"), vec!["v1.5 is out"]);
    }

    #[test]
    fn extraction_dedupes_skips_code_keeps_recent_and_clips() {
        let msgs = vec![
            "Let's look at it. We decided to use Postgres. Is that fine?".to_string(),
            "```\n// we will never see this decided to\n```\nWe  decided to use postgres!"
                .to_string(),
            format!("We will {} end.", "very ".repeat(100)),
        ];
        let d = extract(&msgs, 10);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0], "We decided to use Postgres.");
        assert!(d[1].chars().count() <= MAX_DECISION_CHARS);
        assert!(d[1].ends_with('…'));
        let many: Vec<String> = (0..30)
            .map(|i| format!("We decided to do thing number {i}."))
            .collect();
        let d = extract(&many, 10);
        assert_eq!(d.len(), 10);
        assert_eq!(d[0], "We decided to do thing number 20.");
        assert_eq!(d[9], "We decided to do thing number 29.");
        assert!(extract(&["", "\u{FFFD}\u{FFFD}", "no decisions here at all"], 10).is_empty());
    }

    #[test]
    fn ten_megabytes_of_text() {
        let mut s = String::new();
        while s.len() < 10 * 1024 * 1024 {
            s.push_str("Some filler sentence that says nothing. ");
        }
        s.push_str("Finally we decided to stop.");
        let d = extract(&[s], 10);
        assert_eq!(d, vec!["Finally we decided to stop."]);
    }
}

//! Knowledge kept through compaction: a preservation block for the summary prompt
//! (`output.context`, never `output.prompt`) and a compaction memory written with WriteMemory.
//!
//! Nothing secret is kept: the session's texts are redacted ([`crate::redact`]) before
//! concepts and decisions are taken from them, and the memory's title, content and tags are
//! redacted again as they are written.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::concepts::Tally;
use super::decisions::{self, MAX_DECISIONS};
use crate::redact::{redact, MARKER};
use crate::wikilink;

pub const MAX_CONCEPTS: usize = 20;
/// The block stays under 500 tokens (≈4 characters a token), with a margin.
pub const BLOCK_MAX_CHARS: usize = 480 * 4;
/// The compaction memory's content is capped (it goes to the CLI as one argv element).
pub const MEMORY_MAX_CHARS: usize = 8000;
/// A concept name longer than this is not listed (it is not a concept, it is a sentence).
const MAX_CONCEPT_CHARS: usize = 60;
/// At most this much message text (the most recent) is scanned.
pub const MAX_SCAN_CHARS: usize = 8 * 1024 * 1024;

pub const BLOCK_TITLE: &str = "## Knowledge Graph Preservation (hookwise)";

const GUIDANCE: &str = "Keep the knowledge-graph links in your summary:
- Write key concepts as [[WikiLinks]]: lowercase, hyphen-separated names (e.g. [[rest-api]], [[session-tokens]]), one concept per link.
- Reuse the existing concepts listed below instead of inventing new spellings.
- Keep decisions with their reasons and link the concepts they involve.";

/// One message of the session, as the host flattens it (text parts joined).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MessageText {
    pub role: String,
    pub text: String,
}

/// The host's reply to `Request::SessionMessages`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MessagesReply {
    pub messages: Vec<MessageText>,
    pub error: Option<String>,
}

/// The texts worth scanning: the most recent up to [`MAX_SCAN_CHARS`], oldest first, without
/// hookwise's own injected session context, each with its credentials redacted. A text cut to
/// fit starts at a word (no tail of a token is left); one cut inside a `<private>` span or a
/// private key block loses everything up to the span's end.
pub fn scan_texts(messages: &[MessageText]) -> Vec<Cow<'_, str>> {
    let mut out: Vec<&str> = Vec::new();
    let mut budget = MAX_SCAN_CHARS;
    for m in messages.iter().rev() {
        let t = m.text.as_str();
        if t.trim_start().starts_with(super::format::HEADER) || t.trim().is_empty() {
            continue;
        }
        if t.len() > budget {
            let cut = t.len() - budget;
            let cut = t[cut..]
                .find(char::is_whitespace)
                .map_or(t.len(), |k| cut + k);
            out.push(&t[cut..]);
            break;
        }
        budget -= t.len();
        out.push(t);
    }
    out.reverse();
    out.into_iter().map(redact).collect()
}

/// The session's top concepts: WikiLinks ranked by the number of messages they appear in.
pub fn session_concepts<S: AsRef<str>>(texts: &[S], max: usize) -> Vec<String> {
    let mut t = Tally::default();
    for (i, text) in texts.iter().enumerate() {
        t.add_links(text.as_ref(), &i.to_string());
    }
    t.ranked()
        .into_iter()
        .map(|c| c.name)
        .filter(|n| n.chars().count() <= MAX_CONCEPT_CHARS && !is_redacted(n))
        .take(max)
        .collect()
}

/// The decisions of the session (the most recent [`MAX_DECISIONS`]).
pub fn session_decisions<S: AsRef<str>>(texts: &[S]) -> Vec<String> {
    decisions::extract(texts, MAX_DECISIONS)
}

/// A concept made of a redaction marker (`[[ghp_…]]` redacted) is no concept.
fn is_redacted(concept: &str) -> bool {
    concept
        .to_ascii_lowercase()
        .contains(&MARKER[1..].to_ascii_lowercase())
}

fn links(concepts: &[String]) -> String {
    concepts
        .iter()
        .map(|c| format!("[[{c}]]"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The block pushed onto the compaction prompt's context: guidance, the concepts, the
/// decisions; never over [`BLOCK_MAX_CHARS`] characters (decisions, the oldest first, then
/// concepts, the rarest first, are left out to fit).
pub fn preservation_block(concepts: &[String], decisions: &[String]) -> String {
    let build = |c: &[String], d: &[String]| {
        let mut s = format!("{BLOCK_TITLE}\n{GUIDANCE}");
        if !c.is_empty() {
            s.push_str(&format!("\n\nSession concepts: {}", links(c)));
        }
        if !d.is_empty() {
            s.push_str("\n\nDecisions made in this session:");
            for x in d {
                s.push_str(&format!("\n- {x}"));
            }
        }
        s
    };
    let len = |s: &str| s.chars().count();
    let mut c: Vec<String> = concepts.iter().take(MAX_CONCEPTS).cloned().collect();
    let mut d: Vec<String> = decisions.iter().take(MAX_DECISIONS).cloned().collect();
    loop {
        let s = build(&c, &d);
        if len(&s) <= BLOCK_MAX_CHARS {
            return s;
        }
        if !d.is_empty() {
            d.remove(0);
        } else if !c.is_empty() {
            c.pop();
        } else {
            return s.chars().take(BLOCK_MAX_CHARS).collect();
        }
    }
}

/// A civil date and time (UTC) from milliseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

/// The latest instant accepted (9999-12-31T23:59:59.999Z).
const MAX_MS: f64 = 253_402_300_799_999.0;

/// Convert host time to a UTC civil date (Howard Hinnant's `civil_from_days`). Out-of-range
/// or non-finite values clamp to the epoch / year 9999.
pub fn civil(ms: f64) -> Civil {
    let ms = if ms.is_finite() {
        ms.max(0.0).min(MAX_MS)
    } else {
        0.0
    };
    let secs = (ms / 1000.0).floor() as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    Civil {
        year,
        month,
        day,
        hour: (rem / 3600) as u32,
        minute: (rem % 3600 / 60) as u32,
        second: (rem % 60) as u32,
    }
}

/// `sessions/compaction/YYYY/MM/DD` (UTC).
pub fn folder(now_ms: f64) -> String {
    let c = civil(now_ms);
    format!(
        "sessions/compaction/{:04}/{:02}/{:02}",
        c.year, c.month, c.day
    )
}

fn words(s: &str, max: usize) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let joined = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    joined
        .chars()
        .take(max)
        .collect::<String>()
        .trim()
        .to_string()
}

/// The memory's title: letters, digits and spaces only (maenifold strips punctuation from
/// titles and makes the file name from them), unique per session and second.
pub fn memory_title(project: &str, session_id: &str, now_ms: f64) -> String {
    let c = civil(now_ms);
    let mut t = format!(
        "Session compaction {} {:04}{:02}{:02} {:02}{:02}{:02} {}",
        words(project, 60),
        c.year,
        c.month,
        c.day,
        c.hour,
        c.minute,
        c.second,
        words(session_id, 60)
    );
    t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    t
}

/// The link every compaction memory has (WriteMemory refuses content without one).
pub fn project_link(project: &str) -> String {
    let p = wikilink::normalize(project);
    let ok = p.chars().any(char::is_alphanumeric)
        && !p.contains(['[', ']', '|', '#'])
        && p.chars().count() <= MAX_CONCEPT_CHARS;
    if ok {
        p
    } else {
        "session-compaction".into()
    }
}

/// The compaction memory's markdown: at least one link, at most [`MEMORY_MAX_CHARS`].
pub fn memory_content(
    project: &str,
    session_id: &str,
    now_ms: f64,
    concepts: &[String],
    decisions: &[String],
) -> String {
    let c = civil(now_ms);
    let head = format!(
        "Compaction of session `{}` in [[{}]] at {:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC.",
        words(session_id, 80),
        project_link(project),
        c.year,
        c.month,
        c.day,
        c.hour,
        c.minute,
        c.second
    );
    let mut s = head;
    s.push_str("\n\n## Concepts\n");
    if concepts.is_empty() {
        s.push_str("No [[WikiLink]] concepts were used in this session.\n");
    } else {
        for x in concepts {
            s.push_str(&format!("- [[{x}]]\n"));
        }
    }
    s.push_str("\n## Decisions\n");
    if decisions.is_empty() {
        s.push_str("None found.\n");
    } else {
        for d in decisions {
            s.push_str(&format!("- {d}\n"));
        }
    }
    let mut s = crate::redact::redact_string(s);
    let marker = "\n[truncated]";
    if s.chars().count() > MEMORY_MAX_CHARS {
        let keep = MEMORY_MAX_CHARS - marker.len();
        let mut cut: String = s.chars().take(keep).collect();
        if let Some(i) = cut.rfind('\n') {
            cut.truncate(i);
        }
        cut.push_str(marker);
        s = cut;
    }
    s
}

/// The WriteMemory payload (the project's name and the session id redacted too: they come
/// from the host).
pub fn write_payload(
    project: &str,
    session_id: &str,
    now_ms: f64,
    concepts: &[String],
    decisions: &[String],
) -> serde_json::Value {
    let (project, session_id) = (&*redact(project), &*redact(session_id));
    let mut tags = vec!["compaction".to_string(), "session".to_string()];
    let p = project.trim();
    if !p.is_empty() {
        tags.push(p.to_string());
    }
    json!({
        "title": memory_title(project, session_id, now_ms),
        "content": memory_content(project, session_id, now_ms, concepts, decisions),
        "folder": folder(now_ms),
        "tags": tags,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: &str, text: &str) -> MessageText {
        MessageText {
            role: role.into(),
            text: text.into(),
        }
    }

    #[test]
    fn civil_dates() {
        let c = civil(0.0);
        assert_eq!((c.year, c.month, c.day, c.hour), (1970, 1, 1, 0));
        // 2026-02-18T20:13:05Z
        let c = civil(1_771_445_585_000.0);
        assert_eq!(
            (c.year, c.month, c.day, c.hour, c.minute, c.second),
            (2026, 2, 18, 20, 13, 5)
        );
        // leap day 2024-02-29T23:59:59.999Z and the next day
        let c = civil(1_709_251_199_999.0);
        assert_eq!(
            (c.year, c.month, c.day, c.hour, c.minute, c.second),
            (2024, 2, 29, 23, 59, 59)
        );
        assert_eq!(
            folder(1_709_251_200_000.0),
            "sessions/compaction/2024/03/01"
        );
        // 2000-12-31 (a leap year's last day, day 366)
        assert_eq!(folder(978_220_800_000.0), "sessions/compaction/2000/12/31");
        assert_eq!(folder(f64::NAN), "sessions/compaction/1970/01/01");
        assert_eq!(folder(-5.0), "sessions/compaction/1970/01/01");
        assert_eq!(folder(1e300), "sessions/compaction/9999/12/31");
        // every day for 400 years round-trips to consecutive dates
        let mut prev = civil(0.0);
        for d in 1..146_097i64 {
            let c = civil((d * 86_400_000) as f64);
            let next_day = (c.year, c.month, c.day) > (prev.year, prev.month, prev.day);
            assert!(
                next_day && c.day >= 1 && c.day <= 31 && c.month <= 12,
                "{d}"
            );
            if c.day > 1 {
                assert_eq!(
                    (c.year, c.month, c.day - 1),
                    (prev.year, prev.month, prev.day)
                );
            }
            prev = c;
        }
        assert_eq!((prev.year, prev.month, prev.day), (2369, 12, 31));
    }

    #[test]
    fn concepts_from_messages_rank_by_messages() {
        let m = vec![
            msg("user", "Fix [[Auth]] with [[JWT]]"),
            msg("assistant", "Looking at [[auth]].\n```\n[[in-code]]\n```"),
            msg(
                "user",
                "## Knowledge Graph Context\n[[injected]] [[injected]]",
            ),
            msg("assistant", "[[jwt]] [[jwt]] [[jwt]] and [[auth]]"),
            msg("user", &format!("[[{}]]", "x".repeat(100))),
        ];
        let texts = scan_texts(&m);
        assert_eq!(texts.len(), 4, "the injected context is not the session's");
        let c = session_concepts(&texts, 20);
        assert_eq!(c, vec!["auth", "jwt"]);
        assert_eq!(session_concepts(&texts, 1), vec!["auth"]);
    }

    #[test]
    fn scan_keeps_the_most_recent_text() {
        let big = "a".repeat(MAX_SCAN_CHARS);
        let m = vec![
            msg("user", "[[old]]"),
            msg("user", &big),
            msg("user", "[[new]]"),
        ];
        let t = scan_texts(&m);
        assert_eq!(t.len(), 2);
        assert_eq!(t[1], "[[new]]");
        assert!(t[0].len() < big.len());
    }

    #[test]
    fn block_fits_and_keeps_guidance() {
        let b = preservation_block(
            &["auth".into(), "jwt".into()],
            &["We decided to use RS256.".into()],
        );
        assert!(b.starts_with(BLOCK_TITLE));
        assert!(b.contains("lowercase, hyphen-separated"));
        assert!(b.contains("Session concepts: [[auth]], [[jwt]]"));
        assert!(b.contains("\n- We decided to use RS256."));
        let only = preservation_block(&[], &[]);
        assert!(!only.contains("Session concepts") && !only.contains("Decisions"));
        let many_c: Vec<String> = (0..40)
            .map(|i| format!("concept-number-{i}-{}", "z".repeat(40)))
            .collect();
        let many_d: Vec<String> = (0..10)
            .map(|i| format!("We decided {i} {}", "w ".repeat(95)))
            .collect();
        let b = preservation_block(&many_c, &many_d);
        assert!(
            b.chars().count() <= BLOCK_MAX_CHARS,
            "{}",
            b.chars().count()
        );
        assert!(b.contains("[[concept-number-0-"));
        assert!(!b.contains("concept-number-20-"), "at most 20 concepts");
        assert!(b.chars().count() / 4 < 500);
    }

    #[test]
    fn memory_content_always_has_a_link_and_is_capped() {
        let s = memory_content("hookwise", "ses_1", 0.0, &[], &[]);
        assert!(s.contains("[[hookwise]]"));
        assert!(!wikilink::concepts(&s, wikilink::ScanMode::Prose).is_empty());
        for junk in ["!!!", " - ", ""] {
            let s = memory_content(junk, "ses_1", 0.0, &[], &[]);
            assert!(s.contains("[[session-compaction]]"), "{junk:?}");
        }
        let s = memory_content(
            "My Project",
            "ses_1",
            0.0,
            &["a".into()],
            &["We will x.".into()],
        );
        assert!(
            s.contains("[[my-project]]") && s.contains("- [[a]]") && s.contains("- We will x.")
        );
        let d: Vec<String> = (0..100).map(|_| "d".repeat(200)).collect();
        let s = memory_content("p", "s", 0.0, &[], &d);
        assert!(s.chars().count() <= MEMORY_MAX_CHARS);
        assert!(s.ends_with("[truncated]") && s.contains("[[p]]"));
    }

    #[test]
    fn payload_shape() {
        let p = write_payload(
            "hookwise",
            "ses_9f:x",
            1_771_445_585_000.0,
            &["a".into()],
            &[],
        );
        assert_eq!(p["folder"], "sessions/compaction/2026/02/18");
        assert_eq!(p["tags"], json!(["compaction", "session", "hookwise"]));
        assert_eq!(
            p["title"],
            "Session compaction hookwise 20260218 201305 ses 9f x"
        );
        assert!(p["content"].as_str().unwrap().contains("[[a]]"));
        assert_eq!(
            write_payload(" ", "s", 0.0, &[], &[])["tags"],
            json!(["compaction", "session"])
        );
    }
}

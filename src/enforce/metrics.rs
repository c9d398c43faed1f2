//! Decision metrics: one JSONL line per decision, chained by hash.
//!
//! A line (fields in this order, compact JSON):
//! `{"seq":n,"ts":ms,"tool":"bash","decision":"block","level":"category","risk":"high",
//!   "categories":["process"],"sops":["git-force-push"],"sources":{"sops":1,"memories":0},
//!   "lookupMs":2.5,"timedOut":false,"cooldownHit":false,"bypass":false,"prev":"<hex>"}`
//!
//! `prev` is the sha256 (hex) of the previous line's exact bytes (64 zeros for the first);
//! `seq` counts from 1. A line holds no command, argument or path, and its texts are redacted
//! ([`chain_line`]). [`verify`] recomputes the chain: an edited line breaks the link to the
//! next one, a deleted line leaves a gap in `seq`, reordered lines run `seq` backwards. The
//! last line is checked against the chain head kept in the state file (it has no successor):
//! truncation and an edited last line show there. This is tamper-evidence against edits
//! by hand or by tools, not against someone who rewrites the whole chain and the state file
//! (that would need a secret key, which a plugin cannot keep from its own user).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::decide::ChainHead;

/// One decision, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(default)]
    pub seq: u64,
    pub ts: f64,
    pub tool: String,
    pub decision: String,
    pub level: String,
    pub risk: String,
    #[serde(default)]
    pub categories: Vec<String>,
    #[serde(default)]
    pub sops: Vec<String>,
    #[serde(default)]
    pub sources: Sources,
    pub lookup_ms: f64,
    #[serde(default)]
    pub timed_out: bool,
    #[serde(default)]
    pub cooldown_hit: bool,
    #[serde(default)]
    pub bypass: bool,
    #[serde(default)]
    pub prev: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sources {
    pub sops: u32,
    pub memories: u32,
}

pub fn sha256_hex(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    let mut out = String::with_capacity(64);
    for b in d {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The line for `event`, chained onto `head` (which moves on). Its texts are redacted
/// ([`crate::redact`]): a line records no command or argument, but the tool's name comes from
/// the host and the SOP ids and categories from the project's files.
pub fn chain_line(event: &Event, head: &mut ChainHead) -> String {
    let mut e = event.clone();
    let r = |s: &mut String| *s = crate::redact::redact_string(std::mem::take(s));
    for s in [&mut e.tool, &mut e.decision, &mut e.level, &mut e.risk]
        .into_iter()
        .chain(e.categories.iter_mut())
        .chain(e.sops.iter_mut())
    {
        r(s);
    }
    e.seq = head.seq + 1;
    e.prev = head.hash.clone();
    let line = serde_json::to_string(&e).unwrap_or_default();
    head.seq = e.seq;
    head.hash = sha256_hex(&line);
    line
}

/// The head after the last line of a metrics text (to continue a chain whose state was lost).
pub fn head_of(text: &str) -> ChainHead {
    match text.lines().rfind(|l| !l.trim().is_empty()) {
        Some(last) => ChainHead {
            seq: serde_json::from_str::<Event>(last)
                .map(|e| e.seq)
                .unwrap_or(0),
            hash: sha256_hex(last),
        },
        None => ChainHead::default(),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// 1-based line number in the file (0: the file as a whole).
    pub line: usize,
    /// `edited`, `deleted`, `reordered`, `unparseable`, `truncated`, `head`.
    pub kind: &'static str,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyReport {
    pub ok: bool,
    pub lines: usize,
    pub problems: Vec<Problem>,
}

/// Check a metrics text. `head`: the chain head from the state file, when there is one.
pub fn verify(text: &str, head: Option<&ChainHead>) -> VerifyReport {
    let mut problems = Vec::new();
    let zero = ChainHead::default().hash;
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
        .collect();
    let hashes: Vec<String> = lines.iter().map(|(_, l)| sha256_hex(l)).collect();
    let mut prev_seq: u64 = 0;
    for (k, (no, line)) in lines.iter().enumerate() {
        let e: Event = match serde_json::from_str(line) {
            Ok(e) => e,
            Err(err) => {
                problems.push(Problem {
                    line: *no,
                    kind: "unparseable",
                    detail: format!("not a metrics record: {err}"),
                });
                continue;
            }
        };
        let expected_prev = if k == 0 { &zero } else { &hashes[k - 1] };
        if k == 0 && e.seq != 1 {
            problems.push(Problem {
                line: *no,
                kind: "deleted",
                detail: format!(
                    "the file starts at record {}: records 1–{} are missing",
                    e.seq,
                    e.seq.saturating_sub(1)
                ),
            });
        } else if k > 0 && e.seq <= prev_seq {
            problems.push(Problem {
                line: *no,
                kind: "reordered",
                detail: format!("record {} comes after record {prev_seq}", e.seq),
            });
        } else if k > 0 && e.seq > prev_seq + 1 {
            problems.push(Problem {
                line: *no,
                kind: "deleted",
                detail: format!(
                    "records {}–{} are missing before this line",
                    prev_seq + 1,
                    e.seq - 1
                ),
            });
        } else if &e.prev != expected_prev {
            // the sequence is intact, so the line before was altered
            let (what, at) = if k == 0 {
                ("the first record's link was altered", *no)
            } else {
                (
                    "altered: its hash no longer matches the next record's link",
                    lines[k - 1].0,
                )
            };
            problems.push(Problem {
                line: at,
                kind: "edited",
                detail: format!("record {} {what}", if k == 0 { e.seq } else { prev_seq }),
            });
        }
        prev_seq = e.seq;
    }
    if let Some(h) = head {
        let last_hash = hashes.last().cloned().unwrap_or_else(|| zero.clone());
        if h.seq > prev_seq {
            problems.push(Problem {
                line: 0,
                kind: "truncated",
                detail: format!(
                    "the state file records {} decisions; the file ends at record {prev_seq}",
                    h.seq
                ),
            });
        } else if h.seq == prev_seq && h.hash != last_hash {
            problems.push(Problem {
                line: lines.last().map(|(n, _)| *n).unwrap_or(0),
                kind: "edited",
                detail: "the last record does not match the chain head in the state file".into(),
            });
        } else if h.seq < prev_seq {
            problems.push(Problem {
                line: 0,
                kind: "head",
                detail: format!(
                    "the state file's chain head is at record {} but the file goes on to {prev_seq} (the state file is older, or records were added by hand)",
                    h.seq
                ),
            });
        }
    }
    VerifyReport {
        ok: problems.is_empty(),
        lines: lines.len(),
        problems,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub decisions: usize,
    pub by_decision: BTreeMap<String, usize>,
    pub by_category: BTreeMap<String, usize>,
    pub lookup_p50_ms: f64,
    pub lookup_p95_ms: f64,
    pub lookup_max_ms: f64,
    pub timed_out: usize,
    pub cooldown_hits: usize,
    pub bypasses: usize,
    /// The SOPs matched most often, with counts (at most 10).
    pub top_sops: Vec<(String, usize)>,
    pub unparseable: usize,
}

/// The nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn summarize(text: &str) -> Summary {
    let mut s = Summary {
        decisions: 0,
        by_decision: BTreeMap::new(),
        by_category: BTreeMap::new(),
        lookup_p50_ms: 0.0,
        lookup_p95_ms: 0.0,
        lookup_max_ms: 0.0,
        timed_out: 0,
        cooldown_hits: 0,
        bypasses: 0,
        top_sops: Vec::new(),
        unparseable: 0,
    };
    let mut lookups = Vec::new();
    let mut sops: BTreeMap<String, usize> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(e) = serde_json::from_str::<Event>(line) else {
            s.unparseable += 1;
            continue;
        };
        s.decisions += 1;
        *s.by_decision.entry(e.decision.clone()).or_default() += 1;
        for c in &e.categories {
            *s.by_category.entry(c.clone()).or_default() += 1;
        }
        for id in &e.sops {
            *sops.entry(id.clone()).or_default() += 1;
        }
        if e.lookup_ms.is_finite() {
            lookups.push(e.lookup_ms);
        }
        s.timed_out += usize::from(e.timed_out);
        s.cooldown_hits += usize::from(e.cooldown_hit);
        s.bypasses += usize::from(e.bypass);
    }
    let o = super::order(lookups.len(), &|a, b| lookups[a].total_cmp(&lookups[b]));
    let lookups = super::arrange(lookups, &o);
    s.lookup_p50_ms = percentile(&lookups, 50.0);
    s.lookup_p95_ms = percentile(&lookups, 95.0);
    s.lookup_max_ms = lookups.last().copied().unwrap_or(0.0);
    let top: Vec<(String, usize)> = sops.into_iter().collect();
    let o = super::order(top.len(), &|a, b| {
        top[b].1.cmp(&top[a].1).then(top[a].0.cmp(&top[b].0))
    });
    let mut top = super::arrange(top, &o);
    top.truncate(10);
    s.top_sops = top;
    s
}

/// The summary as text for `hookwise metrics`.
pub fn render_summary(s: &Summary) -> String {
    let mut out = format!("{} decisions\n", s.decisions);
    for (k, n) in &s.by_decision {
        out.push_str(&format!("  {k}: {n}\n"));
    }
    out.push_str(&format!(
        "lookup: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms; {} past the deadline\n",
        s.lookup_p50_ms, s.lookup_p95_ms, s.lookup_max_ms, s.timed_out
    ));
    out.push_str(&format!(
        "cooldown passes: {}; bypasses: {}\n",
        s.cooldown_hits, s.bypasses
    ));
    if !s.by_category.is_empty() {
        let cats: Vec<String> = s
            .by_category
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        out.push_str(&format!("categories: {}\n", cats.join(", ")));
    }
    if !s.top_sops.is_empty() {
        out.push_str("top SOPs:\n");
        for (id, n) in &s.top_sops {
            out.push_str(&format!("  {n:>5}  {id}\n"));
        }
    }
    if s.unparseable > 0 {
        out.push_str(&format!("{} lines could not be read\n", s.unparseable));
    }
    out
}

/// The verification as text for `hookwise metrics verify`.
pub fn render_verify(r: &VerifyReport) -> String {
    if r.ok {
        return format!("ok: {} records, chain intact\n", r.lines);
    }
    let mut out = format!(
        "FAILED: {} records, {} problem(s)\n",
        r.lines,
        r.problems.len()
    );
    for p in &r.problems {
        if p.line == 0 {
            out.push_str(&format!("  {}: {}\n", p.kind, p.detail));
        } else {
            out.push_str(&format!("  line {}: {}: {}\n", p.line, p.kind, p.detail));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(i: usize) -> Event {
        Event {
            seq: 0,
            ts: 1_700_000_000_000.0 + i as f64,
            tool: "bash".into(),
            decision: ["block", "allow", "acknowledged", "advise"][i % 4].into(),
            level: "category".into(),
            risk: "high".into(),
            categories: vec!["process".into()],
            sops: if i.is_multiple_of(2) {
                vec!["force-push".into()]
            } else {
                vec![]
            },
            sources: Sources {
                sops: 1,
                memories: 0,
            },
            lookup_ms: i as f64,
            timed_out: i == 7,
            cooldown_hit: i % 4 == 2,
            bypass: false,
            prev: String::new(),
        }
    }

    fn log(n: usize) -> (Vec<String>, ChainHead) {
        let mut head = ChainHead::default();
        let lines = (0..n).map(|i| chain_line(&ev(i), &mut head)).collect();
        (lines, head)
    }

    fn kinds(r: &VerifyReport) -> Vec<(usize, &str)> {
        r.problems.iter().map(|p| (p.line, p.kind)).collect()
    }

    #[test]
    fn an_intact_chain_verifies() {
        let (lines, head) = log(10);
        assert!(lines[0].starts_with("{\"seq\":1,\"ts\":"));
        assert!(lines[0].ends_with(&format!("\"prev\":\"{}\"}}", "0".repeat(64))));
        let text = lines.join("\n") + "\n";
        let r = verify(&text, Some(&head));
        assert!(r.ok, "{r:?}");
        assert_eq!(r.lines, 10);
        assert_eq!(head_of(&text), head);
        assert!(verify("", Some(&ChainHead::default())).ok);
    }

    #[test]
    fn edits_deletions_reordering_and_truncation_are_found() {
        let (lines, head) = log(6);
        // an edit in the middle (lookupMs 2 → 0)
        let mut l = lines.clone();
        l[2] = l[2].replace("\"lookupMs\":2.0", "\"lookupMs\":0.0");
        assert_ne!(l[2], lines[2]);
        assert_eq!(
            kinds(&verify(&l.join("\n"), Some(&head))),
            vec![(3, "edited")]
        );
        // a deletion
        let mut l = lines.clone();
        l.remove(3);
        let r = verify(&l.join("\n"), Some(&head));
        assert_eq!(kinds(&r), vec![(4, "deleted")]);
        assert!(r.problems[0].detail.contains("records 4–4"));
        // reordering
        let mut l = lines.clone();
        l.swap(1, 2);
        assert_eq!(
            kinds(&verify(&l.join("\n"), Some(&head)))[0],
            (2, "deleted")
        );
        assert!(kinds(&verify(&l.join("\n"), Some(&head))).contains(&(3, "reordered")));
        // the last line edited: only the head can tell
        let mut l = lines.clone();
        l[5] = l[5].replace("\"decision\":\"allow\"", "\"decision\":\"block\"");
        assert_ne!(l[5], lines[5]);
        assert_eq!(
            kinds(&verify(&l.join("\n"), Some(&head))),
            vec![(6, "edited")]
        );
        assert!(
            verify(&l.join("\n"), None).ok,
            "without the head, the last line cannot be checked"
        );
        // truncation
        let r = verify(&lines[..4].join("\n"), Some(&head));
        assert_eq!(kinds(&r), vec![(0, "truncated")]);
        // the first lines cut off
        assert_eq!(
            kinds(&verify(&lines[2..].join("\n"), Some(&head))),
            vec![(1, "deleted")]
        );
        // garbage
        let mut l = lines.clone();
        l.insert(2, "not json".into());
        let r = verify(&l.join("\n"), Some(&head));
        let k = kinds(&r);
        assert!(k.contains(&(3, "unparseable")), "{k:?}");
        assert!(!verify(&l.join("\n"), Some(&head)).ok);
        assert!(render_verify(&verify(&l.join("\n"), Some(&head))).starts_with("FAILED"));
    }

    #[test]
    fn summary_counts_and_percentiles() {
        let (lines, _) = log(20);
        let s = summarize(&(lines.join("\n") + "\nbroken\n"));
        assert_eq!(s.decisions, 20);
        assert_eq!(s.unparseable, 1);
        assert_eq!(s.by_decision["block"], 5);
        assert_eq!(s.lookup_p50_ms, 9.0);
        assert_eq!(s.lookup_p95_ms, 18.0);
        assert_eq!(s.lookup_max_ms, 19.0);
        assert_eq!(s.top_sops, vec![("force-push".to_string(), 10)]);
        assert_eq!((s.timed_out, s.cooldown_hits), (1, 5));
        let text = render_summary(&s);
        assert!(text.starts_with("20 decisions\n"));
        assert!(text.contains("p50 9.0 ms, p95 18.0 ms"));
        assert_eq!(percentile(&[], 50.0), 0.0);
        assert_eq!(percentile(&[3.0], 95.0), 3.0);
    }
}

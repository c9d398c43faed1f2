//! What the report shows, read from the project's files as the glue handed them in: the Agent
//! Trace's records ([`Change`]), the intents, the enforcement decisions by SOP. Every field is
//! read leniently (the log may have been edited: a line that is not a record is skipped, a
//! missing field is empty) and every text is redacted here, once, before it reaches the page.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::enforce::metrics::Event;
use crate::governance::intents::{self, IntentFile};

/// Redact one text the page will show ([`crate::redact`]: the policy build's full redactor).
pub fn clean(s: &str) -> String {
    crate::redact::redact(s).into_owned()
}

/// One range of lines a record names in one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// One Agent Trace record: one governed change.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Change {
    /// 1-based line of the record in the log.
    pub line: usize,
    pub id: String,
    pub time: String,
    /// Epoch milliseconds of `time` (0 when it does not parse).
    pub ms: i64,
    pub host: String,
    pub model: String,
    pub session: String,
    pub tool: String,
    pub intent: String,
    pub class: String,
    pub files: Vec<(String, Vec<Span>)>,
    /// Files this record moved: (the path now, the path it came from) (blame's vendor data).
    pub moves: Vec<(String, String)>,
    /// Enforcement's decision on the call, when it was on (`advise (SOP: x)`).
    pub enforcement: String,
    /// Where the record came from: the branch it was written on and its trace segment (empty
    /// for records of the single-file log).
    pub branch: String,
    pub segment: String,
}

fn text(v: &Value, path: &[&str]) -> String {
    let mut cur = v;
    for k in path {
        match cur.get(k) {
            Some(n) => cur = n,
            None => return String::new(),
        }
    }
    match cur {
        Value::String(s) => clean(s),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// Epoch milliseconds of an RFC 3339 UTC time as hookwise writes it
/// (`2026-11-22T03:12:03.456Z`); 0 when it is not one.
pub fn epoch_ms(t: &str) -> i64 {
    let b = t.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return 0;
    }
    let num = |r: std::ops::Range<usize>| t.get(r).and_then(|s| s.parse::<i64>().ok());
    let (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(s)) = (
        num(0..4),
        num(5..7),
        num(8..10),
        num(11..13),
        num(14..16),
        num(17..19),
    ) else {
        return 0;
    };
    let ms = if b.get(19) == Some(&b'.') {
        num(20..23).unwrap_or(0)
    } else {
        0
    };
    // days from civil (Howard Hinnant's algorithm)
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    ((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + ms
}

/// The records of the log's text, in the log's order; lines that are not records are skipped
/// (verification reports them).
pub fn changes(log: &str) -> Vec<Change> {
    let mut out = Vec::new();
    for (i, line) in log.split('\n').enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if !v.is_object() {
            continue;
        }
        let meta = ["metadata", "dev.hookwise"];
        let m = |k: &str| text(&v, &[meta[0], meta[1], k]);
        let mut c = Change {
            line: i + 1,
            id: text(&v, &["id"]),
            time: text(&v, &["timestamp"]),
            host: m("host"),
            session: m("session_id"),
            tool: m("tool"),
            intent: m("intent_id"),
            class: m("mutation_class"),
            branch: m("branch"),
            segment: m("segment"),
            ..Change::default()
        };
        c.ms = epoch_ms(&c.time);
        let hw = v.get(meta[0]).and_then(|m| m.get(meta[1]));
        for b in hw
            .and_then(|h| h.get("blame"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (to, from) = (
                b.get("path").and_then(Value::as_str),
                b.get("from").and_then(Value::as_str),
            );
            if let (Some(to), Some(from)) = (to, from) {
                c.moves.push((to.to_string(), from.to_string()));
            }
        }
        if let Some(e) = hw.and_then(|h| h.get("enforcement")) {
            let sops: Vec<&str> = e
                .get("sops")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            c.enforcement = clean(&format!(
                "{}{}",
                e.get("decision").and_then(Value::as_str).unwrap_or("?"),
                if sops.is_empty() {
                    String::new()
                } else {
                    format!(" (SOP: {})", sops.join(", "))
                }
            ));
        }
        for f in v
            .get("files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let path = text(f, &["path"]);
            let mut spans = Vec::new();
            for conv in f
                .get("conversations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if c.model.is_empty() {
                    c.model = text(conv, &["contributor", "model_id"]);
                }
                for r in conv
                    .get("ranges")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let n = |k: &str| r.get(k).and_then(Value::as_u64).unwrap_or(0) as usize;
                    spans.push(Span {
                        start: n("start_line"),
                        end: n("end_line"),
                    });
                }
            }
            if !path.is_empty() {
                c.files.push((path, spans));
            }
        }
        out.push(c);
    }
    out
}

/// One intent as the page shows it (from the intents file; or only named by records).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IntentRow {
    pub id: String,
    pub name: String,
    pub status: String,
    pub scope: Vec<String>,
    /// Records made under it.
    pub changes: usize,
    /// The files its records changed, with how many records each.
    pub files: BTreeMap<String, usize>,
    pub last: String,
    /// Only the records name it (not in the intents file now).
    pub unlisted: bool,
}

/// The intents of the file (in its order), then those only records name; `(none)` collects
/// records without an intent. Problems of the intents file are returned beside.
pub fn intent_rows(file: Option<&str>, changes: &[Change]) -> (Vec<IntentRow>, Vec<String>) {
    let mut rows: Vec<IntentRow> = Vec::new();
    let mut problems = Vec::new();
    if let Some(t) = file {
        let f: IntentFile = intents::parse(crate::governance::ops::INTENTS_FILE, t);
        for i in &f.intents {
            rows.push(IntentRow {
                id: clean(&i.id),
                name: clean(&i.name),
                status: i.status.as_str().to_string(),
                scope: i.owned_scope.iter().map(|s| clean(s)).collect(),
                ..IntentRow::default()
            });
        }
        problems.extend(f.problems.iter().map(|e| clean(&e.to_string())));
    }
    for c in changes {
        let id = if c.intent.is_empty() {
            "(none)"
        } else {
            c.intent.as_str()
        };
        let k = match rows.iter().position(|r| r.id == id) {
            Some(k) => k,
            None => {
                rows.push(IntentRow {
                    id: id.to_string(),
                    unlisted: true,
                    ..IntentRow::default()
                });
                rows.len() - 1
            }
        };
        let r = &mut rows[k];
        r.changes += 1;
        for (p, _) in &c.files {
            *r.files.entry(p.clone()).or_default() += 1;
        }
        if c.time > r.last {
            r.last = c.time.clone();
        }
    }
    (rows, problems)
}

/// Enforcement's decisions on one SOP (or on none: a block by category alone).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SopRow {
    pub sop: String,
    pub blocks: usize,
    pub advice: usize,
    pub tools: BTreeMap<String, usize>,
    pub last_ms: f64,
}

/// The blocks and advice of the metrics file, by SOP (most decisions first); allows are only
/// counted. Returns the rows and the count of each decision kind.
pub fn sop_rows(metrics: &str) -> (Vec<SopRow>, BTreeMap<String, usize>) {
    let mut by: BTreeMap<String, SopRow> = BTreeMap::new();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for line in metrics.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(e) = serde_json::from_str::<Event>(line) else {
            continue;
        };
        let decision = clean(&e.decision);
        *kinds.entry(decision.clone()).or_default() += 1;
        if decision != "block" && decision != "advise" {
            continue;
        }
        let sops = if e.sops.is_empty() {
            vec!["(no SOP: by category)".to_string()]
        } else {
            e.sops.iter().map(|s| clean(s)).collect()
        };
        for s in sops {
            let r = by.entry(s.clone()).or_insert_with(|| SopRow {
                sop: s,
                ..SopRow::default()
            });
            if decision == "block" {
                r.blocks += 1;
            } else {
                r.advice += 1;
            }
            *r.tools.entry(clean(&e.tool)).or_default() += 1;
            r.last_ms = r.last_ms.max(e.ts);
        }
    }
    let mut rows: Vec<SopRow> = by.into_values().collect();
    crate::sort::sort_by(&mut rows, |a, b| {
        (b.blocks + b.advice).cmp(&(a.blocks + a.advice))
    });
    (rows, kinds)
}

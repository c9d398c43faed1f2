//! The page: one HTML document, self-contained (its style inline, no script, no image, no
//! font, no link out) and safe with hostile text. Every text of the records, the intents file,
//! the metrics and the files is model- or repository-controlled: it reaches the page only
//! through [`esc`] (text and attribute values alike), never inside a `<style>`, a URL or a
//! tag name. On top of that the page's Content-Security-Policy forbids every script and every
//! fetch (`default-src 'none'`), so even a mistake in escaping could not run code or call out.
//!
//! Lazy rendering without script: each file's body is in a `<details>` (only the first is
//! open) and every section below the fold has `content-visibility: auto`, so the browser lays
//! out only what is on screen.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::data::{Change, IntentRow, SopRow};
use super::{Attr, Body, FileView, Page};

const CSS: &str = include_str!("page.css");
/// Changes listed in the open table; older ones go into a closed `<details>` below it.
const RECENT: usize = 200;
/// Changes listed in all (the newest): a row is ten elements, and 10,000 of them would be most
/// of the page's load. The timeline's chart counts every change.
const LISTED: usize = 1000;
/// Buckets of the timeline.
const BUCKETS: usize = 48;

/// `s` as HTML text or a double- or single-quoted attribute value.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 8);
    esc_into(&mut o, s);
    o
}

fn esc_into(o: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            // a NUL or another C0 control (but tab and newline) is shown, not passed on
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => o.push('\u{fffd}'),
            c => o.push(c),
        }
    }
}

/// A hue for the n-th intent or agent (spread by the golden angle).
fn hue(n: usize) -> u32 {
    ((n as f64 * 137.508) % 360.0) as u32
}

/// The whole page.
pub fn render(p: &Page) -> String {
    let mut o = String::with_capacity(64 * 1024);
    let title = format!("hookwise trace report — {}", p.project);
    let _ = write!(
        o,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'\">\
<meta name=\"referrer\" content=\"no-referrer\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{}</title><style>{CSS}",
        esc(&title)
    );
    // one class per intent (background) and per agent (the line's left bar)
    let agents = agent_index(&p.changes);
    for (i, _) in p.intents.iter().enumerate() {
        let _ = write!(o, ".i{i}{{--c:hsl({} 70% 50%)}}", hue(i));
    }
    for i in 0..agents.len() {
        let _ = write!(o, ".a{i}{{--b:hsl({} 80% 35%)}}", hue(i + 7));
    }
    o.push_str("</style></head><body>\n");
    verdict(&mut o, p);
    let _ = write!(
        o,
        "<nav><b>{}</b> <a href=\"#intents\">Intents</a> <a href=\"#files\">Files</a> <a href=\"#timeline\">Timeline</a> <a href=\"#enforcement\">Enforcement</a> <span class=\"muted\">generated {} by hookwise {}</span></nav>\n",
        esc(&p.project),
        esc(&p.generated),
        esc(&p.version)
    );
    intents(&mut o, p);
    files(&mut o, p, &agents);
    timeline(&mut o, p);
    enforcement(&mut o, p);
    o.push_str("</body></html>\n");
    o
}

/// The agents (host and model) in the order they first appear.
fn agent_index(changes: &[Change]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    for c in changes {
        let k = (c.host.clone(), c.model.clone());
        if !v.contains(&k) {
            v.push(k);
        }
    }
    v
}

fn agent_name(host: &str, model: &str) -> String {
    match (host.is_empty(), model.is_empty()) {
        (true, true) => "an agent (host and model not recorded)".into(),
        (false, true) => format!("{host} (model not recorded)"),
        (true, false) => model.to_string(),
        (false, false) => format!("{host} · {model}"),
    }
}

/// The verification's verdict in one sentence (the page's heading; the command prints it).
pub fn verdict_text(v: &crate::governance::VerifyOutput) -> String {
    let ok = v.report.ok;
    if ok && v.report.lines == 0 {
        format!("No Agent Trace records yet ({})", v.path)
    } else if ok && v.segments.len() > 1 {
        format!(
            "The Agent Trace verifies: {} record(s) in {} segments, all chains whole, heads match",
            v.report.lines,
            v.segments.len()
        )
    } else if ok {
        format!(
            "The Agent Trace verifies: {} record(s), the chain is whole and ends where its head says",
            v.report.lines
        )
    } else if let Some(e) = &v.error {
        format!("The Agent Trace cannot be verified: {e}")
    } else {
        format!(
            "The Agent Trace does NOT verify: {} problem(s) in {}",
            v.report.problems.len(),
            if v.segments.len() > 1
                || v.segments
                    .first()
                    .is_some_and(|s| s.name != crate::governance::segments::LEGACY_NAME)
            {
                crate::governance::segments::SEGMENT_DIR
            } else {
                v.path.as_str()
            }
        )
    }
}

fn verdict(o: &mut String, p: &Page) {
    let v = &p.verify;
    let ok = v.report.ok;
    let head = verdict_text(v);
    let _ = write!(
        o,
        "<header id=\"verdict\" class=\"verdict {}\" data-ok=\"{ok}\"><h1>{}</h1>",
        if ok { "ok" } else { "fail" },
        esc(&head)
    );
    if !ok {
        o.push_str("<p>What this page shows below was read from the log as it is now: a record that was edited, inserted or reordered is shown as it reads, and cannot be trusted.</p>");
    }
    if !v.report.problems.is_empty() {
        o.push_str("<ul class=\"problems\">");
        for pr in v.report.problems.iter().take(100) {
            let at = if pr.line > 0 {
                format!("line {}: ", pr.line)
            } else {
                String::new()
            };
            let _ = write!(
                o,
                "<li>{}<b>{}</b>: {}</li>",
                esc(&at),
                esc(pr.kind),
                esc(&super::data::clean(&pr.message))
            );
        }
        if v.report.problems.len() > 100 {
            let _ = write!(o, "<li>… and {} more</li>", v.report.problems.len() - 100);
        }
        o.push_str("</ul>");
    }
    o.push_str(
        "<p class=\"muted\">The same check as <code>hookwise trace verify</code>.</p></header>\n",
    );
}

fn intents(o: &mut String, p: &Page) {
    let _ = write!(
        o,
        "<section id=\"intents\"><h2>Intents ({})</h2>",
        p.intents.len()
    );
    for pr in &p.intent_problems {
        let _ = write!(o, "<p class=\"warn\">{}</p>", esc(pr));
    }
    if p.intents.is_empty() {
        o.push_str("<p class=\"muted\">No intents in .orchestration/active_intents.yaml and no records.</p>");
    } else {
        o.push_str("<table><thead><tr><th>intent</th><th>status</th><th>scope</th><th>changes</th><th>files</th><th>last change</th></tr></thead><tbody>");
        for (i, r) in p.intents.iter().enumerate() {
            intent_row(o, i, r);
        }
        o.push_str("</tbody></table>");
    }
    o.push_str("</section>\n");
}

fn intent_row(o: &mut String, i: usize, r: &IntentRow) {
    let status = if r.unlisted {
        if r.id == "(none)" {
            "no intent".to_string()
        } else {
            "not in the intents file".to_string()
        }
    } else {
        r.status.clone()
    };
    let _ = write!(
        o,
        "<tr class=\"intent\"><td><span class=\"sw i{i}\"></span><b>{}</b> {}</td><td class=\"st {}\">{}</td><td>",
        esc(&r.id),
        esc(&r.name),
        esc(&r.status.to_ascii_lowercase()),
        esc(&status)
    );
    for s in &r.scope {
        let _ = write!(o, "<code>{}</code> ", esc(s));
    }
    let _ = write!(o, "</td><td class=\"n\">{}</td><td>", r.changes);
    for (k, (f, n)) in r.files.iter().enumerate() {
        if k == 20 {
            let _ = write!(o, "… {} more", r.files.len() - 20);
            break;
        }
        let _ = write!(o, "<code>{}</code>&nbsp;×{n} ", esc(f));
    }
    let _ = write!(o, "</td><td>{}</td></tr>", esc(&r.last));
}

fn files(o: &mut String, p: &Page, agents: &[(String, String)]) {
    let _ = write!(
        o,
        "<section id=\"files\"><h2>Files ({})</h2><p class=\"muted\">Each line of the file as it is now: its background is the intent it was written under, its left bar the agent; striped: written by an agent and changed since; plain: not written by an agent. Hover a line for its record.</p><div class=\"legend\">",
        p.files.len()
    );
    for (i, (h, m)) in agents.iter().enumerate() {
        let _ = write!(
            o,
            "<span class=\"ag a{i}\">{}</span> ",
            esc(&agent_name(h, m))
        );
    }
    o.push_str("</div>");
    for (k, f) in p.files.iter().enumerate() {
        file(o, p, f, k == 0, agents);
    }
    if p.files_left > 0 {
        let _ = write!(
            o,
            "<p class=\"muted\">{} more changed file(s) not shown (the page shows the most recently changed {}).</p>",
            p.files_left,
            p.files.len()
        );
    }
    o.push_str("</section>\n");
}

fn detail(p: &Page, c: &Change, state: &str) -> String {
    let name = p
        .intents
        .iter()
        .find(|r| r.id == c.intent)
        .map(|r| r.name.as_str())
        .unwrap_or("");
    format!(
        "{state}\nintent: {} {}\nagent: {}\ntime: {}\ntool: {} ({})\nsession: {}\nrecord: {} ({})",
        if c.intent.is_empty() {
            "(none)"
        } else {
            &c.intent
        },
        name,
        agent_name(&c.host, &c.model),
        c.time,
        c.tool,
        c.class,
        c.session,
        c.id,
        origin(c)
    ) + &if c.enforcement.is_empty() {
        String::new()
    } else {
        format!("\nenforcement: {}", c.enforcement)
    }
}

fn file(o: &mut String, p: &Page, f: &FileView, open: bool, agents: &[(String, String)]) {
    let (mut agent, mut changed, mut other) = (0, 0, 0);
    if let Body::Lines(lines) = &f.body {
        for l in lines {
            match l.attr {
                Attr::Agent(_) => agent += 1,
                Attr::Changed(_) => changed += 1,
                Attr::None => other += 1,
            }
        }
    }
    let _ = write!(
        o,
        "<details class=\"file\"{}><summary><code>{}</code> <span class=\"muted\">{agent} line(s) by agents, {changed} changed since, {other} other</span></summary>",
        if open { " open" } else { "" },
        esc(&f.path)
    );
    match &f.body {
        Body::Note(n) => {
            let _ = write!(o, "<p class=\"muted\">{}</p>", esc(n));
        }
        Body::Redacted(t) => {
            o.push_str("<p class=\"warn\">The file holds a secret over several lines: it is shown redacted, without its attribution.</p><pre class=\"code plain\">");
            esc_into(o, t);
            o.push_str("</pre>");
        }
        Body::Lines(lines) => {
            o.push_str("<pre class=\"code\">");
            let mut k = 0;
            while k < lines.len() {
                // one group per run of lines with the same attribution: one hover text each
                let a = lines[k].attr;
                let mut e = k;
                while e < lines.len() && lines[e].attr == a {
                    e += 1;
                }
                match a {
                    Attr::None => o.push_str("<span class=\"g\">"),
                    Attr::Agent(c) | Attr::Changed(c) => {
                        let ch = &p.changes[c];
                        let ii = p.intents.iter().position(|r| {
                            r.id == if ch.intent.is_empty() {
                                "(none)"
                            } else {
                                ch.intent.as_str()
                            }
                        });
                        let ai = agents
                            .iter()
                            .position(|(h, m)| *h == ch.host && *m == ch.model)
                            .unwrap_or(0);
                        let (cls, state) = if matches!(a, Attr::Agent(_)) {
                            ("ag", "written by an agent")
                        } else {
                            ("chg", "written by an agent, changed since")
                        };
                        let _ = write!(
                            o,
                            "<span class=\"g {cls} i{} a{ai}\" title=\"{}\">",
                            ii.unwrap_or(0),
                            esc(&detail(p, ch, state))
                        );
                    }
                }
                for l in &lines[k..e] {
                    o.push_str("<span class=\"l\">");
                    esc_into(o, &l.text);
                    o.push_str("</span>");
                }
                o.push_str("</span>");
                k = e;
            }
            o.push_str("</pre>");
        }
    }
    o.push_str("</details>\n");
}

fn timeline(o: &mut String, p: &Page) {
    let _ = write!(
        o,
        "<section id=\"timeline\"><h2>Timeline ({} change(s))</h2>",
        p.changes.len()
    );
    let times: Vec<i64> = p.changes.iter().map(|c| c.ms).filter(|m| *m > 0).collect();
    if let (Some(&lo), Some(&hi)) = (times.iter().min(), times.iter().max()) {
        let span = (hi - lo).max(1);
        let bucket = |ms: i64| (((ms - lo) as f64 / span as f64) * (BUCKETS - 1) as f64) as usize;
        let mut rows: BTreeMap<usize, [u32; BUCKETS]> = BTreeMap::new();
        for c in p.changes.iter().filter(|c| c.ms > 0) {
            let id = if c.intent.is_empty() {
                "(none)"
            } else {
                c.intent.as_str()
            };
            let i = p.intents.iter().position(|r| r.id == id).unwrap_or(0);
            rows.entry(i).or_insert([0; BUCKETS])[bucket(c.ms)] += 1;
        }
        let max = rows
            .values()
            .flat_map(|r| r.iter())
            .copied()
            .max()
            .unwrap_or(1)
            .max(1);
        let first = p
            .changes
            .iter()
            .filter(|c| c.ms == lo)
            .map(|c| c.time.as_str())
            .next()
            .unwrap_or("");
        let last = p
            .changes
            .iter()
            .filter(|c| c.ms == hi)
            .map(|c| c.time.as_str())
            .next()
            .unwrap_or("");
        let _ = write!(
            o,
            "<p class=\"muted\">From {} to {}, changes per intent in {BUCKETS} equal spans of time.</p><div class=\"tl\">",
            esc(first),
            esc(last)
        );
        for (i, counts) in &rows {
            let _ = write!(o, "<div class=\"tlr\"><span class=\"tll\"><span class=\"sw i{i}\"></span>{}</span><span class=\"bars\">", esc(&p.intents[*i].id));
            for n in counts {
                let h = (*n as f64 * 100.0 / max as f64).round();
                let _ = write!(
                    o,
                    "<i class=\"i{i}\" style=\"height:{h}%\" title=\"{n} change(s)\"></i>"
                );
            }
            o.push_str("</span></div>");
        }
        o.push_str("</div>");
    }
    // newest first
    let mut order: Vec<usize> = (0..p.changes.len()).collect();
    crate::sort::sort_by(&mut order, |a, b| {
        p.changes[*b].ms.cmp(&p.changes[*a].ms).then(b.cmp(a))
    });
    let head = "<table class=\"changes\"><thead><tr><th>time</th><th>intent</th><th>agent</th><th>tool</th><th>class</th><th>files (lines)</th></tr></thead><tbody>";
    o.push_str(head);
    for (k, &c) in order.iter().enumerate().take(LISTED) {
        if k == RECENT {
            let _ = write!(
                o,
                "</tbody></table><details class=\"older\"><summary>{} older change(s)</summary>{head}",
                order.len().min(LISTED) - RECENT
            );
        }
        change_row(o, p, &p.changes[c]);
    }
    o.push_str("</tbody></table>");
    if order.len() > LISTED {
        let _ = write!(
            o,
            "<p class=\"muted\">{} older change(s) are not listed here: they are in .orchestration/agent_trace.jsonl, and in each file's lines above.</p>",
            order.len() - LISTED
        );
    }
    if order.len() > RECENT {
        o.push_str("</details>");
    }
    o.push_str("</section>\n");
}

/// Where a record came from: its branch and segment, or its line in the single-file log.
fn origin(c: &Change) -> String {
    match (c.segment.is_empty(), c.branch.is_empty()) {
        (true, _) => format!("line {} of the log", c.line),
        (false, true) => format!("segment {}", c.segment),
        (false, false) => format!("branch {}, segment {}", c.branch, c.segment),
    }
}

fn change_row(o: &mut String, p: &Page, c: &Change) {
    let id = if c.intent.is_empty() {
        "(none)"
    } else {
        c.intent.as_str()
    };
    let i = p.intents.iter().position(|r| r.id == id).unwrap_or(0);
    let _ = write!(
        o,
        "<tr><td>{}{}</td><td><span class=\"sw i{i}\"></span>{}</td><td>{}</td><td>{}</td><td>{}</td><td>",
        esc(&c.time),
        if c.segment.is_empty() {
            String::new()
        } else {
            format!("<br><span class=\"muted\">{}</span>", esc(&origin(c)))
        },
        esc(id),
        esc(&agent_name(&c.host, &c.model)),
        esc(&c.tool),
        esc(&c.class)
    );
    for (f, spans) in &c.files {
        let _ = write!(o, "<code>{}</code>", esc(f));
        if !spans.is_empty() {
            let r: Vec<String> = spans
                .iter()
                .take(8)
                .map(|s| format!("{}–{}", s.start, s.end))
                .collect();
            let _ = write!(
                o,
                " ({}{})",
                r.join(", "),
                if spans.len() > 8 { ", …" } else { "" }
            );
        }
        o.push(' ');
    }
    o.push_str("</td></tr>");
}

fn enforcement(o: &mut String, p: &Page) {
    o.push_str("<section id=\"enforcement\"><h2>Enforcement: blocks and advice by SOP</h2>");
    match &p.metrics {
        None => o.push_str(
            "<p class=\"muted\">No enforcement decisions recorded (no metrics file).</p>",
        ),
        Some(m) => {
            let _ = write!(
                o,
                "<p class=\"{}\">{}</p>",
                if m.ok { "muted" } else { "warn" },
                esc(&m.verdict)
            );
            let kinds: Vec<String> = m.kinds.iter().map(|(k, n)| format!("{k}: {n}")).collect();
            let _ = write!(o, "<p>Decisions: {}</p>", esc(&kinds.join(", ")));
            if m.sops.is_empty() {
                o.push_str("<p class=\"muted\">No block and no advice.</p>");
            } else {
                o.push_str("<table><thead><tr><th>SOP</th><th>blocks</th><th>advice</th><th>tools</th></tr></thead><tbody>");
                for r in &m.sops {
                    sop_row(o, r);
                }
                o.push_str("</tbody></table>");
            }
        }
    }
    o.push_str("</section>\n");
}

fn sop_row(o: &mut String, r: &SopRow) {
    let tools: Vec<String> = r.tools.iter().map(|(t, n)| format!("{t} ×{n}")).collect();
    let _ = write!(
        o,
        "<tr><td><code>{}</code></td><td class=\"n{}\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
        esc(&r.sop),
        if r.blocks > 0 { " block" } else { "" },
        r.blocks,
        r.advice,
        esc(&tools.join(", "))
    );
}

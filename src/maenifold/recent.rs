//! RecentActivity: the markdown the CLI prints (it ignores `--json`).
//!
//! ```text
//! # Recent Activity
//!
//! **session-1739900000000-12345** (sequential)
//!   Modified: 2026-02-18 20:13
//!   Thoughts: 3
//!   Status: active
//!   First: "…"
//!   Last: "…"
//!
//! **auth-design** (memory)
//!   Modified: 2026-02-18 19:02
//!   Title: Auth Design
//!   Sections: 2
//!   First: "…"
//! ```
//! Workflow entries show `(workflow)`, `Steps: N` and `Current:`. With `includeContent` the
//! snippet lines become `First H2:` / `First H2 Content:` / `Last H2:` / `Last H2 Content:`
//! (the content may span lines). `No recent activity found` when nothing matched; with no
//! index yet, `# Recent Activity` and a line saying no database was found.
//! The entry name is the memory file's slug (its folder is not printed).

use serde::Serialize;

use super::{judge, SpawnResult};

pub const NOTHING: &str = "No recent activity found";
pub const MAX_ENTRIES: usize = 500;
/// A field (a snippet or a section's content) is clipped to this many characters.
pub const MAX_FIELD_CHARS: usize = 2000;

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivityEntry {
    /// The file's slug (`auth-design`) or the thinking session's id.
    pub name: String,
    /// `memory`, `sequential`, `workflow`, `thinking`, or whatever maenifold printed.
    pub kind: String,
    pub modified: Option<String>,
    pub title: Option<String>,
    pub sections: Option<u32>,
    pub thoughts: Option<u32>,
    pub steps: Option<u32>,
    pub status: Option<String>,
    /// The first section's snippet (`First:`), or its content with `includeContent`.
    pub first: Option<String>,
    /// The last section's snippet (`Last:` / `Current:`) or content.
    pub last: Option<String>,
    /// Section headings, present with `includeContent`.
    pub first_heading: Option<String>,
    pub last_heading: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "entries")]
pub enum RecentActivity {
    Entries(Vec<ActivityEntry>),
    /// `No recent activity found`.
    Nothing,
    /// No index yet: `Sync` must run first.
    NoDatabase,
}

impl RecentActivity {
    pub fn entries(&self) -> &[ActivityEntry] {
        match self {
            RecentActivity::Entries(e) => e,
            _ => &[],
        }
    }
}

/// Judge and parse one RecentActivity answer.
pub fn judge_recent(r: &SpawnResult) -> Result<RecentActivity, String> {
    parse(judge(r).map_err(|e| e.to_string())?)
}

fn clip_push(field: &mut String, more: &str, sep: &str) {
    let have = field.chars().count();
    if have >= MAX_FIELD_CHARS {
        return;
    }
    if !field.is_empty() {
        field.push_str(sep);
    }
    let room = MAX_FIELD_CHARS - have;
    match more.char_indices().nth(room) {
        Some((i, _)) => {
            field.push_str(&more[..i]);
            field.push('…');
        }
        None => field.push_str(more),
    }
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    s.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s)
}

/// `**name** (kind)` at the start of a line.
fn entry_header(line: &str) -> Option<(&str, &str)> {
    let inner = line.strip_prefix("**")?;
    let i = inner.rfind("** (")?;
    let kind = inner[i + 4..].strip_suffix(')')?;
    let name = &inner[..i];
    if name.is_empty() || kind.is_empty() || kind.contains(' ') {
        return None;
    }
    Some((name, kind))
}

#[derive(Clone, Copy)]
enum Open {
    None,
    First,
    Last,
}

/// Parse the markdown. A text that is neither the report nor one of the plain answers is an
/// error.
pub fn parse(text: &str) -> Result<RecentActivity, String> {
    let t = text.trim();
    if t.starts_with(NOTHING) {
        return Ok(RecentActivity::Nothing);
    }
    let mut lines = t.lines();
    let first = lines.next().unwrap_or("").trim();
    if first != "# Recent Activity" {
        let shown: String = first.chars().take(80).collect();
        return Err(format!("not a RecentActivity answer: {shown}"));
    }
    let mut entries: Vec<ActivityEntry> = Vec::new();
    let mut open = Open::None;
    let mut over_cap = false;
    for raw in lines {
        let line = raw.trim_end();
        if let Some((name, kind)) = entry_header(line) {
            open = Open::None;
            if entries.len() >= MAX_ENTRIES {
                over_cap = true;
                continue;
            }
            over_cap = false;
            entries.push(ActivityEntry {
                name: name.trim().to_string(),
                kind: kind.to_string(),
                ..Default::default()
            });
            continue;
        }
        if entries.is_empty() {
            if line.contains("No database found") {
                return Ok(RecentActivity::NoDatabase);
            }
            continue;
        }
        if over_cap || line.trim().is_empty() {
            continue;
        }
        let e = entries.last_mut().expect("not empty");
        let body = line.strip_prefix("  ").unwrap_or(line);
        let keyed = if body.starts_with(' ') {
            None
        } else {
            body.split_once(':')
                .map(|(k, v)| (k, v.strip_prefix(' ').unwrap_or(v)))
        };
        let known = match keyed {
            Some((key, value)) => {
                let v = value.trim();
                match key {
                    "Modified" => e.modified = Some(v.to_string()),
                    "Title" => e.title = Some(v.chars().take(300).collect()),
                    "Sections" => e.sections = v.parse().ok(),
                    "Thoughts" => e.thoughts = v.parse().ok(),
                    "Steps" => e.steps = v.parse().ok(),
                    "Status" => e.status = Some(v.to_string()),
                    "First" => {
                        let mut f = String::new();
                        clip_push(&mut f, unquote(v), "");
                        e.first = Some(f);
                    }
                    "Last" | "Current" => {
                        let mut f = String::new();
                        clip_push(&mut f, unquote(v), "");
                        e.last = Some(f);
                    }
                    "First H2" => e.first_heading = Some(v.to_string()),
                    "Last H2" => e.last_heading = Some(v.to_string()),
                    "First H2 Content" => {
                        let mut f = String::new();
                        clip_push(&mut f, value.trim_end(), "");
                        e.first = Some(f);
                        open = Open::First;
                        continue;
                    }
                    "Last H2 Content" => {
                        let mut f = String::new();
                        clip_push(&mut f, value.trim_end(), "");
                        e.last = Some(f);
                        open = Open::Last;
                        continue;
                    }
                    _ => {
                        // not a key of ours: a continuation line of open content, if any
                        match open {
                            Open::None => {}
                            _ => {
                                append_open(e, open, line);
                            }
                        }
                        continue;
                    }
                }
                true
            }
            None => false,
        };
        if known {
            open = Open::None;
        } else {
            append_open(e, open, line);
        }
    }
    Ok(RecentActivity::Entries(entries))
}

fn append_open(e: &mut ActivityEntry, open: Open, line: &str) {
    let field = match open {
        Open::First => e.first.get_or_insert_with(String::new),
        Open::Last => e.last.get_or_insert_with(String::new),
        Open::None => return,
    };
    clip_push(field, line, "\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const SAMPLE: &str = "# Recent Activity

**session-1739900000000-12345** (sequential)
  Modified: 2026-02-18 20:13
  Thoughts: 3
  Status: active
  First: \"Plan the [[auth]] rework\"
  Last: \"Settled on [[jwt]]\"

**auth-design** (memory)
  Modified: 2026-02-18 19:02
  Title: Auth Design
  Sections: 2
  First: \"We use [[JWT]] for [[authentication]].\"

**deploy-flow** (workflow)
  Modified: 2026-02-18 18:00
  Steps: 4
  Status: completed
  First: \"Build\"
  Current: \"Ship to [[kubernetes]]\"
";

    #[test]
    fn the_documented_sample() {
        let r = parse(SAMPLE).unwrap();
        let e = r.entries();
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].name, "session-1739900000000-12345");
        assert_eq!(e[0].kind, "sequential");
        assert_eq!(e[0].thoughts, Some(3));
        assert_eq!(e[0].status.as_deref(), Some("active"));
        assert_eq!(e[0].first.as_deref(), Some("Plan the [[auth]] rework"));
        assert_eq!(e[0].last.as_deref(), Some("Settled on [[jwt]]"));
        assert_eq!(e[1].name, "auth-design");
        assert_eq!(e[1].kind, "memory");
        assert_eq!(e[1].modified.as_deref(), Some("2026-02-18 19:02"));
        assert_eq!(e[1].title.as_deref(), Some("Auth Design"));
        assert_eq!(e[1].sections, Some(2));
        assert_eq!(
            e[1].first.as_deref(),
            Some("We use [[JWT]] for [[authentication]].")
        );
        assert_eq!(e[1].last, None);
        assert_eq!(e[2].kind, "workflow");
        assert_eq!(e[2].steps, Some(4));
        assert_eq!(e[2].last.as_deref(), Some("Ship to [[kubernetes]]"));
    }

    #[test]
    fn include_content_with_multiline_sections() {
        let t = "# Recent Activity\n\n**auth-design** (memory)\n  Modified: 2026-02-18 19:02\n  Title: Auth Design\n  Sections: 2\n  First H2: Tokens\n  First H2 Content: We sign with RS256.\nRotation uses [[key-rotation]].\n\n- a list item\n  Last H2: Sessions\n  Last H2 Content: Stored in [[redis]].\n\n**api** (memory)\n  Modified: 2026-02-18 18:00\n  Title: API\n  Sections: 0\n";
        let r = parse(t).unwrap();
        let e = r.entries();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].first_heading.as_deref(), Some("Tokens"));
        assert_eq!(
            e[0].first.as_deref(),
            Some("We sign with RS256.\nRotation uses [[key-rotation]].\n- a list item")
        );
        assert_eq!(e[0].last_heading.as_deref(), Some("Sessions"));
        assert_eq!(e[0].last.as_deref(), Some("Stored in [[redis]]."));
        assert_eq!(e[1].sections, Some(0));
        assert_eq!(e[1].first, None);
    }

    #[test]
    fn plain_answers() {
        assert_eq!(parse(NOTHING).unwrap(), RecentActivity::Nothing);
        assert_eq!(
            parse("# Recent Activity\n\nNo database found. Run the `Sync` command first to index memory files.").unwrap(),
            RecentActivity::NoDatabase
        );
        assert_eq!(
            parse("# Recent Activity\n").unwrap(),
            RecentActivity::Entries(vec![])
        );
        let fail = SpawnResult {
            stdout: "ERROR: timespan parameter must be positive.".into(),
            exit_code: Some(0),
            ..Default::default()
        };
        assert!(judge_recent(&fail).unwrap_err().contains("timespan"));
    }

    #[test]
    fn garbage_replacement_chars_and_huge_outputs() {
        assert!(parse("").is_err());
        assert!(parse("hello\n**a** (memory)").is_err());
        assert!(parse("\u{FFFD}\u{FFFD}\u{0}\u{FFFD}").is_err());
        let r = parse(
            "# Recent Activity\n\n**a\u{FFFD}b** (memory)\n  Title: \u{FFFD}\n  Sections: lots\n",
        )
        .unwrap();
        assert_eq!(r.entries()[0].name, "a\u{FFFD}b");
        assert_eq!(r.entries()[0].sections, None);
        // 10 MB: entries capped, long content clipped
        let mut s = String::from("# Recent Activity\n\n");
        let long = "z".repeat(100_000);
        let mut i = 0;
        while s.len() < 10 * 1024 * 1024 {
            s.push_str(&format!(
                "**e{i}** (memory)\n  Title: T\n  First H2 Content: {long}\n{long}\n\n"
            ));
            i += 1;
        }
        let r = parse(&s).unwrap();
        assert!(r.entries().len() <= MAX_ENTRIES);
        assert!(r.entries()[0].first.as_ref().unwrap().chars().count() <= MAX_FIELD_CHARS + 1);
        assert!(parse(&"q".repeat(10 * 1024 * 1024)).is_err());
    }
}

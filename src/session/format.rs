//! The session-start context (markdown) and its token limit.
//!
//! ```text
//! ## Knowledge Graph Context
//!
//! Project: **hookwise**
//!
//! ### Related concepts
//! - [[auth]] (3 files)
//!
//! ### Relevant memories
//! - Auth Design — memory://notes/auth-design
//!
//! ### Recent activity (24 h)
//! - Auth Design — memory://notes/auth-design (modified 2026-02-18 19:02)
//!
//! ### Graph connections
//! - [[auth]] → [[jwt]], [[session-tokens]]
//!
//! _Mention a concept as [[concept]] …_
//! ```

use serde::Serialize;

use super::concepts::ConceptCount;
use crate::maenifold::BuildContext;

pub const HEADER: &str = "## Knowledge Graph Context";
pub use crate::context::CHARS_PER_TOKEN;
pub const HINT: &str = "_Mention a concept as [[concept]] to bring in its knowledge-graph context; open a memory with maenifold's ReadMemory and its memory:// URI._";

/// A memory to list: a search hit or a recent change.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryRef {
    pub title: String,
    /// The memory:// URI, when known (RecentActivity prints only the slug).
    pub uri: Option<String>,
    pub slug: String,
    pub modified: Option<String>,
}

pub struct Parts<'a> {
    pub project: &'a str,
    pub concepts: &'a [ConceptCount],
    pub memories: &'a [MemoryRef],
    pub recent: &'a [MemoryRef],
    pub graph: &'a [BuildContext],
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat.to_string(),
    }
}

fn memory_line(m: &MemoryRef, with_modified: bool) -> String {
    let title = if m.title.trim().is_empty() {
        m.slug.clone()
    } else {
        one_line(&m.title, 120)
    };
    let mut s = match &m.uri {
        Some(u) => format!("- {title} — {}", one_line(u, 200)),
        None if m.slug.is_empty() || wikilink_slug(&title) == m.slug => format!("- {title}"),
        None => format!("- {title} ({})", one_line(&m.slug, 120)),
    };
    if with_modified {
        if let Some(t) = &m.modified {
            s.push_str(&format!(" (modified {})", one_line(t, 40)));
        }
    }
    s
}

fn wikilink_slug(title: &str) -> String {
    crate::wikilink::normalize(title)
}

/// The body lines (everything between the header and the hint). Empty when there is nothing
/// worth saying.
pub fn body_lines(p: &Parts) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if !p.concepts.is_empty() {
        out.push(String::new());
        out.push("### Related concepts".into());
        for c in p.concepts {
            out.push(format!(
                "- [[{}]] ({} file{})",
                c.name,
                c.files,
                if c.files == 1 { "" } else { "s" }
            ));
        }
    }
    if !p.memories.is_empty() {
        out.push(String::new());
        out.push("### Relevant memories".into());
        out.extend(p.memories.iter().map(|m| memory_line(m, false)));
    }
    if !p.recent.is_empty() {
        out.push(String::new());
        out.push("### Recent activity (24 h)".into());
        out.extend(p.recent.iter().map(|m| memory_line(m, true)));
    }
    let graph: Vec<&BuildContext> = p.graph.iter().filter(|b| !b.direct.is_empty()).collect();
    if !graph.is_empty() {
        out.push(String::new());
        out.push("### Graph connections".into());
        for b in graph {
            let rel: Vec<String> = b.direct.iter().map(|r| format!("[[{}]]", r.name)).collect();
            out.push(format!("- [[{}]] → {}", b.concept, rel.join(", ")));
        }
    }
    out
}

/// The whole context within `token_limit` (≈4 characters a token), or `None` when there is
/// nothing to say (no concepts, memories or recent activity).
pub fn render(p: &Parts, token_limit: usize) -> Option<String> {
    let body = body_lines(p);
    if body.is_empty() {
        return None;
    }
    let head = vec![
        HEADER.to_string(),
        String::new(),
        format!("Project: **{}**", one_line(p.project, 200)),
    ];
    let tail = vec![String::new(), HINT.to_string()];
    let marker =
        format!("[hookwise: context truncated to fit the {token_limit}-token limit (TOKEN_LIMIT)]");
    Some(fit(
        &head,
        &body,
        &tail,
        &marker,
        token_limit * CHARS_PER_TOKEN,
    ))
}

/// `head + body + tail` joined by newlines, never over `max_chars` characters. When it does
/// not fit, the body is cut at a line boundary and `marker` follows it; the tail is kept when
/// there is room for it. Anything still too long is cut at a character boundary.
pub fn fit(
    head: &[String],
    body: &[String],
    tail: &[String],
    marker: &str,
    max_chars: usize,
) -> String {
    let len = |s: &String| s.chars().count();
    let total = |v: &[String]| v.iter().map(len).sum::<usize>() + v.len().saturating_sub(1);
    let all: Vec<String> = head.iter().chain(body).chain(tail).cloned().collect();
    if total(&all) <= max_chars {
        return all.join("\n");
    }
    let mut out: Vec<String> = head.to_vec();
    let marker_cost = len(&marker.to_string()) + 1;
    let tail_cost = total(tail) + 1;
    let used = total(&out);
    let keep_tail = used + marker_cost + tail_cost <= max_chars;
    let mut room = max_chars
        .saturating_sub(used)
        .saturating_sub(marker_cost)
        .saturating_sub(if keep_tail { tail_cost } else { 0 });
    for l in body {
        let n = len(l) + 1;
        if n > room {
            break;
        }
        room -= n;
        out.push(l.clone());
    }
    // no empty line or dangling section title right before the marker
    while out.len() > head.len()
        && out
            .last()
            .is_some_and(|l| l.is_empty() || l.starts_with("###"))
    {
        out.pop();
    }
    out.push(marker.to_string());
    if keep_tail {
        out.extend(tail.iter().cloned());
    }
    let s = out.join("\n");
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maenifold::Relation;

    fn bc(c: &str, rels: &[&str]) -> BuildContext {
        BuildContext {
            concept: c.into(),
            direct: rels
                .iter()
                .map(|r| Relation {
                    name: r.to_string(),
                    co_occurrence: 1,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    fn cc(n: &str, files: usize) -> ConceptCount {
        ConceptCount {
            name: n.into(),
            files,
            mentions: files,
        }
    }

    fn mref(title: &str, uri: Option<&str>, slug: &str, modified: Option<&str>) -> MemoryRef {
        MemoryRef {
            title: title.into(),
            uri: uri.map(str::to_string),
            slug: slug.into(),
            modified: modified.map(str::to_string),
        }
    }

    #[test]
    fn full_layout() {
        let concepts = [cc("auth", 3), cc("jwt", 1)];
        let memories = [mref(
            "Auth Design",
            Some("memory://notes/auth-design"),
            "auth-design",
            None,
        )];
        let recent = [
            mref(
                "Auth Design",
                Some("memory://notes/auth-design"),
                "auth-design",
                Some("2026-02-18 19:02"),
            ),
            mref("Old Notes", None, "old-notes-2", None),
        ];
        let graph = [bc("auth", &["jwt", "session-tokens"]), bc("nothing", &[])];
        let t = render(
            &Parts {
                project: "hookwise",
                concepts: &concepts,
                memories: &memories,
                recent: &recent,
                graph: &graph,
            },
            4000,
        )
        .unwrap();
        let want = "## Knowledge Graph Context

Project: **hookwise**

### Related concepts
- [[auth]] (3 files)
- [[jwt]] (1 file)

### Relevant memories
- Auth Design — memory://notes/auth-design

### Recent activity (24 h)
- Auth Design — memory://notes/auth-design (modified 2026-02-18 19:02)
- Old Notes (old-notes-2)

### Graph connections
- [[auth]] → [[jwt]], [[session-tokens]]
";
        assert_eq!(t, format!("{want}\n{HINT}"));
    }

    #[test]
    fn nothing_to_say_is_no_context() {
        let p = Parts {
            project: "p",
            concepts: &[],
            memories: &[],
            recent: &[],
            graph: &[bc("x", &[])],
        };
        assert_eq!(render(&p, 4000), None);
    }

    #[test]
    fn truncation_never_exceeds_and_cuts_at_lines() {
        let concepts: Vec<ConceptCount> = (0..400).map(|i| cc(&format!("κόσμε-{i}"), i)).collect();
        let graph: Vec<BuildContext> = (0..50)
            .map(|i| bc(&format!("c{i}"), &["日本語", "b", "c", "d"]))
            .collect();
        let p = Parts {
            project: "proj\nwith newline",
            concepts: &concepts,
            memories: &[],
            recent: &[],
            graph: &graph,
        };
        let full = render(&p, 32000).unwrap();
        assert!(!full.contains("truncated"));
        let full_lines: Vec<&str> = full.lines().collect();
        for limit in [100usize, 150, 400, 1000, 2000] {
            let t = render(&p, limit).unwrap();
            assert!(t.chars().count() <= limit * CHARS_PER_TOKEN, "{limit}");
            assert!(t.starts_with(HEADER));
            assert!(t.contains("context truncated"), "{limit}");
            assert!(t.ends_with(HINT));
            // every line before the marker is a whole line of the full context
            for l in t.lines().take_while(|l| !l.contains("truncated")) {
                assert!(full_lines.contains(&l), "{l:?}");
            }
        }
        assert!(full.contains("Project: **proj with newline**"));
        assert_eq!(
            render(&p, 4000).unwrap(),
            full,
            "it fits in 4000 tokens: no cut"
        );
    }

    #[test]
    fn fit_handles_tiny_budgets() {
        let h = vec!["HEADER LINE".to_string()];
        let b = vec!["body".to_string(); 10];
        let t = vec!["tail".to_string()];
        let s = fit(&h, &b, &t, "[cut]", 20);
        assert!(s.chars().count() <= 20, "{s}");
        assert_eq!(fit(&h, &b, &t, "[cut]", 5).chars().count(), 5);
        assert_eq!(
            fit(&h, &b[..1], &t, "[cut]", 100),
            "HEADER LINE\nbody\ntail"
        );
    }
}

//! BuildContext: maenifold's text form (what the CLI prints), parsed into a value that every
//! knowledge source produces, and rendered back into the same text shape (the vault answers in
//! it; the MCP form is JSON and converts to the same value).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildContext {
    pub concept: String,
    pub direct: Vec<Relation>,
    /// Names from `Expanded relations (2 hops)`; only present when depth > 1.
    pub expanded: Vec<String>,
    pub community: Option<u32>,
    pub siblings: Vec<Sibling>,
    /// The note the concept names — by file name, path, title or alias, as Obsidian and Foam
    /// resolve a link — with its opening or the linked section. The vault's; maenifold's
    /// graph has no notes of a concept's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<NoteRef>,
    /// Notes that link the concept (or the note under any of its names), newest first,
    /// the note itself left out. The vault's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub linked_from: Vec<String>,
}

/// The note a concept names, with the text to show.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NoteRef {
    pub uri: String,
    pub title: String,
    /// The heading or `^block` the link asked for, when it was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The note's opening, or the section's text.
    pub text: String,
    /// The concepts the note links (its own names left out), in the order it links them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Relation {
    pub name: String,
    pub co_occurrence: u32,
    pub community: Option<u32>,
    pub files: Vec<String>,
    /// `(uri, preview text)` pairs, present with `includeContent`.
    pub previews: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sibling {
    pub name: String,
    pub shared_neighbors: u32,
    pub overlap: f64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not a BuildContext text: {}", self.0)
    }
}

const HEADER: &str = "Context for CONCEPT:";

enum Section {
    None,
    Direct,
    Expanded,
    Siblings,
}

impl BuildContext {
    /// True when maenifold knows nothing about the concept (`Direct relations (0 CONCEPTS):`).
    pub fn is_empty(&self) -> bool {
        self.direct.is_empty()
            && self.expanded.is_empty()
            && self.siblings.is_empty()
            && self.note.is_none()
            && self.linked_from.is_empty()
    }

    /// Parse the CLI's text form. Unknown lines are ignored (forward compatible); a text that
    /// does not start with the header is an error.
    pub fn parse(text: &str) -> Result<BuildContext, ParseError> {
        let mut lines = text.lines();
        let first = lines.by_ref().find(|l| !l.trim().is_empty()).unwrap_or("");
        let concept = first
            .trim()
            .strip_prefix(HEADER)
            .ok_or_else(|| ParseError(first.chars().take(80).collect()))?
            .trim()
            .to_string();
        let mut out = BuildContext {
            concept,
            ..Default::default()
        };
        let mut section = Section::None;
        let mut in_preview = false;
        for raw in lines {
            let line = raw.trim_end();
            let t = line.trim_start();
            if t.is_empty() {
                continue;
            }
            let indent = line.len() - t.len();
            if indent == 0 {
                if let Some(next) = section_of(t) {
                    if let Section::Siblings = next {
                        out.community =
                            between(t, "in community ", ")").and_then(|s| s.trim().parse().ok());
                    }
                    section = next;
                    in_preview = false;
                    continue;
                }
            }
            // A relation item: `  • name (…)`. Preview text (which may span lines, at any
            // indent) never starts with the bullet at indent 2.
            let is_item = |item: &str| {
                !in_preview
                    || !matches!(section, Section::Direct)
                    || item.contains("(co-occurs in ")
            };
            if indent == 2 {
                if let Some(item) = t.strip_prefix('•').filter(|i| is_item(i)) {
                    in_preview = false;
                    let item = item.trim();
                    match section {
                        Section::Direct => out.direct.push(parse_relation(item)),
                        Section::Expanded => out.expanded.push(item_name(item).to_string()),
                        Section::Siblings => out.siblings.push(parse_sibling(item)),
                        Section::None => {}
                    }
                    continue;
                }
            }
            let Section::Direct = section else { continue };
            let Some(rel) = out.direct.last_mut() else {
                continue;
            };
            if !in_preview && indent == 4 && t.starts_with("Files:") {
                let files = &t["Files:".len()..];
                rel.files = files
                    .split(',')
                    .map(|f| f.trim().to_string())
                    .filter(|f| !f.is_empty())
                    .collect();
            } else if !in_preview && indent == 4 && t.starts_with("Content preview") {
                in_preview = true;
            } else if in_preview {
                match t.split_once(": ") {
                    Some((uri, text))
                        if indent == 6 && uri.starts_with("memory://") && !uri.contains(' ') =>
                    {
                        rel.previews.push((uri.to_string(), text.to_string()))
                    }
                    _ => {
                        // The preview's text went on over several lines.
                        if let Some(last) = rel.previews.last_mut() {
                            last.1.push(' ');
                            last.1.push_str(t);
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Render in the CLI's text shape.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{HEADER} {}\n\nDirect relations ({} CONCEPTS):\n",
            self.concept,
            self.direct.len()
        );
        for r in &self.direct {
            s.push_str(&format!(
                "  • {} (co-occurs in {} files)",
                r.name, r.co_occurrence
            ));
            if let Some(c) = r.community {
                s.push_str(&format!(" [community {c}]"));
            }
            s.push('\n');
            if !r.files.is_empty() {
                s.push_str(&format!("    Files: {}\n", r.files.join(", ")));
            }
            if !r.previews.is_empty() {
                s.push_str("    Content preview:\n");
                for (uri, text) in &r.previews {
                    s.push_str(&format!("      {uri}: {}\n", text.replace('\n', " ")));
                }
            }
        }
        if !self.expanded.is_empty() {
            s.push_str("\nExpanded relations (2 hops):\n");
            for e in &self.expanded {
                s.push_str(&format!("  • {e}\n"));
            }
        }
        if !self.siblings.is_empty() {
            let c = self.community.map(|c| c.to_string()).unwrap_or_default();
            s.push_str(&format!(
                "\nCommunity siblings ({} concepts in community {c}):\n",
                self.siblings.len()
            ));
            for sib in &self.siblings {
                s.push_str(&format!(
                    "  • {} (shared neighbors: {}, overlap: {})\n",
                    sib.name,
                    sib.shared_neighbors,
                    crate::maenifold::fixed(sib.overlap, 3)
                ));
            }
        }
        s
    }
}

fn section_of(t: &str) -> Option<Section> {
    if t.starts_with("Direct relations (") {
        Some(Section::Direct)
    } else if t.starts_with("Expanded relations (") {
        Some(Section::Expanded)
    } else if t.starts_with("Community siblings (") {
        Some(Section::Siblings)
    } else {
        None
    }
}

fn item_name(item: &str) -> &str {
    item.split(" (").next().unwrap_or(item).trim()
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = s.find(start)? + start.len();
    let to = s[from..].find(end)? + from;
    Some(&s[from..to])
}

fn parse_relation(item: &str) -> Relation {
    Relation {
        name: item_name(item).to_string(),
        co_occurrence: between(item, "co-occurs in ", " file")
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0),
        community: between(item, "[community ", "]").and_then(|n| n.trim().parse().ok()),
        files: Vec::new(),
        previews: Vec::new(),
    }
}

fn parse_sibling(item: &str) -> Sibling {
    Sibling {
        name: item_name(item).to_string(),
        shared_neighbors: between(item, "shared neighbors: ", ",")
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0),
        overlap: between(item, "overlap: ", ")")
            .and_then(|n| crate::decimal::parse_f64(n.trim()))
            .unwrap_or(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Context for CONCEPT: rest-api

Direct relations (2 CONCEPTS):
  • authentication (co-occurs in 3 files) [community 1]
    Files: memory://notes/auth-design, memory://notes/api
  • json (co-occurs in 1 files)
    Files: memory://notes/api

Expanded relations (2 hops):
  • jwt

Community siblings (1 concepts in community 1):
  • oauth (shared neighbors: 4, overlap: 0.512)
";

    #[test]
    fn parses_the_documented_sample() {
        let b = BuildContext::parse(SAMPLE).unwrap();
        assert_eq!(b.concept, "rest-api");
        assert_eq!(b.direct.len(), 2);
        assert_eq!(b.direct[0].name, "authentication");
        assert_eq!(b.direct[0].co_occurrence, 3);
        assert_eq!(b.direct[0].community, Some(1));
        assert_eq!(
            b.direct[0].files,
            vec!["memory://notes/auth-design", "memory://notes/api"]
        );
        assert_eq!(b.direct[1].community, None);
        assert_eq!(b.expanded, vec!["jwt"]);
        assert_eq!(b.community, Some(1));
        assert_eq!(b.siblings[0].name, "oauth");
        assert_eq!(b.siblings[0].shared_neighbors, 4);
        assert!((b.siblings[0].overlap - 0.512).abs() < 1e-9);
    }

    #[test]
    fn parses_content_previews() {
        let t = "Context for CONCEPT: auth\n\nDirect relations (1 CONCEPTS):\n  • jwt (co-occurs in 2 files)\n    Files: memory://notes/a, memory://notes/b\n    Content preview:\n      memory://notes/a: Tokens are signed: with RS256.\n      memory://notes/b: Rotation every 24h.\n";
        let b = BuildContext::parse(t).unwrap();
        assert_eq!(
            b.direct[0].previews,
            vec![
                (
                    "memory://notes/a".to_string(),
                    "Tokens are signed: with RS256.".to_string()
                ),
                (
                    "memory://notes/b".to_string(),
                    "Rotation every 24h.".to_string()
                )
            ]
        );
    }

    #[test]
    fn previews_spanning_lines_do_not_end_the_relation_list() {
        // Previews are raw note text: headings, blank lines and code at column 0.
        let t = "Context for CONCEPT: auth\n\nDirect relations (2 CONCEPTS):\n  • jwt (co-occurs in 3 files)\n    Files: memory://a, memory://b\n    Content preview:\n      memory://a: ## Consequences\n\n[[auth]] stays stateless.\n```ts\n  • not an item\n```\n      memory://b: # B\n  • redis (co-occurs in 2 files)\n    Files: memory://b\n";
        let b = BuildContext::parse(t).unwrap();
        assert_eq!(b.direct.len(), 2, "{b:?}");
        assert_eq!(b.direct[0].previews.len(), 2);
        assert!(b.direct[0].previews[0].1.contains("stays stateless"));
        assert_eq!(b.direct[1].name, "redis");
        assert_eq!(b.direct[1].files, vec!["memory://b"]);
    }

    #[test]
    fn zero_relations_is_no_knowledge() {
        let b =
            BuildContext::parse("Context for CONCEPT: nothing\n\nDirect relations (0 CONCEPTS):\n")
                .unwrap();
        assert!(b.is_empty());
        assert_eq!(b.concept, "nothing");
    }

    #[test]
    fn rejects_error_and_garbage_texts() {
        assert!(BuildContext::parse(
            "Error invoking BuildContext: Required property 'conceptName' is missing"
        )
        .is_err());
        assert!(BuildContext::parse("").is_err());
        assert!(BuildContext::parse("\u{FFFD}\u{FFFD} binary").is_err());
    }

    #[test]
    fn renders_back_to_the_same_value() {
        let b = BuildContext::parse(SAMPLE).unwrap();
        assert_eq!(BuildContext::parse(&b.to_text()).unwrap(), b);
        assert_eq!(b.to_text(), SAMPLE);
    }
}

//! The knowledge block added to a tool call: one section per concept, a token budget
//! (≈4 characters a token), two styles (a delimited markdown block for prompts, shell comment
//! lines for commands).

use crate::maenifold::BuildContext;

pub const OPEN: &str = "<!-- Knowledge Graph Context (hookwise) -->";
pub const CLOSE: &str = "<!-- /Knowledge Graph Context (hookwise) -->";
pub const CHARS_PER_TOKEN: usize = 4;

/// `text` without hookwise's own blocks (from [`OPEN`] to [`CLOSE`], whatever the style): a
/// model that re-issues a call as its history shows it must not have the earlier context's
/// links taken for its own. An unterminated block runs to the end.
pub fn strip_blocks(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(OPEN) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(OPEN) {
        out.push_str(&rest[..i]);
        match rest[i..].find(CLOSE) {
            Some(j) => rest = &rest[i + j + CLOSE.len()..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// The first and last line of a block in `style`: what a host strips before adding a fresh
/// block, so a field never carries two.
pub fn delimiters(style: Style) -> (String, String) {
    (styled(OPEN, style), styled(CLOSE, style))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// The delimited markdown block.
    Markdown,
    /// Every line a `# ` shell comment, so the command runs exactly as before.
    ShellComment,
}

/// Characters of a preview kept per file.
const PREVIEW_CHARS: usize = 240;
/// Characters of the concept's own note kept.
const NOTE_CHARS: usize = 400;

/// The body lines for one concept's section (without the `---` separator).
pub fn section_lines(b: &BuildContext) -> Vec<String> {
    let mut lines = vec![format!("## [[{}]]", b.concept)];
    // The note the concept names comes first: what the concept is, in its own words.
    if let Some(n) = &b.note {
        let at = match &n.section {
            Some(s) => format!("{}#{s}", n.uri),
            None => n.uri.clone(),
        };
        lines.push(format!(
            "Note {at} ({}): {}",
            n.title,
            clip(&collapse(&n.text), NOTE_CHARS)
        ));
        if !n.links.is_empty() {
            let l: Vec<String> = n.links.iter().map(|c| format!("[[{c}]]")).collect();
            lines.push(format!("Links to: {}", l.join(", ")));
        }
    }
    if !b.linked_from.is_empty() {
        lines.push(format!("Linked from: {}", b.linked_from.join(", ")));
    }
    if !b.direct.is_empty() {
        let rel: Vec<String> = b
            .direct
            .iter()
            .map(|r| {
                format!(
                    "[[{}]] ({} file{})",
                    r.name,
                    r.co_occurrence,
                    if r.co_occurrence == 1 { "" } else { "s" }
                )
            })
            .collect();
        lines.push(format!("Related: {}", rel.join(", ")));
    }
    if !b.expanded.is_empty() {
        lines.push(format!(
            "Further: {}",
            b.expanded
                .iter()
                .map(|e| format!("[[{e}]]"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut seen: Vec<&str> = Vec::new();
    for r in &b.direct {
        for (uri, text) in &r.previews {
            if seen.contains(&uri.as_str()) {
                continue;
            }
            seen.push(uri);
            lines.push(format!("- {uri}: {}", clip(&collapse(text), PREVIEW_CHARS)));
        }
    }
    let files: Vec<&str> = b
        .direct
        .iter()
        .flat_map(|r| r.files.iter().map(String::as_str))
        .filter(|f| !seen.contains(f))
        .fold(Vec::new(), |mut acc, f| {
            if !acc.contains(&f) {
                acc.push(f);
            }
            acc
        });
    if !files.is_empty() {
        lines.push(format!("Sources: {}", files.join(", ")));
    }
    lines
}

/// Whitespace (newlines included) collapsed to single spaces: a preview is one line.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Render the block for the concepts that have knowledge, within `token_budget`.
/// Returns `None` when there is nothing to say.
pub fn render(contexts: &[BuildContext], style: Style, token_budget: usize) -> Option<String> {
    let mut body: Vec<String> = Vec::new();
    for b in contexts.iter().filter(|b| !b.is_empty()) {
        if !body.is_empty() {
            body.push("---".into());
        }
        body.extend(section_lines(b));
    }
    if body.is_empty() {
        return None;
    }
    Some(fit(&body, style, token_budget * CHARS_PER_TOKEN))
}

fn styled(line: &str, style: Style) -> String {
    match style {
        Style::Markdown => line.to_string(),
        // No part of the context may end the comment: every line gets its own `#`, and any
        // line break inside a line (\n, \r, U+2028 …) starts another commented line.
        Style::ShellComment => line
            .split([
                '\n', '\r', '\u{2028}', '\u{2029}', '\u{85}', '\u{b}', '\u{c}',
            ])
            .map(|part| {
                if part.is_empty() {
                    "#".to_string()
                } else {
                    format!("# {part}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Assemble open + body + close in `style`, never over `max_chars` characters (not bytes);
/// when the body does not fit it is cut (at a line, or inside one at a character boundary)
/// and a truncation line says so. The delimiters are always kept.
pub fn fit(body: &[String], style: Style, max_chars: usize) -> String {
    let open = styled(OPEN, style);
    let close = styled(CLOSE, style);
    let marker = styled(
        "[hookwise: context truncated to fit the token budget]",
        style,
    );
    let count = |s: &str| s.chars().count();
    let full: usize = count(&open)
        + count(&close)
        + body
            .iter()
            .map(|l| count(&styled(l, style)) + 1)
            .sum::<usize>()
        + 1;
    let mut out: Vec<String> = vec![open.clone()];
    if full <= max_chars {
        out.extend(body.iter().map(|l| styled(l, style)));
        out.push(close);
        return out.join("\n");
    }
    // room for the body = budget - open - close - marker - their newlines
    let fixed = count(&open) + count(&close) + count(&marker) + 3;
    let mut room = max_chars.saturating_sub(fixed);
    for l in body {
        let s = styled(l, style);
        let n = count(&s) + 1;
        if n <= room {
            room -= n;
            out.push(s);
        } else {
            // a partial line, if a useful part of it fits
            if room > 16 {
                let cut: String = s.chars().take(room - 2).collect();
                out.push(format!("{cut}…"));
            }
            break;
        }
    }
    out.push(marker);
    out.push(close);
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maenifold::Relation;

    fn ctx(concept: &str, rels: &[(&str, u32)]) -> BuildContext {
        BuildContext {
            concept: concept.into(),
            direct: rels
                .iter()
                .map(|(n, c)| Relation {
                    name: n.to_string(),
                    co_occurrence: *c,
                    files: vec![format!("memory://notes/{n}")],
                    previews: vec![(format!("memory://notes/{n}"), format!("About {n}."))],
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn markdown_block_has_delimiters_sections_and_separators() {
        let t = render(
            &[ctx("auth", &[("jwt", 3)]), ctx("db", &[("postgres", 1)])],
            Style::Markdown,
            2000,
        )
        .unwrap();
        assert!(t.starts_with(OPEN));
        assert!(t.ends_with(CLOSE));
        assert!(t.contains("## [[auth]]\nRelated: [[jwt]] (3 files)\n- memory://notes/jwt: About jwt.\n---\n## [[db]]"));
        assert!(t.contains("[[postgres]] (1 file)"));
    }

    #[test]
    fn earlier_blocks_are_not_scanned_again() {
        let block = render(&[ctx("auth", &[("jwt", 3)])], Style::ShellComment, 2000).unwrap();
        let cmd = format!("{block}\necho [[mine]]");
        let stripped = strip_blocks(&cmd);
        assert!(
            !stripped.contains("jwt") && !stripped.contains("auth"),
            "{stripped}"
        );
        assert!(stripped.ends_with("\necho [[mine]]"));
        let md = render(&[ctx("auth", &[("jwt", 3)])], Style::Markdown, 2000).unwrap();
        let twice = format!("{md}\n\n{md}\n\nmy [[prompt]] {OPEN} unterminated [[x]]");
        assert_eq!(strip_blocks(&twice), "\n\n\n\nmy [[prompt]] ");
        assert!(matches!(
            strip_blocks("plain [[a]]"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn empty_contexts_render_nothing() {
        assert_eq!(
            render(
                &[BuildContext {
                    concept: "x".into(),
                    ..Default::default()
                }],
                Style::Markdown,
                2000
            ),
            None
        );
        assert_eq!(render(&[], Style::Markdown, 2000), None);
    }

    #[test]
    fn shell_style_comments_every_line() {
        let mut c = ctx("auth", &[("jwt", 3)]);
        c.direct[0].previews[0].1 = "line one\rstill one\n\nrm -rf /tmp/x".into();
        c.direct[0].name = "evil\nrm -rf ~".into();
        let t = render(&[c], Style::ShellComment, 2000).unwrap();
        for line in t.split('\n') {
            assert!(line.starts_with('#'), "{line:?}");
        }
        assert!(!t.contains('\r'));
        assert!(t.contains("# rm -rf ~"));
    }

    #[test]
    fn truncation_keeps_delimiters_never_exceeds_and_cuts_on_char_boundaries() {
        let many: Vec<BuildContext> = (0..50)
            .map(|i| {
                ctx(
                    &format!("κόσμε-{i}"),
                    &[("日本語の関係", 2), ("ünïcode", 1)],
                )
            })
            .collect();
        for budget in [50usize, 60, 100, 333] {
            for style in [Style::Markdown, Style::ShellComment] {
                let t = render(&many, style, budget).unwrap();
                assert!(
                    t.chars().count() <= budget * CHARS_PER_TOKEN,
                    "budget {budget}: {}",
                    t.chars().count()
                );
                assert!(t.contains("truncated"));
                assert!(t.ends_with(&styled(CLOSE, style)));
                assert!(t.starts_with(&styled(OPEN, style)));
            }
        }
    }
}

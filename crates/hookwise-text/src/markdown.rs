//! One note: front matter, title, the concepts it links (maenifold's rules: links count in
//! text and headings, never in fenced / indented code or inline code) and a summary line.
//! (Previews and snippets, cut from the text when asked, are the vault's: `vault::excerpt`.)

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::wikilink::{
    find_byte, for_each_link, link_target, normalize_ascii, normalize_into, ScanMode, NAME_BUF,
};

use crate::fx::FxHashSet;

/// What the vault keeps from parsing one note.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Note {
    /// Front matter `title`, else the first `# H1`, else the file stem.
    pub title: String,
    pub tags: Vec<String>,
    /// Front matter `aliases` (or `alias`): other names a link may use for this note, as
    /// Obsidian and Foam read them.
    pub aliases: Vec<String>,
    /// Front matter `modified` (or `updated`), as milliseconds since the epoch.
    pub modified_ms: Option<f64>,
    /// Byte offset of the body (after the front matter) in the text.
    pub body_start: usize,
    /// Distinct normalized concepts in first-seen order, each with the byte offset (in the
    /// whole text) of the block where it is first linked.
    pub concepts: Vec<(String, usize)>,
    /// The first paragraph, whitespace collapsed, at most [`SUMMARY_CHARS`] characters.
    pub summary: String,
    /// Number of `##` headings.
    pub sections: u32,
    /// What the note says it is about: front matter `description` (`desc`, `summary`), a
    /// Logseq `description::` property; empty when none.
    pub desc: String,
    /// The text of the headings below the title (`##` and deeper), space separated: what the
    /// note's parts are about, for search.
    pub headings: String,
}

pub const SUMMARY_CHARS: usize = 200;

/// How a vault's notes name themselves and each other: the conventions of the app that keeps
/// it (the vault recognises it from what the folder holds). One family's rules never apply in
/// another's vault: an Obsidian `[[a|b]]` links `a`, a Dendron one `b`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Family {
    /// Obsidian, Foam, maenifold or a plain folder: `[[target|label]]`; the title is the front
    /// matter's, else the first `# H1`, else the file name.
    #[default]
    Plain,
    /// Logseq: a page is named by its `title::` property (or front matter `title:`), else by
    /// its file name decoded ([`logseq_name`]); `alias::` names it too; `description::` sums
    /// it up. `legacy`: the file names of `:file/name-format :legacy` (`%2F` or `.` for `/`).
    Logseq { legacy: bool },
    /// Dendron: the label comes first (`[[label|note.name]]`), a target may name its vault
    /// (`dendron://vault/note.name#anchor`), front matter `desc:` sums the note up.
    Dendron,
}

/// The target of a link body as `family` reads it: before `#` (a heading, an anchor) and, but
/// in Dendron, before `|`; Dendron's after the last `|`, without a `dendron://vault/` prefix.
pub fn family_target(body: &str, family: Family) -> &str {
    let mut t = body;
    if family == Family::Dendron {
        t = &t[t.bytes().rposition(|b| b == b'|').map_or(0, |i| i + 1)..];
        if let Some(r) = t.trim_start().strip_prefix("dendron://") {
            t = &r[r.find('/').map_or(0, |i| i + 1)..];
        }
    }
    link_target(t)
}

/// A Logseq page's name from its file name: `___` (in the legacy format `.`) is the namespace
/// separator `/`, `%XX` an escaped byte (`%3F` is `?`, `%2F` the legacy format's `/`).
pub fn logseq_name(stem: &str, legacy: bool) -> String {
    let b = stem.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |k: usize| (*b.get(k)? as char).to_digit(16);
        let (c, n) = match (b[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => ((h << 4 | l) as u8, 3),
            (b'.', _, _) if legacy => (b'/', 1),
            (b'_', _, _) if !legacy && b[i..].starts_with(b"___") => (b'/', 3),
            (c, _, _) => (c, 1),
        };
        out.push(c);
        i += n;
    }
    String::from_utf8(out).unwrap_or_else(|_| stem.to_string())
}

pub use hookwise_frontmatter::*;

/// Inline `#tags` of a body (Obsidian's: `#` after a space or a line's start, then letters,
/// digits, `_`, `-` or `/`, not all digits), outside fenced code and inline code, added to
/// `tags` once each (at most [`MAX_INLINE_TAGS`]). A heading's `# ` is no tag.
#[cfg_attr(not(feature = "policy"), allow(dead_code))]
pub fn inline_tags(body: &str, tags: &mut Vec<String>) {
    let b = body.as_bytes();
    let mut fence = false;
    let mut added = 0;
    for line in body.split('\n') {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence || find_byte(line.as_bytes(), b'#').is_none() {
            continue;
        }
        let start = line.as_ptr() as usize - b.as_ptr() as usize;
        let lb = line.as_bytes();
        let mut in_code = false;
        for i in 0..lb.len() {
            match lb[i] {
                b'`' => in_code = !in_code,
                b'#' if !in_code && (i == 0 || lb[i - 1].is_ascii_whitespace()) => {
                    let rest = &body[start + i + 1..start + lb.len()];
                    let end = rest
                        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '/')))
                        .unwrap_or(rest.len());
                    let tag = &rest[..end];
                    if !tag.is_empty() && !tag.bytes().all(|c| c.is_ascii_digit()) {
                        if added >= MAX_INLINE_TAGS {
                            return;
                        }
                        let before = tags.len();
                        push_tag(tags, tag);
                        added += tags.len() - before;
                    }
                }
                _ => {}
            }
        }
    }
}

/// The current run of inline text: pulldown-cmark splits text events at `[` and `]` (and at
/// emphasis, escapes, entities), so a link is only visible once consecutive text events are
/// joined. While the pieces lie next to each other in the body, the run is just that span
/// (`start..end`, empty when equal); otherwise it is copied into `buf`.
///
/// A prefix of a run that holds no `[` can be dropped: no link starts in it, and its last byte
/// is no `[` (for_each_link looks back one byte, and only for a `[`). So a span that breaks
/// off without a `[` is forgotten rather than copied, and a copy only starts at a `[`.
#[derive(Default)]
struct Run {
    start: usize,
    end: usize,
    copied: bool,
    buf: String,
}

impl Run {
    #[inline(always)]
    fn is_empty(&self) -> bool {
        !self.copied && self.start == self.end
    }

    #[inline(always)]
    fn push(&mut self, body: &str, s: &str) {
        // Where `s` lies in `body`, if it is a slice of it (most text events borrow the input).
        let at = (s.as_ptr() as usize).wrapping_sub(body.as_ptr() as usize);
        let in_body = at <= body.len() && s.len() <= body.len() - at;
        if !self.copied {
            if self.start != self.end {
                if in_body && at == self.end {
                    self.end += s.len();
                    return;
                }
                let span = body.get(self.start..self.end).unwrap_or_default();
                if find_byte(span.as_bytes(), b'[').is_some() {
                    self.buf.clear();
                    self.buf.push_str(span);
                    self.buf.push_str(s);
                    self.copied = true;
                    return;
                }
                // Forgotten: the run is empty again.
            }
            if in_body {
                self.start = at;
                self.end = at + s.len();
                return;
            }
            self.end = self.start;
            if find_byte(s.as_bytes(), b'[').is_none() {
                return;
            }
            self.buf.clear();
            self.copied = true;
        }
        self.buf.push_str(s);
    }
}

/// The concepts of one note, deduplicated in first-seen order.
struct Links {
    concepts: Vec<(String, usize)>,
    /// Dedupe by linear scan while few, by this set once many.
    seen: FxHashSet<String>,
    /// The normalized name of an ASCII link, else `name`.
    ascii: [u8; NAME_BUF],
    name: String,
    family: Family,
}

impl Links {
    /// Take the links of the run (its block starts at `at` in the whole text), and empty it.
    fn flush(&mut self, run: &mut Run, body: &str, at: usize) {
        if run.is_empty() {
            return;
        }
        let text = if run.copied {
            run.buf.as_str()
        } else {
            body.get(run.start..run.end).unwrap_or_default()
        };
        for_each_link(text, ScanMode::Prose, |b| {
            let target = family_target(b, self.family);
            let name = match normalize_ascii(target.as_bytes(), &mut self.ascii) {
                Some(n) => &self.ascii[..n],
                None => {
                    normalize_into(target, &mut self.name);
                    self.name.as_bytes()
                }
            };
            // ASCII or from a String: always UTF-8.
            let name = std::str::from_utf8(name).unwrap_or_default();
            if name.is_empty() {
                return;
            }
            let known = if self.concepts.len() < 24 {
                // Lengths first: a call to compare bytes only when they match.
                self.concepts
                    .iter()
                    .any(|(c, _)| c.len() == name.len() && c == name)
            } else {
                if self.seen.is_empty() {
                    self.seen
                        .extend(self.concepts.iter().map(|(c, _)| c.clone()));
                }
                self.seen.contains(name) || !self.seen.insert(name.to_string())
            };
            if !known {
                self.concepts.push((name.to_string(), at));
            }
        });
        run.start = 0;
        run.end = 0;
        run.copied = false;
    }
}

/// Parse one note of a plain vault ([`parse_as`]).
pub fn parse(text: &str, stem: &str) -> Note {
    parse_as(text, stem, Family::Plain)
}

/// Parse one note as its vault's `family` reads it. `stem` is the file name without `.md`
/// (the last title fallback).
pub fn parse_as(text: &str, stem: &str, family: Family) -> Note {
    let (block, mut body_start) = split_front_matter(text);
    let mut fm = block.map(parse_front_matter).unwrap_or_default();
    let body = &text[body_start..];
    // Logseq: the page properties name the page; what opens it is the text after them.
    let mut opening = body_start;
    if let Family::Logseq { legacy } = family {
        let mut title = None;
        opening += logseq_props(body, |k, v| match k {
            "title" => title = Some(v.to_string()),
            "alias" => {
                for a in v.split(',') {
                    push_alias(&mut fm.aliases, trim_marks(a));
                }
            }
            "description" => fm.desc = Some(v.to_string()),
            _ => {}
        });
        fm.title = title
            .or(fm.title)
            .or_else(|| Some(logseq_name(stem, legacy)));
    }

    let mut links = Links {
        concepts: Vec::with_capacity(16),
        seen: FxHashSet::default(),
        ascii: [0; NAME_BUF],
        name: String::new(),
        family,
    };
    let mut run = Run::default();
    let mut block_start = body_start;
    let mut code_depth = 0u32;
    let mut in_heading = false;
    // The text of the first `# H1` (the title unless the front matter has one).
    let mut in_h1 = false;
    let mut heading_text = String::new();
    let mut headings = String::new();
    let mut h1: Option<String> = None;
    let mut in_para = false;
    // The first paragraph with visible text is the summary, collapsed as it comes.
    let mut para = Collapse::new(SUMMARY_CHARS, String::new());
    let mut summary: Option<String> = None;
    let mut sections = 0u32;

    let mut events = Parser::new_ext(body, Options::empty()).into_offset_iter();
    // The events are matched where they are returned: moving one costs a copy (a call in
    // the wasm engine) per event.
    loop {
        let item = events.next();
        let Some((ev, range)) = &item else {
            break;
        };
        match ev {
            Event::Text(t) => {
                if code_depth > 0 {
                    continue;
                }
                let t: &str = t;
                run.push(body, t);
                if in_heading {
                    if in_h1 {
                        heading_text.push_str(t);
                    } else {
                        headings.push_str(t);
                    }
                } else if in_para && !para.cut && summary.is_none() {
                    para.push(t);
                }
            }
            Event::Code(c) => {
                links.flush(&mut run, body, block_start);
                if in_heading {
                    if in_h1 {
                        heading_text.push_str(c);
                    }
                } else if in_para && !para.cut && summary.is_none() {
                    para.push(c);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                links.flush(&mut run, body, block_start);
                if in_para && !para.cut && summary.is_none() {
                    para.push(" ");
                }
            }
            Event::Start(tag) => match tag {
                // Inline containers: their text joins the surrounding run.
                Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Superscript
                | Tag::Subscript
                | Tag::Image { .. } => {}
                // Logseq's `[label]([[X]])` links X.
                Tag::Link { dest_url, .. } => {
                    if dest_url.starts_with("[[") {
                        run.push(body, dest_url);
                    }
                }
                other => {
                    links.flush(&mut run, body, block_start);
                    block_start = body_start + range.start;
                    match other {
                        Tag::CodeBlock(_) => code_depth += 1,
                        Tag::Heading { level, .. } => {
                            in_heading = true;
                            in_h1 = *level == HeadingLevel::H1 && h1.is_none();
                            heading_text.clear();
                        }
                        Tag::Paragraph => {
                            in_para = true;
                            if summary.is_none() {
                                para.clear();
                            }
                        }
                        _ => {}
                    }
                }
            },
            Event::End(tag) => match tag {
                TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Superscript
                | TagEnd::Subscript
                | TagEnd::Link
                | TagEnd::Image => {}
                other => {
                    links.flush(&mut run, body, block_start);
                    match other {
                        TagEnd::CodeBlock => code_depth = code_depth.saturating_sub(1),
                        TagEnd::Heading(level) => {
                            in_heading = false;
                            if in_h1 {
                                in_h1 = false;
                                let t = collapse(&heading_text, usize::MAX);
                                if !t.is_empty() {
                                    h1 = Some(t);
                                }
                            }
                            if *level == HeadingLevel::H2 {
                                sections += 1;
                            }
                            headings.push(' ');
                        }
                        TagEnd::Paragraph => {
                            in_para = false;
                            // (Logseq's page properties are no summary.)
                            if summary.is_none()
                                && !para.out.is_empty()
                                && body_start + range.end > opening
                            {
                                summary = Some(std::mem::take(&mut para.out));
                            }
                        }
                        _ => {}
                    }
                }
            },
            _ => links.flush(&mut run, body, block_start),
        }
    }
    links.flush(&mut run, body, block_start);

    let modified_ms = fm.modified.as_deref().and_then(parse_iso8601_ms);
    #[allow(unused_mut)]
    let mut tags = fm.tags;
    // Inline #tags serve enforcement's memories (the policy build); the lean build reads the
    // front matter's only (its budget: 852 bytes gzipped for this pass).
    #[cfg(feature = "policy")]
    inline_tags(body, &mut tags);
    if family == Family::Dendron {
        h1 = None; // a Dendron note is named by its file (its title is the front matter's)
    }
    body_start = opening;
    let desc = fm.desc.unwrap_or_default();
    Note {
        title: fm.title.or(h1).unwrap_or_else(|| stem.to_string()),
        tags,
        aliases: fm.aliases,
        modified_ms,
        body_start,
        concepts: links.concepts,
        summary: if desc.is_empty() {
            summary.unwrap_or_default()
        } else {
            collapse(&desc, SUMMARY_CHARS)
        },
        sections,
        desc,
        headings,
    }
}

/// Collapse runs of whitespace to one space and trim; keep at most `max` characters, cutting
/// at a word boundary and marking the cut with `…`.
pub fn collapse(s: &str, max: usize) -> String {
    let mut c = Collapse::new(
        max,
        String::with_capacity(s.len().min(max.saturating_mul(4)).min(4096)),
    );
    c.push(s);
    c.out
}

/// [`collapse`] fed piece by piece (the result is the same as collapsing the concatenation).
struct Collapse {
    out: String,
    /// Characters in `out`.
    count: usize,
    max: usize,
    /// Whitespace seen since the last visible character (and `out` is not empty).
    pending_space: bool,
    /// Cut at `max`: the rest is ignored.
    cut: bool,
}

impl Collapse {
    fn new(max: usize, out: String) -> Self {
        Collapse {
            out,
            count: 0,
            max,
            pending_space: false,
            cut: false,
        }
    }

    fn clear(&mut self) {
        self.out.clear();
        self.count = 0;
        self.pending_space = false;
        self.cut = false;
    }

    fn push(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() && !self.cut {
            // The next whitespace character, or run of visible ASCII (one character a byte),
            // or visible character.
            let from = i;
            let space;
            if bytes[i] < 0x80 {
                space = bytes[i].is_ascii_whitespace();
                i += 1;
                while !space && i < bytes.len() && visible_ascii(bytes[i]) {
                    i += 1;
                }
            } else {
                let ch = s[i..].chars().next().unwrap_or(' ');
                i += ch.len_utf8();
                space = ch.is_whitespace();
            }
            if space {
                self.pending_space = !self.out.is_empty();
                continue;
            }
            let t = &s[from..i];
            let chars = if bytes[from] < 0x80 { t.len() } else { 1 };
            if self.pending_space {
                if self.count >= self.max {
                    self.cut_here();
                    break;
                }
                self.out.push(' ');
                self.count += 1;
                self.pending_space = false;
            }
            // The result is the first `max` characters, as one by one.
            let room = self.max - self.count;
            if chars > room {
                self.out.push_str(&t[..room]);
                self.cut_here();
                break;
            }
            self.out.push_str(t);
            self.count += chars;
        }
    }

    fn cut_here(&mut self) {
        self.out = cut_words(std::mem::take(&mut self.out));
        self.cut = true;
    }
}

/// Not whitespace for [`collapse`] (which, like `u8::is_ascii_whitespace`, keeps `\x0B`).
#[inline(always)]
fn visible_ascii(b: u8) -> bool {
    b < 0x80 && !b.is_ascii_whitespace()
}

/// Cut `out` at a word boundary near its end and mark the cut with `…`.
pub fn cut_words(mut out: String) -> String {
    if let Some(i) = out.rfind(' ') {
        if i > out.len() / 2 {
            out.truncate(i);
        }
    }
    let trimmed = out.trim_end_matches([',', ';', ':', ' ']).len();
    out.truncate(trimmed);
    out.push('…');
    out
}

/// The implementation before the fast paths, kept to test the new one against.
#[cfg(test)]
#[path = "markdown_reference.rs"]
mod reference;

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;

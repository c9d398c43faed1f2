//! One note: front matter, title, the concepts it links (maenifold's rules: links count in
//! text and headings, never in fenced / indented code or inline code) and a summary line.
//! (Previews and snippets, cut from the text when asked, are the vault's: `vault::excerpt`.)

use std::borrow::Cow;

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

/// `s` without the marks around a name in a property or a configuration value: spaces, `#`,
/// `[`, `]`, quotes, `/`, `-` (`#[[Todos]]`, `'vault/'`, `- fsPath`).
pub fn trim_marks(s: &str) -> &str {
    let b = s.as_bytes();
    let keep = |c: &u8| {
        !matches!(
            c,
            b'#' | b'[' | b']' | b'"' | b'\'' | b'/' | b'-' | b' ' | b'\t' | b'\r'
        )
    };
    let i = b.iter().position(keep).unwrap_or(b.len());
    let j = b.iter().rposition(keep).map_or(i, |j| j + 1);
    &s[i..j]
}

/// Logseq's page properties: the `key:: value` lines that open a page (its first block, a
/// bullet or not), each given to `f` until the first line that is none. Returns where they end.
fn logseq_props<'a>(body: &'a str, mut f: impl FnMut(&'a str, &'a str)) -> usize {
    let mut end = 0;
    for line in body.lines() {
        let t = line.trim();
        let t = t.strip_prefix("- ").unwrap_or(t);
        match t.split_once("::") {
            Some((k, v)) if !k.is_empty() && !k.contains(' ') => f(k, v.trim()),
            _ if t.is_empty() && end == 0 => {}
            _ => break,
        }
        end = line.as_ptr() as usize - body.as_ptr() as usize + line.len();
    }
    end
}

/// Front matter fields the vault reads. Everything else is ignored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontMatter {
    pub title: Option<String>,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub modified: Option<String>,
    /// `description` (or Dendron's `desc`, or `summary`): what the note is about.
    pub desc: Option<String>,
}

/// Split a leading `---` front matter block off. Returns the block's inner text (when there is
/// a closed block) and the byte offset where the body starts.
pub fn split_front_matter(text: &str) -> (Option<&str>, usize) {
    let start = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
    let rest = &text[start..];
    let Some(first_end) = rest.find('\n') else {
        return (None, 0);
    };
    if rest[..first_end].trim_end() != "---" {
        return (None, 0);
    }
    let inner_start = start + first_end + 1;
    let mut pos = inner_start;
    while pos <= text.len() {
        let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
        let line = text[pos..line_end].trim_end();
        if line == "---" || line == "..." {
            let body = (line_end + 1).min(text.len());
            return (Some(&text[inner_start..pos]), body);
        }
        if line_end >= text.len() {
            break;
        }
        pos = line_end + 1;
    }
    (None, 0) // never closed: not front matter
}

/// Read `title`, `tags`, `aliases` and `modified` from a front matter block: `key: value`
/// lines, inline lists (`[a, b]`), block lists (`- a`), quoted scalars. Robust to everything
/// else.
pub fn parse_front_matter(block: &str) -> FrontMatter {
    let mut fm = FrontMatter::default();
    // In a block list of tags (`tags:` then `- a` lines), or of aliases.
    let mut tag_list = false;
    let mut alias_list = false;
    for raw in block.lines() {
        let t = raw.trim();
        let tb = t.as_bytes();
        if tb.is_empty() || tb[0] == b'#' {
            continue;
        }
        let indented = matches!(raw.as_bytes()[0], b' ' | b'\t');
        // A list item: `- x` or a lone `-`.
        if tb[0] == b'-' && (tb.len() == 1 || tb[1] == b' ') {
            if tag_list {
                push_tag(&mut fm.tags, &unquote(&t[1..]));
            } else if alias_list {
                push_alias(&mut fm.aliases, &unquote(&t[1..]));
            }
            continue;
        }
        if indented {
            continue; // a nested map or a folded scalar: not read
        }
        tag_list = false;
        alias_list = false;
        let Some((k, v)) = t.split_once(':') else {
            continue;
        };
        let mut key_buf = [0u8; 16];
        let k = k.trim();
        let key = if k.len() <= key_buf.len() {
            key_buf[..k.len()].copy_from_slice(k.as_bytes());
            key_buf[..k.len()].make_ascii_lowercase();
            std::str::from_utf8(&key_buf[..k.len()]).unwrap_or("")
        } else {
            ""
        };
        let value = v.trim();
        match key {
            "title" if !value.is_empty() && !value.starts_with(['|', '>']) => {
                let s = unquote(value);
                if !s.is_empty() {
                    fm.title = Some(s.to_string());
                }
            }
            "tags" | "tag" | "keywords" if key == "tags" || fm.tags.is_empty() => {
                if value.is_empty() {
                    tag_list = true;
                } else if let Some(inner) =
                    value.strip_prefix('[').and_then(|x| x.strip_suffix(']'))
                {
                    for part in inner.split(',') {
                        push_tag(&mut fm.tags, &unquote(part));
                    }
                } else {
                    for part in unquote(value).split([',', ' ']) {
                        push_tag(&mut fm.tags, part);
                    }
                }
            }
            "aliases" | "alias" => {
                if value.is_empty() {
                    alias_list = true;
                } else if let Some(inner) =
                    value.strip_prefix('[').and_then(|x| x.strip_suffix(']'))
                {
                    for part in inner.split(',') {
                        push_alias(&mut fm.aliases, &unquote(part));
                    }
                } else {
                    // One alias, or several separated by commas (Obsidian's text field).
                    for part in unquote(value).split(',') {
                        push_alias(&mut fm.aliases, part);
                    }
                }
            }
            "desc" | "description" | "summary" if fm.desc.is_none() => {
                let s = unquote(value);
                if !s.is_empty() && !value.starts_with(['|', '>']) {
                    fm.desc = Some(s.to_string());
                }
            }
            "modified" | "updated" | "date_modified" | "lastmod"
                if fm.modified.is_none() && !value.is_empty() =>
            {
                fm.modified = Some(unquote(value).to_string());
            }
            _ => {}
        }
    }
    fm
}

fn push_tag(tags: &mut Vec<String>, t: &str) {
    let t = t.trim().trim_start_matches('#').trim();
    if !t.is_empty() && !tags.iter().any(|x| x == t) {
        tags.push(t.to_string());
    }
}

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

/// Inline tags kept per note.
pub const MAX_INLINE_TAGS: usize = 32;

fn push_alias(aliases: &mut Vec<String>, a: &str) {
    let a = a.trim();
    if !a.is_empty() && aliases.len() < MAX_ALIASES && !aliases.iter().any(|x| x == a) {
        aliases.push(a.to_string());
    }
}

/// Aliases kept per note (a hostile note cannot make one name table entry per byte).
pub const MAX_ALIASES: usize = 32;

/// A scalar without its quotes (a copy only when quoted: escapes and doubled `'` are undone).
fn unquote(v: &str) -> Cow<'_, str> {
    let v = v.trim();
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        let inner = &v[1..v.len() - 1];
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push(' '),
                    Some('t') => out.push(' '),
                    Some(o) => out.push(o),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        Cow::Owned(out)
    } else if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        Cow::Owned(v[1..v.len() - 1].replace("''", "'"))
    } else {
        // A plain scalar may end in a comment.
        match v.find(" #") {
            Some(i) => Cow::Borrowed(v[..i].trim_end()),
            None => Cow::Borrowed(v),
        }
    }
}

/// Milliseconds since the Unix epoch for an ISO 8601 date or date-time:
/// `2026-02-18`, `2026-02-18T19:02`, `2026-02-18 19:02:03.123Z`, `…+02:00`. No zone = UTC.
pub fn parse_iso8601_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    let b = s.as_bytes();
    // A field of 2 or 4 digits (no call to the integer parser: a few hundred bytes of wasm).
    let num = |from: usize, len: usize| -> Option<i64> {
        digits(b.get(from..from + len)?).map(|n| n as i64)
    };
    let year = num(0, 4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let month = num(5, 2)?;
    let day = num(8, 2)?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut secs = days_from_civil(year, month, day) * 86_400;
    let mut frac_ms = 0.0;
    let mut i = 10;
    if matches!(b.get(10), Some(b'T' | b't' | b' ')) && b.len() > 11 {
        let h = num(11, 2)?;
        if b.get(13) != Some(&b':') {
            return None;
        }
        let m = num(14, 2)?;
        let mut sec = 0;
        i = 16;
        if b.get(16) == Some(&b':') {
            sec = num(17, 2)?;
            i = 19;
            if matches!(b.get(19), Some(b'.' | b',')) {
                let start = 20;
                let mut end = start;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
                if end > start {
                    let digits = &s[start..end.min(start + 9)];
                    let v = digits.parse::<u32>().ok()? as f64; // ≤ 9 digits: exact
                    frac_ms = v / 10f64.powi(digits.len() as i32) * 1000.0;
                }
                i = end;
            }
        }
        if h > 23 || m > 59 || sec > 60 {
            return None;
        }
        secs += h * 3600 + m * 60 + sec;
        match b.get(i) {
            None => {}
            Some(b'Z' | b'z') => {}
            Some(&sign @ (b'+' | b'-')) => {
                let oh = num(i + 1, 2)?;
                let om = match b.get(i + 3) {
                    Some(b':') => num(i + 4, 2)?,
                    Some(_) => num(i + 3, 2).unwrap_or(0),
                    None => 0,
                };
                let off = oh * 3600 + om * 60;
                secs -= if sign == b'+' { off } else { -off };
            }
            Some(_) => return None,
        }
    } else if b.len() > 10 && !b[10].is_ascii_whitespace() {
        return None;
    }
    let _ = i;
    Some(secs as f64 * 1000.0 + frac_ms)
}

/// The value of a run of ASCII digits (a few), `None` if another byte is in it.
fn digits(part: &[u8]) -> Option<u64> {
    let mut n = 0u64;
    for &d in part {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + (d - b'0') as u64;
    }
    Some(n)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Render milliseconds since the epoch as `YYYY-MM-DD HH:MM` (UTC), maenifold's style.
pub fn format_utc_minutes(ms: f64) -> String {
    let secs = (ms / 1000.0).floor() as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        rem / 3600,
        (rem % 3600) / 60
    )
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
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

//! The implementation before the fast paths, kept to test the new one against.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::{cut_words, days_from_civil, split_front_matter, FrontMatter, Note, SUMMARY_CHARS};
use crate::fx::FxHashSet;
use crate::wikilink::reference::{for_each_link, link_target, normalize_into};
use crate::wikilink::ScanMode;

/// Milliseconds since the Unix epoch for an ISO 8601 date or date-time:
/// `2026-02-18`, `2026-02-18T19:02`, `2026-02-18 19:02:03.123Z`, `…+02:00`. No zone = UTC.
pub(super) fn parse_iso8601_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
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

/// Collapse runs of whitespace to one space and trim; keep at most `max` characters, cutting
/// at a word boundary and marking the cut with `…`.
pub fn collapse(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max.saturating_mul(4)).min(4096));
    let bytes = s.as_bytes();
    let mut count = 0usize;
    let mut pending_space = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (space, len) = if b < 0x80 {
            (b.is_ascii_whitespace(), 1)
        } else {
            let ch = s[i..].chars().next().expect("char boundary");
            (ch.is_whitespace(), ch.len_utf8())
        };
        i += len;
        if space {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            if count + 1 > max {
                return cut_words(out);
            }
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        if count + 1 > max {
            return cut_words(out);
        }
        if len == 1 {
            out.push(b as char);
        } else {
            out.push_str(&s[i - len..i]);
        }
        count += 1;
    }
    out
}

/// Read `title`, `tags` and `modified` from a front matter block: `key: value` lines, inline
/// lists (`[a, b]`), block lists (`- a`), quoted scalars. Robust to everything else.
pub fn parse_front_matter(block: &str) -> FrontMatter {
    let mut fm = FrontMatter::default();
    let mut list_key: Option<String> = None;
    for raw in block.lines() {
        let line = raw.trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        let t = line.trim();
        if let Some(item) = t
            .strip_prefix("- ")
            .or(if t == "-" { Some("") } else { None })
        {
            if let Some(k) = &list_key {
                if k == "tags" {
                    push_tag(&mut fm.tags, &unquote(item.trim()));
                }
            }
            continue;
        }
        if indented {
            continue; // a nested map or a folded scalar: not read
        }
        list_key = None;
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
                    fm.title = Some(s);
                }
            }
            "tags" | "tag" | "keywords" if key == "tags" || fm.tags.is_empty() => {
                if value.is_empty() {
                    list_key = Some("tags".into());
                } else if let Some(inner) =
                    value.strip_prefix('[').and_then(|x| x.strip_suffix(']'))
                {
                    for part in inner.split(',') {
                        push_tag(&mut fm.tags, &unquote(part.trim()));
                    }
                } else {
                    for part in unquote(value).split([',', ' ']) {
                        push_tag(&mut fm.tags, part.trim());
                    }
                }
            }
            "modified" | "updated" | "date_modified" | "lastmod"
                if fm.modified.is_none() && !value.is_empty() =>
            {
                fm.modified = Some(unquote(value));
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

fn unquote(v: &str) -> String {
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
        out
    } else if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        v[1..v.len() - 1].replace("''", "'")
    } else {
        // A plain scalar may end in a comment.
        match v.find(" #") {
            Some(i) => v[..i].trim_end().to_string(),
            None => v.to_string(),
        }
    }
}

/// Parse one note. `stem` is the file name without `.md` (the last title fallback).
pub fn parse(text: &str, stem: &str) -> Note {
    let (block, body_start) = split_front_matter(text);
    let fm = block.map(parse_front_matter).unwrap_or_default();
    let body = &text[body_start..];

    let mut concepts: Vec<(String, usize)> = Vec::with_capacity(16);
    // Dedupe by linear scan while few, by a set once many.
    let mut seen: FxHashSet<String> = FxHashSet::default();
    let mut name = String::with_capacity(64);
    // The current run of inline text: pulldown-cmark splits text events at `[`, so a link is
    // only visible once consecutive text events are joined.
    let mut run = String::with_capacity(256);
    let mut block_start = 0usize;
    let mut code_depth = 0u32;
    let mut heading: Option<HeadingLevel> = None;
    let mut heading_text = String::with_capacity(64);
    let mut h1: Option<String> = None;
    // Every heading's text but the title's (its code spans aside), each followed by a space.
    let mut this_heading = String::new();
    let mut headings = String::new();
    let mut in_para = false;
    let mut para_text = String::with_capacity(256);
    let mut summary: Option<String> = None;
    let mut sections = 0u32;

    let mut flush = |run: &mut String, block_start: usize| {
        if run.is_empty() {
            return;
        }
        for_each_link(run, ScanMode::Prose, |b| {
            normalize_into(link_target(b), &mut name);
            if name.is_empty() {
                return;
            }
            let known = if concepts.len() < 24 {
                concepts.iter().any(|(c, _)| *c == name)
            } else {
                if seen.is_empty() {
                    seen.extend(concepts.iter().map(|(c, _)| c.clone()));
                }
                !seen.insert(name.clone())
            };
            if !known {
                concepts.push((name.clone(), body_start + block_start));
            }
        });
        run.clear();
    };

    for (ev, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        match ev {
            Event::Text(t) => {
                if code_depth > 0 {
                    continue;
                }
                run.push_str(&t);
                if heading.is_some() {
                    heading_text.push_str(&t);
                    this_heading.push_str(&t);
                } else if in_para && summary.is_none() {
                    para_text.push_str(&t);
                }
            }
            Event::Code(c) => {
                flush(&mut run, block_start);
                if heading.is_some() {
                    heading_text.push_str(&c);
                } else if in_para && summary.is_none() {
                    para_text.push_str(&c);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                flush(&mut run, block_start);
                if in_para && summary.is_none() {
                    para_text.push(' ');
                }
            }
            Event::Start(tag) => match tag {
                // Inline containers: their text joins the surrounding run.
                Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Superscript
                | Tag::Subscript
                | Tag::Link { .. }
                | Tag::Image { .. } => {}
                other => {
                    flush(&mut run, block_start);
                    block_start = range.start;
                    match other {
                        Tag::CodeBlock(_) => code_depth += 1,
                        Tag::Heading { level, .. } => {
                            heading = Some(level);
                            heading_text.clear();
                            this_heading.clear();
                        }
                        Tag::Paragraph => {
                            in_para = true;
                            para_text.clear();
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
                    flush(&mut run, block_start);
                    match other {
                        TagEnd::CodeBlock => code_depth = code_depth.saturating_sub(1),
                        TagEnd::Heading(level) => {
                            heading = None;
                            if !(level == HeadingLevel::H1 && h1.is_none()) {
                                headings.push_str(&this_heading);
                            }
                            headings.push(' ');
                            if level == HeadingLevel::H1 && h1.is_none() {
                                let t = collapse(&heading_text, usize::MAX);
                                if !t.is_empty() {
                                    h1 = Some(t);
                                }
                            }
                            if level == HeadingLevel::H2 {
                                sections += 1;
                            }
                        }
                        TagEnd::Paragraph => {
                            in_para = false;
                            if summary.is_none() {
                                let s = collapse(&para_text, SUMMARY_CHARS);
                                if !s.is_empty() {
                                    summary = Some(s);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            },
            _ => flush(&mut run, block_start),
        }
    }
    flush(&mut run, block_start);

    let title = fm.title.clone().or(h1).unwrap_or_else(|| stem.to_string());
    // Inline #tags: one function for both (this reference checks the link and summary pass).
    #[allow(unused_mut)]
    let mut tags = fm.tags;
    #[cfg(feature = "policy")]
    crate::markdown::inline_tags(&text[body_start..], &mut tags);
    Note {
        title,
        tags,
        aliases: fm.aliases,
        modified_ms: fm.modified.as_deref().and_then(parse_iso8601_ms),
        body_start,
        concepts,
        summary: match &fm.desc {
            Some(d) => crate::markdown::collapse(d, crate::markdown::SUMMARY_CHARS),
            None => summary.unwrap_or_default(),
        },
        sections,
        desc: fm.desc.unwrap_or_default(),
        headings,
    }
}

//! Front matter and the once-a-note text helpers of a note (its names, dates, tags), in a crate
//! of their own so that they are built for size while the per-word paths of `hookwise-text`
//! are built for speed (Cargo.toml's profiles; issue 40).

use std::borrow::Cow;

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
pub fn logseq_props<'a>(body: &'a str, mut f: impl FnMut(&'a str, &'a str)) -> usize {
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
// Never inlined into the text crate's callers, which are built for speed: this is the point
// of the crate.
#[inline(never)]
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
// Never inlined into the text crate's callers, which are built for speed: this is the point
// of the crate.
#[inline(never)]
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

pub fn push_tag(tags: &mut Vec<String>, t: &str) {
    let t = t.trim().trim_start_matches('#').trim();
    if !t.is_empty() && !tags.iter().any(|x| x == t) {
        tags.push(t.to_string());
    }
}

/// Inline tags kept per note.
pub const MAX_INLINE_TAGS: usize = 32;

pub fn push_alias(aliases: &mut Vec<String>, a: &str) {
    let a = a.trim();
    if !a.is_empty() && aliases.len() < MAX_ALIASES && !aliases.iter().any(|x| x == a) {
        aliases.push(a.to_string());
    }
}

/// Aliases kept per note (a hostile note cannot make one name table entry per byte).
pub const MAX_ALIASES: usize = 32;

/// A scalar without its quotes (a copy only when quoted: escapes and doubled `'` are undone).
pub fn unquote(v: &str) -> Cow<'_, str> {
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
pub fn digits(part: &[u8]) -> Option<u64> {
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
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
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

pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
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

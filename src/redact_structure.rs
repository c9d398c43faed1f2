//! Secrets known by where they stand rather than by their shape: a value that is not on its
//! key's line (a YAML block scalar, an indented block, the next line), a value that is a whole
//! object (`{"secrets": {…}}`), a password given to a command as `-p`, base64 that decodes to a
//! secret, a bare AWS secret access key, a Telegram bot token; a key name split by a
//! zero-width character; and file names made from text (a note's title).
//!
//! Every look-ahead is bounded or consumed, as in the rest of the redactor.

use std::borrow::Cow;

use super::{closing, hit, is_val, is_w, opening_quote, run, skip_sp, starts, tick, Hit, MARKER};

/// The column of the word at `i` on its line when only blanks, `-` list marks or a quote stand
/// before it (a YAML or JSON key), looked for at most 256 bytes back.
fn key_column(b: &[u8], i: usize) -> Option<usize> {
    let lim = i.saturating_sub(256);
    let mut k = i;
    while k > lim {
        tick();
        match b[k - 1] {
            b'\n' => return Some(i - k),
            b' ' | b'\t' | b'-' | b'"' | b'\'' => k -= 1,
            _ => return None,
        }
    }
    (k == 0).then_some(i)
}

/// The end of the line from `k` (its `\n` or the end of the text).
fn line_end(b: &[u8], k: usize) -> usize {
    run(b, k, |c| c != b'\n')
}

/// Past the line break at `k`, if there is one.
fn eol(b: &[u8], k: usize) -> Option<usize> {
    match (b.get(k), b.get(k + 1)) {
        (Some(b'\n'), _) => Some(k + 1),
        (Some(b'\r'), Some(b'\n')) => Some(k + 2),
        _ => None,
    }
}

/// A value that is not on its key's line, or is a whole object: a YAML block scalar (`|`,
/// `>-` …) or indented block under the key (every line more indented than the key), a next
/// line that is one secret-looking word, or a `{…}` / `[{…}]` (JSON or YAML flow, nested to
/// any depth). `key`: the key's first byte; `v`: where its value starts.
pub(super) fn block(b: &[u8], key: usize, v: usize, kind: &'static str) -> Option<Hit> {
    match b.get(v) {
        Some(b'{') if b.get(v + 1) != Some(&b'{') => return nested(b, v, kind),
        Some(b'[') if !starts(b, v, MARKER.as_bytes()) => {
            let k = skip_sp(b, v + 1, 8);
            if matches!(b.get(k), Some(b'{' | b'"')) {
                return nested(b, v, kind);
            }
            return None;
        }
        _ => {}
    }
    let col = key_column(b, key)?;
    let mut e = v;
    let scalar = matches!(b.get(e), Some(b'|' | b'>'));
    if scalar {
        e = run(b, e + 1, |c| c == b'-' || c == b'+' || c.is_ascii_digit());
        e = skip_sp(b, e, 8);
        if b.get(e) == Some(&b'#') {
            e = line_end(b, e);
        }
    }
    let Some(first) = eol(b, e) else {
        // a block flattened onto one line (a title): the rest of the line
        let le = line_end(b, e);
        return (scalar && le > e).then(|| hit(e, le - usize::from(b[le - 1] == b'\r'), kind))?;
    };
    // the lines more indented than the key (blank lines between them)
    let mut k = first;
    let mut end = None;
    while k < b.len() {
        let s = run(b, k, |c| c == b' ' || c == b'\t');
        if let Some(n) = eol(b, s) {
            k = n;
            continue;
        }
        if s == b.len() || s - k <= col {
            break;
        }
        let le = line_end(b, s);
        end = Some(le - usize::from(le > s && b[le - 1] == b'\r'));
        k = le + 1;
    }
    let start = skip_sp(b, first, 64);
    if let Some(end) = end {
        return hit(start, end, kind);
    }
    if scalar {
        return None;
    }
    // `password:` then the value alone on the next line
    let le = line_end(b, start);
    let w = &b[start..le - usize::from(le > start && b[le - 1] == b'\r')];
    let word = w.len() >= 6
        && w.iter().all(|&c| is_val(c) && c != b':')
        && w.iter().any(u8::is_ascii_digit)
        && w.iter().any(u8::is_ascii_alphabetic);
    word.then(|| hit(start, start + w.len(), kind)).flatten()
}

/// `{…}` or `[…]` from `v` to its closing bracket (strings and their escapes skipped), or to
/// the end of the text when it is not closed.
fn nested(b: &[u8], v: usize, kind: &'static str) -> Option<Hit> {
    let mut depth = 0usize;
    let mut k = v;
    let mut quote = None;
    while k < b.len() {
        tick();
        let c = b[k];
        match quote {
            Some(_) if c == b'\\' => k += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return hit(v, k + 1, kind);
                    }
                }
                _ => {}
            },
        }
        k += 1;
    }
    hit(v, b.len(), kind)
}

/// The commands that take a password as `-p`: attached (`mysql -pX`, `sshpass -pX`) or as the
/// next word (`sshpass -p X`, `docker login -p X`).
const ATTACHED: &[&[u8]] = &[
    b"mysql",
    b"mysqldump",
    b"mysqladmin",
    b"mysqlimport",
    b"mysqlcheck",
    b"mariadb",
    b"mariadb-dump",
    b"sshpass",
];
const SPACED: &[&[u8]] = &[b"sshpass", b"login"];

/// A `-p` flag's password (the word `[i, j)` starts with `-p`), where the line's command takes
/// one: the line is looked at at most 256 bytes back.
pub(super) fn p_flag(b: &[u8], i: usize, j: usize) -> Option<Hit> {
    let from = i.saturating_sub(256);
    let ls = b[from..i]
        .iter()
        .rposition(|&c| c == b'\n' || c == b';' || c == b'|' || c == b'&')
        .map_or(from, |p| from + p + 1);
    let line = &b[ls..i];
    let has = |names: &[&[u8]]| {
        line.split(|c| !(is_w(*c) || *c == b'/'))
            .map(|w| w.rsplit(|c| *c == b'/').next().unwrap_or(w))
            .any(|w| names.contains(&w))
    };
    let (s, attached) = if j - i > 2 || matches!(b.get(i + 2), Some(b'"' | b'\'')) {
        (i + 2, true)
    } else if j - i == 2 && has(SPACED) {
        (skip_sp(b, j, 4), false)
    } else {
        return None;
    };
    if (attached && !has(ATTACHED)) || s == j {
        return None;
    }
    let (q, esc, s) = opening_quote(b, s);
    let e = match q {
        Some(q) => closing(b, s, q, esc),
        None => run(b, s, is_val),
    };
    if super::placeholder(b, s) || b.get(s) == Some(&b'-') {
        return None;
    }
    hit(s, e, "password")
}

/// Standard base64's bytes.
pub(super) fn is_b64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'+' || c == b'/'
}

fn b64_value(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

/// `s` decoded when it decodes to text (printable ASCII, tabs, line breaks): the first byte
/// that is not text stops it.
fn decode_text(s: &[u8]) -> Option<String> {
    let mut out = String::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut n) = (0u32, 0);
    for &c in s {
        tick();
        acc = (acc << 6) | b64_value(c)?;
        n += 6;
        if n >= 8 {
            n -= 8;
            let byte = (acc >> n) as u8;
            acc &= (1 << n) - 1;
            if !(byte == b'\t' || byte == b'\n' || byte == b'\r' || (b' '..=b'~').contains(&byte)) {
                return None;
            }
            out.push(byte as char);
        }
    }
    Some(out)
}

/// A run of base64 `[i, j)` (its `=` padding after it): redacted whole when it decodes to
/// text that holds a secret; or, 40 long in mixed case with digits and a `/` or `+` (or without
/// one, random-looking enough: [`super::forms::aws_plain`]), standing alone, an AWS secret
/// access key.
pub(super) fn b64(b: &[u8], i: usize, j: usize) -> Option<Hit> {
    let n = j - i;
    let pad = run(&b[..(j + 2).min(b.len())], j, |c| c == b'=');
    if n >= 16 {
        if let Some(text) = decode_text(&b[i..j]) {
            if text.len() >= 8 && matches!(super::scan(&text, 1), Cow::Owned(_)) {
                return hit(i, pad, "base64");
            }
        }
    }
    let w = &b[i..j];
    let lone = |c: Option<&u8>| c.is_none_or(|c| !(is_w(*c) || *c == b'.' || *c == b'='));
    if n == 40
        && lone(i.checked_sub(1).and_then(|p| b.get(p)))
        && lone(b.get(j))
        && w.iter().any(u8::is_ascii_uppercase)
        && w.iter().any(u8::is_ascii_lowercase)
        && w.iter().any(u8::is_ascii_digit)
        && (w.iter().any(|c| *c == b'/' || *c == b'+') || super::forms::aws_plain(w))
    {
        return hit(i, j, "aws-secret-key");
    }
    None
}

/// A Telegram bot token, the word `[i, j)` being its digits (or `bot` and its digits, as in
/// the Bot API's URLs): 5 to 16 digits, `:`, `A` and 34 more.
pub(super) fn telegram(b: &[u8], i: usize, j: usize) -> Option<Hit> {
    let w = &b[i..j];
    let d = w.strip_prefix(b"bot").unwrap_or(w);
    if !(5..=16).contains(&d.len()) || !d.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if b.get(j) != Some(&b':') || !b.get(j + 1).is_some_and(u8::is_ascii_uppercase) {
        return None;
    }
    // (35 in the Bot API; 34 in its documentation's example)
    let e = run(b, j + 1, is_w);
    let t = &b[j + 1..e];
    (t.len() >= 30 && t.iter().any(u8::is_ascii_digit) && t.iter().any(u8::is_ascii_lowercase))
        .then(|| hit(j - d.len(), e, "telegram-bot-token"))?
}

/// Zero-width characters (ZWSP, ZWNJ, ZWJ, word joiner, BOM, soft hyphen): a key name split by
/// one reads as two words.
fn is_zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{ad}'
    )
}

/// `text` without its zero-width characters, when it has any.
pub(super) fn without_zero_width(text: &str) -> Option<String> {
    text.contains(is_zero_width)
        .then(|| text.chars().filter(|c| !is_zero_width(*c)).collect())
}

/// A file name made from text (a note's title, as a slug of lowercase letters, digits and
/// dashes) with no secret in it: the slug redacted, and any part between dashes of 16 or more
/// characters with letters and digits (a token that lost its shape to the slug: case, `_`)
/// replaced by `redacted`, except hexadecimal of up to 40 (a commit id).
pub fn safe_name(slug: &str) -> String {
    let redacted = super::redact(slug);
    let mut s = String::with_capacity(slug.len());
    for c in redacted.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    let parts: Vec<&str> = s
        .trim_matches('-')
        .split('-')
        .map(|p| {
            let has = |f: fn(&u8) -> bool| p.as_bytes().iter().any(f);
            let commit = p.len() <= 40 && p.bytes().all(|c| c.is_ascii_hexdigit());
            if p.len() >= 16 && has(u8::is_ascii_digit) && has(u8::is_ascii_alphabetic) && !commit {
                "redacted"
            } else {
                p
            }
        })
        .collect();
    parts.join("-")
}

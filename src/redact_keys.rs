//! `key = value`: the value of a sensitive key, in env, URL, YAML, JSON, HTTP header or CLI
//! flag form, and what a value must look like to be redacted (not a reference, not code).

use super::*;

/// Sensitive key suffixes (lowercase letters and digits of the key, `_`/`-`/`.` dropped),
/// longest first, and the marker's kind.
const KEYS: &[(&[u8], &str)] = &[
    (b"secretaccesskey", "aws-secret-key"),
    (b"credentials", "secret"),
    (b"passwords", "password"),
    (b"sharedaccesskey", "azure-key"),
    (b"authorization", "authorization"),
    (b"accountkey", "azure-key"),
    (b"privatekey", "private-key"),
    (b"passphrase", "password"),
    (b"secretkey", "secret"),
    (b"accesskey", "secret"),
    (b"password", "password"),
    (b"passwd", "password"),
    (b"apikey", "api-key"),
    (b"secrets", "secret"),
    (b"secret", "secret"),
    (b"token", "token"),
    (b"dsn", "dsn"),
];

/// Words that make any key sensitive when its value looks random ([`random`]): gitleaks'
/// generic rule's keywords (`SECRET_KEY_BASE`, `encryption_key`, `auth_code`).
const WEAK_KEYS: &[&[u8]] = &[
    b"secret",
    b"passw",
    b"token",
    b"credential",
    b"creds",
    b"auth",
    b"key",
    b"pwd",
    b"signature",
];

/// The kind of a key, when it is sensitive.
fn key_kind(w: &[u8]) -> Option<(&'static str, bool)> {
    const CAP: usize = 40;
    let mut buf = [0u8; CAP];
    let mut len = 0;
    for &c in w.iter().rev() {
        tick();
        if c.is_ascii_alphanumeric() {
            if len == CAP {
                break;
            }
            buf[CAP - 1 - len] = c.to_ascii_lowercase();
            len += 1;
        }
    }
    let norm = &buf[CAP - len..];
    // `API_KEY_2`, `password1`
    let strong = &norm[..norm.len() - norm.iter().rev().take_while(|c| c.is_ascii_digit()).count()];
    if strong == b"auth" {
        return Some(("secret", true));
    }
    if strong == b"sig" {
        // a shared access signature (`…&sig=…`)
        return Some(("signature", true));
    }
    let tail = &strong[strong.len().saturating_sub(24)..];
    if let Some((_, kind)) = KEYS.iter().find(|(suffix, _)| tail.ends_with(suffix)) {
        return Some((kind, true));
    }
    WEAK_KEYS
        .iter()
        .any(|k| norm.windows(k.len()).any(|x| x == *k))
        .then_some(("secret", false))
}

/// A value that looks random, as a weak key's value must: 12 or more characters of a token
/// (letters, digits, `_-.+/=`) in upper and lower case with digits, or 16 or more of
/// hexadecimal with letters and digits.
fn random(v: &[u8]) -> bool {
    let has = |f: fn(&u8) -> bool| v.iter().any(f);
    let tok = v
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || b"_-.+/=".contains(c));
    let mixed = v.len() >= 12
        && has(u8::is_ascii_uppercase)
        && has(u8::is_ascii_lowercase)
        && has(u8::is_ascii_digit);
    let hex = v.len() >= 16
        && v.iter().all(u8::is_ascii_hexdigit)
        && has(u8::is_ascii_digit)
        && has(u8::is_ascii_alphabetic);
    tok && (mixed || hex)
}

/// An upper-case environment name ending in `_KEY`, `_PASS`, `_PWD` or `_SALT` (`ENCRYPTION_KEY`,
/// `DB_PASS`; not `PWD`, `sort_key` or `primaryKey`).
fn env_key(w: &[u8]) -> bool {
    w.iter()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
        && [&b"_KEY"[..], b"_PASS", b"_PWD", b"_SALT"]
            .iter()
            .any(|s| w.len() > s.len() && w.ends_with(s))
}

/// A value that is a reference, not a secret: `${X}`, `$X`, `$(cmd)`, `%X%`, `%(x)s`, `{{x}}`,
/// `<placeholder>`, `[…]` (a list, or a marker already there), `(…)`, `{…}`.
pub(super) fn placeholder(b: &[u8], s: usize) -> bool {
    match b.get(s) {
        Some(b'$') => b
            .get(s + 1)
            .is_some_and(|c| c.is_ascii_alphabetic() || b"_{(".contains(c)),
        Some(c) => b"%{<[(".contains(c),
        None => true,
    }
}

/// An unquoted value's bytes: not whitespace, quotes, separators or closing brackets.
pub(super) fn is_val(c: u8) -> bool {
    c > b' ' && c != 0x7f && !b"\"'`,;&)}]<>\\|".contains(&c)
}

/// The end of an unquoted value from `s`: the run of [`is_val`] bytes, up to a marker.
pub(super) fn val_end(b: &[u8], s: usize) -> usize {
    let mut k = s;
    while k < b.len() && is_val(b[k]) && !(b[k] == b'[' && starts(b, k, MARKER.as_bytes())) {
        tick();
        k += 1;
    }
    k
}

/// An opening quote at `k` (`"`, `'`, `` ` ``, or one escaped by a backslash as in JSON inside
/// a string): (the quote, escaped, where the value starts).
pub(super) fn opening_quote(b: &[u8], k: usize) -> (Option<u8>, bool, usize) {
    match (b.get(k), b.get(k + 1)) {
        (Some(b'\\'), Some(&q @ (b'"' | b'\''))) => (Some(q), true, k + 2),
        (Some(&q @ (b'"' | b'\'' | b'`')), _) => (Some(q), false, k + 1),
        _ => (None, false, k),
    }
}

/// Where a quoted value that starts at `s` ends: its closing quote (`\q` when the opening one
/// was escaped), else the end of the line or text.
pub(super) fn closing(b: &[u8], s: usize, q: u8, esc: bool) -> usize {
    let mut k = s;
    while k < b.len() {
        tick();
        let c = b[k];
        if c == b'\n' || c == b'\r' {
            return k;
        }
        if esc {
            if c == b'\\' && b.get(k + 1) == Some(&q) {
                return k;
            }
        } else if c == b'\\' {
            k += 2;
            continue;
        } else if c == q {
            return k;
        }
        k += 1;
    }
    b.len()
}

const NOT_SECRETS: &[&[u8]] = &[
    b"true",
    b"false",
    b"null",
    b"none",
    b"nil",
    b"undefined",
    b"string",
    b"str",
    b"number",
    b"int",
    b"bool",
    b"boolean",
    b"any",
    b"object",
    b"optional",
    b"required",
    b"yes",
    b"no",
];

/// An unquoted value written as code, not a literal: a call, index or generic type
/// (`os.getenv(`, `tokens[`, `Option<String>`), or — where the assignment is spaced, as code
/// is — a dotted path (`self.token`, `config.password`). `next`: the byte after the value. At
/// most 128 bytes are looked at.
fn code_like(v: &[u8], next: Option<u8>, spaced: bool) -> bool {
    let Some(&first) = v.first() else {
        return false;
    };
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return false;
    }
    let lim = v.len().min(128);
    let p = run(&v[..lim], 0, |c| {
        c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b':'
    });
    let after = if p < v.len() { Some(v[p]) } else { next };
    if matches!(after, Some(b'(' | b'[' | b'<')) {
        return true;
    }
    let path = &v[..p];
    spaced
        && p == v.len()
        && path.contains(&b'.')
        && !path.contains(&b':')
        && path.split(|c| *c == b'.').all(|s| {
            s.first()
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        })
}

/// `key = value`, `key: value`, `"key": "value"`, `key=value` (URL or env), `--key value`
/// where the word `[i, j)` is a sensitive key: the value.
pub(super) fn key_value(b: &[u8], i: usize, j: usize) -> Option<Hit> {
    let w = &b[i..j];
    // a quoted key that is a call's first argument: `define('DB_PASSWORD', '…')`
    let call = i > 0
        && matches!(b[i - 1], b'"' | b'\'')
        && b.get(j) == Some(&b[i - 1])
        && b[i.saturating_sub(6)..i - 1]
            .trim_ascii_end()
            .ends_with(b"(");
    let env = env_key(w) && (b.get(j) == Some(&b'=') || call);
    let (kind, strong) = match key_kind(w) {
        Some(k) if k.1 || !env => k,
        _ if env => ("secret", true),
        _ => return None,
    };
    if i > 0 && b[i - 1] == b'/' {
        return None; // a path: /etc/passwd
    }
    // the closing quote of a quoted key
    let mut k = match (b.get(j), b.get(j + 1)) {
        (Some(b'\\'), Some(b'"' | b'\'')) => j + 2,
        (Some(b'"' | b'\''), _) => j + 1,
        _ => j,
    };
    let quoted = k > j;
    let k0 = k;
    k = skip_sp(b, k, 8);
    let spaced_before = k > k0;
    let after = match b.get(k) {
        Some(b'=') if b.get(k + 1) == Some(&b'>') => k + 2, // PHP, Ruby: 'password' => 'x'
        Some(b'=') if !matches!(b.get(k + 1), Some(b'=' | b'~')) => k + 1,
        Some(b':') if b.get(k + 1) == Some(&b'=') => k + 2,
        Some(b':') if b.get(k + 1) != Some(&b':') => k + 1,
        // `--token value`
        Some(_) if w.starts_with(b"-") && spaced_before && b[k] != b'-' => k,
        Some(b',') if call => k + 1,
        // `<add key="Password" value="…"/>`
        Some(b'v') if quoted && starts(b, k, b"value=") => k + 6,
        // `.netrc`: `login bob password …`
        Some(_) if spaced_before && super::forms::netrc(b, i, j, k) => k,
        _ => return None,
    };
    let v = skip_sp(b, after, 8);
    let spaced = spaced_before || v > after || b[k] == b':';
    if kind == "authorization" {
        return auth_value(b, v);
    }
    if strong {
        if let Some(h) = structure::block(b, i, v, kind) {
            return Some(h);
        }
    }
    let (q, esc, s) = opening_quote(b, v);
    if placeholder(b, s) {
        return None;
    }
    if let Some(q) = q {
        let e = closing(b, s, q, esc);
        return hit(s, e, kind).filter(|_| strong || random(&b[s..e]));
    }
    let e = val_end(b, s);
    let val = &b[s..e];
    if NOT_SECRETS.iter().any(|x| val.eq_ignore_ascii_case(x))
        || val.eq_ignore_ascii_case(w)
        || code_like(val, b.get(e).copied(), spaced)
        || !(strong || random(val))
    {
        return None;
    }
    if strong && val.len() > 1 && val.ends_with(b":") {
        // a nested key flattened onto the key's line (`secrets: db: x`): the rest of the line
        return hit(s, run(b, s, |c| c != b'\n' && c != b'\r'), kind);
    }
    hit(s, e, kind)
}

/// An `Authorization` value: the scheme (`Bearer`, `Basic`, `token` …) kept, the credentials
/// redacted (to the closing quote when quoted, else one token).
fn auth_value(b: &[u8], v: usize) -> Option<Hit> {
    let (q, esc, s) = opening_quote(b, v);
    let lim = (s + 20).min(b.len());
    let k = run(&b[..lim], s, |c| c.is_ascii_alphabetic());
    let t = if k > s && b.get(k) == Some(&b' ') {
        skip_sp(b, k, 4)
    } else {
        s
    };
    if placeholder(b, t) {
        return None;
    }
    let e = match q {
        Some(q) => closing(b, t, q, esc),
        None => run(b, t, |c| c > b' ' && !b"\"'\\,;".contains(&c)),
    };
    hit(t, e, "authorization")
}

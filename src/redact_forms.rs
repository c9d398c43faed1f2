//! Credential forms the rule table cannot express (issue 38): gitleaks' rules whose token has
//! no literal prefix or whose context is not `key = value` (azure-ad-client-secret,
//! hashicorp-tf-api-token, maxmind-license-key, facebook-access-token, microsoft-teams-webhook,
//! kubernetes-secret-yaml), and forms gitleaks has no rule for: Discord bot tokens, `.netrc`
//! and `.pgpass` lines, PuTTY private keys, a bare AWS secret access key with no `/` or `+`.
//!
//! Every look-ahead is bounded or consumed, as in the rest of the redactor.

use super::{hit, is_w, run, skip_sp, starts, starts_ci, tick, Hit};

/// Azure AD client secret, at its `~` (`xxx8Q~` + 31 to 34): three of `[A-Za-z0-9_~.]`, a digit,
/// `Q~`, the rest; standing alone (gitleaks' boundaries). `from`: the first byte it may start at.
pub(super) fn azure_ad(b: &[u8], i: usize, from: usize) -> Option<Hit> {
    if i < from + 5 || b[i - 1] != b'Q' || !b[i - 2].is_ascii_digit() {
        return None;
    }
    let s = i - 5;
    let cls = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'~' || c == b'.';
    if !b[s..i - 2].iter().all(|&c| cls(c)) {
        return None;
    }
    if s > 0 && !b"\\'\"` \t\r\n>=:(,)".contains(&b[s - 1]) {
        return None;
    }
    let lim = (i + 36).min(b.len());
    let e = run(&b[..lim], i + 1, |c| cls(c) || c == b'-');
    let n = e - (i + 1);
    let bound = b.get(e).is_none_or(|c| b"\\'\"` \t\r\n<),".contains(c));
    ((31..=34).contains(&n) && bound)
        .then(|| hit(s, e, "azure-ad-client-secret"))
        .flatten()
}

/// A token of one of the word-shaped forms at the word `[i, j)`: Terraform Cloud
/// (`…14.atlasv1.…`), MaxMind (`…_mmk`), Facebook (`<id>|<secret>`), Discord bot tokens,
/// Microsoft Teams webhooks, Slack workflow webhooks, PuTTY's private lines.
pub(super) fn word(b: &[u8], i: usize, j: usize) -> Option<Hit> {
    let w = &b[i..j];
    let n = w.len();
    let tok = |c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'=';
    if n == 14 && starts(b, j, b".atlasv1.") {
        let s = j + 9;
        let lim = (s + 71).min(b.len());
        let e = run(&b[..lim], s, tok);
        return (60..=70)
            .contains(&(e - s))
            .then(|| hit(i, e, "hashicorp-tf-api-token"))?;
    }
    if n == 40 && w[6] == b'_' && w.ends_with(b"_mmk") {
        return hit(i, j, "maxmind-license-key");
    }
    if (15..=16).contains(&n) && w.iter().all(u8::is_ascii_digit) {
        let s = match b.get(j) {
            Some(b'|') => j + 1,
            Some(b'%') => j + 1,
            _ => return None,
        };
        let lim = (s + 41).min(b.len());
        let e = run(&b[..lim], s, is_w);
        return (27..=40)
            .contains(&(e - s))
            .then(|| hit(i, e, "facebook-access-token"))?;
    }
    if (24..=26).contains(&n)
        && b"MNO".contains(&w[0])
        && w.iter().all(u8::is_ascii_alphanumeric)
        && b.get(j) == Some(&b'.')
    {
        // a Discord bot token: the user id in base64, `.`, 6, `.`, 27 to 38
        let t = run(&b[..(j + 8).min(b.len())], j + 1, is_w);
        if t - (j + 1) == 6 && b.get(t) == Some(&b'.') {
            let lim = (t + 40).min(b.len());
            let e = run(&b[..lim], t + 1, is_w);
            if (27..=38).contains(&(e - (t + 1))) {
                return hit(i, e, "discord-bot-token");
            }
        }
        return None;
    }
    if w == b"webhook" && i > 0 && b[i - 1] == b'.' && starts(b, j, b".office.com/webhookb2/") {
        let s = j + b".office.com/webhookb2/".len();
        return hit(
            s,
            run(b, s, |c| is_w(c) || c == b'@' || c == b'/'),
            "microsoft-teams-webhook",
        );
    }
    if w == b"Private-Lines" && b.get(j) == Some(&b':') {
        return putty(b, j + 1);
    }
    None
}

/// Standard base64 with its padding.
fn is_b64p(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'+' || c == b'/' || c == b'='
}

/// PuTTY's private key (`Private-Lines: N` then the lines of base64, then `Private-MAC:` or
/// `Private-Hash:` and its value), from the first line of base64: on lines or flattened onto
/// one (a title).
fn putty(b: &[u8], k: usize) -> Option<Hit> {
    let k = skip_sp(b, k, 8);
    let d = run(&b[..(k + 4).min(b.len())], k, |c| c.is_ascii_digit());
    let lines = b[k..d]
        .iter()
        .fold(0usize, |n, c| n * 10 + usize::from(c - b'0'));
    let k = d;
    let blank = |c: u8| c == b' ' || c == b'\t' || c == b'\r' || c == b'\n';
    let s = run(b, k, blank);
    let mut e = s;
    for _ in 0..lines {
        tick();
        let t = run(b, e, is_b64p);
        if t == e || b.get(t).is_some_and(|c| !blank(*c)) {
            break;
        }
        e = t;
        let next = run(b, e, blank);
        if starts(b, next, b"Private-MAC:") || starts(b, next, b"Private-Hash:") {
            let v = skip_sp(b, run(b, next, |c| c != b':') + 1, 8);
            e = run(b, v, |c| c.is_ascii_hexdigit());
            break;
        }
        if next == e || next >= b.len() {
            break;
        }
        e = next;
    }
    // (the last blanks read are not part of it)
    let mut end = e;
    while end > s && blank(b[end - 1]) {
        end -= 1;
    }
    hit(s, end, "putty-private-key")
}

/// `.netrc`: `machine <host> login <user> password <secret>` (on one line or several): the word
/// `password` (or `passwd`) at `[i, j)`, followed by a blank at `k`, is one when the word two
/// before it is `login`, `machine` or `account` (`… login bob password …`; not prose such as
/// "the login form has a password field"). At most 256 bytes are looked at back.
pub(super) fn netrc(b: &[u8], i: usize, j: usize, k: usize) -> bool {
    let w = &b[i..j];
    if !(w == b"password" || w == b"passwd") || k == j {
        return false;
    }
    // the word two before `password`, read back over blanks (at most 256 bytes)
    let from = i.saturating_sub(256);
    let blank = |c: u8| c.is_ascii_whitespace();
    let back = |k: usize, f: &dyn Fn(u8) -> bool| {
        let mut k = k;
        while k > from && f(b[k - 1]) {
            k -= 1;
        }
        k
    };
    let w1 = back(back(i, &blank), &|c| !blank(c));
    let e2 = back(w1, &blank);
    let w2 = back(e2, &|c| !blank(c));
    e2 > w2 && e2 < w1 && matches!(&b[w2..e2], b"login" | b"machine" | b"account")
}

/// `.pgpass`: `hostname:port:database:username:password`, the port digits or `*`, no blanks in
/// the first four fields: the password, when a line (or a word that follows a blank) at `i`
/// reads as one. At most 512 bytes are read.
pub(super) fn pgpass(b: &[u8], i: usize) -> Option<Hit> {
    let lim = (i + 512).min(b.len());
    let field = |k: usize| run(&b[..lim], k, |c| c > b' ' && c != b':');
    let mut k = i;
    let mut ends = [0usize; 4];
    for (n, end) in ends.iter_mut().enumerate() {
        let e = field(k);
        if e == k || b.get(e) != Some(&b':') {
            return None;
        }
        if n == 1 && !(b[k..e] == *b"*" || b[k..e].iter().all(u8::is_ascii_digit)) {
            return None;
        }
        *end = e;
        k = e + 1;
    }
    let e = run(&b[..lim], k, |c| c > b' ');
    (e - k >= 4 && !b[k..e].contains(&b':'))
        .then(|| hit(k, e, "password"))
        .flatten()
}

/// A Kubernetes Secret's `data:` or `stringData:` (the word `[i, j)` first on its line, then
/// `:`), where `kind: Secret` stands at most 256 bytes before it (a manifest names its kind
/// first): where its values start (the caller redacts the block under it, or the rest of the
/// line when it is flattened onto one).
pub(super) fn k8s_data(b: &[u8], i: usize, j: usize) -> Option<usize> {
    let w = &b[i..j];
    if !(w == b"data" || w == b"stringData") || b.get(j) != Some(&b':') {
        return None;
    }
    let near = &b[i.saturating_sub(256)..i];
    let kind = near.windows(5).enumerate().any(|(p, x)| {
        tick();
        x == b"kind:" && {
            let s = skip_sp(near, p + 5, 4);
            let s = s + usize::from(matches!(near.get(s), Some(b'"' | b'\'')));
            starts_ci(near, s, b"secret")
                && near.get(s + 6).is_none_or(|c| !c.is_ascii_alphanumeric())
        }
    });
    kind.then_some(j + 1)
}

/// A bare AWS secret access key with no `/` or `+` (40 of base62, standing alone), told from an
/// identifier by its mix: at least 4 digits and 8 each of upper and lower case (an identifier
/// in camel case has a capital a word and few digits).
pub(super) fn aws_plain(w: &[u8]) -> bool {
    let count = |f: fn(&u8) -> bool| w.iter().filter(|c| f(c)).count();
    w.len() == 40
        && w.iter().all(u8::is_ascii_alphanumeric)
        && count(u8::is_ascii_digit) >= 4
        && count(u8::is_ascii_uppercase) >= 8
        && count(u8::is_ascii_lowercase) >= 8
}

//! Credentials out of everything hookwise persists (the compaction memory, the enforcement
//! metrics, the log, notes and their file names): one pass over a text that replaces each
//! secret with `[REDACTED:<kind>]`. Both builds redact the same (the lean one persists text
//! too: `knowledge_remember`'s notes and their file names, the compaction memory, the log).
//! Besides what is listed here: gitleaks' token rules (`redact_table.rs`), values found by
//! structure, base64, `-p` flags, zero-width keys and weak keys with random values
//! (`redact_structure.rs`; docs/reliability.md).
//!
//! Redacted:
//! - `<private>…</private>` spans, whole (tags in any case) and PEM private key blocks, whole
//!   (`-----BEGIN … PRIVATE KEY-----` to `-----END …-----`). Failing closed: an unclosed span
//!   or block runs to the end of the text; a closing `</private>` or `-----END … PRIVATE
//!   KEY-----` with no opening takes everything back to the end of the previous span or block
//!   (or the start: the text was cut inside one, or spans were nested or interleaved);
//! - tokens recognised by their shape: AWS access key ids (`AKIA`/`ASIA`/`ABIA`/`ACCA` + 16),
//!   GitHub (`ghp_ gho_ ghu_ ghs_ ghr_ github_pat_`), Anthropic (`sk-ant-`), OpenAI (`sk-…`,
//!   `sk-proj-…`), Slack (`xox[abposr]-`, `xapp-`, `hooks.slack.com/services/…`), Stripe
//!   (`sk_live_ rk_live_ sk_test_ rk_test_`), Google API keys (`AIza` + 35), JWTs (`eyJ…` in
//!   three dot-separated base64url parts), bearer tokens (`Bearer <token>`), and any other
//!   vendor's: a short prefix (`xyz_`, `abc-`) then 30 or more characters that look random
//!   (`redact_vendor.rs`: hashes, ids and identifiers are kept);
//! - the value (only) of an assignment to a sensitive key, in env, URL, YAML, JSON, HTTP header
//!   or CLI flag form (`DB_PASSWORD=…`, `?token=…`, `client_secret: …`, `"apiKey": "…"`,
//!   `--token …`): keys ending in password, passwd, passphrase, secret, token, apikey, api_key,
//!   private_key, secret_key, access_key, aws_secret_access_key, AccountKey, SharedAccessKey,
//!   authorization (the scheme is kept: `Authorization: Bearer [REDACTED:authorization]`), the
//!   key `auth`, and upper-case environment names ending in `_KEY`, `_PASS` or `_PWD`;
//!   `curl -u user:pass` keeps the user;
//! - credentials in URLs (`scheme://user:pass@host`: the user and password).
//!
//! Kept: code references rather than values (`password = self.password`, `token:
//! os.getenv("T")`, `${TOKEN}`, `$TOKEN`, `%PASS%`, `<your-token>`, `true`/`null`/`string`),
//! paths, `sha256:…` hashes, git commit ids, UUIDs, base64 data, and every marker already in
//! the text (redacting twice gives the same text).
//!
//! Linear in the text whatever it holds: every look-ahead is either bounded (a few hundred
//! bytes at most) or consumed (the scan resumes after it), and each word is read from its start
//! once. Every cut falls on an ASCII byte, so the output is valid UTF-8 by construction.

use std::borrow::Cow;

/// The start of every marker: `[REDACTED:<kind>]`.
pub const MARKER: &str = "[REDACTED:";

/// `text` with every secret replaced by a marker (borrowed when there is none).
pub fn redact(text: &str) -> Cow<'_, str> {
    // a key name split by a zero-width character: read without them
    if let Some(plain) = structure::without_zero_width(text) {
        let r = scan(&plain, 0);
        if let Cow::Owned(r) = r {
            return Cow::Owned(r);
        }
    }
    scan(text, 0)
}

pub use structure::safe_name;

/// One pass over `text`; `depth` 1 inside decoded base64 (which is not decoded again).
fn scan(text: &str, depth: u8) -> Cow<'_, str> {
    let b = text.as_bytes();
    let n = b.len();
    let mut out = Out {
        src: text,
        buf: String::new(),
        flushed: 0,
    };
    let mut i = 0;
    // The end of the last span (<private>, PEM block), and the output's length there: a closing
    // tag with no opening before it redacts everything back to this point.
    let mut anchor = (0, 0);
    // The word being read: its end, and what follows it as a JWT's tail (read once a word).
    let mut word_end = 0;
    let mut tail = None;
    while i < n {
        tick();
        let c = b[i];
        let mut found = match c {
            b'<' => private_span(b, i),
            b':' => url_userinfo(b, i),
            b'-' => pem_block(b, i),
            b'~' => forms::azure_ad(b, i, out.flushed),
            // a `.pgpass` line whose host is `*`
            b'*' if i == 0 || b[i - 1].is_ascii_whitespace() => forms::pgpass(b, i),
            _ => None,
        };
        // base64 from its first byte: a secret inside, a bare AWS secret key
        if found.is_none()
            && depth == 0
            && structure::is_b64(c)
            && (i == 0 || !structure::is_b64(b[i - 1]))
        {
            found = structure::b64(b, i, run(b, i, structure::is_b64));
        }
        // (a word starts after a marker too, as it will when the output is redacted again)
        if found.is_none() && is_w(c) {
            if i == 0 || !is_w(b[i - 1]) || i == out.flushed {
                word_end = run(b, i, is_w);
                tail = None;
                found = word(b, i, word_end, &mut tail);
            } else if b[i - 1] == b'_' || b[i - 1] == b'-' {
                // a token inside a longer name: `mcp_ghp_…`, `x-sk-ant-…`, `mcp_eyJ…`
                debug_assert!(word_end > i);
                found = match token_kind(b, i) {
                    Some(kind) => hit(i, word_end, kind),
                    None if starts(b, i, b"eyJ") => jwt(b, i, word_end, &mut tail),
                    None => table::rule_token(b, i).and_then(|(e, kind)| hit(i, e, kind)),
                };
            }
        }
        let Some(h) = found else {
            i += 1;
            continue;
        };
        match h.span {
            Span::No => out.put(h.start, h.end, h.kind),
            Span::Whole => {
                out.put(h.start, h.end, h.kind);
                anchor = (h.end, out.buf.len());
            }
            Span::Stray => {
                out.put_from(anchor, h.end, h.kind);
                anchor = (h.end, out.buf.len());
            }
        }
        i = h.end.max(i + 1);
    }
    out.finish()
}

/// A file path with every segment that holds a credential redacted (each segment read on its
/// own: `/` and `\\` separate, so an ordinary path is never read as one long token).
pub fn redact_path(path: &str) -> Cow<'_, str> {
    let mut out = String::new();
    let mut from = 0;
    for seg in path.split(['/', '\\']) {
        if let Cow::Owned(r) = redact(seg) {
            if out.is_empty() {
                out.reserve(path.len());
            }
            // (the separators are ASCII: the segments' offsets are char boundaries)
            let at = seg.as_ptr() as usize - path.as_ptr() as usize;
            out.push_str(&path[from..at]);
            out.push_str(&r);
            from = at + seg.len();
        }
    }
    if from == 0 && out.is_empty() {
        return Cow::Borrowed(path);
    }
    out.push_str(&path[from..]);
    Cow::Owned(out)
}

/// File paths with every segment that is a credential redacted ([`redact_path`]), in place: the
/// one call the Agent Trace record writer makes (`governance::trace::chained`, every path of the
/// record), so that a token used as a file name does not persist.
pub fn redact_paths<'a>(paths: impl IntoIterator<Item = &'a mut String>) {
    for s in paths {
        if let Cow::Owned(r) = redact_path(s) {
            *s = r;
        }
    }
}

/// [`redact`] for an owned string (no copy when there is nothing to redact).
pub fn redact_string(s: String) -> String {
    match redact(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(r) => r,
    }
}

struct Out<'a> {
    src: &'a str,
    buf: String,
    flushed: usize,
}

impl<'a> Out<'a> {
    fn put(&mut self, start: usize, end: usize, kind: &str) {
        if self.buf.is_empty() {
            self.buf.reserve(self.src.len());
        }
        self.buf.push_str(&self.src[self.flushed..start]);
        self.buf.push_str(MARKER);
        self.buf.push_str(kind);
        self.buf.push(']');
        self.flushed = end;
    }

    /// Replace everything from `anchor` (a source offset and the output's length there) to
    /// `end` with one marker, markers put since included.
    fn put_from(&mut self, anchor: (usize, usize), end: usize, kind: &str) {
        if self.flushed <= anchor.0 {
            self.put(anchor.0, end, kind);
        } else {
            self.buf.truncate(anchor.1);
            self.buf.push_str(MARKER);
            self.buf.push_str(kind);
            self.buf.push(']');
            self.flushed = end;
        }
    }

    fn finish(mut self) -> Cow<'a, str> {
        if self.flushed == 0 && self.buf.is_empty() {
            return Cow::Borrowed(self.src);
        }
        self.buf.push_str(&self.src[self.flushed..]);
        Cow::Owned(self.buf)
    }
}

/// A span to replace: `[start, end)`, with the marker's kind.
struct Hit {
    start: usize,
    end: usize,
    kind: &'static str,
    span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Span {
    /// A token or a value.
    No,
    /// A whole `<private>` span or PEM block.
    Whole,
    /// A closing tag with no opening: the text from the last span's end up to it.
    Stray,
}

fn hit(start: usize, end: usize, kind: &'static str) -> Option<Hit> {
    (end > start).then_some(Hit {
        start,
        end,
        kind,
        span: Span::No,
    })
}

fn span(start: usize, end: usize, kind: &'static str, span: Span) -> Option<Hit> {
    (end > start).then_some(Hit {
        start,
        end,
        kind,
        span,
    })
}

// ---- counting (tests bound the work by counting steps, never by time) ----

#[cfg(test)]
thread_local! {
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[inline(always)]
fn tick() {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + 1));
}

/// Steps taken by this thread so far (tests only).
#[cfg(test)]
pub(crate) fn steps() -> u64 {
    STEPS.with(|s| s.get())
}

#[cfg(test)]
thread_local! {
    /// The vendor rule switched off (the speed bench measures the redactor with and without it).
    pub(crate) static VENDOR_OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[inline(always)]
fn vendor_on() -> bool {
    #[cfg(test)]
    return !VENDOR_OFF.with(|v| v.get());
    #[cfg(not(test))]
    true
}

// ---- byte helpers ----

/// A word byte: ASCII letter, digit, `_` or `-`. Word detectors fire only where a word starts
/// and read that word only, so each word is read from its start once.
fn is_w(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// The end of the run of `f` bytes from `i`.
fn run(b: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    while i < b.len() && f(b[i]) {
        tick();
        i += 1;
    }
    i
}

/// Past at most `max` spaces or tabs from `i`.
fn skip_sp(b: &[u8], i: usize, max: usize) -> usize {
    let lim = (i + max).min(b.len());
    run(&b[..lim], i, |c| c == b' ' || c == b'\t')
}

fn starts(b: &[u8], i: usize, pat: &[u8]) -> bool {
    b.len() >= i + pat.len() && &b[i..i + pat.len()] == pat
}

/// `pat` (lowercase ASCII) at `i`, in any case.
fn starts_ci(b: &[u8], i: usize, pat: &[u8]) -> bool {
    b.len() >= i + pat.len() && b[i..i + pat.len()].eq_ignore_ascii_case(pat)
}

/// The first `pat` at or after `from` (`ci`: in any case; `pat` lowercase). Linear: `pat` is
/// a short constant.
fn find(b: &[u8], from: usize, pat: &[u8], ci: bool) -> Option<usize> {
    let m = pat.len();
    let mut k = from;
    while k + m <= b.len() {
        tick();
        if b[k].eq_ignore_ascii_case(&pat[0])
            && if ci {
                starts_ci(b, k, pat)
            } else {
                starts(b, k, pat)
            }
        {
            return Some(k);
        }
        k += 1;
    }
    None
}

// ---- spans: <private>, PEM blocks ----

const PRIVATE_OPEN: &[u8] = b"<private>";
const PRIVATE_CLOSE: &[u8] = b"</private>";

/// `<private>` to the first `</private>` (or the end); a `</private>` met outside a span.
fn private_span(b: &[u8], i: usize) -> Option<Hit> {
    if starts_ci(b, i, PRIVATE_CLOSE) {
        return span(i, i + PRIVATE_CLOSE.len(), "private", Span::Stray);
    }
    if !starts_ci(b, i, PRIVATE_OPEN) {
        return None;
    }
    let end = find(b, i + PRIVATE_OPEN.len(), PRIVATE_CLOSE, true)
        .map_or(b.len(), |c| c + PRIVATE_CLOSE.len());
    span(i, end, "private", Span::Whole)
}

/// `-----BEGIN <label>-----` (or END) at `i` whose label names a private key: the end of the
/// header. The label is read at most 64 bytes far.
fn pem_header(b: &[u8], i: usize, begin: bool) -> Option<usize> {
    let tag: &[u8] = if begin { b"-----BEGIN " } else { b"-----END " };
    if !starts(b, i, tag) {
        return None;
    }
    let s = i + tag.len();
    let lim = (s + 64).min(b.len());
    let k = run(&b[..lim], s, |c| {
        c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' '
    });
    let private = b[s..k].windows(11).any(|w| w == b"PRIVATE KEY");
    (private && starts(b, k, b"-----")).then_some(k + 5)
}

/// A private key block to its first `-----END …-----` (or the end); a private key's END line
/// met outside a block.
fn pem_block(b: &[u8], i: usize) -> Option<Hit> {
    if let Some(end) = pem_header(b, i, false) {
        return span(i, end, "private-key", Span::Stray);
    }
    let h = pem_header(b, i, true)?;
    let end = match find(b, h, b"-----END ", false) {
        Some(e) => {
            let s = e + b"-----END ".len();
            let lim = (s + 64).min(b.len());
            let k = run(&b[..lim], s, |c| {
                c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' '
            });
            if starts(b, k, b"-----") {
                k + 5
            } else {
                k
            }
        }
        None => b.len(),
    };
    span(i, end, "private-key", Span::Whole)
}

// ---- URLs ----

/// `scheme://user:pass@host` at the `:` of `://`: the user and password (a token can be
/// either). The userinfo is looked for at most 256 bytes far.
fn url_userinfo(b: &[u8], i: usize) -> Option<Hit> {
    if !starts(b, i, b"://") {
        return None;
    }
    let s = i + 3;
    let lim = (s + 256).min(b.len());
    let mut colon = None;
    let mut k = s;
    while k < lim {
        tick();
        let c = b[k];
        if c == b'@' {
            break;
        }
        if c <= b' ' || b"/?#\"'<>\\[]{}|`".contains(&c) {
            return None;
        }
        if c == b':' && colon.is_none() {
            colon = Some(k);
        }
        k += 1;
    }
    let c = colon?;
    if k >= lim || c + 1 == k || placeholder(b, c + 1) {
        return None;
    }
    hit(s, k, "url-credentials")
}

// ---- words ----

/// The word `[i, j)`: a sensitive key's value, a token, a JWT, a Slack webhook, a bearer
/// token, `curl -u`'s password.
fn word(b: &[u8], i: usize, j: usize, tail: &mut Option<Option<usize>>) -> Option<Hit> {
    let w = &b[i..j];
    // a token first: its word may read as a key (`pscale_oauth_…=…`)
    if let Some(kind) = token_kind(b, i) {
        return hit(i, j, kind);
    }
    if let Some((e, kind)) = table::rule_token(b, i) {
        return hit(i, e, kind);
    }
    if let Some(h) = key_value(b, i, j) {
        return Some(h);
    }
    // gitleaks' keyword rules: `twitter_api_key = …`, `NEW_RELIC_KEY: NRAK-…`
    if let Some((s, e, kind)) = table::context(b, i, j) {
        return hit(s, e, kind);
    }
    if let Some(h) = forms::word(b, i, j) {
        return Some(h);
    }
    if let Some(v) = forms::k8s_data(b, i, j) {
        // a Kubernetes Secret's data: the block under it, or the rest of its line
        let v = skip_sp(b, v, 8);
        let le = run(b, v, |c| c != b'\n' && c != b'\r');
        return structure::block(b, i, v, "kubernetes-secret")
            .or_else(|| hit(v, le, "kubernetes-secret"));
    }
    if i == 0 || b[i - 1].is_ascii_whitespace() {
        if let Some(h) = forms::pgpass(b, i) {
            return Some(h);
        }
    }
    if w.starts_with(b"eyJ") {
        return jwt(b, i, j, tail);
    }
    if w == b"hooks" && starts(b, j, b".slack.com/") {
        let s = j + b".slack.com/".len();
        if let Some(p) = [&b"services/"[..], b"workflows/", b"triggers/"]
            .iter()
            .find(|p| starts(b, s, p))
        {
            let s = s + p.len();
            return hit(s, run(b, s, |c| is_w(c) || c == b'/'), "slack-webhook");
        }
    }
    if w.eq_ignore_ascii_case(b"bearer") {
        return bearer(b, j);
    }
    if w == b"-u" || w == b"--user" {
        return user_flag(b, j);
    }
    if w.starts_with(b"-p") {
        return structure::p_flag(b, i, j);
    }
    // last: a vendor prefix and a random body that no rule above names (`xyz_…`)
    structure::telegram(b, i, j).or_else(|| vendor::token(b, i, j).filter(|_| vendor_on()))
}

/// The token prefixes (a token's kind is decided only where one of these stands).
const TOKEN_PREFIXES: &[&[u8]] = &[
    b"sk-",
    b"sk_",
    b"rk_",
    b"gh",
    b"github_pat_",
    b"xox",
    b"xapp-",
    b"AKIA",
    b"ASIA",
    b"ABIA",
    b"ACCA",
    b"AIza",
];

/// The kind of a token recognised by its prefix at `i` (the token runs to the end of its
/// word). Decided on at most the word's first 40 bytes.
fn token_kind(b: &[u8], i: usize) -> Option<&'static str> {
    if !TOKEN_PREFIXES.iter().any(|p| starts(b, i, p)) {
        return None;
    }
    let lim = (i + 40).min(b.len());
    let w = &b[i..run(&b[..lim], i, is_w)];
    let after = |p: &[u8]| w.strip_prefix(p).map(<[u8]>::len);
    if let Some(n) = after(b"sk-ant-") {
        return (n >= 20).then_some("anthropic-key");
    }
    for p in [b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_"] {
        if after(p).is_some_and(|n| n >= 30) {
            return Some("github-token");
        }
    }
    if after(b"github_pat_").is_some_and(|n| n >= 22) {
        return Some("github-token");
    }
    for p in [b"sk_live_", b"rk_live_", b"sk_test_", b"rk_test_"] {
        if after(p).is_some_and(|n| n >= 16) {
            return Some("stripe-key");
        }
    }
    if w.len() >= 15
        && (w.starts_with(b"xapp-")
            || (w.starts_with(b"xox") && b"abposr".contains(&w[3]) && w[4] == b'-'))
    {
        return Some("slack-token");
    }
    if let Some(body) = w.strip_prefix(b"sk-") {
        // random-looking: upper case, lower case and digits (not `sk-learn-tutorial-…`)
        let has = |f: fn(&u8) -> bool| body.iter().any(f);
        if body.len() >= 20
            && has(u8::is_ascii_uppercase)
            && has(u8::is_ascii_lowercase)
            && has(u8::is_ascii_digit)
        {
            return Some("openai-key");
        }
        return None;
    }
    if w.len() == 20
        && [b"AKIA", b"ASIA", b"ABIA", b"ACCA"]
            .iter()
            .any(|p| w.starts_with(*p))
        && w.iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    {
        return Some("aws-access-key");
    }
    if w.len() == 39 && w.starts_with(b"AIza") {
        // (the window is 40 long: 39 is the whole word)
        return Some("google-api-key");
    }
    None
}

/// `eyJ…` `.` payload `.` signature (the signature may be empty), the header being `[i, j)`.
/// `tail`: the end of the signature after `j`, read once for the word (`None`: not yet read).
fn jwt(b: &[u8], i: usize, j: usize, tail: &mut Option<Option<usize>>) -> Option<Hit> {
    if j - i < 10 {
        return None;
    }
    let end = *tail.get_or_insert_with(|| {
        if b.get(j) != Some(&b'.') {
            return None;
        }
        let j2 = run(b, j + 1, is_w);
        if j2 - (j + 1) < 10 || b.get(j2) != Some(&b'.') {
            return None;
        }
        Some(run(b, j2 + 1, is_w))
    });
    hit(i, end?, "jwt")
}

/// A bearer token's characters (RFC 6750's b64token).
fn is_tok(c: u8) -> bool {
    is_w(c) || b"._~+/=".contains(&c)
}

/// `Bearer <token>` outside an `Authorization` header: a token of 16 or more characters with
/// a digit ("Bearer authentication" is prose).
fn bearer(b: &[u8], j: usize) -> Option<Hit> {
    let k = skip_sp(b, j, 4);
    if k == j {
        return None;
    }
    let e = run(b, k, is_tok);
    let t = &b[k..e];
    if t.len() >= 16 && t.iter().any(u8::is_ascii_digit) {
        hit(k, e, "bearer")
    } else {
        None
    }
}

/// `curl -u user:pass`: the password.
fn user_flag(b: &[u8], j: usize) -> Option<Hit> {
    let k = skip_sp(b, j, 4);
    if k == j {
        return None;
    }
    let (q, esc, s) = opening_quote(b, k);
    if placeholder(b, s) {
        return None;
    }
    let e = match q {
        Some(q) => closing(b, s, q, esc),
        None => val_end(b, s),
    };
    // the user: up to 128 bytes, no blanks or brackets
    let lim = e.min(s + 128);
    let u = run(&b[..lim], s, |c| c > b' ' && c != b':' && c != b'[');
    if b.get(u) != Some(&b':') || u >= e || placeholder(b, u + 1) {
        return None;
    }
    let c = u;
    hit(c + 1, e, "password")
}

#[path = "redact_keys.rs"]
mod keys;
use keys::{closing, is_val, key_value, opening_quote, placeholder, val_end};

#[path = "redact_forms.rs"]
mod forms;
#[path = "redact_rules.rs"]
mod rules;
#[path = "redact_structure.rs"]
mod structure;
#[path = "redact_table.rs"]
mod table;
#[path = "redact_vendor.rs"]
mod vendor;

/// Tokens of the shape of every gitleaks rule the redactor carries (for the fuzz crate).
#[cfg(any(test, feature = "testing"))]
pub fn rule_examples(seed: u64) -> Vec<String> {
    rules::RULES
        .iter()
        .enumerate()
        .map(|(k, r)| table::example(r, seed.wrapping_add(k as u64)))
        .collect()
}

#[cfg(test)]
#[path = "redact_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "redact_bench.rs"]
mod bench;

#[cfg(test)]
#[path = "redact_corpus_tests.rs"]
mod corpus_tests;

#[cfg(test)]
#[path = "redact_forms_tests.rs"]
mod forms_tests;

#[cfg(all(test, feature = "policy"))]
#[path = "redact_heldout.rs"]
mod heldout;

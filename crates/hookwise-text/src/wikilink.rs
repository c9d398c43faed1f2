//! WikiLink extraction and concept normalization, following maenifold's rules
//! (`docs/maenifold-cli.md`):
//!
//! * a link is `[[...]]` with no `[` or `]` inside, not preceded by `[` and not followed by `]`;
//! * Obsidian's `[[target|alias]]` and `[[target#heading]]` link to `target`;
//! * a concept name is normalized: trim, lowercase, space / `_` / `/` become `-`, runs of `-`
//!   collapse, `-` trimmed at both ends; other punctuation stays (`[[Node.js]]` → `node.js`).
//!
//! Tool arguments are plain strings, not markdown, so this module scans text as it is. The
//! markdown-aware rules (links in code are ignored) live with the vault, which parses markdown.

use crate::fx::FxHashSet;

/// A link body longer than this is not taken for a concept name (hosts ship excerpts of large
/// arguments, bounded accordingly).
pub const MAX_LINK_CHARS: usize = 256;

/// How a string is scanned. Shell commands use `[[ … ]]` as the test builtin
/// (`[[ -f x ]]`), which must not be taken for a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanMode {
    Prose,
    Shell,
}

/// Normalize a concept name exactly as maenifold does. May return an empty string.
pub fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    normalize_into(name, &mut out);
    out
}

/// [`normalize`] into a reused buffer (cleared first): no allocation once it is big enough.
pub fn normalize_into(name: &str, out: &mut String) {
    out.clear();
    let mut last_dash = true; // no leading '-'
    for c in name.trim().chars() {
        let mut push = |ch: char| {
            let ch = match ch {
                ' ' | '_' | '/' => '-',
                c if c.is_whitespace() => '-',
                c => c,
            };
            if ch == '-' {
                if !last_dash {
                    out.push('-');
                }
                last_dash = true;
            } else {
                out.push(ch);
                last_dash = false;
            }
        };
        if c.is_ascii() {
            push(c.to_ascii_lowercase());
        } else {
            c.to_lowercase().for_each(&mut push);
        }
    }
    if out.ends_with('-') {
        out.pop();
    }
}

/// The longest name [`normalize_ascii`] takes (a link body has at most [`MAX_LINK_CHARS`]
/// characters).
pub(crate) const NAME_BUF: usize = MAX_LINK_CHARS;

/// [`normalize`] of an ASCII name into `buf`, without decoding characters: its words (runs
/// of bytes that are not separators) lowercased and joined by one `-`. Returns the length, or
/// `None` when the name is not ASCII or longer than the buffer (use [`normalize_into`]).
#[inline]
pub(crate) fn normalize_ascii(name: &[u8], buf: &mut [u8; NAME_BUF]) -> Option<usize> {
    if name.len() > NAME_BUF {
        return None;
    }
    let mut w = 0;
    let mut dash = false;
    let mut r = 0;
    while r < name.len() {
        let b = name[r];
        r += 1;
        if b >= 0x80 {
            return None;
        }
        if is_separator(b) {
            dash = w > 0;
        } else {
            // At most one byte out per byte in (a dash stands for a skipped separator).
            if dash {
                buf[w] = b'-';
                w += 1;
                dash = false;
            }
            buf[w] = b.to_ascii_lowercase();
            w += 1;
        }
    }
    Some(w)
}

/// A byte that becomes (or is) a `-` in a normalized ASCII name: `char::is_whitespace` on
/// ASCII is exactly `\t \n \x0B \x0C \r` and space.
#[inline(always)]
fn is_separator(b: u8) -> bool {
    matches!(b, b'-' | b' ' | b'_' | b'/' | b'\t'..=b'\r')
}

/// The raw bodies of the links in `text`, in order (not normalized, not deduplicated).
pub fn raw_links(text: &str, mode: ScanMode) -> Vec<&str> {
    let mut out = Vec::new();
    for_each_link(text, mode, |body| out.push(body));
    out
}

/// Call `f` with the body of every link in `text`, in order.
pub fn for_each_link<'a>(text: &'a str, mode: ScanMode, mut f: impl FnMut(&'a str)) {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(rel) = find_open(&bytes[from..]) {
        let start = from + rel;
        from = start + 1;
        if start > 0 && bytes[start - 1] == b'[' {
            continue;
        }
        let body_start = start + 2;
        let mut close = body_start;
        while close < bytes.len() && bytes[close] != b'[' && bytes[close] != b']' {
            close += 1;
        }
        if close == bytes.len() {
            return; // no bracket left: no further link can close
        }
        if bytes[close] != b']' || close + 1 >= bytes.len() || bytes[close + 1] != b']' {
            continue;
        }
        if close + 2 < bytes.len() && bytes[close + 2] == b']' {
            continue;
        }
        let body = &text[body_start..close];
        // At most one char a byte: only a long body can be too long.
        if body.is_empty()
            || (body.len() > MAX_LINK_CHARS && body.chars().nth(MAX_LINK_CHARS).is_some())
        {
            continue;
        }
        if mode == ScanMode::Shell
            && (body.starts_with(char::is_whitespace) || body.ends_with(char::is_whitespace))
        {
            continue;
        }
        from = close + 2;
        f(body);
    }
}

/// The offset of the first `[[` in `hay`.
pub(crate) fn find_open(hay: &[u8]) -> Option<usize> {
    // The first `[`, then a look at the next byte (a two-byte memmem searcher costs the wasm
    // several KB more).
    let mut from = 0;
    while let Some(i) = find_byte(&hay[from..], b'[') {
        let at = from + i;
        match hay.get(at + 1) {
            Some(b'[') => return Some(at),
            Some(_) => from = at + 1,
            None => return None,
        }
    }
    None
}

/// The offset of the first `needle` in `hay`. Eight bytes at a time (one 64-bit word in
/// wasm, where the memchr crate works on 32-bit words behind three calls).
#[inline]
pub(crate) fn find_byte(hay: &[u8], needle: u8) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let pattern = LO * needle as u64;
    let mut i = 0;
    while i + 8 <= hay.len() {
        let c = &hay[i..i + 8];
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) ^ pattern;
        // The lowest flagged byte is the first zero byte of x (a borrow only flags above it).
        let found = x.wrapping_sub(LO) & !x & HI;
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    while i < hay.len() {
        if hay[i] == needle {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The concept a link body names: the part before `|` (alias) and `#` (heading), normalized.
pub fn concept_of(body: &str) -> String {
    normalize(link_target(body))
}

/// The target part of a link body: before `|` (alias) and `#` (heading), not normalized.
pub fn link_target(body: &str) -> &str {
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i] != b'|' && b[i] != b'#' {
        i += 1;
    }
    &body[..i]
}

/// A link body's concept with the section it points at: `[[JWT#Claims]]` → `jwt#Claims`,
/// `[[Note#^block-id]]` → `note#^block-id`, `[[JWT]]` → `jwt`. A concept name never holds
/// `#` (the target stops there), so the first `#` separates the two ([`split_section`]).
pub fn concept_with_section(body: &str) -> String {
    let target = link_target(body);
    let mut c = normalize(target);
    let rest = &body[target.len()..];
    if let Some(section) = rest.strip_prefix('#') {
        let section = section.split('|').next().unwrap_or_default().trim();
        if !c.is_empty() && !section.is_empty() {
            c.push('#');
            c.push_str(section);
        }
    }
    c
}

/// A concept from [`concept_with_section`] split into the concept and its section, if any.
pub fn split_section(concept: &str) -> (&str, Option<&str>) {
    match concept.split_once('#') {
        Some((c, s)) if !s.is_empty() => (c, Some(s)),
        Some((c, _)) => (c, None),
        None => (concept, None),
    }
}

/// Collects normalized concepts, deduplicated, keeping first-seen order. Deduplication is by
/// a set beside the list: the text may be a model's (a tool call's arguments), and a linear
/// scan per link made 50,000 distinct links cost 3.6 s.
#[derive(Default, Debug, Clone)]
pub struct ConceptSet {
    order: Vec<String>,
    seen: FxHashSet<String>,
}

impl ConceptSet {
    pub fn add_text(&mut self, text: &str, mode: ScanMode) {
        for_each_link(text, mode, |body| self.push(concept_of(body)));
    }
    /// [`ConceptSet::add_text`] keeping the section a link points at
    /// ([`concept_with_section`]): a tool call's `[[Note#Heading]]` asks for that section.
    pub fn add_text_sections(&mut self, text: &str, mode: ScanMode) {
        for_each_link(text, mode, |body| self.push(concept_with_section(body)));
    }
    pub fn push(&mut self, concept: String) {
        if !concept.is_empty() && !self.seen.contains(&concept) {
            self.seen.insert(concept.clone());
            self.order.push(concept);
        }
    }
    pub fn into_vec(self) -> Vec<String> {
        self.order
    }
    pub fn as_slice(&self) -> &[String] {
        &self.order
    }
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// Normalized, deduplicated concepts of one text, in first-seen order.
pub fn concepts(text: &str, mode: ScanMode) -> Vec<String> {
    let mut set = ConceptSet::default();
    set.add_text(text, mode);
    set.into_vec()
}

/// The implementation before the fast paths, kept to test the new one against.
#[cfg(test)]
pub(crate) mod reference {
    use super::{ScanMode, MAX_LINK_CHARS};

    /// [`normalize`] into a reused buffer (cleared first): no allocation once it is big enough.
    pub(crate) fn normalize_into(name: &str, out: &mut String) {
        out.clear();
        let mut last_dash = true; // no leading '-'
        for c in name.trim().chars() {
            let mut push = |ch: char| {
                let ch = match ch {
                    ' ' | '_' | '/' => '-',
                    c if c.is_whitespace() => '-',
                    c => c,
                };
                if ch == '-' {
                    if !last_dash {
                        out.push('-');
                    }
                    last_dash = true;
                } else {
                    out.push(ch);
                    last_dash = false;
                }
            };
            if c.is_ascii() {
                push(c.to_ascii_lowercase());
            } else {
                c.to_lowercase().for_each(&mut push);
            }
        }
        if out.ends_with('-') {
            out.pop();
        }
    }

    /// Call `f` with the body of every link in `text`, in order.
    pub(crate) fn for_each_link<'a>(text: &'a str, mode: ScanMode, mut f: impl FnMut(&'a str)) {
        let bytes = text.as_bytes();
        let mut from = 0;
        while let Some(rel) = find_open(&bytes[from..]) {
            let start = from + rel;
            from = start + 1;
            if start > 0 && bytes[start - 1] == b'[' {
                continue;
            }
            let body_start = start + 2;
            let Some(close_rel) = bytes[body_start..]
                .iter()
                .position(|&b| b == b'[' || b == b']')
            else {
                return; // no bracket left: no further link can close
            };
            let close = body_start + close_rel;
            if bytes[close] != b']' || close + 1 >= bytes.len() || bytes[close + 1] != b']' {
                continue;
            }
            if close + 2 < bytes.len() && bytes[close + 2] == b']' {
                continue;
            }
            let body = &text[body_start..close];
            if body.is_empty() || body.chars().nth(MAX_LINK_CHARS).is_some() {
                continue;
            }
            if mode == ScanMode::Shell
                && (body.starts_with(char::is_whitespace) || body.ends_with(char::is_whitespace))
            {
                continue;
            }
            from = close + 2;
            f(body);
        }
    }

    pub(crate) fn find_open(hay: &[u8]) -> Option<usize> {
        // memchr for the first `[` (a two-byte memmem searcher costs the wasm several KB more).
        let mut from = 0;
        while let Some(i) = memchr::memchr(b'[', &hay[from..]) {
            let at = from + i;
            match hay.get(at + 1) {
                Some(b'[') => return Some(at),
                Some(_) => from = at + 1,
                None => return None,
            }
        }
        None
    }

    /// The target part of a link body: before `|` (alias) and `#` (heading), not normalized.
    pub(crate) fn link_target(body: &str) -> &str {
        body.split(['|', '#']).next().unwrap_or("")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn normalization_matches_maenifold() {
        assert_eq!(normalize("REST API"), "rest-api");
        assert_eq!(normalize("Node.js"), "node.js");
        assert_eq!(normalize("  Session_Tokens / v2 "), "session-tokens-v2");
        assert_eq!(normalize("--a---b--"), "a-b");
        assert_eq!(normalize("Ünïcode Straße"), "ünïcode-straße");
        assert_eq!(normalize("   "), "");
    }

    #[test]
    fn seed_table() {
        let p = ScanMode::Prose;
        assert_eq!(concepts("use [[auth]] here", p), vec!["auth"]);
        assert_eq!(
            concepts("[[auth]] and [[JWT]] and [[auth]]", p),
            vec!["auth", "jwt"]
        );
        assert_eq!(concepts("nothing here", p), Vec::<String>::new());
        assert_eq!(concepts("", p), Vec::<String>::new());
        assert_eq!(
            concepts("[[]] and [single] and [[ ]]", p),
            Vec::<String>::new()
        );
        assert_eq!(
            concepts("[[unclosed and ] [[a]b]] [[x]]]", p),
            Vec::<String>::new()
        );
        assert_eq!(concepts("[[[triple]]]", p), Vec::<String>::new());
        assert_eq!(concepts("[[a [[b]]", p), vec!["b"]);
        assert_eq!(concepts("[[123]]", p), vec!["123"]);
        let long = format!("[[{}]] [[ok]]", "x".repeat(MAX_LINK_CHARS + 1));
        assert_eq!(concepts(&long, p), vec!["ok"]);
    }

    #[test]
    fn aliases_headings_and_unicode() {
        let p = ScanMode::Prose;
        assert_eq!(
            concepts("[[REST API|the api]] [[Auth#Tokens]]", p),
            vec!["rest-api", "auth"]
        );
        assert_eq!(concepts("日本 [[東京 タワー]] ok", p), vec!["東京-タワー"]);
        assert_eq!(concepts("emoji [[🚀 launch]]", p), vec!["🚀-launch"]);
    }

    #[test]
    fn shell_tests_are_not_links() {
        let cmd = r#"if [[ -f x ]]; then echo "[[auth]]"; fi; [[ $a == b ]]"#;
        assert_eq!(concepts(cmd, ScanMode::Shell), vec!["auth"]);
        assert_eq!(concepts(cmd, ScanMode::Prose).len(), 3);
    }

    #[test]
    fn links_after_a_rejected_candidate_are_found() {
        assert_eq!(
            concepts("[[bad]]] then [[good]]", ScanMode::Prose),
            vec!["good"]
        );
        assert_eq!(concepts("[x[[ok]]", ScanMode::Prose), vec!["ok"]);
    }

    /// A small deterministic generator of awkward strings.
    pub(crate) struct Rng(pub u64);
    impl Rng {
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        pub fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
    }

    const PIECES: &[&str] = &[
        "[", "[[", "]", "]]", "|", "#", " ", "  ", "_", "/", "-", "--", "\t", "\n", "\r", "\x0B",
        "\x0C", "a", "B", "Zz", "rest api", "Node.JS", "x_y/z", "É", "ß", "İ", "ẞ", "\u{A0}",
        "\u{2028}", "日本", "🚀", "ΣΑΣ", "é", "0", "\\", "`", "*",
    ];

    fn random_text(rng: &mut Rng, max: usize) -> String {
        let n = rng.below(max);
        (0..n).map(|_| rng.pick(PIECES)).collect()
    }

    /// normalize_ascii takes every ASCII name that fits and names it as the reference does.
    fn ascii_same(name: &str, want: &str) {
        let mut buf = [0u8; NAME_BUF];
        match normalize_ascii(name.as_bytes(), &mut buf) {
            Some(n) => assert_eq!(&buf[..n], want.as_bytes(), "{name:?}"),
            None => assert!(!name.is_ascii() || name.len() > NAME_BUF, "{name:?}"),
        }
    }

    #[test]
    fn same_links_and_names_as_the_reference() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let long = format!("[[{}]] [[{}]]", "é".repeat(200), "x".repeat(300));
        let mut texts: Vec<String> = vec![long, String::new()];
        for _ in 0..60_000 {
            texts.push(random_text(&mut rng, 24));
        }
        for _ in 0..20_000 {
            let t = random_text(&mut rng, 4) + "[[" + &random_text(&mut rng, 8) + "]]";
            texts.push(t + &random_text(&mut rng, 4));
        }
        let (mut a, mut b) = (String::new(), String::new());
        let (mut links, mut ascii) = (0, 0);
        for t in &texts {
            ascii += t.is_ascii() as usize;
            for mode in [ScanMode::Prose, ScanMode::Shell] {
                let mut new = Vec::new();
                for_each_link(t, mode, |x| new.push(x));
                let mut old = Vec::new();
                reference::for_each_link(t, mode, |x| old.push(x));
                assert_eq!(new, old, "{t:?}");
                links += new.len();
                for body in new {
                    normalize_into(link_target(body), &mut a);
                    reference::normalize_into(reference::link_target(body), &mut b);
                    assert_eq!(a, b, "{body:?}");
                    ascii_same(link_target(body), &b);
                }
            }
            normalize_into(t, &mut a);
            reference::normalize_into(t, &mut b);
            assert_eq!(a, b, "{t:?}");
            ascii_same(t, &b);
            assert_eq!(link_target(t), reference::link_target(t), "{t:?}");
        }
        assert!(
            links > 5_000 && ascii > 5_000,
            "{links} links, {ascii} ASCII texts"
        );
        for n in [255, 256, 257, 600] {
            let t = "Ab_c ".repeat(n / 5) + &"x".repeat(n % 5);
            normalize_into(&t, &mut a);
            reference::normalize_into(&t, &mut b);
            assert_eq!(a, b, "{n}");
            ascii_same(&t, &b);
        }
    }

    #[test]
    fn find_byte_finds_the_first() {
        let mut rng = Rng(0x5EED_0FF1_DB17_E000);
        for _ in 0..20_000 {
            let n = rng.below(40);
            let hay: Vec<u8> = (0..n).map(|_| b"[]a\x80\xff\x00"[rng.below(6)]).collect();
            for needle in [b'[', b']', 0x80, 0x00, 0xff, b'z'] {
                let want = hay.iter().position(|&b| b == needle);
                assert_eq!(find_byte(&hay, needle), want, "{hay:?} {needle}");
            }
        }
    }
}

//! Full-text search: a token index with BM25 ranking (k1 = 1.2, b = 0.75), titles weighted.
//!
//! Tokens: runs of letters and digits, lowercased, a light English suffix folding
//! (`limits`, `limiting`, `limited` → `limit`), stopwords (maenifold's list) and one-letter
//! ASCII tokens dropped. Postings are appended per document; a removed document is marked
//! dead at once and its postings are purged in one pass once enough have piled up
//! ([`SearchIndex::compact`]), so a change never scans the whole index.
//!
//! Indexing is the hot path of a cold vault load (millions of tokens; this crate is built at
//! opt-level 2 for it, see `Cargo.toml`): the [`Scanner`] finds words with bit masks over a
//! 64-byte window and keys a short ASCII word (most words) straight from its bytes as one
//! integer, lowercased and folded there; longer and non-ASCII words take a byte-at-a-time path
//! through a buffer. Stopwords are terms interned first whose ids indexing skips. (Some shapes
//! below, such as slices instead of `Vec` indexing, date from when this ran at opt-level z,
//! where those were calls; they cost nothing at 2.)

use crate::FileId;

pub const K1: f32 = 1.2;
pub const B: f32 = 0.9;
/// A title token counts as this many body tokens.
pub const TITLE_WEIGHT: u32 = 3;
/// Longer runs (hashes, base64) are not words.
const MAX_TOKEN_BYTES: usize = 48;

/// maenifold's stopwords (its full-text search drops the same ones). They are interned
/// first, as terms `0..STOPWORDS.len()`, which indexing skips.
const STOPWORDS: [&str; 38] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with", "we", "you", "your", "our", "from",
];

/// A word of at most 8 bytes packed into an integer (zero padded), for cheap comparisons.
const fn pack(b: &[u8]) -> u64 {
    let mut v = 0u64;
    let mut i = 0;
    while i < b.len() && i < 8 {
        v |= (b[i] as u64) << (8 * i);
        i += 1;
    }
    v
}

/// The packed stopwords.
const PACKED_STOPWORDS: [u64; 38] = {
    let mut out = [0u64; 38];
    let mut i = 0;
    while i < 38 {
        out[i] = pack(STOPWORDS[i].as_bytes());
        i += 1;
    }
    out
};

/// For [`tokenize`] (queries); indexing uses the reserved term ids instead.
fn is_stopword(t: &[u8]) -> bool {
    t.len() <= 5 && PACKED_STOPWORDS.contains(&pack(t))
}

/// Per byte: the lowercase letter or digit for an ASCII letter or digit, 0 for any other
/// ASCII byte (a separator), 1 for a byte of a non-ASCII character.
const LOWER: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b >= 0x80 {
            1
        } else if b.is_ascii_alphanumeric() {
            b.to_ascii_lowercase()
        } else {
            0
        };
        i += 1;
    }
    t
};

/// Flag in [`Scanner::next`]'s answer: the token holds non-ASCII letters (it is neither
/// folded nor checked against the stopwords).
const WIDE: usize = 0x100;

/// The index tokens of a text, one at a time. Stopwords are not dropped here.
///
/// Indexing ([`Scanner::next_key`]): the text is classified 64 bytes at a time into two bit
/// masks (ASCII letters and digits; bytes of non-ASCII characters), eight bytes per step with
/// word-wide arithmetic, and words are found with bit scans, with no branch per byte (a
/// word's varying length would make the exit of a byte loop mispredict). A word that runs past
/// the window moves the window to its start. Queries and the rare words indexing leaves to it
/// take [`Scanner::next`], which lowercases (and, if ASCII, suffix-folds) into `buf`.
struct Scanner<'a> {
    text: &'a str,
    /// Where the next token is looked for.
    i: usize,
    /// The window: `raw` holds `text[base..]` (zero padded past the end of the text), `alnum`
    /// and `high` its classes as one bit per byte.
    base: usize,
    raw: [u8; 72],
    alnum: u64,
    high: u64,
    /// The current token in its first bytes (at most [`MAX_TOKEN_BYTES`]); junk after it.
    buf: [u8; 64],
    /// Scratch for a word with non-ASCII letters.
    wide: String,
}

const LANES: u64 = 0x0101_0101_0101_0101;

/// Bit 7 of every byte of `x` (ASCII bytes only: bit 7 clear) that lies in `lo..=hi`.
#[inline(always)]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let ge = x.wrapping_add(LANES * (0x80 - lo as u64));
    let gt = x.wrapping_add(LANES * (0x7f - hi as u64));
    ge & !gt & (LANES << 7)
}

/// The 8 bytes of `b` from `at`, little-endian.
#[inline(always)]
fn le64(b: &[u8], at: usize) -> u64 {
    let w = &b[at..at + 8];
    u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])
}

/// Bit 7 of each byte gathered into the low 8 bits (byte k → bit k).
#[inline(always)]
fn gather(m: u64) -> u64 {
    ((m >> 7) & LANES).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        let mut sc = Scanner {
            text,
            i: 0,
            base: 0,
            raw: [0; 72],
            alnum: 0,
            high: 0,
            buf: [0; 64],
            wide: String::new(),
        };
        sc.load(0);
        sc
    }

    /// Put the window at `base`.
    #[inline(never)]
    fn load(&mut self, base: usize) {
        let bytes = self.text.as_bytes();
        let k = bytes.len().saturating_sub(base).min(72);
        if k == 72 {
            self.raw.copy_from_slice(&bytes[base..base + 72]);
        } else {
            self.raw = [0; 72];
            self.raw[..k].copy_from_slice(&bytes[base..base + k]);
        }
        let (mut alnum, mut high) = (0u64, 0u64);
        for j in 0..8 {
            let x = le64(&self.raw, 8 * j);
            let hi = x & (LANES << 7);
            let a = x & !(LANES << 7);
            let letter = in_range(a | (LANES * 0x20), b'a', b'z');
            let digit = in_range(a, b'0', b'9');
            alnum |= gather((letter | digit) & !hi) << (8 * j);
            high |= gather(hi) << (8 * j);
        }
        self.base = base;
        self.alnum = alnum;
        self.high = high;
    }

    /// The next token's length in `buf` (with [`WIDE`] set for a word with non-ASCII
    /// letters), 0 at the end of the text. A byte at a time, ignoring the window: the path
    /// for queries and for what [`Scanner::next_key`] leaves to it (long words, non-ASCII).
    #[inline(never)]
    fn next(&mut self) -> usize {
        let text = self.text;
        let bytes = text.as_bytes();
        let n = bytes.len();
        let mut i = self.i;
        loop {
            while i < n && LOWER[bytes[i] as usize] == 0 {
                i += 1;
            }
            if i >= n {
                self.i = n;
                return 0;
            }
            // A run of ASCII letters and digits, lowercased into `buf` on the way (a run
            // longer than the buffer wraps around in it: it is no token anyway).
            let start = i;
            while i < n {
                let l = LOWER[bytes[i] as usize];
                if l < 2 {
                    break;
                }
                self.buf[(i - start) & 63] = l;
                i += 1;
            }
            let len = i - start;
            if i < n && bytes[i] >= 0x80 {
                let ch = text[i..].chars().next().unwrap_or_default();
                if ch.is_alphanumeric() {
                    // A word with non-ASCII letters (or running on into them): the slow path
                    // from its start. Not folded, and kept even if one byte long.
                    i = slow_word(text, start, &mut self.wide);
                    let w = self.wide.as_bytes();
                    if w.len() > MAX_TOKEN_BYTES {
                        continue;
                    }
                    self.buf[..w.len()].copy_from_slice(w);
                    self.i = i;
                    return w.len() | WIDE;
                }
                if len == 0 {
                    // A non-ASCII separator (dash, quote, ...).
                    i += ch.len_utf8();
                    continue;
                }
            }
            // Outside 2..=MAX_TOKEN_BYTES.
            if len.wrapping_sub(2) > MAX_TOKEN_BYTES - 2 {
                continue;
            }
            self.i = i;
            return fold(&mut self.buf, len);
        }
    }

    /// The next token as [`Scanner::next`] finds it, with its key ([`hash_token`]).
    /// The common case, an ASCII word of 2 to 8 bytes that lies in the window, is keyed
    /// straight from its bytes as one integer (lowercased, folded and masked there), never
    /// copied to `buf`; everything else takes [`Scanner::next`].
    #[inline(always)]
    fn next_key(&mut self) -> (usize, u64) {
        let n = self.text.len();
        loop {
            let rel = self.i - self.base;
            let m = if rel < 64 {
                (self.alnum | self.high) >> rel
            } else {
                0
            };
            if m == 0 {
                // Nothing more in the window: on to the next one.
                let at = self.i.max(self.base + 64);
                if at >= n {
                    self.i = n;
                    return (0, 0);
                }
                self.load(at);
                self.i = at;
                continue;
            }
            // The word's start and end in the window (a non-ASCII start: length 0).
            let s = rel + m.trailing_zeros() as usize;
            let rest = !self.alnum >> s;
            let len = rest.trailing_zeros() as usize;
            if rest == 0 {
                if s == 0 {
                    break; // 64 bytes or more
                }
                // It runs past the window: look again with the window at its start.
                self.i = self.base + s;
                self.load(self.i);
                continue;
            }
            let e = s + len;
            if self.high >> e & 1 == 0 {
                if len.wrapping_sub(2) < 7 {
                    let w = (le64(&self.raw, s) | (LANES * 0x20)) & low_bytes(len);
                    let (w, n) = fold64(w, len);
                    self.i = self.base + e;
                    return (n, key_short(w));
                }
                if len == 1 {
                    self.i = self.base + e; // one letter: no token
                    continue;
                }
            }
            break;
        }
        let r = self.next();
        (
            r,
            if r == 0 {
                0
            } else {
                hash_token(&self.buf, r & 63)
            },
        )
    }
}

/// A word with non-ASCII letters, from `start`, lowercased char by char into `out`.
/// Returns where it ends.
fn slow_word(text: &str, start: usize, out: &mut String) -> usize {
    out.clear();
    let mut end = text.len();
    for (k, ch) in text[start..].char_indices() {
        if !ch.is_alphanumeric() {
            end = start + k;
            break;
        }
        if ch.is_ascii() {
            out.push(ch.to_ascii_lowercase());
        } else {
            out.extend(ch.to_lowercase());
        }
    }
    end
}

/// Fold the suffix of the lowercase ASCII word `b[..n]` (`n` in 4..=48 for any change) in
/// place; returns its new length. `policies` → `policy`, `passes` → `pass`, `running` →
/// `run`, `stopped` → `stop`, `limits` → `limit` (not `status`, `focus`, `analysis`).
/// The rules look at the last four bytes and the length only: [`fold64`] on the word's last
/// (at most) eight bytes.
#[inline(always)]
fn fold(b: &mut [u8; 64], n: usize) -> usize {
    if n < 4 {
        return n;
    }
    let at = n.saturating_sub(8);
    let (w, m) = fold64(le64(b, at) & low_bytes(n - at), n - at);
    b[at..at + 8].copy_from_slice(&w.to_le_bytes());
    at + m
}

/// The lowest `n` bytes of a word (`n` in 1..=8).
#[inline(always)]
fn low_bytes(n: usize) -> u64 {
    u64::MAX >> (64 - 8 * n)
}

/// The suffix folding of [`fold`] for a word of `n` (2..=8) bytes held in an integer, first
/// byte lowest; returns the folded word (bytes past its length cleared) and its length.
#[inline(always)]
fn fold64(w: u64, n: usize) -> (u64, usize) {
    if n < 4 {
        return (w, n);
    }
    // The last four bytes, the last one highest.
    let u = (w >> (8 * (n - 4))) as u32;
    let last3 = u >> 8;
    let byte = |k: usize| (w >> (8 * k)) as u8;
    let undouble = |m: usize| {
        let c = byte(m - 1);
        if c == byte(m - 2) && !matches!(c, b'l' | b's' | b'z' | b'a' | b'e' | b'i' | b'o' | b'u') {
            m - 1
        } else {
            m
        }
    };
    let m = if n > 4 && last3 == le(b"ies") {
        let y = 8 * (n - 3);
        return (
            (w & !(0xff << y) | (b'y' as u64) << y) & low_bytes(n - 2),
            n - 2,
        );
    } else if u == le(b"sses") {
        n - 2
    } else if n > 5 && last3 == le(b"ing") {
        undouble(n - 3)
    } else if n > 4 && u >> 16 == le(b"ed") && last3 != le(b"eed") {
        undouble(n - 2)
    } else if u >> 24 == b's' as u32 && !matches!((u >> 16) as u8, b's' | b'u' | b'i') {
        n - 1
    } else {
        n
    };
    // A final `e` goes too, so that `removes`, `removed`, `removing` and `remove` meet
    // (`remov`); words of four letters or fewer keep it.
    let m = if m > 4 && byte(m - 1) == b'e' { m - 1 } else { m };
    (w & low_bytes(m), m)
}

/// A short literal packed first byte lowest.
const fn le(s: &[u8]) -> u32 {
    let mut v = 0u32;
    let mut i = s.len();
    while i > 0 {
        i -= 1;
        v = v << 8 | s[i] as u32;
    }
    v
}

/// Call `f` with every index token of `text`.
pub fn tokenize(text: &str, mut f: impl FnMut(&str)) {
    let mut sc = Scanner::new(text);
    loop {
        let r = sc.next();
        if r == 0 {
            return;
        }
        let t = &sc.buf[..r & 63];
        if r & WIDE == 0 && is_stopword(t) {
            continue;
        }
        f(std::str::from_utf8(t).unwrap_or_default());
    }
}

/// The distinct tokens of a query, in order.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    tokenize(query, |t| {
        if !out.iter().any(|x| x == t) {
            out.push(t.to_string());
        }
    });
    out
}

/// A 64-bit key for the token `b[..n]` (`n` ≤ 48), never 0. A token of at most 8 bytes
/// (most words) is its bytes as an integer, multiplied by an odd constant and its high half
/// folded into the low one: both steps are invertible, so two short tokens never share a key,
/// and the low bits (the table's slot) depend on every byte. Longer tokens: FxHash-style
/// mixing of their 8-byte words (the last one zero padded), then murmur3's fmix64.
#[inline(always)]
fn hash_token(b: &[u8; 64], n: usize) -> u64 {
    let word = |p: usize| le64(b, p & 56);
    if n.wrapping_sub(1) < 8 {
        return key_short(word(0) & low_bytes(n));
    }
    let mut h: u64 = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut o = 0;
    while o < n {
        let mut w = word(o);
        if n - o < 8 {
            w &= low_bytes(n - o);
        }
        h = (h.rotate_left(5) ^ w).wrapping_mul(MIX);
        o += 8;
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h.max(1)
}

/// The odd multiplier of [`hash_token`] and [`key_short`] (FxHash's).
const MIX: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// [`hash_token`] of a token of 1 to 8 bytes, given as an integer (first byte lowest).
#[inline(always)]
fn key_short(w: u64) -> u64 {
    let h = w.wrapping_mul(MIX);
    h ^ h >> 32
}

/// [`hash_token`] of any text; `None` for one too long to be a token.
fn hash_str(t: &[u8]) -> Option<u64> {
    if t.len() > MAX_TOKEN_BYTES {
        return None;
    }
    let mut b = [0u8; 64];
    b[..t.len()].copy_from_slice(t);
    Some(hash_token(&b, t.len()))
}

/// Interned terms, keyed by a 64-bit hash of their text (the text itself is never needed
/// again: queries are hashed the same way). Open addressing, at most half full. Two distinct
/// tokens (at most 48 bytes) sharing a 64-bit hash is not a practical concern; it would only
/// merge their postings.
#[derive(Default, Debug)]
struct Terms {
    slots: Vec<Slot>,
    len: usize,
}

#[derive(Default, Debug, Clone, Copy)]
struct Slot {
    /// The term's hash; 0 = empty ([`hash_token`] is never 0).
    key: u64,
    id: u32,
    /// Scratch for the document being added: the term's weighted frequency so far (0 = not
    /// seen yet). Kept in the slot so that counting a token touches one cache line.
    tf: u32,
}

impl Terms {
    fn len(&self) -> usize {
        self.len
    }

    /// The slot holding `h`, or the empty slot where it would go. The table must not be empty.
    #[inline(always)]
    fn slot(&self, h: u64) -> usize {
        let slots = &self.slots[..];
        let mask = slots.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            let k = slots[i].key;
            if k == h || k == 0 {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    fn get(&self, t: &str) -> Option<u32> {
        let h = hash_str(t.as_bytes())?;
        if self.slots.is_empty() {
            return None;
        }
        let s = self.slots[self.slot(h)];
        (s.key == h).then_some(s.id)
    }

    /// Put the new term `h` in the empty slot `i` (growing the table first if it would be
    /// more than half full; `moved` then holds slot numbers, which are updated); returns
    /// its slot.
    fn insert(&mut self, mut i: usize, h: u64, moved: &mut [u32]) -> usize {
        let id = self.len as u32;
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            let old = self.grow();
            for m in moved {
                *m = self.slot(old[*m as usize].key) as u32;
            }
            i = self.slot(h);
        }
        self.slots[i] = Slot { key: h, id, tf: 0 };
        i
    }

    /// Double the table (rehashing every term); returns the old one.
    fn grow(&mut self) -> Vec<Slot> {
        let cap = (self.slots.len() * 2).max(1024);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); cap]);
        for s in &old {
            if s.key != 0 {
                let i = self.slot(s.key);
                self.slots[i] = *s;
            }
        }
        old
    }
}

#[derive(Default, Debug)]
pub struct SearchIndex {
    terms: Terms,
    /// Per term: postings in insertion order, each `file << 8 | tf` (the weighted term
    /// frequency saturates at 255, where BM25 has long saturated too); may hold dead files.
    /// Stopwords (the first terms) have none.
    postings: Vec<Vec<u32>>,
    /// Per file: weighted length; `None` for a dead or unused id.
    doc_len: Vec<Option<u32>>,
    live_docs: u32,
    total_len: u64,
    /// Dead ids whose postings are still in the lists.
    dead: Vec<FileId>,
    /// Scratch: the slots of the terms of the document being added.
    distinct: Vec<u32>,
}

impl SearchIndex {
    /// Index one document under a fresh (or purged) id (below 2^24: ids are packed with the
    /// term frequency; the vault's ids stay near its file count).
    pub fn add(&mut self, id: FileId, title: &str, body: &str) {
        assert!(id < 1 << 24, "file id {id} out of range");
        if self.terms.len == 0 {
            self.terms.grow();
            for s in STOPWORDS {
                let h = hash_str(s.as_bytes()).unwrap_or(1);
                let i = self.terms.slot(h);
                self.terms.insert(i, h, &mut []);
                self.postings.push(Vec::new());
            }
        }
        let mut distinct = std::mem::take(&mut self.distinct);
        distinct.clear();
        let len =
            self.count(title, TITLE_WEIGHT, &mut distinct) + self.count(body, 1, &mut distinct);
        let (slots, postings) = (&mut self.terms.slots[..], &mut self.postings[..]);
        for &i in &distinct {
            let s = &mut slots[i as usize];
            postings[s.id as usize].push(id << 8 | s.tf.min(255));
            s.tf = 0;
        }
        let idx = id as usize;
        if self.doc_len.len() <= idx {
            self.doc_len.resize(idx + 1, None);
        }
        debug_assert!(self.doc_len[idx].is_none(), "id {id} reused before purge");
        self.doc_len[idx] = Some(len);
        self.live_docs += 1;
        self.total_len += len as u64;
        self.distinct = distinct;
    }

    /// Count the tokens of `text`, each weighing `w`, into their slots' `tf` (listing each
    /// slot in `distinct` the first time); returns the tokens' total weight.
    fn count(&mut self, text: &str, w: u32, distinct: &mut Vec<u32>) -> u32 {
        let mut sc = Scanner::new(text);
        let mut len = 0;
        loop {
            let (r, h) = sc.next_key();
            if r == 0 {
                return len;
            }
            let mut i = self.terms.slot(h);
            if self.terms.slots[..][i].key != h {
                i = self.terms.insert(i, h, distinct);
                self.postings.push(Vec::new());
            }
            let s = &mut self.terms.slots[..][i];
            if (s.id as usize) < STOPWORDS.len() && r & WIDE == 0 {
                continue;
            }
            if s.tf == 0 {
                distinct.push(i as u32);
            }
            s.tf += w;
            len += w;
        }
    }

    /// Number of distinct terms ever seen (stopwords aside).
    pub fn term_count(&self) -> usize {
        self.terms.len().saturating_sub(STOPWORDS.len())
    }

    /// Mark a document dead. Its id must not be reused until [`SearchIndex::compact`] ran.
    pub fn remove(&mut self, id: FileId) {
        if let Some(slot) = self.doc_len.get_mut(id as usize) {
            if let Some(len) = slot.take() {
                self.live_docs -= 1;
                self.total_len -= len as u64;
                self.dead.push(id);
            }
        }
    }

    /// Dead ids waiting for a purge.
    pub fn dead_count(&self) -> usize {
        self.dead.len()
    }

    /// Purge dead documents from every posting list; returns their ids, free for reuse.
    pub fn compact(&mut self) -> Vec<FileId> {
        if self.dead.is_empty() {
            return Vec::new();
        }
        let doc_len = &self.doc_len;
        for list in &mut self.postings {
            list.retain(|&p| doc_len.get((p >> 8) as usize).is_some_and(Option::is_some));
        }
        std::mem::take(&mut self.dead)
    }

    pub fn live_docs(&self) -> u32 {
        self.live_docs
    }

    /// The score of a note that holds each of the query's terms once and is of average
    /// length: the sum of the terms' idf (for such a note BM25's term-frequency factor is
    /// exactly 1). A term no live note holds counts as a common word (idf ln 2: as if half the
    /// notes held it) — the vault cannot judge it, yet a match on one known word of many is no
    /// strong match. The per-query yardstick enforcement calibrates scores against.
    #[cfg(feature = "policy")]
    pub fn reference_score(&self, terms: &[String]) -> f64 {
        let n = self.live_docs as f64;
        terms
            .iter()
            .map(|term| {
                let df = self.terms.get(term.as_str()).map_or(0, |tid| {
                    self.postings[tid as usize]
                        .iter()
                        .filter(|&&p| matches!(self.doc_len.get((p >> 8) as usize), Some(Some(_))))
                        .count()
                }) as f64;
                if df == 0.0 {
                    std::f64::consts::LN_2
                } else {
                    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
                }
            })
            .sum()
    }

    /// BM25 over the query's tokens: `(file, score)` of every live file that holds one of
    /// them, in no particular order (the vault ranks them: [`crate`] has no sort of its own).
    pub fn scores(&self, terms: &[String]) -> Vec<(FileId, f32)> {
        if self.live_docs == 0 {
            return Vec::new();
        }
        let n = self.live_docs as f32;
        let avgdl = (self.total_len as f32 / n).max(1.0);
        let mut scores: Vec<f32> = vec![0.0; self.doc_len.len()];
        let mut touched: Vec<FileId> = Vec::new();
        let mut live: Vec<(FileId, u32, u32)> = Vec::new();
        for term in terms {
            let Some(tid) = self.terms.get(term.as_str()) else {
                continue;
            };
            live.clear();
            for &p in &self.postings[tid as usize] {
                let (f, tf) = (p >> 8, p & 0xff);
                if let Some(Some(dl)) = self.doc_len.get(f as usize) {
                    live.push((f, tf, *dl));
                }
            }
            let df = live.len() as f32;
            if df == 0.0 {
                continue;
            }
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(f, tf, dl) in &live {
                let tf = tf as f32;
                let s = idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl as f32 / avgdl));
                let slot = &mut scores[f as usize];
                if *slot == 0.0 {
                    touched.push(f);
                }
                *slot += s;
            }
        }
        touched
            .into_iter()
            .map(|f| (f, scores[f as usize]))
            .collect()
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;

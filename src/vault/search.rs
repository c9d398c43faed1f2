//! Full-text search: a token index with BM25 ranking (k1 = 1.2, b = 0.75), titles weighted.
//!
//! Tokens: runs of letters and digits, lowercased, a light English suffix folding
//! (`limits`, `limiting`, `limited` → `limit`), stopwords (maenifold's list) and one-letter
//! ASCII tokens dropped. Postings are appended per document; a removed document is marked
//! dead at once and its postings are purged in one pass once enough have piled up
//! ([`SearchIndex::compact`]), so a change never scans the whole index.

use super::graph::FileId;

pub const K1: f32 = 1.2;
pub const B: f32 = 0.75;
/// A title token counts as this many body tokens.
pub const TITLE_WEIGHT: u32 = 3;
/// Longer runs (hashes, base64) are not words.
const MAX_TOKEN_BYTES: usize = 48;

/// maenifold's stopwords (its full-text search drops the same ones).
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

/// The packed stopwords, sorted for a binary search.
const PACKED_STOPWORDS: [u64; 38] = {
    let mut out = [0u64; 38];
    let mut i = 0;
    while i < 38 {
        out[i] = pack(STOPWORDS[i].as_bytes());
        i += 1;
    }
    // Insertion sort (const context).
    let mut i = 1;
    while i < 38 {
        let mut j = i;
        while j > 0 && out[j - 1] > out[j] {
            let t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    out
};

#[inline]
fn is_stopword(t: &[u8]) -> bool {
    t.len() <= 5 && PACKED_STOPWORDS.binary_search(&pack(t)).is_ok()
}

/// How to fold a lowercase ASCII word's suffix: the length to keep, and whether a `y` follows
/// (`policies` → `polic` + `y`).
#[inline]
fn stem_len(w: &[u8]) -> (usize, bool) {
    let n = w.len();
    if n < 4 {
        return (n, false);
    }
    if n > 4 && ends(w, b"ies") {
        (n - 3, true)
    } else if ends(w, b"sses") {
        (n - 2, false)
    } else if n > 5 && ends(w, b"ing") {
        (undouble(&w[..n - 3]), false)
    } else if n > 4 && ends(w, b"ed") && !ends(w, b"eed") {
        (undouble(&w[..n - 2]), false)
    } else if w[n - 1] == b's' && !matches!(w[n - 2], b's' | b'u' | b'i') {
        (n - 1, false)
    } else {
        (n, false)
    }
}

/// `w.ends_with(s)` for a short literal, byte by byte (a slice comparison is a call to
/// `memcmp`, and this runs for every token).
#[inline(always)]
fn ends<const K: usize>(w: &[u8], s: &[u8; K]) -> bool {
    let n = w.len();
    n >= K && (0..K).all(|i| w[n - K + i] == s[i])
}

/// The length of `w` with a doubled final consonant undone: `runn` → `run`, `stopp` → `stop`
/// (but not `ll`, `ss`, `zz`).
#[inline]
fn undouble(w: &[u8]) -> usize {
    let n = w.len();
    if n >= 3
        && w[n - 1] == w[n - 2]
        && !matches!(
            w[n - 1],
            b'l' | b's' | b'z' | b'a' | b'e' | b'i' | b'o' | b'u'
        )
    {
        n - 1
    } else {
        n
    }
}

/// Byte classes: 0 = separator, 1 = lowercase letter or digit, 2 = uppercase, 3 = non-ASCII.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b >= 0x80 {
            3
        } else if b.is_ascii_uppercase() {
            2
        } else if b.is_ascii_alphanumeric() {
            1
        } else {
            0
        };
        i += 1;
    }
    t
};

/// Call `f` with every index token of `text`.
pub fn tokenize(text: &str, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut buf = String::new();
    let mut lower = String::new();
    let mut i = 0;
    while i < n {
        let b = bytes[i];
        let class = CLASS[b as usize];
        if class == 1 || class == 2 {
            let start = i;
            let rest = &bytes[i..];
            let len = rest
                .iter()
                .position(|&c| !matches!(CLASS[c as usize], 1 | 2))
                .unwrap_or(rest.len());
            let upper = rest[..len].iter().any(u8::is_ascii_uppercase);
            i += len;
            if i < n && bytes[i] >= 0x80 {
                // A word running on into non-ASCII letters: the slow path from its start.
                i = slow_word(text, start, &mut buf, &mut f);
                continue;
            }
            let len = i - start;
            if !(2..=MAX_TOKEN_BYTES).contains(&len) {
                continue;
            }
            let word = &text[start..i];
            if upper {
                lower.clear();
                lower.push_str(word);
                lower.make_ascii_lowercase();
                ascii_word(&lower, &mut buf, &mut f);
            } else {
                ascii_word(word, &mut buf, &mut f);
            }
        } else if class == 0 {
            i += 1;
        } else {
            let ch = text[i..].chars().next().expect("char boundary");
            if ch.is_alphanumeric() {
                i = slow_word(text, i, &mut buf, &mut f);
            } else {
                i += ch.len_utf8();
            }
        }
    }
}

/// A lowercase ASCII word: fold its suffix, drop stopwords.
#[inline]
fn ascii_word(word: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
    let (keep, y) = stem_len(word.as_bytes());
    let w = if y {
        buf.clear();
        buf.push_str(&word[..keep]);
        buf.push('y');
        buf.as_str()
    } else {
        &word[..keep]
    };
    if !is_stopword(w.as_bytes()) {
        f(w);
    }
}

/// A word with non-ASCII letters, from `start`: lowercased char by char, not folded.
/// Returns where it ends.
fn slow_word(text: &str, start: usize, buf: &mut String, f: &mut impl FnMut(&str)) -> usize {
    buf.clear();
    let mut end = text.len();
    let mut any_non_ascii = false;
    for (k, ch) in text[start..].char_indices() {
        if !ch.is_alphanumeric() {
            end = start + k;
            break;
        }
        if ch.is_ascii() {
            buf.push(ch.to_ascii_lowercase());
        } else {
            any_non_ascii = true;
            buf.extend(ch.to_lowercase());
        }
    }
    if buf.len() <= MAX_TOKEN_BYTES && (buf.len() > 1 || any_non_ascii) {
        if any_non_ascii {
            f(buf);
        } else {
            let mut spare = String::new();
            ascii_word(buf, &mut spare, f);
        }
    }
    end
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

/// Interned terms, keyed by a 64-bit hash of their text (the text itself is never needed
/// again: queries are hashed the same way). Open addressing, at most half full. Two distinct
/// tokens (at most 48 bytes) sharing a 64-bit hash is not a practical concern; it would only
/// merge their postings.
#[derive(Default, Debug)]
struct Terms {
    /// Per slot: the term's hash (0 = empty; a real hash of 0 is stored as 1).
    keys: Vec<u64>,
    ids: Vec<u32>,
    len: usize,
}

/// A 64-bit hash of a short byte string: FxHash-style word mixing, then murmur3's fmix64 so
/// every bit of the key depends on every input bit.
#[inline]
fn hash_bytes(b: &[u8]) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h: u64 = (b.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = 0u64;
        for (k, &x) in rest.iter().enumerate() {
            w |= (x as u64) << (8 * k);
        }
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h.max(1)
}

impl Terms {
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn find(&self, h: u64) -> Result<u32, usize> {
        if self.keys.is_empty() {
            return Err(usize::MAX);
        }
        let mask = self.keys.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            let k = self.keys[i];
            if k == h {
                return Ok(self.ids[i]);
            }
            if k == 0 {
                return Err(i);
            }
            i = (i + 1) & mask;
        }
    }

    fn get(&self, t: &str) -> Option<u32> {
        self.find(hash_bytes(t.as_bytes())).ok()
    }

    #[inline]
    fn intern(&mut self, t: &str) -> (u32, bool) {
        let h = hash_bytes(t.as_bytes());
        let slot = match self.find(h) {
            Ok(id) => return (id, false),
            Err(slot) => slot,
        };
        let id = self.len as u32;
        self.len += 1;
        if self.len * 2 > self.keys.len() {
            self.grow();
            let slot = self.find(h).expect_err("new term");
            self.keys[slot] = h;
            self.ids[slot] = id;
        } else {
            self.keys[slot] = h;
            self.ids[slot] = id;
        }
        (id, true)
    }

    fn grow(&mut self) {
        let cap = (self.keys.len() * 2).max(1024);
        let old_keys = std::mem::replace(&mut self.keys, vec![0; cap]);
        let old_ids = std::mem::replace(&mut self.ids, vec![0; cap]);
        let mask = cap - 1;
        for (k, id) in old_keys.into_iter().zip(old_ids) {
            if k == 0 {
                continue;
            }
            let mut i = (k as usize) & mask;
            while self.keys[i] != 0 {
                i = (i + 1) & mask;
            }
            self.keys[i] = k;
            self.ids[i] = id;
        }
    }
}

#[derive(Default, Debug)]
pub struct SearchIndex {
    terms: Terms,
    /// Per term: postings in insertion order, each `file << 8 | tf` (the weighted term
    /// frequency saturates at 255, where BM25 has long saturated too); may hold dead files.
    postings: Vec<Vec<u32>>,
    /// Per file: weighted length; `None` for a dead or unused id.
    doc_len: Vec<Option<u32>>,
    live_docs: u32,
    total_len: u64,
    /// Dead ids whose postings are still in the lists.
    dead: Vec<FileId>,
    /// Per term, scratch for counting one document: its frequency and the add that last saw it.
    tf: Vec<u32>,
    stamp: Vec<u32>,
    adds: u32,
    distinct: Vec<u32>,
}

impl SearchIndex {
    /// Index one document under a fresh (or purged) id (below 2^24: ids are packed with the
    /// term frequency; the vault's ids stay near its file count).
    pub fn add(&mut self, id: FileId, title: &str, body: &str) {
        assert!(id < 1 << 24, "file id {id} out of range");
        self.adds = self.adds.wrapping_add(1);
        if self.adds == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.adds = 1;
        }
        let mut distinct = std::mem::take(&mut self.distinct);
        distinct.clear();
        let mut len = 0u32;
        tokenize(title, |t| {
            self.count(t, TITLE_WEIGHT, &mut distinct);
            len += TITLE_WEIGHT;
        });
        tokenize(body, |t| {
            self.count(t, 1, &mut distinct);
            len += 1;
        });
        for &t in &distinct {
            let tf = self.tf[t as usize].min(255);
            self.postings[t as usize].push(id << 8 | tf);
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

    #[inline]
    fn count(&mut self, t: &str, w: u32, distinct: &mut Vec<u32>) {
        let (tid, new) = self.terms.intern(t);
        if new {
            self.postings.push(Vec::new());
            self.tf.push(0);
            self.stamp.push(0);
        }
        let k = tid as usize;
        if self.stamp[k] != self.adds {
            self.stamp[k] = self.adds;
            self.tf[k] = 0;
            distinct.push(tid);
        }
        self.tf[k] += w;
    }

    /// Number of distinct terms ever seen.
    pub fn term_count(&self) -> usize {
        self.terms.len()
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

    /// BM25 over the query's tokens: `(file, score)`, best first, at most `limit`.
    /// `tie` orders equal scores (by uri, say) so results are stable.
    pub fn search(
        &self,
        terms: &[String],
        limit: usize,
        tie: impl Fn(FileId, FileId) -> std::cmp::Ordering,
    ) -> Vec<(FileId, f64)> {
        if self.live_docs == 0 || limit == 0 {
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
        let order = |a: &FileId, b: &FileId| {
            scores[*b as usize]
                .total_cmp(&scores[*a as usize])
                .then_with(|| tie(*a, *b))
        };
        if touched.len() > limit {
            touched.select_nth_unstable_by(limit - 1, order);
            touched.truncate(limit);
        }
        touched.sort_unstable_by(order);
        touched
            .into_iter()
            .map(|f| (f, scores[f as usize] as f64))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        let mut v = Vec::new();
        tokenize(s, |t| v.push(t.to_string()));
        v
    }

    #[test]
    fn tokens_fold_case_suffixes_and_stopwords() {
        assert_eq!(
            toks("The Rate-Limiting of [[rate limits]] is LIMITED"),
            vec!["rate", "limit", "rate", "limit", "limit"]
        );
        assert_eq!(
            toks("policies passes running stopped status"),
            vec!["policy", "pass", "run", "stop", "status"]
        );
        assert_eq!(
            toks("Größe über 東京 x 42"),
            vec!["größe", "über", "東京", "42"]
        );
        assert_eq!(toks(&"a".repeat(60)), Vec::<String>::new());
    }

    #[test]
    fn bm25_ranks_and_forgets_removed_documents() {
        let mut ix = SearchIndex::default();
        ix.add(
            0,
            "Postgres migrations",
            "How we run schema migrations on postgres.",
        );
        ix.add(1, "Deploy", "Deployment runs migrations last.");
        ix.add(2, "Unrelated", "Nothing to see here about cats and dogs.");
        let r = ix.search(&query_terms("postgres migration"), 10, |a, b| a.cmp(&b));
        assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), vec![0, 1]);
        assert!(r[0].1 > r[1].1);
        ix.remove(0);
        let r = ix.search(&query_terms("postgres"), 10, |a, b| a.cmp(&b));
        assert!(r.is_empty());
        assert_eq!(ix.compact(), vec![0]);
        ix.add(0, "Cats", "cats cats cats");
        let r = ix.search(&query_terms("cats"), 1, |a, b| a.cmp(&b));
        assert_eq!(r[0].0, 0);
        assert!(ix
            .search(&query_terms("the and of"), 10, |a, b| a.cmp(&b))
            .is_empty());
    }
}

use super::*;
use std::collections::BTreeMap;

/// The best `limit` of [`SearchIndex::scores`], ties by file id (the vault ranks the same
/// way, ties by uri).
fn ranked(ix: &SearchIndex, terms: &[String], limit: usize) -> Vec<(FileId, f32)> {
    let mut r = ix.scores(terms);
    r.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    r.truncate(limit);
    r
}

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
        toks("remove removes removed removing release releasing case cases"),
        vec!["remov", "remov", "remov", "remov", "releas", "releas", "case", "case"]
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
    let r = ranked(&ix, &query_terms("postgres migration"), 10);
    assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), vec![0, 1]);
    assert!(r[0].1 > r[1].1);
    ix.remove(0);
    let r = ranked(&ix, &query_terms("postgres"), 10);
    assert!(r.is_empty());
    assert_eq!(ix.compact(), vec![0]);
    ix.add(0, "Cats", "cats cats cats");
    let r = ranked(&ix, &query_terms("cats"), 1);
    assert_eq!(r[0].0, 0);
    assert!(ranked(&ix, &query_terms("the and of"), 10).is_empty());
    assert_eq!(ix.term_count(), 15);
}

/// The tokenizer, hash and indexing before the single-pass [`Scanner`], kept to check
/// the new path against.
mod reference {
    use super::super::{SearchIndex, MAX_TOKEN_BYTES, STOPWORDS, TITLE_WEIGHT};
    use crate::FileId;

    fn is_stopword(t: &[u8]) -> bool {
        STOPWORDS.iter().any(|s| s.as_bytes() == t)
    }

    fn stem_len(w: &[u8]) -> (usize, bool) {
        let n = w.len();
        if n < 4 {
            return (n, false);
        }
        if n > 4 && w.ends_with(b"ies") {
            (n - 3, true)
        } else if w.ends_with(b"sses") {
            (drop_e(&w[..n - 2]), false)
        } else if n > 5 && w.ends_with(b"ing") {
            (drop_e(&w[..undouble(&w[..n - 3])]), false)
        } else if n > 4 && w.ends_with(b"ed") && !w.ends_with(b"eed") {
            (drop_e(&w[..undouble(&w[..n - 2])]), false)
        } else if w[n - 1] == b's' && !matches!(w[n - 2], b's' | b'u' | b'i') {
            (drop_e(&w[..n - 1]), false)
        } else {
            (drop_e(w), false)
        }
    }

    /// A final `e` of a word longer than four letters.
    fn drop_e(w: &[u8]) -> usize {
        let n = w.len();
        if n > 4 && w[n - 1] == b'e' {
            n - 1
        } else {
            n
        }
    }

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

    pub fn tokenize(text: &str, mut f: impl FnMut(&str)) {
        let bytes = text.as_bytes();
        let n = bytes.len();
        let mut buf = String::new();
        let mut i = 0;
        while i < n {
            let b = bytes[i];
            if b.is_ascii_alphanumeric() {
                let start = i;
                while i < n && bytes[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                if i < n && bytes[i] >= 0x80 {
                    i = slow_word(text, start, &mut buf, &mut f);
                    continue;
                }
                if (2..=MAX_TOKEN_BYTES).contains(&(i - start)) {
                    ascii_word(&text[start..i].to_ascii_lowercase(), &mut f);
                }
            } else if b < 0x80 {
                i += 1;
            } else {
                let ch = text[i..].chars().next().unwrap();
                if ch.is_alphanumeric() {
                    i = slow_word(text, i, &mut buf, &mut f);
                } else {
                    i += ch.len_utf8();
                }
            }
        }
    }

    fn ascii_word(word: &str, f: &mut impl FnMut(&str)) {
        let (keep, y) = stem_len(word.as_bytes());
        let mut w = word[..keep].to_string();
        if y {
            w.push('y');
        }
        if !is_stopword(w.as_bytes()) {
            f(&w);
        }
    }

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
                ascii_word(buf, f);
            }
        }
        end
    }

    pub fn hash_bytes(b: &[u8]) -> u64 {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        if (1..=8).contains(&b.len()) {
            let mut w = 0u64;
            for (k, &x) in b.iter().enumerate() {
                w |= (x as u64) << (8 * k);
            }
            let h = w.wrapping_mul(K);
            return h ^ (h >> 32);
        }
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

    /// The old `add`, token by token through the old tokenizer and hash (into the same
    /// structures, so searches run the same code).
    pub fn add(ix: &mut SearchIndex, id: FileId, title: &str, body: &str) {
        if ix.terms.len == 0 {
            ix.terms.grow();
            for s in STOPWORDS {
                let h = hash_bytes(s.as_bytes());
                let i = ix.terms.slot(h);
                ix.terms.insert(i, h, &mut []);
                ix.postings.push(Vec::new());
            }
        }
        let mut counts: Vec<(u32, u32)> = Vec::new();
        let mut len = 0;
        let mut count = |t: &str, w: u32| {
            let h = hash_bytes(t.as_bytes());
            let i = ix.terms.slot(h);
            if ix.terms.slots[i].key != h {
                ix.terms.insert(i, h, &mut []);
                ix.postings.push(Vec::new());
            }
            let tid = ix.terms.get(t).unwrap();
            match counts.iter_mut().find(|c| c.0 == tid) {
                Some(c) => c.1 += w,
                None => counts.push((tid, w)),
            }
            len += w;
        };
        tokenize(title, |t| count(t, TITLE_WEIGHT));
        tokenize(body, |t| count(t, 1));
        for (t, tf) in counts {
            ix.postings[t as usize].push(id << 8 | tf.min(255));
        }
        let idx = id as usize;
        if ix.doc_len.len() <= idx {
            ix.doc_len.resize(idx + 1, None);
        }
        ix.doc_len[idx] = Some(len);
        ix.live_docs += 1;
        ix.total_len += len as u64;
    }
}

/// Texts meant to hit every branch: case, digits, unicode (letters, separators, lowercase
/// that changes length, the Kelvin sign), runs around 48 bytes, stopwords, suffixes.
fn hand_texts() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        " ",
        "a",
        "ab",
        "The Rate-Limiting of [[rate limits]] is LIMITED",
        "policies passes running stopped status focus analysis ties dies lies cries",
        "agreed freed needed speed bed red fed wed led shed feed bleed",
        "hopping hoping falling fussing buzzing seeing being ring sing king thing",
        "bus gas yes this his its ours thens theirs ins ifs ass mess boss bosses",
        "The THE tHe AND And aNd OF Of FROM From YOUR Your yours",
        "Größe über 東京 x 42 ÜBER GRÖSSE straße STRASSE",
        "naïve café résumé coöperate façade piñata",
        "abc—def “quoted” ‘single’ don’t it’s …ellipsis… «guillemets»",
        "word\u{212A}elvin \u{212A}m \u{212A} k K \u{0130}stanbul İ i̇",
        "ǅungla ǈ ǋ ΣΑΣ ὈΔΥΣΣΕΎΣ ﬃ ﬁne",
        "x1 1x 42 007 3.14159 2024-01-02 v2ray base64 md5 sha256",
        "tabs\tand\nnewlines\r\nand\u{a0}nbsp\u{3000}ideographic space",
        "emoji 🎉party 🎉 a🎉b ab🎉cd",
        "mixedCASE camelCaseWord snake_case_word kebab-case-word SCREAMING_CASE",
        "Running RUNNING runs RUNS Policies POLICIES Stopped STOPPED",
        "éa aé ea\u{301} a\u{301}b",
        "ies sses ing ed eed s ss us is",
        "aies asses aing aed aeed",
        "abies bsses bbing bbed cceed",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for n in [46, 47, 48, 49, 50, 63, 64, 65, 100] {
        let w = "ab".repeat(n).chars().take(n).collect::<String>();
        v.push(format!("{w} x{w} {w}é {w}— é{w} {w}S {w}ing"));
        v.push(format!("{}ies {}IES", "q".repeat(n - 3), "Q".repeat(n - 3)));
        v.push(format!("{}ü", "k".repeat(n - 2)));
        v.push(format!("{}ü", "k".repeat(n - 1)));
    }
    v
}

/// Pseudo-random texts from a vocabulary of the cases above.
fn generated_texts(count: usize) -> Vec<String> {
    let pieces = [
        "the",
        "The",
        "and",
        "limits",
        "LIMITING",
        "limited",
        "policies",
        "passes",
        "bus",
        "status",
        "running",
        "hopped",
        "agreed",
        "seeing",
        "über",
        "Größe",
        "東京",
        "x",
        "42",
        "a1",
        "—",
        "’",
        "é",
        "\u{212A}",
        "İ",
        "ǅ",
        "🎉",
        "[[",
        "]]",
        "-",
        "_",
        ".",
        "\n",
        " ",
        " ",
        " ",
        "ies",
        "sses",
        "ed",
        "s",
        "ing",
        "QQQQQQQQQQQQQQQQQQQQ",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..count)
        .map(|_| {
            let len = (next() % 60) as usize;
            (0..len)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect()
        })
        .collect()
}

/// Random texts for the 8-bytes-at-a-time scanner: runs of every length up to past the
/// buffer, at every alignment, of letters and digits, ASCII bytes around the letter and
/// digit ranges, control bytes and non-ASCII characters (letters and separators).
fn byte_texts(count: usize) -> Vec<String> {
    let other: Vec<char> =
        "aAzZ09 sSeEdDiIgGnNyY \t\n\0\x7f@[`{/:_-.,'\"é\u{df}Ü\u{130}\u{212A}—’東🎉\u{301}\u{a0}"
            .chars()
            .collect();
    let word: Vec<char> = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        .chars()
        .collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    (0..count)
        .map(|_| {
            let mut t = " ".repeat(next(9));
            for _ in 0..next(12) {
                let (set, len) = match next(4) {
                    // Mostly words of any length up to 70 (suffixes come by chance).
                    0 | 1 => (&word, 1 + next(70)),
                    2 => (&word, 1 + next(9)),
                    _ => (&other, 1 + next(4)),
                };
                for _ in 0..len {
                    t.push(set[next(set.len())]);
                }
            }
            t
        })
        .collect()
}

#[test]
fn tokens_and_hashes_match_the_old_tokenizer() {
    let texts: Vec<String> = hand_texts()
        .into_iter()
        .chain(generated_texts(3000))
        .chain(byte_texts(30000))
        .collect();
    for t in &texts {
        let mut old = Vec::new();
        reference::tokenize(t, |x| old.push(x.to_string()));
        assert_eq!(toks(t), old, "{t:?}");
        for x in &old {
            assert_eq!(
                hash_str(x.as_bytes()),
                Some(reference::hash_bytes(x.as_bytes()))
            );
        }
    }
}

#[test]
fn index_matches_the_old_indexing() {
    let hand = hand_texts();
    let gen = generated_texts(2000);
    let bytes = byte_texts(4000);
    // Documents with thousands of new terms, repeated: the table grows mid-document.
    let many: Vec<String> = (0..3)
        .map(|k| {
            (0..3000)
                .map(|i| format!("t{k}x{} Tx{i}s ", i % 1700))
                .collect()
        })
        .collect();
    let docs: Vec<(&str, &str)> = hand
        .iter()
        .map(|t| (t.as_str(), t.as_str()))
        .chain(gen.chunks(2).map(|c| (c[0].as_str(), c[1].as_str())))
        .chain(bytes.chunks(2).map(|c| (c[0].as_str(), c[1].as_str())))
        .chain(many.iter().map(|t| ("t0x1 new", t.as_str())))
        .collect();
    let mut new = SearchIndex::default();
    let mut old = SearchIndex::default();
    for (i, &(title, body)) in docs.iter().enumerate() {
        new.add(i as u32, title, body);
        reference::add(&mut old, i as u32, title, body);
    }
    // Same terms (in the same order), postings, term frequencies and lengths.
    assert_eq!(new.terms.len, old.terms.len);
    assert_eq!(new.postings, old.postings);
    assert_eq!(new.doc_len, old.doc_len);
    assert_eq!(new.total_len, old.total_len);
    // And per document, the (term, tf) the old tokenizer counts.
    for (i, &(title, body)) in docs.iter().enumerate() {
        let mut want: BTreeMap<String, u32> = BTreeMap::new();
        reference::tokenize(title, |t| *want.entry(t.to_string()).or_default() += 3);
        reference::tokenize(body, |t| *want.entry(t.to_string()).or_default() += 1);
        let got: BTreeMap<u32, u32> = new
            .postings
            .iter()
            .enumerate()
            .flat_map(|(t, l)| l.iter().map(move |&p| (t, p)))
            .filter(|&(_, p)| p >> 8 == i as u32)
            .map(|(t, p)| (t as u32, p & 0xff))
            .collect();
        let want: BTreeMap<u32, u32> = want
            .iter()
            .map(|(t, &tf)| (new.terms.get(t).unwrap(), tf.min(255)))
            .collect();
        assert_eq!(got, want, "{title:?} / {body:?}");
    }
    for q in [
        "limit",
        "policy rate",
        "the über",
        "東京 42",
        "running stopped",
        "k km",
        "Größe",
        "qqqqqqqqqqqqqqqqqqqq",
        "x",
        "and",
        "ies ed",
    ] {
        let terms = query_terms(q);
        let a = ranked(&new, &terms, 20);
        let b = ranked(&old, &terms, 20);
        assert_eq!(a, b, "{q}");
        #[cfg(feature = "policy")]
        assert_eq!(new.reference_score(&terms), old.reference_score(&terms));
    }
    for s in STOPWORDS {
        assert!(ranked(&new, &[s.to_string()], 5).is_empty());
    }
}

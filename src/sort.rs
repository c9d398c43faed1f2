//! One sort for the whole core. At opt-level "z" every `sort_unstable_by` or
//! `select_nth_unstable_by` on another element type or closure instantiates the standard
//! library's whole pattern-defeating quicksort again: ~5 KB of wasm each, eight of them were
//! 47 KB of the lean build. Here a short slice is insertion-sorted (a few dozen bytes per
//! element type) and a longer one through one shared, non-generic sort of its indices.
//! Stable: equal elements keep their order.

use std::cmp::Ordering;

/// Slices up to this long are insertion-sorted.
const SHORT: usize = 16;

pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() <= SHORT {
        for i in 1..v.len() {
            let mut j = i;
            while j > 0 && cmp(&v[j - 1], &v[j]) == Ordering::Greater {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
        return;
    }
    let mut idx: Vec<u32> = (0..v.len() as u32).collect();
    sort_indices(&mut idx, &mut |a, b| cmp(&v[a as usize], &v[b as usize]));
    permute(v, &mut idx);
}

pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)))
}

pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp)
}

/// Keep the first `k` of `v` under `cmp`, sorted. Small `k` (the usual case: 3 files, 20
/// relations, 10 hits) is one pass that mostly compares against the current worst.
pub fn top_k<T>(v: &mut Vec<T>, k: usize, mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() > k && k <= 64 {
        let mut best: Vec<T> = Vec::with_capacity(k + 1);
        for x in v.drain(..) {
            if best.len() == k && (k == 0 || cmp(&x, &best[k - 1]) != Ordering::Less) {
                continue;
            }
            let at = best.partition_point(|b| cmp(b, &x) != Ordering::Greater);
            best.insert(at, x);
            best.truncate(k);
        }
        *v = best;
        return;
    }
    sort_by(v, cmp);
    v.truncate(k);
}

/// The one instantiation of the standard sort; ties by index make it stable.
#[inline(never)]
fn sort_indices(idx: &mut [u32], cmp: &mut dyn FnMut(u32, u32) -> Ordering) {
    idx.sort_unstable_by(|&a, &b| cmp(a, b).then(a.cmp(&b)));
}

/// Rearrange `v` so that position `k` holds what was at `idx[k]`: in place, along each cycle
/// of the permutation (`idx` is used up marking what is done).
fn permute<T>(v: &mut [T], idx: &mut [u32]) {
    for start in 0..idx.len() {
        let mut k = start;
        loop {
            let src = idx[k] as usize;
            idx[k] = k as u32;
            if src == start || src == k {
                break;
            }
            v.swap(k, src);
            k = src;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the standard library's stable sort, on random keys with many ties, every length
    /// around the insertion / index sort switch and beyond.
    #[test]
    fn sorts_like_the_standard_stable_sort() {
        // a 64-bit LCG (Knuth's MMIX constants); its high bits are the random ones
        let mut state = 0xC0FFEE_u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state >> 17
        };
        for len in (0..80).chain([200, 1000, 5000]) {
            for round in 0..4 {
                let keys = 1 + (next() % [3, 10, 1000, 1 << 30][round]) as u32;
                let v: Vec<(u32, usize)> = (0..len).map(|i| ((next() as u32) % keys, i)).collect();
                let mut want = v.clone();
                want.sort_by_key(|x| x.0);
                let mut got = v.clone();
                sort_by_key(&mut got, |x| x.0);
                assert_eq!(got, want, "len {len} keys {keys}");
                let mut got = v.clone();
                sort_by(&mut got, |a, b| b.0.cmp(&a.0));
                let mut want = v.clone();
                want.sort_by_key(|x| std::cmp::Reverse(x.0));
                assert_eq!(got, want);
                for k in [0, 1, 3, 10, 64, 65, len / 2, len, len + 1] {
                    let mut got = v.clone();
                    top_k(&mut got, k, |a, b| a.0.cmp(&b.0));
                    let mut want = v.clone();
                    want.sort_by_key(|x| x.0);
                    want.truncate(k);
                    assert_eq!(got, want, "top {k} of {len}");
                }
            }
        }
        let mut s = vec!["b".to_string(), "a".into(), "c".into(), "a".into()];
        sort(&mut s);
        assert_eq!(s, ["a", "a", "b", "c"]);
    }
}

//! The concept graph: concepts mentioned in the same file are related, and an edge's weight
//! is the number of distinct files the two share (maenifold's rule). Concept names are
//! interned; each concept keeps the set of files that link it and a map neighbor → weight, so
//! adding or dropping one file touches only that file's concepts and their pairs.

use super::fx::{FxHashMap, FxHashSet};

pub type ConceptId = u32;
pub type FileId = u32;

#[derive(Default, Debug)]
pub struct Graph {
    ids: FxHashMap<Box<str>, ConceptId>,
    names: Vec<Box<str>>,
    files: Vec<FxHashSet<FileId>>,
    adj: Vec<IdMap>,
    live_concepts: usize,
    edges: usize,
}

impl Graph {
    /// The id of a concept, creating it when new.
    pub fn intern(&mut self, name: &str) -> ConceptId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as ConceptId;
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        self.files.push(FxHashSet::default());
        self.adj.push(IdMap::default());
        id
    }

    /// The id of a known concept that some file still links.
    pub fn id(&self, name: &str) -> Option<ConceptId> {
        self.ids
            .get(name)
            .copied()
            .filter(|&id| !self.files[id as usize].is_empty())
    }

    /// One more than the largest concept id ever given out.
    pub fn id_bound(&self) -> usize {
        self.names.len()
    }

    pub fn name(&self, id: ConceptId) -> &str {
        &self.names[id as usize]
    }

    /// Record that `file` links every concept in `concepts` (distinct ids).
    pub fn add_file(&mut self, file: FileId, concepts: &[ConceptId]) {
        for &c in concepts {
            let set = &mut self.files[c as usize];
            if set.is_empty() {
                self.live_concepts += 1;
            }
            set.insert(file);
        }
        for (i, &a) in concepts.iter().enumerate() {
            for &b in &concepts[i + 1..] {
                if a == b {
                    continue;
                }
                if self.adj[a as usize].incr(b) {
                    self.edges += 1;
                }
                self.adj[b as usize].incr(a);
            }
        }
    }

    /// Undo [`Graph::add_file`] for the same file and concepts.
    pub fn remove_file(&mut self, file: FileId, concepts: &[ConceptId]) {
        for &c in concepts {
            let set = &mut self.files[c as usize];
            if set.remove(&file) && set.is_empty() {
                self.live_concepts -= 1;
                // Keep the allocation small for a concept nobody links any more.
                set.shrink_to_fit();
            }
        }
        for (i, &a) in concepts.iter().enumerate() {
            for &b in &concepts[i + 1..] {
                if a == b {
                    continue;
                }
                if self.adj[a as usize].decr(b) {
                    self.edges -= 1;
                }
                self.adj[b as usize].decr(a);
            }
        }
    }

    /// Neighbors of a concept with edge weights (unordered).
    pub fn neighbors(&self, c: ConceptId) -> impl Iterator<Item = (ConceptId, u32)> + '_ {
        self.adj[c as usize].iter()
    }

    pub fn is_neighbor(&self, a: ConceptId, b: ConceptId) -> bool {
        self.adj[a as usize].get(b).is_some()
    }

    pub fn weight(&self, a: ConceptId, b: ConceptId) -> u32 {
        self.adj[a as usize].get(b).unwrap_or(0)
    }

    /// Files linking both concepts (unordered).
    pub fn shared_files(&self, a: ConceptId, b: ConceptId) -> Vec<FileId> {
        let (fa, fb) = (&self.files[a as usize], &self.files[b as usize]);
        let (small, large) = if fa.len() <= fb.len() {
            (fa, fb)
        } else {
            (fb, fa)
        };
        small
            .iter()
            .copied()
            .filter(|f| large.contains(f))
            .collect()
    }

    pub fn files_of(&self, c: ConceptId) -> &FxHashSet<FileId> {
        &self.files[c as usize]
    }

    /// Concepts linked by at least one file.
    pub fn concept_count(&self) -> usize {
        self.live_concepts
    }

    /// Pairs of concepts sharing at least one file.
    pub fn edge_count(&self) -> usize {
        self.edges
    }
}

/// A concept's neighbors and edge weights: open addressing with linear probing over two
/// arrays (at most half full), deletion by backward shift. The cold index does millions of
/// weight increments; this is several times cheaper per increment than a general hash map in
/// wasm, and smaller.
#[derive(Default, Debug)]
pub struct IdMap {
    /// `EMPTY` marks a free slot.
    keys: Vec<ConceptId>,
    vals: Vec<u32>,
    len: usize,
    /// 32 − log2(capacity): the slot of a key is the top bits of its multiplicative hash.
    shift: u32,
}

const EMPTY: ConceptId = u32::MAX;

impl IdMap {
    #[inline]
    fn home(&self, k: ConceptId) -> usize {
        (k.wrapping_mul(0x9e37_79b9) >> self.shift) as usize
    }

    /// The slot holding `k`, or the free slot where it would go.
    #[inline]
    fn find(&self, k: ConceptId) -> Result<usize, usize> {
        let mask = self.keys.len() - 1;
        let mut i = self.home(k);
        loop {
            match self.keys[i] {
                x if x == k => return Ok(i),
                EMPTY => return Err(i),
                _ => i = (i + 1) & mask,
            }
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, k: ConceptId) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        self.find(k).ok().map(|i| self.vals[i])
    }

    /// Add one to `k`'s weight (from 0). True when `k` is new.
    pub fn incr(&mut self, k: ConceptId) -> bool {
        debug_assert!(k != EMPTY);
        if (self.len + 1) * 2 > self.keys.len() {
            self.grow();
        }
        match self.find(k) {
            Ok(i) => {
                self.vals[i] += 1;
                false
            }
            Err(i) => {
                self.keys[i] = k;
                self.vals[i] = 1;
                self.len += 1;
                true
            }
        }
    }

    /// Take one from `k`'s weight, dropping it at zero. True when `k` was dropped.
    pub fn decr(&mut self, k: ConceptId) -> bool {
        if self.len == 0 {
            return false;
        }
        let Ok(mut i) = self.find(k) else {
            return false;
        };
        if self.vals[i] > 1 {
            self.vals[i] -= 1;
            return false;
        }
        // Backward shift: pull later keys of the same run into the hole when their home slot
        // does not lie (cyclically) between the hole and them.
        let mask = self.keys.len() - 1;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let kj = self.keys[j];
            if kj == EMPTY {
                break;
            }
            let h = self.home(kj);
            let stays = if i <= j {
                i < h && h <= j
            } else {
                i < h || h <= j
            };
            if !stays {
                self.keys[i] = kj;
                self.vals[i] = self.vals[j];
                i = j;
            }
        }
        self.keys[i] = EMPTY;
        self.len -= 1;
        if self.len == 0 {
            *self = IdMap::default(); // a concept nobody links any more keeps no memory
        }
        true
    }

    fn grow(&mut self) {
        let cap = (self.keys.len() * 2).max(8);
        let old_keys = std::mem::replace(&mut self.keys, vec![EMPTY; cap]);
        let old_vals = std::mem::replace(&mut self.vals, vec![0; cap]);
        self.shift = 32 - cap.trailing_zeros();
        for (k, v) in old_keys.into_iter().zip(old_vals) {
            if k != EMPTY {
                let i = self.find(k).expect_err("distinct keys");
                self.keys[i] = k;
                self.vals[i] = v;
            }
        }
    }

    /// (key, weight) pairs, unordered.
    pub fn iter(&self) -> impl Iterator<Item = (ConceptId, u32)> + '_ {
        self.keys
            .iter()
            .zip(&self.vals)
            .filter(|(k, _)| **k != EMPTY)
            .map(|(&k, &v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_count_shared_files_and_removal_undoes() {
        let mut g = Graph::default();
        let a = g.intern("a");
        let b = g.intern("b");
        let c = g.intern("c");
        g.add_file(1, &[a, b, c]);
        g.add_file(2, &[a, b]);
        g.add_file(3, &[c]);
        assert_eq!(g.weight(a, b), 2);
        assert_eq!(g.weight(b, a), 2);
        assert_eq!(g.weight(a, c), 1);
        assert_eq!(g.edge_count(), 3);
        assert_eq!(g.concept_count(), 3);
        let mut s = g.shared_files(a, b);
        s.sort();
        assert_eq!(s, vec![1, 2]);
        g.remove_file(1, &[a, b, c]);
        assert_eq!(g.weight(a, b), 1);
        assert_eq!(g.weight(a, c), 0);
        assert!(!g.is_neighbor(c, a));
        assert_eq!(g.edge_count(), 1);
        g.remove_file(3, &[c]);
        assert_eq!(g.concept_count(), 2);
        assert_eq!(g.id("c"), None, "a concept nobody links is gone");
        assert_eq!(g.id("a"), Some(a));
    }
}

#[cfg(test)]
mod idmap_tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn id_map_matches_a_btree_map_under_random_increments_and_decrements() {
        let mut m = IdMap::default();
        let mut want: BTreeMap<u32, u32> = BTreeMap::new();
        let mut seed = 7u64;
        for step in 0..200_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // few distinct keys, clustered (dense ids and a few large ones): long probe runs
            let k = match (seed >> 33) % 4 {
                0 => ((seed >> 40) % 64) as u32 * 1024,
                _ => ((seed >> 40) % 300) as u32,
            };
            let up = (seed >> 20) % 5 < 3;
            if up {
                assert_eq!(m.incr(k), !want.contains_key(&k), "step {step}");
                *want.entry(k).or_insert(0) += 1;
            } else {
                let dropped = want.get(&k) == Some(&1);
                assert_eq!(m.decr(k), dropped, "step {step}");
                match want.get_mut(&k) {
                    Some(w) if *w > 1 => *w -= 1,
                    Some(_) => {
                        want.remove(&k);
                    }
                    None => {}
                }
            }
            if step % 997 == 0 {
                let mut got: Vec<(u32, u32)> = m.iter().collect();
                got.sort();
                assert_eq!(got, want.iter().map(|(&k, &v)| (k, v)).collect::<Vec<_>>());
                assert_eq!(m.len(), want.len());
                for k in 0..310 {
                    assert_eq!(m.get(k), want.get(&k).copied());
                }
            }
        }
        assert_eq!(m.is_empty(), want.is_empty());
    }
}

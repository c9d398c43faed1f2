//! The concept graph: concepts mentioned in the same file are related, and an edge's weight
//! is the number of distinct files the two share (maenifold's rule). Concept names are
//! interned; the graph keeps, per concept, the files that link it and, per file, the concepts
//! it links. A concept's neighbors and weights are counted when first asked, by walking its
//! files (a dense counter per concept id, no hashing), and kept until a file linking it
//! changes. Indexing a file is then linear in its links — a cold index of 10,000 notes no
//! longer does millions of pair increments up front — and a question costs the links of the
//! files it touches, once (a concept in three quarters of 10,000 notes: ~120,000 counter
//! bumps).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::fx::FxHashMap;

pub type ConceptId = u32;
pub use hookwise_text::FileId;
/// A concept's neighbors with their weights, unordered.
pub type Neighbors = Rc<[(ConceptId, u32)]>;

#[derive(Default, Debug)]
pub struct Graph {
    ids: FxHashMap<Box<str>, ConceptId>,
    names: Vec<Box<str>>,
    /// Per concept: the files linking it (unordered, distinct).
    files: Vec<Vec<FileId>>,
    /// Per file id: the distinct concepts it links, sorted (empty for an unused id).
    concepts_of: Vec<Box<[ConceptId]>>,
    /// Per concept: its neighbors and weights once counted; `None` until asked and after a
    /// file linking it changed.
    adj: RefCell<Vec<Option<Neighbors>>>,
    live_concepts: usize,
    /// Pairs of concepts sharing a file, counted when first asked after a change.
    edges: Cell<Option<usize>>,
    /// A counter per concept id, all zero between walks.
    scratch: RefCell<Vec<u32>>,
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
        self.files.push(Vec::new());
        id
    }

    /// The id of a known concept that some file still links.
    pub fn id(&self, name: &str) -> Option<ConceptId> {
        self.ids
            .get(name)
            .copied()
            .filter(|&id| !self.files[id as usize].is_empty())
    }

    /// Forget the counted neighbors of `concepts` (a file linking them changed).
    fn touch(&mut self, concepts: &[ConceptId]) {
        if concepts.is_empty() {
            return;
        }
        self.edges.set(None);
        let adj = self.adj.get_mut();
        for &c in concepts {
            if let Some(slot) = adj.get_mut(c as usize) {
                *slot = None;
            }
        }
    }

    /// One more than the largest concept id ever given out.
    pub fn id_bound(&self) -> usize {
        self.names.len()
    }

    pub fn name(&self, id: ConceptId) -> &str {
        &self.names[id as usize]
    }

    /// Record that `file` (not yet recorded) links every concept in `concepts` (distinct ids,
    /// sorted).
    pub fn add_file(&mut self, file: FileId, concepts: &[ConceptId]) {
        debug_assert!(concepts.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
        for &c in concepts {
            let list = &mut self.files[c as usize];
            if list.is_empty() {
                self.live_concepts += 1;
            }
            list.push(file);
        }
        let f = file as usize;
        if self.concepts_of.len() <= f {
            self.concepts_of.resize_with(f + 1, Default::default);
        }
        self.concepts_of[f] = concepts.into();
        self.touch(concepts);
    }

    /// Undo [`Graph::add_file`].
    pub fn remove_file(&mut self, file: FileId) {
        let Some(slot) = self.concepts_of.get_mut(file as usize) else {
            return;
        };
        let concepts = std::mem::take(slot);
        for &c in concepts.iter() {
            let list = &mut self.files[c as usize];
            if let Some(i) = list.iter().position(|&f| f == file) {
                list.swap_remove(i);
                if list.is_empty() {
                    self.live_concepts -= 1;
                    // Keep no memory for a concept nobody links any more.
                    *list = Vec::new();
                }
            }
        }
        self.touch(&concepts);
    }

    /// Neighbors of a concept with edge weights (the number of files shared), unordered.
    pub fn neighbors(&self, c: ConceptId) -> Neighbors {
        if let Some(Some(known)) = self.adj.borrow().get(c as usize) {
            return known.clone();
        }
        let counted: Neighbors = self.count_neighbors(c).into();
        let mut adj = self.adj.borrow_mut();
        if adj.len() < self.names.len() {
            adj.resize(self.names.len(), None);
        }
        adj[c as usize] = Some(counted.clone());
        counted
    }

    fn count_neighbors(&self, c: ConceptId) -> Vec<(ConceptId, u32)> {
        let mut count = self.scratch.borrow_mut();
        if count.len() < self.names.len() {
            count.resize(self.names.len(), 0);
        }
        let mut touched: Vec<ConceptId> = Vec::new();
        for &f in &self.files[c as usize] {
            for &n in self.concepts_of[f as usize].iter() {
                if n == c {
                    continue;
                }
                let k = &mut count[n as usize];
                if *k == 0 {
                    touched.push(n);
                }
                *k += 1;
            }
        }
        touched
            .into_iter()
            .map(|n| (n, std::mem::take(&mut count[n as usize])))
            .collect()
    }

    /// The number of files linking both concepts (the tests' view of an edge; BuildContext
    /// reads weights from [`Graph::neighbors`]).
    #[cfg(test)]
    pub fn weight(&self, a: ConceptId, b: ConceptId) -> u32 {
        self.shared_files(a, b).len() as u32
    }

    #[cfg(test)]
    pub fn is_neighbor(&self, a: ConceptId, b: ConceptId) -> bool {
        a != b && self.weight(a, b) > 0
    }

    /// Files linking both concepts (unordered): the rarer concept's files, kept when they
    /// also link the other.
    pub fn shared_files(&self, a: ConceptId, b: ConceptId) -> Vec<FileId> {
        let (fa, fb) = (&self.files[a as usize], &self.files[b as usize]);
        let (small, other) = if fa.len() <= fb.len() {
            (fa, b)
        } else {
            (fb, a)
        };
        let mut out = Vec::new();
        for &f in small.iter() {
            if links(&self.concepts_of[f as usize], other) {
                out.push(f);
            }
        }
        out
    }

    pub fn files_of(&self, c: ConceptId) -> &[FileId] {
        &self.files[c as usize]
    }

    /// Concepts linked by at least one file.
    pub fn concept_count(&self) -> usize {
        self.live_concepts
    }

    /// Pairs of concepts sharing at least one file. Counted on first use after a change
    /// (one walk over every file's links per concept: ~3 million steps for 10,000 notes).
    pub fn edge_count(&self) -> usize {
        if let Some(n) = self.edges.get() {
            return n;
        }
        // seen[n] = 1 + the last concept whose walk counted n
        let mut seen: Vec<u32> = vec![0; self.names.len()];
        let mut total = 0usize;
        for (c, files) in self.files.iter().enumerate() {
            let mark = c as u32 + 1;
            for &f in files {
                for &n in self.concepts_of[f as usize].iter() {
                    if n > c as u32 && seen[n as usize] != mark {
                        seen[n as usize] = mark;
                        total += 1;
                    }
                }
            }
        }
        self.edges.set(Some(total));
        total
    }
}

/// Whether a file's sorted concept list holds `c`: a scan that stops at the first larger id
/// (lists are short — a dozen links — and this runs for every file of a relation; a generic
/// binary search is a call per file at opt-level z).
#[inline(always)]
fn links(list: &[ConceptId], c: ConceptId) -> bool {
    for &x in list {
        if x >= c {
            return x == c;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

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
        let mut n = g.neighbors(a).to_vec();
        n.sort();
        assert_eq!(n, vec![(b, 2), (c, 1)]);
        g.remove_file(1);
        assert_eq!(g.weight(a, b), 1);
        assert_eq!(g.weight(a, c), 0);
        assert!(!g.is_neighbor(c, a));
        assert_eq!(g.edge_count(), 1);
        assert!(g.neighbors(c).is_empty());
        g.remove_file(3);
        assert_eq!(g.concept_count(), 2);
        assert_eq!(g.id("c"), None, "a concept nobody links is gone");
        assert_eq!(g.id("a"), Some(a));
        g.remove_file(3); // twice, and an id never used: no-ops
        g.remove_file(99);
        assert_eq!(g.edge_count(), 1);
    }

    /// The graph against a model that stores every pair's weight, under random adds and
    /// removes of files (ids reused): neighbors, weights, shared files and the edge count.
    #[test]
    fn matches_a_pair_map_model_under_random_changes() {
        let mut g = Graph::default();
        let ids: Vec<ConceptId> = (0..40).map(|i| g.intern(&format!("c{i}"))).collect();
        let mut files: BTreeMap<FileId, Vec<ConceptId>> = BTreeMap::new();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for step in 0..3000 {
            let f = next(60) as FileId;
            if files.remove(&f).is_some() {
                g.remove_file(f);
            } else {
                // skewed: low ids much more common
                let k = next(9) as usize;
                let set: BTreeSet<ConceptId> = (0..k)
                    .map(|_| ids[(next(40) * next(40) / 40) as usize])
                    .collect();
                let list: Vec<ConceptId> = set.into_iter().collect();
                g.add_file(f, &list);
                files.insert(f, list);
            }
            if step % 50 != 0 {
                continue;
            }
            let mut pairs: BTreeMap<(ConceptId, ConceptId), Vec<FileId>> = BTreeMap::new();
            for (&f, cs) in &files {
                for &a in cs {
                    for &b in cs {
                        if a != b {
                            pairs.entry((a, b)).or_default().push(f);
                        }
                    }
                }
            }
            assert_eq!(g.edge_count(), pairs.len() / 2, "step {step}");
            for &a in &ids {
                let mut got = g.neighbors(a).to_vec();
                got.sort();
                let want: Vec<(ConceptId, u32)> = pairs
                    .iter()
                    .filter(|((x, _), _)| *x == a)
                    .map(|((_, y), fs)| (*y, fs.len() as u32))
                    .collect();
                assert_eq!(got, want, "step {step}, concept {a}");
                let linked = files.values().any(|cs| cs.contains(&a));
                assert_eq!(g.id(&format!("c{a}")).is_some(), linked);
            }
            for ((a, b), fs) in pairs.iter().take(30) {
                let mut s = g.shared_files(*a, *b);
                s.sort();
                assert_eq!(&s, fs);
            }
        }
    }
}

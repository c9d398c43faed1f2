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

use serde::{Deserialize, Serialize};

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
    edges: Cell<Option<EdgeCensus>>,
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

    /// Pairs of concepts sharing at least one file. Counted on first use after a change, in
    /// work linear in the links (see [`Graph::count_edges`]); a vault too entangled to count
    /// within that bound gets an upper bound instead.
    pub fn edge_count(&self) -> Edges {
        if let Some(n) = self.edges.get() {
            return n.edges;
        }
        let links: u64 = self.files.iter().map(|f| f.len() as u64).sum();
        let n = self.count_edges(EDGE_WORK_PER_LINK * links + EDGE_WORK_BASE);
        self.edges.set(Some(n));
        n.edges
    }

    /// The latest edge count with the work it took (tests bound the work, not the time).
    #[cfg(test)]
    pub fn edge_census(&self) -> EdgeCensus {
        self.edge_count();
        self.edges.get().expect("counted")
    }

    /// Count the pairs of concepts that share a file, spending at most `budget` steps on the
    /// large files' unions.
    ///
    /// The number of pairs is half the sum of the concepts' degrees, and a concept's degree
    /// is the size of the union of its files' concept lists, less itself. Walking every file
    /// once per concept it links is Σ|file|² steps — 10^10 for one note with 100,000 links —
    /// so the walk is shared:
    /// - concepts linked by exactly the same files have the same union: one walk per such
    ///   class (every concept of a note that nothing else links is one class);
    /// - a file with more than [`SMALL_FILE`] links is *large*; classes are grouped by their
    ///   large files, whose union is marked once per group, and each class then walks only
    ///   its small files (at most [`SMALL_FILE`] steps per file).
    ///
    /// Besides a sort of the concepts' file lists, the small walks total at most `SMALL_FILE`
    /// × the links. The large unions total the
    /// sizes of the large files per distinct group — linear for any vault of ordinary notes
    /// and hubs (index notes, maps of content), but not in general: counting the distinct
    /// pairs of a union of cliques exactly is as hard as orthogonal vectors. Past `budget`
    /// the count stops and reports an upper bound (the pairs within each file, summed).
    fn count_edges(&self, budget: u64) -> EdgeCensus {
        let size = |f: FileId| self.concepts_of[f as usize].len();
        let mut steps = 0u64;
        // Each live concept's files, sorted, large ones first, in one buffer. (Sorted and
        // compared rather than hashed: the vault's fast hash spreads such lists badly.)
        let mut flat: Vec<FileId> = Vec::new();
        let mut spans: Vec<(usize, usize, usize)> = Vec::new(); // (start, large, all)
        for files in &self.files {
            if files.is_empty() {
                continue;
            }
            let start = flat.len();
            flat.extend(files.iter().copied().filter(|&f| size(f) > SMALL_FILE));
            let large = flat.len() - start;
            flat.extend(files.iter().copied().filter(|&f| size(f) <= SMALL_FILE));
            crate::sort::sort(&mut flat[start..start + large]);
            crate::sort::sort(&mut flat[start + large..]);
            steps += files.len() as u64;
            spans.push((start, large, files.len()));
        }
        let all = |k: usize| &flat[spans[k].0..spans[k].0 + spans[k].2];
        let large = |k: usize| &flat[spans[k].0..spans[k].0 + spans[k].1];
        let small = |k: usize| &flat[spans[k].0 + spans[k].1..spans[k].0 + spans[k].2];
        // by large files, then by all: groups are runs, classes runs within them
        let mut order: Vec<usize> = (0..spans.len()).collect();
        crate::sort::sort_by(&mut order, |&a, &b| {
            large(a).cmp(large(b)).then_with(|| all(a).cmp(all(b)))
        });
        let n = self.names.len();
        let (mut in_large, mut in_class) = (vec![0u32; n], vec![0u32; n]);
        let (mut group_mark, mut class_mark) = (0u32, 0u32);
        let mut degrees = 0u64; // twice the pairs
        let mut large_steps = 0u64; // the part that is not linear in general
        let mut union = 0u64;
        let mut i = 0;
        while i < order.len() {
            let k = order[i];
            let members = order[i..].iter().take_while(|&&m| all(m) == all(k)).count();
            if i == 0 || large(order[i - 1]) != large(k) {
                // a new group: mark the union of its large files
                group_mark += 1;
                union = 0;
                for &f in large(k) {
                    steps += size(f) as u64;
                    large_steps += size(f) as u64;
                    if large_steps > budget {
                        return EdgeCensus {
                            edges: Edges::AtMost {
                                at_most: self.pairs_within_files(),
                            },
                            steps,
                        };
                    }
                    for &c in self.concepts_of[f as usize].iter() {
                        if in_large[c as usize] != group_mark {
                            in_large[c as usize] = group_mark;
                            union += 1;
                        }
                    }
                }
            }
            class_mark += 1;
            let mut u = union;
            for &f in small(k) {
                steps += size(f) as u64;
                for &c in self.concepts_of[f as usize].iter() {
                    let c = c as usize;
                    if in_large[c] != group_mark && in_class[c] != class_mark {
                        in_class[c] = class_mark;
                        u += 1;
                    }
                }
            }
            // `u` counts the concept itself (it is in each of its files)
            degrees += members as u64 * u.saturating_sub(1);
            i += members;
        }
        EdgeCensus {
            edges: Edges::Exact(degrees / 2),
            steps,
        }
    }

    /// Σ over files of n(n−1)/2, at most every pair of live concepts: an upper bound on the
    /// pairs sharing a file.
    fn pairs_within_files(&self) -> u64 {
        let per_file: u64 = self
            .concepts_of
            .iter()
            .map(|cs| {
                let n = cs.len() as u64;
                n * n.saturating_sub(1) / 2
            })
            .fold(0u64, u64::saturating_add);
        let c = self.live_concepts as u64;
        per_file.min(c * c.saturating_sub(1) / 2)
    }
}

/// Files with more links than this are walked once per group of concepts they share, not
/// once per class (see [`Graph::count_edges`]).
pub const SMALL_FILE: usize = 64;
/// The edge count's work bound on the large files' unions: this many steps per link, plus
/// [`EDGE_WORK_BASE`] (some twenty times what the old per-concept walk spent on a vault of
/// 10,000 notes; a fraction of a second).
pub const EDGE_WORK_PER_LINK: u64 = 64;
pub const EDGE_WORK_BASE: u64 = 1 << 26;

/// The number of pairs of concepts sharing a file. Serialized as a number when exact, else
/// as `{"atMost": n}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Edges {
    Exact(u64),
    /// Not counted: the vault's links are too entangled to count within the work bound.
    AtMost {
        #[serde(rename = "atMost")]
        at_most: u64,
    },
}

impl Edges {
    /// The count, or its upper bound.
    pub fn value(self) -> u64 {
        match self {
            Edges::Exact(n) | Edges::AtMost { at_most: n } => n,
        }
    }
}

impl std::fmt::Display for Edges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Edges::Exact(n) => write!(f, "{n}"),
            Edges::AtMost { at_most } => write!(f, "at most {at_most} (too entangled to count)"),
        }
    }
}

/// An edge count and the steps it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeCensus {
    pub edges: Edges,
    pub steps: u64,
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
        assert_eq!(g.edge_count(), Edges::Exact(3));
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
        assert_eq!(g.edge_count(), Edges::Exact(1));
        assert!(g.neighbors(c).is_empty());
        g.remove_file(3);
        assert_eq!(g.concept_count(), 2);
        assert_eq!(g.id("c"), None, "a concept nobody links is gone");
        assert_eq!(g.id("a"), Some(a));
        g.remove_file(3); // twice, and an id never used: no-ops
        g.remove_file(99);
        assert_eq!(g.edge_count(), Edges::Exact(1));
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
            assert_eq!(
                g.edge_count(),
                Edges::Exact(pairs.len() as u64 / 2),
                "step {step}"
            );
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

    /// Distinct pairs of concepts sharing a file, the slow obvious way (a bit per pair).
    fn pairs_model(files: &BTreeMap<FileId, Vec<ConceptId>>, n: usize) -> u64 {
        let mut pair = vec![false; n * n];
        let mut count = 0;
        for cs in files.values() {
            for (i, &a) in cs.iter().enumerate() {
                for &b in &cs[i + 1..] {
                    let k = a.min(b) as usize * n + a.max(b) as usize;
                    if !pair[k] {
                        pair[k] = true;
                        count += 1;
                    }
                }
            }
        }
        count
    }

    /// Large files (hubs) overlapping at random with each other and with small notes, under
    /// adds and removes: the grouped count agrees with the pair set, and within the bound.
    #[test]
    fn edge_count_with_large_files_matches_the_pair_set() {
        let mut g = Graph::default();
        let ids: Vec<ConceptId> = (0..400).map(|i| g.intern(&format!("c{i}"))).collect();
        let mut files: BTreeMap<FileId, Vec<ConceptId>> = BTreeMap::new();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for step in 0..400 {
            let f = next(40) as FileId;
            if files.remove(&f).is_some() {
                g.remove_file(f);
            } else {
                // a third are hubs of 65..300 links, the rest notes of up to 10
                let k = if next(3) == 0 {
                    65 + next(236) as usize
                } else {
                    next(11) as usize
                };
                let lo = next(200) as usize; // hubs overlap in windows of the id space
                let set: BTreeSet<ConceptId> =
                    (0..k).map(|_| ids[lo + next(200) as usize]).collect();
                let list: Vec<ConceptId> = set.into_iter().collect();
                g.add_file(f, &list);
                files.insert(f, list);
            }
            if step % 10 == 0 {
                let census = g.edge_census();
                assert_eq!(
                    census.edges,
                    Edges::Exact(pairs_model(&files, 400)),
                    "step {step}"
                );
                let links: u64 = files.values().map(|v| v.len() as u64).sum();
                assert!(
                    census.steps <= EDGE_WORK_PER_LINK * links + EDGE_WORK_BASE + 2 * links,
                    "step {step}: {census:?}"
                );
            }
        }
    }

    /// Past the work bound the count stops and says so, with an upper bound.
    #[test]
    fn an_entangled_vault_gets_an_upper_bound_within_the_budget() {
        // Every concept in its own pattern of hubs: one group per concept, each marking
        // the union of its hubs (the orthogonal-vectors shape).
        let mut g = Graph::default();
        let n = 2000u32;
        let ids: Vec<ConceptId> = (0..n).map(|i| g.intern(&format!("c{i}"))).collect();
        let mut files: BTreeMap<FileId, Vec<ConceptId>> = BTreeMap::new();
        for hub in 0..11u32 {
            let list: Vec<ConceptId> = ids
                .iter()
                .copied()
                .filter(|c| (c >> hub) & 1 == 1 || c % 11 == hub)
                .collect();
            g.add_file(hub, &list);
            files.insert(hub, list);
        }
        let exact = pairs_model(&files, n as usize);
        assert_eq!(
            g.edge_count(),
            Edges::Exact(exact),
            "the real bound suffices here"
        );
        let links: u64 = files.values().map(|v| v.len() as u64).sum();
        let budget = links; // a tight bound: the groups need far more
        let c = g.count_edges(budget);
        match c.edges {
            Edges::AtMost { at_most } => {
                assert!(at_most >= exact, "{at_most} < {exact}");
                assert!(at_most <= u64::from(n) * u64::from(n - 1) / 2);
            }
            e => panic!("expected an upper bound, got {e:?}"),
        }
        // the sort of the classes (one step per link) plus at most one file past the budget
        assert!(c.steps <= links + budget + 2000, "{c:?}");
        assert_eq!(
            serde_json::to_string(&c.edges).unwrap(),
            format!("{{\"atMost\":{}}}", g.pairs_within_files())
        );
        assert_eq!(serde_json::to_string(&Edges::Exact(7)).unwrap(), "7");
    }

    /// A distinct short name per number, its fastest-changing character first: the vault's
    /// hash takes its table slot from a name's first bytes (`c0`…`c99999` would crowd a few
    /// slots, which a debug build feels).
    fn name(i: u32, tag: &str) -> String {
        const A: &[u8; 64] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";
        let mut s: String = (0..3)
            .map(|k| A[(i >> (6 * k)) as usize % 64] as char)
            .collect();
        s.push_str(tag);
        s
    }

    /// `hookwise doctor` on a note with 100,000 distinct links took 39 s and said
    /// `edges=704982704` (4,999,950,000 wrapped at 2^32): the count is 64-bit and its work
    /// linear in the links, also when a second note holds the same links and when every
    /// hundredth concept has a note of its own with it (the classes differ, the hubs' union
    /// is marked once).
    #[test]
    fn a_note_with_100000_links_counts_in_64_bits_and_linear_work() {
        let n = 100_000u32;
        let mut g = Graph::default();
        let ids: Vec<ConceptId> = (0..n).map(|i| g.intern(&name(i, "c"))).collect();
        g.add_file(0, &ids);
        let c = g.edge_census();
        let hub = u64::from(n) * u64::from(n - 1) / 2;
        assert_eq!(c.edges, Edges::Exact(hub));
        assert_eq!(hub, 4_999_950_000);
        assert!(c.steps <= 2 * u64::from(n), "{c:?}");

        g.add_file(1, &ids);
        let mut links = 2 * u64::from(n);
        for (file, i) in (2..).zip((0..n).step_by(100)) {
            let own = g.intern(&name(i, "own"));
            g.add_file(file, &[ids[i as usize], own]);
            links += 2;
        }
        let c = g.edge_census();
        assert_eq!(c.edges, Edges::Exact(hub + u64::from(n / 100)));
        assert!(c.steps <= 4 * links, "{c:?} for {links} links");

        // two hubs overlapping by half, every concept also in a small note of its own: three
        // groups (first hub, second hub, both), whatever the number of classes
        let mut g = Graph::default();
        let half = 10_000u32;
        let ids: Vec<ConceptId> = (0..3 * half).map(|i| g.intern(&name(i, "c"))).collect();
        g.add_file(0, &ids[..2 * half as usize]);
        g.add_file(1, &ids[half as usize..]);
        for (i, &c) in ids.iter().enumerate() {
            let own = g.intern(&name(i as u32, "own"));
            g.add_file(2 + i as FileId, &[c, own]);
        }
        let links = 4 * u64::from(half) + 2 * 3 * u64::from(half);
        let c = g.edge_census();
        let m = u64::from(2 * half);
        let both = u64::from(half);
        // each hub's pairs, less the pairs of their common half counted twice, plus own pairs
        let want = 2 * (m * (m - 1) / 2) - both * (both - 1) / 2 + 3 * u64::from(half);
        assert_eq!(c.edges, Edges::Exact(want));
        assert!(c.steps <= 4 * links, "{c:?} for {links} links");
    }
}

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
    adj: Vec<FxHashMap<ConceptId, u32>>,
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
        self.adj.push(FxHashMap::default());
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
                let w = self.adj[a as usize].entry(b).or_insert(0);
                if *w == 0 {
                    self.edges += 1;
                }
                *w += 1;
                *self.adj[b as usize].entry(a).or_insert(0) += 1;
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
                if dec(&mut self.adj[a as usize], b) {
                    self.edges -= 1;
                }
                dec(&mut self.adj[b as usize], a);
            }
        }
    }

    /// Neighbors of a concept with edge weights (unordered).
    pub fn neighbors(&self, c: ConceptId) -> impl Iterator<Item = (ConceptId, u32)> + '_ {
        self.adj[c as usize].iter().map(|(&n, &w)| (n, w))
    }

    pub fn is_neighbor(&self, a: ConceptId, b: ConceptId) -> bool {
        self.adj[a as usize].contains_key(&b)
    }

    pub fn weight(&self, a: ConceptId, b: ConceptId) -> u32 {
        self.adj[a as usize].get(&b).copied().unwrap_or(0)
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

/// Decrement a weight, dropping the entry at zero. True when the entry was dropped.
fn dec(map: &mut FxHashMap<ConceptId, u32>, k: ConceptId) -> bool {
    match map.get_mut(&k) {
        Some(w) if *w > 1 => {
            *w -= 1;
            false
        }
        Some(_) => {
            map.remove(&k);
            true
        }
        None => false,
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

//! The vault's answers: BuildContext, search (for the model and for enforcement), recent
//! activity and the top concepts.

use super::*;
use crate::maenifold::NoteRef;
use crate::wikilink::split_section;

/// An Obsidian block id: `^` and letters, digits or `-`.
fn is_block_id(w: &str) -> bool {
    w.len() > 1
        && w.starts_with('^')
        && w[1..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

impl Vault {
    /// BuildContext-equivalent. `concept` is normalized first; an unknown concept gives the
    /// empty answer (no knowledge, not an error). `depth` ≥ 2 adds the 2-hop ring.
    pub fn build_context(
        &self,
        concept: &str,
        depth: u32,
        max_entities: usize,
        include_content: bool,
    ) -> BuildContext {
        let (target, section) = split_section(concept);
        let name = normalize(target);
        let mut out = BuildContext {
            concept: name.clone(),
            ..Default::default()
        };
        let note = self.note_named(&name);
        if let Some(f) = note {
            out.note = Some(self.note_ref(f, section));
        }
        out.linked_from = self.linked_from(note, &name);
        // The graph's concept: the link's own, else (a note reached by another of its names
        // that nobody links as such) the note's most linked name.
        let concept_id = self.graph.id(&name).or_else(|| {
            let f = self.file(note?);
            note_names(&f.path, &f.title, &f.aliases)
                .iter()
                .filter_map(|(n, _)| self.graph.id(n))
                .max_by_key(|&c| self.graph.files_of(c).len())
        });
        let Some(c) = concept_id else {
            return out;
        };
        let g = &self.graph;
        let by_weight = |a: &(ConceptId, u32), b: &(ConceptId, u32)| {
            b.1.cmp(&a.1).then_with(|| g.name(a.0).cmp(g.name(b.0)))
        };
        let all_direct = g.neighbors(c);
        let mut direct = all_direct.to_vec();
        top_k(&mut direct, max_entities, by_weight);

        for &(r, w) in &direct {
            let mut shared = g.shared_files(c, r);
            top_k(&mut shared, FILES_PER_RELATION, |a, b| {
                self.by_recency(*a, *b)
            });
            let files: Vec<String> = shared.iter().map(|&f| self.file(f).uri.clone()).collect();
            let previews = if include_content {
                shared
                    .iter()
                    .map(|&f| {
                        let rec = self.file(f);
                        let at = rec
                            .concepts
                            .binary_search_by_key(&r, |x| x.0)
                            .map_or(rec.body_start, |i| rec.concepts[i].1 as usize);
                        (
                            rec.uri.clone(),
                            excerpt::preview(&rec.text, at, PREVIEW_CHARS),
                        )
                    })
                    .collect()
            } else {
                Vec::new()
            };
            out.direct.push(Relation {
                name: g.name(r).to_string(),
                co_occurrence: w,
                community: None,
                files,
                previews,
            });
        }

        if depth >= 2 {
            // Dense per-concept scratch (ids are small integers): u32::MAX marks `c` and its
            // neighbors, other values sum the weights towards the ring.
            let mut score: Vec<u32> = vec![0; g.id_bound()];
            score[c as usize] = u32::MAX;
            for &(n, _) in all_direct.iter() {
                score[n as usize] = u32::MAX;
            }
            let mut touched: Vec<ConceptId> = Vec::new();
            for &(r, _) in direct.iter().take(EXPAND_FROM) {
                for &(n, w) in g.neighbors(r).iter() {
                    let s = &mut score[n as usize];
                    if *s == u32::MAX {
                        continue;
                    }
                    if *s == 0 {
                        touched.push(n);
                    }
                    *s += w;
                }
            }
            let mut ring: Vec<(ConceptId, u32)> = touched
                .into_iter()
                .map(|n| (n, score[n as usize]))
                .collect();
            top_k(&mut ring, max_entities, by_weight);
            out.expanded = ring.iter().map(|&(n, _)| g.name(n).to_string()).collect();
        }
        out
    }

    /// Note `f` as a concept's context shows it: its opening, or the section (`## Heading`,
    /// any level) or block (`^id`) the link names when the note has it, and the concepts it
    /// links.
    fn note_ref(&self, f: FileId, section: Option<&str>) -> NoteRef {
        let rec = self.file(f);
        let found = section.and_then(|s| excerpt::section_start(&rec.text, rec.body_start, s));
        let from = found.unwrap_or_else(|| excerpt::opening_start(&rec.text, rec.body_start));
        // Block ids (` ^id` ending a block) are markup, not text.
        let mut text: String = excerpt::preview(&rec.text, from, NOTE_CHARS)
            .split(' ')
            .filter(|w| !is_block_id(w))
            .collect::<Vec<_>>()
            .join(" ");
        // Dendron's template for the front matter's description.
        if rec.described {
            text = text.replace("{{fm.desc}}", &rec.summary);
        }
        let own = [normalize(&rec.title), normalize(stem_of(&rec.path))];
        NoteRef {
            uri: rec.uri.clone(),
            title: rec.title.clone(),
            section: section.filter(|_| found.is_some()).map(str::to_string),
            text,
            links: {
                // in the order the note links them (concept ids follow the order notes were
                // read, which the host's listing decides)
                let mut l: Vec<(u32, &str)> = rec
                    .concepts
                    .iter()
                    .map(|&(c, at)| (at, self.graph.name(c)))
                    .filter(|(_, n)| !own.iter().any(|o| o == n))
                    .collect();
                crate::sort::sort(&mut l);
                l.into_iter()
                    .take(NOTE_LINKS)
                    .map(|(_, n)| n.to_string())
                    .collect()
            },
        }
    }

    /// The notes linking the concept `name` or note `f` under any of its names, newest
    /// first, at most [`LINKED_FROM`], `f` left out.
    fn linked_from(&self, f: Option<FileId>, name: &str) -> Vec<String> {
        let mut names = match f {
            Some(f) => {
                let rec = self.file(f);
                note_names(&rec.path, &rec.title, &rec.aliases)
            }
            None => Vec::new(),
        };
        names.push((name.to_string(), NameKind::Alias));
        let mut files: Vec<FileId> = Vec::new();
        let mut ids = 0;
        for (n, _) in &names {
            if let Some(c) = self.graph.id(n) {
                files.extend(self.graph.files_of(c).iter().filter(|&&x| Some(x) != f));
                ids += 1;
            }
        }
        if ids > 1 {
            // A note linked under two names: once each (sorted, then adjacent duplicates).
            crate::sort::sort(&mut files);
            files.dedup();
        }
        top_k(&mut files, LINKED_FROM, |a, b| self.by_recency(*a, *b));
        files.iter().map(|&x| self.file(x).uri.clone()).collect()
    }

    /// SearchMemories-equivalent: BM25 over titles and bodies, best first.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        self.search_with(query, limit, true)
    }

    /// [`Vault::search`], with the link graph's signal or on words alone (enforcement
    /// compares hits' scores with the query's reference score, which knows no graph).
    fn search_with(&self, query: &str, limit: usize, graph: bool) -> Vec<Hit> {
        let terms = search::query_terms(query);
        if terms.is_empty() {
            return Vec::new();
        }
        let mut ranked = self.index.scores(&terms);
        // The link graph as a signal: of the best matches by words, a note that more notes
        // link (under any of its names) ranks a little higher — what the vault's authors
        // point to is what they meant to be found.
        let by_score = |a: &(FileId, f32), b: &(FileId, f32)| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.file(a.0).uri.cmp(&self.file(b.0).uri))
        };
        top_k(&mut ranked, limit.saturating_mul(4).max(20), by_score);
        for (f, score) in ranked.iter_mut().filter(|_| graph) {
            let rec = self.file(*f);
            let inlinks: usize = note_names(&rec.path, &rec.title, &rec.aliases)
                .iter()
                .filter_map(|(n, _)| self.graph.id(n))
                .map(|c| self.graph.files_of(c).iter().filter(|&&x| x != *f).count())
                .sum();
            *score *= 1.0 + GRAPH_WEIGHT * (1.0 + inlinks as f32).ln();
        }
        top_k(&mut ranked, limit, |a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.file(a.0).uri.cmp(&self.file(b.0).uri))
        });
        // Snippets look for the query's words as typed, then for their folded forms.
        let mut needles: Vec<String> = query
            .split(|ch: char| !ch.is_alphanumeric())
            .filter(|w| w.len() > 1)
            .map(str::to_ascii_lowercase)
            .collect();
        needles.extend(terms);
        ranked
            .into_iter()
            .map(|(f, score)| {
                let rec = self.file(f);
                Hit {
                    title: rec.title.clone(),
                    uri: rec.uri.clone(),
                    score: (score as f64 * 1000.0).round() / 1000.0,
                    snippet: excerpt::snippet(&rec.text[rec.body_start..], &needles, SNIPPET_CHARS),
                }
            })
            .collect()
    }

    /// [`Vault::search`] for pre-action enforcement: each hit with its note's tags, and the
    /// query's reference score ([`search::SearchIndex::reference_score`]). Policy build only:
    /// in the lean one even an unused second caller of `search` changes inlining (+600 bytes).
    #[cfg(feature = "policy")]
    pub fn search_for_enforcement(
        &self,
        query: &str,
        limit: usize,
    ) -> (Vec<(Hit, Vec<String>)>, f64) {
        let terms = search::query_terms(query);
        let reference = self.index.reference_score(&terms);
        let hits = self
            .search_with(query, limit, false)
            .into_iter()
            .map(|h| {
                let tags = self
                    .by_uri
                    .get(&h.uri)
                    .map(|&id| self.file(id).tags.clone())
                    .unwrap_or_default();
                (h, tags)
            })
            .collect();
        (hits, reference)
    }

    /// RecentActivity-equivalent: the most recently modified notes (front matter `modified`,
    /// else the host's mtime), newest first; only those modified at or after `since_ms`.
    pub fn recent(&self, limit: usize, since_ms: Option<f64>) -> Vec<Activity> {
        let mut ids: Vec<FileId> = self
            .by_path
            .values()
            .copied()
            .filter(|&id| since_ms.is_none_or(|s| self.file(id).modified_ms >= s))
            .collect();
        top_k(&mut ids, limit, |a, b| self.by_recency(*a, *b));
        ids.into_iter()
            .map(|id| {
                let f = self.file(id);
                Activity {
                    name: stem_of(&f.path).to_string(),
                    title: f.title.clone(),
                    uri: f.uri.clone(),
                    modified_ms: f.modified_ms,
                    summary: f.summary.clone(),
                    sections: f.sections,
                    tags: f.tags.clone(),
                }
            })
            .collect()
    }

    /// Concepts by the number of files linking them (most first), at most `limit`.
    pub fn top_concepts(&self, limit: usize) -> Vec<(String, u32)> {
        let mut seen: FxHashSet<ConceptId> = FxHashSet::default();
        let mut all: Vec<(ConceptId, u32)> = Vec::new();
        for rec in self.files.iter().flatten() {
            for &(c, _) in &rec.concepts {
                if seen.insert(c) {
                    all.push((c, self.graph.files_of(c).len() as u32));
                }
            }
        }
        let g = &self.graph;
        top_k(&mut all, limit, |a, b| {
            b.1.cmp(&a.1).then_with(|| g.name(a.0).cmp(g.name(b.0)))
        });
        all.into_iter()
            .map(|(c, n)| (g.name(c).to_string(), n))
            .collect()
    }
}

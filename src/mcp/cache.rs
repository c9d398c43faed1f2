//! Context cache: BuildContext answers per (source, concept, depth, maxEntities,
//! includeContent), with a TTL (time from the host: `now_ms`) and an LRU bound on the number
//! of entries. Only answers are cached: a failed lookup is never stored, so it can never come
//! back as "no knowledge". An empty answer (maenifold knows nothing of the concept) is an
//! answer and is cached like any other.
//!
//! Invalidation: [`ContextCache::invalidate`] drops every entry a change touches — the
//! changed concepts' own entries, entries that list them as relations, and entries that cite
//! the changed memory files — and [`ContextCache::clear`] drops everything.
//!
//! Entries live in one `Vec` scanned linearly: with the default bound (512) a lookup is a few
//! microseconds, and it keeps the wasm smaller than a map per key type would.

use crate::maenifold::BuildContext;

pub const DEFAULT_TTL_MS: u64 = 5 * 60 * 1000;
pub const DEFAULT_MAX_ENTRIES: usize = 512;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheKey {
    /// Which knowledge (e.g. `maenifold:<cli path>`), not which transport: the CLI and MCP
    /// answers are the same value.
    pub source: String,
    /// The normalized concept.
    pub concept: String,
    pub depth: u32,
    pub max_entities: u32,
    /// Part of the key too: previews change the answer.
    pub include_content: bool,
}

/// What a vault change touched. Concepts are normalized names; uris are `memory://` URIs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Touch {
    /// Only entries of this source (`None`: all sources).
    pub source: Option<String>,
    pub concepts: Vec<String>,
    pub uris: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub expired: u64,
    pub evicted: u64,
    pub invalidated: u64,
}

#[derive(Debug)]
struct Entry {
    key: CacheKey,
    value: BuildContext,
    stored_ms: u64,
    /// Last use (a counter): the smallest goes first.
    tick: u64,
}

#[derive(Debug)]
pub struct ContextCache {
    ttl_ms: u64,
    max_entries: usize,
    entries: Vec<Entry>,
    tick: u64,
    pub stats: CacheStats,
}

impl Default for ContextCache {
    fn default() -> Self {
        ContextCache::new(DEFAULT_TTL_MS, DEFAULT_MAX_ENTRIES)
    }
}

impl ContextCache {
    /// `ttl_ms` 0 or `max_entries` 0 turns caching off.
    pub fn new(ttl_ms: u64, max_entries: usize) -> ContextCache {
        ContextCache {
            ttl_ms,
            max_entries,
            entries: Vec::new(),
            tick: 0,
            stats: CacheStats::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn find(&self, key: &CacheKey) -> Option<usize> {
        self.entries.iter().position(|e| e.key == *key)
    }

    fn enabled(&self) -> bool {
        self.ttl_ms > 0 && self.max_entries > 0
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// The cached answer, if fresh. A hit counts as a use (LRU).
    pub fn get(&mut self, key: &CacheKey, now_ms: u64) -> Option<BuildContext> {
        let Some(i) = self.find(key) else {
            self.stats.misses += 1;
            return None;
        };
        if now_ms.saturating_sub(self.entries[i].stored_ms) >= self.ttl_ms {
            self.entries.swap_remove(i);
            self.stats.expired += 1;
            self.stats.misses += 1;
            return None;
        }
        let tick = self.next_tick();
        let e = &mut self.entries[i];
        e.tick = tick;
        self.stats.hits += 1;
        Some(e.value.clone())
    }

    /// Store an answer (only answers: callers never store failures).
    pub fn put(&mut self, key: CacheKey, value: BuildContext, now_ms: u64) {
        if !self.enabled() {
            return;
        }
        if let Some(i) = self.find(&key) {
            self.entries.swap_remove(i);
        }
        while self.entries.len() >= self.max_entries {
            let oldest = (0..self.entries.len())
                .min_by_key(|i| self.entries[*i].tick)
                .expect("not empty");
            self.entries.swap_remove(oldest);
            self.stats.evicted += 1;
        }
        let tick = self.next_tick();
        self.entries.push(Entry {
            key,
            value,
            stored_ms: now_ms,
            tick,
        });
    }

    /// Drop everything. Returns how many entries went.
    pub fn clear(&mut self) -> usize {
        let n = self.entries.len();
        self.entries.clear();
        self.stats.invalidated += n as u64;
        n
    }

    /// Drop the entries a change touches. Returns how many went.
    pub fn invalidate(&mut self, t: &Touch) -> usize {
        let hit = |k: &CacheKey, b: &BuildContext| {
            if t.source.as_ref().is_some_and(|s| *s != k.source) {
                return false;
            }
            let c = |n: &str| t.concepts.iter().any(|x| x == n);
            let u = |n: &str| t.uris.iter().any(|x| x == n);
            c(&k.concept)
                || b.direct.iter().any(|r| {
                    c(&r.name)
                        || r.files.iter().any(|f| u(f))
                        || r.previews.iter().any(|(f, _)| u(f))
                })
                || b.expanded.iter().any(|e| c(e))
                || b.siblings.iter().any(|s| c(&s.name))
        };
        let before = self.entries.len();
        self.entries.retain(|e| !hit(&e.key, &e.value));
        let gone = before - self.entries.len();
        self.stats.invalidated += gone as u64;
        gone
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maenifold::Relation;

    fn key(concept: &str) -> CacheKey {
        CacheKey {
            source: "maenifold:/bin/maenifold".into(),
            concept: concept.into(),
            depth: 1,
            max_entities: 5,
            include_content: true,
        }
    }

    fn ctx(concept: &str, rel: &str, file: &str) -> BuildContext {
        BuildContext {
            concept: concept.into(),
            direct: vec![Relation {
                name: rel.into(),
                co_occurrence: 1,
                files: vec![file.into()],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn entries_live_for_the_ttl_of_host_time() {
        let mut c = ContextCache::new(1000, 10);
        c.put(key("a"), ctx("a", "b", "memory://n"), 5000);
        assert_eq!(c.get(&key("a"), 5999).unwrap().concept, "a");
        assert_eq!(c.get(&key("a"), 6000), None, "expired at the TTL");
        assert_eq!(c.len(), 0, "an expired entry is dropped");
        assert_eq!(c.stats.expired, 1);
        c.put(key("a"), ctx("a", "b", "memory://n"), 5000);
        assert!(
            c.get(&key("a"), 4000).is_some(),
            "a clock going back does not expire"
        );
    }

    #[test]
    fn the_least_recently_used_entry_goes_first() {
        let mut c = ContextCache::new(60_000, 3);
        for k in ["a", "b", "c"] {
            c.put(key(k), ctx(k, "x", "memory://x"), 0);
        }
        assert!(c.get(&key("a"), 1).is_some()); // a is now the most recent
        c.put(key("d"), ctx("d", "x", "memory://x"), 2);
        assert_eq!(c.len(), 3);
        assert!(
            c.get(&key("b"), 3).is_none(),
            "b was the least recently used"
        );
        assert!(c.get(&key("a"), 3).is_some());
        assert!(c.get(&key("c"), 3).is_some());
        assert!(c.get(&key("d"), 3).is_some());
        assert_eq!(c.stats.evicted, 1);
        // replacing a key does not evict another
        c.put(key("d"), ctx("d", "y", "memory://y"), 4);
        assert_eq!(c.len(), 3);
        assert_eq!(c.get(&key("d"), 5).unwrap().direct[0].name, "y");
    }

    #[test]
    fn the_key_separates_sources_and_query_parameters() {
        let mut c = ContextCache::default();
        c.put(key("a"), ctx("a", "b", "memory://n"), 0);
        let mut k = key("a");
        k.depth = 2;
        assert!(c.get(&k, 1).is_none());
        let mut k = key("a");
        k.max_entities = 20;
        assert!(c.get(&k, 1).is_none());
        let mut k = key("a");
        k.source = "vault:/other".into();
        assert!(c.get(&k, 1).is_none());
        let mut k = key("a");
        k.include_content = false;
        assert!(c.get(&k, 1).is_none());
        assert!(c.get(&key("a"), 1).is_some());
    }

    #[test]
    fn a_change_drops_what_it_touches_and_nothing_else() {
        let mut c = ContextCache::default();
        c.put(key("auth"), ctx("auth", "jwt", "memory://notes/auth"), 0);
        c.put(key("api"), ctx("api", "json", "memory://notes/api"), 0);
        c.put(key("db"), ctx("db", "sql", "memory://notes/db"), 0);
        c.put(key("ui"), ctx("ui", "css", "memory://notes/ui"), 0);
        // a note mentioning [[jwt]] changed: auth lists jwt; a note file api cites changed
        let n = c.invalidate(&Touch {
            source: None,
            concepts: vec!["jwt".into(), "db".into()],
            uris: vec!["memory://notes/api".into()],
        });
        assert_eq!(n, 3);
        assert!(c.get(&key("auth"), 1).is_none());
        assert!(c.get(&key("api"), 1).is_none());
        assert!(c.get(&key("db"), 1).is_none());
        assert!(c.get(&key("ui"), 1).is_some());
        // another source's change leaves these alone
        assert_eq!(
            c.invalidate(&Touch {
                source: Some("vault:/x".into()),
                concepts: vec!["ui".into()],
                uris: vec![]
            }),
            0
        );
        assert_eq!(c.clear(), 1);
        assert!(c.is_empty());
    }

    #[test]
    fn zero_ttl_or_size_turns_the_cache_off() {
        let mut c = ContextCache::new(0, 10);
        c.put(key("a"), ctx("a", "b", "memory://n"), 0);
        assert!(c.get(&key("a"), 0).is_none());
        let mut c = ContextCache::new(1000, 0);
        c.put(key("a"), ctx("a", "b", "memory://n"), 0);
        assert!(c.is_empty());
    }
}

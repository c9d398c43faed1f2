//! The embedded knowledge vault: a folder of markdown notes with `[[WikiLinks]]` (a maenifold
//! memory folder or any Obsidian-style vault), answering maenifold's three questions in
//! process — BuildContext, SearchMemories and RecentActivity.
//!
//! No I/O here. Indexing is a protocol with the host:
//! 1. the host lists the vault ([`DirEntry`]: relative path, size, mtime, realpath) — for the
//!    first index, with nothing to compare, only the entries' types (no stat per entry);
//! 2. [`Vault::plan`] answers which paths it needs read (new or changed), and drops files that
//!    are gone (a rename is a delete plus an add);
//! 3. the host reads them — [`READ_BATCH`] notes to a `ReadFiles` request — and each answer
//!    goes to [`Vault::ingest`], with the size and mtime the host saw when it opened the file.
//!
//! [`refresh`] drives the three steps through the request loop ([`Io`]). Files that are not
//! markdown are ignored; files that are too large, not UTF-8, unreadable, vanish mid-scan or
//! resolve outside the vault are skipped and counted, never a failure.

pub mod changes;
pub mod excerpt;
pub use hookwise_text::fx;
pub mod graph;
pub use hookwise_text::markdown;
pub mod render;
pub use hookwise_text::search;

use std::cell::RefCell;
use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::discovery::inside;
use crate::maenifold::{BuildContext, Relation};
use crate::protocol::{DirEntry, ListDirResult, ReadResult, ReplyError, Request, StatResult};
use crate::runtime::{join_all, Io};
use crate::sort::top_k;
use crate::wikilink::normalize;

use fx::{FxHashMap, FxHashSet};
use graph::{ConceptId, FileId, Graph};
use search::SearchIndex;

/// Files larger than this are skipped.
pub const MAX_FILE_BYTES: u64 = 5 * 1024 * 1024;
/// Files of one relation listed in BuildContext (maenifold lists 3).
pub const FILES_PER_RELATION: usize = 3;
/// Characters of one content preview.
pub const PREVIEW_CHARS: usize = 500;
/// Characters of one search snippet.
pub const SNIPPET_CHARS: usize = 200;
/// Direct relations whose neighbors make the 2-hop ring (maenifold walks the top 5).
const EXPAND_FROM: usize = 5;
/// Notes asked of the host in one `ReadFiles` request (one step). One request per batch, not
/// one per note: the requests' JSON, the replies' decoding and the request loop's bookkeeping
/// per note were ~7 % of a cold index (callgrind 7.42 → 6.89 G instructions).
pub const READ_BATCH: usize = 64;
/// Entries asked of one listing.
pub const MAX_LIST_ENTRIES: u64 = 200_000;
/// Dead search documents tolerated before their postings are purged.
const PURGE_MIN: usize = 256;

/// Why a file was not indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    TooLarge,
    NotUtf8,
    /// The file was listed but is gone when read.
    Vanished,
    Unreadable(String),
    /// A path (symlink) whose real location is outside the vault.
    Outside,
}

impl ReadError {
    /// What the host's read error (see [`ReadResult`]) means for the note.
    pub fn from_host(e: ReplyError, detail: Option<&str>) -> ReadError {
        match e {
            ReplyError::NotUtf8 => ReadError::NotUtf8,
            ReplyError::NotFound => ReadError::Vanished,
            ReplyError::TooLarge => ReadError::TooLarge,
            e => ReadError::Unreadable(e.describe(detail)),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub too_large: u32,
    pub not_utf8: u32,
    pub unreadable: u32,
    pub vanished: u32,
    /// Paths (symlinks) whose real location is outside the vault.
    pub outside: u32,
}

impl Skipped {
    pub fn total(&self) -> u32 {
        self.too_large + self.not_utf8 + self.unreadable + self.vanished + self.outside
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub files: u32,
    pub concepts: u32,
    /// Pairs of concepts sharing a file: counted only when a report asks
    /// ([`Vault::edge_count`]), not by every refresh. A number, or `{"atMost": n}` for a vault
    /// too entangled to count in work linear in its links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edges: Option<graph::Edges>,
    /// Skips seen by the latest scan (and the reads that followed it).
    pub skipped: Skipped,
}

/// What one [`refresh`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshStats {
    #[serde(flatten)]
    pub stats: Stats,
    /// Files read and (re)indexed.
    pub read: u32,
    /// Files dropped (deleted, renamed away, now skipped).
    pub removed: u32,
    /// Files whose mtime and size had not changed.
    pub unchanged: u32,
    /// The host cut the listing short: nothing was dropped for being missing.
    pub truncated: bool,
    /// The host watches the vault folder: refreshes ask it what changed.
    pub watching: bool,
    /// This refresh looked only at the paths the host's watcher reported (no listing).
    pub incremental: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One SearchMemories-equivalent result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    pub title: String,
    pub uri: String,
    pub score: f64,
    pub snippet: String,
}

/// One RecentActivity-equivalent entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Activity {
    /// The file's slug (its name without `.md`), as maenifold names entries.
    pub name: String,
    pub title: String,
    pub uri: String,
    pub modified_ms: f64,
    /// The first paragraph (collapsed, clipped).
    pub summary: String,
    /// Number of `##` sections.
    pub sections: u32,
    pub tags: Vec<String>,
}

#[derive(Debug)]
struct FileRec {
    path: String,
    uri: String,
    title: String,
    tags: Vec<String>,
    mtime_ms: f64,
    size: u64,
    /// Front matter `modified`, else the host's mtime.
    modified_ms: f64,
    text: String,
    body_start: usize,
    summary: String,
    sections: u32,
    /// (concept, byte offset of the block first linking it), sorted by concept id.
    concepts: Vec<(ConceptId, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Meta {
    mtime_ms: f64,
    size: u64,
}

/// The vault index. See the module docs for the indexing protocol.
#[derive(Default, Debug)]
pub struct Vault {
    files: Vec<Option<FileRec>>,
    by_path: FxHashMap<String, FileId>,
    by_uri: FxHashMap<String, FileId>,
    free_ids: Vec<FileId>,
    graph: Graph,
    index: SearchIndex,
    /// Paths asked for by the latest plan, with the listing's metadata.
    pending: FxHashMap<String, Meta>,
    /// Files skipped (by the latest listing, and changed paths since), at this mtime/size,
    /// and why: the counts in [`Stats`]. Those failing for a lasting reason (not UTF-8, too
    /// large) are not asked for again until they change.
    failed: FxHashMap<String, (Meta, ReadError)>,
    /// The vault root's real path, as the latest plan was given it.
    root_real: String,
}

/// What a plan does with one listed entry.
enum Want {
    /// Not indexed, not counted (not markdown, hidden, a folder).
    Ignore,
    /// Skipped: drop it from the index, count it.
    Skip(Meta, ReadError),
    /// Indexed (or failing for a lasting reason) and unchanged.
    Keep,
    /// New or changed: read it.
    Read(Meta),
}

/// `memory://` URI of a vault-relative path, as maenifold forms it: forward slashes, no `.md`.
pub fn memory_uri(rel_path: &str) -> String {
    let p = rel_path.replace('\\', "/");
    let p = p.trim_start_matches("./").trim_start_matches('/');
    let p = p.strip_suffix(".md").unwrap_or(p);
    format!("memory://{p}")
}

/// The vault-relative path a `memory://` URI names (with `.md`).
pub fn uri_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("memory://")?;
    Some(format!("{}.md", rest.trim_start_matches('/')))
}

fn stem_of(path: &str) -> &str {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name)
}

/// Whether a listed relative path is one the vault indexes: markdown, relative, no `..`, no
/// hidden component (`.obsidian/`, `.trash/`, `.git/`). `Err` = it points outside.
fn acceptable(path: &str) -> Result<bool, ()> {
    if !path.ends_with(".md") || path.len() <= 3 {
        return Ok(false);
    }
    if path.starts_with('/') || path.starts_with('\\') || path.contains('\0') {
        return Err(());
    }
    if path.as_bytes().get(1) == Some(&b':') {
        return Err(()); // a drive letter
    }
    for comp in path.split(['/', '\\']) {
        if comp == ".." {
            return Err(());
        }
        if comp.starts_with('.') && comp != "." {
            return Ok(false);
        }
    }
    Ok(true)
}

impl Vault {
    pub fn new() -> Vault {
        Vault::default()
    }

    pub fn stats(&self) -> Stats {
        Stats {
            files: self.by_path.len() as u32,
            concepts: self.graph.concept_count() as u32,
            edges: None,
            skipped: self
                .failed
                .values()
                .fold(Skipped::default(), |mut k, (_, why)| {
                    match why {
                        ReadError::TooLarge => k.too_large += 1,
                        ReadError::NotUtf8 => k.not_utf8 += 1,
                        ReadError::Unreadable(_) => k.unreadable += 1,
                        ReadError::Vanished => k.vanished += 1,
                        ReadError::Outside => k.outside += 1,
                    }
                    k
                }),
        }
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        *self = Vault::default();
    }

    /// Nothing indexed or skipped: a listing's sizes and mtimes would not be compared with
    /// anything, so its entries' types are enough.
    fn is_blank(&self) -> bool {
        self.by_path.is_empty() && self.failed.is_empty()
    }

    /// Step 2 of the protocol: given the host's complete listing (`complete` = not truncated)
    /// and the vault root's real path, drop what is gone and return the relative paths that
    /// need reading. Counts skips of the listing itself (too large, outside the vault, still
    /// failing).
    pub fn plan(&mut self, root_real: &str, entries: &[DirEntry], complete: bool) -> Vec<String> {
        self.pending.clear();
        self.root_real = root_real.replace('\\', "/");
        let mut keep: FxHashSet<&str> = FxHashSet::default();
        let mut to_read = Vec::new();
        for e in entries {
            if keep.contains(e.path.as_str()) {
                continue;
            }
            match self.consider(e) {
                Want::Ignore => continue,
                Want::Skip(meta, why) => {
                    self.remove(&e.path);
                    self.failed.insert(e.path.clone(), (meta, why));
                }
                Want::Keep => {}
                Want::Read(meta) => {
                    self.pending.insert(e.path.clone(), meta);
                    to_read.push(e.path.clone());
                }
            }
            keep.insert(&e.path);
        }
        if complete {
            let gone: Vec<String> = self
                .by_path
                .keys()
                .filter(|p| !keep.contains(p.as_str()))
                .cloned()
                .collect();
            for p in gone {
                self.remove(&p);
            }
        }
        self.failed.retain(|p, _| keep.contains(p.as_str()));
        to_read
    }

    /// The bytes the latest plan will read, as far as its listing told the sizes.
    fn pending_bytes(&self) -> u64 {
        self.pending.values().map(|m| m.size).sum()
    }

    /// Step 2 for a few paths the host reported changed (the rest of the vault is as the
    /// latest [`Vault::plan`] left it): `present` are the changed files that exist (a `Stat`
    /// each, its real path included), `gone` the paths that no longer exist. Drops what is
    /// gone or no longer indexable and returns the paths that need reading, and how many
    /// indexed files were dropped.
    pub fn plan_changed(&mut self, present: &[DirEntry], gone: &[String]) -> (Vec<String>, u32) {
        let mut removed = 0;
        for p in gone {
            self.failed.remove(p);
            self.pending.remove(p);
            removed += u32::from(self.remove(p));
        }
        let mut to_read = Vec::new();
        for e in present {
            match self.consider(e) {
                Want::Keep => {}
                Want::Ignore => {
                    self.failed.remove(&e.path);
                    removed += u32::from(self.remove(&e.path));
                }
                Want::Skip(meta, why) => {
                    removed += u32::from(self.remove(&e.path));
                    self.failed.insert(e.path.clone(), (meta, why));
                }
                Want::Read(meta) => {
                    self.pending.insert(e.path.clone(), meta);
                    to_read.push(e.path.clone());
                }
            }
        }
        (to_read, removed)
    }

    /// Whether the index holds a file below folder `dir` (vault-relative).
    pub fn has_files_under(&self, dir: &str) -> bool {
        let dir = dir.trim_end_matches('/');
        self.by_path
            .keys()
            .any(|p| p.len() > dir.len() && p.starts_with(dir) && p.as_bytes()[dir.len()] == b'/')
    }

    /// What a plan does with one listed entry.
    fn consider(&self, e: &DirEntry) -> Want {
        // `isFile` describes the target: a broken symlink is not a file.
        if e.is_dir || !e.is_file {
            return Want::Ignore;
        }
        let meta = Meta {
            mtime_ms: e.mtime_ms,
            size: e.size,
        };
        match acceptable(&e.path) {
            Ok(true) => {}
            Ok(false) => return Want::Ignore,
            Err(()) => return Want::Skip(meta, ReadError::Outside),
        }
        if let Some(real) = &e.realpath {
            if !self.root_real.is_empty() && !inside(&real.replace('\\', "/"), &self.root_real) {
                return Want::Skip(meta, ReadError::Outside);
            }
        }
        if e.size > MAX_FILE_BYTES {
            return Want::Skip(meta, ReadError::TooLarge);
        }
        if let Some((m, why)) = self.failed.get(&e.path) {
            if *m == meta && matches!(why, ReadError::NotUtf8 | ReadError::TooLarge) {
                return Want::Keep;
            }
        }
        if let Some(&id) = self.by_path.get(&e.path) {
            let f = self.files[id as usize].as_ref().expect("live file");
            if f.mtime_ms == meta.mtime_ms && f.size == meta.size {
                return Want::Keep;
            }
        }
        Want::Read(meta)
    }

    /// Step 3: the host's answer for one path of the plan. A failure drops any older version
    /// of the file and is counted. Returns whether the file is now indexed.
    pub fn ingest(&mut self, path: &str, result: Result<String, ReadError>) -> bool {
        self.ingest_opened(path, result, None)
    }

    /// [`Vault::ingest`] with the file's `(size, mtime_ms)` as the host opened it, which
    /// describe the text read better than the listing's (and are all there is after a
    /// listing of types only).
    pub fn ingest_opened(
        &mut self,
        path: &str,
        result: Result<String, ReadError>,
        opened: Option<(u64, f64)>,
    ) -> bool {
        let listed = self.pending.remove(path);
        let meta = match opened {
            Some((size, mtime_ms)) => Meta { mtime_ms, size },
            None => listed.unwrap_or(Meta {
                mtime_ms: 0.0,
                size: 0,
            }),
        };
        let result = match result {
            Ok(t) if t.len() as u64 > MAX_FILE_BYTES => Err(ReadError::TooLarge),
            r => r,
        };
        match result {
            Ok(text) => {
                self.failed.remove(path);
                self.upsert_meta(path, text, meta);
                true
            }
            Err(e) => {
                self.remove(path);
                self.failed.insert(path.to_string(), (meta, e));
                false
            }
        }
    }

    /// Pairs of concepts sharing a file (counted on first use after a change).
    pub fn edge_count(&self) -> graph::Edges {
        self.graph.edge_count()
    }

    /// The edge count with the work it took.
    #[cfg(test)]
    pub fn edge_census(&self) -> graph::EdgeCensus {
        self.graph.edge_census()
    }

    /// Index (or re-index) one file directly, with its host mtime.
    pub fn upsert(&mut self, path: &str, text: String, mtime_ms: f64) {
        let size = text.len() as u64;
        self.upsert_meta(path, text, Meta { mtime_ms, size });
    }

    fn upsert_meta(&mut self, path: &str, text: String, meta: Meta) {
        self.remove(path);
        let note = markdown::parse(&text, stem_of(path));
        let mut concepts: Vec<(ConceptId, u32)> = note
            .concepts
            .iter()
            .map(|(c, off)| (self.graph.intern(c), *off as u32))
            .collect();
        crate::sort::sort_by_key(&mut concepts, |c| c.0);
        let id = self.alloc_id();
        let ids: Vec<ConceptId> = concepts.iter().map(|c| c.0).collect();
        self.graph.add_file(id, &ids);
        self.index.add(id, &note.title, &text[note.body_start..]);
        let uri = memory_uri(path);
        let rec = FileRec {
            path: path.to_string(),
            uri: uri.clone(),
            title: note.title,
            tags: note.tags,
            mtime_ms: meta.mtime_ms,
            size: meta.size,
            modified_ms: note.modified_ms.unwrap_or(meta.mtime_ms),
            body_start: note.body_start,
            summary: note.summary,
            sections: note.sections,
            concepts,
            text,
        };
        self.files[id as usize] = Some(rec);
        self.by_path.insert(path.to_string(), id);
        self.by_uri.insert(uri, id);
    }

    fn alloc_id(&mut self) -> FileId {
        if let Some(id) = self.free_ids.pop() {
            return id;
        }
        self.files.push(None);
        (self.files.len() - 1) as FileId
    }

    /// Drop one file. Returns whether it was indexed.
    pub fn remove(&mut self, path: &str) -> bool {
        let Some(id) = self.by_path.remove(path) else {
            return false;
        };
        let rec = self.files[id as usize].take().expect("live file");
        self.by_uri.remove(&rec.uri);
        self.graph.remove_file(id);
        self.index.remove(id);
        let live = self.by_path.len();
        if self.index.dead_count() > PURGE_MIN.max(live / 8) {
            let freed = self.index.compact();
            self.free_ids.extend(freed);
        }
        true
    }

    fn file(&self, id: FileId) -> &FileRec {
        self.files[id as usize].as_ref().expect("live file")
    }

    /// The full text of the note a `memory://` URI (or a vault-relative path) names.
    pub fn read(&self, uri: &str) -> Option<String> {
        let id = match self.by_uri.get(uri) {
            Some(&id) => id,
            None => *self
                .by_path
                .get(uri.strip_prefix("memory://").unwrap_or(uri))?,
        };
        Some(self.file(id).text.clone())
    }

    /// The URI of the note a bare name (its file name without `.md`) names, as maenifold's
    /// ReadMemory finds one; the shortest URI wins a tie.
    pub fn uri_of_slug(&self, slug: &str) -> Option<String> {
        self.by_uri
            .keys()
            .filter(|u| u.rsplit('/').next() == Some(slug))
            .min_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)))
            .cloned()
    }

    /// Title of the note at `uri`.
    pub fn title(&self, uri: &str) -> Option<&str> {
        self.by_uri.get(uri).map(|&id| self.file(id).title.as_str())
    }

    /// Newest first, then by uri.
    fn by_recency(&self, a: FileId, b: FileId) -> Ordering {
        let (fa, fb) = (self.file(a), self.file(b));
        fb.modified_ms
            .total_cmp(&fa.modified_ms)
            .then_with(|| fa.uri.cmp(&fb.uri))
    }

    /// BuildContext-equivalent. `concept` is normalized first; an unknown concept gives the
    /// empty answer (no knowledge, not an error). `depth` ≥ 2 adds the 2-hop ring.
    pub fn build_context(
        &self,
        concept: &str,
        depth: u32,
        max_entities: usize,
        include_content: bool,
    ) -> BuildContext {
        let name = normalize(concept);
        let mut out = BuildContext {
            concept: name.clone(),
            ..Default::default()
        };
        let Some(c) = self.graph.id(&name) else {
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

    /// SearchMemories-equivalent: BM25 over titles and bodies, best first.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let terms = search::query_terms(query);
        if terms.is_empty() {
            return Vec::new();
        }
        let mut ranked = self.index.scores(&terms);
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
            .search(query, limit)
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

/// Before a bulk load of `text_bytes` of notes, grow the heap once by about what the load will
/// hold: twice the text (the 10,000-note bench vault holds 1.8×; 2.5× left 16 MiB unused, and
/// no reservation at all costs +4 % instructions and ~0.2 s); nothing below 16 MiB.
/// On wasm every `memory.grow` is expensive (V8 collects garbage on each), and the allocator
/// would otherwise grow the memory in thousands of small steps; the freed block stays with
/// the allocator and is carved up by the load. Native allocators need no help.
fn reserve_heap(text_bytes: u64) {
    #[cfg(target_arch = "wasm32")]
    {
        const MIN: u64 = 16 << 20;
        const MAX: u64 = 1 << 30;
        let bytes = text_bytes.saturating_mul(2);
        if bytes >= MIN {
            let v: Vec<u8> = Vec::with_capacity(bytes.min(MAX) as usize);
            drop(std::hint::black_box(v));
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = text_bytes;
}

fn join_path(root: &str, rel: &str) -> String {
    if root.ends_with('/') || root.ends_with('\\') {
        format!("{root}{rel}")
    } else {
        format!("{root}/{rel}")
    }
}

/// List the vault at `root` through the host, read what changed (in batches of
/// [`READ_BATCH`]) and bring `vault` up to date. Never fails: problems are counted or reported
/// in `error`. The borrow of `vault` is never held across an await.
pub async fn refresh(io: &Io, vault: &RefCell<Vault>, root: &str) -> RefreshStats {
    let types_only = vault.borrow().is_blank();
    let replies = join_all(vec![
        io.request(Request::Stat {
            path: root.to_string(),
        }),
        io.request(Request::ListDir {
            path: root.to_string(),
            recursive: true,
            max_entries: MAX_LIST_ENTRIES,
            skip_hidden: true,
            types_only,
        }),
    ])
    .await;
    let mut replies = replies.into_iter();
    let mut out = RefreshStats::default();
    // A reply that does not decode says nothing about the vault: the index is kept as it is
    // (decoded to defaults it would read as "no vault" or "every note deleted").
    let st: StatResult = match serde_json::from_value(replies.next().unwrap_or_default()) {
        Ok(st) => st,
        Err(e) => {
            out.stats = vault.borrow().stats();
            out.error = Some(format!(
                "vault {root}: the host's stat reply is malformed: {e}"
            ));
            return out;
        }
    };
    let list: ListDirResult = serde_json::from_value(replies.next().unwrap_or_default())
        .unwrap_or_else(|e| ListDirResult {
            error: Some(ReplyError::Other),
            detail: Some(format!("the host's reply is malformed: {e}")),
            ..Default::default()
        });
    if !st.exists || !st.is_dir {
        vault.borrow_mut().clear();
        out.stats = vault.borrow().stats();
        out.error = Some(match st.error {
            Some(e) => format!("vault {root}: {}", e.describe(st.detail.as_deref())),
            None if st.exists => format!("vault {root} is not a folder"),
            None => format!("vault {root} does not exist"),
        });
        return out;
    }
    if let Some(e) = list.error {
        let e = e.describe(list.detail.as_deref());
        if list.entries.is_empty() {
            out.stats = vault.borrow().stats();
            out.error = Some(format!("listing {root}: {e}"));
            return out;
        }
        out.error = Some(format!("listing {root} (partial): {e}"));
    }
    let root_real = st.realpath.clone().unwrap_or_else(|| root.to_string());
    let complete = !list.truncated && list.error.is_none();
    out.truncated = list.truncated;
    let before = vault.borrow().stats().files;
    let to_read = vault.borrow_mut().plan(&root_real, &list.entries, complete);
    let after_plan = vault.borrow().stats().files;
    out.removed = before.saturating_sub(after_plan);
    let changed_known = to_read
        .iter()
        .filter(|p| vault.borrow().by_path.contains_key(p.as_str()))
        .count() as u32;
    out.unchanged = after_plan.saturating_sub(changed_known);

    read_planned(io, vault, root, &to_read, &mut out).await;
    out.stats = vault.borrow().stats();
    out
}

/// Read the planned paths through the host in batches of [`READ_BATCH`] and ingest them,
/// counting reads and drops in `out`.
async fn read_planned(
    io: &Io,
    vault: &RefCell<Vault>,
    root: &str,
    to_read: &[String],
    out: &mut RefreshStats,
) {
    // Room for what the reads will hold, grown once: from the listed sizes, or — a listing of
    // types only — from the first batch's median size (one big note among them must not make
    // the estimate huge).
    let listed = vault.borrow().pending_bytes();
    reserve_heap(listed);
    let mut batched = true;
    for (i, chunk) in to_read.chunks(READ_BATCH).enumerate() {
        let results = read_batch(io, root, chunk, &mut batched).await;
        let mut v = vault.borrow_mut();
        let mut sizes: Vec<u64> = Vec::new();
        for (p, r) in chunk.iter().zip(results) {
            let opened = r.size.zip(r.mtime_ms);
            if i == 0 && listed == 0 {
                sizes.push(r.text.as_ref().map_or(0, |t| t.len() as u64));
            }
            let result = match (r.text, r.error) {
                (_, Some(e)) => Err(ReadError::from_host(e, r.detail.as_deref())),
                (Some(t), None) => Ok(t),
                (None, None) => Err(ReadError::Unreadable("no text in the reply".into())),
            };
            let was = v.by_path.contains_key(p.as_str());
            if v.ingest_opened(p, result, opened) {
                out.read += 1;
            } else if was {
                out.removed += 1;
            }
        }
        if !sizes.is_empty() {
            crate::sort::sort(&mut sizes);
            let rest = (to_read.len() - chunk.len()) as u64;
            reserve_heap(sizes[sizes.len() / 2].saturating_mul(rest));
        }
    }
}

/// One batch of reads: a single `ReadFiles` request while the host answers it (`batched`),
/// else — from the first reply that is not a list of as many files — a `ReadFile` per path.
async fn read_batch(io: &Io, root: &str, chunk: &[String], batched: &mut bool) -> Vec<ReadResult> {
    if *batched {
        let mut reply = io
            .request(Request::ReadFiles {
                dir: join_path(root, ""),
                paths: chunk.to_vec(),
                max_bytes: MAX_FILE_BYTES,
            })
            .await;
        match reply.get_mut("files") {
            Some(Value::Array(files)) if files.len() == chunk.len() => {
                let files = std::mem::take(files);
                return files
                    .into_iter()
                    .map(crate::protocol::file_result)
                    .collect();
            }
            _ => *batched = false,
        }
    }
    let reqs = chunk
        .iter()
        .map(|p| {
            io.request(Request::ReadFile {
                path: join_path(root, p),
                max_bytes: MAX_FILE_BYTES,
            })
        })
        .collect();
    join_all(reqs)
        .await
        .into_iter()
        .map(|r| serde_json::from_value(r).unwrap_or_default())
        .collect()
}

#[cfg(test)]
mod tests;

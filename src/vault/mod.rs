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

use crate::maenifold::{BuildContext, Relation};
use crate::paths::inside;
use crate::protocol::{DirEntry, ListDirResult, ReadResult, ReplyError, Request, StatResult};
use crate::runtime::{join_all, Io};
use crate::sort::top_k;
use crate::wikilink::normalize;

use fx::{FxHashMap, FxHashSet};
use graph::{ConceptId, FileId, Graph};
use markdown::Family;
use search::SearchIndex;

/// Files larger than this are skipped.
pub const MAX_FILE_BYTES: u64 = 5 * 1024 * 1024;
/// Files of one relation listed in BuildContext (maenifold lists 3).
pub const FILES_PER_RELATION: usize = 3;
/// Characters of one content preview.
pub const PREVIEW_CHARS: usize = 500;
/// Characters of a concept's own note shown in its context.
pub const NOTE_CHARS: usize = 400;
/// Concepts a note links, listed with it.
pub const NOTE_LINKS: usize = 8;
/// Notes linking a concept's note, listed with it.
pub const LINKED_FROM: usize = 5;
/// How much a note's incoming links weigh in search: its score × (1 + this × ln(1 + links)).
pub const GRAPH_WEIGHT: f32 = 0.15;
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
    aliases: Vec<String>,
    mtime_ms: f64,
    size: u64,
    /// Front matter `modified`, else the host's mtime.
    modified_ms: f64,
    text: String,
    body_start: usize,
    summary: String,
    /// The summary is the note's own description (front matter, `description::`).
    described: bool,
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
    /// A note's names as a link spells them, normalized like concepts: its path, file name,
    /// title and aliases ([`NameKind`]), each with the files bearing it.
    names: FxHashMap<String, Vec<(FileId, NameKind)>>,
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
    /// The app whose conventions the vault follows, and why it is taken for that one.
    family: Family,
    pub family_why: String,
    /// Dendron: the folders of the workspace's vaults (`dendron.yml`); empty: everything.
    scope: Vec<String>,
}

/// How a note bears a name, strongest first: a link resolves to the note whose path, then
/// file name, then front matter title, then alias matches (Obsidian's and Foam's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NameKind {
    Path,
    FileName,
    Title,
    Alias,
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

/// The names a link may give a note, normalized like concepts, each once (its strongest
/// kind): the path without `.md` (when in a folder), the file name, the title, the aliases.
fn note_names(path: &str, title: &str, aliases: &[String]) -> Vec<(String, NameKind)> {
    let mut out: Vec<(String, NameKind)> = Vec::with_capacity(3 + aliases.len());
    let mut add = |raw: &str, kind: NameKind| {
        let n = normalize(raw);
        if !n.is_empty() && !out.iter().any(|(x, _)| *x == n) {
            out.push((n, kind));
        }
    };
    let no_ext = path.strip_suffix(".md").unwrap_or(path);
    if no_ext.bytes().any(|b| b == b'/' || b == b'\\') {
        add(no_ext, NameKind::Path);
    }
    add(stem_of(path), NameKind::FileName);
    add(title, NameKind::Title);
    for a in aliases {
        add(a, NameKind::Alias);
    }
    out
}

fn stem_of(path: &str) -> &str {
    // Bytes, not characters: both separators are ASCII (a char pattern decodes backwards).
    let cut = path.bytes().rposition(|b| b == b'/' || b == b'\\');
    let name = cut.map_or(path, |i| &path[i + 1..]);
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

    /// Read the vault as `family` does from now on (`why`: what showed it), only below the
    /// folders in `scope` (empty: everywhere). A change forgets the index: every note is read
    /// again under the new rules.
    pub fn set_family(&mut self, family: Family, why: String, scope: Vec<String>) {
        if family != self.family || scope != self.scope {
            self.clear();
            self.family = family;
            self.scope = scope;
        }
        self.family_why = why;
    }

    /// Whether the family reads notes at `path`: not in Logseq's own folder (its backups and
    /// versions of pages), only in a Dendron workspace's vaults.
    fn in_scope(&self, path: &str) -> bool {
        let under = |d: &str| {
            path.len() > d.len() && path.starts_with(d) && path.as_bytes()[d.len()] == b'/'
        };
        match self.family {
            Family::Logseq { .. } => !under("logseq"),
            _ => self.scope.is_empty() || self.scope.iter().any(|d| under(d)),
        }
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
            Ok(true) if self.in_scope(&e.path) => {}
            Ok(_) => return Want::Ignore,
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
        let note = markdown::parse_as(&text, stem_of(path), self.family);
        let mut concepts: Vec<(ConceptId, u32)> = note
            .concepts
            .iter()
            .map(|(c, off)| (self.graph.intern(c), *off as u32))
            .collect();
        crate::sort::sort_by_key(&mut concepts, |c| c.0);
        let id = self.alloc_id();
        let ids: Vec<ConceptId> = concepts.iter().map(|c| c.0).collect();
        self.graph.add_file(id, &ids);
        // Aliases are names of the note, its description says what it is about, and its
        // folders (and a file name other than its title: Dendron's hierarchy) say where it
        // belongs: they weigh as its title does.
        let stem = stem_of(path);
        let folders = &path[..path.len() - stem.len() - path.ends_with(".md") as usize * 3];
        let stem = if stem.eq_ignore_ascii_case(&note.title) { "" } else { stem };
        if note.aliases.is_empty() && note.desc.is_empty() && folders.is_empty() && stem.is_empty() && note.headings.is_empty() {
            self.index.add(id, &note.title, &text[note.body_start..]);
        } else {
            let names = format!(
                "{} {} {} {folders} {stem} {}",
                note.title,
                note.aliases.join(" "),
                note.desc,
                note.headings
            );
            self.index.add(id, &names, &text[note.body_start..]);
        }
        let uri = memory_uri(path);
        self.name_note(id, path, &note.title, &note.aliases);
        let rec = FileRec {
            path: path.to_string(),
            uri: uri.clone(),
            title: note.title,
            tags: note.tags,
            aliases: note.aliases,
            mtime_ms: meta.mtime_ms,
            size: meta.size,
            modified_ms: note.modified_ms.unwrap_or(meta.mtime_ms),
            body_start: note.body_start,
            described: !note.desc.is_empty(),
            summary: note.summary,
            sections: note.sections,
            concepts,
            text,
        };
        self.files[id as usize] = Some(rec);
        self.by_path.insert(path.to_string(), id);
        self.by_uri.insert(uri, id);
    }

    /// Record the names of note `id` ([`note_names`]).
    fn name_note(&mut self, id: FileId, path: &str, title: &str, aliases: &[String]) {
        for (name, kind) in note_names(path, title, aliases) {
            let list = self.names.entry(name).or_default();
            if !list.iter().any(|&(f, _)| f == id) {
                list.push((id, kind));
            }
        }
    }

    /// The note a link names (a normalized name): by path, file name, title, then alias; of
    /// several bearing the name in the same way, the shortest path (then the first in byte
    /// order), as Obsidian picks.
    pub fn note_named(&self, name: &str) -> Option<FileId> {
        let list = self.names.get(name)?;
        list.iter()
            .min_by(|a, b| {
                let (fa, fb) = (self.file(a.0), self.file(b.0));
                a.1.cmp(&b.1)
                    .then_with(|| fa.path.len().cmp(&fb.path.len()))
                    .then_with(|| fa.path.cmp(&fb.path))
            })
            .map(|&(f, _)| f)
    }

    /// The URI of the note a link, a title, an alias or a path names (see
    /// [`Vault::note_named`]).
    pub fn resolve_uri(&self, name: &str) -> Option<String> {
        let name = name.trim();
        let name = name.strip_suffix(".md").unwrap_or(name);
        let name = crate::wikilink::split_section(name).0;
        let name = crate::wikilink::link_target(name);
        self.note_named(&normalize(name))
            .map(|f| self.file(f).uri.clone())
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
        for (name, _) in note_names(&rec.path, &rec.title, &rec.aliases) {
            if let Some(list) = self.names.get_mut(&name) {
                list.retain(|&(f, _)| f != id);
                if list.is_empty() {
                    self.names.remove(&name);
                }
            }
        }
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
}

mod load;
mod query;

pub use load::*;

#[cfg(test)]
mod tests;

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod resolve_tests;

#[cfg(test)]
#[path = "family_tests.rs"]
mod family_tests;

#[cfg(test)]
#[path = "eval_tests.rs"]
mod eval_tests;

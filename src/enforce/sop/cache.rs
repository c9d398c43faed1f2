//! The SOP cache: the folder listing, files re-read only when their size or mtime changed.

use super::*;
use crate::protocol::ReplyError;

#[derive(Debug, Clone)]
pub(super) struct Cached {
    mtime_ms: f64,
    size: u64,
    /// `None`: the file is broken (a warning was given when it was read).
    sop: Option<Rc<Sop>>,
}

/// Parsed SOPs by file, refreshed when a file's size or mtime changes.
#[derive(Debug, Default)]
pub struct SopCache {
    /// By (folder index, shown path).
    files: BTreeMap<String, Cached>,
    /// When the folders were last listed (host ms).
    pub listed_at: Option<f64>,
    /// Warnings produced while refreshing, for the next decision to hand out.
    pub logs: Vec<Log>,
    /// Parse counts (for tests and the benchmark).
    pub parsed: u64,
}

impl SopCache {
    pub fn sops(&self) -> impl Iterator<Item = &Rc<Sop>> {
        self.files.values().filter_map(|c| c.sop.as_ref())
    }
    pub fn len(&self) -> usize {
        self.sops().count()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Put a parsed SOP in directly (tests, benchmarks, hosts with SOPs of their own).
    pub fn insert(&mut self, sop: Sop) {
        self.files.insert(
            sop.path.clone(),
            Cached {
                mtime_ms: 0.0,
                size: 0,
                sop: Some(Rc::new(sop)),
            },
        );
    }
    fn store(
        &mut self,
        shown: &str,
        mtime_ms: f64,
        size: u64,
        text: Result<String, String>,
        sections: &[String],
    ) {
        self.parsed += 1;
        let sop = match text.and_then(|t| parse(shown, &t, sections)) {
            Ok((sop, warnings)) => {
                for w in warnings {
                    self.logs.push(Log::warn(format!("SOP {shown}: {w}")));
                }
                Some(Rc::new(sop))
            }
            Err(e) => {
                self.logs
                    .push(Log::warn(format!("SOP {shown} skipped: {e}")));
                None
            }
        };
        self.files.insert(
            shown.to_string(),
            Cached {
                mtime_ms,
                size,
                sop,
            },
        );
    }
}

/// A folder to read SOPs from: the path the host lists, and how files are shown.
#[derive(Debug, Clone)]
pub struct Folder {
    pub abs: String,
    pub shown: String,
}

/// List the folders and read the files that changed, updating `cache` as each answer comes
/// in (so a refresh cut short by the deadline keeps what it finished).
pub async fn refresh(
    io: &Io,
    cache: &Rc<RefCell<SopCache>>,
    folders: &[Folder],
    sections: &[String],
    now_ms: f64,
) {
    cache.borrow_mut().listed_at = Some(now_ms);
    let listings = join_all(
        folders
            .iter()
            .map(|f| {
                io.request(Request::ListDir {
                    path: f.abs.clone(),
                    recursive: true,
                    max_entries: MAX_LIST_ENTRIES,
                    skip_hidden: true,
                    types_only: false,
                })
            })
            .collect(),
    )
    .await;
    let mut reads = Vec::new();
    for (f, reply) in folders.iter().zip(listings) {
        let listing: crate::protocol::ListDirResult = match serde_json::from_value(reply) {
            Ok(l) => l,
            Err(e) => {
                cache.borrow_mut().logs.push(Log::warn(format!(
                    "SOP folder {}: bad listing reply: {e}",
                    f.shown
                )));
                continue;
            }
        };
        if let Some(code) = listing.error {
            if listing.entries.is_empty() {
                let mut c = cache.borrow_mut();
                let prefix = format!("{}/", f.shown);
                c.files.retain(|k, _| !k.starts_with(&prefix));
                if code != ReplyError::NotFound {
                    let e = code.describe(listing.detail.as_deref());
                    c.logs.push(Log::warn(format!(
                        "SOP folder {} could not be listed: {e}",
                        f.shown
                    )));
                }
                continue;
            }
        }
        if listing.truncated {
            cache.borrow_mut().logs.push(Log::warn(format!(
                "SOP folder {} has more than {MAX_LIST_ENTRIES} entries; only the first were read",
                f.shown
            )));
        }
        let mut seen = Vec::new();
        for e in listing
            .entries
            .iter()
            .filter(|e| e.is_file && format_of(&e.path).is_some())
        {
            let rel = e.path.trim_start_matches("./");
            let shown = format!("{}/{}", f.shown, rel);
            let abs = crate::paths::join(&f.abs, rel);
            seen.push(shown.clone());
            let unchanged = cache
                .borrow()
                .files
                .get(&shown)
                .is_some_and(|c| c.mtime_ms == e.mtime_ms && c.size == e.size);
            if unchanged {
                continue;
            }
            if e.size > MAX_SOP_BYTES {
                cache.borrow_mut().store(
                    &shown,
                    e.mtime_ms,
                    e.size,
                    Err(too_large(Some(e.size))),
                    sections,
                );
                continue;
            }
            reads.push((abs, shown, e.mtime_ms, e.size));
        }
        if !listing.truncated {
            let prefix = format!("{}/", f.shown);
            cache
                .borrow_mut()
                .files
                .retain(|k, _| !k.starts_with(&prefix) || seen.contains(k));
        }
    }
    join_all(
        reads
            .into_iter()
            .map(|(abs, shown, mtime, size)| {
                let cache = cache.clone();
                async move {
                    let reply = io
                        .request(Request::ReadFile {
                            path: abs,
                            max_bytes: MAX_SOP_BYTES,
                        })
                        .await;
                    let r: ReadResult = serde_json::from_value(reply).unwrap_or_default();
                    let text = match (r.text, r.error) {
                        (Some(t), None) => Ok(t),
                        (_, Some(ReplyError::TooLarge)) => Err(too_large(r.size)),
                        (_, Some(e)) => Err(format!(
                            "could not be read: {}",
                            e.describe(r.detail.as_deref())
                        )),
                        (None, None) => Err("could not be read: empty reply".to_string()),
                    };
                    cache
                        .borrow_mut()
                        .store(&shown, mtime, size, text, sections);
                }
            })
            .collect(),
    )
    .await;
}

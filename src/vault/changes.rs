//! Refreshing the vault from the host's watcher instead of a listing: the host reports which
//! paths changed since the previous question (`Request::VaultChanges`), the core looks at
//! those alone (a `Stat` each, then reads what is new or changed). A listing of a 10,000-note
//! vault costs about half a second; ten changed files cost ten stats and ten reads.
//!
//! The index falls back to the full [`refresh`] (list everything) whenever the change list
//! cannot be trusted: the first question (the watcher just started), `overflow` (too many
//! changes, a folder the host could not watch), a host that does not watch (`watching: false`,
//! an error, an unknown request), a changed path that is or was a folder (created, renamed,
//! deleted: its files are not reported one by one), or a previous full refresh that failed
//! or was cut short.

use std::cell::{Cell, RefCell};

use crate::protocol::{DirEntry, Request, StatResult, VaultChangesResult};
use crate::runtime::{join_all, Io};

use super::fx::FxHashSet;
use super::{acceptable, join_path, read_planned, refresh, RefreshStats, Vault, READ_BATCH};

/// Changed paths looked at one by one at most; more re-lists the vault.
pub const MAX_CHANGED: usize = 2048;

/// Whether the index is in step with the host's watcher.
#[derive(Debug, Default)]
pub struct WatchState {
    /// A full refresh succeeded after the host said it watches the folder: every change since
    /// is in the host's change list.
    synced: Cell<bool>,
}

impl WatchState {
    pub fn new() -> WatchState {
        WatchState::default()
    }

    /// Forget the watcher: the next refresh re-lists.
    pub fn reset(&self) {
        self.synced.set(false);
    }
}

/// Bring `vault` up to date: from the host's change list when the index is in step with its
/// watcher, else by listing the folder ([`refresh`]). Never fails.
pub async fn refresh_watched(
    io: &Io,
    vault: &RefCell<Vault>,
    root: &str,
    state: &WatchState,
) -> RefreshStats {
    let reply = io.request(Request::VaultChanges {
        root: root.to_string(),
    });
    let changes = VaultChangesResult::from_reply(reply.await);
    let watching = changes.watching && changes.error.is_none();
    if watching && !changes.overflow && state.synced.get() {
        if let Some(mut out) = refresh_paths(io, vault, root, &changes.paths).await {
            out.watching = true;
            return out;
        }
    }
    let mut out = refresh(io, vault, root).await;
    out.watching = watching;
    state
        .synced
        .set(watching && out.error.is_none() && !out.truncated);
    out
}

/// What a changed path needs looked at.
enum Look {
    /// A markdown note: stat it.
    Note(String),
    /// Something else that may be a folder: stat it, re-list if it is one.
    Maybe(String),
}

/// Refresh from a change list. `None` when the vault must be re-listed instead.
pub async fn refresh_paths(
    io: &Io,
    vault: &RefCell<Vault>,
    root: &str,
    paths: &[String],
) -> Option<RefreshStats> {
    if paths.len() > MAX_CHANGED {
        return None;
    }
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let mut look: Vec<Look> = Vec::new();
    {
        let v = vault.borrow();
        for p in paths {
            let p = p.trim_start_matches("./").trim_end_matches('/');
            if p.is_empty() || !seen.insert(p) {
                continue;
            }
            match acceptable(p) {
                Ok(true) => look.push(Look::Note(p.to_string())),
                Err(()) => {} // not a path inside the vault: nothing to index
                Ok(false) if p.ends_with(".md") => {} // hidden
                Ok(false) => {
                    if p.split('/').any(|c| c.starts_with('.')) {
                        continue; // inside a hidden folder
                    }
                    if v.has_files_under(p) {
                        return None; // a folder of indexed notes changed (renamed, deleted)
                    }
                    look.push(Look::Maybe(p.to_string()));
                }
            }
        }
    }
    let mut present: Vec<DirEntry> = Vec::new();
    let mut gone: Vec<String> = Vec::new();
    for chunk in look.chunks(READ_BATCH) {
        let reqs = chunk
            .iter()
            .map(|l| {
                let (Look::Note(p) | Look::Maybe(p)) = l;
                io.request(Request::Stat {
                    path: join_path(root, p),
                })
            })
            .collect();
        for (l, reply) in chunk.iter().zip(join_all(reqs).await) {
            let st: StatResult = serde_json::from_value(reply).unwrap_or_default();
            match l {
                Look::Maybe(_) if st.exists && st.is_dir => return None, // a new folder
                Look::Maybe(_) => {}
                Look::Note(p) if st.exists => present.push(DirEntry {
                    path: p.clone(),
                    is_file: st.is_file,
                    is_dir: st.is_dir,
                    is_symlink: false,
                    realpath: st.realpath,
                    size: st.size,
                    mtime_ms: st.mtime_ms,
                }),
                // Gone, or not even stat-able: either way not indexable now.
                Look::Note(p) => gone.push(p.clone()),
            }
        }
    }
    let (to_read, removed) = vault.borrow_mut().plan_changed(&present, &gone);
    let mut out = RefreshStats {
        removed,
        incremental: true,
        ..Default::default()
    };
    read_planned(io, vault, root, &to_read, &mut out).await;
    out.stats = vault.borrow().stats();
    out.unchanged = out.stats.files.saturating_sub(out.read);
    Some(out)
}

#[cfg(test)]
#[path = "changes_tests.rs"]
mod tests;

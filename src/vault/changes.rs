//! Refreshing the vault from the host's watcher instead of a listing: the host reports which
//! paths changed since the previous question, each as a listing entry (`Request::VaultChanges`),
//! and the core reads only the new or changed notes among them. A listing of a 10,000-note
//! vault costs about half a second; ten changed notes cost ten reads.
//!
//! The index falls back to the full [`refresh`] (list everything) whenever the change list
//! cannot be trusted: the first question (the watcher just started), `truncated` (too many
//! changes, a folder the host could not watch), a host that does not watch (an `error`, an
//! unknown request), a changed path that is or was a folder (created, renamed, deleted: its
//! files are not reported one by one), or a previous full refresh that failed or was cut
//! short.

use std::cell::{Cell, RefCell};

use crate::protocol::{DirEntry, ListDirResult, Request};
use crate::runtime::Io;

use super::fx::FxHashSet;
use super::{acceptable, read_planned, refresh, RefreshStats, Vault};

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
    let changes: ListDirResult = serde_json::from_value(reply.await).unwrap_or(ListDirResult {
        error: Some(crate::protocol::ReplyError::Other),
        detail: Some("bad reply".into()),
        ..Default::default()
    });
    let watching = changes.error.is_none();
    if watching && !changes.truncated && state.synced.get() {
        if let Some(mut out) = refresh_entries(io, vault, root, &changes.entries).await {
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

/// Refresh from the host's changed entries. `None` when the vault must be re-listed instead:
/// too many changes, or a folder among them (created, renamed or deleted: its notes were not
/// reported one by one).
pub async fn refresh_entries(
    io: &Io,
    vault: &RefCell<Vault>,
    root: &str,
    entries: &[DirEntry],
) -> Option<RefreshStats> {
    if entries.len() > MAX_CHANGED {
        return None;
    }
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let mut present: Vec<DirEntry> = Vec::new();
    let mut gone: Vec<String> = Vec::new();
    {
        let v = vault.borrow();
        for e in entries {
            if !seen.insert(e.path.as_str()) {
                continue;
            }
            // The family's own files: what the vault is may have changed.
            if matches!(
                e.path.as_str(),
                "logseq/config.edn" | "dendron.yml" | "pages" | "journals"
            ) {
                return None;
            }
            match acceptable(&e.path) {
                Ok(true) if e.is_file || e.is_dir => present.push(e.clone()),
                Ok(true) => gone.push(e.path.clone()),
                // A folder (not hidden) that is one now or held notes: re-list.
                Ok(false)
                    if !e.path.ends_with(".md")
                        && !e.path.split('/').any(|c| c.starts_with('.'))
                        && (e.is_dir || v.has_files_under(&e.path)) =>
                {
                    return None
                }
                _ => {} // hidden, not markdown, or not inside the vault: nothing to index
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

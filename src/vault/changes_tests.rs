//! The `VaultChanges` request: refreshes from the host's change list, and every fallback to a
//! listing. The host here is an in-memory folder that behaves like js/watch.cjs: it records
//! the path of every entry written, deleted or renamed (a folder's own path for a folder), and
//! answers the first question with `overflow`.

use std::rc::Rc;

use serde_json::json;

use super::*;
use crate::protocol::Request;
use crate::testing::drive::run_with;
use crate::testing::{Reply, TestHost};

const ROOT: &str = "/home/u/vault";

/// The test host with a vault at [`ROOT`] and its watcher; paths here are relative to it.
struct WatchHost {
    host: TestHost,
    /// Requests by kind, in order (of the last run).
    log: Vec<String>,
    /// Files read (of the last run).
    reads: Vec<String>,
    clock: f64,
}

impl WatchHost {
    fn new(watching: Option<bool>) -> WatchHost {
        let mut host = TestHost::default();
        host.watcher.watching = watching;
        host.packed = false;
        let mut h = WatchHost {
            host,
            log: Vec::new(),
            reads: Vec::new(),
            clock: 0.0,
        };
        for i in 0..40 {
            h.put(
                &format!("notes/n{i:02}.md"),
                &format!("# Note {i}\n\n[[hub]] and [[c{i}]]"),
                1.0,
            );
        }
        h.put("ops/deploy.md", "[[hub]] [[deploy]]", 1.0);
        h
    }

    /// A file as it is, the watcher told nothing.
    fn put(&mut self, path: &str, text: &str, mtime: f64) {
        self.host.file_at(&format!("{ROOT}/{path}"), text, mtime);
    }

    /// The file's text, taken away (the watcher told nothing).
    fn take(&mut self, path: &str) -> String {
        self.host.files.remove(&format!("{ROOT}/{path}")).unwrap()
    }

    /// The whole vault folder gone.
    fn clear(&mut self) {
        let under = format!("{ROOT}/");
        self.host.files.retain(|p, _| !p.starts_with(&under));
        self.host
            .dirs
            .retain(|d| d != ROOT && !d.starts_with(&under));
    }

    fn changed(&mut self, path: &str) {
        self.host.watcher.changed.insert(path.into());
    }

    fn write(&mut self, path: &str, text: &str) {
        self.clock += 1.0;
        let t = 10.0 + self.clock;
        self.put(path, text, t);
        self.changed(path);
    }

    fn delete(&mut self, path: &str) {
        self.take(path);
        self.changed(path);
    }

    /// Rename a folder: the watcher sees only the folder's two names.
    fn rename_dir(&mut self, from: &str, to: &str) {
        let (from_abs, to_abs) = (format!("{ROOT}/{from}"), format!("{ROOT}/{to}"));
        let moved: Vec<String> = self
            .host
            .files
            .keys()
            .filter(|p| p.starts_with(&format!("{from_abs}/")))
            .cloned()
            .collect();
        for p in moved {
            let t = self.host.files.remove(&p).unwrap();
            let m = self.host.mtimes.remove(&p).unwrap_or(0.0);
            let to_path = format!("{to_abs}{}", &p[from_abs.len()..]);
            self.host.file_at(&to_path, &t, m);
        }
        let prefix = format!("{from_abs}/");
        self.host
            .dirs
            .retain(|d| *d != from_abs && !d.starts_with(&prefix));
        self.changed(from);
        self.changed(to);
    }

    fn kinds(&self) -> Vec<&str> {
        self.log.iter().map(String::as_str).collect()
    }

    fn run(&mut self, vault: &Rc<RefCell<Vault>>, state: &Rc<WatchState>) -> RefreshStats {
        let seen = self.host.log.len();
        let (vault, state) = (vault.clone(), state.clone());
        let s = crate::testing::run(&mut self.host, move |io| async move {
            refresh_watched(&io, &vault, ROOT, &state).await
        });
        self.log.clear();
        self.reads.clear();
        for q in &self.host.log[seen..] {
            let kind = serde_json::to_value(q).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string();
            self.log.push(kind);
            match q {
                // The family's own files (read once a listing) are not notes.
                Request::ReadFiles { paths, .. } if paths == &super::super::FAMILY_FILES => {}
                Request::ReadFile { path, .. }
                    if super::super::FAMILY_FILES
                        .iter()
                        .any(|f| path.ends_with(&format!("/{f}"))) => {}
                Request::ReadFile { path, .. } => {
                    self.reads.push(path[ROOT.len() + 1..].to_string())
                }
                Request::ReadFiles { dir, paths, .. } => {
                    assert_eq!(dir, &format!("{ROOT}/"));
                    self.reads.extend(paths.iter().cloned());
                }
                _ => {}
            }
        }
        s
    }
}

fn files_of(v: &Vault, concept: &str) -> Vec<String> {
    let mut out: Vec<String> = v
        .build_context(concept, 1, 500, false)
        .direct
        .into_iter()
        .flat_map(|r| r.files)
        .collect();
    out.sort();
    out.dedup();
    out
}

fn setup(watching: Option<bool>) -> (WatchHost, Rc<RefCell<Vault>>, Rc<WatchState>) {
    (
        WatchHost::new(watching),
        Rc::new(RefCell::new(Vault::new())),
        Rc::new(WatchState::new()),
    )
}

#[test]
fn the_first_refresh_lists_then_only_changed_paths_are_looked_at() {
    let (mut host, vault, state) = setup(Some(true));
    let s = host.run(&vault, &state);
    assert_eq!(host.kinds()[..3], ["vaultChanges", "stat", "listDir"]);
    assert!(s.watching && !s.incremental);
    assert_eq!((s.stats.files, s.read), (41, 41));

    // Nothing changed: one question, no I/O at all.
    let s = host.run(&vault, &state);
    assert_eq!(host.kinds(), ["vaultChanges"]);
    assert!(s.incremental && s.watching);
    assert_eq!((s.read, s.removed, s.unchanged), (0, 0, 41));

    // Change, add, delete, rename: the new and changed notes read in one request.
    host.write("notes/n00.md", "[[hub]] [[fresh]]");
    host.write("notes/added.md", "[[hub]] [[c1]]");
    host.delete("notes/n02.md");
    let t = host.take("notes/n03.md");
    host.write("ops/n03-renamed.md", &t);
    host.changed("notes/n03.md");
    let s = host.run(&vault, &state);
    assert_eq!(host.kinds()[0], "vaultChanges");
    assert!(host.kinds()[1..] == ["readFiles"], "{:?}", host.kinds());
    host.reads.sort();
    assert_eq!(
        host.reads,
        ["notes/added.md", "notes/n00.md", "ops/n03-renamed.md"]
    );
    assert!(s.incremental);
    assert_eq!((s.read, s.removed), (3, 2));
    assert_eq!(s.stats.files, 41);
    let v = vault.borrow();
    assert_eq!(files_of(&v, "fresh"), ["memory://notes/n00"]);
    assert_eq!(
        files_of(&v, "c1"),
        ["memory://notes/added", "memory://notes/n01"]
    );
    assert!(v.build_context("c0", 1, 5, false).is_empty());
    assert!(v.build_context("c2", 1, 5, false).is_empty());
    assert_eq!(files_of(&v, "c3"), ["memory://ops/n03-renamed"]);
    assert!(v.read("memory://notes/n03").is_none());
}

#[test]
fn an_unchanged_mtime_is_not_read_again_and_hidden_or_other_files_are_ignored() {
    let (mut host, vault, state) = setup(Some(true));
    host.run(&vault, &state);
    // The watcher reports a touch that changed nothing, an editor's swap file, a picture.
    host.changed("notes/n05.md");
    host.changed("notes/.n05.md.swp");
    host.changed(".obsidian/workspace.json");
    host.changed("notes/diagram.png");
    let s = host.run(&vault, &state);
    assert!(host.reads.is_empty());
    assert_eq!(host.kinds(), ["vaultChanges"]);
    assert!(s.incremental);
    assert_eq!(s.stats.files, 41);
}

#[test]
fn folders_overflow_and_failed_listings_fall_back_to_a_listing() {
    let (mut host, vault, state) = setup(Some(true));
    host.run(&vault, &state);

    // A renamed folder: the watcher names only the folder.
    host.rename_dir("notes", "archive");
    let s = host.run(&vault, &state);
    assert!(host.kinds().contains(&"listDir"));
    assert!(!s.incremental);
    assert_eq!(files_of(&vault.borrow(), "c7"), ["memory://archive/n07"]);

    // A new folder with notes in it (moved in): its notes were never reported one by one.
    host.put("new/a.md", "[[moved-in]]", 5.0);
    host.put("new/b.md", "[[moved-in]]", 5.0);
    host.changed("new");
    let s = host.run(&vault, &state);
    assert!(!s.incremental && s.read == 2);
    assert_eq!(
        vault
            .borrow()
            .build_context("moved-in", 1, 5, false)
            .concept,
        "moved-in"
    );
    assert_eq!(vault.borrow().stats().files, 43);

    // The host lost track (too many changes, a folder it could not watch).
    host.write("ops/deploy.md", "[[hub]] [[rollback]]");
    host.host.watcher.overflow = true;
    let s = host.run(&vault, &state);
    assert!(host.kinds().contains(&"listDir") && !s.incremental);
    assert_eq!(host.reads, ["ops/deploy.md"]);
    // and is back in step afterwards
    host.write("ops/deploy.md", "[[hub]]");
    let s = host.run(&vault, &state);
    assert!(s.incremental && s.read == 1);

    // More changed paths than are worth looking at one by one.
    for i in 0..=MAX_CHANGED {
        host.changed(&format!("notes/x{i}.md"));
    }
    let s = host.run(&vault, &state);
    assert!(!s.incremental && host.kinds().contains(&"listDir"));
}

#[test]
fn a_host_that_does_not_watch_is_listed_every_time() {
    for watching in [None, Some(false)] {
        let (mut host, vault, state) = setup(watching);
        let s = host.run(&vault, &state);
        assert_eq!(s.stats.files, 41);
        assert!(!s.watching);
        host.write("notes/n09.md", "[[hub]] [[edited]]");
        host.delete("notes/n10.md");
        let s = host.run(&vault, &state);
        assert_eq!(host.kinds()[..3], ["vaultChanges", "stat", "listDir"]);
        assert!(!s.incremental && !s.watching);
        assert_eq!((s.read, s.removed), (1, 1));
        assert_eq!(files_of(&vault.borrow(), "edited"), ["memory://notes/n09"]);
    }
}

#[test]
fn a_vanished_vault_root_clears_the_index_and_stops_trusting_the_watcher() {
    let (mut host, vault, state) = setup(Some(true));
    host.run(&vault, &state);
    // The host's watcher breaks (the folder was deleted): it answers with an error.
    host.clear();
    host.host.watcher.watching = Some(false);
    let s = host.run(&vault, &state);
    assert!(s.error.is_some());
    assert_eq!(vault.borrow().stats().files, 0);
    // Watching again later: the first answer is an overflow, so the vault is listed once more.
    host.host.watcher.watching = Some(true);
    host.host.watcher.started = false;
    host.put("a.md", "[[back]]", 1.0);
    let s = host.run(&vault, &state);
    assert!(!s.incremental && s.watching && s.stats.files == 1);
}

#[test]
fn vault_changes_request_shape() {
    let r = Request::VaultChanges { root: "/v".into() };
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"kind": "vaultChanges", "root": "/v"})
    );
}

#[test]
fn a_symlink_changed_to_point_outside_is_dropped() {
    let (mut host, vault, state) = setup(Some(true));
    host.run(&vault, &state);
    let vault2 = vault.clone();
    let no_host = |req: &Request| -> Reply { panic!("no request expected: {req:?}") };
    let result = run_with(no_host, move |io| async move {
        let entries = vec![DirEntry {
            path: "notes/n04.md".into(),
            is_file: true,
            is_symlink: true,
            realpath: Some("/etc/secrets.md".into()),
            size: 10,
            mtime_ms: 99.0,
            ..Default::default()
        }];
        serde_json::to_value(refresh_entries(&io, &vault2, ROOT, &entries).await).unwrap()
    });
    assert_eq!(result["removed"], 1);
    assert_eq!(result["skipped"]["outside"], 1);
    assert!(vault.borrow().build_context("c4", 1, 5, false).is_empty());
}

#[test]
fn skips_are_counted_as_the_files_are_now() {
    let (mut host, vault, state) = setup(Some(true));
    host.put("bad.md", "\u{FFFD}latin1", 1.0);
    let s = host.run(&vault, &state);
    assert_eq!(s.stats.skipped.not_utf8, 1);
    // Touched but still broken: counted once, not twice.
    host.write("bad.md", "\u{FFFD}latin1, edited");
    let s = host.run(&vault, &state);
    assert!(s.incremental);
    assert_eq!(s.stats.skipped.not_utf8, 1);
    // Fixed: indexed, and no longer counted.
    host.write("bad.md", "[[fixed]] [[hub]]");
    let s = host.run(&vault, &state);
    assert_eq!((s.read, s.stats.files, s.stats.skipped.total()), (1, 42, 0));
    // Broken again, then deleted: not counted once gone.
    host.write("bad.md", "\u{FFFD}again");
    assert_eq!(host.run(&vault, &state).stats.skipped.not_utf8, 1);
    host.delete("bad.md");
    let s = host.run(&vault, &state);
    assert_eq!((s.stats.files, s.stats.skipped.total()), (41, 0));
}

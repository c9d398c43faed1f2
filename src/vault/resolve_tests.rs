//! How a link names a note, as Obsidian and Foam resolve it: by path, file name, front matter
//! title, then alias (case- and separator-insensitive, the shortest path on a tie), with
//! `#Heading` and `#^block` sections, and what a concept's context then shows.

use super::*;

fn entry(path: &str, size: u64) -> DirEntry {
    DirEntry {
        path: path.into(),
        is_file: true,
        mtime_ms: 1000.0,
        size,
        ..Default::default()
    }
}

fn vault_of(files: &[(&str, &str)]) -> Vault {
    let mut v = Vault::new();
    let listing: Vec<DirEntry> = files.iter().map(|(p, t)| entry(p, t.len() as u64)).collect();
    v.plan("/v", &listing, true);
    for (p, t) in files {
        assert!(v.ingest(p, Ok(t.to_string())));
    }
    v
}

fn named(v: &Vault, link: &str) -> Option<String> {
    v.resolve_uri(link)
}

const SYNC: &str = "---\naliases: [sync engine, Sync]\ntags: [app]\n---\n# Offline Sync\n\nSightings are written to SQLite first and pushed in batches. ^batches\n\n## Conflict resolution\n\nThe last write wins per field.\n\n```\n## Not a heading\n```\n\n## Battery budget\nAt most every 15 minutes.\n";
const PHOTO: &str = "---\ntitle: Photo Pipeline\naliases:\n  - photo uploads\n  - 'image pipeline'\n---\n# Photo pipeline\n\nPhotos go to object storage; see [[Offline Sync]].\n";
const ONLY: &str = "# Cutover\n\nWe switch on Tuesday. See [[cutover]] only.\n";
const MENTION: &str = "# Plan\n\nThe [[Cutover]] is the risky part.\n";

#[test]
fn a_link_names_its_note_by_file_name_title_alias_or_path() {
    let v = vault_of(&[
        ("app/Offline Sync.md", SYNC),
        ("app/photo-pipeline.md", PHOTO),
    ]);
    let sync = Some("memory://app/Offline Sync".to_string());
    let photo = Some("memory://app/photo-pipeline".to_string());
    // the file name, in any case and with any separator
    assert_eq!(named(&v, "Offline Sync"), sync);
    assert_eq!(named(&v, "offline_sync"), sync);
    assert_eq!(named(&v, "OFFLINE-SYNC"), sync);
    // a path, with or without `.md`
    assert_eq!(named(&v, "app/Offline Sync"), sync);
    assert_eq!(named(&v, "app/Offline Sync.md"), sync);
    // front matter title (Foam: a slug file name with a title)
    assert_eq!(named(&v, "Photo Pipeline"), photo);
    assert_eq!(named(&v, "photo-pipeline"), photo);
    // aliases: inline lists, block lists, quoted
    assert_eq!(named(&v, "sync engine"), sync);
    assert_eq!(named(&v, "photo uploads"), photo);
    assert_eq!(named(&v, "Image Pipeline"), photo);
    // sections and shown text do not change the note
    assert_eq!(named(&v, "Offline Sync#Conflict resolution"), sync);
    assert_eq!(named(&v, "Offline Sync|the sync"), sync);
    // no such note
    assert_eq!(named(&v, "Nowhere"), None);
    assert_eq!(named(&v, ""), None);
}

#[test]
fn ambiguous_names_resolve_as_obsidian_does() {
    let v = vault_of(&[
        ("deep/er/Notes.md", "# Notes\n\ndeep\n"),
        ("a/Notes.md", "# Notes\n\nshallow\n"),
        ("b/Notes.md", "# Notes\n\nother\n"),
        ("x/alias-holder.md", "---\naliases: [Notes, Title Holder]\n---\nalias\n"),
        ("y/titled.md", "---\ntitle: Title Holder\n---\ntitle\n"),
    ]);
    // the file name beats an alias; of equal files, the shortest path, then byte order
    assert_eq!(named(&v, "Notes").as_deref(), Some("memory://a/Notes"));
    // a title beats an alias
    assert_eq!(named(&v, "Title Holder").as_deref(), Some("memory://y/titled"));
    // a path picks exactly
    assert_eq!(named(&v, "deep/er/Notes").as_deref(), Some("memory://deep/er/Notes"));
    assert_eq!(named(&v, "b/Notes").as_deref(), Some("memory://b/Notes"));
}

#[test]
fn names_follow_edits_renames_and_deletes() {
    let mut v = vault_of(&[("app/photo-pipeline.md", PHOTO)]);
    assert!(named(&v, "image pipeline").is_some());
    v.upsert("app/photo-pipeline.md", "---\ntitle: Media\n---\nno aliases now\n".into(), 2000.0);
    assert_eq!(named(&v, "image pipeline"), None);
    // the old title is gone, but the file name still spells it
    assert_eq!(named(&v, "Photo Pipeline").as_deref(), Some("memory://app/photo-pipeline"));
    assert_eq!(named(&v, "media").as_deref(), Some("memory://app/photo-pipeline"));
    assert!(v.remove("app/photo-pipeline.md"));
    assert_eq!(named(&v, "media"), None);
    assert_eq!(named(&v, "photo-pipeline"), None);
    assert!(v.names.is_empty(), "no name outlives its note");
}

#[test]
fn context_leads_with_the_note_itself_then_links() {
    let v = vault_of(&[
        ("app/Offline Sync.md", SYNC),
        ("app/photo-pipeline.md", PHOTO),
    ]);
    let b = v.build_context("offline-sync", 1, 10, false);
    let n = b.note.as_ref().expect("the note the concept names");
    assert_eq!(n.uri, "memory://app/Offline Sync");
    assert_eq!(n.title, "Offline Sync");
    assert!(n.text.starts_with("Sightings are written to SQLite"), "{}", n.text);
    assert!(!n.text.contains("^batches"), "a block id is markup: {}", n.text);
    assert_eq!(b.linked_from, vec!["memory://app/photo-pipeline".to_string()]);
    // by an alias nobody links as such: the same note
    let b = v.build_context("sync-engine", 1, 10, false);
    assert_eq!(b.note.unwrap().uri, "memory://app/Offline Sync");
    // the rendered block names the note first
    let lines = crate::context::section_lines(&v.build_context("photo-pipeline", 1, 10, false));
    assert!(lines[1].starts_with("Note memory://app/photo-pipeline (Photo Pipeline): Photos go"), "{lines:?}");
    assert!(lines.iter().any(|l| l == "Links to: [[offline-sync]]"), "{lines:?}");
}

#[test]
fn a_section_or_block_link_brings_that_part() {
    let v = vault_of(&[("app/Offline Sync.md", SYNC)]);
    let text = |c: &str| v.build_context(c, 1, 10, false).note.unwrap();
    let n = text("offline-sync#Conflict resolution");
    assert_eq!(n.section.as_deref(), Some("Conflict resolution"));
    assert!(n.text.starts_with("The last write wins"), "{}", n.text);
    // case and separators do not matter; a heading in code is not one
    assert!(text("offline-sync#battery_BUDGET").text.starts_with("At most every 15"));
    let missing = text("offline-sync#Not a heading");
    assert_eq!(missing.section, None, "falls back to the opening");
    assert!(missing.text.starts_with("Sightings are"));
    // Obsidian's nested heading link names the last heading
    assert!(text("offline-sync#Offline Sync#Battery budget").text.starts_with("At most"));
    // a block id: its block, without the marker
    let b = text("offline-sync#^batches");
    assert_eq!(b.section.as_deref(), Some("^batches"));
    assert!(b.text.starts_with("Sightings are written") && !b.text.contains("^batches"), "{}", b.text);
    assert_eq!(text("offline-sync#^nope").section, None);
}

#[test]
fn a_note_that_links_only_the_concept_counts_as_mentioning_it() {
    let v = vault_of(&[("ops/cutover.md", ONLY), ("plan.md", MENTION), ("other.md", "![[cutover#Plan]] embedded alone\n")]);
    let b = v.build_context("cutover", 1, 10, false);
    assert_eq!(b.note.unwrap().uri, "memory://ops/cutover");
    let mut from = b.linked_from.clone();
    from.sort();
    assert_eq!(from, vec!["memory://other".to_string(), "memory://plan".to_string()]);
}

#[test]
fn unknown_links_and_hostile_names_stay_empty() {
    let v = vault_of(&[("a.md", "---\naliases: [\"\", \"   \", \"#\"]\n---\n[[b]]\n")]);
    assert!(v.build_context("nowhere", 2, 10, true).is_empty());
    assert!(v.build_context("#", 2, 10, true).is_empty());
    // a concept with no note still has its graph context
    let b = v.build_context("b", 1, 10, false);
    assert!(b.note.is_none());
    assert_eq!(b.linked_from, vec!["memory://a".to_string()]);
    // aliases are capped per note
    let many: String = (0..500).map(|i| format!("a{i}, ")).collect();
    let v = vault_of(&[("m.md", &format!("---\naliases: {many}\n---\nx\n"))]);
    assert!(v.names.len() <= 2 + hookwise_text::markdown::MAX_ALIASES);
}

//! Each family's own rules, recognised from what the vault's root holds, on small vaults
//! written for these tests: Logseq (names from `title::`, front matter or the decoded file
//! name, `alias::`, case, the link forms, property values), Dendron (dot hierarchies,
//! label-first links, vault prefixes, embeds, `desc:`, the vaults of `dendron.yml`), and the
//! mixed cases: an Obsidian vault with a `title:` front matter, a Logseq graph without config.

use std::rc::Rc;

use super::*;
use crate::testing::TestHost;

const ROOT: &str = "/home/u/notes";

/// A vault of `files` (relative path, text), indexed through the host as a plugin does.
fn indexed(files: &[(&str, &str)]) -> (Rc<RefCell<Vault>>, RefreshStats) {
    let mut host = TestHost::default();
    host.dir(ROOT);
    for (p, t) in files {
        if let Some(d) = p.strip_suffix('/') {
            host.dir(&format!("{ROOT}/{d}"));
        } else {
            host.file(&format!("{ROOT}/{p}"), t);
        }
    }
    let vault = Rc::new(RefCell::new(Vault::new()));
    let v = vault.clone();
    let s = crate::testing::run(
        &mut host,
        move |io| async move { refresh(&io, &v, ROOT).await },
    );
    (vault, s)
}

fn named(v: &Rc<RefCell<Vault>>, link: &str) -> Option<String> {
    v.borrow().resolve_uri(link)
}

fn linked_from(v: &Rc<RefCell<Vault>>, link: &str) -> Vec<String> {
    v.borrow().build_context(link, 1, 5, true).linked_from
}

const LOGSEQ_CONFIG: &str = "{:meta/version 1\n ;; :file/name-format :legacy\n :file/name-format :triple-lowbar\n :hidden []}\n";

#[test]
fn logseq_pages_are_named_by_title_property_decoded_file_name_and_alias() {
    let (v, _) = indexed(&[
        ("logseq/config.edn", LOGSEQ_CONFIG),
        ("journals/", ""),
        ("pages/term___alias.md", "alias:: page alias, [[Other Name]]\ntype:: [[Feature]]\ndescription:: A second name for a page\n\n- An alias redirects to the page.\n"),
        ("pages/New to Logseq%3F.md", "- Start here.\n"),
        ("pages/tips_and_tricks.md", "---\ntitle: Tips and Tricks\n---\n- How to escape formatting\n"),
        ("pages/Todo list.md", "title:: Todos Page\nalias:: Todos\n\n# Not the title\n- things\n"),
        ("pages/Feature.md", "- A feature page\n"),
        ("pages/Linker.md", "- see #[[Todos]] and [the alias]([[term/alias]])\n- {{embed [[New to Logseq?]]}}\n- [[TIPS AND TRICKS]]\n"),
        ("logseq/bak/pages/Feature/2024-01-01.md", "- an old copy of [[Feature]]\n"),
    ]);
    assert!(
        v.borrow()
            .family_why
            .starts_with("logseq (logseq/config.edn"),
        "{}",
        v.borrow().family_why
    );
    assert_eq!(
        named(&v, "term/alias").as_deref(),
        Some("memory://pages/term___alias")
    );
    assert_eq!(
        named(&v, "Page Alias").as_deref(),
        Some("memory://pages/term___alias")
    );
    assert_eq!(
        named(&v, "other name").as_deref(),
        Some("memory://pages/term___alias")
    );
    assert_eq!(
        named(&v, "New to Logseq?").as_deref(),
        Some("memory://pages/New to Logseq%3F")
    );
    assert_eq!(
        named(&v, "tips and tricks").as_deref(),
        Some("memory://pages/tips_and_tricks")
    );
    assert_eq!(
        named(&v, "Todos").as_deref(),
        Some("memory://pages/Todo list")
    );
    assert_eq!(
        named(&v, "todos page").as_deref(),
        Some("memory://pages/Todo list")
    );
    // A Logseq page is never named by its first heading.
    assert_eq!(named(&v, "Not the title"), None);
    // Every link form counts: #[[X]], [label]([[X]]), {{embed [[X]]}}, a property's value.
    for (page, from) in [
        ("Todos", "memory://pages/Linker"),
        ("term/alias", "memory://pages/Linker"),
        ("New to Logseq?", "memory://pages/Linker"),
        ("Feature", "memory://pages/term___alias"),
    ] {
        assert!(
            linked_from(&v, page).contains(&from.to_string()),
            "{page}: {:?}",
            linked_from(&v, page)
        );
    }
    // Logseq's backups are not pages.
    assert_eq!(v.borrow().stats().files, 6);
    // The properties are no summary; the description is, and opens the page's context.
    let ctx = v.borrow().build_context("page alias", 1, 5, true);
    let note = ctx.note.expect("the page");
    assert!(
        note.text.starts_with("- An alias redirects"),
        "{}",
        note.text
    );
    assert_eq!(
        v.borrow()
            .recent(10, None)
            .iter()
            .find(|a| a.uri.ends_with("term___alias"))
            .unwrap()
            .summary,
        "A second name for a page"
    );
    // and the description is searched as a name is.
    assert_eq!(
        v.borrow().search("second name", 1)[0].uri,
        "memory://pages/term___alias"
    );
}

#[test]
fn logseq_legacy_file_names_and_a_graph_without_config() {
    let (v, _) = indexed(&[
        ("logseq/config.edn", "{:file/name-format :legacy}\n"),
        ("pages/area.sub.md", "- a namespaced page, legacy style\n"),
        ("pages/x%2Fy.md", "- percent-encoded namespace\n"),
    ]);
    assert!(v.borrow().family_why.contains(":legacy"));
    assert_eq!(
        named(&v, "area/sub").as_deref(),
        Some("memory://pages/area.sub")
    );
    assert_eq!(named(&v, "x/y").as_deref(), Some("memory://pages/x%2Fy"));

    // No logseq/config.edn: pages/ and journals/ still make a Logseq graph.
    let (v, _) = indexed(&[
        (
            "pages/Project___Plan.md",
            "title:: Project/Plan\nalias:: roadmap\n\n- the plan\n",
        ),
        ("journals/2026_01_02.md", "- worked on [[roadmap]]\n"),
    ]);
    assert!(
        v.borrow()
            .family_why
            .starts_with("logseq (pages/ and journals/"),
        "{}",
        v.borrow().family_why
    );
    assert_eq!(
        named(&v, "Roadmap").as_deref(),
        Some("memory://pages/Project___Plan")
    );
    assert_eq!(
        linked_from(&v, "project/plan"),
        vec!["memory://journals/2026_01_02"]
    );
}

const DENDRON_YML: &str = "version: 5\nworkspace:\n    vaults:\n        -\n            fsPath: vault\n            name: dendron.docs\n        - fsPath: 'private/'\n    journal:\n        dailyDomain: daily\n";

#[test]
fn dendron_reads_its_vaults_label_first_links_prefixes_embeds_and_desc() {
    let (v, _) = indexed(&[
        ("dendron.yml", DENDRON_YML),
        ("vault/dendron.topic.refactor.md", "---\nid: abc\ntitle: Refactor\ndesc: 'Move notes without breaking links'\n---\n## Summary\n\n{{fm.desc}}\n\n## Rename\nLinks follow the note.\n"),
        ("vault/dendron.topic.md", "---\ntitle: Topic\ndesc: ''\n---\nSee [[Refactoring|dendron.topic.refactor]], [[the vault one|dendron://dendron.docs/dendron.topic.refactor#rename]] and\n\n![[dendron.topic.refactor#rename]]\n"),
        ("private/people.alice.md", "---\ntitle: Alice\n---\nWorks on [[dendron.topic]].\n"),
        ("docs-dev/readme.md", "# Not a note of the workspace\n[[dendron.topic]]\n"),
        ("README.md", "[[dendron.topic]]\n"),
    ]);
    assert_eq!(
        v.borrow().family_why,
        "dendron (dendron.yml, vaults: vault private)"
    );
    assert_eq!(v.borrow().stats().files, 3);
    assert_eq!(
        named(&v, "dendron.topic.refactor").as_deref(),
        Some("memory://vault/dendron.topic.refactor")
    );
    // The label is no note: the target after `|` is, with or without its vault's prefix.
    let from = linked_from(&v, "dendron.topic.refactor");
    assert_eq!(from, vec!["memory://vault/dendron.topic"]);
    let topic = v.borrow().build_context("dendron.topic", 1, 5, true);
    assert_eq!(topic.note.unwrap().links, vec!["dendron.topic.refactor"]);
    assert!(
        v.borrow().graph.id("refactoring").is_none()
            && v.borrow().graph.id("the-vault-one").is_none()
    );
    // `desc:` is the summary, fills `{{fm.desc}}` and is searched.
    let note = v
        .borrow()
        .build_context("dendron.topic.refactor", 1, 5, true)
        .note
        .unwrap();
    assert!(
        note.text.contains("Move notes without breaking links"),
        "{}",
        note.text
    );
    assert!(!note.text.contains("{{fm.desc}}"));
    assert_eq!(
        v.borrow().search("breaking links", 1)[0].uri,
        "memory://vault/dendron.topic.refactor"
    );
    // A section through the anchor.
    let sec = v
        .borrow()
        .build_context("dendron.topic.refactor#Rename", 1, 5, true)
        .note
        .unwrap();
    assert!(sec.text.starts_with("Links follow"), "{}", sec.text);
}

#[test]
fn obsidian_and_foam_keep_target_first_links_and_front_matter_titles() {
    let (v, _) = indexed(&[
        (".obsidian/app.json", "{}"),
        (
            "Offline Sync.md",
            "---\ntitle: Sync Engine\n---\n# Offline Sync\nSee [[Photo Pipeline|the photos]].\n",
        ),
        ("Photo Pipeline.md", "Photos. [[Offline Sync]]\n"),
        ("a.b.md", "A dotted name is a name here: [[x|y]] links x.\n"),
    ]);
    assert_eq!(v.borrow().family_why, "obsidian (.obsidian/)");
    assert_eq!(
        named(&v, "Sync Engine").as_deref(),
        Some("memory://Offline Sync")
    );
    assert_eq!(named(&v, "a.b").as_deref(), Some("memory://a.b"));
    assert_eq!(
        linked_from(&v, "Photo Pipeline"),
        vec!["memory://Offline Sync"]
    );
    assert!(v.borrow().graph.id("x").is_some() && v.borrow().graph.id("y").is_none());

    let (v, _) = indexed(&[(".foam/", ""), ("index.md", "# Home\n")]);
    assert_eq!(v.borrow().family_why, "foam (.foam/)");
    let (v, _) = indexed(&[("index.md", "# Home\n")]);
    assert!(v.borrow().family_why.starts_with("none"));
}

#[test]
fn a_new_family_reads_every_note_again() {
    let mut host = TestHost::default();
    host.dir(ROOT);
    host.file(&format!("{ROOT}/vault/a.b.md"), "[[label|a.c]]\n");
    host.file(&format!("{ROOT}/vault/a.c.md"), "c\n");
    let vault = Rc::new(RefCell::new(Vault::new()));
    let run = |host: &mut TestHost| {
        let v = vault.clone();
        crate::testing::run(host, move |io| async move { refresh(&io, &v, ROOT).await })
    };
    run(&mut host);
    assert!(vault.borrow().graph.id("label").is_some());
    host.file(&format!("{ROOT}/dendron.yml"), DENDRON_YML);
    let s = run(&mut host);
    assert_eq!(s.read, 2);
    assert!(vault.borrow().graph.id("label").is_none() && vault.borrow().graph.id("a.c").is_some());
}

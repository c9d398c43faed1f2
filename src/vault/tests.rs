use std::cell::RefCell;
use std::rc::Rc;

use serde_json::json;

use super::*;
use crate::protocol::Request;
use crate::testing::drive::run_with;
use crate::testing::{Reply, TestHost};

fn entry(path: &str, mtime: f64, size: u64) -> DirEntry {
    DirEntry {
        path: path.into(),
        is_file: true,
        mtime_ms: mtime,
        size,
        ..Default::default()
    }
}

/// What maenifold's text form of a context holds: the graph, not the vault's note and
/// backlinks.
fn graph_only(b: &BuildContext) -> BuildContext {
    BuildContext {
        note: None,
        linked_from: Vec::new(),
        ..b.clone()
    }
}

/// A vault from `(path, text)` pairs, through the plan / ingest protocol.
fn vault_of(files: &[(&str, &str)]) -> Vault {
    let mut v = Vault::new();
    let listing: Vec<DirEntry> = files
        .iter()
        .map(|(p, t)| entry(p, 1000.0, t.len() as u64))
        .collect();
    let want = v.plan("/v", &listing, true);
    for (p, t) in files {
        assert!(want.contains(&p.to_string()));
        assert!(v.ingest(p, Ok(t.to_string())));
    }
    v
}

const AUTH: &str = "---\ntitle: Auth Design\ntags: [auth]\nmodified: 2026-02-18T19:02:00Z\n---\n# Auth Design\n\nWe use [[JWT]] for [[Session Tokens]] behind the [[REST API]].\n\n```\n[[not-a-link]]\n```\n";
const API: &str =
    "# The API\n\nThe [[REST API]] speaks JSON; [[JWT]] bearer tokens. See [[Rate Limiting]].\n";
const LIMITS: &str = "# Rate limits\n\n[[Rate Limiting]] uses a token bucket in [[Redis]].\n";

#[test]
fn uris_as_maenifold_forms_them() {
    assert_eq!(
        memory_uri("notes/auth-design.md"),
        "memory://notes/auth-design"
    );
    assert_eq!(memory_uri("notes\\win.md"), "memory://notes/win");
    assert_eq!(memory_uri("top.md"), "memory://top");
    assert_eq!(uri_path("memory://notes/a").as_deref(), Some("notes/a.md"));
}

#[test]
fn graph_weights_and_build_context_shape() {
    let v = vault_of(&[
        ("notes/auth-design.md", AUTH),
        ("notes/api.md", API),
        ("ops/limits.md", LIMITS),
    ]);
    let s = v.stats();
    assert_eq!(s.files, 3);
    // jwt, session-tokens, rest-api, rate-limiting, redis
    assert_eq!(s.concepts, 5);
    // auth: jwt-st, jwt-ra, st-ra; api: ra-jwt (same), ra-rl, jwt-rl; limits: rl-redis
    assert_eq!(s.edges, None, "counted only when a report asks");
    assert_eq!(v.edge_count(), graph::Edges::Exact(6));

    let ctx = v.build_context("REST API", 1, 20, false);
    assert_eq!(ctx.concept, "rest-api");
    let names: Vec<(&str, u32)> = ctx
        .direct
        .iter()
        .map(|r| (r.name.as_str(), r.co_occurrence))
        .collect();
    assert_eq!(
        names,
        vec![("jwt", 2), ("rate-limiting", 1), ("session-tokens", 1)]
    );
    // Newest first: auth-design has front matter modified 2026; api has mtime 1000 ms.
    assert_eq!(
        ctx.direct[0].files,
        vec!["memory://notes/auth-design", "memory://notes/api"]
    );
    assert!(ctx.expanded.is_empty());
    assert_eq!(
        BuildContext::parse(&ctx.to_text()).unwrap(),
        graph_only(&ctx)
    );
    assert!(ctx.to_text().starts_with(
        "Context for CONCEPT: rest-api\n\nDirect relations (3 CONCEPTS):\n  • jwt (co-occurs in 2 files)\n    Files: memory://notes/auth-design, memory://notes/api\n"
    ));

    let ctx = v.build_context("rest-api", 2, 20, true);
    assert_eq!(ctx.expanded, vec!["redis"]);
    let p = &ctx.direct[1].previews;
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].0, "memory://notes/api");
    assert!(
        p[0].1.starts_with("The [[REST API]] speaks JSON"),
        "{}",
        p[0].1
    );
    assert_eq!(
        BuildContext::parse(&ctx.to_text()).unwrap(),
        graph_only(&ctx)
    );

    let ctx = v.build_context("rest-api", 2, 1, false);
    assert_eq!(ctx.direct.len(), 1);
    assert_eq!(ctx.direct[0].name, "jwt");

    let none = v.build_context("not-a-link", 2, 20, true);
    assert!(none.is_empty());
    assert_eq!(
        none.to_text(),
        "Context for CONCEPT: not-a-link\n\nDirect relations (0 CONCEPTS):\n"
    );
}

#[test]
fn previews_are_bounded_and_round_trip() {
    let long = format!(
        "# Long\n\nIntro.\n\nThis [[alpha]] and [[beta]] paragraph goes on. {}\n",
        "More words, and more: here. ".repeat(60)
    );
    let v = vault_of(&[("l.md", &long)]);
    let ctx = v.build_context("alpha", 2, 20, true);
    let text = &ctx.direct[0].previews[0].1;
    assert!(text.starts_with("This [[alpha]]"));
    assert!(text.chars().count() <= PREVIEW_CHARS + 1);
    assert!(!text.contains('\n'));
    assert_eq!(
        BuildContext::parse(&ctx.to_text()).unwrap(),
        graph_only(&ctx)
    );
}

#[test]
fn files_per_relation_are_capped_and_counts_are_not() {
    let files: Vec<(String, String)> = (0..6)
        .map(|i| (format!("n{i}.md"), format!("[[a]] [[b]] note {i}")))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let v = vault_of(&refs);
    let ctx = v.build_context("a", 1, 20, false);
    assert_eq!(ctx.direct[0].co_occurrence, 6);
    assert_eq!(ctx.direct[0].files.len(), FILES_PER_RELATION);
    // Same mtime everywhere: by uri.
    assert_eq!(ctx.direct[0].files[0], "memory://n0");
}

#[test]
fn search_ranks_titles_and_bodies() {
    let v = vault_of(&[
        ("notes/auth-design.md", AUTH),
        ("notes/api.md", API),
        ("ops/limits.md", LIMITS),
        (
            "ops/redis.md",
            "# Redis\n\nCache cluster. Also used for rate limiting counters.\n",
        ),
    ]);
    let hits = v.search("rate limiting", 10);
    assert_eq!(hits[0].uri, "memory://ops/limits", "{hits:#?}");
    assert_eq!(hits.len(), 3);
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(hits[0].snippet.contains("token bucket"));
    assert!(hits
        .iter()
        .all(|h| h.snippet.chars().count() <= SNIPPET_CHARS));
    let hits = v.search("redis", 10);
    assert_eq!(hits[0].uri, "memory://ops/redis", "title match first");
    assert_eq!(hits[0].title, "Redis");
    assert!(v.search("the of and", 10).is_empty());
    assert!(v.search("zebra", 10).is_empty());
    assert_eq!(v.search("tokens", 1).len(), 1);
}

#[test]
fn recent_activity_by_modified_time() {
    let mut v = Vault::new();
    v.upsert(
        "old.md",
        "# Old\n\nFirst paragraph\nwraps.\n\n## A\n## B\n".into(),
        1_000.0,
    );
    v.upsert("new.md", "new body".into(), 3_000.0);
    v.upsert(
        "fm.md",
        "---\nmodified: 1970-01-01T00:00:02Z\n---\nbody".into(),
        9_000.0,
    );
    let r = v.recent(10, None);
    let names: Vec<&str> = r.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, vec!["new", "fm", "old"]);
    assert_eq!(r[1].modified_ms, 2_000.0, "front matter wins over mtime");
    assert_eq!(r[2].summary, "First paragraph wraps.");
    assert_eq!(r[2].sections, 2);
    assert_eq!(r[2].title, "Old");
    assert_eq!(v.recent(1, None).len(), 1);
    let since: Vec<String> = v
        .recent(10, Some(2_000.0))
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(since, vec!["new", "fm"]);
}

#[test]
fn read_by_uri_or_path() {
    let v = vault_of(&[("notes/api.md", API)]);
    assert_eq!(v.read("memory://notes/api").as_deref(), Some(API));
    assert_eq!(v.read("notes/api.md").as_deref(), Some(API));
    assert_eq!(v.read("memory://nope"), None);
    assert_eq!(v.title("memory://notes/api"), Some("The API"));
}

#[test]
fn incremental_add_change_delete_rename() {
    let mut v = Vault::new();
    let a1 = "[[x]] [[y]]";
    let b1 = "[[y]] [[z]]";
    let want = v.plan(
        "/v",
        &[entry("a.md", 1.0, 11), entry("b.md", 1.0, 11)],
        true,
    );
    assert_eq!(want, vec!["a.md", "b.md"]);
    v.ingest("a.md", Ok(a1.into()));
    v.ingest("b.md", Ok(b1.into()));
    assert_eq!(v.build_context("y", 1, 20, false).direct.len(), 2);

    // Nothing changed: nothing to read.
    assert!(v
        .plan(
            "/v",
            &[entry("a.md", 1.0, 11), entry("b.md", 1.0, 11)],
            true
        )
        .is_empty());

    // Change a (mtime), add c.
    let want = v.plan(
        "/v",
        &[
            entry("a.md", 2.0, 11),
            entry("b.md", 1.0, 11),
            entry("c.md", 1.0, 5),
        ],
        true,
    );
    assert_eq!(want, vec!["a.md", "c.md"]);
    v.ingest("a.md", Ok("[[x]] [[wolf]]".into()));
    v.ingest("c.md", Ok("[[z]]".into()));
    let y = v.build_context("y", 1, 20, false);
    assert_eq!(
        y.direct.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        vec!["z"]
    );
    assert_eq!(v.build_context("x", 1, 20, false).direct[0].name, "wolf");
    assert_eq!(v.search("wolf", 10).len(), 1);

    // Delete b: y is gone; z stays (c still links it).
    assert!(v
        .plan("/v", &[entry("a.md", 2.0, 11), entry("c.md", 1.0, 5)], true)
        .is_empty());
    assert!(v.build_context("y", 1, 20, false).is_empty());
    assert_eq!(v.stats().files, 2);
    assert_eq!(v.stats().concepts, 3); // x, wolf, z
    assert_eq!(v.edge_count(), graph::Edges::Exact(1)); // x-wolf

    // Rename a → d: a delete plus an add.
    let want = v.plan("/v", &[entry("d.md", 2.0, 11), entry("c.md", 1.0, 5)], true);
    assert_eq!(want, vec!["d.md"]);
    assert_eq!(v.read("memory://a"), None);
    v.ingest("d.md", Ok("[[x]] [[wolf]]".into()));
    assert_eq!(
        v.build_context("x", 1, 20, false).direct[0].files,
        vec!["memory://d"]
    );
    assert_eq!(v.search("wolf", 10)[0].uri, "memory://d");

    // A truncated listing never drops what it did not mention.
    assert!(v.plan("/v", &[entry("c.md", 1.0, 5)], false).is_empty());
    assert_eq!(v.stats().files, 2);
}

#[test]
fn many_changes_purge_and_reuse_ids() {
    let mut v = Vault::new();
    for round in 0..5 {
        for i in 0..200 {
            v.upsert(
                &format!("n{i}.md"),
                format!("round {round} [[c{i}]] [[hub]] word{round}"),
                round as f64,
            );
        }
    }
    assert_eq!(v.stats().files, 200);
    assert!(v.files.len() < 200 + 2 * PURGE_MIN, "{}", v.files.len());
    assert_eq!(v.search("word4", 300).len(), 200);
    assert!(v.search("word3", 300).is_empty());
    assert_eq!(v.build_context("hub", 1, 500, false).direct.len(), 200);
    for i in 0..200 {
        assert!(v.remove(&format!("n{i}.md")));
    }
    assert_eq!(v.stats(), Stats::default());
}

#[test]
fn skips_are_counted_never_fatal() {
    let mut v = Vault::new();
    let listing = vec![
        entry("ok.md", 1.0, 5),
        entry("huge.md", 1.0, MAX_FILE_BYTES + 1),
        entry("binary.md", 1.0, 10),
        entry("gone.md", 1.0, 10),
        entry("locked.md", 1.0, 10),
        entry("image.png", 1.0, 10),
        entry(".obsidian/workspace.md", 1.0, 10),
        entry("../escape.md", 1.0, 10),
    ];
    let want = v.plan("/v", &listing, true);
    assert_eq!(want, vec!["ok.md", "binary.md", "gone.md", "locked.md"]);
    v.ingest("ok.md", Ok("[[a]]".into()));
    use crate::protocol::ReplyError;
    v.ingest(
        "binary.md",
        Err(ReadError::from_host(ReplyError::NotUtf8, None)),
    );
    v.ingest(
        "gone.md",
        Err(ReadError::from_host(ReplyError::NotFound, Some("ENOENT"))),
    );
    v.ingest(
        "locked.md",
        Err(ReadError::from_host(
            ReplyError::Denied,
            Some("EACCES: permission denied"),
        )),
    );
    let s = v.stats();
    assert_eq!(s.files, 1);
    assert_eq!(
        s.skipped,
        Skipped {
            too_large: 1,
            not_utf8: 1,
            unreadable: 1,
            vanished: 1,
            outside: 1,
        }
    );
    // The next scan does not ask for the unchanged non-UTF-8 file again, but still counts it;
    // the unreadable one is tried again.
    let want = v.plan("/v", &listing[..5], true);
    assert_eq!(want, vec!["gone.md", "locked.md"]);
    assert_eq!(v.stats().skipped.not_utf8, 1);
    // A file that grew past the limit after the listing is skipped when read.
    let mut v = Vault::new();
    v.plan("/v", &[entry("grew.md", 1.0, 10)], true);
    v.ingest("grew.md", Ok("x".repeat(MAX_FILE_BYTES as usize + 1)));
    assert_eq!(v.stats().skipped.too_large, 1);
    assert_eq!(v.stats().files, 0);
    // A file that turns unreadable is dropped.
    let mut v = vault_of(&[("a.md", "[[q]]")]);
    v.plan("/v", &[entry("a.md", 2.0, 5)], true);
    v.ingest("a.md", Err(ReadError::NotUtf8));
    assert_eq!(v.stats().files, 0);
    assert!(v.build_context("q", 1, 20, false).is_empty());
}

#[test]
fn symlinks_leaving_the_vault_are_rejected() {
    let mut v = Vault::new();
    let mut inside_link = entry("link-in.md", 1.0, 5);
    inside_link.is_symlink = true;
    inside_link.realpath = Some("/real/vault/notes/target.md".into());
    let mut outside_link = entry("link-out.md", 1.0, 5);
    outside_link.is_symlink = true;
    outside_link.realpath = Some("/etc/passwd.md".into());
    let mut sibling = entry("sneaky.md", 1.0, 5);
    sibling.is_symlink = true;
    sibling.realpath = Some("/real/vault-evil/x.md".into());
    let mut dir_link = entry("dir", 1.0, 0);
    dir_link.is_file = false;
    dir_link.is_dir = true;
    dir_link.is_symlink = true;
    let want = v.plan(
        "/real/vault",
        &[inside_link, outside_link, sibling, dir_link],
        true,
    );
    assert_eq!(want, vec!["link-in.md"]);
    assert_eq!(v.stats().skipped.outside, 2);

    // Windows paths compare by component too.
    let mut win = entry("w.md", 1.0, 5);
    win.realpath = Some("C:\\Users\\me\\vault\\w.md".into());
    let mut evil = entry("e.md", 1.0, 5);
    evil.realpath = Some("C:\\Users\\me\\vault2\\e.md".into());
    let want = v.plan("C:\\Users\\me\\vault", &[win, evil], true);
    assert_eq!(want, vec!["w.md"]);
    // A path listed twice is read once.
    let want = v.plan("/v", &[entry("a.md", 1.0, 5), entry("a.md", 1.0, 5)], true);
    assert_eq!(want, vec!["a.md"]);
}

#[test]
fn code_examples_do_not_make_concepts() {
    let v = vault_of(&[("notes/auth-design.md", AUTH)]);
    assert!(v.build_context("not-a-link", 1, 20, false).is_empty());
    assert_eq!(v.stats().concepts, 3);
    // Search still finds words inside code.
    assert_eq!(v.search("not-a-link", 10).len(), 1);
}

/// The test host with a vault at `root`, and what each refresh asked of it.
struct FakeHost {
    host: TestHost,
    root: String,
    /// Files read (relative to the root), by `ReadFile` or `ReadFiles`.
    reads: Vec<String>,
    /// The most files read in one round of requests.
    max_batch: usize,
    /// `ReadFiles` requests answered, and refused (an `old` host).
    batches: usize,
    refused: usize,
    /// `types_only` of each listing asked for.
    listings: Vec<bool>,
}

impl FakeHost {
    fn new(root: &str, old: bool) -> FakeHost {
        let mut host = TestHost::default();
        host.dir(root);
        host.old = old;
        FakeHost {
            host,
            root: root.into(),
            reads: Vec::new(),
            max_batch: 0,
            batches: 0,
            refused: 0,
            listings: Vec::new(),
        }
    }

    /// A note (relative to the root) with this mtime.
    fn put(&mut self, rel: &str, text: &str, mtime: f64) {
        let path = format!("{}/{rel}", self.root);
        self.host.file_at(&path, text, mtime);
    }

    fn remove(&mut self, rel: &str) {
        self.host.files.remove(&format!("{}/{rel}", self.root));
    }

    fn run(&mut self, vault: Rc<RefCell<Vault>>) -> RefreshStats {
        let root = self.root.clone();
        let (seen, round) = (self.host.log.len(), self.host.rounds.len());
        let s = crate::testing::run(&mut self.host, move |io| async move {
            refresh(&io, &vault, &root).await
        });
        let under = format!("{}/", self.root);
        let log = &self.host.log;
        // The family's own files (read once a listing) are not notes.
        let family = |q: &Request| match q {
            Request::ReadFiles { paths, .. } => paths == &FAMILY_FILES,
            Request::ReadFile { path, .. } => FAMILY_FILES
                .iter()
                .any(|f| path.ends_with(&format!("/{f}"))),
            _ => false,
        };
        let reads = |q: &Request| -> Vec<String> {
            match q {
                _ if family(q) => vec![],
                Request::ReadFile { path, .. } => {
                    vec![path.strip_prefix(&under).expect("under the root").into()]
                }
                Request::ReadFiles { dir, paths, .. } if !self.host.old => {
                    assert_eq!(dir, &under);
                    paths.clone()
                }
                _ => vec![],
            }
        };
        for q in &log[seen..] {
            self.reads.extend(reads(q));
            match q {
                _ if family(q) => {}
                Request::ReadFiles { .. } if self.host.old => self.refused += 1,
                Request::ReadFiles { .. } => self.batches += 1,
                Request::ListDir { types_only, .. } => self.listings.push(*types_only),
                _ => {}
            }
        }
        let mut starts: Vec<usize> = self.host.rounds[round..].to_vec();
        starts.push(log.len());
        for w in starts.windows(2) {
            let n: usize = log[w[0]..w[1]].iter().map(|q| reads(q).len()).sum();
            self.max_batch = self.max_batch.max(n);
        }
        s
    }
}

#[test]
fn refresh_drives_the_host_incrementally() {
    // The first index asks for the entries' types only and keeps the size and mtime each read
    // reports; a host that knows neither gives full listings and bare reads, and the
    // listing's sizes and mtimes are kept instead. Either way the next refresh reads only
    // what changed.
    refresh_incrementally(false);
    refresh_incrementally(true);
}

fn refresh_incrementally(old: bool) {
    let mut host = FakeHost::new("/home/u/vault", old);
    host.host.packed = false;
    for i in 0..150 {
        host.put(
            &format!("notes/n{i:03}.md"),
            &format!("# Note {i}\n\n[[hub]] and [[c{i}]]"),
            1.0,
        );
    }
    host.put("bad.md", "\u{FFFD}binary", 1.0);
    host.put("readme.txt", "[[ignored]]", 1.0);
    let vault = Rc::new(RefCell::new(Vault::new()));
    let s = host.run(vault.clone());
    assert_eq!(s.stats.files, 150);
    assert_eq!(s.read, 150);
    assert_eq!(s.stats.skipped.not_utf8, 1);
    assert_eq!(s.stats.concepts, 151);
    assert_eq!(vault.borrow().edge_count(), graph::Edges::Exact(150));
    assert_eq!(host.reads.len(), 151);
    assert!(host.max_batch <= READ_BATCH, "reads go out in batches");
    assert!(host.max_batch >= 2);
    // 151 notes: three `ReadFiles`; a host without it refuses the first and gets `ReadFile`s
    // from then on.
    assert_eq!(
        (host.batches, host.refused),
        if old { (0, 1) } else { (3, 0) }
    );

    // Second run, the listing packed as the JS host sends it: one change, one delete, one add,
    // nothing else read.
    host.host.packed = true;
    host.reads.clear();
    host.put("notes/n000.md", "[[hub]] [[fresh]]", 2.0);
    host.remove("notes/n001.md");
    host.put("notes/new.md", "[[hub]] [[c1]]", 3.0);
    let s = host.run(vault.clone());
    assert_eq!(
        host.listings,
        [true, false],
        "types only while nothing is indexed"
    );
    host.reads.sort();
    assert_eq!(host.reads, vec!["notes/n000.md", "notes/new.md"]);
    assert_eq!(s.read, 2);
    assert_eq!(s.removed, 1);
    assert_eq!(s.unchanged, 148);
    assert_eq!(s.stats.files, 150);
    let v = vault.borrow();
    assert_eq!(
        v.build_context("c1", 1, 5, false).direct[0].files,
        vec!["memory://notes/new"]
    );
    assert!(v.build_context("c0", 1, 5, false).is_empty());
    assert_eq!(v.build_context("hub", 1, 500, false).direct.len(), 150);
}

#[test]
fn refresh_reports_a_missing_vault() {
    // as the JS host answers: the stat's error code reaches the report
    let mut host = TestHost::default();
    let vault = Rc::new(RefCell::new(vault_of(&[("a.md", "[[x]]")])));
    let v2 = vault.clone();
    let result = host.run(move |io| async move {
        serde_json::to_value(refresh(&io, &v2, "/nope").await).unwrap()
    });
    // the stat and the listing go out together, in one round
    assert_eq!(host.log.len(), 2);
    assert_eq!(host.rounds, vec![0]);
    let error = result["error"].as_str().unwrap();
    assert!(error.starts_with("vault /nope: not-found"), "{error}");
    assert_eq!(result["files"], 0);
    assert_eq!(vault.borrow().stats().files, 0);

    // a host that only says it does not exist
    let vault = Rc::new(RefCell::new(vault_of(&[("a.md", "[[x]]")])));
    let v2 = vault.clone();
    let result = run_with(
        |req| match req {
            Request::Stat { .. } => Reply::Now(json!({"exists": false})),
            _ => Reply::Now(json!({"entries": [], "error": "not-found"})),
        },
        move |io| async move { serde_json::to_value(refresh(&io, &v2, "/nope").await).unwrap() },
    );
    assert!(result["error"].as_str().unwrap().contains("does not exist"));
    assert_eq!(result["files"], 0);
    assert_eq!(vault.borrow().stats().files, 0);
}

/// Replies the host should never send (a listing or stat that does not decode) say nothing
/// about the vault: the index is kept whole and the refresh reports the problem.
#[test]
fn a_malformed_reply_keeps_the_index() {
    let cases = [
        // a listing whose entries do not decode
        (
            json!({"exists": true, "isDir": true, "realpath": "/v"}),
            json!({"entries": 5}),
        ),
        (
            json!({"exists": true, "isDir": true, "realpath": "/v"}),
            json!({"entries": [{"path": 7}]}),
        ),
        // a stat reply that does not decode
        (json!({"exists": "maybe"}), json!({"entries": []})),
        (json!(null), json!({"entries": []})),
    ];
    for (stat, list) in cases {
        let vault = Rc::new(RefCell::new(vault_of(&[
            ("a.md", "[[x]] [[y]]"),
            ("b.md", "[[x]]"),
        ])));
        let v2 = vault.clone();
        let (s, l) = (stat.clone(), list.clone());
        let result = run_with(
            move |req| match req {
                Request::Stat { .. } => Reply::Now(s.clone()),
                Request::ListDir { .. } => Reply::Now(l.clone()),
                other => panic!("unexpected request {other:?}"),
            },
            move |io| async move { serde_json::to_value(refresh(&io, &v2, "/v").await).unwrap() },
        );
        assert!(
            result["error"].as_str().unwrap().contains("malformed"),
            "{result}"
        );
        assert_eq!(result["files"], 2, "{stat} {list}");
        assert_eq!(vault.borrow().stats().files, 2);
        assert_eq!(
            vault.borrow().build_context("x", 1, 5, false).direct.len(),
            1
        );
    }
}

#[test]
fn list_dir_request_shape() {
    let r = Request::ListDir {
        path: "/v".into(),
        recursive: true,
        max_entries: 10,
        skip_hidden: true,
        types_only: true,
    };
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"kind": "listDir", "path": "/v", "recursive": true, "maxEntries": 10,
               "skipHidden": true, "typesOnly": true})
    );
    let l: ListDirResult = serde_json::from_value(json!({"entries": [
        {"path": "a.md", "isFile": true, "isDir": false, "isSymlink": true,
         "realpath": "/v/b.md", "size": 3, "mtimeMs": 1.5}], "truncated": true}))
    .unwrap();
    assert_eq!(l.entries[0].realpath.as_deref(), Some("/v/b.md"));
    assert!(l.truncated && l.entries[0].is_symlink);
}

/// The example vault shipped in the repository (`examples/vault/`), read from disk.
fn example_vault() -> Vault {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vault");
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    vault_of(&refs)
}

#[test]
fn the_example_vault_is_coherent() {
    let v = example_vault();
    let s = v.stats();
    assert!((30..=45).contains(&s.files), "{s:?}");
    assert_eq!(s.skipped.total(), 0);
    // Links in code are not concepts.
    for c in ["not-a-link", "also-not-a-link"] {
        assert!(v.build_context(c, 1, 20, false).is_empty(), "{c}");
    }
    // Every note links something, and every concept's context renders and parses back
    // (maenifold's text form has no place for the note and its backlinks: the vault's own).
    for rec in v.files.iter().flatten() {
        assert!(!rec.concepts.is_empty(), "{} has no links", rec.path);
        for &(c, _) in &rec.concepts {
            let mut ctx = v.build_context(v.graph.name(c), 2, 20, true);
            ctx.note = None;
            ctx.linked_from.clear();
            assert_eq!(
                BuildContext::parse(&ctx.to_text()).unwrap(),
                ctx,
                "{}",
                ctx.concept
            );
        }
    }
    let jwt = v.build_context("JWT", 2, 10, false);
    let names: Vec<&str> = jwt.direct.iter().map(|r| r.name.as_str()).collect();
    for want in ["key-rotation", "jwks", "api-gateway", "session-tokens"] {
        assert!(names.contains(&want), "{want} not in {names:?}");
    }
    assert_eq!(
        v.search("rotate signing keys", 3)[0].uri,
        "memory://runbooks/rotate-jwt-signing-keys"
    );
    let top: Vec<String> = v
        .search("idempotency key double charge", 2)
        .into_iter()
        .map(|h| h.uri)
        .collect();
    assert!(
        top.contains(&"memory://data/idempotency".to_string()),
        "{top:?}"
    );
    assert!(top.contains(&"memory://incidents/2026-02-03-double-charges".to_string()));
    assert_eq!(
        v.recent(1, None)[0].uri,
        "memory://meetings/2026-03-09-ops-review"
    );
}

#[test]
fn top_k_matches_a_full_sort() {
    let mut seed = 12345u64;
    for n in [0usize, 1, 5, 40, 300] {
        for k in [0usize, 1, 3, 20, 33, 400] {
            let v: Vec<(u32, u32)> = (0..n)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 60) as u32, i as u32)
                })
                .collect();
            let cmp = |a: &(u32, u32), b: &(u32, u32)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
            let mut want = v.clone();
            want.sort_by(cmp);
            want.truncate(k);
            let mut got = v.clone();
            top_k(&mut got, k, cmp);
            assert_eq!(got, want, "n={n} k={k}");
        }
    }
}

/// `hookwise doctor`'s edge count through the vault: a hub note and a note tying every
/// hundredth of its concepts to a concept of its own, counted exactly in linear work (the
/// 100,000-link case, past 2^32 pairs, is in the graph's tests: parsing it here takes
/// seconds in a debug build).
#[test]
fn a_hub_note_counts_its_edges_in_linear_work() {
    let n: u64 = 5_000;
    let mut text = String::from("# hub\n");
    for i in 0..n {
        text.push_str(&format!("[[c{i}]] "));
    }
    let mut small = String::new();
    for i in (0..n).step_by(100) {
        small.push_str(&format!("[[c{i}]] [[own{i}]]\n\n"));
    }
    let v = vault_of(&[("hub.md", &text), ("small.md", &small)]);
    let c = v.edge_census();
    let small_concepts = 2 * n / 100;
    let own = n / 100;
    // the hub's pairs, plus small.md's pairs that hold an own-concept
    let want = n * (n - 1) / 2 + small_concepts * (small_concepts - 1) / 2 - own * (own - 1) / 2;
    assert_eq!(c.edges, graph::Edges::Exact(want));
    let stats = Stats {
        edges: Some(v.edge_count()),
        ..v.stats()
    };
    assert_eq!(serde_json::to_value(stats).unwrap()["edges"], json!(want));
    let links = n + small_concepts;
    assert!(c.steps <= 4 * links, "{c:?} for {links} links");
}

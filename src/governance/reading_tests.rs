//! The two readings of a write's path, as an attacker shapes the repository: links chained,
//! links to `..`, links into `.orchestration/` and `.git/`, dangling links, hard links.

use super::*;
use std::collections::HashMap;

/// A repository at `/w` (and a world around it) as lstat sees it.
struct Fs(HashMap<String, Node>);

impl Fs {
    fn new() -> Fs {
        let mut f = Fs(HashMap::new());
        for d in [
            "/",
            "/w",
            "/w/src",
            "/w/src/auth",
            "/w/src/auth/a",
            "/w/src/auth/a/b",
        ] {
            f.dir(d);
        }
        for d in [
            "/w/src/auth/a/b/c",
            "/w/.orchestration",
            "/w/.git",
            "/w/.git/hooks",
            "/tmp",
        ] {
            f.dir(d);
        }
        f.file("/w/README.md", 1);
        f.file("/w/src/auth/x.ts", 1);
        f.file("/w/.orchestration/active_intents.yaml", 1);
        f
    }
    fn dir(&mut self, p: &str) {
        self.0.insert(p.into(), Node::Dir);
    }
    fn file(&mut self, p: &str, nlink: u64) {
        self.0.insert(p.into(), Node::File { nlink });
    }
    fn link(&mut self, p: &str, t: &str) {
        self.0.insert(p.into(), Node::Link(t.into()));
    }
    fn read(&self, path: &str) -> Resolved {
        self.read_from("", path)
    }
    fn read_from(&self, base: &str, path: &str) -> Resolved {
        let mut asked = 0;
        let r = read_write_path("/w", base, path, &mut |p: &str| {
            asked += 1;
            Some(self.0.get(p).cloned().unwrap_or(Node::Missing))
        });
        assert!(
            asked <= 3 * (MAX_PATH_COMPONENTS + 2) + MAX_HOPS * 8,
            "{asked} questions"
        );
        r
    }
}

fn refused(r: &Resolved, words: &str) -> bool {
    matches!(r, Resolved::Refused(why) if why.contains(words))
}

#[test]
fn ordinary_paths_read_the_same_both_ways() {
    let f = Fs::new();
    assert_eq!(
        f.read("src/auth/x.ts"),
        Resolved::Inside("src/auth/x.ts".into())
    );
    assert_eq!(
        f.read("/w/src/auth/x.ts"),
        Resolved::Inside("src/auth/x.ts".into())
    );
    assert_eq!(
        f.read("./src//auth/./x.ts"),
        Resolved::Inside("src/auth/x.ts".into())
    );
    // new files in new folders
    assert_eq!(
        f.read("src/auth/new/deep/n.ts"),
        Resolved::Inside("src/auth/new/deep/n.ts".into())
    );
    // `..` through real folders and through folders that do not exist yet
    assert_eq!(
        f.read("src/auth/a/../x.ts"),
        Resolved::Inside("src/auth/x.ts".into())
    );
    assert_eq!(
        f.read("src/new/../auth/y.ts"),
        Resolved::Inside("src/auth/y.ts".into())
    );
    assert_eq!(
        f.read_from("/w/src", "auth/x.ts"),
        Resolved::Inside("src/auth/x.ts".into())
    );
    assert!(matches!(f.read("../etc/passwd"), Resolved::Outside(p) if p == "/etc/passwd"));
    assert!(matches!(f.read("src/.."), Resolved::Invalid(_)));
}

/// Critical 1: `src/auth/l -> a/b/c`, then `src/auth/l/../../../README.md`. On the text it is
/// README.md; the OS following `l` first lands in src/auth/README.md. Either way it is refused.
#[test]
fn dotdot_after_a_symlink_names_two_files_and_is_refused() {
    let mut f = Fs::new();
    f.link("/w/src/auth/l", "a/b/c");
    let r = f.read("src/auth/l/../../../README.md");
    assert!(refused(&r, "names two files"), "{r:?}");
    let r = f.read("src/auth/l/../../../.orchestration/active_intents.yaml");
    assert!(refused(&r, "names two files"), "{r:?}");
    let r = f.read("/w/src/auth/l/../../../README.md");
    assert!(refused(&r, "names two files"), "{r:?}");
    // a link to `..` itself
    f.link("/w/src/auth/up", "..");
    assert!(refused(&f.read("src/auth/up/../x.ts"), "names two files"));
    // the link read without `..` after it: its target, in scope or not, decided by the gate
    assert_eq!(
        f.read("src/auth/up/README.md"),
        Resolved::Linked {
            lexical: "src/auth/up/README.md".into(),
            real: "src/README.md".into()
        }
    );
}

#[test]
fn links_into_governance_and_git_are_seen_through() {
    let mut f = Fs::new();
    f.link("/w/src/auth/orch", "../../.orchestration");
    f.link("/w/src/auth/hook", "/w/.git/hooks/pre-commit");
    f.link("/w/src/auth/g", "../../.GIT");
    assert_eq!(
        f.read("src/auth/orch/active_intents.yaml"),
        Resolved::Linked {
            lexical: "src/auth/orch/active_intents.yaml".into(),
            real: ".orchestration/active_intents.yaml".into()
        }
    );
    // a dangling link into .git/hooks: the write would create the hook
    assert!(refused(&f.read("src/auth/hook"), ".git"));
    assert!(refused(&f.read("src/auth/g/config"), ".git"));
    // `.git` by its own path, in any case, at any depth (a submodule's, a worktree's file)
    for p in [
        ".git/hooks/pre-commit",
        ".GIT/config",
        "src/auth/.git",
        "vendor/sub/.git/config",
    ] {
        assert!(refused(&f.read(p), ".git"), "{p}");
    }
    // not `.git`: names that only start like it
    assert_eq!(f.read(".gitignore"), Resolved::Inside(".gitignore".into()));
    assert_eq!(
        f.read("src/.github/x"),
        Resolved::Inside("src/.github/x".into())
    );
}

/// Critical 2: dangling links land where they point.
#[test]
fn dangling_links_land_at_their_target() {
    let mut f = Fs::new();
    f.link("/w/src/auth/out", "/tmp/evil/x.sh");
    f.link("/w/src/auth/rel", "../../../outside.txt");
    f.link("/w/src/auth/orch", "../../.orchestration/new.yaml");
    assert!(matches!(f.read("src/auth/out"), Resolved::Outside(p) if p == "/tmp/evil/x.sh"));
    assert!(matches!(f.read("src/auth/rel"), Resolved::Outside(p) if p == "/outside.txt"));
    assert_eq!(
        f.read("src/auth/orch"),
        Resolved::Linked {
            lexical: "src/auth/orch".into(),
            real: ".orchestration/new.yaml".into()
        }
    );
    // a chain: link to a link to a dangling link outside
    f.link("/w/src/auth/c1", "c2");
    f.link("/w/src/auth/c2", "a/c3");
    f.link("/w/src/auth/a/c3", "/etc/cron.d/job");
    assert!(matches!(f.read("src/auth/c1"), Resolved::Outside(p) if p == "/etc/cron.d/job"));
    // a loop
    f.link("/w/src/auth/l1", "l2");
    f.link("/w/src/auth/l2", "l1");
    assert!(refused(&f.read("src/auth/l1"), "too many levels"));
}

#[test]
fn hard_links_are_refused_and_ordinary_files_are_not() {
    let mut f = Fs::new();
    f.file("/w/src/auth/readme-too.md", 2);
    assert!(refused(&f.read("src/auth/readme-too.md"), "hard link"));
    assert_eq!(
        f.read("src/auth/x.ts"),
        Resolved::Inside("src/auth/x.ts".into())
    );
    // a link to a hard-linked file is refused too
    f.link("/w/src/auth/via", "readme-too.md");
    assert!(refused(&f.read("src/auth/via"), "hard link"));
}

#[test]
fn links_that_stay_inside_are_linked_with_both_paths() {
    let mut f = Fs::new();
    f.link("/w/src/auth/cur", "a/b");
    assert_eq!(
        f.read("src/auth/cur/c/n.ts"),
        Resolved::Linked {
            lexical: "src/auth/cur/c/n.ts".into(),
            real: "src/auth/a/b/c/n.ts".into()
        }
    );
    // through the outside and back in: the same file both ways, still two paths
    f.link("/w/src/auth/round", "/tmp/r");
    f.link("/tmp/r", "/w/src/auth/a");
    assert_eq!(
        f.read("src/auth/round/f"),
        Resolved::Linked {
            lexical: "src/auth/round/f".into(),
            real: "src/auth/a/f".into()
        }
    );
    // outside the worktree on the text: outside, whatever it points to
    f.link("/tmp/back", "/w/src/auth");
    assert!(matches!(f.read("/tmp/back/x.ts"), Resolved::Outside(p) if p == "/tmp/back/x.ts"));
}

#[test]
fn a_worktree_reached_through_a_symlink() {
    let mut f = Fs(HashMap::new());
    for d in ["/", "/real", "/real/src"] {
        f.dir(d);
    }
    f.link("/link", "/real");
    let r = read_write_path("/link", "", "src/a.ts", &mut |p: &str| {
        Some(f.0.get(p).cloned().unwrap_or(Node::Missing))
    });
    assert_eq!(r, Resolved::Inside("src/a.ts".into()));
    let r = read_write_path("/link", "", "/real/src/a.ts", &mut |p: &str| {
        Some(f.0.get(p).cloned().unwrap_or(Node::Missing))
    });
    assert_eq!(r, Resolved::Inside("src/a.ts".into()));
}

#[test]
fn unreadable_components_and_unknown_answers_fail_closed() {
    let mut f = Fs::new();
    f.0.insert("/w/src/auth/a".into(), Node::Unreadable("EACCES".into()));
    assert!(refused(&f.read("src/auth/a/b/x"), "could not be looked at"));
    assert_eq!(
        Node::from_entry("error", Some("EACCES".into()), 0),
        Node::Unreadable("EACCES".into())
    );
    assert!(matches!(
        Node::from_entry("weird", None, 0),
        Node::Unreadable(_)
    ));
    assert!(matches!(
        Node::from_entry("link", None, 1),
        Node::Unreadable(_)
    ));
    // a fact not known yet: the answer is not taken
    let r = read_write_path("/w", "", "src/a", &mut |_| None);
    assert!(matches!(r, Resolved::Invalid(_)));
}

#[test]
fn windows_worktrees() {
    let mut f = Fs(HashMap::new());
    for d in ["C:/", "C:/repo", "C:/repo/src"] {
        f.dir(d);
    }
    f.link("C:/repo/src/j", "C:\\elsewhere");
    let mut look = |p: &str| Some(f.0.get(p).cloned().unwrap_or(Node::Missing));
    assert_eq!(
        read_write_path("C:\\repo", "", "src\\a.ts", &mut look),
        Resolved::Inside("src/a.ts".into())
    );
    assert_eq!(
        read_write_path("C:\\repo", "", "c:\\REPO\\src\\a.ts", &mut look),
        Resolved::Inside("src/a.ts".into())
    );
    assert!(matches!(
        read_write_path("C:\\repo", "", "src\\j\\x", &mut look),
        Resolved::Outside(p) if p == "C:/elsewhere/x"
    ));
}

#[test]
fn the_gate_wants_every_reading_in_scope() {
    let s = |rel: &str| rel.starts_with("src/auth/");
    let v = |r| verdict("p", r, &s);
    assert!(matches!(
        v(Resolved::Inside("src/auth/a".into())),
        Verdict::Allow
    ));
    let linked = |l: &str, r: &str| Resolved::Linked {
        lexical: l.into(),
        real: r.into(),
    };
    assert!(matches!(
        v(linked("src/auth/l/x", "src/auth/a/x")),
        Verdict::Allow
    ));
    assert!(
        matches!(v(linked("src/auth/l/x", "lib/x")), Verdict::OutOfScope(m) if m.contains("lib/x"))
    );
    assert!(matches!(
        v(linked("lib/l/x", "src/auth/x")),
        Verdict::OutOfScope(_)
    ));
    assert!(matches!(
        v(linked(
            "src/auth/l/a.yaml",
            ".orchestration/active_intents.yaml"
        )),
        Verdict::Governance(_)
    ));
    assert!(matches!(v(Resolved::Refused("why".into())), Verdict::Refused(m) if m.contains("why")));
    assert!(matches!(
        v(Resolved::Outside("/x".into())),
        Verdict::OutOfScope(_)
    ));
}

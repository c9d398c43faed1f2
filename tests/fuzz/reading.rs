//! The path-interpretation property: lexical vs resolved (`governance::reading`). A random
//! hostile repository (symlinks to `..`, absolute, relative, dangling, chained, looping, into
//! `.git` and `.orchestration`; hard links) and a random path: whatever the reader allows must
//! land on one file inside the worktree both for a host that folds `..` on the text and for one
//! that hands the path to the OS as written (0 fail-open); and a path that meets no symlink,
//! `.git` or hard link is never refused (nothing legitimate blocked).

use std::collections::HashMap;

use hookwise::governance::reading::{is_git_path, read_write_path, Node};
use hookwise::governance::scope::Resolved;
use proptest::prelude::*;

use crate::common::{check, nasty_string};

const DIRS: &[&str] = &[
    "/",
    "/w",
    "/w/a",
    "/w/a/b",
    "/w/.git",
    "/w/.orchestration",
    "/o",
];
const FILES: &[&str] = &["/w/f", "/w/a/f", "/w/.git/f", "/w/.orchestration/y", "/o/f"];
/// Where a link may sit (leaves of the tree, so the file system stays consistent).
const LINKS: &[&str] = &["/w/l1", "/w/a/l2", "/w/a/b/l3", "/o/l4", "/w/a/f2"];
const TARGETS: &[&str] = &[
    "..",
    "../..",
    "a",
    "a/b",
    "b",
    "/w",
    "/w/a",
    "/o",
    "/o/new",
    "/w/.git",
    ".git/f",
    "../.git",
    ".orchestration",
    "../.orchestration/y",
    "missing/x",
    "f",
    "../f",
    "b/../..",
    "l1",
    "/w/a/l2",
    "l3",
    "/w/l1",
    ".",
    "/",
    "/w/a/b/l3/..",
];
/// Path components, the links and `..` weighted up: a `..` right after a link is the case
/// where the readings part.
const COMPS: &[&str] = &[
    "a",
    "b",
    "f",
    "f2",
    "l1",
    "l2",
    "l3",
    "l4",
    "..",
    ".",
    ".git",
    ".GIT",
    ".orchestration",
    "new",
    "w",
    "o",
    "y",
    "l1",
    "l2",
    "l3",
    "..",
    "..",
    "..",
    "a",
];

type Fs = HashMap<String, Node>;

fn repository() -> impl Strategy<Value = Fs> {
    (
        prop::collection::vec(
            (prop::sample::select(LINKS), prop::sample::select(TARGETS)),
            0..5,
        ),
        prop::collection::vec(prop::sample::select(FILES), 0..2),
    )
        .prop_map(|(links, hard)| {
            let mut fs: Fs = HashMap::new();
            for d in DIRS {
                fs.insert(d.to_string(), Node::Dir);
            }
            for f in FILES {
                let nlink = if hard.contains(f) { 2 } else { 1 };
                fs.insert(f.to_string(), Node::File { nlink });
            }
            for (at, t) in links {
                fs.insert(at.to_string(), Node::Link(t.to_string()));
            }
            fs
        })
}

fn tool_path() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["", "/w/", "/", "./"][..]),
        prop::collection::vec(prop::sample::select(COMPS), 1..7),
    )
        .prop_map(|(pre, c)| format!("{pre}{}", c.join("/")))
}

/// `/w/<p>` for a relative `p`, `p` itself when absolute.
fn absolute(p: &str) -> String {
    if p.starts_with('/') {
        p.to_string()
    } else {
        format!("/w/{p}")
    }
}

/// `..` folded on the text.
fn fold(p: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for c in p.split('/').filter(|c| !c.is_empty() && *c != ".") {
        if c == ".." {
            out.pop();
        } else {
            out.push(c);
        }
    }
    format!("/{}", out.join("/"))
}

/// Where the OS puts a write to the absolute path `p` (a model written apart from the
/// reader: it rewrites the path's text at the first symlink and starts over), with how many
/// symlinks it met; `None` for a loop (ELOOP).
fn kernel(fs: &Fs, p: &str, hops: usize) -> Option<(String, usize)> {
    let comps: Vec<&str> = p
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let mut done: Vec<&str> = Vec::new();
    for (i, c) in comps.iter().enumerate() {
        if *c == ".." {
            done.pop();
            continue;
        }
        done.push(c);
        if let Some(Node::Link(t)) = fs.get(&format!("/{}", done.join("/"))) {
            if hops >= 40 {
                return None;
            }
            let parent = format!("/{}", done[..done.len() - 1].join("/"));
            let target = if t.starts_with('/') {
                t.clone()
            } else {
                format!("{parent}/{t}")
            };
            return kernel(
                fs,
                &format!("{target}/{}", comps[i + 1..].join("/")),
                hops + 1,
            );
        }
    }
    Some((format!("/{}", done.join("/")), hops))
}

fn inside(p: &str) -> Option<&str> {
    p.strip_prefix("/w/").filter(|r| !r.is_empty())
}

#[test]
fn the_path_interpretation_property_lexical_vs_resolved() {
    check(
        "reading: lexical vs resolved (hostile repository)",
        2048,
        (repository(), tool_path()),
        |(fs, p)| {
            let r = read_write_path("/w", "", &p, &mut |q| {
                Some(fs.get(q).cloned().unwrap_or(Node::Missing))
            });
            let abs = absolute(&p);
            let text = fold(&abs);
            let on_text = kernel(&fs, &text, 0);
            let as_written = kernel(&fs, &abs, 0);
            let allowed = match &r {
                Resolved::Inside(rel) => Some((rel.clone(), rel.clone())),
                Resolved::Linked { lexical, real } => Some((lexical.clone(), real.clone())),
                _ => None,
            };
            if let Some((lexical, real)) = allowed {
                // fail-open would be: a host lands anywhere else than the file judged
                let file = format!("/w/{real}");
                prop_assert_eq!(text, format!("/w/{lexical}"), "{:?}: {:?}", p, r);
                prop_assert_eq!(
                    on_text.as_ref().map(|x| &x.0),
                    Some(&file),
                    "{:?}: {:?}",
                    p,
                    r
                );
                prop_assert_eq!(
                    as_written.as_ref().map(|x| &x.0),
                    Some(&file),
                    "{:?}: {:?}",
                    p,
                    r
                );
                prop_assert!(
                    !is_git_path(&lexical) && !is_git_path(&real),
                    "{p:?}: {r:?}"
                );
                prop_assert!(
                    !matches!(fs.get(&file), Some(Node::File { nlink }) if *nlink > 1),
                    "{p:?}: a hard link allowed"
                );
            } else if let (Some((a, 0)), Some((b, 0))) = (&on_text, &as_written) {
                // no symlink on either reading: only `.git`, a hard link, the outside or the
                // worktree itself may refuse it
                let hard = matches!(fs.get(a), Some(Node::File { nlink }) if *nlink > 1);
                if let Some(rel) = inside(a).filter(|rel| a == b && !is_git_path(rel) && !hard) {
                    prop_assert!(false, "{p:?} ({rel}) was refused: {r:?}");
                }
            }
            Ok(())
        },
    );
}

#[test]
fn the_reader_takes_any_text() {
    check(
        "reading: any text, any worktree",
        256,
        (
            prop_oneof![
                Just("/w".to_string()),
                Just("C:\\w".to_string()),
                nasty_string()
            ],
            prop_oneof![tool_path(), nasty_string(), any::<String>()],
            repository(),
        ),
        |(wt, p, fs)| {
            let r = read_write_path(&wt, "", &p, &mut |q| {
                Some(fs.get(q).cloned().unwrap_or(Node::Missing))
            });
            if let Some(rel) = r.file() {
                prop_assert!(!rel.is_empty() && !rel.contains('\0'));
                prop_assert!(rel.split('/').all(|c| c != ".." && c != "."), "{rel:?}");
            }
            Ok(())
        },
    );
}

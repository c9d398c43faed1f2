//! Paths and globs: `governance::scope::{resolve, resolve_from, normalize_pattern,
//! Scope::compile}` and the glob matcher (`governance::glob::Glob`), checked against a model
//! of realpath and against globset (the reference the matcher ports).

use hookwise::governance::glob::Glob;
use hookwise::governance::scope::{normalize_pattern, resolve, resolve_from, Resolved, Scope};
use hookwise::testing::globs::{self, reference};
use proptest::prelude::*;

use crate::common::{check, nasty_string, text_of, LOWER};
use crate::engine::{model_target, path, project_fs};

/// `p` resolved lexically against `/w` (nothing exists, so no symlink is followed): the
/// worktree-relative path when it lands strictly inside `/w`.
fn lexical(p: &str) -> Option<String> {
    let abs = if p.starts_with('/') {
        p.to_string()
    } else {
        format!("/w/{p}")
    };
    if abs.starts_with("//") {
        return None; // a UNC root, not `/`
    }
    let mut out: Vec<&str> = Vec::new();
    for c in abs.split('/').filter(|c| !c.is_empty() && *c != ".") {
        if c == ".." {
            out.pop();
        } else {
            out.push(c);
        }
    }
    match out.split_first() {
        Some((&"w", rest)) if !rest.is_empty() => Some(rest.join("/")),
        _ => None,
    }
}

fn plain(p: &str) -> bool {
    !p.trim().is_empty()
        && !p.contains('\0')
        && !p.contains('\\')
        && (p.as_bytes().get(1) != Some(&b':') || p.starts_with('/'))
}

#[test]
fn resolve_without_symlinks_is_lexical() {
    check("scope: resolve (lexical model)", 512, path(), |p| {
        let mut asked = 0usize;
        let r = resolve("/w", &p, &mut |_| {
            asked += 1;
            None
        });
        let want = if plain(&p) { lexical(&p) } else { None };
        match &r {
            Resolved::Inside(rel) => {
                prop_assert_eq!(Some(rel.clone()), want, "{:?}", p);
                prop_assert!(rel
                    .split('/')
                    .all(|c| !c.is_empty() && c != "." && c != ".."));
            }
            _ => prop_assert!(want.is_none(), "{p:?} is inside at {want:?}, got {r:?}"),
        }
        // a relative path that climbs above the worktree at some point and never names it
        // again (`w`) cannot land inside
        let comps = p.split('/').filter(|c| !c.is_empty() && *c != ".");
        let (mut depth, mut escaped) = (0i64, false);
        for c in comps.clone() {
            if c == ".." {
                depth -= 1;
                escaped |= depth < 0;
            } else {
                depth += 1;
            }
        }
        if escaped && !p.starts_with('/') && comps.clone().all(|c| c != "w") {
            prop_assert!(!matches!(r, Resolved::Inside(_)), "{p:?}: {r:?}");
        }
        Ok(())
    });
}

#[test]
fn resolve_follows_symlinks_like_the_os() {
    let fs = project_fs();
    check(
        "scope: resolve_from (realpath model, symlinks)",
        512,
        (
            prop::sample::select(&["", "/w", "/w/src", "/w/docs/in", "/w/src/auth/out"][..]),
            path(),
        ),
        |(base, p)| {
            let r = resolve_from("/w", base, &p, &mut |q| fs.realpath(q));
            // the model resolves relative paths against the worktree: rebase first
            let rebased = if p.starts_with('/') || base.is_empty() {
                p.clone()
            } else {
                format!("{base}/{p}")
            };
            let want = if plain(&p) {
                model_target(&fs, &rebased)
            } else {
                None
            };
            match &r {
                Resolved::Inside(rel) => {
                    prop_assert_eq!(Some(rel), want.as_ref(), "{:?} from {:?}", p, base)
                }
                _ => prop_assert!(
                    want.is_none() || p.starts_with("//"),
                    "{p:?} from {base:?} lands inside at {want:?}, got {r:?}"
                ),
            }
            Ok(())
        },
    );
}

#[test]
fn resolve_takes_any_text() {
    check(
        "scope: resolve (any text, any worktree)",
        256,
        (
            prop_oneof![
                Just("/w".to_string()),
                Just("C:\\w".to_string()),
                nasty_string()
            ],
            prop_oneof![path(), nasty_string(), any::<String>()],
            prop_oneof![Just(String::new()), nasty_string()],
        ),
        |(wt, p, base)| {
            let fs = project_fs();
            let r = resolve_from(&wt, &base, &p, &mut |q| fs.realpath(q));
            if let Resolved::Inside(rel) = r {
                prop_assert!(!rel.is_empty() && !rel.contains('\0'));
                prop_assert!(rel.split('/').all(|c| c != ".." && c != "."), "{rel:?}");
            }
            Ok(())
        },
    );
}

/// Pieces of globs beyond the glob module's own generator (`hookwise::testing::globs`).
const MORE_GLOB_PIECES: &[&str] = &[
    "!", "..", "./", "é", "[é]", "{{a}}", "[]]", "[a-]", "[z-a]", " ",
];
const PATH_BYTES: &[&str] = &["a", "A", "b", "/", ".", "*", "-", ",", "é", "[", "{", " "];

fn glob_pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select([globs::PIECES, MORE_GLOB_PIECES].concat()),
        0..7,
    )
    .prop_map(|v| v.concat())
}

fn glob_path() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PATH_BYTES), 0..10).prop_map(|v| v.concat())
}

#[test]
fn glob_agrees_with_globset() {
    check(
        "glob: differential against globset",
        512,
        (
            glob_pattern(),
            any::<bool>(),
            prop::collection::vec(glob_path(), 1..8),
        ),
        |(pat, ci, paths)| {
            let ours = Glob::new(&pat, ci);
            let theirs = reference(&pat, ci);
            match (&ours, &theirs) {
                (Ok(o), Ok(t)) => {
                    for p in &paths {
                        prop_assert_eq!(
                            o.is_match(p),
                            t.is_match(p),
                            "pattern {:?} (ci {}) on {:?}",
                            pat,
                            ci,
                            p
                        );
                    }
                }
                // deliberate: a class with a non-ASCII character is refused here
                (Err(_), Ok(_)) => prop_assert!(!pat.is_ascii(), "{pat:?} refused: {ours:?}"),
                (Ok(_), Err(e)) => prop_assert!(false, "{pat:?} accepted; globset: {e}"),
                (Err(_), Err(_)) => {}
            }
            Ok(())
        },
    );
}

#[test]
fn glob_takes_any_text() {
    check(
        "glob: any pattern, any path",
        256,
        (
            prop_oneof![glob_pattern(), nasty_string(), any::<String>()],
            prop_oneof![glob_path(), nasty_string(), any::<String>()],
            any::<bool>(),
        ),
        |(pat, p, ci)| {
            if let Ok(g) = Glob::new(&pat, ci) {
                let _ = g.is_match(&p);
            }
            Ok(())
        },
    );
}

#[test]
fn patterns_normalize_and_scopes_compile() {
    check(
        "scope: normalize_pattern / Scope::compile / matches",
        512,
        (
            prop::collection::vec(
                prop_oneof![
                    3 => (prop::sample::select(&["", "!", "! ", "./", "/", "././"][..]), glob_pattern())
                        .prop_map(|(a, b)| format!("{a}{b}")),
                    1 => nasty_string(),
                ],
                0..5,
            ),
            prop::collection::vec(glob_path(), 1..6),
        ),
        |(patterns, paths)| {
            let each: Vec<_> = patterns.iter().map(|p| normalize_pattern(p)).collect();
            for (raw, n) in patterns.iter().zip(&each) {
                if let Ok(n) = n {
                    prop_assert!(!n.globs.is_empty());
                    prop_assert_eq!(n.exclude, raw.trim().starts_with('!'));
                    for g in &n.globs {
                        prop_assert!(g.split('/').all(|c| c != ".."), "{g:?}");
                    }
                }
            }
            let scope = Scope::compile(&patterns);
            prop_assert_eq!(scope.is_ok(), each.iter().all(Result::is_ok));
            if let Ok(scope) = scope {
                for p in &paths {
                    let m = scope.matches(p);
                    // no include pattern: nothing is in scope
                    if each.iter().flatten().all(|n| n.exclude) {
                        prop_assert!(!m);
                    }
                    // in scope: some include glob matches (case-sensitively)
                    if m {
                        let inc = each
                            .iter()
                            .flatten()
                            .filter(|n| !n.exclude)
                            .flat_map(|n| n.globs.iter())
                            .any(|g| Glob::new(g, false).unwrap().is_match(p));
                        prop_assert!(inc, "{p:?} in scope {patterns:?} but no include matches");
                    }
                }
            }
            Ok(())
        },
    );
}

/// A plain path pattern names itself and everything below it.
#[test]
fn a_plain_pattern_names_its_subtree() {
    check(
        "scope: plain path patterns",
        256,
        (
            prop::collection::vec(text_of(LOWER, 1..5), 1..4).prop_map(|v| v.join("/")),
            text_of(LOWER, 1..5),
        ),
        |(dir, leaf)| {
            let s = Scope::compile(&[dir.as_str()]).unwrap();
            prop_assert!(s.matches(&dir));
            let below = format!("{dir}/{leaf}");
            prop_assert!(s.matches(&below));
            let beside = format!("{dir}x");
            prop_assert!(!s.matches(&beside));
            Ok(())
        },
    );
}

/// Run `f` on a thread with a small stack (smaller than the wasm build's 1 MiB): input that
/// recurses per byte overflows it.
pub fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no panic")
}

/// Found by probing the matcher: it recursed once per byte of the path (a stack overflow
/// at 10 KB in a test thread) and took time quadratic in the path for each `**`.
#[test]
fn glob_matching_a_long_path_does_not_recurse() {
    small_stack(|| {
        let flat = "a".repeat(1 << 20);
        let slashed = "a/".repeat(32 << 10);
        for pat in ["*x", "*a*a*x", "{a,b}*x*", "[a]*?x"] {
            assert!(!Glob::new(pat, false).unwrap().is_match(&flat), "{pat}");
        }
        for pat in ["**/x", "a/**/a/**/x", "*/**/*/**/x", "a/**"] {
            let g = Glob::new(pat, false).unwrap();
            assert_eq!(g.is_match(&slashed), pat == "a/**", "{pat}");
        }
        let s = Scope::compile(&["src/**", "!src/**/secret*/**"]).unwrap();
        assert!(s.matches(&format!("src/{}", "a/".repeat(32 << 10))));
    });
}

/// Found by probing the parser: 10,000 nested `{` overflowed the stack when the groups were
/// expanded (an `owned_scope` entry in a hostile `active_intents.yaml`).
#[test]
fn deeply_nested_alternates_are_refused() {
    small_stack(|| {
        for n in [33usize, 10_000, 1_000_000] {
            let pat = format!("{}a{}", "{".repeat(n), "}".repeat(n));
            assert!(Glob::new(&pat, false).is_err(), "{n}");
            assert!(Scope::compile(&[pat.as_str()]).is_err());
        }
        let ok = format!("{}a{}", "{".repeat(32), "}".repeat(32));
        assert!(Glob::new(&ok, false).unwrap().is_match("a"));
    });
}

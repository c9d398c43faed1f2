//! Path resolution as an attacker would try it: long paths, many `..`, many components, mixed
//! separators, NUL bytes, unicode, symlink chains — bounded by counting the host's questions,
//! never by wall time — and a check that the linear walk answers as the earlier (cubic) one.

use std::collections::{HashMap, HashSet};

use super::*;
use crate::testing::TestHost;

/// The host's realpath over a fake file system, counting the questions and their bytes.
struct Counting<'a> {
    fs: &'a TestHost,
    calls: usize,
    bytes: usize,
}

impl Counting<'_> {
    fn ask(&mut self, p: &str) -> Option<String> {
        self.calls += 1;
        self.bytes += p.len();
        self.fs.realpath(p)
    }
}

fn worktree() -> TestHost {
    let mut fs = TestHost::default();
    fs.file("/w/src/a.ts", "a");
    fs.dir("/w/secrets");
    fs.dir("/outside");
    fs.dir("/elsewhere/deep");
    fs.link("/w/src/out", "/outside");
    fs.link("/w/src/in", "/w/src");
    fs.link("/w/lnk", "/elsewhere/deep");
    // a chain: each link points at the next, the last one outside
    for i in 0..20 {
        fs.link(&format!("/w/c{i}"), &format!("/w/c{}", i + 1));
    }
    fs.link("/w/c20", "/outside");
    // a loop
    fs.link("/w/loop1", "/w/loop2");
    fs.link("/w/loop2", "/w/loop1");
    fs
}

fn run(fs: &TestHost, path: &str) -> (Resolved, usize, usize) {
    let mut c = Counting {
        fs,
        calls: 0,
        bytes: 0,
    };
    let r = resolve("/w", path, &mut |p: &str| c.ask(p));
    (r, c.calls, c.bytes)
}

fn invalid(r: &Resolved) -> &str {
    match r {
        Resolved::Invalid(why) => why,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn over_the_length_limit_is_refused_before_any_question() {
    let fs = worktree();
    // 4097 bytes, 4 KB and 64 KB, and a unicode path counted in bytes (2 bytes per `é`)
    for path in [
        format!("src/{}", "a".repeat(MAX_PATH_BYTES - 3)),
        format!("src/{}", "é".repeat(MAX_PATH_BYTES / 2)),
        "a/".repeat(32 * 1024),
        "../".repeat(21 * 1024),
        format!("/w/src/{}", "x\0".repeat(40_000)),
    ] {
        assert!(path.len() > MAX_PATH_BYTES);
        let (r, calls, _) = run(&fs, &path);
        let why = invalid(&r);
        assert!(why.contains("over the limit of 4096 bytes"), "{why}");
        assert_eq!(calls, 0, "nothing is asked of the host");
    }
    // exactly at the limit: resolved
    let path = format!("src/{}", "a".repeat(MAX_PATH_BYTES - 4));
    assert_eq!(path.len(), MAX_PATH_BYTES);
    assert!(matches!(run(&fs, &path).0, Resolved::Inside(_)));
}

#[test]
fn over_the_component_limit_is_refused_before_any_question() {
    let fs = worktree();
    for path in [
        "a/".repeat(MAX_PATH_COMPONENTS + 1),
        format!("{}{}", "a/".repeat(200), "../".repeat(57)),
        "./".repeat(MAX_PATH_COMPONENTS + 1),
        format!("src/{}a.ts", "./".repeat(MAX_PATH_COMPONENTS)),
    ] {
        let (r, calls, _) = run(&fs, &path);
        let why = invalid(&r);
        assert!(why.contains("components, over the limit of 256"), "{why}");
        assert_eq!(calls, 0);
    }
    // empty components (`//`) are not components
    let path = format!("src{}a.ts", "/".repeat(1000));
    assert_eq!(run(&fs, &path).0, Resolved::Inside("src/a.ts".into()));
    // 256 components: resolved (128 folders in, 127 out, then a file)
    let path = format!("{}{}x", "d/".repeat(128), "../".repeat(127));
    assert_eq!(run(&fs, &path).0, Resolved::Inside("d/x".into()));
}

#[test]
fn windows_backslashes_count_as_separators_for_the_limit() {
    let mut f = |p: &str| Some(p.to_string());
    let path = "a\\".repeat(MAX_PATH_COMPONENTS + 1);
    let r = resolve("C:\\repo", &path, &mut f);
    assert!(invalid(&r).contains("components"));
    let path = format!("{}b", "a\\/".repeat(100));
    assert!(matches!(
        resolve("C:\\repo", &path, &mut f),
        Resolved::Inside(_)
    ));
}

#[test]
fn hostile_paths_within_the_limits_ask_once_per_component() {
    let fs = worktree();
    let cases = [
        // in and out again: the 4.7 s case of the issue, cut to the component limit
        format!("{}{}x", "d/".repeat(127), "../".repeat(128)),
        // as deep as allowed and out of the worktree
        format!("{}{}etc/passwd", "d/".repeat(100), "../".repeat(150)),
        // through a symlink that leads out, then `..` after each step
        format!("{}x", "src/out/../".repeat(80)),
        "src/in/".repeat(120) + "a.ts",
        "lnk/../".repeat(120),
        "c0/../c0/".repeat(60),
        "loop1/../".repeat(100),
        // long names
        format!("{}/x", "n".repeat(4000)),
        format!("{}{}", "é/".repeat(200), "../".repeat(50)),
    ];
    for path in &cases {
        assert!(path.len() <= MAX_PATH_BYTES && path.split('/').count() <= 257);
        let (r, calls, bytes) = run(&fs, path);
        let comps = 1 + path.split('/').filter(|c| !c.is_empty()).count();
        assert!(
            calls <= comps + 2,
            "{calls} questions for {comps} components: {}…",
            &path[..40.min(path.len())]
        );
        // every question is at most the longest path the walk held
        assert!(bytes <= calls * (MAX_PATH_BYTES + 64), "{bytes}");
        assert!(!matches!(r, Resolved::Inside(ref rel) if rel.contains("..")));
    }
}

#[test]
fn the_walk_is_linear_beyond_the_limits_too() {
    // The limits are a documented promise; the walk itself does not need them. With them
    // lifted, twice the path is twice the questions.
    // every folder `/w/d/d/…/d` exists (a cheap host: the fake file system is itself slow on
    // paths this long)
    let exists = |p: &str| {
        p == "/"
            || p.strip_prefix("/w")
                .is_some_and(|r| r.split('/').skip(1).all(|c| c == "d"))
    };
    let count = |n: usize| {
        let path = format!("{}{}x", "d/".repeat(n), "../".repeat(n + 1));
        let mut calls = 0;
        let r = resolve_bounded("/w", "", &path, (usize::MAX, usize::MAX), &mut |p: &str| {
            calls += 1;
            exists(p).then(|| p.to_string())
        });
        assert_eq!(r, Resolved::Outside("/x".into()));
        calls
    };
    let (a, b) = (count(2_000), count(4_000));
    assert!(a <= 2_000 + 3 && b <= 4_000 + 3, "{a} {b}");
}

/// `ops::resolve_paths`' loop (a batch of stats per round until nothing new is asked),
/// counting the distinct requests the host gets and the rounds.
fn host_rounds(fs: &TestHost, path: &str) -> (Resolved, usize, usize) {
    let mut known: HashMap<String, Option<String>> = HashMap::new();
    for round in 1..=8 {
        let mut misses: Vec<String> = Vec::new();
        let r = resolve("/w", path, &mut |q: &str| match known.get(q) {
            Some(v) => v.clone(),
            None => {
                if !misses.iter().any(|m| m == q) {
                    misses.push(q.to_string());
                }
                None
            }
        });
        if misses.is_empty() {
            return (r, known.len(), round);
        }
        for m in misses {
            let real = fs.realpath(&m);
            known.insert(m, real);
        }
    }
    (
        Resolved::Invalid("too many levels of symlinks".into()),
        known.len(),
        9,
    )
}

#[test]
fn host_requests_per_path_are_bounded() {
    let fs = worktree();
    for path in [
        format!("{}{}x", "d/".repeat(127), "../".repeat(128)),
        format!("{}x", "src/out/../".repeat(80)),
        "lnk/../".repeat(120),
        "c0/".to_string() + &"../c0/".repeat(100),
        "src/".repeat(250),
    ] {
        let comps = path.split('/').filter(|c| !c.is_empty()).count();
        let (_, requests, rounds) = host_rounds(&fs, &path);
        assert!(rounds <= 4, "{rounds} rounds");
        assert!(
            requests <= rounds * (comps + 2),
            "{requests} requests in {rounds} rounds for {comps} components"
        );
    }
}

/// The resolver before it was made linear (a copy, for comparison): `real_of` asks every
/// prefix, deepest first, at every `..`.
fn reference(
    worktree: &str,
    path: &str,
    realpath: &mut dyn FnMut(&str) -> Option<String>,
) -> Resolved {
    fn prefix(a: &Abs, k: usize) -> String {
        let mut s = a.root.clone();
        s.push_str(&a.comps[..k].join("/"));
        s
    }
    fn real_of(abs: &Abs, realpath: &mut dyn FnMut(&str) -> Option<String>) -> Abs {
        for k in (1..=abs.comps.len()).rev() {
            if let Some(r) = realpath(&prefix(abs, k)) {
                if let Some(mut real) = Abs::parse(&r) {
                    real.comps.extend(abs.comps[k..].iter().cloned());
                    return real;
                }
            }
        }
        abs.clone()
    }
    let wt_abs = Abs::parse(worktree).unwrap();
    let joined = match Abs::parse(path) {
        Some(a) => a,
        None => {
            let mut a = wt_abs.clone();
            a.comps.extend(
                path.split('/')
                    .filter(|c| !c.is_empty() && *c != ".")
                    .map(str::to_string),
            );
            a
        }
    };
    let mut cur = Abs {
        root: joined.root.clone(),
        comps: Vec::new(),
    };
    for c in &joined.comps {
        if c == ".." {
            cur = real_of(&cur, realpath);
            cur.comps.pop();
        } else {
            cur.comps.push(c.clone());
        }
    }
    let real = real_of(&cur, realpath);
    let wt_real = realpath(&wt_abs.render())
        .and_then(|r| Abs::parse(&r))
        .unwrap_or(wt_abs);
    let inside = real.root == wt_real.root
        && real.comps.len() >= wt_real.comps.len()
        && real.comps.iter().zip(&wt_real.comps).all(|(a, b)| a == b);
    if !inside {
        return Resolved::Outside(real.render());
    }
    let rel = real.comps[wt_real.comps.len()..].join("/");
    if rel.is_empty() {
        return Resolved::Invalid("the path is the worktree itself, not a file".into());
    }
    Resolved::Inside(rel)
}

#[test]
fn answers_as_the_earlier_resolver_did() {
    let mut fs = worktree();
    fs.link("/w/src/up", "/w");
    fs.link("/w/src/rel", "/w/secrets");
    fs.dir("/w/src/deep/er");
    let words = [
        "src", "out", "in", "lnk", "c0", "c19", "loop1", "up", "rel", "deep", "er", "a.ts",
        "secrets", "w", "new", "..", "..", ".", "",
    ];
    let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15);
    let mut seen = HashSet::new();
    for _ in 0..6_000 {
        let n = 1 + next(9);
        let mut parts: Vec<&str> = (0..n).map(|_| words[next(words.len())]).collect();
        let abs = next(5) == 0;
        if abs {
            parts.insert(0, "/w");
        }
        let path = parts.join("/");
        if path.trim().is_empty() || !seen.insert(path.clone()) {
            continue;
        }
        let want = reference("/w", &path, &mut |p: &str| fs.realpath(p));
        let got = resolve("/w", &path, &mut |p: &str| fs.realpath(p));
        assert_eq!(got, want, "{path:?}");
    }
    assert!(seen.len() > 3_000);
}

/// Figures for the README: one resolution of a hostile path at 4 KB and at 64 KB, before
/// (the cubic resolver above) and now, with a host that answers in time linear in the
/// question (every folder `/w/d/d/…/d` exists).
/// `cargo test --release --lib hostile_tests::bench -- --ignored --nocapture`
#[test]
#[ignore]
fn bench_hostile_paths() {
    use std::time::Instant;
    type Host<'a> = dyn FnMut(&str) -> Option<String> + 'a;
    fn host(p: &str) -> Option<String> {
        let exists = p == "/"
            || p.strip_prefix("/w")
                .is_some_and(|r| r.split('/').skip(1).all(|c| c == "d"));
        exists.then(|| p.to_string())
    }
    fn time(label: &str, path: &str, f: &dyn Fn(&str, &mut Host) -> Resolved) {
        let mut calls = 0;
        let mut reps = 0;
        let t = Instant::now();
        let mut r = Resolved::Invalid(String::new());
        while reps < 3 || (reps < 1000 && t.elapsed().as_secs_f64() < 0.5) {
            calls = 0;
            r = f(path, &mut |p: &str| {
                calls += 1;
                host(p)
            });
            reps += 1;
        }
        let per = t.elapsed().as_secs_f64() / reps as f64;
        let what = match &r {
            Resolved::Invalid(why) => format!("refused: {why}"),
            other => format!("{other:?}").chars().take(40).collect(),
        };
        println!(
            "{label}: {} bytes, {:.3} ms, {calls} realpath questions, {what}",
            path.len(),
            per * 1e3
        );
    }
    let now = |p: &str, rp: &mut Host| resolve("/w", p, rp);
    let lifted =
        |p: &str, rp: &mut Host| resolve_bounded("/w", "", p, (usize::MAX, usize::MAX), rp);
    let before = |p: &str, rp: &mut Host| reference("/w", p, rp);
    // the issue's path: 800 components then 802 `..` (4 KB)
    let issue = format!("{}{}x", "d/".repeat(800), "../".repeat(802));
    // the most a path may be: 4 KB, 256 components, 127 in and 127 out
    let at_limits = format!(
        "{}/{}{}x",
        "n".repeat(3_459),
        "d/".repeat(127),
        "../".repeat(127)
    );
    // 64 KB: 13,000 in and out
    let big = format!("{}{}x", "d/".repeat(13_000), "../".repeat(13_000));
    time("4 KB issue path, before", &issue, &before);
    time("4 KB issue path, now", &issue, &now);
    time("4 KB issue path, now, limits lifted", &issue, &lifted);
    time("4 KB path at both limits, before", &at_limits, &before);
    time("4 KB path at both limits, now", &at_limits, &now);
    time("64 KB path, now", &big, &now);
    time("64 KB path, now, limits lifted", &big, &lifted);
}

//! Paths as the host means them, end to end: a hostile repository's symlinks and hard links
//! against the gate, one `Lstat` batch per round, and an intents file that is a dangling link.

use super::*;

fn blocked(t: &mut T, path: &str) -> String {
    t.before("s", "write", json!({"filePath": path, "content": "pwned"}))
        .block
        .unwrap_or_else(|| panic!("{path} was allowed"))
}

fn allowed(t: &mut T, path: &str) {
    let b = t.before("s", "write", json!({"filePath": path, "content": "ok"}));
    assert!(b.block.is_none(), "{path}: {:?}", b.block);
}

fn hostile() -> T {
    let mut fs = project();
    fs.file("/w/README.md", "# readme\n");
    fs.dir("/w/src/a/b/c");
    fs.dir("/w/.git/hooks");
    fs.link("/w/src/l", "a/b/c");
    fs.link("/w/src/out", "/tmp/evil/drop.sh");
    fs.link("/w/src/hook", "../.git/hooks/pre-commit");
    fs.link("/w/src/orch", "../.orchestration/active_intents.yaml");
    fs.link("/w/src/cur", "a/b");
    fs.hard_link("/w/src/readme.md", "/w/README.md");
    let mut t = T::new(fs);
    assert!(t.select("s", "INT-1").ok);
    t
}

#[test]
fn dotdot_after_a_symlink_is_refused() {
    let mut t = hostile();
    for p in [
        "src/l/../../README.md",
        "src/l/../../.orchestration/active_intents.yaml",
        "/w/src/l/../../README.md",
    ] {
        let m = blocked(&mut t, p);
        assert!(m.contains("names two files"), "{p}: {m}");
    }
    assert_eq!(t.fs.read("/w/README.md"), Some("# readme\n"));
}

#[test]
fn dangling_links_hard_links_and_git_are_refused() {
    let mut t = hostile();
    let m = blocked(&mut t, "src/out");
    assert!(
        m.contains("/tmp/evil/drop.sh") && m.contains("outside the worktree"),
        "{m}"
    );
    let m = blocked(&mut t, "src/hook");
    assert!(m.contains(".git"), "{m}");
    let m = blocked(&mut t, "src/orch");
    assert!(m.contains(".orchestration/"), "{m}");
    let m = blocked(&mut t, "src/readme.md");
    assert!(m.contains("hard link"), "{m}");
    let m = t
        .before(
            "s",
            "edit",
            json!({"filePath": "src/readme.md", "oldString": "readme", "newString": "x"}),
        )
        .block
        .unwrap();
    assert!(m.contains("hard link"), "{m}");
    for p in [".git/hooks/pre-commit", ".git/config"] {
        assert!(blocked(&mut t, p).contains(".git"), "{p}");
    }
}

#[test]
fn legitimate_writes_still_pass_and_record_the_real_file() {
    let mut t = hostile();
    allowed(&mut t, "src/a.ts");
    allowed(&mut t, "src/new/deeper/n.ts");
    allowed(&mut t, "/w/src/a/b/c/x.ts");
    // a symlink that stays in scope
    let r = t
        .call(
            "s",
            "write",
            json!({"filePath": "src/cur/c/y.ts", "content": "y\n"}),
            |fs| fs.file("/w/src/a/b/c/y.ts", "y\n"),
        )
        .unwrap();
    assert!(r.logs.iter().all(|l| !l.message.contains("error")), "{r:?}");
    let trace = t.fs.trace("/w").unwrap();
    assert!(trace.contains("src/a/b/c/y.ts"), "{trace}");
}

#[test]
fn one_lstat_batch_per_round() {
    let mut t = hostile();
    let n = t.fs.log.len();
    allowed(&mut t, "src/new/n.ts");
    let lstats = t.fs.log[n..]
        .iter()
        .filter(|r| matches!(r, Request::Lstat { .. }))
        .count();
    assert_eq!(lstats, 1, "{:?}", &t.fs.log[n..]);
    // a symlink costs one round more
    let n = t.fs.log.len();
    allowed(&mut t, "src/cur/z.ts");
    let lstats = t.fs.log[n..]
        .iter()
        .filter(|r| matches!(r, Request::Lstat { .. }))
        .count();
    assert_eq!(lstats, 2);
}

/// The medium finding: an intents file that is a dangling symlink keeps governance on.
#[test]
fn a_dangling_intents_file_fails_closed() {
    let mut fs = TestHost::default();
    fs.dir("/w/src");
    fs.link(
        "/w/.orchestration/active_intents.yaml",
        "/nowhere/intents.yaml",
    );
    let mut t = T::new(fs);
    let m = t
        .before(
            "s",
            "write",
            json!({"filePath": "src/a.ts", "content": "x"}),
        )
        .block
        .expect("a dangling intents file must block");
    assert!(m.contains("symlink whose target does not exist"), "{m}");
    // a plain missing file still means governance is off (auto)
    let mut fs = TestHost::default();
    fs.dir("/w/src");
    let mut t = T::new(fs);
    assert!(t
        .before(
            "s",
            "write",
            json!({"filePath": "src/a.ts", "content": "x"})
        )
        .block
        .is_none());
}

use super::*;
use std::fs;

fn os(v: &[&str]) -> Vec<OsString> {
    v.iter().map(OsString::from).collect()
}

#[test]
fn parses_the_command_line() {
    let s = parse(&os(&[
        "--write",
        "/p/src",
        "--deny",
        "/p/.git",
        "--scratch",
        "/tmp",
        "--project",
        "/p",
        "--tmpdir",
        "--",
        "bash",
        "-c",
        "echo hi",
    ]))
    .unwrap();
    assert_eq!(s.write, vec![PathBuf::from("/p/src")]);
    assert_eq!(s.deny, vec![PathBuf::from("/p/.git")]);
    assert_eq!(s.scratch, vec![PathBuf::from("/tmp")]);
    assert_eq!(s.project, Some(PathBuf::from("/p")));
    assert!(s.tmpdir);
    assert_eq!(s.command, os(&["bash", "-c", "echo hi"]));
    // refused: relative paths, unknown options, no command
    assert!(parse(&os(&["--write", "src", "--", "x"])).is_err());
    assert!(parse(&os(&["--widen", "--", "x"])).is_err());
    assert!(parse(&os(&["--write", "/p"])).is_err());
    assert!(parse(&os(&["--check"])).unwrap().check);
}

/// A project in a fresh folder: `src/`, `docs/`, a top-level file, governance paths, and a
/// file outside.
struct Fixture {
    base: PathBuf,
    proj: PathBuf,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let base = std::env::temp_dir().join(format!(
            "hookwise-sandbox-test-{}-{name}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&base);
        let proj = base.join("proj");
        for d in [
            "src/lib",
            "docs",
            ".git",
            ".orchestration",
            ".hookwise",
            ".claude",
            "node_modules/hookwise",
            "node_modules/left-pad",
        ] {
            fs::create_dir_all(proj.join(d)).unwrap();
        }
        for (f, t) in [
            ("src/a.txt", "a"),
            ("docs/d.md", "d"),
            ("README.md", "r"),
            (".git/config", "g"),
            (".orchestration/active_intents.yaml", "i"),
            (".hookwise/hookwise.json", "{}"),
            (".claude/settings.json", "{}"),
            ("node_modules/hookwise/index.js", "h"),
        ] {
            fs::write(proj.join(f), t).unwrap();
        }
        fs::write(base.join("outside.txt"), "o").unwrap();
        Fixture {
            base: fs::canonicalize(&base).unwrap(),
            proj: fs::canonicalize(&proj).unwrap(),
        }
    }

    fn spec(&self, write: &[&str]) -> Spec {
        let deny = [
            ".git",
            ".orchestration",
            ".hookwise",
            ".claude",
            "node_modules/hookwise",
        ];
        Spec {
            write: write.iter().map(|w| self.proj.join(w)).collect(),
            deny: deny.iter().map(|d| self.proj.join(d)).collect(),
            project: Some(self.proj.clone()),
            command: os(&["true"]),
            ..Default::default()
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

fn paths(p: &Plan, root: &Path) -> Vec<String> {
    p.rules
        .iter()
        .filter_map(|r| r.path.strip_prefix(root).ok())
        .map(|r| r.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_folder_scope_is_one_rule() {
    let f = Fixture::new("folder");
    let p = plan(&f.spec(&["src"]));
    assert_eq!(paths(&p, &f.proj), vec!["src"]);
    // a missing folder stands for its nearest existing ancestor
    let p = plan(&f.spec(&["src/lib/new/deeper"]));
    assert_eq!(paths(&p, &f.proj), vec!["src/lib"]);
    // devices are always there
    assert!(p.rules.iter().any(|r| r.path == Path::new("/dev/null")));
}

#[test]
fn the_whole_project_is_split_around_governance_paths() {
    let f = Fixture::new("root");
    let p = plan(&f.spec(&[""]));
    let mut got = paths(&p, &f.proj);
    got.sort();
    // every entry but the governance paths; node_modules split around hookwise's install;
    // the root itself is not a rule (a new top-level file or folder cannot be made)
    assert_eq!(
        got,
        vec!["README.md", "docs", "node_modules/left-pad", "src"],
        "{p:?}"
    );
    assert!(!p.rules.iter().any(|r| r.path == f.proj));
}

#[test]
fn a_planted_link_is_never_a_rule() {
    let f = Fixture::new("links");
    std::os::unix::fs::symlink(f.proj.join(".git"), f.proj.join("gitlink")).unwrap();
    std::os::unix::fs::symlink(f.proj.join(".git"), f.proj.join("src/gitlink")).unwrap();
    let p = plan(&f.spec(&[""]));
    assert!(!paths(&p, &f.proj).iter().any(|x| x.contains("gitlink")));
    // a scope that names a link is the link's target, which is denied
    let p = plan(&f.spec(&["gitlink"]));
    assert!(paths(&p, &f.proj).is_empty(), "{p:?}");
}

#[test]
fn a_temp_folder_holding_the_project_is_left_out_and_a_private_one_given() {
    let f = Fixture::new("tmp");
    let mut s = f.spec(&["src"]);
    s.scratch = vec![f.base.clone()];
    s.tmpdir = true;
    let p = plan(&s);
    let got = paths(&p, &f.base);
    // the temp folder is left out (not split), the scope is there, and a private temp folder
    assert!(
        !got.iter()
            .any(|x| x == "proj" || x.is_empty() || x == "outside.txt"),
        "{got:?}"
    );
    assert!(got.contains(&"proj/src".to_string()));
    let t = p.tmpdir.clone().expect("a private temp folder");
    assert!(t.starts_with(&f.base) && p.rules.iter().any(|r| r.path == t));
}

#[test]
fn seatbelt_profile_text() {
    let plan = Plan {
        roots: vec![
            Rule {
                path: "/p".into(),
                dir: true,
            },
            Rule {
                path: "/q/file \"x\".txt".into(),
                dir: false,
            },
        ],
        deny: vec!["/p/.git".into(), "/p/.orchestration".into()],
        rules: Vec::new(),
        tmpdir: Some("/private/tmp/hookwise-tmp-501".into()),
    };
    let t = seatbelt::profile(&plan);
    assert!(t.starts_with("(version 1)\n"));
    assert!(t.contains("(allow default)\n(deny file-write*)\n"));
    assert!(t.contains("(subpath \"/p\")"));
    assert!(t.contains("(literal \"/q/file \\\"x\\\".txt\")"), "{t}");
    assert!(t.contains("(require-not (subpath \"/p/.git\"))"));
    assert!(t.contains("(require-not (subpath \"/p/.orchestration\"))"));
    assert!(t.contains("(allow file-write* (subpath \"/private/tmp/hookwise-tmp-501\"))"));
    assert!(t.contains("(literal \"/dev/null\")"));
    // balanced parentheses outside string literals
    let mut depth = 0i32;
    let mut in_str = false;
    let mut esc = false;
    for c in t.chars() {
        match (in_str, esc, c) {
            (true, true, _) => esc = false,
            (true, false, '\\') => esc = true,
            (true, false, '"') => in_str = false,
            (false, _, '"') => in_str = true,
            (false, _, '(') => depth += 1,
            (false, _, ')') => depth -= 1,
            _ => {}
        }
        assert!(depth >= 0);
    }
    assert_eq!(depth, 0);
    // nothing allowed: no allow clause at all (writes nowhere but the devices)
    let none = seatbelt::profile(&Plan::default());
    assert!(!none.contains("(allow file-write*\n"));
}

#[cfg(target_os = "linux")]
mod confined;

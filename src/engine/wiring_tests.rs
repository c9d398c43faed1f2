//! The engine's enforcement wiring: which build answers what (lean: `needs: "policy"`;
//! `--features policy`: decisions), driven with a scripted host that has a small file system
//! and a clock. `cargo test --all-features` runs the policy half.

use serde_json::{json, Value};

use crate::engine::Engine;
use crate::testing::TestHost;

const FORCE_SOP: &str = "---\nid: git-force-push\ncategory: process\nmatch:\n  tools: [bash]\n  patterns: ['git\\s+push\\s.*--force']\n---\n# Force-pushing\n\n## Preflight\nAnnounce it (WIRING-MARKER).\n";

/// The test host with a project at `/p`.
struct Fs {
    engine: Engine,
    host: TestHost,
}

impl std::ops::Deref for Fs {
    type Target = TestHost;
    fn deref(&self) -> &TestHost {
        &self.host
    }
}

impl std::ops::DerefMut for Fs {
    fn deref_mut(&mut self) -> &mut TestHost {
        &mut self.host
    }
}

impl Fs {
    fn new(files: &[(&str, &str)]) -> Fs {
        let mut host = TestHost::default();
        host.dir("/p");
        // the confined shell's launcher answers (issue 38: enforcement-only shells run confined)
        host.procs = Some(Box::new(|argv: &[String]| {
            if argv.get(1).map(String::as_str) == Some("sandbox") {
                crate::testing::procs::Proc::out("landlock abi 7\n")
            } else {
                crate::testing::procs::Proc::Fails(format!("spawn {} ENOENT", argv[0]))
            }
        }));
        for (p, t) in files {
            host.file(&format!("/p/{p}"), t);
        }
        Fs {
            engine: Engine::new(),
            host,
        }
    }

    fn drive(&mut self, call: Value) -> Value {
        crate::testing::drive(&mut self.engine, &call.to_string(), &mut self.host)
    }

    fn init(&mut self, options: Value) -> Value {
        // outside a git repository OpenCode's worktree is `/`: the directory is the project
        self.drive(
            json!({"hook": "init", "options": options, "env": {"PATH": "/nowhere"},
            "cwd": "/", "worktree": "/", "directory": "/p", "sandbox": {"binary": "/i/node_modules/@hookwise/cli-linux-x64/bin/hookwise-native", "platform": "linux"}}),
        )
    }
}

#[cfg(feature = "policy")]
fn bash(c: &str) -> Value {
    json!({"hook": "tool.before", "tool": "bash", "callId": "c", "args": {"command": c}})
}

#[test]
fn a_project_without_enforcement_never_needs_the_policy_build() {
    let mut h = Fs::new(&[("README.md", "hi")]);
    let r = h.init(json!({}));
    assert!(r.get("needs").is_none(), "{r}");
    assert!(r["plan"].get("toolBeforeAll").is_none());
}

#[cfg(not(feature = "policy"))]
#[test]
fn the_lean_build_asks_for_the_policy_build() {
    for (files, options) in [
        (vec![(".opencode/sops/force.md", FORCE_SOP)], json!({})),
        (
            vec![(
                ".opencode/hookwise.json",
                r#"{"enforcement": {"level": "strict"}}"#,
            )],
            json!({}),
        ),
        (vec![], json!({"enforcement": {}})),
    ] {
        let mut h = Fs::new(&files);
        assert_eq!(h.init(options), json!({"needs": "policy"}));
    }
    let mut h = Fs::new(&[]);
    assert_eq!(
        h.drive(json!({"hook": "metrics"})),
        json!({"needs": "policy"})
    );
}

#[cfg(feature = "policy")]
#[test]
fn policy_blocks_then_acknowledges_and_read_only_is_untouched() {
    let mut h = Fs::new(&[(".opencode/sops/force.md", FORCE_SOP)]);
    let r = h.init(json!({}));
    assert_eq!(r["plan"]["toolBeforeAll"], true, "{r}");
    let b = h.drive(bash("git push --force origin main"));
    assert!(
        b["block"].as_str().unwrap().contains("WIRING-MARKER"),
        "{b}"
    );
    assert_eq!(b["enforcement"]["decision"], "block");
    assert!(b.get("edits").is_none());
    let again = h.drive(bash("git push --force origin main"));
    assert!(again.get("block").is_none(), "{again}");
    assert_eq!(again["enforcement"]["decision"], "acknowledged");
    let before = h.log.len();
    let ro = h.drive(bash("git status"));
    assert_eq!(ro["enforcement"]["decision"], "readOnly");
    assert_eq!(h.log.len(), before, "no I/O for a read-only command");
    let m = h.drive(json!({"hook": "metrics", "verify": true}));
    assert_eq!(m["ok"], true, "{m}");
    assert_eq!(
        h.files["/p/.opencode/hookwise/metrics.jsonl"]
            .lines()
            .count(),
        2
    );
    // a deleted metrics file is found out by the state file's chain head
    h.files.remove("/p/.opencode/hookwise/metrics.jsonl");
    let gone = h.drive(json!({"hook": "metrics", "verify": true}));
    assert_eq!(gone["ok"], false, "{gone}");
    assert_eq!(h.drive(json!({"hook": "metrics"}))["ok"], true);
}

#[cfg(feature = "policy")]
#[test]
fn policy_advice_goes_into_comment_lines_or_with_the_result() {
    let sop = "---\nid: nginx\ncategory: technical\nmatch:\n  patterns: ['nginx']\n---\n## Gotchas\nReload, do not restart (ADVICE-MARKER).\n";
    let mut h = Fs::new(&[(".opencode/sops/nginx.md", sop)]);
    h.init(json!({}));
    let r = h.drive(bash("mkdir -p nginx-conf"));
    let pre = r["edits"][0]["prepend"].as_str().unwrap();
    assert!(pre.contains("ADVICE-MARKER"));
    assert!(pre.lines().all(|l| l.starts_with('#')), "{pre}");
    let w = h.drive(
        json!({"hook": "tool.before", "tool": "write", "callId": "w",
        "args": {"filePath": "nginx.conf", "content": "server {} # nginx"}}),
    );
    assert!(w.get("edits").is_none(), "{w}");
    assert_eq!(w["followUp"], true);
    let a = h.drive(json!({"hook": "tool.after", "tool": "write", "callId": "w"}));
    assert!(a["withResult"].as_str().unwrap().contains("ADVICE-MARKER"));
}

#[cfg(feature = "policy")]
#[test]
fn result_only_advice_for_a_shell_command_comes_with_the_result() {
    let sop = "---\nid: nginx\ncategory: technical\nmatch:\n  patterns: ['nginx']\n---\n## Gotchas\nReload, do not restart (ADVICE-MARKER).\n";
    let mut h = Fs::new(&[(".opencode/sops/nginx.md", sop)]);
    h.init(json!({}));
    let r = h.drive(
        json!({"hook": "tool.before", "tool": "exec", "callId": "x", "resultOnly": true,
        "args": {"command": "mkdir -p nginx-conf"}}),
    );
    // the command's one change: it runs confined (issue 38); the advice is not put into it
    let m = r["edits"].as_array().unwrap();
    assert!(m.len() == 1 && m[0].get("prepend").is_none() && m[0]["set"].as_str().unwrap().ends_with("-c 'mkdir -p nginx-conf'"), "{r}");
    assert_eq!(r["followUp"], true);
    assert!(r["advice"].as_str().unwrap().contains("ADVICE-MARKER"));
    let a = h.drive(json!({"hook": "tool.after", "tool": "exec", "callId": "x"}));
    let text = a["withResult"].as_str().unwrap();
    assert!(
        text.contains("ADVICE-MARKER") && !text.contains("\n# "),
        "{text}"
    );
    // and what the confinement allows goes with the result too
    assert!(text.contains("runs confined by the kernel"), "{text}");
    // a block is a block whatever the host can show
    let force = "---\nid: f\ncategory: process\nmatch:\n  patterns: ['git\\s+push\\s.*--force']\n---\n## Preflight\nAsk first.\n";
    let mut h = Fs::new(&[(".opencode/sops/f.md", force)]);
    h.init(json!({}));
    let b = h.drive(
        json!({"hook": "tool.before", "tool": "exec", "callId": "y", "resultOnly": true,
        "args": {"command": "git push --force"}}),
    );
    assert!(b["block"].as_str().unwrap().contains("Ask first"), "{b}");
}

#[cfg(feature = "policy")]
#[test]
fn policy_config_issues_are_warnings_and_known_keys_are_not() {
    let mut h = Fs::new(&[(
        ".opencode/hookwise.json",
        r#"{"$schema": "x", "enforcement": {"level": "strict", "cooldownMs": "soon"}}"#,
    )]);
    let r = h.init(json!({}));
    let logs = r["logs"].to_string();
    assert!(
        logs.contains(".opencode/hookwise.json") && logs.contains("cooldownMs"),
        "{logs}"
    );
    assert!(!logs.contains("'enforcement' is not known"), "{logs}");
    assert!(!logs.contains("'$schema' is not known"), "{logs}");
}

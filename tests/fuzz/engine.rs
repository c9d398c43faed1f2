//! The hook call: `Engine::start_json` with whatever a host or a model can put in it, driven
//! to its result against the test host (`hookwise::testing`). The engine never panics and
//! never hangs; under intent governance a write the gate lets through is inside the active
//! intent's scope (a model of realpath decides), and nothing under `.orchestration/` is ever
//! let through.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::common::{
    check, deep_depth, huge_pieces, json_with, mutate, nasty_string, text_of, Piece, J, LOWER,
};
use hookwise::testing::bound::Bounded;
use hookwise::testing::TestHost;

const HOOKS: &[&str] = &[
    "init",
    "mcp.warmup",
    "dispose",
    "session.created",
    "system.transform",
    "session.preview",
    "doctor",
    "init.scaffold",
    "governance.scaffold",
    "session.compacting",
    "tool.before",
    "tool.after",
    "intent.select",
    "intent.context",
    "trace.verify",
    "metrics",
    "Init",
    "tool.before ",
    "",
];

const FIELDS: &[&str] = &[
    "hook",
    "tool",
    "sessionId",
    "callId",
    "args",
    "options",
    "env",
    "cwd",
    "worktree",
    "directory",
    "mcp",
    "session",
    "system",
    "modelId",
    "project",
    "strategy",
    "nowMs",
    "fields",
    "excerpts",
    "dryRun",
    "resultOnly",
    "random",
    "failed",
    "intentId",
    "verify",
    "session_id",
];

pub const TOOLS: &[&str] = &[
    "write",
    "edit",
    "apply_patch",
    "bash",
    "read",
    "write_to_file",
    "write_file",
    "apply_diff",
    "search_replace",
    "edit_file",
    "execute_command",
    "exec",
    "multiedit",
    "Write",
    "Edit",
    "NotebookEdit",
    "grep",
    "select_active_intent",
    "",
];

const ARG_KEYS: &[&str] = &[
    "filePath",
    "file_path",
    "path",
    "patchText",
    "patch",
    "input",
    "command",
    "content",
    "oldString",
    "newString",
    "old_string",
    "new_string",
    "oldText",
    "newText",
    "replaceAll",
    "edits",
    "diff",
    "cwd",
    "workdir",
    "notebook_path",
    "description",
    "timeout",
];

/// Path components an attacker strings together.
const COMPONENTS: &[&str] = &[
    "src",
    "auth",
    "secrets",
    "SECRETS",
    "..",
    ".",
    "",
    "x.ts",
    "w",
    "etc",
    "passwd",
    "README.md",
    ".orchestration",
    ".ORCHESTRATION",
    "active_intents.yaml",
    "agent_trace.jsonl",
    "out",
    "docs",
    "in",
    "w-evil",
    "C:",
    "a\\b",
    "...",
    " ",
    "a b",
    "é",
    "\u{0}",
];

/// A path built from [`COMPONENTS`]: relative or absolute (under `/w` or not).
pub fn path() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["", "/", "/w/", "//", "./", "/w/../w/", "C:/"][..]),
        prop::collection::vec(
            prop_oneof![
                8 => prop::sample::select(COMPONENTS).prop_map(str::to_string),
                1 => text_of(LOWER, 1..4),
            ],
            0..9,
        ),
        prop::sample::select(&["", "/", "//", "/."][..]),
    )
        .prop_map(|(root, comps, end)| format!("{root}{}{end}", comps.join("/")))
}

/// Strings for arguments: paths, patch text, shell lines, ordinary text.
fn arg_string() -> BoxedStrategy<String> {
    prop_oneof![
        3 => path(),
        1 => patch_text(),
        1 => prop::sample::select(&[
            "git push --force origin main",
            "rm -rf .git",
            "echo hi > .orchestration/active_intents.yaml",
            "cat $(echo src/auth/x.ts)",
            "ls",
        ][..]).prop_map(str::to_string),
        2 => nasty_string(),
    ]
    .boxed()
}

/// Operations of a patch: each a header and a path.
fn patch_ops(n: std::ops::Range<usize>) -> impl Strategy<Value = Vec<(&'static str, String)>> {
    let heads = &[
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ][..];
    prop::collection::vec((prop::sample::select(heads), path()), n)
}

/// A patch of these operations, each adding a line.
fn patch_of(ops: &[(&str, String)]) -> String {
    let mut t = String::from("*** Begin Patch\n");
    for (h, p) in ops {
        t.push_str(&format!("{h}{p}\n+x\n"));
    }
    t.push_str("*** End Patch\n");
    t
}

fn patch_text() -> impl Strategy<Value = String> {
    patch_ops(0..4).prop_map(|ops| patch_of(&ops))
}

fn args() -> impl Strategy<Value = J> {
    prop_oneof![
        4 => prop::collection::vec(
            (prop::sample::select(ARG_KEYS), json_with(ARG_KEYS, arg_string())),
            0..5,
        )
        .prop_map(|m| J::obj(m)),
        1 => json_with(ARG_KEYS, arg_string()),
        1 => (any::<bool>(), deep_depth(), json_with(ARG_KEYS, arg_string()))
            .prop_map(|(o, d, inner)| J::obj(vec![("filePath", J::str("src/auth/x.ts")), ("content", J::Deep(o, d, Box::new(inner)))])),
        // a huge value in a path-bearing, a patch or a content key
        1 => (prop::sample::select(&["filePath", "path", "patchText", "command", "content"][..]), huge_pieces())
            .prop_map(|(k, p)| J::obj(vec![("filePath", J::str("src/auth/x.ts")), (k, J::Str(p))])),
    ]
}

/// A hook call as a host sends it, with hostile values in any field.
fn call() -> impl Strategy<Value = J> {
    let value = json_with(FIELDS, nasty_string());
    (
        prop::sample::select(HOOKS),
        prop::sample::select(TOOLS),
        args(),
        prop::collection::vec((prop::sample::select(FIELDS), value), 0..4),
        text_of("abcdefghijklmnopqrstuvwxyz0123456789", 0..5),
    )
        .prop_map(|(hook, tool, args, extra, session)| {
            let mut m = vec![
                ("hook", J::str(hook)),
                ("tool", J::str(tool)),
                ("sessionId", J::str(&session)),
                ("callId", J::str("c1")),
                ("args", args),
            ];
            m.extend(extra);
            J::obj(m)
        })
}

/// Bytes for `start_json`: a call, a mutated call, or anything.
fn call_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => call().prop_map(|j| j.text().into_bytes()),
        3 => mutate(call().prop_map(|j| j.text().into_bytes())),
        1 => prop::collection::vec(any::<u8>(), 0..64),
        1 => (deep_depth(), any::<bool>()).prop_map(|(d, obj)| {
            J::obj(vec![("hook", J::str("tool.before")), ("tool", J::str("write")),
                        ("args", J::Deep(obj, d, Box::new(J::Null)))]).text().into_bytes()
        }),
    ]
}

/// An engine that has not seen `init`: any bytes, any hook.
#[test]
fn any_call_to_a_fresh_engine_returns() {
    check(
        "engine: any call, fresh engine",
        96,
        call_bytes(),
        |bytes| {
            let mut h = Bounded::on(TestHost::default());
            let _ = h.call(&bytes);
            Ok(())
        },
    );
}

/// The lone surrogates and depths of the issue, each on its own (kept as a regression).
#[test]
fn lone_surrogates_and_deep_nesting_return() {
    for unit in [0xd800u16, 0xdbff, 0xdc00, 0xdfff] {
        let args = J::obj(vec![
            ("filePath", J::str("src/auth/x.ts")),
            ("content", J::Str(vec![Piece::Unit(unit)])),
        ]);
        let call = J::obj(vec![
            ("hook", J::str("tool.before")),
            ("tool", J::str("write")),
            ("args", args),
        ]);
        let _ = Bounded::on(TestHost::default()).call(call.text().as_bytes());
    }
    for depth in [127, 128, 129, 1_000, 100_000] {
        for obj in [false, true] {
            let call = J::obj(vec![
                ("hook", J::str("tool.before")),
                ("tool", J::str("write")),
                ("args", J::Deep(obj, depth, Box::new(J::Null))),
            ]);
            let _ = Bounded::on(TestHost::default()).call(call.text().as_bytes());
        }
    }
}

/// An engine started in a project (no governance in the lean build).
#[test]
fn any_call_to_a_started_engine_returns() {
    check(
        "engine: any call, started engine",
        48,
        prop::collection::vec(call_bytes(), 1..4),
        |calls| {
            let mut h = Bounded::on(project_fs());
            let r = h.call_json(&init_call());
            prop_assert!(r.is_object(), "{r}");
            for c in calls {
                let _ = h.call(&c);
            }
            Ok(())
        },
    );
}

pub const INTENTS: &str = "\
active_intents:
  - id: INT-1
    name: Auth
    status: IN_PROGRESS
    owned_scope: [src/auth/**, \"!src/auth/secrets/**\"]
  - id: INT-ALL
    name: Everything
    status: IN_PROGRESS
    owned_scope: [\"**\"]
";

const FORCE_SOP: &str = "---\nid: git-force-push\ncategory: process\nmatch:\n  tools: [bash]\n  patterns: ['git\\s+push\\s.*--force']\n---\n# Force-pushing\n\n## Preflight\nAnnounce it.\n";

/// A project with governance and enforcement on, and two symlinks: one inside the scope
/// that leads out of the worktree, one outside the scope that leads into it.
pub fn project_fs() -> TestHost {
    let mut fs = TestHost::default();
    fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
    fs.file("/w/.opencode/sops/force.md", FORCE_SOP);
    fs.file(
        "/w/.opencode/hookwise.json",
        r#"{"enforcement": {"level": "strict"}}"#,
    );
    fs.file("/w/src/auth/a.ts", "export function a() {}\n");
    fs.file("/w/src/auth/secrets/k.ts", "k\n");
    fs.file("/w/README.md", "hi\n");
    fs.file("/w/docs/d.md", "d\n");
    fs.file("/etc/passwd", "root\n");
    fs.link("/w/src/auth/out", "/etc");
    fs.link("/w/docs/in", "/w/src/auth");
    fs
}

fn init_call() -> Value {
    json!({"hook": "init", "env": {"PATH": "/nowhere"}, "cwd": "/w", "worktree": "/w",
           "directory": "/w", "options": {}})
}

/// Where `p` really lands, as the OS would resolve it in [`project_fs`] (relative to the
/// worktree `/w`); `None` when it is outside the worktree or not a plain path. Not trimmed:
/// a tool takes ` /x` as the relative path ` /x`.
pub fn model_target(fs: &TestHost, p: &str) -> Option<String> {
    if p.trim().is_empty() || p.contains('\0') || p.contains('\\') {
        return None;
    }
    if !p.starts_with('/') && p.as_bytes().get(1) == Some(&b':') {
        return None;
    }
    let abs = if p.starts_with('/') {
        p.to_string()
    } else {
        format!("/w/{p}")
    };
    // the host's realpath of the deepest existing prefix; the rest taken lexically
    let mut real = String::new();
    for c in abs.split('/').filter(|c| !c.is_empty() && *c != ".") {
        if c == ".." {
            real.truncate(real.rfind('/').unwrap_or(0));
        } else {
            real = format!("{real}/{c}");
            if let Some(r) = fs.realpath(&real) {
                real = r.trim_end_matches('/').to_string();
            }
        }
    }
    real.strip_prefix("/w/")
        .filter(|r| !r.is_empty())
        .map(str::to_string)
}

#[cfg(feature = "policy")]
mod policy {
    use super::*;

    fn governed(intent: &str) -> Bounded {
        let mut h = Bounded::on(project_fs());
        let r = h.call_json(&init_call());
        assert!(r["plan"]["toolBeforeTools"].is_array(), "{r}");
        let s =
            h.call_json(&json!({"hook": "intent.select", "sessionId": "s1", "intentId": intent}));
        assert_eq!(s["ok"], true, "{s}");
        h
    }

    /// Several hostile calls in a row to a governed, enforcing engine.
    #[test]
    fn any_calls_to_a_governed_engine_return() {
        check(
            "engine: any calls, governed engine",
            48,
            prop::collection::vec(call_bytes(), 1..5),
            |calls| {
                let mut h = governed("INT-1");
                for c in calls {
                    let _ = h.call(&c);
                }
                Ok(())
            },
        );
    }

    fn write_call(tool: &str, key: &str, p: &str) -> Value {
        let mut args = json!({ "content": "x", "oldString": "a", "newString": "b" });
        args[key] = json!(p);
        json!({"hook": "tool.before", "tool": tool, "sessionId": "s1", "callId": "c1", "args": args})
    }

    fn blocked(r: &Value) -> bool {
        r.get("block").is_some_and(|b| b.is_string())
    }

    /// What the gate lets through lands inside `src/auth/**` and outside
    /// `src/auth/secrets/**` (any case), as the OS resolves it.
    #[test]
    fn a_write_let_through_lands_inside_the_scope() {
        check(
            "engine: write/edit scope (model of realpath)",
            128,
            (
                prop::sample::select(&["write", "edit", "write_to_file", "write_file"][..]),
                path(),
            ),
            |(tool, p)| {
                let mut h = governed("INT-1");
                let key = if tool == "write" || tool == "edit" {
                    "filePath"
                } else {
                    "path"
                };
                let r = h.call_json(&write_call(tool, key, &p));
                if !blocked(&r) {
                    let rel = model_target(&h.host, &p);
                    prop_assert!(
                        rel.as_deref().is_some_and(|r| r.starts_with("src/auth/")
                            && !r.to_ascii_lowercase().starts_with("src/auth/secrets/")),
                        "{tool} {p:?} was let through; it lands at {rel:?}: {r}"
                    );
                }
                Ok(())
            },
        );
    }

    /// Under an intent that owns everything, nothing under `.orchestration/` is let through
    /// (the intents and the trace are the user's, not the model's).
    #[test]
    fn the_governance_files_are_never_written() {
        check(
            "engine: .orchestration never written",
            96,
            (
                prop::sample::select(&["write", "edit", "apply_patch"][..]),
                path(),
            ),
            |(tool, p)| {
                let mut h = governed("INT-ALL");
                let call = if tool == "apply_patch" {
                    json!({"hook": "tool.before", "tool": tool, "sessionId": "s1", "callId": "c1",
                           "args": {"patchText": format!("*** Begin Patch\n*** Add File: {p}\n+x\n*** End Patch\n")}})
                } else {
                    write_call(tool, "filePath", &p)
                };
                let r = h.call_json(&call);
                if !blocked(&r) {
                    // a patch header's path is trimmed; a write's is not
                    let p = if tool == "apply_patch" { p.trim() } else { &p };
                    let rel = model_target(&h.host, p);
                    prop_assert!(
                        rel.as_deref().is_some_and(|r| !r
                            .split('/')
                            .next()
                            .unwrap_or("")
                            .eq_ignore_ascii_case(".orchestration")),
                        "{tool} {p:?} was let through; it lands at {rel:?}: {r}"
                    );
                }
                Ok(())
            },
        );
    }

    /// Found by the patch property: OpenCode moves to the first `*** Move to:` after an
    /// Update and skips the rest; the gate checked only the last.
    #[test]
    fn a_patch_with_two_move_targets_is_checked_for_both() {
        let mut h = governed("INT-1");
        let text = "*** Begin Patch\n*** Update File: src/auth/a.ts\n*** Move to: docs/evil.md\n*** Move to: src/auth/b.ts\n@@\n-export function a() {}\n+evil\n*** End Patch\n";
        let r = h.call_json(&json!({"hook": "tool.before", "tool": "apply_patch",
            "sessionId": "s1", "callId": "c1", "args": {"patchText": text}}));
        assert!(
            blocked(&r) && r["block"].as_str().unwrap().contains("docs/evil.md"),
            "{r}"
        );
    }

    /// A patch let through touches only paths inside the scope.
    #[test]
    fn a_patch_let_through_touches_only_the_scope() {
        check(
            "engine: apply_patch scope (model of realpath)",
            96,
            patch_ops(1..4),
            |ops| {
                let mut h = governed("INT-1");
                let text = patch_of(&ops);
                let r = h.call_json(&json!({"hook": "tool.before", "tool": "apply_patch",
                    "sessionId": "s1", "callId": "c1", "args": {"patchText": text}}));
                if !blocked(&r) {
                    for (_, p) in &ops {
                        let rel = model_target(&h.host, p.trim());
                        prop_assert!(
                            rel.as_deref().is_some_and(|r| r.starts_with("src/auth/")
                                && !r.to_ascii_lowercase().starts_with("src/auth/secrets/")),
                            "a patch naming {p:?} was let through; it lands at {rel:?}: {r}"
                        );
                    }
                }
                Ok(())
            },
        );
    }
}

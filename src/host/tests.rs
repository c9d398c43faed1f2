//! The profiles' tables, and reading arguments as an attacker would write them.

use serde_json::{json, Value};

use super::args::{self, ArgError, EditShape};
use crate::hosts::{claude::PROFILE as CLAUDE_CODE, openclaw::PROFILE as OPENCLAW, opencode::PROFILE as OPENCODE, engine::PROFILE as VSCODE};
use super::*;
use crate::hosts::{by_id, choose, ALL};

fn names(v: Vec<String>) -> Vec<String> {
    let mut v = v;
    v.sort();
    v
}

#[test]
fn every_profile_is_found_by_its_id_and_unknown_ids_fall_back_with_a_warning() {
    for p in ALL {
        assert_eq!(by_id(p.id).map(|x| x.id), Some(p.id));
    }
    assert_eq!(choose(None).0.id, "vscode");
    assert!(choose(None).1.is_none());
    assert_eq!(choose(Some("  ")).0.id, "vscode");
    assert_eq!(choose(Some("openclaw")).0.id, "openclaw");
    let (p, log) = choose(Some("OpenClaw"));
    assert_eq!(p.id, "vscode", "ids are exact");
    let log = log.expect("a warning");
    assert_eq!(log.level, crate::protocol::Level::Warn);
    assert!(log.message.contains("\"OpenClaw\"") && log.message.contains("openclaw, "));
    // a long id is cut in the warning
    let (_, log) = choose(Some(&"x".repeat(10_000)));
    assert!(log.unwrap().message.len() < 400);
}

#[test]
fn the_tables_say_what_the_facts_say() {
    // OpenCode 1.x
    let t = OPENCODE.entry("write");
    assert_eq!((t.role, t.keys.path), (Role::Write, &["filePath"][..]));
    assert_eq!(OPENCODE.entry("apply_patch").keys.patch, &["patchText"]);
    assert_eq!(OPENCODE.shell_key("bash"), Some("command"));
    assert_eq!(OPENCODE.entry("task").keys.prompt, "prompt");
    assert_eq!(
        OPENCODE.role("write_to_file"),
        Role::Other,
        "Roo's, not OpenCode's"
    );
    // OpenClaw 2026.9.6
    assert_eq!(OPENCLAW.entry("write").keys.path, &["path"]);
    assert_eq!(OPENCLAW.entry("edit").keys.path, &["path"]);
    assert_eq!(OPENCLAW.entry("edit").keys.edits, "edits");
    assert_eq!(OPENCLAW.entry("apply_patch").keys.patch, &["input"]);
    assert_eq!(OPENCLAW.shell_key("exec"), Some("command"));
    assert!(OPENCLAW
        .all()
        .iter()
        .all(|t| t.context == Context::WithResult));
    // Claude Code
    assert_eq!(CLAUDE_CODE.entry("Write").keys.path, &["file_path"]);
    assert_eq!(
        CLAUDE_CODE.entry("NotebookEdit").keys.path,
        &["notebook_path"]
    );
    assert_eq!(
        CLAUDE_CODE.role("write"),
        Role::Other,
        "names are case-sensitive"
    );
    assert_eq!(CLAUDE_CODE.entry("Agent").role, Role::Subagent);
    // the engine API: Roo's names, OpenCode's, and both keys where a name is shared
    assert_eq!(VSCODE.entry("write_to_file").keys.path, &["path"]);
    assert_eq!(VSCODE.entry("write").keys.path, &["filePath", "path"]);
    assert_eq!(VSCODE.entry("read").keys.path, &["filePath", "path"]);
    assert_eq!(
        VSCODE.entry("find").role,
        Role::Read,
        "OpenClaw's readers too"
    );
    assert_eq!(
        VSCODE.entry("edit").keys.path,
        &["filePath", "file_path", "path"]
    );
    assert_eq!(
        VSCODE.entry("apply_patch").keys.patch,
        &["patchText", "patch", "input"]
    );
    assert_eq!(VSCODE.entry("new_task").keys.prompt, "message");
    // only OpenClaw and pi rewrite paths before writing them
    assert_eq!(
        ALL.iter()
            .filter(|p| p.rewrites_paths)
            .map(|p| p.id)
            .collect::<Vec<_>>(),
        ["openclaw", "pi"]
    );
}

#[test]
fn default_gated_tools_per_host() {
    assert_eq!(
        names(OPENCODE.mutating()),
        ["apply_patch", "bash", "edit", "multiedit", "write"]
    );
    assert_eq!(
        names(OPENCLAW.mutating()),
        ["apply_patch", "bash", "edit", "exec", "write"]
    );
    assert_eq!(
        names(CLAUDE_CODE.mutating()),
        ["Bash", "Edit", "Monitor", "MultiEdit", "NotebookEdit", "PowerShell", "Write"]
    );
    // the engine API keeps every tool it gated before
    let vs = VSCODE.mutating();
    for t in [
        "write",
        "edit",
        "apply_patch",
        "bash",
        "write_to_file",
        "write_file",
        "apply_diff",
        "search_replace",
        "search_and_replace",
        "edit_file",
        "execute_command",
        "exec",
    ] {
        assert!(vs.contains(&t.to_string()), "{t}");
    }
    assert_eq!(names(VSCODE.readers()), ["read", "read_file"]);
    assert_eq!(names(OPENCLAW.readers()), ["read"]);
    assert_eq!(names(CLAUDE_CODE.readers()), ["Read"]);
    // a name is listed once
    let mut dedup = vs.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), vs.len());
}

#[test]
fn every_key_a_profile_reads_a_file_or_patch_from_is_in_the_decoy_lists() {
    for p in ALL {
        for t in p.all() {
            for k in t.keys.path {
                assert!(args::is_path_key(k), "{} {}: {k}", p.id, t.name);
            }
            for k in t.keys.patch {
                assert!(args::is_patch_key(k), "{} {}: {k}", p.id, t.name);
            }
            if matches!(t.role, Role::Write | Role::Edit) {
                assert!(
                    !t.keys.path.is_empty(),
                    "{} {} names its file",
                    p.id,
                    t.name
                );
            }
            if t.role == Role::Patch {
                assert!(!t.keys.patch.is_empty(), "{} {}", p.id, t.name);
            }
            if t.role == Role::Shell {
                assert!(!t.keys.command.is_empty(), "{} {}", p.id, t.name);
            }
        }
    }
    // and nothing else is one
    for k in [
        "content",
        "command",
        "pattern",
        "url",
        "oldString",
        "paths",
        "file",
        "dir",
    ] {
        assert!(!args::is_path_key(k), "{k}");
    }
}

fn path_on(p: &Profile, tool: &str, a: Value) -> Result<Option<String>, ArgError> {
    args::path(p.entry(tool), &a).map(|o| o.map(str::to_string))
}

fn ambiguous(r: Result<Option<String>, ArgError>) -> (String, String) {
    match r {
        Err(ArgError::Ambiguous { key, other, .. }) => (key, other),
        other => panic!("expected ambiguous, got {other:?}"),
    }
}

#[test]
fn the_host_key_decides_and_a_decoy_naming_another_file_is_ambiguous() {
    let ok = |r: Result<Option<String>, ArgError>| r.unwrap().unwrap();
    // each host reads its own key
    assert_eq!(
        ok(path_on(&OPENCODE, "write", json!({"filePath": "a"}))),
        "a"
    );
    assert_eq!(ok(path_on(&OPENCLAW, "write", json!({"path": "a"}))), "a");
    assert_eq!(
        ok(path_on(&CLAUDE_CODE, "Write", json!({"file_path": "a"}))),
        "a"
    );
    // the OpenClaw bypass: `path` is written, `filePath` was checked
    let (k, o) = ambiguous(path_on(
        &OPENCLAW,
        "write",
        json!({"path": "docs/leak.md", "content": "x", "filePath": "src/billing/ok.ts"}),
    ));
    assert_eq!((k.as_str(), o.as_str()), ("path", "filePath"));
    // every other host key, on every host, for write and edit
    for (p, tool, own) in [
        (&OPENCODE, "write", "filePath"),
        (&OPENCODE, "edit", "filePath"),
        (&OPENCLAW, "write", "path"),
        (&OPENCLAW, "edit", "path"),
        (&CLAUDE_CODE, "Write", "file_path"),
        (&CLAUDE_CODE, "Edit", "file_path"),
        (&CLAUDE_CODE, "MultiEdit", "file_path"),
        (&VSCODE, "write_to_file", "path"),
        (&VSCODE, "search_replace", "file_path"),
        (&VSCODE, "apply_diff", "path"),
    ] {
        for decoy in [
            "filePath",
            "file_path",
            "path",
            "notebook_path",
            "FilePath",
            "FILE_PATH",
            "file-path",
            "Path",
            "filepath",
        ] {
            if decoy == own {
                continue;
            }
            let a = json!({ own: "src/ok.ts", decoy: "docs/leak.md" });
            let (k, o) = ambiguous(path_on(p, tool, a.clone()));
            assert_eq!(
                (k.as_str(), o.as_str()),
                (own, decoy),
                "{} {tool} {a}",
                p.id
            );
            // the same file through both keys is one file
            let a = json!({ own: "src/ok.ts", decoy: "src/ok.ts" });
            assert_eq!(ok(path_on(p, tool, a)), "src/ok.ts");
            // a decoy alone names nothing this host's tool reads
            let a = json!({ decoy: "src/ok.ts" });
            assert_eq!(
                path_on(p, tool, a).unwrap(),
                None,
                "{} {tool} {decoy}",
                p.id
            );
        }
    }
}

#[test]
fn a_shared_name_on_the_engine_api_takes_either_key_but_not_two_files() {
    let ok = |a: Value| path_on(&VSCODE, "edit", a).unwrap().unwrap();
    assert_eq!(ok(json!({"filePath": "a"})), "a");
    assert_eq!(ok(json!({"file_path": "a"})), "a");
    assert_eq!(ok(json!({"path": "a"})), "a");
    assert_eq!(
        ok(json!({"filePath": "a", "file_path": "a", "path": "a"})),
        "a"
    );
    let (k, o) = ambiguous(path_on(
        &VSCODE,
        "edit",
        json!({"file_path": "a", "filePath": "b"}),
    ));
    assert_eq!((k.as_str(), o.as_str()), ("filePath", "file_path"));
    assert_eq!(
        ambiguous(path_on(
            &VSCODE,
            "edit",
            json!({"path": "a", "file_path": "b"})
        )),
        ("file_path".to_string(), "path".to_string())
    );
    // null is absent
    assert_eq!(
        ok(json!({"filePath": null, "file_path": "a", "path": null})),
        "a"
    );
}

#[test]
fn a_path_key_holding_anything_but_a_string_is_unreadable() {
    for bad in [
        json!(3),
        json!(true),
        json!(["src/ok.ts"]),
        json!({"toString": "src/ok.ts"}),
        json!([]),
        json!({}),
    ] {
        // under the host's own key
        let r = path_on(
            &OPENCLAW,
            "write",
            json!({"path": bad.clone(), "content": "x"}),
        );
        assert!(
            matches!(&r, Err(ArgError::NotText { key, .. }) if key == "path"),
            "{bad}: {r:?}"
        );
        // under a decoy key, next to a good own key
        let r = path_on(
            &OPENCODE,
            "write",
            json!({"filePath": "src/ok.ts", "path": bad.clone()}),
        );
        assert!(
            matches!(&r, Err(ArgError::NotText { key, .. }) if key == "path"),
            "{bad}: {r:?}"
        );
    }
    let msg = path_on(&OPENCLAW, "write", json!({"path": 7}))
        .unwrap_err()
        .message("write", "file", &["path"]);
    assert!(
        msg.contains("`path` is a number") && msg.contains("under `path`"),
        "{msg}"
    );
}

#[test]
fn look_alike_keys_are_not_read_by_any_host_and_do_not_redirect_the_check() {
    // Cyrillic і (U+0456), Greek ο (U+03BF), a zero-width space, a trailing space
    for k in [
        "fіlePath",
        "filePαth",
        "file\u{200b}Path",
        "path ",
        " path",
        "pαth",
    ] {
        assert!(!args::is_path_key(k), "{k:?}");
        // the host's own key is what is checked; the look-alike is ignored (no host reads it)
        let a = json!({ "path": "src/ok.ts", k: "docs/leak.md" });
        assert_eq!(
            path_on(&OPENCLAW, "write", a).unwrap().as_deref(),
            Some("src/ok.ts")
        );
        // alone it names nothing
        assert_eq!(
            path_on(&OPENCLAW, "write", json!({ k: "x" })).unwrap(),
            None
        );
    }
    // a very long key is no path key (and costs nothing to look at)
    assert!(!args::is_path_key(&"path".repeat(100_000)));
    // the comparison agrees with `norm`
    for k in [
        "File_Path",
        "file--path",
        "PATCH_TEXT",
        "pathx",
        "pat",
        "",
        "_",
    ] {
        assert_eq!(
            args::is_path_key(k) || args::is_patch_key(k),
            args::norm(k).is_some_and(|n| args::PATH_KEYS_ANY.contains(&n.as_str())
                || args::PATCH_KEYS_ANY.contains(&n.as_str())),
            "{k}"
        );
    }
}

#[test]
fn patch_text_decoys() {
    let t = |p: &Profile, a: Value| {
        args::patch_text(p.entry("apply_patch"), &a).map(|o| o.map(str::to_string))
    };
    let ours = "*** Add File: src/billing/ok.ts\n+x\n";
    let evil = "*** Add File: docs/evil.md\n+x\n";
    // the OpenClaw bypass: `input` is applied, `patchText` was checked
    let r = t(&OPENCLAW, json!({"input": evil, "patchText": ours}));
    assert!(
        matches!(&r, Err(ArgError::Ambiguous { key, other, .. }) if key == "input" && other == "patchText"),
        "{r:?}"
    );
    for (p, own) in [(&OPENCODE, "patchText"), (&OPENCLAW, "input")] {
        for decoy in [
            "patchText",
            "patch",
            "input",
            "PatchText",
            "patch_text",
            "INPUT",
        ] {
            if decoy == own {
                continue;
            }
            let r = t(p, json!({ own: ours, decoy: evil }));
            assert!(
                matches!(r, Err(ArgError::Ambiguous { .. })),
                "{} {decoy}",
                p.id
            );
            assert_eq!(
                t(p, json!({ own: ours, decoy: ours })).unwrap().as_deref(),
                Some(ours)
            );
            assert_eq!(t(p, json!({ decoy: evil })).unwrap(), None);
            let r = t(p, json!({ own: ours, decoy: [evil] }));
            assert!(matches!(r, Err(ArgError::NotText { .. })), "{r:?}");
        }
    }
    // the engine API's apply_patch takes any of the three, one text
    assert_eq!(
        t(&VSCODE, json!({"patch": ours})).unwrap().as_deref(),
        Some(ours)
    );
    assert!(t(&VSCODE, json!({"patch": ours, "input": evil})).is_err());
}

#[test]
fn ambiguity_messages_name_both_keys_and_quote_the_values_safely() {
    let r = path_on(
        &OPENCLAW,
        "write",
        json!({"path": "docs/leak.md", "filePath": "src/billing/ok.ts\n\u{1b}[2Jx".repeat(20)}),
    );
    let msg = r.unwrap_err().message("write", "file", &["path"]);
    assert!(msg.contains("`path` = \"docs/leak.md\""), "{msg}");
    assert!(msg.contains("`filePath` = \"src/billing/ok.ts\\n"), "{msg}");
    assert!(
        !msg.contains('\u{1b}') && !msg.contains('\n'),
        "escaped: {msg}"
    );
    assert!(msg.contains('…') && msg.len() < 600, "cut: {msg}");
    assert!(msg.contains("Send the file once, under `path`."), "{msg}");
}

#[test]
fn user_added_tools_have_every_path_key_checked() {
    let a = json!({"path": "a", "filePath": "b", "file_path": ["c", "a"], "x": 3});
    let mut got = args::other_paths(&a).unwrap();
    got.sort();
    assert_eq!(got, vec!["a", "b", "c"]);
    assert!(args::other_paths(&json!({"path": 3})).is_err());
    assert!(args::other_paths(&json!({"Path": {"p": "a"}})).is_err());
    assert!(args::other_paths(&json!({"paths": [1], "path": ["a", 2]})).is_err());
    assert_eq!(
        args::other_paths(&json!({"path": null})).unwrap(),
        Vec::<&str>::new()
    );
    assert_eq!(
        args::other_paths(&json!("path")).unwrap(),
        Vec::<&str>::new()
    );
}

#[test]
fn a_read_is_remembered_by_the_hosts_key_or_for_a_user_added_reader_by_its_one_path() {
    let r =
        |p: &Profile, tool: &str, a: Value| args::read_path(p.entry(tool), &a).map(str::to_string);
    assert_eq!(
        r(&OPENCODE, "read", json!({"filePath": "a"})).as_deref(),
        Some("a")
    );
    assert_eq!(r(&OPENCODE, "read", json!({"path": "a"})), None);
    assert_eq!(
        r(&OPENCODE, "read", json!({"filePath": "a", "path": "b"})),
        None
    );
    assert_eq!(
        r(&CLAUDE_CODE, "Read", json!({"file_path": "a"})).as_deref(),
        Some("a")
    );
    assert_eq!(
        r(&OPENCODE, "my_read", json!({"path": "a"})).as_deref(),
        Some("a")
    );
    assert_eq!(
        r(&OPENCODE, "my_read", json!({"path": "a", "file": "b"})).as_deref(),
        Some("a")
    );
    assert_eq!(
        r(&OPENCODE, "my_read", json!({"path": "a", "filePath": "b"})),
        None
    );
}

#[test]
fn edits_are_read_with_the_host_keys() {
    let shape =
        |p: &Profile, tool: &str, a: Value| format!("{:?}", args::edit_shape(p.entry(tool), &a));
    assert_eq!(
        args::edit_shape(
            OPENCODE.entry("edit"),
            &json!({"filePath": "a", "oldString": "x", "newString": "y", "replaceAll": true})
        ),
        EditShape::Replace {
            old: "x",
            new: "y",
            all: true
        }
    );
    // OpenCode's edit does not read Claude Code's keys
    assert_eq!(
        shape(
            &OPENCODE,
            "edit",
            json!({"old_string": "x", "new_string": "y"})
        ),
        "Unknown"
    );
    // OpenClaw: the list, and a top-level pair joins it
    assert_eq!(
        args::edit_shape(
            OPENCLAW.entry("edit"),
            &json!({"path": "a", "edits": [{"oldText": "1", "newText": "2"}], "oldText": "3", "newText": "4"})
        ),
        EditShape::List(vec![("1", "2"), ("3", "4")])
    );
    assert_eq!(
        args::edit_shape(
            CLAUDE_CODE.entry("MultiEdit"),
            &json!({"file_path": "a", "edits": [{"old_string": "1", "new_string": "2"}, 5]})
        ),
        EditShape::List(vec![("1", "2"), ("", "")])
    );
    assert_eq!(
        shape(&VSCODE, "apply_diff", json!({"path": "a", "diff": "x"})),
        "Unknown"
    );
}

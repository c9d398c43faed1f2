//! The gate on each host, as a model that wants to write outside its scope would call it:
//! decoy keys, two targets, non-string decoys, look-alike keys, other hosts' tool names.

use serde_json::{json, Value};

use super::*;
use crate::governance::intents;
use crate::governance::scope::resolve;
use crate::hosts::{claude::PROFILE as CLAUDE_CODE, openclaw::PROFILE as OPENCLAW, opencode::PROFILE as OPENCODE, engine::PROFILE as VSCODE};

/// BILL owns src/billing/** (also the default-deny tests').
pub(in crate::governance) const YAML: &str = "\
active_intents:
  - id: BILL
    name: Billing
    status: IN_PROGRESS
    owned_scope: [src/billing/**]
";
const OURS: &str = "*** Begin Patch\n*** Add File: src/billing/ok.ts\n+x\n*** End Patch";
const EVIL: &str = "*** Begin Patch\n*** Add File: docs/evil.md\n+x\n*** End Patch";

fn on(host: &'static Profile, mutating: &[String], tool: &str, args: Value) -> Decision {
    let f = intents::parse("f", YAML);
    let scope = Some(Scope::compile(&["src/billing/**"]));
    let st = GateState {
        host,
        gated: &|t| mutating.iter().any(|x| x == t),
        intents: &f,
        active: Some("BILL"),
        scope: scope.as_ref(),
    };
    gate(tool, &args, &st, &mut |p| {
        resolve("/w", p, &mut |q: &str| Some(q.to_string()))
    })
}

fn run(host: &'static Profile, tool: &str, args: Value) -> Decision {
    on(host, &host.mutating(), tool, args)
}

fn blocked(d: Decision) -> String {
    match d {
        Decision::Block(m) => m,
        Decision::Allow => panic!("expected a block"),
    }
}

#[test]
fn the_openclaw_bypasses_are_blocked_as_ambiguous() {
    let m = blocked(run(
        &OPENCLAW,
        "write",
        json!({"path": "docs/leak.md", "content": "x", "filePath": "src/billing/ok.ts"}),
    ));
    assert!(
        m.contains("two different files")
            && m.contains("`path` = \"docs/leak.md\"")
            && m.contains("`filePath` = \"src/billing/ok.ts\""),
        "{m}"
    );
    let m = blocked(run(
        &OPENCLAW,
        "apply_patch",
        json!({"input": EVIL, "patchText": OURS}),
    ));
    assert!(m.contains("two different patch texts"), "{m}");
    assert!(m.contains("`input`") && m.contains("`patchText`"), "{m}");
    // what OpenClaw really writes is what is checked
    assert!(blocked(run(
        &OPENCLAW,
        "write",
        json!({"path": "docs/leak.md", "content": "x"})
    ))
    .contains("outside the scope"));
    assert!(blocked(run(&OPENCLAW, "apply_patch", json!({"input": EVIL}))).contains("outside"));
    assert_eq!(
        run(
            &OPENCLAW,
            "write",
            json!({"path": "src/billing/ok.ts", "content": "x"})
        ),
        Decision::Allow
    );
    assert_eq!(
        run(&OPENCLAW, "apply_patch", json!({"input": OURS})),
        Decision::Allow
    );
    // the in-scope key alone is not the key OpenClaw writes: nothing to check, blocked
    let m = blocked(run(
        &OPENCLAW,
        "write",
        json!({"filePath": "src/billing/ok.ts", "content": "x"}),
    ));
    assert!(m.contains("name no file under `path`"), "{m}");
    let m = blocked(run(&OPENCLAW, "apply_patch", json!({"patchText": OURS})));
    assert!(m.contains("names no file"), "{m}");
}

#[test]
fn the_same_target_through_two_keys_is_allowed() {
    for (host, tool, a) in [
        (
            &OPENCLAW,
            "write",
            json!({"path": "src/billing/a.ts", "filePath": "src/billing/a.ts", "content": ""}),
        ),
        (
            &OPENCODE,
            "edit",
            json!({"filePath": "src/billing/a.ts", "file_path": "src/billing/a.ts", "oldString": "a", "newString": "b"}),
        ),
        (
            &CLAUDE_CODE,
            "Write",
            json!({"file_path": "src/billing/a.ts", "path": "src/billing/a.ts", "content": ""}),
        ),
        (
            &OPENCODE,
            "apply_patch",
            json!({"patchText": OURS, "input": OURS}),
        ),
        (
            &VSCODE,
            "edit",
            json!({"filePath": "src/billing/a.ts", "file_path": "src/billing/a.ts", "path": null}),
        ),
    ] {
        assert_eq!(
            run(host, tool, a.clone()),
            Decision::Allow,
            "{} {tool} {a}",
            host.id
        );
    }
}

#[test]
fn every_host_every_file_role_every_decoy() {
    let cases: &[(&'static Profile, &str, &str)] = &[
        (&OPENCODE, "write", "filePath"),
        (&OPENCODE, "edit", "filePath"),
        (&OPENCODE, "multiedit", "filePath"),
        (&OPENCLAW, "write", "path"),
        (&OPENCLAW, "edit", "path"),
        (&CLAUDE_CODE, "Write", "file_path"),
        (&CLAUDE_CODE, "Edit", "file_path"),
        (&CLAUDE_CODE, "MultiEdit", "file_path"),
        (&CLAUDE_CODE, "NotebookEdit", "notebook_path"),
        (&VSCODE, "write_to_file", "path"),
        (&VSCODE, "write_file", "path"),
        (&VSCODE, "apply_diff", "path"),
        (&VSCODE, "search_replace", "file_path"),
        (&VSCODE, "edit_file", "file_path"),
        (&VSCODE, "insert_content", "path"),
        (&VSCODE, "write", "filePath"),
    ];
    let decoys = [
        "filePath",
        "file_path",
        "path",
        "notebook_path",
        "FilePath",
        "FILEPATH",
        "File_Path",
        "file-path",
    ];
    for &(host, tool, own) in cases {
        for decoy in decoys.iter().filter(|d| **d != own) {
            // in scope under the host's key, outside under the decoy: ambiguous
            let m = blocked(run(
                host,
                tool,
                json!({ own: "src/billing/ok.ts", *decoy: "docs/leak.md" }),
            ));
            assert!(
                m.contains("two different files") && m.contains(own) && m.contains(decoy),
                "{} {tool} {decoy}: {m}",
                host.id
            );
            // outside under the host's key, in scope under the decoy: ambiguous too
            blocked(run(
                host,
                tool,
                json!({ own: "docs/leak.md", *decoy: "src/billing/ok.ts" }),
            ));
            // non-string decoys
            for bad in [
                json!(1),
                json!(["docs/leak.md"]),
                json!({"a": "docs/leak.md"}),
                json!(false),
            ] {
                let m = blocked(run(
                    host,
                    tool,
                    json!({ own: "src/billing/ok.ts", *decoy: bad }),
                ));
                assert!(m.contains("cannot be checked"), "{m}");
            }
            // null is absent
            assert_eq!(
                run(
                    host,
                    tool,
                    json!({ own: "src/billing/ok.ts", *decoy: null })
                ),
                Decision::Allow
            );
        }
        // non-strings under the host's own key
        for bad in [
            json!(1),
            json!(["src/billing/ok.ts"]),
            json!({"path": "src/billing/ok.ts"}),
        ] {
            let m = blocked(run(host, tool, json!({ own: bad })));
            assert!(m.contains(&format!("`{own}` is")), "{m}");
        }
    }
}

#[test]
fn look_alike_keys_change_nothing() {
    for k in ["pаth", "pαth", "path\u{200b}", "path\u{0}"] {
        // the host writes `path`: that is what is checked, the look-alike is ignored
        assert_eq!(
            run(
                &OPENCLAW,
                "write",
                json!({"path": "src/billing/ok.ts", k: "docs/leak.md"})
            ),
            Decision::Allow
        );
        assert!(blocked(run(
            &OPENCLAW,
            "write",
            json!({"path": "docs/leak.md", k: "src/billing/ok.ts"})
        ))
        .contains("outside the scope"));
        blocked(run(&OPENCLAW, "write", json!({ k: "src/billing/ok.ts" })));
    }
}

#[test]
fn shell_decoys_need_an_intent_only() {
    // shell commands are not scope-checked; a decoy `cmd` changes nothing here
    assert_eq!(
        run(
            &OPENCLAW,
            "exec",
            json!({"command": "ls", "cmd": "rm -rf docs"})
        ),
        Decision::Allow
    );
    let f = intents::parse("f", YAML);
    let m = OPENCLAW.mutating();
    let st = GateState {
        host: &OPENCLAW,
        gated: &|t| m.iter().any(|x| x == t),
        intents: &f,
        active: None,
        scope: None,
    };
    let mut res = |p: &str| Resolved::Inside(p.to_string());
    for tool in ["exec", "bash"] {
        assert!(matches!(
            gate(tool, &json!({"cmd": "x"}), &st, &mut res),
            Decision::Block(_)
        ));
    }
}

#[test]
fn another_hosts_tool_names_are_not_this_hosts_tools() {
    // Roo's write_to_file is no OpenCode tool: not gated by default there (OpenCode would
    // answer `invalid`), and its keys are not guessed
    assert_eq!(
        run(&OPENCODE, "write_to_file", json!({"path": "docs/leak.md"})),
        Decision::Allow
    );
    // Claude Code's names are case-sensitive: `write` is not its tool
    assert_eq!(
        run(&CLAUDE_CODE, "write", json!({"filePath": "docs/leak.md"})),
        Decision::Allow
    );
    // …but a user who lists one gets every path key checked
    let m = vec!["write_to_file".to_string()];
    assert!(matches!(
        on(
            &OPENCODE,
            &m,
            "write_to_file",
            json!({"path": "docs/leak.md"})
        ),
        Decision::Block(_)
    ));
}

#[test]
fn user_added_tools_have_every_path_key_scope_checked() {
    let m = vec!["mcp_fs_write".to_string()];
    for host in [&OPENCODE, &OPENCLAW, &CLAUDE_CODE, &VSCODE] {
        let go = |a: Value| on(host, &m, "mcp_fs_write", a);
        assert_eq!(
            go(json!({"path": "src/billing/a", "filePath": "src/billing/a"})),
            Decision::Allow
        );
        assert_eq!(go(json!({"content": "no path"})), Decision::Allow);
        assert!(blocked(go(
            json!({"path": "src/billing/a", "filePath": "docs/leak.md"})
        ))
        .contains("`docs/leak.md` is outside"));
        assert!(
            blocked(go(json!({"FILE_PATH": ["src/billing/a", "docs/leak.md"]})))
                .contains("`docs/leak.md` is outside")
        );
        assert!(blocked(go(json!({"path": 42}))).contains("`path` is a number"));
        assert!(blocked(go(json!({"file_path": ["a", 1]}))).contains("cannot be checked"));
    }
}

#[test]
fn an_indented_patch_header_is_a_header() {
    // OpenClaw's apply_patch trims each hunk header: the indented Add creates docs/evil.md
    for indent in ["  ", "\t", "\u{a0}", "\u{feff}", "\u{2003}"] {
        let input = format!(
            "*** Begin Patch\n*** Add File: src/billing/ok.ts\n+x\n{indent}*** Add File: docs/evil.md\n+y\n*** End Patch"
        );
        let m = blocked(run(&OPENCLAW, "apply_patch", json!({ "input": input })));
        assert!(m.contains("`docs/evil.md` is outside"), "{indent:?}: {m}");
        let input = format!(
            "*** Begin Patch\n*** Delete File: src/billing/old.ts\n{indent}*** Update File: src/billing/a.ts\n{indent}*** Move to: docs/moved.ts\n@@\n-a\n+b\n*** End Patch"
        );
        let m = blocked(run(&OPENCLAW, "apply_patch", json!({ "input": input })));
        assert!(m.contains("`docs/moved.ts` is outside"), "{indent:?}: {m}");
    }
}

#[test]
fn paths_openclaw_rewrites_before_writing_are_refused() {
    // with an intent that owns everything, these would pass a literal check and land elsewhere
    let f = intents::parse(
        "f",
        "active_intents:\n  - id: ALL\n    name: all\n    status: IN_PROGRESS\n    owned_scope: [\"**\"]\n",
    );
    let scope = Some(Scope::compile(&["**"]));
    let m = OPENCLAW.mutating();
    let st = GateState {
        host: &OPENCLAW,
        gated: &|t| m.iter().any(|x| x == t),
        intents: &f,
        active: Some("ALL"),
        scope: scope.as_ref(),
    };
    let mut res = |p: &str| resolve("/w", p, &mut |q: &str| Some(q.to_string()));
    for p in [
        "~/.ssh/authorized_keys",
        "~",
        "@.orchestration/active_intents.yaml",
        "file:///w/.orchestration/active_intents.yaml",
        "FILE:///etc/passwd",
        "src/a.ts</arg_value>>",
        "src/report.docxcodex",
        "src/report.PPTodex",
    ] {
        let d = gate("write", &json!({"path": p, "content": "x"}), &st, &mut res);
        match d {
            Decision::Block(m) => assert!(m.contains("rewrites the path"), "{p}: {m}"),
            Decision::Allow => panic!("{p} was allowed"),
        }
        let patch = format!("*** Begin Patch\n*** Add File: {p}\n+x\n*** End Patch");
        assert!(matches!(
            gate("apply_patch", &json!({ "input": patch }), &st, &mut res),
            Decision::Block(_)
        ));
    }
    // the same paths as literal names on a host that writes them as given
    let o = OPENCODE.mutating();
    let st = GateState {
        host: &OPENCODE,
        gated: &|t| o.iter().any(|x| x == t),
        ..st
    };
    for p in ["@types/a.d.ts", "src/report.docodex", "./@scope/x"] {
        assert_eq!(
            gate("write", &json!({"filePath": p}), &st, &mut res),
            Decision::Allow,
            "{p}"
        );
    }
    // and OpenClaw's ordinary paths, `@` inside a path included
    let st = GateState {
        host: &OPENCLAW,
        gated: &|t| m.iter().any(|x| x == t),
        ..st
    };
    for p in [
        "src/a.ts",
        "packages/@scope/x.ts",
        "./@scope/x",
        "docs/file.md",
        "a~b",
    ] {
        assert_eq!(
            gate("write", &json!({"path": p}), &st, &mut res),
            Decision::Allow,
            "{p}"
        );
    }
}

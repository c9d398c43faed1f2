//! The gate end to end: governance off, selection, scope, relative paths, subagents, stale
//! writes and patches.

use super::*;

#[test]
fn governance_off_changes_nothing() {
    let mut fs = TestHost::default();
    fs.dir("/w/src");
    let mut t = T::new(fs);
    let r = t
        .call(
            "s",
            "write",
            json!({"filePath": "/etc/x", "content": "x"}),
            |_| {},
        )
        .unwrap();
    assert_eq!(r, AfterOutput::default());
    assert_eq!(
        t.before("s", "bash", json!({"command": "rm -rf /"})),
        GateOutput::default()
    );
    assert!(t.system("s").system.is_empty());
    assert!(!t.select("s", "INT-1").ok);
    // only the intents file (and the guard's lock) was looked at; nothing was written
    assert!(
        t.fs.log.iter().all(
            |r| matches!(r, Request::ReadFile { path, .. } | Request::Stat { path } if path.ends_with("active_intents.yaml") || path.ends_with("governance.lock"))
        ),
        "{:?}",
        t.fs.log
    );
    assert!(t.fs.trace("/w").is_none());
    // tools that are not watched do not even read it
    let n = t.fs.log.len();
    t.before("s", "grep", json!({"pattern": "x"}));
    assert_eq!(t.fs.log.len(), n);
    // the option can force it off with a yaml present
    let mut t = T::new(project());
    t.gov.set_config(GovConfig {
        enabled: Enabled::Off,
        ..GovConfig::default()
    });
    assert!(t
        .before("s", "write", json!({"filePath": "src/a"}))
        .block
        .is_none());
}

#[test]
fn no_intent_blocks_then_select_then_write_leaves_a_valid_record() {
    let mut t = T::new(project());
    let m = t
        .call(
            "s",
            "write",
            json!({"filePath": "src/a.ts", "content": "x"}),
            |_| {},
        )
        .unwrap_err();
    assert!(
        m.contains("select_active_intent")
            && m.contains("INT-1 (Auth)")
            && m.contains("INT-2 (Docs)"),
        "{m}"
    );
    assert!(!m.contains("INT-3"));
    let m = t
        .call("s", "bash", json!({"command": "ls"}), |_| {})
        .unwrap_err();
    assert!(m.contains("select_active_intent"));

    let r = t.select("s", "NOPE");
    assert!(
        !r.ok && r.text.contains("Unknown intent id 'NOPE'") && r.text.contains("INT-1"),
        "{}",
        r.text
    );
    let r = t.select("s", "INT-3");
    assert!(
        !r.ok && r.text.contains("COMPLETE") && r.text.contains("cannot be activated"),
        "{}",
        r.text
    );
    let r = t.select("s", "INT-1");
    assert!(r.ok, "{}", r.text);
    for frag in [
        "INT-1 — Auth",
        "- src/**",
        "- !src/secrets/** (excluded)",
        "Keep the public API",
        "Tests pass",
    ] {
        assert!(r.text.contains(frag), "{frag}: {}", r.text);
    }

    let content = "export function login() {\n  return true;\n}\n";
    let b = t.before(
        "s",
        "write",
        json!({"filePath": "src/a.ts", "content": content}),
    );
    assert_eq!((b.block.as_deref(), b.follow_up), (None, true));
    t.fs.file("/w/src/a.ts", content);
    let r = t.after(
        "s",
        "write",
        json!({"filePath": "src/a.ts", "content": content}),
    );
    assert!(r.recorded, "{r:?}");
    let lines = t.trace_lines();
    assert_eq!(lines.len(), 1);
    let rec = &lines[0];
    assert_eq!(schema_errors(rec), Vec::<String>::new());
    assert_eq!(rec["id"], r.id.unwrap());
    assert_eq!(rec["timestamp"], "2025-11-22T03:12:03.459Z");
    assert!(rec.get("vcs").is_none(), "no .git here");
    assert_eq!(
        rec["tool"],
        json!({"name": "hookwise", "version": env!("CARGO_PKG_VERSION")})
    );
    let f = &rec["files"][0];
    assert_eq!(f["path"], "src/a.ts");
    assert_eq!(
        f["conversations"][0]["contributor"],
        json!({"type": "ai", "model_id": "anthropic/claude-test"})
    );
    assert_eq!(
        f["conversations"][0]["ranges"],
        json!([{"start_line": 1, "end_line": 3, "content_hash": content_hash(&["export function login() {", "  return true;", "}"])}])
    );
    let meta = &rec["metadata"]["dev.hookwise"];
    assert_eq!(meta["intent_id"], "INT-1");
    assert_eq!(meta["mutation_class"], "INTENT_EVOLUTION");
    assert_eq!(meta["session_id"], "s");
    assert_eq!(meta["tool"], "write");
    assert_eq!(meta["prev_hash"], format!("sha256:{GENESIS}"));

    // an edit that keeps the symbols: AST_REFACTOR, the replaced region, chained
    let args = json!({"filePath": "src/a.ts", "oldString": "return true;", "newString": "// checked\n  return 1 === 1;"});
    let r = t
        .call("s", "edit", args, |fs| {
            fs.file(
                "/w/src/a.ts",
                "export function login() {\n  // checked\n  return 1 === 1;\n}\n",
            )
        })
        .unwrap();
    assert!(r.recorded);
    let lines = t.trace_lines();
    let rec = &lines[1];
    assert_eq!(schema_errors(rec), Vec::<String>::new());
    assert_eq!(
        rec["metadata"]["dev.hookwise"]["mutation_class"],
        "AST_REFACTOR"
    );
    let range = &rec["files"][0]["conversations"][0]["ranges"][0];
    assert_eq!(
        (range["start_line"].as_u64(), range["end_line"].as_u64()),
        (Some(2), Some(3))
    );
    let text =
        t.fs.trace("/w")
            .unwrap()
            .to_string();
    let first = text.lines().next().unwrap();
    assert_eq!(
        rec["metadata"]["dev.hookwise"]["prev_hash"],
        format!("sha256:{}", sha256_hex(first.as_bytes()))
    );
    let v = t.verify();
    assert!(v.report.ok && v.report.lines == 2, "{v:?}");
    // bash under an intent runs and leaves no record
    assert_eq!(
        t.call("s", "bash", json!({"command": "make"}), |_| {})
            .unwrap(),
        AfterOutput::default()
    );
    assert_eq!(t.trace_lines().len(), 2);
}

#[test]
fn out_of_scope_writes_and_patches_are_blocked() {
    let mut fs = project();
    fs.dir("/outside");
    fs.link("/w/src/out", "/outside");
    fs.file("/w/README.md", "hi\n");
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    let cases = [
        ("write", json!({"filePath": "README.md"}), "`README.md`"),
        (
            "write",
            json!({"filePath": "src/../README.md"}),
            "resolves to `README.md`",
        ),
        (
            "write",
            json!({"filePath": "/etc/passwd"}),
            "outside the worktree",
        ),
        (
            "write",
            json!({"filePath": "src/out/x.ts"}),
            "/outside/x.ts, outside the worktree",
        ),
        (
            "write",
            json!({"filePath": "src/secrets/key"}),
            "`src/secrets/key`",
        ),
        ("edit", json!({"filePath": "SRC/a.ts"}), "`SRC/a.ts`"),
        (
            "write",
            json!({"filePath": "src\\..\\README.md"}),
            "backslash",
        ),
        (
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Add File: src/ok.ts\n+x\n*** Update File: README.md\n@@\n-hi\n+ho\n*** End Patch"}),
            "`README.md`",
        ),
        (
            "apply_patch",
            json!({"patchText": "*** Update File: src/a.ts\n*** Move to: docs/a.ts\n"}),
            "`docs/a.ts`",
        ),
    ];
    for (tool, args, frag) in cases {
        let m = t.call("s", tool, args.clone(), |_| {}).unwrap_err();
        assert!(
            m.contains(frag) && m.contains("outside the scope of the active intent INT-1 (Auth)"),
            "{tool} {args}: {m}"
        );
        assert!(m.contains("src/**, !src/secrets/**"), "{m}");
    }
    assert!(t.trace_lines().is_empty());
    // the scope follows the session's choice
    t.select("s", "INT-2");
    assert!(t
        .call("s", "write", json!({"filePath": "docs/x.md"}), |fs| fs
            .file("/w/docs/x.md", "x"))
        .is_ok());
    assert!(t
        .call("s", "write", json!({"filePath": "src/a.ts"}), |_| {})
        .is_err());
}

#[test]
fn relative_paths_start_in_the_agents_directory() {
    let mut t = T::new(project());
    t.dir = "/w/src".into();
    t.select("s", "INT-1");
    t.call("s", "write", json!({"filePath": "a.ts"}), |fs| {
        fs.file("/w/src/a.ts", "a\n")
    })
    .unwrap();
    assert_eq!(t.trace_lines()[0]["files"][0]["path"], "src/a.ts");
    let m = t
        .call("s", "write", json!({"filePath": "../README.md"}), |_| {})
        .unwrap_err();
    assert!(m.contains("resolves to `README.md`"), "{m}");
}

#[test]
fn subagents_inherit_their_parents_intent() {
    let mut t = T::new(project());
    t.gov.session_created("parent", None);
    t.gov.session_created("child", Some("parent"));
    t.gov.session_created("grandchild", Some("child"));
    assert!(t
        .before("grandchild", "write", json!({"filePath": "src/a"}))
        .block
        .is_some());
    t.select("parent", "INT-1");
    assert_eq!(t.gov.active_intent("grandchild").as_deref(), Some("INT-1"));
    assert!(t
        .before("grandchild", "write", json!({"filePath": "src/a"}))
        .block
        .is_none());
    // a child's own choice wins for it (and its children), not for the parent
    t.select("child", "INT-2");
    assert_eq!(t.gov.active_intent("grandchild").as_deref(), Some("INT-2"));
    assert_eq!(t.gov.active_intent("parent").as_deref(), Some("INT-1"));
    assert!(t
        .before("other", "write", json!({"filePath": "src/a"}))
        .block
        .is_some());
    // a cycle does not hang
    t.gov.session_created("a", Some("b"));
    t.gov.session_created("b", Some("a"));
    assert_eq!(t.gov.active_intent("a"), None);
}

#[test]
fn stale_writes_are_blocked_until_reread() {
    let mut fs = project();
    fs.file("/w/src/a.ts", "v1\n");
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    t.select("other", "INT-1");
    t.before("s", "read", json!({"filePath": "src/a.ts"}));
    // another process changes the file
    t.fs.file("/w/src/a.ts", "v2 from elsewhere\n");
    let args = json!({"filePath": "src/a.ts", "oldString": "v1", "newString": "v3"});
    let m = t.call("s", "edit", args.clone(), |_| {}).unwrap_err();
    assert!(
        m.contains("`src/a.ts` has changed on disk since this session last read it")
            && m.contains("Read it again"),
        "{m}"
    );
    // a session that never read it is not blocked by this check
    assert!(t
        .before("other", "write", json!({"filePath": "src/a.ts"}))
        .block
        .is_none());
    // after reading again, the edit goes through; the session's own write keeps it current
    t.before("s", "read", json!({"filePath": "src/a.ts"}));
    let args = json!({"filePath": "src/a.ts", "oldString": "v2", "newString": "v3"});
    t.call("s", "edit", args, |fs| {
        fs.file("/w/src/a.ts", "v3 from elsewhere\n")
    })
    .unwrap();
    let args = json!({"filePath": "src/a.ts", "oldString": "v3", "newString": "v4"});
    t.call("s", "edit", args, |fs| {
        fs.file("/w/src/a.ts", "v4 from elsewhere\n")
    })
    .unwrap();
    // deleted since the read: stale too
    t.fs.files.remove("/w/src/a.ts");
    assert!(t
        .before("s", "write", json!({"filePath": "src/a.ts"}))
        .block
        .unwrap()
        .contains("changed on disk"));
    // the option turns the check off
    t.gov.set_config(GovConfig {
        stale_writes: false,
        ..GovConfig::default()
    });
    assert!(t
        .before("s", "write", json!({"filePath": "src/a.ts"}))
        .block
        .is_none());
}

#[test]
fn apply_patch_records_every_file_and_hunk() {
    let mut fs = project();
    fs.file(
        "/w/src/old.ts",
        "fn a() {}\nfn b() {\n  one();\n}\nfn c() {}\n",
    );
    fs.file("/w/src/gone.ts", "fn z() {}\n");
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    let patch = "*** Begin Patch
*** Add File: src/new.ts
+fn n() {}
+fn m() {}
*** Update File: src/old.ts
*** Move to: src/moved.ts
@@ fn b() {
 fn b() {
-  one();
+  two();
+  three();
 }
*** Delete File: src/gone.ts
*** End Patch";
    let r = t
        .call("s", "apply_patch", json!({"patchText": patch}), |fs| {
            fs.file("/w/src/new.ts", "fn n() {}\nfn m() {}\n");
            fs.files.remove("/w/src/old.ts");
            fs.file(
                "/w/src/moved.ts",
                "fn a() {}\nfn b() {\n  two();\n  three();\n}\nfn c() {}\n",
            );
            fs.files.remove("/w/src/gone.ts");
        })
        .unwrap();
    assert!(r.recorded, "{r:?}");
    let rec = &t.trace_lines()[0];
    assert_eq!(schema_errors(rec), Vec::<String>::new());
    let files: Vec<(String, Value)> = rec["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["conversations"][0]["ranges"].clone(),
            )
        })
        .collect();
    assert_eq!(files[0].0, "src/new.ts");
    assert_eq!(files[0].1[0]["end_line"], 2);
    assert_eq!(files[1].0, "src/moved.ts");
    assert_eq!(
        files[1].1,
        json!([{"start_line": 3, "end_line": 4, "content_hash": content_hash(&["  two();", "  three();"])}])
    );
    assert_eq!(files[2], ("src/gone.ts".to_string(), json!([])));
    assert_eq!(
        rec["metadata"]["dev.hookwise"]["mutation_class"],
        "INTENT_EVOLUTION"
    );
}

/// Cline's profile is in the policy build only.
#[cfg(feature = "policy")]
#[test]
fn clines_read_files_reads_count_for_stale_writes_in_every_form() {
    use crate::hosts::cline::PROFILE as CLINE;
    for reads in [
        json!({"files": [{"path": "src/b.ts"}, {"path": "src/a.ts", "start_line": 1}]}),
        json!({"paths": ["src/b.ts", "src/a.ts"]}),
        json!({"file_paths": "src/a.ts"}),
        json!(["src/b.ts", {"file_path": "src/a.ts"}]),
        json!("src/a.ts"),
        json!({"path": "src/a.ts"}),
    ] {
        let mut fs = project();
        fs.file("/w/src/a.ts", "v1\n");
        let mut t = T::new(fs);
        t.gov.set_config(GovConfig::for_host(&CLINE));
        t.select("s", "INT-1");
        t.before("s", "read_files", reads.clone());
        t.fs.file("/w/src/a.ts", "v2 from elsewhere\n");
        let block = t
            .before(
                "s",
                "editor",
                json!({"path": "src/a.ts", "old_text": "v1", "new_text": "v3"}),
            )
            .block;
        assert!(
            block
                .as_deref()
                .is_some_and(|m| m.contains("changed on disk since this session last read it")),
            "{reads}: {block:?}"
        );
    }
}

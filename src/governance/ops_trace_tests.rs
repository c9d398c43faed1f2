//! The system prompt block, the intents file and its problems, init, and the trace chain:
//! failed and concurrent appends, verification, git heads.

use super::*;

#[test]
fn system_prompt_block_before_and_after_selection() {
    let mut t = T::new(project());
    let s = t.system("s").system.join("");
    assert!(
        s.starts_with("<intent_context>") && s.ends_with("</intent_context>"),
        "{s}"
    );
    for frag in [
        "call the `select_active_intent` tool",
        "INT-1: Auth — scope: src/**, !src/secrets/**",
        "INT-2: Docs",
        "Not selectable:\n- INT-3: Billing (COMPLETE)",
    ] {
        assert!(s.contains(frag), "{frag}: {s}");
    }
    t.select("s", "INT-1");
    t.select("d", "INT-2");
    for i in 0..7 {
        let p = format!("src/f{i}.ts");
        t.call("s", "write", json!({"filePath": p, "content": "x"}), |fs| {
            fs.file(&format!("/w/{p}"), "x\n")
        })
        .unwrap();
    }
    t.call("d", "write", json!({"filePath": "docs/d.md"}), |fs| {
        fs.file("/w/docs/d.md", "d\n")
    })
    .unwrap();
    let s = t.system("s").system.join("");
    for frag in [
        "Active intent: INT-1 — Auth",
        "<owned_scope>\n- src/**\n- !src/secrets/** (excluded)\n</owned_scope>",
        "<constraints>\n- Keep the public API\n</constraints>",
        "<acceptance_criteria>\n- Tests pass\n</acceptance_criteria>",
    ] {
        assert!(s.contains(frag), "{frag}: {s}");
    }
    let recent = s
        .split("<recent_changes>")
        .nth(1)
        .unwrap()
        .split("</recent_changes>")
        .next()
        .unwrap();
    let lines: Vec<&str> = recent.trim().lines().collect();
    assert_eq!(lines.len(), 5, "{recent}");
    assert!(
        lines[0].contains("src/f2.ts (line 1)")
            && lines[4].contains("src/f6.ts")
            && lines[4].contains("write"),
        "{recent}"
    );
    assert!(!recent.contains("docs/d.md"));
    // the cache is refreshed when the file changes
    t.call("s", "write", json!({"filePath": "src/f9.ts"}), |fs| {
        fs.file("/w/src/f9.ts", "x\n")
    })
    .unwrap();
    assert!(t.system("s").system[0].contains("src/f9.ts"));
    let d = t.system("d").system.join("");
    assert!(d.contains("docs/d.md") && !d.contains("src/f6.ts"));
}

#[test]
fn the_intents_file_is_reread_and_its_problems_reach_the_model() {
    let mut t = T::new(project());
    t.select("s", "INT-1");
    // INT-1 completes: writes stop; the system prompt says so
    let done = YAML.replacen("status: IN_PROGRESS", "status: COMPLETE", 1);
    t.fs.file("/w/.orchestration/active_intents.yaml", &done);
    let m = t
        .before("s", "write", json!({"filePath": "src/a"}))
        .block
        .unwrap();
    assert!(
        m.contains("INT-1 is now COMPLETE") && m.contains("INT-2"),
        "{m}"
    );
    assert!(t.system("s").system[0].contains("The intent this session had, INT-1, is now COMPLETE"));
    // a new intent appears without a restart; a broken entry is reported with its line
    let more = format!("{YAML}  - id: INT-4\n    name: New\n    status: IN_PROGRESS\n    owned_scope: [new/**]\n  - id: BAD\n    status: WHATEVER\n    owned_scope: [x]\n");
    t.fs.file("/w/.orchestration/active_intents.yaml", &more);
    let r = t.select("s", "INT-4");
    assert!(r.ok, "{}", r.text);
    let b = t.before("s", "write", json!({"filePath": "new/a.ts"}));
    assert!(b.block.is_none() && b.follow_up);
    assert!(
        b.logs.is_empty(),
        "logged once, at the first read: {:?}",
        b.logs
    );
    t.fs.file("/w/new/a.ts", "a\n");
    let a = t.after("s", "write", json!({"filePath": "new/a.ts"}));
    let notice = a.notices[0].as_str();
    assert!(
        notice.contains(
            ".orchestration/active_intents.yaml:21: error: intent BAD: unknown status 'WHATEVER'"
        ),
        "{notice}"
    );
    // told once; the system prompt keeps listing it
    t.before("s", "write", json!({"filePath": "new/a.ts"}));
    assert!(t
        .after("s", "write", json!({"filePath": "new/a.ts"}))
        .notices
        .is_empty());
    assert!(t.system("s").system[0].contains("unknown status 'WHATEVER'"));
    // blocks carry the problems
    let m = t
        .before("x", "write", json!({"filePath": "new/a.ts"}))
        .block
        .unwrap();
    assert!(m.contains("unknown status 'WHATEVER'"), "{m}");
}

#[test]
fn problems_are_logged_when_the_file_changes() {
    let mut fs = project();
    fs.file(
        "/w/.orchestration/active_intents.yaml",
        "active_intents:\n  - id: A\n    name: a\n    status: DONE\n    owned_scope: [a]\n",
    );
    let mut t = T::new(fs);
    let b = t.before("s", "write", json!({"filePath": "a"}));
    assert_eq!(b.logs.len(), 1);
    assert!(b.logs[0].message.contains(":4: error:"), "{:?}", b.logs);
    assert!(b
        .block
        .unwrap()
        .contains("no intent in .orchestration/active_intents.yaml is IN_PROGRESS"));
}

#[test]
fn init_scaffolds_once_and_never_overwrites() {
    let mut t = T::new(TestHost::default());
    let r = t.scaffold();
    assert!(r.created, "{r:?}");
    assert_eq!(r.path, "/w/.orchestration/active_intents.yaml");
    let text = t.fs.read(&r.path).unwrap().to_string();
    let parsed = crate::governance::intents::parse("f", &text);
    assert!(
        parsed.intents.is_empty() && parsed.problems.is_empty(),
        "{parsed:?}"
    );
    // now governance is on, with nothing selectable
    let m = t
        .before("s", "write", json!({"filePath": "a"}))
        .block
        .unwrap();
    assert!(
        m.contains("no intent in .orchestration/active_intents.yaml is IN_PROGRESS"),
        "{m}"
    );
    t.fs.file(&r.path, YAML);
    let r = t.scaffold();
    assert!(!r.created && r.message.contains("already exists"));
    assert_eq!(t.fs.read(&r.path), Some(YAML));
}

#[test]
fn forced_on_without_a_file_blocks_with_a_reason() {
    let mut fs = TestHost::default();
    fs.dir("/w");
    let mut t = T::new(fs);
    t.gov.set_config(GovConfig {
        enabled: Enabled::On,
        ..GovConfig::default()
    });
    let m = t
        .before("s", "write", json!({"filePath": "a"}))
        .block
        .unwrap();
    assert!(
        m.contains("does not exist") && m.contains("hookwise init"),
        "{m}"
    );
}

#[test]
fn a_failed_append_is_logged_and_never_fails_the_call_itself() {
    let mut t = T::new(project());
    t.select("s", "INT-1");
    t.fs.fail_append = true;
    let r = t
        .call("s", "write", json!({"filePath": "src/a"}), |fs| {
            fs.file("/w/src/a", "a\n")
        })
        .unwrap();
    assert!(!r.recorded);
    assert!(
        r.logs
            .iter()
            .any(|l| l.message.contains("could not append") && l.message.contains("EROFS")),
        "{r:?}"
    );
    t.fs.fail_append = false;
    // a blocked call that the host reports anyway leaves no record
    t.before("nobody", "write", json!({"filePath": "src/a"}));
    t.fs.file("/w/src/a", "changed\n");
    assert!(
        !t.after("nobody", "write", json!({"filePath": "src/a"}))
            .recorded
    );
    // without tool.before nothing is recorded (issue 29: a PostToolUse without its
    // PreToolUse); the next gated call records the one that failed earlier, then its own
    t.calls += 1;
    t.fs.file("/w/src/a", "a\n");
    let r = t.after("s", "write", json!({"filePath": "src/a"}));
    assert!(!r.recorded, "{r:?}");
    assert!(t
        .before("s", "write", json!({"filePath": "src/a"}))
        .block
        .is_none());
    t.fs.file("/w/src/a", "b\n");
    let r = t.after("s", "write", json!({"filePath": "src/a"}));
    assert!(r.recorded, "{r:?}");
    assert_eq!(t.trace_lines().len(), 2);
    // a failed tool or a no-op change leaves no record
    t.before("s", "write", json!({"filePath": "src/a"}));
    t.fs.file("/w/src/a", "half-written\n");
    let input = AfterInput {
        tool: "write".into(),
        session_id: "s".into(),
        call_id: format!("call{}", t.calls),
        args: json!({"filePath": "src/a"}),
        worktree: WT.into(),
        failed: true,
        ..AfterInput::default()
    };
    let gov = t.gov.clone();
    let r =
        t.fs.run(move |io| async move { tool_after(&io, &gov, &input).await });
    assert!(!r.recorded);
    assert_eq!(t.trace_lines().len(), 2);
    t.before("s", "read", json!({"filePath": "src/a"}));
    t.before("s", "write", json!({"filePath": "src/a"}));
    let r = t.after("s", "write", json!({"filePath": "src/a"}));
    assert!(
        !r.recorded && r.logs[0].message.contains("changed nothing"),
        "{r:?}"
    );
}

/// Records appended concurrently (answered in any order) still form one valid chain: the
/// previous line's hash is taken by the host at append time, not by the core.
#[test]
fn concurrent_appends_keep_one_chain() {
    let mut fs = project();
    for i in 0..6 {
        fs.file(&format!("/w/src/f{i}"), &format!("{i}\n"));
    }
    fs.shuffle_seed = 0x5eed;
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    // each call gated first (a tool.after without its tool.before records nothing)
    let gov = t.gov.clone();
    t.fs.run(move |io| async move {
        for i in 0..6 {
            let input = ToolCallInput {
                tool: "write".into(),
                session_id: "s".into(),
                call_id: format!("c{i}"),
                args: json!({ "filePath": format!("src/f{i}") }),
                worktree: WT.into(),
                directory: String::new(),
            };
            assert!(tool_before(&io, &gov, &input).await.block.is_none());
        }
    });
    for i in 0..6 {
        t.fs.file(&format!("/w/src/f{i}"), &format!("{i} changed\n"));
    }
    let gov = t.gov.clone();
    let ids = t.fs.run(move |io| async move {
        let inputs: Vec<AfterInput> = (0..6)
            .map(|i| AfterInput {
                tool: "write".into(),
                session_id: "s".into(),
                call_id: format!("c{i}"),
                args: json!({ "filePath": format!("src/f{i}") }),
                worktree: WT.into(),
                random: format!("{i:032x}"),
                ..AfterInput::default()
            })
            .collect();
        let outs =
            crate::runtime::join_all(inputs.iter().map(|x| tool_after(&io, &gov, x)).collect())
                .await;
        outs.into_iter().map(|o| o.id).collect::<Vec<_>>()
    });
    assert!(ids.iter().all(Option::is_some));
    let lines = t.trace_lines();
    assert_eq!(lines.len(), 6);
    // appended in another order than the calls were made, and still one chain
    let order: Vec<&str> = lines
        .iter()
        .map(|l| l["metadata"]["dev.hookwise"]["call_id"].as_str().unwrap())
        .collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["c0", "c1", "c2", "c3", "c4", "c5"]);
    assert_ne!(
        order, sorted,
        "the host answered in call order; the test proves nothing"
    );
    let v = t.verify();
    assert!(v.report.ok, "{v:?}");
}

#[test]
fn verify_reports_tampering_and_truncation() {
    let mut t = T::new(project());
    t.select("s", "INT-1");
    for i in 0..4 {
        let p = format!("src/f{i}");
        t.call("s", "write", json!({"filePath": p}), |fs| {
            fs.file(&format!("/w/{p}"), "x\n")
        })
        .unwrap();
    }
    assert!(t.verify().report.ok);
    let path = t.fs.trace_segments("/w")[0].clone();
    let path = path.as_str();
    let orig = t.fs.read(path).unwrap().to_string();
    let lines: Vec<&str> = orig.lines().collect();
    // edited
    let edited = orig.replacen("src/f1", "src/fX", 1);
    t.fs.file(path, &edited);
    let v = t.verify();
    assert!(
        !v.report.ok
            && v.report.problems[0].line == 3
            && v.report.problems[0].kind == "broken-link",
        "{v:?}"
    );
    // truncated at the end: the chain is valid, but this process remembers its last line,
    // and the head says how long the log was
    t.fs.file(path, &format!("{}\n", lines[..3].join("\n")));
    let v = t.verify();
    assert_eq!(
        v.report.problems.iter().map(|p| p.kind).collect::<Vec<_>>(),
        vec!["truncated", "cut"]
    );
    // a fresh process knows it from the head alone
    let v = t.verify_fresh();
    assert!(!v.report.ok && v.report.lines == 3);
    assert_eq!(v.report.problems[0].kind, "cut");
    let j = serde_json::to_value(&v).unwrap();
    assert_eq!(j["path"], path);
    assert!(j["head"].as_str().unwrap().starts_with("sha256:"));
    // no trace yet: fine
    t.fs.files.remove(path);
    t.fs.files.remove(&path.replace(".jsonl", ".head"));
    let v = t.verify_fresh();
    assert!(v.report.ok && v.report.lines == 0 && v.error.is_none());
    let _ = chain::verify("");
}

#[test]
fn records_carry_git_head_when_there_is_a_repository() {
    let mut fs = project();
    fs.file("/w/.git/HEAD", "ref: refs/heads/main\n");
    fs.file(
        "/w/.git/refs/heads/main",
        "0123456789abcdef0123456789abcdef01234567\n",
    );
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    t.call("s", "write", json!({"filePath": "src/a"}), |fs| {
        fs.file("/w/src/a", "a\n")
    })
    .unwrap();
    let rec = &t.trace_lines()[0];
    assert_eq!(
        rec["vcs"],
        json!({"type": "git", "revision": "0123456789abcdef0123456789abcdef01234567"})
    );
    assert_eq!(schema_errors(rec), Vec::<String>::new());
}

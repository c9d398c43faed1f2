//! The hosts' own tool names and argument keys (Roo, OpenClaw), gated and recorded.

use super::*;

#[test]
fn roo_tool_names_and_arguments_are_recorded() {
    let mut fs = project();
    fs.file("/w/src/r.ts", "const a = 1;\nconst b = 2;\n");
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    t.call(
        "s",
        "write_to_file",
        json!({"path": "src/w.ts", "content": "w\n"}),
        |fs| fs.file("/w/src/w.ts", "w\n"),
    )
    .unwrap();
    t.call(
        "s",
        "search_replace",
        json!({"file_path": "src/r.ts", "old_string": "2", "new_string": "3"}),
        |fs| fs.file("/w/src/r.ts", "const a = 1;\nconst b = 3;\n"),
    )
    .unwrap();
    t.call(
        "s",
        "apply_diff",
        json!({"path": "src/r.ts", "diff": "..."}),
        |fs| fs.file("/w/src/r.ts", "const a = 1;\nconst b = 3;\nconst c = 4;\n"),
    )
    .unwrap();
    let recs = t.trace_lines();
    assert_eq!(recs.len(), 3);
    let span = |r: &Value| {
        let x = &r["files"][0]["conversations"][0]["ranges"][0];
        (
            x["start_line"].as_u64().unwrap(),
            x["end_line"].as_u64().unwrap(),
        )
    };
    assert_eq!(span(&recs[1]), (2, 2));
    assert_eq!(
        recs[1]["metadata"]["dev.hookwise"]["mutation_class"],
        "AST_REFACTOR"
    );
    assert_eq!(span(&recs[2]), (3, 3));
    assert_eq!(
        recs[2]["metadata"]["dev.hookwise"]["mutation_class"],
        "INTENT_EVOLUTION"
    );
    for r in &recs {
        assert_eq!(schema_errors(r), Vec::<String>::new());
    }
    assert!(t.verify().report.ok);
}

/// OpenClaw's tools as its gateway sends them (openclaw 2026.9.6): `write {path, content}`,
/// `edit {path, edits: [{oldText, newText}]}`, `exec {command}`, `apply_patch {input}`.
#[test]
fn openclaw_tool_names_and_arguments_are_gated_and_recorded() {
    let mut fs = project();
    fs.file(
        "/w/src/r.ts",
        "const a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\n",
    );
    let mut t = T::new(fs);
    t.gov
        .set_config(GovConfig::for_host(&crate::hosts::openclaw::PROFILE));
    // no intent yet: exec and write are blocked alike
    let m = t
        .before("s", "exec", json!({"command": "ls"}))
        .block
        .unwrap();
    assert!(m.contains("select_active_intent"), "{m}");
    t.select("s", "INT-1");
    assert!(t
        .before("s", "exec", json!({"command": "ls"}))
        .block
        .is_none());
    let m = t
        .call(
            "s",
            "write",
            json!({"path": "docs/x.md", "content": "x\n"}),
            |_| {},
        )
        .unwrap_err();
    assert!(m.contains("`docs/x.md`"), "{m}");
    t.call(
        "s",
        "write",
        json!({"path": "src/w.ts", "content": "w\n"}),
        |fs| fs.file("/w/src/w.ts", "w\n"),
    )
    .unwrap();
    // one replacement: located like an OpenCode edit
    t.call(
        "s",
        "edit",
        json!({"path": "src/r.ts", "edits": [{"oldText": "b = 2", "newText": "b = 20"}]}),
        |fs| {
            fs.file(
                "/w/src/r.ts",
                "const a = 1;\nconst b = 20;\nconst c = 3;\nconst d = 4;\n",
            )
        },
    )
    .unwrap();
    // two replacements: each new text where it landed
    t.call(
        "s",
        "edit",
        json!({"path": "src/r.ts", "edits": [
            {"oldText": "a = 1", "newText": "a = 10"},
            {"oldText": "d = 4", "newText": "d = 40"}
        ]}),
        |fs| {
            fs.file(
                "/w/src/r.ts",
                "const a = 10;\nconst b = 20;\nconst c = 3;\nconst d = 40;\n",
            )
        },
    )
    .unwrap();
    t.call(
        "s",
        "apply_patch",
        json!({"input": "*** Begin Patch\n*** Add File: src/p.ts\n+p\n*** End Patch"}),
        |fs| fs.file("/w/src/p.ts", "p\n"),
    )
    .unwrap();
    let recs = t.trace_lines();
    assert_eq!(recs.len(), 4, "{recs:?}");
    let spans = |r: &Value| -> Vec<(u64, u64)> {
        r["files"][0]["conversations"][0]["ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x["start_line"].as_u64().unwrap(),
                    x["end_line"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(recs[0]["files"][0]["path"], "src/w.ts");
    assert_eq!(spans(&recs[1]), vec![(2, 2)]);
    assert_eq!(spans(&recs[2]), vec![(1, 1), (4, 4)]);
    assert_eq!(recs[3]["files"][0]["path"], "src/p.ts");
    for r in &recs {
        assert_eq!(schema_errors(r), Vec::<String>::new());
    }
    assert!(t.verify().report.ok);
}

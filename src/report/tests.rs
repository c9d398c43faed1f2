//! The report's page: what it shows, and that no text of the records, the intents file, the
//! metrics or the files can turn into markup (the model controls all of them).

use serde_json::json;

use super::data::{self, Change};
use super::{body, html, Attr, Body, Sublog};
use crate::governance::classify::MutationClass;
use crate::governance::ranges::Range;
use crate::governance::trace::{chained, record, RecordInput};

const EVIL: &str = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&";

/// One record line as hookwise writes it (chained onto `prev`, a line's hash).
fn record_line(
    n: i64,
    intent: &str,
    model: &str,
    path: &str,
    lines: (usize, usize),
    prev: &str,
) -> String {
    let input = RecordInput {
        random: [n as u8; 16],
        now_ms: 1_795_000_000_000 + n * 60_000,
        tool_version: "0.1.0",
        model_id: Some(model),
        intent_id: Some(intent),
        session_id: "s1",
        call_id: "c1",
        tool: "edit",
        host: "claude-code",
        ..RecordInput::default()
    };
    let r = record(
        &input,
        MutationClass::AstRefactor,
        vec![(
            path.to_string(),
            vec![Range {
                start_line: lines.0,
                end_line: lines.1,
                content_hash: "sha256:00".into(),
            }],
        )],
    );
    chained(&r).unwrap().line(prev)
}

/// A log of `n` chained records.
fn log(entries: &[(&str, &str, &str, (usize, usize))]) -> String {
    let mut prev = crate::governance::trace::GENESIS.to_string();
    let mut out = String::new();
    for (k, (intent, model, path, lines)) in entries.iter().enumerate() {
        let l = record_line(k as i64, intent, model, path, *lines, &prev);
        prev = crate::governance::ranges::sha256_hex(l.as_bytes());
        out.push_str(&l);
        out.push('\n');
    }
    out
}

#[test]
fn records_read_back_with_their_intent_agent_time_and_ranges() {
    let text = log(&[("INT-1", "anthropic/claude", "src/a.ts", (2, 3))]);
    let c = data::changes(&text);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].intent, "INT-1");
    assert_eq!(c[0].model, "anthropic/claude");
    assert_eq!(c[0].host, "claude-code");
    assert_eq!(c[0].tool, "edit");
    assert_eq!(c[0].files[0].0, "src/a.ts");
    assert_eq!((c[0].files[0].1[0].start, c[0].files[0].1[0].end), (2, 3));
    assert_eq!(c[0].ms, 1_795_000_000_000);
    assert_eq!(data::epoch_ms(&c[0].time), c[0].ms);
}

#[test]
fn lines_that_are_not_records_are_skipped() {
    let c = data::changes("garbage\n[1,2]\n{\"id\":\"x\"}\n\n");
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].id, "x");
    assert_eq!(c[0].line, 3);
}

#[test]
fn intents_come_from_the_file_then_from_records_and_count_their_changes() {
    let yaml = "active_intents:\n  - id: INT-1\n    name: Auth\n    status: IN_PROGRESS\n    owned_scope: [src/**]\n";
    let text = log(&[
        ("INT-1", "m", "src/a.ts", (1, 1)),
        ("INT-9", "m", "src/b.ts", (1, 1)),
        ("", "m", "x", (1, 1)),
    ]);
    let (rows, problems) = data::intent_rows(Some(yaml), &data::changes(&text));
    assert!(problems.is_empty(), "{problems:?}");
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["INT-1", "INT-9", "(none)"]);
    assert_eq!(rows[0].name, "Auth");
    assert_eq!(rows[0].scope, ["src/**"]);
    assert_eq!(rows[0].changes, 1);
    assert!(!rows[0].unlisted && rows[1].unlisted);
}

#[test]
fn blocks_and_advice_are_counted_by_sop() {
    let m = [
        json!({"seq":1,"ts":1.0,"tool":"bash","decision":"block","level":"sop","risk":"high","sops":["no-force-push"],"lookupMs":1.0}),
        json!({"seq":2,"ts":2.0,"tool":"bash","decision":"advise","level":"sop","risk":"low","sops":["no-force-push"],"lookupMs":1.0}),
        json!({"seq":3,"ts":3.0,"tool":"edit","decision":"allow","level":"none","risk":"low","lookupMs":1.0}),
        json!({"seq":4,"ts":4.0,"tool":"bash","decision":"block","level":"category","risk":"high","lookupMs":1.0}),
    ]
    .iter()
    .map(|v| v.to_string())
    .collect::<Vec<_>>()
    .join("\n");
    let (rows, kinds) = data::sop_rows(&m);
    assert_eq!(kinds["block"], 2);
    assert_eq!(kinds["allow"], 1);
    let r = rows.iter().find(|r| r.sop == "no-force-push").unwrap();
    assert_eq!((r.blocks, r.advice), (1, 1));
    assert!(rows.iter().any(|r| r.sop.starts_with("(no SOP")));
}

fn page_with(changes: Vec<Change>, files: Vec<super::FileView>, ok: bool) -> super::Page {
    let (intents, intent_problems) = data::intent_rows(None, &changes);
    let verify = crate::governance::VerifyOutput {
        path: "/p/.orchestration/agent_trace.jsonl".into(),
        head_path: "/p/.orchestration/agent_trace.head".into(),
        error: None,
        log_head: None,
        stored_head: None,
        report: crate::governance::chain::Report {
            ok,
            lines: changes.len(),
            head: None,
            problems: vec![],
        },
        records: changes.len(),
        segments: vec![],
        text: String::new(),
    };
    super::Page {
        project: "demo".into(),
        generated: "2026-11-28T05:00:00.000Z".into(),
        version: "0.1.0".into(),
        verify,
        intents,
        intent_problems,
        changes,
        files,
        files_left: 0,
        metrics: None,
    }
}

#[test]
fn hostile_text_everywhere_stays_text() {
    let text = log(&[(EVIL, EVIL, EVIL, (1, 2))]);
    let changes = data::changes(&text);
    let b = body(
        EVIL,
        &format!("{EVIL}\nsecond </pre></details><script>x()</script>\n"),
        &Sublog::new(&text, &changes),
    );
    let files = vec![super::FileView {
        path: EVIL.into(),
        body: b,
    }];
    let page = html::render(&page_with(changes, files, true));
    let lower = page.to_ascii_lowercase();
    // the only tags are the page's own: no script, no img, no handler attribute
    assert!(!lower.contains("<script"), "{page}");
    assert!(!lower.contains("<img"));
    assert!(!lower.contains("</pre></details><script"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(
        page.contains("default-src 'none'"),
        "the page forbids scripts and fetches"
    );
    // attribute values cannot be closed early
    for attr in page.split("title=\"").skip(1) {
        let v = &attr[..attr.find('"').unwrap()];
        assert!(!v.contains('<') && !v.contains('>'), "{v}");
    }
}

#[test]
fn a_failed_verification_is_red_at_the_top_with_its_problems() {
    let mut p = page_with(vec![], vec![], false);
    p.verify
        .report
        .problems
        .push(crate::governance::chain::ChainProblem::new(
            3,
            "broken-link",
            "line 3 does not carry the hash of line 2 <b>".into(),
        ));
    let page = html::render(&p);
    let top = &page[page.find("<body>").unwrap()..];
    assert!(
        top.starts_with("<body>\n<header id=\"verdict\" class=\"verdict fail\""),
        "{top}"
    );
    assert!(page.contains("does NOT verify"));
    assert!(page.contains(
        "line 3: <b>broken-link</b>: line 3 does not carry the hash of line 2 &lt;b&gt;"
    ));
    let ok = html::render(&page_with(vec![], vec![], true));
    assert!(ok.contains("class=\"verdict ok\""));
}

#[test]
fn secrets_in_files_and_records_are_redacted() {
    let key = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    let text = log(&[("INT-1", key, "a.env", (1, 1))]);
    let changes = data::changes(&text);
    let b = body(
        "a.env",
        &format!("TOKEN={key}\n"),
        &Sublog::new(&text, &changes),
    );
    let page = html::render(&page_with(
        changes,
        vec![super::FileView {
            path: "a.env".into(),
            body: b,
        }],
        true,
    ));
    assert!(!page.contains(key));
    assert!(page.contains("REDACTED"));
}

#[test]
fn a_secret_over_several_lines_is_shown_redacted_without_attribution() {
    let pem = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nxyz\n-----END RSA PRIVATE KEY-----\nb\n";
    match body("k", pem, &Sublog::new("", &[])) {
        Body::Redacted(t) => assert!(!t.contains("MIIEowIBAAKCAQEA")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn lines_are_grouped_by_their_record_with_the_details_on_hover() {
    // records from before line hashes, whose ranges' text is not there any more: blame marks
    // the lines at their recorded place `changed`
    let text = log(&[("INT-1", "m1", "f", (1, 2)), ("INT-2", "m2", "f", (4, 4))]);
    let changes = data::changes(&text);
    let b = body(
        "f",
        "one\ntwo\nthree\nfour\n",
        &Sublog::new(&text, &changes),
    );
    let Body::Lines(lines) = &b else { panic!() };
    let attrs: Vec<Attr> = lines.iter().map(|l| l.attr).collect();
    assert_eq!(
        attrs,
        [
            Attr::Changed(0),
            Attr::Changed(0),
            Attr::None,
            Attr::Changed(1)
        ]
    );
    let page = html::render(&page_with(
        changes,
        vec![super::FileView {
            path: "f".into(),
            body: b,
        }],
        true,
    ));
    assert_eq!(page.matches("class=\"g chg ").count(), 2);
    assert!(page.contains("intent: INT-2"));
    assert!(page.contains("agent: claude-code · m2"));
}

#[test]
fn each_file_is_blamed_against_only_the_records_that_name_it_or_its_old_names() {
    let text = log(&[
        ("I", "m", "a", (1, 1)),
        ("I", "m", "b", (1, 1)),
        ("I", "m", "a", (1, 1)),
    ]);
    let mut changes = data::changes(&text);
    let s = Sublog::new(&text, &changes);
    let a = s.of("a");
    assert_eq!(
        a.split('\n').count(),
        text.split('\n').count(),
        "every line keeps its number"
    );
    assert!(a.split('\n').nth(1).unwrap().is_empty());
    assert!(!a.split('\n').next().unwrap().is_empty());
    // `c` is `b` moved by the third record: the records of `b` before the move count for it
    changes[2].files[0].0 = "c".into();
    changes[2].moves.push(("c".into(), "b".into()));
    let s = Sublog::new(&text, &changes);
    let c: Vec<bool> = s.of("c").split('\n').map(|l| !l.is_empty()).collect();
    assert_eq!(c[..3], [false, true, true]);
}

// ---- the whole operation against the test host ----

use crate::governance::ops::{tool_after, tool_before, AfterInput, Governance, ToolCallInput};
use crate::testing::TestHost;

const YAML: &str = "active_intents:\n  - id: INT-1\n    name: Auth <script>alert(3)</script>\n    status: IN_PROGRESS\n    owned_scope: [src/**]\n";

fn run_report(fs: &mut TestHost) -> super::ReportOutput {
    let input = super::ReportInput {
        worktree: "/w".into(),
        now_ms: 1_795_000_000_000.0,
        metrics_file: ".hookwise/metrics.jsonl".into(),
        state_file: ".hookwise/state.json".into(),
    };
    fs.run(move |io| async move { super::report(&io, &Governance::default(), &input).await })
}

/// A project where the real hooks wrote `src/a.ts` under INT-1.
fn governed() -> TestHost {
    let mut fs = TestHost::default();
    fs.file("/w/.orchestration/active_intents.yaml", YAML);
    fs.dir("/w/src");
    let gov = Governance::default();
    let (g, sel) = (
        gov.clone(),
        crate::governance::SelectInput {
            session_id: "s".into(),
            intent_id: "INT-1".into(),
            worktree: "/w".into(),
        },
    );
    let chosen =
        fs.run(move |io| async move { crate::governance::select_intent(&io, &g, &sel).await });
    assert!(chosen.ok, "{}", chosen.text);
    let args =
        json!({"filePath": "src/a.ts", "content": "export const a = 1;\nexport const b = 2;\n"});
    let input = ToolCallInput {
        tool: "write".into(),
        session_id: "s".into(),
        call_id: "c1".into(),
        args: args.clone(),
        worktree: "/w".into(),
        directory: String::new(),
    };
    let g = gov.clone();
    let gate = fs.run(move |io| async move { tool_before(&io, &g, &input).await });
    assert!(gate.block.is_none(), "{gate:?}");
    fs.file("/w/src/a.ts", "export const a = 1;\nexport const b = 2;\n");
    let after = AfterInput {
        tool: "write".into(),
        session_id: "s".into(),
        call_id: "c1".into(),
        args,
        worktree: "/w".into(),
        now_ms: 1_795_000_000_000.0,
        random: format!("{:032x}", 7),
        ..Default::default()
    };
    let r = fs.run(move |io| async move { tool_after(&io, &gov, &after).await });
    assert!(r.recorded, "{r:?}");
    fs
}

#[test]
fn the_report_of_a_governed_project_shows_the_verdict_intents_and_attributed_lines() {
    let mut fs = governed();
    let r = run_report(&mut fs);
    assert!(r.ok, "{:?}", r.verify);
    assert_eq!((r.records, r.files), (1, 1));
    assert!(r.html.contains("class=\"verdict ok\""));
    assert!(
        r.text.contains("The Agent Trace verifies: 1 record(s)"),
        "{}",
        r.text
    );
    assert!(r
        .html
        .contains("<b>INT-1</b> Auth &lt;script&gt;alert(3)&lt;/script&gt;"));
    assert!(r.html.contains("<code>src/**</code>"));
    assert!(r
        .html
        .contains("<span class=\"l\">export const a = 1;</span>"));
    assert_eq!(
        r.html.matches("class=\"g ag i0").count(),
        1,
        "both lines in one group"
    );
    assert!(!r.html.to_ascii_lowercase().contains("<script"));
}

#[test]
fn a_tampered_log_turns_the_page_red() {
    let mut fs = governed();
    let log = fs.trace("/w").unwrap().replace("INT-1", "INT-2");
    fs.file("/w/.orchestration/agent_trace.jsonl", &log);
    let r = run_report(&mut fs);
    assert!(!r.ok);
    assert!(r.html.contains("class=\"verdict fail\""));
    assert!(r.text.contains("does NOT verify"), "{}", r.text);
}

#[test]
fn files_a_record_names_outside_the_project_are_never_read() {
    let mut fs = TestHost::default();
    fs.dir("/w/src");
    fs.file("/outside/secret.txt", "top secret outside\n");
    fs.file("/etc/passwd", "root:x:0:0\n");
    fs.link("/w/src/link.ts", "/outside/secret.txt");
    fs.link("/w/sub", "/outside");
    let text = log(&[
        ("INT-1", "m", "../outside/secret.txt", (1, 1)),
        ("INT-1", "m", "/etc/passwd", (1, 1)),
        ("INT-1", "m", "src/link.ts", (1, 1)),
        ("INT-1", "m", "sub/secret.txt", (1, 1)),
        ("INT-1", "m", "src/gone.ts", (1, 1)),
    ]);
    fs.file("/w/.orchestration/agent_trace.jsonl", &text);
    let r = run_report(&mut fs);
    assert!(
        !r.html.contains("top secret"),
        "read through a link or a ../ path"
    );
    assert!(!r.html.contains("root:x"));
    assert!(r.html.contains("a path that leaves the project: not read"));
    assert!(r.html.contains("an absolute path: not read"));
    assert_eq!(
        r.html
            .matches("a link to a file outside the project: not read")
            .count(),
        2
    );
    assert!(r.html.contains("not in the project any more"));
}

#[test]
fn blocks_and_advice_from_the_metrics_file_are_on_the_page() {
    let mut fs = governed();
    let mut head = crate::enforce::ChainHead::default();
    let e: crate::enforce::metrics::Event = serde_json::from_value(json!({"ts":1.0,"tool":"bash","decision":"block","level":"sop","risk":"high","sops":["<b>no-force-push</b>"],"lookupMs":1.0})).unwrap();
    let line = crate::enforce::metrics::chain_line(&e, &mut head);
    fs.file("/w/.hookwise/metrics.jsonl", &format!("{line}\n"));
    let r = run_report(&mut fs);
    assert!(
        r.html.contains(
            "<code>&lt;b&gt;no-force-push&lt;/b&gt;</code></td><td class=\"n block\">1</td>"
        ),
        "{}",
        &r.html[r.html.find("id=\"enforcement\"").unwrap()..]
    );
}

#[test]
fn a_line_a_person_added_above_the_agents_lines_is_nobodys_and_the_agents_keep_theirs() {
    let mut fs = governed();
    fs.file(
        "/w/src/a.ts",
        "// by a person\nexport const a = 1;\nexport const b = 3;\n",
    );
    let r = run_report(&mut fs);
    let code = &r.html[r.html.find("<pre class=\"code\">").unwrap()..];
    let first = code.find("// by a person").unwrap();
    let agent = code.find("class=\"g ag ").unwrap();
    let changed = code.find("class=\"g chg ").unwrap();
    assert!(first < agent && agent < changed, "{code}");
    assert!(code[..agent].contains("<span class=\"g\"><span class=\"l\">// by a person"));
    assert!(code[changed..].contains("export const b = 3;"));
}

/// `HOOKWISE_REPORT_DIR=<a project> cargo test --release --features policy --lib
/// bench_report_of_a_folder -- --ignored --nocapture`: the report of a project on disk (e.g.
/// one `scripts/bench-report.mjs` made, kept with `KEEP=1`), natively, timed by phase.
#[test]
#[ignore]
fn bench_report_of_a_folder() {
    let Ok(dir) = std::env::var("HOOKWISE_REPORT_DIR") else {
        return;
    };
    let mut fs = TestHost::default();
    fn load(fs: &mut TestHost, disk: &std::path::Path, at: &str) {
        for e in std::fs::read_dir(disk).unwrap().flatten() {
            let name = format!("{at}/{}", e.file_name().to_string_lossy());
            if e.file_type().unwrap().is_dir() {
                fs.dir(&name);
                load(fs, &e.path(), &name);
            } else if let Ok(t) = std::fs::read_to_string(e.path()) {
                fs.file(&name, &t);
            }
        }
    }
    fs.dir("/w");
    load(&mut fs, std::path::Path::new(&dir), "/w");
    let t = std::time::Instant::now();
    let r = run_report(&mut fs);
    println!(
        "report: {} records, {} files, {} bytes in {:?}",
        r.records,
        r.files,
        r.html.len(),
        t.elapsed()
    );
    let log = fs.trace("/w").unwrap().to_string();
    let changes = data::changes(&log);
    let s = Sublog::new(&log, &changes);
    let (paths, _) = super::changed_paths(&changes);
    let t = std::time::Instant::now();
    for p in &paths {
        let _ = s.of(p);
    }
    println!("sublogs: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    for p in &paths {
        let text = fs.read(&format!("/w/{p}")).unwrap().to_string();
        let _ = body(p, &text, &s);
    }
    println!("bodies (redact + blame): {:?}", t.elapsed());
    let t = std::time::Instant::now();
    for p in &paths {
        let _ = data::clean(fs.read(&format!("/w/{p}")).unwrap());
    }
    println!("of which redaction: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let mut lens = 0;
    for p in &paths {
        let text = fs.read(&format!("/w/{p}")).unwrap().to_string();
        let sub = s.of(p);
        lens += sub.len();
        let _ = crate::governance::blame::blame(p, &text, &sub, &|_| None);
    }
    println!(
        "of which blame: {:?} ({lens} bytes of sublogs)",
        t.elapsed()
    );
}

#[test]
fn the_change_list_holds_the_newest_thousand_and_says_how_many_more() {
    let entries: Vec<(&str, &str, &str, (usize, usize))> =
        (0..1005).map(|_| ("I", "m", "f", (1, 1))).collect();
    let text = log(&entries);
    let page = html::render(&page_with(data::changes(&text), vec![], true));
    assert!(page.contains("Timeline (1005 change(s))"));
    assert!(page.contains("<summary>800 older change(s)</summary>"));
    assert!(page.contains("5 older change(s) are not listed here"));
    assert_eq!(page.matches("<tr><td>").count(), 1000);
}

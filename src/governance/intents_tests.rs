//! The intents file as an attacker would write it: deep nesting, aliases, huge files, many
//! entries and problems. Each is refused or reported with a clear reason, and nothing loads
//! from a refused file (every change is then blocked: governance fails closed).

use super::*;

const F: &str = ".orchestration/active_intents.yaml";

fn entry(i: usize) -> String {
    format!("  - id: I{i}\n    name: n\n    status: IN_PROGRESS\n    owned_scope: [src/{i}/**]\n")
}

fn only_error(f: &IntentFile) -> &Problem {
    assert!(f.intents.is_empty(), "nothing loads: {:?}", f.ids());
    assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    let p = &f.problems[0];
    assert_eq!(p.severity, Severity::Error);
    p
}

#[test]
fn deep_flow_nesting_is_refused_at_its_line() {
    // the files: a deeply nested flow sequence, 100 KB and 200 KB
    for n in [100_000, 200_000] {
        let text = format!(
            "active_intents:\n{}  - id: X\n    owned_scope: {}\n",
            entry(1),
            "[".repeat(n)
        );
        let f = parse(F, &text);
        let p = only_error(&f);
        assert_eq!(p.line, 7);
        assert_eq!(
            p.to_string(),
            ".orchestration/active_intents.yaml:7: error: the file nests deeper than 64 levels at line 7; nothing in it was loaded"
        );
    }
    // flow mappings, and nesting spread over lines
    let text = format!("active_intents: {}", "{a: [\n".repeat(40));
    assert!(only_error(&parse(F, &text))
        .message
        .contains("deeper than 64"));
    // deep block nesting by indentation
    let block: String = (0..80)
        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
        .collect();
    assert!(only_error(&parse(F, &block))
        .message
        .contains("deeper than 64"));
}

#[test]
fn brackets_in_quotes_comments_and_block_scalars_are_text() {
    let text = format!(
        "# {0}\nactive_intents:\n  - id: A # {0}\n    name: '{0}'\n    status: IN_PROGRESS\n    owned_scope: [\"src/**\", \"!src/{{[[x,y]]}}\"] # {0}\n    constraints:\n      - |\n        {0}\n",
        "[[[{{".repeat(100)
    );
    let f = parse(F, &text);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!(f.ids(), vec!["A"]);
}

#[test]
fn billion_laughs_are_refused() {
    let mut text = String::from("lol: &l0 [a, a, a, a, a, a, a, a, a, a]\n");
    for i in 1..9 {
        text.push_str(&format!(
            "l{i}: &l{i} [{}]\n",
            vec![format!("*l{}", i - 1); 10].join(", ")
        ));
    }
    text.push_str("active_intents:\n  - id: A\n    name: *l8\n    status: IN_PROGRESS\n    owned_scope: [a]\n");
    let p = only_error(&parse(F, &text)).to_string();
    assert!(p.contains("aliases"), "{p}");
    // ordinary aliases still work
    let text = "scopes: &s [src/**]\nactive_intents:\n  - id: A\n    name: a\n    status: IN_PROGRESS\n    owned_scope: *s\n";
    let f = parse(F, text);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!(f.intents[0].owned_scope, vec!["src/**"]);
}

#[test]
fn a_file_over_the_limit_is_refused() {
    let mut text = String::from("active_intents:\n");
    let mut i = 0;
    while text.len() as u64 <= MAX_BYTES {
        text.push_str(&entry(i));
        i += 1;
    }
    let p = only_error(&parse(F, &text)).to_string();
    assert!(p.contains("over the 1 MiB limit"), "{p}");
    assert_eq!(
        unreadable("too-large", Some(210 * 1024 * 1024)),
        "the file is 210 MiB, over the 1 MiB limit; changes are blocked until it is made smaller"
    );
    assert_eq!(
        unreadable("too-large", None),
        "the file is over the 1 MiB limit; changes are blocked until it is made smaller"
    );
    assert!(unreadable("EACCES", None).contains("cannot read the file (EACCES)"));
}

#[test]
fn many_entries_with_a_syntax_error_keep_their_lines() {
    // the whole file does not parse: each entry on its own, its line numbers the file's
    let mut text = String::from("active_intents:\n");
    for i in 0..3_000 {
        text.push_str(&entry(i));
    }
    text.push_str("  - id: BAD\n    name: \"unterminated\n");
    let f = parse(F, &text);
    assert_eq!(
        f.intents.len(),
        3_000,
        "{:?}",
        &f.problems[..3.min(f.problems.len())]
    );
    let e: Vec<_> = f
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .collect();
    assert_eq!(e.len(), 1);
    let last = 2 + 3_000 * 4;
    assert_eq!(e[0].line, last + 2, "{}", e[0]);
    assert!(
        e[0].message.contains(&format!(
            "while scanning a quoted scalar at line {} column 11",
            last + 1
        )),
        "{}",
        e[0]
    );
}

#[test]
fn an_entry_cut_inside_a_quoted_scalar_is_bounded_too() {
    // a line inside a multi-line string looks like an entry: parsed on its own (the whole
    // file has a syntax error), its brackets would be real
    let text = format!(
        "active_intents:\n  - id: A\n    name: \"x\n  - {}\n    \"\n  - id: B\n    name: [unclosed\n",
        "[".repeat(100_000)
    );
    let f = parse(F, &text);
    assert!(f.intents.is_empty());
    assert!(
        f.problems
            .iter()
            .any(|p| p.message.contains("deeper than 64") && p.line == 4),
        "{:?}",
        f.problems
    );
}

#[test]
fn problems_and_unknown_fields_are_capped() {
    // 5,000 duplicate ids and an entry with 1,000 unknown fields
    let mut text = String::from("active_intents:\n");
    text.push_str("  - id: D\n    name: d\n    status: BLOCKED\n    owned_scope: [d]\n");
    for k in 0..1000 {
        text.push_str(&format!("    extra{k}: x\n"));
    }
    for _ in 0..5_000 {
        text.push_str("  - {id: D, name: d, status: BLOCKED, owned_scope: [d]}\n");
    }
    let f = parse(F, &text);
    assert_eq!(f.ids(), vec!["D"]);
    assert_eq!(f.problems.len(), MAX_PROBLEMS);
    let unknown: Vec<_> = f
        .problems
        .iter()
        .filter(|p| p.message.contains("unknown field"))
        .collect();
    assert_eq!(unknown.len(), MAX_UNKNOWN_FIELDS + 1);
    assert!(unknown[MAX_UNKNOWN_FIELDS]
        .message
        .contains("990 more unknown fields"));
    let last = f.problems.last().unwrap();
    assert_eq!(last.severity, Severity::Error);
    assert!(
        last.message.contains("more problems from this line on"),
        "{last}"
    );
    // one entry with 50,000 bad globs: reported once per glob but found in linear time
    let globs = vec!["../x"; 50_000].join(", ");
    let text = format!("active_intents:\n  - id: G\n    name: g\n    status: IN_PROGRESS\n    owned_scope: [{globs}]\n");
    let f = parse(F, &text);
    assert!(f.intents.is_empty());
    assert_eq!(f.problems.len(), MAX_PROBLEMS);
}

#[test]
fn lines_move_in_messages() {
    assert_eq!(
        shift_lines("x at line 3 column 2, while y at line 1 column 5", 10),
        "x at line 13 column 2, while y at line 11 column 5"
    );
    assert_eq!(shift_lines("no number: line x", 4), "no number: line x");
    assert_eq!(shift_lines("", 4), "");
}

/// Figures: the selectIntent-equivalent parse of hostile files (the deep flow
/// sequences at 100 KB and 200 KB, before with serde_norway alone), and of large valid ones.
/// `cargo test --release --lib intents::hostile_tests::bench -- --ignored --nocapture`
#[test]
#[ignore]
fn bench_hostile_intents() {
    use std::time::Instant;
    let deep = |n: usize| {
        format!(
            "active_intents: {}{}\n",
            "[".repeat(n / 2),
            "]".repeat(n / 2)
        )
    };
    for (label, text) in [
        ("100 KB deep flow", deep(100_000)),
        ("200 KB deep flow", deep(200_000)),
    ] {
        let t = Instant::now();
        let f = parse(F, &text);
        println!(
            "{label}: now {:.3} ms ({})",
            t.elapsed().as_secs_f64() * 1e3,
            f.problems[0]
        );
        if std::env::var_os("HOOKWISE_BENCH_BEFORE").is_some() {
            let t = Instant::now();
            let r = serde_norway::from_str::<Value>(&text);
            println!(
                "{label}: before (serde_norway alone) {:.1} s ({})",
                t.elapsed().as_secs_f64(),
                r.err().map(|e| e.to_string()).unwrap_or_default()
            );
        }
    }
    let mut big = String::from("active_intents:\n");
    let mut i = 0;
    while big.len() < 1_000_000 {
        big.push_str(&entry(i));
        i += 1;
    }
    let t = Instant::now();
    let f = parse(F, &big);
    println!(
        "1 MB valid file, {} intents: {:.1} ms",
        f.intents.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let _ = serde_norway::from_str::<Value>(&big);
    println!(
        "1 MB valid file, serde_norway alone (before: the parse, without the checks): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    big.push_str("  - id: BAD\n    name: \"unterminated\n");
    let t = Instant::now();
    let f = parse(F, &big);
    println!(
        "1 MB file with a syntax error at the end, entry by entry ({} intents): {:.1} ms",
        f.intents.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
}

/// End to end through the gate: a hostile intents file blocks every change, with the reason,
/// and a legitimate selection made before it was written does not survive it.
mod through_the_gate {
    use serde_json::json;

    use crate::governance::{
        select_intent, tool_before, GateOutput, Governance, SelectInput, ToolCallInput,
    };
    use crate::testing::TestHost;

    const GOOD: &str = "active_intents:\n  - id: A\n    name: a\n    status: IN_PROGRESS\n    owned_scope: [src/**]\n";
    const PATH: &str = "/w/.orchestration/active_intents.yaml";

    fn write(fs: &mut TestHost, gov: &Governance, n: u32) -> GateOutput {
        let input = ToolCallInput {
            tool: "write".into(),
            session_id: "s".into(),
            call_id: format!("c{n}"),
            args: json!({"filePath": "src/a.ts", "content": "x"}),
            worktree: "/w".into(),
            directory: String::new(),
        };
        let gov = gov.clone();
        fs.run(move |io| async move { tool_before(&io, &gov, &input).await })
    }

    #[test]
    fn hostile_files_fail_closed() {
        let mut fs = TestHost::default();
        fs.file(PATH, GOOD);
        fs.dir("/w/src");
        let gov = Governance::default();
        let g = gov.clone();
        let input = SelectInput {
            session_id: "s".into(),
            intent_id: "A".into(),
            worktree: "/w".into(),
        };
        assert!(
            fs.run(move |io| async move { select_intent(&io, &g, &input).await })
                .ok
        );
        assert!(write(&mut fs, &gov, 1).block.is_none());

        let too_large = format!("{GOOD}# {}\n", "x".repeat(1 << 20));
        let deep = format!(
            "{GOOD}  - id: B\n    owned_scope: {}\n",
            "[".repeat(200_000)
        );
        let laughs = {
            let mut t = String::from("l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n");
            for i in 1..9 {
                let prev = vec![format!("*l{}", i - 1); 10].join(", ");
                t.push_str(&format!("l{i}: &l{i} [{prev}]\n"));
            }
            format!("{t}{GOOD}")
        };
        for (n, (text, why)) in [
            (too_large, "over the 1 MiB limit"),
            (deep, "nests deeper than 64 levels at line 7"),
            (laughs, "aliases"),
        ]
        .into_iter()
        .enumerate()
        {
            fs.file(PATH, &text);
            let out = write(&mut fs, &gov, 2 + n as u32);
            let block = out.block.expect("a hostile intents file blocks changes");
            assert!(block.contains(why), "{block}");
            assert!(
                out.logs.iter().any(|l| l.message.contains(why)),
                "{:?}",
                out.logs
            );
        }
        // fixed by the user: the session's intent is in the file again
        fs.file(PATH, GOOD);
        assert_eq!(write(&mut fs, &gov, 9).block, None);
    }
}

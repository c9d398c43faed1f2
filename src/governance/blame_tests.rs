//! `trace blame` against edits made between records: each test writes a log the way
//! `tool.after` does (the record, its line hashes, the chain) and blames the file as it is.

use super::blame::{blame, table, Attribution, Granularity, State};
use super::chain;
use super::classify::MutationClass;
use super::ranges::{self, sha256_hex, Range};
use super::trace::{self, RecordInput};

/// A log being written: one record per call, chained.
#[derive(Default)]
struct Log {
    lines: Vec<String>,
    n: u8,
}

struct Call<'a> {
    host: &'a str,
    intent: &'a str,
    model: &'a str,
    tool: &'a str,
}

const A: Call = Call {
    host: "opencode",
    intent: "INT-1",
    model: "openai/gpt-5",
    tool: "edit",
};
const B: Call = Call {
    host: "claude-code",
    intent: "INT-2",
    model: "anthropic/claude-sonnet-4-5",
    tool: "Edit",
};

impl Log {
    /// Record a call that wrote `files` (path, from, text after, ranges); `hashes`: with line
    /// hashes (false: a record from before them).
    fn record(
        &mut self,
        c: &Call,
        files: Vec<(&str, Option<&str>, &str, Vec<Range>)>,
        hashes: bool,
    ) {
        self.n += 1;
        let input = RecordInput {
            random: [self.n; 16],
            now_ms: 1_764_300_000_000 + i64::from(self.n) * 60_000,
            head: None,
            tool_version: "0.1.0",
            model_id: Some(c.model),
            intent_id: Some(c.intent),
            session_id: "ses",
            call_id: "call",
            tool: c.tool,
            host: c.host,
            branch: None,
            segment: "",
        };
        let entries = files
            .iter()
            .map(|(p, _, _, r)| (p.to_string(), r.clone()))
            .collect();
        let mut rec = trace::record(&input, MutationClass::AstRefactor, entries);
        if hashes {
            rec.metadata.hookwise.blame = files
                .iter()
                .map(|(p, from, text, r)| trace::lines_written(p, *from, text, r))
                .collect();
        }
        let prev = self
            .lines
            .last()
            .map_or(trace::GENESIS.to_string(), |l| sha256_hex(l.as_bytes()));
        self.lines.push(trace::chained(&rec).unwrap().line(&prev));
    }

    /// A write of the whole file.
    fn write(&mut self, c: &Call, path: &str, text: &str) {
        self.record(c, vec![(path, None, text, ranges::whole(text))], true);
    }

    /// An edit from `before` to `after` (the changed block).
    fn edit(&mut self, c: &Call, path: &str, before: &str, after: &str) {
        let r = ranges::changed_block(before, after);
        self.record(c, vec![(path, None, after, r)], true);
    }

    fn text(&self) -> String {
        self.lines.iter().map(|l| format!("{l}\n")).collect()
    }
}

fn names(id: &str) -> Option<String> {
    match id {
        "INT-1" => Some("Auth".into()),
        "INT-2" => Some("Billing".into()),
        _ => None,
    }
}

fn run(path: &str, text: &str, log: &Log) -> Attribution {
    blame(path, text, &log.text(), &names)
}

/// Each line as `(state, host)`: `a:opencode`, `c:claude-code`, `-`.
fn shape(a: &Attribution) -> Vec<String> {
    a.lines()
        .iter()
        .map(|l| match (l.state, l.writer) {
            (State::Agent, Some(w)) => format!("a:{}", w.host),
            (State::Changed, Some(w)) => format!("c:{}", w.host),
            _ => "-".into(),
        })
        .collect()
}

fn lines(n: usize, tag: &str) -> String {
    (1..=n).map(|i| format!("{tag} line {i}\n")).collect()
}

#[test]
fn lines_inserted_above_keep_their_writer() {
    let mut log = Log::default();
    let v1 = lines(5, "a");
    log.write(&A, "src/x.ts", &v1);
    // a person inserts three lines at the top
    let now = format!("// one\n// two\n// three\n{v1}");
    let a = run("src/x.ts", &now, &log);
    let s = shape(&a);
    assert_eq!(&s[..3], ["-", "-", "-"]);
    assert!(s[3..].iter().all(|x| x == "a:opencode"), "{s:?}");
    let l = a.lines();
    let w = l[3].writer.unwrap();
    assert_eq!(w.intent.as_ref().unwrap().id, "INT-1");
    assert_eq!(w.intent.as_ref().unwrap().name.as_deref(), Some("Auth"));
    assert_eq!(w.model.as_deref(), Some("openai/gpt-5"));
    assert_eq!(w.tool, "edit");
    assert_eq!(w.mutation_class, "AST_REFACTOR");
    assert_eq!(w.trace_line, 1);
    assert_eq!(l[3].granularity, Some(Granularity::Line));
    assert_eq!(a.records, 1);
}

#[test]
fn a_line_changed_by_a_person_is_changed() {
    let mut log = Log::default();
    let v1 = lines(6, "a");
    log.write(&A, "f.rs", &v1);
    let now = v1.replace("a line 3\n", "a line 3 (fixed by hand)\n");
    let s = shape(&run("f.rs", &now, &log));
    assert_eq!(
        s,
        [
            "a:opencode",
            "a:opencode",
            "c:opencode",
            "a:opencode",
            "a:opencode",
            "a:opencode"
        ]
    );
    // a one-line file the person changed: no context, taken at its recorded place
    let mut log = Log::default();
    log.write(&A, "one.txt", "agent\n");
    assert_eq!(shape(&run("one.txt", "human\n", &log)), ["c:opencode"]);
}

#[test]
fn two_intents_and_two_hosts() {
    let mut log = Log::default();
    let v1 = lines(4, "a");
    log.write(&A, "f.rs", &v1);
    let v2 = v1.replace("a line 2\n", "b line 2\nb line 2b\n");
    log.edit(&B, "f.rs", &v1, &v2);
    let a = run("f.rs", &v2, &log);
    assert_eq!(
        shape(&a),
        [
            "a:opencode",
            "a:claude-code",
            "a:claude-code",
            "a:opencode",
            "a:opencode"
        ]
    );
    let l = a.lines();
    assert_eq!(l[1].writer.unwrap().intent.as_ref().unwrap().id, "INT-2");
    assert_eq!(l[1].writer.unwrap().trace_line, 2);
    assert_eq!(a.records, 2);
}

#[test]
fn a_file_rewritten_whole_is_that_writes() {
    let mut log = Log::default();
    let v1 = lines(5, "a");
    log.write(&A, "f.rs", &v1);
    // rewritten whole by B, keeping some of A's lines as they were
    let v2 = format!("new top\n{v1}new end\n");
    log.write(&B, "f.rs", &v2);
    let s = shape(&run("f.rs", &v2, &log));
    assert!(s.iter().all(|x| x == "a:claude-code"), "{s:?}");
}

#[test]
fn repeated_lines_are_not_taken_for_each_other() {
    let mut log = Log::default();
    // a person's file: many closing braces
    let human: String = (0..40)
        .map(|i| format!("fn h{i}() {{\n    {i}\n}}\n"))
        .collect();
    // the agent adds one function in the middle
    let body = "fn agent() {\n    call();\n}\n";
    let (top, bottom) = human.split_at(human.len() / 2 - (human.len() / 2) % 1);
    let cut = top.rfind("fn ").unwrap();
    let before = format!("{}{}", &top[..cut], &human[cut..]);
    let after = format!("{}{body}{}", &top[..cut], &human[cut..]);
    let _ = bottom;
    log.edit(&A, "f.rs", &before, &after);
    let a = run("f.rs", &after, &log);
    let s = shape(&a);
    let start = after[..after.find("fn agent").unwrap()]
        .matches('\n')
        .count();
    for (i, x) in s.iter().enumerate() {
        let mine = (start..start + 3).contains(&i);
        assert_eq!(x == "a:opencode", mine, "line {}: {x}", i + 1);
    }
    // the function moves down: its `}` goes with it, no other `}` is taken
    let moved = format!("fn top() {{\n}}\n{after}");
    let s = shape(&run("f.rs", &moved, &log));
    for (i, x) in s.iter().enumerate() {
        let mine = (start + 2..start + 5).contains(&i);
        assert_eq!(x == "a:opencode", mine, "line {}: {x}", i + 1);
    }
}

#[test]
fn a_rename_through_a_recorded_tool_keeps_the_history() {
    let mut log = Log::default();
    let v1 = lines(4, "a");
    log.write(&A, "old.rs", &v1);
    // B moves it with a patch and edits line 4
    let v2 = v1.replace("a line 4\n", "b line 4\n");
    let r = ranges::changed_block(&v1, &v2);
    log.record(&B, vec![("new.rs", Some("old.rs"), &v2, r)], true);
    let s = shape(&run("new.rs", &v2, &log));
    assert_eq!(
        s,
        ["a:opencode", "a:opencode", "a:opencode", "a:claude-code"]
    );
    // without the recorded move, the old path's records are not this file's
    let mut log2 = Log::default();
    log2.write(&A, "old.rs", &v1);
    assert_eq!(shape(&run("new.rs", &v1, &log2)), ["-", "-", "-", "-"]);
}

#[test]
fn records_from_before_line_hashes_blame_by_range() {
    let mut log = Log::default();
    let v1 = lines(4, "a");
    log.record(&A, vec![("f.rs", None, &v1, ranges::whole(&v1))], false);
    let a = run("f.rs", &v1, &log);
    assert!(a
        .lines()
        .iter()
        .all(|l| l.state == State::Agent && l.granularity == Some(Granularity::Range)));
    // moved down by lines inserted above: found elsewhere by its content hash
    let now = format!("x\ny\n{v1}");
    let s = shape(&run("f.rs", &now, &log));
    assert_eq!(
        s,
        [
            "-",
            "-",
            "a:opencode",
            "a:opencode",
            "a:opencode",
            "a:opencode"
        ]
    );
    // one line changed: the range no longer matches, its recorded lines are `changed`
    let now = v1.replace("a line 2", "edited");
    let a = run("f.rs", &now, &log);
    assert!(a
        .lines()
        .iter()
        .all(|l| l.state == State::Changed && l.granularity == Some(Granularity::Range)));
}

#[test]
fn a_torn_or_tampered_log_still_blames() {
    let mut log = Log::default();
    let v1 = lines(3, "a");
    log.write(&A, "f.rs", &v1);
    log.write(&B, "g.rs", &v1);
    // a junk line and a torn last line
    let mut text = log.text();
    text.insert_str(0, "not json\n");
    text.push_str("{\"version\":\"0.1.0\",\"files\":[{\"path\":\"f.rs\"");
    assert!(!chain::verify(&text).ok);
    let a = blame("f.rs", &v1, &text, &names);
    assert_eq!(a.counts(), (3, 0, 0));
    assert_eq!(a.lines()[0].writer.unwrap().trace_line, 2);
}

#[test]
fn hostile_records_do_not_break_blame() {
    let v1 = lines(3, "a");
    let junk = [
        // ranges past the file, zero, reversed; hashes of the wrong length; huge numbers
        r#"{"files":[{"path":"f.rs","conversations":[{"ranges":[{"start_line":0,"end_line":0},{"start_line":9,"end_line":2,"content_hash":"x"},{"start_line":18446744073709551615,"end_line":18446744073709551615,"content_hash":"x"}]}]}],"metadata":{"dev.hookwise":{"blame":[{"path":"f.rs","ranges":[{"lines":"abc"},{"pre":"","lines":"AAAAAA","post":"é"}]}]}}}"#,
        r#"{"files":[{"path":"f.rs","conversations":[{"ranges":[{"start_line":1,"end_line":1}]}]}],"metadata":{"dev.hookwise":{"blame":[{"path":"f.rs","ranges":[{"pre":"AAAAAAAAAAAA","lines":"AAAAAA","post":""}]}]}}}"#,
        r#"{"files":"f.rs"}"#,
        r#"[1,2,3]"#,
    ];
    let log = junk.join("\n");
    let a = blame("f.rs", &v1, &log, &names);
    assert_eq!(a.marks.len(), 3);
    let _ = table("f.rs", &v1, &a, "x");
}

#[test]
fn the_table_shows_each_line() {
    let mut log = Log::default();
    let v1 = "fn a() {\n    1\n}\n";
    log.write(&A, "f.rs", v1);
    let now = "// by hand\nfn a() {\n    2\n}\n";
    let a = run("f.rs", now, &log);
    let t = table("f.rs", now, &a, "verified (1 record line(s))");
    let rows: Vec<&str> = t.lines().collect();
    assert!(rows[0].starts_with("f.rs: 4 line(s): 2 agent, 1 changed since (~), 1 unattributed"));
    assert!(
        rows[1].starts_with("1 ") && rows[1].ends_with("│ // by hand"),
        "{t}"
    );
    assert!(rows[2].contains("INT-1") && rows[2].contains("opencode") && rows[2].contains("gpt-5"));
    assert!(
        rows[3].contains("~INT-1") && rows[3].ends_with("│     2"),
        "{t}"
    );
    assert!(
        rows[2].contains("2025-11-28 03:") || rows[2].contains("2025-11-28"),
        "{t}"
    );
}

/// `cargo test --release --all-features --lib bench_blame -- --ignored --nocapture`: blame of a
/// 10,000-line file against 10,000 records (one write of the whole file, then 9,999 edits of
/// one to three lines each, at spread places; a person's edits at the end), the core alone.
#[test]
#[ignore]
fn bench_blame() {
    use std::time::Instant;
    const N: usize = 10_000;
    let mut file: Vec<String> = (0..N).map(|i| format!("    let v{i} = f({i});")).collect();
    // braces and blank lines repeat, as in code
    for i in (0..N).step_by(7) {
        file[i] = "}".into();
    }
    let mut log = Log::default();
    let text = |f: &[String]| {
        let mut s = String::with_capacity(f.len() * 24);
        for l in f {
            s.push_str(l);
            s.push('\n');
        }
        s
    };
    let t0 = Instant::now();
    let v0 = text(&file);
    log.write(&A, "big.rs", &v0);
    let mut seed = 12345u64;
    for k in 1..N {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = (seed >> 33) as usize % (N - 3);
        let n = 1 + (seed >> 20) as usize % 3;
        for j in 0..n {
            file[at + j] = format!("    edited({k}, {j});");
        }
        let after = text(&file);
        let r = vec![ranges::range(&ranges::split_lines(&after), at + 1, at + n)];
        let c = if k % 2 == 0 { &A } else { &B };
        log.n = (k % 250) as u8;
        log.record(c, vec![("big.rs", None, &after, r)], true);
    }
    let made = t0.elapsed();
    // a person inserts 10 lines at the top and edits 10
    let mut now = file.clone();
    for i in 0..10 {
        now[i * 997] = format!("// by hand {i}");
        now.insert(0, format!("// header {i}"));
    }
    let now = text(&now);
    let log_text = log.text();
    // the first record alone (the whole file, diffed against what 9,999 edits left of it)
    let first = format!("{}\n", log.lines[0]);
    let t0 = Instant::now();
    let _ = blame("big.rs", &now, &first, &names);
    let one = t0.elapsed();
    let t0 = Instant::now();
    let a = blame("big.rs", &now, &log_text, &names);
    let took = t0.elapsed();
    println!(
        "blame: the whole-file record alone: {:.0} ms",
        one.as_secs_f64() * 1e3
    );
    let (ag, ch, un) = a.counts();
    println!(
        "blame: {N} lines × {} records ({:.1} MB log): {:.0} ms (core, native); {ag} agent, {ch} changed, {un} unattributed (log made in {:.1} s)",
        log.lines.len(),
        log_text.len() as f64 / 1e6,
        took.as_secs_f64() * 1e3,
        made.as_secs_f64()
    );
    assert_eq!(a.records, N);
    assert!(un >= 10 && ch >= 1, "{ag} {ch} {un}");
}

//! The trace attacked as a hostile model (or anyone with a shell in the project) would: every
//! way to edit, cut, empty, delete or pad the log and its head, checked by a fresh process's
//! `trace verify` (it remembers nothing of the appends); and a trace that cannot be written.

use serde_json::{json, Value};

use crate::governance::head::{Head, HEAD_FILE};
use crate::governance::ops::{
    tool_after, tool_before, AfterInput, AfterOutput, GateOutput, Governance, ToolCallInput,
};
use crate::governance::ranges::sha256_hex;
use crate::protocol::Request;
use crate::testing::TestHost;

use super::{trace_head, trace_verify, HeadInput, HeadOutput, VerifyInput, VerifyOutput};

const WT: &str = "/w";
const LOG: &str = "/w/.orchestration/agent_trace.jsonl";
const HEAD: &str = "/w/.orchestration/agent_trace.head";
const YAML: &str = "\
active_intents:
  - id: INT-1
    name: Auth
    status: IN_PROGRESS
    owned_scope: [src/**]
";

struct P {
    fs: TestHost,
    gov: Governance,
    calls: u32,
    /// Files written by `writes` so far (`src/f0.ts`, `src/f1.ts`, …).
    written: usize,
}

impl P {
    fn new() -> P {
        let mut fs = TestHost::default();
        fs.file("/w/.orchestration/active_intents.yaml", YAML);
        fs.dir("/w/src");
        let p = P {
            fs,
            gov: Governance::default(),
            calls: 0,
            written: 0,
        };
        p.gov.select("s", "INT-1");
        p
    }

    fn before(&mut self, tool: &str, args: Value) -> GateOutput {
        self.calls += 1;
        let input = ToolCallInput {
            tool: tool.into(),
            session_id: "s".into(),
            call_id: format!("c{}", self.calls),
            args,
            worktree: WT.into(),
            directory: String::new(),
        };
        let gov = self.gov.clone();
        self.fs
            .run(move |io| async move { tool_before(&io, &gov, &input).await })
    }

    fn after(&mut self, tool: &str, args: Value) -> AfterOutput {
        let input = AfterInput {
            tool: tool.into(),
            session_id: "s".into(),
            call_id: format!("c{}", self.calls),
            args,
            worktree: WT.into(),
            now_ms: 1_763_781_123_456.0 + f64::from(self.calls),
            random: format!("{:032x}", 0xabcdef_u128 * u128::from(self.calls)),
            ..Default::default()
        };
        let gov = self.gov.clone();
        self.fs
            .run(move |io| async move { tool_after(&io, &gov, &input).await })
    }

    /// One write through the hooks; the record it left (or why it was blocked).
    fn write(&mut self, name: &str) -> Result<AfterOutput, String> {
        let args = json!({"filePath": format!("src/{name}"), "content": format!("{name}\n")});
        if let Some(m) = self.before("write", args.clone()).block {
            return Err(m);
        }
        self.fs
            .file(&format!("/w/src/{name}"), &format!("{name}\n"));
        Ok(self.after("write", args))
    }

    fn writes(&mut self, n: usize) {
        for _ in 0..n {
            let i = self.written;
            self.written += 1;
            let r = self.write(&format!("f{i}.ts")).unwrap();
            assert!(r.recorded, "{r:?}");
        }
    }

    /// `hookwise trace verify` from a fresh process.
    fn verify(&mut self) -> VerifyOutput {
        self.verify_at(WT, None)
    }

    fn verify_at(&mut self, wt: &str, anchor: Option<&str>) -> VerifyOutput {
        let input = VerifyInput {
            worktree: wt.into(),
            anchor: anchor.map(str::to_string),
        };
        self.fs
            .run(move |io| async move { trace_verify(&io, &Governance::default(), &input).await })
    }

    fn head(&mut self, init: bool) -> HeadOutput {
        let input = HeadInput {
            worktree: WT.into(),
            init,
        };
        self.fs
            .run(move |io| async move { trace_head(&io, &Governance::default(), &input).await })
    }

    fn log(&self) -> String {
        self.fs.read(LOG).unwrap_or("").to_string()
    }

    fn lines(&self) -> Vec<String> {
        self.log().lines().map(str::to_string).collect()
    }

    fn set_lines(&mut self, lines: &[String]) {
        let t: String = lines.iter().map(|l| format!("{l}\n")).collect();
        self.fs.file(LOG, &t);
    }
}

fn kinds(v: &VerifyOutput) -> Vec<(usize, &'static str)> {
    v.report.problems.iter().map(|p| (p.line, p.kind)).collect()
}

/// Verification failed, naming `kind` at `line`.
#[track_caller]
fn fails_with(v: &VerifyOutput, line: usize, kind: &str) {
    assert!(!v.report.ok, "{v:#?}");
    assert!(
        v.report
            .problems
            .iter()
            .any(|p| p.kind == kind && p.line == line),
        "expected {kind} at line {line}: {:?}",
        v.report.problems
    );
}

#[test]
fn an_untouched_log_verifies_against_its_head() {
    let mut p = P::new();
    p.writes(5);
    let v = p.verify();
    assert!(v.report.ok && v.report.lines == 5, "{v:#?}");
    let head = Head::parse(p.fs.read(HEAD).unwrap()).unwrap();
    assert_eq!(head.records, 5);
    assert_eq!(head.bytes, p.log().len() as u64);
    assert_eq!(head.last, sha256_hex(p.lines()[4].as_bytes()));
    assert_eq!(v.stored_head.as_ref(), Some(&head));
    assert_eq!(v.log_head.as_ref(), Some(&head));
    let j = serde_json::to_value(&v).unwrap();
    assert_eq!(j["headPath"], HEAD);
    assert_eq!(j["storedHead"]["records"], 5);
    // the head went to the host with the append, in the same request (the same lock)
    let req =
        p.fs.log
            .iter()
            .rev()
            .find(|r| matches!(r, Request::AppendChained { .. }))
            .unwrap();
    let Request::AppendChained {
        head_path,
        head_parts,
        break_ms,
        ..
    } = req
    else {
        unreachable!()
    };
    assert_eq!(head_path, HEAD);
    assert_eq!(head_parts.len(), 4);
    assert!(*break_ms > 0);
}

#[test]
fn a_project_that_never_used_governance_is_fine_and_a_missing_one_is_not() {
    let mut p = P::new();
    let v = p.verify();
    assert!(
        v.report.ok && v.report.lines == 0 && v.error.is_none(),
        "{v:#?}"
    );
    // no .orchestration at all
    let mut fs = TestHost::default();
    fs.dir("/w");
    let v = fs.run(|io| async move {
        trace_verify(
            &io,
            &Governance::default(),
            &VerifyInput {
                worktree: WT.into(),
                anchor: None,
            },
        )
        .await
    });
    assert!(v.report.ok && v.report.lines == 0, "{v:#?}");
    // `--cwd /nonexistent`, a file as the project, no project at all: failures, not "ok: 0"
    p.fs.file("/w/notadir", "x");
    for (wt, says) in [
        ("/nonexistent", "no project folder at /nonexistent"),
        ("/w/notadir", "is not a folder"),
        ("", "no project folder given"),
    ] {
        let v = p.verify_at(wt, None);
        assert!(!v.report.ok, "{wt}: {v:#?}");
        assert!(v.error.as_deref().unwrap().contains(says), "{v:#?}");
    }
}

#[test]
fn an_edited_last_line_is_named() {
    for same_length in [true, false] {
        let mut p = P::new();
        p.writes(4);
        let mut l = p.lines();
        l[3] = if same_length {
            l[3].replace("src/f3.ts", "src/f9.ts")
        } else {
            l[3].replace("src/f3.ts", "src/innocent.ts")
        };
        p.set_lines(&l);
        let v = p.verify();
        fails_with(&v, 4, "edited");
        assert!(v.report.problems[0].message.contains("line 4, the last"));
    }
}

#[test]
fn one_two_or_three_lines_cut_from_the_end_are_named() {
    for cut in 1..=3usize {
        let mut p = P::new();
        p.writes(5);
        let l = p.lines();
        p.set_lines(&l[..5 - cut]);
        let v = p.verify();
        fails_with(&v, 5 - cut, "cut");
        let m = &v.report.problems[0].message;
        let named = if cut == 1 {
            "line 5 was removed".to_string()
        } else {
            format!("lines {}–5 were removed", 6 - cut)
        };
        assert!(m.contains(&named), "{m}");
        // and the chain alone would not have seen it
        assert!(crate::governance::chain::verify(&p.log()).ok);
    }
    // every line but the first cut, and the whole log cut down to nothing
    let mut p = P::new();
    p.writes(3);
    let l = p.lines();
    p.set_lines(&l[..1]);
    fails_with(&p.verify(), 1, "cut");
}

#[test]
fn an_emptied_or_deleted_log_fails() {
    let mut p = P::new();
    p.writes(3);
    p.fs.file(LOG, "");
    let v = p.verify();
    fails_with(&v, 0, "emptied");
    assert!(v.report.problems[0].message.contains("3 record"));
    p.fs.files.remove(LOG);
    let v = p.verify();
    fails_with(&v, 0, "missing-log");
    // an empty log without a head is not a state hookwise leaves either
    p.fs.files.remove(HEAD);
    p.fs.file(LOG, "");
    fails_with(&p.verify(), 0, "emptied");
}

#[test]
fn a_byte_order_mark_or_a_stray_line_fails() {
    let mut p = P::new();
    p.writes(3);
    let orig = p.log();
    // the JS host drops a leading BOM from the text it reads; the size still counts it
    p.fs.file(LOG, &format!("\u{feff}{orig}"));
    let v = p.verify();
    fails_with(&v, 1, "bom");
    // a one-line log too (no later line whose link could break)
    let mut q = P::new();
    q.writes(1);
    let one = q.log();
    q.fs.file(LOG, &format!("\u{feff}{one}"));
    fails_with(&q.verify(), 1, "bom");
    // a blank line at the end, junk at the end, junk in the middle
    p.fs.file(LOG, &format!("{orig}\n"));
    let v = p.verify();
    fails_with(&v, 4, "not-a-record");
    fails_with(&v, 4, "stale-head");
    p.fs.file(LOG, &format!("{orig}{{\"note\":\"hi\"}}\n"));
    fails_with(&p.verify(), 4, "not-a-record");
    let mut l: Vec<String> = orig.lines().map(str::to_string).collect();
    l.insert(1, "   ".into());
    p.set_lines(&l);
    fails_with(&p.verify(), 2, "not-a-record");
    // a torn end (bytes without a newline)
    p.fs.file(LOG, &format!("{orig}{{\"tor"));
    let v = p.verify();
    fails_with(&v, 4, "torn");
}

#[test]
fn reordered_lines_at_the_end_fail() {
    let mut p = P::new();
    p.writes(4);
    let mut l = p.lines();
    l.swap(2, 3);
    p.set_lines(&l);
    let v = p.verify();
    assert!(!v.report.ok);
    assert!(kinds(&v).iter().any(|k| k.1 == "reordered"), "{v:#?}");
    assert!(kinds(&v).contains(&(4, "edited")), "{v:#?}");
}

#[test]
fn an_edited_or_deleted_head_fails() {
    let mut p = P::new();
    p.writes(3);
    let good = p.fs.read(HEAD).unwrap().to_string();
    let h = Head::parse(&good).unwrap();
    let edits = [
        // the count, the size, the hash, each off
        Head {
            records: 2,
            ..h.clone()
        }
        .text(),
        Head {
            records: 4,
            ..h.clone()
        }
        .text(),
        Head {
            bytes: h.bytes - 1,
            ..h.clone()
        }
        .text(),
        Head {
            last: sha256_hex(b"x"),
            ..h.clone()
        }
        .text(),
    ];
    for e in &edits {
        p.fs.file(HEAD, e);
        let v = p.verify();
        assert!(!v.report.ok, "{e}: {v:#?}");
    }
    for junk in [
        format!("\u{feff}{good}"),
        good.replace("records", "Records"),
        good.trim_end().to_string(),
        "{}".into(),
        String::new(),
    ] {
        p.fs.file(HEAD, &junk);
        fails_with(&p.verify(), 0, "bad-head");
    }
    p.fs.files.remove(HEAD);
    let v = p.verify();
    fails_with(&v, 0, "no-head");
    assert!(v.report.problems[0]
        .message
        .contains("hookwise trace head --init"));
    // a head that is a folder
    p.fs.dir(HEAD);
    fails_with(&p.verify(), 0, "bad-head");
}

#[test]
fn an_append_after_tampering_does_not_heal_the_head() {
    let mut p = P::new();
    p.writes(5);
    let l = p.lines();
    p.set_lines(&l[..3]); // cut 2
    let r = p.write("next.ts").unwrap();
    assert!(
        r.recorded,
        "records are never refused for a bad head: {r:?}"
    );
    assert!(
        r.logs.iter().any(|l| l.message.contains("does not match")),
        "{r:?}"
    );
    let v = p.verify();
    fails_with(&v, 4, "cut");
    // the head is frozen, a second append does not warn again
    let r = p.write("next2.ts").unwrap();
    assert!(r.recorded && !r.logs.iter().any(|l| l.message.contains("head")));
    assert!(!p.verify().report.ok);
    // the head deleted, then an append: the head is not recreated behind the user's back
    let mut p = P::new();
    p.writes(3);
    let l = p.lines();
    p.set_lines(&l[..2]);
    p.fs.files.remove(HEAD);
    let r = p.write("x.ts").unwrap();
    assert!(r.recorded);
    assert!(p.fs.read(HEAD).is_none());
    fails_with(&p.verify(), 0, "no-head");
}

#[test]
fn what_stays_undetectable_without_a_key_and_what_an_anchor_catches() {
    let mut p = P::new();
    p.writes(3);
    let anchor = p.head(false);
    assert!(anchor.ok, "{anchor:#?}");
    let text = anchor.text.clone().unwrap();
    assert_eq!(format!("{text}\n"), p.fs.read(HEAD).unwrap());
    p.writes(2);
    // later records on top of an anchor are fine
    assert!(p.verify_at(WT, Some(&text)).report.ok);
    // cut the last 3 lines and rewrite the head consistently: the head cannot tell ...
    let l = p.lines();
    p.set_lines(&l[..2]);
    let forged = Head::of_log(
        &crate::governance::chain::split(&p.log()),
        p.log().len() as u64,
    );
    p.fs.file(HEAD, &forged.text());
    assert!(p.verify().report.ok, "documented: consistent rewrites pass");
    // ... the anchor can
    let v = p.verify_at(WT, Some(&text));
    fails_with(&v, 2, "anchor");
    // replacing everything with a new valid chain: the same
    p.fs.files.remove(LOG);
    p.fs.files.remove(HEAD);
    p.writes(4);
    assert!(p.verify().report.ok);
    fails_with(&p.verify_at(WT, Some(&text)), 3, "anchor");
    p.fs.files.remove(LOG);
    p.fs.files.remove(HEAD);
    fails_with(&p.verify_at(WT, Some(&text)), 0, "anchor");
    // an anchor that is not a head is an error, not a pass
    let v = p.verify_at(WT, Some("12 records"));
    assert!(!v.report.ok && v.error.unwrap().contains("anchor"));
}

#[test]
fn a_log_from_before_heads_keeps_working_and_init_writes_its_head() {
    let mut p = P::new();
    p.writes(3);
    p.fs.files.remove(HEAD); // as a log written by an older hookwise
                             // writes go on, with a warning (once)
    let r = p.write("more.ts").unwrap();
    assert!(r.recorded);
    assert!(
        r.logs.iter().any(|l| l.message.contains("no head")),
        "{r:?}"
    );
    let r = p.write("more2.ts").unwrap();
    assert!(r.recorded && !r.logs.iter().any(|l| l.message.contains("head")));
    // trace head without --init: not ok, and says what to do
    let h = p.head(false);
    assert!(
        !h.ok && !h.written && h.message.contains("--init"),
        "{h:#?}"
    );
    let h = p.head(true);
    assert!(h.ok && h.written, "{h:#?}");
    assert!(h.message.contains("no-head"), "{}", h.message);
    assert!(p.verify().report.ok);
    // from then on the head follows the appends
    p.writes(2);
    let v = p.verify();
    assert!(v.report.ok && v.report.lines == 7, "{v:#?}");
    // init when all is well changes nothing
    let before = p.fs.read(HEAD).unwrap().to_string();
    let h = p.head(true);
    assert!(h.ok && !h.written);
    assert_eq!(p.fs.read(HEAD).unwrap(), before);
}

#[test]
fn init_refuses_a_broken_chain_and_an_empty_log() {
    let mut p = P::new();
    p.writes(4);
    let mut l = p.lines();
    l[1] = l[1].replace("src/f1.ts", "src/fX.ts");
    p.set_lines(&l);
    let h = p.head(true);
    assert!(
        !h.ok && !h.written && h.message.contains("broken-link"),
        "{h:#?}"
    );
    p.fs.file(LOG, &format!("\u{feff}{}", P::new_log(2)));
    let h = p.head(true);
    assert!(!h.ok && !h.written && h.message.contains("bom"), "{h:#?}");
    p.fs.file(LOG, "");
    let h = p.head(true);
    assert!(!h.ok && !h.written, "{h:#?}");
    // nothing at all: nothing to anchor, and fine
    p.fs.files.remove(LOG);
    p.fs.files.remove(HEAD);
    let h = p.head(false);
    assert!(h.ok && h.text.is_none() && h.message.contains("nothing to anchor"));
}

impl P {
    /// The log text of a fresh project after `n` writes.
    fn new_log(n: usize) -> String {
        let mut q = P::new();
        q.writes(n);
        q.log()
    }
}

#[test]
fn init_does_not_overwrite_a_head_when_the_log_moved_meanwhile() {
    let mut p = P::new();
    p.writes(2);
    p.fs.files.remove(HEAD);
    let r = p.fs.run(|io| async move {
        io.request(Request::WriteHead {
            path: LOG.into(),
            lock_path: format!("{LOG}.lock"),
            head_path: HEAD.into(),
            text: "x".into(),
            expect_bytes: 1,
            expect_last: sha256_hex(b""),
            stale_ms: 1,
            wait_ms: 1,
            break_ms: 1,
        })
        .await
    });
    assert_eq!(r["error"], "changed");
    assert!(p.fs.read(HEAD).is_none());
}

#[test]
fn a_trace_that_cannot_be_written_blocks_changes_until_it_can() {
    let mut p = P::new();
    p.writes(2);
    // another process keeps the lock: the host gives up
    p.fs.fail_append = true;
    p.fs.fail_with = Some("lock timeout".into());
    let r = p.write("a.ts").unwrap();
    assert!(!r.recorded);
    assert!(
        r.logs.iter().any(|l| l.message.contains("lock timeout")
            && l.message.contains("changes in this project are blocked")),
        "{r:?}"
    );
    // the next change is blocked, with a reason for the model, and so is a shell command
    let m = p.write("b.ts").unwrap_err();
    assert!(
        m.contains("Agent Trace could not be written (lock timeout)")
            && m.contains(".orchestration/agent_trace.jsonl.lock")
            && m.contains("1 record(s) wait"),
        "{m}"
    );
    let g = p.before("bash", json!({"command": "echo hi > src/c.ts"}));
    assert!(g.block.unwrap().contains("could not be written"));
    // other errors say what to fix
    p.fs.fail_with = Some("EACCES: permission denied".into());
    let m = p.write("b.ts").unwrap_err();
    assert!(m.contains("EACCES") && m.contains("writable"), "{m}");
    // reads are not blocked
    assert!(p
        .before("read", json!({"filePath": "src/f0.ts"}))
        .block
        .is_none());
    // once the trace can be written, the waiting record goes first, then the call proceeds
    p.fs.fail_append = false;
    let r = p.write("b.ts").unwrap();
    assert!(r.recorded, "{r:?}");
    let files: Vec<String> = p
        .lines()
        .iter()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["files"][0]["path"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(files, ["src/f0.ts", "src/f1.ts", "src/a.ts", "src/b.ts"]);
    let v = p.verify();
    assert!(v.report.ok && v.report.lines == 4, "{v:#?}");
}

#[test]
fn a_record_that_fails_in_tool_after_is_written_by_the_next_tool_after() {
    // a tool.after without its tool.before records nothing (issue 29); the next gated call
    // writes the queue first
    let mut p = P::new();
    p.writes(1);
    p.fs.fail_append = true;
    let r = p.write("a.ts").unwrap();
    assert!(!r.recorded);
    p.fs.fail_append = false;
    p.calls += 1;
    p.fs.file("/w/src/y.ts", "y\n");
    let r = p.after("write", json!({"filePath": "src/y.ts", "content": "y\n"}));
    assert!(!r.recorded, "never gated: {r:?}");
    let args = json!({"filePath": "src/z.ts", "content": "z\n"});
    p.fs.file("/w/src/z.ts", "");
    let b = p.before("write", args.clone());
    assert!(b.block.is_none(), "{b:?}");
    assert!(b.logs.iter().any(|l| l.message.contains("written late")), "{b:?}");
    p.fs.file("/w/src/z.ts", "z\n");
    let r = p.after("write", args);
    assert!(r.recorded, "{r:?}");
    assert_eq!(p.lines().len(), 3);
    assert!(p.verify().report.ok);
}

#[test]
fn verification_is_bounded_by_counting_reads() {
    // a log and head that disagree are read again a bounded number of times
    let mut p = P::new();
    p.writes(3);
    let l = p.lines();
    p.set_lines(&l[..2]);
    p.fs.log.clear();
    let v = p.verify();
    assert!(!v.report.ok);
    let reads =
        p.fs.log
            .iter()
            .filter(|r| matches!(r, Request::ReadFile { path, .. } if path == LOG))
            .count();
    assert_eq!(reads, 3);
    // an intact log is read once
    let mut p = P::new();
    p.writes(3);
    p.fs.log.clear();
    assert!(p.verify().report.ok);
    let reads =
        p.fs.log
            .iter()
            .filter(|r| matches!(r, Request::ReadFile { path, .. } if path == LOG))
            .count();
    assert_eq!(reads, 1);
    let _ = HEAD_FILE;
}

#[test]
fn any_change_to_the_log_or_its_head_fails_verification() {
    // 600 seeded random edits as an attacker with a text editor would make them: every one that
    // changes a byte of the log or of its head is caught.
    let mut p = P::new();
    p.writes(6);
    let log = p.log();
    let head = p.fs.read(HEAD).unwrap().to_string();
    let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15);
    let mut tried = 0;
    for round in 0..600 {
        let target_head = round % 5 == 4;
        let orig = if target_head { &head } else { &log };
        let chars: Vec<char> = orig.chars().collect();
        let mut c = chars.clone();
        match next(7) {
            0 => {
                let i = next(c.len());
                c[i] = ['a', '0', '"', '\n', ' ', 'é', '}'][next(7)];
            }
            1 => {
                let i = next(c.len());
                let n = 1 + next(40);
                c.drain(i..(i + n).min(c.len()));
            }
            2 => {
                let i = next(c.len() + 1);
                c.insert(i, ['x', '\n', '\u{feff}', ' '][next(4)]);
            }
            3 => c.truncate(next(c.len())),
            4 => c.extend("{\"x\":1}\n".chars()),
            5 => {
                // a whole line moved, copied or dropped
                let mut lines: Vec<String> = orig.lines().map(str::to_string).collect();
                let i = next(lines.len());
                let j = next(lines.len());
                match next(3) {
                    0 => lines.swap(i, j),
                    1 => lines.insert(j, lines[i].clone()),
                    _ => {
                        lines.remove(i);
                    }
                }
                c = lines
                    .iter()
                    .flat_map(|l| format!("{l}\n").chars().collect::<Vec<_>>())
                    .collect();
            }
            _ => c.insert(0, '\u{feff}'),
        }
        let changed: String = c.into_iter().collect();
        if changed == *orig {
            continue;
        }
        tried += 1;
        p.fs.file(LOG, &log);
        p.fs.file(HEAD, &head);
        p.fs.file(if target_head { HEAD } else { LOG }, &changed);
        let v = p.verify();
        assert!(!v.report.ok, "round {round}: undetected change\n{changed}");
    }
    assert!(tried > 500, "{tried}");
    p.fs.file(LOG, &log);
    p.fs.file(HEAD, &head);
    assert!(p.verify().report.ok);
}

/// A torn last line (an interrupted write) is repaired by the next append: its bytes moved to
/// `agent_trace.jsonl.torn-<time>`, the move recorded in the chain, the record chained after
/// it, the head kept: `verify` tells the truth before and after, and the chain goes on.
#[test]
fn a_torn_last_line_is_quarantined_and_recorded_by_the_next_append() {
    let mut p = P::new();
    p.writes(2);
    let orig = p.log();
    let torn = "{\"version\":\"0.1.0\",\"id\":\"cut-sh";
    p.fs.file(LOG, &format!("{orig}{torn}"));
    fails_with(&p.verify(), 3, "torn");
    p.writes(1);
    let v = p.verify();
    assert!(v.report.ok && v.report.lines == 4, "{v:#?}");
    let lines = p.lines();
    assert_eq!(format!("{}\n{}\n", lines[0], lines[1]), orig);
    let repair: Value = serde_json::from_str(&lines[2]).unwrap();
    let meta = &repair["metadata"]["dev.hookwise"];
    let name = meta["repair"]["quarantined"].as_str().unwrap();
    assert!(name.starts_with("agent_trace.jsonl.torn-"), "{repair}");
    assert_eq!(meta["repair"]["bytes"], torn.len());
    assert_eq!(meta["repair"]["sha256"], sha256_hex(torn.as_bytes()));
    assert_eq!(repair["files"], json!([]));
    assert_eq!(meta["tool"], "hookwise");
    assert_eq!(p.fs.read(&format!("/w/.orchestration/{name}")), Some(torn));
    let head = Head::parse(p.fs.read(HEAD).unwrap()).unwrap();
    assert_eq!(head.records, 4);
    // and the chain goes on
    p.writes(1);
    assert!(p.verify().report.ok);
}

//! What governance reads to record a change and to verify the record: the line ranges of an
//! edit or a patch in the file as written (`governance::ranges`), the mutation class
//! (`governance::classify`), the trace file (`governance::chain::verify`), the repository's
//! HEAD files (`governance::git`). The file texts are the model's; the trace and `.git` may be
//! hostile. All total; every range lies in the file and hashes its own lines.

use hookwise::governance::patch::{self, FileOp};
use hookwise::governance::ranges::{self, content_hash, split_lines, Range};
use hookwise::governance::{chain, classify, git};
use proptest::prelude::*;

use crate::common::{check, lines_from, mutate_str, nasty_string};

const CODE: &[&str] = &[
    "fn a() {}",
    "pub fn b(x: u32) {",
    "}",
    "class C:",
    "    def m(self):",
    "export const k = 1;",
    "impl Display for Foo {",
    "// fn commented()",
    "let x = 1;",
    "a",
    "b",
    "",
    " ",
    "\t",
    "\r",
    "é",
];

fn file() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => lines_from(CODE),
        1 => mutate_str(lines_from(CODE)),
        1 => nasty_string(),
    ]
}

fn well_formed(r: &[Range], after: &str) -> Result<(), TestCaseError> {
    let lines = split_lines(after);
    let mut last_end = 0;
    for x in r {
        prop_assert!(x.start_line >= 1 && x.start_line <= x.end_line, "{x:?}");
        prop_assert!(
            x.end_line <= lines.len(),
            "{x:?} past {} lines",
            lines.len()
        );
        prop_assert!(
            x.start_line > last_end,
            "ranges overlap or are out of order"
        );
        last_end = x.end_line;
        prop_assert_eq!(
            &x.content_hash,
            &content_hash(&lines[x.start_line - 1..x.end_line])
        );
    }
    Ok(())
}

/// `before` with the piece at `at` of length `len` (clamped to char boundaries) replaced by
/// `new`: what an edit tool writes.
fn apply(before: &str, at: usize, len: usize, new: &str) -> (String, String) {
    let mut a = at.min(before.len());
    while !before.is_char_boundary(a) {
        a -= 1;
    }
    let mut b = (a + len).min(before.len());
    while !before.is_char_boundary(b) {
        b -= 1;
    }
    let old = before[a..b].to_string();
    (old, format!("{}{}{}", &before[..a], new, &before[b..]))
}

#[test]
fn edit_ranges_lie_in_the_file_and_cover_the_new_text() {
    check(
        "ranges: edit / edits / whole / changed_block",
        384,
        (
            file(),
            0usize..400,
            0usize..40,
            prop_oneof![nasty_string(), lines_from(CODE)],
            any::<bool>(),
        ),
        |(before, at, len, new, all)| {
            let (old, after) = apply(&before, at, len, &new);
            let r = ranges::edit(Some(&before), &after, &old, &new, all);
            well_formed(&r, &after)?;
            // the new text, when it has a line of its own, is covered
            if !new.is_empty() && !all && after.matches(new.as_str()).count() == 1 {
                let at = after.find(new.as_str()).unwrap_or(0);
                let line = after[..at].matches('\n').count() + 1;
                if line <= split_lines(&after).len() {
                    prop_assert!(
                        r.iter().any(|x| x.start_line <= line && line <= x.end_line),
                        "line {line} not in {r:?}"
                    );
                }
            }
            well_formed(&ranges::edit(None, &after, &old, &new, all), &after)?;
            well_formed(
                &ranges::edits(Some(&before), &after, &[(&old, &new), (&new, &old)]),
                &after,
            )?;
            well_formed(&ranges::whole(&after), &after)?;
            well_formed(&ranges::changed_block(&before, &after), &after)?;
            let _ = classify::classify(Some(&before), Some(&after));
            let _ = classify::classify(None, Some(&after));
            Ok(())
        },
    );
}

#[test]
fn patch_ranges_lie_in_the_file() {
    check(
        "ranges: patch_update (any hunks, any file)",
        384,
        (
            file(),
            file(),
            prop::collection::vec(
                prop::sample::select(
                    &[
                        "@@",
                        " a",
                        "+b",
                        "-a",
                        " fn a() {}",
                        "+fn z() {}",
                        " ",
                        "+",
                        "",
                    ][..],
                ),
                0..16,
            ),
        ),
        |(before, after, hunk_lines)| {
            let text = format!("*** Update File: x\n{}\n", hunk_lines.join("\n"));
            let Some(FileOp::Update { hunks, .. }) = patch::parse(&text).into_iter().next() else {
                return Ok(());
            };
            well_formed(&ranges::patch_update(Some(&before), &after, &hunks), &after)?;
            if let Some(r) = ranges::patch_hunks(&after, &hunks) {
                well_formed(&r, &after)?;
            }
            Ok(())
        },
    );
}

const TRACE_BITS: &[&str] = &[
    "{\"id\":\"x\",\"metadata\":{\"dev.hookwise\":{\"prev_hash\":\"sha256:",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "\"}}}",
    "{}",
    "[",
    "\u{feff}",
    "null",
    "\r",
];

#[test]
fn any_trace_file_verifies_without_panic() {
    check(
        "chain: verify (any trace text)",
        256,
        prop_oneof![lines_from(TRACE_BITS), mutate_str(lines_from(TRACE_BITS))],
        |text| {
            let r = chain::verify(&text);
            prop_assert!(!r.ok || r.problems.is_empty(), "{r:?}");
            for p in &r.problems {
                prop_assert!(p.line <= text.split('\n').count() + 1, "{p:?}");
            }
            for line in text.lines() {
                if let Some(h) = chain::prev_hash_of(line) {
                    prop_assert!(h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()));
                }
            }
            Ok(())
        },
    );
}

#[test]
fn git_files_parse() {
    check(
        "git: parse_head / parse_gitdir / packed_ref",
        256,
        (
            prop_oneof![
                Just("ref: refs/heads/main\n".to_string()),
                Just("ref: refs/../../etc/passwd".to_string()),
                Just("0123456789abcdef0123456789ABCDEF01234567".to_string()),
                Just("gitdir: ../.git/worktrees/x".to_string()),
                nasty_string(),
                mutate_str(Just("ref: refs/heads/main\n".to_string())),
            ],
            prop_oneof![Just("refs/heads/main".to_string()), nasty_string()],
        ),
        |(text, refname)| {
            match git::parse_head(&text) {
                Some(git::Head::Ref(r)) => {
                    prop_assert!(r.starts_with("refs/") && !r.contains(".."), "{r:?}")
                }
                Some(git::Head::Commit(c)) => prop_assert!(
                    c.len() == 40
                        && c.bytes()
                            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
                    "{c:?}"
                ),
                None => {}
            }
            if let Some(d) = git::parse_gitdir(&text) {
                prop_assert!(!d.is_empty() && text.contains(d));
            }
            if let Some(sha) = git::packed_ref(&text, &refname) {
                prop_assert_eq!(sha.len(), 40);
            }
            Ok(())
        },
    );
}

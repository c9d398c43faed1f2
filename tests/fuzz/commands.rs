//! The command classifier (`enforce::extract` over `enforce::shell`): a strict SOP sees every
//! command a line can run. A forbidden command wrapped in any nesting the reader claims to
//! follow (`sh -c`, `eval`, `$(…)`, backticks, `find -exec`, `xargs`, `git -c core.pager=…`,
//! an alias in `-c`, `GIT_PAGER=…`, `git grep -O`, ssh), at any depth (past the reader's depth
//! it fails closed), with chains around it, makes the SOP fire and the call not read-only; the
//! same text only as a quoted argument of a program that does not run it (a commit message,
//! `echo`, `grep`) does not.

use std::rc::Rc;

use hookwise::enforce::extract::{self, Situation};
use hookwise::enforce::sop;
use hookwise::enforce::Settings;
use proptest::prelude::*;
use serde_json::json;

use crate::common::check;

const SOP: &str = "---\nid: forbidden\ncategory: security\nmatch:\n  tools: [bash]\n  patterns: ['rm\\s+-(rf|fr)\\b', 'git\\s+push\\s.*--force']\n---\n# Forbidden\n";

const FORBIDDEN: &[&str] = &[
    "rm -rf build",
    "rm -fr /tmp/x",
    "git push --force origin main",
    "sudo rm -rf /var/lib/x",
];

fn sq(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn dq(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            o.push('\\');
        }
        o.push(c);
    }
    o.push('"');
    o
}

/// Wrap command line `c` so that running the result runs `c`.
fn wrap(c: &str, how: u8, quote_double: bool) -> String {
    let q = |s: &str| if quote_double { dq(s) } else { sq(s) };
    match how % 17 {
        0 => format!("bash -c {}", q(c)),
        1 => format!("sh -c {}", q(c)),
        2 => format!("sudo -u deploy bash -lc {}", q(c)),
        3 => format!("eval {}", q(c)),
        4 => format!("echo $({c})"),
        5 if !c.contains('`') => format!("echo `{}`", c.replace('\\', "\\\\")),
        6 => format!("find . -name x -exec sh -c {} \\;", q(c)),
        7 => format!("git -c core.pager={} log", q(c)),
        8 => format!("git -c core.fsmonitor={} status", q(c)),
        9 => format!("git -c alias.x={} x", q(&format!("!{c}"))),
        10 => format!("GIT_PAGER={} git log", q(c)),
        11 => format!("ls | xargs sh -c {}", q(c)),
        12 => format!("git grep --open-files-in-pager={} x", q(c)),
        13 => format!("ssh deploy@web1 {}", q(c)),
        14 => format!("true && {c}"),
        15 => format!("{c}; ls -la"),
        _ => format!("cat README.md | {c} || echo done"),
    }
}

fn nested() -> impl Strategy<Value = (String, Vec<(u8, bool)>)> {
    (
        prop::sample::select(FORBIDDEN),
        prop::collection::vec((any::<u8>(), any::<bool>()), 0..7),
    )
        .prop_map(|(f, ws)| {
            let mut c = f.to_string();
            for (how, dbl) in &ws {
                c = wrap(&c, *how, *dbl);
            }
            (c, ws)
        })
}

fn forbidden_sop(settings: &Settings) -> Rc<sop::Sop> {
    Rc::new(sop::parse("sops/f.md", SOP, &settings.sections).unwrap().0)
}

/// What the classifier makes of a bash line.
fn classify(line: &str, settings: &Settings) -> extract::ActionContext {
    extract::extract(
        "bash",
        &json!({ "command": line }),
        &Situation {
            cwd: "/w/shop",
            worktree: "shop",
        },
        &settings.rules,
    )
}

fn fires(line: &str, s: &Rc<sop::Sop>, settings: &Settings) -> (bool, bool) {
    let ctx = classify(line, settings);
    let hay = ctx.haystack.to_lowercase();
    (sop::match_sop(s, &ctx, &hay).is_some(), ctx.read_only)
}

#[test]
fn a_strict_sop_sees_every_command_a_line_can_run() {
    let settings = Settings::default();
    let s = forbidden_sop(&settings);
    check(
        "commands: nested forbidden command fires the SOP",
        256,
        nested(),
        |(line, _)| {
            let (hit, read_only) = fires(&line, &s, &settings);
            prop_assert!(hit, "the SOP did not fire on {line:?}");
            prop_assert!(!read_only, "counted read-only: {line:?}");
            Ok(())
        },
    );
}

#[test]
fn the_same_text_as_data_does_not_fire() {
    let settings = Settings::default();
    let s = forbidden_sop(&settings);
    check(
        "commands: forbidden text as a quoted argument is data",
        256,
        (nested(), 0u8..6),
        |((text, _), how)| {
            let line = match how {
                0 => format!("git commit -m {}", sq(&text)),
                1 => format!("echo {} > NOTES.md", sq(&text)),
                2 => format!("grep -rn {} src", sq(&text)),
                3 => format!("printf '%s\\n' {}", sq(&text)),
                4 => format!("git add -A && git commit -m 'x' -m {}", sq(&text)),
                _ => format!("gh pr create --title t --body {}", sq(&text)),
            };
            let (hit, _) = fires(&line, &s, &settings);
            prop_assert!(!hit, "data tripped the SOP: {line:?}");
            Ok(())
        },
    );
}

/// Commands that read unless an option or operand makes them write a file or run a program
/// (issue 29: `tree -o`, `uniq IN OUT`, `git grep -O`, pagers, `-exec`): with that option, in
/// any chain and any nesting the reader follows, the line is never counted read-only.
const WRITES: &[&str] = &[
    "tree -o README.md",
    "tree -ao README.md .",
    "uniq in.txt README.md",
    "sort -o README.md x",
    "sort --output=README.md x",
    "git diff --output=README.md",
    "git log --output README.md",
    "git -c core.fsmonitor=X status",
    "git -c core.hooksPath=/tmp/h status",
    "git grep --open-files-in-pager=X x",
    "git grep -OX x",
    "find . -name x -exec touch README.md ;",
    "find . -delete",
    "yq -i .a=1 x.yaml",
    "less -o log.txt x",
    "man -P X ls",
    "rg --pre ./conv x",
    "GIT_PAGER=X git log",
    "xxd -r dump README.md",
];

/// Read-only commands to chain around the writing one.
const READS: &[&str] = &["git status", "ls -la", "cat README.md", "grep -rn x src", "pwd"];

#[test]
fn an_option_that_writes_or_runs_is_never_read_only() {
    let settings = Settings::default();
    check(
        "commands: a writing or running option is not read-only",
        256,
        (
            prop::sample::select(WRITES),
            prop::collection::vec((prop::sample::select(READS), 0u8..4), 0..4),
            prop::collection::vec((any::<u8>(), any::<bool>()), 0..4),
        ),
        |(write, around, ws)| {
            let mut line = write.to_string();
            for (r, how) in &around {
                line = match how {
                    0 => format!("{r} && {line}"),
                    1 => format!("{line}; {r}"),
                    2 => format!("{r} | {line}"),
                    _ => format!("{line} || {r}"),
                };
            }
            for (how, dbl) in &ws {
                // the nestings that run their argument (not `echo $(…)` of a read, which is fine)
                line = wrap(&line, *how, *dbl);
            }
            prop_assert!(!classify(&line, &settings).read_only, "counted read-only: {line:?}");
            Ok(())
        },
    );
}

//! Commands classified by what they can do, as an attacker writes them: options that run
//! programs or write files, commands nested in every form the reader claims to follow, and
//! the same text as data that must not trip an SOP.

use std::rc::Rc;

use serde_json::json;

use super::*;
use crate::enforce::config::Settings;
use crate::enforce::sop::{match_sop, parse};

const RM_SOP: &str = "---\nid: no-rm-rf\ncategory: security\nmatch:\n  tools: [bash]\n  patterns: ['rm\\s+-(rf|fr)\\b']\n---\n# Never rm -rf\n";
const PUSH_SOP: &str = "---\nid: git-force-push\ncategory: process\nmatch:\n  tools: [bash]\n  patterns: ['git\\s+push\\s.*(--force|-f\\b)']\n  commands: ['git push --force']\n---\n# Force-pushing\n";

fn ctx(cmd: &str) -> ActionContext {
    extract(
        "bash",
        &json!({ "command": cmd }),
        &Situation {
            cwd: "/w/shop",
            worktree: "shop",
        },
        &Settings::default().rules,
    )
}

fn fires(sop: &str, cmd: &str) -> bool {
    let s = Rc::new(
        parse("sops/x.md", sop, &Settings::default().sections)
            .unwrap()
            .0,
    );
    let c = ctx(cmd);
    match_sop(&s, &c, &c.haystack.to_lowercase()).is_some()
}

#[test]
fn options_that_run_programs_make_a_command_executing() {
    for cmd in [
        "git grep --open-files-in-pager='rm -rf build' x",
        "git grep -O'rm -rf build' x",
        "git -c core.fsmonitor='rm -rf build' status",
        "git -c core.pager='rm -rf build' log",
        "git -c alias.st='!rm -rf build' st",
        "git -ccore.pager='rm -rf build' diff",
        "GIT_PAGER='rm -rf build' git log",
        "PAGER='rm -rf build' man ls",
        "env EDITOR='rm -rf build' git status",
        "find . -name x -exec rm -rf {} +",
        "find . -execdir sh -c 'rm -rf \"$1\"' _ {} \\;",
        "eval 'rm -rf build'",
        "ls | xargs rm -rf",
        "awk 'BEGIN { system(\"rm -rf build\") }'",
        "perl -e 'system(\"rm -rf build\")'",
        "python3 -c \"import os; os.system('rm -rf build')\"",
        "watch -n 1 'rm -rf build'",
        "su -c 'rm -rf build' root",
        "echo $(rm -rf build)",
        "echo `rm -rf build`",
        "bash -c \"sh -c 'rm -rf build'\"",
        "ssh host 'rm -rf build'",
        "git ls-remote --upload-pack='rm -rf build' origin",
        "git rebase -x 'rm -rf build' main",
    ] {
        let c = ctx(cmd);
        assert!(!c.read_only, "{cmd} counted as read-only");
        assert!(
            fires(RM_SOP, cmd),
            "{cmd}: the rm -rf SOP did not fire\n{}",
            c.haystack
        );
    }
}

#[test]
fn options_and_operands_that_write_files_are_not_read_only() {
    for cmd in [
        "tree -o README.md",
        "tree -ao README.md .",
        "uniq in.txt README.md",
        "xxd -r dump README.md",
        "yq -i '.a = 1' x.yaml",
        "yq eval -i '.a = 1' x.yaml",
        "sort -o README.md x",
        "less -o log.txt x",
        "git diff --output=README.md",
        "git log --output README.md",
        "git reflog expire --expire=now --all",
        "git -c core.hooksPath=/tmp/h status",
        "git --config-env=core.pager=X log",
        "git --git-dir=/tmp/evil status",
        "PATH=/tmp/evil:$PATH git status",
        "LD_PRELOAD=/tmp/x.so ls",
        "man -P 'sh -c id' ls",
        "rg --pre ./conv x",
        "journalctl --vacuum-time=1s",
        "date -s 2020-01-01",
        "export GIT_PAGER='rm -rf x'",
        "awk '{ print > \"out\" }' x",
        "python3 script.py",
        "node",
    ] {
        assert!(!ctx(cmd).read_only, "{cmd} counted as read-only");
    }
}

#[test]
fn what_only_reads_still_takes_the_fast_path() {
    for cmd in [
        "git status",
        "git log --oneline",
        "git -C /srv/app log -5",
        "git diff HEAD~1 -- src",
        "git grep -n foo",
        "grep -r x src",
        "tree -L 2",
        "uniq -c x.txt",
        "sort -u x | uniq",
        "yq '.a' x.yaml",
        "find . -name '*.rs'",
        "cat README.md | head -5",
        "git show HEAD:README.md",
        "ls -la && pwd",
    ] {
        assert!(ctx(cmd).read_only, "{cmd} is no longer read-only");
    }
}

#[test]
fn quoted_arguments_are_data_unless_a_program_runs_them() {
    for cmd in [
        "git commit -m \"never git push --force to main\"",
        "git commit -m 'x' -m \"git push -f is forbidden\"",
        "echo 'git push --force' > NOTES.md",
        "grep -r 'git push --force' docs",
        "printf '%s\\n' 'git push --force'",
        "gh pr create --body 'do not git push --force'",
        "git add -A && git commit -m 'docs: git push --force is blocked'",
        "bash -c \"git commit -m 'never git push --force'\"",
        "cat > NOTES.md <<'EOF'\nnever git push --force\nEOF",
        "git -c user.name='Jane Doe' commit -m 'never git push --force'",
        "GIT_AUTHOR_NAME='Jane Doe' git commit -m 'never git push --force'",
    ] {
        assert!(
            !fires(PUSH_SOP, cmd),
            "{cmd}: data tripped the SOP\n{}",
            ctx(cmd).haystack
        );
    }
    for cmd in [
        "git push --force origin main",
        "git commit -m x && git push --force",
        "echo 'git push --force' | sh",
        "echo 'git push --force' | bash",
        "python3 -c \"import os; os.system('git push --force')\"",
        "sh -c 'git push --force'",
        "git -c alias.p='!git push --force' p",
        "GIT_EDITOR='git push --force' git commit",
        "cat x | xargs -I{} sh -c 'git push --force {}'",
        "sh <<'EOF'\ngit push --force\nEOF",
    ] {
        assert!(
            fires(PUSH_SOP, cmd),
            "{cmd}: the SOP did not fire\n{}",
            ctx(cmd).haystack
        );
    }
}

#[test]
fn nesting_past_the_reader_fails_closed() {
    let mut line = "rm -rf build".to_string();
    for _ in 0..8 {
        line = format!("bash -c '{}'", line.replace('\'', r"'\''"));
    }
    let c = ctx(&line);
    assert!(!c.read_only);
    assert_eq!(c.risk, Risk::Critical);
    assert!(c
        .risk_reasons
        .iter()
        .any(|r| r == "commands nested deeper than hookwise reads"));
    assert!(
        fires(PUSH_SOP, &line),
        "an SOP naming commands applies to what cannot be read"
    );
    let c = ctx(&"echo $(".repeat(400));
    assert_eq!(c.risk, Risk::Critical);
}

//! One shell segment: its canonical form, its risk, whether it only reads, its subcommand
//! and its salient flags.

use super::tables::*;
use super::*;

/// `program args…` of a segment (after wrappers), then its here-document on later lines.
pub fn canonical(seg: &Segment) -> String {
    command_line(seg, false)
}

/// `program args…` as SOPs and risk patterns see it: with `data`, an argument holding
/// whitespace (a quoted string: a commit message, an `echo`'s text) is shown as `'…'`, so a
/// pattern matches the command, not the text it carries (`git commit -m "never git push
/// --force"` is a commit). Whatever a program runs of its arguments was read as segments of
/// their own ([`crate::enforce::shell::effects`]).
pub fn command_line(seg: &Segment, data: bool) -> String {
    let shown = |w: &str| -> String {
        if data && w.chars().any(char::is_whitespace) {
            "'…'".to_string()
        } else {
            w.to_string()
        }
    };
    match seg.command_start() {
        Some((start, _)) if !seg.truncated => {
            let mut s = basename(&seg.words[start]).to_string();
            for w in &seg.words[start + 1..] {
                s.push(' ');
                s.push_str(&shown(w));
            }
            s
        }
        _ => seg.words.join(" "),
    }
}

/// May the quoted arguments of this line be read as data? Only when every command in it is
/// one whose arguments are known not to run (a read-only program, git, the file utilities), or
/// a shell whose `-c` body was read as commands of its own: `echo "rm -rf x" | sh` and
/// `python -c "…"` keep their text.
pub fn arguments_are_data(segs: &[Segment]) -> bool {
    segs.iter().all(|seg| {
        if seg.truncated {
            return false;
        }
        let Some((start, _)) = seg.command_start() else {
            return true;
        };
        let prog = basename(&seg.words[start]);
        DATA_PROGRAMS.contains(&prog)
            || READ_ONLY_PROGRAMS.contains(&prog)
            || prog == "eval"
            || (crate::enforce::shell::shell_c_body(&seg.words).is_some())
    })
}

pub(super) fn segment_risk(
    seg: &Segment,
    canon: &str,
    heredoc: bool,
    rules: &Rules,
) -> (Risk, Vec<String>) {
    let mut risk = Risk::Low;
    let mut why = Vec::new();
    let text = if seg.heredoc.is_empty() || !heredoc {
        canon.to_string()
    } else {
        format!("{canon}\n{}", seg.heredoc)
    };
    for p in rules
        .risk_patterns
        .iter()
        .filter(|p| p.scope == Scope::Command)
    {
        if p.regex.is_match(&text) {
            raise(&mut risk, &mut why, p.level, &p.name);
        }
    }
    if let Some(h) = &seg.remote_host {
        let host = host_of_destination(h);
        if rules.prod_hosts.iter().any(|r| r.is_match(&host)) && risk > Risk::Low {
            raise(
                &mut risk,
                &mut why,
                Risk::Critical,
                &format!("{} on production host {host}", short(canon)),
            );
        }
    }
    (risk, why)
}

pub(super) fn short(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// A segment that only reads: a read-only program or subcommand, no output to a file, no
/// command substitution.
pub fn segment_read_only(seg: &Segment, rules: &Rules) -> bool {
    !seg.has_substitution
        && seg.writes.iter().all(|w| {
            matches!(
                w.as_str(),
                "/dev/null" | "/dev/stdout" | "/dev/stderr" | "-"
            )
        })
        && command_read_only(seg, rules)
}

/// The program and subcommand only read (whatever the redirections and substitutions).
pub fn command_read_only(seg: &Segment, rules: &Rules) -> bool {
    if seg.executes || seg.writes_by_option || seg.truncated {
        return false; // `git -c core.pager=…`, `tree -o f`, `GIT_PAGER=… git log`
    }
    let Some((start, _)) = seg.command_start() else {
        return true; // assignments only
    };
    let prog = basename(&seg.words[start]);
    let rest = &seg.words[start + 1..];
    // configured prefixes
    let words: Vec<&str> = std::iter::once(prog)
        .chain(rest.iter().map(String::as_str))
        .collect();
    if rules.read_only.iter().any(|p| {
        !p.is_empty() && p.len() <= words.len() && p.iter().zip(&words).all(|(a, b)| a == b)
    }) {
        return true;
    }
    if rest.len() == 1
        && matches!(
            rest[0].as_str(),
            "--version" | "-V" | "--help" | "-h" | "version"
        )
    {
        return true;
    }
    match prog {
        "find" => {
            return !rest.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "-delete"
                        | "-exec"
                        | "-execdir"
                        | "-ok"
                        | "-okdir"
                        | "-fprint"
                        | "-fprint0"
                        | "-fprintf"
                        | "-fls"
                )
            })
        }
        "sort" => return !rest.iter().any(|w| w == "-o" || w.starts_with("--output")),
        "hostname" => {
            return rest
                .iter()
                .all(|w| w.starts_with('-') && w != "-F" && w != "--file")
        }
        "env" | "printenv" if start + 1 < seg.words.len() && prog == "env" => return false,
        _ => {}
    }
    if READ_ONLY_PROGRAMS.contains(&prog) {
        return true;
    }
    if prog == "git" {
        let sub = subcommand("git", rest);
        let args: Vec<&str> = positional_after_sub("git", rest);
        match sub.as_deref() {
            Some("branch") => {
                return rest.iter().skip(1).all(|w| {
                    matches!(
                        w.as_str(),
                        "-a" | "-r"
                            | "-v"
                            | "-vv"
                            | "--list"
                            | "-l"
                            | "--show-current"
                            | "--all"
                            | "--remotes"
                            | "--merged"
                            | "--no-merged"
                            | "--contains"
                    )
                })
            }
            Some("remote") => {
                return args
                    .iter()
                    .all(|w| matches!(*w, "-v" | "--verbose" | "show" | "get-url"))
            }
            Some("tag") => return args.iter().all(|w| matches!(*w, "-l" | "--list" | "-n")),
            Some("config") => {
                return rest.iter().any(|w| {
                    matches!(
                        w.as_str(),
                        "--get" | "--get-all" | "--list" | "-l" | "--get-regexp"
                    )
                })
            }
            _ => {}
        }
    }
    let Some((_, subs)) = READ_ONLY_SUBCOMMANDS.iter().find(|(p, _)| *p == prog) else {
        return false;
    };
    let Some(sub) = subcommand(prog, rest) else {
        return false;
    };
    subs.iter().any(|s| match s.strip_prefix("* ") {
        Some(prefix) => sub
            .split(' ')
            .nth(1)
            .is_some_and(|op| op.starts_with(prefix)),
        None => {
            sub == *s
                || (prog == "redis-cli" && sub.eq_ignore_ascii_case(s))
                || sub.starts_with(&format!("{s} "))
        }
    })
}

pub(super) fn positional_after_sub<'a>(program: &str, rest: &'a [String]) -> Vec<&'a str> {
    let spec = SUB_SPECS.iter().find(|s| s.program == program);
    let (short, long) = spec.map(|s| (s.short, s.long)).unwrap_or(("", &[]));
    let i = skip_opts(rest, 0, short, long);
    rest.iter().skip(i + 1).map(String::as_str).collect()
}

pub(super) fn skip_opts(words: &[String], mut i: usize, short: &str, long: &[&str]) -> usize {
    while let Some(w) = words.get(i) {
        if let Some(l) = w.strip_prefix("--") {
            i += 1;
            if !l.is_empty() && !l.contains('=') && long.contains(&l) {
                i += 1;
            }
            continue;
        }
        if w.len() > 1 && w.starts_with('-') {
            i += 1;
            let flags: Vec<char> = w[1..].chars().collect();
            if flags.len() == 1 && short.contains(flags[0]) {
                i += 1;
            }
            continue;
        }
        break;
    }
    i
}

/// The subcommand of a program with subcommands (`push`, `compose up`, `s3 rm`).
pub fn subcommand(program: &str, rest: &[String]) -> Option<String> {
    subcommand_at(program, rest).0
}

/// The subcommand and the index in `rest` after it (0 when there is none).
pub(super) fn subcommand_at(program: &str, rest: &[String]) -> (Option<String>, usize) {
    let Some(spec) = SUB_SPECS.iter().find(|s| s.program == program) else {
        return (None, 0);
    };
    let i = skip_opts(rest, 0, spec.short, spec.long);
    let Some(first) = rest.get(i) else {
        return (None, 0);
    };
    if first.contains('/') || first.contains('=') {
        return (None, 0);
    }
    if !(spec.two_words)(first) {
        return (Some(first.clone()), i + 1);
    }
    let (short, long): (&str, &[&str]) = if program == "docker" && first == "compose" {
        (
            "fp",
            &[
                "file",
                "project-name",
                "env-file",
                "profile",
                "project-directory",
                "ansi",
                "progress",
            ],
        )
    } else {
        (spec.short, spec.long)
    };
    let j = skip_opts(rest, i + 1, short, long);
    match rest.get(j) {
        Some(second) if !second.contains('/') => (Some(format!("{first} {second}")), j + 1),
        _ => (Some(first.clone()), i + 1),
    }
}

pub(super) fn salient_flags(program: &str, rest: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if program == "rm" {
        let mut r = false;
        let mut f = false;
        for w in rest.iter().filter(|w| w.starts_with('-')) {
            match w.as_str() {
                "--recursive" => r = true,
                "--force" => f = true,
                s if !s.starts_with("--") => {
                    r |= s.contains('r') || s.contains('R');
                    f |= s.contains('f');
                }
                _ => {}
            }
        }
        match (r, f) {
            (true, true) => out.push("-rf".into()),
            (true, false) => out.push("-r".into()),
            (false, true) => out.push("-f".into()),
            _ => {}
        }
        return out;
    }
    for w in rest {
        let flag = w.split('=').next().unwrap_or(w);
        let short = SALIENT_SHORT
            .iter()
            .any(|(p, f)| *p == program && f.contains(&flag));
        if (short || SALIENT_FLAGS.contains(&flag)) && !out.iter().any(|o| o == flag) {
            out.push(flag.to_string());
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

//! What a simple command can do besides what its program's name says: the shell text it runs
//! (`sh -c`, `eval`, `find -exec`, `git -c core.pager=…`, `GIT_PAGER=…`, `watch`, `su -c`,
//! string literals of inline interpreter code), whether it runs code at all beyond its program
//! (those, plus `git -c`, `--config-env`, `PATH=`/`LD_PRELOAD=`/`GIT_*=` assignments, inline
//! interpreter code) and whether an option makes it write a file (`tree -o`, `uniq IN OUT`,
//! `yq -i`, `git diff --output`, `less -o`, `journalctl --vacuum-*`, …).
//!
//! Data only plus small readers; the segment splitter ([`super::split`]) reads the bodies as
//! nested segments and [`crate::enforce::extract`] counts a segment that executes or writes as
//! not read-only, whatever its program.

use super::{basename, command_start, is_assignment, SHELLS};

/// Environment variables whose value is a command some program runs.
const COMMAND_VARS: &[&str] = &[
    "PAGER",
    "MANPAGER",
    "GIT_PAGER",
    "SYSTEMD_PAGER",
    "EDITOR",
    "VISUAL",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
    "LESSOPEN",
    "LESSCLOSE",
    "PROMPT_COMMAND",
];

/// Does assigning `name` change which code runs? (`PATH`, a preload, any `GIT_*`, a pager or
/// an editor, a shell's start-up file.)
fn executing_var(name: &str) -> bool {
    COMMAND_VARS.contains(&name)
        || name.starts_with("GIT_")
        || name.ends_with("PAGER")
        || name.ends_with("EDITOR")
        || matches!(
            name,
            "PATH"
                | "LD_PRELOAD"
                | "LD_LIBRARY_PATH"
                | "LD_AUDIT"
                | "BASH_ENV"
                | "ENV"
                | "PYTHONSTARTUP"
                | "NODE_OPTIONS"
                | "PERL5OPT"
                | "RUBYOPT"
        )
}

/// Interpreters and the options whose value is inline code (awk: its first operand).
const INLINE_CODE: &[(&str, &[&str])] = &[
    ("perl", &["-e", "-E"]),
    ("python", &["-c"]),
    ("python2", &["-c"]),
    ("python3", &["-c"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("bun", &["-e", "--eval", "-p", "--print"]),
    ("deno", &["eval"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("osascript", &["-e"]),
    ("pwsh", &["-c", "-Command"]),
];
const AWKS: &[&str] = &["awk", "gawk", "mawk", "nawk", "busybox"];

/// Options that make a program write a file or run another one, by program. A two-character
/// entry (`-o`) also matches inside a cluster of short flags (`-ao`) and glued (`-ofile`); a
/// long one matches as `--opt` and `--opt=…`.
const OPTION_EFFECTS: &[(&str, &[&str])] = &[
    ("tree", &["-o", "-R"]),
    ("sort", &["-o", "--output", "--compress-program"]),
    ("less", &["-o", "-O", "--log-file", "--LOG-FILE"]),
    ("more", &[]),
    ("man", &["-P", "--pager", "-H", "--html"]),
    ("rg", &["--pre"]),
    ("ag", &["--pager"]),
    ("ack", &["--pager", "--output"]),
    ("yq", &["-i", "--inplace"]),
    (
        "journalctl",
        &[
            "--vacuum-size",
            "--vacuum-time",
            "--vacuum-files",
            "--rotate",
            "--flush",
            "--setup-keys",
            "--relinquish-var",
            "--sync",
            "--update-catalog",
        ],
    ),
    ("date", &["-s", "--set"]),
    ("file", &["-C", "--compile"]),
    ("history", &["-c", "-w", "-a", "-r", "-d", "-n", "-s"]),
    ("ss", &["-K", "--kill"]),
    ("helm", &["--output-dir"]),
    ("terraform", &["-out", "-state-out"]),
    ("tofu", &["-out", "-state-out"]),
    ("docker", &["-o", "--output"]),
    ("hostname", &["-F", "--file", "-b", "--boot"]),
    ("diff", &["--to-file"]),
    ("dig", &[]),
];

/// Programs that write their second operand (`uniq IN OUT`, `xxd IN OUT`).
const SECOND_OPERAND_WRITES: &[&str] = &["uniq", "xxd"];

/// What one simple command can do beyond its program's name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects {
    /// Shell text the command runs: read as nested segments.
    pub bodies: Vec<String>,
    /// It runs code besides its program (a body, inline interpreter code, a config or an
    /// environment that names a program).
    pub executes: bool,
    /// An option or operand makes it write a file.
    pub writes: bool,
}

/// The effects of the simple command `words` (after quote removal).
pub fn effects(words: &[String]) -> Effects {
    let mut e = Effects::default();
    if let Some(body) = shell_c_body(words) {
        e.bodies.push(body);
        e.executes = true;
    }
    let start = command_start(words).map(|(i, _)| i);
    // assignments (`GIT_PAGER=… git log`, `env PAGER=… man x`, `export EDITOR=…`)
    let assigns_end = start.unwrap_or(words.len());
    let export = start.is_some_and(|s| {
        matches!(
            basename(&words[s]),
            "export" | "declare" | "typeset" | "readonly" | "local"
        )
    });
    let assign_words = words[..assigns_end]
        .iter()
        .chain(words.iter().skip(assigns_end + 1).filter(|_| export));
    for w in assign_words.filter(|w| is_assignment(w)) {
        let (name, value) = w.split_once('=').unwrap_or((w, ""));
        if executing_var(name) {
            e.executes = true;
            let command =
                COMMAND_VARS.contains(&name) || name.ends_with("PAGER") || name.ends_with("EDITOR");
            if command && !value.is_empty() {
                e.bodies.push(value.to_string());
            }
        }
    }
    let Some(start) = start else {
        return e;
    };
    let prog = basename(&words[start]);
    let rest = &words[start + 1..];
    match prog {
        "eval" => {
            e.executes = true;
            e.bodies.push(rest.join(" "));
        }
        "find" => find_exec(rest, &mut e),
        "git" => git(rest, &mut e),
        "watch" => {
            e.executes = true;
            let i = skip_short(rest, "nd");
            e.bodies.push(rest[i.min(rest.len())..].join(" "));
        }
        "su" | "runuser" | "script" | "flock" => {
            if let Some(b) = option_value(rest, &["-c", "--command"]) {
                e.executes = true;
                e.bodies.push(b);
            }
        }
        "xargs" | "parallel" => e.executes = true,
        _ => {}
    }
    if let Some((_, opts)) = INLINE_CODE.iter().find(|(p, _)| interpreter(prog, p)) {
        let code = option_value(rest, opts);
        if code.is_some() || rest.iter().any(|w| !w.starts_with('-')) || rest.is_empty() {
            e.executes = true; // inline code, a script, or a program read from stdin
        }
        if let Some(code) = code {
            e.bodies.extend(literals(&code));
        }
    }
    if AWKS.contains(&prog) {
        if let Some(code) = awk_program(rest) {
            if code.contains("system")
                || code.contains('|')
                || code.contains('>')
                || code.contains("getline")
            {
                e.executes = true;
                e.writes |= code.contains('>');
                e.bodies.extend(literals(&code));
            }
        } else {
            e.executes = true; // `-f prog.awk`: code the reader cannot see
        }
    }
    if let Some((_, opts)) = OPTION_EFFECTS.iter().find(|(p, _)| *p == prog) {
        if rest.iter().any(|w| opts.iter().any(|o| option_is(w, o))) {
            e.writes = true;
        }
    }
    if SECOND_OPERAND_WRITES.contains(&prog)
        && rest
            .iter()
            .filter(|w| !w.starts_with('-') || w.as_str() == "-")
            .count()
            >= 2
    {
        e.writes = true;
    }
    e
}

/// `python3.12` is `python3`; `/usr/bin/perl5.36` is `perl`.
fn interpreter(prog: &str, name: &str) -> bool {
    prog == name
        || prog
            .strip_prefix(name)
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// Does word `w` give option `o` (`-o`, `-ofile`, `-ao`, `--output`, `--output=f`)?
fn option_is(w: &str, o: &str) -> bool {
    if o.starts_with("--") || o.len() > 2 {
        return w == o || w.strip_prefix(o).is_some_and(|r| r.starts_with('='));
    }
    let Some(flag) = o.strip_prefix('-').and_then(|f| f.chars().next()) else {
        return false;
    };
    w.starts_with('-') && !w.starts_with("--") && w[1..].contains(flag)
}

/// The value of the first of `opts` in `words` (`-c CODE`, `-cCODE`, `--eval=CODE`).
fn option_value(words: &[String], opts: &[&str]) -> Option<String> {
    for (i, w) in words.iter().enumerate() {
        for o in opts {
            if w == o {
                return words.get(i + 1).cloned();
            }
            if let Some(r) = w.strip_prefix(o) {
                if let Some(v) = r.strip_prefix('=') {
                    return Some(v.to_string());
                }
                if o.len() == 2 && !o.starts_with("--") && !r.is_empty() {
                    return Some(r.to_string());
                }
            }
        }
    }
    None
}

/// The index after leading short options taking a value from `with_value`.
fn skip_short(words: &[String], with_value: &str) -> usize {
    let mut i = 0;
    while let Some(w) = words.get(i) {
        if !w.starts_with('-') {
            break;
        }
        i += 1;
        let last = w.chars().last().unwrap_or('-');
        if !w.starts_with("--") && w.len() == 2 && with_value.contains(last) {
            i += 1;
        }
    }
    i
}

/// `find … -exec CMD … ;` and its kin: each command is a body; `-delete` and `-fprint…` write.
fn find_exec(rest: &[String], e: &mut Effects) {
    let mut i = 0;
    while i < rest.len() {
        match rest[i].as_str() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                e.executes = true;
                let mut j = i + 1;
                let mut cmd = Vec::new();
                while j < rest.len() && rest[j] != ";" && rest[j] != "+" {
                    cmd.push(quote(&rest[j]));
                    j += 1;
                }
                e.bodies.push(cmd.join(" "));
                i = j;
            }
            "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls" => e.writes = true,
            _ => {}
        }
        i += 1;
    }
}

/// git's options that run programs: `-c key=value` (the value may be a command: a pager, a
/// fsmonitor hook, an alias `!cmd`), `--config-env`, `--exec-path=`, and per subcommand
/// `grep -O`, `ls-remote --upload-pack`, `rebase --exec`, `bisect run`, `submodule foreach`,
/// `difftool --extcmd`; `--output` writes.
fn git(rest: &[String], e: &mut Effects) {
    let mut i = 0;
    // global options before the subcommand
    while let Some(w) = rest.get(i) {
        if w == "-c" || (w.starts_with("-c") && w.len() > 2 && !w.starts_with("--")) {
            e.executes = true;
            let kv = if w == "-c" {
                i += 1;
                rest.get(i).cloned().unwrap_or_default()
            } else {
                w[2..].to_string()
            };
            let (key, value) = kv.split_once('=').unwrap_or((&kv, ""));
            let value = value.strip_prefix('!').unwrap_or(value);
            if !value.is_empty() && command_key(key) {
                e.bodies.push(value.to_string());
            }
        } else if w.starts_with("--config-env") || w.starts_with("--exec-path=") {
            e.executes = true;
            if w == "--config-env" {
                i += 1;
            }
        } else if matches!(
            w.as_str(),
            "-C" | "--git-dir" | "--work-tree" | "--namespace"
        ) {
            if w != "-C" {
                e.executes = true; // another repository's config and hooks
            }
            i += 1;
        } else if w.starts_with("--git-dir=") || w.starts_with("--work-tree=") {
            e.executes = true;
        } else if !w.starts_with('-') {
            break;
        }
        i += 1;
    }
    let Some(sub) = rest.get(i).map(String::as_str) else {
        return;
    };
    let args = &rest[i + 1..];
    let run_opts: &[&str] = match sub {
        "grep" => &["-O", "--open-files-in-pager"],
        "ls-remote" | "fetch" | "pull" | "clone" | "archive" => &["--upload-pack", "--exec"],
        "rebase" => &["-x", "--exec"],
        "difftool" | "mergetool" => &["-x", "--extcmd", "-t", "--tool"],
        _ => &[],
    };
    for w in args {
        if let Some(o) = run_opts
            .iter()
            .find(|o| option_is(w, o) || w.starts_with(*o))
        {
            e.executes = true;
            let v = option_value(std::slice::from_ref(w), &[o])
                .or_else(|| option_value(args, &[o]))
                .unwrap_or_default();
            if !v.is_empty() {
                e.bodies.push(v);
            }
        }
        if option_is(w, "--output") || w == "--ext-diff" {
            e.writes |= w.starts_with("--output");
            e.executes |= w == "--ext-diff";
        }
    }
    if (sub == "bisect" && args.first().is_some_and(|a| a == "run"))
        || (sub == "submodule" && args.iter().any(|a| a == "foreach"))
    {
        e.executes = true;
        let k = args
            .iter()
            .position(|a| a == "run" || a == "foreach")
            .unwrap_or(0);
        e.bodies.push(args[k + 1..].join(" "));
    }
    if sub == "reflog" && args.first().is_some_and(|a| a == "expire" || a == "delete") {
        e.writes = true;
    }
}

/// A git configuration key whose value is a command (`core.pager`, `core.fsmonitor`,
/// `alias.x`, `diff.external`, `filter.x.clean`, `credential.helper`, …). Any `-c` makes git
/// executing; only these values are read as commands (`user.name='Jane Doe'` is a name).
fn command_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.starts_with("alias.")
        || k.starts_with("pager.")
        || [
            "pager",
            "editor",
            "fsmonitor",
            "sshcommand",
            "askpass",
            "program",
            "command",
            "cmd",
            "helper",
            "driver",
            "external",
            "textconv",
            "clean",
            "smudge",
            "process",
            "hook",
            "proxy",
            "viewer",
            "browser",
            "tool",
        ]
        .iter()
        .any(|s| k.ends_with(s))
}

/// awk's program text: the first operand, unless `-f` gives a file.
fn awk_program(rest: &[String]) -> Option<String> {
    let mut i = 0;
    while let Some(w) = rest.get(i) {
        if w == "-f" || w.starts_with("-f") && w.len() > 2 || w.starts_with("--file") {
            return None;
        }
        if w == "--" {
            return rest.get(i + 1).cloned();
        }
        if !w.starts_with('-') {
            return Some(w.clone());
        }
        i += if matches!(w.as_str(), "-v" | "-F") {
            2
        } else {
            1
        };
    }
    None
}

/// The contents of the string literals of inline code (`'…'`, `"…"`, `` `…` ``): what
/// `system("…")`, `os.system('…')` and `` `…` `` would run.
fn literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        if matches!(c, '\'' | '"' | '`') {
            let mut s = String::new();
            let mut esc = false;
            for n in chars.by_ref() {
                if esc {
                    s.push(n);
                    esc = false;
                } else if n == '\\' {
                    esc = true;
                } else if n == c {
                    break;
                } else {
                    s.push(n);
                }
            }
            if s.contains(' ') && out.len() < 16 {
                out.push(s);
            }
        }
    }
    out
}

/// A word as the shell would read it back (single-quoted when it needs to be).
fn quote(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,{}".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// The body of `sh -c '…'` (also `bash -lc`, `sudo bash -c`, `docker exec c sh -c …`).
pub fn shell_c_body(words: &[String]) -> Option<String> {
    let j = words.iter().position(|w| SHELLS.contains(&basename(w)))?;
    let mut k = j + 1;
    while let Some(w) = words.get(k) {
        if w.starts_with('-') && !w.starts_with("--") && w[1..].contains('c') {
            return words.get(k + 1).cloned();
        }
        if !w.starts_with('-') {
            return None;
        }
        k += 1;
    }
    None
}

//! A small POSIX-shell reader: enough to find the commands in a command line, never to run
//! one. It splits on `&&`, `||`, `;`, `|`, `&`, newlines and parentheses, honours quotes,
//! backslashes and `#` comments (the knowledge-context block is prepended to commands as
//! comment lines), records output redirections and here-documents, and lifts command
//! substitutions (`$(…)`, backticks, `<(…)`), `sh -c '…'` bodies and ssh remote commands
//! out as segments of their own.
//!
//! It never fails: an unbalanced quote runs to the end of the input. What it cannot follow
//! (nesting deeper than [`MAX_DEPTH`], more than [`MAX_SEGMENTS`] commands) becomes one
//! `truncated` segment holding the unread text, never silence.

mod runs;
pub use runs::{effects, shell_c_body, Effects};

/// One simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Segment {
    /// The words after quote removal, including leading assignments and `sudo`.
    pub words: Vec<String>,
    /// Targets of `>`, `>>`, `>|`, `&>` redirections (fd duplications like `2>&1` are not listed).
    pub writes: Vec<String>,
    /// Bodies of here-documents and here-strings fed to this command.
    pub heredoc: String,
    /// The segment came from inside `$(…)`, backticks, `sh -c` or an ssh remote command.
    pub nested: bool,
    /// The segment holds a command substitution.
    pub has_substitution: bool,
    /// For a segment from an ssh remote command: the host it runs on.
    pub remote_host: Option<String>,
    /// It runs code besides its program (a `-c` body, `git -c`, a pager or editor variable,
    /// inline interpreter code, `find -exec`): see [`runs::effects`].
    pub executes: bool,
    /// An option or operand makes it write a file (`tree -o`, `uniq IN OUT`, `yq -i`).
    pub writes_by_option: bool,
    /// Commands nested deeper than the reader follows (or past its segment cap) were left
    /// unread here: `words` holds the unread text as one word. Never read-only.
    pub truncated: bool,
}

impl Segment {
    /// Where the command proper starts (after assignments, `sudo`, `env`, `nohup`, …) and
    /// whether it runs under `sudo`/`doas`. `None` for a segment with no command (`A=1`).
    pub fn command_start(&self) -> Option<(usize, bool)> {
        command_start(&self.words)
    }

    /// The program's name (basename), when there is a command.
    pub fn program(&self) -> Option<&str> {
        self.command_start().map(|(i, _)| basename(&self.words[i]))
    }
}

pub const MAX_DEPTH: u32 = 4;
pub const MAX_SEGMENTS: usize = 256;

/// Split a command line into its simple commands, in order of appearance (nested ones right
/// after the segment that holds them).
pub fn split(line: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    split_into(line, false, None, 0, &mut out);
    out
}

fn split_into(line: &str, nested: bool, host: Option<&str>, depth: u32, out: &mut Vec<Segment>) {
    if depth > MAX_DEPTH {
        return push_truncated(line, host, out);
    }
    let chars: Vec<char> = line.chars().collect();
    let mut p = Parser {
        c: &chars,
        i: 0,
        seg: Segment::default(),
        inner: Vec::new(),
        word: String::new(),
        in_word: false,
        redirect: Redirect::None,
        heredocs: Vec::new(),
        done: Vec::new(),
    };
    p.run();
    for (mut seg, inner) in p.done {
        if out.len() >= MAX_SEGMENTS {
            return push_truncated(line, host, out);
        }
        seg.nested = nested;
        seg.remote_host = host.map(str::to_string);
        let fx = effects(&seg.words);
        seg.executes = fx.executes;
        seg.writes_by_option = fx.writes;
        let words = seg.words.clone();
        out.push(seg);
        for body in inner.iter().chain(&fx.bodies) {
            split_into(body, true, host, depth + 1, out);
        }
        if let Some((start, _)) = command_start(&words) {
            if basename(&words[start]) == "ssh" {
                let (h, remote) = ssh_parts(&words[start + 1..]);
                if !remote.is_empty() {
                    split_into(&remote.join(" "), true, h.as_deref(), depth + 1, out);
                }
            }
        }
    }
}

/// Text the reader does not follow, kept as one segment that is never read-only (its raw text
/// is still matched by SOP patterns). One per split at most.
fn push_truncated(line: &str, host: Option<&str>, out: &mut Vec<Segment>) {
    if out.iter().any(|s| s.truncated) {
        return;
    }
    let text: String = line.chars().take(4096).collect();
    if out.len() >= MAX_SEGMENTS {
        out.pop();
    }
    out.push(Segment {
        words: vec![text],
        nested: true,
        truncated: true,
        executes: true,
        remote_host: host.map(str::to_string),
        ..Default::default()
    });
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Redirect {
    None,
    /// The next word is an output target.
    Output,
    /// The next word is an input file or an fd: not a word of the command.
    Discard,
    /// The next word is a here-document delimiter (`true`: `<<-`, leading tabs stripped).
    HeredocDelim(bool),
    /// The next word is a here-string.
    HereString,
}

struct Parser<'a> {
    c: &'a [char],
    i: usize,
    seg: Segment,
    /// Substitution bodies found in the current segment.
    inner: Vec<String>,
    word: String,
    in_word: bool,
    redirect: Redirect,
    /// Here-documents waiting for the end of the line: (segment index in `done`, delimiter, strip tabs).
    heredocs: Vec<(usize, String, bool)>,
    done: Vec<(Segment, Vec<String>)>,
}

impl Parser<'_> {
    fn peek(&self, k: usize) -> Option<char> {
        self.c.get(self.i + k).copied()
    }

    fn run(&mut self) {
        while let Some(ch) = self.peek(0) {
            match ch {
                '\\' => {
                    match self.peek(1) {
                        Some('\n') => {}
                        Some(n) => {
                            self.word.push(n);
                            self.in_word = true;
                        }
                        None => {}
                    }
                    self.i += 2;
                }
                '\'' => {
                    self.in_word = true;
                    self.i += 1;
                    while let Some(n) = self.peek(0) {
                        self.i += 1;
                        if n == '\'' {
                            break;
                        }
                        self.word.push(n);
                    }
                }
                '"' => {
                    self.in_word = true;
                    self.i += 1;
                    while let Some(n) = self.peek(0) {
                        match n {
                            '"' => {
                                self.i += 1;
                                break;
                            }
                            '\\' => {
                                match self.peek(1) {
                                    Some(e @ ('"' | '\\' | '$' | '`')) => self.word.push(e),
                                    Some('\n') => {}
                                    Some(e) => {
                                        self.word.push('\\');
                                        self.word.push(e);
                                    }
                                    None => {}
                                }
                                self.i += 2;
                            }
                            '$' if self.peek(1) == Some('(') => self.substitution(2),
                            '`' => self.backtick(),
                            _ => {
                                self.word.push(n);
                                self.i += 1;
                            }
                        }
                    }
                }
                '$' if self.peek(1) == Some('(') => {
                    self.in_word = true;
                    self.substitution(2);
                }
                '`' => {
                    self.in_word = true;
                    self.backtick();
                }
                '#' if !self.in_word => {
                    while let Some(n) = self.peek(0) {
                        if n == '\n' {
                            break;
                        }
                        self.i += 1;
                    }
                }
                ' ' | '\t' | '\r' => {
                    self.end_word();
                    self.i += 1;
                }
                '\n' => {
                    self.end_segment();
                    self.i += 1;
                    self.read_heredocs();
                }
                ';' => {
                    self.end_segment();
                    self.i += 1;
                }
                '&' => match self.peek(1) {
                    Some('&') => {
                        self.end_segment();
                        self.i += 2;
                    }
                    Some('>') => {
                        self.end_word();
                        self.i += 2;
                        if self.peek(0) == Some('>') {
                            self.i += 1;
                        }
                        self.redirect = Redirect::Output;
                    }
                    _ => {
                        self.end_segment();
                        self.i += 1;
                    }
                },
                '|' => {
                    self.end_segment();
                    self.i += if matches!(self.peek(1), Some('|' | '&')) {
                        2
                    } else {
                        1
                    };
                }
                '(' | ')' => {
                    self.end_segment();
                    self.i += 1;
                }
                '>' => {
                    if self.peek(1) == Some('(') {
                        self.in_word = true;
                        self.substitution(2);
                        continue;
                    }
                    self.drop_fd_word();
                    self.i += 1;
                    match self.peek(0) {
                        Some('>') | Some('|') => {
                            self.i += 1;
                            self.redirect = Redirect::Output;
                        }
                        Some('&') => {
                            self.i += 1;
                            self.redirect = Redirect::Discard;
                        }
                        _ => self.redirect = Redirect::Output,
                    }
                }
                '<' => {
                    if self.peek(1) == Some('(') {
                        self.in_word = true;
                        self.substitution(2);
                        continue;
                    }
                    self.drop_fd_word();
                    if self.peek(1) == Some('<') && self.peek(2) == Some('<') {
                        self.i += 3;
                        self.redirect = Redirect::HereString;
                    } else if self.peek(1) == Some('<') {
                        self.i += 2;
                        let strip = self.peek(0) == Some('-');
                        if strip {
                            self.i += 1;
                        }
                        self.redirect = Redirect::HeredocDelim(strip);
                    } else {
                        self.i += 1;
                        if matches!(self.peek(0), Some('&') | Some('>')) {
                            self.i += 1;
                        }
                        self.redirect = Redirect::Discard;
                    }
                }
                _ => {
                    self.word.push(ch);
                    self.in_word = true;
                    self.i += 1;
                }
            }
        }
        self.end_segment();
    }

    /// `2>` / `1<`: the digits before a redirection name a file descriptor, not a word.
    fn drop_fd_word(&mut self) {
        if self.in_word && !self.word.is_empty() && self.word.chars().all(|c| c.is_ascii_digit()) {
            self.word.clear();
            self.in_word = false;
        } else {
            self.end_word();
        }
    }

    /// Read `$(…)` (or `<(…)`, `>(…)`) starting `skip` characters before the body.
    fn substitution(&mut self, skip: usize) {
        let open: String = self.c[self.i..self.i + skip].iter().collect();
        self.i += skip;
        let start = self.i;
        let mut depth = 1u32;
        while let Some(n) = self.peek(0) {
            match n {
                '\\' => self.i += 1,
                '\'' => {
                    self.i += 1;
                    while self.peek(0).is_some_and(|q| q != '\'') {
                        self.i += 1;
                    }
                }
                '"' => {
                    self.i += 1;
                    while let Some(q) = self.peek(0) {
                        if q == '\\' {
                            self.i += 1;
                        } else if q == '"' {
                            break;
                        }
                        self.i += 1;
                    }
                }
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
        let end = self.i.min(self.c.len());
        let body: String = self.c[start..end].iter().collect();
        self.i = (end + 1).min(self.c.len());
        self.word.push_str(&open);
        self.word.push_str(&body);
        self.word.push(')');
        self.seg.has_substitution = true;
        self.inner.push(body);
    }

    fn backtick(&mut self) {
        self.i += 1;
        let mut body = String::new();
        while let Some(n) = self.peek(0) {
            self.i += 1;
            match n {
                '`' => break,
                '\\' => {
                    if let Some(e) = self.peek(0) {
                        body.push(e);
                        self.i += 1;
                    }
                }
                _ => body.push(n),
            }
        }
        self.word.push('`');
        self.word.push_str(&body);
        self.word.push('`');
        self.seg.has_substitution = true;
        self.inner.push(body);
    }

    fn end_word(&mut self) {
        if !self.in_word {
            return;
        }
        let w = std::mem::take(&mut self.word);
        self.in_word = false;
        match std::mem::replace(&mut self.redirect, Redirect::None) {
            Redirect::None => self.seg.words.push(w),
            Redirect::Output => self.seg.writes.push(w),
            Redirect::Discard => {}
            Redirect::HeredocDelim(strip) => self.heredocs.push((self.done.len(), w, strip)),
            Redirect::HereString => {
                self.seg.heredoc.push_str(&w);
                self.seg.heredoc.push('\n');
            }
        }
    }

    fn end_segment(&mut self) {
        self.end_word();
        self.redirect = Redirect::None;
        let seg = std::mem::take(&mut self.seg);
        let inner = std::mem::take(&mut self.inner);
        let empty = seg.words.is_empty() && seg.writes.is_empty() && seg.heredoc.is_empty();
        if !empty {
            self.done.push((seg, inner));
        } else {
            // A here-document registered on an empty segment has nowhere to go.
            let idx = self.done.len();
            self.heredocs.retain(|(i, _, _)| *i != idx);
        }
    }

    /// At the start of a line after one that opened here-documents: their bodies.
    fn read_heredocs(&mut self) {
        let docs = std::mem::take(&mut self.heredocs);
        for (idx, delim, strip) in docs {
            let mut body = String::new();
            while self.i < self.c.len() {
                let (line, last) = heredoc_line(self.c, &mut self.i, &delim, strip);
                if last {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if let Some((seg, _)) = self.done.get_mut(idx) {
                seg.heredoc.push_str(&body);
            }
        }
    }
}

/// One line of a here-document's body from `c[*i..]`, `*i` moved past its newline, and whether
/// it is the end line `delim` (after leading tabs, for `<<-`: `strip`).
pub(crate) fn heredoc_line(c: &[char], i: &mut usize, delim: &str, strip: bool) -> (String, bool) {
    let start = *i;
    while c.get(*i).is_some_and(|&n| n != '\n') {
        *i += 1;
    }
    let line: String = c[start..*i].iter().collect();
    *i = (*i + 1).min(c.len());
    let cmp = if strip {
        line.trim_start_matches('\t')
    } else {
        line.as_str()
    };
    let last = cmp == delim;
    (line, last)
}

/// The file name part of a program path (`/usr/bin/git` → `git`).
pub fn basename(w: &str) -> &str {
    w.rsplit('/').next().unwrap_or(w)
}

/// `NAME=value` (a shell assignment).
pub fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// Skip the options of a wrapper program. `with_value`: short options that take a value.
/// Returns the index after them.
fn skip_options(
    words: &[String],
    mut i: usize,
    with_value: &str,
    long_with_value: &[&str],
) -> usize {
    while let Some(w) = words.get(i) {
        if w == "--" {
            return i + 1;
        }
        if let Some(long) = w.strip_prefix("--") {
            i += 1;
            if !long.contains('=') && long_with_value.contains(&long) {
                i += 1;
            }
            continue;
        }
        if w.len() > 1 && w.starts_with('-') {
            i += 1;
            let flags: Vec<char> = w[1..].chars().collect();
            for (k, f) in flags.iter().enumerate() {
                if with_value.contains(*f) {
                    if k + 1 == flags.len() {
                        i += 1; // the value is the next word
                    }
                    break;
                }
            }
            continue;
        }
        break;
    }
    i
}

/// Where the command proper starts, skipping assignments and wrappers (`sudo`, `doas`, `env`,
/// `nohup`, `time`, `exec`, `command`, `nice`, `timeout`, `xargs`, `stdbuf`, `ionice`) and
/// compound-command keywords. Returns the index and whether `sudo`/`doas` was seen.
pub fn command_start(words: &[String]) -> Option<(usize, bool)> {
    let mut i = 0;
    let mut sudo = false;
    let mut last_wrapper = None;
    while let Some(w) = words.get(i) {
        if is_assignment(w) {
            i += 1;
            continue;
        }
        let name = basename(w);
        let before = i;
        i = match name {
            "sudo" | "doas" => {
                sudo = true;
                skip_options(
                    words,
                    i + 1,
                    "ugpCUhrtDRT",
                    &["user", "group", "prompt", "host", "role", "type", "chdir"],
                )
            }
            "env" => skip_options(words, i + 1, "uCS", &["unset", "chdir", "split-string"]),
            "nice" => skip_options(words, i + 1, "n", &["adjustment"]),
            "ionice" => skip_options(words, i + 1, "cnp", &["class", "classdata", "pid"]),
            "stdbuf" => skip_options(words, i + 1, "ioe", &["input", "output", "error"]),
            "xargs" => skip_options(
                words,
                i + 1,
                "nILPdEsa",
                &[
                    "max-args",
                    "max-lines",
                    "max-procs",
                    "delimiter",
                    "arg-file",
                ],
            ),
            "timeout" => {
                let j = skip_options(words, i + 1, "sk", &["signal", "kill-after"]);
                j + 1 // the duration
            }
            "nohup" | "exec" | "command" | "builtin" | "time" => {
                skip_options(words, i + 1, "", &[])
            }
            "{" | "}" | "!" | "then" | "do" | "else" | "elif" | "if" | "while" | "until" => i + 1,
            _ => return Some((i, sudo)),
        };
        if !matches!(
            name,
            "{" | "}" | "!" | "then" | "do" | "else" | "elif" | "if" | "while" | "until"
        ) {
            last_wrapper = Some(before);
        }
    }
    last_wrapper.map(|w| (w, sudo))
}

const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "fish", "ash"];

/// ssh's arguments (after the program): the destination and the remote command's words.
pub fn ssh_parts(args: &[String]) -> (Option<String>, Vec<String>) {
    let i = skip_options(args, 0, "BbcDEeFIiJLlmOoPpQRSWw", &[]);
    match args.get(i) {
        Some(dest) => (Some(dest.clone()), args[i + 1..].to_vec()),
        None => (None, Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        split(line).into_iter().map(|s| s.words).collect()
    }

    fn w(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn chains_pipes_and_quotes() {
        assert_eq!(
            words("cd /srv/app && git pull; npm ci | tee log || echo 'a && b'"),
            vec![
                w(&["cd", "/srv/app"]),
                w(&["git", "pull"]),
                w(&["npm", "ci"]),
                w(&["tee", "log"]),
                w(&["echo", "a && b"])
            ]
        );
        assert_eq!(
            words(r#"git commit -m "fix: \"quoted\" thing" &"#),
            vec![w(&["git", "commit", "-m", r#"fix: "quoted" thing"#])]
        );
        assert_eq!(words("echo a\\ b"), vec![w(&["echo", "a b"])]);
        assert_eq!(
            words("echo 'unclosed && rm"),
            vec![w(&["echo", "unclosed && rm"])]
        );
    }

    #[test]
    fn comments_are_not_commands() {
        let line = "# hookwise context: rm -rf / is dangerous\n# git push --force\ngit status";
        assert_eq!(words(line), vec![w(&["git", "status"])]);
        assert_eq!(words("echo a#b # c"), vec![w(&["echo", "a#b"])]);
    }

    #[test]
    fn redirections() {
        let s = split("cat a.txt > out.txt 2>/dev/null");
        assert_eq!(s[0].words, w(&["cat", "a.txt"]));
        assert_eq!(s[0].writes, w(&["out.txt", "/dev/null"]));
        let s = split("make 2>&1 >>build.log");
        assert_eq!(s[0].words, w(&["make"]));
        assert_eq!(s[0].writes, w(&["build.log"]));
        let s = split("sort < in &> all.log");
        assert_eq!(s[0].words, w(&["sort"]));
        assert_eq!(s[0].writes, w(&["all.log"]));
    }

    #[test]
    fn heredocs_and_herestrings_feed_the_command() {
        let s = split("psql -h db <<'SQL'\nDROP TABLE users;\nSQL\necho done");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].words, w(&["psql", "-h", "db"]));
        assert_eq!(s[0].heredoc, "DROP TABLE users;\n");
        assert_eq!(s[1].words, w(&["echo", "done"]));
        let s = split("mysql <<< 'DELETE FROM t'");
        assert_eq!(s[0].heredoc, "DELETE FROM t\n");
    }

    #[test]
    fn substitutions_and_nested_shells_become_segments() {
        let s = split("echo $(rm -rf /tmp/x) `whoami`");
        assert!(s[0].has_substitution);
        assert_eq!(s[1].words, w(&["rm", "-rf", "/tmp/x"]));
        assert!(s[1].nested);
        assert_eq!(s[2].words, w(&["whoami"]));
        let s = split("sudo -u deploy bash -lc 'cd /srv && git push -f'");
        assert_eq!(s.len(), 3);
        assert_eq!(s[2].words, w(&["git", "push", "-f"]));
        let s = split("ssh -p 2222 root@10.0.0.5 'systemctl restart nginx'");
        assert_eq!(s[1].words, w(&["systemctl", "restart", "nginx"]));
        assert_eq!(s[1].remote_host.as_deref(), Some("root@10.0.0.5"));
        let s = split("diff <(ls a) <(ls b)");
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn command_start_skips_wrappers() {
        let cs = |l: &str| {
            let s = &split(l)[0];
            s.command_start()
                .map(|(i, sudo)| (s.words[i].clone(), sudo))
        };
        assert_eq!(cs("FOO=1 BAR=2 make"), Some(("make".into(), false)));
        assert_eq!(cs("sudo -u root -E rm -rf /"), Some(("rm".into(), true)));
        assert_eq!(
            cs("env -i PATH=/bin nohup nice -n 5 ./run.sh"),
            Some(("./run.sh".into(), false))
        );
        assert_eq!(
            cs("timeout -s KILL 30 curl x"),
            Some(("curl".into(), false))
        );
        assert_eq!(cs("env"), Some(("env".into(), false)));
        assert_eq!(cs("A=1"), None);
        assert_eq!(
            cs("find . -name '*.o' | xargs -n 10 rm"),
            Some(("find".into(), false))
        );
        assert_eq!(split("ls | xargs -I{} rm {}")[1].program(), Some("rm"));
        assert_eq!(split("/usr/bin/git status")[0].program(), Some("git"));
    }

    #[test]
    fn ssh_destination_and_remote_command() {
        let (h, r) = ssh_parts(&w(&["-i", "key", "-tt", "-p22", "admin@db1", "uptime"]));
        assert_eq!(h.as_deref(), Some("admin@db1"));
        assert_eq!(r, w(&["uptime"]));
        assert_eq!(ssh_parts(&w(&["-v"])), (None, vec![]));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut line = "rm -rf x".to_string();
        for _ in 0..7 {
            line = format!("bash -c {}", shell_quote(&line));
        }
        let s = split(&line);
        assert!(s.len() <= (MAX_DEPTH + 2) as usize);
        let last = s.last().unwrap();
        assert!(
            last.truncated && last.words[0].contains("rm -rf x"),
            "{s:?}"
        );
        let bomb = "$(".repeat(5000);
        let s = split(&bomb);
        assert!(s.len() <= MAX_SEGMENTS);
        assert!(s.iter().any(|s| s.truncated));
    }

    fn shell_quote(s: &str) -> String {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

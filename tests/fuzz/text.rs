//! Two small grammars over model text: the shell splitter of enforcement
//! (`enforce::shell::split`) and WikiLink extraction (`hookwise_text::wikilink`, re-exported as
//! `hookwise::wikilink`). Both are total; plain command lines split into exactly their
//! commands; every link found is a `[[…]]` of the text and normalizes to a fixed point.

use hookwise::enforce::shell;
use hookwise::wikilink::{self, ScanMode, MAX_LINK_CHARS};
use proptest::prelude::*;

use crate::common::{check, lines_from, mutate_str, nasty_string, text_of, LOWER};

const SHELL_BITS: &[&str] = &[
    "git push --force origin main",
    "rm -rf /",
    "sudo ",
    "env A=1 ",
    "nohup ",
    "sh -c '",
    "bash -lc \"",
    "ssh db1.prod '",
    "ssh -p 22 host ",
    "$(",
    "`",
    "<(",
    ")",
    "'",
    "\"",
    "\\",
    "&&",
    "||",
    ";",
    "|",
    "&",
    "\n",
    "#",
    "# [[x]]",
    "> out.txt",
    ">> log",
    "2>&1",
    "&>",
    "<<EOF\nbody\nEOF\n",
    "<<-'X'\n\tx\nX",
    "<<<",
    "(",
    "{ ",
    " }",
    "[[ -f x ]]",
    "kubectl apply -f x.yaml",
    "curl https://api.prod.example.com/x",
    "A=1",
    "  ",
];

fn command_line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => lines_from(SHELL_BITS),
        2 => mutate_str(lines_from(SHELL_BITS)),
        1 => prop::collection::vec(prop::sample::select(&["$(", "`", "sh -c '", "bash -c \"", "ssh h '"][..]), 0..40)
            .prop_map(|v| format!("{}x", v.concat())),
        1 => any::<String>(),
    ]
}

#[test]
fn the_shell_splitter_takes_any_line() {
    check("shell: split (any line)", 512, command_line(), |line| {
        let segs = shell::split(&line);
        prop_assert!(segs.len() <= 256, "{} segments", segs.len());
        for s in &segs {
            if let Some((i, _)) = s.command_start() {
                prop_assert!(i < s.words.len());
            }
            if let Some(p) = s.program() {
                prop_assert!(!p.contains('/'), "{p:?}");
            }
            prop_assert!(s.remote_host.is_none() || s.nested);
        }
        Ok(())
    });
}

/// Words without shell syntax, as written (`raw`) and as the shell reads them (`word`).
fn word() -> impl Strategy<Value = (String, String)> {
    let plain = prop_oneof![
        4 => text_of("abcdefghijklmnopqrstuvwxyz0123456789._-/", 1..8),
        1 => prop::sample::select(&["ls", "cat", "grep", "echo", "-l", "--all", "x.txt", "./a"][..])
            .prop_map(str::to_string),
    ];
    prop_oneof![
        4 => plain.clone().prop_map(|w| (w.clone(), w)),
        1 => (plain.clone(), plain.clone()).prop_map(|(a, b)| (format!("'{a} {b}'"), format!("{a} {b}"))),
        1 => (plain.clone(), plain.clone()).prop_map(|(a, b)| (format!("\"{a} {b}\""), format!("{a} {b}"))),
        1 => (plain.clone(), plain).prop_map(|(a, b)| (format!("{a}\\ {b}"), format!("{a} {b}"))),
    ]
}

#[test]
fn plain_command_lines_split_into_their_commands() {
    check(
        "shell: split (plain commands, model)",
        384,
        (
            prop::collection::vec(prop::collection::vec(word(), 1..5), 1..6),
            prop::collection::vec(
                prop::sample::select(&[" && ", "; ", " | ", " || ", "\n", " & ", ";"][..]),
                5,
            ),
        ),
        |(cmds, seps)| {
            // a first word that is a program name, not an assignment or an option
            let mut line = String::new();
            let mut want: Vec<Vec<String>> = Vec::new();
            for (k, c) in cmds.iter().enumerate() {
                if k > 0 {
                    line.push_str(seps[k - 1]);
                }
                let raw: Vec<&str> = c.iter().map(|(r, _)| r.as_str()).collect();
                line.push_str("cmd ");
                line.push_str(&raw.join(" "));
                let mut w = vec!["cmd".to_string()];
                w.extend(c.iter().map(|(_, w)| w.clone()));
                want.push(w);
            }
            let got: Vec<Vec<String>> = shell::split(&line).into_iter().map(|s| s.words).collect();
            prop_assert_eq!(got, want, "{:?}", line);
            Ok(())
        },
    );
}

const LINK_BITS: &[&str] = &[
    "[[",
    "]]",
    "[",
    "]",
    "[[[",
    "]]]",
    "|",
    "#",
    "auth",
    "JWT Tokens",
    "node.js",
    " ",
    "_",
    "/",
    "é",
    "İ",
    "😀",
    "\n",
    "[[ -f x ]]",
    "[[a|b]]",
    "[[a#h]]",
    "`",
    "```\n",
];

fn link_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => lines_from(LINK_BITS),
        1 => mutate_str(lines_from(LINK_BITS)),
        1 => (text_of(LOWER, 250..262)).prop_map(|b| format!("[[{b}]]")),
        1 => any::<String>(),
    ]
}

#[test]
fn links_are_brackets_of_the_text() {
    check(
        "wikilink: raw_links / concepts / normalize",
        512,
        (link_text(), any::<bool>()),
        |(text, shell)| {
            let mode = if shell {
                ScanMode::Shell
            } else {
                ScanMode::Prose
            };
            for body in wikilink::raw_links(&text, mode) {
                prop_assert!(text.contains(&format!("[[{body}]]")), "{body:?}");
                prop_assert!(!body.is_empty() && !body.contains(['[', ']']));
                prop_assert!(body.chars().count() <= MAX_LINK_CHARS);
            }
            let cs = wikilink::concepts(&text, mode);
            let mut seen = std::collections::HashSet::new();
            for c in &cs {
                prop_assert!(seen.insert(c.clone()), "{c:?} twice");
                prop_assert!(!c.is_empty());
                prop_assert_eq!(&wikilink::normalize(c), c, "normalize is a fixed point");
                prop_assert!(!c.starts_with('-') && !c.ends_with('-'));
            }
            let n = wikilink::normalize(&text);
            prop_assert_eq!(wikilink::normalize(&n), n.clone());
            Ok(())
        },
    );
}

#[test]
fn any_text_is_scanned() {
    check("wikilink: any text", 256, nasty_string(), |t| {
        let _ = wikilink::concepts(&t, ScanMode::Prose);
        let _ = wikilink::concepts(&t, ScanMode::Shell);
        let _ = wikilink::concept_of(&t);
        Ok(())
    });
}

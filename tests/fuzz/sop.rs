//! SOP files (`enforce::sop::parse`): markdown with YAML front matter and the YAML format,
//! hostile project files. Parsing is total; a parsed SOP has match rules, its sections are
//! among those asked for, its excerpt is bounded; matching it against any call is total and
//! gives a confidence in (0, 1]. Also the SOP's own small grammars: regex patterns (through
//! `patterns:`), command prefixes (through the shell splitter), host wildcards.

use std::rc::Rc;

use hookwise::enforce::extract::{self, Situation};
use hookwise::enforce::sop::{self, EXCERPT_CHARS};
use hookwise::enforce::Settings;
use proptest::prelude::*;
use serde_json::json;

use crate::common::{check, deep_depth, lines_from, mutate_str, nasty_string, text_of};

const PATHS: &[&str] = &[
    ".opencode/sops/force.md",
    "sops/security/keys.md",
    "x.markdown",
    "nginx.ai.sop",
    "db.sop.yaml",
    "db.SOP.YML",
    "README.md",
    ".hidden.md",
    "notes.txt",
    ".md",
    "a/b/c/.ai.sop",
];

const FRONT: &[&str] = &[
    "id: ",
    "title: ",
    "category: ",
    "priority: ",
    "match:",
    "  tools: [bash]",
    "  tools: ",
    "  patterns: ",
    "  patterns: ['git\\s+push\\s.*--force']",
    "  keywords: [force push, deploy]",
    "  commands: [git push, 'kubectl apply', {cmd: 'rm -rf'}]",
    "  services: [nginx]",
    "  hosts: ['*.prod.example.com', 'db*']",
    "  projects: [shop]",
    "  minRisk: ",
    "patterns: ",
    "keywords: ",
    "sections: [preflight, rollback]",
    "meta:",
    "  id: ",
    "  service: ",
    "  services: [a, b]",
    "  keywords: ",
    "  tags: [security]",
    "hosts:",
    "  - host: db1.prod",
    "  - name: ",
    "commands:",
    "  - run: systemctl reload nginx",
    "preflight:",
    "  - action: ",
    "    command: ",
    "gotchas: [",
    "rollback: |",
    "high",
    "critical",
    "low",
    "process",
    "security",
    "10",
    "-1",
    "1e400",
    "&x ",
    "*x",
    "{",
    "}",
    "[",
    "]",
    ": ",
    "'",
    "\"",
    "~",
    "(a{1000}){1000}",
    "(?i)",
    "\\p{L}",
    "[[:alpha:]]",
    "(",
    "(a*)*b",
    "\\",
];

const BODY: &[&str] = &[
    "# Title",
    "## Preflight",
    "## Pre-flight checks",
    "### Rollback",
    "#### Gotchas",
    "#",
    "##",
    "```",
    "~~~",
    "- step",
    "1. do it",
    "---",
    "text",
    "<!-- -->",
    "    indented",
];

/// A YAML flow list of single-quoted items (`''` escapes a quote).
fn flow(items: &[String]) -> String {
    let q: Vec<String> = items
        .iter()
        .map(|i| format!("'{}'", i.replace('\'', "''")))
        .collect();
    format!("[{}]", q.join(", "))
}

fn some_of(words: &'static [&'static str]) -> impl Strategy<Value = Option<Vec<String>>> {
    prop::option::of(prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(words).prop_map(str::to_string),
            // YAML refuses control characters even when quoted: keep them out here
            1 => nasty_string().prop_map(|s| s.chars().filter(|c| !c.is_control()).collect()),
        ],
        0..3,
    ))
}

/// A well-formed SOP in either format, its fields drawn from usual and hostile values.
fn structured_sop() -> impl Strategy<Value = (&'static str, String)> {
    (
        (
            some_of(&["bash", "exec", "write", "execute_command"]),
            some_of(&[r"git\s+push\s.*--force", "rm -rf", "(?i)deploy", "(a{100}){100}", "^$", r"\bprod\b", "(", "[z-a]"]),
            some_of(&["force push", "deploy", "shop", "nginx", ""]),
            some_of(&["git push", "kubectl apply", "rm -rf", "sudo systemctl reload nginx", "ssh db1"]),
            some_of(&["nginx", "git", "kubernetes", "postgres"]),
            some_of(&["*.prod.example.com", "db*", "*", "**", "api.prod.example.com"]),
        ),
        (
            prop::option::of(prop::sample::select(&["low", "medium", "high", "critical", "extreme"][..])),
            prop::option::of(prop::sample::select(&["process", "security", "credentials", "gotchas", "technical", "general", "other"][..])),
            prop::option::of(prop::sample::select(&["0", "10", "-3", "1.5", "99999999999999999999", "x"][..])),
            some_of(&["preflight", "rollback", "gotchas"]),
            lines_from(BODY),
            any::<bool>(),
            prop::option::of(text_of("abcdefghijklmnopqrstuvwxyz-", 0..9)),
        ),
    )
        .prop_map(|((tools, patterns, keywords, commands, services, hosts), (risk, cat, prio, sections, body, yaml, id))| {
            let mut rules = String::new();
            for (k, v) in [("tools", tools), ("patterns", patterns), ("keywords", keywords),
                           ("commands", commands), ("services", services), ("hosts", hosts)] {
                if let Some(v) = v {
                    rules.push_str(&format!("  {k}: {}\n", flow(&v)));
                }
            }
            if let Some(r) = risk {
                rules.push_str(&format!("  minRisk: {r}\n"));
            }
            let mut meta = String::new();
            if let Some(id) = id {
                meta.push_str(&format!("  id: '{id}'\n"));
            }
            if let Some(c) = cat {
                meta.push_str(&format!("  category: {c}\n"));
            }
            if let Some(p) = prio {
                meta.push_str(&format!("  priority: {p}\n"));
            }
            if let Some(s) = sections {
                meta.push_str(&format!("  sections: {}\n", flow(&s)));
            }
            if yaml {
                let body_yaml = body.lines().map(|l| format!("  - '{}'", l.replace('\'', "''").replace(|c: char| c.is_control(), ""))).collect::<Vec<_>>().join("\n");
                let rules: String = rules.lines().map(|l| format!("  {l}\n")).collect();
                ("x.ai.sop", format!("meta:\n{meta}  match:\n{rules}gotchas:\n{body_yaml}\nrollback: |\n  undo\n"))
            } else {
                let meta: String = meta.lines().map(|l| format!("{}\n", l.trim_start())).collect();
                (".opencode/sops/x.md", format!("---\n{meta}match:\n{rules}---\n{body}"))
            }
        })
}

fn sop_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (lines_from(FRONT), lines_from(BODY), any::<bool>())
            .prop_map(|(fm, body, bom)| format!("{}---\n{fm}\n---\n{body}", if bom { "\u{feff}" } else { "" })),
        2 => mutate_str((lines_from(FRONT), lines_from(BODY))
            .prop_map(|(fm, body)| format!("---\nmatch:\n  tools: [bash]\n{fm}\n---\n{body}"))),
        2 => lines_from(FRONT),
        1 => (deep_depth(), any::<bool>()).prop_map(|(d, map)| if map {
            format!("---\nkeywords: [x]\nid: {}1{}\n---\n", "{a: ".repeat(d), "}".repeat(d))
        } else {
            format!("meta:\n  service: x\ngotchas: {}x{}\n", "[".repeat(d), "]".repeat(d))
        }),
        1 => nasty_string(),
    ]
}

fn command() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(
            &[
                "git push --force origin main",
                "sudo systemctl reload nginx",
                "ssh db1.prod 'rm -rf /var/x'",
                "kubectl apply -f x.yaml",
                "curl https://api.prod.example.com/x | sh",
                "rm -rf .git",
                "deploy the shop",
            ][..]
        )
        .prop_map(str::to_string),
        nasty_string(),
    ]
}

fn sop_file() -> impl Strategy<Value = (&'static str, String)> {
    prop_oneof![
        3 => structured_sop(),
        1 => structured_sop().prop_flat_map(|(p, t)| (Just(p), mutate_str(Just(t)))),
        2 => (prop::sample::select(PATHS), sop_text()),
    ]
}

#[test]
fn any_sop_file_parses_to_a_usable_sop() {
    let settings = Settings::default();
    let parsed = std::cell::Cell::new(0u32);
    let matched = std::cell::Cell::new(0u32);
    check(
        "sop: parse and match (any text)",
        256,
        (
            sop_file(),
            prop::collection::vec(
                prop::sample::select(&["preflight", "rollback", "gotchas", "", "Pre-Flight"][..])
                    .prop_map(str::to_string),
                0..3,
            ),
            command(),
        ),
        |((path, text), sections, cmd)| {
            let Ok((s, _warnings)) = sop::parse(path, &text, &sections) else {
                return Ok(());
            };
            parsed.set(parsed.get() + 1);
            prop_assert!(sop::format_of(path).is_some(), "{path} is not an SOP name");
            prop_assert!(
                !s.id.is_empty() || path.contains("/."),
                "empty id from {path}"
            );
            prop_assert!(s.excerpt.chars().count() <= EXCERPT_CHARS + 1);
            for sec in &s.sections {
                prop_assert!(!sec.text.trim().is_empty(), "{sec:?}");
            }
            let _ = s.body();
            let sop = Rc::new(s);
            for tool in ["bash", "write", "exec"] {
                let args = if tool == "write" {
                    json!({"filePath": cmd, "content": cmd})
                } else {
                    json!({ "command": cmd })
                };
                let ctx = extract::extract(
                    tool,
                    &args,
                    &Situation {
                        cwd: "/w/shop",
                        worktree: "shop",
                    },
                    &settings.rules,
                );
                let hay = ctx.haystack.to_lowercase();
                if let Some(m) = sop::match_sop(&sop, &ctx, &hay) {
                    matched.set(matched.get() + 1);
                    prop_assert!(
                        m.confidence > 0.0 && m.confidence <= 1.0,
                        "{}",
                        m.confidence
                    );
                }
            }
            Ok(())
        },
    );
    eprintln!(
        "fuzz: sop: {} parsed, {} matches",
        parsed.get(),
        matched.get()
    );
}

#[test]
fn markdown_sections_are_those_asked_for() {
    check(
        "sop: markdown_sections",
        256,
        (
            lines_from(BODY),
            prop::collection::vec(
                prop::sample::select(&["preflight", "rollback", "gotchas", "", "title"][..])
                    .prop_map(str::to_string),
                0..4,
            ),
        ),
        |(body, wanted)| {
            for s in sop::markdown_sections(&body, &wanted) {
                prop_assert!(wanted.contains(&s.name), "{:?} not asked for", s.name);
                prop_assert!(body.contains(s.text.lines().next().unwrap_or("")));
            }
            Ok(())
        },
    );
}

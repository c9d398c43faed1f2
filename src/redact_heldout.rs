//! The redactor measured on secret forms it was not tuned on, in every path that persists
//! text: a note's body and title (`knowledge_remember`: the title's text and its file name),
//! the compaction memory (a decision that quotes the secret), and an Agent Trace record's file
//! path (the secret as a path segment). The cases come from a checkout of another project's
//! secret-detector fixtures, read by `scripts/heldout-secrets.mjs` (nothing of it is committed):
//!
//!   node scripts/heldout-secrets.mjs <secretlint checkout> /tmp/heldout.json
//!   HOOKWISE_HELDOUT=/tmp/heldout.json cargo test -q --all-features --lib heldout -- --ignored --nocapture
//!
//! It prints figures and the forms that persist; it asserts nothing (the committed corpus tests
//! do: `redact_corpus_tests.rs`, `redact_forms_tests.rs`).

use serde_json::Value;

use crate::session::compaction::{memory_content, scan_texts, session_decisions, MessageText};

/// The pieces of a secret that must not persist: the secret when it is one word, else (a key
/// block, a whole service-account file) its parts of 12 characters or more with a digit, `+`
/// or `/` (the key's base64, not the file's field names and prose).
fn pieces(secret: &str) -> Vec<&str> {
    if !secret.contains(char::is_whitespace) {
        return vec![secret];
    }
    secret
        .split(|c: char| c.is_whitespace() || "\"',\\".contains(c))
        .filter(|p| {
            p.len() >= 12 && p.contains(|c: char| c.is_ascii_digit() || c == '+' || c == '/')
        })
        .collect()
}

/// The text around the secret at `at`: from 60 characters before it, `len` characters long,
/// on one line (a title, a decision).
fn window(text: &str, at: usize, len: usize) -> String {
    let from = text[..at]
        .char_indices()
        .rev()
        .nth(59)
        .map_or(0, |(k, _)| k);
    let s: String = text[from..].chars().take(len).collect();
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A note's title: redacted, on one line, at most 200 characters; and its file name.
fn title_path(title: &str) -> Vec<String> {
    let t = super::redact(title);
    let t: String = t
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(200)
        .collect();
    let name = crate::tools::remember::slug(&t);
    vec![t, name]
}

/// The compaction memory of a session in which the model said it decided on `line`.
fn compaction_path(line: &str) -> Vec<String> {
    let msgs = vec![MessageText {
        role: "assistant".into(),
        text: format!("We decided to go with this: {line}"),
    }];
    let texts = scan_texts(&msgs);
    let d = session_decisions(&texts);
    vec![memory_content("p", "s", 0.0, &[], &d)]
}

/// An Agent Trace record's path for a file whose name is the secret.
fn trace_path(segment: &str) -> Vec<String> {
    vec![super::redact_path(&format!("notes/{segment}.md")).into_owned()]
}

#[test]
#[ignore = "a measurement on a held-out corpus: prints figures (HOOKWISE_HELDOUT=<json>)"]
fn heldout() {
    let Ok(file) = std::env::var("HOOKWISE_HELDOUT") else {
        eprintln!("HOOKWISE_HELDOUT is not set: nothing measured");
        return;
    };
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let cases = v["cases"].as_array().unwrap();
    // (path, persisted, of)
    let mut figures = [
        ("bodies", 0, 0),
        ("titles", 0, 0),
        ("compaction", 0, 0),
        ("trace paths", 0, 0),
    ];
    let mut misses: Vec<String> = Vec::new();
    let (mut ok_cases, mut ok_changed) = (0, 0);
    for c in cases {
        let text = c["text"].as_str().unwrap();
        let name = format!(
            "{}/{}",
            c["rule"].as_str().unwrap(),
            c["name"].as_str().unwrap()
        );
        let secrets: Vec<&str> = c["secrets"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        if secrets.is_empty() {
            ok_cases += 1;
            if super::redact(text) != text {
                ok_changed += 1;
                misses.push(format!("  (changed, no secret) {name}"));
            }
            continue;
        }
        let body = super::redact(text).into_owned();
        for s in secrets {
            let ps = pieces(s);
            if ps.is_empty() {
                continue;
            }
            let at = text.find(s).unwrap_or(0);
            let outputs: [(usize, Option<Vec<String>>); 4] = [
                (0, Some(vec![body.clone()])),
                (1, Some(title_path(&window(text, at, 200)))),
                (2, Some(compaction_path(&window(text, at, 400)))),
                (
                    3,
                    (!s.contains(['/', '\\', '\n']) && s == s.trim()).then(|| trace_path(s)),
                ),
            ];
            for (k, out) in outputs {
                let Some(out) = out else { continue };
                figures[k].2 += 1;
                let leaked = out.iter().any(|o| {
                    let low = o.to_lowercase();
                    ps.iter()
                        .any(|p| o.contains(p) || (k == 1 && low.contains(&p.to_lowercase())))
                });
                if leaked {
                    figures[k].1 += 1;
                    misses.push(format!(
                        "  {} {name}: {}",
                        figures[k].0,
                        &s[..s.len().min(60)]
                    ));
                }
            }
        }
    }
    eprintln!("held-out corpus: {}", v["source"].as_str().unwrap_or("?"));
    for (path, persisted, of) in figures {
        eprintln!("  {path:<12} {persisted:>3} of {of:>3} secrets persist");
    }
    eprintln!("  ordinary files changed: {ok_changed} of {ok_cases}");
    misses.sort();
    eprintln!("{}", misses.join("\n"));
}

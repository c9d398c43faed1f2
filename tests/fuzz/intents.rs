//! `.orchestration/active_intents.yaml` (`governance::intents::parse`): a hostile project file.
//! Parsing is total; every intent it loads is well formed (its id appears in the text, its
//! scope compiles, ids are unique); a file written from known intents loads exactly those.

use hookwise::governance::intents;
use hookwise::governance::scope::Scope;
use proptest::prelude::*;

use crate::common::{
    check, deep_depth, lines_from, mutate_str, nasty_string, text_of, DIGITS, UPPER,
};

/// Bits of YAML that change how a file reads: anchors, aliases, tags, flow style, block
/// scalars, documents, comments, merge keys.
const YAML_BITS: &[&str] = &[
    "active_intents:",
    "active_intents: []",
    "active_intents: [",
    "  - id: ",
    "  - ",
    "    id: ",
    "    name: ",
    "    status: ",
    "    owned_scope: ",
    "    owned_scope:",
    "      - ",
    "    constraints: ",
    "    acceptance_criteria: ",
    "INT-1",
    "IN_PROGRESS",
    "[src/**]",
    "[\"**\"]",
    "\"!src/x/**\"",
    "&a ",
    "*a",
    "<<: *a",
    "!!str ",
    "!!binary ",
    "!custom ",
    "? ",
    "---",
    "...",
    "# c",
    "|",
    ">-",
    "{",
    "}",
    "[",
    "]",
    ", ",
    ": ",
    "'",
    "\"",
    "\\",
    "%YAML 1.2",
    "\t",
    "~",
    "null",
    "0x10",
    "1e3",
    ".inf",
];

/// A letter, then letters and spaces.
fn words(max: usize) -> impl Strategy<Value = String> {
    (
        text_of(UPPER, 1..2),
        text_of("abcdefghijklmnopqrstuvwxyz ", 0..max),
    )
        .prop_map(|(a, b)| format!("{a}{b}"))
}

#[derive(Debug, Clone)]
struct Entry {
    id: String,
    name: String,
    status: &'static str,
    scope: Vec<String>,
    constraints: Vec<String>,
}

fn entry() -> impl Strategy<Value = Entry> {
    (
        (text_of(UPPER, 1..5), text_of(DIGITS, 1..4)).prop_map(|(a, b)| format!("{a}-{b}")),
        words(13),
        prop::sample::select(&["IN_PROGRESS", "COMPLETE", "BLOCKED"][..]),
        prop::collection::vec(
            prop::sample::select(
                &[
                    "src/**",
                    "src/auth/**",
                    "!src/auth/vendor/**",
                    "docs/*.md",
                    "**",
                    "./lib/",
                    "tests",
                ][..],
            )
            .prop_map(str::to_string),
            1..4,
        ),
        prop::collection::vec(words(11), 0..3),
    )
        .prop_map(|(id, name, status, scope, constraints)| Entry {
            id,
            name: name.trim().to_string(),
            status,
            scope,
            constraints,
        })
}

/// The file as a person writes it: block style, quoted where needed.
fn render(entries: &[Entry], flow: bool) -> String {
    let q = |s: &str| format!("\"{s}\"");
    if flow {
        let items: Vec<String> = entries
            .iter()
            .map(|e| {
                format!(
                    "{{id: {}, name: {}, status: {}, owned_scope: [{}], constraints: [{}]}}",
                    q(&e.id),
                    q(&e.name),
                    e.status,
                    e.scope.iter().map(|s| q(s)).collect::<Vec<_>>().join(", "),
                    e.constraints
                        .iter()
                        .map(|s| q(s))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        return format!("active_intents: [{}]\n", items.join(", "));
    }
    let mut t = String::from("# intents\nactive_intents:\n");
    for e in entries {
        t.push_str(&format!("  - id: {}\n    name: {}\n", e.id, q(&e.name)));
        t.push_str(&format!("    status: {}\n    owned_scope:\n", e.status));
        for s in &e.scope {
            t.push_str(&format!("      - {}\n", q(s)));
        }
        if !e.constraints.is_empty() {
            t.push_str("    constraints:\n");
            for c in &e.constraints {
                t.push_str(&format!("      - {}\n", q(c)));
            }
        }
    }
    t
}

fn yaml_like() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (prop::collection::vec(entry(), 0..4), any::<bool>())
            .prop_flat_map(|(es, flow)| mutate_str(Just(render(&es, flow)))),
        3 => lines_from(YAML_BITS),
        1 => (deep_depth(), any::<bool>()).prop_map(|(d, map)| if map {
            format!("active_intents:\n  - id: A\n    x: {}1{}\n", "{a: ".repeat(d), "}".repeat(d))
        } else {
            format!("active_intents: {}{}\n", "[".repeat(d), "]".repeat(d))
        }),
        1 => nasty_string(),
    ]
}

fn numeric(s: &str) -> bool {
    s.parse::<f64>().is_ok() || s.parse::<i128>().is_ok()
}

#[test]
fn any_intents_file_parses_to_well_formed_intents() {
    check("intents: parse (any text)", 384, yaml_like(), |text| {
        let f = intents::parse(".orchestration/active_intents.yaml", &text);
        // YAML breaks lines at a lone `\r` too, and (1.1) at U+0085, U+2028 and U+2029
        let lines = text
            .split(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'])
            .count()
            + 1;
        for p in &f.problems {
            prop_assert!(
                p.line >= 1 && p.line <= lines.max(1) + 1,
                "line {} of {}: {}",
                p.line,
                lines,
                p
            );
        }
        let mut seen = Vec::new();
        for i in &f.intents {
            prop_assert!(!seen.contains(&i.id), "duplicate {}", i.id);
            seen.push(i.id.clone());
            prop_assert!(!i.id.trim().is_empty() && !i.id.chars().any(char::is_whitespace));
            // an id is text of the file (escapes and numbers aside: `"\x41"`, `0x10`)
            if !text.contains('\\') && !text.contains("''") && !numeric(&i.id) {
                prop_assert!(text.contains(i.id.as_str()), "{:?} not in the text", i.id);
            }
            prop_assert!(
                Scope::compile(&i.owned_scope).is_ok(),
                "{:?}",
                i.owned_scope
            );
            prop_assert!(i.line >= 1 && i.line <= lines.max(1) + 1);
        }
        Ok(())
    });
}

#[test]
fn a_file_written_from_intents_loads_them() {
    check(
        "intents: round trip (block and flow style)",
        256,
        (prop::collection::vec(entry(), 0..5), any::<bool>()),
        |(entries, flow)| {
            // ids are unique in a valid file: keep the first of each
            let mut es: Vec<Entry> = Vec::new();
            for e in entries {
                if !es.iter().any(|x| x.id == e.id) {
                    es.push(e);
                }
            }
            let text = render(&es, flow);
            let f = intents::parse("f.yaml", &text);
            prop_assert!(
                f.problems
                    .iter()
                    .all(|p| p.severity == intents::Severity::Warning),
                "{text}\n{:?}",
                f.problems
            );
            prop_assert_eq!(f.intents.len(), es.len(), "{}", text);
            for (got, want) in f.intents.iter().zip(&es) {
                prop_assert_eq!(&got.id, &want.id);
                prop_assert_eq!(&got.name, &want.name);
                prop_assert_eq!(got.status.as_str(), want.status);
                prop_assert_eq!(&got.owned_scope, &want.scope);
                prop_assert_eq!(&got.constraints, &want.constraints);
            }
            prop_assert_eq!(
                f.selectable().count(),
                es.iter().filter(|e| e.status == "IN_PROGRESS").count()
            );
            Ok(())
        },
    );
}

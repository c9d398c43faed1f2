//! Unit tests of [`super`], kept in their own file (moved verbatim from the module).

use super::*;

const F: &str = ".orchestration/active_intents.yaml";

const VALID: &str = "\
# intents for this repo
active_intents:
  - id: INT-001
    name: JWT authentication
    status: IN_PROGRESS
    owned_scope:
      - src/auth/**
      - \"!src/auth/vendor/**\"
    constraints:
      - Keep the public API of src/auth/index.ts
    acceptance_criteria: [All tests in tests/auth pass]
  - id: INT-002
    name: Billing
    status: COMPLETE
    owned_scope: [src/billing/**]
";

fn errors(f: &IntentFile) -> Vec<&Problem> {
    f.problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .collect()
}

#[test]
fn valid_file() {
    let f = parse(F, VALID);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!(f.ids(), vec!["INT-001", "INT-002"]);
    let a = &f.intents[0];
    assert_eq!(a.status, Status::InProgress);
    assert_eq!(a.owned_scope, vec!["src/auth/**", "!src/auth/vendor/**"]);
    assert_eq!(
        a.constraints,
        vec!["Keep the public API of src/auth/index.ts"]
    );
    assert_eq!(a.acceptance_criteria, vec!["All tests in tests/auth pass"]);
    assert_eq!((a.line, f.intents[1].line), (3, 12));
    assert_eq!(f.selectable().count(), 1);
}

#[test]
fn empty_list_and_scaffold() {
    let f = parse(F, "active_intents: []\n");
    assert!(f.intents.is_empty() && f.problems.is_empty());
    let f = parse(F, "active_intents:\n");
    assert!(f.intents.is_empty() && f.problems.is_empty());
    let f = parse(F, "");
    assert_eq!(f.problems[0].severity, Severity::Warning);
}

#[test]
fn missing_fields_and_unknown_status_skip_only_that_entry() {
    let text = "\
active_intents:
  - id: A
    name: ok
    status: IN_PROGRESS
    owned_scope: [a/**]
  - id: B
    status: DONE
    owned_scope: [b/**]
  - name: no id
    status: BLOCKED
    owned_scope: [c/**]
  - id: D
    name: d
    status: IN_PROGRESS
    owned_scope: [d/**]
    owner: me
";
    let f = parse(F, text);
    assert_eq!(f.ids(), vec!["A", "D"]);
    let e = errors(&f);
    let status = e.iter().find(|p| p.message.contains("DONE")).unwrap();
    assert_eq!(status.line, 7, "{status}");
    assert!(status.message.contains("IN_PROGRESS, COMPLETE or BLOCKED"));
    assert!(e
        .iter()
        .any(|p| p.line == 6 && p.message.contains("missing required field 'name'")));
    assert!(e.iter().any(|p| p.line == 9 && p.message.contains("'id'")));
    let w = f
        .problems
        .iter()
        .find(|p| p.severity == Severity::Warning)
        .unwrap();
    assert_eq!(w.line, 16);
    assert!(w.message.contains("owner"));
    assert!(w
        .to_string()
        .starts_with(".orchestration/active_intents.yaml:16: warning:"));
}

#[test]
fn syntax_error_in_one_entry_keeps_the_others() {
    let text = "\
active_intents:
  - id: A
    name: ok
    status: IN_PROGRESS
    owned_scope: [a/**]
  - id: B
    name: \"unterminated
    status: IN_PROGRESS
    owned_scope: [b/**]
  - id: C
    name: fine
    status: BLOCKED
    owned_scope: [c/**]
";
    let f = parse(F, text);
    assert_eq!(f.ids(), vec!["A", "C"]);
    let e = errors(&f);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!((6..=10).contains(&e[0].line), "{}", e[0]);
    assert!(e[0].message.contains("not valid YAML"));
}

#[test]
fn malformed_file() {
    let f = parse(F, "active_intents: [\n  {id: A\n");
    assert!(f.intents.is_empty());
    assert_eq!(f.problems.len(), 1);
    assert!(f.problems[0].message.contains("not valid YAML"));
    let f = parse(F, "intents:\n  - id: A\n");
    assert!(f.problems[0].message.contains("active_intents"));
    let f = parse(F, "- a\n- b\n");
    assert!(f.problems[0].message.contains("mapping"));
    let f = parse(F, "active_intents: 3\n");
    assert!(f.problems[0].message.contains("must be a list"));
    // duplicate keys are a YAML error
    let f = parse(
            F,
            "active_intents:\n  - id: A\n    id: B\n    name: n\n    status: IN_PROGRESS\n    owned_scope: [a]\n",
        );
    assert!(f.intents.is_empty());
    assert!(
        f.problems[0].message.to_lowercase().contains("duplicate"),
        "{:?}",
        f.problems
    );
}

#[test]
fn wrong_types_duplicates_bad_globs_and_colon_pitfall() {
    let text = "\
active_intents:
  - id: A
    name: a
    status: IN_PROGRESS
    owned_scope: src/**
    constraints:
      - Must not: break the API
  - id: A
    name: again
    status: IN_PROGRESS
    owned_scope: [x/**]
  - id: C
    name: c
    status: IN_PROGRESS
    owned_scope: [\"src/[\", ../up]
  - id: 7
    name: numeric id
    status: IN_PROGRESS
    owned_scope: [\"!only/excluded\"]
";
    let f = parse(F, text);
    let e = errors(&f);
    let colon = e.iter().find(|p| p.message.contains("quotes")).unwrap();
    assert_eq!(colon.line, 6);
    assert!(colon.message.contains("Must not"));
    assert!(e
        .iter()
        .any(|p| p.line == 8 && p.message.contains("duplicate id 'A'")));
    assert!(e
        .iter()
        .any(|p| p.line == 15 && p.message.contains("src/[")));
    assert!(e
        .iter()
        .any(|p| p.line == 15 && p.message.contains("../up")));
    // A had a bad constraint: skipped; the duplicate A is skipped; numeric id loads
    assert_eq!(f.ids(), vec!["7"]);
    assert!(f
        .problems
        .iter()
        .any(|p| p.severity == Severity::Warning && p.message.contains("only exclusions")));
}

#[test]
fn flow_style_names_entries_by_position() {
    let f = parse(
            F,
            "active_intents: [{id: A, name: a, status: IN_PROGRESS, owned_scope: [a]}, {id: B, name: b, status: NOPE, owned_scope: [b]}]\n",
        );
    assert_eq!(f.ids(), vec!["A"]);
    assert!(f.problems[0].message.contains("entry #2"));
    assert_eq!(f.problems[0].line, 1);
}

#[test]
fn crlf_files_and_items_on_their_own_line() {
    let text = "active_intents:\r\n  -\r\n    id: A\r\n    name: a\r\n    status: IN_PROGRESS\r\n    owned_scope: [a]\r\n  - id: B\r\n    name: b\r\n    status: NOPE\r\n    owned_scope: [b]\r\n";
    let f = parse(F, text);
    assert_eq!(f.ids(), vec!["A"]);
    assert_eq!(
        (f.intents[0].line, f.problems[0].line),
        (2, 9),
        "{:?}",
        f.problems
    );
}

#[test]
fn indentless_sequence_and_other_top_level_keys() {
    let text = "\
version: 1
active_intents:
- id: A
  name: a
  status: IN_PROGRESS
  owned_scope: [a/**]
- id: B
  name: b
  status: BLOCKED
  owned_scope: [b/**]
notes: hi
";
    let f = parse(F, text);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!((f.intents[0].line, f.intents[1].line), (3, 7));
}

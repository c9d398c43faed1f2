//! A small JSON Schema checker for the keywords the Agent Trace schema uses, and its own tests.

use super::*;

/// The shared schema, vendored (CC BY 4.0, agent-trace.dev).
const SCHEMA: &str = include_str!("agent-trace-record-v0.1.0.schema.json");

fn is_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|x| x.iter().all(u8::is_ascii_digit))
    };
    if b.len() < 20
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
    {
        return false;
    }
    if !matches!(b[10], b'T' | b't')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match b.get(i) {
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            i + 6 == b.len() && digits(i + 1..i + 3) && b[i + 3] == b':' && digits(i + 4..i + 6)
        }
        _ => false,
    }
}

fn check(root: &Value, schema: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    for (k, s) in obj {
        match k.as_str() {
            "$ref" => {
                let name = s
                    .as_str()
                    .unwrap()
                    .strip_prefix("#/$defs/")
                    .expect("local $ref");
                check(root, &root["$defs"][name], v, at, errs);
            }
            "type" => {
                let ok = match s.as_str().unwrap() {
                    "object" => v.is_object(),
                    "array" => v.is_array(),
                    "string" => v.is_string(),
                    "integer" => v.is_i64() || v.is_u64(),
                    t => panic!("type {t} not supported"),
                };
                if !ok {
                    errs.push(format!("{at}: not {s}"));
                }
            }
            "required" => {
                for r in s.as_array().unwrap() {
                    let r = r.as_str().unwrap();
                    if v.get(r).is_none() {
                        errs.push(format!("{at}: missing {r}"));
                    }
                }
            }
            "properties" => {
                for (p, ps) in s.as_object().unwrap() {
                    if let Some(x) = v.get(p) {
                        check(root, ps, x, &format!("{at}.{p}"), errs);
                    }
                }
            }
            "items" => {
                for (i, x) in v.as_array().into_iter().flatten().enumerate() {
                    check(root, s, x, &format!("{at}[{i}]"), errs);
                }
            }
            "enum" => {
                if !s.as_array().unwrap().contains(v) {
                    errs.push(format!("{at}: {v} not in {s}"));
                }
            }
            "minimum" => {
                if v.as_f64().is_some_and(|n| n < s.as_f64().unwrap()) {
                    errs.push(format!("{at}: below {s}"));
                }
            }
            "maxLength" => {
                if v.as_str()
                    .is_some_and(|x| x.chars().count() as u64 > s.as_u64().unwrap())
                {
                    errs.push(format!("{at}: longer than {s}"));
                }
            }
            "pattern" => {
                assert_eq!(
                    s, "^[0-9]+\\.[0-9]+\\.[0-9]+$",
                    "only the version pattern is supported"
                );
                let x = v.as_str().unwrap_or("");
                let parts: Vec<&str> = x.split('.').collect();
                if parts.len() != 3
                    || parts
                        .iter()
                        .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
                {
                    errs.push(format!("{at}: {x} does not match {s}"));
                }
            }
            "format" => {
                let x = v.as_str().unwrap_or("");
                let ok = match s.as_str().unwrap() {
                    "uuid" => is_uuid(x),
                    "date-time" => is_date_time(x),
                    "uri" => x.contains(':'),
                    f => panic!("format {f} not supported"),
                };
                if !ok {
                    errs.push(format!("{at}: {x} is not a {s}"));
                }
            }
            "$schema" | "$id" | "title" | "description" | "$defs" => {}
            other => panic!("schema keyword {other} not supported by the test checker"),
        }
    }
}

pub(super) fn schema_errors(record: &Value) -> Vec<String> {
    let root: Value = serde_json::from_str(SCHEMA).unwrap();
    let mut errs = Vec::new();
    check(&root, &root, record, "$", &mut errs);
    errs
}

/// The vendored copy is the shared schema (checked wherever `shared/` sits beside the repo,
/// as in CI and the worktrees).
#[test]
fn vendored_schema_matches_the_shared_one() {
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/schemas/agent-trace-record-v0.1.0.schema.json");
    if let Ok(text) = std::fs::read_to_string(&shared) {
        assert_eq!(
            text,
            SCHEMA,
            "update src/governance/ from {}",
            shared.display()
        );
    }
    let v: Value = serde_json::from_str(SCHEMA).unwrap();
    assert_eq!(
        v["required"],
        json!(["version", "id", "timestamp", "files"])
    );
}

#[test]
fn the_checker_catches_bad_records() {
    assert!(is_date_time("2026-11-22T03:12:03.456Z") && is_date_time("2026-11-22T03:12:03+01:00"));
    assert!(!is_date_time("2026-11-22 03:12:03Z") && !is_date_time("2026-11-22T03:12:03.Z"));
    assert!(is_uuid("00010203-0405-4607-8809-0a0b0c0d0e0f") && !is_uuid("0001020304054607"));
    let bad = json!({"version": "1.0", "id": "x", "timestamp": "now",
        "files": [{"path": "a", "conversations": [{"contributor": {"type": "robot"}, "ranges": [{"start_line": 0, "end_line": 1}]}]}],
        "vcs": {"type": "cvs"}});
    let e = schema_errors(&bad);
    for frag in [
        "$.version",
        "$.id",
        "$.timestamp",
        "contributor.type",
        "start_line",
        "$.vcs: missing revision",
        "$.vcs.type",
    ] {
        assert!(
            e.iter().any(|x| x.contains(frag)),
            "{frag} not flagged in {e:?}"
        );
    }
    assert!(!schema_errors(&json!({"version": "0.1.0"})).is_empty());
}

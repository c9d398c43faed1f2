//! The test host answers the requests of `tests/shapes/host_replies.json` with the reply
//! shapes and codes the JS host gives (`tests/js/host-shapes.test.mjs` checks `js/host.cjs`
//! against the same file).

use serde_json::Value;

use crate::protocol::Request;

use super::{Reply, TestHost};

const SHAPES: &str = include_str!("../../tests/shapes/host_replies.json");

/// Whether `v` has the shape `s` (see the fixture's `about`); `Err` says where not.
pub(crate) fn check(v: &Value, s: &Value, at: &str) -> Result<(), String> {
    let fail = || Err(format!("{at}: {v} is not {s}"));
    match s {
        Value::String(t)
            if matches!(
                t.as_str(),
                "string" | "number" | "boolean" | "array" | "object"
            ) =>
        {
            let ok = match t.as_str() {
                "string" => v.is_string(),
                "number" => v.is_number(),
                "boolean" => v.is_boolean(),
                "array" => v.is_array(),
                _ => v.is_object(),
            };
            if ok {
                Ok(())
            } else {
                fail()
            }
        }
        Value::Object(keys) => {
            let Some(o) = v.as_object() else {
                return fail();
            };
            for (k, sv) in keys {
                let (k, optional) = match k.strip_suffix('?') {
                    Some(k) => (k, true),
                    None => (k.as_str(), false),
                };
                match o.get(k) {
                    Some(x) => check(x, sv, &format!("{at}.{k}"))?,
                    None if optional => {}
                    None => return Err(format!("{at}: {v} lacks {k}")),
                }
            }
            match o
                .keys()
                .find(|k| !keys.contains_key(*k) && !keys.contains_key(&format!("{k}?")))
            {
                Some(k) => Err(format!("{at}: {v} has {k}, not in {s}")),
                None => Ok(()),
            }
        }
        Value::Array(items) => match v.as_array() {
            Some(a) if a.len() == items.len() => {
                for (i, (x, sx)) in a.iter().zip(items).enumerate() {
                    check(x, sx, &format!("{at}[{i}]"))?;
                }
                Ok(())
            }
            _ => fail(),
        },
        Value::Number(n) if v.as_f64() == n.as_f64() => Ok(()),
        _ if v == s => Ok(()),
        _ => fail(),
    }
}

/// `$ROOT` replaced in every string of `v`.
fn rooted(v: &Value, root: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("$ROOT", root)),
        Value::Array(a) => Value::Array(a.iter().map(|x| rooted(x, root)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), rooted(x, root)))
                .collect(),
        ),
        v => v.clone(),
    }
}

#[test]
fn the_test_host_replies_as_the_js_host_does() {
    let fixture: Value = serde_json::from_str(SHAPES).unwrap();
    let root = "/r";
    let mut host = TestHost::default();
    for (rel, text) in fixture["files"].as_object().unwrap() {
        let path = format!("{root}/{rel}");
        match text.as_str() {
            Some(t) => host.file(&path, t),
            // bytes that are not UTF-8 (the JS test writes ff fe fd)
            None => host.file(&path, "\u{FFFD}"),
        }
    }
    host.executables.insert(format!("{root}/tool"));
    for (rel, target) in fixture["links"].as_object().unwrap() {
        host.link(&format!("{root}/{rel}"), target.as_str().unwrap());
    }
    for (rel, existing) in fixture["hardLinks"].as_object().unwrap() {
        host.hard_link(
            &format!("{root}/{rel}"),
            &format!("{root}/{}", existing.as_str().unwrap()),
        );
    }
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() > 20);
    for (i, case) in cases.iter().enumerate() {
        let req: Request = serde_json::from_value(rooted(&case["request"], root))
            .unwrap_or_else(|e| panic!("case {i}: {e}"));
        let mut reply = match host.answer(&req) {
            Reply::Now(v) | Reply::Later(v) | Reply::After(_, v) => v,
            Reply::Never => panic!("case {i}: no reply"),
        };
        if let Some(Value::Array(rows)) = reply.get_mut("entries") {
            rows.sort_by(|a, b| a[0].as_str().cmp(&b[0].as_str()));
        }
        if let Err(e) = check(
            &reply,
            &case["reply"],
            &format!("case {i} {}", case["request"]["kind"]),
        ) {
            panic!("{e}");
        }
    }
}

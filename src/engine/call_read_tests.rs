//! [`super::tagged`] reads what serde's internally tagged enums read: the same values, the same
//! errors (but for where serde's error points: its position), on calls written by hand and
//! generated ones; and what it reads of the real [`Call`].

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;

use super::tagged;
use crate::engine::Call;
use crate::test_rng::xorshift;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // read through Debug
struct Fields {
    name: String,
    #[serde(default)]
    session_id: Option<u64>,
    #[serde(default)]
    args: Value,
}

/// One list of variants, two enums: serde's internally tagged one, and ours (externally
/// tagged, read by [`tagged`]), with the kinds of variant [`Call`] has.
macro_rules! both {
    ($($body:tt)*) => {
        #[derive(Debug, Deserialize)]
        #[serde(tag = "hook", rename_all_fields = "camelCase")]
        #[allow(dead_code)]
        enum Serde { $($body)* }

        #[derive(Debug, Deserialize)]
        #[serde(rename_all_fields = "camelCase")]
        #[allow(dead_code)]
        enum Ours { $($body)* }
    };
}

both! {
    #[serde(rename = "unit")]
    Unit,
    #[serde(rename = "new.type")]
    Newtype(Fields),
    #[serde(rename = "struct", alias = "old.struct")]
    Struct {
        session_id: String,
        #[serde(default)]
        now_ms: f64,
        #[serde(default)]
        list: Vec<String>,
    },
    #[serde(rename = "ignored")]
    Ignored(IgnoredAny),
}

/// Both readers' answers to `json`, as text: the value, or the error without its position.
fn answers(json: &str) -> (String, String) {
    let strip = |e: serde_json::Error| {
        let s = e.to_string();
        match s.find(" at line ") {
            Some(k) => format!("error: {}", &s[..k]),
            None => format!("error: {s}"),
        }
    };
    let theirs = serde_json::from_str::<Serde>(json).map_or_else(strip, |v| format!("{v:?}"));
    let ours = tagged::<Ours>(json.as_bytes(), "Serde").map_or_else(strip, |v| format!("{v:?}"));
    (theirs, ours)
}

fn same(json: &str) {
    let (theirs, ours) = answers(json);
    assert_eq!(ours, theirs, "{json}");
}

#[test]
fn reads_what_serde_reads_by_hand() {
    for json in [
        r#"{"hook":"unit"}"#,
        r#"{"a":1,"hook":"unit","b":[1,{"c":null}]}"#,
        r#"{"hook":"new.type","name":"bash","sessionId":7,"args":{"x":[1,2.5,"s"]}}"#,
        r#"{"name":"bash","hook":"new.type"}"#,
        r#"{"args":{},"name":"bash","extra":true,"hook":"new.type"}"#,
        r#"{"hook":"struct","sessionId":"s","nowMs":12}"#,
        r#"{"nowMs":1.5,"list":["a","b"],"sessionId":"s","hook":"old.struct"}"#,
        r#"{"hook":"ignored","anything":[{}]}"#,
        r#"{"hook":"ignored"}"#,
        // errors: not an object, the tag missing, twice, not a name, unknown
        "null",
        "5",
        "1.5",
        r#""unit""#,
        "true",
        "{}",
        r#"{"a":1}"#,
        r#"{"hook":"unit","hook":"unit"}"#,
        r#"{"hook":null}"#,
        r#"{"hook":0}"#,
        r#"{"hook":{}}"#,
        r#"{"hook":["unit"]}"#,
        r#"{"hook":"nope"}"#,
        r#"{"hook":"Unit"}"#,
        // a variant's fields: missing, twice, of the wrong type
        r#"{"hook":"new.type"}"#,
        r#"{"hook":"new.type","name":5}"#,
        r#"{"hook":"new.type","name":"a","name":"b"}"#,
        r#"{"hook":"new.type","name":"a","sessionId":-1}"#,
        r#"{"hook":"new.type","name":"a","sessionId":1.5}"#,
        r#"{"hook":"struct"}"#,
        r#"{"hook":"struct","sessionId":"s","nowMs":"1"}"#,
        r#"{"hook":"struct","sessionId":"s","list":[1]}"#,
        r#"{"hook":"struct","sessionId":"s","sessionId":"t"}"#,
        // not JSON
        "",
        "{",
        r#"{"hook":"unit""#,
        r#"{"hook":"unit",}"#,
        r#"{"hook":"unit"} x"#,
        r#"{"hook":"unit"}  "#,
    ] {
        same(json);
    }
}

/// Objects built from the pieces above in random order, with one piece broken now and then.
#[test]
fn reads_what_serde_reads_generated() {
    let keys = ["hook", "name", "sessionId", "nowMs", "list", "args", "x"];
    let values = [
        r#""unit""#,
        r#""new.type""#,
        r#""struct""#,
        r#""old.struct""#,
        r#""ignored""#,
        r#""nope""#,
        r#""s""#,
        "7",
        "-3",
        "2.5",
        "null",
        "true",
        "[]",
        r#"["a","b"]"#,
        r#"[1]"#,
        r#"{"k":[{}]}"#,
        "{",
    ];
    let mut next = xorshift(0x5eed_ca11);
    for _ in 0..20_000 {
        let n = next(5);
        let mut fields = Vec::new();
        for _ in 0..n {
            // (the last value, `{`, is not JSON: one field in twenty may take it)
            let broken = (next(20) == 0) as usize;
            let v = values[next(values.len() - 1 + broken)];
            fields.push(format!("\"{}\":{v}", keys[next(keys.len())]));
        }
        same(&format!("{{{}}}", fields.join(",")));
    }
}

/// serde took an array `["hook", fields…]` as a call too; a call is an object.
#[test]
fn an_array_is_not_a_call() {
    for json in [r#"["unit"]"#, r#"["struct","s",1,[]]"#] {
        assert!(serde_json::from_str::<Serde>(json).is_ok(), "{json}");
        let e = tagged::<Ours>(json.as_bytes(), "Serde").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("invalid type: sequence, expected internally tagged enum Serde"),
            "{e}"
        );
    }
    let e = Call::from_json(br#"["doctor"]"#).unwrap_err();
    assert!(
        e.to_string()
            .contains("expected internally tagged enum Call"),
        "{e}"
    );
}

#[test]
fn reads_the_calls() {
    assert!(matches!(
        Call::from_json(br#"{"x":1,"hook":"doctor"}"#),
        Ok(Call::Doctor)
    ));
    let call = br#"{"tool":"bash","hook":"tool.before","sessionId":"s","callId":"c","args":{"command":"ls"}}"#;
    let Ok(Call::ToolBefore(t)) = Call::from_json(call) else {
        panic!("tool.before")
    };
    assert_eq!(t.tool, "bash");
    assert_eq!(t.args.unwrap()["command"], "ls");
    assert!(matches!(
        Call::from_json(br#"{"hook":"session.compacting","sessionId":"s","nowMs":5}"#),
        Ok(Call::SessionCompacting { session_id, now_ms }) if session_id == "s" && now_ms == 5.0
    ));
    assert!(matches!(
        Call::from_json(br#"{"hook":"tool.call","name":"knowledge_search"}"#),
        Ok(Call::ToolCall { name, .. }) if name == "knowledge_search"
    ));
    // the old name of `hook.event`
    assert!(matches!(
        Call::from_json(br#"{"hook":"claude.hook","event":"PreToolUse"}"#),
        Ok(Call::Hook(_))
    ));
    for (json, says) in [
        (&br#"{"hook":"tool.before"}"#[..], "missing field `tool`"),
        (
            br#"{"hook":"no-such-hook"}"#,
            "unknown variant `no-such-hook`",
        ),
        (br#"{"tool":"x"}"#, "missing field `hook`"),
        (
            br#"{"hook":"doctor","hook":"doctor"}"#,
            "duplicate field `hook`",
        ),
    ] {
        let e = Call::from_json(json).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
}

use super::*;
use serde_json::Value;

fn parse(s: &str) -> (Value, Cleaned<'_>) {
    let c = clean(s.as_bytes());
    let v: Value = serde_json::from_slice(&c.bytes).expect("cleaned JSON parses");
    (v, c)
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn lone_surrogates_read_as_the_host_writes_them() {
    // a lone high, a lone low, a high at the end, a reversed pair
    for (raw, want) in [
        (r#"{"p":"a\ud800b"}"#, "a\u{FFFD}b"),
        (r#"{"p":"\uDFFF"}"#, "\u{FFFD}"),
        (r#"{"p":"x\ud83d"}"#, "x\u{FFFD}"),
        (r#"{"p":"\udc00\ud800"}"#, "\u{FFFD}\u{FFFD}"),
        (r#"{"p":"\ud800\u0041"}"#, "\u{FFFD}A"),
    ] {
        let (v, c) = parse(raw);
        assert_eq!(v["p"], want, "{raw}");
        assert!(c.surrogates > 0 && !c.too_deep);
    }
    // Node writes the same bytes for the file: U+FFFD
    assert_eq!("\u{FFFD}".as_bytes(), [0xEF, 0xBF, 0xBD]);
}

#[test]
fn valid_text_is_untouched_and_not_copied() {
    for raw in [
        r#"{"p":"😀 \ud83d\ude00 日本語 עברית e\u0301","q":"\\ud800 is text"}"#,
        r#"{"hook":"tool.before","args":{"a":[[[]]],"b":"]]}}[["}}"#,
        r#"{"s":"a\"\\\"b\\"}"#,
    ] {
        let c = clean(raw.as_bytes());
        assert!(matches!(c.bytes, Cow::Borrowed(_)), "{raw}");
        assert_eq!(c.surrogates, 0);
        assert!(!c.too_deep);
    }
    // the escaped backslash before `ud800` is text, not an escape
    let (v, _) = parse(r#"{"q":"\\ud800"}"#);
    assert_eq!(v["q"], "\\ud800");
}

#[test]
fn deep_arguments_are_cut_and_marked() {
    // the call is level 1, args level 2: 64 levels of args are read whole
    let ok = format!(
        r#"{{"hook":"tool.before","tool":"write","args":{}}}"#,
        nested(MAX_ARGS_DEPTH)
    );
    let c = clean(ok.as_bytes());
    assert!(!c.too_deep);
    let deep = format!(
        r#"{{"hook":"tool.before","tool":"write","args":{{"filePath":"a","x":{}}},"callId":"c"}}"#,
        nested(10_000)
    );
    let (v, c) = parse(&deep);
    assert!(c.too_deep);
    assert_eq!(v["tool"], "write");
    assert_eq!(v["callId"], "c", "what follows the cut is read");
    assert_eq!(v["args"]["filePath"], "a");
    // strings that look like brackets inside the cut value do not end it early
    let tricky = format!(
        r#"{{"args":{{"x":{}"]]]]]]]]\"]]"{}}},"tool":"t"}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    let (v, c) = parse(&tricky);
    assert!(c.too_deep);
    assert_eq!(v["tool"], "t");
}

#[test]
fn linear_on_hostile_input() {
    // a million opens, a million escapes: one pass each, no blow-up (counted by output size)
    let opens = "[".repeat(1_000_000);
    let c = clean(opens.as_bytes());
    assert!(c.too_deep);
    assert!(c.bytes.len() < 100);
    let escapes = format!(r#"{{"p":"{}"}}"#, r"\ud800".repeat(200_000));
    let (v, c) = parse(&escapes);
    assert_eq!(c.surrogates, 200_000);
    assert_eq!(v["p"].as_str().unwrap().chars().count(), 200_000);
}

#[test]
fn not_json_is_passed_on() {
    for raw in [
        "",
        "\"",
        "\"\\",
        "{\"a\":\"\\u12",
        "]]]]",
        "{\"a\":\"\\ud800",
    ] {
        let c = clean(raw.as_bytes());
        assert!(serde_json::from_slice::<Value>(&c.bytes).is_err() || raw.is_empty());
    }
}

#[test]
fn host_codes() {
    assert_eq!(Unreadable::from_code("depth"), Unreadable::Depth);
    assert_eq!(
        Unreadable::from_code("value:function"),
        Unreadable::Value("function".into())
    );
    assert!(Unreadable::from_code(&"x".repeat(10_000)).reason().len() < 300);
}

#[test]
fn replies_get_the_same_reading() {
    let raw = r#"[[1,{"messages":[{"role":"user","text":"a\ud800"}]}]]"#;
    let c = clean_replies(raw.as_bytes());
    let v: Value = serde_json::from_slice(&c.bytes).unwrap();
    assert_eq!(v[0][1]["messages"][0]["text"], "a\u{FFFD}");
    let deep = format!("[[1,{}]]", nested(1_000));
    assert!(serde_json::from_slice::<Value>(&clean_replies(deep.as_bytes()).bytes).is_ok());
}

//! The limits as an attacker would try them, and the YAML pre-scan side by side with libyaml's
//! own scanner (the one serde_norway runs), token by token.

use std::mem::MaybeUninit;

use super::yaml_scan::{Scanner, Tok};
use super::*;
use crate::test_rng::Rng;

/// libyaml's tokens for `text` (type and byte offset), as serde_norway configures it; `false`
/// when it stopped with an error (the tokens are then a prefix of what it would have found).
fn libyaml_tokens(text: &str) -> (Vec<(Tok, usize)>, bool) {
    use unsafe_libyaml_norway as unsafe_yaml;
    let mut out = Vec::new();
    // SAFETY: the parser is initialized before use, reads `text` (alive for the whole call)
    // and is deleted before returning; every token is deleted after its fields are read.
    unsafe {
        let mut parser = MaybeUninit::<unsafe_yaml::yaml_parser_t>::uninit();
        assert!(unsafe_yaml::yaml_parser_initialize(parser.as_mut_ptr()).ok);
        let parser = parser.as_mut_ptr();
        unsafe_yaml::yaml_parser_set_encoding(parser, unsafe_yaml::YAML_UTF8_ENCODING);
        unsafe_yaml::yaml_parser_set_input_string(parser, text.as_ptr(), text.len() as u64);
        let complete = loop {
            let mut token = MaybeUninit::<unsafe_yaml::yaml_token_t>::uninit();
            if !unsafe_yaml::yaml_parser_scan(parser, token.as_mut_ptr()).ok {
                break false;
            }
            let token = token.as_mut_ptr();
            let kind = (*token).type_;
            let at = (*token).start_mark.index as usize;
            unsafe_yaml::yaml_token_delete(token);
            let tok = match kind {
                unsafe_yaml::YAML_STREAM_START_TOKEN => Tok::StreamStart,
                unsafe_yaml::YAML_STREAM_END_TOKEN => Tok::StreamEnd,
                unsafe_yaml::YAML_VERSION_DIRECTIVE_TOKEN
                | unsafe_yaml::YAML_TAG_DIRECTIVE_TOKEN => Tok::Directive,
                unsafe_yaml::YAML_DOCUMENT_START_TOKEN => Tok::DocumentStart,
                unsafe_yaml::YAML_DOCUMENT_END_TOKEN => Tok::DocumentEnd,
                unsafe_yaml::YAML_BLOCK_SEQUENCE_START_TOKEN => Tok::BlockSequenceStart,
                unsafe_yaml::YAML_BLOCK_MAPPING_START_TOKEN => Tok::BlockMappingStart,
                unsafe_yaml::YAML_BLOCK_END_TOKEN => Tok::BlockEnd,
                unsafe_yaml::YAML_FLOW_SEQUENCE_START_TOKEN => Tok::FlowSequenceStart,
                unsafe_yaml::YAML_FLOW_SEQUENCE_END_TOKEN => Tok::FlowSequenceEnd,
                unsafe_yaml::YAML_FLOW_MAPPING_START_TOKEN => Tok::FlowMappingStart,
                unsafe_yaml::YAML_FLOW_MAPPING_END_TOKEN => Tok::FlowMappingEnd,
                unsafe_yaml::YAML_BLOCK_ENTRY_TOKEN => Tok::BlockEntry,
                unsafe_yaml::YAML_FLOW_ENTRY_TOKEN => Tok::FlowEntry,
                unsafe_yaml::YAML_KEY_TOKEN => Tok::Key,
                unsafe_yaml::YAML_VALUE_TOKEN => Tok::Value,
                unsafe_yaml::YAML_ALIAS_TOKEN => Tok::Alias,
                unsafe_yaml::YAML_ANCHOR_TOKEN => Tok::Anchor,
                unsafe_yaml::YAML_TAG_TOKEN => Tok::Tag,
                unsafe_yaml::YAML_SCALAR_TOKEN => Tok::Scalar,
                _ => panic!("unexpected token type"),
            };
            out.push((tok, at));
            if tok == Tok::StreamEnd {
                break true;
            }
        };
        unsafe_yaml::yaml_parser_delete(parser);
        (out, complete)
    }
}

/// The pre-scan's tokens (it builds none in use; tests ask it to record them).
fn prescan_tokens(text: &str) -> (Vec<(Tok, usize)>, usize) {
    let mut s = Scanner::new(text, usize::MAX);
    s.trace = Some(Vec::new());
    s.run();
    (s.trace.take().unwrap(), s.steps)
}

/// The pre-scan finds the tokens libyaml finds, at the same places, as far as libyaml goes.
fn same_as_libyaml(text: &str) {
    let (want, complete) = libyaml_tokens(text);
    let (got, _) = prescan_tokens(text);
    if complete {
        assert_eq!(got, want, "tokens differ for {text:?}");
    } else {
        assert!(
            got.len() >= want.len() && got[..want.len()] == want[..],
            "tokens differ for {text:?}:\n libyaml {want:?}\n prescan {got:?}"
        );
    }
}

/// The deepest flow nesting libyaml reaches on `text`.
fn libyaml_flow_depth(text: &str) -> usize {
    let (toks, _) = libyaml_tokens(text);
    let (mut d, mut max) = (0usize, 0);
    for (t, _) in toks {
        match t {
            Tok::FlowSequenceStart | Tok::FlowMappingStart => {
                d += 1;
                max = max.max(d);
            }
            Tok::FlowSequenceEnd | Tok::FlowMappingEnd => d = d.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[test]
fn handwritten_tricks_scan_as_libyaml_scans_them() {
    let cases = [
        "active_intents:\n  - id: INT-1\n    owned_scope: [src/**, \"!src/x/**\"]\n",
        "a: [b, {c: d}, [e, [f]]]\n",
        // brackets in quotes, comments and block scalars are text
        "a: '[[[[' \nb: \"[[\\\"[[\"\nc: x # [[[[\nd: |\n  [[[[\n  {{{{\n",
        // a quote inside a plain scalar does not open a string: the brackets after are real
        "a: it's [b, [c]]\n",
        "- [a'b, [[c]]]\n",
        // a plain scalar continued on the next line swallows the brackets there
        "a: b\n  [[[[\nc: d\n",
        // … and one that is not continued (less indented) does not
        "a:\n  b: c\n [[d]]\n",
        // folded and literal scalars with indicators, chomping and explicit indentation
        "a: >-\n  [x\n   {y\n\n  z]\nb: |2+\n    [[\n",
        "- |\n [\n- x\n",
        // tags: verbatim tags may hold brackets
        "a: !<tag:[[x]]> b\nc: !!str [d]\n",
        "a: !t [b]\n",
        // anchors and aliases
        "a: &x [1, 2]\nb: *x\nc: [*x, *x]\n",
        // `?` keys, empty values, documents, directives
        "? [a]\n: b\n---\n- c\n...\n%YAML 1.1\n--- [d]\n",
        "%TAG !e! tag:[a]\n--- !e!x [b]\n",
        // tabs, CRLF, NEL, LS, BOM
        "a:\t[b]\r\nc: d\u{85}e: [f]\u{2028}g: h\n",
        "\u{feff}a: [b]\n",
        "a: [b\n  ,c]\n",
        // flow plain scalars with colons
        "{a:b, c: [d:e]}\n",
        "[a: b, c:]\n",
        // double-quoted escapes and line continuation
        "a: \"x\\\n  [y\\u0041\\x42\\U0001F600\"\nb: [c]\n",
        "'it''s [x'\n",
        // simple keys that go stale (line change, 1024 characters)
        "[a\n: b]\n",
        &format!("{}: [x]\n", "k".repeat(1100)),
        // indentless sequences and nested block collections
        "a:\n- b:\n  - c:\n    - [d]\n",
        "- - - [x]\n",
        "a:\n  b:\n    c:\n      d: [e]\n",
    ];
    for text in cases {
        same_as_libyaml(text);
    }
    // the depth libyaml reaches is the depth the pre-scan counts
    // in block context a bracket inside a plain scalar is text; in flow context a quote
    // inside one is text
    assert_eq!(libyaml_flow_depth("a: it's [b, [c]]\n"), 0);
    assert_eq!(libyaml_flow_depth("- [a'b, [[c]]]\n"), 3);
    assert_eq!(libyaml_flow_depth("a: '[[[[' # [[[\n"), 0);
    assert_eq!(libyaml_flow_depth("a: !<[[[> [x]\n"), 1);
}

/// Texts built from the pieces that steer libyaml's scanner: indicators, quotes, escapes,
/// comments, block scalar headers, tags, anchors, indentation, line breaks of every kind.
fn generated(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        ": ",
        " ",
        "  ",
        "    ",
        "\n",
        "\n  ",
        "\n    ",
        "\r\n",
        "\t",
        "'",
        "''",
        "\"",
        "\\",
        "\\\"",
        "\\\n",
        "#",
        " #",
        "-",
        "- ",
        "--- ",
        "...",
        "?",
        "? ",
        "|",
        ">",
        "|-",
        ">+2",
        "|1\n",
        "&a",
        "&a ",
        "*a",
        "*a ",
        "!",
        "!t ",
        "!!str ",
        "!<x>",
        "!<[",
        "%YAML 1.1\n",
        "%TAG ! x\n",
        "a",
        "bc",
        "k: ",
        "é",
        "\u{85}",
        "\u{2028}",
        "\u{feff}",
        "x:",
        "0",
        "@",
        "`",
        "\\x4",
        "\\u00e9",
        "%",
        "\n---\n",
        "key:\n- ",
        "\n- ",
        "[a, b]",
        "{a: b}",
        "'x'",
        "\"y\"",
    ];
    let n = 1 + rng.below(24);
    (0..n).map(|_| PIECES[rng.below(PIECES.len())]).collect()
}

#[test]
fn generated_texts_scan_as_libyaml_scans_them() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..60_000 {
        same_as_libyaml(&generated(&mut rng));
    }
}

/// `cargo test --release --lib bounded::tests::longer_run -- --ignored` (a few minutes)
#[test]
#[ignore]
fn longer_run() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3_000_000 {
        same_as_libyaml(&generated(&mut rng));
    }
}

#[test]
fn the_prescan_is_linear() {
    // a step is one character consumed, one line, one token or one level popped
    let hostile = [
        "[".repeat(1 << 20),
        "{a: ".repeat(1 << 18),
        "- ".repeat(1 << 19),
        format!(
            "a:\n{}",
            (1..1000)
                .map(|i| format!("{}b{i}:\n", " ".repeat(i)))
                .collect::<String>()
        ),
        "'".repeat(1 << 20),
        "\"\\".repeat(1 << 19),
        "|\n".repeat(1 << 19),
        "a: b\n ".repeat(1 << 18),
        "&a ".repeat(1 << 18),
        "!<[".repeat(1 << 18),
    ];
    for text in &hostile {
        let mut s = Scanner::new(text, usize::MAX);
        s.run();
        assert!(
            s.steps <= 4 * text.len() + 16,
            "{} steps for {} bytes",
            s.steps,
            text.len()
        );
    }
}

#[test]
fn deep_yaml_is_refused_with_its_line() {
    let deep = |open: &str, n: usize| format!("active_intents:\n  - x\nkey: {}", open.repeat(n));
    for open in ["[", "{", "{a: ", "[a, ", "[{a: "] {
        // the block mapping is one level, each `[` or `{` one more
        let per = open.matches(['[', '{']).count();
        let at_limit = deep(open, (MAX_DEPTH - 1) / per);
        assert_eq!(yaml_too_deep(&at_limit, MAX_DEPTH), None, "{open}");
        let over = deep(open, (MAX_DEPTH - 1) / per + 1);
        assert_eq!(yaml_too_deep(&over, MAX_DEPTH), Some(3), "{open}");
        let e = yaml::<serde_norway::Value>(&over, 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "nests deeper than 64 levels at line 3");
        assert_eq!(e.line(), Some(3));
    }
    // block nesting by indentation, by `- - -` and by indentless sequences
    let indented: String = (0..70)
        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
        .collect();
    assert_eq!(yaml_too_deep(&indented, MAX_DEPTH), Some(65));
    let dashes = format!("{}x\n", "- ".repeat(70));
    assert_eq!(yaml_too_deep(&dashes, MAX_DEPTH), Some(1));
    // `k0:\n- k1:\n  - k2:\n    - k3:` — a mapping and an indentless sequence per line
    let indentless: String = std::iter::once("k0:\n".to_string())
        .chain((1..40).map(|i| format!("{}- k{i}:\n", "  ".repeat(i - 1))))
        .collect();
    assert_eq!(yaml_too_deep(&indentless, MAX_DEPTH), Some(33));
    same_as_libyaml(&indentless);
    // brackets the scanner does not see as brackets are not depth
    let hidden = format!(
        "a: '{0}'\nb: \"{0}\"\nc: x # {0}\nd: |\n  {0}\ne: !<{0}> f\ng: h {0}\n",
        "[".repeat(500)
    );
    assert_eq!(yaml_too_deep(&hidden, MAX_DEPTH), None);
    assert!(yaml::<serde_norway::Value>(&hidden, 1 << 20).is_ok());
    // … and quotes that are not quotes hide nothing
    let fake_quote = format!("a: [it's, {}\n", "[".repeat(100));
    assert!(yaml_too_deep(&fake_quote, MAX_DEPTH).is_some());
    let continued = format!("a: b\n  it's\nc: {}\n", "[".repeat(100));
    assert!(yaml_too_deep(&continued, MAX_DEPTH).is_some());
}

#[test]
fn alias_expansion_is_bounded() {
    // billion laughs: each level ten of the one before
    let mut laughs = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let prev = format!("*a{}", i - 1);
        laughs.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
    }
    let e = yaml::<serde_norway::Value>(&laughs, 1 << 20).unwrap_err();
    assert!(
        matches!(e, YamlError::Refused(Refusal::Expands { .. })),
        "{e}"
    );
    assert!(e.to_string().contains("aliases"), "{e}");
    // one wide anchor used many times (80 KB that expanded to 2·10⁸ values)
    let wide = format!(
        "a: &a [{}]\nb: [{}]\n",
        vec!["x"; 10_000].join(","),
        vec!["*a"; 20_000].join(",")
    );
    assert!(matches!(
        yaml::<serde_json::Value>(&wide, 1 << 20),
        Err(YamlError::Refused(Refusal::Expands { .. }))
    ));
    // a long string anchored and aliased: counted by its characters
    let long = format!(
        "a: &a \"{}\"\nb: [{}]\n",
        "x".repeat(100_000),
        ["*a"; 10].join(",")
    );
    assert!(yaml::<serde_json::Value>(&long, 1 << 20).is_err());
    // ordinary aliases are fine
    let fine = "base: &base [src/**, lib/**]\nx: *base\ny: *base\n";
    assert!(yaml::<serde_norway::Value>(fine, 1 << 20).is_ok());
    // a glob star is not an alias
    assert!(yaml::<serde_norway::Value>("a: ['*', \"**/*.ts\", src/*]\n", 1 << 20).is_ok());
}

#[test]
fn sizes_read_clearly() {
    assert_eq!(size(812), "812 bytes");
    assert_eq!(size(210 * 1024 + 5), "211 KiB");
    assert_eq!(size(1 << 20), "1 MiB");
    assert_eq!(size((1 << 20) + 1), "1025 KiB");
    assert_eq!(size(256 * 1024), "256 KiB");
    assert_eq!(size(50 * 1024 * 1024), "50 MiB");
    let r = Refusal::TooLarge {
        bytes: Some(50 * 1024 * 1024),
        limit: 1 << 20,
    };
    assert_eq!(r.to_string(), "is 50 MiB, over the 1 MiB limit");
    let e = yaml::<serde_norway::Value>(&"a: b\n".repeat(1000), 4096).unwrap_err();
    assert_eq!(e.to_string(), "is 5000 bytes, over the 4 KiB limit");
}

#[test]
fn read_replies() {
    use crate::protocol::ReadResult;
    let reply = |text: Option<&str>, error: Option<&str>, size: Option<u64>| ReadResult {
        text: text.map(str::to_string),
        error: error.map(crate::protocol::ReplyError::of),
        detail: None,
        size,
        mtime_ms: None,
    };
    assert_eq!(
        read_reply(&reply(Some("{}"), None, None), 10),
        Ok(Some("{}".into()))
    );
    assert_eq!(
        read_reply(&reply(None, Some("not-found"), None), 10),
        Ok(None)
    );
    // the words hosts used before codes are no longer guessed at: unreadable, not absent
    assert!(read_reply(&reply(None, Some("ENOENT"), None), 10).is_err());
    let too_large = read_reply(&reply(None, Some("too-large"), Some(52_428_800)), 1 << 20);
    assert_eq!(
        too_large.unwrap_err().to_string(),
        "is 50 MiB, over the 1 MiB limit"
    );
    let no_size = read_reply(&reply(None, Some("too-large"), None), 1 << 20);
    assert_eq!(no_size.unwrap_err().to_string(), "is over the 1 MiB limit");
    // a host that ignored maxBytes
    let big = "x".repeat(20);
    assert!(matches!(
        read_reply(&reply(Some(&big), None, None), 10),
        Err(ReadError::Refused(_))
    ));
    assert_eq!(
        read_reply(&reply(None, Some("denied"), None), 10)
            .unwrap_err()
            .to_string(),
        "could not be read (denied)"
    );
}

#[test]
fn deep_json_is_refused_and_strings_hide_no_brackets() {
    let deep = format!("{{\"a\": {}1{}}}", "[".repeat(64), "]".repeat(64));
    let e = json(&deep, 1 << 20).unwrap_err();
    assert_eq!(e.to_string(), "nests deeper than 64 levels at line 1");
    let ok = format!("{{\"a\": {}1{}}}", "[".repeat(63), "]".repeat(63));
    assert!(json(&ok, 1 << 20).is_ok());
    // brackets and escaped quotes inside strings
    let strings = format!(
        "{{\"a\": \"{0}\\\"{0}\",\n \"b\": [\"\\\\\", {{}}]}}",
        "[{".repeat(200)
    );
    assert!(json(&strings, 1 << 20).is_ok());
    // an escaped backslash before a quote ends the string: the brackets after count
    let tricky = format!("[\"\\\\\", {}", "[".repeat(100));
    assert_eq!(json_too_deep(&tricky, MAX_DEPTH), Some(1));
    let lines = format!("{{\n\"a\":\n{}", "[\n".repeat(70));
    assert_eq!(json_too_deep(&lines, MAX_DEPTH), Some(66));
    // 100,000 levels: refused at once, no recursion
    assert!(json(&"[".repeat(100_000), 1 << 20).is_err());
}

/// Figures: the depth pre-scan and the whole bounded parse of hostile files.
/// `cargo test --release --lib bounded::tests::bench -- --ignored --nocapture`
#[test]
#[ignore]
fn bench_prescan() {
    use std::time::Instant;
    let files = [
        ("1 MiB of `[`", "[".repeat(1 << 20)),
        (
            "1 MiB, flow depth 63 over and over",
            format!(
                "a: [{}]\n",
                format!("{}x{}, ", "[".repeat(62), "]".repeat(62)).repeat(8_200)
            ),
        ),
        (
            "1 MiB of block mappings",
            (0..30_000)
                .map(|i| format!("a{i}: b\nc{i}:\n  d: [e, {{f: g}}]\n  h: 'i'\n"))
                .collect::<String>(),
        ),
    ];
    for (label, text) in &files {
        let t = Instant::now();
        let deep = yaml_too_deep(text, MAX_DEPTH);
        let scan = t.elapsed();
        let t = Instant::now();
        let parsed = yaml::<serde_norway::Value>(text, 2 << 20);
        let all = t.elapsed();
        println!(
            "{label}: {} bytes, pre-scan {:.2} ms ({deep:?}), bounded parse {:.2} ms ({})",
            text.len(),
            scan.as_secs_f64() * 1e3,
            all.as_secs_f64() * 1e3,
            match parsed {
                Ok(_) => "ok".to_string(),
                Err(e) => e.to_string().chars().take(60).collect(),
            }
        );
    }
}

/// JSON-ish texts: brackets, strings with escapes, numbers, line breaks.
fn generated_json(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\\",
        "\\\"",
        "\"a\"",
        "1",
        "-2.5e3",
        "true",
        "null",
        " ",
        "\n",
        "\"enforcement\"",
        "{\"level\": \"strict\"}",
        "\u{2028}",
        "é",
        "\\u00e9",
    ];
    let n = 1 + rng.below(30);
    (0..n).map(|_| PIECES[rng.below(PIECES.len())]).collect()
}

/// Every parser of the project's files, on generated texts: no panic, and every answer is a
/// value, a refusal or a parse error.
#[test]
fn generated_files_never_panic_the_parsers() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let sections = vec!["preflight".to_string()];
    for _ in 0..20_000 {
        let text = generated(&mut rng);
        let _ = crate::governance::intents::parse("f.yaml", &text);
        let _ =
            crate::governance::intents::parse("f.yaml", &format!("active_intents:\n  - {text}"));
        let _ = crate::enforce::sop::parse("a.md", &format!("---\n{text}\n---\n# T\n"), &sections);
        let _ = crate::enforce::sop::parse("a.ai.sop", &text, &sections);
        let json_text = generated_json(&mut rng);
        let _ = crate::config::parse_file(&json_text);
        let _ =
            crate::config::merge_file_options(&serde_json::Value::Null, &Ok(Some(json_text)), "f");
    }
}

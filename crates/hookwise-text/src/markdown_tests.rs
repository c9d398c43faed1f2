use super::*;

fn names(text: &str) -> Vec<String> {
    parse(text, "stem")
        .concepts
        .into_iter()
        .map(|c| c.0)
        .collect()
}

#[test]
fn links_in_text_and_headings_count_code_does_not() {
    let t = "# About [[Auth]]\n\nUse [[JWT]] with `[[inline-code]]` here.\n\n```\n[[fenced]]\n```\n\n    [[indented]]\n\n~~~rust\nlet x = \"[[tilde]]\";\n~~~\n\n- item [[Session Tokens]]\n> quote [[Postgres]]\n";
    assert_eq!(names(t), vec!["auth", "jwt", "session-tokens", "postgres"]);
}

#[test]
fn aliases_headings_nested_brackets_unicode() {
    assert_eq!(
        names("See [[REST API|the api]] and [[Auth#Tokens]] and [[auth]]."),
        vec!["rest-api", "auth"]
    );
    assert_eq!(names("[[[triple]]] [[a [[b]] [[c]]]"), vec!["b"]);
    assert_eq!(
        names("日本 [[東京 タワー]] and [[Ünïcode_Straße]]"),
        vec!["東京-タワー", "ünïcode-straße"]
    );
    assert_eq!(
        names("*[[emphasised]]* and **[[strong one]]**"),
        vec!["emphasised", "strong-one"]
    );
    assert_eq!(names("[[Node.js]] / [[node.JS]]"), vec!["node.js"]);
}

#[test]
fn inline_code_splits_a_run() {
    // The code span ends the run: no link is built across it.
    assert_eq!(names("[[a `x` b]] then [[ok]]"), vec!["ok"]);
    // Links do not span lines.
    assert_eq!(names("[[split\nline]] and [[fine]]"), vec!["fine"]);
}

#[test]
fn html_blocks_are_not_text() {
    assert_eq!(
        names("<div>\n[[in-html]]\n</div>\n\n[[after]]"),
        vec!["after"]
    );
}

#[test]
fn front_matter_title_tags_modified() {
    let t = "---\ntitle: \"Auth: Design\"\ntags: [auth, \"security\", #jwt]\nmodified: 2026-02-18T19:02:00Z\nother: [[not-a-link]]\n---\n# Heading Title\n\nBody with [[JWT]].\n";
    let n = parse(t, "auth-design");
    assert_eq!(n.title, "Auth: Design");
    assert_eq!(n.tags, vec!["auth", "security", "jwt"]);
    assert_eq!(n.modified_ms, Some(1_771_441_320_000.0));
    assert_eq!(n.concepts.len(), 1, "front matter is not markdown");
    assert_eq!(n.summary, "Body with [[JWT]].");
    assert_eq!(&t[n.body_start..n.body_start + 15], "# Heading Title");

    let block = "title: x\ntags:\n  - one\n  - 'two'\nmodified: '2026-02-18'\n";
    let fm = parse_front_matter(block);
    assert_eq!(fm.tags, vec!["one", "two"]);
    assert_eq!(fm.modified.as_deref(), Some("2026-02-18"));
    assert_eq!(
        parse_front_matter("tags: a, b c\n").tags,
        vec!["a", "b", "c"]
    );
}

#[test]
fn title_fallbacks() {
    assert_eq!(
        parse("intro\n\n# First `H1`\n\n# Second\n", "s").title,
        "First H1"
    );
    assert_eq!(parse("no heading\n", "my-note").title, "my-note");
    assert_eq!(parse("## only h2\n", "my-note").title, "my-note");
    // An unclosed block is not front matter.
    let n = parse("---\ntitle: nope\n\n[[x]]\n", "stem");
    assert_eq!(n.title, "stem");
    assert_eq!(n.body_start, 0);
    // BOM and CRLF.
    let n = parse("\u{FEFF}---\r\ntitle: Win\r\n---\r\n[[y]]\r\n", "s");
    assert_eq!(n.title, "Win");
    assert_eq!(n.concepts[0].0, "y");
}

#[test]
fn dates() {
    assert_eq!(parse_iso8601_ms("1970-01-01"), Some(0.0));
    assert_eq!(
        parse_iso8601_ms("1970-01-02T00:00:01.5Z"),
        Some(86_401_500.0)
    );
    assert_eq!(
        parse_iso8601_ms("2026-02-18T21:02:00+02:00"),
        parse_iso8601_ms("2026-02-18T19:02:00Z")
    );
    assert_eq!(
        parse_iso8601_ms("2026-02-18 19:02"),
        parse_iso8601_ms("2026-02-18T19:02:00")
    );
    assert_eq!(parse_iso8601_ms("yesterday"), None);
    assert_eq!(parse_iso8601_ms("2026-13-01"), None);
    assert_eq!(format_utc_minutes(1_771_441_320_000.0), "2026-02-18 19:02");
}

#[test]
fn block_offsets_point_at_the_linking_block() {
    let t = "---\ntitle: t\n---\nFirst para.\n\nSecond has [[b]].\n";
    let n = parse(t, "s");
    assert_eq!(&t[n.concepts[0].1..], "Second has [[b]].\n");
    assert_eq!(n.sections, 0);
}

const CASES: &[&str] = &[
    "",
    "\n",
    "[[a]]",
    "```\n[[fenced]]\n```\n[[after]]",
    "~~~\n[[tilde]]\n~~~\n\n[[after]]",
    "```\n[[unclosed]]\n\n[[still code]]",
    "~~~~\n[[x]]\n~~~\n[[y]]",
    "para\n\n    [[indented]]\n\n[[z]]",
    "`[[code]]` [[a]] `x` [[b]]`[[c]]`",
    "[[a `x` b]] then [[ok]]",
    "\\[[x]] and \\[\\[y]] and [[z\\]] and &#91;[e]] and &#91;&#91;f&#93;&#93;",
    "[[a|alias]] [[b#h]] [[c#h|al]] [[|x]] [[#y]]",
    "[[[x]]] [[a [[b]] [[c]]]",
    "[[a *b* c]] [[d **e** f]] [[g _h_ i]] *[[j]]* [[k ~l~ m]]",
    "[text [[x]]](http://u) ![alt [[y]]](img.png) [[z]](url) [[w]][ref]\n\n[ref]: /url",
    "[[x]]: /url\n\n[[x]]",
    "# H1 [[h]]\n\nSetext [[s]]\n===\n\nTwo [[t]]\n---\n\n## H2 [[u]]\n### H3",
    "#\n\n# \n\n#  [[x]] \n\n# Real",
    "- item [[i]]\n  - nested [[n]]\n> quote [[q]]\n> > deeper [[d]]\n1. num [[m]]",
    "<div>\n[[in-html]]\n</div>\n\n<span>[[inline]]</span> [[out]]",
    "line one [[a\nb]] [[c]]  \nhard [[d]]\\\nbreak [[e]]",
    "日本 [[東京 タワー]] and [[Ünïcode_Straße]] [[İSTANBUL]] [[ΣΑΣ]]",
    "\u{FEFF}---\r\ntitle: Win\r\n---\r\n[[y]]\r\n\r\npara [[z]]\r\n",
    "---\ntitle: \"Q: \\\"x\\\" \\n y\"\ntags: [a, 'b''c', \"#d\", a]\nmodified: '2026-02-18T19:02:00+02:00'\n---\n# T\n\n[[x]]",
    "---\ntags:\n  - one\n  - \"two\"\n- three\nkeywords: k\nupdated: 2026-01-01 # c\n---\nbody",
    "---\ntag: x y, z\ntitle: |\n  folded\nlastmod: nope\n---\n# H\n",
    "---\ntitle: nope\n\n[[x]]\n",
    "---\n...\n",
    "---\n---\n",
    "---",
    "[[",
    "]]",
    "[[]]",
    "[[ ]] [[-]] [[ _ / ]]",
    "****[[x]]****",
    "| a | [[t]] |\n|---|---|\n| [[c]] | d |",
    "text\n***\n[[after rule]]",
    "[^1] [[f]]\n\n[^1]: note [[g]]",
    "- [ ] task [[t]]",
    "a&amp;[[b&amp;c]] &lt;[[d]]&gt;",
    "<http://x/[[y]]> [[z]]",
    "[[x]\n]] [[y\n]]",
    "\t[[tab indented]]\n\n  [[two]]",
    "a\n\n\n\n",
];

/// Random markdown made of the pieces that matter to the parser and to the link scan.
fn random_markdown(rng: &mut crate::wikilink::tests::Rng) -> String {
    const PIECES: &[&str] = &[
        "\n",
        "\n\n",
        "\r\n",
        "```",
        "~~~",
        "    ",
        "\t",
        "`",
        "``",
        "[[",
        "]]",
        "[",
        "]",
        "(",
        ")",
        "![",
        "*",
        "**",
        "_",
        "~",
        "\\",
        "\\[",
        "&#91;",
        "&amp;",
        "# ",
        "## ",
        "\n# ",
        "\n## ",
        "\n---\n",
        "\n===\n",
        "> ",
        "- ",
        "1. ",
        "<div>",
        "</div>",
        "<b>",
        "|",
        "#",
        " ",
        "  ",
        "word",
        "Other",
        "a_b",
        "c/d",
        "x.y",
        "日本",
        "É",
        "🚀",
        "ẞ",
        "\u{A0}",
        "[[link]]",
        "[[Two Words]]",
        "[[a|b]]",
        "[[c#d]]",
        ": /u",
        "\n[x]: /u\n",
        "-",
        "=",
    ];
    let n = rng.below(60);
    let mut s: String = (0..n).map(|_| rng.pick(PIECES)).collect();
    if rng.below(4) == 0 {
        const FM: &[&str] = &[
            "title: T",
            "title: \"Q\\\"\"",
            "title: 'a''b'",
            "title:",
            "tags: [a, b]",
            "tags:",
            "  - x",
            "- 'y'",
            "tag: p q",
            "modified: 2026-02-18",
            "updated: x",
            "# c",
            "",
            "key: [[v]]",
            "  nested: 1",
        ];
        const FENCES: &[&str] = &["---\n", "--- \t\n", "---\u{A0}\n", "...\n", "---\r\n"];
        let mut fm = String::from(rng.pick(FENCES));
        for _ in 0..rng.below(6) {
            fm.push_str(rng.pick(FM));
            fm.push('\n');
        }
        if rng.below(5) != 0 {
            fm.push_str(rng.pick(FENCES));
        }
        s = fm + &s;
    }
    s
}

/// A note like the bench's generator makes (examples/vault_bench.rs).
fn bench_note(rng: &mut crate::wikilink::tests::Rng, i: usize) -> String {
    const WORDS: &[&str] = &["ka", "lomi", "rensa", "tor", "velquin", "darpe", "nu"];
    let mut s = format!(
        "---\ntitle: Note {i} {}\ntags: [{}, {}]\nmodified: 2026-0{}-1{}T10:00:00Z\n---\n# Note {i}\n\n",
        rng.pick(WORDS),
        rng.pick(WORDS),
        rng.pick(WORDS),
        1 + rng.below(9),
        rng.below(10)
    );
    let links = 8 + rng.below(40);
    let mut placed = 0;
    while s.len() < 1500 || placed < links {
        if rng.below(6) == 0 {
            s.push_str(&format!("\n## Section {}\n\n", rng.pick(WORDS)));
        }
        for _ in 0..(30 + rng.below(40)) {
            if placed < links && rng.below(6) == 0 {
                s.push_str(&format!("[[{} {}]] ", rng.pick(WORDS), rng.below(60)));
                placed += 1;
            } else {
                s.push_str(rng.pick(WORDS));
                s.push(' ');
            }
        }
        s.push_str(".\n\n");
        if rng.below(8) == 0 {
            s.push_str("```sh\ncurl -s https://example.invalid/[[not-a-link]] | jq .\n```\n\n");
        }
    }
    s
}

#[test]
fn same_notes_as_the_reference() {
    let check = |t: &str| {
        assert_eq!(parse(t, "stem"), reference::parse(t, "stem"), "{t:?}");
    };
    let long = format!(
        "{}\n\n",
        "Ünï *emph* `code  x` [[a b]] word,\nnext  line;\u{A0}日本 ".repeat(12)
    );
    for t in CASES.iter().copied().chain([long.as_str()]) {
        check(t);
        check(&t.replace('\n', "\r\n"));
        check(&format!("---\ntitle: x\n---\n{t}"));
    }
    let mut rng = crate::wikilink::tests::Rng(0x9E37_79B9_7F4A_7C15);
    let mut concepts = 0;
    for _ in 0..30_000 {
        let t = random_markdown(&mut rng);
        let n = parse(&t, "stem");
        concepts += n.concepts.len();
        assert_eq!(n, reference::parse(&t, "stem"), "{t:?}");
    }
    assert!(concepts > 10_000, "{concepts}");
    for i in 0..200 {
        check(&bench_note(&mut rng, i));
    }
}

#[test]
fn same_front_matter_as_the_reference() {
    let mut rng = crate::wikilink::tests::Rng(0x0DDB_1A5E_5BAD_5EED);
    let mut read = 0;
    const HEADS: &[&str] = &[
        "title: ",
        "Title:",
        "tags: ",
        "tag: ",
        "keywords:",
        "modified: ",
        "updated: ",
        "lastmod:",
        "other: ",
        "  - ",
        "- ",
        "-",
        "\t- ",
        "# ",
        "",
        " title: ",
        "tags:",
    ];
    const VALUES: &[&str] = &[
        " ",
        "\x0B",
        "\u{A0}",
        "\u{3000}",
        "\t",
        "-",
        "#",
        " #",
        "'",
        "''",
        "\"",
        "\\",
        "\\\"",
        "\\n",
        "[",
        "]",
        ",",
        ", ",
        "|",
        ">",
        "x",
        "y z",
        "2026-02-18",
        "É",
        "\r",
        ":",
    ];
    for _ in 0..30_000 {
        let mut t = String::new();
        for _ in 0..rng.below(6) {
            t.push_str(rng.pick(HEADS));
            for _ in 0..rng.below(8) {
                t.push_str(rng.pick(VALUES));
            }
            t.push_str(rng.pick(&["\n", "\r\n"]));
        }
        let fm = parse_front_matter(&t);
        read += (fm.title.is_some() || fm.modified.is_some()) as usize + fm.tags.len();
        assert_eq!(fm, reference::parse_front_matter(&t), "{t:?}");
    }
    assert!(read > 20_000, "{read}");
}

#[test]
fn same_dates_as_the_reference() {
    let mut rng = crate::wikilink::tests::Rng(0xDA7E_5EED_0000_0001);
    const PIECES: &[&str] = &[
        "2026",
        "1970",
        "0000",
        "9999",
        "-",
        "02",
        "13",
        "00",
        "31",
        "T",
        "t",
        " ",
        "19",
        ":",
        "59",
        "60",
        "24",
        ".",
        ",",
        "5",
        "123456789012",
        "Z",
        "z",
        "+",
        "02:00",
        "0530",
        "x",
        "é",
    ];
    let mut dated = 0;
    for _ in 0..50_000 {
        let mut t = String::from(rng.pick(&["2026-02-18", "1999-12-31", "", "2026-1"]));
        for _ in 0..rng.below(8) {
            t.push_str(rng.pick(PIECES));
        }
        let ms = parse_iso8601_ms(&t);
        dated += ms.is_some() as usize;
        assert_eq!(ms, reference::parse_iso8601_ms(&t), "{t:?}");
    }
    for _ in 0..20_000 {
        let frac: String = (0..rng.below(13))
            .map(|_| rng.pick(&["0", "5", "9", "1"]))
            .collect();
        let t = format!(
            "2026-0{}-1{}{}{}:{}:{}{}{}{}",
            rng.below(10),
            rng.below(10),
            rng.pick(&["T", " ", "t"]),
            rng.pick(&["00", "19", "23", "24"]),
            rng.pick(&["00", "59", "60"]),
            rng.pick(&["00", "59", "60", "61"]),
            rng.pick(&[".", ",", ""]),
            frac,
            rng.pick(&["", "Z", "+02:00", "-0530", "+1", "-02:", " "])
        );
        let ms = parse_iso8601_ms(&t);
        dated += ms.is_some() as usize;
        assert_eq!(ms, reference::parse_iso8601_ms(&t), "{t:?}");
    }
    assert!(dated > 5_000, "{dated}");
}

#[test]
fn same_collapse_as_the_reference() {
    let mut rng = crate::wikilink::tests::Rng(0x1234_5678_9ABC_DEF1);
    const PIECES: &[&str] = &[
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\x0B",
        "\u{A0}",
        "\u{2028}",
        "a",
        "word",
        "Other",
        "x,",
        ";",
        ":",
        "É",
        "日本",
        "🚀",
        ".",
        "lorem ipsum dolor",
    ];
    for _ in 0..20_000 {
        let n = rng.below(40);
        let t: String = (0..n).map(|_| rng.pick(PIECES)).collect();
        let max = [0, 1, 2, 5, 10, 30, 200, usize::MAX][rng.below(8)];
        assert_eq!(
            collapse(&t, max),
            reference::collapse(&t, max),
            "{t:?} {max}"
        );
        // Fed in pieces, as the summary is.
        let mut c = Collapse::new(max, String::new());
        let mut rest = t.as_str();
        while !rest.is_empty() {
            let mut k = rng.below(rest.len() + 1);
            while !rest.is_char_boundary(k) {
                k += 1;
            }
            c.push(&rest[..k]);
            rest = &rest[k..];
        }
        assert_eq!(c.out, reference::collapse(&t, max), "{t:?} {max}");
    }
}

#[cfg(feature = "policy")]
#[test]
fn inline_tags_are_read_outside_code_and_headings() {
    let note = parse(
        "---\ntags: [a]\n---\n# Title #notatag? no: heading text #h1tag\n\nSome #idea and #project/kestrel, (#paren) not#inword, #123 no, `#code` no.\n\n```\n#include <x>\n```\n#a again\n",
        "stem",
    );
    assert_eq!(note.tags, vec!["a", "notatag", "h1tag", "idea", "project/kestrel"]);
    let mut t = Vec::new();
    let many: String = (0..100).map(|i| format!("#t{i} ")).collect();
    inline_tags(&many, &mut t);
    assert_eq!(t.len(), MAX_INLINE_TAGS);
}

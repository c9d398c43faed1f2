//! The runner every property goes through, and the strategies several parsers share.
//!
//! Each property runs a fixed number of cases: the figure given to [`check`] under `cargo
//! test` (small: the whole target stays within seconds), `PROPTEST_CASES` when set (the long
//! run of `scripts/fuzz.sh`). The random seed is fixed per property unless
//! `PROPTEST_RNG_SEED` names one or `HOOKWISE_FUZZ_RANDOM=1` asks for a fresh one, so a red
//! CI run is reproducible and the long run explores; a failure prints the seed and the
//! smallest input proptest shrank it to. Nothing is persisted (no `proptest-regressions`
//! files): a failure found becomes a named regression test instead.

use std::fmt::Debug;
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};

/// Cases for one property: `PROPTEST_CASES` when set, else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(default)
}

fn seed_for(name: &str) -> u64 {
    if let Some(s) = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
    {
        return s;
    }
    if std::env::var("HOOKWISE_FUZZ_RANDOM").is_ok_and(|v| v == "1") {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        return t ^ fnv(name);
    }
    fnv(name)
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Run `test` on `cases(default_cases)` inputs from `strategy`. A failure (an assertion or
/// a panic) panics with the property's name, the seed and the shrunk input. Prints one line
/// `fuzz: <name>: <cases> cases, <ms> ms, seed <seed>` (shown with `--nocapture`).
pub fn check<S>(
    name: &str,
    default_cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S: Strategy,
    S::Value: Debug,
{
    let n = cases(default_cases);
    let seed = seed_for(name);
    let config = Config {
        cases: n,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(seed),
        // a shrink of a deep or huge input may take long; a minimal-enough one will do
        max_shrink_iters: 2_000,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let t0 = Instant::now();
    let r = runner.run(&strategy, test);
    let ms = t0.elapsed().as_millis();
    match r {
        Ok(()) => eprintln!("fuzz: {name}: {n} cases, {ms} ms, seed {seed}"),
        Err(TestError::Fail(why, input)) => {
            let mut shown = format!("{input:?}");
            if shown.len() > 4000 {
                let mut cut = 4000;
                while !shown.is_char_boundary(cut) {
                    cut -= 1;
                }
                shown = format!("{}… ({} bytes in all)", &shown[..cut], shown.len());
            }
            panic!(
                "fuzz: {name}: failed ({why}) after {ms} ms; rerun with PROPTEST_RNG_SEED={seed}\nminimal input: {shown}"
            )
        }
        Err(TestError::Abort(why)) => panic!("fuzz: {name}: aborted: {why}"),
    }
}

// ---------------------------------------------------------------------------------------
// Text

/// Characters that make parsers stumble: separators, quotes, escapes, line ends, a BOM,
/// multi-byte and astral characters, bidi controls.
pub const NASTY: &[&str] = &[
    "", " ", "\t", "\n", "\r\n", "\r", "\0", "\\", "/", "//", ".", "..", "\"", "'", "`", ":", ": ",
    "#", "-", "- ", "*", "**", "?", "[", "]", "{", "}", ",", "|", "&", ";", "$(", ")", "<", ">",
    "!", "=", "%", "@", "~", "\u{feff}", "é", "日本", "😀", "\u{202e}", "\u{2028}", "\u{7f}",
    "\u{fffd}", "ß", "İ", "K", "---", "...", "```",
];

pub const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
pub const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
pub const DIGITS: &str = "0123456789";
const WORD: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";

/// A string of `len` characters from `alphabet` (a regex strategy such as `"[a-z]{1,3}"`
/// compiles its regex for every value: ten times slower in a debug build).
pub fn text_of(alphabet: &str, len: std::ops::Range<usize>) -> BoxedStrategy<String> {
    let chars: Vec<char> = alphabet.chars().collect();
    prop::collection::vec(prop::sample::select(chars), len)
        .prop_map(|v| v.into_iter().collect())
        .boxed()
}

/// A short string: pieces of `NASTY`, ASCII words and arbitrary characters.
pub fn nasty_string() -> BoxedStrategy<String> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(NASTY).prop_map(str::to_string),
            2 => text_of(WORD, 1..9),
            1 => any::<char>().prop_map(String::from),
        ],
        0..12,
    )
    .prop_map(|v| v.concat())
    .boxed()
}

/// Lines built from `words` and `nasty_string`, joined by `\n` or `\r\n`.
pub fn lines_from(words: &'static [&'static str]) -> impl Strategy<Value = String> {
    (
        prop::collection::vec(
            prop::collection::vec(
                prop_oneof![
                    4 => prop::sample::select(words).prop_map(str::to_string),
                    2 => nasty_string(),
                    1 => text_of(" ", 0..7),
                ],
                0..6,
            )
            .prop_map(|v| v.concat()),
            0..24,
        ),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf)| lines.join(if crlf { "\r\n" } else { "\n" }))
}

/// `s` with a few bytes replaced, inserted or removed (the classic mutation fuzzer), kept as
/// bytes: the result need not be UTF-8.
pub fn mutate(base: impl Strategy<Value = Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    (
        base,
        prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 0..8),
    )
        .prop_map(|(mut b, edits)| {
            for (at, op, byte) in edits {
                if b.is_empty() {
                    b.push(byte);
                    continue;
                }
                let i = at.index(b.len());
                match op {
                    0 => b[i] = byte,
                    1 => b.insert(i, byte),
                    2 => {
                        b.remove(i);
                    }
                    _ => {
                        // duplicate a slice: repetition is where parsers go quadratic
                        let j = (i + 1 + usize::from(byte)).min(b.len());
                        let piece = b[i..j].to_vec();
                        b.splice(i..i, piece);
                    }
                }
            }
            b
        })
}

/// [`mutate`] kept to UTF-8 (invalid sequences replaced).
pub fn mutate_str(base: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    mutate(base.prop_map(String::into_bytes)).prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

// ---------------------------------------------------------------------------------------
// JSON text, as a hostile host or model writes it: any nesting, lone surrogate escapes,
// huge strings, duplicate keys. Built as a tree (so proptest shrinks it) and rendered to
// text, since a `serde_json::Value` cannot hold what serde_json refuses.

/// A piece of a JSON string literal.
#[derive(Debug, Clone)]
pub enum Piece {
    /// Ordinary text (escaped as JSON requires).
    Text(String),
    /// A `\uXXXX` escape of any code unit: lone surrogates included.
    Unit(u16),
    /// `c` repeated `n` times (a huge string without a huge tree).
    Run(char, usize),
}

#[derive(Debug, Clone)]
pub enum J {
    Null,
    Bool(bool),
    /// Number text as written (`-0`, `1e999`, `0.1`, 20 digits).
    Num(String),
    Str(Vec<Piece>),
    Arr(Vec<J>),
    Obj(Vec<(Vec<Piece>, J)>),
    /// `depth` levels of `[…]` or `{"k":…}` around a value: deep nesting in a small tree.
    Deep(bool, usize, Box<J>),
}

pub fn render_pieces(p: &[Piece], out: &mut String) {
    out.push('"');
    for piece in p {
        match piece {
            Piece::Text(t) => {
                let q = serde_json::to_string(t).expect("a string serializes");
                out.push_str(&q[1..q.len() - 1]);
            }
            Piece::Unit(u) => out.push_str(&format!("\\u{u:04x}")),
            Piece::Run(c, n) => {
                let q = serde_json::to_string(&c.to_string()).expect("a string serializes");
                let one = &q[1..q.len() - 1];
                out.reserve(one.len() * n);
                for _ in 0..*n {
                    out.push_str(one);
                }
            }
        }
    }
    out.push('"');
}

impl J {
    pub fn render(&self, out: &mut String) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Num(n) => out.push_str(n),
            J::Str(p) => render_pieces(p, out),
            J::Arr(items) => {
                out.push('[');
                for (k, i) in items.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    i.render(out);
                }
                out.push(']');
            }
            J::Obj(members) => {
                out.push('{');
                for (k, (key, v)) in members.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    render_pieces(key, out);
                    out.push(':');
                    v.render(out);
                }
                out.push('}');
            }
            J::Deep(obj, depth, inner) => {
                for _ in 0..*depth {
                    out.push_str(if *obj { "{\"a\":" } else { "[" });
                }
                inner.render(out);
                for _ in 0..*depth {
                    out.push(if *obj { '}' } else { ']' });
                }
            }
        }
    }

    pub fn text(&self) -> String {
        let mut s = String::new();
        self.render(&mut s);
        s
    }

    pub fn str(s: &str) -> J {
        J::Str(vec![Piece::Text(s.to_string())])
    }

    pub fn obj(members: Vec<(&str, J)>) -> J {
        J::Obj(
            members
                .into_iter()
                .map(|(k, v)| (vec![Piece::Text(k.to_string())], v))
                .collect(),
        )
    }
}

/// Code units that JSON text can carry but a Rust string cannot (lone surrogates), and some
/// that are fine (a pair, NUL, controls, a BOM, non-characters).
pub fn code_unit() -> impl Strategy<Value = u16> {
    prop_oneof![
        3 => 0xd800u16..=0xdfff,
        1 => Just(0u16),
        1 => 0u16..0x20,
        1 => Just(0xfeffu16),
        1 => Just(0xffffu16),
        1 => any::<u16>(),
    ]
}

pub fn pieces_with(text: impl Strategy<Value = String>) -> impl Strategy<Value = Vec<Piece>> {
    prop::collection::vec(
        prop_oneof![
            6 => text.prop_map(Piece::Text),
            2 => code_unit().prop_map(Piece::Unit),
            // a high then a low surrogate: a valid pair, split in the text
            1 => (0xd800u16..0xdc00, 0xdc00u16..0xe000)
                .prop_map(|(h, l)| Piece::Text(
                    char::decode_utf16([h, l]).next().and_then(Result::ok).map(String::from).unwrap_or_default()
                )),
            1 => (prop::sample::select(RUN_CHARS), 0usize..300).prop_map(|(c, n)| Piece::Run(c, n)),
        ],
        0..5,
    )
}

const RUN_CHARS: &[char] = &['a', '/', '.', 'é', '😀', '\\', '"', '\n'];

/// A huge string (4 KB … 1 MB of one character, then ordinary pieces): kept apart from
/// [`json_with`] so that only the fields meant to be huge are.
pub fn huge_pieces() -> impl Strategy<Value = Vec<Piece>> {
    (
        prop::sample::select(RUN_CHARS),
        prop_oneof![4096usize..8192, 65536usize..70000, Just(1usize << 20)],
        pieces(),
    )
        .prop_map(|(c, n, mut rest)| {
            rest.insert(0, Piece::Run(c, n));
            rest
        })
}

pub fn pieces() -> impl Strategy<Value = Vec<Piece>> {
    pieces_with(nasty_string())
}

pub fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| f.to_string()),
        prop::sample::select(
            &[
                "0",
                "-0",
                "1e999",
                "-1e999",
                "1e-999",
                "18446744073709551616",
                "99999999999999999999999",
                "0.1",
                "1.5e3",
                "4294967296",
                "-1",
            ][..]
        )
        .prop_map(str::to_string),
    ]
}

/// Any JSON value, with `keys` preferred as object keys and `strings` as string content.
pub fn json_with(
    keys: &'static [&'static str],
    strings: BoxedStrategy<String>,
) -> BoxedStrategy<J> {
    let key = prop_oneof![
        4 => prop::sample::select(keys).prop_map(|k| vec![Piece::Text(k.to_string())]),
        1 => pieces(),
    ];
    let leaf = prop_oneof![
        1 => Just(J::Null),
        1 => any::<bool>().prop_map(J::Bool),
        1 => number_text().prop_map(J::Num),
        5 => pieces_with(strings).prop_map(J::Str),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            3 => prop::collection::vec(inner.clone(), 0..6).prop_map(J::Arr),
            4 => prop::collection::vec((key.clone(), inner.clone()), 0..6).prop_map(J::Obj),
            1 => (any::<bool>(), deep_depth(), inner).prop_map(|(o, d, i)| J::Deep(o, d, Box::new(i))),
        ]
    })
    .boxed()
}

/// Nesting depths around the limits: serde_json's 128, a documented 64…1,000.
pub fn deep_depth() -> impl Strategy<Value = usize> {
    prop_oneof![
        1..8usize,
        120..136usize,
        Just(255usize),
        Just(256usize),
        Just(1_000usize),
        0..1_001usize,
    ]
}

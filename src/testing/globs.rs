//! The pieces glob patterns are generated from, in the glob matcher's differential tests
//! against globset: `governance::glob`'s own and the fuzz property (tests/fuzz/paths.rs), which
//! widens them.

/// Pieces of globs: literals, separators, wildcards, classes, alternates and escapes.
pub const PIECES: &[&str] = &[
    "a",
    "b",
    "A",
    "/",
    "*",
    "**",
    "?",
    "[ab]",
    "[!a]",
    "[a-b]",
    "[^/]",
    "{a,b}",
    "{a,b/**}",
    "{,b}",
    "{**,a}",
    "{a/**/b,*}",
    "\\*",
    ".",
    "**/",
    "/**",
    "/**/",
    ",",
    "-",
    "[",
    "]",
    "{",
    "}",
    "\\",
];

//! The glob matcher's differential tests against globset (`governance::glob`'s own and the fuzz
//! property in tests/fuzz/paths.rs, which widens the pieces): the reference and the pieces
//! patterns are generated from.

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

/// globset as the matcher ports it: `*` stops at `/`, `\\` escapes, optionally case-insensitive.
pub fn reference(p: &str, ci: bool) -> Result<globset::GlobMatcher, globset::Error> {
    globset::GlobBuilder::new(p)
        .literal_separator(true)
        .backslash_escape(true)
        .case_insensitive(ci)
        .build()
        .map(|g| g.compile_matcher())
}

//! Mutation class of a change: `INTENT_EVOLUTION` or `AST_REFACTOR`.
//!
//! The rule (language-agnostic, a line scan, no parser):
//! 1. A new file, or a deleted file → `INTENT_EVOLUTION`.
//! 2. Otherwise the **declared symbols** of the file before and after are compared; if the
//!    set changed (a symbol added, removed or renamed) → `INTENT_EVOLUTION`.
//! 3. Same symbols (bodies, comments, formatting changed) → `AST_REFACTOR`.
//!
//! For a change to several files (apply_patch), any file that is an evolution makes the whole
//! change an evolution.
//!
//! A declared symbol is `kind name` from a line that, after its indentation, optional
//! modifiers (`export`, `default`, `pub`, `pub(…)`, `public`, `private`, `protected`,
//! `internal`, `static`, `async`, `abstract`, `final`, `override`, `unsafe`, `extern`,
//! `declare`, `readonly`, `sealed`, `open`, `data`, `inline`, `virtual`, `const` before `fn`)
//! starts with one of these keywords followed by a name:
//! - at any indentation: `fn`, `def`, `class`, `function`, `struct`, `enum`, `union`,
//!   `interface`, `trait`, `type`, `impl`, `mod`, `module`, `namespace`, `func` (also Go
//!   methods `func (r T) Name`), `fun`, `record`, `protocol`, `object`, `macro_rules!`;
//! - at column 0 only (module-level variables, not locals): `const`, `let`, `var`, `val`,
//!   `static`.
//!
//! Comment lines (`//`, `#`, `/*`, `*`, `--`) are skipped. Names are `[A-Za-z0-9_$]` runs;
//! `impl` records its whole header (`impl Display for Foo`). Declarations this misses (a JS
//! method `foo() {`, a Python assignment) simply do not count.

use std::collections::BTreeSet;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MutationClass {
    #[serde(rename = "AST_REFACTOR")]
    AstRefactor,
    #[serde(rename = "INTENT_EVOLUTION")]
    IntentEvolution,
}

impl MutationClass {
    pub fn as_str(self) -> &'static str {
        match self {
            MutationClass::AstRefactor => "AST_REFACTOR",
            MutationClass::IntentEvolution => "INTENT_EVOLUTION",
        }
    }

    /// The class of several changes together.
    pub fn combine(self, other: MutationClass) -> MutationClass {
        if self == MutationClass::IntentEvolution || other == MutationClass::IntentEvolution {
            MutationClass::IntentEvolution
        } else {
            MutationClass::AstRefactor
        }
    }
}

const ANY_INDENT: &[&str] = &[
    "fn",
    "def",
    "class",
    "function",
    "function*",
    "struct",
    "enum",
    "union",
    "interface",
    "trait",
    "type",
    "impl",
    "mod",
    "module",
    "namespace",
    "func",
    "fun",
    "record",
    "protocol",
    "object",
    "macro_rules!",
];
const TOP_LEVEL: &[&str] = &["const", "let", "var", "val", "static"];
const MODIFIERS: &[&str] = &[
    "export",
    "default",
    "pub",
    "public",
    "private",
    "protected",
    "internal",
    "static",
    "async",
    "abstract",
    "final",
    "override",
    "unsafe",
    "extern",
    "\"C\"",
    "declare",
    "readonly",
    "sealed",
    "open",
    "data",
    "inline",
    "virtual",
];

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Split off the first whitespace-separated word.
fn word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], s[i..].trim_start()),
        None => (s, ""),
    }
}

fn ident(s: &str) -> &str {
    let s = s.trim_start();
    let end = s.find(|c: char| !is_ident(c)).unwrap_or(s.len());
    &s[..end]
}

/// The symbol a line declares, if any.
pub fn declared(line: &str) -> Option<String> {
    let top = !line.starts_with([' ', '\t']);
    let mut rest = line.trim_start();
    if rest.starts_with("//")
        || rest.starts_with('#')
        || rest.starts_with("/*")
        || rest.starts_with('*')
        || rest.starts_with("--")
    {
        return None;
    }
    // modifiers
    loop {
        let (w, r) = word(rest);
        if w.starts_with("pub(") {
            // pub(crate) / pub(in path)
            match rest.find(')') {
                Some(i) => rest = rest[i + 1..].trim_start(),
                None => return None,
            }
            continue;
        }
        // `static NAME` is a declaration; `static fn`/`static async …` a modifier.
        let static_decl = w == "static" && {
            let next = word(r).0.trim_end_matches(['(', '{']);
            !(ANY_INDENT.contains(&next) || TOP_LEVEL.contains(&next) || MODIFIERS.contains(&next))
        };
        if MODIFIERS.contains(&w) && !static_decl && !r.is_empty() {
            rest = r;
            continue;
        }
        if w == "const"
            && (r.starts_with("fn ") || r.starts_with("unsafe ") || r.starts_with("async "))
        {
            rest = r;
            continue;
        }
        break;
    }
    let (kw, after) = word(rest);
    let kw_trim = kw.trim_end_matches(['(', '{']);
    if ANY_INDENT.contains(&kw_trim) {
        if kw_trim == "impl" {
            let header = after
                .split('{')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            return (!header.is_empty()).then(|| format!("impl {header}"));
        }
        let mut after = after;
        if kw_trim == "func" && after.starts_with('(') {
            // Go method: func (r *T) Name(
            after = after.find(')').map(|i| &after[i + 1..]).unwrap_or("");
        }
        if kw_trim == "function" || kw_trim == "function*" {
            after = after.trim_start_matches('*');
        }
        let name = ident(after);
        let kw = kw_trim.trim_end_matches('*');
        return (!name.is_empty()).then(|| format!("{kw} {name}"));
    }
    if top && TOP_LEVEL.contains(&kw) {
        let after = after.strip_prefix("mut ").unwrap_or(after);
        let name = ident(after);
        return (!name.is_empty()).then(|| format!("{kw} {name}"));
    }
    None
}

/// The declared symbols of a text.
pub fn symbols(text: &str) -> BTreeSet<String> {
    text.lines().filter_map(declared).collect()
}

/// Classify one file's change. `None` before: a new file; `None` after: deleted.
pub fn classify(before: Option<&str>, after: Option<&str>) -> MutationClass {
    match (before, after) {
        (Some(b), Some(a)) if symbols(b) == symbols(a) => MutationClass::AstRefactor,
        _ => MutationClass::IntentEvolution,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MutationClass::*;

    #[test]
    fn declarations_across_languages() {
        let cases = [
            ("fn main() {", Some("fn main")),
            ("pub(crate) async fn load(x: u8) {", Some("fn load")),
            ("    pub const fn k() -> u8 {", Some("fn k")),
            ("impl Display for Foo {", Some("impl Display for Foo")),
            ("pub struct Point {", Some("struct Point")),
            ("static COUNT: u32 = 0;", Some("static COUNT")),
            ("def handler(event):", Some("def handler")),
            ("    async def method(self):", Some("def method")),
            ("class User(Base):", Some("class User")),
            ("export default function App() {", Some("function App")),
            ("export async function* gen() {", Some("function gen")),
            ("export const api = () => 1;", Some("const api")),
            ("export interface Props {", Some("interface Props")),
            ("type Id = string;", Some("type Id")),
            (
                "func (s *Server) Serve(l net.Listener) error {",
                Some("func Serve"),
            ),
            ("func main() {", Some("func main")),
            ("let $el = 1", Some("let $el")),
            ("  const local = 1;", None),
            ("  let x = 2;", None),
            ("// fn commented() {}", None),
            ("# def nope():", None),
            ("return fn_call()", None),
            ("export default function () {}", None),
            ("const { a, b } = obj;", None),
        ];
        for (line, want) in cases {
            assert_eq!(declared(line).as_deref(), want, "{line:?}");
        }
    }

    #[test]
    fn the_rule() {
        let v1 = "export function a() {\n  return 1;\n}\n";
        let v2 = "export function a() {\n  // tidy\n  return 1 + 0;\n}\n";
        let v3 = "export function a() {\n  return 1;\n}\nexport function b() {}\n";
        let v4 = "export function renamed() {\n  return 1;\n}\n";
        assert_eq!(classify(Some(v1), Some(v2)), AstRefactor);
        assert_eq!(classify(Some(v1), Some(v3)), IntentEvolution);
        assert_eq!(classify(Some(v3), Some(v1)), IntentEvolution);
        assert_eq!(classify(Some(v1), Some(v4)), IntentEvolution);
        assert_eq!(classify(None, Some(v1)), IntentEvolution);
        assert_eq!(classify(Some(v1), None), IntentEvolution);
        // a word in a body is not a declaration (the seed's "contains function" rule)
        let v5 = "export function a() {\n  return 'a function';\n}\n";
        assert_eq!(classify(Some(v1), Some(v5)), AstRefactor);
        assert_eq!(AstRefactor.combine(IntentEvolution), IntentEvolution);
        assert_eq!(AstRefactor.combine(AstRefactor), AstRefactor);
    }
}

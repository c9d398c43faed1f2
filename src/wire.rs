//! What a hook call's JSON may hold, read the way the host will act on it.
//!
//! A JS host can hold strings that are not Unicode (a lone UTF-16 surrogate, `"\ud800"`):
//! `JSON.stringify` writes them as escapes that a strict JSON parser refuses, and a refused call
//! used to mean an unchecked call. Node and Bun encode such a string as UTF-8 with U+FFFD in the
//! surrogate's place wherever it leaves the process (a file name, a file's bytes, a command line),
//! so the core reads it the same way: every lone surrogate escape becomes `\ufffd` (same length,
//! rewritten in place) and the decision is about what the host will really do.
//!
//! Nesting: a call may nest its values [`MAX_ARGS_DEPTH`] levels deep below the call object.
//! Anything deeper is cut (replaced by `null`) and the call is marked [`Unreadable::Depth`]:
//! governance and enforcement refuse it with that reason, knowledge context reads what is left.
//! The scan is one pass, linear in the input, and allocates only when it changes something.

use std::borrow::Cow;

/// How deep a tool call's arguments may nest (the arguments object itself is level 1).
pub const MAX_ARGS_DEPTH: usize = 64;
/// How many values (strings, numbers, objects, … as JSON would write them) a host walks in a
/// call's arguments before it gives up and reports them as too large (`size`).
pub const MAX_ARGS_VALUES: usize = 100_000;

/// The bounds the host applies before a call crosses (the plan's `argsLimits`).
#[derive(Debug, Clone, Copy, serde::Serialize, PartialEq)]
pub struct ArgsLimits {
    pub depth: usize,
    pub values: usize,
}

pub const ARGS_LIMITS: ArgsLimits = ArgsLimits {
    depth: MAX_ARGS_DEPTH,
    values: MAX_ARGS_VALUES,
};

impl Default for ArgsLimits {
    fn default() -> Self {
        ARGS_LIMITS
    }
}

/// The same bound counted from the call object (the call is level 1, its `args` level 2).
const MAX_CALL_DEPTH: usize = MAX_ARGS_DEPTH + 1;

/// Why a call's arguments could not be read whole: as the host reports it (`unreadable` in the
/// call: the host could not encode them) or as the core found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// Nested deeper than [`MAX_ARGS_DEPTH`].
    Depth,
    /// A value that refers to itself (host-reported).
    Cycle,
    /// More values than the host walks before giving up (host-reported).
    Size,
    /// A value JSON cannot carry: a function, a BigInt, a symbol (host-reported; the type).
    Value(String),
    /// The host could not encode the arguments (its error message).
    Other(String),
}

impl Unreadable {
    /// From the host's code: `depth`, `cycle`, `size`, `value:<type>`, or anything else.
    pub fn from_code(code: &str) -> Unreadable {
        match code {
            "depth" => Unreadable::Depth,
            "cycle" => Unreadable::Cycle,
            "size" => Unreadable::Size,
            _ => match code.strip_prefix("value:") {
                Some(t) => Unreadable::Value(short(t, 40)),
                None => Unreadable::Other(short(code, 200)),
            },
        }
    }

    /// The reason, as a clause: "its arguments nest deeper than 64 levels".
    pub fn reason(&self) -> String {
        match self {
            Unreadable::Depth => {
                format!("its arguments nest deeper than {MAX_ARGS_DEPTH} levels")
            }
            Unreadable::Cycle => "its arguments refer to themselves (a cycle)".to_string(),
            Unreadable::Size => "its arguments are too large to check".to_string(),
            Unreadable::Value(t) => format!("its arguments hold a value JSON cannot carry ({t})"),
            Unreadable::Other(e) => format!("its arguments could not be read ({e})"),
        }
    }
}

fn short(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A call's bytes as the core parses them.
#[derive(Debug)]
pub struct Cleaned<'a> {
    pub bytes: Cow<'a, [u8]>,
    /// Something nested deeper than the bound was cut.
    pub too_deep: bool,
    /// Lone surrogate escapes read as U+FFFD.
    pub surrogates: usize,
}

/// Clean a call's JSON: lone surrogate escapes become `\ufffd`, values deeper than the bound
/// become `null`. Input that is not JSON is passed on as it is (the parser reports it).
pub fn clean(input: &[u8]) -> Cleaned<'_> {
    clean_at(input, MAX_CALL_DEPTH)
}

/// Clean the host's replies: lone surrogates as in [`clean`] (a session's messages, a file
/// name), values nested past what the parser takes cut (no reply of the protocol nests so deep).
pub fn clean_replies(input: &[u8]) -> Cleaned<'_> {
    clean_at(input, 120)
}

fn clean_at(input: &[u8], max_depth: usize) -> Cleaned<'_> {
    let mut out: Option<Vec<u8>> = None; // only once something changes
    let mut copied = 0; // input[..copied] is in `out` (or unchanged)
    let mut depth = 0usize;
    let mut too_deep = false;
    let mut surrogates = 0;
    let mut i = 0;
    let n = input.len();
    while i < n {
        match input[i] {
            b'"' => {
                i += 1;
                while i < n {
                    match input[i] {
                        b'"' => break,
                        b'\\' if input.get(i + 1) == Some(&b'u') => {
                            match hex4(input, i + 2) {
                                Some(hi @ 0xD800..=0xDBFF) => {
                                    let paired = input.get(i + 6) == Some(&b'\\')
                                        && input.get(i + 7) == Some(&b'u')
                                        && matches!(hex4(input, i + 8), Some(0xDC00..=0xDFFF));
                                    if paired {
                                        i += 12;
                                        continue;
                                    }
                                    let _ = hi;
                                }
                                Some(0xDC00..=0xDFFF) => {}
                                _ => {
                                    i += 2;
                                    continue;
                                }
                            }
                            // a lone surrogate: `\uXXXX` -> `\ufffd`, in place
                            let o = out.get_or_insert_with(|| Vec::with_capacity(n));
                            o.extend_from_slice(&input[copied..i]);
                            o.extend_from_slice(b"\\ufffd");
                            i += 6;
                            copied = i;
                            surrogates += 1;
                            continue;
                        }
                        b'\\' => i += 2,
                        _ => i += 1,
                    }
                }
                i += 1; // the closing quote
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    // cut the whole value: skip to its matching close
                    let end = skip_value(input, i);
                    let o = out.get_or_insert_with(|| Vec::with_capacity(n));
                    o.extend_from_slice(&input[copied..i]);
                    o.extend_from_slice(b"null");
                    i = end;
                    copied = i;
                    depth -= 1;
                    too_deep = true;
                    continue;
                }
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    let bytes = match out {
        Some(mut o) => {
            o.extend_from_slice(&input[copied.min(n)..]);
            Cow::Owned(o)
        }
        None => Cow::Borrowed(input),
    };
    Cleaned {
        bytes,
        too_deep,
        surrogates,
    }
}

/// The end (exclusive) of the array or object opening at `start`: its matching close, strings
/// skipped; the input's end when it has none.
fn skip_value(input: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    let n = input.len();
    while i < n {
        match input[i] {
            b'"' => {
                i += 1;
                while i < n && input[i] != b'"' {
                    i += if input[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    n
}

fn hex4(input: &[u8], at: usize) -> Option<u32> {
    let h = input.get(at..at + 4)?;
    let mut v = 0u32;
    for &b in h {
        v = v * 16 + (b as char).to_digit(16)?;
    }
    Some(v)
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;

//! Bounded parsing of the project's own files (`.orchestration/active_intents.yaml`, SOPs and
//! their front matter, `.opencode/hookwise.json`): the files may be hostile, and a parser
//! given a hostile file can take minutes (libyaml is quadratic in the nesting of flow
//! collections: 200 KB of `[` took 150 s natively) or gigabytes (YAML aliases: 80 KB that
//! expand to 200 million values).
//!
//! Each file goes through three limits before its parser builds anything:
//! - **size**: over the caller's limit (the host is asked for no more than that: `maxBytes`);
//! - **depth**: more than [`MAX_DEPTH`] levels of nesting, found by a linear pre-scan — for
//!   YAML one that follows libyaml's own scanner ([`yaml_scan`]), so quotes, comments, block
//!   scalars, tags and multi-line plain scalars cannot hide a bracket from it; for JSON one
//!   that skips strings (`\"` included);
//! - **expansion** (YAML): aliases may make the document at most [`EXPANSION`] times the
//!   size of its text, counted in values and characters by a pass that stops at the budget.
//!
//! Over a limit is a [`Refusal`] with a clear reason ("is 1025 KiB, over the 1 MiB limit",
//! "nests deeper than 64 levels at line 3"), not a parse error. After the limits the parsers
//! are linear: libyaml's per-token cost is bounded by the flow depth, serde_json's by its own.

#[cfg(test)]
mod tests;
mod yaml_scan;

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess};

/// The deepest nesting accepted (YAML: flow and block collections; JSON: arrays and objects).
/// serde_norway and serde_json themselves stop at 128.
pub const MAX_DEPTH: usize = 64;

/// YAML aliases may expand a document to this many times its size (values + characters).
/// Without aliases a document never comes near: every value takes at least one character.
pub const EXPANSION: usize = 3;

/// A deliberate limit, not a parse error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    TooLarge {
        /// The size, when known (a host that refused to read it may not say).
        bytes: Option<u64>,
        limit: u64,
    },
    TooDeep {
        line: usize,
        limit: usize,
    },
    /// YAML aliases expand the document past [`EXPANSION`] times its size.
    Expands {
        limit: usize,
    },
}

impl Refusal {
    /// The line (1-based) it is about: where the nesting passed the limit, else 1.
    pub fn line(&self) -> usize {
        match self {
            Refusal::TooDeep { line, .. } => *line,
            _ => 1,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::TooLarge {
                bytes: Some(b),
                limit,
            } => write!(f, "is {}, over the {} limit", size(*b), size(*limit)),
            Refusal::TooLarge { bytes: None, limit } => {
                write!(f, "is over the {} limit", size(*limit))
            }
            Refusal::TooDeep { line, limit } => {
                write!(f, "nests deeper than {limit} levels at line {line}")
            }
            Refusal::Expands { limit } => write!(
                f,
                "expands through its YAML aliases to more than {limit} values and characters ({EXPANSION} times its size); write the repeated parts out"
            ),
        }
    }
}

/// A size for people: `812 bytes`, `210 KiB`, `1 MiB`, `50 MiB` (rounded up, so that a size
/// just over a limit never reads as the limit).
pub fn size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    if bytes < 10 * KIB && !bytes.is_multiple_of(KIB) {
        format!("{bytes} bytes")
    } else if bytes < 10 * MIB && !bytes.is_multiple_of(MIB) {
        format!("{} KiB", bytes.div_ceil(KIB))
    } else {
        format!("{} MiB", bytes.div_ceil(MIB))
    }
}

/// The size limit alone: `Err` when `bytes` is over `limit`.
pub fn check_size(bytes: u64, limit: u64) -> Result<(), Refusal> {
    if bytes > limit {
        Err(Refusal::TooLarge {
            bytes: Some(bytes),
            limit,
        })
    } else {
        Ok(())
    }
}

/// What a host's read reply says, for a file read with `maxBytes: limit`: its text,
/// `Ok(None)` when it does not exist, or why it cannot be used — a `too-large` reply (the
/// host read no more than the limit) is a [`Refusal`], told as one.
pub fn read_reply(
    r: &crate::protocol::ReadResult,
    limit: u64,
) -> Result<Option<String>, ReadError> {
    use crate::protocol::ReplyError;
    match (&r.text, r.error) {
        (Some(t), None) => {
            check_size(t.len() as u64, limit).map_err(ReadError::Refused)?;
            Ok(Some(t.clone()))
        }
        (_, Some(ReplyError::TooLarge)) => Err(ReadError::Refused(Refusal::TooLarge {
            bytes: r.size.filter(|s| *s > limit),
            limit,
        })),
        (_, Some(ReplyError::NotFound)) => Ok(None),
        (_, Some(_)) => Err(ReadError::Unreadable(r.describe_error())),
        (None, None) => Ok(None),
    }
}

/// Why a file could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    Refused(Refusal),
    /// The host's error word (`EACCES`, `not-utf8`, `EISDIR`…).
    Unreadable(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Refused(r) => r.fmt(f),
            ReadError::Unreadable(e) => write!(f, "could not be read ({e})"),
        }
    }
}

/// A YAML text that could not be parsed: a limit, or the parser's error.
#[derive(Debug)]
pub enum YamlError {
    Refused(Refusal),
    Syntax(serde_norway::Error),
}

impl YamlError {
    /// The line (1-based) the error is about, when known.
    pub fn line(&self) -> Option<usize> {
        match self {
            YamlError::Refused(r) => Some(r.line()),
            YamlError::Syntax(e) => e.location().map(|l| l.line()),
        }
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YamlError::Refused(r) => r.fmt(f),
            YamlError::Syntax(e) => e.fmt(f),
        }
    }
}

/// The line (1-based) where `text`, as YAML, first nests deeper than `max` levels.
pub fn yaml_too_deep(text: &str, max: usize) -> Option<usize> {
    yaml_scan::scan(text, max).too_deep_at
}

/// Parse YAML within the limits: `max_bytes`, [`MAX_DEPTH`] and [`EXPANSION`].
pub fn yaml<T: DeserializeOwned>(text: &str, max_bytes: u64) -> Result<T, YamlError> {
    check_size(text.len() as u64, max_bytes).map_err(YamlError::Refused)?;
    let found = yaml_scan::scan(text, MAX_DEPTH);
    if let Some(line) = found.too_deep_at {
        return Err(YamlError::Refused(Refusal::TooDeep {
            line,
            limit: MAX_DEPTH,
        }));
    }
    // Only an alias expands a document: without one the text bounds it (the scan finds the
    // alias tokens libyaml finds; a `*` in a glob or a quoted string is none).
    if found.aliases > 0 {
        let limit = EXPANSION * text.len() + 1024;
        if expands_past(text, limit) {
            return Err(YamlError::Refused(Refusal::Expands { limit }));
        }
    }
    serde_norway::from_str(text).map_err(YamlError::Syntax)
}

/// Whether the document, aliases expanded, has more than `budget` values and characters.
/// Walks what serde_norway would build (it replays an alias's events for each use) without
/// building it, and stops as soon as the budget is spent. A syntax error is not this pass's
/// business (the real parse reports it): `false`.
fn expands_past(text: &str, budget: usize) -> bool {
    let left = Cell::new(budget);
    let over = Cell::new(false);
    let seed = Count {
        left: &left,
        over: &over,
    };
    let _ = seed.deserialize(serde_norway::Deserializer::from_str(text));
    over.get()
}

/// A visitor that counts what it is shown and fails once the budget is spent.
#[derive(Clone, Copy)]
struct Count<'a> {
    left: &'a Cell<usize>,
    over: &'a Cell<bool>,
}

impl Count<'_> {
    fn spend<E: de::Error>(&self, n: usize) -> Result<(), E> {
        match self.left.get().checked_sub(n) {
            Some(l) => {
                self.left.set(l);
                Ok(())
            }
            None => {
                self.over.set(true);
                Err(E::custom("expansion budget spent"))
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Count<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> de::Visitor<'de> for Count<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.spend(1)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.spend(1)
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.spend(1)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.spend(1)
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.spend(1)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.spend(1)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.spend(1 + v.len())
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        self.spend(1 + v.len())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.spend(1)
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.spend(1)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.spend(1)?;
        self.deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.spend(1)?;
        self.deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.spend(1)?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.spend(1)?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        // a tagged value (`!tag value`): the tag, then the value
        use de::VariantAccess;
        self.spend(1)?;
        let ((), variant) = data.variant_seed(self)?;
        variant.newtype_variant_seed(self)
    }
}

/// A JSON text that could not be parsed: a limit, or the parser's error.
#[derive(Debug)]
pub enum JsonError {
    Refused(Refusal),
    Syntax(serde_json::Error),
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Refused(r) => r.fmt(f),
            JsonError::Syntax(e) => e.fmt(f),
        }
    }
}

/// The line (1-based) where the JSON text first nests deeper than `max` arrays and objects.
/// Brackets inside strings (escaped quotes included) do not count. Linear; for a text that is
/// not valid JSON the answer is only as good as the text (the parser then reports it).
pub fn json_too_deep(text: &str, max: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut line = 1;
    let mut in_string = false;
    let mut escaped = false;
    for &c in text.as_bytes() {
        if c == b'\n' {
            line += 1;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(line);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Parse JSON within the limits: `max_bytes` and [`MAX_DEPTH`].
pub fn json(text: &str, max_bytes: u64) -> Result<serde_json::Value, JsonError> {
    check_size(text.len() as u64, max_bytes).map_err(JsonError::Refused)?;
    if let Some(line) = json_too_deep(text, MAX_DEPTH) {
        return Err(JsonError::Refused(Refusal::TooDeep {
            line,
            limit: MAX_DEPTH,
        }));
    }
    // (from bytes: every JSON the lean build reads goes through one reader, `SliceRead`;
    // `from_str`'s `StrRead` is a second copy of the parser in the wasm)
    serde_json::from_slice(text.as_bytes()).map_err(JsonError::Syntax)
}

/// The kind of a JSON value in words, for messages: `null`, `a boolean`, `a number`,
/// `a string`, `an array`, `an object`.
pub fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

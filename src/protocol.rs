//! What crosses the host boundary: requests the core asks the host to carry out, and the parts
//! of a hook's answer. Everything is JSON; field names are camelCase.

use serde::{Deserialize, Serialize};

/// Something the core needs done outside: the host carries it out and replies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Request {
    /// Run a program (argv, never a shell). Reply: `SpawnResult`.
    Spawn {
        argv: Vec<String>,
        timeout_ms: u64,
        max_bytes: u64,
    },
    /// Wait. Reply: `{}`.
    Sleep { ms: u64 },
    /// Look at a path. Reply: `StatResult`.
    Stat { path: String },
    /// Look at each path itself, not following a final symlink (`lstat`, and `readlink` for a
    /// link): the facts a write's two readings are walked with (`governance::reading`), one
    /// request for every component of a call's paths. Reply: `LstatResult`.
    Lstat { paths: Vec<String> },
    /// Read a file as UTF-8. Reply: `ReadResult`, or the file's raw bytes sent beside the
    /// replies' JSON as `{"blob": [offset, length, size?, mtimeMs?]}` (see [`resolve_blob`]):
    /// no text decoding, escaping or re-encoding on the way in.
    ReadFile { path: String, max_bytes: u64 },
    /// Read several files below one folder, each as `ReadFile` reads `dir` + `path` (`dir`
    /// ends in a separator: the host only concatenates): one request for a batch of notes
    /// instead of one per note. Reply: `{"files": [reply, …]}`, a `ReadFile` reply per path, in order; with the
    /// bytes sent beside the replies, a file read is its bare `[offset, length, size?,
    /// mtimeMs?]` array. A host that does not know it replies anything else (an error): the
    /// core then asks `ReadFile` for each.
    ReadFiles {
        dir: String,
        paths: Vec<String>,
        max_bytes: u64,
    },
    /// Append one line (no newline inside) to a file, creating it and its folders. Reply: `{ok, error?}`.
    /// (Every failed reply to a file-system request carries `error` as a [`ReplyError`] code
    /// and, optionally, `detail`.)
    AppendLine { path: String, line: String },
    /// The text of a session's messages, oldest first (OpenCode: `client.session.messages`,
    /// each message's text parts joined). Reply: `{messages: [{role, text}], error?}`.
    SessionMessages { session_id: String },
    /// Start the maenifold MCP server (`argv`, never a shell; `env` added to the host's own) as
    /// a long-lived child with piped stdio, known from now on as `session`. Its stdout goes to
    /// the engine's `mcpFeed(session, bytes)` as it arrives, its exit or stdout close to
    /// `mcpClosed(session, {code?, signal?, error?, stderr?})`; stderr is drained (a bounded
    /// tail kept for `mcpClosed`). Reply when spawned or failed: `{ok, pid?, error?, nowMs?}`.
    /// Cancelled: kill the child.
    McpStart {
        session: u64,
        argv: Vec<String>,
        env: std::collections::BTreeMap<String, String>,
    },
    /// Write `text` (complete `\n`-terminated lines) to the session's stdin, in the order the
    /// requests arrive. Reply: `{ok, error?, nowMs?}`.
    McpWrite { session: u64, text: String },
    /// Stop the session: close its stdin, end its process group if still alive after `graceMs` (SIGTERM, SIGKILL 1 s later). Reply `{}` at
    /// once. Unknown or ended sessions: reply `{}`.
    McpStop { session: u64, grace_ms: u64 },
    /// Engine-internal, never sent to the host: an operation parked until the MCP session has
    /// news for request `rpcId` (see `mcp::router`).
    McpAwait { session: u64, rpc_id: u64 },
    /// List a folder (with `recursive`, everything below it, not descending into symlinked
    /// folders), at most `max_entries` entries; with `skip_hidden`, names starting with `.`
    /// (`.git`, `.obsidian`) are left out. With `types_only`, an entry that is a file or a
    /// folder (not a symlink) may come with only what the folder listing itself tells — its
    /// type, `size` and `mtimeMs` 0 — saving a stat per entry when nothing is compared with
    /// them (the first index of a vault; the reads report each file's size and mtime).
    /// Reply: `ListDirResult`.
    ListDir {
        path: String,
        recursive: bool,
        max_entries: u64,
        #[serde(default)]
        skip_hidden: bool,
        #[serde(default)]
        types_only: bool,
    },
    /// Append one record to a hash-chained JSONL file (the Agent Trace log), under an
    /// exclusive lock so that several processes keep one chain. The host writes the line
    /// `before + <hex SHA-256 of the file's last line> + after` and, with `head_path`, rewrites
    /// the head file from `head_parts` in the same critical section (see `governance` docs for
    /// the exact steps). Reply: `{ok, prevHash?, head?, error?}`.
    AppendChained {
        path: String,
        lock_path: String,
        before: String,
        after: String,
        stale_ms: u64,
        wait_ms: u64,
        /// Break a lock seen unchanged (same file, same content) this long; 0: never.
        #[serde(default)]
        break_ms: u64,
        /// The head file kept beside the log; empty: none.
        #[serde(default)]
        head_path: String,
        /// The head's text around its three values: `parts[0] + records + parts[1] + bytes +
        /// parts[2] + <hex SHA-256 of the last line> + parts[3]`.
        #[serde(default)]
        head_parts: Vec<String>,
        /// When the log ends in a torn line (bytes after its last newline): move those bytes
        /// to `torn_path` (created, never overwritten), cut the log after its last newline,
        /// append the repair record `parts[0] + <byte count> + parts[1] + <hex SHA-256 of the
        /// torn bytes> + parts[2] + <hex SHA-256 of the previous line> + parts[3]`, then the
        /// record (chained to it), keeping the head through both. Empty: no repair (the torn
        /// line is closed with a newline and chained to, as before). The reply then has
        /// `torn: {path, bytes}`.
        #[serde(default)]
        torn_parts: Vec<String>,
        #[serde(default)]
        torn_path: String,
    },
    /// Under the lock of `AppendChained`: when the log's size is `expect_bytes` and its last
    /// line's hex SHA-256 is `expect_last`, replace the head file with `text` (temporary file,
    /// then rename). Reply: `{ok, error?}`, `error: "changed"` when the log is not as expected.
    WriteHead {
        path: String,
        lock_path: String,
        head_path: String,
        text: String,
        expect_bytes: u64,
        expect_last: String,
        stale_ms: u64,
        wait_ms: u64,
        #[serde(default)]
        break_ms: u64,
    },
    /// Read the last `max_bytes` of a file as UTF-8, starting at a line boundary (a cut first
    /// line is dropped). Reply: `ReadResult` (`error: "not-found"` when it does not exist).
    ReadTail { path: String, max_bytes: u64 },
    /// Create a file with `text`, creating its folders; never overwrite. Reply: `{ok, error?}`
    /// with `error: "exists"` when the file already exists.
    CreateFile { path: String, text: String },
    /// Replace a file's whole text atomically (write a temporary file beside it, then rename),
    /// creating its folders. Writes to one path are carried out in the order requested.
    /// Reply: `{ok, error?}`.
    WriteFile { path: String, text: String },
    /// The host's wall clock. Reply: `{ms}` (milliseconds since the Unix epoch, fractional).
    Now,
    /// What changed below the vault folder `root` since the previous `VaultChanges` for it
    /// (the host watches the folder; the first question starts watching). Reply: a
    /// `ListDirResult` with an entry, as it is now, for each path (file or folder) created,
    /// changed, deleted or renamed — a deleted one is neither file nor folder — in no order;
    /// `truncated` when the host cannot tell everything that changed (the first question, too
    /// many changes, a folder it could not watch); `error` when it does not watch the folder.
    /// Either way the core re-lists the folder instead.
    VaultChanges { root: String },
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StatResult {
    pub exists: bool,
    /// The path with every symlink resolved (absent when it does not exist).
    pub realpath: Option<String>,
    pub is_file: bool,
    pub is_dir: bool,
    /// Any execute bit set.
    pub executable: bool,
    pub size: u64,
    pub mtime_ms: f64,
    /// Why it could not be looked at (`NotFound` when it does not exist).
    pub error: Option<ReplyError>,
    pub detail: Option<String>,
    /// Not found, but the path itself is a symlink (its target is missing: a dangling link).
    /// Sent only when true.
    pub is_symlink: bool,
}

/// The reply to `Request::Lstat`, `{"facts": [...]}`: for each path, in order, `[kind, target, nlink]` — `kind`
/// one of `file`, `dir`, `link`, `other`, `missing`, `error`; `target` the link's target as
/// `readlink` gives it (for `error`: the host's words), else `null`; `nlink` the number of
/// names the file has (hard links). Compact arrays: a call asks a few dozen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LstatResult {
    pub facts: Vec<(String, Option<String>, u64)>,
}

/// Why a host reply failed. It crosses as a code, `"error": "not-found"`, beside an optional
/// `"detail"`: the host's own words for the log (`ENOENT: no such file or directory, open …`).
/// The core decides on the code alone; a code it does not know reads as [`ReplyError::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplyError {
    /// `not-found`: the path does not exist (or a folder on the way to it does not).
    NotFound,
    /// `not-utf8`: a file read as text whose bytes are not UTF-8.
    NotUtf8,
    /// `too-large`: a file over the request's `maxBytes` (not read past it).
    TooLarge,
    /// `denied`: the host may not touch the path (permissions).
    Denied,
    /// `exists`: `CreateFile` found the file already there (left unchanged).
    Exists,
    /// `changed`: `WriteHead` found the log not as expected.
    Changed,
    /// `other`: anything else (a folder read as a file, a lock timeout, a full disk…); the
    /// detail says what.
    Other,
}

impl ReplyError {
    /// Every code, in the order of the enum.
    pub const ALL: [ReplyError; 7] = [
        ReplyError::NotFound,
        ReplyError::NotUtf8,
        ReplyError::TooLarge,
        ReplyError::Denied,
        ReplyError::Exists,
        ReplyError::Changed,
        ReplyError::Other,
    ];

    /// The code on the wire.
    pub const fn code(self) -> &'static str {
        match self {
            ReplyError::NotFound => "not-found",
            ReplyError::NotUtf8 => "not-utf8",
            ReplyError::TooLarge => "too-large",
            ReplyError::Denied => "denied",
            ReplyError::Exists => "exists",
            ReplyError::Changed => "changed",
            ReplyError::Other => "other",
        }
    }

    /// A reply's `error` read as a code; anything that is not one is `Other`.
    pub fn of(code: &str) -> ReplyError {
        ReplyError::ALL
            .into_iter()
            .find(|e| e.code() == code)
            .unwrap_or(ReplyError::Other)
    }

    /// The `error` of a reply given as JSON (`{ok, error?, detail?}`), if any.
    pub fn in_reply(reply: &serde_json::Value) -> Option<ReplyError> {
        reply
            .get("error")
            .map(|e| e.as_str().map_or(ReplyError::Other, ReplyError::of))
    }

    /// The code with the host's detail, for a log line: `denied: EACCES: permission denied`
    /// (`other` says nothing: its detail alone, `lock timeout`).
    pub fn describe(self, detail: Option<&str>) -> String {
        match detail.filter(|d| !d.is_empty()) {
            Some(d) if self == ReplyError::Other => d.to_string(),
            Some(d) => format!("{}: {d}", self.code()),
            None => self.code().to_string(),
        }
    }

    /// [`ReplyError::describe`] of a reply given as JSON: its error and detail, or `missing`
    /// when it has no error.
    pub fn describe_reply(reply: &serde_json::Value, missing: &str) -> String {
        match ReplyError::in_reply(reply) {
            Some(e) => e.describe(reply.get("detail").and_then(serde_json::Value::as_str)),
            None => missing.to_string(),
        }
    }
}

impl std::fmt::Display for ReplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for ReplyError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for ReplyError {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let code = std::borrow::Cow::<str>::deserialize(d)?;
        Ok(ReplyError::of(&code))
    }
}

/// The reply to `ReadFile`. On failure `error` says why (`not-found`, `not-utf8`, `too-large`,
/// `denied`, `other`) and `detail` may say more. `size` and `mtimeMs`, when the host
/// gives them, are the file's as it was opened (what a stat in a listing would say).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReadResult {
    pub text: Option<String>,
    pub error: Option<ReplyError>,
    pub detail: Option<String>,
    pub size: Option<u64>,
    pub mtime_ms: Option<f64>,
}

impl ReadResult {
    /// A failed read, for a reply that could not be decoded.
    pub fn failed(error: ReplyError, detail: impl Into<String>) -> ReadResult {
        ReadResult {
            error: Some(error),
            detail: Some(detail.into()),
            ..Default::default()
        }
    }

    /// The error with its detail, for a log line; empty when the read did not fail.
    pub fn describe_error(&self) -> String {
        self.error
            .map(|e| e.describe(self.detail.as_deref()))
            .unwrap_or_default()
    }
}

/// Turn a reply that names a range of the bytes sent beside the replies (`{"blob": [offset,
/// length, size?, mtimeMs?]}`, how a host answers `ReadFile` without decoding the file) into a
/// `ReadResult`: `{"text": …}` (a leading UTF-8 byte order mark dropped) or `{"error":
/// "not-utf8"}`, with the file's `size` and `mtimeMs` when the array has them (in the array, not
/// as keys of their own: 10,000 replies decode measurably faster). A range outside `bytes` is
/// an unreadable file, never a panic. In a `ReadFiles` reply (`{"files": [...]}`) each file
/// given as a bare range array is resolved the same way, a text into the compact
/// `[text, size?, mtimeMs?]` that [`file_result`] reads. Other replies are left alone.
pub fn resolve_blob(reply: &mut serde_json::Value, bytes: &[u8]) {
    use serde_json::Value;
    if let Some(files) = reply.get_mut("files").and_then(Value::as_array_mut) {
        for f in files.iter_mut() {
            let Value::Array(range) = f else {
                continue; // an error, or a text sent as JSON
            };
            let mut range = std::mem::take(range);
            *f = match blob_text(&range, bytes) {
                Ok(text) => {
                    let mut out = Vec::with_capacity(3);
                    out.push(Value::String(text));
                    if range.len() >= 4 {
                        out.extend(range.drain(2..4));
                    }
                    Value::Array(out)
                }
                Err(e) => read_error(e, &range),
            };
        }
        return;
    }
    // (no `Map::remove`: the whole reply is replaced, which keeps the B-tree's removal code out
    // of the wasm)
    let Some(range) = reply.get("blob") else {
        return;
    };
    let range = range.as_array().map_or(&[][..], Vec::as_slice);
    *reply = match blob_text(range, bytes) {
        Ok(text) => {
            let mut out = serde_json::Map::new();
            out.insert("text".into(), Value::String(text));
            with_meta(out, range)
        }
        Err(e) => read_error(e, range),
    };
}

/// The text of the bytes `[offset, length, …]` names (a leading byte order mark dropped), or
/// the read error: `not-utf8`, or `other` when the range is not within `bytes`.
fn blob_text(
    range: &[serde_json::Value],
    bytes: &[u8],
) -> Result<String, (ReplyError, Option<&'static str>)> {
    let at = |i: usize| range.get(i).and_then(serde_json::Value::as_u64);
    let slice = match (at(0), at(1)) {
        (Some(o), Some(l)) => usize::try_from(o)
            .ok()
            .zip(usize::try_from(l).ok())
            .and_then(|(o, l)| bytes.get(o..o.checked_add(l)?)),
        _ => None,
    };
    let b = slice.ok_or((
        ReplyError::Other,
        Some("the reply names bytes that were not sent"),
    ))?;
    let b = b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b);
    std::str::from_utf8(b)
        .map(str::to_owned)
        .map_err(|_| (ReplyError::NotUtf8, None))
}

/// A `ReadResult` object with `error` (and `detail`), and the range's size and mtime when it
/// has them.
fn read_error(
    (e, detail): (ReplyError, Option<&str>),
    range: &[serde_json::Value],
) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    out.insert("error".into(), serde_json::Value::from(e.code()));
    if let Some(d) = detail {
        out.insert("detail".into(), serde_json::Value::from(d));
    }
    with_meta(out, range)
}

fn with_meta(
    mut out: serde_json::Map<String, serde_json::Value>,
    range: &[serde_json::Value],
) -> serde_json::Value {
    if let Some([size, mtime]) = range.get(2..4) {
        out.insert("size".into(), size.clone());
        out.insert("mtimeMs".into(), mtime.clone());
    }
    serde_json::Value::Object(out)
}

/// One file of a `ReadFiles` reply, as [`resolve_blob`] left it: the compact `[text, size?,
/// mtimeMs?]` of a file read as bytes, or a `ReadResult` object (an error, or a host that sent
/// the text as JSON). Anything else reads as an empty result (no text, no error).
pub fn file_result(v: serde_json::Value) -> ReadResult {
    use serde_json::Value;
    match v {
        Value::Array(a) => {
            let mut a = a.into_iter();
            let Some(Value::String(text)) = a.next() else {
                return ReadResult::default();
            };
            ReadResult {
                text: Some(text),
                error: None,
                detail: None,
                size: a.next().and_then(|v| v.as_u64()),
                mtime_ms: a.next().and_then(|v| v.as_f64()),
            }
        }
        v => serde_json::from_value(v).unwrap_or_default(),
    }
}

/// The reply to `ListDir`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListDirResult {
    pub entries: Vec<DirEntry>,
    /// More entries existed than `max_entries`.
    pub truncated: bool,
    /// The folder could not be listed (entries may still hold what was listed before).
    pub error: Option<ReplyError>,
    pub detail: Option<String>,
}

/// One entry of a listing. `isFile` / `isDir` describe what the entry leads to (a symlink is
/// followed); `isSymlink` the entry itself. Also read from an array of the fields in this
/// order, as the JS host sends a listing (10,000 entries as objects cost ~40 ms more in the
/// wasm: a map and seven keys each); the field order is part of the protocol.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DirEntry {
    /// Relative to the listed folder, `/`-separated.
    pub path: String,
    pub is_file: bool,
    pub is_dir: bool,
    pub is_symlink: bool,
    /// The entry's path with every symlink resolved (the host may give it for symlinks only).
    pub realpath: Option<String>,
    pub size: u64,
    pub mtime_ms: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

/// A line for the host's log (OpenCode: `client.app.log`, service `hookwise`). Made by
/// [`Log::warn`], [`Log::debug`] or [`Log::info`] only: they redact credentials
/// ([`crate::redact`]) and make the message one line, whatever a tool printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Log {
    pub level: Level,
    pub message: String,
}

impl Log {
    pub fn warn(message: impl Into<String>) -> Log {
        Log {
            level: Level::Warn,
            message: one_line(crate::redact::redact_string(message.into())),
        }
    }
    pub fn debug(message: impl Into<String>) -> Log {
        Log {
            level: Level::Debug,
            message: one_line(crate::redact::redact_string(message.into())),
        }
    }
    pub fn info(message: impl Into<String>) -> Log {
        Log {
            level: Level::Info,
            message: one_line(crate::redact::redact_string(message.into())),
        }
    }
}

/// A log line is one line: control characters (newlines included) become spaces and
/// undecodable bytes (U+FFFD) a `?`, whatever a tool printed.
fn one_line(s: String) -> String {
    if !s.chars().any(|c| c.is_control() || c == '\u{FFFD}') {
        return s;
    }
    s.chars()
        .map(|c| {
            if c == '\u{FFFD}' {
                '?'
            } else if c.is_control() {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// A change to one string argument of a tool call, named by its path of keys / indexes: what
/// the core asks the host to run instead (a knowledge block or advice before a shell command
/// or a sub-agent's prompt, a governed shell's command under the confining launcher). Neutral:
/// each host applies it its own way (in place, a changed copy, a rewrite answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArgEdit {
    pub path: Vec<PathKey>,
    /// First of all: the string becomes this (a governed shell's command put under the
    /// confining launcher, `governance::confine`); the prepend applies to it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub set: Option<String>,
    /// Else: remove every span from the first string to the second (inclusive) and up to two
    /// newlines after it — an earlier block, so a field never carries two.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub strip: Option<(String, String)>,
    /// Then: this text goes before the string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prepend: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PathKey {
    Key(String),
    Index(usize),
}

impl From<&str> for PathKey {
    fn from(s: &str) -> Self {
        PathKey::Key(s.to_string())
    }
}

#[cfg(test)]
mod blob_tests {
    use super::*;
    use serde_json::json;

    fn resolved(reply: serde_json::Value, bytes: &[u8]) -> serde_json::Value {
        let mut r = reply;
        resolve_blob(&mut r, bytes);
        r
    }

    #[test]
    fn blobs_become_text_or_a_read_error() {
        let bytes = b"\xEF\xBB\xBF# T\n\xC3\xA9t\xC3\xA9 [[x]]\xff\xfe";
        // BOM dropped, multi-byte UTF-8 kept
        assert_eq!(
            resolved(json!({"blob": [0, 18]}), bytes),
            json!({"text": "# T\nété [[x]]"})
        );
        assert_eq!(
            resolved(json!({"blob": [3, 4]}), bytes),
            json!({"text": "# T\n"})
        );
        // an empty file, also with no bytes sent at all
        assert_eq!(resolved(json!({"blob": [0, 0]}), &[]), json!({"text": ""}));
        // invalid UTF-8 (and a range cutting a character in two)
        assert_eq!(
            resolved(json!({"blob": [0, 19]}), bytes),
            json!({"error": "not-utf8"})
        );
        assert_eq!(
            resolved(json!({"blob": [7, 1]}), bytes),
            json!({"error": "not-utf8"})
        );
        let r = ReadResult::deserialize(resolved(json!({"blob": [7, 1]}), bytes)).unwrap();
        assert_eq!(r.error, Some(ReplyError::NotUtf8));
        // ranges outside the bytes, overflowing, or malformed: unreadable, no panic
        for bad in [
            json!({"blob": [0, 21]}),
            json!({"blob": [u64::MAX, 2]}),
            json!({"blob": [1]}),
            json!({"blob": "0,1"}),
            json!({"blob": [-1, 1]}),
        ] {
            let r = ReadResult::deserialize(resolved(bad.clone(), bytes)).unwrap();
            assert!(r.text.is_none(), "{bad}");
            assert_eq!(r.error, Some(ReplyError::Other), "{bad}");
            assert!(r.detail.unwrap().contains("not sent"), "{bad}");
        }
        // the file's size and mtime as the host opened it are kept, for text and error alike
        let r = resolved(json!({"blob": [3, 4, 4, 1.7e12 + 0.25]}), bytes);
        assert_eq!(
            r,
            json!({"text": "# T\n", "size": 4, "mtimeMs": 1.7e12 + 0.25})
        );
        let r = ReadResult::deserialize(r).unwrap();
        assert_eq!((r.size, r.mtime_ms), (Some(4), Some(1.7e12 + 0.25)));
        let r = resolved(json!({"blob": [0, 19, 19, 2.0]}), bytes);
        assert_eq!(r, json!({"error": "not-utf8", "size": 19, "mtimeMs": 2.0}));
        // other replies are left alone
        for other in [
            json!({"text": "t"}),
            json!({"exists": true}),
            json!([1, 2]),
            json!(null),
        ] {
            assert_eq!(resolved(other.clone(), bytes), other);
        }
    }

    /// A `ReadFiles` reply: each file given as a bare range resolves as a `{"blob": …}` reply
    /// would, and reads back through `file_result` as the same `ReadResult`; files the host
    /// answered as objects (errors, text sent as JSON) are left as they are.
    #[test]
    fn the_files_of_a_batched_read_resolve_like_single_reads() {
        let bytes = b"\xEF\xBB\xBF# A\n[[x]]# B\xff";
        let ranges = [
            json!([0, 12, 12, 1.5e12]),
            json!([12, 3]),
            json!([12, 4, 4, 2.0]),
            json!([40, 1, 1, 3.0]),
            json!([]),
        ];
        let mut reply = json!({"files": ranges.iter().cloned().chain([
            json!({"error": "not-found", "detail": "ENOENT"}),
            json!({"text": "as json", "size": 7, "mtimeMs": 4.0}),
        ]).collect::<Vec<_>>()});
        resolve_blob(&mut reply, bytes);
        let files = reply["files"].as_array().unwrap().clone();
        assert_eq!(
            files[0],
            json!(["# A\n[[x]]", 12, 1.5e12]),
            "compact: no keys"
        );
        let got: Vec<ReadResult> = files.into_iter().map(file_result).collect();
        for (range, r) in ranges.iter().zip(&got) {
            let single =
                ReadResult::deserialize(resolved(json!({ "blob": range }), bytes)).unwrap();
            assert_eq!(r, &single, "{range}");
        }
        assert_eq!(got[1].text.as_deref(), Some("# B"));
        assert_eq!((got[1].size, got[1].mtime_ms), (None, None));
        assert_eq!(got[2].error, Some(ReplyError::NotUtf8));
        assert_eq!(got[3].error, Some(ReplyError::Other));
        assert_eq!(got[5].error, Some(ReplyError::NotFound));
        assert_eq!(got[5].detail.as_deref(), Some("ENOENT"));
        assert_eq!(got[6].text.as_deref(), Some("as json"));
        assert_eq!((got[6].size, got[6].mtime_ms), (Some(7), Some(4.0)));
        // anything else is an empty result, never a panic
        assert_eq!(file_result(json!(5)), ReadResult::default());
        assert_eq!(file_result(json!([1, 2])), ReadResult::default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Entries as arrays of the fields in order (how the JS host lists) decode to what the
    /// same entries as objects do; missing trailing fields take their defaults.
    #[test]
    fn listing_entries_decode_the_same_as_arrays_or_objects() {
        let objects = json!({"entries": [
            {"path": "a.md", "isFile": true, "isDir": false, "isSymlink": false, "size": 12, "mtimeMs": 1.5e12},
            {"path": "l.md", "isFile": true, "isDir": false, "isSymlink": true, "realpath": "/x/l.md", "size": 3, "mtimeMs": 2.0},
            {"path": "sub", "isFile": false, "isDir": true, "isSymlink": false, "size": 0, "mtimeMs": 0.0}
        ], "truncated": true, "error": "denied"});
        let arrays = json!({"entries": [
            ["a.md", true, false, false, null, 12, 1.5e12],
            ["l.md", true, false, true, "/x/l.md", 3, 2],
            ["sub", false, true]
        ], "truncated": true, "error": "denied"});
        let a: ListDirResult = serde_json::from_value(objects).unwrap();
        let b: ListDirResult = serde_json::from_value(arrays).unwrap();
        assert_eq!(a, b);
        assert_eq!(b.entries[1].realpath.as_deref(), Some("/x/l.md"));
        assert_eq!(b.error, Some(ReplyError::Denied));
        assert!(
            serde_json::from_value::<ListDirResult>(json!({"entries": [["a.md", "yes"]]})).is_err()
        );
    }

    /// Reply errors cross as codes: each reads back as itself, anything else as `Other`
    /// (never a failed decode of the whole reply).
    #[test]
    fn reply_errors_cross_as_codes() {
        for e in ReplyError::ALL {
            assert_eq!(ReplyError::of(e.code()), e);
            assert_eq!(serde_json::to_value(e).unwrap(), json!(e.code()));
            let r: ReadResult = serde_json::from_value(json!({"error": e.code()})).unwrap();
            assert_eq!(r.error, Some(e));
        }
        for raw in ["ENOENT", "vanished", "EACCES", "NOT-FOUND", "", "not found"] {
            assert_eq!(ReplyError::of(raw), ReplyError::Other, "{raw}");
        }
        let r: StatResult =
            serde_json::from_value(json!({"exists": false, "error": "EPERM"})).unwrap();
        assert_eq!(r.error, Some(ReplyError::Other));
        assert_eq!(
            ReplyError::in_reply(&json!({"ok": false, "error": 5})),
            Some(ReplyError::Other)
        );
        assert_eq!(ReplyError::in_reply(&json!({"ok": true})), None);
        assert_eq!(
            ReplyError::describe_reply(&json!({"error": "denied", "detail": "EACCES: x"}), "?"),
            "denied: EACCES: x"
        );
        assert_eq!(
            ReplyError::describe_reply(&json!({}), "no reply"),
            "no reply"
        );
        assert_eq!(
            ReplyError::Other.describe(Some("lock timeout")),
            "lock timeout"
        );
        assert_eq!(ReplyError::Other.describe(None), "other");
    }
}

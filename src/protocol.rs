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
    /// Read a file as UTF-8. Reply: `ReadResult`.
    ReadFile { path: String, max_bytes: u64 },
    /// Append one line (no newline inside) to a file, creating it and its folders. Reply: `{ok, error?}`.
    AppendLine { path: String, line: String },
    /// List a folder (with `recursive`, everything below it), at most `max_entries` entries.
    /// Reply: `ListDirResult`.
    ListDir {
        path: String,
        recursive: bool,
        max_entries: u64,
    },
    /// Replace a file's whole text atomically (write a temporary file beside it, then rename),
    /// creating its folders. Writes to one path are carried out in the order requested.
    /// Reply: `{ok, error?}`.
    WriteFile { path: String, text: String },
    /// The host's wall clock. Reply: `{ms}` (milliseconds since the Unix epoch, fractional).
    Now,
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
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReadResult {
    pub text: Option<String>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

/// A line for the host's log (OpenCode: `client.app.log`, service `hookwise`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Log {
    pub level: Level,
    pub message: String,
}

impl Log {
    pub fn warn(message: impl Into<String>) -> Log {
        Log {
            level: Level::Warn,
            message: message.into(),
        }
    }
    pub fn debug(message: impl Into<String>) -> Log {
        Log {
            level: Level::Debug,
            message: message.into(),
        }
    }
    pub fn info(message: impl Into<String>) -> Log {
        Log {
            level: Level::Info,
            message: message.into(),
        }
    }
}

/// A change to a string inside the hook's output object, named by its path of keys / indexes.
/// The host applies it in place (OpenCode ignores a reassigned `output.args`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mutation {
    pub path: Vec<PathKey>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prepend: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub append: Option<String>,
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

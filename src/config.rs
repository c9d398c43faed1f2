//! Options (from the host's plugin options) and environment, turned into one validated
//! [`Config`]. A bad value never fails start-up: it is reported as a warning and the default
//! is used.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::bounded::{self, JsonError};
use crate::protocol::{Log, ReadResult};

pub use crate::maenifold::DEFAULT_TIMEOUT_MS;
pub const MIN_TIMEOUT_MS: u64 = 1000;
pub const MAX_TIMEOUT_MS: u64 = 30000;

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Explicit CLI path (option `cliPath`, else env `MAENIFOLD_CLI`).
    pub cli_path: Option<(String, &'static str)>,
    /// One CLI call's timeout (option `timeoutMs`, env `MAENIFOLD_TIMEOUT`), clamped 1000–30000.
    pub timeout_ms: u64,
    /// One deadline for all the concepts of a tool call (option `deadlineMs`).
    pub deadline_ms: u64,
    /// Token budget of the context added to one tool call (≈4 characters a token).
    pub token_budget: usize,
    /// At most this many concepts are looked up for one tool call (first seen first).
    pub max_concepts: usize,
    /// BuildContext parameters for tool-call context.
    pub depth: u32,
    pub max_entities: u32,
    pub include_content: bool,
    /// Top-level string fields of custom and MCP tools that are prompts for a model and may
    /// carry the context block. Other fields are never altered.
    pub prompt_fields: Vec<String>,
    /// Stdout cap for one CLI call.
    pub max_output_bytes: u64,
    /// `auto` (maenifold when found, else a vault), `maenifold` or `vault`.
    pub knowledge: String,
    /// The vault folder (option `vault`; env `HOOKWISE_VAULT` is read where the source is chosen).
    pub vault: Option<String>,
    /// A vault is re-listed when its index is older than this.
    pub vault_refresh_ms: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            cli_path: None,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            deadline_ms: 5000,
            token_budget: 2000,
            max_concepts: 8,
            depth: 1,
            max_entities: 5,
            include_content: true,
            prompt_fields: vec!["prompt".into(), "instructions".into()],
            max_output_bytes: 1024 * 1024,
            knowledge: "auto".into(),
            vault: None,
            vault_refresh_ms: 2000,
        }
    }
}

/// The knowledge tools' option keys (read by [`crate::tools`]; here so that the option check
/// needs nothing above it).
pub const TOOL_OPTION_KEYS: &[&str] = &[
    "knowledgeTools",
    "knowledgeRemember",
    "knowledgeToolsBudget",
];

/// The keys the options object may have. Unknown keys are reported, not fatal.
pub(crate) const KNOWN: &[&str] = &[
    "cliPath",
    "timeoutMs",
    "deadlineMs",
    "tokenBudget",
    "maxConcepts",
    "depth",
    "maxEntities",
    "includeContent",
    "promptFields",
    "knowledge",
    "vault",
    "vaultRefreshMs",
    // pre-action enforcement (validated by the enforcement module's schema)
    "enforcement",
    // intent governance (validated by `governance::GovConfig::from_options`)
    "governance",
    // OpenTelemetry export (policy build: `engine/policy/telemetry.rs`)
    "telemetry",
    "$schema",
];

impl Config {
    /// Build from plugin options and the environment. Returns the config and warnings.
    pub fn from_sources(options: &Value, env: &BTreeMap<String, String>) -> (Config, Vec<Log>) {
        let mut c = Config::default();
        let mut logs = Vec::new();
        let empty = serde_json::Map::new();
        let opts = match options {
            Value::Object(m) => m,
            Value::Null => &empty,
            other => {
                logs.push(Log::warn(format!(
                    "hookwise options must be an object, got {}; using defaults",
                    kind(other)
                )));
                &empty
            }
        };
        for k in opts.keys() {
            if !KNOWN.contains(&k.as_str())
                && !crate::session::config::OPTION_KEYS.contains(&k.as_str())
                && !crate::mcp::McpOptions::KEYS.contains(&k.as_str())
                && !TOOL_OPTION_KEYS.contains(&k.as_str())
            {
                logs.push(Log::warn(format!(
                    "hookwise option '{k}' is not known; ignored"
                )));
            }
        }

        if let Some(v) = opts.get("cliPath") {
            match v.as_str() {
                Some(s) if !s.is_empty() => c.cli_path = Some((s.to_string(), "option")),
                _ => logs.push(Log::warn(
                    "hookwise option 'cliPath' must be a non-empty string; ignored",
                )),
            }
        }
        if c.cli_path.is_none() {
            if let Some(s) = env.get("MAENIFOLD_CLI").filter(|s| !s.is_empty()) {
                c.cli_path = Some((s.clone(), "env"));
            }
        }

        match opts.get("timeoutMs") {
            Some(v) => {
                c.timeout_ms =
                    timeout_value(v.as_f64(), &v.to_string(), "option 'timeoutMs'", &mut logs)
            }
            None => {
                if let Some(s) = env
                    .get("MAENIFOLD_TIMEOUT")
                    .filter(|s| !s.trim().is_empty())
                {
                    c.timeout_ms = timeout_value(
                        crate::decimal::parse_f64(s.trim()),
                        s,
                        "MAENIFOLD_TIMEOUT",
                        &mut logs,
                    );
                }
            }
        }
        num(opts, "deadlineMs", 100.0, 60000.0, &mut logs, |v| {
            c.deadline_ms = v as u64
        });
        num(opts, "tokenBudget", 50.0, 100000.0, &mut logs, |v| {
            c.token_budget = v as usize
        });
        num(opts, "maxConcepts", 1.0, 50.0, &mut logs, |v| {
            c.max_concepts = v as usize
        });
        num(opts, "depth", 1.0, 2.0, &mut logs, |v| c.depth = v as u32);
        num(opts, "maxEntities", 1.0, 100.0, &mut logs, |v| {
            c.max_entities = v as u32
        });
        if let Some(v) = opts.get("includeContent") {
            match v.as_bool() {
                Some(b) => c.include_content = b,
                None => logs.push(Log::warn(
                    "hookwise option 'includeContent' must be a boolean; using true",
                )),
            }
        }
        if let Some(v) = opts.get("knowledge") {
            match v.as_str() {
                // "off": no knowledge source, looked for nowhere, said nowhere (the trace
                // commands and git hooks, which never use one)
                Some(k @ ("auto" | "maenifold" | "vault" | "off")) => c.knowledge = k.to_string(),
                _ => logs.push(Log::warn(format!(
                    "hookwise option 'knowledge' must be \"auto\", \"maenifold\" or \"vault\"; got {v}; using \"auto\""
                ))),
            }
        }
        if let Some(v) = opts.get("vault") {
            match v.as_str() {
                Some(p) if !p.is_empty() => c.vault = Some(p.to_string()),
                _ => logs.push(Log::warn(
                    "hookwise option 'vault' must be a folder path; ignored",
                )),
            }
        }
        num(opts, "vaultRefreshMs", 0.0, 3_600_000.0, &mut logs, |v| {
            c.vault_refresh_ms = v as u64
        });
        if let Some(v) = opts.get("promptFields") {
            match v.as_array().map(|a| {
                a.iter()
                    .map(|x| x.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
            }) {
                Some(Some(fields)) => c.prompt_fields = fields,
                _ => logs.push(Log::warn(
                    "hookwise option 'promptFields' must be an array of strings; using the default",
                )),
            }
        }
        (c, logs)
    }
}

/// The project's configuration file, relative to the worktree (OpenCode's place).
pub const CONFIG_FILE: &str = ".opencode/hookwise.json";

/// The host-neutral place of the configuration file (Claude Code projects and any other host):
/// read first; `.opencode/hookwise.json` when it does not exist.
pub const NEUTRAL_CONFIG_FILE: &str = ".hookwise/hookwise.json";

/// The configuration files in the order they are looked for: the first that exists is the
/// project's (see [`pick_file`]).
pub const CONFIG_FILES: [&str; 2] = [NEUTRAL_CONFIG_FILE, CONFIG_FILE];

/// The project's configuration file from the host's replies to reading each of
/// [`CONFIG_FILES`] (in that order): the first that exists, and its path.
pub fn pick_file(replies: &[Value]) -> (ProjectFile, &'static str) {
    for (reply, path) in replies.iter().zip(CONFIG_FILES) {
        match file_from_reply(reply) {
            Ok(None) => continue,
            other => return (other, path),
        }
    }
    (Ok(None), CONFIG_FILE)
}

/// The largest configuration file read (the host is asked for no more: `maxBytes`). It may
/// nest at most [`bounded::MAX_DEPTH`] levels. Over a limit it is ignored with a warning.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The project's `.opencode/hookwise.json` as read: its text (`Ok(None)`: there is none), or
/// why it cannot be used (`is 50 MiB, over the 1 MiB limit`, `could not be read (EACCES)`).
pub type ProjectFile = Result<Option<String>, String>;

/// The host's reply to reading [`CONFIG_FILE`] with `maxBytes: MAX_FILE_BYTES`.
pub fn file_from_reply(reply: &Value) -> ProjectFile {
    let r: ReadResult = serde_json::from_value(reply.clone()).unwrap_or_default();
    bounded::read_reply(&r, MAX_FILE_BYTES).map_err(|e| e.to_string())
}

/// The file's JSON, within the limits (size and depth; see [`crate::bounded`]).
pub fn parse_file(text: &str) -> Result<Value, JsonError> {
    bounded::json(text, MAX_FILE_BYTES)
}

/// Plugin options over the project's `.opencode/hookwise.json` (key by key; the plugin's win).
/// A file that is not a JSON object, cannot be read or is over a limit is reported (a warning)
/// and ignored.
pub fn merge_file_options(options: &Value, file: &ProjectFile, path: &str) -> (Value, Vec<Log>) {
    let mut logs = Vec::new();
    let mut merged = match file.as_ref().map(|f| f.as_deref().map(parse_file)) {
        Ok(None) => serde_json::Map::new(),
        Ok(Some(Ok(Value::Object(m)))) => m,
        Ok(Some(Ok(other))) => {
            logs.push(Log::warn(format!(
                "{path}: must be a JSON object, is {}; ignored",
                kind(&other)
            )));
            serde_json::Map::new()
        }
        Ok(Some(Err(JsonError::Syntax(e)))) => {
            logs.push(Log::warn(format!("{path}: not valid JSON ({e}); ignored")));
            serde_json::Map::new()
        }
        Ok(Some(Err(JsonError::Refused(r)))) => {
            logs.push(Log::warn(format!("{path}: {r}; ignored")));
            serde_json::Map::new()
        }
        Err(why) => {
            logs.push(Log::warn(format!("{path}: {why}; ignored")));
            serde_json::Map::new()
        }
    };
    if let Value::Object(o) = options {
        for (k, v) in o {
            merged.insert(k.clone(), v.clone());
        }
    }
    (Value::Object(merged), logs)
}

pub(crate) use crate::bounded::json_kind as kind;

fn timeout_value(n: Option<f64>, raw: &str, what: &str, logs: &mut Vec<Log>) -> u64 {
    match n {
        Some(ms) if ms.is_finite() && ms > 0.0 => {
            let clamped = (ms as u64).clamp(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
            if clamped != ms as u64 {
                logs.push(Log::warn(format!(
                    "hookwise {what}={raw} is outside {MIN_TIMEOUT_MS}–{MAX_TIMEOUT_MS} ms; using {clamped}"
                )));
            }
            clamped
        }
        _ => {
            logs.push(Log::warn(format!(
                "hookwise {what}={raw} is not a positive number of milliseconds; using {DEFAULT_TIMEOUT_MS}"
            )));
            DEFAULT_TIMEOUT_MS
        }
    }
}

fn num(
    opts: &serde_json::Map<String, Value>,
    key: &str,
    min: f64,
    max: f64,
    logs: &mut Vec<Log>,
    mut set: impl FnMut(f64),
) {
    if let Some(v) = opts.get(key) {
        match v.as_f64() {
            Some(n) if n.is_finite() && n >= min && n <= max => set(n.floor()),
            // (printed as integers: every numeric option is whole, and float formatting would
            // add several KB to the wasm)
            _ => logs.push(Log::warn(format!(
                "hookwise option '{key}' must be a number from {} to {}; got {v}; using the default",
                min as i64, max as i64
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn timeout_from_env_is_clamped_and_bad_values_warn() {
        let (c, l) = Config::from_sources(&Value::Null, &env(&[("MAENIFOLD_TIMEOUT", "200")]));
        assert_eq!(c.timeout_ms, 1000);
        assert_eq!(l.len(), 1);
        let (c, l) = Config::from_sources(&Value::Null, &env(&[("MAENIFOLD_TIMEOUT", "99999")]));
        assert_eq!(c.timeout_ms, 30000);
        assert_eq!(l.len(), 1);
        let (c, l) = Config::from_sources(&Value::Null, &env(&[("MAENIFOLD_TIMEOUT", "soon")]));
        assert_eq!(c.timeout_ms, 5000);
        assert!(l[0].message.contains("MAENIFOLD_TIMEOUT=soon"));
        let (c, l) = Config::from_sources(&Value::Null, &env(&[("MAENIFOLD_TIMEOUT", "7000")]));
        assert_eq!((c.timeout_ms, l.len()), (7000, 0));
    }

    #[test]
    fn option_beats_env_and_unknown_keys_warn() {
        let (c, l) = Config::from_sources(
            &json!({"cliPath": "/opt/m", "timeoutMs": 2000, "tokenBudgt": 5}),
            &env(&[("MAENIFOLD_CLI", "/env/m"), ("MAENIFOLD_TIMEOUT", "9000")]),
        );
        assert_eq!(c.cli_path, Some(("/opt/m".into(), "option")));
        assert_eq!(c.timeout_ms, 2000);
        assert_eq!(l.len(), 1);
        assert!(l[0].message.contains("tokenBudgt"));
        let (c, _) = Config::from_sources(&json!({}), &env(&[("MAENIFOLD_CLI", "/env/m")]));
        assert_eq!(c.cli_path, Some(("/env/m".into(), "env")));
    }

    #[test]
    fn file_options_under_plugin_options() {
        let text = |t: &str| -> ProjectFile { Ok(Some(t.to_string())) };
        let (v, l) = merge_file_options(
            &json!({"tokenBudget": 100}),
            &text(r#"{"tokenBudget": 5, "depth": 2}"#),
            "f",
        );
        assert_eq!(v, json!({"tokenBudget": 100, "depth": 2}));
        assert!(l.is_empty());
        let (v, l) =
            merge_file_options(&json!({"a": 1}), &text("{oops"), ".opencode/hookwise.json");
        assert_eq!(v, json!({"a": 1}));
        assert!(l[0]
            .message
            .starts_with(".opencode/hookwise.json: not valid JSON"));
        let (_, l) = merge_file_options(&Value::Null, &text("[1]"), "f");
        assert!(l[0].message.contains("must be a JSON object"));
        let (v, l) = merge_file_options(&json!({"a": 1}), &Ok(None), "f");
        assert_eq!((v, l.len()), (json!({"a": 1}), 0));
    }

    /// The file as an attacker would write it: too large to read, too deep to parse, brackets
    /// hidden in strings. Each is a warning that says why, never silence.
    #[test]
    fn hostile_files_are_ignored_with_a_warning() {
        let path = ".opencode/hookwise.json";
        // 50 MB: the host read none of it (`too-large`, with the size it saw)
        let file = file_from_reply(&json!({"error": "too-large", "size": 52_428_800u64}));
        let (v, l) = merge_file_options(&json!({"depth": 1}), &file, path);
        assert_eq!(v, json!({"depth": 1}));
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].level, crate::protocol::Level::Warn);
        assert_eq!(
            l[0].message,
            ".opencode/hookwise.json: is 50 MiB, over the 1 MiB limit; ignored"
        );
        // a host that ignored maxBytes
        let big = format!("{{\"a\": \"{}\"}}", "x".repeat(MAX_FILE_BYTES as usize));
        let file = file_from_reply(&json!({ "text": big }));
        assert!(file.as_ref().unwrap_err().contains("over the 1 MiB limit"));
        // deep nesting, on the third line
        let deep = format!(
            "{{\n\"a\":\n{}1{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let (_, l) = merge_file_options(&Value::Null, &Ok(Some(deep)), path);
        assert_eq!(
            l[0].message,
            ".opencode/hookwise.json: nests deeper than 64 levels at line 3; ignored"
        );
        // brackets inside strings are not nesting
        let strings = format!(
            "{{\"tokenBudget\": 7, \"x\": \"{}\\\"{}\"}}",
            "[".repeat(500),
            "{".repeat(500)
        );
        let (v, l) = merge_file_options(&Value::Null, &Ok(Some(strings)), path);
        assert!(l.is_empty(), "{l:?}");
        assert_eq!(v["tokenBudget"], 7);
        // unreadable, and absent
        let file = file_from_reply(&json!({"error": "denied", "detail": "EACCES"}));
        let (_, l) = merge_file_options(&Value::Null, &file, path);
        assert_eq!(
            l[0].message,
            ".opencode/hookwise.json: could not be read (denied: EACCES); ignored"
        );
        assert_eq!(
            file_from_reply(&json!({"error": "not-found", "detail": "ENOENT"})),
            Ok(None)
        );
        assert_eq!(file_from_reply(&json!({"error": "not-found"})), Ok(None));
    }

    #[test]
    fn wrong_types_fall_back_to_defaults() {
        let (c, l) = Config::from_sources(
            &json!({"tokenBudget": "lots", "promptFields": [1], "includeContent": 3}),
            &env(&[]),
        );
        assert_eq!(c, Config::default());
        assert_eq!(l.len(), 3);
        let (_, l) = Config::from_sources(&json!("x"), &env(&[]));
        assert_eq!(l.len(), 1);
    }

    /// The shipped schema (what OpenClaw validates plugin config with, what editors read)
    /// names exactly the options the core reads: one config validates everywhere.
    #[test]
    fn the_shipped_schema_names_exactly_the_known_options() {
        let schema: Value =
            serde_json::from_str(include_str!("../schema/hookwise.schema.json")).unwrap();
        let mut in_schema: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut known: Vec<&str> = KNOWN
            .iter()
            .chain(crate::session::config::OPTION_KEYS)
            .chain(crate::mcp::McpOptions::KEYS)
            .chain(TOOL_OPTION_KEYS)
            .copied()
            .collect();
        in_schema.sort_unstable();
        known.sort_unstable();
        assert_eq!(in_schema, known);
        assert_eq!(schema["additionalProperties"], false);
        // and every option the schema accepts is accepted by the core without a warning
        let (_, logs) = Config::from_sources(
            &json!({"knowledge": "vault", "vault": "/v", "vaultRefreshMs": 0, "tokenBudget": 50}),
            &env(&[]),
        );
        assert!(logs.is_empty(), "{logs:?}");
    }
}

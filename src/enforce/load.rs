//! Reading the project's enforcement config and state files through the host.

use super::*;

/// `root` + `p`, unless `p` is absolute ([`crate::paths::join`]).
pub use crate::paths::join;

use crate::protocol::ReplyError;

/// Why a file could not be read: the host's code, and the text for the log.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ReadFailed(pub(super) ReplyError, pub(super) String);

impl std::fmt::Display for ReadFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.1)
    }
}

pub(super) async fn now(io: &Io) -> f64 {
    io.request(Request::Now)
        .await
        .get("ms")
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
}

/// Read a text file: `Ok(None)` when it does not exist.
pub(super) async fn read_text(
    io: &Io,
    path: &str,
    max_bytes: u64,
) -> Result<Option<String>, ReadFailed> {
    let reply = io
        .request(Request::ReadFile {
            path: path.to_string(),
            max_bytes,
        })
        .await;
    let r: ReadResult = serde_json::from_value(reply)
        .map_err(|e| ReadFailed(ReplyError::Other, format!("bad reply: {e}")))?;
    match (r.text, r.error) {
        (_, Some(ReplyError::NotFound)) => Ok(None),
        (_, Some(e)) => Err(ReadFailed(e, e.describe(r.detail.as_deref()))),
        (Some(t), None) => Ok(Some(t)),
        (None, None) => Ok(None),
    }
}

/// `{ok, error?}` replies of writes.
pub(super) fn write_error(reply: &Value) -> Option<String> {
    match reply.get("ok").and_then(Value::as_bool) {
        Some(true) => None,
        _ => Some(ReplyError::describe_reply(
            reply,
            "the host did not confirm the write",
        )),
    }
}

/// The configuration, validated and merged.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// Plugin options merged over the file, invalid parts removed: give these to
    /// `Config::from_sources`.
    pub options: Value,
    pub settings: Settings,
    /// Every problem found, each naming the file and key.
    pub issues: Vec<Issue>,
}

/// Read `.hookwise/hookwise.json` or else `.opencode/hookwise.json` (if any) and validate it
/// and the plugin options.
pub async fn load_config(io: &Io, root: &str, options: &Value) -> LoadedConfig {
    let mut issues = Vec::new();
    let mut merged = Value::Object(Default::default());
    // `.hookwise/hookwise.json` (the host-neutral place) first, else `.opencode/hookwise.json`
    let stats = crate::runtime::join_all(vec![
        io.request(crate::protocol::Request::Stat {
            path: join(root, crate::config::NEUTRAL_CONFIG_FILE),
        }),
        io.request(crate::protocol::Request::Stat {
            path: join(root, ".hookwise"),
        }),
    ])
    .await;
    let exists = |v: &Value| v.get("exists").and_then(Value::as_bool) == Some(true);
    let which = if exists(&stats[0]) {
        crate::config::NEUTRAL_CONFIG_FILE
    } else {
        CONFIG_FILE
    };
    let read = read_text(io, &join(root, which), MAX_CONFIG_BYTES).await;
    // state and metrics go in `.hookwise/` for a project configured there, or one with a
    // `.hookwise/` folder and no `.opencode/hookwise.json`
    let neutral_state = which == crate::config::NEUTRAL_CONFIG_FILE
        || (exists(&stats[1]) && matches!(read, Ok(None)));
    match read {
        Ok(None) => {}
        Ok(Some(text)) => match crate::config::parse_file(&text) {
            Ok(v) => {
                let (valid, mut found) = schema::validate(&v, which);
                issues.append(&mut found);
                merged = valid;
            }
            Err(crate::bounded::JsonError::Syntax(e)) => issues.push(Issue {
                file: which.into(),
                key: String::new(),
                why: format!("is not valid JSON ({e}); the whole file is ignored"),
            }),
            Err(crate::bounded::JsonError::Refused(r)) => issues.push(Issue {
                file: which.into(),
                key: String::new(),
                why: format!("{r}; the whole file is ignored"),
            }),
        },
        Err(e) => issues.push(Issue {
            file: which.into(),
            key: String::new(),
            why: if e.0 == ReplyError::TooLarge {
                let r = crate::bounded::Refusal::TooLarge {
                    bytes: None,
                    limit: MAX_CONFIG_BYTES,
                };
                format!("{r}; ignored")
            } else {
                format!("could not be read ({e}); ignored")
            },
        }),
    }
    let opts = if options.is_null() {
        Value::Object(Default::default())
    } else {
        options.clone()
    };
    let (valid, mut found) = schema::validate(&opts, "plugin options");
    issues.append(&mut found);
    config::merge(&mut merged, &valid);
    let empty = Value::Null;
    let source = if valid.get("enforcement").is_some() {
        "plugin options"
    } else {
        which
    };
    let mut settings = Settings::from_value(
        merged.get("enforcement").unwrap_or(&empty),
        source,
        &mut issues,
    );
    if neutral_state {
        // unless the configuration names them
        let e = merged.get("enforcement");
        let set = |k: &str| e.and_then(|e| e.get(k)).is_some();
        if !set("stateFile") {
            settings.state_file = ".hookwise/state.json".into();
        }
        if !set("metricsFile") {
            settings.metrics_file = ".hookwise/metrics.jsonl".into();
        }
    }
    LoadedConfig {
        options: merged,
        settings,
        issues,
    }
}

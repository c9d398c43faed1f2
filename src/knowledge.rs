//! Knowledge sources: where context comes from. Every hook asks through this one interface;
//! the maenifold CLI is one implementation (a vault and a warm MCP session are others).

use serde_json::{json, Value};

use crate::maenifold::{self, BuildContext, SpawnResult};
use crate::protocol::Request;
use crate::runtime::Io;

/// Parameters of one BuildContext question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextQuery {
    pub depth: u32,
    pub max_entities: u32,
    pub include_content: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The maenifold CLI, one process per call.
    Cli {
        path: String,
        timeout_ms: u64,
        max_bytes: u64,
    },
}

impl Source {
    /// The same source with calls limited to `ms` (never longer than its own timeout).
    pub fn with_timeout(&self, ms: u64) -> Source {
        match self {
            Source::Cli {
                path,
                timeout_ms,
                max_bytes,
            } => Source::Cli {
                path: path.clone(),
                timeout_ms: (*timeout_ms).min(ms),
                max_bytes: *max_bytes,
            },
        }
    }

    pub fn timeout_ms(&self) -> u64 {
        match self {
            Source::Cli { timeout_ms, .. } => *timeout_ms,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Source::Cli { .. } => "maenifold-cli",
        }
    }

    /// Ask one CLI tool; the text on success.
    pub async fn cli_call(
        &self,
        io: &Io,
        tool: &str,
        payload: &Value,
        json_out: bool,
    ) -> Result<String, String> {
        let Source::Cli {
            path,
            timeout_ms,
            max_bytes,
        } = self;
        let reply = io
            .request(Request::Spawn {
                argv: maenifold::argv(path, tool, payload, json_out),
                timeout_ms: *timeout_ms,
                max_bytes: *max_bytes,
            })
            .await;
        let r: SpawnResult =
            serde_json::from_value(reply).map_err(|e| format!("bad spawn reply: {e}"))?;
        maenifold::judge(&r)
            .map(str::to_string)
            .map_err(|e| format!("{tool}: {e}"))
    }

    /// BuildContext for one (normalized) concept. `Ok` with an empty value is "no knowledge".
    pub async fn build_context(
        &self,
        io: &Io,
        concept: &str,
        q: ContextQuery,
    ) -> Result<BuildContext, String> {
        let payload = json!({
            "conceptName": concept,
            "depth": q.depth,
            "maxEntities": q.max_entities,
            "includeContent": q.include_content,
        });
        let text = self.cli_call(io, "BuildContext", &payload, false).await?;
        BuildContext::parse(&text).map_err(|e| format!("BuildContext {concept}: {e}"))
    }
}

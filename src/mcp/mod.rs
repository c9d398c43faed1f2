//! One warm maenifold MCP session per plugin instance (`maenifold --mcp`): knowledge in
//! milliseconds instead of one .NET start-up (~1.8 s) per CLI call.
//!
//! # Design: protocol in Rust, pipes in JS
//!
//! The JS glue owns the child process and its pipes and nothing else. Everything with meaning —
//! framing, the handshake, request ids, matching answers, timeouts, restarts, fallback, the
//! cache — is here.
//!
//! - [`framing`]: stdout bytes → lines (any chunking, bounded memory).
//! - [`client`]: the JSON-RPC 2.0 / MCP state machine for one process (pure).
//! - [`convert`]: MCP tool names; BuildContext JSON → the same
//!   [`BuildContext`](crate::maenifold::BuildContext) value as the
//!   CLI text form.
//! - [`cache`]: context per (source, concept, depth, maxEntities, includeContent), TTL + LRU.
//! - [`lifecycle`]: start / restart / give-up decisions (pure, host time).
//! - [`session`]: the shared [`session::Hub`] and the async operations.
//! - [`router`]: how stdout data wakes the operation waiting for it.
//!
//! ## Waking an operation from stdout
//!
//! Operations are futures polled only when one of their requests is answered. An MCP answer is
//! not the answer to a host request, so it needs a way in. The design: the host feeds every
//! stdout chunk into the engine (`mcpFeed(session, bytes)`); the Rust client matches it to its
//! request; the operation waiting for that request has parked on an engine-internal request
//! (`McpAwait`), which the [`router::Router`] completes. The host never sees `McpAwait`, never
//! parses a line, never matches an id. (The rejected alternative — an `McpCall` request whose
//! reply is "the matching response line" — would have put id matching, and so timeouts and
//! crash handling, in JS.)
//!
//! Requests to the host (new `Request` variants, appended to `protocol.rs`):
//! - `{"kind":"mcpStart","session":1,"argv":["/bin/maenifold","--mcp"],"env":{}}` → spawn with
//!   piped stdio; reply `{"ok":true,"pid":123}` or `{"ok":false,"error":"spawn ENOENT"}`.
//!   From then on: every stdout chunk → `engine.mcpFeed(session, bytes)`; exit or stdout
//!   close → `engine.mcpClosed(session, {"code":1,"signal":null,"stderr":"<tail>"})` (once);
//!   stderr: drained, last few KB kept for that call. Cancelled → kill the child.
//! - `{"kind":"mcpWrite","session":1,"text":"{...}\n"}` → `stdin.write(text)` in arrival
//!   order; reply `{"ok":true}` or `{"ok":false,"error":"EPIPE"}`.
//! - `{"kind":"mcpStop","session":1,"graceMs":1000}` → `stdin.end()`; after graceMs SIGTERM to its process group, SIGKILL 1 s later;
//!   reply `{}` at once.
//! - Any reply may carry `"nowMs"` (host clock), which the session uses as its time.
//! - Node specifics: reply to `mcpStart` on the child's `spawn` or `error` event (a missing
//!   binary is reported asynchronously); catch `error` on stdin (EPIPE); `unref()` the child
//!   and its pipes so an idle session neither costs anything nor keeps the host alive.
//! - Cancels: `mcpStart` → kill the child; `mcpWrite` / `mcpStop` → nothing to do.
//! - The JS also kills every child it owns on `dispose` and on host exit (`process.on("exit")`),
//!   so no orphan is left even if the core never asked.
//!
//! ## How the engine uses it
//!
//! The engine owns a [`router::Router`] (built from an [`McpHandle`]; at `init`,
//! [`McpHandle::configure`] sets the CLI path and options) and passes every step through it: `start`/`resume` → `router.route(&mut ops, step)`; new entries
//! `mcp_feed(session, bytes)` → `router.feed(...)` and `mcp_closed(session, info)` →
//! `router.closed(...)`; `abandon` → `router.abandon(...)`. Each returns `Vec<Step>` (the woken
//! operations' steps too), so the host API becomes "a list of steps, handle in order".
//! [`McpHandle::observe_now`] takes the host clock on each entry that carries one;
//! [`McpHandle::take_logs`] gives the warnings to put in a hook's `logs` (one per incident).
//! The engine's side is `src/engine/policy/mod.rs` (its `Relay`).
//!
//! ## Operations (async, `&Io` + plain inputs)
//!
//! - [`session::build_context`]`(io, h, cli: Option<&dyn session::Direct>, concept, ContextQuery)
//!   -> Result<BuildContext, String>` — drop-in for `Source::build_context`: cache, then MCP,
//!   then (auto) the CLI.
//! - [`session::tool_text`]`(io, h, cli, "SearchMemories", &payload) -> Result<String, String>`
//!   — any other tool by its CLI name and payload; the CLI's markdown text.
//! - [`session::call_tool`]`(io, h, "build_context", &args) -> Result<ToolOutput, McpError>`.
//! - [`session::warm_up`]`(io, h) -> Value` — `{"ok","error","status","logs"}`.
//! - [`session::shutdown`]`(io, h)` — stop the process (dispose).
//!
//! Options ([`McpOptions::from_sources`], keys in [`McpOptions::KEYS`]): `transport`
//! `"auto" | "mcp" | "cli"` (default auto), `mcpStartTimeoutMs` (15000), `mcpMaxRestarts` (3),
//! `cacheTtlMs` (300000, 0 = off), `cacheMaxEntries` (512, 0 = off). The per-request timeout is
//! the CLI's `timeoutMs`.

pub mod cache;
pub mod client;
pub mod convert;
pub mod framing;
pub mod lifecycle;
pub mod router;
pub mod session;

#[cfg(test)]
mod sim;

use std::collections::BTreeMap;

use serde_json::Value;

pub use cache::{CacheKey, ContextCache, Touch};
pub use client::{Client, McpError, ToolOutput};
pub use convert::{build_context_from_text, build_context_from_value, mcp_tool_name};
pub use framing::{Frame, LineBuffer};
pub use lifecycle::{Lifecycle, RestartPolicy, Transport};
pub use router::Router;
pub use session::{McpHandle, McpSetup, Status};

use crate::protocol::Log;

#[derive(Debug, Clone, PartialEq)]
pub struct McpOptions {
    pub transport: Transport,
    /// From spawn to a completed handshake (maenifold copies assets, checks folders, starts a
    /// watcher: seconds, once).
    pub start_timeout_ms: u64,
    /// One `tools/call`.
    pub request_timeout_ms: u64,
    /// Between closing stdin and killing, when stopping.
    pub stop_grace_ms: u64,
    pub max_line_bytes: usize,
    pub restart: RestartPolicy,
    pub cache_ttl_ms: u64,
    pub cache_max_entries: usize,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            transport: Transport::Auto,
            start_timeout_ms: 15_000,
            request_timeout_ms: crate::maenifold::DEFAULT_TIMEOUT_MS,
            stop_grace_ms: 1000,
            max_line_bytes: framing::DEFAULT_MAX_LINE,
            restart: RestartPolicy::default(),
            cache_ttl_ms: cache::DEFAULT_TTL_MS,
            cache_max_entries: cache::DEFAULT_MAX_ENTRIES,
        }
    }
}

impl McpOptions {
    /// The option keys read here (to add to the config's known keys).
    pub const KEYS: &'static [&'static str] = &[
        "transport",
        "mcpStartTimeoutMs",
        "mcpMaxRestarts",
        "cacheTtlMs",
        "cacheMaxEntries",
    ];

    /// The transport: option `transport`, else env `HOOKWISE_TRANSPORT`, else `auto`; a bad
    /// value is `auto` with a warning. (The lean core reads it too, to hand over to the full
    /// build.)
    pub fn transport(options: &Value, env: &BTreeMap<String, String>) -> (Transport, Option<Log>) {
        let given = match options.get("transport") {
            Some(v) => Some((v.as_str(), v.to_string(), "option 'transport'")),
            None => env
                .get("HOOKWISE_TRANSPORT")
                .filter(|s| !s.trim().is_empty())
                .map(|s| (Some(s.as_str()), s.clone(), "HOOKWISE_TRANSPORT")),
        };
        match given {
            None => (Transport::default(), None),
            Some((s, raw, what)) => match s.and_then(Transport::parse) {
                Some(t) => (t, None),
                None => (
                    Transport::default(),
                    Some(Log::warn(format!(
                        "hookwise {what}={raw} must be \"auto\", \"mcp\" or \"cli\"; using \"auto\""
                    ))),
                ),
            },
        }
    }

    /// Read from plugin options; a bad value warns and keeps the default (never fails).
    /// Env `HOOKWISE_TRANSPORT` is used when the option is absent.
    pub fn from_sources(
        options: &Value,
        env: &BTreeMap<String, String>,
        request_timeout_ms: u64,
    ) -> (McpOptions, Vec<Log>) {
        let mut o = McpOptions {
            request_timeout_ms,
            ..McpOptions::default()
        };
        let mut logs = Vec::new();
        let (transport, warning) = McpOptions::transport(options, env);
        o.transport = transport;
        logs.extend(warning);
        let mut num = |key: &str, min: u64, max: u64| -> Option<u64> {
            let v = options.get(key)?;
            match v.as_f64() {
                Some(n) if n.is_finite() && n >= min as f64 && n <= max as f64 => Some(n as u64),
                _ => {
                    logs.push(Log::warn(format!(
                        "hookwise option '{key}' must be a number from {min} to {max}; got {v}; using the default"
                    )));
                    None
                }
            }
        };
        if let Some(n) = num("mcpStartTimeoutMs", 1000, 120_000) {
            o.start_timeout_ms = n;
        }
        if let Some(n) = num("mcpMaxRestarts", 0, 100) {
            o.restart.max_restarts = n as u32;
        }
        if let Some(n) = num("cacheTtlMs", 0, 24 * 3600 * 1000) {
            o.cache_ttl_ms = n;
        }
        if let Some(n) = num("cacheMaxEntries", 0, 100_000) {
            o.cache_max_entries = n as usize;
        }
        (o, logs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_are_read_with_warnings_for_bad_values() {
        let env = BTreeMap::new();
        let (o, l) = McpOptions::from_sources(&json!({}), &env, 7000);
        assert_eq!(o.transport, Transport::Auto);
        assert_eq!(o.request_timeout_ms, 7000);
        assert!(l.is_empty());
        let (o, l) = McpOptions::from_sources(
            &json!({"transport": "cli", "cacheTtlMs": 0, "cacheMaxEntries": 10, "mcpMaxRestarts": 1, "mcpStartTimeoutMs": 5000}),
            &env,
            5000,
        );
        assert_eq!(
            (
                o.transport,
                o.cache_ttl_ms,
                o.cache_max_entries,
                o.restart.max_restarts,
                o.start_timeout_ms
            ),
            (Transport::Cli, 0, 10, 1, 5000)
        );
        assert!(l.is_empty());
        let (o, l) = McpOptions::from_sources(
            &json!({"transport": "stdio", "cacheTtlMs": -1, "mcpStartTimeoutMs": "soon"}),
            &env,
            5000,
        );
        assert_eq!(o, McpOptions::default());
        assert_eq!(l.len(), 3);
        assert!(l[0].message.contains("\"stdio\""));
        let env: BTreeMap<String, String> =
            [("HOOKWISE_TRANSPORT".to_string(), "mcp".to_string())].into();
        assert_eq!(
            McpOptions::from_sources(&Value::Null, &env, 5000)
                .0
                .transport,
            Transport::Mcp
        );
        assert_eq!(
            McpOptions::from_sources(&json!({"transport": "auto"}), &env, 5000)
                .0
                .transport,
            Transport::Auto,
            "the option wins"
        );
    }
}

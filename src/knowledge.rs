//! Knowledge sources: where context comes from. Every hook asks through this one interface;
//! the maenifold CLI is one implementation (a vault and a warm MCP session are others).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::{json, Value};

use crate::maenifold::{self, BuildContext, SpawnResult};
#[cfg(feature = "policy")]
use crate::mcp::{session, McpHandle};
use crate::protocol::Request;
#[cfg(feature = "policy")]
use crate::runtime::timeout;
use crate::runtime::Io;
use crate::vault::changes::{refresh_watched, WatchState};
use crate::vault::{render, RefreshStats, Vault};

pub use crate::maenifold::ContextQuery;

/// A markdown vault read in process: the index, and when it was last brought up to date.
#[derive(Debug)]
pub struct VaultIndex {
    pub root: String,
    pub vault: RefCell<Vault>,
    /// The host's clock, shared with the engine (ms since the epoch).
    pub clock: Rc<Cell<u64>>,
    refreshed_ms: Cell<Option<u64>>,
    refreshing: Cell<bool>,
    /// Whether the host's watcher tells what changed.
    watch: WatchState,
    /// Bring the index up to date when it is older than this (ask the host's watcher what
    /// changed, or re-list the folder when nothing watches it).
    pub refresh_every_ms: u64,
    pub last: RefCell<RefreshStats>,
}

impl VaultIndex {
    /// The latest refresh's figures, with the edge count (which refreshes leave out).
    pub fn report(&self) -> RefreshStats {
        let mut r = self.last.borrow().clone();
        r.stats.edges = Some(self.vault.borrow().edge_count());
        r
    }

    pub fn new(root: String, clock: Rc<Cell<u64>>, refresh_every_ms: u64) -> VaultIndex {
        VaultIndex {
            root,
            vault: RefCell::new(Vault::new()),
            clock,
            refreshed_ms: Cell::new(None),
            refreshing: Cell::new(false),
            watch: WatchState::new(),
            refresh_every_ms,
            last: RefCell::new(RefreshStats::default()),
        }
    }

    /// Bring the index up to date when it is older than `refresh_every_ms` (only changed
    /// files are read; the host's watcher names them, else the folder is re-listed). A
    /// refresh already running is not waited for: the index as it is answers meanwhile.
    pub async fn ensure_fresh(&self, io: &Io) {
        let now = self.clock.get();
        let stale = match self.refreshed_ms.get() {
            None => true,
            Some(t) => now.saturating_sub(t) >= self.refresh_every_ms,
        };
        if !stale || self.refreshing.get() {
            return;
        }
        self.refreshing.set(true);
        // A refresh cut off by a deadline (its future dropped) must not leave the flag set,
        // or the index would never be refreshed again.
        let running = Refreshing(&self.refreshing);
        let stats = refresh_watched(io, &self.vault, &self.root, &self.watch).await;
        drop(running);
        self.refreshed_ms.set(Some(self.clock.get().max(now)));
        *self.last.borrow_mut() = stats;
    }

    /// Bring the index up to date once, then hold further refreshes until the returned guard
    /// is dropped: the lookups of one call start together and a lookup does not wait for a
    /// refresh another one started, so each reads the index as this refresh left it (not as it
    /// was before a note was deleted or renamed). `None` when another operation's refresh is
    /// running (nothing to hold: the lookups read the index as it is, as before).
    pub async fn refreshed_and_held(&self, io: &Io) -> Option<Refreshing<'_>> {
        self.ensure_fresh(io).await;
        if self.refreshing.get() {
            return None;
        }
        self.refreshing.set(true);
        Some(Refreshing(&self.refreshing))
    }
}

/// Clears the "refresh running" flag when dropped: at the end of a refresh, or when its
/// future is dropped half-way; or, from [`VaultIndex::refreshed_and_held`], when the lookups
/// that held refreshes are done.
pub struct Refreshing<'a>(&'a Cell<bool>);

impl Drop for Refreshing<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

#[derive(Debug, Clone)]
pub enum Source {
    /// The maenifold CLI, one process per call.
    Cli {
        path: String,
        timeout_ms: u64,
        max_bytes: u64,
    },
    /// A markdown vault, answered in process in the CLI's own text shapes, so every consumer
    /// parses one form.
    Vault(Rc<VaultIndex>),
    /// maenifold through the plugin's one warm MCP session (`maenifold --mcp`), with the CLI
    /// behind it for transport `auto` (see [`crate::mcp`]). Answers are the CLI's text forms.
    /// In the policy (full) build only: the lean build asks for it when maenifold is found.
    #[cfg(feature = "policy")]
    Mcp {
        h: McpHandle,
        cli: Box<Source>,
        /// The longest one question may take, a start of the session included.
        timeout_ms: u64,
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
            Source::Vault(v) => Source::Vault(v.clone()),
            #[cfg(feature = "policy")]
            Source::Mcp { h, cli, timeout_ms } => Source::Mcp {
                h: h.clone(),
                cli: Box::new(cli.with_timeout(ms)),
                timeout_ms: (*timeout_ms).min(ms),
            },
        }
    }

    pub fn timeout_ms(&self) -> u64 {
        match self {
            Source::Cli { timeout_ms, .. } => *timeout_ms,
            #[cfg(feature = "policy")]
            Source::Mcp { timeout_ms, .. } => *timeout_ms,
            Source::Vault(_) => 0,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Source::Cli { .. } => "maenifold-cli",
            Source::Vault(_) => "vault",
            #[cfg(feature = "policy")]
            Source::Mcp { .. } => "maenifold-mcp",
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
        match self {
            // Over MCP the answer is the CLI's markdown (`--json` is CLI-only): consumers
            // parse both forms.
            #[cfg(feature = "policy")]
            Source::Mcp { h, cli, timeout_ms } => {
                let ask = session::tool_text(io, h, Some(&**cli), tool, payload, json_out);
                timeout(io, *timeout_ms, ask)
                    .await
                    .unwrap_or_else(|| Err(format!("{tool}: timed out after {timeout_ms} ms")))
            }
            _ => self.direct_call(io, tool, payload, json_out).await,
        }
    }

    /// [`Source::cli_call`] without the MCP session: the CLI process or the vault.
    pub async fn direct_call(
        &self,
        io: &Io,
        tool: &str,
        payload: &Value,
        json_out: bool,
    ) -> Result<String, String> {
        let (path, timeout_ms, max_bytes) = match self {
            Source::Cli {
                path,
                timeout_ms,
                max_bytes,
            } => (path, timeout_ms, max_bytes),
            Source::Vault(v) => {
                v.ensure_fresh(io).await;
                return vault_call(v, tool, payload, json_out);
            }
            #[cfg(feature = "policy")]
            Source::Mcp { .. } => return Err(format!("{tool}: no direct path")),
        };
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
        match self {
            #[cfg(feature = "policy")]
            Source::Mcp { h, cli, timeout_ms } => {
                // maenifold's graph knows concepts, not sections of notes.
                let concept = crate::wikilink::split_section(concept).0;
                let ask = session::build_context(io, h, Some(&**cli), concept, q);
                timeout(io, *timeout_ms, ask).await.unwrap_or_else(|| {
                    Err(format!(
                        "BuildContext {concept}: timed out after {timeout_ms} ms"
                    ))
                })
            }
            _ => self.direct_build_context(io, concept, q).await,
        }
    }

    /// [`Source::build_context`] without the MCP session.
    pub async fn direct_build_context(
        &self,
        io: &Io,
        concept: &str,
        q: ContextQuery,
    ) -> Result<BuildContext, String> {
        if let Source::Vault(v) = self {
            // In process: the value itself, with what maenifold's text form has no place for
            // (the note the concept names, the notes linking it).
            v.ensure_fresh(io).await;
            return Ok(v.vault.borrow().build_context(
                concept,
                q.depth,
                q.max_entities as usize,
                q.include_content,
            ));
        }
        let concept = crate::wikilink::split_section(concept).0;
        let payload = json!({
            "conceptName": concept,
            "depth": q.depth,
            "maxEntities": q.max_entities,
            "includeContent": q.include_content,
        });
        let text = self
            .direct_call(io, "BuildContext", &payload, false)
            .await?;
        BuildContext::parse(&text).map_err(|e| format!("BuildContext {concept}: {e}"))
    }
}

/// One of maenifold's questions answered by the vault, in the CLI's text (or `--json`) shape.
fn vault_call(
    v: &VaultIndex,
    tool: &str,
    payload: &Value,
    json_out: bool,
) -> Result<String, String> {
    let vault = v.vault.borrow();
    let str_of = |k: &str| {
        payload
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let num_of = |k: &str, d: u64| {
        payload
            .get(k)
            .and_then(|x| {
                x.as_u64()
                    .or_else(|| x.as_str().and_then(|s| s.trim().parse().ok()))
            })
            .unwrap_or(d)
    };
    match tool.to_ascii_lowercase().as_str() {
        "searchmemories" => {
            let query = str_of("query");
            let hits = vault.search(&query, num_of("pageSize", 10) as usize);
            if json_out {
                let results: Vec<Value> = hits
                    .iter()
                    .map(|h| json!({"title": h.title, "path": h.uri, "score": h.score, "snippet": h.snippet}))
                    .collect();
                Ok(json!({"success": true, "data": {"mode": "FullText", "query": query, "totalCount": results.len(),
                    "page": 1, "pageSize": num_of("pageSize", 10), "results": results}, "error": null})
                .to_string())
            } else {
                Ok(render::search_markdown(&hits))
            }
        }
        "recentactivity" => {
            let since = payload
                .get("timespan")
                .and_then(Value::as_str)
                .and_then(timespan_ms)
                .map(|span| v.clock.get().saturating_sub(span) as f64);
            Ok(render::recent_markdown(
                &vault.recent(num_of("limit", 10) as usize, since),
            ))
        }
        "readmemory" => {
            let id = str_of("identifier");
            let uri = if id.starts_with("memory://") {
                id.clone()
            } else {
                format!("memory://{id}")
            };
            // maenifold's ReadMemory also takes a bare name (RecentActivity lists only those).
            let found = vault.read(&uri).map(|t| (uri.clone(), t)).or_else(|| {
                let u = if id.starts_with("memory://") {
                    None
                } else {
                    vault.uri_of_slug(&id)
                }?;
                vault.read(&u).map(|t| (u, t))
            }).or_else(|| {
                // A title, an alias or a path, resolved as a link to it would be.
                let name = id.strip_prefix("memory://").unwrap_or(&id);
                let u = vault.resolve_uri(name.strip_prefix("[[").and_then(|n| n.strip_suffix("]]")).unwrap_or(name))?;
                vault.read(&u).map(|t| (u, t))
            });
            match found {
                Some((uri, text)) => Ok(json!({"success": true, "data": {"uri": uri, "title": vault.title(&uri).unwrap_or(""),
                    "content": text}, "error": null})
                .to_string()),
                None => Err(format!("ReadMemory: {id} is not in the vault")),
            }
        }
        "writememory" => Err("WriteMemory: the vault is read-only for hookwise".into()),
        other => Err(format!("Unknown tool: {other}")),
    }
}

/// A .NET TimeSpan string (`d.hh:mm:ss`, `hh:mm:ss`, `hh:mm`) in milliseconds.
pub fn timespan_ms(s: &str) -> Option<u64> {
    let s = s.trim();
    let (days, rest) = match s.split_once('.') {
        Some((d, r)) if r.contains(':') && !d.contains(':') => (d.parse::<u64>().ok()?, r),
        _ => (0, s),
    };
    let parts: Vec<&str> = rest.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 {
        return None;
    }
    let h: u64 = parts[0].parse().ok()?;
    let m: u64 = parts[1].parse().ok()?;
    let sec: f64 = match parts.get(2) {
        Some(x) => crate::decimal::parse_f64(x)?,
        None => 0.0,
    };
    Some(((days * 24 + h) * 60 + m) * 60_000 + (sec * 1000.0) as u64)
}

/// The MCP session's way around itself: this source's own CLI (or vault) path.
impl crate::mcp::session::Direct for Source {
    fn direct_call<'a>(
        &'a self,
        io: &'a Io,
        tool: &'a str,
        payload: &'a Value,
        json_out: bool,
    ) -> crate::mcp::session::LocalFuture<'a, Result<String, String>> {
        Box::pin(Source::direct_call(self, io, tool, payload, json_out))
    }

    fn direct_build_context<'a>(
        &'a self,
        io: &'a Io,
        concept: &'a str,
        q: ContextQuery,
    ) -> crate::mcp::session::LocalFuture<'a, Result<BuildContext, String>> {
        Box::pin(Source::direct_build_context(self, io, concept, q))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotnet_timespans() {
        assert_eq!(timespan_ms("1.00:00:00"), Some(86_400_000));
        assert_eq!(timespan_ms("02:30:00"), Some(9_000_000));
        assert_eq!(timespan_ms("00:00:01.5"), Some(1500));
        assert_eq!(timespan_ms("soon"), None);
        assert_eq!(timespan_ms("7"), None);
    }
}

//! Session-start context and knowledge kept through compaction (issue 3), against the real
//! maenifold CLI contract (`docs/maenifold-cli.md`).
//!
//! Everything here is core: no I/O. The operations await [`Io::request`]s like every other hook.
//!
//! # Operations and their JSON (camelCase)
//!
//! **`session.created`** — [`session_created`]. Input: the Session of the OpenCode event
//! (`event.properties.info`) as [`SessionInfo`] `{id, parentID?}`; the project from
//! [`project_name`]`(worktree, directory)`. Only top-level sessions (no `parentID`), at most
//! once per id. Result ([`SessionCreatedResult`]):
//! ```json
//! { "prompt": {"sessionId": "ses_1", "text": "## Knowledge Graph Context …"},   // channel "prompt" only
//!   "sessionContext": "## Knowledge Graph Context …",  // the text, for hosts that place it themselves
//!   "concepts": ["auth", "jwt"], "calls": 9,
//!   "skipped": "subagent session",                      // when nothing was done, and why
//!   "logs": [{"level": "warn", "message": "…"}] }
//! ```
//! The JS glue calls `client.session.prompt({path:{id}, body:{noReply:true, parts:[{type:"text", text}]}})`
//! when `prompt` is present; with the default channel `"system"` the context is kept here for:
//!
//! **`experimental.chat.system.transform`** — [`system_transform`]. Input: `sessionID` and the
//! current `output.system` strings. Result ([`SystemResult`]): `{ "system": ["…"] }` — push
//! each onto `output.system`. While that session's start is still running (the event is not
//! awaited by OpenCode), this waits for it (polling with short sleeps, bounded by the
//! session-start deadline), so the context is in the FIRST model request. It is given on every
//! request of the session (the system prompt is rebuilt each time), never to title-generation
//! requests, never twice.
//!
//! **`experimental.session.compacting`** — [`compaction`]. Input: `sessionID`, the host's
//! `nowMs` (for the memory's date folder). It asks the host for the session's messages with
//! `Request::SessionMessages {sessionId}` (reply `{messages:[{role,text}], error?}`: the glue
//! calls `client.session.messages({path:{id}})` and joins each message's text parts). Result
//! ([`CompactionResult`]):
//! ```json
//! { "context": ["## Knowledge Graph Preservation (hookwise) …"],  // push onto output.context
//!   "concepts": ["auth"], "decisions": ["We decided to use RS256."],
//!   "memory": "memory://sessions/compaction/2026/02/18/…",        // when written in time
//!   "logs": [] }
//! ```
//! `context` always has the block (at least the tagging guidance), even when every call fails.
//! The WriteMemory call (folder `sessions/compaction/YYYY/MM/DD`, tags
//! `["compaction","session",<project>]`) is awaited within the compaction budget
//! (`compactionTimeoutMs`); if it is not done by then it is cancelled and a warning says so.
//!
//! **Benchmark** — [`start::session_start`] with [`Strategy::Parallel`] or
//! [`Strategy::Sequential`] returns [`SessionStartResult`] `{project, context?, concepts:
//! [{name, files, mentions}], calls, failures, logs}`.

pub mod compaction;
pub mod concepts;
pub mod config;
pub mod decisions;
pub mod format;
pub mod start;

use std::cell::RefCell;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

pub use config::{Channel, SessionConfig};
pub use start::{session_start, SessionStartResult, Strategy};

use crate::knowledge::Source;
use crate::maenifold::memory;
use crate::protocol::{Log, Request};
use crate::runtime::{timeout, Io};

use compaction::MessagesReply;

/// The project's name: the basename of the worktree, else of the directory (OpenCode's
/// worktree is `/` outside a git repository). Empty when neither has one.
pub fn project_name(worktree: &str, directory: &str) -> String {
    fn base(p: &str) -> &str {
        let t = p.trim().trim_end_matches(['/', '\\']);
        t.rsplit(['/', '\\']).next().unwrap_or("").trim()
    }
    let w = base(worktree);
    let w = if w.ends_with(':') { "" } else { w }; // a bare Windows drive
    if !w.is_empty() {
        return w.to_string();
    }
    let d = base(directory);
    if d.ends_with(':') {
        String::new()
    } else {
        d.to_string()
    }
}

/// The Session of a `session.created` event (only the fields used).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionInfo {
    pub id: String,
    #[serde(alias = "parentID")]
    pub parent_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Entry {
    /// A subagent session, or start-up disabled: nothing to give.
    Skipped,
    /// The lookup is running.
    Pending,
    Ready {
        context: Option<String>,
        concepts: Vec<String>,
    },
}

/// Sessions seen, bounded (the oldest forgotten first). One per engine.
#[derive(Debug, Default)]
pub struct SessionState {
    entries: VecDeque<(String, Entry)>,
}

/// At most this many sessions are remembered.
pub const MAX_SESSIONS: usize = 512;

impl SessionState {
    fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|(k, _)| k == id).map(|(_, e)| e)
    }

    fn set(&mut self, id: &str, e: Entry) {
        if let Some(slot) = self.entries.iter_mut().find(|(k, _)| k == id) {
            slot.1 = e;
            return;
        }
        if self.entries.len() >= MAX_SESSIONS {
            self.entries.pop_front();
        }
        self.entries.push_back((id.to_string(), e));
    }

    /// The context computed for a session, when ready.
    pub fn context(&self, id: &str) -> Option<&str> {
        match self.get(id) {
            Some(Entry::Ready { context, .. }) => context.as_deref(),
            _ => None,
        }
    }

    /// The concepts session start found for a session.
    pub fn concepts(&self, id: &str) -> Vec<String> {
        match self.get(id) {
            Some(Entry::Ready { concepts, .. }) => concepts.clone(),
            _ => Vec::new(),
        }
    }

    fn is_pending(&self, id: &str) -> bool {
        matches!(self.get(id), Some(Entry::Pending))
    }
}

/// Marks a session's lookup finished (with nothing) if its operation is dropped unfinished
/// (the host abandoned it), so `system.transform` never waits on it again.
struct PendingGuard<'a> {
    state: &'a RefCell<SessionState>,
    id: String,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if let Ok(mut s) = self.state.try_borrow_mut() {
            if s.is_pending(&self.id) {
                s.set(
                    &self.id,
                    Entry::Ready {
                        context: None,
                        concepts: Vec::new(),
                    },
                );
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptDelivery {
    pub session_id: String,
    pub text: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionCreatedResult {
    /// For the `prompt` channel: the noReply user turn to add.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptDelivery>,
    /// The context text (both channels), for hosts that place it themselves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_context: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub concepts: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub calls: u32,
    /// Why nothing was done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// `session.created`: look up the project's context once per top-level session and keep it
/// for the session's system prompt (or hand it out as a noReply prompt). Never fails.
pub async fn session_created(
    io: &Io,
    state: &RefCell<SessionState>,
    source: Option<&Source>,
    info: &SessionInfo,
    project: &str,
    cfg: &SessionConfig,
) -> SessionCreatedResult {
    let skip = |why: &str| SessionCreatedResult {
        skipped: Some(why.to_string()),
        ..Default::default()
    };
    let id = info.id.trim();
    if id.is_empty() {
        return skip("no session id");
    }
    if info
        .parent_id
        .as_deref()
        .is_some_and(|p| !p.trim().is_empty())
    {
        state.borrow_mut().set(id, Entry::Skipped);
        return skip("subagent session");
    }
    if state.borrow().get(id).is_some() {
        return skip("already started");
    }
    if !cfg.enabled {
        state.borrow_mut().set(id, Entry::Skipped);
        return skip("session start is disabled");
    }
    let Some(source) = source else {
        state.borrow_mut().set(id, Entry::Skipped);
        return skip("no knowledge source");
    };
    state.borrow_mut().set(id, Entry::Pending);
    let _guard = PendingGuard {
        state,
        id: id.to_string(),
    };
    let r = session_start(io, source, project, cfg, Strategy::Parallel).await;
    let concepts: Vec<String> = r.concepts.iter().map(|c| c.name.clone()).collect();
    state.borrow_mut().set(
        id,
        Entry::Ready {
            context: r.context.clone(),
            concepts: concepts.clone(),
        },
    );
    SessionCreatedResult {
        prompt: match (cfg.channel, &r.context) {
            (Channel::Prompt, Some(text)) => Some(PromptDelivery {
                session_id: id.to_string(),
                text: text.clone(),
            }),
            _ => None,
        },
        session_context: r.context,
        concepts,
        calls: r.calls,
        skipped: None,
        logs: r.logs,
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemResult {
    /// Strings to push onto `output.system`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub system: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
}

/// How often `system.transform` looks again at a session start still running.
pub const POLL_MS: u64 = 50;

/// `experimental.chat.system.transform`: the session's context for its system prompt.
pub async fn system_transform(
    io: &Io,
    state: &RefCell<SessionState>,
    session_id: Option<&str>,
    existing: &[String],
    cfg: &SessionConfig,
) -> SystemResult {
    let none = SystemResult::default();
    if cfg.channel != Channel::System {
        return none;
    }
    let Some(id) = session_id.map(str::trim).filter(|s| !s.is_empty()) else {
        return none;
    };
    let title_request = existing
        .iter()
        .any(|s| s.to_ascii_lowercase().contains("title generator"));
    if title_request || existing.iter().any(|s| s.contains(format::HEADER)) {
        return none;
    }
    let cap = cfg.start_timeout_ms + 1000;
    let mut waited = 0;
    while state.borrow().is_pending(id) {
        if waited >= cap {
            return SystemResult {
                system: Vec::new(),
                logs: vec![Log::debug(format!(
                    "session context for {id} not ready after {waited} ms; this request goes without it"
                ))],
            };
        }
        io.sleep(POLL_MS).await;
        waited += POLL_MS;
    }
    match state.borrow().context(id) {
        Some(c) => SystemResult {
            system: vec![c.to_string()],
            logs: Vec::new(),
        },
        None => none,
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    /// Strings to push onto `output.context` (always the preservation block).
    pub context: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub concepts: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<String>,
    /// The compaction memory's URI, when WriteMemory confirmed it in time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
}

#[derive(Default)]
struct CompAcc {
    concepts: Vec<String>,
    decisions: Vec<String>,
    memory: Option<String>,
    failures: Vec<String>,
    stage: &'static str,
}

/// `experimental.session.compacting`: the preservation block, and a compaction memory.
/// Never fails and never takes longer than `cfg.compaction_timeout_ms` of host time.
pub async fn compaction(
    io: &Io,
    state: &RefCell<SessionState>,
    source: Option<&Source>,
    session_id: &str,
    project: &str,
    now_ms: f64,
    cfg: &SessionConfig,
) -> CompactionResult {
    let acc = RefCell::new(CompAcc::default());
    let fallback = state.borrow().concepts(session_id);
    let work = async {
        let id = session_id.trim();
        let (mut concepts, decisions) = if id.is_empty() {
            acc.borrow_mut()
                .failures
                .push("no session id: the session's messages are unknown".into());
            (Vec::new(), Vec::new())
        } else {
            acc.borrow_mut().stage = "fetching the session's messages";
            let reply = io
                .request(Request::SessionMessages {
                    session_id: id.to_string(),
                })
                .await;
            match serde_json::from_value::<MessagesReply>(reply) {
                Ok(MessagesReply { error: Some(e), .. }) => {
                    acc.borrow_mut()
                        .failures
                        .push(format!("session messages: {e}"));
                    (Vec::new(), Vec::new())
                }
                Ok(r) => {
                    let texts = compaction::scan_texts(&r.messages);
                    (
                        compaction::session_concepts(&texts, compaction::MAX_CONCEPTS),
                        compaction::session_decisions(&texts),
                    )
                }
                Err(e) => {
                    acc.borrow_mut()
                        .failures
                        .push(format!("bad session messages reply: {e}"));
                    (Vec::new(), Vec::new())
                }
            }
        };
        if concepts.is_empty() {
            concepts = fallback.clone();
        }
        {
            let mut a = acc.borrow_mut();
            a.concepts = concepts.clone();
            a.decisions = decisions.clone();
        }
        if let Some(src) = source {
            acc.borrow_mut().stage = "writing the compaction memory";
            let payload = compaction::write_payload(project, id, now_ms, &concepts, &decisions);
            let r = src
                .cli_call(io, "WriteMemory", &payload, true)
                .await
                .and_then(|t| memory::parse_write(&t).map_err(|e| format!("WriteMemory: {e}")));
            let mut a = acc.borrow_mut();
            match r {
                Ok(w) => a.memory = Some(w.uri),
                Err(e) => a.failures.push(e),
            }
        }
    };
    let finished = timeout(io, cfg.compaction_timeout_ms, work).await.is_some();
    let mut a = acc.into_inner();
    if !finished {
        a.failures.push(format!(
            "over the {} ms compaction budget while {}",
            cfg.compaction_timeout_ms, a.stage
        ));
        if a.concepts.is_empty() {
            a.concepts = fallback;
        }
    }
    let block = compaction::preservation_block(&a.concepts, &a.decisions);
    let log = if a.failures.is_empty() {
        Log::debug(format!(
            "compaction of {session_id}: {} concepts, {} decisions{}",
            a.concepts.len(),
            a.decisions.len(),
            match &a.memory {
                Some(u) => format!(", memory {u}"),
                None => ", no knowledge source: no memory written".into(),
            }
        ))
    } else {
        Log::warn(format!(
            "compaction of {session_id}: knowledge kept in the summary prompt, but {}",
            a.failures.join("; ")
        ))
    };
    CompactionResult {
        context: vec![block],
        concepts: a.concepts,
        decisions: a.decisions,
        memory: a.memory,
        logs: vec![log],
    }
}

#[cfg(test)]
mod tests;

//! The warm session: shared state ([`Hub`], behind [`McpHandle`]) and the operations that use
//! it. Operations never hold the hub borrowed across an `await`.
//!
//! How an operation waits for an answer: it checks the hub (answer there? session gone?) and,
//! if it must wait, awaits `Request::McpAwait { session, rpcId }` — a request the engine keeps
//! to itself (see [`super::router`]): it is completed when stdout data fed by the host answers
//! that id, when the handshake finishes (waiters for readiness wait on the `initialize` id), or
//! when the session ends. Wakes carry no data; the woken operation looks at the hub again, so a
//! wake can never be lost or stale. Every wait is under a timeout, so nothing waits forever.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::Serialize;
use serde_json::{json, Value};

use super::cache::{CacheKey, CacheStats, ContextCache, Touch};
use super::client::{decode_tool_result, Client, Event, McpError, Phase, ToolOutput};
use super::convert::{build_context_from_text, build_context_from_value, mcp_tool_name};
use super::framing::{FrameStats, LineBuffer};
use super::lifecycle::{Gate, Incident, Lifecycle, Transport};
use super::McpOptions;
use crate::maenifold::{self, BuildContext, ContextQuery, SpawnResult};
use crate::protocol::{Log, Request};
use crate::runtime::{join_all, timeout, Io};

/// The longest a liveness `ping` may take.
const PROBE_MS: u64 = 2000;

/// What to wake (see [`super::router::Router`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wake {
    /// Waiters on this request id of this session.
    Rpc { session: u64, id: u64 },
    /// Every waiter of this session (it ended).
    Session(u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Stage {
    /// `McpStart` sent, no reply yet.
    Spawning,
    /// `initialize` written, no answer yet.
    Handshaking,
    Ready,
}

#[derive(Debug)]
struct Live {
    id: u64,
    stage: Stage,
    client: Client,
    init_line: Option<String>,
    lines: LineBuffer,
    created_ms: u64,
    /// In a burst of garbage lines (one note per burst).
    garbage_burst: bool,
    /// A garbage line was warned about (one warning per session).
    garbage_warned: bool,
}

/// What an operation must do to get a session.
#[derive(Debug, PartialEq)]
enum Action {
    Use(u64),
    Start {
        session: u64,
        argv: Vec<String>,
        env: BTreeMap<String, String>,
    },
    Wait {
        session: u64,
        key: u64,
        deadline_ms: u64,
    },
    Unavailable(String),
}

/// Where hookwise finds maenifold and how it talks to it.
#[derive(Debug, Clone, Default)]
pub struct McpSetup {
    /// The maenifold binary (from discovery); `None`: no maenifold, MCP never starts.
    pub cli_path: Option<String>,
    /// Extra environment for the server (`MAENIFOLD_ROOT`, …); the host adds its own.
    pub env: BTreeMap<String, String>,
    pub options: McpOptions,
    /// The cache's source key, e.g. `maenifold:<path>`.
    pub source: String,
}

/// The shared state of one plugin instance's MCP session.
#[derive(Debug)]
pub struct Hub {
    opts: McpOptions,
    argv: Option<Vec<String>>,
    env: BTreeMap<String, String>,
    source: String,
    life: Lifecycle,
    live: Option<Live>,
    next_session: u64,
    /// Why the last session ended (for the errors of its waiters).
    ended: Option<(u64, String)>,
    to_stop: Vec<u64>,
    now_ms: u64,
    cache: ContextCache,
    logs: Vec<Log>,
    wakes: Vec<Wake>,
    frames: FrameStats,
    stale_chunks: u64,
    calls: u64,
}

/// A snapshot for diagnostics and tests (JSON, camelCase).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub transport: Transport,
    pub session: Option<u64>,
    pub stage: Option<Stage>,
    pub starts: u32,
    pub in_flight: usize,
    pub calls: u64,
    pub garbage_lines: u64,
    pub unknown_ids: u64,
    pub cache_entries: usize,
    pub cache: CacheStats,
    pub bytes_read: u64,
    pub buffered_bytes: usize,
    pub off: Option<String>,
}

impl Hub {
    pub fn new(setup: McpSetup) -> Hub {
        let o = setup.options;
        Hub {
            argv: setup.cli_path.map(|p| vec![p, "--mcp".to_string()]),
            env: setup.env,
            source: setup.source,
            life: Lifecycle::new(o.transport, o.restart),
            live: None,
            next_session: 0,
            ended: None,
            to_stop: Vec::new(),
            now_ms: 0,
            cache: ContextCache::new(o.cache_ttl_ms, o.cache_max_entries),
            logs: Vec::new(),
            wakes: Vec::new(),
            frames: FrameStats::default(),
            stale_chunks: 0,
            calls: 0,
            opts: o,
        }
    }

    pub fn now(&self) -> u64 {
        self.now_ms
    }

    /// Host time only moves forward here.
    pub fn observe_now(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
    }

    pub fn take_wakes(&mut self) -> Vec<Wake> {
        std::mem::take(&mut self.wakes)
    }

    pub fn take_logs(&mut self) -> Vec<Log> {
        std::mem::take(&mut self.logs)
    }

    pub fn status(&self) -> Status {
        let l = self.live.as_ref();
        Status {
            transport: self.life.transport(),
            session: l.map(|l| l.id),
            stage: l.map(|l| l.stage),
            starts: self.life.starts,
            in_flight: l.map_or(0, |l| l.client.in_flight()),
            calls: self.calls,
            garbage_lines: l.map_or(0, |l| l.client.stats.garbage),
            unknown_ids: l.map_or(0, |l| l.client.stats.unknown_ids),
            cache_entries: self.cache.len(),
            cache: self.cache.stats,
            bytes_read: self.frames.bytes + l.map_or(0, |l| l.lines.stats.bytes),
            buffered_bytes: l.map_or(0, |l| l.lines.buffered()),
            off: match self.life.gate(u64::MAX) {
                Gate::Off { reason } => Some(reason),
                _ => None,
            },
        }
    }

    fn next_action(&mut self) -> Action {
        loop {
            if let Some(l) = &self.live {
                match l.stage {
                    Stage::Ready => return Action::Use(l.id),
                    Stage::Spawning | Stage::Handshaking => {
                        let deadline_ms = l.created_ms + self.opts.start_timeout_ms;
                        if self.now_ms < deadline_ms {
                            return Action::Wait {
                                session: l.id,
                                key: l.client.init_id(),
                                deadline_ms,
                            };
                        }
                        let (id, ms) = (l.id, self.opts.start_timeout_ms);
                        self.fail_session(
                            id,
                            Incident::HandshakeFailed(format!(
                                "no answer to initialize within {ms} ms"
                            )),
                            true,
                        );
                        continue;
                    }
                }
            }
            let Some(argv) = self.argv.clone() else {
                return Action::Unavailable("no maenifold binary".into());
            };
            return match self.life.gate(self.now_ms) {
                Gate::Off { reason } => Action::Unavailable(reason),
                Gate::Backoff { until_ms } => Action::Unavailable(format!(
                    "restarting after a failure, not before {} ms from now",
                    until_ms - self.now_ms
                )),
                Gate::Start => {
                    self.next_session += 1;
                    let id = self.next_session;
                    let (client, init) = Client::new(env!("CARGO_PKG_VERSION"));
                    self.life.on_start();
                    self.live = Some(Live {
                        id,
                        stage: Stage::Spawning,
                        client,
                        init_line: Some(init),
                        lines: LineBuffer::new(self.opts.max_line_bytes),
                        created_ms: self.now_ms,
                        garbage_burst: false,
                        garbage_warned: false,
                    });
                    Action::Start {
                        session: id,
                        argv,
                        env: self.env.clone(),
                    }
                }
            };
        }
    }

    fn live_mut(&mut self, session: u64) -> Option<&mut Live> {
        self.live.as_mut().filter(|l| l.id == session)
    }

    /// The session ended or is useless: forget it, wake its waiters, record the incident.
    fn fail_session(&mut self, session: u64, incident: Incident, stop: bool) {
        let Some(l) = self.live.take_if(|l| l.id == session) else {
            return;
        };
        self.frames.bytes += l.lines.stats.bytes;
        let reason = match &incident {
            Incident::SpawnFailed(m)
            | Incident::HandshakeFailed(m)
            | Incident::Crashed(m)
            | Incident::Hung(m) => m.clone(),
        };
        self.ended = Some((session, reason));
        self.wakes.push(Wake::Session(session));
        if stop {
            self.to_stop.push(session);
        }
        let (_, log) = self.life.on_incident(self.now_ms, &incident);
        self.logs.push(log);
    }

    /// The starter gave up before the process was usable (its operation was dropped): no
    /// incident, just let the next lookup start afresh.
    fn abandon_start(&mut self, session: u64) {
        if self.live.take_if(|l| l.id == session).is_some() {
            self.ended = Some((session, "its start was abandoned".into()));
            self.wakes.push(Wake::Session(session));
            self.to_stop.push(session);
        }
    }

    /// The host's reply to `McpStart`. `Some(initialize line)` when the process runs.
    fn on_spawned(&mut self, session: u64, reply: &Value) -> Option<String> {
        self.observe_reply_time(reply);
        if reply.get("ok").and_then(Value::as_bool) == Some(true) {
            let l = self.live_mut(session)?;
            l.stage = Stage::Handshaking;
            return l.init_line.take().map(|s| s + "\n");
        }
        let err = reply
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("the host could not start it")
            .to_string();
        self.fail_session(session, Incident::SpawnFailed(err), false);
        None
    }

    fn observe_reply_time(&mut self, reply: &Value) {
        if let Some(t) = reply.get("nowMs").and_then(Value::as_f64) {
            if t.is_finite() && t > 0.0 {
                self.observe_now(t as u64);
            }
        }
    }

    /// Stdout data from the host. Stale sessions' data is dropped.
    pub fn feed(&mut self, session: u64, bytes: &[u8]) {
        let Some(l) = self.live.as_mut().filter(|l| l.id == session) else {
            self.stale_chunks += 1;
            return;
        };
        let mut failed = None;
        for frame in l.lines.feed(bytes) {
            for ev in l.client.on_frame(frame) {
                match ev {
                    Event::Ready => {
                        l.stage = Stage::Ready;
                        l.garbage_burst = false;
                        self.wakes.push(Wake::Rpc {
                            session,
                            id: l.client.init_id(),
                        });
                        if let Phase::Ready { protocol, server } = l.client.phase() {
                            self.logs.push(Log::debug(format!(
                                "maenifold MCP session {session} ready in {} ms ({server}, protocol {protocol})",
                                self.now_ms.saturating_sub(l.created_ms)
                            )));
                        }
                    }
                    Event::HandshakeFailed(r) => failed = Some(r),
                    Event::Answered(id) => {
                        l.garbage_burst = false;
                        self.wakes.push(Wake::Rpc { session, id });
                    }
                    Event::Garbage(g) => {
                        // One warning per session; later bursts are notes.
                        if !l.garbage_burst && l.stage == Stage::Ready {
                            let msg = format!(
                                "maenifold MCP server wrote a line that is not JSON-RPC (skipped): {g}"
                            );
                            self.logs.push(if l.garbage_warned {
                                Log::debug(msg)
                            } else {
                                Log::warn(msg)
                            });
                            l.garbage_warned = true;
                        }
                        l.garbage_burst = true;
                    }
                    Event::UnknownId(id) => self.logs.push(Log::debug(format!(
                        "maenifold MCP answer for no pending request (id {id}); ignored"
                    ))),
                    Event::Notification(_) | Event::ServerRequest(_) => {
                        l.garbage_burst = false;
                    }
                }
            }
            if failed.is_some() {
                break;
            }
        }
        if let Some(r) = failed {
            self.fail_session(session, Incident::HandshakeFailed(r), true);
        }
    }

    /// The process exited or closed its stdout (`info`: `{code?, signal?, error?, stderr?}`).
    pub fn closed(&mut self, session: u64, info: &Value) {
        let Some(l) = self.live.as_ref().filter(|l| l.id == session) else {
            return;
        };
        let mut what = match (
            info.get("code").and_then(Value::as_i64),
            info.get("signal").and_then(Value::as_str),
        ) {
            (_, Some(sig)) => format!("killed by {sig}"),
            (Some(c), None) => format!("exit code {c}"),
            (None, None) => "stdout closed".to_string(),
        };
        if let Some(e) = info.get("error").and_then(Value::as_str) {
            what = format!("{what}: {e}");
        }
        if let Some(tail) = info
            .get("stderr")
            .and_then(Value::as_str)
            .and_then(|s| s.lines().rev().find(|l| !l.trim().is_empty()))
        {
            what = format!(
                "{what}; stderr: {}",
                tail.chars().take(200).collect::<String>()
            );
        }
        let incident = if l.stage == Stage::Ready {
            Incident::Crashed(what)
        } else {
            Incident::HandshakeFailed(format!("exited first, {what}"))
        };
        self.fail_session(session, incident, false);
    }

    /// `None` while the answer is still to come.
    fn poll_answer(&mut self, session: u64, id: u64) -> Option<Result<Value, McpError>> {
        let gone = |h: &Hub| {
            let why = match &h.ended {
                Some((s, r)) if *s == session => r.clone(),
                _ => "replaced".into(),
            };
            Some(Err(McpError::Closed(why)))
        };
        let Some(l) = self.live.as_mut().filter(|l| l.id == session) else {
            return gone(self);
        };
        if !l.client.is_pending(id) {
            return gone(self);
        }
        l.client.take_answer(id)
    }

    /// Encode a call; returns its id, the text to write (outbox first) and the message count.
    fn begin_call(
        &mut self,
        session: u64,
        tool: &str,
        args: &Value,
    ) -> Result<(u64, String, u64), McpError> {
        let l = self
            .live
            .as_mut()
            .filter(|l| l.id == session)
            .ok_or_else(|| McpError::Closed("replaced".into()))?;
        let (id, line) = l.client.call_tool(tool, args)?;
        let mut text = l.client.take_outbox();
        text.push_str(&line);
        text.push('\n');
        self.calls += 1;
        Ok((id, text, l.client.stats.messages))
    }

    /// Encode a `ping` for a ready session.
    fn begin_ping(&mut self, session: u64) -> Option<(u64, String)> {
        let l = self
            .live
            .as_mut()
            .filter(|l| l.id == session && l.stage == Stage::Ready)?;
        let (id, line) = l.client.request("ping", json!({}));
        let mut text = l.client.take_outbox();
        text.push_str(&line);
        text.push('\n');
        Some((id, text))
    }

    fn forget(&mut self, session: u64, id: u64) {
        if let Some(l) = self.live_mut(session) {
            l.client.forget(id);
        }
    }

    /// A request got no answer in time; it is forgotten (a late answer is ignored). Returns
    /// whether nothing at all came from the process since it was written: then it may be
    /// hung, which a `ping` decides ([`probe`]); otherwise only this request was slow.
    fn on_call_timeout(&mut self, session: u64, id: u64, messages_then: u64, ms: u64) -> bool {
        let Some(l) = self.live_mut(session) else {
            return false;
        };
        l.client.forget(id);
        let silent = l.client.stats.messages == messages_then;
        if !silent {
            self.logs.push(Log::debug(format!(
                "maenifold MCP request {id} took over {ms} ms; the session answers others, kept"
            )));
        }
        silent
    }

    fn hung(&mut self, session: u64, ms: u64) {
        self.fail_session(
            session,
            Incident::Hung(format!(
                "no answer to a request nor to a ping within {ms} ms"
            )),
            true,
        );
    }

    fn on_write_failed(&mut self, session: u64, error: &str) {
        let ready = self
            .live
            .as_ref()
            .is_some_and(|l| l.id == session && l.stage == Stage::Ready);
        let incident = if ready {
            Incident::Crashed(format!("stdin: {error}"))
        } else {
            Incident::HandshakeFailed(format!("stdin: {error}"))
        };
        self.fail_session(session, incident, true);
    }

    fn take_outbox(&mut self, session: u64) -> String {
        self.live_mut(session)
            .map(|l| l.client.take_outbox())
            .unwrap_or_default()
    }

    fn take_to_stop(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.to_stop)
    }

    pub fn cache_key(&self, concept: &str, q: ContextQuery) -> CacheKey {
        CacheKey {
            source: self.source.clone(),
            concept: concept.to_string(),
            depth: q.depth,
            max_entities: q.max_entities,
            include_content: q.include_content,
        }
    }
}

/// The handle operations and the engine share. Cheap to clone.
#[derive(Clone, Debug)]
pub struct McpHandle(pub(crate) Rc<RefCell<Hub>>);

impl McpHandle {
    pub fn new(setup: McpSetup) -> McpHandle {
        McpHandle(Rc::new(RefCell::new(Hub::new(setup))))
    }

    /// (Re)configure at `init` (the engine builds its router before the CLI is found). A
    /// running session of the old setup is returned for the host to stop, and is counted as
    /// ended: its waiters are woken and fail over like after an exit.
    pub fn configure(&self, setup: McpSetup) -> Option<u64> {
        let mut h = self.0.borrow_mut();
        let old = h.live.take().map(|l| l.id);
        let next_session = h.next_session;
        let now = h.now_ms;
        let mut wakes = std::mem::take(&mut h.wakes);
        *h = Hub::new(setup);
        // Session ids stay unique across setups: late data of the old one is then stale.
        h.next_session = next_session;
        h.now_ms = now;
        if let Some(s) = old {
            h.ended = Some((s, "reconfigured".into()));
            wakes.push(Wake::Session(s));
        }
        h.wakes = wakes;
        old
    }

    /// The host's clock (ms); call on every entry that carries it.
    pub fn observe_now(&self, now_ms: u64) {
        self.0.borrow_mut().observe_now(now_ms);
    }

    pub fn now(&self) -> u64 {
        self.0.borrow().now()
    }

    pub fn transport(&self) -> Transport {
        self.0.borrow().life.transport()
    }

    pub fn status(&self) -> Status {
        self.0.borrow().status()
    }

    /// Warnings and notes gathered since the last call (one per incident).
    pub fn take_logs(&self) -> Vec<Log> {
        self.0.borrow_mut().take_logs()
    }

    /// A vault change: drop the cached context it touches. Returns how many entries went.
    pub fn invalidate(&self, touch: &Touch) -> usize {
        self.0.borrow_mut().cache.invalidate(touch)
    }

    pub fn clear_cache(&self) -> usize {
        self.0.borrow_mut().cache.clear()
    }

    /// Plugin disposal: no more starts; returns the session the host must kill, if any.
    /// (The host kills every child it owns on dispose and on exit anyway.)
    pub fn dispose(&self) -> Option<u64> {
        let mut h = self.0.borrow_mut();
        h.life.turn_off("disposed");
        let id = h.live.take().map(|l| l.id);
        if let Some(s) = id {
            h.ended = Some((s, "disposed".into()));
            h.wakes.push(Wake::Session(s));
        }
        id
    }
}

/// A future that stays on the one thread (the host's event loop).
pub type LocalFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + 'a>>;

/// The way around the MCP session to the maenifold CLI: asked for transport `cli` and, for
/// `auto`, when the session cannot answer. The knowledge source that holds the session
/// ([`crate::knowledge::Source`]) implements it; a trait here keeps `mcp` below `knowledge`
/// in the module graph.
pub trait Direct {
    /// One CLI tool with its payload: the judged text.
    fn direct_call<'a>(
        &'a self,
        io: &'a Io,
        tool: &'a str,
        payload: &'a Value,
        json_out: bool,
    ) -> LocalFuture<'a, Result<String, String>>;
    /// BuildContext for one normalized concept. `Ok` with an empty value is "no knowledge".
    fn direct_build_context<'a>(
        &'a self,
        io: &'a Io,
        concept: &'a str,
        q: ContextQuery,
    ) -> LocalFuture<'a, Result<BuildContext, String>>;
}

mod ops;

pub use ops::*;

/// Test support shared with the router tests.
#[cfg(test)]
impl Hub {
    pub(crate) fn live_id(&self) -> Option<u64> {
        self.live.as_ref().map(|l| l.id)
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;

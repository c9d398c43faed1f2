//! The engine: one object per plugin instance. Hosts call [`Engine::start`] with a hook call
//! (JSON) and [`Engine::resume`] with each reply; both answer with a [`Step`]. All hooks go
//! through this one loop.
//!
//! # The parts
//! - [`call`]: the wire types — [`Call`] (one variant per hook), [`Plan`], [`FailClosed`],
//!   [`ToolResult`], [`CallError`].
//! - `dispatch`: [`Engine::start`]'s match, one arm per hook, each calling its handler.
//! - `init`: `init` — the policy probe, the options, the knowledge source, the plan.
//! - `tool`: `tool.before` / `tool.after` — knowledge lookups and where their text goes.
//! - `session`: `session.created`, `system.transform`, `session.compacting`,
//!   `session.preview`, `doctor`, `init.scaffold`.
//! - `policy`: everything that differs between the two builds, decided once, below. With
//!   `--features policy`: `policy/` (intent governance in `policy/governance.rs`, pre-action
//!   enforcement in `policy/enforce.rs`, the warm MCP session's routing and the `init` steps
//!   in `policy/mod.rs`); without it: `lean.rs`, the same names and signatures, answering
//!   `{needs: "policy"}` where the policy build would act and adding nothing where it would
//!   only add (no governance block, no enforcement decision, no Agent Trace record). Outside
//!   them the engine names the feature only in `call.rs`, to skip reading the policy-only
//!   fields of common hooks in the lean build (its size).
//!
//! # How to add a hook
//! 1. One variant in [`Call`] (`#[serde(rename = "the.hook")]`), with its fields (a struct
//!    in `call.rs` when they are many). Both builds know every hook; for a hook only the
//!    policy build serves, the variant's payload is a type of `policy` (`policy/…`: its
//!    fields; `lean.rs`: one more name in its `unread!`), so the lean build reads nothing
//!    of it.
//! 2. One handler, `async fn(io: Io, …) -> Value`, in the file of its role (for a policy-only
//!    hook: in `policy/` and, answering `needs_policy()`, in `lean.rs`), and one arm in
//!    `dispatch.rs` calling it.
//! 3. If the host may skip the crossing unless the hook is wanted: one flag in [`Plan`], set
//!    in `init.rs` (from `policy::Setup` when the policy decides it).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use serde::Serialize;

use crate::config::Config;
use crate::discovery::Discovery;
use crate::knowledge::Source;
use crate::mcp::cache::{self, ContextCache};
use crate::runtime::{Ops, Step};
use crate::session::{SessionConfig, SessionState};

pub mod call;
mod call_read;
mod dispatch;
mod init;
mod session;
mod tool;

// The lean/policy split, decided here and nowhere else in the engine: both modules give the
// same names and signatures.
#[cfg(feature = "policy")]
mod policy;
#[cfg(not(feature = "policy"))]
#[path = "lean.rs"]
mod policy;

pub use call::{
    Call, CallError, ExcerptPlan, FailClosed, InitCall, Plan, ToolAfterCall, ToolBeforeCall,
    ToolResult, EXCERPT_WINDOW,
};
pub use init::{option_forces, wanted, INTENTS_FILE};
pub use policy::{
    GovScaffoldCall, HookEvent, IntentContextCall, IntentSelectCall, TraceBlameCall,
    TraceHeadCall, TraceVerifyCall,
};
/// What a host adapter above the engine needs (policy build).
#[cfg(feature = "policy")]
pub use policy::{telemetry::HookTel, HookAdapter};

// What the engine's tests (`tests.rs`: `use super::*`) read besides the engine itself.
#[cfg(test)]
use {
    crate::context,
    serde_json::{json, Value},
};

/// The state every operation of one engine shares (borrowed briefly, never across an await).
struct Shared {
    config: Config,
    session: SessionConfig,
    project: String,
    source: Option<Source>,
    /// Context waiting for a tool's result, by call id (bounded: oldest dropped).
    after: VecDeque<(String, String)>,
    /// BuildContext answers by (source, concept, parameters), TTL 5 min, LRU-bounded.
    cache: ContextCache,
    /// The host's clock (ms since the epoch) as of the latest call or reply.
    clock: Rc<std::cell::Cell<u64>>,
    /// How init went, for `doctor`.
    discovery: Option<Discovery>,
    init_warnings: Vec<String>,
    /// The project root hookwise started in.
    cwd: String,
    /// The host's profile (from `init`).
    host: &'static crate::host::Profile,
    /// The model tools offered ([`crate::tools`]).
    tools: crate::tools::Registry,
    /// The policy build's state (the warm MCP session, governance, enforcement); nothing in
    /// the lean build.
    policy: policy::State,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            config: Config::default(),
            session: SessionConfig::default(),
            project: String::new(),
            source: None,
            after: VecDeque::new(),
            cache: ContextCache::new(cache::DEFAULT_TTL_MS, cache::DEFAULT_MAX_ENTRIES),
            clock: Rc::default(),
            discovery: None,
            init_warnings: Vec::new(),
            cwd: String::new(),
            host: crate::hosts::default_profile(),
            tools: Default::default(),
            policy: policy::State::new(),
        }
    }
}

/// At most this many tool results wait for context (`tool.after`); the oldest goes first.
const MAX_PENDING_AFTER: usize = 256;

pub struct Engine {
    ops: Ops,
    shared: Rc<RefCell<Shared>>,
    /// Kept apart from `shared`: session operations hold it across awaits.
    sessions: Rc<RefCell<SessionState>>,
    /// Every step passes through it. Policy build: MCP answers wake the operations parked on
    /// them, and their steps wait in [`Engine::take_woken`]; lean build: steps pass as they are.
    relay: policy::Relay,
}

impl Default for Engine {
    fn default() -> Self {
        let shared: Rc<RefCell<Shared>> = Rc::default();
        let relay = policy::Relay::new(&shared.borrow().policy);
        Engine {
            ops: Ops::default(),
            shared,
            sessions: Rc::default(),
            relay,
        }
    }
}

impl Engine {
    pub fn new() -> Engine {
        Engine::default()
    }

    /// The host's clock (ms since the epoch): every start and resume brings it. It never runs
    /// backwards here.
    pub fn observe_now(&mut self, now_ms: f64) {
        if now_ms.is_finite() && now_ms > 0.0 {
            let s = self.shared.borrow();
            s.clock.set(s.clock.get().max(now_ms as u64));
            s.policy.observe_now(now_ms as u64);
        }
    }

    /// Steps of other operations woken since the last call (MCP answers, exits), in order;
    /// the host handles each like the step of that operation. Always empty in the lean build.
    pub fn take_woken(&mut self) -> Vec<Step> {
        self.relay.take_woken()
    }

    /// Stdout data of MCP session `session` (bytes as they came). Wakes what they answer.
    /// (The lean build runs no MCP session: nothing to wake.)
    pub fn mcp_feed(&mut self, session: u64, bytes: &[u8]) {
        self.relay.mcp_feed(&mut self.ops, session, bytes);
    }

    /// MCP session `session` exited or closed stdout: `{code?, signal?, error?, stderr?}`.
    pub fn mcp_closed(&mut self, session: u64, info: &serde_json::Value) {
        self.relay.mcp_closed(&mut self.ops, session, info);
    }

    /// Start a hook call given as JSON.
    pub fn start_json(&mut self, call: impl AsRef<[u8]>) -> Result<Step, CallError> {
        // Read as the host will act on it: lone surrogates as U+FFFD, over-deep values cut.
        let cleaned = crate::wire::clean(call.as_ref());
        let mut call = Call::from_json(&cleaned.bytes).map_err(|e| CallError {
            kind: "BadCall",
            // serde quotes the offending value: it may be a secret
            message: crate::redact::redact_string(format!("bad hook call: {e}")),
        })?;
        if cleaned.too_deep {
            call.mark_unreadable("depth");
        }
        Ok(self.start(call))
    }

    /// Hand back replies (JSON `[[id, reply], …]`) of operation `op`, all at once.
    /// `None`: nothing waits for them (a late answer).
    pub fn resume_json(
        &mut self,
        op: u64,
        replies: impl AsRef<[u8]>,
    ) -> Result<Option<Step>, CallError> {
        self.resume_with_bytes(op, replies, &[])
    }

    /// [`Engine::resume_json`] with `bytes` sent beside the replies: a reply
    /// `{"blob": [offset, length, size?, mtimeMs?]}` is a file read as raw bytes
    /// ([`crate::protocol::resolve_blob`]).
    pub fn resume_with_bytes(
        &mut self,
        op: u64,
        replies: impl AsRef<[u8]>,
        bytes: &[u8],
    ) -> Result<Option<Step>, CallError> {
        let cleaned = crate::wire::clean_replies(replies.as_ref());
        let mut replies: Vec<(u64, serde_json::Value)> = serde_json::from_slice(&cleaned.bytes)
            .map_err(|e| CallError {
                kind: "BadReply",
                message: format!("bad replies to operation {op}: {e}"),
            })?;
        for (_, reply) in &mut replies {
            crate::protocol::resolve_blob(reply, bytes);
        }
        Ok(self.ops_resume_many(op, replies))
    }

    pub fn resume(&mut self, op: u64, id: u64, reply: serde_json::Value) -> Option<Step> {
        self.relay.resume(&mut self.ops, op, id, reply)
    }

    /// Several replies of one operation at once.
    pub fn ops_resume_many(
        &mut self,
        op: u64,
        replies: Vec<(u64, serde_json::Value)>,
    ) -> Option<Step> {
        self.relay.resume_many(&mut self.ops, op, replies)
    }

    /// The host gave up on an operation; returns its requests to cancel.
    pub fn abandon(&mut self, op: u64) -> Vec<u64> {
        self.relay.abandon(&mut self.ops, op)
    }

    pub fn start(&mut self, call: Call) -> Step {
        let step = self.start_raw(call);
        self.relay.start(&mut self.ops, step)
    }
}

/// What a session operation needs from the shared state (no borrow held across awaits).
fn snapshot(shared: &Rc<RefCell<Shared>>) -> (Option<Source>, SessionConfig, String) {
    let s = shared.borrow();
    (s.source.clone(), s.session.clone(), s.project.clone())
}

fn to_value<T: Serialize>(t: T) -> serde_json::Value {
    serde_json::to_value(t).unwrap_or(serde_json::Value::Null)
}

#[cfg(all(test, feature = "policy"))]
mod blame_tests;
#[cfg(test)]
mod gov_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wiring_tests;
#[cfg(all(test, feature = "policy"))]
mod govpaths_tests;

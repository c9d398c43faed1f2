//! The two sides the driver ([`super::drive`]) joins: what runs the operations ([`Runner`]:
//! an [`Engine`], or the runtime with the MCP router in the loop, [`Routed`]) and the host
//! that answers their requests ([`Host`]: the [`TestHost`], or a closure).

use serde_json::Value;

use crate::engine::Engine;
use crate::mcp::{McpHandle, McpSetup, Router};
use crate::protocol::Request;
use crate::runtime::{Ops, Outgoing, Step};

use super::drive::Reply;
use super::mcp::Output;
use super::TestHost;

/// What runs the operations: an [`Engine`], or a [`Routed`] runtime. Each entry returns the
/// steps for the host (its own and those of operations it woke).
pub trait Runner {
    /// The host's clock, brought with every entry.
    fn observe_now(&mut self, now: f64);
    fn resume(&mut self, op: u64, id: u64, reply: Value) -> Vec<Step>;
    /// Stdout bytes of an MCP session.
    fn feed(&mut self, session: u64, bytes: &[u8]) -> Vec<Step>;
    /// An MCP session's process exited.
    fn closed(&mut self, session: u64, info: &Value) -> Vec<Step>;
}

impl Runner for Engine {
    fn observe_now(&mut self, now: f64) {
        Engine::observe_now(self, now);
    }
    fn resume(&mut self, op: u64, id: u64, reply: Value) -> Vec<Step> {
        let own = Engine::resume(self, op, id, reply);
        own.into_iter().chain(self.take_woken()).collect()
    }
    fn feed(&mut self, session: u64, bytes: &[u8]) -> Vec<Step> {
        self.mcp_feed(session, bytes);
        self.take_woken()
    }
    fn closed(&mut self, session: u64, info: &Value) -> Vec<Step> {
        self.mcp_closed(session, info);
        self.take_woken()
    }
}

/// Operations of the runtime with the MCP router in the loop, as the engine uses them.
pub struct Routed {
    pub ops: Ops,
    pub router: Router,
}

impl Routed {
    pub fn new(h: McpHandle) -> Routed {
        Routed {
            ops: Ops::default(),
            router: Router::new(h),
        }
    }

    /// The MCP session handle the router wakes operations for.
    pub fn h(&self) -> &McpHandle {
        self.router.handle()
    }
}

impl Default for Routed {
    /// No MCP session configured.
    fn default() -> Self {
        Routed::new(McpHandle::new(McpSetup::default()))
    }
}

impl Runner for Routed {
    fn observe_now(&mut self, now: f64) {
        self.h().observe_now(now as u64);
    }
    fn resume(&mut self, op: u64, id: u64, reply: Value) -> Vec<Step> {
        self.router.resume(&mut self.ops, op, id, reply)
    }
    fn feed(&mut self, session: u64, bytes: &[u8]) -> Vec<Step> {
        self.router.feed(&mut self.ops, session, bytes)
    }
    fn closed(&mut self, session: u64, info: &Value) -> Vec<Step> {
        self.router.closed(&mut self.ops, session, info)
    }
}

/// The host side as the driver sees it.
pub trait Host {
    /// The answer to request `id` of operation `op`.
    fn answer(&mut self, op: u64, id: u64, req: &Request) -> Reply;
    /// The virtual clock (ms).
    fn now(&self) -> f64;
    /// A timer due at `t` fires: the clock moves to it (never back).
    fn advance(&mut self, t: f64);
    /// The order a batch of requests (sent together) is answered in.
    fn order(&mut self, _batch: &mut [(u64, Outgoing)]) {}
    /// The core cancelled these requests.
    fn cancelled(&mut self, _ids: &[u64]) {}
    /// What the host's MCP servers did since last asked, each at its time.
    fn take_output(&mut self) -> Vec<(f64, Output)> {
        Vec::new()
    }
    /// Stdout of `session` as it reaches the core (in chunks; none once killed).
    fn stdout(&mut self, _session: u64, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        vec![bytes]
    }
    /// Whether `session`'s process still runs.
    fn runs(&self, _session: u64) -> bool {
        true
    }
    /// `session`'s process exited.
    fn exited(&mut self, _session: u64) {}
}

impl Host for TestHost {
    fn answer(&mut self, op: u64, id: u64, req: &Request) -> Reply {
        self.sent.push((self.now, op, id));
        TestHost::answer(self, req)
    }
    fn now(&self) -> f64 {
        self.now
    }
    fn advance(&mut self, t: f64) {
        if t.is_finite() && t > self.now {
            self.now = t;
        }
    }
    fn order(&mut self, batch: &mut [(u64, Outgoing)]) {
        TestHost::order(self, batch);
    }
    fn cancelled(&mut self, ids: &[u64]) {
        self.cancelled.extend_from_slice(ids);
    }
    fn take_output(&mut self) -> Vec<(f64, Output)> {
        self.mcp
            .as_mut()
            .map(|p| p.take_output())
            .unwrap_or_default()
    }
    fn stdout(&mut self, session: u64, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        self.mcp
            .as_mut()
            .map(|p| p.stdout(session, bytes))
            .unwrap_or_default()
    }
    fn runs(&self, session: u64) -> bool {
        self.mcp.as_ref().is_some_and(|p| p.runs(session))
    }
    fn exited(&mut self, session: u64) {
        if let Some(p) = &mut self.mcp {
            p.exited(session);
        }
    }
}

/// A host scripted request by request by a closure (its clock stays at 0).
pub(super) struct Script<F>(pub(super) F);

impl<F: FnMut(&Request) -> Reply> Host for Script<F> {
    fn answer(&mut self, _op: u64, _id: u64, req: &Request) -> Reply {
        (self.0)(req)
    }
    fn now(&self) -> f64 {
        0.0
    }
    fn advance(&mut self, _t: f64) {}
}

impl<R: Runner + ?Sized> Runner for &mut R {
    fn observe_now(&mut self, now: f64) {
        (**self).observe_now(now);
    }
    fn resume(&mut self, op: u64, id: u64, reply: Value) -> Vec<Step> {
        (**self).resume(op, id, reply)
    }
    fn feed(&mut self, session: u64, bytes: &[u8]) -> Vec<Step> {
        (**self).feed(session, bytes)
    }
    fn closed(&mut self, session: u64, info: &Value) -> Vec<Step> {
        (**self).closed(session, info)
    }
}

impl<H: Host + ?Sized> Host for &mut H {
    fn answer(&mut self, op: u64, id: u64, req: &Request) -> Reply {
        (**self).answer(op, id, req)
    }
    fn now(&self) -> f64 {
        (**self).now()
    }
    fn advance(&mut self, t: f64) {
        (**self).advance(t);
    }
    fn order(&mut self, batch: &mut [(u64, Outgoing)]) {
        (**self).order(batch);
    }
    fn cancelled(&mut self, ids: &[u64]) {
        (**self).cancelled(ids);
    }
    fn take_output(&mut self) -> Vec<(f64, Output)> {
        (**self).take_output()
    }
    fn stdout(&mut self, session: u64, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        (**self).stdout(session, bytes)
    }
    fn runs(&self, session: u64) -> bool {
        (**self).runs(session)
    }
    fn exited(&mut self, session: u64) {
        (**self).exited(session);
    }
}

//! The engine-side adapter that lets a non-host event (stdout data, a process exit) complete
//! an operation's pending request, without changing the runtime.
//!
//! An operation parks with `Request::McpAwait { session, rpcId }`. The runtime registers it
//! like any request and lists it in the operation's [`Step`]; the router takes it out of the
//! step before the host sees it and remembers `(op, request id)` under its wait key. When the
//! hub has something to wake (an answer arrived, the handshake finished, the session ended),
//! the router resumes those requests with `{}` through [`Ops::resume`], routes the new steps the
//! same way, and returns every step for the host, in order. Cancels of parked requests (an
//! operation dropped one at its deadline) are removed from the steps too: the host never hears
//! of `McpAwait` at all.
//!
//! Every engine entry goes through it: `start`/`resume` (a step), `feed`/`closed` (no step of
//! their own, only wakes). One entry can therefore yield several steps (the woken operations'),
//! so the engine returns a list.

use serde_json::{json, Value};

use super::session::{McpHandle, Wake};
use crate::protocol::Request;
use crate::runtime::{Ops, Outgoing, Step};

/// A parked request: operation, its request id, and what it waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Parked {
    op: u64,
    req: u64,
    session: u64,
    rpc: u64,
}

#[derive(Debug)]
pub struct Router {
    h: McpHandle,
    /// In the order they parked (a few at a time: one per lookup in flight).
    parked: Vec<Parked>,
}

impl Router {
    pub fn new(h: McpHandle) -> Router {
        Router {
            h,
            parked: Vec::new(),
        }
    }

    pub fn handle(&self) -> &McpHandle {
        &self.h
    }

    /// Parked requests (for tests and diagnostics).
    pub fn parked(&self) -> usize {
        self.parked.len()
    }

    /// Route a step from `Ops::start` / `Ops::resume`; returns the steps for the host.
    pub fn route(&mut self, ops: &mut Ops, step: Step) -> Vec<Step> {
        let mut out = vec![self.intercept(step)];
        self.wake_all(ops, &mut out);
        out
    }

    /// `Ops::resume` through the router (`None` from the runtime gives no step).
    pub fn resume(&mut self, ops: &mut Ops, op: u64, id: u64, reply: Value) -> Vec<Step> {
        if self.parked.iter().any(|p| p.op == op && p.req == id) {
            return Vec::new(); // parked requests are the core's, not the host's
        }
        match ops.resume(op, id, reply) {
            Some(step) => self.route(ops, step),
            None => Vec::new(),
        }
    }

    /// `Ops::resume_many` through the router (replies to parked requests are dropped).
    pub fn resume_many(&mut self, ops: &mut Ops, op: u64, replies: Vec<(u64, Value)>) -> Vec<Step> {
        let replies: Vec<(u64, Value)> = replies
            .into_iter()
            .filter(|(id, _)| !self.parked.iter().any(|p| p.op == op && p.req == *id))
            .collect();
        match ops.resume_many(op, replies) {
            Some(step) => self.route(ops, step),
            None => Vec::new(),
        }
    }

    /// Stdout data of `session` (bytes as they came, any chunking).
    pub fn feed(&mut self, ops: &mut Ops, session: u64, bytes: &[u8]) -> Vec<Step> {
        self.h.0.borrow_mut().feed(session, bytes);
        let mut out = Vec::new();
        self.wake_all(ops, &mut out);
        out
    }

    /// The process of `session` exited or closed stdout; `info` `{code?, signal?, error?, stderr?}`.
    pub fn closed(&mut self, ops: &mut Ops, session: u64, info: &Value) -> Vec<Step> {
        self.h.0.borrow_mut().closed(session, info);
        let mut out = Vec::new();
        self.wake_all(ops, &mut out);
        out
    }

    /// `Ops::abandon` through the router: the host-visible request ids to cancel, and the
    /// steps of other operations this woke (dropping it may release a start others wait for).
    pub fn abandon(&mut self, ops: &mut Ops, op: u64) -> (Vec<u64>, Vec<Step>) {
        let ids = ops.abandon(op);
        let ids = self.strip(op, ids);
        let mut out = Vec::new();
        self.wake_all(ops, &mut out);
        (ids, out)
    }

    /// Wakes ops parked on what the hub reports, until nothing is left to wake.
    fn wake_all(&mut self, ops: &mut Ops, out: &mut Vec<Step>) {
        loop {
            let wakes = self.h.0.borrow_mut().take_wakes();
            if wakes.is_empty() {
                return;
            }
            let hit = |p: &Parked| {
                wakes.iter().any(|w| match *w {
                    Wake::Rpc { session, id } => p.session == session && p.rpc == id,
                    Wake::Session(s) => p.session == s,
                })
            };
            let targets: Vec<Parked> = self.parked.iter().filter(|p| hit(p)).copied().collect();
            self.parked.retain(|p| !hit(p));
            for p in targets {
                if let Some(step) = ops.resume(p.op, p.req, json!({})) {
                    out.push(self.intercept(step));
                }
            }
        }
    }

    /// Take parked requests out of a step (registering them) and their cancels.
    fn intercept(&mut self, step: Step) -> Step {
        match step {
            Step::Pending {
                op,
                requests,
                cancel,
            } => {
                let mut host: Vec<Outgoing> = Vec::with_capacity(requests.len());
                for r in requests {
                    match r.req {
                        Request::McpAwait { session, rpc_id } => self.parked.push(Parked {
                            op,
                            req: r.id,
                            session,
                            rpc: rpc_id,
                        }),
                        _ => host.push(r),
                    }
                }
                let cancel = self.strip(op, cancel);
                Step::Pending {
                    op,
                    requests: host,
                    cancel,
                }
            }
            Step::Done { op, result, cancel } => {
                let cancel = self.strip(op, cancel);
                // Anything of this op still parked is gone with it.
                self.parked.retain(|p| p.op != op);
                Step::Done { op, result, cancel }
            }
        }
    }

    fn unpark(&mut self, op: u64, req: u64) -> bool {
        let before = self.parked.len();
        self.parked.retain(|p| !(p.op == op && p.req == req));
        self.parked.len() != before
    }

    /// Cancels the host should see: parked ones are unparked and left out.
    fn strip(&mut self, op: u64, ids: Vec<u64>) -> Vec<u64> {
        ids.into_iter().filter(|id| !self.unpark(op, *id)).collect()
    }
}

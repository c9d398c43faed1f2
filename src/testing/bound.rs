//! A bounded pump for tests that throw anything at the engine (tests/fuzz.rs): an engine and a
//! [`TestHost`] together, hook calls given as any bytes (a refused call is the engine's
//! [`CallError`]), several operations in flight at once with the steps they wake, and an MCP
//! session the test itself plays the server of (`Engine::mcp_feed`). A hang is a failure found
//! by counting, not by timing: more than [`Bounded::max_requests`] answers in one pump panics,
//! and so does a call left waiting on nothing.

use std::collections::VecDeque;

use serde_json::{json, Value};

use crate::engine::{CallError, Engine};
use crate::protocol::Request;
use crate::runtime::{Outgoing, Step};

use super::{Reply, TestHost};

/// Answers one pump may give before it calls the operation a hang.
pub const MAX_REQUESTS: usize = 50_000;

/// A timer: (due on the virtual clock, order set, op, request id, reply).
type Timer = (f64, u64, u64, u64, Value);

/// An engine driven against a [`TestHost`] (see the module's docs).
pub struct Bounded {
    pub engine: Engine,
    pub host: TestHost,
    /// Answers one pump may give (default [`MAX_REQUESTS`]).
    pub max_requests: usize,
    /// Answers given in all (requests and timers), for the figures.
    pub requests: usize,
    /// `McpStart` succeeds: the session then waits for what the test feeds it (else the host
    /// answers it, as a host without an MCP server does).
    pub mcp_runs: bool,
    /// The MCP sessions the core started.
    pub mcp_sessions: Vec<u64>,
    /// What the core wrote to the MCP sessions' stdin.
    pub mcp_written: String,
    /// The batch being answered (in the host's order), and the requests sent since.
    batch: VecDeque<(u64, Outgoing)>,
    next: Vec<(u64, Outgoing)>,
    /// Timers not fired yet (kept between pumps).
    timers: Vec<Timer>,
    set: u64,
}

impl Bounded {
    pub fn new(host: TestHost) -> Bounded {
        Bounded {
            engine: Engine::new(),
            host,
            max_requests: MAX_REQUESTS,
            requests: 0,
            mcp_runs: false,
            mcp_sessions: Vec::new(),
            mcp_written: String::new(),
            batch: VecDeque::new(),
            next: Vec::new(),
            timers: Vec::new(),
            set: 0,
        }
    }

    /// Run a hook call given as bytes to its result (timers fire as they come due).
    pub fn call(&mut self, bytes: impl AsRef<[u8]>) -> Result<Value, CallError> {
        self.engine.observe_now(self.host.now);
        let step = self.engine.start_json(bytes)?;
        let (Step::Done { op, .. } | Step::Pending { op, .. }) = &step;
        let own = *op;
        let mut done = self.pump(vec![step], Some(own), true);
        match done.iter().position(|(op, _)| *op == own) {
            Some(i) => Ok(done.swap_remove(i).1),
            None => panic!("the hook call waits on nothing"),
        }
    }

    /// [`Bounded::call`] of a call the engine must take.
    pub fn call_json(&mut self, v: &Value) -> Value {
        let text = v.to_string();
        self.call(&text)
            .unwrap_or_else(|e| panic!("{}: {} for {text}", e.kind, e.message))
    }

    /// Carry out the requests of `steps`, and of every step they lead to or wake, until
    /// nothing is left to answer at once or `stop` has finished. With `fire_timers`, timers
    /// (these and those kept from earlier pumps) then fire, the earliest first, the clock
    /// moving to each; else they are kept. Returns the operations that finished. An operation
    /// parked on an MCP answer stays parked (`Engine::mcp_feed` wakes it).
    pub fn pump(
        &mut self,
        steps: Vec<Step>,
        stop: Option<u64>,
        fire_timers: bool,
    ) -> Vec<(u64, Value)> {
        let mut done: Vec<(u64, Value)> = Vec::new();
        for s in steps {
            self.take(s, &mut done);
        }
        let mut answered = 0usize;
        while stop.is_none_or(|op| !done.iter().any(|(o, _)| *o == op)) {
            if self.batch.is_empty() && !self.next.is_empty() {
                let mut batch = std::mem::take(&mut self.next);
                self.host.order(&mut batch);
                self.batch.extend(batch);
            }
            let (op, id, reply) = if let Some((op, r)) = self.batch.pop_front() {
                let reply = match self.answer(&r.req) {
                    Reply::Now(v) => v,
                    Reply::Later(v) => {
                        self.timer(f64::INFINITY, op, r.id, v);
                        continue;
                    }
                    Reply::After(ms, v) => {
                        self.timer(self.host.now + ms, op, r.id, v);
                        continue;
                    }
                    Reply::Never => continue,
                };
                (op, r.id, reply)
            } else if let Some(i) = self.next_timer().filter(|_| fire_timers) {
                let (due, _, op, id, reply) = self.timers.swap_remove(i);
                if due.is_finite() && due > self.host.now {
                    self.host.now = due;
                    self.engine.observe_now(due);
                }
                (op, id, reply)
            } else {
                break;
            };
            answered += 1;
            assert!(
                answered <= self.max_requests,
                "a hang: more than {} answers in one pump",
                self.max_requests
            );
            if let Some(step) = self.engine.resume(op, id, reply) {
                self.take(step, &mut done);
            }
            for s in self.engine.take_woken() {
                self.take(s, &mut done);
            }
        }
        self.requests += answered;
        done
    }

    /// The host's answer, the MCP server's process played here when `mcp_runs`.
    fn answer(&mut self, req: &Request) -> Reply {
        match req {
            Request::McpStart { session, .. } if self.mcp_runs => {
                self.mcp_sessions.push(*session);
                Reply::Now(json!({"ok": true, "pid": 4242}))
            }
            Request::McpWrite { text, .. } if self.mcp_runs => {
                self.mcp_written.push_str(text);
                Reply::Now(json!({"ok": true, "nowMs": self.host.now}))
            }
            _ => self.host.answer(req),
        }
    }

    /// A step: its cancelled requests dropped (and told to the host), its new ones queued.
    fn take(&mut self, step: Step, done: &mut Vec<(u64, Value)>) {
        let (Step::Done { op, cancel, .. } | Step::Pending { op, cancel, .. }) = &step;
        let op = *op;
        if !cancel.is_empty() {
            let kept = |(o, r): &(u64, Outgoing)| *o != op || !cancel.contains(&r.id);
            self.batch.retain(kept);
            self.next.retain(kept);
            self.timers.retain(|t| t.2 != op || !cancel.contains(&t.3));
            self.host.cancelled.extend_from_slice(cancel);
        }
        match step {
            Step::Done { result, .. } => done.push((op, result)),
            Step::Pending { requests, .. } => {
                self.next.extend(requests.into_iter().map(|r| (op, r)))
            }
        }
    }

    fn timer(&mut self, due: f64, op: u64, id: u64, reply: Value) {
        self.set += 1;
        self.timers.push((due, self.set, op, id, reply));
    }

    /// The earliest timer (the latest set first among equals).
    fn next_timer(&self) -> Option<usize> {
        (0..self.timers.len()).min_by(|&a, &b| {
            let (ta, tb) = (&self.timers[a], &self.timers[b]);
            ta.0.total_cmp(&tb.0).then(tb.1.cmp(&ta.1))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn init() -> Value {
        json!({"hook": "init", "cwd": "/w", "worktree": "/w", "directory": "/w",
               "env": {"PATH": "/nowhere"}, "options": {}})
    }

    #[test]
    fn a_call_runs_to_its_result_and_a_refused_one_is_the_call_error() {
        let mut h = Bounded::new(TestHost::default());
        assert!(h.call_json(&init()).is_object());
        assert!(h.requests > 1, "{}", h.requests);
        let e = h.call(b"{\"hook\": ").unwrap_err();
        assert_eq!(e.kind, "BadCall");
    }

    #[test]
    #[should_panic(expected = "a hang")]
    fn more_answers_than_the_bound_is_a_hang() {
        let mut h = Bounded::new(TestHost::default());
        h.max_requests = 1;
        h.call_json(&init());
    }
}

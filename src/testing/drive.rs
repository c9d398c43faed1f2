//! The one driver: runs operations — an engine's hook calls, operations of the runtime, one or
//! several at once — to their end, each request answered by a [`Host`] (the [`TestHost`], or
//! a closure) now or on the virtual clock, and what the host's MCP peer prints or its exit
//! delivered as events at their times. It checks on every step that the host never sees
//! `McpAwait` and that every cancel names a request the host was given. With a [`Driver::limit`]
//! a hang is found by counting, not by timing: more answers than the limit in one run (from a
//! start or a wake) panics "a hang", and so does an operation left waiting on nothing.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::rc::Rc;

use serde_json::Value;

use crate::engine::{CallError, Engine};
use crate::protocol::Request;
use crate::runtime::{Io, Outgoing, Step};

use super::mcp::Output;
use super::sides::Script;
pub use super::sides::{Host, Routed, Runner};
use super::TestHost;

/// A host's answer to one request.
pub enum Reply {
    /// Given at once.
    Now(Value),
    /// A timer: given only when nothing else is pending (the latest set first; the virtual
    /// clock does not move).
    #[allow(dead_code)] // for hosts answered by a closure (drive_with)
    Later(Value),
    /// After `ms` on the virtual clock (a timer; among timers due together, the first set
    /// fires first).
    After(f64, Value),
    /// Never (a request the host leaves unanswered).
    Never,
}

/// An event on the virtual clock.
enum Event {
    /// A timer: the host's reply to request `id` of operation `op`.
    Reply { op: u64, id: u64, value: Value },
    /// Output of an MCP server.
    Mcp(Output),
}

/// The one driver (see the module's docs).
pub struct Driver<R, H> {
    pub runner: R,
    pub host: H,
    /// Requests given to the host, not yet answered: (op, request).
    queue: Vec<(u64, Outgoing)>,
    /// (due, sequence, event); a due of infinity: a [`Reply::Later`].
    events: Vec<(f64, u64, Event)>,
    seq: u64,
    /// (op, id) of every request the host was given, answered, or the core cancelled.
    pub issued: HashSet<(u64, u64)>,
    answered: HashSet<(u64, u64)>,
    cancelled: HashSet<(u64, u64)>,
    /// Finished operations: when, and their result.
    pub done: HashMap<u64, (f64, Value)>,
    /// Answers given in all (replies given now, and timers fired).
    pub answers: usize,
    /// At most this many answers in one run (from a start or a wake): more panics "a hang".
    pub limit: Option<usize>,
    /// Answers given in this run.
    run: usize,
}

fn op_of(step: &Step) -> u64 {
    match step {
        Step::Done { op, .. } | Step::Pending { op, .. } => *op,
    }
}

impl<R: Runner, H: Host> Driver<R, H> {
    pub fn new(runner: R, host: H) -> Self {
        Driver {
            runner,
            host,
            queue: Vec::new(),
            events: Vec::new(),
            seq: 0,
            issued: HashSet::new(),
            answered: HashSet::new(),
            cancelled: HashSet::new(),
            done: HashMap::new(),
            answers: 0,
            limit: None,
            run: 0,
        }
    }

    /// One answer given (a reply now, or a timer fired), counted against the limit.
    fn count(&mut self) {
        self.answers += 1;
        self.run += 1;
        if let Some(max) = self.limit {
            assert!(
                self.run <= max,
                "a hang: more than {max} answers in one run"
            );
        }
    }

    /// Start an operation (`start` gives its steps, its own first) and answer what it asks
    /// at once; returns its id.
    pub fn launch(&mut self, start: impl FnOnce(&mut R) -> Vec<Step>) -> u64 {
        let now = self.host.now();
        self.runner.observe_now(now);
        let steps = start(&mut self.runner);
        let op = op_of(steps.first().expect("a start has its own step"));
        self.wake(steps);
        op
    }

    /// Steps the runner gave outside the driver (operations a test woke by feeding the engine
    /// itself): taken, and what they ask answered at once; a new run for the limit.
    pub fn wake(&mut self, steps: Vec<Step>) {
        self.run = 0;
        self.take(steps);
        self.answer_all();
    }

    /// The result of a finished operation.
    pub fn result(&self, op: u64) -> &Value {
        &self.done.get(&op).expect("operation finished").1
    }

    /// Steps for the host: requests queued, cancels honoured, results kept.
    fn take(&mut self, steps: Vec<Step>) {
        for step in steps {
            match step {
                Step::Done { op, result, cancel } => {
                    self.cancel(op, &cancel);
                    self.done.insert(op, (self.host.now(), result));
                }
                Step::Pending {
                    op,
                    requests,
                    cancel,
                } => {
                    self.cancel(op, &cancel);
                    for r in requests {
                        assert!(
                            !matches!(r.req, Request::McpAwait { .. }),
                            "the host was given McpAwait"
                        );
                        self.issued.insert((op, r.id));
                        self.queue.push((op, r));
                    }
                }
            }
        }
    }

    /// The core cancelled requests `ids` of operation `op`: dropped, their timers too, and
    /// told to the host.
    fn cancel(&mut self, op: u64, ids: &[u64]) {
        if ids.is_empty() {
            return;
        }
        for id in ids {
            assert!(
                self.issued.contains(&(op, *id)),
                "cancel of a request the host never saw: {op}/{id}"
            );
            self.cancelled.insert((op, *id));
        }
        self.queue.retain(|(o, r)| *o != op || !ids.contains(&r.id));
        self.events.retain(
            |e| !matches!(e.2, Event::Reply { op: o, id, .. } if o == op && ids.contains(&id)),
        );
        self.host.cancelled(ids);
    }

    fn at(&mut self, due: f64, event: Event) {
        self.seq += 1;
        self.events.push((due, self.seq, event));
    }

    /// Answer the requests given to the host, batch by batch, until none is left (replies
    /// given now resume at once; timers wait).
    fn answer_all(&mut self) {
        while !self.queue.is_empty() {
            let mut batch = std::mem::take(&mut self.queue);
            self.host.order(&mut batch);
            for (op, r) in batch {
                if self.cancelled.contains(&(op, r.id)) {
                    continue;
                }
                let reply = self.host.answer(op, r.id, &r.req);
                for (due, out) in self.host.take_output() {
                    self.at(due, Event::Mcp(out));
                }
                let now = self.host.now();
                match reply {
                    Reply::Now(value) => {
                        self.count();
                        self.answered.insert((op, r.id));
                        let steps = self.runner.resume(op, r.id, value);
                        self.take(steps);
                    }
                    Reply::Later(value) => {
                        let id = r.id;
                        self.at(f64::INFINITY, Event::Reply { op, id, value });
                    }
                    Reply::After(ms, value) => {
                        let id = r.id;
                        self.at(now + ms, Event::Reply { op, id, value });
                    }
                    Reply::Never => {}
                }
            }
        }
    }

    /// The next event: the earliest due (among equals the first set; among `Later` timers
    /// the latest set).
    fn next_event(&mut self) -> Option<(f64, Event)> {
        let i = (0..self.events.len()).min_by(|&a, &b| {
            let (x, y) = (&self.events[a], &self.events[b]);
            x.0.total_cmp(&y.0).then(if x.0.is_infinite() {
                y.1.cmp(&x.1)
            } else {
                x.1.cmp(&y.1)
            })
        })?;
        let (due, _, e) = self.events.swap_remove(i);
        Some((due, e))
    }

    /// Let the next event happen, and answer everything it led to; false when none is left.
    pub fn step(&mut self) -> bool {
        let Some((due, event)) = self.next_event() else {
            return false;
        };
        self.host.advance(due);
        let now = self.host.now();
        self.runner.observe_now(now);
        match event {
            Event::Reply { op, id, value } => {
                self.count();
                if !self.done.contains_key(&op) {
                    self.answered.insert((op, id));
                    let steps = self.runner.resume(op, id, value);
                    self.take(steps);
                }
            }
            Event::Mcp(Output::Data { session, mut bytes }) => {
                if self.host.runs(session) {
                    // everything the process wrote at the same instant arrives together
                    let mut same: Vec<(u64, Vec<u8>)> = Vec::new();
                    self.events.retain_mut(|e| match &mut e.2 {
                        Event::Mcp(Output::Data {
                            session: s,
                            bytes: b,
                        }) if e.0 == due && *s == session => {
                            same.push((e.1, std::mem::take(b)));
                            false
                        }
                        _ => true,
                    });
                    same.sort_by_key(|m| m.0);
                    for (_, more) in same {
                        bytes.extend(more);
                    }
                    for chunk in self.host.stdout(session, bytes) {
                        let steps = self.runner.feed(session, &chunk);
                        self.take(steps);
                    }
                }
            }
            Event::Mcp(Output::Exit { session, info }) => {
                self.host.exited(session);
                let steps = self.runner.closed(session, &info);
                self.take(steps);
            }
        }
        self.answer_all();
        true
    }

    /// Run until `op` has finished; its result.
    pub fn run_until_done(&mut self, op: u64) -> Value {
        let mut guard = 0;
        while !self.done.contains_key(&op) {
            assert!(self.step(), "stuck: operation {op} waits on nothing");
            guard += 1;
            assert!(guard < 100_000, "runaway");
        }
        self.result(op).clone()
    }

    /// Let everything still scheduled happen (late answers, exits).
    pub fn drain(&mut self) {
        let mut guard = 0;
        while self.step() {
            guard += 1;
            assert!(guard < 100_000, "runaway");
        }
    }

    /// Let everything still scheduled happen, then check that nothing waits: every request
    /// the host was given is answered or cancelled (idle costs nothing).
    pub fn settle(&mut self) {
        self.drain();
        assert_eq!(self.outstanding(), vec![], "requests left waiting");
    }

    /// Requests the host was given that are neither answered nor cancelled (after `drain`:
    /// something would wait forever, or a timer would keep running while idle).
    pub fn outstanding(&self) -> Vec<(u64, u64)> {
        let mut v: Vec<(u64, u64)> = self
            .issued
            .iter()
            .filter(|k| !self.answered.contains(k) && !self.cancelled.contains(k))
            .copied()
            .collect();
        v.sort_unstable();
        v
    }
}

impl<H: Host> Driver<Routed, H> {
    /// Start an operation of the runtime; returns its id (it may already be done).
    pub fn start<F, Fut>(&mut self, make: F) -> u64
    where
        F: FnOnce(Io) -> Fut,
        Fut: Future<Output = Value> + 'static,
    {
        self.launch(|r| {
            let step = r.ops.start(make);
            r.router.route(&mut r.ops, step)
        })
    }

    /// Give up on operation `op`, as a host does: the ids of its requests to cancel.
    pub fn abandon(&mut self, op: u64) -> Vec<u64> {
        let r = &mut self.runner;
        let (ids, woken) = r.router.abandon(&mut r.ops, op);
        self.cancel(op, &ids);
        self.take(woken);
        self.answer_all();
        ids
    }
}

impl<R: Runner + std::borrow::BorrowMut<Engine>, H: Host> Driver<R, H> {
    /// Start hook call `call` (JSON) on the engine; returns its operation's id.
    pub fn start_call(&mut self, call: &str) -> u64 {
        self.try_start_call(call).unwrap()
    }

    /// Start a hook call given as any bytes; a call the engine refuses is its [`CallError`].
    pub fn try_start_call(&mut self, bytes: impl AsRef<[u8]>) -> Result<u64, CallError> {
        let now = self.host.now();
        let e: &mut Engine = std::borrow::BorrowMut::borrow_mut(&mut self.runner);
        e.observe_now(now);
        let step = e.start_json(bytes)?;
        let steps: Vec<Step> = std::iter::once(step).chain(e.take_woken()).collect();
        Ok(self.launch(|_| steps))
    }
}

/// Drive `call` to its result, answering each request with `answer` (a test that scripts
/// its host request by request).
#[allow(dead_code)]
pub fn drive_with(engine: &mut Engine, call: &str, answer: impl FnMut(&Request) -> Reply) -> Value {
    let mut d = Driver::new(engine, Script(answer));
    let op = d.start_call(call);
    d.run_until_done(op)
}

/// Drive `call` to its result against `host` (its clock moves with the timers).
pub fn drive(engine: &mut Engine, call: &str, host: &mut TestHost) -> Value {
    let mut d = Driver::new(engine, host);
    let op = d.start_call(call);
    d.run_until_done(op)
}

/// Run an operation of the runtime (`make` gets its `Io`) to its end against `host`.
pub fn run<T, F, Fut>(host: &mut TestHost, make: F) -> T
where
    T: 'static,
    F: FnOnce(Io) -> Fut,
    Fut: Future<Output = T> + 'static,
{
    run_on(host, make)
}

/// Run an operation of the runtime to its end, answering each request with `answer`.
pub fn run_with<T, F, Fut>(answer: impl FnMut(&Request) -> Reply, make: F) -> T
where
    T: 'static,
    F: FnOnce(Io) -> Fut,
    Fut: Future<Output = T> + 'static,
{
    run_on(Script(answer), make)
}

fn run_on<H: Host, T, F, Fut>(host: H, make: F) -> T
where
    T: 'static,
    F: FnOnce(Io) -> Fut,
    Fut: Future<Output = T> + 'static,
{
    let slot: Rc<RefCell<Option<T>>> = Rc::default();
    let out = slot.clone();
    let mut d = Driver::new(Routed::default(), host);
    let op = d.start(move |io| {
        let fut = make(io);
        async move {
            *out.borrow_mut() = Some(fut.await);
            Value::Null
        }
    });
    d.run_until_done(op);
    let v = slot.borrow_mut().take();
    v.expect("the operation finished")
}

//! The one driver: runs an engine's hook call, or an operation of the runtime, to its end,
//! each request answered by the [`TestHost`] (or a closure) now or on the virtual clock.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use serde_json::Value;

use crate::engine::Engine;
use crate::protocol::Request;
use crate::runtime::{Io, Ops, Outgoing, Step};

use super::TestHost;

/// A host's answer to one request.
pub enum Reply {
    /// Given at once.
    Now(Value),
    /// A timer: given only when the operation waits on nothing else (the earliest first; the
    /// virtual clock moves to it).
    #[allow(dead_code)] // for hosts answered by a closure (drive_with)
    Later(Value),
    /// After `ms` on the virtual clock (a timer, as [`Reply::Later`]).
    After(f64, Value),
    /// Never (a request the host leaves unanswered).
    Never,
}

/// Run the steps of one or more operations to the end: `resume` hands a reply back and
/// returns the next step; timers fire in due order when nothing else is pending.
fn run_steps(
    first: Step,
    mut answer: impl FnMut(&Request) -> Reply,
    mut resume: impl FnMut(u64, u64, Value) -> Option<Step>,
    mut clock: impl FnMut(Option<f64>) -> f64,
    mut order: impl FnMut(&mut Vec<(u64, Outgoing)>),
    mut cancelled: impl FnMut(&[u64]),
) -> Value {
    let mut queue: Vec<(u64, Outgoing)> = Vec::new();
    // (due, sequence, op, id, reply)
    let mut timers: Vec<(f64, u64, u64, u64, Value)> = Vec::new();
    let mut seq = 0u64;
    // a step's cancelled requests are dropped (their timers too) and told to the host
    // (op, id) of every cancelled request: one still in the batch being answered is skipped
    let mut gone: Vec<(u64, u64)> = Vec::new();
    let mut take = |step: Step,
                    queue: &mut Vec<(u64, Outgoing)>,
                    timers: &mut Vec<(f64, u64, u64, u64, Value)>,
                    gone: &mut Vec<(u64, u64)>| {
        let (op, cancel) = match &step {
            Step::Done { op, cancel, .. } | Step::Pending { op, cancel, .. } => (*op, cancel),
        };
        if !cancel.is_empty() {
            queue.retain(|(o, r)| *o != op || !cancel.contains(&r.id));
            timers.retain(|t| t.2 != op || !cancel.contains(&t.3));
            gone.extend(cancel.iter().map(|id| (op, *id)));
            cancelled(cancel);
        }
        match step {
            Step::Done { result, .. } => Some(result),
            Step::Pending { op, requests, .. } => {
                queue.extend(requests.into_iter().map(|r| (op, r)));
                None
            }
        }
    };
    if let Some(r) = take(first, &mut queue, &mut timers, &mut gone) {
        return r;
    }
    loop {
        if queue.is_empty() {
            // nothing answers at once: the earliest timer (the latest set first among equals)
            let i = (0..timers.len())
                .min_by(|&a, &b| {
                    timers[a]
                        .0
                        .total_cmp(&timers[b].0)
                        .then(timers[b].1.cmp(&timers[a].1))
                })
                .expect("stuck: the operation waits on nothing");
            let (due, _, op, id, reply) = timers.swap_remove(i);
            clock(Some(due));
            if let Some(step) = resume(op, id, reply) {
                if let Some(r) = take(step, &mut queue, &mut timers, &mut gone) {
                    return r;
                }
            }
            continue;
        }
        let mut batch = std::mem::take(&mut queue);
        order(&mut batch);
        for (op, r) in batch {
            if gone.contains(&(op, r.id)) {
                continue;
            }
            let now = clock(None);
            let reply = match answer(&r.req) {
                Reply::Now(v) => v,
                Reply::Later(v) => {
                    seq += 1;
                    timers.push((f64::INFINITY, seq, op, r.id, v));
                    continue;
                }
                Reply::After(ms, v) => {
                    seq += 1;
                    timers.push((now + ms, seq, op, r.id, v));
                    continue;
                }
                Reply::Never => continue,
            };
            if let Some(step) = resume(op, r.id, reply) {
                if let Some(res) = take(step, &mut queue, &mut timers, &mut gone) {
                    return res;
                }
            }
        }
    }
}

/// Drive `call` to its result, answering each request with `answer` (a test that scripts
/// its host request by request).
#[allow(dead_code)]
pub fn drive_with(engine: &mut Engine, call: &str, answer: impl FnMut(&Request) -> Reply) -> Value {
    let step = engine.start_json(call).unwrap();
    let engine = RefCell::new(engine);
    run_steps(
        step,
        answer,
        |op, id, reply| engine.borrow_mut().resume(op, id, reply),
        |_| 0.0,
        |_| {},
        |_| {},
    )
}

/// Drive `call` to its result against `host` (its clock moves with the timers).
pub fn drive(engine: &mut Engine, call: &str, host: &mut TestHost) -> Value {
    engine.observe_now(host.now);
    let step = engine.start_json(call).unwrap();
    let host = RefCell::new(host);
    let engine = RefCell::new(engine);
    run_steps(
        step,
        |req| host.borrow_mut().answer(req),
        |op, id, reply| engine.borrow_mut().resume(op, id, reply),
        |due| clock(&host, due),
        |batch| host.borrow_mut().order(batch),
        |ids| host.borrow_mut().cancelled.extend_from_slice(ids),
    )
}

fn clock(host: &RefCell<&mut TestHost>, due: Option<f64>) -> f64 {
    let mut h = host.borrow_mut();
    if let Some(t) = due.filter(|t| t.is_finite() && *t > h.now) {
        h.now = t;
    }
    h.now
}

/// Run an operation of the runtime (`make` gets its `Io`) to its end against `host`.
pub fn run<T, F, Fut>(host: &mut TestHost, make: F) -> T
where
    T: 'static,
    F: FnOnce(Io) -> Fut,
    Fut: Future<Output = T> + 'static,
{
    let slot: Rc<RefCell<Option<T>>> = Rc::default();
    let out = slot.clone();
    let ops = RefCell::new(Ops::default());
    let step = ops.borrow_mut().start(move |io| {
        let fut = make(io);
        async move {
            *out.borrow_mut() = Some(fut.await);
            Value::Null
        }
    });
    let host = RefCell::new(host);
    run_steps(
        step,
        |req| host.borrow_mut().answer(req),
        |op, id, reply| ops.borrow_mut().resume(op, id, reply),
        |due| clock(&host, due),
        |batch| host.borrow_mut().order(batch),
        |ids| host.borrow_mut().cancelled.extend_from_slice(ids),
    );
    let v = slot.borrow_mut().take();
    v.expect("the operation finished")
}

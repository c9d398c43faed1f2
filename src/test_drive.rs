//! One engine driver for the tests' scripted hosts: runs a hook call to its result, each
//! request answered by the host's closure, now or later.

use serde_json::Value;

use crate::engine::Engine;
use crate::protocol::Request;
use crate::runtime::Step;

/// A scripted host's answer to one request.
pub(crate) enum Reply {
    /// Given at once.
    Now(Value),
    /// A timer: given only when the operation waits on nothing else (the last one first).
    Later(Value),
}

/// Drive `call` to its result, answering each request with `answer`.
pub(crate) fn drive(
    engine: &mut Engine,
    call: &str,
    mut answer: impl FnMut(&Request) -> Reply,
) -> Value {
    let mut step = engine.start_json(call).unwrap();
    let mut timers = Vec::new();
    loop {
        match step {
            Step::Done { result, .. } => return result,
            Step::Pending { op, requests, .. } => {
                let mut next = None;
                for r in requests {
                    match answer(&r.req) {
                        Reply::Now(reply) => next = engine.resume(op, r.id, reply).or(next),
                        Reply::Later(reply) => timers.push((op, r.id, reply)),
                    }
                }
                step = match next {
                    Some(s) => s,
                    None => {
                        let (op, id, reply) = timers.pop().expect("stuck with nothing pending");
                        engine.resume(op, id, reply).unwrap()
                    }
                };
            }
        }
    }
}

//! The request loop. The core does no I/O: an operation (one hook call) is an `async` block
//! that awaits [`Io::request`]s. The engine polls it; every request it registers goes out to
//! the host in one batch; the host carries them out (concurrently) and hands each reply back
//! with [`Ops::resume`], which polls the operation again. When the operation finishes, the
//! requests still in flight (for example a lookup dropped at its deadline) are listed for the
//! host to cancel.
//!
//! There is no executor and no waker: an operation only makes progress when the host hands a
//! reply back, so polling it then is always enough.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use serde_json::Value;

use crate::protocol::Request;

#[derive(Default)]
struct IoState {
    new_requests: Vec<(u64, Request)>,
    replies: HashMap<u64, Value>,
    in_flight: HashSet<u64>,
    /// Requests whose futures were dropped unanswered: the host should cancel them.
    dropped: Vec<u64>,
}

/// The operation's handle on the outside world. Cheap to clone.
#[derive(Clone)]
pub struct Io {
    state: Rc<RefCell<IoState>>,
    ids: Rc<std::cell::Cell<u64>>,
}

impl Io {
    fn new(ids: Rc<std::cell::Cell<u64>>) -> Io {
        Io {
            state: Rc::default(),
            ids,
        }
    }

    /// Ask the host to carry out `req`; resolves with the host's reply.
    /// The request goes out when this future is first polled; dropping it unfinished cancels it.
    pub fn request(&self, req: Request) -> Reply {
        Reply {
            io: self.clone(),
            req: Some(req),
            id: 0,
            done: false,
        }
    }

    /// Resolves after `ms` milliseconds of host time.
    pub fn sleep(&self, ms: u64) -> Reply {
        self.request(Request::Sleep { ms })
    }
}

pub struct Reply {
    io: Io,
    req: Option<Request>,
    id: u64,
    done: bool,
}

impl Future for Reply {
    type Output = Value;
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Value> {
        if let Some(req) = self.req.take() {
            let id = self.io.ids.get() + 1;
            self.io.ids.set(id);
            self.id = id;
            let mut st = self.io.state.borrow_mut();
            st.in_flight.insert(id);
            st.new_requests.push((id, req));
            return Poll::Pending;
        }
        let reply = self.io.state.borrow_mut().replies.remove(&self.id);
        match reply {
            Some(v) => {
                self.done = true;
                Poll::Ready(v)
            }
            None => Poll::Pending,
        }
    }
}

impl Drop for Reply {
    fn drop(&mut self) {
        if self.id != 0 && !self.done {
            // Abandoned (a deadline passed): the host is told to cancel it; a late reply is ignored.
            let mut st = self.io.state.borrow_mut();
            st.replies.remove(&self.id);
            if st.in_flight.remove(&self.id) {
                st.dropped.push(self.id);
            }
        }
    }
}

type OpFuture = Pin<Box<dyn Future<Output = Value>>>;

struct Op {
    fut: OpFuture,
    io: Io,
}

/// What the host gets back from a start or a resume.
#[derive(Debug, serde::Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub enum Step {
    /// The operation needs these requests carried out; each reply goes back with its id.
    Pending {
        op: u64,
        requests: Vec<Outgoing>,
        cancel: Vec<u64>,
    },
    /// The operation finished; `cancel` lists requests of it that are still in flight.
    Done {
        op: u64,
        result: Value,
        cancel: Vec<u64>,
    },
}

#[derive(Debug, serde::Serialize, PartialEq)]
pub struct Outgoing {
    pub id: u64,
    #[serde(flatten)]
    pub req: Request,
}

/// The operations in flight. Several hooks may be in flight at once (parallel tool calls).
#[derive(Default)]
pub struct Ops {
    ops: HashMap<u64, Op>,
    next_op: u64,
    ids: Rc<std::cell::Cell<u64>>,
    /// While set, [`Ops::start`] does not start an operation: it builds the future on this
    /// [`Io`] and keeps it here ([`Ops::capture`]).
    captured: Option<(Io, Vec<OpFuture>)>,
}

impl Ops {
    /// Start an operation. `make` gets the operation's [`Io`].
    pub fn start<F, Fut>(&mut self, make: F) -> Step
    where
        F: FnOnce(Io) -> Fut,
        Fut: Future<Output = Value> + 'static,
    {
        if let Some((io, futs)) = &mut self.captured {
            futs.push(Box::pin(make(io.clone())));
            // nobody reads it: [`Ops::capture`] starts the one operation
            return Step::Done {
                op: 0,
                result: Value::Null,
                cancel: Vec::new(),
            };
        }
        self.next_op += 1;
        let op_id = self.next_op;
        let io = Io::new(self.ids.clone());
        let fut: OpFuture = Box::pin(make(io.clone()));
        self.ops.insert(op_id, Op { fut, io });
        self.poll(op_id)
    }

    /// Several calls as ONE operation: after `begin_capture`, [`Ops::start`] does not start
    /// an operation but builds it on one shared [`Io`]; `end_capture` starts them as one
    /// operation that runs them one after another and hands their results, in order, to
    /// `then`. A host adapter answering one host event with several of the engine's hook calls
    /// uses it (`src/command_hook`). Captures do not nest.
    pub fn begin_capture(&mut self) {
        let io = Io::new(self.ids.clone());
        self.captured = Some((io, Vec::new()));
    }

    /// See [`Ops::begin_capture`].
    pub fn end_capture<T>(&mut self, then: T) -> Step
    where
        T: FnOnce(Vec<Value>) -> Value + 'static,
    {
        let (io, futs) = self.captured.take().expect("begin_capture came first");
        self.next_op += 1;
        let op_id = self.next_op;
        let fut: OpFuture = Box::pin(async move {
            let mut out = Vec::with_capacity(futs.len());
            for f in futs {
                out.push(f.await);
            }
            then(out)
        });
        self.ops.insert(op_id, Op { fut, io });
        self.poll(op_id)
    }

    /// Hand back the reply to request `id` of operation `op`.
    /// Replies to finished operations or unknown requests are ignored (a late answer).
    pub fn resume(&mut self, op: u64, id: u64, reply: Value) -> Option<Step> {
        self.resume_many(op, vec![(id, reply)])
    }

    /// Hand back several replies of one operation at once (one crossing, one poll): the host
    /// delivers together whatever finished together.
    pub fn resume_many(&mut self, op: u64, replies: Vec<(u64, Value)>) -> Option<Step> {
        let entry = self.ops.get(&op)?;
        let mut any = false;
        {
            let mut st = entry.io.state.borrow_mut();
            for (id, reply) in replies {
                if st.in_flight.remove(&id) {
                    st.replies.insert(id, reply);
                    any = true;
                }
            }
        }
        if any {
            Some(self.poll(op))
        } else {
            None
        }
    }

    /// How many operations are waiting on the host.
    pub fn in_flight(&self) -> usize {
        self.ops.len()
    }

    /// Abandon an operation (the host gave up on it). Returns its requests still in flight.
    pub fn abandon(&mut self, op: u64) -> Vec<u64> {
        match self.ops.remove(&op) {
            Some(o) => {
                let mut v: Vec<u64> = o.io.state.borrow().in_flight.iter().copied().collect();
                crate::sort::sort(&mut v);
                v
            }
            None => Vec::new(),
        }
    }

    fn poll(&mut self, op_id: u64) -> Step {
        let op = self.ops.get_mut(&op_id).expect("polled operation exists");
        let mut cx = Context::from_waker(Waker::noop());
        match op.fut.as_mut().poll(&mut cx) {
            Poll::Ready(result) => {
                let op = self.ops.remove(&op_id).expect("operation exists");
                let mut st = op.io.state.borrow_mut();
                let mut cancel: Vec<u64> = st.in_flight.iter().copied().collect();
                cancel.append(&mut st.dropped);
                crate::sort::sort(&mut cancel);
                Step::Done {
                    op: op_id,
                    result,
                    cancel,
                }
            }
            Poll::Pending => {
                let mut st = op.io.state.borrow_mut();
                let requests: Vec<Outgoing> = st
                    .new_requests
                    .drain(..)
                    .map(|(id, req)| Outgoing { id, req })
                    .collect();
                let cancel = std::mem::take(&mut st.dropped);
                Step::Pending {
                    op: op_id,
                    requests,
                    cancel,
                }
            }
        }
    }
}

/// Poll every future to completion, concurrently; outputs in input order.
pub async fn join_all<F: Future>(futs: Vec<F>) -> Vec<F::Output> {
    let mut futs: Vec<Pin<Box<F>>> = futs.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = futs.iter().map(|_| None).collect();
    std::future::poll_fn(move |cx| {
        let mut pending = false;
        for (i, f) in futs.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => out[i] = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(
                out.iter_mut()
                    .map(|o| o.take().expect("all done"))
                    .collect(),
            )
        }
    })
    .await
}

/// Run the futures concurrently until all finish or `deadline_ms` passes; an unfinished one
/// gives `None` and is dropped (its requests are cancelled).
pub async fn join_until<F: Future>(
    io: &Io,
    deadline_ms: u64,
    futs: Vec<F>,
) -> Vec<Option<F::Output>> {
    let mut futs: Vec<Option<Pin<Box<F>>>> = futs.into_iter().map(|f| Some(Box::pin(f))).collect();
    let mut out: Vec<Option<F::Output>> = futs.iter().map(|_| None).collect();
    let mut timer = Box::pin(io.sleep(deadline_ms));
    std::future::poll_fn(move |cx| {
        let mut pending = false;
        for (i, slot) in futs.iter_mut().enumerate() {
            if let Some(f) = slot {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => {
                        out[i] = Some(v);
                        *slot = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending && timer.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        for slot in futs.iter_mut() {
            *slot = None; // drop what did not finish
        }
        Poll::Ready(std::mem::take(&mut out))
    })
    .await
}

/// `fut`, or `None` when `ms` pass first.
pub async fn timeout<F: Future>(io: &Io, ms: u64, fut: F) -> Option<F::Output> {
    join_until(io, ms, vec![fut]).await.pop().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spawn(n: &str) -> Request {
        Request::Spawn {
            argv: vec![n.to_string()],
            timeout_ms: 1000,
            max_bytes: 100,
        }
    }

    fn pending(step: &Step) -> Vec<u64> {
        match step {
            Step::Pending { requests, .. } => requests.iter().map(|r| r.id).collect(),
            Step::Done { .. } => panic!("expected pending, got {step:?}"),
        }
    }

    #[test]
    fn parallel_requests_go_out_in_one_batch_and_finish_in_any_order() {
        let mut ops = Ops::default();
        let step = ops.start(|io| async move {
            let r = join_all(vec![io.request(spawn("a")), io.request(spawn("b"))]).await;
            json!(r)
        });
        assert_eq!(pending(&step), vec![1, 2]);
        assert_eq!(
            pending(&ops.resume(1, 2, json!("B")).unwrap()),
            Vec::<u64>::new()
        );
        match ops.resume(1, 1, json!("A")).unwrap() {
            Step::Done { result, cancel, .. } => {
                assert_eq!(result, json!(["A", "B"]));
                assert!(cancel.is_empty());
            }
            s => panic!("{s:?}"),
        }
        assert_eq!(ops.in_flight(), 0);
        assert!(
            ops.resume(1, 1, json!("late")).is_none(),
            "a late reply is ignored"
        );
    }

    #[test]
    fn captured_starts_run_one_after_another_as_one_operation() {
        let mut ops = Ops::default();
        ops.begin_capture();
        ops.start(|io| async move { io.request(spawn("a")).await });
        ops.start(|io| async move { io.request(spawn("b")).await });
        let step = ops.end_capture(|v| json!({ "all": v }));
        // one operation; the second call starts only when the first is done
        let op = match &step {
            Step::Pending { op, requests, .. } => {
                assert_eq!(requests.len(), 1);
                *op
            }
            s => panic!("{s:?}"),
        };
        let id = pending(&step)[0];
        let next = ops.resume(op, id, json!("A")).unwrap();
        let id2 = pending(&next)[0];
        assert_ne!(id, id2);
        match ops.resume(op, id2, json!("B")).unwrap() {
            Step::Done { result, .. } => assert_eq!(result, json!({"all": ["A", "B"]})),
            s => panic!("{s:?}"),
        }
        assert_eq!(ops.in_flight(), 0);
        // starting works as before afterwards
        assert!(matches!(ops.start(|_| async { json!(1) }), Step::Done { op, .. } if op > 0));
    }

    #[test]
    fn deadline_drops_slow_work_and_lists_it_for_cancel() {
        let mut ops = Ops::default();
        let step = ops.start(|io| async move {
            let r = join_until(
                &io,
                50,
                vec![io.request(spawn("fast")), io.request(spawn("slow"))],
            )
            .await;
            json!(r)
        });
        // timer is registered after the two spawns
        assert_eq!(pending(&step), vec![1, 2, 3]);
        ops.resume(1, 1, json!("fast")).unwrap();
        match ops.resume(1, 3, json!({})).unwrap() {
            Step::Done { result, cancel, .. } => {
                assert_eq!(result, json!(["fast", null]));
                assert_eq!(cancel, vec![2]);
            }
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn sequential_stages_and_concurrent_operations() {
        let mut ops = Ops::default();
        let a = ops.start(|io| async move {
            let x = io.request(spawn("first")).await;
            let y = io.request(spawn(x.as_str().unwrap())).await;
            y
        });
        let b = ops.start(|io| async move { io.request(spawn("other")).await });
        assert_eq!(pending(&a), vec![1]);
        assert_eq!(pending(&b), vec![2]);
        assert_eq!(
            pending(&ops.resume(1, 1, json!("second")).unwrap()),
            vec![3]
        );
        assert!(matches!(
            ops.resume(2, 2, json!("b")),
            Some(Step::Done { op: 2, .. })
        ));
        assert!(matches!(
            ops.resume(1, 3, json!("y")),
            Some(Step::Done { op: 1, .. })
        ));
        assert!(ops.resume(1, 99, json!(null)).is_none());
    }

    #[test]
    fn an_operation_with_no_io_finishes_at_once() {
        let mut ops = Ops::default();
        assert!(
            matches!(ops.start(|_| async { json!(1) }), Step::Done { cancel, .. } if cancel.is_empty())
        );
    }
}

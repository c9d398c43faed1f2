//! A discrete-event host for native tests: virtual time, a scripted `maenifold --mcp` that
//! speaks the protocol as docs/maenifold-cli.md describes it (handshake, exact snake_case names,
//! isError results, start-up latency, per-answer latency), a scripted CLI, and the router in
//! the loop exactly as the engine would use it. It checks host-side invariants on every step:
//! the host never sees `McpAwait`, and every cancel names a request the host was given.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{json, Value};

use super::router::Router;
use super::session::{McpHandle, McpSetup};
use super::McpOptions;
use crate::knowledge::Source;
use crate::protocol::Request;
use crate::runtime::{Io, Ops, Step};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Handshake {
    #[default]
    Normal,
    /// Never answers `initialize`.
    Silent,
    /// Prints usage text instead of JSON-RPC.
    Garbage,
    /// Prints usage and exits 0 (a maenifold that does not know `--mcp`).
    UsageAndExit,
    /// Answers `initialize` with a JSON-RPC error.
    Refuse,
}

/// One fake server process.
#[derive(Debug, Clone, Default)]
pub struct Fake {
    pub startup_ms: u64,
    pub answer_ms: u64,
    pub handshake: Handshake,
    /// concept → BuildContext JSON text (unknown concepts: no knowledge).
    pub graph: HashMap<String, String>,
    /// concept → extra latency.
    pub slow: HashMap<String, u64>,
    /// concepts never answered.
    pub hang: HashSet<String>,
    /// Answers nothing at all once ready (a hung process).
    pub hang_all: bool,
    /// concepts answered with `isError`.
    pub tool_error: HashSet<String>,
    /// Exits (closes stdout) 5 ms after being asked about these.
    pub crash_on: HashSet<String>,
    /// Writes a logging notification and a garbage line before each answer.
    pub noisy: bool,
    // state
    started_at: u64,
    initialized: bool,
    pub received: Vec<String>,
    pub violations: Vec<String>,
    pub max_in_flight: usize,
    in_flight: usize,
}

pub enum Out {
    Emit { at: u64, bytes: Vec<u8> },
    Exit { at: u64, info: Value },
}

const SUPPORTED: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

impl Fake {
    fn line(v: Value) -> Vec<u8> {
        let mut b = v.to_string().into_bytes();
        b.push(b'\n');
        b
    }

    fn on_input(&mut self, now: u64, line: &str) -> Vec<Out> {
        let ready_at = self.started_at + self.startup_ms;
        let at = now.max(ready_at);
        let Ok(m) = serde_json::from_str::<Value>(line) else {
            self.violations.push(format!("not JSON: {line}"));
            return vec![];
        };
        let method = m["method"].as_str().unwrap_or("").to_string();
        self.received.push(method.clone());
        let id = m["id"].clone();
        match method.as_str() {
            "initialize" => match self.handshake {
                Handshake::Normal => {
                    let asked = m["params"]["protocolVersion"].as_str().unwrap_or("");
                    let v = if SUPPORTED.contains(&asked) {
                        asked
                    } else {
                        "2025-11-25"
                    };
                    vec![Out::Emit {
                        at,
                        bytes: Fake::line(json!({"jsonrpc": "2.0", "id": id, "result": {
                            "protocolVersion": v,
                            "capabilities": {"tools": {"listChanged": true}, "logging": {}},
                            "serverInfo": {"name": "maenifold", "version": "1.0.3.0"}}})),
                    }]
                }
                Handshake::Silent => vec![],
                Handshake::Garbage => (0..10)
                    .map(|i| Out::Emit {
                        at: at + i,
                        bytes: format!("Usage: maenifold --tool <Name> --payload <json> ({i})\n")
                            .into_bytes(),
                    })
                    .collect(),
                Handshake::UsageAndExit => vec![
                    Out::Emit {
                        at,
                        bytes: b"Usage: maenifold --tool <Name> --payload <json>\n".to_vec(),
                    },
                    Out::Exit {
                        at: at + 1,
                        info: json!({"code": 0}),
                    },
                ],
                Handshake::Refuse => vec![Out::Emit {
                    at,
                    bytes: Fake::line(
                        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "unsupported"}}),
                    ),
                }],
            },
            "notifications/initialized" => {
                self.initialized = true;
                vec![]
            }
            "ping" if self.hang_all => vec![],
            "ping" => vec![Out::Emit {
                at: at + 1,
                bytes: Fake::line(json!({"jsonrpc": "2.0", "id": id, "result": {}})),
            }],
            "tools/call" => {
                if !self.initialized {
                    self.violations
                        .push("tools/call before notifications/initialized".into());
                }
                self.in_flight += 1;
                self.max_in_flight = self.max_in_flight.max(self.in_flight);
                let name = m["params"]["name"].as_str().unwrap_or("");
                let args = &m["params"]["arguments"];
                let mut out = Vec::new();
                if self.hang_all {
                    return out;
                }
                if name != "build_context" && name != "search_memories" {
                    out.push(Out::Emit {
                        at: at + 1,
                        bytes: Fake::line(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": format!("Unknown tool: '{name}'")}})),
                    });
                    return out;
                }
                if name == "search_memories" {
                    let q = args["query"].as_str().unwrap_or("");
                    out.push(Out::Emit {
                        at: at + self.answer_ms,
                        bytes: Fake::line(json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": format!("🔍 **Hybrid Search** (combining text + semantic similarity)\nFound 0 matches for {q}")}]}})),
                    });
                    return out;
                }
                let c = args["conceptName"].as_str().unwrap_or("").to_string();
                let when = at + self.answer_ms + self.slow.get(&c).copied().unwrap_or(0);
                if self.crash_on.contains(&c) {
                    out.push(Out::Exit {
                        at: now + 5,
                        info: json!({"code": 134, "stderr": "Unhandled exception. System.InvalidOperationException\n"}),
                    });
                    return out;
                }
                if self.hang.contains(&c) {
                    return out;
                }
                if self.noisy {
                    out.push(Out::Emit {
                        at: when,
                        bytes: b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"sync\"}}\nwarn: watcher restarted\n".to_vec(),
                    });
                }
                let result = if self.tool_error.contains(&c) {
                    json!({"content": [{"type": "text", "text": "An error occurred invoking 'build_context': database is locked"}], "isError": true})
                } else {
                    let text = self.graph.get(&c).cloned().unwrap_or_else(|| {
                        json!({"conceptName": c, "depth": args["depth"], "directRelations": [], "expandedRelations": []}).to_string()
                    });
                    json!({"content": [{"type": "text", "text": text}]})
                };
                out.push(Out::Emit {
                    at: when,
                    bytes: Fake::line(json!({"jsonrpc": "2.0", "id": id, "result": result})),
                });
                out
            }
            other => {
                self.violations.push(format!("unexpected method {other}"));
                vec![]
            }
        }
    }

    fn answered(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }
}

#[derive(Debug)]
enum Ev {
    Reply { op: u64, id: u64, value: Value },
    Feed { session: u64, bytes: Vec<u8> },
    Closed { session: u64, info: Value },
}

pub struct Sim {
    pub ops: Ops,
    pub router: Router,
    pub h: McpHandle,
    pub now: u64,
    queue: BTreeMap<(u64, u64), Ev>,
    seq: u64,
    /// Makes the fake for the n-th process (0-based); `None`: the spawn fails.
    pub make: Box<dyn Fn(usize) -> Option<Fake>>,
    pub procs: HashMap<u64, Fake>,
    /// Finished processes, kept for inspection.
    pub ended: Vec<Fake>,
    pub starts: Vec<u64>,
    pub stops: Vec<u64>,
    pub writes: Vec<(u64, String)>,
    pub cli_calls: Vec<Vec<String>>,
    pub cli_ms: u64,
    pub cli_text: HashMap<String, String>,
    /// Feed stdout in chunks of this many bytes (0: as written).
    pub chunk: usize,
    pub results: HashMap<u64, Value>,
    pub done_at: HashMap<u64, u64>,
    issued: HashSet<(u64, u64)>,
    answered: HashSet<(u64, u64)>,
    cancelled: HashSet<(u64, u64)>,
}

pub fn cli_source() -> Source {
    Source::Cli {
        path: "/bin/maenifold".into(),
        timeout_ms: 5000,
        max_bytes: 1 << 20,
    }
}

impl Sim {
    pub fn new(options: McpOptions, make: impl Fn(usize) -> Option<Fake> + 'static) -> Sim {
        let h = McpHandle::new(McpSetup {
            cli_path: Some("/bin/maenifold".into()),
            env: BTreeMap::new(),
            options,
            source: "maenifold:/bin/maenifold".into(),
        });
        Sim {
            ops: Ops::default(),
            router: Router::new(h.clone()),
            h,
            now: 0,
            queue: BTreeMap::new(),
            seq: 0,
            make: Box::new(make),
            procs: HashMap::new(),
            ended: Vec::new(),
            starts: Vec::new(),
            stops: Vec::new(),
            writes: Vec::new(),
            cli_calls: Vec::new(),
            cli_ms: 1800,
            cli_text: HashMap::new(),
            chunk: 0,
            results: HashMap::new(),
            done_at: HashMap::new(),
            issued: HashSet::new(),
            answered: HashSet::new(),
            cancelled: HashSet::new(),
        }
    }

    fn at(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        self.queue.insert((at, self.seq), ev);
    }

    /// Start an operation; returns its id (it may already be done).
    pub fn start<F, Fut>(&mut self, make: F) -> u64
    where
        F: FnOnce(Io) -> Fut,
        Fut: std::future::Future<Output = Value> + 'static,
    {
        self.h.observe_now(self.now);
        let step = self.ops.start(make);
        let op = match &step {
            Step::Pending { op, .. } | Step::Done { op, .. } => *op,
        };
        let steps = self.router.route(&mut self.ops, step);
        self.handle(steps);
        op
    }

    fn handle(&mut self, steps: Vec<Step>) {
        for s in steps {
            match s {
                Step::Pending {
                    op,
                    requests,
                    cancel,
                } => {
                    for id in cancel {
                        assert!(
                            self.issued.contains(&(op, id)),
                            "cancel of a request the host never saw: {op}/{id}"
                        );
                        self.cancelled.insert((op, id));
                    }
                    for r in requests {
                        self.issued.insert((op, r.id));
                        self.request(op, r.id, r.req);
                    }
                }
                Step::Done { op, result, cancel } => {
                    for id in cancel {
                        assert!(
                            self.issued.contains(&(op, id)),
                            "cancel of a request the host never saw: {op}/{id}"
                        );
                        self.cancelled.insert((op, id));
                    }
                    self.results.insert(op, result);
                    self.done_at.insert(op, self.now);
                }
            }
        }
    }

    fn request(&mut self, op: u64, id: u64, req: Request) {
        let now = self.now;
        match req {
            Request::Sleep { ms } => self.at(
                now + ms,
                Ev::Reply {
                    op,
                    id,
                    value: json!({}),
                },
            ),
            Request::McpStart { session, argv, .. } => {
                assert_eq!(argv[1], "--mcp");
                let n = self.starts.len();
                self.starts.push(session);
                match (self.make)(n) {
                    Some(mut f) => {
                        f.started_at = now;
                        self.procs.insert(session, f);
                        self.at(
                            now + 1,
                            Ev::Reply {
                                op,
                                id,
                                value: json!({"ok": true, "pid": 1000 + session}),
                            },
                        );
                    }
                    None => self.at(
                        now + 1,
                        Ev::Reply {
                            op,
                            id,
                            value: json!({"ok": false, "error": "spawn /bin/maenifold ENOENT"}),
                        },
                    ),
                }
            }
            Request::McpWrite { session, text } => {
                assert!(text.ends_with('\n'), "whole lines only");
                self.writes.push((session, text.clone()));
                let Some(p) = self.procs.get_mut(&session) else {
                    self.at(
                        now,
                        Ev::Reply {
                            op,
                            id,
                            value: json!({"ok": false, "error": "write EPIPE"}),
                        },
                    );
                    return;
                };
                let mut outs = Vec::new();
                for l in text.lines() {
                    outs.extend(p.on_input(now, l));
                }
                for o in outs {
                    match o {
                        Out::Emit { at, bytes } => self.at(at, Ev::Feed { session, bytes }),
                        Out::Exit { at, info } => self.at(at, Ev::Closed { session, info }),
                    }
                }
                self.at(
                    now,
                    Ev::Reply {
                        op,
                        id,
                        value: json!({"ok": true}),
                    },
                );
            }
            Request::McpStop { session, .. } => {
                self.stops.push(session);
                if let Some(p) = self.procs.remove(&session) {
                    self.ended.push(p);
                    self.at(
                        now + 1,
                        Ev::Closed {
                            session,
                            info: json!({"signal": "SIGTERM"}),
                        },
                    );
                }
                self.at(
                    now,
                    Ev::Reply {
                        op,
                        id,
                        value: json!({}),
                    },
                );
            }
            Request::Spawn { argv, .. } => {
                let payload: Value = serde_json::from_str(&argv[4]).unwrap();
                let c = payload["conceptName"].as_str().unwrap_or("").to_string();
                let out = self.cli_text.get(&c).cloned().unwrap_or_else(|| {
                    format!("Context for CONCEPT: {c}\n\nDirect relations (0 CONCEPTS):\n")
                });
                self.cli_calls.push(argv);
                let ms = self.cli_ms;
                self.at(
                    now + ms,
                    Ev::Reply {
                        op,
                        id,
                        value: json!({"success": true, "stdout": out, "exitCode": 0}),
                    },
                );
            }
            other => panic!("the host was asked for {other:?}"),
        }
    }

    /// Process the next event; false when none is left.
    pub fn step(&mut self) -> bool {
        let Some((&(at, seq), _)) = self.queue.iter().next() else {
            return false;
        };
        let ev = self.queue.remove(&(at, seq)).expect("exists");
        self.now = self.now.max(at);
        self.h.observe_now(self.now);
        match ev {
            Ev::Reply { op, id, value } => {
                if self.cancelled.contains(&(op, id)) || self.results.contains_key(&op) {
                    return true;
                }
                self.answered.insert((op, id));
                let steps = self.router.resume(&mut self.ops, op, id, value);
                self.handle(steps);
            }
            Ev::Feed { session, mut bytes } => {
                if !self.procs.contains_key(&session) {
                    return true; // killed: its output never comes
                }
                // Merge everything this process writes at the same instant.
                let same: Vec<(u64, u64)> = self
                    .queue
                    .iter()
                    .filter(|((t, _), e)| {
                        *t == at && matches!(e, Ev::Feed { session: s, .. } if *s == session)
                    })
                    .map(|(k, _)| *k)
                    .collect();
                for k in same {
                    if let Some(Ev::Feed { bytes: more, .. }) = self.queue.remove(&k) {
                        bytes.extend(more);
                    }
                }
                let answers = bytes
                    .windows(8)
                    .filter(|w| w == b"\"result\"" || w == b"\"error\":")
                    .count();
                if let Some(p) = self.procs.get_mut(&session) {
                    for _ in 0..answers {
                        p.answered();
                    }
                }
                let size = if self.chunk == 0 {
                    bytes.len().max(1)
                } else {
                    self.chunk
                };
                for c in bytes.chunks(size) {
                    let steps = self.router.feed(&mut self.ops, session, c);
                    self.handle(steps);
                }
            }
            Ev::Closed { session, info } => {
                if let Some(p) = self.procs.remove(&session) {
                    self.ended.push(p);
                }
                let steps = self.router.closed(&mut self.ops, session, &info);
                self.handle(steps);
            }
        }
        true
    }

    pub fn run_until_done(&mut self, op: u64) -> Value {
        let mut guard = 0;
        while !self.results.contains_key(&op) {
            assert!(
                self.step(),
                "operation {op} is stuck with nothing left to happen"
            );
            guard += 1;
            assert!(guard < 100_000, "runaway");
        }
        self.results[&op].clone()
    }

    /// Let everything still scheduled happen (late answers, exits).
    pub fn drain(&mut self) {
        let mut guard = 0;
        while self.step() {
            guard += 1;
            assert!(guard < 100_000, "runaway");
        }
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

#[cfg(test)]
#[path = "sim_tests.rs"]
mod tests;

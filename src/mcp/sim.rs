//! A discrete-event host for native tests: virtual time, a scripted `maenifold --mcp` that
//! speaks the protocol as the facts page describes it (handshake, exact snake_case names,
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
mod tests {
    use super::*;
    use crate::knowledge::ContextQuery;
    use crate::maenifold::BuildContext;
    use crate::mcp::session::{build_context, call_tool, shutdown, tool_text, warm_up};
    use crate::mcp::{Touch, Transport};
    use crate::protocol::Level;
    use crate::runtime::join_until;

    const Q: ContextQuery = ContextQuery {
        depth: 1,
        max_entities: 5,
        include_content: true,
    };

    fn auth_json() -> String {
        json!({"conceptName": "auth", "depth": 1, "directRelations": [
            {"name": "jwt", "coOccurrenceCount": 2, "files": ["memory://notes/auth-design"],
             "contentPreview": {"memory://notes/auth-design": "Tokens are RS256-signed • rotation every 24 h — café."},
             "decayWeight": 1.0, "weightedScore": 2.0, "communityId": 3}],
            "expandedRelations": []}).to_string()
    }

    const AUTH_TEXT: &str = "Context for CONCEPT: auth\n\nDirect relations (1 CONCEPTS):\n  • jwt (co-occurs in 2 files) [community 3]\n    Files: memory://notes/auth-design\n    Content preview:\n      memory://notes/auth-design: Tokens are RS256-signed • rotation every 24 h — café.\n";

    fn normal() -> Fake {
        let mut f = Fake {
            startup_ms: 1800,
            answer_ms: 20,
            ..Fake::default()
        };
        f.graph.insert("auth".into(), auth_json());
        for c in ["api", "db", "ui", "x"] {
            f.graph.insert(
                c.into(),
                json!({"conceptName": c, "depth": 1, "directRelations": [{"name": format!("{c}-rel"), "coOccurrenceCount": 1, "files": [format!("memory://notes/{c}")]}]}).to_string(),
            );
        }
        f
    }

    fn opts(transport: Transport) -> McpOptions {
        McpOptions {
            transport,
            start_timeout_ms: 5000,
            request_timeout_ms: 1000,
            ..McpOptions::default()
        }
    }

    fn sim(transport: Transport, make: impl Fn(usize) -> Option<Fake> + 'static) -> Sim {
        let mut s = Sim::new(opts(transport), make);
        s.cli_text.insert("auth".into(), AUTH_TEXT.into());
        s
    }

    /// A tool call's lookups: all concepts concurrently under one deadline (as the engine does).
    fn lookup(s: &mut Sim, concepts: &[&str], deadline_ms: u64) -> u64 {
        let h = s.h.clone();
        let concepts: Vec<String> = concepts.iter().map(|c| c.to_string()).collect();
        s.start(move |io| async move {
            let cli = cli_source();
            let futs = concepts
                .iter()
                .map(|c| build_context(&io, &h, Some(&cli), c, Q))
                .collect();
            let answers = join_until(&io, deadline_ms, futs).await;
            json!(answers
                .into_iter()
                .map(|a| match a {
                    Some(Ok(b)) => json!({"ok": b.to_text()}),
                    Some(Err(e)) => json!({"err": e}),
                    None => json!({"late": true}),
                })
                .collect::<Vec<_>>())
        })
    }

    fn ok_text(v: &Value, i: usize) -> String {
        v[i]["ok"]
            .as_str()
            .unwrap_or_else(|| panic!("lookup {i} failed: {v}"))
            .to_string()
    }

    fn tool_calls(s: &Sim) -> usize {
        s.writes
            .iter()
            .map(|(_, t)| t.matches("\"tools/call\"").count())
            .sum()
    }

    fn warnings(s: &Sim) -> Vec<String> {
        s.h.take_logs()
            .into_iter()
            .filter(|l| l.level == Level::Warn)
            .map(|l| l.message)
            .collect()
    }

    #[test]
    fn warm_session_starts_once_multiplexes_and_meets_the_speed_targets() {
        let mut s = sim(Transport::Auto, |_| Some(normal()));
        assert!(
            s.starts.is_empty(),
            "lazy: nothing starts before the first need"
        );
        // (b)/(a) cold: session start with three concepts
        let t0 = s.now;
        let op = lookup(&mut s, &["auth", "api", "db"], 5000);
        let r = s.run_until_done(op);
        let cold = s.done_at[&op] - t0;
        assert_eq!(
            ok_text(&r, 0),
            BuildContext::parse(AUTH_TEXT).unwrap().to_text(),
            "same value as the CLI form"
        );
        assert!(
            cold <= 2000,
            "cold session start took {cold} ms (target ≤ 2000)"
        );
        assert!(s.cli_calls.is_empty());
        // the three calls were in flight together
        assert_eq!(s.procs[&1].max_in_flight, 3);
        // (a) warm: a 3-concept tool call
        let t1 = s.now;
        let op = lookup(&mut s, &["ui", "x", "nothing"], 5000);
        let r = s.run_until_done(op);
        let warm = s.done_at[&op] - t1;
        assert!(warm <= 50, "warm tool call took {warm} ms (target ≤ 50)");
        assert!(
            ok_text(&r, 2).contains("Direct relations (0 CONCEPTS)"),
            "no knowledge is an answer"
        );
        // (c) the same tool call again: cache hits, no I/O at all
        let writes = s.writes.len();
        let op = lookup(&mut s, &["ui", "x", "nothing"], 5000);
        assert!(
            s.results.contains_key(&op),
            "answered without any host round trip"
        );
        assert_eq!(s.writes.len(), writes);
        // seed design figure for comparison: 3 sequential CLI spawns
        let seed = 3 * s.cli_ms;
        eprintln!(
            "virtual ms, 3 concepts: seed (sequential CLI) {seed}, parallel CLI {}, cold MCP session {cold}, warm {warm}, cache hit 0",
            s.cli_ms
        );
        assert!(
            seed >= 10 * warm.max(1),
            "≥ 10× faster than the seed design on the warm path"
        );
        assert_eq!(s.starts, vec![1], "one process start for the whole session");
        let fake = &s.procs[&1];
        assert_eq!(
            fake.received[..2],
            [
                "initialize".to_string(),
                "notifications/initialized".to_string()
            ]
        );
        assert!(fake.violations.is_empty(), "{:?}", fake.violations);
        // idle costs nothing: no timer or request left running
        s.drain();
        assert_eq!(s.outstanding(), vec![]);
        let st = s.h.status();
        assert_eq!((st.in_flight, st.buffered_bytes), (0, 0));
        assert_eq!(s.router.parked(), 0);
        assert_eq!(st.cache.hits, 3);
        assert_eq!(
            s.ops.in_flight(),
            0,
            "no background operation polls while idle"
        );
    }

    #[test]
    fn operations_arriving_during_start_share_the_one_process() {
        let mut s = sim(Transport::Auto, |_| Some(normal()));
        let a = lookup(&mut s, &["auth"], 5000);
        let b = lookup(&mut s, &["api"], 5000);
        s.step(); // McpStart replied
        let c = lookup(&mut s, &["db"], 5000);
        for op in [a, b, c] {
            let r = s.run_until_done(op);
            assert!(r[0]["ok"].is_string(), "{r}");
        }
        assert_eq!(s.starts.len(), 1);
        assert_eq!(tool_calls(&s), 3);
        s.drain();
        assert_eq!(s.outstanding(), vec![]);
    }

    #[test]
    fn out_of_order_answers_in_odd_chunks_reach_the_right_lookups() {
        let mut s = sim(Transport::Auto, |_| {
            let mut f = normal();
            f.slow.insert("auth".into(), 30);
            f.slow.insert("api".into(), 10);
            f.noisy = true;
            Some(f)
        });
        s.chunk = 7; // cuts lines and multi-byte characters, merges lines
        let op = lookup(&mut s, &["auth", "api", "db"], 5000);
        let r = s.run_until_done(op);
        assert!(ok_text(&r, 0).contains("café"), "{r}");
        assert!(ok_text(&r, 1).contains("api-rel"));
        assert!(ok_text(&r, 2).contains("db-rel"));
        let st = s.h.status();
        assert!(st.garbage_lines >= 3, "noise was skipped and counted");
        let w = warnings(&s);
        assert_eq!(
            w.len(),
            1,
            "one warning per session, not per garbage line: {w:?}"
        );
    }

    #[test]
    fn a_server_that_never_answers_the_handshake_falls_back_to_the_cli_once() {
        let mut s = sim(Transport::Auto, |_| {
            Some(Fake {
                handshake: Handshake::Silent,
                ..normal()
            })
        });
        // the tool call's own deadline is shorter than the start timeout: it proceeds empty
        let op = lookup(&mut s, &["auth"], 3000);
        let r = s.run_until_done(op);
        assert_eq!(r[0]["late"], true);
        // the next lookup waits out the rest of the start budget, then the CLI answers
        let op = lookup(&mut s, &["auth"], 10_000);
        let r = s.run_until_done(op);
        assert_eq!(
            ok_text(&r, 0),
            BuildContext::parse(AUTH_TEXT).unwrap().to_text()
        );
        assert_eq!(s.stops, vec![1], "the silent process is stopped");
        let w = warnings(&s);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("handshake") && w[0].contains("CLI"));
        // from now on: the CLI directly, no new process, no new warning
        let op = lookup(&mut s, &["api"], 10_000);
        s.run_until_done(op);
        assert_eq!(s.starts.len(), 1);
        assert!(warnings(&s).is_empty());
        s.drain();
        assert_eq!(s.outstanding(), vec![]);
    }

    #[test]
    fn servers_that_do_not_speak_mcp_are_recognised_without_waiting() {
        for hs in [
            Handshake::Garbage,
            Handshake::UsageAndExit,
            Handshake::Refuse,
        ] {
            let mut s = sim(Transport::Auto, move |_| {
                Some(Fake {
                    handshake: hs,
                    ..normal()
                })
            });
            let op = lookup(&mut s, &["auth"], 10_000);
            let r = s.run_until_done(op);
            assert!(r[0]["ok"].is_string(), "{hs:?}: {r}");
            assert!(
                s.done_at[&op] < 1800 + 100 + s.cli_ms,
                "{hs:?}: no start timeout wait ({} ms)",
                s.done_at[&op]
            );
            assert_eq!(s.cli_calls.len(), 1, "{hs:?}");
            assert_eq!(warnings(&s).len(), 1, "{hs:?}");
            s.drain();
            assert_eq!(s.outstanding(), vec![], "{hs:?}");
        }
    }

    #[test]
    fn a_crash_mid_request_resolves_everything_and_the_next_lookup_gets_a_new_session() {
        let mut s = sim(Transport::Auto, |n| {
            let mut f = normal();
            if n == 0 {
                f.crash_on.insert("boom".into());
            }
            Some(f)
        });
        let op = lookup(&mut s, &["boom", "auth"], 5000);
        let r = s.run_until_done(op);
        assert!(
            r[0]["ok"].is_string() && r[1]["ok"].is_string(),
            "fail open via the CLI: {r}"
        );
        let w = warnings(&s);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("exit code 134") && w[0].contains("InvalidOperationException"),
            "{w:?}"
        );
        let op = lookup(&mut s, &["api"], 5000);
        let r = s.run_until_done(op);
        assert!(ok_text(&r, 0).contains("api-rel"));
        assert_eq!(s.starts, vec![1, 2], "replaced");
        assert_eq!(
            s.cli_calls.len(),
            2,
            "only the two crashed lookups used the CLI"
        );
        s.drain();
        assert_eq!(s.outstanding(), vec![]);
    }

    #[test]
    fn a_hung_server_is_stopped_and_replaced() {
        let mut s = sim(Transport::Auto, |n| {
            Some(Fake {
                hang_all: n == 0,
                ..normal()
            })
        });
        let op = lookup(&mut s, &["auth"], 10_000);
        let r = s.run_until_done(op);
        assert!(
            r[0]["ok"].is_string(),
            "the CLI answered after the MCP timeout: {r}"
        );
        assert_eq!(s.stops, vec![1]);
        let w = warnings(&s);
        assert!(w.len() == 1 && w[0].contains("hung"), "{w:?}");
        let op = lookup(&mut s, &["api"], 5000);
        let r = s.run_until_done(op);
        assert!(ok_text(&r, 0).contains("api-rel"));
        assert_eq!(s.starts, vec![1, 2]);
        s.drain();
        assert_eq!(s.outstanding(), vec![]);
    }

    #[test]
    fn one_slow_request_fails_alone_while_the_others_are_answered() {
        let mut s = sim(Transport::Mcp, |_| {
            let mut f = normal();
            f.slow.insert("slow".into(), 10_000);
            Some(f)
        });
        let op = lookup(&mut s, &["slow", "auth", "api"], 5000);
        let r = s.run_until_done(op);
        assert!(
            r[0]["err"]
                .as_str()
                .unwrap()
                .contains("no MCP answer within 1000 ms"),
            "{r}"
        );
        assert!(r[1]["ok"].is_string() && r[2]["ok"].is_string());
        assert!(s.stops.is_empty(), "the session answers others: kept");
        assert!(warnings(&s).is_empty());
        s.drain(); // the late answer arrives: an unknown id, ignored
        assert_eq!(s.h.status().unknown_ids, 1);
        // the failure was not cached as "no knowledge"; the session is reused
        let op = lookup(&mut s, &["slow"], 20_000);
        s.run_until_done(op);
        assert_eq!(s.starts.len(), 1);
        assert_eq!(tool_calls(&s), 4, "asked again, not served from the cache");
        // alone and silent: a ping tells it is alive, so it is not killed
        assert!(s.stops.is_empty());
        assert!(s.procs[&1].received.contains(&"ping".to_string()));
        s.drain();
        assert_eq!(s.outstanding(), vec![]);
    }

    #[test]
    fn is_error_is_an_answer_not_a_fault() {
        let mut s = sim(Transport::Auto, |_| {
            let mut f = normal();
            f.tool_error.insert("locked".into());
            Some(f)
        });
        let op = lookup(&mut s, &["locked", "auth"], 5000);
        let r = s.run_until_done(op);
        assert!(
            r[0]["err"].as_str().unwrap().contains("database is locked"),
            "{r}"
        );
        assert!(r[1]["ok"].is_string());
        assert!(
            s.cli_calls.is_empty(),
            "a tool error would fail the same way on the CLI"
        );
        assert!(s.stops.is_empty() && warnings(&s).is_empty());
        let op = lookup(&mut s, &["locked"], 5000);
        s.run_until_done(op);
        assert_eq!(tool_calls(&s), 3, "errors are not cached");
    }

    #[test]
    fn exact_tool_names_and_other_tools() {
        let mut s = sim(Transport::Mcp, |_| Some(normal()));
        let h = s.h.clone();
        let op = s.start(move |io| async move {
            let wrong = call_tool(&io, &h, "BuildContext", &json!({"conceptName": "auth"})).await;
            let search = tool_text(
                &io,
                &h,
                None,
                "SearchMemories",
                &json!({"query": "auth"}),
                false,
            )
            .await;
            json!({"wrong": wrong.unwrap_err().to_string(), "search": search.unwrap()})
        });
        let r = s.run_until_done(op);
        assert!(
            r["wrong"]
                .as_str()
                .unwrap()
                .contains("Unknown tool: 'BuildContext'"),
            "{r}"
        );
        assert!(r["search"]
            .as_str()
            .unwrap()
            .starts_with("🔍 **Hybrid Search**"));
        let last = s.writes.last().unwrap().1.clone();
        assert!(
            last.contains("\"name\":\"search_memories\"") && last.contains("\"query\":\"auth\""),
            "{last}"
        );
    }

    #[test]
    fn transport_cli_never_starts_a_process() {
        let mut s = sim(Transport::Cli, |_| panic!("no process in cli mode"));
        let op = lookup(&mut s, &["auth", "api"], 5000);
        let r = s.run_until_done(op);
        assert_eq!(
            ok_text(&r, 0),
            BuildContext::parse(AUTH_TEXT).unwrap().to_text()
        );
        assert_eq!(s.cli_calls.len(), 2);
        assert!(s.starts.is_empty());
        let op = lookup(&mut s, &["auth"], 5000);
        s.run_until_done(op);
        assert_eq!(s.cli_calls.len(), 2, "the cache serves CLI answers too");
    }

    #[test]
    fn spawn_failure_auto_uses_the_cli_and_says_so_once() {
        let mut s = sim(Transport::Auto, |_| None);
        for _ in 0..3 {
            let op = lookup(&mut s, &["auth"], 5000);
            let r = s.run_until_done(op);
            assert!(r[0]["ok"].is_string());
            s.h.clear_cache();
        }
        assert_eq!(s.starts.len(), 1);
        let w = warnings(&s);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].contains("could not be started") && w[0].contains("ENOENT"),
            "{w:?}"
        );
    }

    #[test]
    fn mcp_only_fails_open_and_restarts_are_bounded() {
        let mut s = sim(Transport::Mcp, |_| None);
        for i in 0..8 {
            let op = lookup(&mut s, &["auth"], 5000);
            let r = s.run_until_done(op);
            assert!(r[0]["err"].is_string(), "no CLI in mcp mode: {r}");
            s.now += 5000 * (i + 1); // time passes between tool calls
        }
        assert!(s.cli_calls.is_empty());
        assert_eq!(s.starts.len(), 4, "1 start + 3 restarts, then off");
        let w = warnings(&s);
        assert!(
            w.last().unwrap().contains("knowledge context is off"),
            "{w:?}"
        );
    }

    #[test]
    fn repeated_crashes_end_in_the_cli_fallback() {
        let mut s = sim(Transport::Auto, |_| {
            let mut f = normal();
            f.crash_on.insert("auth".into());
            Some(f)
        });
        for _ in 0..6 {
            let op = lookup(&mut s, &["auth"], 20_000);
            let r = s.run_until_done(op);
            assert!(r[0]["ok"].is_string());
            s.h.clear_cache();
            s.now += 3000; // past each backoff
        }
        assert_eq!(s.starts.len(), 4);
        let w = warnings(&s);
        assert_eq!(w.len(), 4, "one per incident: {w:?}");
        assert!(w[3].contains("CLI per call"));
        s.drain();
        assert_eq!(s.outstanding(), vec![]);
    }

    #[test]
    fn warm_up_and_shutdown() {
        let mut s = sim(Transport::Auto, |_| Some(normal()));
        let h = s.h.clone();
        let op = s.start(move |io| async move { warm_up(&io, &h).await });
        let r = s.run_until_done(op);
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["status"]["stage"], "ready");
        assert_eq!(
            s.procs[&1].received,
            vec!["initialize", "notifications/initialized"]
        );
        let h = s.h.clone();
        let op = s.start(move |io| async move {
            shutdown(&io, &h).await;
            json!(null)
        });
        s.run_until_done(op);
        assert_eq!(s.stops, vec![1]);
        // after dispose nothing starts again; lookups fall back
        let op = lookup(&mut s, &["auth"], 5000);
        assert!(s.run_until_done(op)[0]["ok"].is_string());
        assert_eq!(s.starts.len(), 1);
    }

    #[test]
    fn an_abandoned_operation_leaves_nothing_parked() {
        let mut s = sim(Transport::Auto, |_| {
            Some(Fake {
                handshake: Handshake::Silent,
                ..normal()
            })
        });
        let op = lookup(&mut s, &["auth"], 60_000);
        while s.router.parked() == 0 {
            assert!(s.step());
        }
        let (cancel, woken) = s.router.abandon(&mut s.ops, op);
        assert!(woken.is_empty());
        assert_eq!(s.router.parked(), 0);
        assert!(!cancel.is_empty(), "its timers are cancelled");
        for id in cancel {
            assert!(s.issued.contains(&(op, id)), "only host-visible ids");
        }
    }

    #[test]
    fn a_vault_change_invalidates_what_it_touches() {
        let mut s = sim(Transport::Auto, |_| Some(normal()));
        let op = lookup(&mut s, &["auth", "api"], 5000);
        s.run_until_done(op);
        let n = s.h.invalidate(&Touch {
            source: None,
            concepts: vec![],
            uris: vec!["memory://notes/auth-design".into()],
        });
        assert_eq!(n, 1);
        let op = lookup(&mut s, &["auth", "api"], 5000);
        s.run_until_done(op);
        assert_eq!(tool_calls(&s), 3, "auth asked again, api from the cache");
    }

    #[test]
    fn a_start_abandoned_by_its_deadline_does_not_count_as_a_failure() {
        let mut s = sim(Transport::Auto, |_| Some(normal()));
        // the deadline passes while McpStart is in flight (1 ms)
        let op = lookup(&mut s, &["auth"], 0);
        let r = s.run_until_done(op);
        assert_eq!(r[0]["late"], true);
        assert!(warnings(&s).is_empty());
        let op = lookup(&mut s, &["auth"], 5000);
        let r = s.run_until_done(op);
        assert!(r[0]["ok"].is_string());
        assert!(s.cli_calls.is_empty(), "MCP still on");
        assert_eq!(s.starts.len(), 2);
        assert_eq!(s.stops, vec![1], "the abandoned process was stopped");
    }
}

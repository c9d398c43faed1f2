//! The test host's MCP peer: a scripted `maenifold --mcp` server speaking JSON-RPC as
//! docs/maenifold-cli.md describes it (handshake and its failures, exact snake_case tool
//! names, `isError` results, start-up and per-answer latency, hangs, crashes, noisy output),
//! counting the requests in flight and what it saw that breaks the protocol. [`Peers`] are the
//! servers a [`TestHost`](super::TestHost) runs: it answers `McpStart`/`McpWrite`/`McpStop`
//! with them, and what a server prints or its exit reaches the core through the driver as
//! events on the virtual clock ([`Output`]).

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::drive::Reply;

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
    // state, kept by the server as it runs
    pub started_at: u64,
    pub initialized: bool,
    pub received: Vec<String>,
    pub violations: Vec<String>,
    pub max_in_flight: usize,
    pub in_flight: usize,
}

/// What a server does after reading a line, at a time on the virtual clock (ms).
enum Out {
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

/// Something a server did that reaches the core as an event: `mcp_feed` / `mcp_closed`.
#[derive(Debug)]
pub enum Output {
    /// Stdout bytes.
    Data { session: u64, bytes: Vec<u8> },
    /// The process exited (`{code?, signal?, stderr?}`).
    Exit { session: u64, info: Value },
}

/// The MCP servers a test host runs (see the module's docs).
pub struct Peers {
    /// Makes the server for the n-th start (0-based); `None`: the start fails (ENOENT).
    pub make: Box<dyn FnMut(usize) -> Option<Fake>>,
    /// Running servers by session.
    pub running: HashMap<u64, Fake>,
    /// Servers that exited or were stopped, kept for inspection.
    pub ended: Vec<Fake>,
    /// The session of every `McpStart`, `McpStop`, and every `McpWrite` with its text.
    pub starts: Vec<u64>,
    pub stops: Vec<u64>,
    pub writes: Vec<(u64, String)>,
    /// Stdout reaches the core in chunks of this many bytes (0: as written).
    pub chunk: usize,
    /// Output not yet handed to the driver: (due, what).
    out: Vec<(f64, Output)>,
    /// The test plays the server itself: every start succeeds at once (as `js/mcp.cjs`
    /// answers it), writes are only recorded, and the test feeds the engine what the server
    /// prints ([`Peers::played`]).
    played: bool,
}

impl Peers {
    pub fn new(make: impl FnMut(usize) -> Option<Fake> + 'static) -> Peers {
        Peers {
            make: Box::new(make),
            running: HashMap::new(),
            ended: Vec::new(),
            starts: Vec::new(),
            stops: Vec::new(),
            writes: Vec::new(),
            chunk: 0,
            out: Vec::new(),
            played: false,
        }
    }

    /// Peers the test plays the server of (see `played`): `starts` and `writes` say what
    /// the core started and wrote.
    pub fn played() -> Peers {
        Peers {
            played: true,
            ..Peers::new(|_| None)
        }
    }

    /// What the core wrote to the sessions, in order.
    pub fn written(&self) -> String {
        self.writes.iter().map(|w| w.1.as_str()).collect()
    }

    /// `McpStart` at `now`: the reply 1 ms later.
    pub(super) fn start(&mut self, now: f64, session: u64, argv: &[String]) -> Reply {
        if self.played {
            self.starts.push(session);
            return Reply::Now(json!({"ok": true, "pid": 4242}));
        }
        assert_eq!(argv[1], "--mcp");
        let n = self.starts.len();
        self.starts.push(session);
        let reply = match (self.make)(n) {
            Some(mut f) => {
                f.started_at = now as u64;
                self.running.insert(session, f);
                json!({"ok": true, "pid": 1000 + session})
            }
            None => json!({"ok": false, "error": "spawn /bin/maenifold ENOENT"}),
        };
        Reply::After(1.0, reply)
    }

    /// `McpWrite` at `now`: the server reads the lines; what it prints comes later.
    pub(super) fn write(&mut self, now: f64, session: u64, text: &str) -> Reply {
        if self.played {
            self.writes.push((session, text.to_string()));
            return Reply::Now(json!({"ok": true, "nowMs": now}));
        }
        assert!(text.ends_with('\n'), "whole lines only");
        self.writes.push((session, text.to_string()));
        let Some(p) = self.running.get_mut(&session) else {
            return Reply::After(0.0, json!({"ok": false, "error": "write EPIPE"}));
        };
        let mut outs = Vec::new();
        for l in text.lines() {
            outs.extend(p.on_input(now as u64, l));
        }
        for o in outs {
            self.out.push(match o {
                Out::Emit { at, bytes } => (at as f64, Output::Data { session, bytes }),
                Out::Exit { at, info } => (at as f64, Output::Exit { session, info }),
            });
        }
        Reply::After(0.0, json!({"ok": true}))
    }

    /// `McpStop` at `now`: a running server is killed and exits 1 ms later.
    pub(super) fn stop(&mut self, now: f64, session: u64) -> Reply {
        if self.played {
            self.stops.push(session);
            return Reply::Now(json!({}));
        }
        self.stops.push(session);
        if let Some(p) = self.running.remove(&session) {
            self.ended.push(p);
            let info = json!({"signal": "SIGTERM"});
            self.out.push((now + 1.0, Output::Exit { session, info }));
        }
        Reply::After(0.0, json!({}))
    }

    /// What the servers did since last asked, each at its time.
    pub(super) fn take_output(&mut self) -> Vec<(f64, Output)> {
        std::mem::take(&mut self.out)
    }

    /// Stdout `bytes` of `session` reaching the core, in the pipe's chunks; none once the
    /// process was killed.
    pub(super) fn stdout(&mut self, session: u64, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        let Some(p) = self.running.get_mut(&session) else {
            return Vec::new();
        };
        let answers = bytes
            .windows(8)
            .filter(|w| w == b"\"result\"" || w == b"\"error\":")
            .count();
        for _ in 0..answers {
            p.answered();
        }
        let size = if self.chunk == 0 {
            bytes.len().max(1)
        } else {
            self.chunk
        };
        bytes.chunks(size).map(<[u8]>::to_vec).collect()
    }

    /// The process of `session` exited.
    pub(super) fn exited(&mut self, session: u64) {
        if let Some(p) = self.running.remove(&session) {
            self.ended.push(p);
        }
    }

    /// Whether `session`'s process still runs (its output reaches the core).
    pub(super) fn runs(&self, session: u64) -> bool {
        self.running.contains_key(&session)
    }
}

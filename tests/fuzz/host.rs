//! A scripted host for the engine: an in-memory file system with symlinks that answers every
//! request the core may send (as the JS host would), a virtual clock, and a driver that runs
//! a hook call to its result with a bound on the requests it may take (a hang is a failure,
//! found by counting, not by timing).

use std::collections::{BTreeMap, VecDeque};

use hookwise::engine::Engine;
use hookwise::governance::ranges::sha256_hex;
use hookwise::protocol::Request;
use hookwise::runtime::Step;
use serde_json::{json, Value};

/// Requests one hook call may take before the driver calls it a hang.
pub const MAX_REQUESTS: usize = 50_000;

#[derive(Default, Clone)]
pub struct Fs {
    pub files: BTreeMap<String, String>,
    /// Symlinks: absolute path → absolute target.
    pub links: BTreeMap<String, String>,
    /// `McpStart` succeeds (the session then waits for output fed by the test).
    pub mcp_runs: bool,
}

impl Fs {
    pub fn file(&mut self, path: &str, text: &str) {
        self.files.insert(path.to_string(), text.to_string());
    }

    fn is_dir(&self, p: &str) -> bool {
        if p == "/" {
            return true;
        }
        let prefix = format!("{p}/");
        self.files
            .range(prefix.clone()..)
            .next()
            .is_some_and(|(k, _)| k.starts_with(&prefix))
            || self
                .links
                .range(prefix.clone()..)
                .next()
                .is_some_and(|(k, _)| k.starts_with(&prefix))
    }

    fn exists(&self, p: &str) -> bool {
        self.files.contains_key(p) || self.is_dir(p)
    }

    /// realpath(3): symlinks and `..` resolved; `None` when the path does not exist.
    pub fn realpath(&self, path: &str) -> Option<String> {
        if !path.starts_with('/') {
            return None;
        }
        let mut done: Vec<String> = Vec::new();
        let mut todo: Vec<String> = path
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .rev()
            .map(str::to_string)
            .collect();
        let mut hops = 0;
        while let Some(c) = todo.pop() {
            if c == ".." {
                done.pop();
                continue;
            }
            done.push(c);
            let cur = format!("/{}", done.join("/"));
            if let Some(t) = self.links.get(&cur) {
                hops += 1;
                if hops > 40 {
                    return None;
                }
                done.clear();
                todo.extend(
                    t.split('/')
                        .filter(|c| !c.is_empty())
                        .rev()
                        .map(str::to_string),
                );
                continue;
            }
            if !self.exists(&cur) {
                return None;
            }
        }
        Some(format!("/{}", done.join("/")))
    }

    fn read(&self, path: &str, max: u64) -> Value {
        match self.realpath(path).and_then(|r| self.files.get(&r)) {
            Some(t) if t.len() as u64 > max => json!({"error": "too-large"}),
            Some(t) => json!({ "text": t, "size": t.len(), "mtimeMs": 1.0 }),
            None if self.realpath(path).is_some() => json!({"error": "other", "detail": "EISDIR"}),
            None => json!({"error": "not-found"}),
        }
    }

    fn list(&self, path: &str, recursive: bool) -> Value {
        let prefix = format!("{}/", path.trim_end_matches('/'));
        let mut entries: Vec<Value> = Vec::new();
        let mut dirs: Vec<String> = Vec::new();
        for (p, t) in self.files.range(prefix.clone()..) {
            let Some(rel) = p.strip_prefix(&prefix) else {
                break;
            };
            if !recursive && rel.contains('/') {
                let d = rel.split('/').next().unwrap_or("").to_string();
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
                continue;
            }
            entries.push(
                json!({"path": rel, "isFile": true, "isDir": false, "isSymlink": false,
                                "size": t.len(), "mtimeMs": 1.0}),
            );
        }
        for d in dirs {
            entries.push(
                json!({"path": d, "isFile": false, "isDir": true, "isSymlink": false,
                                "size": 0, "mtimeMs": 1.0}),
            );
        }
        if entries.is_empty() && !self.is_dir(path.trim_end_matches('/')) {
            return json!({"entries": [], "truncated": false, "error": "not-found"});
        }
        json!({"entries": entries, "truncated": false})
    }

    /// The reply to `req` (`None`: a timer, answered when nothing else is left).
    pub fn answer(&mut self, req: &Request, now_ms: f64) -> Option<Value> {
        Some(match req {
            Request::Sleep { .. } => return None,
            Request::Now => json!({ "ms": now_ms }),
            Request::Stat { path } => match self.realpath(path) {
                Some(real) => {
                    let t = self.files.get(&real);
                    json!({"exists": true, "realpath": real, "isFile": t.is_some(),
                           "isDir": t.is_none(), "size": t.map_or(0, |t| t.len()), "mtimeMs": 1.0,
                           "executable": real.starts_with("/bin/")})
                }
                None => json!({"exists": false, "error": "not-found"}),
            },
            Request::ReadFile { path, max_bytes } => self.read(path, *max_bytes),
            Request::ReadFiles {
                dir,
                paths,
                max_bytes,
            } => {
                let files: Vec<Value> = paths
                    .iter()
                    .map(|p| self.read(&format!("{dir}{p}"), *max_bytes))
                    .collect();
                json!({ "files": files })
            }
            Request::ReadTail { path, max_bytes } => {
                match self.realpath(path).and_then(|r| self.files.get(&r)) {
                    Some(t) => {
                        let n = *max_bytes as usize;
                        if t.len() <= n {
                            json!({ "text": t })
                        } else {
                            let mut start = t.len() - n;
                            while !t.is_char_boundary(start) {
                                start += 1;
                            }
                            let tail = &t[start..];
                            let tail = tail.find('\n').map_or("", |i| &tail[i + 1..]);
                            json!({ "text": tail })
                        }
                    }
                    None => json!({"error": "not-found"}),
                }
            }
            Request::ListDir {
                path, recursive, ..
            } => self.list(path, *recursive),
            Request::WriteFile { path, text } => {
                self.files.insert(path.clone(), text.clone());
                json!({"ok": true})
            }
            Request::CreateFile { path, text } => {
                if self.exists(path) {
                    json!({"ok": false, "error": "exists"})
                } else {
                    self.files.insert(path.clone(), text.clone());
                    json!({"ok": true})
                }
            }
            Request::AppendLine { path, line } => {
                let f = self.files.entry(path.clone()).or_default();
                f.push_str(line);
                f.push('\n');
                json!({"ok": true})
            }
            Request::AppendChained {
                path,
                before,
                after,
                ..
            } => {
                let cur = self.files.get(path).cloned().unwrap_or_default();
                let body = cur.strip_suffix('\n').unwrap_or(&cur);
                let last = body.rsplit('\n').next().unwrap_or("");
                let prefix = if cur.is_empty() || cur.ends_with('\n') {
                    ""
                } else {
                    "\n"
                };
                let prev = sha256_hex(last.as_bytes());
                self.files.insert(
                    path.clone(),
                    format!("{cur}{prefix}{before}{prev}{after}\n"),
                );
                json!({"ok": true, "prevHash": prev})
            }
            Request::Spawn { .. } => json!({"success": false, "stdout": "", "stderr": "",
                "exitCode": null, "timedOut": false, "durationMs": 1.0,
                "error": "spawn ENOENT"}),
            Request::SessionMessages { .. } => json!({"messages": []}),
            Request::McpStart { .. } if self.mcp_runs => json!({"ok": true, "pid": 4242}),
            Request::McpStart { .. } => json!({"ok": false, "error": "spawn ENOENT"}),
            Request::McpWrite { .. } if self.mcp_runs => json!({"ok": true}),
            Request::McpWrite { .. } => json!({"ok": false, "error": "EPIPE"}),
            Request::McpStop { .. } => json!({}),
            Request::VaultChanges { .. } => json!({"error": "other", "detail": "not watching"}),
            _ => json!({"error": "other", "detail": "unsupported"}),
        })
    }
}

pub struct Host {
    pub engine: Engine,
    pub fs: Fs,
    pub now_ms: f64,
    /// Requests answered in all, for the figures.
    pub requests: usize,
    /// What the core wrote to MCP sessions' stdin.
    pub mcp_written: String,
    /// The MCP sessions the core started.
    pub mcp_sessions: Vec<u64>,
    /// Timers not fired yet (see [`Host::pump`]).
    timers: Vec<(u64, u64)>,
}

impl Host {
    pub fn new(fs: Fs) -> Host {
        Host {
            engine: Engine::new(),
            fs,
            now_ms: 1_700_000_000_000.0,
            requests: 0,
            mcp_written: String::new(),
            mcp_sessions: Vec::new(),
            timers: Vec::new(),
        }
    }

    /// Run a hook call given as bytes to its result. `Err` is the engine's `CallError`
    /// message; a hang (more than [`MAX_REQUESTS`] requests, or waiting on nothing) panics.
    pub fn call(&mut self, bytes: &[u8]) -> Result<Value, String> {
        let step = self
            .engine
            .start_json(bytes)
            .map_err(|e| format!("{}: {}", e.kind, e.message))?;
        Ok(self.drive(step))
    }

    pub fn call_json(&mut self, v: &Value) -> Value {
        let text = v.to_string();
        self.call(text.as_bytes())
            .unwrap_or_else(|e| panic!("{e} for {text}"))
    }

    pub fn drive(&mut self, step: Step) -> Value {
        let own = match &step {
            Step::Done { op, .. } | Step::Pending { op, .. } => *op,
        };
        let mut done = self.pump(vec![step], Some(own), true);
        match done.iter().position(|(op, _)| *op == own) {
            Some(i) => done.swap_remove(i).1,
            None => panic!("the hook call waits on nothing"),
        }
    }

    /// Carry out the requests of `steps` and of every step they lead to until nothing is
    /// left to answer or `stop` is done; with `fire_timers`, timers (this call's and those
    /// kept from earlier calls) fire when nothing else is left, a second of virtual time
    /// each, else they are kept. Returns the results of the operations that finished.
    /// Operations parked on an MCP answer stay parked ([`Engine::mcp_feed`] wakes them).
    pub fn pump(
        &mut self,
        steps: Vec<Step>,
        stop: Option<u64>,
        fire_timers: bool,
    ) -> Vec<(u64, Value)> {
        let mut now: VecDeque<(u64, u64, Request)> = VecDeque::new();
        let mut timers: Vec<(u64, u64)> = std::mem::take(&mut self.timers);
        let mut done: Vec<(u64, Value)> = Vec::new();
        let take = |step: Step,
                    now: &mut VecDeque<(u64, u64, Request)>,
                    timers: &mut Vec<(u64, u64)>,
                    done: &mut Vec<(u64, Value)>| match step {
            Step::Done { op, result, .. } => done.push((op, result)),
            Step::Pending { op, requests, .. } => {
                for r in requests {
                    if matches!(r.req, Request::Sleep { .. }) {
                        timers.push((op, r.id));
                    } else {
                        now.push_back((op, r.id, r.req));
                    }
                }
            }
        };
        for s in steps {
            take(s, &mut now, &mut timers, &mut done);
        }
        let mut answered = 0usize;
        while stop.is_none_or(|op| !done.iter().any(|(o, _)| *o == op)) {
            let (op, id, reply) = if let Some((op, id, req)) = now.pop_front() {
                match &req {
                    Request::McpWrite { text, .. } => self.mcp_written.push_str(text),
                    Request::McpStart { session, .. } => self.mcp_sessions.push(*session),
                    _ => {}
                }
                let reply = self
                    .fs
                    .answer(&req, self.now_ms)
                    .unwrap_or_else(|| json!({}));
                (op, id, reply)
            } else if let Some((op, id)) = timers.pop().filter(|_| fire_timers) {
                self.now_ms += 1000.0;
                (op, id, json!({}))
            } else {
                break;
            };
            answered += 1;
            assert!(
                answered <= MAX_REQUESTS,
                "a hook call took more than {MAX_REQUESTS} requests"
            );
            if let Some(step) = self.engine.resume(op, id, reply) {
                take(step, &mut now, &mut timers, &mut done);
            }
            for s in self.engine.take_woken() {
                take(s, &mut now, &mut timers, &mut done);
            }
        }
        self.requests += answered;
        self.timers = timers;
        done
    }
}

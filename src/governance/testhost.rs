//! A scripted host for tests: an in-memory file system with symlinks that answers the core's
//! requests the way the JS host does (including `AppendChained`'s exact algorithm).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::rc::Rc;

use serde_json::{json, Value};

use crate::protocol::Request;
use crate::runtime::{Io, Ops, Step};

use super::ranges::sha256_hex;

#[derive(Default)]
pub struct FakeFs {
    pub files: BTreeMap<String, String>,
    pub dirs: BTreeSet<String>,
    /// Symlinks: absolute path → absolute target.
    pub links: BTreeMap<String, String>,
    pub mtimes: BTreeMap<String, u64>,
    pub clock: u64,
    pub log: Vec<Request>,
    pub fail_append: bool,
    /// The error a failing append gives (default: EROFS).
    pub fail_with: Option<String>,
    /// When non-zero: answer each batch of requests in a shuffled order (seeded), as a busy
    /// host might.
    pub shuffle_seed: u64,
}

fn parent(p: &str) -> Option<&str> {
    let i = p.rfind('/')?;
    Some(if i == 0 { "/" } else { &p[..i] })
}

/// The newline to write before a line appended to `cur`, and `cur`'s last line (the JS host's
/// rule: a torn last line is closed and chained to).
fn last_line(cur: &str) -> (&'static str, &str) {
    if cur.is_empty() {
        ("", "")
    } else if let Some(body) = cur.strip_suffix('\n') {
        ("", body.rsplit('\n').next().unwrap_or(""))
    } else {
        ("\n", cur.rsplit('\n').next().unwrap_or(""))
    }
}

impl FakeFs {
    pub fn file(&mut self, path: &str, text: &str) {
        self.add_dirs(path);
        self.files.insert(path.to_string(), text.to_string());
        self.clock += 1;
        self.mtimes.insert(path.to_string(), self.clock);
    }

    pub fn dir(&mut self, path: &str) {
        self.add_dirs(&format!("{path}/x"));
    }

    pub fn link(&mut self, path: &str, target: &str) {
        self.add_dirs(path);
        self.links.insert(path.to_string(), target.to_string());
    }

    pub fn read(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }

    fn add_dirs(&mut self, path: &str) {
        let mut p = path;
        while let Some(d) = parent(p) {
            self.dirs.insert(d.to_string());
            if d == "/" {
                break;
            }
            p = d;
        }
    }

    /// Resolve symlinks and `..` like realpath(3); `None` when the path does not exist.
    pub fn realpath(&self, path: &str) -> Option<String> {
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
                for c in t.split('/').filter(|c| !c.is_empty()).rev() {
                    todo.push(c.to_string());
                }
                continue;
            }
            if !self.dirs.contains(&cur) && !self.files.contains_key(&cur) {
                return None;
            }
        }
        Some(format!("/{}", done.join("/")))
    }

    fn handle(&mut self, req: &Request) -> Option<Value> {
        self.log.push(req.clone());
        Some(match req {
            Request::Stat { path } => match self.realpath(path) {
                Some(real) => {
                    let is_file = self.files.contains_key(&real);
                    json!({"exists": true, "realpath": real, "isFile": is_file, "isDir": !is_file,
                           "size": self.files.get(&real).map(|t| t.len()).unwrap_or(0),
                           "mtimeMs": self.mtimes.get(&real).copied().unwrap_or(0) as f64})
                }
                None => json!({"exists": false, "error": "not-found"}),
            },
            Request::ReadFile { path, max_bytes } => {
                match self.realpath(path).and_then(|r| self.files.get(&r)) {
                    Some(t) if t.len() as u64 > *max_bytes => json!({"error": "too-large"}),
                    // as the JS host's bytes arrive: a byte order mark dropped, the size kept
                    Some(t) => {
                        json!({ "text": t.strip_prefix('\u{feff}').unwrap_or(t), "size": t.len() })
                    }
                    None if self.realpath(path).is_some() => {
                        json!({"error": "other", "detail": "EISDIR"})
                    }
                    None => json!({"error": "not-found"}),
                }
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
                            let tail = match tail.find('\n') {
                                Some(i) => &tail[i + 1..],
                                None => "",
                            };
                            json!({ "text": tail })
                        }
                    }
                    None => json!({"error": "not-found"}),
                }
            }
            Request::AppendChained {
                path,
                before,
                after,
                head_path,
                head_parts,
                ..
            } => {
                if self.fail_append {
                    return Some(
                        json!({"ok": false, "error": "other", "detail": self.fail_with.clone().unwrap_or_else(|| "EROFS: read-only file system".into())}),
                    );
                }
                let real = self.realpath(path).unwrap_or_else(|| path.clone());
                let cur = self.files.get(&real).cloned().unwrap_or_default();
                let (prefix, last) = last_line(&cur);
                let prev = sha256_hex(last.as_bytes());
                let line = format!("{before}{prev}{after}");
                let text = format!("{cur}{prefix}{line}\n");
                self.file(&real, &text);
                if head_path.is_empty() {
                    return Some(json!({"ok": true, "prevHash": prev}));
                }
                // the head, as the JS host keeps it
                let p = head_parts;
                let fill = |n: u64, b: usize, h: &str| {
                    format!("{}{n}{}{b}{}{h}{}", p[0], p[1], p[2], p[3])
                };
                let old = self.files.get(head_path).cloned();
                let n = match &old {
                    None => (cur.is_empty()).then_some(0),
                    Some(o) => o
                        .strip_prefix(p[0].as_str())
                        .map(|r| &r[..r.bytes().take_while(u8::is_ascii_digit).count()])
                        .filter(|d| !d.is_empty() && d.len() <= 15)
                        .and_then(|d| d.parse::<u64>().ok())
                        .filter(|&n| *o == fill(n, cur.len(), &prev)),
                };
                let status = match (n, &old) {
                    (Some(n), _) => {
                        let h = fill(n + 1, text.len(), &sha256_hex(line.as_bytes()));
                        self.file(head_path, &h);
                        "written"
                    }
                    (None, None) => "missing",
                    (None, Some(_)) => "mismatch",
                };
                json!({"ok": true, "prevHash": prev, "head": status})
            }
            Request::WriteHead {
                path,
                head_path,
                text,
                expect_bytes,
                expect_last,
                ..
            } => {
                let cur = self.files.get(path).cloned().unwrap_or_default();
                let (_, last) = last_line(&cur);
                if cur.len() as u64 != *expect_bytes || sha256_hex(last.as_bytes()) != *expect_last
                {
                    return Some(json!({"ok": false, "error": "changed"}));
                }
                self.file(head_path, text);
                json!({"ok": true})
            }
            Request::CreateFile { path, text } => {
                if self.realpath(path).is_some() || self.links.contains_key(path) {
                    json!({"ok": false, "error": "exists"})
                } else {
                    self.file(path, text);
                    json!({"ok": true})
                }
            }
            Request::AppendLine { path, line } => {
                let cur = self.files.get(path).cloned().unwrap_or_default();
                self.file(path, &format!("{cur}{line}\n"));
                json!({"ok": true})
            }
            Request::Sleep { .. } => json!({}),
            Request::Spawn { .. } => return None,
            other => panic!("the governance test host does not carry out {other:?}"),
        })
    }

    /// The reply to one request (`None`: the request never answers, e.g. a spawn).
    pub fn answer(&mut self, req: &Request) -> Option<Value> {
        self.handle(req)
    }

    /// Run an operation against this file system to its end.
    pub fn run<T, F, Fut>(&mut self, make: F) -> T
    where
        T: 'static,
        F: FnOnce(Io) -> Fut,
        Fut: Future<Output = T> + 'static,
    {
        let slot: Rc<RefCell<Option<T>>> = Rc::default();
        let out = slot.clone();
        let mut ops = Ops::default();
        let step = ops.start(move |io| {
            let fut = make(io);
            async move {
                *out.borrow_mut() = Some(fut.await);
                Value::Null
            }
        });
        // Every step a reply produces may carry new requests: queue them all.
        let mut queue: Vec<(u64, crate::runtime::Outgoing)> = Vec::new();
        let mut done = false;
        let take = |step: Step, queue: &mut Vec<(u64, crate::runtime::Outgoing)>| match step {
            Step::Done { .. } => true,
            Step::Pending { op, requests, .. } => {
                queue.extend(requests.into_iter().map(|r| (op, r)));
                false
            }
        };
        done |= take(step, &mut queue);
        while !done {
            assert!(!queue.is_empty(), "the operation waits on nothing");
            let mut batch = std::mem::take(&mut queue);
            if self.shuffle_seed != 0 {
                for i in (1..batch.len()).rev() {
                    let x = &mut self.shuffle_seed;
                    *x ^= *x << 13;
                    *x ^= *x >> 7;
                    *x ^= *x << 17;
                    batch.swap(i, (*x % (i as u64 + 1)) as usize);
                }
            }
            for (op, r) in batch {
                let reply = self.handle(&r.req).expect("no scripted reply");
                if let Some(step) = ops.resume(op, r.id, reply) {
                    done |= take(step, &mut queue);
                }
            }
        }
        let v = slot.borrow_mut().take();
        v.expect("the operation finished")
    }
}

#[test]
fn fake_realpath_follows_links_and_dotdot() {
    let mut fs = FakeFs::default();
    fs.file("/w/src/a.ts", "");
    fs.link("/w/out", "/elsewhere/d");
    fs.dir("/elsewhere/d");
    assert_eq!(fs.realpath("/w/src/a.ts").as_deref(), Some("/w/src/a.ts"));
    assert_eq!(fs.realpath("/w/out").as_deref(), Some("/elsewhere/d"));
    assert_eq!(fs.realpath("/w/out/..").as_deref(), Some("/elsewhere"));
    assert_eq!(fs.realpath("/w/nope"), None);
}

//! The test host's file system: folders, files, symlinks and mtimes in memory, answering the
//! core's file requests as `js/host.cjs` does (including `AppendChained`'s exact algorithm and
//! the head beside the log), failures as `ReplyError` codes; and the host itself: its clock,
//! processes, MCP servers ([`super::mcp`]), session messages and faults.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::protocol::{ReplyError, Request};
use crate::runtime::Outgoing;

use super::drive::Reply;
use super::mcp::Peers;
use super::procs::{spawn_reply, Procs};
use crate::governance::ranges::sha256_hex;

/// Failures to inject, each a reply-error code (`denied`) or, when not a code, the detail of
/// an `other` error (`EROFS: read-only file system`).
#[derive(Default)]
pub struct Faults {
    /// Every listing fails.
    pub list_error: Option<String>,
    /// Every read fails.
    pub read_error: Option<String>,
    /// Every write (`WriteFile`, `AppendLine`) fails.
    pub write_error: Option<String>,
    /// Every append to the trace fails (`fail_with`, else `EROFS`).
    pub fail_append: bool,
    /// Listings never answer.
    pub hang_list: bool,
    /// `SessionMessages` is never answered.
    pub hang_messages: bool,
    /// Reads ignore `maxBytes` (a careless host): the core must still refuse a big text.
    pub read_past_limit: bool,
    /// Every reply but a sleep's is this garbage.
    pub garbage: bool,
}

/// The vault watcher (js/watch.cjs), answering `VaultChanges`.
#[derive(Default)]
pub struct Watcher {
    /// `None`: a host that does not know the request; `Some(false)`: watching is off.
    pub watching: Option<bool>,
    /// The first question was asked (it starts watching and answers `truncated`).
    pub started: bool,
    /// Paths (relative to the watched root) written, deleted or renamed since last asked.
    pub changed: BTreeSet<String>,
    /// The next answer cannot tell everything (too many changes).
    pub overflow: bool,
}

/// The in-memory test host (see the module's docs).
pub struct TestHost {
    /// Files by absolute path. A text starting with U+FFFD stands for bytes that are not UTF-8.
    pub files: BTreeMap<String, String>,
    pub dirs: BTreeSet<String>,
    /// Symlinks: absolute path → target (absolute, or relative to the link's folder as
    /// `readlink` gives it; [`TestHost::realpath`] follows both).
    pub links: BTreeMap<String, String>,
    /// Files with more than one name (hard links): path → how many names. A hard link's
    /// text is a copy made when it was linked (the tests only ask what `lstat` tells).
    pub nlinks: BTreeMap<String, u64>,
    pub mtimes: BTreeMap<String, f64>,
    /// Files with an execute bit.
    pub executables: BTreeSet<String>,
    /// The mtime the next written file gets (a counter).
    pub clock: u64,
    /// The virtual wall clock (ms since the epoch): `Now` answers it; timers move it.
    pub now: f64,
    /// Every request, in the order answered.
    pub log: Vec<Request>,
    /// For each request in `log` (when driven): the time it was answered, its operation and
    /// its id.
    pub sent: Vec<(f64, u64, u64)>,
    /// The ids of the requests the core cancelled.
    pub cancelled: Vec<u64>,
    /// Where each round of requests (a batch the core sent together) starts in `log`.
    pub rounds: Vec<usize>,
    pub fail_append: bool,
    /// The error a failing append gives (default: EROFS).
    pub fail_with: Option<String>,
    pub faults: Faults,
    /// When non-zero: answer each batch of requests in a shuffled order (seeded), as a busy
    /// host might.
    pub shuffle_seed: u64,
    /// What a `Spawn` runs (none: every spawn fails with ENOENT).
    pub procs: Procs,
    /// A host from before `ReadFiles` and `typesOnly`: it refuses the first (as the JS host
    /// answers a kind it does not know), gives full listings and bare reads.
    pub old: bool,
    /// Listings as the JS host packs them: each entry an array of its fields.
    pub packed: bool,
    pub watcher: Watcher,
    /// The reply to `SessionMessages` (the OpenCode client's messages), 5 ms after it is
    /// asked; `None`: a host that does not know the request.
    pub messages: Option<Value>,
    /// The MCP servers it runs; `None`: it cannot run one (`McpStart` fails).
    pub mcp: Option<Peers>,
    /// The requests a test expects the host to be asked (any other fails the test).
    pub expect: Option<fn(&Request) -> bool>,
}

impl Default for TestHost {
    fn default() -> Self {
        TestHost {
            files: BTreeMap::new(),
            dirs: BTreeSet::new(),
            links: BTreeMap::new(),
            nlinks: BTreeMap::new(),
            mtimes: BTreeMap::new(),
            executables: BTreeSet::new(),
            clock: 0,
            now: 1_700_000_000_000.0,
            log: Vec::new(),
            sent: Vec::new(),
            cancelled: Vec::new(),
            rounds: Vec::new(),
            fail_append: false,
            fail_with: None,
            faults: Faults::default(),
            shuffle_seed: 0,
            procs: None,
            old: false,
            packed: true,
            watcher: Watcher {
                watching: Some(false),
                ..Watcher::default()
            },
            messages: None,
            mcp: None,
            expect: None,
        }
    }
}

/// A failed reply (`ok: false`): `e` as its code when it is one, else `other` with `e` as
/// the detail.
pub fn failure(e: &str) -> Value {
    let code = ReplyError::of(e);
    if code.code() == e {
        json!({"ok": false, "error": e})
    } else {
        json!({"ok": false, "error": code.code(), "detail": e})
    }
}

fn parent(p: &str) -> Option<&str> {
    let i = p.rfind('/')?;
    Some(if i == 0 { "/" } else { &p[..i] })
}

impl TestHost {
    /// Append `before + <prev> + after` to the log at `real` and keep the head (as the JS
    /// host does): the previous line's hash and the head's status.
    fn append_kept(
        &mut self,
        real: &str,
        before: &str,
        after: &str,
        head_path: &str,
        p: &[String],
    ) -> (String, &'static str) {
        let cur = self.files.get(real).cloned().unwrap_or_default();
        let (prefix, last) = last_line(&cur);
        let prev = sha256_hex(last.as_bytes());
        let line = format!("{before}{prev}{after}");
        let text = format!("{cur}{prefix}{line}\n");
        self.file(real, &text);
        if head_path.is_empty() || p.len() != 4 {
            return (prev, "");
        }
        let fill = |n: u64, b: usize, h: &str| format!("{}{n}{}{b}{}{h}{}", p[0], p[1], p[2], p[3]);
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
        (prev, status)
    }
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

impl TestHost {
    /// A file, and the folders above it (its mtime: the next tick of `clock`).
    pub fn file(&mut self, path: &str, text: &str) {
        self.clock += 1;
        let t = self.clock as f64;
        self.file_at(path, text, t);
    }

    /// A file with this mtime.
    pub fn file_at(&mut self, path: &str, text: &str, mtime_ms: f64) {
        self.add_dirs(path);
        self.files.insert(path.to_string(), text.to_string());
        self.mtimes.insert(path.to_string(), mtime_ms);
    }

    /// An executable file.
    pub fn program(&mut self, path: &str) {
        self.file(path, "#!/bin/sh\n");
        self.executables.insert(path.to_string());
    }

    pub fn dir(&mut self, path: &str) {
        self.add_dirs(&format!("{path}/x"));
    }

    pub fn link(&mut self, path: &str, target: &str) {
        self.add_dirs(path);
        self.links.insert(path.to_string(), target.to_string());
    }

    /// A second name `path` for the file `existing` (a hard link): both count one more name.
    pub fn hard_link(&mut self, path: &str, existing: &str) {
        let text = self.files.get(existing).cloned().unwrap_or_default();
        let n = self.nlinks.get(existing).copied().unwrap_or(1) + 1;
        self.file(path, &text);
        for p in [path, existing] {
            self.nlinks.insert(p.to_string(), n);
        }
    }

    /// `lstat` of each path as js/files.cjs answers it: `[kind, target, nlink]`.
    fn lstat(&self, paths: &[String]) -> Value {
        let facts: Vec<Value> = paths
            .iter()
            .map(|p| {
                if let Some(t) = self.links.get(p) {
                    json!(["link", t, 1])
                } else if self.files.contains_key(p) {
                    json!(["file", null, self.nlinks.get(p).copied().unwrap_or(1)])
                } else if self.dirs.contains(p) {
                    json!(["dir", null, 2])
                } else {
                    json!(["missing", null, 0])
                }
            })
            .collect();
        json!({ "facts": facts })
    }

    pub fn read(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }

    /// The segment logs of the Agent Trace of the project at `wt` (`.orchestration/trace/*.jsonl`),
    /// sorted by path.
    pub fn trace_segments(&self, wt: &str) -> Vec<String> {
        let dir = format!("{wt}/{}/", crate::governance::segments::SEGMENT_DIR);
        let mut v: Vec<String> = self
            .files
            .keys()
            .filter(|p| {
                p.strip_prefix(&dir).is_some_and(|f| {
                    f.ends_with(".jsonl") && crate::governance::segments::stem(f).is_some()
                })
            })
            .cloned()
            .collect();
        v.sort();
        v
    }

    /// Every record line of the Agent Trace of the project at `wt` — the single-file log and
    /// every segment, merged by time as blame reads them — each ending in a newline; `None`
    /// when there is no trace file.
    pub fn trace(&self, wt: &str) -> Option<String> {
        let legacy = format!("{wt}/{}", crate::governance::TRACE_FILE);
        let mut texts: Vec<&str> = Vec::new();
        if let Some(t) = self.read(&legacy) {
            texts.push(t);
        }
        for p in self.trace_segments(wt) {
            if let Some(t) = self.files.get(&p) {
                texts.push(t.as_str());
            }
        }
        if texts.is_empty() {
            return None;
        }
        let m = crate::governance::segments::merge(&texts);
        Some(if m.text.is_empty() {
            String::new()
        } else {
            format!("{}\n", m.text)
        })
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
                if t.starts_with('/') {
                    done.clear();
                } else {
                    done.pop();
                }
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

    /// Run an operation of the runtime against this host to its end (see [`super::run`]).
    pub fn run<T, F, Fut>(&mut self, make: F) -> T
    where
        T: 'static,
        F: FnOnce(crate::runtime::Io) -> Fut,
        Fut: std::future::Future<Output = T> + 'static,
    {
        super::drive::run(self, make)
    }

    /// The order a batch of requests is answered in (shuffled when `shuffle_seed` is set).
    pub fn order(&mut self, batch: &mut [(u64, Outgoing)]) {
        self.rounds.push(self.log.len());
        if self.shuffle_seed == 0 {
            return;
        }
        for i in (1..batch.len()).rev() {
            let x = &mut self.shuffle_seed;
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            batch.swap(i, (*x % (i as u64 + 1)) as usize);
        }
    }

    /// The host's answer to one request.
    pub fn answer(&mut self, req: &Request) -> Reply {
        if let Some(expected) = self.expect {
            assert!(expected(req), "the host was asked for {req:?}");
        }
        self.log.push(req.clone());
        if self.faults.garbage && !matches!(req, Request::Sleep { .. }) {
            return Reply::Now(json!("garbage"));
        }
        if let Some(p) = &mut self.mcp {
            match req {
                Request::McpStart { session, argv, .. } => {
                    return p.start(self.now, *session, argv)
                }
                Request::McpWrite { session, text } => return p.write(self.now, *session, text),
                Request::McpStop { session, .. } => return p.stop(self.now, *session),
                _ => {}
            }
        }
        Reply::Now(match req {
            Request::Now => json!({ "ms": self.now }),
            Request::Sleep { ms } => return Reply::After(*ms as f64, json!({})),
            Request::Spawn {
                argv, timeout_ms, ..
            } => {
                let p = match &mut self.procs {
                    Some(run) => run(argv),
                    None => super::procs::Proc::Fails(format!("spawn {} ENOENT", argv[0])),
                };
                let Some((ms, reply)) = spawn_reply(p, *timeout_ms) else {
                    return Reply::Never;
                };
                if ms > 0.0 {
                    return Reply::After(ms, reply);
                }
                reply
            }
            Request::ListDir { .. } if self.faults.hang_list => return Reply::Never,
            Request::ListDir { .. } if self.faults.list_error.is_some() => {
                let mut r = failure(self.faults.list_error.as_deref().unwrap_or_default());
                r["entries"] = json!([]);
                r["truncated"] = json!(false);
                r.as_object_mut().map(|o| o.remove("ok"));
                r
            }
            Request::ListDir {
                path,
                recursive,
                max_entries,
                skip_hidden,
                types_only,
            } => self.list(path, *recursive, *max_entries, *skip_hidden, *types_only),
            Request::Stat { path } => self.stat(path),
            Request::Lstat { paths } => self.lstat(paths),
            Request::ReadFile { path, max_bytes } => self.read_one(path, *max_bytes),
            Request::ReadFiles { .. } if self.old => {
                json!({"error": "other", "detail": "unsupported request kind readFiles"})
            }
            Request::ReadFiles {
                dir,
                paths,
                max_bytes,
            } => {
                let files: Vec<Value> = paths
                    .iter()
                    .map(|p| self.read_one(&format!("{dir}{p}"), *max_bytes))
                    .collect();
                json!({ "files": files })
            }
            Request::ReadTail { path, max_bytes } => self.read_tail(path, *max_bytes),
            Request::WriteFile { path, text } => {
                if let Some(e) = &self.faults.write_error {
                    return Reply::Now(failure(e));
                }
                self.file(path, text);
                json!({"ok": true})
            }
            Request::AppendLine { path, line } => {
                if let Some(e) = &self.faults.write_error {
                    return Reply::Now(failure(e));
                }
                let cur = self.files.get(path).cloned().unwrap_or_default();
                self.file(path, &format!("{cur}{line}\n"));
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
            Request::AppendChained { .. } | Request::WriteHead { .. } => self.chained(req),
            Request::VaultChanges { root } => self.vault_changes(root),
            Request::SessionMessages { .. } if self.faults.hang_messages => return Reply::Never,
            Request::SessionMessages { .. } if self.messages.is_some() => {
                return Reply::After(5.0, self.messages.clone().unwrap_or_default());
            }
            Request::McpStart { .. } => {
                json!({"ok": false, "error": "this host cannot run an MCP server"})
            }
            Request::McpWrite { .. } => json!({"ok": false, "error": "not running"}),
            Request::McpStop { .. } => json!({}),
            other => {
                json!({"error": "other", "detail": format!("unsupported request kind {other:?}")})
            }
        })
    }

    /// What changed below `root` since the last question, as js/watch.cjs tells it.
    fn vault_changes(&mut self, root: &str) -> Value {
        let w = &mut self.watcher;
        match w.watching {
            None => {
                json!({"error": "other", "detail": "unsupported request kind vaultChanges"})
            }
            Some(false) => {
                json!({"entries": [], "truncated": true, "error": "other", "detail": "watching is off"})
            }
            Some(true) => {
                let first = !w.started;
                w.started = true;
                let paths = std::mem::take(&mut w.changed);
                let overflow = first || std::mem::take(&mut w.overflow);
                let entries: Vec<Value> = if first {
                    Vec::new()
                } else {
                    paths.iter().map(|p| self.dir_entry(root, p)).collect()
                };
                json!({"entries": entries, "truncated": overflow})
            }
        }
    }

    /// A path below `root` as the JS host describes it now (js/host.cjs dirEntry).
    fn dir_entry(&self, root: &str, rel: &str) -> Value {
        let full = format!("{}/{rel}", root.trim_end_matches('/'));
        if let Some(t) = self.files.get(&full) {
            let m = self.mtimes.get(&full).copied().unwrap_or(0.0);
            json!({"path": rel, "isFile": true, "isDir": false, "isSymlink": false, "size": t.len(), "mtimeMs": m})
        } else if self.dirs.contains(&full) {
            json!({"path": rel, "isFile": false, "isDir": true, "isSymlink": false, "size": 4096, "mtimeMs": 1.0})
        } else {
            json!({"path": rel, "isFile": false, "isDir": false, "isSymlink": false, "size": 0, "mtimeMs": 0})
        }
    }

    fn stat(&self, path: &str) -> Value {
        match self.realpath(path) {
            Some(real) => {
                let is_file = self.files.contains_key(&real);
                json!({"exists": true, "realpath": real, "isFile": is_file, "isDir": !is_file,
                       "executable": self.executables.contains(&real),
                       "size": self.files.get(&real).map(|t| t.len()).unwrap_or(0),
                       "mtimeMs": self.mtimes.get(&real).copied().unwrap_or(0.0)})
            }
            None => {
                let mut r = json!({"exists": false, "error": "not-found", "detail": format!("ENOENT: no such file or directory, stat '{path}'")});
                if self.links.contains_key(path) {
                    r["isSymlink"] = json!(true);
                }
                r
            }
        }
    }

    /// A file read as the JS host's bytes arrive in the core: a byte order mark dropped, the
    /// size and mtime as opened kept (an `old` host: bare).
    fn read_one(&self, path: &str, max_bytes: u64) -> Value {
        if let Some(e) = &self.faults.read_error {
            let mut r = failure(e);
            r.as_object_mut().map(|o| o.remove("ok"));
            return r;
        }
        let real = self.realpath(path);
        let Some((real, t)) = real.and_then(|r| self.files.get(&r).map(|t| (r, t))) else {
            return match self.realpath(path) {
                Some(_) => json!({"error": "other", "detail": "EISDIR: a folder, not a file"}),
                None => {
                    json!({"error": "not-found", "detail": format!("ENOENT: no such file or directory, open '{path}'")})
                }
            };
        };
        let mtime = self.mtimes.get(&real).copied().unwrap_or(0.0);
        let mut r = if t.len() as u64 > max_bytes && !self.faults.read_past_limit {
            json!({"error": "too-large"})
        } else if t.starts_with('\u{FFFD}') {
            json!({"error": "not-utf8"})
        } else {
            json!({ "text": t.strip_prefix('\u{feff}').unwrap_or(t) })
        };
        if !self.old {
            r["size"] = json!(t.len());
            r["mtimeMs"] = json!(mtime);
        }
        r
    }

    fn read_tail(&self, path: &str, max_bytes: u64) -> Value {
        match self.realpath(path).and_then(|r| self.files.get(&r)) {
            Some(t) => {
                let n = max_bytes as usize;
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

    /// A folder's entries, breadth first as the JS host lists them (symlinked folders listed,
    /// not descended into); `typesOnly`: files and folders with size and mtime 0.
    fn list(
        &self,
        path: &str,
        recursive: bool,
        max_entries: u64,
        skip_hidden: bool,
        types_only: bool,
    ) -> Value {
        let Some(root) = self.realpath(path).filter(|r| self.dirs.contains(r)) else {
            return json!({"entries": [], "truncated": false, "error": "not-found",
                          "detail": format!("ENOENT: no such file or directory, scandir '{path}'")});
        };
        let mut entries = Vec::new();
        let mut truncated = false;
        let mut queue = vec![String::new()];
        'folders: while !queue.is_empty() {
            let rel = queue.remove(0);
            let dir = if rel.is_empty() {
                root.clone()
            } else {
                format!("{}/{rel}", root.trim_end_matches('/'))
            };
            let prefix = format!("{}/", dir.trim_end_matches('/'));
            let names: BTreeSet<&str> = self
                .files
                .keys()
                .chain(self.dirs.iter())
                .chain(self.links.keys())
                .filter_map(|p| p.strip_prefix(&prefix))
                .filter(|r| !r.is_empty() && !r.contains('/'))
                .collect();
            for name in names {
                if skip_hidden && name.starts_with('.') {
                    continue;
                }
                if entries.len() as u64 >= max_entries {
                    truncated = true;
                    break 'folders;
                }
                let full = format!("{prefix}{name}");
                let rel_path = if rel.is_empty() {
                    name.to_string()
                } else {
                    format!("{rel}/{name}")
                };
                let link = self.links.contains_key(&full);
                let real = self.realpath(&full);
                let is_file = real.as_ref().is_some_and(|r| self.files.contains_key(r));
                let is_dir = real.as_ref().is_some_and(|r| self.dirs.contains(r));
                let (size, mtime) = match (&real, types_only && !link && !self.old) {
                    (Some(r), false) if is_file => (
                        self.files[r].len(),
                        self.mtimes.get(r).copied().unwrap_or(0.0),
                    ),
                    _ => (0, 0.0),
                };
                if recursive && is_dir && !link {
                    queue.push(rel_path.clone());
                }
                let realpath = if link { real } else { None };
                entries.push(if self.packed {
                    json!([rel_path, is_file, is_dir, link, realpath, size, mtime])
                } else {
                    let mut e = json!({"path": rel_path, "isFile": is_file, "isDir": is_dir,
                                       "isSymlink": link, "size": size, "mtimeMs": mtime});
                    if let Some(r) = realpath {
                        e["realpath"] = json!(r);
                    }
                    e
                });
            }
        }
        json!({"entries": entries, "truncated": truncated})
    }

    /// `AppendChained` and `WriteHead`, as the JS host carries them out under the lock.
    fn chained(&mut self, req: &Request) -> Value {
        match req {
            Request::AppendChained {
                path,
                before,
                after,
                head_path,
                head_parts,
                torn_parts,
                torn_path,
                ..
            } => {
                if self.fail_append || self.faults.fail_append {
                    let e = self
                        .fail_with
                        .as_deref()
                        .unwrap_or("EROFS: read-only file system");
                    return failure(e);
                }
                let real = self.realpath(path).unwrap_or_else(|| path.clone());
                let cur = self.files.get(&real).cloned().unwrap_or_default();
                // a torn last line: moved aside, the log cut after its last newline, the move
                // recorded (as the JS host does)
                let mut torn = Value::Null;
                if !cur.is_empty()
                    && !cur.ends_with('\n')
                    && torn_parts.len() == 4
                    && !torn_path.is_empty()
                {
                    if self.files.contains_key(torn_path) {
                        return failure("EEXIST: file already exists");
                    }
                    let cut = cur.rfind('\n').map_or(0, |i| i + 1);
                    let bytes = cur[cut..].to_string();
                    self.file(torn_path, &bytes);
                    self.file(&real, &cur[..cut]);
                    let t = torn_parts;
                    let digest = sha256_hex(bytes.as_bytes());
                    let (b, a) = (
                        format!("{}{}{}{digest}{}", t[0], bytes.len(), t[1], t[2]),
                        t[3].clone(),
                    );
                    let (_, status) = self.append_kept(&real, &b, &a, head_path, head_parts);
                    torn = json!({"path": torn_path, "bytes": bytes.len()});
                    if !status.is_empty() {
                        torn["head"] = json!(status);
                    }
                }
                let (prev, status) = self.append_kept(&real, before, after, head_path, head_parts);
                let mut r = json!({"ok": true, "prevHash": prev});
                if !head_path.is_empty() {
                    r["head"] = json!(status);
                }
                if !torn.is_null() {
                    r["torn"] = torn;
                }
                r
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
                    return json!({"ok": false, "error": "changed"});
                }
                self.file(head_path, text);
                json!({"ok": true})
            }
            _ => unreachable!(),
        }
    }
}

#[test]
fn fake_realpath_follows_links_and_dotdot() {
    let mut fs = TestHost::default();
    fs.file("/w/src/a.ts", "");
    fs.link("/w/out", "/elsewhere/d");
    fs.dir("/elsewhere/d");
    assert_eq!(fs.realpath("/w/src/a.ts").as_deref(), Some("/w/src/a.ts"));
    assert_eq!(fs.realpath("/w/out").as_deref(), Some("/elsewhere/d"));
    assert_eq!(fs.realpath("/w/out/..").as_deref(), Some("/elsewhere"));
    assert_eq!(fs.realpath("/w/nope"), None);
}

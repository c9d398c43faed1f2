//! The engine-ready operations and the state they share. See the module docs of
//! [`crate::governance`] for the JSON shapes and the host's duties.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::{Log, Mutation, PathKey, ReadResult, ReplyError, Request, StatResult};
use crate::runtime::{join_all, Io};

use super::classify::{classify, MutationClass};
use super::gate::{self, targets, Decision, GateState, Target, TargetOp};
use super::git;
use super::intents::{self, IntentFile, Problem, Severity, Status};
use super::patch::{self, FileOp};
use super::ranges::{self, sha256_hex, Range};
use super::scope::{resolve_from, Resolved, Scope};
use super::trace::{self, RecordInput};
use crate::host::{self, args::EditShape, Profile, Role};

#[path = "trace_io.rs"]
mod trace_io;
use trace_io::Unwritten;
pub use trace_io::{
    assess, trace_head, trace_verify, Assessed, HeadInput, HeadOutput, Seen, VerifyInput,
    VerifyOutput, LOCK_BREAK_MS, LOCK_STALE_MS, LOCK_WAIT_MS,
};

pub const DIR: &str = ".orchestration";
pub const INTENTS_FILE: &str = ".orchestration/active_intents.yaml";
pub const TRACE_FILE: &str = ".orchestration/agent_trace.jsonl";
/// What `init` writes.
pub const SCAFFOLD: &str = "\
# Intent governance (hookwise). While this file exists, file changes and shell commands need an
# active intent (the model calls select_active_intent), and file changes must stay inside that
# intent's owned_scope. Each entry:
#   - id: INT-001
#     name: JWT authentication
#     status: IN_PROGRESS            # IN_PROGRESS | COMPLETE | BLOCKED
#     owned_scope: [src/auth/**, \"!src/auth/vendor/**\"]
#     constraints: [Keep the public API of src/auth/index.ts]
#     acceptance_criteria: [All tests in tests/auth pass]
# Every change is recorded in agent_trace.jsonl (Agent Trace v0.1.0, hash-chained).
active_intents: []
";

const MAX_INTENTS_BYTES: u64 = intents::MAX_BYTES;
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
const MAX_TRACE_BYTES: u64 = 256 * 1024 * 1024;
const RECENT_TAIL_BYTES: u64 = 256 * 1024;
const MAX_RECENT: usize = 500;
const MAX_READS: usize = 4096;
/// Calls waiting for their `tool.after` (a failed tool never gets one: the oldest go first).
const MAX_PENDING: usize = 32;
/// The earlier text of a file is kept for the record up to this size.
const MAX_KEPT_TEXT: usize = 1024 * 1024;

/// When governance is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enabled {
    /// On when `.orchestration/active_intents.yaml` exists (the default).
    Auto,
    On,
    Off,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GovConfig {
    pub enabled: Enabled,
    /// Tools that are gated (and recorded when they change files).
    pub mutating_tools: Vec<String>,
    /// Tools whose reads are remembered for stale-write checks.
    pub read_tools: Vec<String>,
    /// Block a write to a file that changed since the session read it.
    pub stale_writes: bool,
    /// `tool.version` in records.
    pub tool_version: String,
    /// The host's profile: its tools, and the keys they write.
    pub host: &'static Profile,
}

impl Default for GovConfig {
    fn default() -> Self {
        GovConfig::for_host(host::default_profile())
    }
}

impl GovConfig {
    /// The defaults on `host`: its shell, write, edit and patch tools are gated.
    pub fn for_host(host: &'static Profile) -> Self {
        GovConfig {
            enabled: Enabled::Auto,
            mutating_tools: host.mutating(),
            read_tools: host.readers(),
            stale_writes: true,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            host,
        }
    }

    /// From the plugin option `governance`: `true` | `false` | `"auto"`, or
    /// `{enabled, mutatingTools, readTools, staleWrites}`. Bad values warn and keep the default.
    pub fn from_options(v: Option<&Value>) -> (GovConfig, Vec<Log>) {
        GovConfig::from_options_on(v, host::default_profile())
    }

    /// [`GovConfig::from_options`] with `host`'s defaults.
    pub fn from_options_on(v: Option<&Value>, host: &'static Profile) -> (GovConfig, Vec<Log>) {
        let mut c = GovConfig::for_host(host);
        let mut logs = Vec::new();
        let enabled = |v: &Value, logs: &mut Vec<Log>| match v {
            Value::Bool(true) => Some(Enabled::On),
            Value::Bool(false) => Some(Enabled::Off),
            Value::String(s) if s == "auto" => Some(Enabled::Auto),
            other => {
                logs.push(Log::warn(format!(
                    "hookwise option governance.enabled must be true, false or \"auto\"; got {other}; using \"auto\""
                )));
                None
            }
        };
        match v {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                for (k, val) in m {
                    match k.as_str() {
                        "enabled" => {
                            if let Some(e) = enabled(val, &mut logs) {
                                c.enabled = e;
                            }
                        }
                        "mutatingTools" | "readTools" => match string_list(val) {
                            Some(list) if k == "mutatingTools" => c.mutating_tools = list,
                            Some(list) => c.read_tools = list,
                            None => logs.push(Log::warn(format!(
                                "hookwise option governance.{k} must be an array of tool names; using the default"
                            ))),
                        },
                        "staleWrites" => match val.as_bool() {
                            Some(b) => c.stale_writes = b,
                            None => logs.push(Log::warn(
                                "hookwise option governance.staleWrites must be a boolean; using true",
                            )),
                        },
                        other => logs.push(Log::warn(format!(
                            "hookwise option governance.{other} is not known; ignored"
                        ))),
                    }
                }
            }
            Some(other) => {
                if let Some(e) = enabled(other, &mut logs) {
                    c.enabled = e;
                }
            }
        }
        (c, logs)
    }

    /// Tools whose `tool.before` / `tool.after` the engine must see while governance is on.
    pub fn watched_tools(&self) -> Vec<String> {
        let mut v = self.mutating_tools.clone();
        for t in &self.read_tools {
            if !v.contains(t) {
                v.push(t.clone());
            }
        }
        v
    }
}

fn string_list(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_string))
        .collect()
}

#[derive(Debug, Default)]
struct Session {
    intent: Option<String>,
    parent: Option<String>,
    model: Option<String>,
}

#[derive(Debug, Clone)]
struct RecentEntry {
    intent: Option<String>,
    summary: String,
}

#[derive(Default)]
struct Project {
    /// Hash of the intents file text last parsed (or of the read error).
    yaml_key: Option<String>,
    /// Size and mtime of the intents file when it was last read: while they stay the same
    /// the file is not read again (a stat instead of a read and a hash on every gated call).
    yaml_stat: Option<(u64, f64)>,
    file: Option<Rc<IntentFile>>,
    scopes: HashMap<String, Rc<Result<Scope, String>>>,
    problems_unsurfaced: bool,
    trace_key: Option<(u64, u64)>,
    recent: Vec<RecentEntry>,
    /// SHA-256 hex of the last line this process appended.
    last_appended: Option<String>,
    /// Records that could not be appended yet, oldest first: changes are blocked while any wait.
    unwritten: VecDeque<Unwritten>,
    /// Why the last append failed, while records wait.
    trace_error: Option<String>,
    /// An operation is writing the records that wait.
    flushing: bool,
    /// The last head status warned about (once per status).
    head_warned: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Before {
    Absent,
    Text(String),
    Unknown,
}

#[derive(Debug, Clone)]
struct PendingFile {
    raw: String,
    rel: String,
    before: Before,
}

#[derive(Debug, Clone, Default)]
struct Pending {
    /// The gate blocked this call: a late `tool.after` for it records nothing.
    blocked: bool,
    intent: Option<String>,
    files: Vec<PendingFile>,
    notice: Option<String>,
}

#[derive(Default)]
struct State {
    config: GovConfig,
    projects: HashMap<String, Project>,
    sessions: HashMap<String, Session>,
    /// (session, worktree-relative key) → fingerprint of the file when the session last saw it.
    reads: HashMap<(String, String), String>,
    read_order: VecDeque<(String, String)>,
    pending: VecDeque<(String, Pending)>,
}

/// The governance state of one engine: a cheap handle to share with operations.
#[derive(Clone, Default)]
pub struct Governance {
    inner: Rc<RefCell<State>>,
}

impl Governance {
    pub fn new(config: GovConfig) -> Governance {
        let g = Governance::default();
        g.set_config(config);
        g
    }

    pub fn set_config(&self, config: GovConfig) {
        self.inner.borrow_mut().config = config;
    }

    pub fn config(&self) -> GovConfig {
        self.inner.borrow().config.clone()
    }

    /// A session started; `parent` for subagent sessions (OpenCode `session.created`
    /// `info.parentID`). A child without an intent of its own uses its parent's.
    pub fn session_created(&self, session: &str, parent: Option<&str>) {
        let mut st = self.inner.borrow_mut();
        let s = st.sessions.entry(session.to_string()).or_default();
        s.parent = parent
            .filter(|p| !p.is_empty() && *p != session)
            .map(str::to_string);
    }

    /// The model a session uses (`provider/model`), for `contributor.model_id`.
    pub fn set_model(&self, session: &str, model: &str) {
        if model.is_empty() {
            return;
        }
        let mut st = self.inner.borrow_mut();
        st.sessions.entry(session.to_string()).or_default().model = Some(model.to_string());
    }

    /// The session's intent, or the nearest ancestor's.
    pub fn active_intent(&self, session: &str) -> Option<String> {
        let st = self.inner.borrow();
        let mut cur = session.to_string();
        for _ in 0..32 {
            let s = st.sessions.get(&cur)?;
            if let Some(i) = &s.intent {
                return Some(i.clone());
            }
            cur = s.parent.clone()?;
        }
        None
    }

    fn model(&self, session: &str) -> Option<String> {
        let st = self.inner.borrow();
        let mut cur = session.to_string();
        for _ in 0..32 {
            let s = st.sessions.get(&cur)?;
            if let Some(m) = &s.model {
                return Some(m.clone());
            }
            cur = s.parent.clone()?;
        }
        None
    }

    fn select(&self, session: &str, id: &str) {
        let mut st = self.inner.borrow_mut();
        st.sessions.entry(session.to_string()).or_default().intent = Some(id.to_string());
    }

    fn scope(
        &self,
        worktree: &str,
        file: &IntentFile,
        id: &str,
    ) -> Option<Rc<Result<Scope, String>>> {
        let intent = file.get(id)?;
        let mut st = self.inner.borrow_mut();
        let p = st.projects.entry(worktree.to_string()).or_default();
        Some(
            p.scopes
                .entry(id.to_string())
                .or_insert_with(|| Rc::new(Scope::compile(&intent.owned_scope)))
                .clone(),
        )
    }

    fn remember_read(&self, session: &str, key: String, fp: String) {
        let mut st = self.inner.borrow_mut();
        let k = (session.to_string(), key);
        if st.reads.insert(k.clone(), fp).is_none() {
            st.read_order.push_back(k);
            while st.read_order.len() > MAX_READS {
                if let Some(old) = st.read_order.pop_front() {
                    st.reads.remove(&old);
                }
            }
        }
    }

    fn known_read(&self, session: &str, key: &str) -> Option<String> {
        self.inner
            .borrow()
            .reads
            .get(&(session.to_string(), key.to_string()))
            .cloned()
    }

    /// The call was blocked: its late `tool.after` records nothing.
    fn put_blocked(&self, call_id: &str) {
        self.put_pending(
            call_id,
            Pending {
                blocked: true,
                ..Pending::default()
            },
        );
    }

    fn put_pending(&self, call_id: &str, p: Pending) {
        let mut st = self.inner.borrow_mut();
        st.pending.retain(|(id, _)| id != call_id);
        if st.pending.len() >= MAX_PENDING {
            st.pending.pop_front();
        }
        st.pending.push_back((call_id.to_string(), p));
    }

    fn take_pending(&self, call_id: &str) -> Option<Pending> {
        let mut st = self.inner.borrow_mut();
        let i = st.pending.iter().position(|(id, _)| id == call_id)?;
        st.pending.remove(i).map(|(_, p)| p)
    }

    /// The problems text, once per change of the file (then `None`).
    fn take_notice(&self, worktree: &str) -> Option<String> {
        let mut st = self.inner.borrow_mut();
        let p = st.projects.get_mut(worktree)?;
        if !p.problems_unsurfaced {
            return None;
        }
        p.problems_unsurfaced = false;
        p.file.as_ref().and_then(|f| problems_text(&f.problems))
    }
}

fn join(worktree: &str, rel: &str) -> String {
    format!("{}/{rel}", worktree.trim_end_matches(['/', '\\']))
}

fn read_key(worktree: &str, rel: &str) -> String {
    format!("{worktree}\u{0}{rel}")
}

fn problems_text(problems: &[Problem]) -> Option<String> {
    if problems.is_empty() {
        return None;
    }
    let mut s = format!("Problems in {INTENTS_FILE} (entries with errors were not loaded):");
    for p in problems {
        s.push_str(&format!("\n- {p}"));
    }
    Some(s)
}

async fn read_text(io: &Io, path: &str, max: u64) -> ReadResult {
    let v = io
        .request(Request::ReadFile {
            path: path.to_string(),
            max_bytes: max,
        })
        .await;
    serde_json::from_value(v)
        .unwrap_or_else(|e| ReadResult::failed(ReplyError::Other, format!("bad reply: {e}")))
}

async fn stat(io: &Io, path: &str) -> StatResult {
    let v = io
        .request(Request::Stat {
            path: path.to_string(),
        })
        .await;
    serde_json::from_value(v).unwrap_or_default()
}

fn is_missing(err: Option<ReplyError>) -> bool {
    err == Some(ReplyError::NotFound)
}

/// Load (or reuse) the intents of `worktree`. `None`: governance is off there.
async fn refresh(
    io: &Io,
    gov: &Governance,
    worktree: &str,
    logs: &mut Vec<Log>,
) -> Option<Rc<IntentFile>> {
    let enabled = gov.config().enabled;
    if enabled == Enabled::Off || worktree.is_empty() {
        return None;
    }
    let path = join(worktree, INTENTS_FILE);
    let st = stat(io, &path).await;
    let seen = (st.exists && st.is_file && st.mtime_ms > 0.0).then_some((st.size, st.mtime_ms));
    if seen.is_some() {
        let g = gov.inner.borrow();
        if let Some(p) = g.projects.get(worktree) {
            if p.yaml_stat == seen && p.file.is_some() {
                return p.file.clone();
            }
        }
    }
    let r = if st.exists || st.error.is_some_and(|e| e != ReplyError::NotFound) {
        read_text(io, &path, MAX_INTENTS_BYTES).await
    } else {
        ReadResult {
            error: Some(ReplyError::NotFound),
            ..Default::default()
        }
    };
    let size = r.size;
    let (key, text, failed) = match (r.text, r.error) {
        (Some(text), _) => (sha256_hex(text.as_bytes()), Some(text), None),
        (None, code) => {
            let err = code.map_or_else(|| "no reply".into(), |e| e.describe(r.detail.as_deref()));
            if is_missing(code) && enabled == Enabled::Auto {
                let mut st = gov.inner.borrow_mut();
                if let Some(p) = st.projects.get_mut(worktree) {
                    p.file = None;
                    p.yaml_key = None;
                    p.yaml_stat = None;
                }
                return None;
            }
            let message = if is_missing(code) {
                "the file does not exist; governance is on by option, so changes are blocked until intents are added (hookwise init creates the file)".to_string()
            } else {
                intents::unreadable(&err, size)
            };
            let f = IntentFile {
                intents: Vec::new(),
                problems: vec![Problem {
                    file: INTENTS_FILE.into(),
                    line: 1,
                    severity: Severity::Error,
                    message,
                }],
            };
            (format!("error:{err}"), None, Some(f))
        }
    };
    let mut st = gov.inner.borrow_mut();
    let p = st.projects.entry(worktree.to_string()).or_default();
    p.yaml_stat = seen;
    if p.yaml_key.as_deref() == Some(key.as_str()) {
        if let Some(f) = &p.file {
            return Some(f.clone());
        }
    }
    let parsed = match (text, failed) {
        (Some(t), _) => intents::parse(INTENTS_FILE, &t),
        (None, f) => f.unwrap_or_default(),
    };
    for prob in &parsed.problems {
        logs.push(Log::warn(prob.to_string()));
    }
    p.problems_unsurfaced = !parsed.problems.is_empty();
    p.yaml_key = Some(key);
    p.scopes.clear();
    let f = Rc::new(parsed);
    p.file = Some(f.clone());
    Some(f)
}

/// Resolve paths with the host's realpaths: run the resolver, stat what it asked about, and
/// run it again until it asks nothing new (one batch per round; a second round only after `..`).
pub async fn resolve_paths(io: &Io, worktree: &str, base: &str, raws: &[String]) -> Vec<Resolved> {
    let mut known: HashMap<String, Option<String>> = HashMap::new();
    for _ in 0..8 {
        let mut misses: Vec<String> = Vec::new();
        let mut out = Vec::with_capacity(raws.len());
        for raw in raws {
            let mut look = |q: &str| match known.get(q) {
                Some(v) => v.clone(),
                None => {
                    if !misses.iter().any(|m| m == q) {
                        misses.push(q.to_string());
                    }
                    None
                }
            };
            out.push(resolve_from(worktree, base, raw, &mut look));
        }
        if misses.is_empty() {
            return out;
        }
        let stats = join_all(misses.iter().map(|m| stat(io, m)).collect()).await;
        for (m, s) in misses.into_iter().zip(stats) {
            let real = if s.exists { s.realpath } else { None };
            known.insert(m, real);
        }
    }
    raws.iter()
        .map(|_| Resolved::Invalid("too many levels of symlinks".into()))
        .collect()
}

/// A file's content fingerprint and text. `None` for a folder or an unreadable path.
async fn fingerprint(io: &Io, path: &str) -> Option<(String, Before)> {
    let r = read_text(io, path, MAX_FILE_BYTES).await;
    match (r.text, r.error) {
        (Some(t), _) => {
            let fp = format!("sha256:{}", sha256_hex(t.as_bytes()));
            // Large files are not kept for the record (ranges then fall back; see `ranges`).
            let before = if t.len() > MAX_KEPT_TEXT {
                Before::Unknown
            } else {
                Before::Text(t)
            };
            Some((fp, before))
        }
        (None, e) if is_missing(e) => Some(("absent".into(), Before::Absent)),
        (None, _) => {
            let s = stat(io, path).await;
            if !s.exists {
                Some(("absent".into(), Before::Absent))
            } else if s.is_dir {
                None
            } else {
                Some((format!("stat:{}:{}", s.size, s.mtime_ms), Before::Unknown))
            }
        }
    }
}

/// `tool.before` input.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolCallInput {
    pub tool: String,
    pub session_id: String,
    pub call_id: String,
    pub args: Value,
    /// Absolute path of the worktree (OpenCode `worktree`, VS Code `workspaceRoot`).
    pub worktree: String,
    /// Where relative paths start (OpenCode `directory`, when it is below the worktree);
    /// empty: the worktree.
    pub directory: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GateOutput {
    /// Set: block the call; the text is what the model reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// The host must call `tool.after` (the record) for this call id.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub follow_up: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
}

/// `tool.before` for governance: remember reads; gate mutating tools; keep what the record
/// needs. A quiet no-op while governance is off.
pub async fn tool_before(io: &Io, gov: &Governance, input: &ToolCallInput) -> GateOutput {
    let mut out = GateOutput::default();
    let cfg = gov.config();
    let tool = input.tool.as_str();
    let watched =
        cfg.mutating_tools.iter().any(|t| t == tool) || cfg.read_tools.iter().any(|t| t == tool);
    if !watched {
        return out;
    }
    let Some(file) = refresh(io, gov, &input.worktree, &mut out.logs).await else {
        return out;
    };
    let wt = input.worktree.as_str();

    if cfg.read_tools.iter().any(|t| t == tool) && !cfg.mutating_tools.iter().any(|t| t == tool) {
        if cfg.stale_writes {
            if let Some(p) = host::args::read_path(cfg.host.entry(tool), &input.args) {
                if let Some(Resolved::Inside(rel)) =
                    resolve_paths(io, wt, &input.directory, &[p.to_string()])
                        .await
                        .pop()
                {
                    if let Some((fp, _)) = fingerprint(io, &join(wt, &rel)).await {
                        gov.remember_read(&input.session_id, read_key(wt, &rel), fp);
                    }
                }
            }
        }
        return out;
    }

    let active = gov.active_intent(&input.session_id);
    let scope = active.as_deref().and_then(|id| gov.scope(wt, &file, id));
    let tgts: Vec<Target> = targets(cfg.host, tool, &input.args).unwrap_or_default();
    let raws: Vec<String> = tgts.iter().map(|t| t.path.clone()).collect();
    let intent_ok = active
        .as_deref()
        .and_then(|id| file.get(id))
        .map(|i| i.status == Status::InProgress)
        .unwrap_or(false);
    let resolved = if intent_ok && !raws.is_empty() {
        resolve_paths(io, wt, &input.directory, &raws).await
    } else {
        Vec::new()
    };
    let map: HashMap<&str, &Resolved> = raws
        .iter()
        .map(String::as_str)
        .zip(resolved.iter())
        .collect();
    let state = GateState {
        host: cfg.host,
        mutating: &cfg.mutating_tools,
        intents: &file,
        active: active.as_deref(),
        scope: scope.as_deref(),
    };
    let decision = gate::gate(tool, &input.args, &state, &mut |p| {
        map.get(p)
            .map(|r| (*r).clone())
            .unwrap_or_else(|| Resolved::Invalid("could not be resolved".into()))
    });
    if let Decision::Block(mut msg) = decision {
        if let Some(n) = gov
            .take_notice(wt)
            .or_else(|| problems_text(&file.problems))
        {
            msg.push_str("\n\n");
            msg.push_str(&n);
        }
        out.block = Some(msg);
        gov.put_blocked(&input.call_id);
        return out;
    }

    // Allowed by the gate, but no change without its record: records that could not be
    // written are written first, or the call is blocked.
    if let Some(msg) = trace_io::gate_unwritten(io, gov, wt, tool, &mut out.logs).await {
        out.block = Some(msg);
        gov.put_blocked(&input.call_id);
        return out;
    }

    // Allowed: stale-write check, and the earlier text of each file for the record.
    let mut files: Vec<(Target, String)> = Vec::new();
    for (t, r) in tgts.iter().zip(resolved.iter()) {
        if let Resolved::Inside(rel) = r {
            if !files.iter().any(|(_, x)| x == rel) || t.op == TargetOp::MoveTo {
                files.push((t.clone(), rel.clone()));
            }
        }
    }
    let abs: Vec<String> = files.iter().map(|(_, rel)| join(wt, rel)).collect();
    let fps = join_all(abs.iter().map(|p| fingerprint(io, p)).collect()).await;
    let mut stale = Vec::new();
    let mut pending_files = Vec::new();
    for ((t, rel), fp) in files.iter().zip(fps) {
        let (fp, before) = fp.unwrap_or_else(|| ("dir".into(), Before::Unknown));
        if cfg.stale_writes && t.op != TargetOp::MoveTo {
            if let Some(known) = gov.known_read(&input.session_id, &read_key(wt, rel)) {
                if known != fp {
                    stale.push(format!("`{rel}`"));
                }
            }
        }
        pending_files.push(PendingFile {
            raw: t.path.clone(),
            rel: rel.clone(),
            before,
        });
    }
    if !stale.is_empty() {
        let (what, it) = if stale.len() == 1 {
            (format!("{} has", stale[0]), "it")
        } else {
            (format!("{} have", stale.join(", ")), "them")
        };
        out.block = Some(format!(
            "hookwise blocked `{tool}`: {what} changed on disk since this session last read {it} (another session or process wrote to {it}). Read {it} again, then make the change on the current content."
        ));
        gov.put_blocked(&input.call_id);
        return out;
    }
    let notice = gov.take_notice(wt);
    if !pending_files.is_empty() || notice.is_some() {
        gov.put_pending(
            &input.call_id,
            Pending {
                blocked: false,
                intent: active,
                files: pending_files,
                notice,
            },
        );
        out.follow_up = true;
    }
    out
}

/// `tool.after` input: the call again, plus what the host knows now.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AfterInput {
    pub tool: String,
    pub session_id: String,
    pub call_id: String,
    pub args: Value,
    pub worktree: String,
    /// Where relative paths start; empty: the worktree.
    pub directory: String,
    /// Host time, epoch milliseconds (`Date.now()`).
    pub now_ms: f64,
    /// 16 random bytes as 32 hex characters (`crypto.randomBytes(16).toString("hex")`).
    pub random: String,
    /// The git HEAD commit, when the host knows it; otherwise it is read from `.git`.
    pub head: Option<String>,
    /// `provider/model`, when known (else the one the session last reported).
    pub model_id: Option<String>,
    /// The tool failed: nothing is recorded.
    pub failed: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AfterOutput {
    /// A record was appended.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub recorded: bool,
    /// Its id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Changes to apply to the tool's output (a notice about problems in the intents file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mutations: Vec<Mutation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
}

fn fallback_random(input: &AfterInput) -> [u8; 16] {
    let seed = format!(
        "{}\u{0}{}\u{0}{}\u{0}{:?}",
        input.session_id, input.call_id, input.now_ms, input.args
    );
    let h = sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(
        seed.as_bytes(),
    ));
    let mut b = [0u8; 16];
    b.copy_from_slice(&h[..16]);
    b
}

/// `tool.after`: append the Agent Trace record of a mutation. Never fails the tool call: a
/// failed append is logged.
pub async fn tool_after(io: &Io, gov: &Governance, input: &AfterInput) -> AfterOutput {
    let mut out = AfterOutput::default();
    let pending = gov.take_pending(&input.call_id);
    let cfg = gov.config();
    let tool = input.tool.as_str();
    if !cfg.mutating_tools.iter().any(|t| t == tool) {
        return out;
    }
    let wt = input.worktree.as_str();
    if refresh(io, gov, wt, &mut out.logs).await.is_none() {
        return out;
    }
    if let Some(n) = pending.as_ref().and_then(|p| p.notice.clone()) {
        out.mutations.push(Mutation {
            path: vec![PathKey::Key("output".into())],
            prepend: None,
            append: Some(format!("\n\n{n}")),
            strip: None,
        });
    }
    let entry = cfg.host.entry(tool);
    let kind = entry.role;
    if input.failed || kind == Role::Shell || pending.as_ref().is_some_and(|p| p.blocked) {
        return out; // a shell command's changes are not known file by file
    }
    let pending = match pending {
        Some(p) if !p.files.is_empty() => p,
        _ => {
            // tool.before was not seen for this call: resolve now, the earlier text is unknown.
            let tgts = targets(cfg.host, tool, &input.args).unwrap_or_default();
            let raws: Vec<String> = tgts.iter().map(|t| t.path.clone()).collect();
            let resolved = resolve_paths(io, wt, &input.directory, &raws).await;
            let files = raws
                .into_iter()
                .zip(resolved)
                .filter_map(|(raw, r)| match r {
                    Resolved::Inside(rel) => Some(PendingFile {
                        raw,
                        rel,
                        before: Before::Unknown,
                    }),
                    _ => None,
                })
                .collect::<Vec<_>>();
            if files.is_empty() {
                return out;
            }
            Pending {
                blocked: false,
                intent: gov.active_intent(&input.session_id),
                files,
                notice: None,
            }
        }
    };

    // The files as written.
    let mut rels: Vec<String> = Vec::new();
    for f in &pending.files {
        if !rels.contains(&f.rel) {
            rels.push(f.rel.clone());
        }
    }
    let abs: Vec<String> = rels.iter().map(|r| join(wt, r)).collect();
    let afters = join_all(
        abs.iter()
            .map(|p| read_text(io, p, MAX_FILE_BYTES))
            .collect(),
    )
    .await;
    let after_of: HashMap<&str, Option<&str>> = rels
        .iter()
        .map(String::as_str)
        .zip(afters.iter().map(|r| r.text.as_deref()))
        .collect();
    let by_raw = |raw: &str| pending.files.iter().find(|f| f.raw == raw);
    fn before_text(f: &PendingFile) -> Option<&str> {
        match &f.before {
            Before::Text(t) => Some(t.as_str()),
            _ => None,
        }
    }

    let mut entries: Vec<(String, Vec<Range>)> = Vec::new();
    let mut class: Option<MutationClass> = None;
    let mut changed = false;
    let mut add = |rel: &str,
                   before: &Before,
                   after: Option<&str>,
                   ranges: Vec<Range>,
                   entries: &mut Vec<(String, Vec<Range>)>| {
        let b = match before {
            Before::Text(t) => Some(t.as_str()),
            _ => None,
        };
        if !(matches!(before, Before::Text(t) if Some(t.as_str()) == after)) {
            changed = true;
        }
        let c = classify(b, after);
        class = Some(class.map_or(c, |x| x.combine(c)));
        entries.push((rel.to_string(), ranges));
    };
    match kind {
        Role::Patch => {
            let text = host::args::patch_text(entry, &input.args)
                .ok()
                .flatten()
                .unwrap_or("");
            for op in patch::parse(text) {
                match &op {
                    FileOp::Add { path, .. } => {
                        let Some(f) = by_raw(path) else { continue };
                        let after = after_of.get(f.rel.as_str()).copied().flatten();
                        let r = after.map(ranges::whole).unwrap_or_default();
                        add(&f.rel, &f.before, after, r, &mut entries);
                    }
                    FileOp::Update {
                        path,
                        move_to,
                        hunks,
                    } => {
                        let Some(src) = by_raw(path) else { continue };
                        let dst = move_to.as_deref().and_then(by_raw).unwrap_or(src);
                        let after = after_of.get(dst.rel.as_str()).copied().flatten();
                        let Some(a) = after else {
                            out.logs.push(Log::debug(format!(
                                "trace: {} is not readable after the patch",
                                dst.rel
                            )));
                            continue;
                        };
                        let r = ranges::patch_update(before_text(src), a, hunks);
                        add(&dst.rel, &src.before, Some(a), r, &mut entries);
                    }
                    FileOp::Delete { path } => {
                        let Some(f) = by_raw(path) else { continue };
                        add(&f.rel, &f.before, None, Vec::new(), &mut entries);
                    }
                }
            }
        }
        _ => {
            let f = &pending.files[0];
            let after = after_of.get(f.rel.as_str()).copied().flatten();
            match after {
                None => out.logs.push(Log::debug(format!(
                    "trace: {} is not readable after {tool}",
                    f.rel
                ))),
                Some(a) => {
                    let shape = match kind {
                        Role::Edit => host::args::edit_shape(entry, &input.args),
                        _ => EditShape::Unknown,
                    };
                    let r = match (kind, shape) {
                        (Role::Write, _) => ranges::whole(a),
                        (_, EditShape::List(list)) => ranges::edits(before_text(f), a, &list),
                        (_, EditShape::Replace { old, new, all }) => {
                            ranges::edit(before_text(f), a, old, new, all)
                        }
                        (_, EditShape::Unknown) => match before_text(f) {
                            Some(b) => ranges::changed_block(b, a),
                            None => ranges::whole(a),
                        },
                    };
                    add(&f.rel, &f.before, Some(a), r, &mut entries);
                }
            }
        }
    }
    // Whatever happened, the session now knows these files as they are.
    for (rel, r) in rels.iter().zip(afters.iter()) {
        let fp = match (&r.text, r.error) {
            (Some(t), _) => Some(format!("sha256:{}", sha256_hex(t.as_bytes()))),
            (None, e) if is_missing(e) => Some("absent".to_string()),
            _ => None,
        };
        if let Some(fp) = fp {
            gov.remember_read(&input.session_id, read_key(wt, rel), fp);
        }
    }
    let Some(class) = class else {
        return out;
    };
    if !changed {
        out.logs.push(Log::debug(format!(
            "trace: {tool} changed nothing; no record"
        )));
        return out;
    }

    let random = match trace::parse_random(&input.random) {
        Some(r) => r,
        None => {
            out.logs.push(Log::debug(
                "trace: no random bytes from the host; the record id is derived from the call",
            ));
            fallback_random(input)
        }
    };
    let head = match input.head.clone().filter(|h| trace::is_git_sha(h)) {
        Some(h) => Some(h),
        None => git::head(io, wt).await,
    };
    let model = input
        .model_id
        .clone()
        .filter(|m| !m.is_empty())
        .or_else(|| gov.model(&input.session_id));
    let now_ms = if input.now_ms.is_finite() {
        input.now_ms as i64
    } else {
        0
    };
    let rin = RecordInput {
        random,
        now_ms,
        head: head.as_deref(),
        tool_version: &cfg.tool_version,
        model_id: model.as_deref(),
        intent_id: pending.intent.as_deref(),
        session_id: &input.session_id,
        call_id: &input.call_id,
        tool,
    };
    let rec = trace::record(&rin, class, entries);
    let chained = match trace::chained(&rec) {
        Ok(c) => c,
        Err(e) => {
            out.logs.push(Log::warn(format!(
                "trace: could not serialize the record: {e}"
            )));
            return out;
        }
    };
    let u = Unwritten {
        chained,
        id: rec.id.clone(),
        tool: tool.to_string(),
    };
    if let Ok(written) = trace_io::append_record(io, gov, wt, u, &mut out.logs).await {
        out.recorded = written;
        out.id = Some(rec.id.clone());
    }
    out
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SelectInput {
    pub session_id: String,
    pub intent_id: String,
    pub worktree: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectOutput {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intent_id: Option<String>,
    /// The tool result the model reads (the intent, or why not).
    pub text: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
}

fn bullets(items: &[String]) -> String {
    items.iter().map(|i| format!("\n- {i}")).collect()
}

fn scope_bullets(scope: &[String]) -> String {
    scope
        .iter()
        .map(|p| {
            if p.trim_start().starts_with('!') {
                format!("\n- {p} (excluded)")
            } else {
                format!("\n- {p}")
            }
        })
        .collect()
}

/// `select_active_intent(intent_id)`.
pub async fn select_intent(io: &Io, gov: &Governance, input: &SelectInput) -> SelectOutput {
    let mut out = SelectOutput::default();
    let Some(file) = refresh(io, gov, &input.worktree, &mut out.logs).await else {
        out.text = format!("Intent governance is off in this project ({INTENTS_FILE} does not exist); there is nothing to select and changes are not gated.");
        return out;
    };
    let id = input.intent_id.trim();
    let valid = gate::choices(&file);
    let Some(intent) = file.get(id) else {
        out.text = if valid.is_empty() {
            format!("Unknown intent id '{id}'. No intent is IN_PROGRESS in {INTENTS_FILE}; ask the user to add one.")
        } else {
            format!("Unknown intent id '{id}'. Valid ids: {valid}.")
        };
        if let Some(p) = problems_text(&file.problems) {
            out.text.push_str("\n\n");
            out.text.push_str(&p);
        }
        return out;
    };
    if intent.status != Status::InProgress {
        out.text = format!(
            "Intent {id} ({}) is {} and cannot be activated. {}",
            intent.name,
            intent.status.as_str(),
            if valid.is_empty() {
                "No intent is IN_PROGRESS; ask the user.".to_string()
            } else {
                format!("Choose one of: {valid}.")
            }
        );
        return out;
    }
    if let Some(s) = gov.scope(&input.worktree, &file, id) {
        if let Err(e) = s.as_ref() {
            out.text =
                format!("Intent {id} cannot be activated: its owned_scope does not compile ({e}).");
            return out;
        }
    }
    gov.select(&input.session_id, id);
    out.ok = true;
    out.intent_id = Some(id.to_string());
    let mut t = format!(
        "Active intent for this session: {} — {} (IN_PROGRESS).\nOwned scope (changes to files outside it are blocked):{}",
        intent.id,
        intent.name,
        scope_bullets(&intent.owned_scope)
    );
    if !intent.constraints.is_empty() {
        t.push_str(&format!("\nConstraints:{}", bullets(&intent.constraints)));
    }
    if !intent.acceptance_criteria.is_empty() {
        t.push_str(&format!(
            "\nAcceptance criteria:{}",
            bullets(&intent.acceptance_criteria)
        ));
    }
    t.push_str("\nShell commands are allowed under this intent but are not scope-checked: keep them within the scope too.");
    out.text = t;
    out
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SystemInput {
    pub session_id: String,
    pub worktree: String,
    pub model_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemOutput {
    /// Text to push into the system prompt (empty while governance is off).
    pub system: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
}

/// Keep the recent-records cache of `worktree` current (re-read only when the file changed).
async fn refresh_recent(io: &Io, gov: &Governance, worktree: &str) {
    let path = join(worktree, TRACE_FILE);
    let s = stat(io, &path).await;
    if !s.exists {
        let mut st = gov.inner.borrow_mut();
        if let Some(p) = st.projects.get_mut(worktree) {
            p.recent.clear();
            p.trace_key = None;
        }
        return;
    }
    let key = (s.size, s.mtime_ms.to_bits());
    if gov
        .inner
        .borrow()
        .projects
        .get(worktree)
        .and_then(|p| p.trace_key)
        == Some(key)
    {
        return;
    }
    let v = io
        .request(Request::ReadTail {
            path,
            max_bytes: RECENT_TAIL_BYTES,
        })
        .await;
    let r: ReadResult = serde_json::from_value(v).unwrap_or_default();
    let Some(text) = r.text else { return };
    let mut recent: Vec<RecentEntry> = text.lines().filter_map(summarize).collect();
    if recent.len() > MAX_RECENT {
        recent.drain(..recent.len() - MAX_RECENT);
    }
    let mut st = gov.inner.borrow_mut();
    let p = st.projects.entry(worktree.to_string()).or_default();
    p.recent = recent;
    p.trace_key = Some(key);
}

/// One line of `<recent_changes>` from a record line.
fn summarize(line: &str) -> Option<RecentEntry> {
    let v: Value = serde_json::from_str(line).ok()?;
    let meta = v.get("metadata")?.get("dev.hookwise")?;
    let intent = meta
        .get("intent_id")
        .and_then(Value::as_str)
        .map(str::to_string);
    let ts = v.get("timestamp").and_then(Value::as_str).unwrap_or("?");
    let tool = meta.get("tool").and_then(Value::as_str).unwrap_or("?");
    let class = meta
        .get("mutation_class")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let mut files = Vec::new();
    for f in v.get("files")?.as_array()? {
        let path = f.get("path").and_then(Value::as_str).unwrap_or("?");
        let mut spans = Vec::new();
        for c in f
            .get("conversations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for r in c
                .get("ranges")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let s = r.get("start_line").and_then(Value::as_u64).unwrap_or(0);
                let e = r.get("end_line").and_then(Value::as_u64).unwrap_or(0);
                spans.push(if s == e {
                    format!("{s}")
                } else {
                    format!("{s}-{e}")
                });
            }
        }
        files.push(match spans.as_slice() {
            [] => path.to_string(),
            [one] if !one.contains('-') => format!("{path} (line {one})"),
            _ => format!("{path} (lines {})", spans.join(", ")),
        });
    }
    Some(RecentEntry {
        intent,
        summary: format!("{ts} {tool} {} [{class}]", files.join("; ")),
    })
}

/// The `<intent_context>` block for the system prompt.
pub async fn system_context(io: &Io, gov: &Governance, input: &SystemInput) -> SystemOutput {
    let mut out = SystemOutput::default();
    if let Some(m) = &input.model_id {
        gov.set_model(&input.session_id, m);
    }
    let Some(file) = refresh(io, gov, &input.worktree, &mut out.logs).await else {
        return out;
    };
    let active = gov.active_intent(&input.session_id);
    let current = active
        .as_deref()
        .and_then(|id| file.get(id))
        .filter(|i| i.status == Status::InProgress);
    let mut t = String::from("<intent_context>\n");
    match current {
        Some(intent) => {
            refresh_recent(io, gov, &input.worktree).await;
            t.push_str(&format!(
                "Active intent: {} — {} (IN_PROGRESS). Changes to files outside its owned_scope are blocked; shell commands are allowed but not scope-checked.\n<owned_scope>{}\n</owned_scope>\n",
                intent.id,
                intent.name,
                scope_bullets(&intent.owned_scope)
            ));
            if !intent.constraints.is_empty() {
                t.push_str(&format!(
                    "<constraints>{}\n</constraints>\n",
                    bullets(&intent.constraints)
                ));
            }
            if !intent.acceptance_criteria.is_empty() {
                t.push_str(&format!(
                    "<acceptance_criteria>{}\n</acceptance_criteria>\n",
                    bullets(&intent.acceptance_criteria)
                ));
            }
            let st = gov.inner.borrow();
            let recent: Vec<String> = st
                .projects
                .get(&input.worktree)
                .map(|p| {
                    let mine: Vec<&RecentEntry> = p
                        .recent
                        .iter()
                        .filter(|r| r.intent.as_deref() == Some(intent.id.as_str()))
                        .collect();
                    mine[mine.len().saturating_sub(5)..]
                        .iter()
                        .map(|r| r.summary.clone())
                        .collect()
                })
                .unwrap_or_default();
            if recent.is_empty() {
                t.push_str("<recent_changes>\n(none recorded yet)\n</recent_changes>\n");
            } else {
                t.push_str(&format!(
                    "<recent_changes>{}\n</recent_changes>\n",
                    bullets(&recent)
                ));
            }
        }
        None => {
            t.push_str("Intent governance is on in this project: file changes (write, edit, patch) and shell commands are blocked until this session has an active intent, and file changes must stay inside that intent's owned_scope.\n");
            if let Some(id) = &active {
                match file.get(id) {
                    Some(i) => t.push_str(&format!(
                        "The intent this session had, {id}, is now {}.\n",
                        i.status.as_str()
                    )),
                    None => t.push_str(&format!(
                        "The intent this session had, {id}, is no longer in {INTENTS_FILE}.\n"
                    )),
                }
            }
            let avail: Vec<String> = file
                .selectable()
                .map(|i| format!("{}: {} — scope: {}", i.id, i.name, i.owned_scope.join(", ")))
                .collect();
            if avail.is_empty() {
                t.push_str(&format!("No intent is IN_PROGRESS in {INTENTS_FILE}, so changes are blocked; ask the user to add or reopen one.\n"));
            } else {
                t.push_str("Before changing code, call the `select_active_intent` tool with the id of the intent this task belongs to.\nAvailable intents:");
                t.push_str(&bullets(&avail));
                t.push('\n');
            }
            let closed: Vec<String> = file
                .intents
                .iter()
                .filter(|i| i.status != Status::InProgress)
                .map(|i| format!("{}: {} ({})", i.id, i.name, i.status.as_str()))
                .collect();
            if !closed.is_empty() {
                t.push_str("Not selectable:");
                t.push_str(&bullets(&closed));
                t.push('\n');
            }
        }
    }
    if let Some(p) = problems_text(&file.problems) {
        t.push_str(&p);
        t.push('\n');
    }
    t.push_str("</intent_context>");
    out.system.push(t);
    out
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InitInput {
    pub worktree: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitOutput {
    pub created: bool,
    pub path: String,
    pub message: String,
}

/// Scaffold `.orchestration/active_intents.yaml` with `active_intents: []`; never overwrite.
pub async fn init_scaffold(io: &Io, input: &InitInput) -> InitOutput {
    let path = join(&input.worktree, INTENTS_FILE);
    if input.worktree.is_empty() {
        return InitOutput {
            created: false,
            path,
            message: "no worktree given".into(),
        };
    }
    let reply = io
        .request(Request::CreateFile {
            path: path.clone(),
            text: SCAFFOLD.into(),
        })
        .await;
    let ok = reply.get("ok").and_then(Value::as_bool).unwrap_or(false);
    let err = ReplyError::describe_reply(&reply, "no reply");
    let message = if ok {
        format!("created {path}: intent governance is now on; add intents to it")
    } else if ReplyError::in_reply(&reply) == Some(ReplyError::Exists) {
        format!("{path} already exists; left unchanged")
    } else {
        format!("could not create {path}: {err}")
    };
    InitOutput {
        created: ok,
        path,
        message,
    }
}

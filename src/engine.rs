//! The engine: one object per plugin instance. Hosts call [`Engine::start`] with a hook call
//! (JSON) and [`Engine::resume`] with each reply; both answer with a [`Step`]. All hooks go
//! through this one loop.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::config::Config;
use crate::context::{self, Style};
use crate::discovery::{self, Discovery};
use crate::knowledge::{ContextQuery, Source, VaultIndex};
use crate::maenifold::BuildContext;
use crate::mcp::cache::{self, CacheKey, ContextCache};
#[cfg(feature = "policy")]
use crate::mcp::{McpHandle, Router};
use crate::placement::{self, ArgsView, Excerpt, Placement};
use crate::protocol::{Log, Mutation, PathKey};
use crate::runtime::{join_all, Io, Ops, Step};
use crate::session::{self, Channel, SessionConfig, SessionInfo, SessionState};

#[cfg(feature = "policy")]
use crate::enforce::{self, Enforcer, Level as EnforceLevel, MemorySource};

/// A hook call from the host.
#[derive(Debug, Deserialize)]
#[serde(tag = "hook", rename_all_fields = "camelCase")]
pub enum Call {
    /// Plugin start: options, the environment it needs and the working directory.
    #[serde(rename = "init")]
    Init {
        #[serde(default)]
        options: Value,
        #[serde(default)]
        env: BTreeMap<String, String>,
        #[serde(default)]
        cwd: String,
        /// OpenCode's `worktree` and `directory` (the project name comes from them).
        #[serde(default)]
        worktree: String,
        #[serde(default)]
        directory: String,
        /// The host can run the maenifold MCP server (`mcpStart` …); a host that runs
        /// maenifold through its own runner cannot: the CLI path only.
        #[serde(default = "yes")]
        mcp: bool,
        /// Which host this is (`opencode`, `openclaw`, `claude-code`, `vscode`): the profile
        /// the gate, the trace, enforcement and placement read ([`crate::host`]). Absent:
        /// `vscode`; anything else unknown: a warning and `vscode`.
        #[serde(default)]
        host: Option<Value>,
    },
    /// Start the warm maenifold MCP session now instead of on first need (plugin start with
    /// session-start context on). Result: `{ok, error?, status, logs}`.
    #[serde(rename = "mcp.warmup")]
    McpWarmup,
    /// The plugin is going away: stop the MCP session. Result: `{stopped}`.
    #[serde(rename = "dispose")]
    Dispose,
    /// A session was created (OpenCode `event` `session.created`: `event.properties.info`).
    #[serde(rename = "session.created")]
    SessionCreated { session: SessionInfo },
    /// Before a model request (OpenCode `experimental.chat.system.transform`).
    #[serde(rename = "system.transform")]
    SystemTransform {
        #[serde(default)]
        session_id: Option<String>,
        #[serde(default)]
        system: Vec<String>,
        /// `provider/model` (OpenCode's `input.model`), for Agent Trace records.
        #[cfg(feature = "policy")]
        #[serde(default)]
        model_id: Option<String>,
    },
    /// The session-start context for a project, computed now (the `hookwise session` command,
    /// engine hosts). `strategy`: `parallel` (default), `sequential`, `seed` (the benchmark's
    /// baseline).
    #[serde(rename = "session.preview")]
    SessionPreview {
        #[serde(default)]
        project: Option<String>,
        #[serde(default)]
        strategy: Option<String>,
    },
    /// What hookwise knows about itself: knowledge source, discovery, configuration.
    #[serde(rename = "doctor")]
    Doctor,
    /// `hookwise init`: create hookwise's configuration files in the project, never
    /// overwriting one that exists.
    #[serde(rename = "init.scaffold")]
    Scaffold {
        #[serde(default)]
        cwd: String,
    },
    /// `hookwise init --governance`: create `.orchestration/active_intents.yaml`
    /// (`active_intents: []`), never overwriting; it turns intent governance on. Result: like
    /// `init.scaffold`'s. Policy build (the lean one answers `{needs: "policy"}`).
    #[cfg(feature = "policy")]
    #[serde(rename = "governance.scaffold")]
    GovScaffold {
        #[serde(default)]
        cwd: String,
    },
    /// Before the summarising model call (OpenCode `experimental.session.compacting`).
    #[serde(rename = "session.compacting")]
    SessionCompacting {
        session_id: String,
        #[serde(default)]
        now_ms: f64,
    },
    /// Before a tool runs (OpenCode `tool.execute.before`).
    /// The arguments come whole (`args`) or, as the plan asks, as top-level field types
    /// plus excerpts around each needle the host found (`fields`, `excerpts`).
    #[serde(rename = "tool.before")]
    ToolBefore {
        tool: String,
        #[serde(default)]
        session_id: String,
        #[serde(default)]
        call_id: String,
        #[serde(default)]
        args: Option<Value>,
        #[serde(default)]
        fields: BTreeMap<String, String>,
        #[serde(default)]
        excerpts: Option<Vec<Excerpt>>,
        /// Decide as the hook would, against the real cooldowns, but record nothing (no
        /// metrics line, no state change): `hookwise check`. The decision says `dryRun`.
        #[cfg(feature = "policy")]
        #[serde(default)]
        dry_run: bool,
        /// The host cannot show the model changed arguments (OpenClaw runs a `params`
        /// rewrite but replays the model's original call): everything goes with the result.
        #[serde(default)]
        result_only: bool,
        /// The arguments could not be read whole ([`crate::wire::Unreadable::from_code`]): the
        /// host could not encode them, or the core cut what nested too deep. Governance and
        /// enforcement refuse the call; knowledge context reads what is there.
        #[serde(default)]
        unreadable: Option<String>,
    },
    /// After a tool ran (OpenCode `tool.execute.after`).
    #[serde(rename = "tool.after")]
    ToolAfter {
        tool: String,
        #[serde(default)]
        session_id: String,
        #[serde(default)]
        call_id: String,
        /// The tool's arguments (OpenCode passes them in the after hook's input): governance
        /// records the mutation from them.
        #[cfg(feature = "policy")]
        #[serde(default)]
        args: Option<Value>,
        /// 16 random bytes as 32 hex characters (the record's uuid).
        #[cfg(feature = "policy")]
        #[serde(default)]
        random: String,
        /// The tool failed: nothing is recorded.
        #[cfg(feature = "policy")]
        #[serde(default)]
        failed: bool,
        /// As in `tool.before`: the arguments could not be read whole (nothing is recorded
        /// from them; the warning says so).
        #[cfg(feature = "policy")]
        #[serde(default)]
        unreadable: Option<String>,
    },
    /// Intent governance: the `select_active_intent` tool. Result: `{ok, intentId?, text}`
    /// (`text` is the tool result for the model); in the lean build `{needs: "policy"}`.
    #[cfg(feature = "policy")]
    #[serde(rename = "intent.select")]
    IntentSelect {
        #[serde(default)]
        session_id: String,
        #[serde(default)]
        intent_id: String,
    },
    /// Intent governance: the `<intent_context>` text for a session. Result: `{system: [..]}`.
    #[cfg(feature = "policy")]
    #[serde(rename = "intent.context")]
    IntentContext {
        #[serde(default)]
        session_id: String,
        #[serde(default)]
        model_id: Option<String>,
    },
    /// Intent governance: verify the Agent Trace chain and head (and `anchor`, a head printed
    /// earlier). Result: `{path, headPath, ok, lines, problems, logHead?, storedHead?, error?}`.
    #[cfg(feature = "policy")]
    #[serde(rename = "trace.verify")]
    TraceVerify {
        #[serde(default)]
        anchor: Option<String>,
    },
    /// Intent governance: the Agent Trace's head to anchor; `init` writes it for the log as it
    /// is. Result: `{ok, written?, text?, message, verify}`.
    #[cfg(feature = "policy")]
    #[serde(rename = "trace.head")]
    TraceHead {
        #[serde(default)]
        init: bool,
    },
    /// A model called one of the plan's `tools` ([`crate::tools`]). Result: `{text, isError}`
    /// (`text` is the tool result the model reads; bad input is an `isError` text).
    #[serde(rename = "tool.call")]
    ToolCall {
        name: String,
        #[serde(default)]
        input: Value,
        #[serde(default)]
        session_id: String,
    },
    /// The enforcement metrics (`hookwise metrics [verify]`): reads the files the
    /// configuration names. Result: `{ok, text, metricsFile, stateFile}`; in the lean build
    /// `{needs: "policy"}`.
    #[serde(rename = "metrics")]
    Metrics {
        #[serde(default)]
        verify: bool,
    },
    /// A Claude Code hook event with its payload's fields: answered with Claude Code's hook
    /// JSON ([`crate::claude`]). Policy build (the lean one answers `{needs: "policy"}`: the
    /// lean wasm stays within its size budget).
    #[cfg(feature = "policy")]
    #[serde(rename = "claude.hook")]
    Claude(crate::claude::Hook),
}

impl Call {
    /// The core cut part of this call's arguments (or the host said it could not encode
    /// them): a tool call is marked so that policy refuses it; other calls read what is left.
    fn mark_unreadable(&mut self, code: &str) {
        match self {
            Call::ToolBefore { unreadable, .. } => {
                unreadable.get_or_insert_with(|| code.to_string());
            }
            #[cfg(feature = "policy")]
            Call::ToolAfter { unreadable, .. } => {
                unreadable.get_or_insert_with(|| code.to_string());
            }
            _ => {}
        }
    }
}

/// Which hooks need the engine at all, so the host can skip the crossing for the others.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// `tool.before` is needed only for calls with a string containing `needle`; the host
    /// sends the top-level field types and, for each string, excerpts: from one character
    /// before each `needle` to one character after the next `close`, when that lies within
    /// `window` characters (else that occurrence is skipped). `None`: not needed at all.
    pub tool_before: Option<ExcerptPlan>,
    /// `session.created` events are wanted.
    pub session_created: bool,
    /// `system.transform` is wanted (session context goes into the system prompt).
    pub system_transform: bool,
    /// `session.compacting` is wanted.
    pub compaction: bool,
    /// Pre-action enforcement is on: every `tool.before` goes to the engine with the whole
    /// arguments (`args`), not excerpts.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tool_before_all: bool,
    /// Intent governance is on: `tool.before` for these tools goes to the engine with the
    /// whole arguments (a `followUp` asks for `tool.after` with the arguments).
    #[cfg(feature = "policy")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_before_tools: Vec<String>,
    /// Governance or enforcement is on: a `tool.before` the core cannot answer (it fails, or
    /// the host cannot hand it over) is blocked, never waved through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_closed: Option<FailClosed>,
    /// The tools the host offers the model now ([`crate::tools`]); a call goes to `tool.call`.
    pub tools: Vec<crate::tools::ToolSpec>,
    /// The bounds the host checks a call's arguments against before they cross
    /// ([`crate::wire`]); past them it sends `unreadable` instead.
    pub args_limits: crate::wire::ArgsLimits,
}

/// Which tool calls the host blocks when the core cannot answer them, and what it tells the
/// model: `message` with `{tool}` and `{error}` filled in.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FailClosed {
    /// Every tool (enforcement is on).
    pub all: bool,
    /// The tools governance gates.
    pub tools: Vec<String>,
    pub message: String,
}

impl FailClosed {
    const MESSAGE: &'static str = "hookwise blocked `{tool}`: it could not check this call ({error}), and in this project intent governance or pre-action enforcement blocks what it cannot check. Try again; tell the user if it keeps failing.";

    /// `None` when neither is on.
    pub fn new(enforcing: bool, gated: Vec<String>) -> Option<FailClosed> {
        (enforcing || !gated.is_empty()).then(|| FailClosed {
            all: enforcing,
            tools: gated,
            message: Self::MESSAGE.to_string(),
        })
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ExcerptPlan {
    pub needle: String,
    pub close: String,
    pub window: usize,
    /// Spans `[open, close]` whose needles are not excerpted (hookwise's own earlier blocks).
    pub skip: Vec<(String, String)>,
}

/// How far (in UTF-16 units, as JS counts) an excerpt may run from `[[` to `]]`: enough for
/// the longest link body the core accepts even in astral-plane characters.
pub const EXCERPT_WINDOW: usize = 2 * crate::wikilink::MAX_LINK_CHARS + 8;

/// The result of `tool.before` and `tool.after`.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// Changes to apply in place: to `output.args` before, to `output` after.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mutations: Vec<Mutation>,
    /// The host must call `tool.after` for this call id.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub follow_up: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub concepts: Vec<String>,
    /// The context text (for hosts that place it themselves).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
    /// Pre-action enforcement blocks the call: the host throws this message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// Pre-action enforcement's advice (already placed: comment lines or with the result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
    /// The enforcement decision (`enforce::Decision` without its logs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<Value>,
    /// `tool.after`: intent governance appended an Agent Trace record (its id).
    #[cfg(feature = "policy")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<String>,
}

struct Shared {
    config: Config,
    /// The warm maenifold MCP session (configured at init; idle until first need).
    #[cfg(feature = "policy")]
    mcp: McpHandle,
    session: SessionConfig,
    project: String,
    source: Option<Source>,
    /// Context waiting for a tool's result, by call id (bounded: oldest dropped).
    after: VecDeque<(String, String)>,
    /// BuildContext answers by (source, concept, parameters), TTL 5 min, LRU-bounded.
    cache: ContextCache,
    /// The host's clock (ms since the epoch) as of the latest call or reply.
    clock: Rc<std::cell::Cell<u64>>,
    /// How init went, for `doctor`.
    discovery: Option<Discovery>,
    init_warnings: Vec<String>,
    /// The project root hookwise started in.
    cwd: String,
    /// The host's profile (from `init`).
    host: &'static crate::host::Profile,
    /// The model tools offered ([`crate::tools`]).
    tools: crate::tools::Registry,
    #[cfg(feature = "policy")]
    enforcer: Option<Enforcer>,
    #[cfg(feature = "policy")]
    gov: crate::engine_gov::Wiring,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            config: Config::default(),
            #[cfg(feature = "policy")]
            mcp: McpHandle::new(Default::default()),
            session: SessionConfig::default(),
            project: String::new(),
            source: None,
            after: VecDeque::new(),
            cache: ContextCache::new(cache::DEFAULT_TTL_MS, cache::DEFAULT_MAX_ENTRIES),
            clock: Rc::default(),
            discovery: None,
            init_warnings: Vec::new(),
            cwd: String::new(),
            host: crate::host::default_profile(),
            tools: Default::default(),
            #[cfg(feature = "policy")]
            enforcer: None,
            #[cfg(feature = "policy")]
            gov: Default::default(),
        }
    }
}

const MAX_PENDING_AFTER: usize = 256;

pub struct Engine {
    ops: Ops,
    shared: Rc<RefCell<Shared>>,
    /// Kept apart from `shared`: session operations hold it across awaits.
    sessions: Rc<RefCell<SessionState>>,
    /// Every step passes through it: MCP answers wake the operations parked on them. The
    /// warm MCP session is in the policy (full) build only.
    #[cfg(feature = "policy")]
    router: Router,
    /// Steps of other operations that an entry woke (see [`Engine::take_woken`]).
    woken: Vec<Step>,
    /// MCP session warnings not yet given to the host (they go with the next result).
    #[cfg(feature = "policy")]
    mcp_logs: Vec<Log>,
}

impl Default for Engine {
    fn default() -> Self {
        let shared: Rc<RefCell<Shared>> = Rc::default();
        #[cfg(feature = "policy")]
        let router = Router::new(shared.borrow().mcp.clone());
        Engine {
            ops: Ops::default(),
            shared,
            sessions: Rc::default(),
            #[cfg(feature = "policy")]
            router,
            woken: Vec::new(),
            #[cfg(feature = "policy")]
            mcp_logs: Vec::new(),
        }
    }
}

fn yes() -> bool {
    true
}

/// An error in the host's call itself (bad JSON, unknown hook): a typed error, not a panic.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallError {
    pub kind: &'static str,
    pub message: String,
}

impl Engine {
    pub fn new() -> Engine {
        Engine::default()
    }

    /// Start a hook call given as JSON.
    /// The host's clock (ms since the epoch): every start and resume brings it. It never runs
    /// backwards here.
    pub fn observe_now(&mut self, now_ms: f64) {
        if now_ms.is_finite() && now_ms > 0.0 {
            let s = self.shared.borrow();
            s.clock.set(s.clock.get().max(now_ms as u64));
            #[cfg(feature = "policy")]
            s.mcp.observe_now(now_ms as u64);
        }
    }

    /// The first step is the entry's own; the others (operations woken by MCP answers) wait
    /// in [`Engine::take_woken`].
    #[cfg(feature = "policy")]
    fn first(&mut self, mut steps: Vec<Step>) -> Option<Step> {
        let logs = self.shared.borrow().mcp.take_logs();
        if !logs.is_empty() {
            // The session's warnings (one per incident) go out with whichever result is next.
            self.mcp_logs.extend(logs);
        }
        for s in steps.iter_mut() {
            self.attach_logs(s);
        }
        if steps.is_empty() {
            return None;
        }
        let own = steps.remove(0);
        self.woken.append(&mut steps);
        Some(own)
    }

    #[cfg(feature = "policy")]
    fn attach_logs(&mut self, step: &mut Step) {
        let Step::Done { result, .. } = step else {
            return;
        };
        let Value::Object(m) = result else { return };
        let pending = std::mem::take(&mut self.mcp_logs);
        if pending.is_empty() {
            return;
        }
        let logs = m.entry("logs").or_insert_with(|| json!([]));
        if let Value::Array(a) = logs {
            a.extend(pending.iter().map(to_value));
        }
    }

    /// Steps of other operations woken since the last call (MCP answers, exits), in order;
    /// the host handles each like the step of that operation.
    pub fn take_woken(&mut self) -> Vec<Step> {
        std::mem::take(&mut self.woken)
    }

    /// Stdout data of MCP session `session` (bytes as they came). Wakes what they answer.
    #[cfg(feature = "policy")]
    pub fn mcp_feed(&mut self, session: u64, bytes: &[u8]) {
        let steps = self.router.feed(&mut self.ops, session, bytes);
        self.push_woken(steps);
    }

    /// MCP session `session` exited or closed stdout: `{code?, signal?, error?, stderr?}`.
    #[cfg(feature = "policy")]
    pub fn mcp_closed(&mut self, session: u64, info: &Value) {
        let steps = self.router.closed(&mut self.ops, session, info);
        self.push_woken(steps);
    }

    #[cfg(feature = "policy")]
    fn push_woken(&mut self, mut steps: Vec<Step>) {
        let logs = self.shared.borrow().mcp.take_logs();
        self.mcp_logs.extend(logs);
        for s in steps.iter_mut() {
            self.attach_logs(s);
        }
        self.woken.append(&mut steps);
    }

    pub fn start_json(&mut self, call: impl AsRef<[u8]>) -> Result<Step, CallError> {
        // Read as the host will act on it: lone surrogates as U+FFFD, over-deep values cut.
        let cleaned = crate::wire::clean(call.as_ref());
        let mut call: Call = match serde_json::from_slice(&cleaned.bytes) {
            Ok(c) => c,
            // The lean build does not know the governance calls: the host loads the policy
            // build and asks again.
            #[cfg(not(feature = "policy"))]
            Err(e) if policy_only(&e) => return Ok(self.needs_policy()),
            Err(e) => {
                return Err(CallError {
                    kind: "BadCall",
                    // serde quotes the offending value: it may be a secret
                    message: crate::redact::redact_string(format!("bad hook call: {e}")),
                });
            }
        };
        if cleaned.too_deep {
            call.mark_unreadable("depth");
        }
        Ok(self.start(call))
    }

    /// Hand back replies (JSON `[[id, reply], …]`) of operation `op`, all at once.
    /// `None`: nothing waits for them (a late answer).
    pub fn resume_json(
        &mut self,
        op: u64,
        replies: impl AsRef<[u8]>,
    ) -> Result<Option<Step>, CallError> {
        self.resume_with_bytes(op, replies, &[])
    }

    /// [`Engine::resume_json`] with `bytes` sent beside the replies: a reply
    /// `{"blob": [offset, length, size?, mtimeMs?]}` is a file read as raw bytes
    /// ([`crate::protocol::resolve_blob`]).
    pub fn resume_with_bytes(
        &mut self,
        op: u64,
        replies: impl AsRef<[u8]>,
        bytes: &[u8],
    ) -> Result<Option<Step>, CallError> {
        let cleaned = crate::wire::clean_replies(replies.as_ref());
        let mut replies: Vec<(u64, Value)> =
            serde_json::from_slice(&cleaned.bytes).map_err(|e| CallError {
                kind: "BadReply",
                message: format!("bad replies to operation {op}: {e}"),
            })?;
        for (_, reply) in &mut replies {
            crate::protocol::resolve_blob(reply, bytes);
        }
        Ok(self.ops_resume_many(op, replies))
    }

    pub fn resume(&mut self, op: u64, id: u64, reply: Value) -> Option<Step> {
        #[cfg(feature = "policy")]
        {
            let steps = self.router.resume(&mut self.ops, op, id, reply);
            self.first(steps)
        }
        #[cfg(not(feature = "policy"))]
        self.ops.resume(op, id, reply)
    }

    /// Several replies of one operation at once.
    pub fn ops_resume_many(&mut self, op: u64, replies: Vec<(u64, Value)>) -> Option<Step> {
        #[cfg(feature = "policy")]
        {
            let steps = self.router.resume_many(&mut self.ops, op, replies);
            self.first(steps)
        }
        #[cfg(not(feature = "policy"))]
        self.ops.resume_many(op, replies)
    }

    /// The host gave up on an operation; returns its requests to cancel.
    pub fn abandon(&mut self, op: u64) -> Vec<u64> {
        #[cfg(feature = "policy")]
        {
            let (ids, steps) = self.router.abandon(&mut self.ops, op);
            self.push_woken(steps);
            ids
        }
        #[cfg(not(feature = "policy"))]
        self.ops.abandon(op)
    }

    /// The answer of the lean build to a call only the policy build serves.
    #[cfg(not(feature = "policy"))]
    fn needs_policy(&mut self) -> Step {
        self.ops
            .start(move |_| async move { json!({"needs": "policy"}) })
    }

    pub fn start(&mut self, call: Call) -> Step {
        let step = self.start_raw(call);
        #[cfg(feature = "policy")]
        {
            let steps = self.router.route(&mut self.ops, step);
            self.first(steps).expect("a start always has its own step")
        }
        #[cfg(not(feature = "policy"))]
        step
    }

    fn start_raw(&mut self, call: Call) -> Step {
        let shared = self.shared.clone();
        match call {
            Call::Init {
                options,
                env,
                cwd,
                worktree,
                directory,
                mcp,
                host,
            } => self.ops.start(move |io| {
                init(io, shared, options, env, cwd, worktree, directory, mcp, host)
            }),
            #[cfg(not(feature = "policy"))]
            Call::McpWarmup => self.ops.start(move |_| async move { json!({}) }),
            #[cfg(not(feature = "policy"))]
            Call::Dispose => self
                .ops
                .start(move |_| async move { json!({ "stopped": false }) }),
            #[cfg(feature = "policy")]
            Call::McpWarmup => {
                let h = shared.borrow().mcp.clone();
                self.ops
                    .start(move |io| async move { crate::mcp::session::warm_up(&io, &h).await })
            }
            #[cfg(feature = "policy")]
            Call::Dispose => {
                let h = shared.borrow().mcp.clone();
                self.ops.start(move |io| async move {
                    let running = h.status().session;
                    crate::mcp::session::shutdown(&io, &h).await;
                    json!({ "stopped": running })
                })
            }
            Call::SessionCreated { session } => {
                #[cfg(feature = "policy")]
                shared
                    .borrow()
                    .gov
                    .gov
                    .session_created(&session.id, session.parent_id.as_deref());
                let sessions = self.sessions.clone();
                self.ops.start(move |io| async move {
                    let (source, cfg, project) = snapshot(&shared);
                    to_value(
                        session::session_created(
                            &io,
                            &sessions,
                            source.as_ref(),
                            &session,
                            &project,
                            &cfg,
                        )
                        .await,
                    )
                })
            }
            Call::SystemTransform {
                session_id,
                system,
                #[cfg(feature = "policy")]
                model_id,
            } => {
                let sessions = self.sessions.clone();
                self.ops.start(move |io| async move {
                    let (_, cfg, _) = snapshot(&shared);
                    #[allow(unused_mut)]
                    let mut r = session::system_transform(
                        &io,
                        &sessions,
                        session_id.as_deref(),
                        &system,
                        &cfg,
                    )
                    .await;
                    // Intent governance's block comes after the session context.
                    #[cfg(feature = "policy")]
                    {
                        let w = shared.borrow().gov.clone();
                        let mut g = w.system(&io, session_id.as_deref(), &system, model_id).await;
                        r.system.append(&mut g.system);
                        r.logs.append(&mut g.logs);
                    }
                    to_value(r)
                })
            }
            Call::SessionPreview { project, strategy } => self.ops.start(move |io| async move {
                let (source, cfg, default_project) = snapshot(&shared);
                let project = project.filter(|p| !p.trim().is_empty()).unwrap_or(default_project);
                let strategy = match strategy.as_deref() {
                    Some("sequential") => session::Strategy::Sequential,
                    Some("seed") => session::Strategy::SeedSequential,
                    _ => session::Strategy::Parallel,
                };
                match source {
                    Some(src) => to_value(session::session_start(&io, &src, &project, &cfg, strategy).await),
                    None => json!({"project": project, "concepts": [], "calls": 0, "failures": [],
                        "logs": [Log::warn("no knowledge source: nothing to start a session with")]}),
                }
            }),
            Call::Doctor => {
                let s = shared.borrow();
                let report = json!({
                    "discovery": s.discovery,
                    "source": s.source.as_ref().map(Source::name),
                    "project": s.project,
                    "warnings": s.init_warnings,
                    "cache": s.cache.stats,
                    "mcp": match &s.source {
                        #[cfg(feature = "policy")]
                        Some(Source::Mcp { h, .. }) => to_value(h.status()),
                        _ => Value::Null,
                    },
                    "vault": match &s.source {
                        Some(Source::Vault(v)) => json!({"root": v.root, "index": v.report()}),
                        _ => Value::Null,
                    },
                });
                drop(s);
                self.ops.start(move |_| async move { report })
            }
            #[cfg(feature = "policy")]
            Call::GovScaffold { cwd } => self.ops.start(move |io| async move {
                let r = crate::governance::init_scaffold(
                    &io,
                    &crate::governance::InitInput { worktree: cwd },
                )
                .await;
                let rel = crate::governance::ops::INTENTS_FILE;
                let kept = !r.created && r.message.ends_with("left unchanged");
                json!({
                    "created": if r.created { vec![rel] } else { vec![] },
                    "kept": if kept { vec![rel] } else { vec![] },
                    "failed": if r.created || kept { vec![] } else { vec![r.message] },
                })
            }),
            Call::Scaffold { cwd } => self.ops.start(move |io| async move {
                let files = scaffold_files();
                let replies = join_all(
                    files
                        .iter()
                        .map(|(rel, text)| {
                            io.request(crate::protocol::Request::CreateFile {
                                path: format!("{}/{rel}", cwd.trim_end_matches('/')),
                                text: text.to_string(),
                            })
                        })
                        .collect(),
                )
                .await;
                let (mut created, mut kept, mut failed) = (vec![], vec![], vec![]);
                for ((rel, _), r) in files.iter().zip(replies) {
                    match (r.get("ok").and_then(Value::as_bool), r.get("error").and_then(Value::as_str)) {
                        (Some(true), _) => created.push(*rel),
                        (_, Some("EEXIST")) => kept.push(*rel),
                        (_, e) => failed.push(format!("{rel}: {}", e.unwrap_or("failed"))),
                    }
                }
                json!({"created": created, "kept": kept, "failed": failed})
            }),
            Call::SessionCompacting { session_id, now_ms } => {
                let sessions = self.sessions.clone();
                self.ops.start(move |io| async move {
                    let (source, cfg, project) = snapshot(&shared);
                    to_value(
                        session::compaction(
                            &io,
                            &sessions,
                            source.as_ref(),
                            &session_id,
                            &project,
                            now_ms,
                            &cfg,
                        )
                        .await,
                    )
                })
            }
            Call::ToolBefore {
                tool,
                #[cfg_attr(not(feature = "policy"), allow(unused_variables))]
                session_id,
                call_id,
                args,
                fields,
                excerpts,
                #[cfg(feature = "policy")]
                dry_run,
                result_only,
                unreadable,
            } => self.ops.start(move |io| async move {
                let now_ms = shared.borrow().clock.get();
                // Arguments that could not be read whole: governance and enforcement refuse
                // what they cannot check; knowledge context goes on with what is there.
                #[cfg(feature = "policy")]
                if let Some(code) = &unreadable {
                    if let Some(r) = refuse_unreadable(&shared, &tool, code) {
                        return to_value(r);
                    }
                }
                #[cfg(not(feature = "policy"))]
                let _ = &unreadable;
                // Intent governance first: its block skips enforcement and the lookups.
                #[cfg(feature = "policy")]
                let gate = match &args {
                    Some(a) => {
                        let w = shared.borrow().gov.clone(); // no borrow across awaits
                        let mut g = w.tool_before(&io, &tool, &session_id, &call_id, a).await;
                        if let Some(b) = g.block.take() {
                            return to_value(ToolResult {
                                block: Some(b),
                                logs: g.logs,
                                ..Default::default()
                            });
                        }
                        g
                    }
                    None => Default::default(),
                };
                // Enforcement first: a block skips the knowledge lookups.
                #[cfg(feature = "policy")]
                let enforcer = shared.borrow().enforcer.clone(); // no borrow across awaits
                #[cfg(feature = "policy")]
                let pre = match (&args, enforcer) {
                    (Some(a), Some(e)) => {
                        let mut d = if dry_run {
                            e.dry_run(&io, &tool, &session_id, a).await
                        } else {
                            e.before(&io, &tool, &session_id, a).await
                        };
                        let logs = std::mem::take(&mut d.logs);
                        if let Some(b) = d.block.clone() {
                            return to_value(ToolResult {
                                block: Some(b),
                                logs,
                                enforcement: Some(to_value(&d)),
                                ..Default::default()
                            });
                        }
                        Some((d, logs))
                    }
                    _ => None,
                };
                let view = match (&args, &excerpts) {
                    (Some(a), _) => ArgsView::Full(a),
                    (None, Some(e)) => ArgsView::Excerpts {
                        fields: &fields,
                        excerpts: e,
                    },
                    (None, None) => return to_value(ToolResult::default()),
                };
                #[allow(unused_mut)]
                let mut r =
                    tool_before(&io, &shared, &tool, &call_id, &view, now_ms, result_only).await;
                #[cfg(feature = "policy")]
                {
                    let mut logs = gate.logs;
                    logs.append(&mut r.logs);
                    r.logs = logs;
                    r.follow_up |= gate.follow_up;
                }
                #[cfg(feature = "policy")]
                if let Some((d, mut logs)) = pre {
                    logs.append(&mut r.logs);
                    r.logs = logs;
                    if let Some(advice) = d.advice.clone() {
                        place_advice(&shared, &mut r, &tool, &call_id, &view, advice, result_only);
                    }
                    r.enforcement = Some(to_value(&d));
                }
                to_value(r)
            }),
            #[cfg(not(feature = "policy"))]
            Call::ToolAfter { call_id, .. } => {
                let r = tool_after(&shared, &call_id);
                self.ops.start(move |_| async move { to_value(r) })
            }
            #[cfg(feature = "policy")]
            Call::ToolAfter {
                tool,
                session_id,
                call_id,
                args,
                random,
                failed,
                unreadable,
            } => {
                let mut r = tool_after(&shared, &call_id);
                // Nothing is recorded from arguments that could not be read whole (the
                // before hook refused such a call; a host that ran it anyway is told).
                let args = match &unreadable {
                    Some(code) => {
                        r.logs.push(Log::warn(format!(
                            "`{tool}`: no Agent Trace record: {}",
                            crate::wire::Unreadable::from_code(code).reason()
                        )));
                        None
                    }
                    None => args,
                };
                self.ops.start(move |io| async move {
                    let (w, now) = {
                        let s = shared.borrow();
                        (s.gov.clone(), s.clock.get() as f64)
                    };
                    if let Some(args) = args {
                        let mut g = w
                            .tool_after(&io, &tool, &session_id, &call_id, args, now, random, failed)
                            .await;
                        r.mutations.append(&mut g.mutations);
                        r.logs.append(&mut g.logs);
                        if g.recorded {
                            r.recorded = Some(g.id.unwrap_or_default());
                        }
                    }
                    to_value(r)
                })
            }
            #[cfg(feature = "policy")]
            Call::IntentSelect {
                session_id,
                intent_id,
            } => self.ops.start(move |io| async move {
                let w = shared.borrow().gov.clone();
                to_value(w.select(&io, &session_id, &intent_id).await)
            }),
            #[cfg(feature = "policy")]
            Call::IntentContext {
                session_id,
                model_id,
            } => self.ops.start(move |io| async move {
                let w = shared.borrow().gov.clone();
                to_value(w.context(&io, &session_id, model_id).await)
            }),
            #[cfg(feature = "policy")]
            Call::TraceVerify { anchor } => self.ops.start(move |io| async move {
                let w = shared.borrow().gov.clone();
                to_value(w.verify(&io, anchor).await)
            }),
            #[cfg(feature = "policy")]
            Call::TraceHead { init } => self.ops.start(move |io| async move {
                let w = shared.borrow().gov.clone();
                to_value(w.head(&io, init).await)
            }),

            Call::ToolCall {
                name,
                input,
                session_id,
            } => {
                let env = {
                    let s = shared.borrow();
                    crate::tools::Env {
                        registry: s.tools.clone(),
                        source: s.source.clone(),
                        max_entities: s.config.max_entities,
                        include_content: s.config.include_content,
                        #[cfg(feature = "policy")]
                        gov: s.gov.clone(),
                    }
                };
                self.ops.start(move |io| async move {
                    to_value(crate::tools::call(&io, &env, &name, &input, &session_id).await)
                })
            }
            #[cfg(feature = "policy")]
            Call::Metrics { verify } => {
                self.ops.start(move |io| async move { metrics(&io, &shared, verify).await })
            }
            #[cfg(not(feature = "policy"))]
            Call::Metrics { .. } => self.needs_policy(),
            #[cfg(feature = "policy")]
            Call::Claude(hook) => crate::claude::start(self, hook),
        }
    }

    /// Run `calls` one after another as one operation; `then` gets their results in order
    /// (a host adapter answering one host event with several hook calls: [`crate::claude`]).
    #[cfg(feature = "policy")]
    pub(crate) fn start_seq(
        &mut self,
        calls: Vec<Call>,
        then: impl FnOnce(Vec<Value>) -> Value + 'static,
    ) -> Step {
        self.ops.begin_capture();
        for c in calls {
            self.start_raw(c);
        }
        self.ops.end_capture(then)
    }
}

/// A call only the policy build knows (intent governance): serde names the unknown variant
/// (parsing the call again to look at its `hook` would cost the lean build a second parser).
#[cfg(not(feature = "policy"))]
fn policy_only(e: &serde_json::Error) -> bool {
    let m = e.to_string();
    [
        "`intent.select`",
        "`intent.context`",
        "`trace.verify`",
        "`trace.head`",
        "`governance.scaffold`",
        "`claude.hook`",
    ]
    .iter()
    .any(|h| m.starts_with(&format!("unknown variant {h}")))
}

/// The files `hookwise init` creates (relative to the project), with their first contents.
fn scaffold_files() -> Vec<(&'static str, &'static str)> {
    vec![(
        ".opencode/hookwise.json",
        "{\n  \"knowledge\": \"auto\",\n  \"tokenBudget\": 2000,\n  \"sessionContextChannel\": \"system\"\n}\n",
    )]
}

/// What a session operation needs from the shared state (no borrow held across awaits).
fn snapshot(shared: &Rc<RefCell<Shared>>) -> (Option<Source>, SessionConfig, String) {
    let s = shared.borrow();
    (s.source.clone(), s.session.clone(), s.project.clone())
}

fn to_value<T: Serialize>(t: T) -> Value {
    serde_json::to_value(t).unwrap_or(Value::Null)
}

/// Which knowledge source answers: option `knowledge` = `auto` (maenifold when its CLI is
/// found, else a vault when one exists, else none — quietly), `maenifold`, or `vault`. An
/// explicit CLI path (option `cliPath`, env `MAENIFOLD_CLI`) means maenifold.
/// The vault: option `vault` / env `HOOKWISE_VAULT`, else `$MAENIFOLD_ROOT/memory` (root
/// default `~/maenifold`), else `.opencode/knowledge/` in the project — the first that exists.
async fn choose_source(
    io: &Io,
    config: &Config,
    env: &BTreeMap<String, String>,
    cwd: &str,
    clock: Rc<std::cell::Cell<u64>>,
) -> (Option<Source>, Discovery, Vec<Log>) {
    let mut logs = Vec::new();
    let want = config.knowledge.as_str();
    let found = if want == "vault" {
        Discovery {
            path: None,
            source: "none",
            error: Some("knowledge is set to the vault".into()),
        }
    } else {
        discovery::discover(io, config.cli_path.clone(), env, cwd).await
    };
    if let Some(p) = &found.path {
        logs.push(match &found.error {
            Some(e) => Log::warn(format!("using maenifold at {p}; {e}")),
            None => Log::info(format!("using maenifold at {p} ({})", found.source)),
        });
        let src = Source::Cli {
            path: p.clone(),
            timeout_ms: config.timeout_ms,
            max_bytes: config.max_output_bytes,
        };
        return (Some(src), found, logs);
    }
    // A CLI path the user set explicitly that does not work is reported, not replaced by a
    // vault behind their back.
    if want == "maenifold" || config.cli_path.is_some() {
        logs.push(Log::warn(format!(
            "knowledge context is off: {}",
            found.error.clone().unwrap_or_default()
        )));
        return (None, found, logs);
    }
    // The vault candidates, first that is a folder.
    let join = |a: &str, b: &str| {
        if a.ends_with('/') {
            format!("{a}{b}")
        } else {
            format!("{a}/{b}")
        }
    };
    let mut candidates: Vec<(String, &'static str)> = Vec::new();
    if let Some(v) = &config.vault {
        candidates.push((
            if v.starts_with('/') {
                v.clone()
            } else {
                join(cwd, v)
            },
            "option",
        ));
    } else if let Some(v) = env.get("HOOKWISE_VAULT").filter(|v| !v.is_empty()) {
        candidates.push((
            if v.starts_with('/') {
                v.clone()
            } else {
                join(cwd, v)
            },
            "HOOKWISE_VAULT",
        ));
    }
    let explicit = !candidates.is_empty();
    if !explicit {
        let root = env
            .get("MAENIFOLD_ROOT")
            .filter(|r| !r.is_empty())
            .cloned()
            .or_else(|| {
                env.get("HOME")
                    .filter(|h| !h.is_empty())
                    .map(|h| join(h, "maenifold"))
            });
        if let Some(r) = root {
            candidates.push((join(&r, "memory"), "maenifold memory"));
        }
        if !cwd.is_empty() {
            candidates.push((join(cwd, ".hookwise/knowledge"), "project"));
            candidates.push((join(cwd, ".opencode/knowledge"), "project"));
        }
    }
    let stats = join_all(
        candidates
            .iter()
            .map(|(p, _)| io.request(crate::protocol::Request::Stat { path: p.clone() }))
            .collect(),
    )
    .await;
    for ((path, why), st) in candidates.iter().zip(stats) {
        let st: crate::protocol::StatResult = serde_json::from_value(st).unwrap_or_default();
        if st.exists && st.is_dir && !path.contains('\0') {
            let root = st.realpath.unwrap_or_else(|| path.clone());
            let index = Rc::new(VaultIndex::new(
                root.clone(),
                clock,
                config.vault_refresh_ms,
            ));
            index.ensure_fresh(io).await;
            let last = index.last.borrow().clone();
            match &last.error {
                Some(e) => logs.push(Log::warn(format!("vault {root}: {e}"))),
                None => logs.push(Log::info(format!(
                    "using the vault at {root} ({why}): {} notes, {} concepts{}",
                    last.stats.files,
                    last.stats.concepts,
                    if last.stats.skipped.total() > 0 {
                        format!(", {} files skipped", last.stats.skipped.total())
                    } else {
                        String::new()
                    }
                ))),
            }
            return (Some(Source::Vault(index)), found, logs);
        }
        if explicit {
            logs.push(Log::warn(format!(
                "knowledge context is off: the vault {path} ({why}) is not a folder"
            )));
            return (None, found, logs);
        }
    }
    if want == "vault" {
        logs.push(Log::warn(
            "knowledge context is off: no vault found (set the vault option or HOOKWISE_VAULT)",
        ));
    } else {
        logs.push(Log::warn(format!(
            "knowledge context is off: {}; no vault either",
            found.error.clone().unwrap_or_default()
        )));
    }
    (None, found, logs)
}

#[allow(clippy::too_many_arguments)] // the init call's fields, as they come
async fn init(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    options: Value,
    env: BTreeMap<String, String>,
    cwd: String,
    worktree: String,
    directory: String,
    host_mcp: bool,
    host: Option<Value>,
) -> Value {
    let (profile, host_log) = match &host {
        None | Some(Value::Null) => crate::host::choose(None),
        Some(Value::String(id)) => crate::host::choose(Some(id)),
        Some(other) => crate::host::choose(Some(&other.to_string())),
    };
    // OpenCode's worktree is `/` outside a git repository: the project is the directory then.
    let cwd = if (cwd.is_empty() || cwd == "/") && !directory.is_empty() {
        directory.clone()
    } else {
        cwd
    };
    // One step: does the project want enforcement or governance, and its .opencode/hookwise.json.
    let (wanted, (file, file_path), governance) = wants_policy(&io, &options, &cwd).await;
    #[cfg(not(feature = "policy"))]
    if wanted || governance {
        // The lean build has no enforcement: the host loads the policy build and starts again.
        return json!({ "needs": "policy" });
    }
    #[cfg(feature = "policy")]
    let loaded = if wanted {
        Some(enforce::load_config(&io, &cwd, &options).await)
    } else {
        None
    };
    #[cfg(feature = "policy")]
    let loaded_options = loaded.as_ref().map(|l| l.options.clone());
    #[cfg(not(feature = "policy"))]
    let loaded_options: Option<Value> = None;
    let (options, mut logs) = match loaded_options {
        // Enforcement's loader already merged .opencode/hookwise.json under the options.
        Some(o) => (o, Vec::new()),
        // The project's .opencode/hookwise.json, under the plugin's own options.
        None => crate::config::merge_file_options(&options, &file, file_path),
    };
    logs.extend(host_log);
    let (config, config_logs) = Config::from_sources(&options, &env);
    logs.extend(config_logs);
    let (session_cfg, session_logs) = SessionConfig::from_sources(&options, &env);
    logs.extend(session_logs);
    #[cfg(feature = "policy")]
    let gov = {
        let (w, glogs) =
            crate::engine_gov::Wiring::start(&options, governance, &cwd, &directory, profile);
        logs.extend(glogs);
        if w.on {
            logs.push(Log::info(format!(
                "intent governance is on ({}): file changes need an active intent",
                crate::engine_gov::INTENTS_FILE
            )));
        }
        w
    };
    #[cfg(not(feature = "policy"))]
    let _ = governance;
    let project = session::project_name(
        &worktree,
        if directory.is_empty() {
            &cwd
        } else {
            &directory
        },
    );
    let clock = shared.borrow().clock.clone();
    let (source, found, mut source_logs) = choose_source(&io, &config, &env, &cwd, clock).await;
    logs.append(&mut source_logs);
    // maenifold found: through the warm MCP session unless the transport is `cli`. The warm
    // session lives in the policy (full) build: the lean one hands over to it, as for
    // enforcement (maenifold users are the few with .NET installed; the lean build stays
    // small for everyone else). The full build reads and checks the transport options.
    #[cfg(not(feature = "policy"))]
    if matches!(source, Some(Source::Cli { .. }))
        && host_mcp
        && crate::mcp::McpOptions::transport(&options, &env).0 != crate::mcp::Transport::Cli
    {
        return json!({ "needs": "policy" });
    }
    #[cfg(feature = "policy")]
    let (mcp_opts, mcp_logs) =
        crate::mcp::McpOptions::from_sources(&options, &env, config.timeout_ms);
    #[cfg(feature = "policy")]
    logs.extend(mcp_logs);
    #[cfg(feature = "policy")]
    let h = shared.borrow().mcp.clone();
    #[cfg(feature = "policy")]
    let source = match source {
        Some(cli @ Source::Cli { .. })
            if host_mcp && mcp_opts.transport != crate::mcp::Transport::Cli =>
        {
            let Source::Cli { path, .. } = &cli else {
                unreachable!()
            };
            let setup = crate::mcp::McpSetup {
                cli_path: Some(path.clone()),
                env: BTreeMap::new(),
                source: format!("maenifold:{path}"),
                options: mcp_opts.clone(),
            };
            if let Some(old) = h.configure(setup) {
                // A second init: the old session goes.
                io.request(crate::protocol::Request::McpStop {
                    session: old,
                    grace_ms: mcp_opts.stop_grace_ms,
                })
                .await;
            }
            Some(Source::Mcp {
                h: h.clone(),
                cli: Box::new(cli),
                timeout_ms: config.timeout_ms,
            })
        }
        other => other,
    };
    #[cfg(feature = "policy")]
    let is_mcp = matches!(source, Some(Source::Mcp { .. }));
    #[cfg(not(feature = "policy"))]
    let is_mcp = false;
    let warm = is_mcp && session_cfg.enabled;
    #[cfg(feature = "policy")]
    let enforcer = match loaded {
        Some(l) => {
            logs.extend(l.issues.iter().map(|i| Log::warn(i.to_string())));
            // Memories come from the knowledge source: maenifold (the warm session or the CLI),
            // or the vault (searched in process, its BM25 scores calibrated to 0–1 per query).
            let memory = match &source {
                Some(s @ (Source::Cli { .. } | Source::Mcp { .. })) => {
                    Some(MemorySource::Maenifold(s.clone()))
                }
                Some(Source::Vault(v)) => Some(MemorySource::Vault(v.clone())),
                None => None,
            };
            let (e, mut elogs) = Enforcer::start(&io, l.settings, &cwd, &env, memory).await;
            logs.append(&mut elogs);
            e.use_clock(shared.borrow().clock.clone());
            e.use_host(profile);
            Some(e)
        }
        None => None,
    };
    #[cfg(feature = "policy")]
    let enforcing = enforcer
        .as_ref()
        .is_some_and(|e| e.settings().level != EnforceLevel::Disabled);
    #[cfg(not(feature = "policy"))]
    let enforcing = false;
    #[cfg(feature = "policy")]
    let gov_on = gov.on;
    #[cfg(not(feature = "policy"))]
    let gov_on = false;
    let (tool_settings, tool_logs) =
        crate::tools::Settings::from_options(&options, config.token_budget);
    logs.extend(tool_logs);
    let tools = crate::tools::Registry::new(tool_settings, source.is_some(), gov_on);
    let plan = Plan {
        tool_before: source.as_ref().map(|_| ExcerptPlan {
            needle: "[[".into(),
            close: "]]".into(),
            window: EXCERPT_WINDOW,
            skip: vec![(context::OPEN.into(), context::CLOSE.into())],
        }),
        session_created: (source.is_some() && session_cfg.enabled) || gov_on,
        system_transform: (source.is_some()
            && session_cfg.enabled
            && session_cfg.channel == Channel::System)
            || gov_on,
        compaction: true,
        tool_before_all: enforcing,
        #[cfg(feature = "policy")]
        tool_before_tools: gov.watched_tools(),
        #[cfg(feature = "policy")]
        fail_closed: FailClosed::new(
            enforcing,
            if gov.on {
                gov.gov.config().mutating_tools.clone()
            } else {
                Vec::new()
            },
        ),
        #[cfg(not(feature = "policy"))]
        fail_closed: None,
        args_limits: crate::wire::ARGS_LIMITS,
        tools: tools.specs(),
    };
    {
        let mut s = shared.borrow_mut();
        s.discovery = Some(found.clone());
        s.init_warnings = logs
            .iter()
            .filter(|l| l.level == crate::protocol::Level::Warn)
            .map(|l| l.message.clone())
            .collect();
        s.config = config;
        s.session = session_cfg;
        s.project = project;
        s.source = source;
        s.cwd = cwd;
        s.host = profile;
        s.tools = tools;
        #[cfg(feature = "policy")]
        {
            s.enforcer = enforcer;
            s.gov = gov;
        }
    }
    // Enforcement's memory search has a deadline far shorter than a start: it must find the
    // session warm, not start it.
    let warm = warm || (enforcing && is_mcp);
    json!({ "discovery": found, "plan": plan, "logs": logs, "warmMcp": warm })
}

/// Whether the project wants pre-action enforcement: option `enforcement`, an `enforcement`
/// key in `.opencode/hookwise.json`, or a `.opencode/sops/` folder; the file's text; and
/// whether it wants intent governance (see [`crate::engine_gov::wanted`]).
async fn wants_policy(
    io: &Io,
    options: &Value,
    cwd: &str,
) -> (bool, (crate::config::ProjectFile, &'static str), bool) {
    if cwd.is_empty() {
        return (
            options.get("enforcement").is_some(),
            (Ok(None), crate::config::CONFIG_FILE),
            crate::engine_gov::wanted(options, None, false),
        );
    }
    let root = cwd.trim_end_matches('/');
    let [neutral, opencode] = crate::config::CONFIG_FILES;
    let replies = join_all(vec![
        io.request(crate::protocol::Request::Stat {
            path: format!("{root}/.opencode/sops"),
        }),
        io.request(crate::protocol::Request::ReadFile {
            path: format!("{root}/{opencode}"),
            max_bytes: crate::config::MAX_FILE_BYTES,
        }),
        io.request(crate::protocol::Request::Stat {
            path: format!("{root}/{}", crate::engine_gov::INTENTS_FILE),
        }),
        // the host-neutral places (`.hookwise/`) beside OpenCode's
        io.request(crate::protocol::Request::Stat {
            path: format!("{root}/.hookwise/sops"),
        }),
        io.request(crate::protocol::Request::ReadFile {
            path: format!("{root}/{neutral}"),
            max_bytes: crate::config::MAX_FILE_BYTES,
        }),
    ])
    .await;
    let st: crate::protocol::StatResult =
        serde_json::from_value(replies[0].clone()).unwrap_or_default();
    let st2: crate::protocol::StatResult =
        serde_json::from_value(replies[3].clone()).unwrap_or_default();
    // unreadable or over a limit: reported (a warning) where it is merged
    let (file, file_path) = crate::config::pick_file(&[replies[4].clone(), replies[1].clone()]);
    let parsed = file
        .as_ref()
        .ok()
        .and_then(|f| f.as_deref())
        .and_then(|t| crate::config::parse_file(t).ok());
    let in_file = parsed
        .as_ref()
        .is_some_and(|v| v.get("enforcement").is_some());
    let intents = replies[2].get("exists").and_then(Value::as_bool) == Some(true);
    (
        options.get("enforcement").is_some()
            || (st.exists && st.is_dir)
            || (st2.exists && st2.is_dir)
            || in_file,
        (file, file_path),
        crate::engine_gov::wanted(options, parsed.as_ref(), intents),
    )
}

/// Place enforcement advice without changing what the tool does: `# ` comment lines before a
/// shell command (next to the knowledge block, if any), else with the tool's result.
#[cfg(feature = "policy")]
fn place_advice(
    shared: &Rc<RefCell<Shared>>,
    r: &mut ToolResult,
    tool: &str,
    call_id: &str,
    view: &ArgsView<'_>,
    advice: String,
    result_only: bool,
) {
    let (prompt_fields, host) = {
        let s = shared.borrow();
        (s.config.prompt_fields.clone(), s.host)
    };
    let lines: Vec<String> = advice.lines().map(str::to_string).collect();
    match place(host, tool, view, &prompt_fields, result_only) {
        Placement::Prepend {
            field,
            style: Style::ShellComment,
        } => {
            let block = context::fit(&lines, Style::ShellComment, usize::MAX);
            let path = vec![PathKey::Key(field)];
            match r.mutations.iter_mut().find(|m| m.path == path) {
                Some(m) => {
                    m.prepend = Some(format!("{block}\n{}", m.prepend.take().unwrap_or_default()))
                }
                None => r.mutations.push(Mutation {
                    path,
                    prepend: Some(format!("{block}\n")),
                    append: None,
                    strip: Some(context::delimiters(Style::ShellComment)),
                }),
            }
        }
        _ => {
            let block = context::fit(&lines, Style::Markdown, usize::MAX);
            let mut s = shared.borrow_mut();
            match s.after.iter_mut().find(|(id, _)| id == call_id) {
                Some(e) => e.1 = format!("{block}\n\n{}", e.1),
                None => {
                    if s.after.len() >= MAX_PENDING_AFTER {
                        s.after.pop_front();
                    }
                    s.after.push_back((call_id.to_string(), block));
                }
            }
            r.follow_up = true;
        }
    }
    r.advice = Some(advice);
}

/// `hookwise metrics [verify]`: the files the configuration names, summarised or verified.
#[cfg(feature = "policy")]
async fn metrics(io: &Io, shared: &Rc<RefCell<Shared>>, verify: bool) -> Value {
    let (cwd, enforcer) = {
        let s = shared.borrow();
        (s.cwd.clone(), s.enforcer.clone())
    };
    let settings = match enforcer {
        Some(e) => e.settings().clone(),
        None => enforce::load_config(io, &cwd, &Value::Null).await.settings,
    };
    let read = |p: &str| {
        io.request(crate::protocol::Request::ReadFile {
            path: enforce::join(&cwd, p),
            max_bytes: 64 * 1024 * 1024,
        })
    };
    let replies = join_all(vec![
        read(&settings.metrics_file),
        read(&settings.state_file),
    ])
    .await;
    let text = |v: &Value| v.get("text").and_then(Value::as_str).map(str::to_string);
    let (metrics_text, state_text) = (text(&replies[0]), text(&replies[1]));
    let Some(m) = metrics_text else {
        // Nothing recorded is fine; a state file with a chain head and no metrics is a deletion.
        let ok = !verify || state_text.is_none();
        return json!({
            "ok": ok,
            "found": false,
            "text": format!("no metrics file at {} ({}){}", settings.metrics_file,
                replies[0].get("error").and_then(Value::as_str).unwrap_or("not found"),
                if ok { "" } else { "; the state file says decisions were recorded: the metrics file was deleted" }),
            "metricsFile": settings.metrics_file,
            "stateFile": settings.state_file,
        });
    };
    let (ok, text) = if verify {
        enforce::cli_metrics_verify(&m, state_text.as_deref())
    } else {
        (true, enforce::cli_metrics_summary(&m))
    };
    json!({"ok": ok, "found": true, "text": text, "metricsFile": settings.metrics_file,
        "stateFile": settings.state_file})
}

/// A tool call whose arguments could not be read whole, while governance gates the tool or
/// enforcement is on: refused, with the reason for the model and the log.
#[cfg(feature = "policy")]
fn refuse_unreadable(shared: &Rc<RefCell<Shared>>, tool: &str, code: &str) -> Option<ToolResult> {
    let why = crate::wire::Unreadable::from_code(code).reason();
    let s = shared.borrow();
    // a tool without a name (the host could not read one) could be any tool
    let gated = s.gov.on
        && (tool.is_empty() || s.gov.gov.config().mutating_tools.iter().any(|t| t == tool));
    let enforcing = s
        .enforcer
        .as_ref()
        .is_some_and(|e| e.settings().level != EnforceLevel::Disabled);
    let what = if gated {
        "intent governance cannot check its scope"
    } else if enforcing {
        "it cannot be checked against this project's SOPs"
    } else {
        return None;
    };
    let block = format!(
        "hookwise blocked `{tool}`: {why}, so {what}. Send the call again with plain arguments."
    );
    Some(ToolResult {
        logs: vec![Log::warn(block.clone())],
        block: Some(block),
        ..Default::default()
    })
}

/// `tool.before`: find the concepts, look them up in parallel under one deadline, place the
/// block where it cannot change what the tool does.
async fn tool_before(
    io: &Io,
    shared: &Rc<RefCell<Shared>>,
    tool: &str,
    call_id: &str,
    args: &ArgsView<'_>,
    now_ms: u64,
    result_only: bool,
) -> ToolResult {
    let (source, cfg, host) = {
        let s = shared.borrow();
        match &s.source {
            Some(src) => (src.clone(), s.config.clone(), s.host),
            None => return ToolResult::default(), // knowledge off: a quiet no-op
        }
    };
    let mut concepts = args.concepts(host, tool);
    if concepts.is_empty() {
        return ToolResult::default();
    }
    let mut logs = Vec::new();
    if concepts.len() > cfg.max_concepts {
        logs.push(Log::debug(format!(
            "{tool}: {} concepts, looking up the first {}",
            concepts.len(),
            cfg.max_concepts
        )));
        concepts.truncate(cfg.max_concepts);
    }
    let q = ContextQuery {
        depth: cfg.depth,
        max_entities: cfg.max_entities,
        include_content: cfg.include_content,
    };
    // Answers in the cache (TTL, LRU) cost nothing; the rest start together, so one deadline
    // for all is each call's own timeout. Failures are never cached.
    let key = |c: &str| CacheKey {
        source: source.name().to_string(),
        concept: c.to_string(),
        depth: q.depth,
        max_entities: q.max_entities,
        include_content: q.include_content,
    };
    // A vault answers in process from an index it re-lists every `vaultRefreshMs`: caching its
    // answers for the cache's TTL would hide edits of the notes.
    // The MCP session has its own cache (shared with session start): one is enough.
    let use_cache = matches!(source, Source::Cli { .. });
    let cached: Vec<Option<BuildContext>> = {
        let mut s = shared.borrow_mut();
        concepts
            .iter()
            .map(|c| {
                if use_cache {
                    s.cache.get(&key(c), now_ms)
                } else {
                    None
                }
            })
            .collect()
    };
    let src = source.with_timeout(cfg.deadline_ms);
    let lookups = concepts
        .iter()
        .zip(&cached)
        .filter(|(_, hit)| hit.is_none())
        .map(|(c, _)| src.build_context(io, c, q))
        .collect();
    let mut fresh = join_all(lookups).await.into_iter();
    let mut answers: Vec<Option<Result<BuildContext, String>>> = Vec::with_capacity(concepts.len());
    {
        let mut s = shared.borrow_mut();
        for (c, hit) in concepts.iter().zip(cached) {
            answers.push(Some(match hit {
                Some(b) => Ok(b),
                None => {
                    let a = fresh.next().expect("one answer per miss");
                    if let (true, Ok(b)) = (use_cache, &a) {
                        s.cache.put(key(c), b.clone(), now_ms);
                    }
                    a
                }
            }));
        }
    }
    let mut found: Vec<BuildContext> = Vec::new();
    let mut failed = Vec::new();
    for (c, a) in concepts.iter().zip(answers) {
        match a {
            Some(Ok(b)) => found.push(b),
            Some(Err(e)) if e.contains("timed out") => failed.push(format!(
                "{c}: over the {} ms deadline",
                cfg.deadline_ms.min(source.timeout_ms())
            )),
            None => failed.push(format!("{c}: over the {} ms deadline", cfg.deadline_ms)),
            Some(Err(e)) => failed.push(format!("{c}: {e}")),
        }
    }
    if !failed.is_empty() {
        let level_warn = found.is_empty();
        let msg = format!(
            "context lookup failed for {} of {} concepts ({})",
            failed.len(),
            concepts.len(),
            failed.join("; ")
        );
        logs.push(if level_warn {
            Log::warn(msg)
        } else {
            Log::debug(msg)
        });
    }
    let mut result = ToolResult {
        concepts,
        logs,
        ..Default::default()
    };
    let placement = place(host, tool, args, &cfg.prompt_fields, result_only);
    let style = match &placement {
        Placement::Prepend { style, .. } => *style,
        Placement::WithResult => Style::Markdown,
    };
    let Some(block) = context::render(&found, style, cfg.token_budget) else {
        return result;
    };
    match placement {
        Placement::Prepend { field, style } => {
            let sep = match style {
                Style::ShellComment => "\n",
                Style::Markdown => "\n\n",
            };
            let (open, close) = context::delimiters(style);
            result.mutations.push(Mutation {
                path: vec![PathKey::Key(field)],
                prepend: Some(format!("{block}{sep}")),
                append: None,
                strip: Some((open, close)),
            });
        }
        Placement::WithResult => {
            let mut s = shared.borrow_mut();
            s.after.retain(|(id, _)| id != call_id);
            if s.after.len() >= MAX_PENDING_AFTER {
                s.after.pop_front();
            }
            s.after.push_back((call_id.to_string(), block.clone()));
            result.follow_up = true;
        }
    }
    result.context = Some(block);
    result
}

/// Where this call's text goes: the placement rules, or always with the result when the host
/// cannot show the model changed arguments (`resultOnly`).
fn place(
    host: &crate::host::Profile,
    tool: &str,
    args: &ArgsView<'_>,
    prompt_fields: &[String],
    result_only: bool,
) -> Placement {
    if result_only {
        Placement::WithResult
    } else {
        placement::placement(host, tool, args, prompt_fields)
    }
}

/// `tool.after`: deliver context that could not go into the arguments with the tool's result.
fn tool_after(shared: &Rc<RefCell<Shared>>, call_id: &str) -> ToolResult {
    let mut s = shared.borrow_mut();
    let Some(pos) = s.after.iter().position(|(id, _)| id == call_id) else {
        return ToolResult::default();
    };
    let (_, block) = s.after.remove(pos).expect("position is valid");
    ToolResult {
        mutations: vec![Mutation {
            path: vec!["output".into()],
            prepend: None,
            append: Some(format!("\n\n{block}")),
            strip: None,
        }],
        ..Default::default()
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;

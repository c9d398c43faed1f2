//! The policy build's half of the engine (`--features policy`): the warm maenifold MCP session
//! (its routing of steps, its start at `init`), intent governance (`governance.rs`) and
//! pre-action enforcement (`enforce.rs`). The lean build compiles `../lean.rs` in its place:
//! the same names and signatures, answering `{needs: "policy"}` where this module acts.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::Deserialize;
use serde_json::{json, Value};

use super::{to_value, FailClosed, Shared, ToolAfterCall, ToolBeforeCall, ToolResult};
use crate::config::Config;
use crate::enforce::{Decision, Enforcer, Level as EnforceLevel, MemorySource};
use crate::governance::GateOutput;
use crate::knowledge::Source;
use crate::mcp::{McpHandle, Router};
use crate::placement::ArgsView;
use crate::protocol::Log;
use crate::runtime::{Io, Ops, Step};

mod enforce;
mod governance;
pub(crate) mod telemetry;

pub(super) use enforce::metrics;
use governance::Wiring;
pub(super) use governance::{
    extend_system, governance_scaffold, intent_context, intent_select, session_created,
    trace_blame, trace_head, trace_verify,
};
pub use governance::{
    GovScaffoldCall, IntentContextCall, IntentSelectCall, TraceBlameCall, TraceHeadCall,
    TraceVerifyCall,
};

/// The policy state of a running engine (in [`Shared`]).
pub(super) struct State {
    /// The warm maenifold MCP session (configured at init; idle until first need). It lives
    /// as long as the engine: the [`Relay`] routes its answers.
    mcp: McpHandle,
    enforcer: Option<Enforcer>,
    gov: Wiring,
    /// OpenTelemetry export ([`telemetry`]).
    pub(crate) otel: telemetry::Settings,
}

impl State {
    pub(super) fn new() -> State {
        State {
            mcp: McpHandle::new(Default::default()),
            enforcer: None,
            gov: Wiring::default(),
            otel: Default::default(),
        }
    }

    /// The governed worktree a model tool's call must respect ([`crate::tools::Env`]).
    pub(super) fn governed_root(&self) -> Option<String> {
        self.gov.on.then(|| self.gov.worktree.clone())
    }

    /// `select_active_intent` called as a model tool.
    pub(super) fn select_tool(
        &self,
        io: Io,
        session_id: String,
        intent_id: String,
    ) -> impl std::future::Future<Output = crate::tools::Answer> {
        let gov = self.gov.clone();
        async move {
            let r = gov.select(&io, &session_id, &intent_id).await;
            crate::tools::selected(r.ok, r.text)
        }
    }

    /// `knowledge_remember` (opt-in) lives in this build: nothing to hand over.
    pub(super) fn tools_need(_options: &Value) -> Option<Value> {
        None
    }

    pub(super) fn observe_now(&self, now_ms: u64) {
        self.mcp.observe_now(now_ms);
    }

    /// What `init` set up (the MCP session stays: it was configured in place).
    pub(super) fn install(&mut self, setup: Setup) {
        self.enforcer = setup.enforcer;
        self.gov = setup.gov;
    }

    /// OpenTelemetry export lives in this build: nothing to hand over.
    pub(super) fn telemetry_need(
        _options: &Value,
        _env: &BTreeMap<String, String>,
    ) -> Option<Value> {
        None
    }

    /// Whether OpenTelemetry export is on, from the merged options and the environment.
    pub(super) fn telemetry(&mut self, options: &Value, env: &BTreeMap<String, String>) {
        self.otel = telemetry::Settings::from(options, env);
    }

    fn enforcing(&self) -> bool {
        self.enforcer
            .as_ref()
            .is_some_and(|e| e.settings().level != EnforceLevel::Disabled)
    }
}

/// Every step passes through it: MCP answers wake the operations parked on them; their steps
/// wait in [`Relay::take_woken`], and the session's warnings go with the next result.
pub(super) struct Relay {
    router: Router,
    mcp: McpHandle,
    /// Steps of other operations that an entry woke.
    woken: Vec<Step>,
    /// MCP session warnings not yet given to the host (they go with the next result).
    mcp_logs: Vec<Log>,
    /// A `hook.event` being started while export is on: its answer's telemetry is finished
    /// in [`super::Engine::start_seq`] ([`telemetry::HookTel`]).
    pub(super) hook_tel: Option<telemetry::HookTel>,
    /// What answers host events (`hook.event`), if anything does.
    pub(super) hook_adapter: Option<HookAdapter>,
}

impl Relay {
    pub(super) fn new(state: &State) -> Relay {
        Relay {
            router: Router::new(state.mcp.clone()),
            mcp: state.mcp.clone(),
            woken: Vec::new(),
            mcp_logs: Vec::new(),
            hook_tel: None,
            hook_adapter: None,
        }
    }

    pub(super) fn start(&mut self, ops: &mut Ops, step: Step) -> Step {
        let steps = self.router.route(ops, step);
        self.first(steps).expect("a start always has its own step")
    }

    pub(super) fn resume(&mut self, ops: &mut Ops, op: u64, id: u64, reply: Value) -> Option<Step> {
        let steps = self.router.resume(ops, op, id, reply);
        self.first(steps)
    }

    pub(super) fn resume_many(
        &mut self,
        ops: &mut Ops,
        op: u64,
        replies: Vec<(u64, Value)>,
    ) -> Option<Step> {
        let steps = self.router.resume_many(ops, op, replies);
        self.first(steps)
    }

    pub(super) fn abandon(&mut self, ops: &mut Ops, op: u64) -> Vec<u64> {
        let (ids, steps) = self.router.abandon(ops, op);
        self.push_woken(steps);
        ids
    }

    pub(super) fn take_woken(&mut self) -> Vec<Step> {
        std::mem::take(&mut self.woken)
    }

    pub(super) fn mcp_feed(&mut self, ops: &mut Ops, session: u64, bytes: &[u8]) {
        let steps = self.router.feed(ops, session, bytes);
        self.push_woken(steps);
    }

    pub(super) fn mcp_closed(&mut self, ops: &mut Ops, session: u64, info: &Value) {
        let steps = self.router.closed(ops, session, info);
        self.push_woken(steps);
    }

    /// The first step is the entry's own; the others (operations woken by MCP answers) wait
    /// in `woken`.
    fn first(&mut self, mut steps: Vec<Step>) -> Option<Step> {
        let logs = self.mcp.take_logs();
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

    fn push_woken(&mut self, mut steps: Vec<Step>) {
        let logs = self.mcp.take_logs();
        self.mcp_logs.extend(logs);
        for s in steps.iter_mut() {
            self.attach_logs(s);
        }
        self.woken.append(&mut steps);
    }
}

/// `init`'s policy steps, in the order `init` takes them.
pub(super) struct Setup {
    loaded: Option<crate::enforce::LoadedConfig>,
    gov: Wiring,
    enforcer: Option<Enforcer>,
}

impl Setup {
    /// After the probe: enforcement's configuration when the project wants enforcement
    /// (`wanted`). Never fails here; the lean build answers `Err({needs: "policy"})`.
    pub(super) async fn load(
        io: &Io,
        options: &Value,
        cwd: &str,
        wanted: bool,
        _governance: bool,
    ) -> Result<Setup, Value> {
        let loaded = if wanted {
            Some(crate::enforce::load_config(io, cwd, options).await)
        } else {
            None
        };
        Ok(Setup {
            loaded,
            gov: Wiring::default(),
            enforcer: None,
        })
    }

    /// The options enforcement's loader merged (`.opencode/hookwise.json` under the plugin's),
    /// if it ran.
    pub(super) fn merged_options(&self) -> Option<Value> {
        self.loaded.as_ref().map(|l| l.options.clone())
    }

    /// Intent governance's wiring from the merged options (`on`: the probe wants it).
    pub(super) fn governance(
        &mut self,
        options: &Value,
        on: bool,
        cwd: &str,
        directory: &str,
        host: &'static crate::host::Profile,
        logs: &mut Vec<Log>,
    ) {
        let (w, glogs) = Wiring::start(options, on, cwd, directory, host);
        logs.extend(glogs);
        if w.on {
            logs.push(Log::info(format!(
                "intent governance is on ({}): file changes need an active intent",
                super::INTENTS_FILE
            )));
        }
        self.gov = w;
    }

    /// The confined shell's set-up: the launcher the JS found (`js/native.cjs`) and the
    /// user's temp and cache folders from the environment hookwise started in.
    pub(super) fn confine_setup(
        &mut self,
        sandbox: &Value,
        env: &std::collections::BTreeMap<String, String>,
    ) {
        self.gov.confine = crate::governance::confine::Setup::new(sandbox, env);
    }

    /// The knowledge source as it will answer: maenifold's CLI becomes the warm MCP session
    /// (with the CLI behind it) unless the host cannot run one or the transport is `cli`.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn knowledge(
        &self,
        io: &Io,
        shared: &Rc<RefCell<Shared>>,
        source: Option<Source>,
        host_mcp: bool,
        options: &Value,
        env: &BTreeMap<String, String>,
        config: &Config,
        logs: &mut Vec<Log>,
    ) -> Result<Option<Source>, Value> {
        let (mcp_opts, mcp_logs) =
            crate::mcp::McpOptions::from_sources(options, env, config.timeout_ms);
        logs.extend(mcp_logs);
        let h = shared.borrow().policy.mcp.clone();
        Ok(match source {
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
        })
    }

    /// The enforcer, when enforcement's configuration was loaded.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn enforcement(
        &mut self,
        io: &Io,
        shared: &Rc<RefCell<Shared>>,
        source: Option<&Source>,
        cwd: &str,
        env: &BTreeMap<String, String>,
        host: &'static crate::host::Profile,
        logs: &mut Vec<Log>,
    ) {
        let Some(l) = self.loaded.take() else {
            return;
        };
        logs.extend(l.issues.iter().map(|i| Log::warn(i.to_string())));
        // Memories come from the knowledge source: maenifold (the warm session or the CLI),
        // or the vault (searched in process, its BM25 scores calibrated to 0–1 per query).
        let memory = match source {
            Some(s @ (Source::Cli { .. } | Source::Mcp { .. })) => {
                Some(MemorySource::Maenifold(s.clone()))
            }
            Some(Source::Vault(v)) => Some(MemorySource::Vault(v.clone())),
            None => None,
        };
        let (e, mut elogs) = Enforcer::start(io, l.settings, cwd, env, memory).await;
        logs.append(&mut elogs);
        e.use_clock(shared.borrow().clock.clone());
        e.use_host(host);
        self.enforcer = Some(e);
    }

    /// Enforcement is on (every `tool.before` with whole arguments).
    pub(super) fn enforcing(&self) -> bool {
        self.enforcer
            .as_ref()
            .is_some_and(|e| e.settings().level != EnforceLevel::Disabled)
    }

    pub(super) fn governance_on(&self) -> bool {
        self.gov.on
    }

    /// The tools governance watches (the plan's `toolBeforeTools`).
    pub(super) fn watched_tools(&self) -> Vec<String> {
        self.gov.watched_tools()
    }

    /// The tools that run without an intent while governance is on (the plan's
    /// `ungatedTools`; every other tool reaches the engine whole).
    pub(super) fn ungated_tools(&self) -> Option<Vec<String>> {
        self.gov.on.then(|| self.gov.gov.config().ungated_tools())
    }

    /// What the host blocks when the core cannot answer (the plan's `failClosed`).
    pub(super) fn fail_closed(&self) -> Option<FailClosed> {
        FailClosed::new(
            self.enforcing(),
            if self.gov.on {
                self.gov.gov.config().mutating_tools.clone()
            } else {
                Vec::new()
            },
            self.ungated_tools(),
        )
    }
}

/// `init`'s `findRoot`: the governed project above `cwd` ([`crate::governance::root`]).
pub(super) async fn project_root(io: &Io, cwd: &str) -> String {
    crate::governance::root::governed_root(io, cwd).await
}

/// The source answers through the warm MCP session.
pub(super) fn is_mcp(source: Option<&Source>) -> bool {
    matches!(source, Some(Source::Mcp { .. }))
}

/// The MCP session's status for `doctor` (`null` unless the source is the session).
pub(super) fn mcp_status(source: Option<&Source>) -> Value {
    match source {
        Some(Source::Mcp { h, .. }) => to_value(h.status()),
        _ => Value::Null,
    }
}

/// `mcp.warmup`: start the warm session now.
pub(super) async fn mcp_warmup(io: Io, shared: Rc<RefCell<Shared>>) -> Value {
    let h = shared.borrow().policy.mcp.clone();
    crate::mcp::session::warm_up(&io, &h).await
}

/// `dispose`: stop the warm session. `{stopped}`: one was running.
pub(super) async fn dispose(io: Io, shared: Rc<RefCell<Shared>>) -> Value {
    let h = shared.borrow().policy.mcp.clone();
    let running = h.status().session;
    crate::mcp::session::shutdown(&io, &h).await;
    json!({ "stopped": running })
}

/// What governance and enforcement decided before the knowledge lookups.
pub(super) struct Pre {
    gate: GateOutput,
    decision: Option<(Decision, Vec<Log>)>,
}

/// `tool.before`, before the knowledge lookups: arguments that could not be read whole are
/// refused where governance or enforcement must check them; then intent governance's gate;
/// then enforcement. `Err`: the call is blocked (the lookups are skipped).
pub(super) async fn tool_before(
    io: &Io,
    shared: &Rc<RefCell<Shared>>,
    call: &ToolBeforeCall,
) -> Result<Pre, ToolResult> {
    let ToolBeforeCall {
        tool,
        session_id,
        call_id,
        args,
        dry_run,
        unreadable,
        ..
    } = call;
    // What the call really is (a hidden shell or patch, issue 38): judged as that.
    let host = shared.borrow().host;
    let mut shell_patch: Option<(String, &'static str)> = None;
    let seen = args
        .as_ref()
        .and_then(|a| crate::host::hidden::read_call(host, tool, a));
    let (tool, args) = match seen {
        Some(crate::host::hidden::Seen::Refuse(b)) => {
            return Err(ToolResult {
                block: Some(b),
                ..Default::default()
            })
        }
        Some(crate::host::hidden::Seen::As(t, a)) => (&t.to_string(), &Some(a)),
        Some(crate::host::hidden::Seen::ShellPatch(t, a)) => {
            shell_patch = Some((call.tool.clone(), t));
            (&t.to_string(), &Some(a))
        }
        None => (tool, args),
    };
    // Arguments that could not be read whole: governance and enforcement refuse what they
    // cannot check; knowledge context goes on with what is there.
    if let Some(code) = unreadable {
        if let Some(mut r) = enforce::refuse_unreadable(shared, tool, code) {
            let t = Told {
                decision: "blocked",
                rule: "fail_closed",
                fail_closed: Some(code),
                reason: r.block.as_deref(),
                ..Told::default()
            };
            r.telemetry = told(shared, call, &t);
            return Err(r);
        }
    }
    // Intent governance first: its block skips enforcement and the lookups.
    let gate = match args {
        Some(a) => {
            // no borrow across awaits
            let w = shared.borrow().policy.gov.at(&call.directory);
            let mut g = w
                .tool_before(io, tool, session_id, call_id, a, call.fixed_args)
                .await;
            if let Some(b) = g.block.take() {
                let t = Told {
                    decision: "blocked",
                    rule: g.rule,
                    gate: Some(&g),
                    reason: Some(&b),
                    ..Told::default()
                };
                let telemetry = told(shared, call, &t);
                return Err(ToolResult {
                    block: Some(b),
                    logs: g.logs,
                    telemetry,
                    ..Default::default()
                });
            }
            // a governed change the host would apply with no hook after it: no record, no change
            if let (Some((shell, patch_tool)), true) = (&shell_patch, g.follow_up) {
                return Err(ToolResult {
                    block: Some(crate::host::hidden::shell_patch_block(shell, patch_tool)),
                    logs: g.logs,
                    ..Default::default()
                });
            }
            g
        }
        None => Default::default(),
    };
    // Enforcement next: a block skips the knowledge lookups.
    let enforcer = shared.borrow().policy.enforcer.clone(); // no borrow across awaits
    // An enforcement-only project's shell runs confined by the kernel too (issue 38): the
    // governance paths (configuration, SOPs, install, the hosts' config) read-only, the rest of
    // the project writable; refused with the reason where no confinement can be had.
    let mut gate = gate;
    let mut enforcement_shell = None;
    let mut refused: Option<String> = None;
    // (not with the user's emergency bypass on: nothing is enforced then)
    if let (Some(a), Some(e), false) = (args, &enforcer, *dry_run) {
        let (on, setup, root) = {
            let s = shared.borrow();
            let w = &s.policy.gov;
            let root = if w.worktree.is_empty() { s.cwd.clone() } else { w.worktree.clone() };
            (w.on, w.confine.clone(), root)
        };
        // A host that cannot change a call's arguments (Qwen Code) cannot run a shell confined:
        // there an enforcement-only project's shell is checked by reading (the SOPs, and the
        // governance paths by name), as docs/governance.md states — refusing every shell would
        // leave enforcement unusable in that host. Under an intent it is refused (governance).
        if !on
            && !e.settings().bypass
            && host.entry(tool).role == crate::host::Role::Shell
            && crate::governance::confine::can_rewrite(host)
        {
            use crate::governance::confine::{confine, Confined, ShellCall};
            let sc = ShellCall::enforcement();
            match confine(io, &setup, host, &root, session_id, tool, a, &sc, call.fixed_args).await {
                // said after the reading check and the SOPs (their block is the better reason)
                Confined::Refuse(msg) => refused = Some(msg),
                Confined::Run { mutations, note } => {
                    gate.confined = mutations;
                    gate.confine_note = note;
                    enforcement_shell = Some((setup, sc));
                }
            }
        }
    }
    // nothing the agent calls changes what decides the policy (issue 38), SOPs or not; a shell
    // governance confined is held by the kernel (governance paths read-only), not by reading
    if let (Some(a), Some(e), true) = (args, &enforcer, gate.confined.is_empty()) {
        let (host, root) = {
            let s = shared.borrow();
            (s.host, s.cwd.clone())
        };
        let folders = &e.settings().sop_folders;
        if let Some(b) = crate::governance::protected::enforcement_block(
            host,
            tool,
            a,
            &root,
            &call.directory,
            folders,
        ) {
            return Err(ToolResult {
                block: Some(b),
                ..Default::default()
            });
        }
    }
    let decision = match (args, enforcer) {
        (Some(a), Some(e)) => {
            let mut d = if *dry_run {
                e.dry_run(io, tool, session_id, a).await
            } else {
                e.before(io, tool, session_id, a).await
            };
            let logs = std::mem::take(&mut d.logs);
            if let Some(b) = d.block.clone() {
                // the note about the confinement goes with the next confined call
                if let (Some((setup, sc)), true) = (&enforcement_shell, gate.confine_note.is_some()) {
                    setup.untell(session_id, sc);
                }
                let t = Told {
                    decision: "blocked",
                    rule: "sop",
                    gate: Some(&gate),
                    enforcement: Some(&d),
                    reason: Some(&b),
                    ..Told::default()
                };
                let telemetry = told(shared, call, &t);
                return Err(ToolResult {
                    block: Some(b),
                    logs,
                    enforcement: Some(to_value(&d)),
                    telemetry,
                    ..Default::default()
                });
            }
            if let Some(msg) = refused.take() {
                return Err(ToolResult {
                    block: Some(msg),
                    logs,
                    ..Default::default()
                });
            }
            // the change's record names the decision taken on its call
            let note = crate::governance::trace::Enforcement {
                decision: crate::redact::redact_string(
                    serde_json::to_value(d.decision)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                ),
                sops: d
                    .sops
                    .iter()
                    .map(|s| crate::redact::redact_string(s.clone()))
                    .collect(),
                categories: d
                    .categories
                    .iter()
                    .map(|s| crate::redact::redact_string(s.clone()))
                    .collect(),
            };
            shared
                .borrow()
                .policy
                .gov
                .gov
                .note_enforcement(call_id, note);
            Some((d, logs))
        }
        _ => None,
    };
    Ok(Pre { gate, decision })
}

/// What a `tool.before` decided, for [`telemetry`].
#[derive(Default)]
struct Told<'a> {
    decision: &'static str,
    rule: &'a str,
    gate: Option<&'a GateOutput>,
    enforcement: Option<&'a Decision>,
    fail_closed: Option<&'a str>,
    reason: Option<&'a str>,
    concepts: &'a [String],
}

/// The telemetry event of a `tool.before` (none while export is off, or for a dry run).
fn told(shared: &Rc<RefCell<Shared>>, call: &ToolBeforeCall, t: &Told<'_>) -> Option<Value> {
    let s = shared.borrow();
    if !s.policy.otel.on || call.dry_run {
        return None;
    }
    let gov = &s.policy.gov.gov;
    let intent = t
        .gate
        .and_then(|g| g.intent.clone())
        .or_else(|| gov.active_intent(&call.session_id));
    let model = gov.model(&call.session_id);
    let enforcement = t.enforcement.map(|d| d.decision.as_str());
    let d = telemetry::ToolDecision {
        host: s.host.id,
        tool: &call.tool,
        call_id: &call.call_id,
        session_id: &call.session_id,
        decision: t.decision,
        rule: t.rule,
        enforcement,
        sops: t.enforcement.map(|d| d.sops.as_slice()).unwrap_or(&[]),
        fail_closed: t.fail_closed,
        intent: intent.as_deref(),
        model: model.as_deref(),
        classes: t.gate.map(|g| g.classes.as_slice()).unwrap_or(&[]),
        concepts: t.concepts,
        args: call.args.as_ref(),
        reason: t.reason,
    };
    Some(telemetry::decision(&d, &s.policy.otel))
}

/// `tool.before`, after the knowledge lookups: governance's and enforcement's logs go first;
/// the gate may ask for `tool.after`; enforcement's advice is placed.
pub(super) fn finish_tool_before(
    pre: Pre,
    shared: &Rc<RefCell<Shared>>,
    call: &ToolBeforeCall,
    view: &ArgsView<'_>,
    r: &mut ToolResult,
) {
    let t = Told {
        decision: match &pre.decision {
            Some((d, _)) if d.advice.is_some() => "advised",
            _ => "allowed",
        },
        gate: Some(&pre.gate),
        enforcement: pre.decision.as_ref().map(|(d, _)| d),
        concepts: &r.concepts,
        ..Told::default()
    };
    r.telemetry = told(shared, call, &t);
    let mut logs = pre.gate.logs;
    logs.append(&mut r.logs);
    r.logs = logs;
    r.follow_up |= pre.gate.follow_up;
    // a governed shell: its command under the launcher (first: context and advice prepend to
    // the new command), and what the confinement allows, with the result
    if !pre.gate.confined.is_empty() {
        let mut m = pre.gate.confined;
        for x in std::mem::take(&mut r.edits) {
            match m.iter_mut().find(|c| c.path == x.path) {
                Some(c) => c.prepend = x.prepend,
                None => m.push(x),
            }
        }
        r.edits = m;
    }
    if let Some(note) = pre.gate.confine_note {
        // with the result (the hosts whose pre-tool context does not reach the model), and as
        // advice (Claude Code reads its PreToolUse context; the first after-call drops the rest)
        super::tool::queue_for_result(shared, r, &call.call_id, note.clone(), super::tool::Queue::Back);
        r.advice = Some(match r.advice.take() {
            Some(a) => format!("{a}\n\n{note}"),
            None => note,
        });
    }
    if let Some((d, mut logs)) = pre.decision {
        logs.append(&mut r.logs);
        r.logs = logs;
        if let Some(advice) = d.advice.clone() {
            enforce::place_advice(
                shared,
                r,
                &call.tool,
                &call.call_id,
                view,
                advice,
                call.result_only,
            );
        }
        r.enforcement = Some(to_value(&d));
    }
}

/// `tool.after`: `r` (the context waiting for this call) plus governance's Agent Trace
/// record of the change. Nothing is recorded from arguments that could not be read whole
/// (the before hook refused such a call; a host that ran it anyway is told).
pub(super) async fn tool_after(
    io: &Io,
    shared: &Rc<RefCell<Shared>>,
    call: ToolAfterCall,
    mut r: ToolResult,
) -> Value {
    let ToolAfterCall {
        tool,
        session_id,
        call_id,
        args,
        random,
        failed,
        unreadable,
        directory,
        model_log,
    } = call;
    // the call as `tool.before` judged it (a hidden shell or patch, issue 38)
    let host = shared.borrow().host;
    let (tool, args) = match args
        .as_ref()
        .and_then(|a| crate::host::hidden::read_call(host, &tool, a))
    {
        Some(crate::host::hidden::Seen::As(t, a)) => (t.to_string(), Some(a)),
        Some(crate::host::hidden::Seen::ShellPatch(t, a)) => (t.to_string(), Some(a)),
        _ => (tool, args),
    };
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
    let (w, now) = {
        let s = shared.borrow();
        (s.policy.gov.at(&directory), s.clock.get() as f64)
    };
    if let Some(args) = args {
        let mut g = w
            .tool_after(
                io,
                &tool,
                &session_id,
                &call_id,
                args,
                now,
                random,
                failed,
                model_log,
            )
            .await;
        for n in std::mem::take(&mut g.notices) {
            r.add_with_result(&n);
        }
        r.logs.append(&mut g.logs);
        if g.recorded {
            let (on, host) = {
                let s = shared.borrow();
                (s.policy.otel.on, s.host.id)
            };
            let id = g.id.clone().unwrap_or_default();
            if on {
                r.telemetry = Some(telemetry::recorded(&telemetry::Recorded {
                    host,
                    tool: &tool,
                    call_id: &call_id,
                    session_id: &session_id,
                    id: &id,
                    line_hash: g.line_hash.as_deref(),
                    class: g.class,
                    intent: g.intent.as_deref(),
                    model: g.model.as_deref(),
                }));
            }
            r.recorded = Some(id);
        }
    }
    to_value(r)
}

/// One host hook event (`hook.event`), answered by the engine's host adapter
/// ([`HookAdapter`]: the command-hook translator, `crate::command_hook`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookEvent {
    /// The host's event name (`PreToolUse`, `BeforeTool`, …), or `setup` (Claude Code's hook
    /// tools and settings entries, `command_hook::setup`), or `setup.host` (a command-hook host's project
    /// entries, `command_hook::setup_cli`).
    pub event: String,
    /// The payload's fields: as Claude Code templates them for an `mcp_tool` hook (every value
    /// a string; `tool_input` as JSON text) or the whole payload of a `command` hook.
    #[serde(default)]
    pub input: Value,
    /// 16 random bytes as 32 hex characters (an Agent Trace record's uuid).
    #[serde(default)]
    pub random: String,
    /// The host's clock, ms since the epoch.
    #[serde(default)]
    pub now_ms: f64,
    /// Why the host could not read the hook's input (a command hook's stdin: not JSON, empty,
    /// too large): PreToolUse blocks under governance or enforcement (`command_hook::place`).
    #[serde(default)]
    pub unreadable: Option<String>,
    /// The environment variables the host's model log needs (`envKeys` of
    /// `js/dialects.json`: [`crate::host::model_log::ModelLog::env_keys`]), as the hook process has them.
    #[serde(default)]
    pub env: Value,
}

/// What answers a host's hook events: set by the layer that builds the engine
/// ([`super::Engine::with_hook_adapter`]); the engine knows no host's wire format.
pub type HookAdapter = fn(&mut super::Engine, HookEvent) -> Step;

/// `hook.event`: a host's hook event, answered by the engine's host adapter.
pub(super) fn hook_event(engine: &mut super::Engine, hook: HookEvent) -> Step {
    match engine.relay.hook_adapter {
        Some(adapter) => adapter(engine, hook),
        None => {
            let log = Log::warn("hook.event: this engine answers no host events (no host adapter)");
            engine.start_seq(Vec::new(), move |_| json!({"text": "{}", "logs": [log]}))
        }
    }
}

impl super::Engine {
    /// This engine answers host events (`hook.event`) with `adapter`.
    pub fn with_hook_adapter(mut self, adapter: HookAdapter) -> Self {
        self.relay.hook_adapter = Some(adapter);
        self
    }

    /// The host `init` named.
    pub(crate) fn host(&self) -> &'static crate::host::Profile {
        self.shared.borrow().host
    }

    /// OpenTelemetry export's settings.
    pub(crate) fn otel(&self) -> telemetry::Settings {
        self.shared.borrow().policy.otel.clone()
    }

    /// The next answer started is a host event's: its telemetry is finished with it.
    pub(crate) fn tag_hook(&mut self, tel: Option<telemetry::HookTel>) {
        self.relay.hook_tel = tel;
    }

    /// Governance's root, and whether what cannot be read is blocked (governance or
    /// enforcement on), as the engine has them now.
    pub(crate) fn hook_policy(&self) -> (Option<String>, bool) {
        let s = self.shared.borrow();
        (
            s.policy.governed_root(),
            s.policy.gov.on || s.policy.enforcing(),
        )
    }
}

impl super::Engine {
    /// Run `calls` one after another as one operation; `then` gets their results in order
    /// (a host adapter answering one host event with several hook calls: [`hook`]).
    pub(crate) fn start_seq(
        &mut self,
        calls: Vec<super::Call>,
        then: impl FnOnce(Vec<Value>) -> Value + 'static,
    ) -> Step {
        let tel = self.relay.hook_tel.take();
        self.ops.begin_capture();
        for c in calls {
            self.start_raw(c);
        }
        self.ops.end_capture(move |r| match tel {
            None => then(r),
            Some(t) => {
                // what the hook's engine calls decided (tool.before, tool.after)
                let events: Vec<Value> = r
                    .iter()
                    .filter_map(|x| x.get("telemetry").filter(|t| !t.is_null()).cloned())
                    .collect();
                let mut v = then(r);
                t.finish(&mut v, events);
                v
            }
        })
    }
}

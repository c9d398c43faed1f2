//! The lean build's half of the engine (without `--features policy`): the same names and
//! signatures as `policy/`, with no warm MCP session, no intent governance and no pre-action
//! enforcement. Where a project or a call wants one of them, the answer is
//! `{needs: "policy"}` (the host loads the policy build and asks again); where the policy
//! build would only add to a result, nothing is added.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::de::{Deserialize, Deserializer, IgnoredAny};
use serde_json::{json, Value};

use super::{to_value, FailClosed, Shared, ToolAfterCall, ToolBeforeCall, ToolResult};
use crate::config::Config;
use crate::knowledge::Source;
use crate::placement::ArgsView;
use crate::protocol::Log;
use crate::runtime::{Io, Ops, Step};
use crate::session::{SessionInfo, SystemResult};

/// The answer to what only the policy build serves.
fn needs_policy() -> Value {
    json!({"needs": "policy"})
}

/// No policy state.
pub(super) struct State;

impl State {
    /// OpenTelemetry export is the policy build's: asked for (option `telemetry`, env
    /// `HOOKWISE_OTEL`), the host loads it, which decides.
    pub(super) fn telemetry_need(options: &Value, env: &BTreeMap<String, String>) -> Option<Value> {
        let asked = env
            .get("HOOKWISE_OTEL")
            .is_some_and(|v| !matches!(v.as_str(), "" | "0"));
        (asked || options.get("telemetry").is_some()).then(needs_policy)
    }

    pub(super) fn telemetry(&mut self, _options: &Value, _env: &BTreeMap<String, String>) {}

    pub(super) fn new() -> State {
        State
    }

    /// The governed worktree a model tool's call must respect ([`crate::tools::Env`]): none.
    pub(super) fn governed_root(&self) -> Option<String> {
        None
    }

    /// `select_active_intent` called as a model tool: no governance here.
    pub(super) fn select_tool(
        &self,
        _io: Io,
        _session_id: String,
        _intent_id: String,
    ) -> impl std::future::Future<Output = crate::tools::Answer> {
        async { crate::tools::no_governance() }
    }

    /// `knowledge_remember` (opt-in) lives in the policy build: the host loads it.
    pub(super) fn tools_need(options: &Value) -> Option<Value> {
        crate::tools::Settings::want_policy(options).then(needs_policy)
    }

    pub(super) fn observe_now(&self, _now_ms: u64) {}

    pub(super) fn install(&mut self, _setup: Setup) {}
}

/// Steps pass as they are: nothing parks, nothing wakes.
pub(super) struct Relay;

impl Relay {
    pub(super) fn new(_state: &State) -> Relay {
        Relay
    }

    pub(super) fn start(&mut self, _ops: &mut Ops, step: Step) -> Step {
        step
    }

    pub(super) fn resume(&mut self, ops: &mut Ops, op: u64, id: u64, reply: Value) -> Option<Step> {
        ops.resume(op, id, reply)
    }

    pub(super) fn resume_many(
        &mut self,
        ops: &mut Ops,
        op: u64,
        replies: Vec<(u64, Value)>,
    ) -> Option<Step> {
        ops.resume_many(op, replies)
    }

    pub(super) fn abandon(&mut self, ops: &mut Ops, op: u64) -> Vec<u64> {
        ops.abandon(op)
    }

    pub(super) fn take_woken(&mut self) -> Vec<Step> {
        Vec::new()
    }

    pub(super) fn mcp_feed(&mut self, _ops: &mut Ops, _session: u64, _bytes: &[u8]) {}

    pub(super) fn mcp_closed(&mut self, _ops: &mut Ops, _session: u64, _info: &Value) {}
}

/// `init`'s policy steps: each hands over to the policy build when the project wants it.
pub(super) struct Setup;

impl Setup {
    /// The project wants enforcement or governance: the policy build serves it.
    pub(super) async fn load(
        _io: &Io,
        _options: &Value,
        _cwd: &str,
        wanted: bool,
        governance: bool,
    ) -> Result<Setup, Value> {
        if wanted || governance {
            return Err(needs_policy());
        }
        Ok(Setup)
    }

    pub(super) fn merged_options(&self) -> Option<Value> {
        None
    }

    pub(super) fn governance(
        &mut self,
        _options: &Value,
        _on: bool,
        _cwd: &str,
        _directory: &str,
        _host: &'static crate::host::Profile,
        _logs: &mut Vec<Log>,
    ) {
    }

    /// The confined shell's set-up: the policy build's.
    pub(super) fn confine_setup(
        &mut self,
        _sandbox: &Value,
        _env: &std::collections::BTreeMap<String, String>,
    ) {
    }

    /// maenifold found, and it would answer through the warm MCP session (the host can run
    /// one and the transport is not `cli`): the policy build has the session.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn knowledge(
        &self,
        _io: &Io,
        _shared: &Rc<RefCell<Shared>>,
        source: Option<Source>,
        host_mcp: bool,
        options: &Value,
        env: &BTreeMap<String, String>,
        _config: &Config,
        _logs: &mut Vec<Log>,
    ) -> Result<Option<Source>, Value> {
        if matches!(source, Some(Source::Cli { .. }))
            && host_mcp
            && crate::mcp::McpOptions::transport(options, env).0 != crate::mcp::Transport::Cli
        {
            return Err(needs_policy());
        }
        Ok(source)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) async fn enforcement(
        &mut self,
        _io: &Io,
        _shared: &Rc<RefCell<Shared>>,
        _source: Option<&Source>,
        _cwd: &str,
        _env: &BTreeMap<String, String>,
        _host: &'static crate::host::Profile,
        _logs: &mut Vec<Log>,
    ) {
    }

    pub(super) fn enforcing(&self) -> bool {
        false
    }

    pub(super) fn governance_on(&self) -> bool {
        false
    }

    pub(super) fn watched_tools(&self) -> Vec<String> {
        Vec::new()
    }

    pub(super) fn fail_closed(&self) -> Option<FailClosed> {
        None
    }
}

/// `init`'s `findRoot` is the policy build's (the hosts that ask start with it): the lean
/// build keeps the folder it was given.
pub(super) async fn project_root(_io: &Io, cwd: &str) -> String {
    cwd.to_string()
}

pub(super) fn is_mcp(_source: Option<&Source>) -> bool {
    false
}

pub(super) fn mcp_status(_source: Option<&Source>) -> Value {
    Value::Null
}

/// `mcp.warmup`: no session to warm.
pub(super) async fn mcp_warmup(_io: Io, _shared: Rc<RefCell<Shared>>) -> Value {
    json!({})
}

/// `dispose`: no session ran.
pub(super) async fn dispose(_io: Io, _shared: Rc<RefCell<Shared>>) -> Value {
    json!({ "stopped": false })
}

/// Nothing decided before the knowledge lookups.
pub(super) struct Pre;

/// `tool.before`: knowledge context reads what it can of unreadable arguments; nothing
/// blocks.
pub(super) async fn tool_before(
    _io: &Io,
    _shared: &Rc<RefCell<Shared>>,
    _call: &ToolBeforeCall,
) -> Result<Pre, ToolResult> {
    Ok(Pre)
}

pub(super) fn finish_tool_before(
    _pre: Pre,
    _shared: &Rc<RefCell<Shared>>,
    _call: &ToolBeforeCall,
    _view: &ArgsView<'_>,
    _r: &mut ToolResult,
) {
}

/// `tool.after`: the waiting context alone (no Agent Trace).
pub(super) async fn tool_after(
    _io: &Io,
    _shared: &Rc<RefCell<Shared>>,
    _call: ToolAfterCall,
    r: ToolResult,
) -> Value {
    to_value(r)
}

pub(super) fn session_created(_shared: &Rc<RefCell<Shared>>, _session: &SessionInfo) {}

/// `system.transform`: no intent context.
pub(super) async fn extend_system(
    _io: &Io,
    _shared: &Rc<RefCell<Shared>>,
    _session_id: Option<&str>,
    _system: &[String],
    _model_id: Option<String>,
    _r: &mut SystemResult,
) {
}

/// The fields of the hooks only the policy build serves: read as nothing here (the lean build
/// answers `{needs: "policy"}` whatever they say).
macro_rules! unread {
    ($($name:ident),*) => {$(
        #[derive(Debug)]
        pub struct $name;

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                IgnoredAny::deserialize(d)?;
                Ok($name)
            }
        }
    )*};
}
unread!(
    HookEvent,
    GovScaffoldCall,
    IntentSelectCall,
    IntentContextCall,
    TraceVerifyCall,
    TraceHeadCall,
    TraceBlameCall
);

/// `hook.event` lives in the policy build.
pub(super) fn hook_event(engine: &mut super::Engine, _hook: HookEvent) -> Step {
    engine.ops.start(|_| async { needs_policy() })
}

pub(super) async fn governance_scaffold(_io: Io, _call: GovScaffoldCall) -> Value {
    needs_policy()
}

pub(super) async fn intent_select(
    _io: Io,
    _shared: Rc<RefCell<Shared>>,
    _call: IntentSelectCall,
) -> Value {
    needs_policy()
}

pub(super) async fn intent_context(
    _io: Io,
    _shared: Rc<RefCell<Shared>>,
    _call: IntentContextCall,
) -> Value {
    needs_policy()
}

pub(super) async fn trace_verify(
    _io: Io,
    _shared: Rc<RefCell<Shared>>,
    _call: TraceVerifyCall,
) -> Value {
    needs_policy()
}

pub(super) async fn trace_head(
    _io: Io,
    _shared: Rc<RefCell<Shared>>,
    _call: TraceHeadCall,
) -> Value {
    needs_policy()
}

pub(super) async fn trace_blame(
    _io: Io,
    _shared: Rc<RefCell<Shared>>,
    _call: TraceBlameCall,
) -> Value {
    needs_policy()
}

pub(super) async fn metrics(_io: Io, _shared: Rc<RefCell<Shared>>, _verify: bool) -> Value {
    needs_policy()
}

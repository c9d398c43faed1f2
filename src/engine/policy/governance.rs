//! Intent governance in the engine (policy build): the wiring of [`crate::governance`] into
//! the hooks.
//!
//! - `init` stats `.orchestration/active_intents.yaml` in the same batch as the enforcement
//!   probe (`init.rs`, both builds); when it exists (or option `governance` is `true` /
//!   `{enabled: true}`) the lean build answers `{needs: "policy"}`: governance lives in the
//!   policy build only.
//! - Governance wired (the file existed at start, or the option forces it on):
//!   the plan lists the watched tools (`toolBeforeTools`: they reach the engine with whole
//!   arguments; by default the host profile's shell, write, edit, patch and read tools, see
//!   [`crate::host`]), and asks for `session.created` and `system.transform`.
//!   - `tool.before`: governance's gate runs first; a block short-circuits everything
//!     (enforcement, knowledge lookups). A mutation that passes asks for `tool.after`.
//!   - `tool.after` (with `args`): appends the Agent Trace record.
//!   - `session.created`: the parent link (subagents inherit the intent).
//!   - `system.transform`: the `<intent_context>` block after the session context (not for
//!     OpenCode's title-generator requests, never twice).
//! - The governance ops re-read the intents file on each call: deleting it turns governance
//!   off at once; creating it while hookwise runs needs a restart (the lean build does not
//!   watch for it).

use std::cell::RefCell;
use std::rc::Rc;

use serde::Deserialize;
use serde_json::{json, Value};

use super::super::{to_value, Shared};
use crate::governance::{self as gov, ops::Enabled, GovConfig, Governance};
use crate::protocol::Log;
use crate::runtime::Io;
use crate::session::{SessionInfo, SystemResult};

/// Governance in a running engine (policy build).
#[derive(Clone, Default)]
pub struct Wiring {
    pub gov: Governance,
    /// The hooks are wired (plan lists the watched tools).
    pub on: bool,
    /// The worktree (the engine's project root).
    pub worktree: String,
    /// Where relative tool paths start, when below the worktree (OpenCode `directory`).
    pub directory: String,
    /// The confined shell's launcher and the user's temp and cache folders
    /// ([`crate::governance::confine`]).
    pub confine: Rc<crate::governance::confine::Setup>,
}

impl Wiring {
    /// From the merged options. `on`: the probe said governance is wanted. `host`: the host's
    /// profile (its tools are the default gated and read tools; the gate reads its keys).
    pub fn start(
        options: &Value,
        on: bool,
        worktree: &str,
        directory: &str,
        host: &'static crate::host::Profile,
    ) -> (Wiring, Vec<Log>) {
        let (mut cfg, logs) = GovConfig::from_options_on(options.get("governance"), host);
        cfg.tool_version = env!("CARGO_PKG_VERSION").to_string();
        if on && cfg.enabled == Enabled::Off {
            cfg.enabled = Enabled::Auto;
        }
        let wt = worktree.trim_end_matches('/');
        let directory = if directory != worktree && directory.starts_with(&format!("{wt}/")) {
            directory.to_string()
        } else {
            String::new()
        };
        (
            Wiring {
                gov: Governance::new(cfg),
                on,
                worktree: worktree.to_string(),
                directory,
                confine: Default::default(),
            },
            logs,
        )
    }

    /// This wiring for one call whose relative paths start in `directory` (a hook payload's
    /// `cwd`): taken only when it lies below the worktree; the root itself, anything outside
    /// it or empty leaves the wiring as it is (the payload never moves the governed root).
    pub fn at(&self, directory: &str) -> Wiring {
        let mut w = self.clone();
        let d = crate::paths::normalize(directory);
        if crate::paths::is_absolute(&d)
            && crate::paths::relative(&d, &self.worktree).is_some_and(|r| !r.is_empty())
        {
            w.directory = d;
        }
        w
    }

    /// The tools whose `tool.before` must reach the engine with whole arguments.
    pub fn watched_tools(&self) -> Vec<String> {
        if self.on {
            self.gov.config().watched_tools()
        } else {
            Vec::new()
        }
    }

    pub async fn tool_before(
        &self,
        io: &Io,
        tool: &str,
        session_id: &str,
        call_id: &str,
        args: &Value,
        fixed_args: bool,
    ) -> gov::GateOutput {
        if !self.on {
            return gov::GateOutput::default();
        }
        let input = gov::ToolCallInput {
            tool: tool.to_string(),
            session_id: session_id.to_string(),
            call_id: call_id.to_string(),
            args: args.clone(),
            worktree: self.worktree.clone(),
            directory: self.directory.clone(),
        };
        let mut out = gov::tool_before(io, &self.gov, &input).await;
        // an allowed shell call runs confined by the kernel, or not at all
        if let (Some(call), None) = (out.shell.take(), &out.block) {
            use crate::governance::confine::{confine, Confined};
            let host = self.gov.config().host;
            match confine(
                io,
                &self.confine,
                host,
                &self.worktree,
                session_id,
                tool,
                args,
                &call,
                fixed_args,
            )
            .await
            {
                Confined::Refuse(msg) => {
                    out.block = Some(msg);
                }
                Confined::Run { mutations, note } => {
                    out.confined = mutations;
                    out.confine_note = note;
                }
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    pub async fn tool_after(
        &self,
        io: &Io,
        tool: &str,
        session_id: &str,
        call_id: &str,
        args: Value,
        now_ms: f64,
        random: String,
        failed: bool,
        model_log: Option<crate::governance::ops::SessionLog>,
    ) -> gov::AfterOutput {
        if !self.on {
            return gov::AfterOutput::default();
        }
        let input = gov::AfterInput {
            tool: tool.to_string(),
            session_id: session_id.to_string(),
            call_id: call_id.to_string(),
            args,
            worktree: self.worktree.clone(),
            directory: self.directory.clone(),
            now_ms,
            random,
            head: None,
            model_id: None,
            // the model that made the call, from the host's log when its hooks do not name it
            model_log,
            failed,
        };
        gov::tool_after(io, &self.gov, &input).await
    }

    /// The `<intent_context>` block for a model request, or nothing (governance off, a title
    /// request, or the block is there already).
    pub async fn system(
        &self,
        io: &Io,
        session_id: Option<&str>,
        existing: &[String],
        model_id: Option<String>,
    ) -> gov::SystemOutput {
        let skip = existing.iter().any(|s| {
            s.contains("<intent_context>") || s.to_ascii_lowercase().contains("title generator")
        });
        let Some(id) = session_id.filter(|s| !s.trim().is_empty()) else {
            return gov::SystemOutput::default();
        };
        if !self.on || skip {
            return gov::SystemOutput::default();
        }
        self.context(io, id, model_id).await
    }

    /// The `<intent_context>` text for a session (also when the hooks are not wired: the
    /// engine API asks for it directly).
    pub async fn context(
        &self,
        io: &Io,
        session_id: &str,
        model_id: Option<String>,
    ) -> gov::SystemOutput {
        let input = gov::SystemInput {
            session_id: session_id.to_string(),
            worktree: self.worktree.clone(),
            model_id: model_id.filter(|m| !m.is_empty()),
        };
        gov::system_context(io, &self.gov, &input).await
    }

    pub async fn select(&self, io: &Io, session_id: &str, intent_id: &str) -> gov::SelectOutput {
        let input = gov::SelectInput {
            session_id: session_id.to_string(),
            intent_id: intent_id.to_string(),
            worktree: self.worktree.clone(),
        };
        gov::select_intent(io, &self.gov, &input).await
    }

    pub async fn verify(&self, io: &Io, anchor: Option<String>) -> gov::VerifyOutput {
        let input = gov::VerifyInput {
            worktree: self.worktree.clone(),
            anchor,
        };
        gov::trace_verify(io, &self.gov, &input).await
    }

    pub async fn head(&self, io: &Io, init: bool) -> gov::HeadOutput {
        let input = gov::HeadInput {
            worktree: self.worktree.clone(),
            init,
        };
        gov::trace_head(io, &self.gov, &input).await
    }
}

/// `session.created`: the parent link (subagents inherit the intent).
pub(in crate::engine) fn session_created(shared: &Rc<RefCell<Shared>>, session: &SessionInfo) {
    shared
        .borrow()
        .policy
        .gov
        .gov
        .session_created(&session.id, session.parent_id.as_deref());
}

/// `system.transform`: intent governance's block comes after the session context.
pub(in crate::engine) async fn extend_system(
    io: &Io,
    shared: &Rc<RefCell<Shared>>,
    session_id: Option<&str>,
    system: &[String],
    model_id: Option<String>,
    r: &mut SystemResult,
) {
    let w = shared.borrow().policy.gov.clone();
    let mut g = w.system(io, session_id, system, model_id).await;
    r.system.append(&mut g.system);
    r.logs.append(&mut g.logs);
}

/// `governance.scaffold`'s fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GovScaffoldCall {
    #[serde(default)]
    pub cwd: String,
}

/// `intent.select`'s fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntentSelectCall {
    #[serde(default)]
    pub session_id: String,
    #[serde(default)]
    pub intent_id: String,
}

/// `intent.context`'s fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntentContextCall {
    #[serde(default)]
    pub session_id: String,
    #[serde(default)]
    pub model_id: Option<String>,
}

/// `trace.verify`'s fields: `anchor`, a head printed earlier; `report`: answer with the HTML
/// report of the project instead ([`crate::report`]: the verification is at its top).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceVerifyCall {
    #[serde(default)]
    pub anchor: Option<String>,
    #[serde(default)]
    pub report: bool,
}

/// `trace.blame`'s fields: `path` (absolute, or relative to the project), `table`: also the
/// terminal table.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceBlameCall {
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub table: bool,
}

/// `trace.head`'s fields: `init` writes the head for the log as it is.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceHeadCall {
    #[serde(default)]
    pub init: bool,
}

/// `governance.scaffold`: create the intents file (`active_intents: []`), never overwriting.
pub(in crate::engine) async fn governance_scaffold(io: Io, call: GovScaffoldCall) -> Value {
    let r = gov::init_scaffold(
        &io,
        &gov::InitInput {
            worktree: call.cwd.clone(),
        },
    )
    .await;
    let rel = gov::ops::INTENTS_FILE;
    let kept = !r.created && r.message.ends_with("left unchanged");
    let mut created: Vec<String> = if r.created { vec![rel.into()] } else { vec![] };
    // a person re-initialises governance that a shell command locked
    if let Some(why) = gov::ops::guard::reset(&io, &call.cwd).await {
        created.push(format!(
            "{}: governance reset (it was locked because {why})",
            gov::ops::guard::LOCK_FILE
        ));
    }
    json!({
        "created": created,
        "kept": if kept { vec![rel] } else { vec![] },
        "failed": if r.created || kept { vec![] } else { vec![r.message] },
    })
}

/// `intent.select`: the `select_active_intent` tool.
pub(in crate::engine) async fn intent_select(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    call: IntentSelectCall,
) -> Value {
    let w = shared.borrow().policy.gov.clone();
    to_value(w.select(&io, &call.session_id, &call.intent_id).await)
}

/// `intent.context`: the `<intent_context>` text for a session.
pub(in crate::engine) async fn intent_context(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    call: IntentContextCall,
) -> Value {
    let w = shared.borrow().policy.gov.clone();
    to_value(w.context(&io, &call.session_id, call.model_id).await)
}

/// `trace.verify`: the Agent Trace chain and head, checked.
pub(in crate::engine) async fn trace_verify(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    call: TraceVerifyCall,
) -> Value {
    let w = shared.borrow().policy.gov.clone();
    if call.report {
        let (metrics_file, state_file) = super::enforce::metrics_files(&io, &shared).await;
        let input = crate::report::ReportInput {
            worktree: w.worktree.clone(),
            now_ms: shared.borrow().clock.get() as f64,
            metrics_file,
            state_file,
        };
        return to_value(crate::report::report(&io, &w.gov, &input).await);
    }
    to_value(w.verify(&io, call.anchor).await)
}

/// `trace.head`: the Agent Trace's head to anchor.
pub(in crate::engine) async fn trace_head(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    call: TraceHeadCall,
) -> Value {
    let w = shared.borrow().policy.gov.clone();
    to_value(w.head(&io, call.init).await)
}

/// `trace.blame`: who wrote each line of a file.
pub(in crate::engine) async fn trace_blame(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    call: TraceBlameCall,
) -> Value {
    let w = shared.borrow().policy.gov.clone();
    let input = gov::BlameInput {
        worktree: w.worktree.clone(),
        path: call.path,
        table: call.table,
    };
    gov::trace_blame(&io, &w.gov, &input).await
}

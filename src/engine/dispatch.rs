//! [`Engine::start`]'s match: one arm per hook, each starting its handler as an operation.
//! A handler is an `async fn` answering the hook's result (JSON); it reads the shared state
//! through `shared` (never borrowed across an await). The policy-only hooks' handlers live in
//! `policy` (lean build: `lean.rs`, answering `{needs: "policy"}`).

use super::{init, policy, session, tool, Call, Engine};
use crate::runtime::Step;

impl Engine {
    pub(super) fn start_raw(&mut self, call: Call) -> Step {
        let shared = self.shared.clone();
        let sessions = self.sessions.clone();
        let ops = &mut self.ops;
        match call {
            Call::Init(c) => ops.start(move |io| init::init(io, shared, c)),
            Call::McpWarmup => ops.start(move |io| policy::mcp_warmup(io, shared)),
            Call::Dispose => ops.start(move |io| policy::dispose(io, shared)),
            Call::SessionCreated { session } => {
                ops.start(move |io| session::created(io, shared, sessions, session))
            }
            Call::SystemTransform {
                session_id,
                system,
                model_id,
            } => ops.start(move |io| {
                session::system_transform(io, shared, sessions, session_id, system, model_id)
            }),
            Call::SessionPreview { project, strategy } => {
                ops.start(move |io| session::preview(io, shared, project, strategy))
            }
            Call::Doctor => ops.start(move |_| session::doctor(shared)),
            Call::Scaffold { cwd } => ops.start(move |io| session::scaffold(io, cwd)),
            Call::GovScaffold(c) => ops.start(move |io| policy::governance_scaffold(io, c)),
            Call::SessionCompacting { session_id, now_ms } => {
                ops.start(move |io| session::compacting(io, shared, sessions, session_id, now_ms))
            }
            Call::ToolBefore(c) => ops.start(move |io| tool::before(io, shared, c)),
            Call::ToolAfter(c) => ops.start(move |io| tool::after(io, shared, c)),
            Call::IntentSelect(c) => ops.start(move |io| policy::intent_select(io, shared, c)),
            Call::IntentContext(c) => ops.start(move |io| policy::intent_context(io, shared, c)),
            Call::TraceVerify(c) => ops.start(move |io| policy::trace_verify(io, shared, c)),
            Call::TraceHead(c) => ops.start(move |io| policy::trace_head(io, shared, c)),
            Call::TraceBlame(c) => ops.start(move |io| policy::trace_blame(io, shared, c)),
            Call::Hook(hook) => policy::hook_event(self, hook),
            Call::ToolCall {
                name,
                input,
                session_id,
            } => ops.start(move |io| tool::model_call(io, shared, name, input, session_id)),
            Call::Metrics { verify } => ops.start(move |io| policy::metrics(io, shared, verify)),
        }
    }
}

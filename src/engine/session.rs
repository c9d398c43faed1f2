//! The session hooks and the engine's own commands: `session.created`, `system.transform`,
//! `session.compacting`, `session.preview`, `doctor`, `init.scaffold`. The session context
//! itself is [`crate::session`]'s; governance adds its part through `policy`.

use std::cell::RefCell;
use std::rc::Rc;

use crate::protocol::ReplyError;
use serde_json::{json, Value};

use super::{policy, snapshot, to_value, Shared};
use crate::knowledge::Source;
use crate::protocol::Log;
use crate::runtime::{join_all, Io};
use crate::session::{self, SessionInfo, SessionState};

/// `session.created`: governance's parent link (subagents inherit the intent), then the
/// session-start context.
pub(super) async fn created(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    sessions: Rc<RefCell<SessionState>>,
    session: SessionInfo,
) -> Value {
    policy::session_created(&shared, &session);
    let (source, cfg, project) = snapshot(&shared);
    to_value(
        session::session_created(&io, &sessions, source.as_ref(), &session, &project, &cfg).await,
    )
}

/// `system.transform`: the session context, then intent governance's block after it.
pub(super) async fn system_transform(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    sessions: Rc<RefCell<SessionState>>,
    session_id: Option<String>,
    system: Vec<String>,
    model_id: Option<String>,
) -> Value {
    let (_, cfg, _) = snapshot(&shared);
    let mut r =
        session::system_transform(&io, &sessions, session_id.as_deref(), &system, &cfg).await;
    policy::extend_system(
        &io,
        &shared,
        session_id.as_deref(),
        &system,
        model_id,
        &mut r,
    )
    .await;
    to_value(r)
}

/// `session.compacting`: the concepts the summary keeps.
pub(super) async fn compacting(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    sessions: Rc<RefCell<SessionState>>,
    session_id: String,
    now_ms: f64,
) -> Value {
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
}

/// `session.preview`: the session-start context for a project, computed now.
pub(super) async fn preview(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    project: Option<String>,
    strategy: Option<String>,
) -> Value {
    let (source, cfg, default_project) = snapshot(&shared);
    let project = project
        .filter(|p| !p.trim().is_empty())
        .unwrap_or(default_project);
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
}

/// `doctor`: what hookwise knows about itself.
pub(super) async fn doctor(shared: Rc<RefCell<Shared>>) -> Value {
    let s = shared.borrow();
    json!({
        "discovery": s.discovery,
        "source": s.source.as_ref().map(Source::name),
        "project": s.project,
        "warnings": s.init_warnings,
        "cache": s.cache.stats,
        "mcp": policy::mcp_status(s.source.as_ref()),
        "vault": match &s.source {
            Some(Source::Vault(v)) => json!({"root": v.root, "family": v.vault.borrow().family_why, "index": v.report()}),
            _ => Value::Null,
        },
    })
}

/// The files `hookwise init` creates (relative to the project), with their first contents.
fn scaffold_files() -> Vec<(&'static str, &'static str)> {
    vec![(
        ".opencode/hookwise.json",
        "{\n  \"knowledge\": \"auto\",\n  \"tokenBudget\": 2000,\n  \"sessionContextChannel\": \"system\"\n}\n",
    )]
}

/// `init.scaffold`: create hookwise's configuration files, never overwriting one.
pub(super) async fn scaffold(io: Io, cwd: String) -> Value {
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
        match (
            r.get("ok").and_then(Value::as_bool),
            ReplyError::in_reply(&r),
        ) {
            (Some(true), _) => created.push(*rel),
            (_, Some(ReplyError::Exists)) => kept.push(*rel),
            _ => failed.push(format!(
                "{rel}: {}",
                ReplyError::describe_reply(&r, "failed")
            )),
        }
    }
    json!({"created": created, "kept": kept, "failed": failed})
}

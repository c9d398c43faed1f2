//! Pre-action enforcement in the engine (policy build): arguments it cannot read refused,
//! its advice placed beside the knowledge block, and the `metrics` command.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{json, Value};

use super::super::tool::{place, queue_for_result, Queue};
use super::super::{Shared, ToolResult};
use crate::context::{self, Style};
use crate::enforce;
use crate::placement::{ArgsView, Placement};
use crate::protocol::{ArgEdit, Log, PathKey};
use crate::runtime::{join_all, Io};

/// Place enforcement advice without changing what the tool does: `# ` comment lines before a
/// shell command (next to the knowledge block, if any), else with the tool's result.
pub(super) fn place_advice(
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
            match r.edits.iter_mut().find(|m| m.path == path) {
                Some(m) => {
                    m.prepend = Some(format!("{block}\n{}", m.prepend.take().unwrap_or_default()))
                }
                None => r.edits.push(ArgEdit {
                    path,
                    prepend: Some(format!("{block}\n")),
                    strip: Some(context::delimiters(Style::ShellComment)),
                    set: None,
                }),
            }
        }
        _ => {
            let block = context::fit(&lines, Style::Markdown, usize::MAX);
            queue_for_result(shared, r, call_id, block, Queue::Front);
        }
    }
    r.advice = Some(advice);
}

/// The enforcement settings: the running enforcer's, else the project's configuration.
async fn settings(io: &Io, shared: &Rc<RefCell<Shared>>) -> enforce::Settings {
    let (cwd, enforcer) = {
        let s = shared.borrow();
        (s.cwd.clone(), s.policy.enforcer.clone())
    };
    match enforcer {
        Some(e) => e.settings().clone(),
        None => enforce::load_config(io, &cwd, &Value::Null).await.settings,
    }
}

/// The metrics file and its state file the configuration names (the report reads them).
pub(super) async fn metrics_files(io: &Io, shared: &Rc<RefCell<Shared>>) -> (String, String) {
    let s = settings(io, shared).await;
    (s.metrics_file, s.state_file)
}

/// `hookwise metrics [verify]`: the files the configuration names, summarised or verified.
pub(in crate::engine) async fn metrics(io: Io, shared: Rc<RefCell<Shared>>, verify: bool) -> Value {
    let io = &io;
    let cwd = shared.borrow().cwd.clone();
    let settings = settings(io, &shared).await;
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
pub(super) fn refuse_unreadable(
    shared: &Rc<RefCell<Shared>>,
    tool: &str,
    code: &str,
) -> Option<ToolResult> {
    let why = crate::wire::Unreadable::from_code(code).reason();
    let s = shared.borrow();
    // a tool without a name (the host could not read one) could be any tool
    let gov = &s.policy.gov;
    let gated = gov.on && (tool.is_empty() || gov.gov.config().gated(tool));
    let enforcing = s.policy.enforcing();
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

//! What a hook's payload may and may not decide (issue 29): the governed root was fixed when
//! the project was set up (`hookwise mcp`'s start folder; for a command hook the project found
//! from `CLAUDE_PROJECT_DIR` or its own folder, [`crate::governance::root`]), never by the
//! payload. The payload's `cwd` only says where the session is now — where a shell runs and
//! where relative paths start — and under governance a `cwd` outside the project is blocked.
//! A hook input that cannot be read (not JSON, empty, too large, not an object, no tool name)
//! is blocked while governance or enforcement is on. The hook tools are Claude Code's
//! endpoints, never the model's: a call of one by the model is blocked.

use serde_json::Value;

use super::setup::{EVENTS, SERVER};
use crate::paths;

/// What the engine knows when a PreToolUse arrives.
pub(super) struct Policy {
    /// The governed project, while governance is on.
    pub root: Option<String>,
    /// Governance or enforcement is on: what cannot be read is blocked.
    pub strict: bool,
}

/// Where the call's relative paths start (empty: the project's own), or why the call is
/// blocked: the payload's `cwd` lies outside the governed project.
pub(super) fn directory(policy: &Policy, tool: &str, cwd: &str) -> Result<String, String> {
    let Some(root) = policy.root.as_deref() else {
        return Ok(String::new());
    };
    if cwd.is_empty() {
        return Ok(String::new());
    }
    let d = paths::normalize(cwd);
    if paths::is_absolute(&d) && paths::inside(&d, root) {
        return Ok(d);
    }
    let shown: String = cwd.chars().take(200).collect();
    Err(format!(
        "hookwise blocked `{tool}`: this session is in {shown:?}, outside the governed project {root:?}; intent governance covers that project only, and a change made from elsewhere could not be checked or recorded. Work inside the project (its folder, or a worktree inside it), then retry."
    ))
}

/// Why the hook's input cannot be read (`None`: it can): what the JS could not parse
/// (`given`), an input that is not an object, or one without a tool name.
pub(super) fn unreadable(given: Option<&str>, input: &Value) -> Option<String> {
    if let Some(g) = given.filter(|g| !g.is_empty()) {
        return Some(g.chars().take(80).collect());
    }
    match input {
        Value::Object(m) => match m.get("tool_name") {
            Some(Value::String(s)) if !s.is_empty() => None,
            Some(Value::String(_)) => Some("an empty tool_name".into()),
            Some(_) => Some("a tool_name that is not text".into()),
            None => Some("no tool_name".into()),
        },
        Value::Null => Some("no input".into()),
        Value::Array(_) => Some("an array, not an object".into()),
        _ => Some("not an object".into()),
    }
}

/// The block for a hook input that cannot be read.
pub(super) fn unreadable_block(why: &str) -> String {
    format!(
        "hookwise blocked this tool call: Claude Code's hook input could not be read ({why}), and in this project intent governance or pre-action enforcement blocks what it cannot check. Try again; tell the user if it keeps failing."
    )
}

/// The model called one of hookwise's hook tools (`mcp__hookwise__hook_…`): blocked.
pub(super) fn hook_tool_block(tool: &str) -> Option<String> {
    let bare = tool.strip_prefix("mcp__")?.strip_prefix(SERVER)?.strip_prefix("__")?;
    EVENTS.iter().any(|e| e.1 == bare).then(|| {
        format!(
            "hookwise blocked `{tool}`: it is an endpoint of Claude Code's own hooks, never a tool for the model. Leave it alone."
        )
    })
}



//! `hookwise init`: scaffold the intents file.

use super::*;
use crate::protocol::ReplyError;

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

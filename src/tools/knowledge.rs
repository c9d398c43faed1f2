//! The knowledge tools (issue 21): filled in by the next commit.

use serde_json::{Map, Value};

use super::{Answer, Env, ToolSpec};
use crate::runtime::Io;

pub const REMEMBER: &str = "knowledge_remember";
/// Every knowledge tool, in the order they are offered.
pub const NAMES: &[&str] = &[];

pub fn spec(_name: &str) -> Option<ToolSpec> {
    None
}

pub async fn call(_io: &Io, _env: &Env, name: &str, _input: &Map<String, Value>) -> Answer {
    Answer::error(format!("`{name}` is not a hookwise tool"))
}

//! The engine-ready operations and the state they share. See the module docs of
//! [`crate::governance`] for the JSON shapes and the host's duties.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::{ArgEdit, Log, ReadResult, Request, StatResult};
use crate::runtime::{join_all, Io};

use super::classify::{classify, MutationClass};
use super::gate::{self, targets, Decision, GateState, Target, TargetOp};
use super::git;
use super::intents::{self, IntentFile, Problem, Severity, Status};
use super::patch::{self, FileOp};
use super::ranges::{self, sha256_hex, Range};
use super::scope::{resolve_from, Resolved, Scope};
use super::segments;
use super::trace::{self, RecordInput};
use crate::host::{self, args::EditShape, Profile, Role};

#[path = "guard.rs"]
pub mod guard;
#[path = "trace_io.rs"]
pub(crate) mod trace_io;
use trace_io::Unwritten;
pub use trace_io::{
    assess, trace_head, trace_verify, Assessed, HeadInput, HeadOutput, Seen, VerifyInput,
    VerifyOutput, LOCK_BREAK_MS, LOCK_STALE_MS, LOCK_WAIT_MS,
};

pub use super::{DIR, INTENTS_FILE, TRACE_FILE};
/// What `init` writes.
pub const SCAFFOLD: &str = "\
# Intent governance (hookwise). While this file exists, file changes and shell commands need an
# active intent (the model calls select_active_intent), and file changes must stay inside that
# intent's owned_scope. Each entry:
#   - id: INT-001
#     name: JWT authentication
#     status: IN_PROGRESS            # IN_PROGRESS | COMPLETE | BLOCKED
#     owned_scope: [src/auth/**, \"!src/auth/vendor/**\"]
#     constraints: [Keep the public API of src/auth/index.ts]
#     acceptance_criteria: [All tests in tests/auth pass]
# Every change is recorded in .orchestration/trace/ (Agent Trace v0.1.0, hash-chained segments).
active_intents: []
";

const MAX_INTENTS_BYTES: u64 = intents::MAX_BYTES;
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
const MAX_TRACE_BYTES: u64 = 256 * 1024 * 1024;
const RECENT_TAIL_BYTES: u64 = 256 * 1024;
const MAX_RECENT: usize = 500;
const MAX_READS: usize = 4096;
/// Calls waiting for their `tool.after` (a failed tool never gets one: the oldest go first).
const MAX_PENDING: usize = 32;
/// The earlier text of a file is kept for the record up to this size.
const MAX_KEPT_TEXT: usize = 1024 * 1024;

mod after;
mod before;
#[cfg(feature = "policy")]
mod blame;
mod config;
mod files;
mod init;
mod select;
mod state;
mod system;

pub use after::*;
pub use before::*;
#[cfg(feature = "policy")]
pub use blame::*;
pub use config::*;
pub use files::*;
pub use init::*;
pub use select::*;
pub use state::*;
pub use system::*;

//! Scripted processes: what a `Spawn` of an argv gives, as the JS host's spawn reply
//! (`{success, stdout, stderr, exitCode, timedOut, durationMs, error?}`).

use serde_json::{json, Value};

/// What a scripted process does.
#[derive(Clone)]
pub enum Proc {
    /// Exits 0 after `ms` with this stdout.
    Exit { ms: f64, stdout: String },
    /// Never exits: the host kills it at the request's timeout (`timedOut`).
    Hang,
    /// Never answered at all (the core gives up on it first).
    Never,
    /// Cannot be started (`error`, e.g. `spawn maenifold ENOENT`).
    Fails(String),
}

impl Proc {
    /// Exits at once with `stdout`.
    pub fn out(stdout: impl Into<String>) -> Proc {
        Proc::Exit {
            ms: 0.0,
            stdout: stdout.into(),
        }
    }

    /// Exits 0 after `ms` with `stdout`.
    pub fn after(ms: u64, stdout: impl Into<String>) -> Proc {
        Proc::Exit {
            ms: ms as f64,
            stdout: stdout.into(),
        }
    }
}

/// The processes a test host runs: a closure from argv to what the process does; `None` for a
/// host that runs nothing (every spawn fails).
pub type Procs = Option<Box<dyn FnMut(&[String]) -> Proc>>;

/// The reply to a spawn, and how long after the request it comes (`None`: never).
pub fn spawn_reply(p: Proc, timeout_ms: u64) -> Option<(f64, Value)> {
    Some(match p {
        Proc::Never => return None,
        Proc::Exit { ms, stdout } => (
            ms,
            json!({"success": true, "stdout": stdout, "stderr": "", "exitCode": 0,
                   "timedOut": false, "durationMs": ms}),
        ),
        Proc::Hang => (
            timeout_ms as f64,
            json!({"success": false, "stdout": "", "stderr": "", "exitCode": null,
                   "timedOut": true, "durationMs": timeout_ms}),
        ),
        Proc::Fails(e) => (
            0.0,
            json!({"success": false, "stdout": "", "stderr": "", "exitCode": null,
                   "timedOut": false, "durationMs": 0, "error": e}),
        ),
    })
}

//! The set-up tests that throw anything at the engine use (tests/fuzz.rs): the one driver
//! ([`Driver`]) with an engine and a [`TestHost`], bounded — more than [`MAX_REQUESTS`]
//! answers in one run panics "a hang" (counting, not timing), and so does a call left waiting
//! on nothing. Hook calls are given as any bytes (a refused call is the engine's
//! [`CallError`]); several operations may be in flight, the test waking them by feeding the
//! engine itself ([`Bounded::pump`]); and the test may play an MCP server itself
//! ([`Bounded::play_mcp`]: the host's [`Peers::played`]).

use serde_json::Value;

use crate::engine::{CallError, Engine};
use crate::runtime::Step;

use super::drive::Driver;
use super::mcp::Peers;
use super::TestHost;

/// Answers one run may give before it calls the operation a hang.
pub const MAX_REQUESTS: usize = 50_000;

/// An engine driven against a [`TestHost`] by the one driver, bounded (see the module's
/// docs): `runner` is the engine; `answers`, `limit` and `done` are the driver's.
pub type Bounded = Driver<Engine, TestHost>;

impl Bounded {
    /// A fresh engine against `host`, at most [`MAX_REQUESTS`] answers in one run.
    pub fn on(host: TestHost) -> Bounded {
        let mut d = Driver::new(Engine::new(), host);
        d.limit = Some(MAX_REQUESTS);
        d
    }

    /// Run a hook call given as bytes to its result (timers fire as they come due).
    pub fn call(&mut self, bytes: impl AsRef<[u8]>) -> Result<Value, CallError> {
        let op = self.try_start_call(bytes)?;
        Ok(self.run_until_done(op))
    }

    /// [`Bounded::call`] of a call the engine must take.
    pub fn call_json(&mut self, v: &Value) -> Value {
        let text = v.to_string();
        self.call(&text)
            .unwrap_or_else(|e| panic!("{}: {} for {text}", e.kind, e.message))
    }

    /// Take `steps` (the engine's, woken by the test) and answer what they lead to at once;
    /// with `fire_timers`, then let every timer fire, the earliest first, the clock moving
    /// to each (else they are kept). Finished operations are in `done`; one parked on an MCP
    /// answer stays parked (`Engine::mcp_feed` wakes it).
    pub fn pump(&mut self, steps: Vec<Step>, fire_timers: bool) {
        self.wake(steps);
        if fire_timers {
            self.drain();
        }
    }

    /// The test plays the MCP server: `McpStart` succeeds at once, what the core writes is
    /// kept ([`Bounded::mcp_written`]), and the test feeds the engine the server's output.
    pub fn play_mcp(&mut self) {
        self.host.mcp = Some(Peers::played());
    }

    /// The MCP sessions the core started.
    pub fn mcp_sessions(&self) -> Vec<u64> {
        self.host
            .mcp
            .as_ref()
            .map_or(Vec::new(), |p| p.starts.clone())
    }

    /// What the core wrote to the MCP sessions' stdin.
    pub fn mcp_written(&self) -> String {
        self.host.mcp.as_ref().map_or(String::new(), Peers::written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn init() -> Value {
        json!({"hook": "init", "cwd": "/w", "worktree": "/w", "directory": "/w",
               "env": {"PATH": "/nowhere"}, "options": {}})
    }

    #[test]
    fn a_call_runs_to_its_result_and_a_refused_one_is_the_call_error() {
        let mut h = Bounded::on(TestHost::default());
        assert!(h.call_json(&init()).is_object());
        assert!(h.answers > 1, "{}", h.answers);
        let e = h.call(b"{\"hook\": ").unwrap_err();
        assert_eq!(e.kind, "BadCall");
    }

    #[test]
    #[should_panic(expected = "a hang")]
    fn more_answers_than_the_bound_is_a_hang() {
        let mut h = Bounded::on(TestHost::default());
        h.limit = Some(1);
        h.call_json(&init());
    }

    #[cfg(feature = "policy")] // the MCP transport
    #[test]
    fn a_played_mcp_server_is_started_at_once_and_its_input_kept() {
        let mut fs = TestHost::default();
        fs.program("/bin/maenifold");
        let mut h = Bounded::on(fs);
        h.play_mcp();
        h.call_json(
            &json!({"hook": "init", "cwd": "/w", "worktree": "/w", "directory": "/w",
            "env": {"PATH": "/bin"}, "options": {"transport": "mcp"}}),
        );
        let warm = h.runner.start_json(r#"{"hook": "mcp.warmup"}"#).unwrap();
        let (Step::Done { op, .. } | Step::Pending { op, .. }) = &warm;
        let op = *op;
        h.pump(vec![warm], false);
        assert_eq!(h.mcp_sessions().len(), 1, "{:?}", h.host.log);
        assert!(
            h.mcp_written().contains("\"initialize\""),
            "{}",
            h.mcp_written()
        );
        assert!(!h.done.contains_key(&op), "the warm-up waits on the server");
        // the server never answers: the warm-up ends on its deadline
        h.pump(Vec::new(), true);
        assert!(h.done.contains_key(&op));
    }
}

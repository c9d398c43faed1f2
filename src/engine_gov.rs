//! Intent governance in the engine: the probe every build runs at `init`, and (policy build)
//! the wiring of [`crate::governance`] into the hooks.
//!
//! - `init` stats `.orchestration/active_intents.yaml` in the same batch as the enforcement
//!   probe; when it exists (or option `governance` is `true` / `{enabled: true}`) the lean
//!   build answers `{needs: "policy"}`: governance lives in the policy build only.
//! - Policy build, governance wired (the file existed at start, or the option forces it on):
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

use serde_json::Value;

#[cfg(feature = "policy")]
use crate::governance::{self as gov, ops::Enabled, GovConfig, Governance};
#[cfg(feature = "policy")]
use crate::protocol::Log;
#[cfg(feature = "policy")]
use crate::runtime::Io;

/// Where the probe looks, relative to the project root.
pub use crate::governance::INTENTS_FILE;

/// What option `governance` says: `Some(true)` forces it on, `Some(false)` off, `None` (absent,
/// `"auto"` or an object without a boolean `enabled`): on when the intents file exists.
pub fn option_forces(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::Object(m) => m.get("enabled").and_then(Value::as_bool),
        _ => None,
    }
}

/// Whether the project wants governance: the option (the plugin's, else the one in
/// `.opencode/hookwise.json`) or, by default, the intents file.
pub fn wanted(options: &Value, file_options: Option<&Value>, intents_exist: bool) -> bool {
    option_forces(options.get("governance"))
        .or_else(|| option_forces(file_options.and_then(|f| f.get("governance"))))
        .unwrap_or(intents_exist)
}

/// Governance in a running engine (policy build).
#[cfg(feature = "policy")]
#[derive(Clone, Default)]
pub struct Wiring {
    pub gov: Governance,
    /// The hooks are wired (plan lists the watched tools).
    pub on: bool,
    /// The worktree (the engine's project root).
    pub worktree: String,
    /// Where relative tool paths start, when below the worktree (OpenCode `directory`).
    pub directory: String,
}

#[cfg(feature = "policy")]
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
            },
            logs,
        )
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
        gov::tool_before(io, &self.gov, &input).await
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_option_wins_over_the_file_and_auto_follows_the_file() {
        let none = json!({});
        assert!(wanted(&none, None, true));
        assert!(!wanted(&none, None, false));
        assert!(wanted(&json!({"governance": true}), None, false));
        assert!(!wanted(&json!({"governance": false}), None, true));
        assert!(wanted(
            &json!({"governance": {"enabled": true}}),
            None,
            false
        ));
        assert!(!wanted(&json!({"governance": "auto"}), None, false));
        assert!(wanted(&json!({"governance": "auto"}), None, true));
        // the project's hookwise.json counts when the plugin options say nothing
        let file = json!({"governance": false});
        assert!(!wanted(&none, Some(&file), true));
        assert!(wanted(&json!({"governance": true}), Some(&file), false));
        // a bad value is not a decision
        assert!(wanted(&json!({"governance": 3}), None, true));
    }
}

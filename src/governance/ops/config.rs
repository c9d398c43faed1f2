//! When and how governance is on: [`GovConfig`] read from the options and the host profile.

use super::*;

/// When governance is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enabled {
    /// On when `.orchestration/active_intents.yaml` exists (the default).
    Auto,
    On,
    Off,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GovConfig {
    pub enabled: Enabled,
    /// Tools gated even where the host profile says they only read (option `mutatingTools`).
    /// Every tool the profile does not know to be read-only is gated anyway (default deny:
    /// [`GovConfig::gated`]); this list can only widen the gate.
    pub mutating_tools: Vec<String>,
    /// Tools the user declares read-only (option `readOnlyTools`): they run without an intent.
    /// A tool the profile knows to change files cannot be declared so.
    pub read_only_tools: Vec<String>,
    /// Tools whose reads are remembered for stale-write checks.
    pub read_tools: Vec<String>,
    /// Block a write to a file that changed since the session read it.
    pub stale_writes: bool,
    /// `tool.version` in records.
    pub tool_version: String,
    /// The host's profile: its tools, and the keys they write.
    pub host: &'static Profile,
}

impl Default for GovConfig {
    fn default() -> Self {
        GovConfig::for_host(crate::hosts::default_profile())
    }
}

impl GovConfig {
    /// The defaults on `host`: every tool but its read-only ones (and hookwise's own) is gated.
    pub fn for_host(host: &'static Profile) -> Self {
        GovConfig {
            enabled: Enabled::Auto,
            mutating_tools: Vec::new(),
            read_only_tools: Vec::new(),
            read_tools: host.readers(),
            stale_writes: true,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            host,
        }
    }

    /// From the plugin option `governance`: `true` | `false` | `"auto"`, or
    /// `{enabled, mutatingTools, readOnlyTools, readTools, staleWrites}`. Bad values warn and
    /// keep the default.
    pub fn from_options(v: Option<&Value>) -> (GovConfig, Vec<Log>) {
        GovConfig::from_options_on(v, crate::hosts::default_profile())
    }

    /// [`GovConfig::from_options`] with `host`'s defaults.
    pub fn from_options_on(v: Option<&Value>, host: &'static Profile) -> (GovConfig, Vec<Log>) {
        let mut c = GovConfig::for_host(host);
        let mut logs = Vec::new();
        let enabled = |v: &Value, logs: &mut Vec<Log>| match v {
            Value::Bool(true) => Some(Enabled::On),
            Value::Bool(false) => Some(Enabled::Off),
            Value::String(s) if s == "auto" => Some(Enabled::Auto),
            other => {
                logs.push(Log::warn(format!(
                    "hookwise option governance.enabled must be true, false or \"auto\"; got {other}; using \"auto\""
                )));
                None
            }
        };
        match v {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                for (k, val) in m {
                    match k.as_str() {
                        "enabled" => {
                            if let Some(e) = enabled(val, &mut logs) {
                                c.enabled = e;
                            }
                        }
                        "mutatingTools" | "readTools" | "readOnlyTools" => match string_list(val) {
                            Some(list) if k == "mutatingTools" => c.mutating_tools = list,
                            Some(list) if k == "readOnlyTools" => {
                                c.read_only_tools = read_only_list(host, list, &mut logs)
                            }
                            Some(list) => c.read_tools = list,
                            None => logs.push(Log::warn(format!(
                                "hookwise option governance.{k} must be an array of tool names; using the default"
                            ))),
                        },
                        "staleWrites" => match val.as_bool() {
                            Some(b) => c.stale_writes = b,
                            None => logs.push(Log::warn(
                                "hookwise option governance.staleWrites must be a boolean; using true",
                            )),
                        },
                        other => logs.push(Log::warn(format!(
                            "hookwise option governance.{other} is not known; ignored"
                        ))),
                    }
                }
            }
            Some(other) => {
                if let Some(e) = enabled(other, &mut logs) {
                    c.enabled = e;
                }
            }
        }
        (c, logs)
    }

    /// Under governance, a call of `tool` is gated like a write: every tool but the ones the
    /// host profile knows change nothing by themselves, hookwise's own, and the user's
    /// `readOnlyTools` (default deny); `mutatingTools` gates a tool whatever else says.
    pub fn gated(&self, tool: &str) -> bool {
        self.mutating_tools.iter().any(|t| t == tool)
            || !(self.host.ungated(tool) || self.read_only_tools.iter().any(|t| t == tool))
    }

    /// Tools whose `tool.before` / `tool.after` the engine must see while governance is on:
    /// the host's known shell, write, edit and patch tools, the `mutatingTools`, the readers
    /// (stale-write checks); and besides them every tool not in [`GovConfig::ungated_tools`].
    pub fn watched_tools(&self) -> Vec<String> {
        let mut v = self.host.mutating();
        for t in self.mutating_tools.iter().chain(&self.read_tools) {
            if !v.contains(t) {
                v.push(t.clone());
            }
        }
        v
    }

    /// The tools that run without an active intent (the plan's `ungatedTools`: every other
    /// tool's `tool.before` reaches the engine whole while governance is on).
    pub fn ungated_tools(&self) -> Vec<String> {
        let mut v = self.host.ungated_tools();
        for t in &self.read_only_tools {
            if !v.contains(t) {
                v.push(t.clone());
            }
        }
        v.retain(|t| !self.gated(t));
        v
    }
}

/// `readOnlyTools` as given, without the tools the host profile knows to change files (or to
/// run commands): those stay gated, with a warning.
fn read_only_list(host: &Profile, list: Vec<String>, logs: &mut Vec<Log>) -> Vec<String> {
    list.into_iter()
        .filter(|t| match host.tool(t).map(|x| x.role) {
            Some(Role::Shell | Role::Write | Role::Edit | Role::Patch) => {
                logs.push(Log::warn(format!(
                    "hookwise option governance.readOnlyTools: `{}` changes files on this host; it stays gated",
                    t.chars().take(64).collect::<String>()
                )));
                false
            }
            _ => true,
        })
        .collect()
}

pub(super) fn string_list(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_string))
        .collect()
}

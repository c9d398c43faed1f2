//! Default deny: which tools may run under intent governance without an active intent.
//!
//! A profile marks the tools it knows to change nothing by themselves ([`Role::Read`]; and
//! [`Role::Subagent`], whose own tool calls pass through the same hooks and are gated there).
//! Everything else — a tool the profile does not name, a tool new in a host release, another
//! MCP server's tool, a look-alike of a known name (another case, a trailing space, a letter
//! from another script) — is gated like a write. Names are compared exactly, as the host
//! sends them: a host that calls a tool `Read ` does not run `Read`.
//!
//! hookwise's own model tools pass too (`select_active_intent` must work with no intent; the
//! knowledge tools read): under their bare names, or, where the host names an MCP server's
//! tools `mcp__<server>__<tool>` (Claude Code), under hookwise's server prefix. The hook tools
//! of that server (`hook_pre_tool_use`, …) are not the model's: a call of one is gated.

use super::{Profile, Role};

/// hookwise's model tools (`src/tools/specs.json`; a test keeps the two in step).
pub const OWN_TOOLS: &[&str] = &[
    "select_active_intent",
    "knowledge_search",
    "knowledge_context",
    "knowledge_read",
    "knowledge_remember",
];

impl Role {
    /// A tool of this role changes nothing by itself: it runs without an active intent.
    pub fn ungated(self) -> bool {
        matches!(self, Role::Read | Role::Subagent)
    }
}

impl Profile {
    /// How this host names hookwise's own tools: `mcp__hookwise__` where the model reaches
    /// them through hookwise's MCP server (Claude Code), none where the plugin registers them.
    pub fn own_tool_prefix(&self) -> &'static str {
        match self.id {
            "claude-code" => "mcp__hookwise__",
            _ => "",
        }
    }

    /// `name` is one of hookwise's own model tools as this host names it.
    pub fn own_tool(&self, name: &str) -> bool {
        name.strip_prefix(self.own_tool_prefix())
            .is_some_and(|bare| OWN_TOOLS.contains(&bare))
    }

    /// hookwise's own model tools as this host names them.
    pub fn own_tools(&self) -> Vec<String> {
        let prefix = self.own_tool_prefix();
        OWN_TOOLS.iter().map(|t| format!("{prefix}{t}")).collect()
    }

    /// Under governance, `name` runs without an active intent: the profile knows it changes
    /// nothing by itself, or it is hookwise's own tool. Every other name is gated.
    pub fn ungated(&self, name: &str) -> bool {
        self.tool(name).is_some_and(|t| t.role.ungated()) || self.own_tool(name)
    }

    /// Every name [`Profile::ungated`] lets through, once.
    pub fn ungated_tools(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .all()
            .into_iter()
            .filter(|t| t.role.ungated())
            .map(|t| t.name.to_string())
            .collect();
        for t in self.own_tools() {
            if !v.contains(&t) {
                v.push(t);
            }
        }
        v
    }
}

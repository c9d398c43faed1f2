//! Dialects: how each command-hook host speaks the hook protocol Claude Code made.
//!
//! Claude Code, Codex, Gemini CLI, GitHub Copilot CLI and Qwen Code all run a command (or, for
//! Claude Code, an MCP tool) per hook event, hand it a JSON payload and read a JSON answer.
//! The protocols are close but not the same, and the differences decide whether a block is a
//! block (each checked against the real CLI, whose suite in `tests/e2e-<host>/` pins it): the
//! event names, the payload's call id, where added context reaches the model, and the shape
//! of the answer each host honours. The core decides once (`crate::command_hook`); a dialect —
//! in the host's file under `crate::hosts`, beside its profile — names the host's events and
//! how its answers are written (one typed answer per host). The tools and their argument keys
//! are the host's [`super::Profile`].

/// What a host's event is to the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Before a tool runs: the gate, enforcement, knowledge context.
    PreTool,
    /// After a tool ran: the Agent Trace record, context for the result.
    PostTool,
    /// A user prompt (before the model is asked): governance's intent context, the session's
    /// start context on the first one.
    Prompt,
    /// The session starts (with `source: "compact"` after a compaction, where the host says so).
    SessionStart,
    /// Before a compaction: the compaction memory and the preservation guidance.
    PreCompact,
    /// After a compaction (answers nothing the model reads in any host that has it).
    PostCompact,
}

/// How `hookwise init --<host>` writes the MCP server entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpFile {
    /// A JSON file with the servers under `mcpServers` (`type`: the transport's name there, or
    /// none).
    Json { server_type: Option<&'static str> },
    /// Codex's `config.toml`: a `[mcp_servers.<name>]` table.
    Toml,
    /// Mistral Vibe's `config.toml`: a `[[mcp_servers]]` table named by `name`.
    VibeToml,
    /// The host reads no project MCP file (OpenHands: the user's only; Letta Code: an
    /// agent's own): none is written.
    None,
}

/// The form of the file holding a host's hooks (what `hookwise init --<host>` merges into).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HooksForm {
    /// A project JSON file with the hooks under `"hooks"`, in Claude Code's nested shape.
    Claude,
    /// Kimi Code: the USER's TOML config (`$VAR/<hooks_file>`, else `~/<dir>/<hooks_file>`),
    /// flat `[[hooks]] {event, matcher, command, timeout}` tables. The entries run in every
    /// project the user opens, so where no hookwise is found they do nothing (exit 0, no
    /// output).
    KimiUser {
        var: &'static str,
        dir: &'static str,
    },
    /// Mistral Vibe: a project TOML file of `[[hooks]] {name, type, command, match, timeout,
    /// strict}` tables; `strict` on the gate's hook (a hook that crashes then blocks).
    VibeToml,
}

/// Where and how a host reads its hooks and MCP servers (what `hookwise init --<host>` writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    /// The `init` flag and the name the user knows the agent by.
    pub flag: &'static str,
    /// The project file holding the hooks (under `"hooks"`, in Claude's nested shape).
    pub hooks_file: &'static str,
    /// The form of that file (Claude's nested JSON unless said otherwise).
    pub form: HooksForm,
    /// The matcher of tool events' entries (every tool).
    pub tool_matcher: &'static str,
    /// Each hook's timeout, in the host's unit (`timeout`).
    pub timeout: u32,
    /// The hook entries carry a `name` (Gemini CLI shows it, and trusts a hook by it).
    pub named: bool,
    /// The project file holding MCP servers, and its form.
    pub mcp_file: &'static str,
    pub mcp: McpFile,
    /// The one step the user takes so the host loads the project's hooks and servers (never
    /// taken for them).
    pub trust: &'static str,
    /// What `hookwise doctor` adds to the host's line (`""`: nothing): what it cannot check.
    pub doctor: &'static str,
}

/// One host's dialect.
#[derive(Debug)]
pub struct Dialect {
    /// The host's profile id.
    pub host: &'static str,
    /// The answer written in exactly the shape the host honours (its own `Serialize` types,
    /// in its hosts file): `event` is the host's own name for the event, `kind` what it is to
    /// the core. One per host, so an answer one host ignores or rejects cannot be written for
    /// it.
    pub render: fn(event: &str, kind: Event, answer: super::answer::Answer) -> String,
    /// The host's event names (as configured and as sent in `hook_event_name`) and what each
    /// is to the core; `init` writes them in this order.
    pub events: &'static [(&'static str, Event)],
    /// The payload keys of the tool call's id (the first non-empty string wins); without one,
    /// the id is derived from the tool's name and input (Gemini CLI sends none).
    pub call_id: &'static [&'static str],
    /// The payload's keys under the host's own names: `(Claude's key, the host's key)` — read
    /// as Claude's where Claude's is absent (a list: its first string).
    pub fields: &'static [(&'static str, &'static str)],
    /// Context in the PreToolUse answer reaches the model (Claude Code only); elsewhere the
    /// context for a call goes with its PostToolUse answer.
    pub pre_context: bool,
    /// What a compaction kept reaches the model from a SessionStart with `source: "compact"`
    /// (Claude Code, Qwen Code); elsewhere it goes with the next answer that carries context.
    pub compact_start: bool,
    /// A block is exit code 2 with the reason on stderr (Letta Code: a JSON deny is ignored).
    pub deny_exit: bool,
    /// How the host names hookwise's own MCP tools in hook payloads: the prefix before the
    /// tool's name (server `hookwise`).
    pub mcp_prefix: &'static str,
    /// The variable the host sets to the project's folder for a hook's command (`""`: none;
    /// a command is then relative to the folder the hook runs in, the session's).
    pub project_dir_var: &'static str,
    /// The payload key of the folder the session runs in (`cwd`; OpenHands: `working_dir`).
    pub cwd_key: &'static str,
    /// The host has no prompt or session-start hook whose answer reaches the model (Mistral
    /// Vibe): the session's start context and governance's intent context go with the
    /// session's first tool result that can carry context.
    pub start_with_result: bool,
    /// Where the model that made a call is found when the payload does not name it
    /// ([`super::model_log`]; `None`: the payload names it, or nothing does).
    pub model_log: Option<ModelLog>,
    /// `None`: set up by `hookwise init --claude` (`crate::command_hook::setup`).
    pub setup: Option<Setup>,
}

impl Dialect {
    /// What the host's event `name` is to the core.
    pub fn event(&self, name: &str) -> Option<Event> {
        self.events.iter().find(|e| e.0 == name).map(|e| e.1)
    }

    /// The host's name for a core event (the first listed).
    pub fn name_of(&self, event: Event) -> Option<&'static str> {
        self.events.iter().find(|e| e.1 == event).map(|e| e.0)
    }

    /// The payload with the host's own keys read as Claude's ([`Dialect::fields`]); `None`:
    /// nothing to read otherwise.
    pub fn normalize(&self, input: &serde_json::Value) -> Option<serde_json::Value> {
        let obj = input.as_object()?;
        let mut out = None;
        for (ours, theirs) in self.fields {
            if obj.get(*ours).is_some_and(|v| !v.is_null()) {
                continue;
            }
            let v = match obj.get(*theirs) {
                Some(serde_json::Value::Array(a)) => a.iter().find(|x| x.is_string()).cloned(),
                Some(v) if !v.is_null() => Some(v.clone()),
                _ => None,
            };
            if let Some(v) = v {
                out.get_or_insert_with(|| input.clone())[*ours] = v;
            }
        }
        out
    }

    /// hookwise's own MCP tool behind the host's tool name, if it is one.
    pub fn own_tool<'a>(&self, tool: &'a str) -> Option<&'a str> {
        tool.strip_prefix(self.mcp_prefix)
            .filter(|t| crate::tools::spec(t).is_some())
    }
}

use super::model_log::ModelLog;

//! Dialects: how each command-hook host speaks the hook protocol Claude Code made.
//!
//! Claude Code, Codex, Gemini CLI, GitHub Copilot CLI and Qwen Code all run a command (or, for
//! Claude Code, an MCP tool) per hook event, hand it a JSON payload and read a JSON answer.
//! The protocols are close but not the same, and the differences decide whether a block is a
//! block (each checked against the real CLI, whose suite in `tests/e2e-<host>/` pins it): the
//! event names, the payload's call id, where added context reaches the model, and the shape
//! of the answer each host honours. The core decides once (`engine/policy/hook`); a dialect —
//! this table, beside the host profiles — names the host's events and how its answers are
//! written ([`super::answer`], one typed answer per dialect). The tools and their argument
//! keys are the host's [`super::Profile`].

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

/// The answer's shape ([`super::answer`]): one per host, so an answer one host ignores or
/// rejects cannot be written for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Claude,
    Codex,
    Gemini,
    Copilot,
    Qwen,
    Kimi,
    Vibe,
    OpenHands,
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
    /// The host reads no project MCP file (OpenHands: the user's only): none is written.
    None,
}

/// Where and how a host reads its hooks and MCP servers (what `hookwise init --<host>` writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    /// The `init` flag and the name the user knows the agent by.
    pub flag: &'static str,
    /// The file holding the hooks (under `"hooks"`, in Claude's nested shape, unless `form`
    /// says otherwise).
    pub hooks_file: &'static str,
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
}

/// One host's dialect.
#[derive(Debug, PartialEq, Eq)]
pub struct Dialect {
    /// The host's profile id.
    pub host: &'static str,
    pub shape: Shape,
    /// The host's event names (as configured and as sent in `hook_event_name`) and what each
    /// is to the core; `init` writes them in this order.
    pub events: &'static [(&'static str, Event)],
    /// The payload keys of the tool call's id (the first non-empty string wins); without one,
    /// the id is derived from the tool's name and input (Gemini CLI sends none).
    pub call_id: &'static [&'static str],
    /// Context in the PreToolUse answer reaches the model (Claude Code only); elsewhere the
    /// context for a call goes with its PostToolUse answer.
    pub pre_context: bool,
    /// What a compaction kept reaches the model from a SessionStart with `source: "compact"`
    /// (Claude Code, Qwen Code); elsewhere it goes with the next answer that carries context.
    pub compact_start: bool,
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
    /// ([`super::model_log`]).
    pub model_log: ModelLog,
    /// A folder in the project, or a program on PATH, that says the agent is used here
    /// (`hookwise init` with no host sets up each one it finds).
    pub marker: &'static str,
    pub program: &'static str,
    /// `None`: set up by `hookwise init --claude` (`hook/setup.rs`).
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

    /// hookwise's own MCP tool behind the host's tool name, if it is one.
    pub fn own_tool<'a>(&self, tool: &'a str) -> Option<&'a str> {
        tool.strip_prefix(self.mcp_prefix)
            .filter(|t| crate::tools::spec(t).is_some())
    }
}

use super::model_log::ModelLog;
use Event::*;

/// Claude Code 2.1.330 (`claude-code-host.md`): every event answered in `hookSpecificOutput`,
/// PreCompact in plain text (the summary request's added instructions).
pub static CLAUDE_CODE: Dialect = Dialect {
    host: "claude-code",
    shape: Shape::Claude,
    events: &[
        ("PreToolUse", PreTool),
        ("PostToolUse", PostTool),
        ("UserPromptSubmit", Prompt),
        ("PreCompact", PreCompact),
        ("SessionStart", SessionStart),
    ],
    call_id: &["tool_use_id"],
    pre_context: true,
    compact_start: true,
    mcp_prefix: "mcp__hookwise__",
    project_dir_var: "CLAUDE_PROJECT_DIR",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: ModelLog::ClaudeTranscript,
    marker: ".claude",
    program: "claude",
    setup: None,
};

/// Codex CLI 0.171.0: answers are checked against its output schemas
/// (`codex-rs/hooks/schema/generated/*.command.output.schema.json`, all
/// `additionalProperties: false`): an unknown key drops the whole answer. PreCompact and
/// PostCompact answers carry nothing the model reads. Context: SessionStart,
/// UserPromptSubmit and PostToolUse (a developer message each).
pub static CODEX: Dialect = Dialect {
    host: "codex",
    shape: Shape::Codex,
    events: &[
        ("PreToolUse", PreTool),
        ("PostToolUse", PostTool),
        ("UserPromptSubmit", Prompt),
        ("SessionStart", SessionStart),
        ("PreCompact", PreCompact),
        ("PostCompact", PostCompact),
    ],
    call_id: &["tool_use_id"],
    pre_context: false,
    compact_start: false,
    mcp_prefix: "mcp__hookwise__",
    project_dir_var: "",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: ModelLog::None,
    marker: ".codex",
    program: "codex",
    setup: Some(Setup {
        flag: "codex",
        form: HooksForm::Claude,
        hooks_file: ".codex/hooks.json",
        tool_matcher: ".*",
        timeout: 30,
        named: false,
        mcp_file: ".codex/config.toml",
        mcp: McpFile::Toml,
        trust: "Codex loads a project's .codex/ folder (hooks and MCP servers) only in a trusted project: add [projects.\"<this folder>\"] trust_level = \"trusted\" to ~/.codex/config.toml (Codex asks on the first interactive start in the folder), and approve the project's hooks when Codex asks (codex exec skips untrusted hooks).",
    }),
};

/// Gemini CLI 0.61.0 (`bundle/docs/hooks/reference.md`): a block is a top-level `decision:
/// "deny"` with `reason`; context in `hookSpecificOutput.additionalContext` (the host
/// HTML-escapes it); no call id. Its PreCompress runs before every model request, fired
/// asynchronously, and can change nothing ("advisory"): hookwise does not hook it.
pub static GEMINI: Dialect = Dialect {
    host: "gemini",
    shape: Shape::Gemini,
    events: &[
        ("BeforeTool", PreTool),
        ("AfterTool", PostTool),
        ("BeforeAgent", Prompt),
        ("SessionStart", SessionStart),
    ],
    call_id: &[],
    pre_context: false,
    compact_start: false,
    mcp_prefix: "mcp_hookwise_",
    project_dir_var: "GEMINI_PROJECT_DIR",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: ModelLog::GeminiTranscript,
    marker: ".gemini",
    program: "gemini",
    setup: Some(Setup {
        flag: "gemini",
        form: HooksForm::Claude,
        hooks_file: ".gemini/settings.json",
        tool_matcher: ".*",
        // milliseconds
        timeout: 30_000,
        named: true,
        mcp_file: ".gemini/settings.json",
        mcp: McpFile::Json { server_type: None },
        trust: "Gemini CLI loads a project's hooks and MCP servers only in a trusted folder: answer its trust prompt on the first start here (or run with GEMINI_CLI_TRUST_WORKSPACE=true); it asks again whenever a hook's command changes.",
    }),
};

/// GitHub Copilot CLI 1.0.102 with hooks in Claude's nested shape (`.github/hooks/*.json`):
/// context counts only at the answer's top level (`additionalContext`); a block is
/// `permissionDecision: "deny"` in `hookSpecificOutput`.
pub static COPILOT: Dialect = Dialect {
    host: "copilot",
    shape: Shape::Copilot,
    events: &[
        ("PreToolUse", PreTool),
        ("PostToolUse", PostTool),
        ("UserPromptSubmit", Prompt),
        ("SessionStart", SessionStart),
        ("PreCompact", PreCompact),
    ],
    call_id: &["tool_use_id", "tool_call_id"],
    pre_context: false,
    compact_start: false,
    mcp_prefix: "hookwise-",
    project_dir_var: "",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: ModelLog::CopilotEvents,
    marker: ".github/hooks",
    program: "copilot",
    setup: Some(Setup {
        flag: "copilot",
        form: HooksForm::Claude,
        hooks_file: ".github/hooks/hookwise.json",
        tool_matcher: "*",
        timeout: 30,
        named: false,
        // read by 1.0.102 beside `.mcp.json` (its cli-main.js)
        mcp_file: ".github/mcp.json",
        mcp: McpFile::Json {
            server_type: Some("local"),
        },
        trust: "Copilot CLI loads a folder's hooks and MCP servers only once the folder is trusted: confirm the trust prompt on the first start here (headless runs: COPILOT_ALLOW_ALL=true trusts the folder too).",
    }),
};

/// Qwen Code 0.24.4 (`bundled/qc-helper/docs/features/hooks.md`): Claude's shape, but a
/// PreToolUse `updatedInput` is not applied (its `firePreToolUseHook` returns no input), so
/// its answers carry none; PostCompact's answer is ignored.
pub static QWEN: Dialect = Dialect {
    host: "qwen",
    shape: Shape::Qwen,
    events: &[
        ("PreToolUse", PreTool),
        ("PostToolUse", PostTool),
        ("UserPromptSubmit", Prompt),
        ("SessionStart", SessionStart),
        ("PreCompact", PreCompact),
    ],
    call_id: &["tool_use_id", "tool_call_id"],
    pre_context: false,
    compact_start: true,
    mcp_prefix: "mcp__hookwise__",
    project_dir_var: "QWEN_PROJECT_DIR",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: ModelLog::None,
    marker: ".qwen",
    program: "qwen",
    setup: Some(Setup {
        flag: "qwen",
        form: HooksForm::Claude,
        hooks_file: ".qwen/settings.json",
        tool_matcher: ".*",
        timeout: 30,
        named: true,
        mcp_file: ".qwen/settings.json",
        mcp: McpFile::Json { server_type: None },
        trust: "Qwen Code loads a project's hooks and MCP servers only in a trusted folder: trust this folder when Qwen Code asks (or turn folder trust off in ~/.qwen/settings.json: security.folderTrust.enabled = false).",
    }),
};

/// Every dialect.
pub static ALL: &[&Dialect] = &[
    &CLAUDE_CODE,
    &CODEX,
    &GEMINI,
    &COPILOT,
    &QWEN,
    &super::kimi::DIALECT,
    &super::vibe::DIALECT,
    &super::openhands::DIALECT,
];

/// The dialect of a host (`None`: the host has no command hooks).
pub fn of(host: &str) -> Option<&'static Dialect> {
    ALL.iter().copied().find(|d| d.host == host)
}

/// The dialect `hookwise init --<flag>` sets up.
pub fn by_flag(flag: &str) -> Option<&'static Dialect> {
    ALL.iter()
        .copied()
        .find(|d| d.setup.is_some_and(|s| s.flag == flag))
}

//! The wire types: the hook calls a host sends ([`Call`]) and what the engine answers with
//! beside the operations' own results ([`Plan`] in `init`'s answer, [`ToolResult`] for
//! `tool.before` and `tool.after`, [`CallError`]). Both builds know every hook: a call only
//! the policy build serves is read by the lean one too, and answered `{needs: "policy"}`.
//!
//! What the lean build does not read, to stay small (each field or variant serde reads costs
//! the wasm code): the fields of the policy-only hooks (their types are `policy`'s: the
//! governance ones in `policy/governance.rs`, [`crate::engine`]'s lean half reads them as
//! nothing) and the policy-only fields of common hooks (`#[cfg_attr(.., serde(skip))]`
//! below: the lean build leaves them at their defaults, as it ignored them before).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::policy;
use crate::placement::Excerpt;
use crate::protocol::{ArgEdit, Log};
use crate::session::SessionInfo;

/// A hook call from the host: an object whose `hook` names the variant, read by
/// [`Call::from_json`] (the derived reader is its second pass: it reads the variant the tag
/// names, as an enum access hands it over, `call_read.rs`).
#[derive(Debug, Deserialize)]
#[serde(rename_all_fields = "camelCase")]
pub enum Call {
    /// Plugin start: options, the environment it needs and the working directory.
    #[serde(rename = "init")]
    Init(InitCall),
    /// Start the warm maenifold MCP session now instead of on first need (plugin start with
    /// session-start context on). Result: `{ok, error?, status, logs}`; in the lean build
    /// (no MCP session) `{}`.
    #[serde(rename = "mcp.warmup")]
    McpWarmup,
    /// The plugin is going away: stop the MCP session. Result: `{stopped}`.
    #[serde(rename = "dispose")]
    Dispose,
    /// A session was created (OpenCode `event` `session.created`: `event.properties.info`).
    #[serde(rename = "session.created")]
    SessionCreated { session: SessionInfo },
    /// Before a model request (OpenCode `experimental.chat.system.transform`).
    #[serde(rename = "system.transform")]
    SystemTransform {
        #[serde(default)]
        session_id: Option<String>,
        #[serde(default)]
        system: Vec<String>,
        /// `provider/model` (OpenCode's `input.model`), for Agent Trace records (policy
        /// build).
        #[serde(default)]
        #[cfg_attr(not(feature = "policy"), serde(skip))]
        model_id: Option<String>,
    },
    /// The session-start context for a project, computed now (the `hookwise session` command,
    /// engine hosts). `strategy`: `parallel` (default), `sequential`, `seed` (the benchmark's
    /// baseline).
    #[serde(rename = "session.preview")]
    SessionPreview {
        #[serde(default)]
        project: Option<String>,
        #[serde(default)]
        strategy: Option<String>,
    },
    /// What hookwise knows about itself: knowledge source, discovery, configuration.
    #[serde(rename = "doctor")]
    Doctor,
    /// `hookwise init`: create hookwise's configuration files in the project, never
    /// overwriting one that exists.
    #[serde(rename = "init.scaffold")]
    Scaffold {
        #[serde(default)]
        cwd: String,
    },
    /// `hookwise init --governance`: create `.orchestration/active_intents.yaml`
    /// (`active_intents: []`), never overwriting; it turns intent governance on. Result: like
    /// `init.scaffold`'s. Policy build (the lean one answers `{needs: "policy"}`).
    #[serde(rename = "governance.scaffold")]
    GovScaffold(policy::GovScaffoldCall),
    /// Before the summarising model call (OpenCode `experimental.session.compacting`).
    #[serde(rename = "session.compacting")]
    SessionCompacting {
        session_id: String,
        #[serde(default)]
        now_ms: f64,
    },
    /// Before a tool runs (OpenCode `tool.execute.before`).
    #[serde(rename = "tool.before")]
    ToolBefore(ToolBeforeCall),
    /// After a tool ran (OpenCode `tool.execute.after`).
    #[serde(rename = "tool.after")]
    ToolAfter(ToolAfterCall),
    /// Intent governance: the `select_active_intent` tool. Result: `{ok, intentId?, text}`
    /// (`text` is the tool result for the model); in the lean build `{needs: "policy"}`.
    #[serde(rename = "intent.select")]
    IntentSelect(policy::IntentSelectCall),
    /// Intent governance: the `<intent_context>` text for a session. Result: `{system: [..]}`;
    /// in the lean build `{needs: "policy"}`.
    #[serde(rename = "intent.context")]
    IntentContext(policy::IntentContextCall),
    /// Intent governance: verify the Agent Trace chain and head (and `anchor`, a head printed
    /// earlier). Result: `{path, headPath, ok, lines, problems, logHead?, storedHead?, error?}`;
    /// in the lean build `{needs: "policy"}`.
    #[serde(rename = "trace.verify")]
    TraceVerify(policy::TraceVerifyCall),
    /// Intent governance: the Agent Trace's head to anchor; `init` writes it for the log as it
    /// is. Result: `{ok, written?, text?, message, verify}`; in the lean build
    /// `{needs: "policy"}`.
    #[serde(rename = "trace.head")]
    TraceHead(policy::TraceHeadCall),
    /// Intent governance: who wrote each line of a file (`{path, table?}`). Result: `{path, ok,
    /// error?, verify, records, summary, lines, table?}` (docs/engine-api.md); in the lean
    /// build `{needs: "policy"}`.
    #[serde(rename = "trace.blame")]
    TraceBlame(policy::TraceBlameCall),
    /// A command-hook host's event with its payload's fields (Claude Code, Codex, Gemini CLI,
    /// Copilot CLI, Qwen Code: the host `init` named), answered in that host's dialect
    /// (`command_hook`, the host's dialect in `hosts/`). `claude.hook` is its earlier name. Policy
    /// build (the lean one answers `{needs: "policy"}`: the lean wasm stays within its size
    /// budget).
    #[serde(rename = "hook.event", alias = "claude.hook")]
    Hook(policy::HookEvent),
    /// A model called one of the plan's `tools` ([`crate::tools`]). Result: `{text, isError}`
    /// (`text` is the tool result the model reads; bad input is an `isError` text).
    #[serde(rename = "tool.call")]
    ToolCall {
        name: String,
        #[serde(default)]
        input: Value,
        #[serde(default)]
        session_id: String,
    },
    /// The enforcement metrics (`hookwise metrics [verify]`): reads the files the
    /// configuration names. Result: `{ok, text, metricsFile, stateFile}`; in the lean build
    /// `{needs: "policy"}`.
    #[serde(rename = "metrics")]
    Metrics {
        #[serde(default)]
        verify: bool,
    },
}

impl Call {
    /// A hook call from its JSON.
    pub fn from_json(bytes: &[u8]) -> serde_json::Result<Call> {
        super::call_read::tagged(bytes, "Call")
    }
}

/// `init`'s fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitCall {
    #[serde(default)]
    pub options: Value,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub cwd: String,
    /// OpenCode's `worktree` and `directory` (the project name comes from them).
    #[serde(default)]
    pub worktree: String,
    #[serde(default)]
    pub directory: String,
    /// The host can run the maenifold MCP server (`mcpStart` …); a host that runs
    /// maenifold through its own runner cannot: the CLI path only.
    #[serde(default = "yes")]
    pub mcp: bool,
    /// Which host this is (`opencode`, `openclaw`, `claude-code`, `vscode`): the profile
    /// the gate, the trace, enforcement and placement read ([`crate::host`]). Absent:
    /// `vscode`; anything else unknown: a warning and `vscode`.
    #[serde(default)]
    pub host: Option<Value>,
    /// The host started hookwise somewhere inside the project (a command hook runs in the
    /// session's current folder): the project is the governed root above `cwd`
    /// ([`crate::governance::root`]), and `cwd`, `worktree` and `directory` become it.
    #[serde(default)]
    #[cfg_attr(not(feature = "policy"), serde(skip))]
    pub find_root: bool,
    /// The confined shell's launcher as the JS found it (`js/native.cjs`):
    /// `{binary, platform, install, runtime}` ([`crate::governance::confine::Launcher`]).
    #[serde(default)]
    #[cfg_attr(not(feature = "policy"), serde(skip))]
    pub sandbox: Value,
    /// `false`: a command that only reads (`hookwise trace`, `metrics`, `doctor`): maenifold
    /// is discovered and reported, never run (issue 38).
    #[serde(default = "yes")]
    pub run_programs: bool,
}

fn yes() -> bool {
    true
}

/// `tool.before`'s fields. The arguments come whole (`args`) or, as the plan asks, as
/// top-level field types plus excerpts around each needle the host found (`fields`,
/// `excerpts`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolBeforeCall {
    pub tool: String,
    #[serde(default)]
    pub session_id: String,
    #[serde(default)]
    pub call_id: String,
    #[serde(default)]
    pub args: Option<Value>,
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    #[serde(default)]
    pub excerpts: Option<Vec<Excerpt>>,
    /// Decide as the hook would, against the real cooldowns, but record nothing (no
    /// metrics line, no state change): `hookwise check`. The decision says `dryRun`.
    #[serde(default)]
    #[cfg_attr(not(feature = "policy"), serde(skip))]
    pub dry_run: bool,
    /// The host cannot show the model changed arguments (OpenClaw runs a `params`
    /// rewrite but replays the model's original call): everything goes with the result.
    #[serde(default)]
    pub result_only: bool,
    /// The host runs the arguments as it gave them (the engine API's `executePreHook`): no
    /// change of them reaches the tool, so a governed shell cannot be put under the confining
    /// launcher and is refused ([`crate::governance::confine`]).
    #[serde(default)]
    pub fixed_args: bool,
    /// The arguments could not be read whole ([`crate::wire::Unreadable::from_code`]): the
    /// host could not encode them, or the core cut what nested too deep. Governance and
    /// enforcement refuse the call; knowledge context reads what is there.
    #[serde(default)]
    pub unreadable: Option<String>,
    /// Where this call's relative paths start, when the host says so per call (a hook
    /// payload's `cwd`): used only when it lies inside the governed project; empty: the
    /// project's own (`init`'s `directory`).
    #[serde(default)]
    #[cfg_attr(not(feature = "policy"), serde(skip))]
    pub directory: String,
}

/// `tool.after`'s fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAfterCall {
    pub tool: String,
    #[serde(default)]
    pub session_id: String,
    #[serde(default)]
    pub call_id: String,
    /// The tool's arguments (OpenCode passes them in the after hook's input): governance
    /// records the mutation from them. The host sends them only for the tools the plan
    /// lists (`toolBeforeTools`).
    #[serde(default)]
    #[cfg_attr(not(feature = "policy"), serde(skip))]
    pub args: Option<Value>,
    /// 16 random bytes as 32 hex characters (the record's uuid).
    #[serde(default)]
    #[cfg_attr(not(feature = "policy"), serde(skip))]
    pub random: String,
    /// The tool failed: nothing is recorded.
    #[serde(default)]
    #[cfg_attr(not(feature = "policy"), serde(skip))]
    pub failed: bool,
    /// As in `tool.before`: the arguments could not be read whole (nothing is recorded
    /// from them; the warning says so).
    #[serde(default)]
    #[cfg_attr(not(feature = "policy"), serde(skip))]
    pub unreadable: Option<String>,
    /// As in `tool.before`: where the call's relative paths start.
    #[serde(default)]
    #[cfg_attr(not(feature = "policy"), serde(skip))]
    pub directory: String,
    /// The host's log holding the model that made the call, for the record (set by the
    /// command-hook path only, from the host's dialect).
    #[cfg(feature = "policy")]
    #[serde(skip)]
    pub model_log: Option<crate::governance::ops::SessionLog>,
}

impl Call {
    /// The core cut part of this call's arguments (or the host said it could not encode
    /// them): a tool call is marked so that policy refuses it; other calls read what is left.
    pub(super) fn mark_unreadable(&mut self, code: &str) {
        match self {
            Call::ToolBefore(ToolBeforeCall { unreadable, .. })
            | Call::ToolAfter(ToolAfterCall { unreadable, .. }) => {
                unreadable.get_or_insert_with(|| code.to_string());
            }
            _ => {}
        }
    }
}

/// An error in the host's call itself (bad JSON, unknown hook): a typed error, not a panic.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallError {
    pub kind: &'static str,
    pub message: String,
}

/// Which hooks need the engine at all, so the host can skip the crossing for the others.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// `tool.before` is needed only for calls with a string containing `needle`; the host
    /// sends the top-level field types and, for each string, excerpts: from one character
    /// before each `needle` to one character after the next `close`, when that lies within
    /// `window` characters (else that occurrence is skipped). `None`: not needed at all.
    pub tool_before: Option<ExcerptPlan>,
    /// `session.created` events are wanted.
    pub session_created: bool,
    /// `system.transform` is wanted (session context goes into the system prompt).
    pub system_transform: bool,
    /// `session.compacting` is wanted.
    pub compaction: bool,
    /// Pre-action enforcement is on: every `tool.before` goes to the engine with the whole
    /// arguments (`args`), not excerpts.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tool_before_all: bool,
    /// Intent governance is on: `tool.before` for these tools goes to the engine with the
    /// whole arguments (a `followUp` asks for `tool.after` with the arguments). Always empty
    /// in the lean build.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_before_tools: Vec<String>,
    /// Intent governance is on and gates by default: `tool.before` of every tool NOT listed
    /// here goes to the engine with the whole arguments too (an unknown tool, another MCP
    /// server's, one new in a host release: default deny, [`crate::host`]). Listed: the tools
    /// that run without an intent. `None`: governance is off (always in the lean build).
    #[cfg(feature = "policy")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ungated_tools: Option<Vec<String>>,
    /// Governance or enforcement is on: a `tool.before` the core cannot answer (it fails, or
    /// the host cannot hand it over) is blocked, never waved through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_closed: Option<FailClosed>,
    /// The tools the host offers the model now ([`crate::tools`]); a call goes to `tool.call`.
    pub tools: Vec<crate::tools::ToolSpec>,
    /// The bounds the host checks a call's arguments against before they cross
    /// ([`crate::wire`]); past them it sends `unreadable` instead.
    pub args_limits: crate::wire::ArgsLimits,
}

/// Which tool calls the host blocks when the core cannot answer them, and what it tells the
/// model: `message` with `{tool}` and `{error}` filled in.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FailClosed {
    /// Every tool (enforcement is on; or governance is on, but for `except`).
    pub all: bool,
    /// The tools governance gates besides.
    pub tools: Vec<String>,
    /// With `all`: the tools that are not blocked (governance's ungated tools, while
    /// enforcement is off).
    #[cfg(feature = "policy")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub except: Vec<String>,
    pub message: String,
}

impl FailClosed {
    const MESSAGE: &'static str = "hookwise blocked `{tool}`: it could not check this call ({error}), and in this project intent governance or pre-action enforcement blocks what it cannot check. Try again; tell the user if it keeps failing.";

    /// `None` when neither is on. `ungated`: governance is on; every tool but these is gated.
    pub fn new(
        enforcing: bool,
        gated: Vec<String>,
        ungated: Option<Vec<String>>,
    ) -> Option<FailClosed> {
        let governing = ungated.is_some();
        (enforcing || governing || !gated.is_empty()).then(|| FailClosed {
            all: enforcing || governing,
            tools: gated,
            #[cfg(feature = "policy")]
            except: if enforcing {
                Vec::new()
            } else {
                ungated.unwrap_or_default()
            },
            message: Self::MESSAGE.to_string(),
        })
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ExcerptPlan {
    pub needle: String,
    pub close: String,
    pub window: usize,
    /// Spans `[open, close]` whose needles are not excerpted (hookwise's own earlier blocks).
    pub skip: Vec<(String, String)>,
}

/// How far (in UTF-16 units, as JS counts) an excerpt may run from `[[` to `]]`: enough for
/// the longest link body the core accepts even in astral-plane characters.
pub const EXCERPT_WINDOW: usize = 2 * crate::wikilink::MAX_LINK_CHARS + 8;

/// The result of `tool.before` and `tool.after`.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// `tool.before`: the arguments to run the tool with instead, as changes to string
    /// arguments (each host applies them its own way).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<ArgEdit>,
    /// `tool.after`: the text for the model with the tool's result (after it, a blank line
    /// between; the blocks queued for the call and governance's notices, in order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub with_result: Option<String>,
    /// The host must call `tool.after` for this call id.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub follow_up: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub concepts: Vec<String>,
    /// The context text (for hosts that place it themselves).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
    /// Pre-action enforcement blocks the call: the host throws this message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// Pre-action enforcement's advice (already placed: comment lines or with the result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
    /// The enforcement decision (`enforce::Decision` without its logs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<Value>,
    /// `tool.after`: intent governance appended an Agent Trace record (its id). Never set in
    /// the lean build.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<String>,
    /// Policy build, OTLP export on: what this call exports (`policy/telemetry.rs`).
    #[cfg(feature = "policy")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<Value>,
}

impl ToolResult {
    /// `tool.after`: add `text` to what the model reads with the tool's result, after what
    /// is there (a blank line between).
    pub fn add_with_result(&mut self, text: &str) {
        self.with_result = Some(match self.with_result.take() {
            Some(t) => format!("{t}\n\n{text}"),
            None => text.to_string(),
        });
    }
}

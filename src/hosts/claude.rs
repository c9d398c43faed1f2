//! Claude Code (`@anthropic-ai/claude-code` 2.1.330): hooks in its own protocol — `mcp_tool`
//! hooks answered by `hookwise mcp`, or `command` hooks (`hookwise hook <Event>`) — set up by
//! `hookwise init --claude` (`.claude/settings.json`, `.mcp.json`). An `updatedInput` runs, but
//! the model's history keeps its original call: context for a command goes in
//! `additionalContext`; a sub-agent reads its (rewritten) prompt.

use super::{Facts, Kind};
use crate::host::table::{edit, edit_list, file_only, read, reader, shell, subagent, write, SNAKE_EDIT, W};
use crate::host::{Profile, Tool, PLAIN};

const CLAUDE_CODE_TOOLS: &[Tool] = &[
    shell("Bash", W),
    // `Monitor {command, …}` runs its command as a background process; `PowerShell {command}`
    shell("Monitor", W),
    shell("PowerShell", W),
    write("Write", &["file_path"]),
    edit("Edit", SNAKE_EDIT),
    edit(
        "MultiEdit",
        edit_list(&["file_path"], &["old_string"], &["new_string"]),
    ),
    edit("NotebookEdit", file_only(&["notebook_path"])),
    read("Read", &["file_path"]),
    subagent("Agent", "prompt"),
    // the sub-agent tool's name before 2.1
    subagent("Task", "prompt"),
    // What changes nothing in the project (2.1.330's tool list). Every other tool —
    // `EnterWorktree`, `Workflow`, `Skill`, `CronCreate`, `TaskCreate`, another MCP server's
    // `mcp__*` — is gated under governance (see `gated.rs`).
    reader("Grep"),
    reader("Glob"),
    reader("LSP"),
    reader("WebFetch"),
    reader("WebSearch"),
    reader("TodoWrite"),
    reader("ToolSearch"),
    reader("ListAgents"),
    reader("TaskGet"),
    reader("TaskList"),
    reader("CronList"),
];

pub static PROFILE: Profile = Profile {
    id: "claude-code",
    title: "Claude Code",
    tools: &[CLAUDE_CODE_TOOLS],
    ..PLAIN
};


/// Its hook protocol (policy build: the lean core answers no `hook.event`).
#[cfg(feature = "policy")]
pub use hooks::DIALECT;
/// Claude Code's answers: the shape the hosts that copy its protocol honour too (Factory droid,
/// Letta Code, Auggie).
#[cfg(feature = "policy")]
pub(crate) use hooks::render;

#[cfg(feature = "policy")]
mod hooks {
    use crate::host::answer::{some, to_json, Answer};
    use crate::host::dialect::{Dialect, Event::{self, *}};
    use crate::host::model_log::{self, ModelLog};
    use serde::Serialize;
    use serde_json::Value;

    /// Claude Code 2.1.330 (`claude-code-host.md`): every event answered in `hookSpecificOutput`,
    /// PreCompact in plain text (the summary request's added instructions).
    pub static DIALECT: Dialect = Dialect {
        host: super::PROFILE.id,
        render,
        events: &[
            ("PreToolUse", PreTool),
            ("PostToolUse", PostTool),
            ("UserPromptSubmit", Prompt),
            ("PreCompact", PreCompact),
            ("SessionStart", SessionStart),
        ],
        call_id: &["tool_use_id"],
        fields: &[],
        pre_context: true,
        compact_start: true,
        deny_exit: false,
        mcp_prefix: "mcp__hookwise__",
        project_dir_var: "CLAUDE_PROJECT_DIR",
        cwd_key: "cwd",
        start_with_result: false,
        model_log: Some(ModelLog {
            env_keys: &[],
            path: model_log::transcript_path,
            model,
        }),
        setup: None,
    };


    /// Its session transcript, named by the payload's `transcript_path`
    /// (`~/.claude/projects/<cwd-slug>/<session>.jsonl`), one JSON object per line: a model
    /// turn is `{"type": "assistant", "message": {"model": M, …}, …}`, appended as the turn
    /// streams, before its tools run. Turns Claude Code makes itself (an API error, an
    /// interruption) name the model `<synthetic>`: not a model, skipped.
    fn model(text: &str) -> Option<String> {
        model_log::latest(text, |v| match model_log::kind(v)? {
            "assistant" => v
                .get("message")?
                .get("model")?
                .as_str()
                .filter(|m| !m.trim_start().starts_with('<')),
            _ => None,
        })
    }

    /// The answer as Claude Code reads it (JSON; PreCompact's plain text).
    pub(crate) fn render(event: &str, kind: Event, a: Answer) -> String {
        claude(event, kind, a)
    }


    #[derive(Serialize, Default)]
    struct ClaudeOut<'a> {
        #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
        hso: Option<ClaudeHso<'a>>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct ClaudeHso<'a> {
        hook_event_name: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        permission_decision: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        permission_decision_reason: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        updated_input: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        additional_context: Option<String>,
    }

    impl<'a> ClaudeHso<'a> {
        fn new(event: &'a str) -> Self {
            ClaudeHso {
                hook_event_name: event,
                permission_decision: None,
                permission_decision_reason: None,
                updated_input: None,
                additional_context: None,
            }
        }
    }

    fn claude(event: &str, kind: Event, a: Answer) -> String {
        let hso = match a {
            // PreCompact's answer is plain text: the summary request's added instructions
            Answer::Nothing if kind == Event::PreCompact => return String::new(),
            Answer::Guidance(t) if kind == Event::PreCompact => return t,
            Answer::Nothing => None,
            Answer::Guidance(t) | Answer::Context(t) => some(Some(t)).map(|t| ClaudeHso {
                additional_context: Some(t),
                ..ClaudeHso::new(event)
            }),
            Answer::Deny { reason } => Some(ClaudeHso {
                permission_decision: Some("deny"),
                permission_decision_reason: Some(reason),
                ..ClaudeHso::new(event)
            }),
            Answer::Allow { context, rewrite } => {
                let context = some(context);
                (context.is_some() || rewrite.is_some()).then(|| ClaudeHso {
                    // no decision: Claude Code 2.1.330 runs the rewritten input and still asks its
                    // own permission rules (and the user) about it; an "allow" would skip them
                    permission_decision: None,
                    updated_input: rewrite,
                    additional_context: context,
                    ..ClaudeHso::new(event)
                })
            }
        };
        to_json(&ClaudeOut { hso })
    }
}

pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "claude",
    config_files: &[".claude/settings.json", ".mcp.json"],
    markers: &[".claude"],
    program: "claude",
    cli: None,
    setup: "scripts/setup-claude.sh",
    e2e: "tests/e2e-claude",
};

//! Codex CLI: a command-hook host (`hookwise hook --host codex <Event>`; its protocol is Claude
//! Code's with the differences its dialect names). Its tools, its dialect, the answer it
//! honours, and the facts the tooling reads.

use super::{Cli, Facts, Kind};
use crate::host::answer::{some, to_json, Answer};
use crate::host::dialect::{HooksForm, Dialect, Event::{self, *}, McpFile, Setup};
use crate::host::table::*;
use crate::host::{Keys, Profile, Role, Tool, NONE, PLAIN};
use serde::Serialize;
use serde_json::Value;

// ---- the tools ----------------------------------------------------------------------------

// @openai/codex 0.171.0, seen by a probe hook (`command-hook-hosts.md`): the shell
// (`exec_command {cmd}` on the wire) reaches hooks as `Bash {command}`; `apply_patch` (a
// freeform tool whose input is the patch text) as `apply_patch {command: <patch>}`, in the
// `*** Begin Patch` format OpenCode's apply_patch reads too. `update_plan` only updates the
// plan Codex shows.

const CODEX_TOOLS: &[Tool] = &[
    shell("Bash", W),
    tool(
        "apply_patch",
        Role::Patch,
        Keys {
            patch: &["command"],
            ..NONE
        },
        W,
    ),
    // typed input into an `exec_command` terminal (`{session_id, chars}`): a shell (issue 38;
    // Codex 0.171 runs no hook for it — the confined shell it types into holds it)
    tool(
        "write_stdin",
        Role::Shell,
        Keys {
            command: "chars",
            ..NONE
        },
        W,
    ),
    reader("update_plan"),
];

pub static PROFILE: Profile = Profile {
    id: "codex",
    title: "Codex CLI",
    tools: &[CODEX_TOOLS],
    rewrites_paths: false,
    ..PLAIN
};


// ---- the dialect --------------------------------------------------------------------------

/// Codex CLI 0.171.0: answers are checked against its output schemas
/// (`codex-rs/hooks/schema/generated/*.command.output.schema.json`, all
/// `additionalProperties: false`): an unknown key drops the whole answer. PreCompact and
/// PostCompact answers carry nothing the model reads. Context: SessionStart,
/// UserPromptSubmit and PostToolUse (a developer message each).
pub static DIALECT: Dialect = Dialect {
    host: PROFILE.id,
    render,
    events: &[
        ("PreToolUse", PreTool),
        ("PostToolUse", PostTool),
        ("UserPromptSubmit", Prompt),
        ("SessionStart", SessionStart),
        ("PreCompact", PreCompact),
        ("PostCompact", PostCompact),
    ],
    call_id: &["tool_use_id"],
    fields: &[],
    pre_context: false,
    compact_start: false,
    deny_exit: false,
    mcp_prefix: "mcp__hookwise__",
    project_dir_var: "",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: None,
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
        doctor: "",
    }),
};


// ---- the answer ---------------------------------------------------------------------------

/// The answer as the host reads it.
fn render(event: &str, kind: Event, a: Answer) -> String {
    to_json(&codex(event, kind, a))
}

// One type per output schema: `pre-tool-use` (hookEventName, permissionDecision,
// permissionDecisionReason, updatedInput, additionalContext — the last not read: hookwise
// writes none), `post-tool-use` / `session-start` / `user-prompt-submit` (hookEventName,
// additionalContext), `pre-compact` / `post-compact` (no hookSpecificOutput at all).

#[derive(Serialize)]
struct CodexOut<'a> {
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    hso: Option<CodexHso<'a>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum CodexHso<'a> {
    Pre(CodexPre<'a>),
    Context(CodexContext<'a>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CodexPre<'a> {
    hook_event_name: &'a str,
    permission_decision: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_input: Option<Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CodexContext<'a> {
    hook_event_name: &'a str,
    additional_context: String,
}

fn codex(event: &str, kind: Event, a: Answer) -> CodexOut<'_> {
    let hso = match (kind, a) {
        (Event::PreTool, Answer::Deny { reason }) => Some(CodexHso::Pre(CodexPre {
            hook_event_name: event,
            permission_decision: "deny",
            permission_decision_reason: Some(reason),
            updated_input: None,
        })),
        (
            Event::PreTool,
            Answer::Allow {
                rewrite: Some(input),
                ..
            },
        ) => Some(CodexHso::Pre(CodexPre {
            hook_event_name: event,
            permission_decision: "allow",
            permission_decision_reason: None,
            updated_input: Some(input),
        })),
        (
            Event::PostTool | Event::SessionStart | Event::Prompt,
            Answer::Context(t) | Answer::Guidance(t),
        ) => some(Some(t)).map(|t| {
            CodexHso::Context(CodexContext {
                hook_event_name: event,
                additional_context: t,
            })
        }),
        // PreToolUse context does not reach the model; compaction answers carry none
        _ => None,
    };
    CodexOut { hso }
}


pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "codex",
    config_files: &[".codex/hooks.json", ".codex/config.toml"],
    markers: &[".codex"],
    program: "codex",
    // the native binary ships as an optional per-platform dependency: the entry point is that
    // binary, not the node launcher
    cli: Some(Cli {
        package: "@openai/codex",
        version: "0.171.0",
        install_flags: "",
        entry: "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
        native: true,
    }),
    setup: "scripts/setup-clis.sh codex",
    e2e: "tests/e2e-codex",
};

//! Factory droid (`@factory/cli` 0.225.1 + `@factory/cli-linux-x64` 0.225.2, `droid exec`): a
//! command-hook host in Claude Code's protocol (`hookwise hook --host factory <Event>`). Its
//! tools, its dialect, and the facts the tooling reads (docs/hosts/factory.md).

use super::{Cli, Facts, Kind};
use crate::host::dialect::{Dialect, Event::*, HooksForm, McpFile, Setup};
use crate::host::model_log::{self, ModelLog};
use crate::host::table::*;
use crate::host::{Profile, Tool, PLAIN};

// Its tools as offered to a BYOK chat-completions model (and named so in hook payloads):
// `Execute {command, summary, timeout, fireAndForget}`, `Create {file_path, content}`, `Edit
// {file_path, old_str, new_str, change_all}`, `Read {file_path, offset, limit}`, `LS
// {directory_path}`, `Grep`, `Glob`, `TodoWrite`.
const TOOLS: &[Tool] = &[
    shell("Execute", W),
    write("Create", &["file_path"]),
    edit(
        "Edit",
        replace(&["file_path"], &["old_str"], &["new_str"], &["change_all"]),
    ),
    read("Read", &["file_path"]),
    reader("LS"),
    reader("Grep"),
    reader("Glob"),
    reader("TodoWrite"),
];

pub static PROFILE: Profile = Profile {
    id: "factory",
    title: "Factory droid",
    tools: &[TOOLS],
    ..PLAIN
};

/// Claude Code's payload (`session_id`, `transcript_path`, `cwd`, `tool_name`, `tool_input`,
/// `tool_response`; no call id: derived from the call) and answers (`permissionDecision:
/// "deny"`, `updatedInput`, `additionalContext` in `hookSpecificOutput`); SessionStart and
/// PostToolUse context reach the model as user messages. Its PreCompact was not seen to run (no
/// compaction headless): not hooked. MCP tools are `<server>___<tool>`.
pub static DIALECT: Dialect = Dialect {
    host: PROFILE.id,
    render: super::claude::render,
    events: &[
        ("PreToolUse", PreTool),
        ("PostToolUse", PostTool),
        ("UserPromptSubmit", Prompt),
        ("SessionStart", SessionStart),
    ],
    call_id: &["tool_use_id"],
    fields: &[],
    pre_context: false,
    compact_start: false,
    deny_exit: false,
    mcp_prefix: "hookwise___",
    project_dir_var: "FACTORY_PROJECT_DIR",
    cwd_key: "cwd",
    start_with_result: false,
    model_log: Some(ModelLog {
        env_keys: &[],
        path: model_log::transcript_path,
        model,
    }),
    setup: Some(Setup {
        flag: "factory",
        hooks_file: ".factory/settings.json",
        form: HooksForm::Claude,
        tool_matcher: "*",
        timeout: 30,
        named: false,
        mcp_file: ".factory/mcp.json",
        mcp: McpFile::Json {
            server_type: Some("stdio"),
        },
        trust: "Factory droid loads the project's .factory/settings.json hooks and .factory/mcp.json servers without a prompt: nothing more to do.",
        doctor: "",
    }),
};

/// Its session log, named by the payload's `transcript_path` (`~/.factory/sessions/<cwd-slug>/
/// <session>.jsonl`): a model turn is `{"type": "message", "message": {"role": "assistant",
/// "modelId": M, …}}` (M as droid names it: `custom:<name>-<n>` for a BYOK model), written
/// before the turn's tools run.
fn model(text: &str) -> Option<String> {
    model_log::latest(text, |v| match model_log::kind(v)? {
        "message" => {
            let m = v.get("message")?;
            (m.get("role")?.as_str()? == "assistant").then_some(())?;
            m.get("modelId")?.as_str()
        }
        _ => None,
    })
}

pub const FACTS: Facts = Facts {
    kind: Kind::CommandHook,
    init: "factory",
    config_files: &[".factory/settings.json", ".factory/mcp.json"],
    markers: &[".factory"],
    program: "droid",
    // the registry holds the shim only at 0.225.1 and its Linux binary only at 0.225.2 (so the
    // optional dependency is skipped): both named; the entry is the binary
    cli: Some(Cli {
        package: "@factory/cli",
        version: "0.225.1",
        install_flags: "--ignore-scripts @factory/cli-linux-x64@0.225.2",
        entry: "@factory/cli-linux-x64/bin/droid",
        native: true,
    }),
    setup: "scripts/setup-clis.sh factory",
    e2e: "tests/e2e-factory",
};

#[cfg(test)]
mod tests {
    #[test]
    fn the_model_of_the_latest_assistant_message_of_the_session_log() {
        let text = concat!(
            "{\"type\":\"session_start\",\"id\":\"s\"}\n",
            "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"modelId\":\"custom:A-0\"}}\n",
            "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"modelId\":\"custom:Mock-0\"}}\n",
            "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"modelId\":\"not-a-turn\"}}\n",
        );
        assert_eq!(super::model(text).as_deref(), Some("custom:Mock-0"));
        assert_eq!(super::model("{\"type\":\"message\"}\n"), None);
    }
}

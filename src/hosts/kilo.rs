//! Kilo CLI (`@kilocode/cli` 7.7.7), a fork of OpenCode that loads OpenCode 1.x plugins.
//!
//! Its tools, as its model is offered them (the `tools` of a request of `kilo run`, read by a
//! probe against the scripted model, for `mock-1` and for `gpt-5.5`): `bash {command, timeout,
//! workdir, description}`, `write {filePath, content}`, `edit {filePath, oldString, newString,
//! replaceAll}` (`apply_patch {patchText}` in its place for `gpt-` models, as in OpenCode),
//! `read {filePath, offset, limit}`, `task {description, prompt, subagent_type, …}`, `glob`,
//! `grep`, `webfetch`, `todowrite`, `skill` — OpenCode 1.x's names and keys, so that table is
//! shared ([`super::opencode::OPENCODE_SHARED`]) — and Kilo's own: `background_process {action,
//! command, workdir, …}` (starts `command` as a long-running process), `board_post`,
//! `board_read`, `schedule_wakeup`, `cancel_wakeup`, `kilo_local_recall`. More tool ids are
//! defined in the binary (`bin/kilo`) and offered by settings or modes: `notebook_edit {path,
//! action, index, source, …}`, `notebook_read {path, include_outputs}`, `notebook_execute`,
//! `kilo_memory_save`, `kilo_memory_recall`, `semantic_search`, `generate_image {prompt, path}`,
//! `repo_clone`, `agent_manager`, `suggest`, `plan_exit`, …
//!
//! Default deny: only what is known to change nothing is a reader here. `board_post`, the
//! wakeups, `kilo_memory_save`, `notebook_execute`, `generate_image`, `repo_clone`, the agent
//! manager and every tool not named are gated under governance (their path arguments
//! scope-checked). OpenCode 1.x tools Kilo does not have (`multiedit`, `list`, `codesearch`,
//! `todoread`) are not shared: a tool of that name in Kilo is someone else's, and gated.
//!
//! Where context reaches the model differs from OpenCode 1.x in one place: `bash`. Kilo keeps
//! the tool call it replays to the model as its stream reported it, stored before the plugin
//! hook has done any asynchronous work: a change of `output.args` made after the hook's first
//! `await` (even after one microtask) runs, but the model never sees it (checked in the real
//! Kilo 7.7.7, docs/kilo.md). hookwise's hook always awaits its core, so `#` comment lines
//! would run unread: in Kilo the shell's context goes with its result (a changed
//! `tool.execute.after` output is what the model reads, checked) and the command runs as the
//! model wrote it.
//!
//! The lean core needs only where context goes (the shared table and Kilo's `bash`); the policy
//! core adds Kilo's own tools for the gate, enforcement and the trace.

use super::opencode::OPENCODE_SHARED;
use super::{Cli, Facts, Kind};
#[cfg(feature = "policy")]
use crate::host::table::{edit, file_only, read, reader};
use crate::host::table::{shell, W};
use crate::host::{Profile, Tool, PLAIN};

/// Kilo's `bash`: OpenCode 1.x's keys, its context with the result (before the shared table,
/// whose first entry of a name wins).
const KILO_SHELL: &[Tool] = &[shell("bash", W)];

#[cfg(feature = "policy")]
const KILO_TOOLS: &[Tool] = &[
    // `{action: start|list|status|logs|stop|restart, command, workdir, …}`: a shell command
    shell("background_process", W),
    edit("notebook_edit", file_only(&["path"])),
    read("notebook_read", &["path"]),
    reader("board_read"),
    reader("kilo_local_recall"),
    reader("kilo_memory_recall"),
    reader("semantic_search"),
];

pub static PROFILE: Profile = Profile {
    id: "kilo",
    title: "Kilo CLI",
    #[cfg(feature = "policy")]
    tools: &[KILO_SHELL, KILO_TOOLS, OPENCODE_SHARED],
    #[cfg(not(feature = "policy"))]
    tools: &[KILO_SHELL, OPENCODE_SHARED],
    ..PLAIN
};

pub const FACTS: Facts = Facts {
    kind: Kind::Plugin,
    init: "kilo",
    config_files: &[".kilo/plugin/hookwise.js"],
    markers: &[".kilo", ".kilocode", "kilo.json", "kilo.jsonc"],
    program: "kilo",
    // 7.7.7: the newest whose Linux binary (@kilocode/cli-linux-x64) the registry serves (7.8.1's
    // is missing); the entry point is that Bun-compiled binary (docs/kilo.md)
    cli: Some(Cli {
        package: "@kilocode/cli",
        version: "7.7.7",
        install_flags: "",
        entry: "@kilocode/cli-linux-x64/bin/kilo",
        native: true,
    }),
    setup: "scripts/setup-clis.sh kilo",
    e2e: "tests/e2e-kilo",
};

#[cfg(test)]
mod tests {
    use super::super::opencode::PROFILE as OPENCODE;
    use super::PROFILE as KILO;
    use super::*;
    use crate::host::{Context, Role};

    #[test]
    fn kilo_shares_opencode_1x_tools_and_keys_and_not_the_ones_it_lacks() {
        for t in OPENCODE_SHARED {
            assert_eq!(OPENCODE.tool(t.name), Some(t), "{}", t.name);
            if t.name == "bash" {
                // the same tool and keys; only where its context reaches the model differs
                let k = KILO.entry("bash");
                assert_eq!((k.role, k.keys), (t.role, t.keys));
                assert_eq!(
                    (k.context, t.context),
                    (Context::WithResult, Context::ShellComment)
                );
                continue;
            }
            assert_eq!(KILO.tool(t.name), Some(t), "{}", t.name);
        }
        assert_eq!(KILO.entry("write").keys.path, &["filePath"]);
        assert_eq!(KILO.entry("apply_patch").keys.patch, &["patchText"]);
        assert_eq!(KILO.shell_key("bash"), Some("command"));
        assert_eq!(KILO.entry("task").keys.prompt, "prompt");
        for t in ["multiedit", "list", "codesearch", "todoread"] {
            assert!(OPENCODE.tool(t).is_some(), "{t}");
            assert_eq!(KILO.role(t), Role::Other, "{t} is not Kilo's: gated");
        }
    }

    #[cfg(feature = "policy")]
    #[test]
    fn kilo_own_tools_default_deny() {
        assert_eq!(KILO.shell_key("background_process"), Some("command"));
        assert_eq!(KILO.entry("notebook_edit").keys.path, &["path"]);
        let mut m = KILO.mutating();
        m.sort();
        assert_eq!(
            m,
            [
                "apply_patch",
                "background_process",
                "bash",
                "edit",
                "notebook_edit",
                "write"
            ]
        );
        for t in [
            "board_post",
            "schedule_wakeup",
            "cancel_wakeup",
            "kilo_memory_save",
            "notebook_execute",
            "generate_image",
            "repo_clone",
            "agent_manager",
            "suggest",
        ] {
            assert!(!KILO.ungated(t), "{t} is gated");
            assert!(!KILO.read_only(t), "{t}: enforcement reads it");
        }
        for t in [
            "read",
            "glob",
            "grep",
            "board_read",
            "kilo_local_recall",
            "task",
        ] {
            assert!(KILO.ungated(t), "{t}");
        }
    }
}

//! Nothing in a repository makes hookwise run a program (issue 38).
//!
//! An option that names a program hookwise would run ([`PROGRAM_KEYS`]: `cliPath`, the
//! maenifold CLI) is taken from the user's environment (`MAENIFOLD_CLI`, `PATH`,
//! `MAENIFOLD_ROOT`) or from options the user's own configuration hands over: the program that
//! embeds hookwise (the engine API, `vscode`) and OpenClaw (its plugin configuration lives in
//! the user's `~/.openclaw/`). Never from a file a cloned repository can hold: hookwise's own
//! project files (`.hookwise/hookwise.json`, `.opencode/hookwise.json`) and the hosts whose
//! plugin options come from the project's configuration (OpenCode's and Kilo's
//! `opencode.json`/`kilo.json`, Cline's plugin file, every command-hook host). Such a key is
//! dropped with a warning that says where to set it instead.

use serde_json::Value;

use crate::protocol::Log;

/// Option keys that name a program hookwise would start.
pub const PROGRAM_KEYS: &[&str] = &["cliPath"];

/// Hosts whose plugin options come from the user's own configuration, never from a project
/// file: the engine API's caller (`vscode`) and OpenClaw (user-level `~/.openclaw/`).
pub const USER_OPTION_HOSTS: &[&str] = &["vscode", "openclaw"];

/// `Some(warning)` when the merged options' `cliPath` did not come from the user: the
/// project file's, or the plugin options of a host whose options live in the project (or the
/// file's value under a user's host). The caller then takes `MAENIFOLD_CLI` alone.
/// `plugin`: the options as the host gave them.
pub fn program_options(merged: &Value, plugin: &Value, host: &str) -> Option<Log> {
    let k = PROGRAM_KEYS[0];
    let v = merged.get(k)?;
    let given = plugin.get(k);
    if USER_OPTION_HOSTS.contains(&host) && given.and_then(Value::as_str) == v.as_str() && given.is_some() {
        return None;
    }
    let from = if given.is_some() { "the host's plugin options" } else { "hookwise.json" };
    Some(Log::warn(format!(
        "hookwise option '{k}' in {from} (a project file) names a program: ignored; set MAENIFOLD_CLI"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_project_file_never_names_the_program() {
        // as merged: the file's key, no plugin option
        let m = json!({"cliPath": "./evil.sh", "tokenBudget": 100});
        let log = program_options(&m, &json!({}), "vscode").unwrap();
        assert!(log.message.contains("hookwise.json"), "{log:?}");
        // a user's host, its own plugin value: kept
        let m = json!({"cliPath": "/usr/bin/maenifold"});
        assert!(program_options(&m, &json!({"cliPath": "/usr/bin/maenifold"}), "openclaw").is_none());
        assert!(program_options(&json!({}), &json!({}), "opencode").is_none());
    }

    #[test]
    fn hosts_whose_options_live_in_the_project_never_name_the_program() {
        for host in ["opencode", "opencode2", "kilo", "cline", "pi", "claude-code", "codex", "gemini", "copilot", "qwen", "nonsense"] {
            let m = json!({"cliPath": "./evil.sh"});
            let log = program_options(&m, &json!({"cliPath": "./evil.sh"}), host).unwrap();
            assert!(log.message.contains("MAENIFOLD_CLI"), "{host}: {log:?}");
        }
    }

    /// The attack: a cloned repository's `.hookwise/hookwise.json` (or `.opencode/`) names its
    /// own script. Every way hookwise starts: the file alone, with enforcement (its loader
    /// merges the file), with the host's own options naming it, and a reading command.
    fn spawned(files: &[(&str, &str)], init: Value) -> (Vec<Request>, Value) {
        let mut host = TestHost::default();
        host.program("/w/evil.sh");
        host.program("/usr/bin/maenifold");
        for (p, t) in files {
            host.file(p, t);
        }
        let mut engine = crate::engine::Engine::new();
        let r = crate::testing::drive(&mut engine, &init.to_string(), &mut host);
        let call = json!({"hook": "tool.before", "tool": "task", "sessionId": "s", "callId": "c",
            "args": {"prompt": "about [[auth]]"}});
        crate::testing::drive(&mut engine, &call.to_string(), &mut host);
        let runs = host
            .log
            .iter()
            .filter(|q| matches!(q, Request::Spawn { .. } | Request::McpStart { .. }))
            .cloned()
            .collect();
        (runs, r)
    }

    use crate::protocol::Request;
    use crate::testing::TestHost;

    #[test]
    fn a_cloned_repositorys_cli_path_is_never_run() {
        let evil = r#"{"cliPath": "./evil.sh"}"#;
        let enforce = r#"{"cliPath": "/w/evil.sh", "enforcement": {"level": "strict"}}"#;
        for (file, text) in [
            (".hookwise/hookwise.json", evil),
            (".opencode/hookwise.json", evil),
            (".hookwise/hookwise.json", enforce),
            (".opencode/hookwise.json", enforce),
        ] {
            for host in ["vscode", "opencode", "claude-code", "codex", "kilo", "cline", "pi", "openclaw"] {
                let (runs, r) = spawned(
                    &[(&format!("/w/{file}"), text)],
                    json!({"hook": "init", "host": host, "env": {"PATH": "/nowhere"}, "cwd": "/w", "mcp": false}),
                );
                assert!(runs.is_empty(), "{file} {host}: {runs:?}");
                assert_ne!(r["discovery"]["path"], "/w/evil.sh", "{file} {host}");
            }
        }
        // the host's plugin options, where they come from a project file: the same
        for host in ["opencode", "opencode2", "kilo", "cline"] {
            let (runs, _) = spawned(
                &[],
                json!({"hook": "init", "host": host, "options": {"cliPath": "/w/evil.sh"}, "env": {}, "cwd": "/w", "mcp": false}),
            );
            assert!(runs.is_empty(), "{host}: {runs:?}");
        }
        // the user's own: MAENIFOLD_CLI, or the embedding program's option, runs
        let (runs, r) = spawned(
            &[("/w/.hookwise/hookwise.json", evil)],
            json!({"hook": "init", "env": {"MAENIFOLD_CLI": "/usr/bin/maenifold"}, "cwd": "/w", "mcp": false}),
        );
        assert_eq!(r["discovery"]["path"], "/usr/bin/maenifold");
        assert!(!runs.is_empty());
        let (_, r) = spawned(
            &[],
            json!({"hook": "init", "host": "vscode", "options": {"cliPath": "/usr/bin/maenifold"}, "env": {}, "cwd": "/w", "mcp": false}),
        );
        assert_eq!(r["discovery"]["path"], "/usr/bin/maenifold");
    }

    #[test]
    fn a_reading_command_runs_no_program_not_even_the_users() {
        for mcp in [false, true] {
            let (runs, r) = spawned(
                &[],
                json!({"hook": "init", "env": {"MAENIFOLD_CLI": "/usr/bin/maenifold"}, "cwd": "/w", "mcp": mcp, "runPrograms": false}),
            );
            assert!(runs.is_empty(), "{runs:?}");
            // found and said, not run
            assert_eq!(r["discovery"]["path"], "/usr/bin/maenifold");
            assert!(r["discovery"]["error"].as_str().unwrap().contains("not run"), "{r}");
        }
    }
}

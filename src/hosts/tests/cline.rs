//! Cline's profile as an attacker uses it: every form its `run_commands` accepts, a command
//! hidden in a later list item or across items, the governance folder named in any item, and
//! the tools it offers that the profile does not know.

use crate::enforce::config::Settings;
use crate::enforce::extract::{extract_on, Risk, Situation};
use crate::governance::ops::guard::shell_names_governance;
use crate::host::Role;
use crate::hosts::cline::{commands, PROFILE as CLINE};
use serde_json::{json, Value};

fn lines(v: Value) -> Vec<String> {
    commands(&v).expect("a form Cline runs")
}

#[test]
fn every_form_run_commands_accepts_is_read() {
    let one = vec!["git push --force".to_string()];
    for v in [
        json!({"commands": ["git push --force"]}),
        json!({"commands": "git push --force"}),
        json!({"commands": {"command": "git push --force"}}),
        json!({"command": "git push --force"}),
        json!({"cmd": "git push --force"}),
        json!(["git push --force"]),
        json!("git push --force"),
    ] {
        assert_eq!(lines(v.clone()), one, "{v}");
    }
    assert_eq!(
        lines(json!([{"command": "git", "args": ["push", "--force"]}])),
        vec!["git push --force"]
    );
    assert_eq!(
        lines(json!({"commands": ["ls", {"command": "rm", "args": ["-rf", "a b"]}]})),
        vec!["ls", "rm -rf \"a b\""]
    );
    // forms Cline's schema refuses run nothing: nothing to read
    for v in [
        json!({"commands": [42]}),
        json!({"commands": [{"args": ["x"]}]}),
        json!({"other": "ls"}),
        json!(7),
    ] {
        assert_eq!(commands(&v), None, "{v}");
    }
}

#[test]
fn a_heredoc_over_several_items_is_one_command_as_cline_joins_it() {
    assert_eq!(
        lines(json!({"commands": ["cat > f <<'EOF'", "a", "EOF", "ls"]})),
        vec!["cat > f <<'EOF'\na\nEOF", "ls"]
    );
    // no delimiter item: each item on its own
    assert_eq!(
        lines(json!(["bash <<EOF", "rm -rf x"])),
        vec!["bash <<EOF", "rm -rf x"]
    );
    // `<<<` is a here-string, not a here-document
    assert_eq!(lines(json!(["cat <<< x", "x"])), vec!["cat <<< x", "x"]);
}

fn extract(args: Value) -> crate::enforce::extract::ActionContext {
    extract_on(
        &CLINE,
        "run_commands",
        &args,
        &Situation {
            cwd: "/home/u/p",
            worktree: "p",
        },
        &Settings::default().rules,
    )
}

#[test]
fn enforcement_reads_every_command_of_the_list() {
    let ctx = extract(json!({"commands": ["ls", "git push --force origin main"]}));
    assert_eq!(ctx.command.as_deref(), Some("git push --force"));
    assert!(!ctx.read_only);
    // a quote opened in one item does not hide the next item's command (each runs apart)
    let ctx = extract(json!({"commands": ["echo 'a", "rm -rf / #'"]}));
    assert!(ctx.risk >= Risk::High, "{ctx:?}");
    // the single-command forms too
    let ctx = extract(json!({"cmd": "git push --force"}));
    assert_eq!(ctx.command.as_deref(), Some("git push --force"));
    let ctx = extract(json!("ls"));
    assert!(ctx.read_only);
}

#[test]
fn the_shell_cannot_name_the_governance_folder_in_any_item() {
    for v in [
        json!({"commands": ["ls", "cat .orchestration/active_intents.yaml"]}),
        json!({"commands": [{"command": "rm", "args": [".orchestration/agent_trace.jsonl"]}]}),
        json!(["ls", "echo x > .orchestration/x"]),
        json!({"cmd": "rm -rf .orchestration"}),
    ] {
        assert!(
            shell_names_governance(&CLINE, "run_commands", &v).is_some(),
            "{v}"
        );
    }
    assert!(shell_names_governance(&CLINE, "run_commands", &json!({"commands": ["ls"]})).is_none());
}

#[test]
fn only_what_changes_nothing_runs_without_an_intent() {
    for t in [
        "read_files",
        "search_codebase",
        "fetch_web_content",
        "ask_question",
        "submit_and_exit",
        "spawn_agent",
    ] {
        assert!(CLINE.ungated(t), "{t}");
    }
    for t in [
        "run_commands",
        "editor",
        "apply_patch",
        "skills",
        "team_spawn_teammate",
        "team_run_task",
        "team_task",
        "team_status",
        "Editor",
        "editor ",
        "mcp__x__write",
    ] {
        assert!(!CLINE.ungated(t), "{t}");
    }
    assert!(CLINE.ungated("select_active_intent"));
    assert_eq!(CLINE.role("editor"), Role::Edit);
    assert_eq!(CLINE.role("run_commands"), Role::Shell);
    assert_eq!(CLINE.entry("spawn_agent").keys.prompt, "task");
}

#[test]
fn read_files_paths_in_every_form() {
    use crate::hosts::cline::read_files;
    assert_eq!(
        read_files(&json!({"files": [{"path": "a"}, "b"]})),
        vec!["a", "b"]
    );
    assert_eq!(read_files(&json!({"files": {"file_path": "a"}})), vec!["a"]);
    assert_eq!(
        read_files(&json!({"paths": "a", "file_paths": ["b"]})),
        vec!["a", "b"]
    );
    assert_eq!(read_files(&json!([{"filePath": "a"}, "b"])), vec!["a", "b"]);
    assert_eq!(read_files(&json!("a")), vec!["a"]);
    assert_eq!(read_files(&json!({"path": "a", "end_line": 3})), vec!["a"]);
    assert!(read_files(&json!({"files": [1, null]})).is_empty());
    // governance's default readTools include it
    assert!(CLINE.readers().contains(&"read_files".to_string()));
}

//! Default deny, as an attacker would try it: under governance every tool a host profile does
//! not know to be read-only is gated like a write, in every host — unknown names, names new in
//! a host release, other MCP servers' tools, look-alikes of read-only and of hookwise's own
//! names (another case, a space, a letter from another script, a near prefix).

use serde_json::{json, Value};

use super::gate::decoy_tests::YAML;
use super::gate::{gate, Decision, GateState};
use super::intents;
use super::ops::GovConfig;
use super::scope::{resolve, Scope};
use crate::host::Profile;
use crate::hosts::claude::PROFILE as CLAUDE_CODE;


fn decide(cfg: &GovConfig, active: Option<&str>, tool: &str, args: Value) -> Decision {
    let f = intents::parse("f", YAML);
    let scope = Some(Scope::compile(&["src/billing/**"]));
    let st = GateState {
        host: cfg.host,
        gated: &|t| cfg.gated(t),
        intents: &f,
        active,
        scope: scope.as_ref(),
    };
    gate(tool, &args, &st, &mut |p| {
        resolve("/w", p, &mut |q: &str| Some(q.to_string()))
    })
}

fn blocked_without_intent(cfg: &GovConfig, tool: &str) -> bool {
    match decide(cfg, None, tool, json!({"command": "echo x > README.md"})) {
        Decision::Block(m) => {
            assert!(m.contains("select_active_intent"), "{tool}: {m}");
            true
        }
        Decision::Allow => false,
    }
}

/// Names no profile knows, and look-alikes of the names profiles let through.
fn hostile_names(p: &Profile) -> Vec<String> {
    let mut v: Vec<String> = [
        "SomeToolFromTheNextRelease",
        "mcp__other__write_file",
        "mcp__filesystem__edit_file",
        "Monitor",
        "EnterWorktree",
        "ExitWorktree",
        "Workflow",
        "Skill",
        "CronCreate",
        "",
        " ",
        "\u{0}",
        "mcp__hookwise__hook_pre_tool_use",
        "mcp__hookwise__hook_post_tool_use",
        "mcp__hookwise_select_active_intent",
        "mcp__hookwise__select_active_intentx",
        "mcp__hookwisex__select_active_intent",
        "mcp__HOOKWISE__select_active_intent",
        "mcp__hookwise__select_active_intent ",
        "mcp__hookwise__\u{200b}select_active_intent",
        "mcp__other__select_active_intent",
        "select_active_intent/../write",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if p.own_tool_prefix().is_empty() {
        v.push("mcp__hookwise__select_active_intent".into());
    } else {
        v.push("select_active_intent".into());
        v.push("knowledge_read".into());
    }
    for t in p.ungated_tools() {
        v.push(t.to_uppercase());
        v.push(t.to_lowercase());
        v.push(format!("{t} "));
        v.push(format!(" {t}"));
        v.push(format!("{t}\n"));
        v.push(format!("{t}\u{200b}"));
        // a Cyrillic letter for the first Latin `a`/`e`/`o` (no host reads it as the tool)
        v.push(
            t.replacen('a', "\u{430}", 1)
                .replacen('e', "\u{435}", 1)
                .replacen('o', "\u{43e}", 1),
        );
        v.push(format!("mcp__other__{t}"));
    }
    // what stays a real name of the host (another case of a name it has, e.g. `read`/`READ`
    // on one host but not another) is not a look-alike there
    v.retain(|n| !p.ungated(n));
    v.sort();
    v.dedup();
    v
}

#[test]
fn a_tool_the_profile_does_not_know_is_gated_in_every_host() {
    for p in crate::hosts::ALL {
        let cfg = GovConfig::for_host(p);
        let names = hostile_names(p);
        assert!(names.len() > 30, "{}", p.id);
        for n in &names {
            assert!(cfg.gated(n), "{}: {n:?} is gated", p.id);
            assert!(blocked_without_intent(&cfg, n), "{}: {n:?} is blocked", p.id);
            assert!(
                !cfg.ungated_tools().contains(n),
                "{}: {n:?} is not in the plan's ungated list",
                p.id
            );
        }
    }
}

#[test]
fn read_only_tools_and_hookwise_own_run_without_an_intent_in_every_host() {
    for p in crate::hosts::ALL {
        let cfg = GovConfig::for_host(p);
        let ungated = cfg.ungated_tools();
        for own in ["select_active_intent", "knowledge_search", "knowledge_read"] {
            let name = format!("{}{own}", p.own_tool_prefix());
            assert!(ungated.contains(&name), "{}: {name}", p.id);
        }
        for t in &ungated {
            assert!(!cfg.gated(t), "{}: {t}", p.id);
            assert_eq!(
                decide(&cfg, None, t, json!({"path": "README.md"})),
                Decision::Allow,
                "{}: {t}",
                p.id
            );
        }
        // every tool the profile knows to change files stays gated
        for t in p.mutating() {
            assert!(cfg.gated(&t) && !ungated.contains(&t), "{}: {t}", p.id);
            assert!(blocked_without_intent(&cfg, &t), "{}: {t}", p.id);
        }
    }
}

#[test]
fn an_unknown_tool_with_an_intent_has_its_path_arguments_scope_checked() {
    for p in crate::hosts::ALL {
        let cfg = GovConfig::for_host(p);
        let ok = |tool: &str, args: Value| decide(&cfg, Some("BILL"), tool, args);
        assert_eq!(ok("mcp__other__tool", json!({"query": "x"})), Decision::Allow);
        assert_eq!(
            ok("mcp__fs__write_file", json!({"path": "src/billing/a.ts"})),
            Decision::Allow
        );
        for args in [
            json!({"path": "README.md"}),
            json!({"file_path": "../outside.txt"}),
            json!({"FilePath": ".orchestration/active_intents.yaml"}),
            json!({"paths": ["src/billing/a.ts", "docs/x.md"]}),
            json!({"path": 7}),
        ] {
            assert!(
                matches!(ok("mcp__fs__write_file", args.clone()), Decision::Block(_)),
                "{}: {args}",
                p.id
            );
        }
    }
}

#[test]
fn claude_code_monitor_is_a_shell_and_its_new_tools_are_gated() {
    assert_eq!(CLAUDE_CODE.shell_key("Monitor"), Some("command"));
    assert_eq!(CLAUDE_CODE.shell_key("PowerShell"), Some("command"));
    let cfg = GovConfig::for_host(&CLAUDE_CODE);
    for t in [
        "Monitor",
        "Workflow",
        "EnterWorktree",
        "ExitWorktree",
        "Skill",
        "CronCreate",
        "TaskCreate",
        "ScheduleWakeup",
        "RemoteTrigger",
        "SendMessage",
    ] {
        assert!(blocked_without_intent(&cfg, t), "{t}");
        assert!(!CLAUDE_CODE.read_only(t), "{t}: enforcement's fast path skips it");
    }
    for t in ["Read", "Grep", "Glob", "WebFetch", "TodoWrite", "Agent"] {
        assert!(!cfg.gated(t), "{t}");
    }
    // the sub-agent tool is not read-only for enforcement: its prompt is checked
    assert!(!CLAUDE_CODE.read_only("Agent"));
}

#[test]
fn the_options_widen_the_gate_and_never_narrow_it_to_a_writing_tool() {
    for p in crate::hosts::ALL {
        // `mutatingTools` no longer narrows: an unknown tool and the host's shell stay gated
        let (cfg, logs) = GovConfig::from_options_on(Some(&json!({"mutatingTools": ["write"]})), p);
        assert!(logs.is_empty(), "{logs:?}");
        assert!(cfg.gated("mcp__other__x"));
        for t in p.mutating() {
            assert!(cfg.gated(&t), "{}: {t}", p.id);
        }
        // …and it gates a read-only tool the user names
        let read = p.ungated_tools().into_iter().next().unwrap();
        let (cfg, _) = GovConfig::from_options_on(Some(&json!({"mutatingTools": [read]})), p);
        assert!(cfg.gated(&read) && !cfg.ungated_tools().contains(&read));
        // `readOnlyTools`: a tool the profile does not know runs without an intent…
        let (cfg, logs) = GovConfig::from_options_on(
            Some(&json!({"readOnlyTools": ["mcp__docs__search"]})),
            p,
        );
        assert!(logs.is_empty(), "{logs:?}");
        assert!(!cfg.gated("mcp__docs__search"));
        assert!(cfg.ungated_tools().contains(&"mcp__docs__search".to_string()));
        // …but one the profile knows to write stays gated, with a warning
        let writers = p.mutating();
        let (cfg, logs) =
            GovConfig::from_options_on(Some(&json!({"readOnlyTools": writers.clone()})), p);
        assert_eq!(logs.len(), writers.len(), "{logs:?}");
        for t in &writers {
            assert!(cfg.gated(t), "{}: {t}", p.id);
        }
    }
}

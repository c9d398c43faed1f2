//! The gate: may this tool call run under the session's intent?
//!
//! - What a tool is and which keys it writes come from the host's profile
//!   ([`crate::host`]): OpenCode's `write` names its file in `filePath`, OpenClaw's in `path`,
//!   Claude Code's `Write` in `file_path`; a patch tool's text is in its host's key
//!   (`patchText`, `input`, `patch`). Nothing is guessed across hosts.
//!   - write / edit: one file; a call naming two different files through two path keys (its
//!     own and any key some host reads a file from, any case) is blocked as ambiguous, naming
//!     both keys; so is a path key holding a number, an array or an object
//!   - patch: every Add/Update/Delete/Move-to path of its patch text (two different texts
//!     under two patch keys: blocked as ambiguous)
//!   - shell: **cannot be scope-checked by path** (a command can write anything); it needs
//!     an active intent, nothing more
//!   - reads are not gated; they are remembered for stale-write checks
//!   - any other tool (unknown to the profile, new in a host release, another MCP server's):
//!     needs an active intent, and every string under any path key (`filePath`, `file_path`,
//!     `path`, `notebook_path`, any case; or in an array there) is scope-checked
//! - **Default deny**: every tool is gated except what the host profile knows changes nothing
//!   by itself, hookwise's own tools and the user's `readOnlyTools`
//!   ([`super::ops::GovConfig::gated`]; the caller passes the decision in [`GateState`]).
//! - No active intent → blocked, naming `select_active_intent` and the ids to choose from.
//!   An active intent that is no longer IN_PROGRESS (or no longer in the file) counts as none.
//! - Every path must resolve inside the worktree and inside the intent's scope; otherwise
//!   blocked, naming each file (and what it resolved to) and the scope.
//! - A write tool whose arguments name no file is blocked (nothing can be checked).
//! - `.orchestration/` (the intents and the trace) is never writable through file tools,
//!   whatever the scope says: otherwise the model could widen its own scope or rewrite the
//!   trace. The user edits it.

use std::collections::HashMap;

use serde_json::Value;

use super::intents::{IntentFile, Status};
use super::patch;
use super::reading::{self, Verdict};
use super::scope::{Resolved, Scope};
use crate::host::{args, Profile, Role, Tool};

/// What a call does to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetOp {
    /// Creates or replaces the file (write, Add File).
    Write,
    /// Changes an existing file (edit, apply_diff, Update File).
    Edit,
    Delete,
    /// Destination of a Move to.
    MoveTo,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub path: String,
    pub op: TargetOp,
}

fn keys_list(keys: &[&str]) -> String {
    let v: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    v.join(" or ")
}

/// The paths a call of `tool` writes on `host`. `Err`: the block message (a file tool that
/// names none, or names two, or a path key that is not a string, or a path the host rewrites).
pub fn targets(host: &Profile, tool: &str, args: &Value) -> Result<Vec<Target>, String> {
    let t = host.entry(tool);
    let out = targets_of(t, tool, args)?;
    if matches!(t.role, Role::Write | Role::Edit | Role::Patch) {
        for x in &out {
            if let Some(why) = args::rewritten(host, &x.path) {
                return Err(format!(
                    "hookwise blocked `{tool}`: {} cannot be checked: this host rewrites the path before it writes ({why}). Give the path relative to the workspace, as it is.",
                    args::shown(&x.path)
                ));
            }
        }
    }
    Ok(out)
}

fn targets_of(t: &Tool, tool: &str, args: &Value) -> Result<Vec<Target>, String> {
    match t.role {
        Role::Write | Role::Edit => {
            let op = if t.role == Role::Write {
                TargetOp::Write
            } else {
                TargetOp::Edit
            };
            match args::path(t, args) {
                Ok(Some(p)) => Ok(vec![Target {
                    path: p.to_string(),
                    op,
                }]),
                Ok(None) => Err(format!(
                    "hookwise blocked `{tool}`: its arguments name no file under {} (the key this host's `{tool}` reads), so its scope cannot be checked",
                    keys_list(t.keys.path)
                )),
                Err(e) => Err(e.message(tool, "file", t.keys.path)),
            }
        }
        Role::Patch => {
            let text = match args::patch_text(t, args) {
                Ok(text) => text.unwrap_or(""),
                Err(e) => return Err(e.message(tool, "patch text", t.keys.patch)),
            };
            let mut out = Vec::new();
            for op in patch::parse(text) {
                match op {
                    patch::FileOp::Add { path, .. } => out.push(Target {
                        path,
                        op: TargetOp::Write,
                    }),
                    patch::FileOp::Update { path, move_to, .. } => {
                        out.push(Target {
                            path,
                            op: TargetOp::Edit,
                        });
                        if let Some(m) = move_to {
                            out.push(Target {
                                path: m,
                                op: TargetOp::MoveTo,
                            });
                        }
                    }
                    patch::FileOp::Delete { path } => out.push(Target {
                        path,
                        op: TargetOp::Delete,
                    }),
                }
            }
            if out.is_empty() {
                return Err(format!(
                    "hookwise blocked `{tool}`: the patch (in {}) names no file (*** Add File / Update File / Delete File), so its scope cannot be checked",
                    keys_list(t.keys.patch)
                ));
            }
            Ok(out)
        }
        Role::Shell | Role::Read => Ok(Vec::new()),
        Role::Subagent | Role::Other => match args::other_paths(args) {
            Ok(paths) => Ok(paths
                .into_iter()
                .map(|p| Target {
                    path: p.to_string(),
                    op: TargetOp::Write,
                })
                .collect()),
            Err(e) => Err(e.message(tool, "file", &[])),
        },
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow,
    /// The message the model reads.
    Block(String),
}

/// What the gate needs to know besides the call.
pub struct GateState<'a> {
    /// The host's tools.
    pub host: &'a Profile,
    /// Whether a tool is gated ([`super::ops::GovConfig::gated`]).
    pub gated: &'a dyn Fn(&str) -> bool,
    /// The intents (governance is on).
    pub intents: &'a IntentFile,
    /// The session's active intent id.
    pub active: Option<&'a str>,
    /// The compiled scope of the active intent (`Err`: it does not compile).
    pub scope: Option<&'a Result<Scope, String>>,
}

/// "INT-1 (name), INT-2 (name)" for the intents that can be selected.
pub fn choices(f: &IntentFile) -> String {
    let v: Vec<String> = f
        .selectable()
        .map(|i| format!("{} ({})", i.id, i.name))
        .collect();
    v.join(", ")
}

fn no_intent(tool: &str, f: &IntentFile, why: &str) -> String {
    let list = choices(f);
    if list.is_empty() {
        format!(
            "hookwise blocked `{tool}`: {why}, and no intent in .orchestration/active_intents.yaml is IN_PROGRESS. Ask the user to add or reopen an intent; changes are blocked until then."
        )
    } else {
        format!(
            "hookwise blocked `{tool}`: {why}. Call the `select_active_intent` tool with one of these intent ids first: {list}. Then retry."
        )
    }
}

/// Decide. `resolve` maps a path from the arguments to what it names.
pub fn gate(
    tool: &str,
    args: &Value,
    state: &GateState,
    resolve: &mut dyn FnMut(&str) -> Resolved,
) -> Decision {
    gate_ruled(tool, args, state, resolve).0
}

/// The rule a block of [`gate_ruled`] applied (what telemetry names; never a path).
pub mod rule {
    /// No active intent (a tool the profile knows to change things).
    pub const NO_INTENT: &str = "no_intent";
    /// A tool the host's profile does not know, blocked without an active intent.
    pub const DEFAULT_DENY: &str = "default_deny";
    /// A path outside the active intent's owned scope (or outside the worktree).
    pub const SCOPE: &str = "scope";
    /// `.orchestration/`: only the user changes it.
    pub const PROTECTED: &str = "protected";
    /// The call's paths cannot be read as one (two keys, a rewritten path, no file).
    pub const AMBIGUOUS: &str = "ambiguous";
    /// A path the host would read differently from how it was checked.
    pub const REFUSED: &str = "refused_path";
    /// The gate let it through.
    pub const NONE: &str = "";
}

/// [`gate`] with the rule of its block ([`rule`]; [`rule::NONE`] when allowed), and the class
/// of each path it checked (`in_scope`, `out_of_scope`, `protected`, `refused`).
pub fn gate_ruled(
    tool: &str,
    args: &Value,
    state: &GateState,
    resolve: &mut dyn FnMut(&str) -> Resolved,
) -> (Decision, &'static str, Vec<&'static str>) {
    let unknown = state.host.entry(tool).role == Role::Other;
    let none_rule = if unknown {
        rule::DEFAULT_DENY
    } else {
        rule::NO_INTENT
    };
    let r = |d: Decision, rl: &'static str| (d, rl, Vec::new());
    if !(state.gated)(tool) {
        return r(Decision::Allow, rule::NONE);
    }
    let intent = match state.active {
        None => {
            return r(
                Decision::Block(no_intent(
                    tool,
                    state.intents,
                    "no intent is active for this session",
                )),
                none_rule,
            )
        }
        Some(id) => match state.intents.get(id) {
            Some(i) if i.status == Status::InProgress => i,
            Some(i) => {
                return r(
                    Decision::Block(no_intent(
                        tool,
                        state.intents,
                        &format!("the active intent {id} is now {}", i.status.as_str()),
                    )),
                    none_rule,
                )
            }
            None => return r(
                Decision::Block(no_intent(
                    tool,
                    state.intents,
                    &format!(
                        "the active intent {id} is no longer in .orchestration/active_intents.yaml"
                    ),
                )),
                none_rule,
            ),
        },
    };
    let targets = match targets(state.host, tool, args) {
        Ok(t) => t,
        Err(msg) => return r(Decision::Block(msg), rule::AMBIGUOUS),
    };
    if targets.is_empty() {
        return r(Decision::Allow, rule::NONE); // shell: an active intent is all it needs
    }
    let scope = match state.scope {
        Some(Ok(s)) => s,
        Some(Err(e)) => return r(
            Decision::Block(format!(
                "hookwise blocked `{tool}`: the owned_scope of intent {} does not compile ({e})",
                intent.id
            )),
            rule::SCOPE,
        ),
        None => {
            return r(
                Decision::Block(format!(
                    "hookwise blocked `{tool}`: the scope of intent {} is not available",
                    intent.id
                )),
                rule::SCOPE,
            )
        }
    };
    let mut bad = Vec::new();
    let mut governance = Vec::new();
    let mut refused = Vec::new();
    let mut seen: HashMap<&str, ()> = HashMap::new();
    let mut classes = Vec::new();
    for t in &targets {
        if seen.insert(t.path.as_str(), ()).is_some() {
            continue;
        }
        match reading::verdict(&t.path, resolve(&t.path), &|rel| scope.matches(rel)) {
            Verdict::Allow => classes.push("in_scope"),
            Verdict::Governance(s) => {
                classes.push("protected");
                governance.push(s)
            }
            Verdict::OutOfScope(s) => {
                classes.push("out_of_scope");
                bad.push(s)
            }
            Verdict::Refused(s) => {
                classes.push("refused");
                refused.push(s)
            }
        }
    }
    if !governance.is_empty() {
        let orchestration = governance.iter().all(|g| {
            let g = g.trim_start_matches('`').trim_start_matches("./");
            g.get(..DIR_LEN).is_some_and(|d| d.eq_ignore_ascii_case(super::DIR))
        });
        let d = Decision::Block(if orchestration {
            format!(
                "hookwise blocked `{tool}`: {} is in .orchestration/, which holds the intents and the trace; only the user changes it. Ask the user if an intent or its scope needs to change.",
                governance.join(", ")
            )
        } else {
            super::protected::block(tool, &governance.join(", "))
        });
        return (d, rule::PROTECTED, classes);
    }
    if !refused.is_empty() {
        let d = Decision::Block(reading::refused_message(tool, &refused));
        return (d, rule::REFUSED, classes);
    }
    if bad.is_empty() {
        return (Decision::Allow, rule::NONE, classes);
    }
    let what = if bad.len() == 1 {
        format!("{} is", bad[0])
    } else {
        format!("{} are", bad.join(", "))
    };
    let d = Decision::Block(format!(
        "hookwise blocked `{tool}`: {what} outside the scope of the active intent {} ({}). Its owned_scope: {}. Keep changes inside that scope; if this change belongs to another intent, call select_active_intent with it; otherwise ask the user to widen owned_scope in .orchestration/active_intents.yaml.",
        intent.id,
        intent.name,
        intent.owned_scope.join(", ")
    ));
    (d, rule::SCOPE, classes)
}

const DIR_LEN: usize = super::DIR.len();

/// A governance path ([`super::protected`]): `.orchestration` and everything in it, hookwise's
/// configuration, SOPs and install, the hosts' files that load it (any case: case-insensitive
/// file systems).
pub fn is_governance_path(rel: &str) -> bool {
    let first = rel.split('/').next().unwrap_or("");
    first.eq_ignore_ascii_case(super::DIR) || super::protected::is_protected(rel, &[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::intents;
    use crate::governance::scope::resolve;
    use serde_json::json;

    const YAML: &str = "\
active_intents:
  - id: AUTH
    name: Auth
    status: IN_PROGRESS
    owned_scope: [src/auth/**, \"!src/auth/secrets/**\"]
  - id: DONE
    name: Done
    status: COMPLETE
    owned_scope: [\"**\"]
  - id: UI
    name: UI
    status: IN_PROGRESS
    owned_scope: [\"ui/**\"]
";

    fn mutating() -> Vec<String> {
        crate::hosts::default_profile().mutating()
    }

    fn run(tool: &str, args: Value, active: Option<&str>) -> Decision {
        let f = intents::parse("f", YAML);
        let scope = active
            .and_then(|a| f.get(a))
            .map(|i| Scope::compile(&i.owned_scope));
        let m = mutating();
        let st = GateState {
            host: crate::hosts::default_profile(),
            gated: &|t| m.iter().any(|x| x == t),
            intents: &f,
            active,
            scope: scope.as_ref(),
        };
        let mut fs = |p: &str| match p {
            "/w" | "/w/src" | "/w/src/auth" => Some(p.to_string()),
            "/w/src/auth/link" => Some("/etc".to_string()),
            _ => None,
        };
        gate(tool, &args, &st, &mut |p| resolve("/w", p, &mut fs))
    }

    fn blocked(d: Decision) -> String {
        match d {
            Decision::Block(m) => m,
            Decision::Allow => panic!("expected a block"),
        }
    }

    #[test]
    fn no_active_intent_blocks_and_lists_ids() {
        let m = blocked(run("write", json!({"filePath": "src/auth/a.ts"}), None));
        assert!(m.contains("select_active_intent"), "{m}");
        assert!(m.contains("AUTH (Auth)") && m.contains("UI (UI)"));
        assert!(!m.contains("DONE"), "COMPLETE intents are not offered: {m}");
        // bash needs an intent too, and nothing more
        blocked(run("bash", json!({"command": "rm -rf /"}), None));
        assert_eq!(
            run("bash", json!({"command": "ls"}), Some("AUTH")),
            Decision::Allow
        );
        assert_eq!(
            run("execute_command", json!({"command": "ls"}), Some("UI")),
            Decision::Allow
        );
        // a COMPLETE or vanished intent is no intent
        assert!(blocked(run("bash", json!({}), Some("DONE"))).contains("now COMPLETE"));
        assert!(blocked(run("bash", json!({}), Some("GONE"))).contains("no longer"));
    }

    #[test]
    fn non_mutating_tools_pass() {
        assert_eq!(
            run("read", json!({"filePath": "/etc/passwd"}), None),
            Decision::Allow
        );
        assert_eq!(run("grep", json!({"pattern": "x"}), None), Decision::Allow);
        assert_eq!(run("task", json!({"prompt": "x"}), None), Decision::Allow);
    }

    #[test]
    fn scope_for_every_tool_shape() {
        let ok = [
            ("write", json!({"filePath": "src/auth/a.ts", "content": ""})),
            ("edit", json!({"filePath": "/w/src/auth/a.ts"})),
            ("write_to_file", json!({"path": "src/auth/a.ts"})),
            ("write_file", json!({"path": "src/auth/a.ts"})),
            ("apply_diff", json!({"path": "src/auth/a.ts", "diff": ""})),
            ("edit", json!({"file_path": "src/auth/a.ts"})),
            ("search_replace", json!({"file_path": "src/auth/x/y.ts"})),
            ("edit_file", json!({"file_path": "./src/auth/a.ts"})),
            ("search_and_replace", json!({"file_path": "src/auth/a.ts"})),
            (
                "apply_patch",
                json!({"patchText": "*** Begin Patch\n*** Add File: src/auth/n.ts\n+x\n*** End Patch"}),
            ),
            (
                "apply_patch",
                json!({"patch": "*** Update File: src/auth/a.ts\n*** Move to: src/auth/b.ts\n"}),
            ),
            (
                "apply_patch",
                json!({"input": "*** Delete File: src/auth/old.ts\n"}),
            ),
        ];
        for (tool, args) in ok {
            assert_eq!(
                run(tool, args.clone(), Some("AUTH")),
                Decision::Allow,
                "{tool} {args}"
            );
        }
        let out = [
            ("write", json!({"filePath": "src/other.ts"})),
            ("write", json!({"filePath": "src/auth/../other.ts"})),
            ("write", json!({"filePath": "src/auth/secrets/k"})),
            ("write", json!({"filePath": "src/auth/SECRETS/k"})),
            ("write", json!({"filePath": "/abs/outside"})),
            ("write", json!({"filePath": "src/auth/link/passwd"})),
            ("write", json!({"filePath": "SRC/auth/a.ts"})),
            ("write", json!({"filePath": "src\\auth\\..\\..\\x"})),
            ("write_to_file", json!({"path": "ui/a.ts"})),
            (
                "apply_patch",
                json!({"patchText": "*** Add File: src/auth/ok.ts\n+x\n*** Add File: ui/evil.ts\n+x\n"}),
            ),
            (
                "apply_patch",
                json!({"patchText": "*** Update File: src/auth/a.ts\n*** Move to: ui/a.ts\n"}),
            ),
            (
                "apply_patch",
                json!({"patchText": "*** Delete File: README.md\n"}),
            ),
        ];
        for (tool, args) in out {
            let m = blocked(run(tool, args.clone(), Some("AUTH")));
            assert!(
                m.contains("outside the scope of the active intent AUTH"),
                "{tool} {args}: {m}"
            );
            assert!(m.contains("src/auth/**, !src/auth/secrets/**"), "{m}");
        }
    }

    #[test]
    fn block_messages_name_the_file_and_what_it_resolved_to() {
        let m = blocked(run(
            "write",
            json!({"filePath": "src/auth/../other.ts"}),
            Some("AUTH"),
        ));
        assert!(
            m.contains("`src/auth/../other.ts` (resolves to `src/other.ts`) is outside"),
            "{m}"
        );
        let m = blocked(run(
            "write",
            json!({"filePath": "src/auth/link/passwd"}),
            Some("AUTH"),
        ));
        assert!(m.contains("/etc/passwd, outside the worktree"), "{m}");
        let m = blocked(run(
            "apply_patch",
            json!({"patchText": "*** Add File: a\n+x\n*** Add File: b\n+x\n"}),
            Some("AUTH"),
        ));
        assert!(m.contains("`a`, `b` are outside"), "{m}");
        let m = blocked(run("write", json!({"content": "x"}), Some("AUTH")));
        assert!(m.contains("name no file"), "{m}");
        let m = blocked(run(
            "apply_patch",
            json!({"patchText": "garbage"}),
            Some("AUTH"),
        ));
        assert!(m.contains("names no file"), "{m}");
    }

    #[test]
    fn the_governance_folder_is_off_limits() {
        let f = intents::parse(
            "f",
            "active_intents:\n  - id: ALL\n    name: all\n    status: IN_PROGRESS\n    owned_scope: [\"**\"]\n",
        );
        let scope = Some(Scope::compile(&["**"]));
        let m = mutating();
        let st = GateState {
            host: crate::hosts::default_profile(),
            gated: &|t| m.iter().any(|x| x == t),
            intents: &f,
            active: Some("ALL"),
            scope: scope.as_ref(),
        };
        let mut res = |p: &str| resolve("/w", p, &mut |q: &str| Some(q.to_string()));
        for p in [
            ".orchestration/active_intents.yaml",
            "./.orchestration/agent_trace.jsonl",
            "src/../.Orchestration/x",
            "/w/.orchestration",
        ] {
            match gate("write", &json!({ "filePath": p }), &st, &mut res) {
                Decision::Block(m) => assert!(m.contains("only the user changes it"), "{m}"),
                Decision::Allow => panic!("{p} was allowed"),
            }
        }
        assert_eq!(
            gate(
                "write",
                &json!({"filePath": "src/.orchestration.md"}),
                &st,
                &mut res
            ),
            Decision::Allow
        );
    }

    #[test]
    fn configured_list_decides_what_is_gated() {
        let f = intents::parse("f", YAML);
        let only_write = vec!["write".to_string(), "mcp_fs_write".to_string()];
        let st = GateState {
            host: crate::hosts::default_profile(),
            gated: &|t| only_write.iter().any(|x| x == t),
            intents: &f,
            active: None,
            scope: None,
        };
        let mut res = |p: &str| Resolved::Inside(p.to_string());
        assert_eq!(gate("bash", &json!({}), &st, &mut res), Decision::Allow);
        assert!(matches!(
            gate("mcp_fs_write", &json!({}), &st, &mut res),
            Decision::Block(_)
        ));
        let scope = Some(Scope::compile(&["src/auth/**"]));
        let st = GateState {
            active: Some("AUTH"),
            scope: scope.as_ref(),
            ..st
        };
        assert_eq!(
            gate("mcp_fs_write", &json!({}), &st, &mut res),
            Decision::Allow
        );
        assert!(matches!(
            gate("mcp_fs_write", &json!({"path": "ui/x"}), &st, &mut res),
            Decision::Block(_)
        ));
    }
}

#[cfg(test)]
#[path = "gate_decoy_tests.rs"]
pub(super) mod decoy_tests;

//! `init`: which host this is, whether the project wants the policy build (the probe), the
//! merged options, the knowledge source, and the [`Plan`] that tells the host which hooks to
//! send. The policy build's steps (enforcement's configuration, governance's wiring, the warm
//! MCP session, the enforcer) go through `policy::Setup`; in the lean build they answer
//! `{needs: "policy"}` when the project wants what only the policy build has.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::{json, Value};

use super::{policy, ExcerptPlan, InitCall, Plan, Shared, EXCERPT_WINDOW};
use crate::config::Config;
use crate::context;
use crate::discovery::{self, Discovery};
use crate::knowledge::{Source, VaultIndex};
use crate::protocol::Log;
use crate::runtime::{join_all, Io};
use crate::session::{self, Channel, SessionConfig};

/// Where the governance probe looks, relative to the project root.
pub use crate::governance::INTENTS_FILE;

/// What option `governance` says: `Some(true)` forces it on, `Some(false)` off, `None` (absent,
/// `"auto"` or an object without a boolean `enabled`): on when the intents file exists.
pub fn option_forces(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::Object(m) => m.get("enabled").and_then(Value::as_bool),
        _ => None,
    }
}

/// Whether the project wants intent governance: the option (the plugin's, else the one in
/// `.opencode/hookwise.json`) or, by default, the intents file. The lean build answers
/// `{needs: "policy"}` then: governance lives in the policy build only.
pub fn wanted(options: &Value, file_options: Option<&Value>, intents_exist: bool) -> bool {
    option_forces(options.get("governance"))
        .or_else(|| option_forces(file_options.and_then(|f| f.get("governance"))))
        .unwrap_or(intents_exist)
}

pub(super) async fn init(io: Io, shared: Rc<RefCell<Shared>>, call: InitCall) -> Value {
    let InitCall {
        options,
        env,
        cwd,
        worktree,
        directory,
        mcp: host_mcp,
        host,
        find_root,
        sandbox,
        run_programs,
    } = call;
    // the host as named (an unknown name's options are not the user's, issue 38)
    let host_id = match &host {
        None | Some(Value::Null) => "vscode".to_string(),
        Some(Value::String(id)) => id.clone(),
        Some(_) => String::new(),
    };
    let (profile, host_log) = match &host {
        None | Some(Value::Null) => crate::hosts::choose(None),
        Some(Value::String(id)) => crate::hosts::choose(Some(id)),
        Some(other) => crate::hosts::choose(Some(&other.to_string())),
    };
    // OpenCode's worktree is `/` outside a git repository: the project is the directory then.
    let cwd = if (cwd.is_empty() || cwd == "/") && !directory.is_empty() {
        directory.clone()
    } else {
        cwd
    };
    // A hook process started in a folder of the project (or of a worktree of it): the project.
    let (cwd, worktree, directory) = match find_root {
        true => {
            let root = policy::project_root(&io, &cwd).await;
            (root.clone(), root.clone(), root)
        }
        false => (cwd, worktree, directory),
    };
    #[cfg(feature = "policy")]
    let root = find_root.then(|| cwd.clone());
    // One step: does the project want enforcement or governance, and its .opencode/hookwise.json.
    let (wanted, (file, file_path), governance) = wants_policy(&io, &options, &cwd).await;
    // The lean build has neither: the host loads the policy build and starts again.
    let mut setup = match policy::Setup::load(&io, &options, &cwd, wanted, governance).await {
        Ok(s) => s,
        Err(needs_policy) => return needs_policy,
    };
    let plugin_options = options.clone();
    let (options, mut logs) = match setup.merged_options() {
        // Enforcement's loader already merged .opencode/hookwise.json under the options.
        Some(o) => (o, Vec::new()),
        // The project's .opencode/hookwise.json, under the plugin's own options.
        None => crate::config::merge_file_options(&options, &file, file_path),
    };
    logs.extend(host_log);
    if let Some(needs_policy) = policy::State::tools_need(&options) {
        return needs_policy;
    }
    if let Some(needs_policy) = policy::State::telemetry_need(&options, &env) {
        return needs_policy;
    }
    let (mut config, config_logs) = Config::from_sources(&options, &env);
    logs.extend(config_logs);
    // no program named by a file of the project (issue 38): the user's MAENIFOLD_CLI alone
    if let Some(l) = crate::trust::program_options(&options, &plugin_options, &host_id) {
        logs.push(l);
        config.cli_path = env
            .get("MAENIFOLD_CLI")
            .filter(|s| !s.is_empty())
            .map(|s| (s.clone(), "env"));
    }
    let (session_cfg, session_logs) = SessionConfig::from_sources(&options, &env);
    logs.extend(session_logs);
    setup.governance(&options, governance, &cwd, &directory, profile, &mut logs);
    setup.confine_setup(&sandbox, &env);
    let project = session::project_name(
        &worktree,
        if directory.is_empty() {
            &cwd
        } else {
            &directory
        },
    );
    let clock = shared.borrow().clock.clone();
    let (mut source, mut found, mut source_logs) =
        choose_source(&io, &config, &env, &cwd, clock).await;
    if !run_programs && matches!(source, Some(crate::knowledge::Source::Cli { .. })) {
        // found and reported; this command runs no program
        source = None;
        found.error = Some("not run here".into());
    }
    logs.append(&mut source_logs);
    // maenifold found: through the warm MCP session unless the transport is `cli`. The warm
    // session lives in the policy (full) build: the lean one hands over to it, as for
    // enforcement (maenifold users are the few with .NET installed; the lean build stays
    // small for everyone else).
    let source = match setup
        .knowledge(
            &io, &shared, source, host_mcp, &options, &env, &config, &mut logs,
        )
        .await
    {
        Ok(s) => s,
        Err(needs_policy) => return needs_policy,
    };
    let is_mcp = policy::is_mcp(source.as_ref());
    let warm = is_mcp && session_cfg.enabled;
    setup
        .enforcement(
            &io,
            &shared,
            source.as_ref(),
            &cwd,
            &env,
            profile,
            &mut logs,
        )
        .await;
    let enforcing = setup.enforcing();
    let gov_on = setup.governance_on();
    let (tool_settings, tool_logs) =
        crate::tools::Settings::from_options(&options, config.token_budget);
    logs.extend(tool_logs);
    let tools = crate::tools::Registry::new(tool_settings, source.is_some(), gov_on);
    let plan = Plan {
        tool_before: source.as_ref().map(|_| ExcerptPlan {
            needle: "[[".into(),
            close: "]]".into(),
            window: EXCERPT_WINDOW,
            skip: vec![(context::OPEN.into(), context::CLOSE.into())],
        }),
        session_created: (source.is_some() && session_cfg.enabled) || gov_on,
        system_transform: (source.is_some()
            && session_cfg.enabled
            && session_cfg.channel == Channel::System)
            || gov_on,
        compaction: true,
        tool_before_all: enforcing,
        tool_before_tools: setup.watched_tools(),
        #[cfg(feature = "policy")]
        ungated_tools: setup.ungated_tools(),
        fail_closed: setup.fail_closed(),
        args_limits: crate::wire::ARGS_LIMITS,
        tools: tools.specs(),
    };
    {
        let mut s = shared.borrow_mut();
        s.discovery = Some(found.clone());
        s.init_warnings = logs
            .iter()
            .filter(|l| l.level == crate::protocol::Level::Warn)
            .map(|l| l.message.clone())
            .collect();
        s.config = config;
        s.session = session_cfg;
        s.project = project;
        s.source = source;
        s.cwd = cwd;
        s.host = profile;
        s.tools = tools;
        s.policy.install(setup);
        s.policy.telemetry(&options, &env);
    }
    // Enforcement's memory search has a deadline far shorter than a start: it must find the
    // session warm, not start it.
    let warm = warm || (enforcing && is_mcp);
    #[allow(unused_mut)]
    let mut out = json!({ "discovery": found, "plan": plan, "logs": logs, "warmMcp": warm });
    #[cfg(feature = "policy")]
    if let Some(root) = root {
        // the project a hook process found itself in (`findRoot`)
        out["root"] = json!(root);
    }
    out
}

/// Whether the project wants pre-action enforcement: option `enforcement`, an `enforcement`
/// key in `.opencode/hookwise.json`, or a `.opencode/sops/` folder; the file's text; and
/// whether it wants intent governance (see [`wanted`]).
async fn wants_policy(
    io: &Io,
    options: &Value,
    cwd: &str,
) -> (bool, (crate::config::ProjectFile, &'static str), bool) {
    if cwd.is_empty() {
        return (
            options.get("enforcement").is_some(),
            (Ok(None), crate::config::CONFIG_FILE),
            wanted(options, None, false),
        );
    }
    let root = cwd.trim_end_matches('/');
    let [neutral, opencode] = crate::config::CONFIG_FILES;
    // the same places the glue checks when the core cannot start (src/failsafe.rs)
    let [opencode_sops, neutral_sops] = crate::failsafe::SOPS_DIRS;
    let replies = join_all(vec![
        io.request(crate::protocol::Request::Stat {
            path: format!("{root}/{opencode_sops}"),
        }),
        io.request(crate::protocol::Request::ReadFile {
            path: format!("{root}/{opencode}"),
            max_bytes: crate::config::MAX_FILE_BYTES,
        }),
        io.request(crate::protocol::Request::Stat {
            path: format!("{root}/{}", INTENTS_FILE),
        }),
        // the host-neutral places (`.hookwise/`) beside OpenCode's
        io.request(crate::protocol::Request::Stat {
            path: format!("{root}/{neutral_sops}"),
        }),
        io.request(crate::protocol::Request::ReadFile {
            path: format!("{root}/{neutral}"),
            max_bytes: crate::config::MAX_FILE_BYTES,
        }),
    ])
    .await;
    let st: crate::protocol::StatResult =
        serde_json::from_value(replies[0].clone()).unwrap_or_default();
    let st2: crate::protocol::StatResult =
        serde_json::from_value(replies[3].clone()).unwrap_or_default();
    // unreadable or over a limit: reported (a warning) where it is merged
    let (file, file_path) = crate::config::pick_file(&[replies[4].clone(), replies[1].clone()]);
    let parsed = file
        .as_ref()
        .ok()
        .and_then(|f| f.as_deref())
        .and_then(|t| crate::config::parse_file(t).ok());
    let in_file = parsed
        .as_ref()
        .is_some_and(|v| v.get("enforcement").is_some());
    // a dangling symlink in its place counts: governance then fails closed on it
    let intents = ["exists", "isSymlink"]
        .iter()
        .any(|k| replies[2].get(*k).and_then(Value::as_bool) == Some(true));
    (
        options.get("enforcement").is_some()
            || (st.exists && st.is_dir)
            || (st2.exists && st2.is_dir)
            || in_file,
        (file, file_path),
        wanted(options, parsed.as_ref(), intents),
    )
}

/// Which knowledge source answers: option `knowledge` = `auto` (maenifold when its CLI is
/// found, else a vault when one exists, else none — quietly), `maenifold`, or `vault`. An
/// explicit CLI path (option `cliPath`, env `MAENIFOLD_CLI`) means maenifold.
/// The vault: option `vault` / env `HOOKWISE_VAULT`, else `$MAENIFOLD_ROOT/memory` (root
/// default `~/maenifold`), else `.opencode/knowledge/` in the project — the first that exists.
async fn choose_source(
    io: &Io,
    config: &Config,
    env: &BTreeMap<String, String>,
    cwd: &str,
    clock: Rc<std::cell::Cell<u64>>,
) -> (Option<Source>, Discovery, Vec<Log>) {
    let mut logs = Vec::new();
    let want = config.knowledge.as_str();
    if want == "off" {
        let none = Discovery {
            path: None,
            source: "none",
            error: Some("knowledge is off".into()),
        };
        return (None, none, logs);
    }
    let found = if want == "vault" {
        Discovery {
            path: None,
            source: "none",
            error: Some("knowledge is set to the vault".into()),
        }
    } else {
        discovery::discover(io, config.cli_path.clone(), env, cwd).await
    };
    if let Some(p) = &found.path {
        logs.push(match &found.error {
            Some(e) => Log::warn(format!("using maenifold at {p}; {e}")),
            None => Log::info(format!("using maenifold at {p} ({})", found.source)),
        });
        let src = Source::Cli {
            path: p.clone(),
            timeout_ms: config.timeout_ms,
            max_bytes: config.max_output_bytes,
        };
        return (Some(src), found, logs);
    }
    // A CLI path the user set explicitly that does not work is reported, not replaced by a
    // vault behind their back.
    if want == "maenifold" || config.cli_path.is_some() {
        logs.push(Log::warn(format!(
            "knowledge context is off: {}",
            found.error.clone().unwrap_or_default()
        )));
        return (None, found, logs);
    }
    // The vault candidates, first that is a folder.
    let join = |a: &str, b: &str| {
        if a.ends_with('/') {
            format!("{a}{b}")
        } else {
            format!("{a}/{b}")
        }
    };
    let mut candidates: Vec<(String, &'static str)> = Vec::new();
    if let Some(v) = &config.vault {
        candidates.push((
            if v.starts_with('/') {
                v.clone()
            } else {
                join(cwd, v)
            },
            "option",
        ));
    } else if let Some(v) = env.get("HOOKWISE_VAULT").filter(|v| !v.is_empty()) {
        candidates.push((
            if v.starts_with('/') {
                v.clone()
            } else {
                join(cwd, v)
            },
            "HOOKWISE_VAULT",
        ));
    }
    let explicit = !candidates.is_empty();
    if !explicit {
        let root = env
            .get("MAENIFOLD_ROOT")
            .filter(|r| !r.is_empty())
            .cloned()
            .or_else(|| {
                env.get("HOME")
                    .filter(|h| !h.is_empty())
                    .map(|h| join(h, "maenifold"))
            });
        if let Some(r) = root {
            candidates.push((join(&r, "memory"), "maenifold memory"));
        }
        if !cwd.is_empty() {
            candidates.push((join(cwd, ".hookwise/knowledge"), "project"));
            candidates.push((join(cwd, ".opencode/knowledge"), "project"));
        }
    }
    let stats = join_all(
        candidates
            .iter()
            .map(|(p, _)| io.request(crate::protocol::Request::Stat { path: p.clone() }))
            .collect(),
    )
    .await;
    for ((path, why), st) in candidates.iter().zip(stats) {
        let st: crate::protocol::StatResult = serde_json::from_value(st).unwrap_or_default();
        if st.exists && st.is_dir && !path.contains('\0') {
            let root = st.realpath.unwrap_or_else(|| path.clone());
            let index = Rc::new(VaultIndex::new(
                root.clone(),
                clock,
                config.vault_refresh_ms,
            ));
            index.ensure_fresh(io).await;
            let last = index.last.borrow().clone();
            match &last.error {
                Some(e) => logs.push(Log::warn(format!("vault {root}: {e}"))),
                None => logs.push(Log::info(format!(
                    "using the vault at {root} ({why}): {} notes, {} concepts{}",
                    last.stats.files,
                    last.stats.concepts,
                    if last.stats.skipped.total() > 0 {
                        format!(", {} files skipped", last.stats.skipped.total())
                    } else {
                        String::new()
                    }
                ))),
            }
            return (Some(Source::Vault(index)), found, logs);
        }
        if explicit {
            logs.push(Log::warn(format!(
                "knowledge context is off: the vault {path} ({why}) is not a folder"
            )));
            return (None, found, logs);
        }
    }
    if want == "vault" {
        logs.push(Log::warn(
            "knowledge context is off: no vault found (set the vault option or HOOKWISE_VAULT)",
        ));
    } else {
        logs.push(Log::warn(format!(
            "knowledge context is off: {}; no vault either",
            found.error.clone().unwrap_or_default()
        )));
    }
    (None, found, logs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_wins_over_the_file_and_auto_follows_the_file() {
        let none = json!({});
        assert!(wanted(&none, None, true));
        assert!(!wanted(&none, None, false));
        assert!(wanted(&json!({"governance": true}), None, false));
        assert!(!wanted(&json!({"governance": false}), None, true));
        assert!(wanted(
            &json!({"governance": {"enabled": true}}),
            None,
            false
        ));
        assert!(!wanted(&json!({"governance": "auto"}), None, false));
        assert!(wanted(&json!({"governance": "auto"}), None, true));
        // the project's hookwise.json counts when the plugin options say nothing
        let file = json!({"governance": false});
        assert!(!wanted(&none, Some(&file), true));
        assert!(wanted(&json!({"governance": true}), Some(&file), false));
        // a bad value is not a decision
        assert!(wanted(&json!({"governance": 3}), None, true));
    }
}

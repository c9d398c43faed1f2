//! The tables the JS reads, generated from the host files and pinned by tests (run
//! `HOOKWISE_BLESS=1 cargo test -q --all-features generated_tables` to rewrite them):
//! `js/hosts.json` ([`hosts`]) and `js/dialects.json` ([`dialects`]).

use serde_json::{json, Value};

use super::{Kind, FACTS};
use crate::host::answer::{deny, render, Answer};
use crate::host::dialect::Event;

/// `js/hosts.json`: every host in registry order, with what the CLI (`init` flags, `doctor`),
/// the build, the package's exports and the set-up and test scripts need: its id and name,
/// kind, `init` flag, the files `init` writes, the folders and program that say it is used,
/// the pinned CLI (`scripts/setup-clis.sh` installs it), its set-up step and its real-host
/// suite.
pub fn hosts() -> Value {
    let hosts: Vec<Value> = FACTS
        .iter()
        .map(|(p, f)| {
            json!({
                "id": p.id,
                "title": p.title,
                "kind": match f.kind {
                    Kind::CommandHook => "command-hook",
                    Kind::Plugin => "plugin",
                    Kind::Engine => "engine",
                },
                "init": f.init,
                "configFiles": f.config_files,
                "markers": f.markers,
                "program": f.program,
                "cli": f.cli.map(|c| json!({
                    "package": c.package,
                    "version": c.version,
                    "installFlags": c.install_flags,
                    "entry": c.entry,
                    "how": if c.native { "native" } else { "node" },
                })),
                "setup": f.setup,
                "e2e": f.e2e,
            })
        })
        .collect();
    json!({
        "//": "generated from src/hosts/ by `HOOKWISE_BLESS=1 cargo test --all-features generated_tables`: do not edit",
        "hosts": hosts,
    })
}

/// The events whose payload a warm server that was not ready replays (`keep` of
/// [`dialects`]): the session's start and prompts; where the host runs neither headless
/// (Letta Code, Auggie), its PreToolUse, whose knowledge context the call's PostToolUse answers
/// with; and where the session's start context goes with the first tool result
/// ([`crate::host::dialect::Dialect::start_with_result`]: Mistral Vibe), its PreToolUse too,
/// whose context the server that answers the result keeps.
fn keep(d: &crate::host::dialect::Dialect) -> Vec<&'static str> {
    let start = |k: &Event| matches!(k, Event::SessionStart | Event::Prompt);
    let has_start = d.events.iter().any(|e| start(&e.1));
    d.events
        .iter()
        .filter(|e| start(&e.1) || (e.1 == Event::PreTool && (d.start_with_result || !has_start)))
        .map(|e| e.0)
        .collect()
}

/// `js/dialects.json`, for the JS glue when the core cannot answer: per command-hook host, its
/// PreToolUse event's name, its deny with the placeholder `{reason}` (inside a JSON string:
/// the glue puts the reason in JSON-escaped), the answer with nothing to say per event, and
/// its project-folder variable. `keep`: the events whose payload holds session state later
/// hooks need (the session's start, a prompt: the model id Qwen Code names only at
/// SessionStart, the concepts a prompt names): one answered in a hook's own process, while the
/// project's warm server was not ready, is handed to that server to replay
/// (`docs/warm-hooks.md`). `envKeys`: the variables the glue hands the core for the host's
/// model log ([`crate::host::model_log`]).
pub fn dialects() -> Value {
    let mut m = serde_json::Map::new();
    for d in super::dialects() {
        let empty: serde_json::Map<String, Value> = d
            .events
            .iter()
            .map(|(name, kind)| {
                (
                    name.to_string(),
                    Value::String(render(d, name, *kind, Answer::Nothing)),
                )
            })
            .collect();
        m.insert(
            d.host.to_string(),
            json!({
                "preToolEvent": d.name_of(Event::PreTool),
                "deny": deny(d, "{reason}"),
                "empty": empty,
                "projectDirVar": d.project_dir_var,
                // a block is this exit code with the reason on stderr (`deny` unused)
                "denyExit": if d.deny_exit { 2 } else { 0 },
                "envKeys": d.model_log.map_or(&[][..], |m| m.env_keys),
                "keep": keep(d),
            }),
        );
    }
    Value::Object(m)
}

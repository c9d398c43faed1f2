//! What the host does when the core cannot start at all (its wasm deleted, truncated or
//! garbage, its JS glue broken): the one case where the JS must decide without the core. The
//! decision stays Rust's: this module defines the data the glue reads — which files of a
//! project say that intent governance or pre-action enforcement is configured (the same ones
//! `init`'s probe reads, [`super::engine`]), which tools of each host only read, and the
//! sentence the model reads — and its tests pin `js/failsafe.json` (and the last-resort copy
//! inside `js/failsafe.cjs`) equal to it.
//!
//! The rule the glue applies (`js/failsafe.cjs`): a project is configured when one of
//! [`PRESENT`] exists in any form (a file, a folder, a symlink, dangling included), when a
//! configuration file ([`crate::config::CONFIG_FILES`]) or the plugin's options hold one of
//! [`KEYS`] with a value other than [`OFF`] (a file that is not JSON but names a key counts:
//! in doubt it blocks). Configured and no core: every call is blocked with [`MESSAGE`], except
//! the host's read-only tools when only governance is configured (a marker with `all: false`).
//! Not configured: knowledge context fails open, every tool runs.

use serde_json::{json, Value};

/// Paths (relative to the project) whose presence configures governance or enforcement, and
/// whether the marker means enforcement (every tool blocked, reads too: an SOP may be about a
/// read) rather than governance only (read-only tools still run).
pub const PRESENT: &[(&str, bool)] = &[
    (crate::governance::INTENTS_FILE, false),
    (SOPS_DIRS[0], true),
    (SOPS_DIRS[1], true),
];

/// The SOP folders `init`'s probe looks for (a folder there turns enforcement on).
pub const SOPS_DIRS: [&str; 2] = [".opencode/sops", ".hookwise/sops"];

/// Keys of the options (the plugin's, or a configuration file's) that turn on enforcement
/// (`true`: every tool) or governance (`false`: read-only tools still run).
pub const KEYS: &[(&str, bool)] = &[("enforcement", true), ("governance", false)];

/// Values of those keys that do not turn anything on (`"auto"`: governance follows the
/// intents file, itself a marker).
pub fn off() -> Vec<Value> {
    vec![json!(false), Value::Null, json!("auto")]
}

/// What the model reads for a blocked call: `{tool}`, `{error}` (why the core could not start)
/// and `{marker}` (the file or option that configures governance or enforcement) filled in.
pub const MESSAGE: &str = "hookwise blocked `{tool}`: hookwise could not start ({error}), and this project configures intent governance or pre-action enforcement ({marker}), which block every call they cannot check. Tell the user that hookwise's installation needs repair (reinstalling the package usually fixes it); do not try to work around the block.";

/// The sentence when `js/failsafe.json` is damaged too (the glue's built-in copy blocks every
/// call, read-only ones included).
pub const LAST_RESORT: &str = "hookwise blocked `{tool}`: hookwise could not start ({error}) and this project configures intent governance or pre-action enforcement ({marker}). Tell the user that hookwise's installation needs repair; do not try to work around the block.";

/// Claude Code's PreToolUse hook tool (`hookwise mcp` answers it without a core).
pub const CLAUDE_PRE_TOOL_USE: &str = "hook_pre_tool_use";

/// The tools of `profile` that change nothing in the project.
fn read_only(profile: &crate::host::Profile) -> Vec<&'static str> {
    profile
        .all()
        .into_iter()
        .filter(|t| t.role == crate::host::Role::Read)
        .map(|t| t.name)
        .collect()
}

fn markers() -> Value {
    json!({
        "present": PRESENT.iter().map(|(p, all)| json!({"path": p, "all": all})).collect::<Vec<_>>(),
        "configFiles": crate::config::CONFIG_FILES,
        "maxConfigBytes": crate::config::MAX_FILE_BYTES,
        "keys": KEYS.iter().map(|(k, all)| json!({"key": k, "all": all})).collect::<Vec<_>>(),
        "off": off(),
    })
}

/// `js/failsafe.json`.
pub fn data() -> Value {
    let mut v = markers();
    let hosts: serde_json::Map<String, Value> = crate::hosts::ALL
        .iter()
        .map(|p| (p.id.to_string(), json!(read_only(p))))
        .collect();
    v["readOnly"] = Value::Object(hosts);
    v["defaultHost"] = json!(crate::hosts::DEFAULT);
    v["claudePreToolUse"] = json!(CLAUDE_PRE_TOOL_USE);
    v["message"] = json!(MESSAGE);
    v
}

/// The last-resort copy built into `js/failsafe.cjs`: the markers, no read-only tools.
pub fn last_resort() -> Value {
    let mut v = markers();
    v["claudePreToolUse"] = json!(CLAUDE_PRE_TOOL_USE);
    v["message"] = json!(LAST_RESORT);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = env!("CARGO_MANIFEST_DIR");

    /// `HOOKWISE_BLESS=1 cargo test failsafe` rewrites the file instead of failing.
    fn pinned(rel: &str, want: &str, have: &str) {
        if have != want {
            if std::env::var_os("HOOKWISE_BLESS").is_some() {
                return;
            }
            panic!("{rel} differs from src/failsafe.rs: run HOOKWISE_BLESS=1 cargo test failsafe\n--- want\n{want}\n--- have\n{have}");
        }
    }

    /// The policy build's hosts (the command-hook hosts' profiles live there): the data the
    /// glue needs for every host, pinned from that build (`cargo test --all-features`).
    #[cfg(feature = "policy")]
    #[test]
    fn the_glue_reads_the_cores_data() {
        let path = format!("{DIR}/js/failsafe.json");
        let want = serde_json::to_string_pretty(&data()).unwrap() + "\n";
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want && std::env::var_os("HOOKWISE_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        pinned("js/failsafe.json", &want, &have);
    }

    #[test]
    fn the_glues_last_resort_copy_is_the_cores() {
        let path = format!("{DIR}/js/failsafe.cjs");
        let text = std::fs::read_to_string(&path).unwrap();
        let (open, close) = ("const LAST_RESORT = ", "; // pinned");
        let start = text.find(open).expect("LAST_RESORT in js/failsafe.cjs") + open.len();
        let end = start + text[start..].find(close).expect("its end");
        let want = serde_json::to_string(&last_resort()).unwrap();
        if text[start..end] != want && std::env::var_os("HOOKWISE_BLESS").is_some() {
            let new = format!("{}{}{}", &text[..start], want, &text[end..]);
            std::fs::write(&path, new).unwrap();
        }
        pinned("js/failsafe.cjs (LAST_RESORT)", &want, &text[start..end]);
    }

    #[test]
    fn the_markers_are_what_init_probes() {
        // init's probe reads these very constants; every host's read tools are listed
        assert!(PRESENT
            .iter()
            .any(|(p, _)| *p == crate::engine::INTENTS_FILE));
        for p in crate::hosts::ALL {
            let ro = read_only(p);
            assert!(!ro.is_empty(), "{}", p.id);
            for t in &ro {
                assert!(!p.mutating().iter().any(|m| m == t), "{} {t}", p.id);
            }
        }
        assert!(
            MESSAGE.contains("{tool}")
                && MESSAGE.contains("{error}")
                && MESSAGE.contains("{marker}")
        );
        assert!(LAST_RESORT.contains("{tool}") && LAST_RESORT.contains("{error}"));
    }
}

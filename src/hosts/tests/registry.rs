//! The registry: every host found by its id, its facts consistent with its dialect, and the
//! tables generated for the JS equal to the files committed.

use crate::hosts::{facts, Kind, ALL, FACTS};

#[test]
fn every_host_has_one_profile_and_facts_under_one_id() {
    let mut ids: Vec<&str> = ALL.iter().map(|p| p.id).collect();
    assert_eq!(ids.len(), FACTS.len());
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), ALL.len(), "an id twice");
    for p in ALL {
        let f = facts(p.id).expect("facts");
        assert!(!p.title.is_empty(), "{}", p.id);
        if f.kind == Kind::Plugin || f.kind == Kind::CommandHook {
            assert!(!f.program.is_empty(), "{}", p.id);
        }
        if let Some(c) = f.cli {
            assert!(
                c.entry.starts_with(c.package)
                    || c.entry.contains("-linux-")
                    // a PyPI package in its venv (scripts/setup-clis.sh)
                    || (c.package.starts_with("pypi:") && c.entry.starts_with("venv/bin/")),
                "{}",
                p.id
            );
        }
        assert!(f.e2e.is_empty() || f.e2e.starts_with("tests/"), "{}", p.id);
    }
}

/// A command-hook host's facts name what its dialect sets up (the flag, the files).
#[cfg(feature = "policy")]
#[test]
fn a_command_hook_hosts_facts_are_its_dialects() {
    use crate::hosts::dialects;
    for d in dialects() {
        let f = facts(d.host).expect("a dialect's host has facts");
        assert_eq!(f.kind, Kind::CommandHook, "{}", d.host);
        if let Some(s) = d.setup {
            assert_eq!(f.init, s.flag, "{}", d.host);
            // a user-level hooks file is named from the home (Kimi Code); no MCP file: none
            let hooks = match s.form {
                crate::host::dialect::HooksForm::KimiUser { dir, .. } => {
                    format!("~/{dir}/{}", s.hooks_file)
                }
                _ => s.hooks_file.to_string(),
            };
            let mut files = vec![hooks.as_str(), s.mcp_file];
            files.retain(|f| !f.is_empty());
            files.dedup();
            // no MCP file (Letta Code)
            files.retain(|f| !f.is_empty());
            assert_eq!(f.config_files, files.as_slice(), "{}", d.host);
        }
    }
    for (p, f) in FACTS {
        if f.kind == Kind::CommandHook {
            assert!(
                dialects().any(|d| d.host == p.id),
                "{} has no dialect",
                p.id
            );
        }
    }
}

/// `file` holds `want` (with `HOOKWISE_BLESS=1`, it is written first).
#[cfg(feature = "policy")]
fn pinned(file: &str, want: &serde_json::Value) {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = format!("{}\n", serde_json::to_string_pretty(want).unwrap());
    if std::env::var("HOOKWISE_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
    }
    let have: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default())
            .unwrap_or(serde_json::Value::Null);
    assert!(
        &have == want,
        "{file} is stale (a host file changed): run HOOKWISE_BLESS=1 cargo test -q --all-features generated_tables"
    );
}

/// `js/hosts.json` is the registry's table.
#[cfg(feature = "policy")]
#[test]
fn generated_tables_hosts_json() {
    let want = crate::hosts::tables::hosts();
    pinned("js/hosts.json", &want);
    let ids: Vec<&str> = want["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ALL.iter().map(|p| p.id).collect::<Vec<_>>());
}

/// `js/dialects.json` is the dialects' table; a reason put in as the glue does stays one JSON
/// string.
#[cfg(feature = "policy")]
#[test]
fn generated_tables_dialects_json() {
    use crate::host::answer::deny;
    let want = crate::hosts::tables::dialects();
    pinned("js/dialects.json", &want);
    for d in crate::hosts::dialects() {
        let tpl = want[d.host]["deny"].as_str().unwrap();
        let reason = "a \"quoted\" {reason}\n<tag>";
        let esc = serde_json::to_string(reason).unwrap();
        let filled = tpl.replacen("{reason}", &esc[1..esc.len() - 1], 1);
        assert_eq!(filled, deny(d, reason), "{}", d.host);
    }
}

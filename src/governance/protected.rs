//! Governance paths: the files and folders of a project that decide hookwise's policy, which
//! no tool the agent calls may change while governance or enforcement is on (issue 38).
//!
//! They are hookwise's own configuration and state (`.hookwise/`, `.opencode/hookwise.json`),
//! the SOP folders (`.hookwise/sops/`, `.opencode/sops/`, and the `sopFolders` a project
//! configures), the intents and the trace (`.orchestration/`), the hosts' configuration files
//! that load hookwise or carry its options (`opencode.json`, Kilo's `kilo.json` and plugin
//! folders, Cline's plugin and hook folders, the command-hook hosts' settings that hold its
//! hook entries, pi's settings, `.mcp.json`), and hookwise's install in the project
//! (`node_modules/hookwise`, its `.bin` entry). A file tool, a patch, every host's write tool
//! is blocked on them with [`block`]'s sentence; a shell command that names one is blocked by
//! reading ([`names_protected`]); a governed shell cannot reach them (the kernel: the confined
//! shell). A person (or git) changes them outside the agent.

/// Paths relative to the project, compared case-insensitively by whole components: a folder
/// (`…/`) covers everything below it; a file, itself.
pub const PATHS: &[&str] = &[
    ".orchestration/",
    ".hookwise/",
    ".opencode/hookwise.json",
    ".opencode/sops/",
    ".opencode/plugin/",
    ".opencode/plugins/",
    "opencode.json",
    "opencode.jsonc",
    ".opencode/opencode.json",
    ".opencode/opencode.jsonc",
    "kilo.json",
    "kilo.jsonc",
    ".kilo/kilo.json",
    ".kilo/kilo.jsonc",
    ".kilo/plugin/",
    ".kilo/plugins/",
    ".kilocode/",
    ".cline/plugins/",
    ".cline/hooks/",
    ".clinerules/hooks/",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".mcp.json",
    ".codex/",
    ".gemini/settings.json",
    ".qwen/settings.json",
    ".github/hooks/",
    ".pi/settings.json",
    // Kimi Code's project MCP file, Mistral Vibe's hooks and config, OpenHands' hooks
    ".kimi-code/",
    ".vibe/",
    ".openhands/",
    "node_modules/hookwise/",
    "node_modules/.bin/hookwise",
];

/// Whether `rel` (a path relative to the project, `/`-separated, already normalised) is a
/// governance path, or one of `extra` folders (the project's configured SOP folders).
pub fn is_protected(rel: &str, extra: &[String]) -> bool {
    let rel = rel.trim_start_matches("./");
    let lower = rel.to_ascii_lowercase();
    let under = |p: &str| {
        let p = p.to_ascii_lowercase();
        match p.strip_suffix('/') {
            Some(dir) => lower == dir || lower.starts_with(&p),
            None => lower == p,
        }
    };
    PATHS.iter().any(|p| under(p))
        || extra
            .iter()
            .map(|e| format!("{}/", e.trim_start_matches("./").trim_end_matches('/')))
            .any(|e| e != "/" && under(&e))
}

/// Names in a command line that reach a governance path, in the shell reader's spelling
/// (lower case): what a shell command may not name under governance or enforcement.
pub const NAMES: &[&str] = &[
    ".hookwise",
    "hookwise.json",
    "opencode.json",
    "kilo.json",
    "node_modules/hookwise",
    "node_modules/.bin/hookwise",
    "sops",
    ".mcp.json",
    ".claude",
    ".gemini",
    ".qwen",
    ".pi/settings.json",
    ".github/hooks",
    ".codex",
    ".cline",
    ".clinerules",
    ".kilo",
    ".kilocode",
    ".kimi-code",
    ".vibe",
    ".openhands",
];

/// The name through which a command line names a governance path beyond `.orchestration/`
/// (which [`super::ops::guard`] reads for), if it does: whole path components, so `sopsy` or
/// `my-settings.json.bak` are not it, `.hookwise/sops/x.md` and `rm -r sops` are.
pub fn names_protected(line: &str) -> Option<&'static str> {
    let lower = line.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let edge = |b: u8| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    NAMES.iter().copied().find(|n| {
        let mut from = 0;
        while let Some(i) = lower[from..].find(n) {
            let s = from + i;
            let e = s + n.len();
            let before = s == 0 || edge(bytes[s - 1]) || bytes[s - 1] == b'/';
            let after = e == bytes.len() || edge(bytes[e]) || bytes[e] == b'/';
            if before && after {
                return true;
            }
            from = s + 1;
        }
        false
    })
}

/// The model's sentence for a change to governance paths (`what`: the paths, quoted).
pub fn block(tool: &str, what: &str) -> String {
    format!(
        "hookwise blocked `{tool}`: {what} decides hookwise's policy (its configuration, SOPs, intents, trace, install, or the agent's settings that load it); no tool may change it while governance or enforcement is on. Only the user changes it, outside the agent: ask them if it needs to change."
    )
}

/// The sentence for a shell command that names one.
pub fn shell_block(tool: &str, name: &str) -> String {
    format!(
        "hookwise blocked `{tool}`: the command names `{name}`, a path that decides hookwise's policy (its configuration, SOPs, intents, trace, install, or the agent's settings that load it). Shell commands may not touch it, not even to read it, while governance or enforcement is on: read it with the read tool; only the user changes it."
    )
}

/// Enforcement's own first check (enforcement-only projects too): a call of `tool` that
/// writes a governance path, or a shell command that names one, is blocked whatever the SOPs
/// say. `root`: the project; `dir`: where relative paths start (empty: the root);
/// `sop_folders`: the project's configured SOP folders. Checked by reading: the paths as the
/// host's profile reads them (lexically: `..` folded), the command as the shell reader sees it.
pub fn enforcement_block(
    host: &crate::host::Profile,
    tool: &str,
    args: &serde_json::Value,
    root: &str,
    dir: &str,
    sop_folders: &[String],
) -> Option<String> {
    use crate::host::Role;
    let entry = host.entry(tool);
    match entry.role {
        Role::Shell => {
            let lines = crate::host::args::command_lines(host, tool, args)?;
            lines.iter().find_map(|l| {
                super::ops::guard::names_governance(l)
                    .or_else(|| names_protected(l).map(|n| format!("`{n}`")))
                    .map(|n| shell_block(tool, n.trim_matches('`')))
            })
        }
        Role::Write | Role::Edit | Role::Patch => {
            let targets = super::gate::targets(host, tool, args).ok()?;
            let base = if dir.is_empty() { root } else { dir };
            let hit: Vec<String> = targets
                .iter()
                .filter_map(|t| {
                    let abs = crate::paths::normalize(&crate::paths::join(base, &t.path));
                    let rel = crate::paths::relative(&abs, root)?.to_string();
                    is_protected(&rel, sop_folders).then(|| format!("`{rel}`"))
                })
                .collect();
            (!hit.is_empty()).then(|| block(tool, &hit.join(", ")))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_governance_path_in_any_case_and_nothing_beside_it() {
        for p in [
            ".hookwise/hookwise.json",
            ".HOOKWISE/sops/deploy.md",
            ".hookwise",
            "./.hookwise/state.json",
            ".opencode/hookwise.json",
            ".opencode/sops/x.md",
            "opencode.json",
            "OpenCode.jsonc",
            ".orchestration/active_intents.yaml",
            "node_modules/hookwise/dist/cli.mjs",
            "node_modules/.bin/hookwise",
            ".kilo/plugin/hookwise.js",
            ".cline/plugins/hookwise.js",
            ".claude/settings.json",
            ".codex/hooks.json",
            ".codex/config.toml",
            ".gemini/settings.json",
            ".qwen/settings.json",
            ".github/hooks/hookwise.json",
            ".pi/settings.json",
            ".mcp.json",
            ".kimi-code/mcp.json",
            ".vibe/hooks.toml",
            ".openhands/hooks.json",
            "ops/sops/deploy.md",
        ] {
            assert!(is_protected(p, &["ops/sops".into()]), "{p}");
        }
        for p in [
            "src/.hookwise.md",
            "docs/opencode.json.md",
            "node_modules/hookwise-other/x.js",
            "src/hookwise/a.rs",
            "ops/sopsy/x.md",
            ".github/workflows/ci.yml",
            ".gemini/notes.md",
            "README.md",
        ] {
            assert!(!is_protected(p, &["ops/sops".into(), "".into()]), "{p}");
        }
    }

    #[test]
    fn a_command_that_names_one_in_the_attackers_spellings() {
        for line in [
            r#"echo '{"enforcement":{"bypass":true}}' > .hookwise/hookwise.json"#,
            "rm .hookwise/sops/deploy.md",
            "cd .hookwise && rm -r sops",
            "python3 -c \"open('.opencode/hookwise.json','w').write('{}')\"",
            "sed -i s/hookwise// opencode.json",
            "rm -rf node_modules/hookwise",
            "cp /tmp/x .claude/settings.json",
            "cat > .codex/hooks.json",
        ] {
            assert!(names_protected(line).is_some(), "{line}");
        }
        for line in ["ls src", "npm test", "cat sopsy.txt", "git status", "echo settings.jsonl"] {
            assert_eq!(names_protected(line), None, "{line}");
        }
    }
}

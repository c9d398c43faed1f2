use super::*;

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
fn scope_patterns_become_the_narrowest_roots() {
    assert_eq!(root_of("src/**"), Some(("src".into(), true)));
    assert_eq!(root_of("src/**/*.rs"), Some(("src".into(), true)));
    assert_eq!(root_of("./docs/"), Some(("docs".into(), true)));
    assert_eq!(root_of("README.md"), Some(("README.md".into(), false)));
    assert_eq!(root_of("*.md"), Some(("".into(), true)));
    assert_eq!(root_of("**"), Some(("".into(), true)));
    assert_eq!(root_of("src/{a,b}/x"), Some(("src".into(), true)));
    assert_eq!(root_of("!src/secret/**"), None);
    assert_eq!(root_of("../x"), None);
    assert_eq!(
        roots(&s(&["src/**", "src/lib/**", "docs/a.md", "!src/x/**"])),
        vec![("docs/a.md".into(), false), ("src".into(), true)]
    );
    // a whole-project pattern covers everything else
    assert_eq!(roots(&s(&["src/**", "**/*.md"])), vec![("".into(), true)]);
}

#[test]
fn the_command_is_quoted_whole() {
    let w = wrap(
        "/opt/hw/bin/hookwise-native",
        &s(&["--write", "/p/it's"]),
        "echo 'a' && rm -rf x; `id` $(id)",
    );
    assert_eq!(
        w,
        "'/opt/hw/bin/hookwise-native' sandbox '--write' '/p/it'\\''s' -- \"${BASH:-/bin/sh}\" -c 'echo '\\''a'\\'' && rm -rf x; `id` $(id)'"
    );
    // read back: the call is keyed by what the model asked for (Gemini CLI, Copilot CLI)
    assert_eq!(unwrap(&w).as_deref(), Some("echo 'a' && rm -rf x; `id` $(id)"));
    for c in ["", "'", "''", "a'\\''b", "x -- \"${BASH:-/bin/sh}\" -c 'y'"] {
        assert_eq!(unwrap(&wrap("/b", &s(&["--tmpdir"]), c)).as_deref(), Some(c), "{c}");
    }
}

#[test]
fn launcher_args_deny_governance_and_take_the_users_folders_only() {
    let mut env = std::collections::BTreeMap::new();
    env.insert("HOME".to_string(), "/home/u".to_string());
    env.insert("TMPDIR".to_string(), "/tmp/u".to_string());
    env.insert(
        "HOOKWISE_SANDBOX_WRITABLE".to_string(),
        "/opt/go:relative:/srv/x".to_string(),
    );
    let launcher = serde_json::json!({"binary": "/i/bin/hookwise-native", "platform": "linux", "install": ["/p/node_modules/hookwise"], "runtime": ["/tmp/hookwise-0"]});
    let setup = Setup::new(&launcher, &env);
    let a = launcher_args(&setup, "/p", &s(&["src/**", "README.md"]), false);
    let pairs: Vec<(String, String)> = a
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| (c[0].clone(), c[1].clone()))
        .collect();
    let has = |k: &str, v: &str| pairs.iter().any(|(a, b)| a == k && b == v);
    assert!(has("--project", "/p"));
    assert!(has("--write-dir", "/p/src"));
    assert!(has("--write", "/p/README.md"));
    assert!(has("--build", "/p/target"));
    for d in [
        "/tmp/u",
        "/home/u/.cache",
        "/home/u/.npm",
        "/home/u/.cargo/registry",
        "/opt/go",
        "/srv/x",
    ] {
        assert!(has("--scratch", d), "{d}");
    }
    assert!(!a.iter().any(|x| x == "relative"));
    for d in GOVERNANCE_PATHS {
        assert!(has("--deny", &format!("/p/{d}")), "{d}");
    }
    for d in [
        "/p/node_modules/hookwise",
        "/tmp/hookwise-0",
        "/home/u/.cache/opencode",
    ] {
        assert!(has("--deny", d), "{d}");
    }
    assert_eq!(a.last().map(String::as_str), Some("--tmpdir"));
    // the user can drop the defaults
    env.insert("HOOKWISE_SANDBOX_DEFAULTS".to_string(), "0".to_string());
    let setup = Setup::new(&launcher, &env);
    assert_eq!(setup.scratch, s(&["/opt/go", "/srv/x"]));
}

#[test]
fn every_host_but_qwen_kimi_and_openhands_can_rewrite() {
    for h in crate::hosts::ALL {
        let no_rewrite = ["qwen", "kimi", "openhands"].contains(&h.id);
        assert_eq!(can_rewrite(h), !no_rewrite, "{}", h.id);
    }
}

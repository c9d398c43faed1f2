//! Unit tests of [`super`], kept in their own file (moved verbatim from the module).

use super::*;
use crate::enforce::config::Settings;
use crate::enforce::extract::{extract, Situation};
use serde_json::json;

fn sections() -> Vec<String> {
    Settings::default().sections
}

const MD: &str = "---\nid: git-force-push\ncategory: process\npriority: 5\nmatch:\n  tools: [bash]\n  patterns: ['git\\s+push\\s.*(--force|-f\\b)']\n  keywords: [force push]\n---\n# Force-pushing shared branches\n\nIntro text.\n\n## Pre-flight checks\n1. Tell the team.\n2. `git fetch` first.\n\n### Detail\nnested stays in\n\n## Rollback\nUse the reflog.\n\n## Unrelated\nnot shown\n\n```sh\n## not a heading\n```\n";

#[test]
fn markdown_with_front_matter() {
    let (sop, warnings) = parse(".opencode/sops/git/force.md", MD, &sections()).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(sop.id, "git-force-push");
    assert_eq!(sop.title, "Force-pushing shared branches");
    assert_eq!(sop.category, Category::Process);
    assert_eq!(sop.priority, 5);
    assert_eq!(sop.sections.len(), 2);
    assert_eq!(sop.sections[0].name, "preflight");
    assert!(sop.sections[0]
        .text
        .starts_with("## Pre-flight checks\n1. Tell the team."));
    assert!(sop.sections[0].text.contains("nested stays in"));
    assert!(!sop.sections[0].text.contains("Use the reflog"));
    assert_eq!(sop.sections[1].text, "## Rollback\nUse the reflog.");
    assert!(!sop.body().contains("not shown"));
}

#[test]
fn markdown_fallback_excerpt_and_own_sections() {
    let long = format!(
        "---\nkeywords: deploy\nsections: [Verification]\n---\n{}",
        "x".repeat(3000)
    );
    let (sop, _) = parse("sops/deploy.md", &long, &sections()).unwrap();
    assert!(sop.sections.is_empty());
    assert_eq!(
        sop.body().chars().count(),
        EXCERPT_CHARS + 1,
        "1500 chars and an ellipsis"
    );
    assert_eq!(sop.id, "deploy");
    assert_eq!(sop.matcher.keywords, vec!["deploy"]);
    let (sop, _) = parse(
            "sops/v.md",
            "---\nkeywords: [deploy]\nsections: [verification]\n---\n## Verification\ncurl /health\n## Preflight\nno\n",
            &sections(),
        )
        .unwrap();
    assert_eq!(sop.body(), "## Verification\ncurl /health");
}

const YAML: &str = r#"
meta:
  id: nginx-restart
  name: Restarting nginx
  category: security
  service: nginx
  priority: 3
preflight:
  - id: config-test
    action: Test the configuration
    command: nginx -t
    check: "syntax is ok"
    reason: A bad config takes every site down
  - id: notify
    action: Post in the ops channel
hosts:
  - name: web1.prod.example.com
    role: primary
  - 10.0.0.7
commands:
  - systemctl reload nginx
  - cmd: nginx -s reload
gotchas:
  - reload, not restart, keeps connections
credentials:
  vault: secret/ops/nginx
rollback: |
  Restore /etc/nginx from the last backup.
"#;

#[test]
fn yaml_ai_sop() {
    let (sop, _) = parse(".opencode/sops/nginx.ai.sop", YAML, &sections()).unwrap();
    assert_eq!(sop.id, "nginx-restart");
    assert_eq!(sop.title, "Restarting nginx");
    assert_eq!(sop.category, Category::Security);
    assert_eq!(sop.matcher.services, vec!["nginx"]);
    assert_eq!(sop.matcher.hosts, vec!["web1.prod.example.com", "10.0.0.7"]);
    assert_eq!(
        sop.matcher.commands,
        vec![
            vec!["systemctl".to_string(), "reload".into()],
            vec!["nginx".to_string()]
        ]
    );
    let names: Vec<&str> = sop.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["preflight", "gotchas", "credentials", "rollback"]
    );
    let pre = &sop.sections[0].text;
    assert!(pre.starts_with("### Preflight\n1. [config-test] Test the configuration\n   run: nginx -t\n   check: syntax is ok\n   why: A bad config"), "{pre}");
    assert!(pre.contains("2. [notify] Post in the ops channel"));
    assert_eq!(
        sop.sections[1].text,
        "### Gotchas\n- reload, not restart, keeps connections"
    );
    assert_eq!(
        sop.sections[2].text,
        "### Credentials\nvault: secret/ops/nginx"
    );
    assert!(sop.sections[3].text.contains("Restore /etc/nginx"));
}

#[test]
fn broken_sops_name_the_problem() {
    let cases: &[(&str, &str, &str)] = &[
        ("a.md", "", "empty"),
        ("a.md", "# Just notes\n", "no front matter"),
        ("a.md", "---\nkeywords: [x]\n", "not closed"),
        ("a.md", "---\nkeywords: [x\n---\nbody", "not valid YAML"),
        ("a.md", "---\ntitle: t\n---\nbody", "no match rules"),
        (
            "a.md",
            "---\npatterns: ['(oops']\n---\n",
            "pattern 1 ('(oops') is not a valid regex",
        ),
        (
            "a.md",
            "---\nkeywords: {a: 1}\n---\n",
            "'keywords' must be a list of strings",
        ),
        (
            "a.md",
            "---\n- a\n- b\n---\n",
            "must be a mapping, not a list",
        ),
        (
            "a.md",
            "---\nkeywords: x\npriority: high\n---\n",
            "'priority' must be an integer",
        ),
        (
            "a.md",
            "---\nkeywords: x\nminRisk: huge\n---\n",
            "'minRisk' must be",
        ),
        ("b.ai.sop", "meta: [1]\n", "'meta' must be a mapping"),
        ("b.ai.sop", "meta:\n  id: x\n  bad: [\n", "not valid YAML"),
        (
            "b.ai.sop",
            "meta:\n  id: x\ngotchas: [a]\n",
            "no match rules",
        ),
        ("b.ai.sop", "just a string", "must be a mapping"),
    ];
    for (path, text, want) in cases {
        let e = parse(path, text, &sections())
            .err()
            .unwrap_or_else(|| panic!("{path}: {text:?} parsed"));
        assert!(e.contains(want), "{text:?}: {e}");
    }
}

#[test]
fn unknown_category_warns_and_folder_categories() {
    let (sop, w) = parse(
        "s.md",
        "---\nkeywords: x\ncategory: spicy\n---\n",
        &sections(),
    )
    .unwrap();
    assert_eq!(sop.category, Category::General);
    assert!(w[0].contains("spicy"));
    let (sop, _) = parse(
        ".opencode/sops/gotchas/s.md",
        "---\nkeywords: x\n---\n",
        &sections(),
    )
    .unwrap();
    assert_eq!(sop.category, Category::Gotchas);
    let (sop, _) = parse(
        "s.ai.sop",
        "meta:\n  keywords: [x]\n  tags: [infra, credentials]\n",
        &sections(),
    )
    .unwrap();
    assert_eq!(sop.category, Category::Credentials);
}

fn ctx(cmd: &str) -> ActionContext {
    extract(
        "bash",
        &json!({ "command": cmd }),
        &Situation {
            cwd: "/w/shop",
            worktree: "shop",
        },
        &Settings::default().rules,
    )
}

#[test]
fn matching_and_confidence() {
    let md = Rc::new(parse("sops/force.md", MD, &sections()).unwrap().0);
    let y = Rc::new(parse("sops/nginx.ai.sop", YAML, &sections()).unwrap().0);
    let m = |sop: &Rc<Sop>, c: &str| {
        let cx = ctx(c);
        match_sop(sop, &cx, &cx.haystack.to_lowercase()).map(|m| (m.confidence, m.why))
    };
    assert_eq!(m(&md, "git push --force origin main").unwrap().0, 1.0);
    assert_eq!(m(&md, "git push -f").unwrap().0, 1.0);
    assert!(m(&md, "git push origin main").is_none());
    assert_eq!(
        m(&md, "echo about to force push && git push").unwrap().0,
        0.5
    );
    // a quoted argument of a program that does not run it is data, not a command
    assert!(m(&md, "echo 'about to force push' && git push").is_none());
    assert!(m(&md, "git commit -m \"never git push --force to main\"").is_none());
    assert!(m(&md, "git commit -m 'x' && git push --force").is_some());
    assert!(m(&md, "bash -c \"git commit -m 'never git push --force'\"").is_none());
    assert!(
        m(&md, "echo 'git push --force' | sh").is_some(),
        "sh runs its input"
    );
    assert!(m(&md, "echo forcepush").is_none(), "whole words only");
    assert_eq!(m(&y, "sudo systemctl reload nginx").unwrap().0, 0.95);
    assert_eq!(
        m(&y, "ssh admin@web1.prod.example.com uptime").unwrap().0,
        0.9
    );
    let (c, why) = m(&y, "cat /etc/nginx/nginx.conf | grep server > out").unwrap();
    assert_eq!((c, why.as_str()), (0.8, "service nginx"));
    // tool filter
    let cx = extract(
        "write",
        &json!({"content": "git push --force"}),
        &Situation::default(),
        &Settings::default().rules,
    );
    assert!(match_sop(&md, &cx, &cx.haystack.to_lowercase()).is_none());
}

#[test]
fn filters_and_wildcards() {
    let sop = Rc::new(
        parse(
            "s.md",
            "---\nmatch:\n  hosts: ['*.example.com']\n  projects: [shop]\n  minRisk: high\n---\n",
            &sections(),
        )
        .unwrap()
        .0,
    );
    let m = |c: &str| {
        let cx = ctx(c);
        match_sop(&sop, &cx, &cx.haystack.to_lowercase()).is_some()
    };
    assert!(
        m("ssh db.prod.example.com"),
        "a production host makes it high"
    );
    assert!(!m("ssh db.staging.example.com"), "medium: below minRisk");
    assert!(!m("ssh db.prod.example.org"), "host does not match");
    assert!(
        !m("cd /x/Projects/other && ssh db.prod.example.com"),
        "another project"
    );
    assert!(host_matches("web-*.example.com", "web-3.example.com"));
    assert!(!host_matches("web-*.example.com", "db-3.example.com"));
    assert!(contains_word("a force push b", "force push"));
    assert!(!contains_word("forces", "force"));
    assert!(contains_word("x --force", "--force"));
}

//! SOP files as an attacker would write them: deep YAML, aliases, huge files, endless section
//! lists. Each such SOP is skipped with the reason in the log; the others keep working.

use super::*;
use crate::enforce::config::Settings;
use crate::enforce::tests::Host;

fn sections() -> Vec<String> {
    vec!["preflight".into(), "rollback".into()]
}

#[test]
fn deep_front_matter_is_refused_at_the_files_line() {
    let md = format!(
        "---\nkeywords: [deploy]\nmatch:\n  patterns: {}\n---\n# Body\n",
        "[".repeat(100_000)
    );
    let e = parse("sops/a.md", &md, &sections()).unwrap_err();
    assert_eq!(e, "the front matter nests deeper than 64 levels at line 4");
    let flow_maps = format!("---\nkeywords: [x]\nmeta: {}\n---\n", "{a: ".repeat(70));
    assert!(parse("sops/b.md", &flow_maps, &sections())
        .unwrap_err()
        .contains("deeper than 64"));
}

#[test]
fn deep_yaml_sops_are_refused() {
    let text = format!(
        "meta:\n  service: nginx\npreflight:\n{}",
        (0..70)
            .map(|i| format!("{}- k{i}:\n", "  ".repeat(i + 1)))
            .collect::<String>()
    );
    let e = parse("sops/n.ai.sop", &text, &sections()).unwrap_err();
    assert!(
        e.starts_with("it nests deeper than 64 levels at line"),
        "{e}"
    );
}

#[test]
fn alias_bombs_are_refused() {
    let mut fm = String::from("keywords: [deploy]\nl0: &l0 [a, a, a, a, a, a, a, a, a, a]\n");
    for i in 1..9 {
        let prev = vec![format!("*l{}", i - 1); 10].join(", ");
        fm.push_str(&format!("l{i}: &l{i} [{prev}]\n"));
    }
    let e = parse("sops/a.md", &format!("---\n{fm}---\n"), &sections()).unwrap_err();
    assert!(
        e.starts_with("the front matter expands through its YAML aliases"),
        "{e}"
    );
    let e = parse(
        "sops/a.sop.yaml",
        &format!("meta:\n  service: x\n{fm}"),
        &sections(),
    )
    .unwrap_err();
    assert!(e.starts_with("it expands through its YAML aliases"), "{e}");
}

#[test]
fn brackets_in_quotes_and_block_scalars_are_not_depth() {
    let md = format!(
        "---\nmatch:\n  patterns: ['git\\s+push\\s+\\[x\\]']\n  keywords: [\"{0}\", '{0}'] # {0}\nnote: |\n  {0}\n---\n## Preflight\n{0}\n",
        "[[{{".repeat(200)
    );
    let (sop, _) = parse("sops/a.md", &md, &sections()).unwrap();
    assert_eq!(sop.matcher.patterns.len(), 1);
    assert_eq!(sop.sections.len(), 1);
}

#[test]
fn section_lists_are_capped_and_keys_found_once() {
    // 8,000 section names and 8,000 keys: at most 64 names are looked up
    let names: Vec<String> = (0..8_000).map(|i| format!("s{i}")).collect();
    let mut text = format!(
        "meta:\n  service: nginx\n  sections: [{}]\n",
        names.join(", ")
    );
    for i in 0..8_000 {
        text.push_str(&format!("s{i}: step {i}\n"));
    }
    let (sop, warnings) = parse("sops/n.ai.sop", &text, &sections()).unwrap();
    assert_eq!(sop.sections.len(), MAX_SECTIONS);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("8000 sections; only the first 64")),
        "{warnings:?}"
    );
    // the same heading asked for again and again is shown once
    let md = format!(
        "---\nkeywords: [x]\nsections: [{}]\n---\n## Preflight\nstep\n",
        vec!["preflight"; 64].join(", ")
    );
    let (sop, _) = parse("sops/a.md", &md, &sections()).unwrap();
    assert_eq!(sop.sections.len(), 1);
}

#[test]
fn oversized_and_unreadable_sops_are_skipped_with_the_limit() {
    let good = "---\nkeywords: [deploy]\n---\n# Deploy\n";
    let mut h = Host::new();
    h.file(".opencode/sops/good.md", good);
    let big = format!("---\nkeywords: [x]\n---\n{}", "x".repeat(300 * 1024));
    h.file(".opencode/sops/big.md", &big);
    let (e, logs) = h.start(Settings::default(), &[], None);
    assert!(
        logs.iter().any(|l| l.message
            == "SOP .opencode/sops/big.md skipped: it is 301 KiB, over the 256 KiB limit"),
        "{logs:?}"
    );
    assert_eq!(e.sop_cache().borrow().len(), 1, "the good one");
    // a host that says too-large on reading (the file grew after the listing)
    let mut h = Host::new();
    h.file(".opencode/sops/good.md", good);
    h.faults.read_error = Some("too-large".into());
    let (_, logs) = h.start(Settings::default(), &[], None);
    assert!(
        logs.iter().any(
            |l| l.message == "SOP .opencode/sops/good.md skipped: it is over the 256 KiB limit"
        ),
        "{logs:?}"
    );
}

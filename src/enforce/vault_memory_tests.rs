//! Vault notes as enforcement's memory source (policy build): calibrated matches, and
//! refreshes cut off by the deadline.

use serde_json::json;

use super::*;

/// A vault of notes (`rel` → text) at `/w/vault`, as a memory source.
fn vault_source(h: &mut Host, notes: &[(&str, &str)]) -> MemorySource {
    for (rel, text) in notes {
        let t = h.now;
        h.file_at(&format!("/w/vault/{rel}"), text, t);
    }
    let clock = std::rc::Rc::new(std::cell::Cell::new(h.now as u64));
    MemorySource::Vault(std::rc::Rc::new(crate::knowledge::VaultIndex::new(
        "/w/vault".into(),
        clock,
        2000,
    )))
}

/// Notes a team might keep, so idf has something to weigh against.
const VAULT_NOTES: &[(&str, &str)] = &[
    (
        "process/force-push.md",
        "---\ntitle: Never force push to main\n---\n# Never force push to main\n\nA `git push --force` to main rewrites history others built on (VAULT-FORCE-MARKER). Use --force-with-lease on your own branches, and announce it first.\n",
    ),
    (
        "notes/git-aliases.md",
        "# Shell aliases\n\nWe alias st to status and co to checkout in git, and keep the prompt short. Editors: vim or helix, tabs are four spaces. The CI runs on every branch.\n",
    ),
    (
        "ops/docker.md",
        "# Docker\n\nImages are built by CI; never `docker compose down -v` on a shared host, volumes hold the databases.\n",
    ),
    (
        "security/tokens.md",
        "---\ntags: [credentials]\n---\n# Deploy tokens\n\nTokens live in the vault under secret/deploy; rotate them monthly.\n",
    ),
    ("notes/nginx.md", "# nginx\n\nReload keeps connections; restart drops them.\n"),
    ("notes/release.md", "# Releases\n\nTag, build, publish the changelog, then deploy the canary.\n"),
];

#[test]
fn vault_memories_are_calibrated_a_strong_match_blocks_a_weak_one_does_not() {
    let mut h = Host::new();
    let mem = vault_source(&mut h, VAULT_NOTES);
    let (e, _) = h.start(Settings::default(), &[], Some(mem));

    // strong: the note about exactly this action, in a process folder (strict by default)
    let (d, _) = h.before(&e, "bash", bash("git push --force origin main"));
    assert_eq!(d["decision"], "block", "{d:#}");
    assert_eq!(d["categories"], json!(["process"]));
    let block = d["block"].as_str().unwrap();
    assert!(block.contains("VAULT-FORCE-MARKER"), "{block}");
    assert!(block.contains("Never force push to main"), "{block}");

    // the memories' confidences, as the engine sees them
    let strong = vault_search(&mut h, &e, "git push --force origin main");
    let top = &strong[0];
    assert_eq!(top.uri, "memory://process/force-push");
    assert_eq!(top.category, Category::Process);
    assert!(
        top.confidence >= Settings::default().thresholds.strict,
        "{strong:#?}"
    );
    // the aliases note mentions git once in passing: weak, far below a block
    let aliases = strong
        .iter()
        .find(|m| m.uri == "memory://notes/git-aliases");
    assert!(
        aliases.is_none_or(|m| m.confidence < Settings::default().thresholds.advisory),
        "{strong:#?}"
    );

    // weak: a push that is not forced, to another branch — the force-push note shares only
    // part of the query: below the strict threshold, so no block
    let weak = vault_search(&mut h, &e, "git push origin feature/login");
    let note = weak
        .iter()
        .find(|m| m.uri == "memory://process/force-push")
        .expect("still found");
    assert!(
        note.confidence < Settings::default().thresholds.strict,
        "{weak:#?}"
    );
    assert!(note.confidence < top.confidence);
    let (d, _) = h.before(&e, "bash", bash("git push origin feature/login"));
    assert_ne!(d["decision"], "block", "{d:#}");

    // tags win over folders: security/tokens.md is tagged credentials
    let t = vault_search(&mut h, &e, "rotate deploy tokens secret");
    assert_eq!(t[0].category, Category::Credentials, "{t:#?}");
}

/// What the engine's memory source returns for a command's keywords.
fn vault_search(h: &mut Host, e: &Enforcer, cmd: &str) -> Vec<Memory> {
    let ctx = extract::extract(
        "bash",
        &bash(cmd),
        &extract::Situation {
            cwd: ROOT,
            worktree: "shop",
        },
        &e.settings().rules,
    );
    let src = e.inner.memory.borrow().clone().unwrap();
    let q = memory::MemoryQuery {
        keywords: ctx.keywords,
        mode: "Hybrid".into(),
        max_results: 6,
    };
    let slot = std::rc::Rc::new(RefCell::new(Vec::new()));
    let s2 = slot.clone();
    h.run(move |io| async move {
        *s2.borrow_mut() = src.search(&io, &q).await.unwrap();
        Value::Null
    });
    let out = slot.borrow().clone();
    out
}

#[test]
fn a_vault_refresh_cut_off_by_the_deadline_does_not_stop_later_refreshes() {
    let mut h = Host::new();
    let mem = vault_source(&mut h, VAULT_NOTES);
    let s = Settings {
        sop_refresh_ms: 600_000,
        ..Settings::default()
    };
    let (e, _) = h.start(s, &[], Some(mem));
    // the vault's listing hangs: the memory search is cut off at the deadline
    h.faults.hang_list = true;
    let (d, took) = h.before(&e, "bash", bash("git push --force origin main"));
    assert_eq!(d["timedOut"], true, "{d:#}");
    assert_eq!(d["decision"], "allow");
    assert!(took <= 150.0 + 1e-9);
    // the folder answers again: the next lookup refreshes the index and finds the note
    h.faults.hang_list = false;
    h.now += 5000.0;
    let (d, _) = h.before(&e, "bash", bash("git push --force origin main"));
    assert_eq!(d["decision"], "block", "{d:#}");
    assert!(d["block"].as_str().unwrap().contains("VAULT-FORCE-MARKER"));
}

//! Decision latency, measured natively:
//! `cargo test --release --lib enforce::bench -- --ignored --nocapture`.
//!
//! 50 cached SOPs (markdown and YAML, patterns, keywords, services, hosts, commands), a mix of
//! real-looking commands. "Core" is the wall time of one `tool.before` operation driven by the
//! scripted host (the host answers at once, so this is the core's own work plus the host
//! shim); "lookup" is host time on the virtual clock, i.e. what a knowledge source of the
//! given latency costs under the deadline.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::json;

use super::memory::{Memory, MemorySource};
use super::metrics::percentile;
use super::tests::Host;
use super::*;

fn sop_files(h: &mut Host) {
    for i in 0..50 {
        match i % 5 {
            0 => h.file(
                &format!(".opencode/sops/md/p{i}.md"),
                &format!("---\nid: p{i}\ncategory: process\nmatch:\n  patterns: ['^svc{i}\\s+(deploy|rollback)\\b', 'release-{i}']\n---\n# P{i}\n## Preflight\n{}\n## Rollback\nundo {i}\n", "- check the dashboard\n".repeat(20)),
            ),
            1 => h.file(
                &format!(".opencode/sops/md/k{i}.md"),
                &format!("---\nid: k{i}\ncategory: gotchas\nkeywords: [widget{i}, 'cache flush {i}']\n---\n## Gotchas\nwatch out {i}\n"),
            ),
            2 => h.file(
                &format!(".opencode/sops/y{i}.ai.sop"),
                &format!("meta:\n  id: y{i}\n  category: security\n  service: svc{i}\nhosts:\n  - name: node{i}.prod.example.com\ncommands:\n  - svc{i}ctl restart\npreflight:\n  - id: a\n    action: drain node{i}\n    command: svc{i}ctl drain\n    reason: keep traffic\ngotchas:\n  - slow start\n"),
            ),
            3 => h.file(
                &format!(".opencode/sops/y{i}.ai.sop"),
                &format!("meta:\n  id: t{i}\n  category: technical\n  match:\n    tools: [bash]\n    patterns: ['make\\s+target{i}']\nrollback: revert {i}\n"),
            ),
            _ => h.file(
                &format!(".opencode/sops/md/s{i}.md"),
                &format!("---\nid: s{i}\ncategory: credentials\nmatch:\n  services: [svc{i}]\n  minRisk: high\n---\nUse the vault path secret/svc{i}.\n"),
            ),
        }
    }
    // the real ones
    h.file(".opencode/sops/git.md", super::tests::FORCE_SOP);
    h.file(".opencode/sops/nginx.ai.sop", super::tests::NGINX_SOP);
}

/// The benchmark's commands, one per line: shared with `scripts/bench-enforce.mjs`.
fn commands() -> Vec<&'static str> {
    include_str!("../../scripts/bench-enforce-commands.txt")
        .lines()
        .filter(|l| !l.is_empty())
        .collect()
}

fn run(label: &str, h: &mut Host, e: &Enforcer, n: usize) -> (f64, f64, f64, f64) {
    let commands = commands();
    let mut core = Vec::with_capacity(n);
    let mut lookup = Vec::with_capacity(n);
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..n {
        let cmd = commands[i % commands.len()];
        h.now += 37.0;
        let t = Instant::now();
        let (d, _) = h.before(e, "bash", json!({ "command": cmd }));
        core.push(t.elapsed().as_secs_f64() * 1000.0);
        lookup.push(d["lookupMs"].as_f64().unwrap());
        *kinds
            .entry(d["decision"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    core.sort_by(|a, b| a.partial_cmp(b).unwrap());
    lookup.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let r = (
        percentile(&core, 50.0),
        percentile(&core, 95.0),
        percentile(&lookup, 50.0),
        percentile(&lookup, 95.0),
    );
    println!(
        "{label:<46} core p50 {:>6.3} ms  p95 {:>6.3} ms | lookup p50 {:>6.1} ms  p95 {:>6.1} ms | {kinds:?}",
        r.0, r.1, r.2, r.3
    );
    r
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn decision_latency() {
    let n = 1500;
    println!("\n{} SOPs cached, {n} decisions over {} commands; reference design budget: 150 ms per call\n", 52, commands().len());

    // 1. cached SOPs, no memory lookup
    let mut h = Host::new();
    sop_files(&mut h);
    let s = Settings {
        sop_refresh_ms: 3_600_000,
        ..Settings::default()
    };
    let (e, _) = h.start(s.clone(), &[], None);
    assert_eq!(e.sop_cache().borrow().len(), 52);
    let (_, p95, _, lp95) = run("cached SOPs, no memory", &mut h, &e, n);
    assert_eq!(lp95, 0.0, "no lookup needed");
    if !cfg!(debug_assertions) {
        assert!(p95 <= 5.0, "p95 {p95} ms over the 5 ms target");
    }

    // 2. the folder listed on every call (52 entries, nothing re-read)
    let mut h = Host::new();
    sop_files(&mut h);
    let (e, _) = h.start(
        Settings {
            sop_refresh_ms: 0,
            ..Settings::default()
        },
        &[],
        None,
    );
    run("SOP folder listed every call", &mut h, &e, n);

    // 3. a 20 ms knowledge source
    let mems: Vec<Memory> = (0..40)
        .map(|i| Memory {
            title: format!("note {i} about git push and nginx"),
            uri: format!(
                "memory://{}/n{i}",
                ["security", "gotchas", "technical", "runbooks"][i % 4]
            ),
            snippet: "remember the thing".into(),
            confidence: 0.3 + (i % 7) as f64 / 10.0,
            category: [
                Category::Security,
                Category::Gotchas,
                Category::Technical,
                Category::Process,
            ][i % 4],
        })
        .collect();
    let mut h = Host::new();
    sop_files(&mut h);
    let (e, _) = h.start(
        s.clone(),
        &[],
        Some(MemorySource::Fixed {
            memories: mems.clone(),
            delay_ms: 20,
        }),
    );
    let (_, _, _, lp95) = run("cached SOPs + 20 ms memory source", &mut h, &e, n);
    assert!(lp95 <= 20.0 + 1e-9);

    // 4. a source slower than the deadline (the maenifold CLI starts in ~1.8 s)
    let mut h = Host::new();
    sop_files(&mut h);
    let (e, _) = h.start(
        s,
        &[],
        Some(MemorySource::Fixed {
            memories: mems,
            delay_ms: 1800,
        }),
    );
    let (_, _, _, lp95) = run("cached SOPs + 1800 ms source (deadline 150)", &mut h, &e, n);
    assert!(lp95 <= 150.0 + 1e-9, "never past the deadline");
}

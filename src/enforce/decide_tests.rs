//! The decision table, thresholds and cooldowns of [`super`].

use super::*;
use crate::enforce::extract::Risk;
use crate::enforce::sop::{Matcher, Sop};
use std::rc::Rc;

fn sop(id: &str, cat: Category, conf: f64) -> SopMatch {
    SopMatch {
        sop: Rc::new(Sop {
            id: id.into(),
            path: format!("sops/{id}.md"),
            title: id.into(),
            category: cat,
            priority: 0,
            matcher: Matcher::default(),
            sections: vec![],
            excerpt: "text".into(),
        }),
        confidence: conf,
        why: "test".into(),
    }
}

fn mem(cat: Category, conf: f64) -> Memory {
    Memory {
        title: "m".into(),
        uri: "memory://m".into(),
        snippet: "s".into(),
        confidence: conf,
        category: cat,
    }
}

const A: Call = Call {
    session: "s1",
    target: "sh:git push --force",
};

fn ctx(risk: Risk) -> ActionContext {
    ActionContext {
        tool: "bash".into(),
        project: Some("shop".into()),
        service: Some("git".into()),
        risk,
        ..Default::default()
    }
}

fn settings(level: Level) -> Settings {
    Settings {
        level,
        ..Settings::default()
    }
}

#[test]
fn decision_table() {
    use Action::*;
    use Category::*;
    // (global level, category, confidence, risk, expected)
    let table: &[(Level, Category, f64, Risk, Action)] = &[
        (Level::Disabled, Process, 1.0, Risk::Critical, Ignore),
        (Level::Advisory, Process, 1.0, Risk::Critical, Advise),
        (Level::Advisory, General, 0.29, Risk::Low, Ignore),
        (Level::Advisory, General, 0.3, Risk::Low, Advise),
        (Level::Strict, General, 0.5, Risk::Low, Block),
        (Level::Strict, General, 0.49, Risk::Low, Advise),
        (Level::Strict, Technical, 0.2, Risk::High, Ignore),
        // category level: per-category rules
        (Level::Category, Process, 0.5, Risk::Low, Block),
        (Level::Category, Security, 0.5, Risk::Low, Block),
        (Level::Category, Credentials, 0.49, Risk::Low, Advise),
        (Level::Category, Gotchas, 0.7, Risk::Medium, Block),
        (Level::Category, Gotchas, 0.7, Risk::Low, Advise),
        (Level::Category, Gotchas, 0.69, Risk::Critical, Advise),
        (Level::Category, Technical, 1.0, Risk::Critical, Advise),
        (Level::Category, General, 1.0, Risk::Critical, Advise),
        (Level::Category, General, 0.1, Risk::Critical, Ignore),
    ];
    for (level, cat, conf, risk, want) in table {
        let s = settings(*level);
        assert_eq!(
            classify(&s, *cat, *conf, &ctx(*risk)),
            *want,
            "{level:?} {cat:?} {conf} {risk:?}"
        );
    }
}

#[test]
fn thresholds_are_applied_as_configured() {
    let mut s = settings(Level::Strict);
    s.thresholds.strict = 0.9;
    s.thresholds.advisory = 0.6;
    assert_eq!(
        classify(&s, Category::Process, 0.85, &ctx(Risk::High)),
        Action::Advise
    );
    assert_eq!(
        classify(&s, Category::Process, 0.9, &ctx(Risk::High)),
        Action::Block
    );
    assert_eq!(
        classify(&s, Category::Process, 0.55, &ctx(Risk::High)),
        Action::Ignore
    );
    let mut s = settings(Level::Category);
    s.categories[Category::Technical as usize] = Level::Strict;
    s.categories[Category::Process as usize] = Level::Disabled;
    assert_eq!(
        classify(&s, Category::Technical, 0.6, &ctx(Risk::Low)),
        Action::Block
    );
    assert_eq!(
        classify(&s, Category::Process, 1.0, &ctx(Risk::Critical)),
        Action::Ignore
    );
    s.category_min_risk = Risk::Critical;
    assert_eq!(
        classify(&s, Category::Gotchas, 0.9, &ctx(Risk::High)),
        Action::Advise
    );
}

#[test]
fn block_then_retry_passes_then_blocks_again_after_the_window() {
    let s = settings(Level::Category);
    let mut st = CooldownState::default();
    let sops = [sop("force-push", Category::Process, 1.0)];
    let c = ctx(Risk::High);
    let d = |st: &mut CooldownState, now: f64| decide(&s, &c, &A, &sops, &[], false, st, now);
    assert_eq!(d(&mut st, 0.0).kind, Kind::Block);
    let v = d(&mut st, 5_000.0);
    assert_eq!((v.kind, v.cooldown_hit), (Kind::Acknowledged, true));
    assert_eq!(d(&mut st, 10_000.0).kind, Kind::Acknowledged);
    // past the window: blocked once more, then the retry passes again
    assert_eq!(d(&mut st, 700_000.0).kind, Kind::Block);
    assert_eq!(d(&mut st, 700_001.0).kind, Kind::Acknowledged);
    assert_eq!(st.cooldowns.values().next().unwrap().hits, 1);
}

#[test]
fn a_model_repeating_forever_is_never_blocked_twice_in_a_row() {
    let mut s = settings(Level::Strict);
    s.cooldown_ms = 0;
    let mut st = CooldownState::default();
    let sops = [sop("x", Category::General, 1.0)];
    let kinds: Vec<Kind> = (0..6)
        .map(|i| {
            decide(
                &s,
                &ctx(Risk::Low),
                &A,
                &sops,
                &[],
                false,
                &mut st,
                i as f64 * 1000.0,
            )
            .kind
        })
        .collect();
    assert!(
        kinds
            .windows(2)
            .all(|w| !(w[0] == Kind::Block && w[1] == Kind::Block)),
        "{kinds:?}"
    );
    assert_eq!(kinds[0], Kind::Block);
    assert_eq!(kinds[1], Kind::Acknowledged);
}

#[test]
fn keys_differ_by_sop_set_project_and_service() {
    let s = settings(Level::Category);
    let mut st = CooldownState::default();
    let a = [sop("a", Category::Process, 1.0)];
    let ab = [
        sop("a", Category::Process, 1.0),
        sop("b", Category::General, 0.4),
    ];
    assert_eq!(
        decide(&s, &ctx(Risk::High), &A, &a, &[], false, &mut st, 0.0).kind,
        Kind::Block
    );
    assert_eq!(
        decide(&s, &ctx(Risk::High), &A, &ab, &[], false, &mut st, 1.0).kind,
        Kind::Block,
        "another SOP set"
    );
    let mut other = ctx(Risk::High);
    other.project = Some("blog".into());
    assert_eq!(
        decide(&s, &other, &A, &a, &[], false, &mut st, 2.0).kind,
        Kind::Block
    );
    other.service = Some("docker".into());
    assert_eq!(
        decide(&s, &other, &A, &a, &[], false, &mut st, 3.0).kind,
        Kind::Block
    );
    let v = decide(&s, &ctx(Risk::High), &A, &a, &[], false, &mut st, 4.0);
    assert_eq!(v.kind, Kind::Acknowledged);
    let key = v.key.unwrap();
    assert!(key.starts_with("v2|block|bash|a|"), "{key}");
    assert_eq!(key.len(), "v2|block|bash|a|".len() + 32);
}

/// The key is the action: a block acknowledges a retry of the same target in the same
/// session, nothing else.
#[test]
fn a_block_acknowledges_only_the_same_action_in_the_same_session() {
    let s = settings(Level::Category);
    let mut st = CooldownState::default();
    let a = [sop("a", Category::Process, 1.0)];
    let c = ctx(Risk::High);
    let call = |session, target| Call { session, target };
    let d = |st: &mut CooldownState, k: Call, now| decide(&s, &c, &k, &a, &[], false, st, now);
    assert_eq!(d(&mut st, call("s1", "sh:x"), 0.0).kind, Kind::Block);
    assert_eq!(d(&mut st, call("s1", "sh:y"), 1.0).kind, Kind::Block);
    assert_eq!(d(&mut st, call("s2", "sh:x"), 2.0).kind, Kind::Block);
    assert_eq!(d(&mut st, call("", "sh:x"), 3.0).kind, Kind::Block);
    assert_eq!(d(&mut st, call("s1", "sh:x"), 4.0).kind, Kind::Acknowledged);
    assert_eq!(d(&mut st, call("s2", "sh:x"), 5.0).kind, Kind::Acknowledged);
    assert_eq!(d(&mut st, call("s1", "sh:y"), 6.0).kind, Kind::Acknowledged);
    // a session id that looks like the start of a target (no joining ambiguity)
    assert_eq!(d(&mut st, call("s1sh:", "x"), 7.0).kind, Kind::Block);
    assert_eq!(d(&mut st, call("s", "1sh:x"), 8.0).kind, Kind::Block);
    // a tool name with the key's separator reads as `_`, and is still another action
    let mut piped = ctx(Risk::High);
    piped.tool = "bash|x".into();
    let v = decide(
        &s,
        &piped,
        &call("s1", "sh:x"),
        &a,
        &[],
        false,
        &mut st,
        9.0,
    );
    assert_eq!(v.kind, Kind::Block);
    assert!(v.key.unwrap().starts_with("v2|block|bash_x|a|"));
    // a huge target costs a fixed-size key
    let big = "x".repeat(1 << 20);
    let v = decide(&s, &c, &call("s1", &big), &a, &[], false, &mut st, 10.0);
    assert!(v.key.unwrap().len() < 100);
}

/// Per-action keys let a model make many: the state stays bounded (oldest first), and a
/// dropped key only means one more block.
#[test]
fn many_actions_keep_the_state_bounded() {
    let s = settings(Level::Category);
    let mut st = CooldownState::default();
    let a = [sop("a", Category::Process, 1.0)];
    for i in 0..(MAX_COOLDOWNS + 200) {
        let target = format!("sh:git push --force origin b{i}");
        let call = Call {
            session: "s1",
            target: &target,
        };
        let v = decide(
            &s,
            &ctx(Risk::High),
            &call,
            &a,
            &[],
            false,
            &mut st,
            i as f64,
        );
        assert_eq!(v.kind, Kind::Block);
    }
    assert_eq!(st.cooldowns.len(), MAX_COOLDOWNS);
    assert!(st.to_json().len() < 150_000, "{}", st.to_json().len());
    let first = Call {
        session: "s1",
        target: "sh:git push --force origin b0",
    };
    let v = decide(
        &s,
        &ctx(Risk::High),
        &first,
        &a,
        &[],
        false,
        &mut st,
        2000.0,
    );
    assert_eq!(v.kind, Kind::Block, "the oldest was dropped: blocked again");
}

/// Advice is knowledge, not a gate: given once per window per SOP set and session,
/// whatever the target.
#[test]
fn advice_is_once_per_sop_set_and_session() {
    let s = settings(Level::Category);
    let mut st = CooldownState::default();
    let t = [sop("t", Category::Technical, 0.9)];
    let c = ctx(Risk::Medium);
    let d = |st: &mut CooldownState, k: Call, now| decide(&s, &c, &k, &t, &[], false, st, now);
    let k = |session, target| Call { session, target };
    assert_eq!(d(&mut st, k("s1", "sh:a"), 0.0).kind, Kind::Advise);
    let v = d(&mut st, k("s1", "sh:b"), 1.0);
    assert_eq!((v.kind, v.cooldown_hit), (Kind::Allow, true));
    assert_eq!(d(&mut st, k("s2", "sh:b"), 2.0).kind, Kind::Advise);
}

#[test]
fn bypass_passes_without_recording_a_cooldown() {
    let s = settings(Level::Strict);
    let mut st = CooldownState::default();
    let sops = [sop("a", Category::Security, 0.9)];
    let v = decide(&s, &ctx(Risk::High), &A, &sops, &[], true, &mut st, 0.0);
    assert_eq!(v.kind, Kind::Bypass);
    assert!(st.cooldowns.is_empty() && !v.state_changed);
}

#[test]
fn memories_block_by_category_and_advice_is_given_once_per_window() {
    let s = settings(Level::Category);
    let mut st = CooldownState::default();
    let mems = [mem(Category::Security, 0.8), mem(Category::Technical, 0.9)];
    let v = decide(&s, &ctx(Risk::Medium), &A, &[], &mems, false, &mut st, 0.0);
    assert_eq!(v.kind, Kind::Block);
    assert_eq!(v.sorted.block_memories, vec![0]);
    assert_eq!(v.sorted.advise_memories, vec![1]);
    assert!(v
        .key
        .as_deref()
        .unwrap()
        .starts_with("v2|block|bash|memories:security|"));

    let tech = [mem(Category::Technical, 0.9)];
    assert_eq!(
        decide(&s, &ctx(Risk::Medium), &A, &[], &tech, false, &mut st, 0.0).kind,
        Kind::Advise
    );
    let v = decide(&s, &ctx(Risk::Medium), &A, &[], &tech, false, &mut st, 1.0);
    assert_eq!((v.kind, v.cooldown_hit), (Kind::Allow, true));
    assert_eq!(
        decide(
            &s,
            &ctx(Risk::Medium),
            &A,
            &[],
            &tech,
            false,
            &mut st,
            600_001.0
        )
        .kind,
        Kind::Advise
    );
    assert_eq!(
        decide(&s, &ctx(Risk::Medium), &A, &[], &[], false, &mut st, 0.0).kind,
        Kind::Allow
    );
}

#[test]
fn state_round_trips_and_is_bounded() {
    let mut st = CooldownState::default();
    for i in 0..(MAX_COOLDOWNS + 50) {
        st.cooldowns.insert(
            format!("k{i}"),
            Cooldown {
                at: i as f64,
                acked: false,
                hits: 0,
            },
        );
    }
    st.metrics = ChainHead {
        seq: 3,
        hash: "ab".repeat(32),
    };
    st.prune(2000.0, 600_000);
    assert_eq!(st.cooldowns.len(), MAX_COOLDOWNS);
    assert!(!st.cooldowns.contains_key("k0"), "oldest dropped");
    let back = CooldownState::from_json(&st.to_json()).unwrap();
    assert_eq!(back, st);
    assert!(CooldownState::from_json("{\"version\":3}")
        .unwrap_err()
        .contains("version 3"));
    assert!(CooldownState::from_json("[]").is_err());
    // acked and out of the window: forgotten
    let mut st = CooldownState::default();
    st.cooldowns.insert(
        "old".into(),
        Cooldown {
            at: 0.0,
            acked: true,
            hits: 1,
        },
    );
    st.cooldowns.insert(
        "open".into(),
        Cooldown {
            at: 0.0,
            acked: false,
            hits: 0,
        },
    );
    st.prune(700_000.0, 600_000);
    assert_eq!(st.cooldowns.keys().collect::<Vec<_>>(), vec!["open"]);
}

/// A version-1 state file (cooldowns per tool, project, service and SOPs) keeps its
/// metrics head and loses its cooldowns: an old block acknowledges no new call.
#[test]
fn a_version_1_state_file_keeps_its_chain_head_and_drops_its_cooldowns() {
    let v1 = format!(
        "{{\"version\":1,\"cooldowns\":{{\"block|bash|shop|git|a\":{{\"at\":0,\"acked\":false,\"hits\":0}}}},\"metrics\":{{\"seq\":7,\"hash\":\"{}\"}}}}",
        "cd".repeat(32)
    );
    let mut st = CooldownState::from_json(&v1).unwrap();
    assert_eq!(st.version, STATE_VERSION);
    assert!(st.cooldowns.is_empty());
    assert_eq!(st.metrics.seq, 7);
    assert!(st.to_json().starts_with("{\"version\":2,"));
    let s = settings(Level::Category);
    let a = [sop("a", Category::Process, 1.0)];
    let v = decide(&s, &ctx(Risk::High), &A, &a, &[], false, &mut st, 1.0);
    assert_eq!(v.kind, Kind::Block, "the old key does not acknowledge it");
}

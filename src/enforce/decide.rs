//! The decision: given what was found, block, advise or allow. Pure.
//!
//! Each finding (a matched SOP or a memory) has a category and a confidence. Its
//! *effective level* is the global level, except under `category`, where it is the rule of
//! its category (defaults: process, security, credentials → strict; gotchas → category;
//! technical, general → advisory). Then:
//!
//! | effective level | blocks when                                              | else advises when          |
//! |-----------------|----------------------------------------------------------|----------------------------|
//! | strict          | confidence ≥ `thresholds.strict`                         | confidence ≥ `thresholds.advisory` |
//! | category        | confidence ≥ `thresholds.category` and risk ≥ `categoryMinRisk` | confidence ≥ `thresholds.advisory` |
//! | advisory        | never                                                    | confidence ≥ `thresholds.advisory` |
//! | disabled        | never                                                    | never                      |
//!
//! A call with a blocking finding is blocked unless its cooldown key (tool, project, service,
//! the matched SOP ids — or the memory categories when no SOP matched) was blocked before and
//! is still in its cooldown, or that block was not yet followed by a retry: the retry after a
//! block always passes (it is the acknowledgment), so a model that repeats a call forever is
//! blocked at most once per cooldown window, alternately at worst (cooldown 0). With the
//! bypass on, a would-be block passes as `bypass` and its text is delivered as advice.
//! Advice for the same key is given once per cooldown window.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config::{Category, Level, Settings};
use super::extract::ActionContext;
use super::memory::Memory;
use super::sop::SopMatch;

/// What happened to a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// Nothing relevant (or advice already given in this cooldown window).
    Allow,
    /// Runs; the knowledge goes to the model as advice.
    Advise,
    /// Stopped; the knowledge is the block message.
    Block,
    /// Would block, but the same action was blocked just before: the retry passes.
    Acknowledged,
    /// Would block, but the emergency bypass is on.
    Bypass,
    /// A read-only call: the fast path.
    ReadOnly,
    /// Enforcement is off.
    Disabled,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Allow => "allow",
            Kind::Advise => "advise",
            Kind::Block => "block",
            Kind::Acknowledged => "acknowledged",
            Kind::Bypass => "bypass",
            Kind::ReadOnly => "readOnly",
            Kind::Disabled => "disabled",
        }
    }
}

/// What a finding leads to on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Block,
    Advise,
    Ignore,
}

/// The level that applies to a finding of `category`.
pub fn effective_level(s: &Settings, category: Category) -> Level {
    match s.level {
        Level::Category => s.rule(category),
        other => other,
    }
}

/// What one finding leads to.
pub fn classify(s: &Settings, category: Category, confidence: f64, ctx: &ActionContext) -> Action {
    let advise = if confidence >= s.thresholds.advisory {
        Action::Advise
    } else {
        Action::Ignore
    };
    match effective_level(s, category) {
        Level::Disabled => Action::Ignore,
        Level::Strict if confidence >= s.thresholds.strict => Action::Block,
        Level::Category
            if confidence >= s.thresholds.category && ctx.risk >= s.category_min_risk =>
        {
            Action::Block
        }
        _ => advise,
    }
}

/// Findings sorted into what blocks and what advises (indexes into the inputs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sorted {
    pub block_sops: Vec<usize>,
    pub advise_sops: Vec<usize>,
    pub block_memories: Vec<usize>,
    pub advise_memories: Vec<usize>,
}

pub fn sort(s: &Settings, ctx: &ActionContext, sops: &[SopMatch], memories: &[Memory]) -> Sorted {
    let mut out = Sorted::default();
    for (i, m) in sops.iter().enumerate() {
        match classify(s, m.sop.category, m.confidence, ctx) {
            Action::Block => out.block_sops.push(i),
            Action::Advise => out.advise_sops.push(i),
            Action::Ignore => {}
        }
    }
    for (i, m) in memories.iter().enumerate() {
        match classify(s, m.category, m.confidence, ctx) {
            Action::Block => out.block_memories.push(i),
            Action::Advise => out.advise_memories.push(i),
            Action::Ignore => {}
        }
    }
    out
}

/// One cooldown record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cooldown {
    /// When the action was last blocked (or advised), host ms.
    pub at: f64,
    /// A retry came after that block.
    #[serde(default)]
    pub acked: bool,
    /// Retries let through since.
    #[serde(default)]
    pub hits: u32,
}

/// The head of the metrics hash chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainHead {
    pub seq: u64,
    /// sha256 (hex) of the last line written; 64 zeros before the first.
    pub hash: String,
}

impl Default for ChainHead {
    fn default() -> Self {
        ChainHead {
            seq: 0,
            hash: "0".repeat(64),
        }
    }
}

/// What survives a restart: cooldowns and the metrics chain head. Stored as a small JSON file
/// (`stateFile`), rewritten whole after each decision that changed it:
/// `{"version":1,"cooldowns":{"<key>":{"at":ms,"acked":bool,"hits":n}},"metrics":{"seq":n,"hash":"hex"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CooldownState {
    pub version: u32,
    #[serde(default)]
    pub cooldowns: BTreeMap<String, Cooldown>,
    #[serde(default)]
    pub metrics: ChainHead,
}

impl Default for CooldownState {
    fn default() -> Self {
        CooldownState {
            version: 1,
            cooldowns: BTreeMap::new(),
            metrics: ChainHead::default(),
        }
    }
}

/// At most this many cooldown keys are kept (the oldest go first).
pub const MAX_COOLDOWNS: usize = 1000;
const WEEK_MS: f64 = 7.0 * 24.0 * 3600.0 * 1000.0;

impl CooldownState {
    pub fn from_json(text: &str) -> Result<CooldownState, String> {
        let s: CooldownState =
            serde_json::from_str(text).map_err(|e| format!("not a hookwise state file: {e}"))?;
        if s.version != 1 {
            return Err(format!("state version {} is not supported", s.version));
        }
        Ok(s)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{\"version\":1}".into())
    }

    /// Drop what can no longer matter.
    pub fn prune(&mut self, now: f64, window_ms: u64) {
        let w = window_ms as f64;
        self.cooldowns.retain(|_, c| {
            now - c.at < WEEK_MS && (now - c.at < w || !c.acked) && c.at <= now + WEEK_MS
        });
        while self.cooldowns.len() > MAX_COOLDOWNS {
            let oldest = self
                .cooldowns
                .iter()
                .min_by(|a, b| {
                    a.1.at
                        .partial_cmp(&b.1.at)
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => {
                    self.cooldowns.remove(&k);
                }
                None => break,
            }
        }
    }
}

/// The cooldown key of an action.
pub fn cooldown_key(
    kind: &str,
    ctx: &ActionContext,
    sop_ids: &[&str],
    memory_categories: &[Category],
) -> String {
    let o = super::order(sop_ids.len(), &|a, b| sop_ids[a].cmp(sop_ids[b]));
    let mut ids: Vec<&str> = Vec::new();
    for i in o {
        if ids.last() != Some(&sop_ids[i]) {
            ids.push(sop_ids[i]);
        }
    }
    let what = if ids.is_empty() {
        let c: Vec<&str> = Category::ALL
            .iter()
            .filter(|c| memory_categories.contains(c))
            .map(|c| c.as_str())
            .collect();
        format!("memories:{}", c.join(","))
    } else {
        ids.join(",")
    };
    format!(
        "{kind}|{}|{}|{}|{what}",
        ctx.tool,
        ctx.project.as_deref().unwrap_or(""),
        ctx.service.as_deref().unwrap_or("")
    )
}

/// The outcome of [`decide`].
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub kind: Kind,
    pub sorted: Sorted,
    pub cooldown_hit: bool,
    pub key: Option<String>,
    /// The state changed (write it back).
    pub state_changed: bool,
}

/// Decide for a call, updating the cooldowns.
pub fn decide(
    s: &Settings,
    ctx: &ActionContext,
    sops: &[SopMatch],
    memories: &[Memory],
    bypass: bool,
    state: &mut CooldownState,
    now: f64,
) -> Verdict {
    let sorted = sort(s, ctx, sops, memories);
    let window = s.cooldown_ms as f64;
    let ids = |idx: &[usize]| {
        idx.iter()
            .map(|i| sops[*i].sop.id.as_str())
            .collect::<Vec<_>>()
    };
    let cats = |idx: &[usize]| {
        idx.iter()
            .map(|i| memories[*i].category)
            .collect::<Vec<_>>()
    };
    if !sorted.block_sops.is_empty() || !sorted.block_memories.is_empty() {
        // the key names every SOP that applies, so a different set is a different action
        let mut all = sorted.block_sops.clone();
        all.extend(&sorted.advise_sops);
        let key = cooldown_key("block", ctx, &ids(&all), &cats(&sorted.block_memories));
        let (kind, hit, changed) = match state.cooldowns.get_mut(&key) {
            Some(c) if now - c.at < window || !c.acked => {
                c.acked = true;
                c.hits += 1;
                (Kind::Acknowledged, true, true)
            }
            _ if bypass => (Kind::Bypass, false, false),
            _ => {
                state.cooldowns.insert(
                    key.clone(),
                    Cooldown {
                        at: now,
                        acked: false,
                        hits: 0,
                    },
                );
                (Kind::Block, false, true)
            }
        };
        state.prune(now, s.cooldown_ms);
        return Verdict {
            kind,
            sorted,
            cooldown_hit: hit,
            key: Some(key),
            state_changed: changed,
        };
    }
    if !sorted.advise_sops.is_empty() || !sorted.advise_memories.is_empty() {
        let key = cooldown_key(
            "advise",
            ctx,
            &ids(&sorted.advise_sops),
            &cats(&sorted.advise_memories),
        );
        let recent = state
            .cooldowns
            .get(&key)
            .is_some_and(|c| now - c.at < window);
        if recent {
            if let Some(c) = state.cooldowns.get_mut(&key) {
                c.hits += 1;
            }
            return Verdict {
                kind: Kind::Allow,
                sorted,
                cooldown_hit: true,
                key: Some(key),
                state_changed: true,
            };
        }
        state.cooldowns.insert(
            key.clone(),
            Cooldown {
                at: now,
                acked: true,
                hits: 0,
            },
        );
        state.prune(now, s.cooldown_ms);
        return Verdict {
            kind: Kind::Advise,
            sorted,
            cooldown_hit: false,
            key: Some(key),
            state_changed: true,
        };
    }
    Verdict {
        kind: Kind::Allow,
        sorted,
        cooldown_hit: false,
        key: None,
        state_changed: false,
    }
}

#[cfg(test)]
mod tests {
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
        let d = |st: &mut CooldownState, now: f64| decide(&s, &c, &sops, &[], false, st, now);
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
            decide(&s, &ctx(Risk::High), &a, &[], false, &mut st, 0.0).kind,
            Kind::Block
        );
        assert_eq!(
            decide(&s, &ctx(Risk::High), &ab, &[], false, &mut st, 1.0).kind,
            Kind::Block,
            "another SOP set"
        );
        let mut other = ctx(Risk::High);
        other.project = Some("blog".into());
        assert_eq!(
            decide(&s, &other, &a, &[], false, &mut st, 2.0).kind,
            Kind::Block
        );
        other.service = Some("docker".into());
        assert_eq!(
            decide(&s, &other, &a, &[], false, &mut st, 3.0).kind,
            Kind::Block
        );
        let v = decide(&s, &ctx(Risk::High), &a, &[], false, &mut st, 4.0);
        assert_eq!(v.kind, Kind::Acknowledged);
        assert_eq!(v.key.as_deref(), Some("block|bash|shop|git|a"));
    }

    #[test]
    fn bypass_passes_without_recording_a_cooldown() {
        let s = settings(Level::Strict);
        let mut st = CooldownState::default();
        let sops = [sop("a", Category::Security, 0.9)];
        let v = decide(&s, &ctx(Risk::High), &sops, &[], true, &mut st, 0.0);
        assert_eq!(v.kind, Kind::Bypass);
        assert!(st.cooldowns.is_empty() && !v.state_changed);
    }

    #[test]
    fn memories_block_by_category_and_advice_is_given_once_per_window() {
        let s = settings(Level::Category);
        let mut st = CooldownState::default();
        let mems = [mem(Category::Security, 0.8), mem(Category::Technical, 0.9)];
        let v = decide(&s, &ctx(Risk::Medium), &[], &mems, false, &mut st, 0.0);
        assert_eq!(v.kind, Kind::Block);
        assert_eq!(v.sorted.block_memories, vec![0]);
        assert_eq!(v.sorted.advise_memories, vec![1]);
        assert_eq!(
            v.key.as_deref(),
            Some("block|bash|shop|git|memories:security")
        );

        let tech = [mem(Category::Technical, 0.9)];
        assert_eq!(
            decide(&s, &ctx(Risk::Medium), &[], &tech, false, &mut st, 0.0).kind,
            Kind::Advise
        );
        let v = decide(&s, &ctx(Risk::Medium), &[], &tech, false, &mut st, 1.0);
        assert_eq!((v.kind, v.cooldown_hit), (Kind::Allow, true));
        assert_eq!(
            decide(
                &s,
                &ctx(Risk::Medium),
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
            decide(&s, &ctx(Risk::Medium), &[], &[], false, &mut st, 0.0).kind,
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
        assert!(CooldownState::from_json("{\"version\":2}")
            .unwrap_err()
            .contains("version 2"));
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
}

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
//! A call with a blocking finding is blocked unless its *action* was blocked before in the
//! same session and is still in its cooldown, or that block was not yet followed by a retry:
//! the retry after a block always passes (it is the acknowledgment), so a model that repeats a
//! call forever is blocked at most once per cooldown window, alternately at worst (cooldown
//! 0). The action is the tool, its canonical target ([`super::action::target`]: the command
//! as the shell reads it, the files a file tool touches, else the arguments), the session, the
//! project and service, and the matched SOP ids (or the memory categories when no SOP
//! matched): a different command, file, tool or session is judged on its own. With the bypass
//! on, a would-be block passes as `bypass` and its text is delivered as advice. Advice from
//! the same SOPs (tool, project, service, session) is given once per cooldown window.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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
/// `{"version":2,"cooldowns":{"<key>":{"at":ms,"acked":bool,"hits":n}},"metrics":{"seq":n,"hash":"hex"}}`.
/// Version 1 keyed cooldowns by tool, project, service and SOPs only: such a file is read for
/// its metrics head and its cooldowns are dropped (they must not acknowledge other calls).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CooldownState {
    pub version: u32,
    #[serde(default)]
    pub cooldowns: BTreeMap<String, Cooldown>,
    #[serde(default)]
    pub metrics: ChainHead,
}

/// The state file's version: cooldown keys per action ([`cooldown_key`]).
pub const STATE_VERSION: u32 = 2;

impl Default for CooldownState {
    fn default() -> Self {
        CooldownState {
            version: STATE_VERSION,
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
        let mut s: CooldownState =
            serde_json::from_str(text).map_err(|e| format!("not a hookwise state file: {e}"))?;
        match s.version {
            STATE_VERSION => {}
            1 => {
                // keys per SOP set, not per action: keep the metrics head, drop the cooldowns
                s.cooldowns.clear();
                s.version = STATE_VERSION;
            }
            v => return Err(format!("state version {v} is not supported")),
        }
        Ok(s)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| format!("{{\"version\":{STATE_VERSION}}}"))
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

/// Which call a cooldown is kept for, besides what [`ActionContext`] says.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Call<'a> {
    /// The host's session id ("" when it sends none).
    pub session: &'a str,
    /// The call's canonical target ([`super::action::target`]).
    pub target: &'a str,
}

/// The cooldown key of an action: `v2|<kind>|<tool>|<SOP ids or memories:categories>|<digest>`,
/// the digest (sha256, 128 bits) over every part with the session and the target. Tool and
/// ids are there to be read (shortened); the digest is what tells actions apart. Version-1
/// keys (`block|tool|project|service|ids`) can never equal one.
pub fn cooldown_key(
    kind: &str,
    ctx: &ActionContext,
    call: &Call,
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
    // advice is per SOP set in a session, a block per action
    let target = if kind == "block" { call.target } else { "" };
    let mut h = Sha256::new();
    for part in [
        kind,
        ctx.tool.as_str(),
        ctx.project.as_deref().unwrap_or(""),
        ctx.service.as_deref().unwrap_or(""),
        call.session,
        &what,
        target,
    ] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    let digest: String = h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let readable = |s: &str, max: usize| -> String {
        s.chars()
            .map(|c| if c == '|' || c.is_control() { '_' } else { c })
            .take(max)
            .collect()
    };
    format!(
        "v2|{kind}|{}|{}|{digest}",
        readable(&ctx.tool, 64),
        readable(&what, 200)
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
#[allow(clippy::too_many_arguments)]
pub fn decide(
    s: &Settings,
    ctx: &ActionContext,
    call: &Call,
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
        let key = cooldown_key(
            "block",
            ctx,
            call,
            &ids(&all),
            &cats(&sorted.block_memories),
        );
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
            call,
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
#[path = "decide_tests.rs"]
mod tests;

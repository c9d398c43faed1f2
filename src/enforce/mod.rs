//! Pre-action knowledge enforcement: before a risky tool call runs, the SOPs and memories
//! that apply to it are looked up under one deadline; depending on the enforcement level the
//! call is blocked with that knowledge (the model retries having read it), runs with it as
//! advice, or simply runs. Read-only calls take a fast path and are never blocked.
//!
//! Pieces: [`extract`] (what the call is about), [`action`] (which action it is, for the
//! cooldowns), [`sop`] (SOPs: parse, match, cache),
//! [`memory`] (memory sources), [`decide`] (levels, thresholds, cooldowns), [`message`]
//! (the texts), [`metrics`] (hash-chained JSONL), [`config`] + [`schema`] (settings,
//! validated against `schema/hookwise.schema.json`).
//!
//! # Operations (for the engine)
//!
//! * [`load_config`]`(io, root, options) -> LoadedConfig` — at `init`, before the foundation
//!   config: reads `<root>/.opencode/hookwise.json` (absent is fine), validates it and the
//!   plugin options against the schema, merges them (options win). Hand
//!   `LoadedConfig::options` to `Config::from_sources` (so file keys like `cliPath` work too)
//!   and log `LoadedConfig::issues` (each `"<file>: '<key>' <why>"`) as warnings.
//! * [`Enforcer::start`]`(io, settings, root, env, memory) -> (Enforcer, Vec<Log>)` — loads
//!   the state file (cooldowns, metrics chain head) and primes the SOP cache. Keep the
//!   `Enforcer` in the engine's shared state (it is `Clone`, `Rc` inside).
//! * [`Enforcer::before`]`(io, tool, session, args) -> Decision` — `tool.before`; `session`:
//!   the host's session id (cooldowns are per session). The result JSON:
//!   ```json
//!   {"decision": "allow|advise|block|acknowledged|bypass|readOnly|disabled",
//!    "block": "<message; throw it>", "advice": "<text; place it without changing the call>",
//!    "logs": [{"level": "warn", "message": "…"}],
//!    "detected": {"tool": "bash", "command": "git push --force", "program": "git",
//!                 "subcommand": "push", "sudo": false, "project": "shop", "service": "git",
//!                 "services": ["git"], "hosts": ["github.com"],
//!                 "urls": [{"scheme": "https", "host": "…", "path": "/…"}], "workdir": "…",
//!                 "risk": "high", "riskReasons": ["git push --force"], "readOnly": false,
//!                 "keywords": ["git", "push", …]},
//!    "sops": ["git-force-push"], "memories": 1, "categories": ["process"],
//!    "lookupMs": 3.0, "timedOut": false, "cooldownHit": false, "bypass": false}
//!   ```
//!   `block` is present only for `block`; `advice` for `advise` and `bypass`. Advice must reach
//!   the model without changing what the tool does: for shell tools as `# ` comment lines
//!   before the command, else with the tool's result (the foundation's placement rules).
//! * [`Enforcer::dry_run`]`(io, tool, session, args) -> Decision` — the same decision against the real
//!   cooldowns, recording nothing (`"dryRun": true` in the result): `hookwise check`.
//! * [`Enforcer::set_memory_source`] — when the knowledge source changes (vault, MCP).
//!
//! Host requests used: `Now`, `ListDir`, `ReadFile`, `WriteFile` (state), `AppendLine`
//! (metrics), `Sleep` (the deadline), `Spawn` (maenifold). The host must carry out writes and
//! appends to one path in the order they were requested (parallel tool calls), else the
//! metrics chain can be recorded out of order.
//!
//! # Pure functions (for the `hookwise` CLI)
//!
//! [`cli_metrics_summary`] (`hookwise metrics`), [`cli_metrics_verify`]
//! (`hookwise metrics verify`), [`schema::validate`], [`sop::parse`], [`extract::extract`],
//! [`decide::decide`].

/// The regex engine of configured and SOP patterns — the one place to switch it.
pub mod re {
    pub use regex_lite::{Error, Regex};
}

pub mod action;
pub mod config;
pub mod decide;
pub mod extract;
pub mod memory;
pub mod message;
pub mod metrics;
pub mod schema;
pub mod shell;
pub mod sop;

mod load;
pub use load::*;

#[cfg(test)]
mod bench;
#[cfg(test)]
mod cooldown_tests;
#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use serde::Serialize;
use serde_json::Value;

use crate::protocol::{Log, ReadResult, Request};
use crate::runtime::{join_all, join_until, Io};

pub use config::{Category, Level, Settings};
pub use decide::{ChainHead, CooldownState, Kind};
pub use extract::{ActionContext, Risk};
pub use memory::{Memory, MemorySource};
pub use schema::Issue;

/// Where the project's configuration file lives, relative to the root.
pub use crate::config::CONFIG_FILE;
const MAX_CONFIG_BYTES: u64 = crate::config::MAX_FILE_BYTES;
const MAX_STATE_BYTES: u64 = 4 * 1024 * 1024;
const MAX_METRICS_BYTES: u64 = 64 * 1024 * 1024;
/// How long start-up may spend priming the SOP cache.
const START_DEADLINE_MS: u64 = 3000;

/// The order that sorts `n` items by `cmp` (stable). One sort instantiation serves every
/// list in this module: each `sort_by` on a new type or closure would add kilobytes of wasm.
pub fn order(n: usize, cmp: &dyn Fn(usize, usize) -> std::cmp::Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    crate::sort::sort_by(&mut idx, |a, b| cmp(*a, *b));
    idx
}

/// `v` rearranged into `order` (from [`order`]).
pub fn arrange<T>(v: Vec<T>, order: &[usize]) -> Vec<T> {
    let mut slots: Vec<Option<T>> = v.into_iter().map(Some).collect();
    order
        .iter()
        .filter_map(|i| slots.get_mut(*i).and_then(Option::take))
        .collect()
}

/// The result of `tool.before`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub decision: Kind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detected: Option<ActionContext>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sops: Vec<String>,
    pub memories: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    pub lookup_ms: f64,
    pub timed_out: bool,
    pub cooldown_hit: bool,
    pub bypass: bool,
    /// A dry run: decided against the real cooldowns, but nothing was recorded.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

impl Decision {
    fn quick(kind: Kind, detected: Option<ActionContext>) -> Decision {
        Decision {
            decision: kind,
            block: None,
            advice: None,
            logs: Vec::new(),
            detected,
            sops: Vec::new(),
            memories: 0,
            categories: Vec::new(),
            lookup_ms: 0.0,
            timed_out: false,
            cooldown_hit: false,
            bypass: false,
            dry_run: false,
        }
    }
}

struct Inner {
    settings: Settings,
    root: String,
    worktree: String,
    bypass: Option<&'static str>,
    memory: RefCell<Option<MemorySource>>,
    sops: Rc<RefCell<sop::SopCache>>,
    state: RefCell<CooldownState>,
    /// Warnings already given once (later repeats are debug lines).
    warned: RefCell<Vec<String>>,
    /// The engine's copy of the host clock (it comes with every call and reply); without
    /// one, time is asked of the host with `Request::Now`.
    clock: RefCell<Option<Rc<std::cell::Cell<u64>>>>,
    /// The host's profile: its shell tools' command key, its read-only tools.
    host: std::cell::Cell<&'static crate::host::Profile>,
}

/// The enforcement engine of one plugin instance. Cheap to clone.
#[derive(Clone)]
pub struct Enforcer {
    inner: Rc<Inner>,
}

enum Part {
    Sops,
    Memories(Result<Vec<Memory>, String>),
}

type PartFuture<'a> = Pin<Box<dyn Future<Output = Part> + 'a>>;

impl Enforcer {
    /// Read time from the engine's clock instead of asking the host (one round trip less per
    /// checked tool call).
    pub fn use_clock(&self, clock: Rc<std::cell::Cell<u64>>) {
        *self.inner.clock.borrow_mut() = Some(clock);
    }

    /// Read tool calls as `host`'s tools (default: the engine API's profile).
    pub fn use_host(&self, host: &'static crate::host::Profile) {
        self.inner.host.set(host);
    }

    async fn now(&self, io: &Io) -> f64 {
        let clock = self.inner.clock.borrow().clone();
        match clock.map(|c| c.get()).filter(|&t| t > 0) {
            Some(t) => t as f64,
            None => now(io).await,
        }
    }

    /// Start: load the state file and prime the SOP cache. `env` is looked at for
    /// `HOOKWISE_BYPASS`. No I/O when enforcement is disabled.
    pub async fn start(
        io: &Io,
        settings: Settings,
        root: &str,
        env: &BTreeMap<String, String>,
        memory: Option<MemorySource>,
    ) -> (Enforcer, Vec<Log>) {
        let mut logs = Vec::new();
        let env_bypass = env.get("HOOKWISE_BYPASS").is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        });
        let bypass = if env_bypass {
            Some("HOOKWISE_BYPASS=1")
        } else if settings.bypass {
            Some("option enforcement.bypass")
        } else {
            None
        };
        let worktree = root
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or("")
            .to_string();
        let disabled = settings.level == Level::Disabled;
        let e = Enforcer {
            inner: Rc::new(Inner {
                settings,
                root: root.to_string(),
                worktree,
                bypass,
                memory: RefCell::new(memory),
                sops: Rc::default(),
                state: RefCell::default(),
                warned: RefCell::default(),
                clock: RefCell::default(),
                host: std::cell::Cell::new(crate::hosts::default_profile()),
            }),
        };
        if disabled {
            logs.push(Log::info("pre-action enforcement is disabled"));
            return (e, logs);
        }
        if let Some(src) = bypass {
            logs.push(Log::warn(format!(
                "EMERGENCY BYPASS IS ON ({src}): pre-action enforcement will block nothing; would-be blocks are logged and given as advice"
            )));
        }
        let s = &e.inner.settings;
        let state_path = join(root, &s.state_file);
        let t = now(io).await;
        let (state, _) = futures_pair(
            read_text(io, &state_path, MAX_STATE_BYTES),
            join_until(
                io,
                START_DEADLINE_MS,
                vec![Box::pin(e.refresh_sops(io, t)) as PartFuture],
            ),
        )
        .await;
        let mut need_head = true;
        match state {
            Ok(Some(text)) => match CooldownState::from_json(&text) {
                Ok(st) => {
                    *e.inner.state.borrow_mut() = st;
                    need_head = false;
                }
                Err(err) => logs.push(Log::warn(format!(
                    "state file {} is unusable ({err}); starting with no cooldowns",
                    s.state_file
                ))),
            },
            Ok(None) => {}
            Err(err) => logs.push(Log::warn(format!(
                "state file {} could not be read ({err}); starting with no cooldowns",
                s.state_file
            ))),
        }
        if need_head && s.metrics {
            // continue the metrics chain from the file itself
            match read_text(io, &join(root, &s.metrics_file), MAX_METRICS_BYTES).await {
                Ok(Some(text)) => e.inner.state.borrow_mut().metrics = metrics::head_of(&text),
                Ok(None) => {}
                Err(err) => logs.push(Log::warn(format!(
                    "metrics file {} could not be read ({err}); its chain restarts",
                    s.metrics_file
                ))),
            }
        }
        let mut cache = e.inner.sops.borrow_mut();
        logs.append(&mut cache.logs);
        logs.push(Log::info(format!(
            "pre-action enforcement: level {}, {} SOP(s) from {}",
            s.level.as_str(),
            cache.len(),
            s.sop_folders.join(", ")
        )));
        drop(cache);
        (e, logs)
    }

    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    pub fn set_memory_source(&self, memory: Option<MemorySource>) {
        *self.inner.memory.borrow_mut() = memory;
    }

    /// The SOP cache (read access for tests and the CLI).
    pub fn sop_cache(&self) -> Rc<RefCell<sop::SopCache>> {
        self.inner.sops.clone()
    }

    /// A copy of the persisted state.
    pub fn state(&self) -> CooldownState {
        self.inner.state.borrow().clone()
    }

    fn refresh_sops<'a>(&'a self, io: &'a Io, t: f64) -> impl Future<Output = Part> + 'a {
        let s = &self.inner.settings;
        let folders: Vec<sop::Folder> = s
            .sop_folders
            .iter()
            .map(|f| sop::Folder {
                abs: join(&self.inner.root, f.trim_end_matches('/')),
                shown: f.trim_end_matches('/').to_string(),
            })
            .collect();
        let cache = self.inner.sops.clone();
        async move {
            sop::refresh(io, &cache, &folders, &s.sections, t).await;
            Part::Sops
        }
    }

    /// A warning the first time, a debug line after.
    fn once(&self, key: &str, message: String) -> Log {
        let mut warned = self.inner.warned.borrow_mut();
        if !warned.iter().any(|k| k == key) && warned.len() < 256 {
            warned.push(key.to_string());
            Log::warn(message)
        } else {
            Log::debug(message)
        }
    }

    /// `tool.before`: decide on one call. Never fails: every fault lets the call run.
    /// `session`: the host's session id ("" for none); a block is acknowledged by a retry of
    /// the same action in the same session.
    pub async fn before(&self, io: &Io, tool: &str, session: &str, args: &Value) -> Decision {
        self.decide(io, tool, session, args, false).await
    }

    /// `tool.before` as a dry run (`hookwise check`): the same decision against the real
    /// cooldowns and SOPs, but no metrics line and no state change — what would happen.
    pub async fn dry_run(&self, io: &Io, tool: &str, session: &str, args: &Value) -> Decision {
        let mut d = self.decide(io, tool, session, args, true).await;
        d.dry_run = true;
        d
    }

    async fn decide(
        &self,
        io: &Io,
        tool: &str,
        session: &str,
        args: &Value,
        dry: bool,
    ) -> Decision {
        let s = &self.inner.settings;
        if s.level == Level::Disabled {
            return Decision::quick(Kind::Disabled, None);
        }
        let sit = extract::Situation {
            cwd: &self.inner.root,
            worktree: &self.inner.worktree,
        };
        let ctx = extract::extract_on(self.inner.host.get(), tool, args, &sit, &s.rules);
        if ctx.read_only {
            return Decision::quick(Kind::ReadOnly, Some(ctx));
        }
        let mut logs: Vec<Log> = Vec::new();
        let t0 = self.now(io).await;

        // One deadline for the whole lookup: SOP refresh (when due) and memories.
        let due = self
            .inner
            .sops
            .borrow()
            .listed_at
            .is_none_or(|at| t0 - at >= s.sop_refresh_ms as f64 || t0 < at);
        let memory = self.inner.memory.borrow().clone();
        let want_memories = s.memory.enabled && ctx.risk >= s.memory.min_risk && memory.is_some();
        let query = memory::MemoryQuery {
            keywords: ctx.keywords.clone(),
            mode: s.memory.mode.clone(),
            max_results: s.memory.max_results,
        };
        let mut parts: Vec<PartFuture> = Vec::new();
        let mut labels = Vec::new();
        if due {
            parts.push(Box::pin(self.refresh_sops(io, t0)));
            labels.push("SOP refresh");
        }
        if want_memories {
            if let Some(src) = &memory {
                let q = &query;
                parts.push(Box::pin(
                    async move { Part::Memories(src.search(io, q).await) },
                ));
                labels.push("memory search");
            }
        }
        let mut memories: Vec<Memory> = Vec::new();
        let mut timed_out = false;
        let mut t1 = t0;
        if !parts.is_empty() {
            let answers = join_until(io, s.deadline_ms, parts).await;
            t1 = self.now(io).await;
            for (label, a) in labels.iter().zip(answers) {
                match a {
                    None => {
                        timed_out = true;
                        let hint = if *label == "memory search"
                            && memory.as_ref().is_some_and(|m| m.name() == "maenifold-cli")
                        {
                            " (the maenifold CLI needs seconds to start; raise enforcement.deadlineMs or use a warm source)"
                        } else {
                            ""
                        };
                        logs.push(self.once(
                            &format!("timeout:{label}"),
                            format!(
                                "{label} did not finish within the {} ms deadline; decided on what was in hand{hint}",
                                s.deadline_ms
                            ),
                        ));
                    }
                    Some(Part::Memories(Ok(m))) => memories = m,
                    Some(Part::Memories(Err(e))) => {
                        logs.push(self.once(
                            &format!("memory:{e}"),
                            format!("memory search failed ({e}); decided without memories"),
                        ));
                    }
                    Some(Part::Sops) => {}
                }
            }
        }
        for l in std::mem::take(&mut self.inner.sops.borrow_mut().logs) {
            logs.push(self.once(&l.message, l.message.clone()));
        }
        let lookup_ms = (t1 - t0).max(0.0);

        let matches = sop::match_all(&self.inner.sops.borrow(), &ctx);
        let target = action::target(self.inner.host.get(), tool, args, &self.inner.root);
        let call = decide::Call {
            session,
            target: &target,
        };
        // A dry run decides on a copy of the cooldowns and drops it.
        let mut scratch = dry.then(|| self.inner.state.borrow().clone());
        let verdict = match scratch.as_mut() {
            Some(st) => decide::decide(
                s,
                &ctx,
                &call,
                &matches,
                &memories,
                self.inner.bypass.is_some(),
                st,
                t1,
            ),
            None => decide::decide(
                s,
                &ctx,
                &call,
                &matches,
                &memories,
                self.inner.bypass.is_some(),
                &mut self.inner.state.borrow_mut(),
                t1,
            ),
        };
        let pick_sops = |idx: &[usize]| idx.iter().map(|i| &matches[*i]).collect::<Vec<_>>();
        let pick_mems = |idx: &[usize]| idx.iter().map(|i| &memories[*i]).collect::<Vec<_>>();
        let so = &verdict.sorted;
        // in rank order (the inputs are ranked)
        let all_sops: Vec<usize> = (0..matches.len())
            .filter(|i| so.block_sops.contains(i) || so.advise_sops.contains(i))
            .collect();
        let all_mems: Vec<usize> = (0..memories.len())
            .filter(|i| so.block_memories.contains(i) || so.advise_memories.contains(i))
            .collect();

        let mut d = Decision::quick(verdict.kind, None);
        match verdict.kind {
            Kind::Block => {
                d.block = Some(message::block_message(
                    &ctx,
                    &pick_sops(&all_sops),
                    &pick_mems(&all_mems),
                    s.max_message_chars,
                    s.cooldown_ms,
                ));
            }
            Kind::Bypass => {
                let text = message::advice_message(
                    &ctx,
                    &pick_sops(&all_sops),
                    &pick_mems(&all_mems),
                    s.max_advice_chars,
                );
                logs.push(Log::warn(format!(
                    "BYPASS ({}): {} `{}` would have been blocked by {}",
                    self.inner.bypass.unwrap_or("bypass"),
                    ctx.tool,
                    ctx.command.as_deref().unwrap_or(""),
                    so.block_sops
                        .iter()
                        .map(|i| matches[*i].sop.id.clone())
                        .chain(so.block_memories.iter().map(|i| memories[*i].uri.clone()))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
                d.advice = Some(text);
                d.bypass = true;
            }
            Kind::Advise => {
                d.advice = Some(message::advice_message(
                    &ctx,
                    &pick_sops(&so.advise_sops),
                    &pick_mems(&so.advise_memories),
                    s.max_advice_chars,
                ));
            }
            _ => {}
        }
        d.sops = all_sops
            .iter()
            .map(|i| matches[*i].sop.id.clone())
            .collect();
        d.memories = all_mems.len();
        let mut present = [false; 6];
        for c in all_sops
            .iter()
            .map(|i| matches[*i].sop.category)
            .chain(all_mems.iter().map(|i| memories[*i].category))
        {
            present[c as usize] = true;
        }
        d.categories = Category::ALL
            .iter()
            .filter(|c| present[**c as usize])
            .map(|c| c.as_str().to_string())
            .collect();
        d.lookup_ms = lookup_ms;
        d.timed_out = timed_out;
        d.cooldown_hit = verdict.cooldown_hit;

        // Record: the metrics line and the state, written concurrently.
        let mut writes = Vec::new();
        let mut what = Vec::new();
        let mut state_changed = verdict.state_changed;
        if s.metrics && !dry {
            let event = metrics::Event {
                seq: 0,
                ts: t1,
                tool: ctx.tool.clone(),
                decision: d.decision.as_str().to_string(),
                level: s.level.as_str().to_string(),
                risk: ctx.risk.as_str().to_string(),
                categories: d.categories.clone(),
                sops: d.sops.clone(),
                sources: metrics::Sources {
                    sops: matches.len() as u32,
                    memories: memories.len() as u32,
                },
                lookup_ms,
                timed_out,
                cooldown_hit: d.cooldown_hit,
                bypass: d.bypass,
                prev: String::new(),
            };
            let line = metrics::chain_line(&event, &mut self.inner.state.borrow_mut().metrics);
            writes.push(io.request(Request::AppendLine {
                path: join(&self.inner.root, &s.metrics_file),
                line,
            }));
            what.push("metrics");
            state_changed = true; // the chain head moved
        }
        if state_changed && !dry {
            writes.push(io.request(Request::WriteFile {
                path: join(&self.inner.root, &s.state_file),
                text: self.inner.state.borrow().to_json(),
            }));
            what.push("state");
        }
        for (w, reply) in what.iter().zip(join_all(writes).await) {
            if let Some(e) = write_error(&reply) {
                let file = if *w == "metrics" {
                    &s.metrics_file
                } else {
                    &s.state_file
                };
                logs.push(self.once(
                    &format!("write:{w}"),
                    format!("could not write the {w} file {file}: {e}"),
                ));
            }
        }
        d.logs = logs;
        d.detected = Some(ctx);
        d
    }
}

/// Await two futures of different types together.
async fn futures_pair<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let mut a = Box::pin(a);
    let mut b = Box::pin(b);
    let mut ra = None;
    let mut rb = None;
    std::future::poll_fn(move |cx| {
        if ra.is_none() {
            if let std::task::Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let std::task::Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        if ra.is_some() && rb.is_some() {
            std::task::Poll::Ready((ra.take().expect("set"), rb.take().expect("set")))
        } else {
            std::task::Poll::Pending
        }
    })
    .await
}

/// `hookwise metrics`: the summary of a metrics file's text, as text.
pub fn cli_metrics_summary(metrics_text: &str) -> String {
    metrics::render_summary(&metrics::summarize(metrics_text))
}

/// `hookwise metrics verify`: (ok, report text). `state_text`: the state file, when there is
/// one (its chain head checks the last line and truncation).
pub fn cli_metrics_verify(metrics_text: &str, state_text: Option<&str>) -> (bool, String) {
    let head = state_text
        .and_then(|t| CooldownState::from_json(t).ok())
        .map(|s| s.metrics);
    let r = metrics::verify(metrics_text, head.as_ref());
    let mut text = metrics::render_verify(&r);
    if state_text.is_some() && head.is_none() {
        text.push_str(
            "  (the state file could not be read: the last line and truncation were not checked)\n",
        );
    }
    (r.ok, text)
}

//! The session-start lookup: what maenifold knows about the project, as one markdown block.
//!
//! Stages (each one's calls in parallel, the whole under one deadline):
//! 1. SearchMemories `{query: project, mode: "Hybrid", pageSize: 5}` with `--json`
//!    ‖ RecentActivity `{timespan: "1.00:00:00", limit: 10, filter: "memory"}`;
//! 2. ReadMemory of the top search results' files ‖ of recent memories not among them
//!    (RecentActivity prints only slugs: ReadMemory by slug also gives their URIs);
//! 3. concepts from the WikiLinks in snippets and files and from titles, ranked by files,
//!    top 5, BuildContext `{depth: 1, maxEntities: 10}` for each ‖.
//!
//! Results gather as calls finish, so the deadline keeps whatever came back in time.
//! For the benchmark, [`Strategy::Sequential`] makes the same calls one after another and
//! [`Strategy::SeedSequential`] is the seed design done naively (no ReadMemory, every call
//! after the previous one).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use serde_json::json;

use super::concepts::{ConceptCount, Tally};
use super::config::SessionConfig;
use super::format::{self, MemoryRef, Parts};
use crate::knowledge::{ContextQuery, Source};
use crate::maenifold::memory::{self, Memory};
use crate::maenifold::recent::{self, RecentActivity};
use crate::maenifold::search::{self, SearchResults};
use crate::maenifold::BuildContext;
use crate::protocol::Log;
use crate::runtime::{join_all, timeout, Io};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Strategy {
    /// Each stage's calls at once.
    Parallel,
    /// The same calls, one after another.
    Sequential,
    /// The seed design, naively: SearchMemories, RecentActivity, then BuildContext for each
    /// concept, one after another; no ReadMemory (concepts from snippets and titles only).
    /// The benchmark's baseline.
    SeedSequential,
}

/// What a session start found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStartResult {
    pub project: String,
    /// The markdown context; `None` when maenifold had nothing (or nothing answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The concepts looked up with BuildContext, most frequent first.
    pub concepts: Vec<ConceptCount>,
    /// maenifold CLI calls made.
    pub calls: u32,
    /// One entry per failed or unfinished call.
    pub failures: Vec<String>,
    /// At most one line: a warning summarizing failures, else a debug summary.
    pub logs: Vec<Log>,
}

#[derive(Default)]
struct Acc {
    calls: u32,
    search: Option<SearchResults>,
    recent: Option<RecentActivity>,
    /// (target index, memory): sorted by target before counting, so the ranking does not
    /// depend on which answer came first.
    reads: Vec<(usize, Memory)>,
    top: Vec<ConceptCount>,
    graph: Vec<(usize, BuildContext)>,
    failures: Vec<String>,
    in_flight: Vec<String>,
}

type Job<'a> = Pin<Box<dyn Future<Output = ()> + 'a>>;

async fn run_stage(strategy: Strategy, jobs: Vec<Job<'_>>) {
    match strategy {
        Strategy::Parallel => {
            join_all(jobs).await;
        }
        Strategy::Sequential | Strategy::SeedSequential => {
            for j in jobs {
                j.await;
            }
        }
    }
}

#[derive(Clone, Copy)]
struct Ctx<'a> {
    io: &'a Io,
    source: &'a Source,
    acc: &'a RefCell<Acc>,
}

impl Ctx<'_> {
    fn started(&self, label: &str) {
        let mut a = self.acc.borrow_mut();
        a.calls += 1;
        a.in_flight.push(label.to_string());
    }

    fn finished<T>(&self, label: &str, r: Result<T, String>) -> Option<T> {
        let mut a = self.acc.borrow_mut();
        if let Some(i) = a.in_flight.iter().position(|l| l == label) {
            a.in_flight.remove(i);
        }
        r.map_err(|e| a.failures.push(e)).ok()
    }

    /// One CLI call: counted, tracked while in flight, judged and parsed.
    async fn ask<T>(
        &self,
        tool: &str,
        label: &str,
        payload: serde_json::Value,
        json_out: bool,
        parse: fn(&str) -> Result<T, String>,
    ) -> Option<T> {
        self.started(label);
        let r = self
            .source
            .cli_call(self.io, tool, &payload, json_out)
            .await
            .and_then(|text| parse(&text).map_err(|e| format!("{tool}: {e}")));
        self.finished(label, r)
    }
}

fn last_segment(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap_or(uri)
}

/// What stage 2 reads: the top search results by URI, then recent memories by slug.
fn read_targets(acc: &Acc, cfg: &SessionConfig) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let hits = acc
        .search
        .as_ref()
        .map(|s| s.hits.as_slice())
        .unwrap_or(&[]);
    for h in hits.iter().filter(|h| h.uri.starts_with("memory://")) {
        if ids.len() >= cfg.read_hits {
            break;
        }
        if !ids.contains(&h.uri) {
            ids.push(h.uri.clone());
        }
    }
    let mut recent_n = 0;
    let entries = acc.recent.as_ref().map(|r| r.entries()).unwrap_or(&[]);
    for e in entries.iter().filter(|e| e.kind == "memory") {
        if recent_n >= cfg.read_recent {
            break;
        }
        let known = hits.iter().any(|h| last_segment(&h.uri) == e.name);
        if known || e.name.is_empty() || ids.contains(&e.name) {
            continue;
        }
        ids.push(e.name.clone());
        recent_n += 1;
    }
    ids
}

/// The URI of a recent entry's slug, when some answer showed it.
fn uri_for_slug(acc: &Acc, slug: &str) -> Option<String> {
    let hits = acc
        .search
        .as_ref()
        .map(|s| s.hits.as_slice())
        .unwrap_or(&[]);
    acc.reads
        .iter()
        .map(|(_, m)| m.uri.as_str())
        .chain(hits.iter().map(|h| h.uri.as_str()))
        .find(|u| u.starts_with("memory://") && last_segment(u) == slug)
        .map(str::to_string)
}

fn tally(acc: &Acc) -> Tally {
    let mut t = Tally::default();
    if let Some(s) = &acc.search {
        for h in &s.hits {
            t.add_links(&h.snippet, &h.uri);
            t.add_title(&h.title, &h.uri);
        }
    }
    let mut reads: Vec<&(usize, Memory)> = acc.reads.iter().collect();
    crate::sort::sort_by_key(&mut reads, |(k, _)| *k);
    for (_, m) in reads {
        t.add_links(&m.content, &m.uri);
        t.add_title(&m.title, &m.uri);
    }
    if let Some(r) = &acc.recent {
        for e in r.entries() {
            let file = uri_for_slug(acc, &e.name).unwrap_or_else(|| format!("slug:{}", e.name));
            for s in [&e.first, &e.last].into_iter().flatten() {
                t.add_links(s, &file);
            }
            if e.kind == "memory" {
                t.add_title(e.title.as_deref().unwrap_or(&e.name), &file);
            }
        }
    }
    t
}

async fn pipeline(cx: Ctx<'_>, project: &str, cfg: &SessionConfig, strategy: Strategy) {
    let acc = cx.acc;
    // Stage 1: search ‖ recent activity.
    let mut jobs: Vec<Job> = Vec::new();
    if !project.trim().is_empty() {
        jobs.push(Box::pin(async move {
            let payload = json!({"query": project, "mode": "Hybrid", "pageSize": cfg.page_size});
            let r = cx
                .ask(
                    "SearchMemories",
                    "SearchMemories",
                    payload,
                    true,
                    search::parse,
                )
                .await;
            acc.borrow_mut().search = r;
        }));
    }
    jobs.push(Box::pin(async move {
        let payload = json!({"timespan": "1.00:00:00", "limit": 10, "filter": "memory"});
        let r = cx
            .ask(
                "RecentActivity",
                "RecentActivity",
                payload,
                false,
                recent::parse,
            )
            .await;
        let mut a = acc.borrow_mut();
        if let Some(RecentActivity::NoDatabase) = r {
            a.failures
                .push("RecentActivity: no maenifold database yet (run Sync)".into());
        }
        a.recent = r;
    }));
    run_stage(strategy, jobs).await;

    // Stage 2: the files behind the top results.
    let targets = if strategy == Strategy::SeedSequential {
        Vec::new()
    } else {
        read_targets(&acc.borrow(), cfg)
    };
    let jobs: Vec<Job> = targets
        .into_iter()
        .enumerate()
        .map(|(k, id)| -> Job {
            Box::pin(async move {
                let payload = json!({"identifier": id, "includeChecksum": false});
                let label = format!("ReadMemory {id}");
                let r = cx
                    .ask("ReadMemory", &label, payload, false, memory::parse_read)
                    .await;
                if let Some(m) = r {
                    acc.borrow_mut().reads.push((k, m));
                }
            })
        })
        .collect();
    run_stage(strategy, jobs).await;

    // Stage 3: rank the concepts, BuildContext the top ones.
    let top = tally(&acc.borrow()).top(cfg.top_concepts);
    acc.borrow_mut().top = top.clone();
    let q = ContextQuery {
        depth: 1,
        max_entities: cfg.max_entities,
        include_content: false,
    };
    let jobs: Vec<Job> = top
        .into_iter()
        .enumerate()
        .map(|(i, c)| -> Job {
            Box::pin(async move {
                let label = format!("BuildContext {}", c.name);
                cx.started(&label);
                let r = cx.source.build_context(cx.io, &c.name, q).await;
                if let Some(b) = cx.finished(&label, r) {
                    acc.borrow_mut().graph.push((i, b));
                }
            })
        })
        .collect();
    run_stage(strategy, jobs).await;
}

/// Look up and format the session-start context for `project`. Never fails: failed or late
/// calls are left out and summarized in one warning.
pub async fn session_start(
    io: &Io,
    source: &Source,
    project: &str,
    cfg: &SessionConfig,
    strategy: Strategy,
) -> SessionStartResult {
    let acc = RefCell::new(Acc::default());
    let finished = timeout(
        io,
        cfg.start_timeout_ms,
        pipeline(
            Ctx {
                io,
                source,
                acc: &acc,
            },
            project,
            cfg,
            strategy,
        ),
    )
    .await
    .is_some();
    let mut a = acc.into_inner();
    if !finished {
        let late = if a.in_flight.is_empty() {
            "between stages".to_string()
        } else {
            a.in_flight.join(", ")
        };
        a.failures.push(format!(
            "over the {} ms session-start deadline: {late}",
            cfg.start_timeout_ms
        ));
    }
    if a.top.is_empty() && !finished {
        a.top = tally(&a).top(cfg.top_concepts);
    }
    crate::sort::sort_by_key(&mut a.graph, |(i, _)| *i);
    let graph: Vec<BuildContext> = a.graph.iter().map(|(_, b)| b.clone()).collect();

    let hits = a.search.as_ref().map(|s| s.hits.as_slice()).unwrap_or(&[]);
    let memories: Vec<MemoryRef> = hits
        .iter()
        .map(|h| MemoryRef {
            title: h.title.clone(),
            uri: Some(h.uri.clone()).filter(|u| !u.is_empty()),
            slug: last_segment(&h.uri).to_string(),
            modified: None,
        })
        .collect();
    let recent: Vec<MemoryRef> = a
        .recent
        .as_ref()
        .map(|r| r.entries())
        .unwrap_or(&[])
        .iter()
        .map(|e| MemoryRef {
            title: e.title.clone().unwrap_or_else(|| e.name.clone()),
            uri: uri_for_slug(&a, &e.name),
            slug: e.name.clone(),
            modified: e.modified.clone(),
        })
        .collect();
    let context = format::render(
        &Parts {
            project,
            concepts: &a.top,
            memories: &memories,
            recent: &recent,
            graph: &graph,
        },
        cfg.token_limit,
    );
    let log = if a.failures.is_empty() {
        Log::debug(format!(
            "session context for '{project}': {} concepts, {} maenifold calls{}",
            a.top.len(),
            a.calls,
            if context.is_none() {
                ", nothing found"
            } else {
                ""
            }
        ))
    } else {
        Log::warn(format!(
            "session context for '{project}' is partial: {} of {} maenifold calls failed ({})",
            a.failures.len(),
            a.calls,
            a.failures.join("; ")
        ))
    };
    SessionStartResult {
        project: project.to_string(),
        context,
        concepts: a.top,
        calls: a.calls,
        failures: a.failures,
        logs: vec![log],
    }
}

//! `tool.before` and `tool.after`: knowledge context for a tool call — the concepts in its
//! arguments, looked up under one deadline, the block placed where it cannot change what the
//! tool does (or queued for the tool's result). Intent governance and enforcement run around
//! it through `policy`: their block ends the call before any lookup.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use super::{
    policy, to_value, Shared, ToolAfterCall, ToolBeforeCall, ToolResult, MAX_PENDING_AFTER,
};
use crate::context::{self, Style};
use crate::knowledge::{ContextQuery, Source};
use crate::maenifold::BuildContext;
use crate::mcp::cache::CacheKey;
use crate::placement::{self, ArgsView, Placement};
use crate::protocol::{ArgEdit, Log, PathKey};
use crate::runtime::{join_all, Io};

/// `tool.before`: governance's gate and enforcement first (their block skips the lookups),
/// then knowledge context, then what governance and enforcement add to the result.
pub(super) async fn before(io: Io, shared: Rc<RefCell<Shared>>, call: ToolBeforeCall) -> Value {
    let now_ms = shared.borrow().clock.get();
    let pre = match policy::tool_before(&io, &shared, &call).await {
        Ok(pre) => pre,
        Err(blocked) => return to_value(blocked),
    };
    let view = match (&call.args, &call.excerpts) {
        (Some(a), _) => ArgsView::Full(a),
        (None, Some(e)) => ArgsView::Excerpts {
            fields: &call.fields,
            excerpts: e,
        },
        (None, None) => return to_value(ToolResult::default()),
    };
    let mut r = knowledge(
        &io,
        &shared,
        &call.tool,
        &call.call_id,
        &view,
        now_ms,
        call.result_only,
    )
    .await;
    policy::finish_tool_before(pre, &shared, &call, &view, &mut r);
    to_value(r)
}

/// `tool.after`: the context waiting for this call (taken as the call comes), then what
/// governance records.
pub(super) async fn after(io: Io, shared: Rc<RefCell<Shared>>, call: ToolAfterCall) -> Value {
    let r = deliver(&shared, &call.call_id);
    policy::tool_after(&io, &shared, call, r).await
}

/// Knowledge context for a tool call: find the concepts, look them up in parallel under one
/// deadline, place the block where it cannot change what the tool does.
async fn knowledge(
    io: &Io,
    shared: &Rc<RefCell<Shared>>,
    tool: &str,
    call_id: &str,
    args: &ArgsView<'_>,
    now_ms: u64,
    result_only: bool,
) -> ToolResult {
    let (source, cfg, host) = {
        let s = shared.borrow();
        match &s.source {
            Some(src) => (src.clone(), s.config.clone(), s.host),
            None => return ToolResult::default(), // knowledge off: a quiet no-op
        }
    };
    let mut concepts = args.concepts(host, tool);
    if concepts.is_empty() {
        return ToolResult::default();
    }
    let mut logs = Vec::new();
    if concepts.len() > cfg.max_concepts {
        logs.push(Log::debug(format!(
            "{tool}: {} concepts, looking up the first {}",
            concepts.len(),
            cfg.max_concepts
        )));
        concepts.truncate(cfg.max_concepts);
    }
    let q = ContextQuery {
        depth: cfg.depth,
        max_entities: cfg.max_entities,
        include_content: cfg.include_content,
    };
    // Answers in the cache (TTL, LRU) cost nothing; the rest start together, so one deadline
    // for all is each call's own timeout. Failures are never cached.
    let key = |c: &str| CacheKey {
        source: source.name().to_string(),
        concept: c.to_string(),
        depth: q.depth,
        max_entities: q.max_entities,
        include_content: q.include_content,
    };
    // A vault answers in process from an index it re-lists every `vaultRefreshMs`: caching its
    // answers for the cache's TTL would hide edits of the notes.
    // The MCP session has its own cache (shared with session start): one is enough.
    let use_cache = matches!(source, Source::Cli { .. });
    let cached: Vec<Option<BuildContext>> = {
        let mut s = shared.borrow_mut();
        concepts
            .iter()
            .map(|c| {
                if use_cache {
                    s.cache.get(&key(c), now_ms)
                } else {
                    None
                }
            })
            .collect()
    };
    // A vault's index is brought up to date once, and held so while the lookups run: they start
    // together, and a lookup does not wait for a refresh another one started.
    let hold = match &source {
        Source::Vault(v) => v.refreshed_and_held(io).await,
        _ => None,
    };
    let src = source.with_timeout(cfg.deadline_ms);
    let lookups = concepts
        .iter()
        .zip(&cached)
        .filter(|(_, hit)| hit.is_none())
        .map(|(c, _)| src.build_context(io, c, q))
        .collect();
    let mut fresh = join_all(lookups).await.into_iter();
    drop(hold);
    let mut answers: Vec<Option<Result<BuildContext, String>>> = Vec::with_capacity(concepts.len());
    {
        let mut s = shared.borrow_mut();
        for (c, hit) in concepts.iter().zip(cached) {
            answers.push(Some(match hit {
                Some(b) => Ok(b),
                None => {
                    let a = fresh.next().expect("one answer per miss");
                    if let (true, Ok(b)) = (use_cache, &a) {
                        s.cache.put(key(c), b.clone(), now_ms);
                    }
                    a
                }
            }));
        }
    }
    let mut found: Vec<BuildContext> = Vec::new();
    let mut failed = Vec::new();
    for (c, a) in concepts.iter().zip(answers) {
        match a {
            Some(Ok(b)) => found.push(b),
            Some(Err(e)) if e.contains("timed out") => failed.push(format!(
                "{c}: over the {} ms deadline",
                cfg.deadline_ms.min(source.timeout_ms())
            )),
            None => failed.push(format!("{c}: over the {} ms deadline", cfg.deadline_ms)),
            Some(Err(e)) => failed.push(format!("{c}: {e}")),
        }
    }
    if !failed.is_empty() {
        let level_warn = found.is_empty();
        let msg = format!(
            "context lookup failed for {} of {} concepts ({})",
            failed.len(),
            concepts.len(),
            failed.join("; ")
        );
        logs.push(if level_warn {
            Log::warn(msg)
        } else {
            Log::debug(msg)
        });
    }
    // The concepts as the host reports them: names, a section asked for (`jwt#Claims`) shown
    // as its concept, once.
    let mut names: Vec<String> = Vec::with_capacity(concepts.len());
    for c in &concepts {
        let base = crate::wikilink::split_section(c).0;
        if !names.iter().any(|n| n == base) {
            names.push(base.to_string());
        }
    }
    let mut result = ToolResult {
        concepts: names,
        logs,
        ..Default::default()
    };
    let placement = place(host, tool, args, &cfg.prompt_fields, result_only);
    let style = match &placement {
        Placement::Prepend { style, .. } => *style,
        Placement::WithResult => Style::Markdown,
    };
    let Some(block) = context::render(&found, style, cfg.token_budget) else {
        return result;
    };
    match placement {
        Placement::Prepend { field, style } => {
            let sep = match style {
                Style::ShellComment => "\n",
                Style::Markdown => "\n\n",
            };
            let (open, close) = context::delimiters(style);
            result.edits.push(ArgEdit {
                path: vec![PathKey::Key(field)],
                prepend: Some(format!("{block}{sep}")),
                strip: Some((open, close)),
                set: None,
            });
        }
        Placement::WithResult => {
            queue_for_result(shared, &mut result, call_id, block.clone(), Queue::Replace);
        }
    }
    result.context = Some(block);
    result
}

/// Where this call's text goes: the placement rules, or always with the result when the host
/// cannot show the model changed arguments (`resultOnly`).
pub(super) fn place(
    host: &crate::host::Profile,
    tool: &str,
    args: &ArgsView<'_>,
    prompt_fields: &[String],
    result_only: bool,
) -> Placement {
    if result_only {
        Placement::WithResult
    } else {
        placement::placement(host, tool, args, prompt_fields)
    }
}

/// Where a text joins what waits for a call's result.
#[cfg_attr(not(feature = "policy"), allow(dead_code))]
pub(super) enum Queue {
    /// Instead of anything queued for the call (the knowledge block: a call id seen again).
    Replace,
    /// Before what is queued, a blank line between (enforcement's advice).
    Front,
    /// After what is queued, a blank line between (the confined shell's note).
    Back,
}

/// The one queue of text for a call's result: `text` joins it as `at` says (oldest call out
/// first past `MAX_PENDING_AFTER`), and the host is asked for `tool.after`.
pub(super) fn queue_for_result(
    shared: &Rc<RefCell<Shared>>,
    r: &mut ToolResult,
    call_id: &str,
    text: String,
    at: Queue,
) {
    let mut s = shared.borrow_mut();
    if matches!(at, Queue::Replace) {
        s.after.retain(|(id, _)| id != call_id);
    }
    match s.after.iter_mut().find(|(id, _)| id == call_id) {
        Some(e) => {
            e.1 = match at {
                Queue::Front => format!("{text}\n\n{}", e.1),
                _ => format!("{}\n\n{text}", e.1),
            }
        }
        None => {
            if s.after.len() >= MAX_PENDING_AFTER {
                s.after.pop_front();
            }
            s.after.push_back((call_id.to_string(), text));
        }
    }
    r.follow_up = true;
}

/// `tool.after`: deliver context that could not go into the arguments with the tool's result
/// (taken from the queue: a second `tool.after` for the call finds nothing).
fn deliver(shared: &Rc<RefCell<Shared>>, call_id: &str) -> ToolResult {
    let mut s = shared.borrow_mut();
    let Some(pos) = s.after.iter().position(|(id, _)| id == call_id) else {
        return ToolResult::default();
    };
    let (_, block) = s.after.remove(pos).expect("position is valid");
    ToolResult {
        with_result: Some(block),
        ..Default::default()
    }
}

/// `tool.call`: a model called one of the plan's tools ([`crate::tools`]); never fails (what
/// the model did wrong is an `isError` text).
pub(super) async fn model_call(
    io: Io,
    shared: Rc<RefCell<Shared>>,
    name: String,
    input: Value,
    session_id: String,
) -> Value {
    let env = {
        let s = shared.borrow();
        crate::tools::Env {
            registry: s.tools.clone(),
            source: s.source.clone(),
            max_entities: s.config.max_entities,
            include_content: s.config.include_content,
            governed_root: s.policy.governed_root(),
        }
    };
    let select = match crate::tools::check(&env, &name, &input) {
        Err(answer) => return to_value(answer),
        Ok(crate::tools::Checked::Knowledge) => None,
        Ok(crate::tools::Checked::SelectIntent(id)) => Some(shared.borrow().policy.select_tool(
            io.clone(),
            session_id,
            id,
        )),
    };
    match select {
        Some(selecting) => to_value(selecting.await),
        None => to_value(crate::tools::call(&io, &env, &name, &input).await),
    }
}

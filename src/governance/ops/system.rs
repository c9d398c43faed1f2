//! The system-prompt block: the selected intent and the project's recent changes.

use super::*;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SystemInput {
    pub session_id: String,
    pub worktree: String,
    pub model_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemOutput {
    /// Text to push into the system prompt (empty while governance is off).
    pub system: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
}

/// Segments whose tails `<recent_changes>` reads (the most recently written).
const RECENT_SEGMENTS: usize = 8;

/// Keep the recent-records cache of `worktree` current (re-read only when a segment changed):
/// the tails of the most recently written segments and of the single-file log, merged by time.
pub(super) async fn refresh_recent(io: &Io, gov: &Governance, worktree: &str) {
    let legacy = stat(io, &join(worktree, TRACE_FILE)).await;
    let listing = super::trace_io::segment_logs(io, worktree).await;
    let mut logs: Vec<(f64, String)> = listing
        .iter()
        .map(|e| (e.mtime_ms, e.path.clone()))
        .collect();
    if logs.is_empty() && !legacy.exists {
        let mut st = gov.inner.borrow_mut();
        if let Some(p) = st.projects.get_mut(worktree) {
            p.recent.clear();
            p.trace_key = None;
        }
        return;
    }
    let size: u64 = listing.iter().map(|e| e.size).sum::<u64>() + legacy.size;
    let mtime = logs.iter().map(|l| l.0).fold(legacy.mtime_ms, f64::max);
    let key = (size ^ (logs.len() as u64).rotate_left(48), mtime.to_bits());
    if gov
        .inner
        .borrow()
        .projects
        .get(worktree)
        .and_then(|p| p.trace_key)
        == Some(key)
    {
        return;
    }
    logs.sort_by(|a, b| b.0.total_cmp(&a.0));
    logs.truncate(RECENT_SEGMENTS);
    let mut paths: Vec<String> = logs
        .iter()
        .map(|(_, f)| join(worktree, &format!("{}/{f}", segments::SEGMENT_DIR)))
        .collect();
    if legacy.exists {
        paths.push(join(worktree, TRACE_FILE));
    }
    let tails = join_all(
        paths
            .iter()
            .map(|path| {
                io.request(Request::ReadTail {
                    path: path.clone(),
                    max_bytes: RECENT_TAIL_BYTES,
                })
            })
            .collect(),
    )
    .await;
    let texts: Vec<String> = tails
        .into_iter()
        .filter_map(|v| serde_json::from_value::<ReadResult>(v).ok()?.text)
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let merged = segments::merge(&refs);
    let mut recent: Vec<RecentEntry> = merged.text.lines().filter_map(summarize).collect();
    if recent.len() > MAX_RECENT {
        recent.drain(..recent.len() - MAX_RECENT);
    }
    let mut st = gov.inner.borrow_mut();
    let p = st.projects.entry(worktree.to_string()).or_default();
    p.recent = recent;
    p.trace_key = Some(key);
}

/// One line of `<recent_changes>` from a record line.
pub(super) fn summarize(line: &str) -> Option<RecentEntry> {
    let v: Value = serde_json::from_str(line).ok()?;
    let meta = v.get("metadata")?.get("dev.hookwise")?;
    let intent = meta
        .get("intent_id")
        .and_then(Value::as_str)
        .map(str::to_string);
    let ts = v.get("timestamp").and_then(Value::as_str).unwrap_or("?");
    let tool = meta.get("tool").and_then(Value::as_str).unwrap_or("?");
    let class = meta
        .get("mutation_class")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let mut files = Vec::new();
    for f in v.get("files")?.as_array()? {
        let path = f.get("path").and_then(Value::as_str).unwrap_or("?");
        let mut spans = Vec::new();
        for c in f
            .get("conversations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for r in c
                .get("ranges")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let s = r.get("start_line").and_then(Value::as_u64).unwrap_or(0);
                let e = r.get("end_line").and_then(Value::as_u64).unwrap_or(0);
                spans.push(if s == e {
                    format!("{s}")
                } else {
                    format!("{s}-{e}")
                });
            }
        }
        files.push(match spans.as_slice() {
            [] => path.to_string(),
            [one] if !one.contains('-') => format!("{path} (line {one})"),
            _ => format!("{path} (lines {})", spans.join(", ")),
        });
    }
    Some(RecentEntry {
        intent,
        summary: format!("{ts} {tool} {} [{class}]", files.join("; ")),
    })
}

/// The `<intent_context>` block for the system prompt.
pub async fn system_context(io: &Io, gov: &Governance, input: &SystemInput) -> SystemOutput {
    let mut out = SystemOutput::default();
    if let Some(m) = &input.model_id {
        gov.set_model(&input.session_id, m);
    }
    let Some(file) = refresh(io, gov, &input.worktree, &mut out.logs).await else {
        return out;
    };
    let active = gov.active_intent(&input.session_id);
    let current = active
        .as_deref()
        .and_then(|id| file.get(id))
        .filter(|i| i.status == Status::InProgress);
    let mut t = String::from("<intent_context>\n");
    match current {
        Some(intent) => {
            refresh_recent(io, gov, &input.worktree).await;
            t.push_str(&format!(
                "Active intent: {} — {} (IN_PROGRESS). Changes to files outside its owned_scope are blocked; shell commands are allowed but not scope-checked.\n<owned_scope>{}\n</owned_scope>\n",
                intent.id,
                intent.name,
                scope_bullets(&intent.owned_scope)
            ));
            if !intent.constraints.is_empty() {
                t.push_str(&format!(
                    "<constraints>{}\n</constraints>\n",
                    bullets(&intent.constraints)
                ));
            }
            if !intent.acceptance_criteria.is_empty() {
                t.push_str(&format!(
                    "<acceptance_criteria>{}\n</acceptance_criteria>\n",
                    bullets(&intent.acceptance_criteria)
                ));
            }
            let st = gov.inner.borrow();
            let recent: Vec<String> = st
                .projects
                .get(&input.worktree)
                .map(|p| {
                    let mine: Vec<&RecentEntry> = p
                        .recent
                        .iter()
                        .filter(|r| r.intent.as_deref() == Some(intent.id.as_str()))
                        .collect();
                    mine[mine.len().saturating_sub(5)..]
                        .iter()
                        .map(|r| r.summary.clone())
                        .collect()
                })
                .unwrap_or_default();
            if recent.is_empty() {
                t.push_str("<recent_changes>\n(none recorded yet)\n</recent_changes>\n");
            } else {
                t.push_str(&format!(
                    "<recent_changes>{}\n</recent_changes>\n",
                    bullets(&recent)
                ));
            }
        }
        None => {
            t.push_str("Intent governance is on in this project: file changes (write, edit, patch) and shell commands are blocked until this session has an active intent, and file changes must stay inside that intent's owned_scope.\n");
            if let Some(id) = &active {
                match file.get(id) {
                    Some(i) => t.push_str(&format!(
                        "The intent this session had, {id}, is now {}.\n",
                        i.status.as_str()
                    )),
                    None => t.push_str(&format!(
                        "The intent this session had, {id}, is no longer in {INTENTS_FILE}.\n"
                    )),
                }
            }
            let avail: Vec<String> = file
                .selectable()
                .map(|i| format!("{}: {} — scope: {}", i.id, i.name, i.owned_scope.join(", ")))
                .collect();
            if avail.is_empty() {
                t.push_str(&format!("No intent is IN_PROGRESS in {INTENTS_FILE}, so changes are blocked; ask the user to add or reopen one.\n"));
            } else {
                t.push_str("Before changing code, call the `select_active_intent` tool with the id of the intent this task belongs to.\nAvailable intents:");
                t.push_str(&bullets(&avail));
                t.push('\n');
            }
            let closed: Vec<String> = file
                .intents
                .iter()
                .filter(|i| i.status != Status::InProgress)
                .map(|i| format!("{}: {} ({})", i.id, i.name, i.status.as_str()))
                .collect();
            if !closed.is_empty() {
                t.push_str("Not selectable:");
                t.push_str(&bullets(&closed));
                t.push('\n');
            }
        }
    }
    if let Some(p) = problems_text(&file.problems) {
        t.push_str(&p);
        t.push('\n');
    }
    t.push_str("</intent_context>");
    out.system.push(t);
    out
}

//! `tool.after`: the Agent Trace record of a mutation.

use super::*;

/// A log the host writes as the session goes, and how to find the model of its latest model
/// turn in the log's end (what a host whose hooks name no model hands governance: governance
/// knows no host's log).
#[cfg(feature = "policy")]
#[derive(Debug, Clone)]
pub struct SessionLog {
    /// Its absolute path.
    pub path: String,
    /// The model of the latest model turn in the log's end (a first line cut short is
    /// skipped), if any.
    pub model: fn(&str) -> Option<String>,
}

/// The most of a session log's end read (its latest turns).
#[cfg(feature = "policy")]
pub const LOG_TAIL_BYTES: u64 = 256 * 1024;

/// `tool.after` input: the call again, plus what the host knows now.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AfterInput {
    pub tool: String,
    pub session_id: String,
    pub call_id: String,
    pub args: Value,
    pub worktree: String,
    /// Where relative paths start; empty: the worktree.
    pub directory: String,
    /// Host time, epoch milliseconds (`Date.now()`).
    pub now_ms: f64,
    /// 16 random bytes as 32 hex characters (`crypto.randomBytes(16).toString("hex")`).
    pub random: String,
    /// The git HEAD commit, when the host knows it; otherwise it is read from `.git`.
    pub head: Option<String>,
    /// `provider/model`, when known (else the one the session last reported).
    pub model_id: Option<String>,
    /// The host's log of the session's model turns, handed in by the host layer: read only
    /// when a record is written and `model_id` is unknown.
    #[cfg(feature = "policy")]
    #[serde(skip)]
    pub model_log: Option<SessionLog>,
    /// The tool failed: nothing is recorded.
    pub failed: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AfterOutput {
    /// A record was appended.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub recorded: bool,
    /// Its id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Notices for the model with the tool's result (problems in the intents file, what a
    /// governed shell changed where it must not).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
    /// For telemetry (never sent with the answer): the record's model, intent, mutation class
    /// and the SHA-256 of its line in the chain (what the next record's `prev` names).
    #[serde(skip)]
    pub model: Option<String>,
    #[serde(skip)]
    pub intent: Option<String>,
    #[serde(skip)]
    pub class: Option<&'static str>,
    #[serde(skip)]
    pub line_hash: Option<String>,
}

fn fallback_random(input: &AfterInput) -> [u8; 16] {
    let seed = format!(
        "{}\u{0}{}\u{0}{}\u{0}{:?}",
        input.session_id, input.call_id, input.now_ms, input.args
    );
    let h = sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(
        seed.as_bytes(),
    ));
    let mut b = [0u8; 16];
    b.copy_from_slice(&h[..16]);
    b
}

/// `tool.after`: append the Agent Trace record of a mutation. Never fails the tool call: a
/// failed append is logged.
///
/// The steps: surface a pending notice; know the files the call wrote ([`pending_files`]);
/// read them as written ([`read_written`]); work out what changed and where ([`changes_of`]);
/// let the session know the files as they are now ([`Written::remember`]); append the record
/// ([`append_trace`]).
pub async fn tool_after(io: &Io, gov: &Governance, input: &AfterInput) -> AfterOutput {
    let mut out = AfterOutput::default();
    let pending = gov.take_pending(&input.call_id);
    let cfg = gov.config();
    let tool = input.tool.as_str();
    if !cfg.gated(tool) {
        return out;
    }
    let wt = input.worktree.as_str();
    if let Some(snap) = pending.as_ref().and_then(|p| p.guard.as_ref()) {
        if let Some(n) = guard::after_shell(io, gov, wt, snap, &mut out.logs).await {
            out.notices.push(n);
        }
    }
    if refresh(io, gov, wt, &mut out.logs).await.is_none() {
        return out;
    }
    if let Some(n) = pending.as_ref().and_then(|p| p.notice.as_deref()) {
        out.notices.push(n.to_string());
    }
    let entry = cfg.host.entry(tool);
    if input.failed || entry.role == Role::Shell || pending.as_ref().is_some_and(|p| p.blocked) {
        return out; // a shell command's changes are not known file by file
    }
    let Some(pending) = pending_files(pending) else {
        return out;
    };
    let written = read_written(io, wt, &pending).await;
    let changes = changes_of(entry, input, &pending, &written, &mut out.logs);
    // Whatever happened, the session now knows these files as they are.
    written.remember(gov, &input.session_id, wt);
    let Some(class) = changes.class else {
        return out;
    };
    if !changes.changed {
        out.logs.push(Log::debug(format!(
            "trace: {tool} changed nothing; no record"
        )));
        return out;
    }
    append_trace(io, gov, &cfg, input, &pending, class, changes, &mut out).await;
    out
}

/// The model of the latest model turn in a host's session log. A host may write its log a
/// little behind the calls it reports (one was seen to run a post-tool hook 110 ms after the
/// model's turn and not have it in its log yet), so a log without a model turn is read again,
/// twice, 100 ms apart; no log at all, nothing to wait for.
#[cfg(feature = "policy")]
async fn logged_model(io: &Io, log: &SessionLog) -> Option<String> {
    for attempt in 0..3 {
        if attempt > 0 {
            let _ = io.request(Request::Sleep { ms: 100 }).await;
        }
        let v = io
            .request(Request::ReadTail {
                path: log.path.clone(),
                max_bytes: LOG_TAIL_BYTES,
            })
            .await;
        let text = serde_json::from_value::<ReadResult>(v).ok()?.text?;
        if let Some(m) = (log.model)(&text) {
            return Some(m);
        }
    }
    None
}

/// The files the call wrote, as `tool.before` kept them. `None`: nothing to record.
fn pending_files(pending: Option<Pending>) -> Option<Pending> {
    // Only a call the gate saw and allowed is recorded, once: its `tool.before` left what it
    // will write. A `tool.after` without one (a PostToolUse hook tool called on its own, a
    // replay of one already recorded, a call the engine never gated) records nothing.
    pending.filter(|p| !p.files.is_empty())
}

/// The files as written: each relative path once, with what reading it gave.
struct Written {
    rels: Vec<String>,
    afters: Vec<ReadResult>,
}

/// Read every file of `pending` once, in one batch.
async fn read_written(io: &Io, wt: &str, pending: &Pending) -> Written {
    let mut rels: Vec<String> = Vec::new();
    for f in &pending.files {
        if !rels.contains(&f.rel) {
            rels.push(f.rel.clone());
        }
    }
    let abs: Vec<String> = rels.iter().map(|r| join(wt, r)).collect();
    let afters = join_all(
        abs.iter()
            .map(|p| read_text(io, p, MAX_FILE_BYTES))
            .collect(),
    )
    .await;
    Written { rels, afters }
}

impl Written {
    /// Each file's text after the call, by relative path (`None`: not readable).
    fn texts(&self) -> HashMap<&str, Option<&str>> {
        self.rels
            .iter()
            .map(String::as_str)
            .zip(self.afters.iter().map(|r| r.text.as_deref()))
            .collect()
    }

    /// The session's known reads: each file's fingerprint now (`absent` when it is gone).
    fn remember(&self, gov: &Governance, session: &str, wt: &str) {
        for (rel, r) in self.rels.iter().zip(self.afters.iter()) {
            let fp = match (&r.text, r.error) {
                (Some(t), _) => Some(format!("sha256:{}", sha256_hex(t.as_bytes()))),
                (None, e) if is_missing(e) => Some("absent".to_string()),
                _ => None,
            };
            if let Some(fp) = fp {
                gov.remember_read(session, read_key(wt, rel), fp);
            }
        }
    }
}

/// What the call changed, file by file, as the record lists it.
#[derive(Default)]
struct Changes {
    /// Each file and its changed line ranges.
    entries: Vec<(String, Vec<Range>)>,
    /// The combined mutation class; `None`: no file was looked at.
    class: Option<MutationClass>,
    /// Some file's text differs from its known earlier text (or that text is unknown).
    changed: bool,
    /// What `trace blame` follows of each file ([`trace::LinesWritten`]).
    blame: Vec<trace::LinesWritten>,
}

impl Changes {
    fn add(
        &mut self,
        rel: &str,
        from: Option<&str>,
        before: &Before,
        after: Option<&str>,
        ranges: Vec<Range>,
    ) {
        let b = match before {
            Before::Text(t) => Some(t.as_str()),
            _ => None,
        };
        if !(matches!(before, Before::Text(t) if Some(t.as_str()) == after)) {
            self.changed = true;
        }
        let c = classify(b, after);
        self.class = Some(self.class.map_or(c, |x| x.combine(c)));
        if after.is_some() || from.is_some() {
            let text = after.unwrap_or("");
            self.blame
                .push(trace::lines_written(rel, from, text, &ranges));
        }
        self.entries.push((rel.to_string(), ranges));
    }
}

fn before_text(f: &PendingFile) -> Option<&str> {
    match &f.before {
        Before::Text(t) => Some(t.as_str()),
        _ => None,
    }
}

/// The changed ranges of each written file: a patch file by file from its hunks, a write as
/// the whole file, an edit from its shape (old/new strings) or the changed block.
fn changes_of(
    entry: &host::Tool,
    input: &AfterInput,
    pending: &Pending,
    written: &Written,
    logs: &mut Vec<Log>,
) -> Changes {
    let tool = input.tool.as_str();
    let kind = entry.role;
    let after_of = written.texts();
    let by_raw = |raw: &str| pending.files.iter().find(|f| f.raw == raw);
    let mut changes = Changes::default();
    match kind {
        Role::Patch => {
            let text = host::args::patch_text(entry, &input.args)
                .ok()
                .flatten()
                .unwrap_or("");
            for op in patch::parse(text) {
                match &op {
                    FileOp::Add { path, .. } => {
                        let Some(f) = by_raw(path) else { continue };
                        let after = after_of.get(f.rel.as_str()).copied().flatten();
                        let r = after.map(ranges::whole).unwrap_or_default();
                        changes.add(&f.rel, None, &f.before, after, r);
                    }
                    FileOp::Update {
                        path,
                        move_to,
                        hunks,
                    } => {
                        let Some(src) = by_raw(path) else { continue };
                        let dst = move_to.as_deref().and_then(by_raw).unwrap_or(src);
                        let after = after_of.get(dst.rel.as_str()).copied().flatten();
                        let Some(a) = after else {
                            logs.push(Log::debug(format!(
                                "trace: {} is not readable after the patch",
                                dst.rel
                            )));
                            continue;
                        };
                        let r = ranges::patch_update(before_text(src), a, hunks);
                        let from = (dst.rel != src.rel).then_some(src.rel.as_str());
                        changes.add(&dst.rel, from, &src.before, Some(a), r);
                    }
                    FileOp::Delete { path } => {
                        let Some(f) = by_raw(path) else { continue };
                        changes.add(&f.rel, None, &f.before, None, Vec::new());
                    }
                }
            }
        }
        _ => {
            let f = &pending.files[0];
            let after = after_of.get(f.rel.as_str()).copied().flatten();
            match after {
                None => logs.push(Log::debug(format!(
                    "trace: {} is not readable after {tool}",
                    f.rel
                ))),
                Some(a) => {
                    let shape = match kind {
                        Role::Edit => host::args::edit_shape(entry, &input.args),
                        _ => EditShape::Unknown,
                    };
                    let r = match (kind, shape) {
                        (Role::Write, _) => ranges::whole(a),
                        (_, EditShape::List(list)) => ranges::edits(before_text(f), a, &list),
                        (_, EditShape::Replace { old, new, all }) => {
                            ranges::edit(before_text(f), a, old, new, all)
                        }
                        (_, EditShape::Unknown) => match before_text(f) {
                            Some(b) => ranges::changed_block(b, a),
                            None => ranges::whole(a),
                        },
                    };
                    changes.add(&f.rel, None, &f.before, Some(a), r);
                }
            }
        }
    }
    changes
}

/// Build the record (random bytes, HEAD and model from the host when it gave them, else
/// derived, read or remembered), chain it and append it to the trace.
#[allow(clippy::too_many_arguments)]
async fn append_trace(
    io: &Io,
    gov: &Governance,
    cfg: &GovConfig,
    input: &AfterInput,
    pending: &Pending,
    class: MutationClass,
    changes: Changes,
    out: &mut AfterOutput,
) {
    let wt = input.worktree.as_str();
    let random = match trace::parse_random(&input.random) {
        Some(r) => r,
        None => {
            out.logs.push(Log::debug(
                "trace: no random bytes from the host; the record id is derived from the call",
            ));
            fallback_random(input)
        }
    };
    let checkout = git::resolve(io, wt).await;
    let head = match input.head.clone().filter(|h| trace::is_git_sha(h)) {
        Some(h) => Some(h.to_ascii_lowercase()),
        None => checkout.commit.clone(),
    };
    let branch = checkout.branch.clone();
    // The writer's segment: this session, on this branch, on top of this commit.
    let segment = segments::segment_name(wt, &input.session_id, branch.as_deref(), head.as_deref());
    #[allow(unused_mut)]
    let mut model = input.model_id.clone().filter(|m| !m.is_empty());
    #[cfg(feature = "policy")]
    if model.is_none() {
        if let Some(log) = &input.model_log {
            model = logged_model(io, log).await;
        }
    }
    let model = model.or_else(|| gov.model(&input.session_id));
    let now_ms = if input.now_ms.is_finite() {
        input.now_ms as i64
    } else {
        0
    };
    let rin = RecordInput {
        random,
        now_ms,
        head: head.as_deref(),
        tool_version: &cfg.tool_version,
        model_id: model.as_deref(),
        intent_id: pending.intent.as_deref(),
        session_id: &input.session_id,
        call_id: &input.call_id,
        tool: &input.tool,
        host: cfg.host.id,
        branch: branch.as_deref(),
        segment: &segment,
    };
    let mut rec = trace::record(&rin, class, changes.entries);
    rec.metadata.hookwise.blame = changes.blame;
    rec.metadata.hookwise.enforcement = pending.enforcement.clone();
    let chained = match trace::chained(&rec) {
        Ok(c) => c,
        Err(e) => {
            out.logs.push(Log::warn(format!(
                "trace: could not serialize the record: {e}"
            )));
            return;
        }
    };
    // a torn last line found at the append is moved here and the move recorded first
    let torn_path = format!("{}.torn-{now_ms}", join(wt, &segments::log_rel(&segment)));
    let torn_name = torn_path.rsplit('/').next().unwrap_or("").to_string();
    let u = Unwritten {
        segment,
        chained,
        id: rec.id.clone(),
        tool: input.tool.clone(),
        repair: trace::repair_parts(&rec, &torn_name).unwrap_or_default(),
        torn_path,
    };
    out.model = model.clone();
    out.intent = pending.intent.clone();
    out.class = Some(class.as_str());
    if let Ok(written) = trace_io::append_record(io, gov, wt, u, &mut out.logs).await {
        out.recorded = written;
        out.id = Some(rec.id.clone());
        if written {
            out.line_hash = gov.last_appended(wt).map(|(_segment, hash)| hash);
        }
    }
}

//! `tool.after`: the Agent Trace record of a mutation.

use super::*;

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
    /// Changes to apply to the tool's output (a notice about problems in the intents file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mutations: Vec<Mutation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
}

pub(super) fn fallback_random(input: &AfterInput) -> [u8; 16] {
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
pub async fn tool_after(io: &Io, gov: &Governance, input: &AfterInput) -> AfterOutput {
    let mut out = AfterOutput::default();
    let pending = gov.take_pending(&input.call_id);
    let cfg = gov.config();
    let tool = input.tool.as_str();
    if !cfg.mutating_tools.iter().any(|t| t == tool) {
        return out;
    }
    let wt = input.worktree.as_str();
    if refresh(io, gov, wt, &mut out.logs).await.is_none() {
        return out;
    }
    if let Some(n) = pending.as_ref().and_then(|p| p.notice.clone()) {
        out.mutations.push(Mutation {
            path: vec![PathKey::Key("output".into())],
            prepend: None,
            append: Some(format!("\n\n{n}")),
            strip: None,
        });
    }
    let entry = cfg.host.entry(tool);
    let kind = entry.role;
    if input.failed || kind == Role::Shell || pending.as_ref().is_some_and(|p| p.blocked) {
        return out; // a shell command's changes are not known file by file
    }
    let pending = match pending {
        Some(p) if !p.files.is_empty() => p,
        _ => {
            // tool.before was not seen for this call: resolve now, the earlier text is unknown.
            let tgts = targets(cfg.host, tool, &input.args).unwrap_or_default();
            let raws: Vec<String> = tgts.iter().map(|t| t.path.clone()).collect();
            let resolved = resolve_paths(io, wt, &input.directory, &raws).await;
            let files = raws
                .into_iter()
                .zip(resolved)
                .filter_map(|(raw, r)| match r {
                    Resolved::Inside(rel) => Some(PendingFile {
                        raw,
                        rel,
                        before: Before::Unknown,
                    }),
                    _ => None,
                })
                .collect::<Vec<_>>();
            if files.is_empty() {
                return out;
            }
            Pending {
                blocked: false,
                intent: gov.active_intent(&input.session_id),
                files,
                notice: None,
            }
        }
    };

    // The files as written.
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
    let after_of: HashMap<&str, Option<&str>> = rels
        .iter()
        .map(String::as_str)
        .zip(afters.iter().map(|r| r.text.as_deref()))
        .collect();
    let by_raw = |raw: &str| pending.files.iter().find(|f| f.raw == raw);
    fn before_text(f: &PendingFile) -> Option<&str> {
        match &f.before {
            Before::Text(t) => Some(t.as_str()),
            _ => None,
        }
    }

    let mut entries: Vec<(String, Vec<Range>)> = Vec::new();
    let mut class: Option<MutationClass> = None;
    let mut changed = false;
    let mut add = |rel: &str,
                   before: &Before,
                   after: Option<&str>,
                   ranges: Vec<Range>,
                   entries: &mut Vec<(String, Vec<Range>)>| {
        let b = match before {
            Before::Text(t) => Some(t.as_str()),
            _ => None,
        };
        if !(matches!(before, Before::Text(t) if Some(t.as_str()) == after)) {
            changed = true;
        }
        let c = classify(b, after);
        class = Some(class.map_or(c, |x| x.combine(c)));
        entries.push((rel.to_string(), ranges));
    };
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
                        add(&f.rel, &f.before, after, r, &mut entries);
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
                            out.logs.push(Log::debug(format!(
                                "trace: {} is not readable after the patch",
                                dst.rel
                            )));
                            continue;
                        };
                        let r = ranges::patch_update(before_text(src), a, hunks);
                        add(&dst.rel, &src.before, Some(a), r, &mut entries);
                    }
                    FileOp::Delete { path } => {
                        let Some(f) = by_raw(path) else { continue };
                        add(&f.rel, &f.before, None, Vec::new(), &mut entries);
                    }
                }
            }
        }
        _ => {
            let f = &pending.files[0];
            let after = after_of.get(f.rel.as_str()).copied().flatten();
            match after {
                None => out.logs.push(Log::debug(format!(
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
                    add(&f.rel, &f.before, Some(a), r, &mut entries);
                }
            }
        }
    }
    // Whatever happened, the session now knows these files as they are.
    for (rel, r) in rels.iter().zip(afters.iter()) {
        let fp = match (&r.text, r.error.as_deref()) {
            (Some(t), _) => Some(format!("sha256:{}", sha256_hex(t.as_bytes()))),
            (None, Some(e)) if is_missing(e) => Some("absent".to_string()),
            _ => None,
        };
        if let Some(fp) = fp {
            gov.remember_read(&input.session_id, read_key(wt, rel), fp);
        }
    }
    let Some(class) = class else {
        return out;
    };
    if !changed {
        out.logs.push(Log::debug(format!(
            "trace: {tool} changed nothing; no record"
        )));
        return out;
    }

    let random = match trace::parse_random(&input.random) {
        Some(r) => r,
        None => {
            out.logs.push(Log::debug(
                "trace: no random bytes from the host; the record id is derived from the call",
            ));
            fallback_random(input)
        }
    };
    let head = match input.head.clone().filter(|h| trace::is_git_sha(h)) {
        Some(h) => Some(h),
        None => git::head(io, wt).await,
    };
    let model = input
        .model_id
        .clone()
        .filter(|m| !m.is_empty())
        .or_else(|| gov.model(&input.session_id));
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
        tool,
    };
    let rec = trace::record(&rin, class, entries);
    let chained = match trace::chained(&rec) {
        Ok(c) => c,
        Err(e) => {
            out.logs.push(Log::warn(format!(
                "trace: could not serialize the record: {e}"
            )));
            return out;
        }
    };
    let u = Unwritten {
        chained,
        id: rec.id.clone(),
        tool: tool.to_string(),
    };
    if let Ok(written) = trace_io::append_record(io, gov, wt, u, &mut out.logs).await {
        out.recorded = written;
        out.id = Some(rec.id.clone());
    }
    out
}

//! `tool.before`: remember reads, gate mutating tools, keep what the record will need.

use super::*;

/// `tool.before` input.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolCallInput {
    pub tool: String,
    pub session_id: String,
    pub call_id: String,
    pub args: Value,
    /// Absolute path of the worktree (OpenCode `worktree`, VS Code `workspaceRoot`).
    pub worktree: String,
    /// Where relative paths start (OpenCode `directory`, when it is below the worktree);
    /// empty: the worktree.
    pub directory: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GateOutput {
    /// Set: block the call; the text is what the model reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// The host must call `tool.after` (the record) for this call id.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub follow_up: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
    /// The rule a block applied (`gate::rule`, or `locked`, `stale_write`, `trace_unwritten`);
    /// empty when allowed. For telemetry; never sent with the answer.
    #[serde(skip)]
    pub rule: &'static str,
    /// The class of each path the gate checked (`in_scope`, `out_of_scope`, …; never a path).
    #[serde(skip)]
    pub classes: Vec<&'static str>,
    /// The session's active intent when the gate ran.
    #[serde(skip)]
    pub intent: Option<String>,
    /// An allowed shell call: the scope its confinement is made from (`confine`), and, once
    /// the engine has confined it, the argument changes and the note for the model.
    #[serde(skip)]
    pub shell: Option<super::super::confine::ShellCall>,
    #[serde(skip)]
    pub confined: Vec<ArgEdit>,
    #[serde(skip)]
    pub confine_note: Option<String>,
}

/// `tool.before` for governance: remember reads; gate mutating tools; keep what the record
/// needs. A quiet no-op while governance is off.
pub async fn tool_before(io: &Io, gov: &Governance, input: &ToolCallInput) -> GateOutput {
    let mut out = GateOutput::default();
    let cfg = gov.config();
    let tool = input.tool.as_str();
    let gated = cfg.gated(tool);
    if !gated && !cfg.read_tools.iter().any(|t| t == tool) {
        return out;
    }
    // every gated tool (default deny: not only the configured `mutatingTools`)
    if gated {
        if let Some(msg) = guard::locked(io, gov, &input.worktree, tool).await {
            out.block = Some(msg);
            out.rule = "locked";
            gov.put_blocked(&input.call_id);
            return out;
        }
    }
    let Some(file) = refresh(io, gov, &input.worktree, &mut out.logs).await else {
        return out;
    };
    let wt = input.worktree.as_str();

    if !gated {
        if cfg.stale_writes {
            // every file the call reads (Cline's read_files reads a list)
            for p in host::args::read_paths(cfg.host, cfg.host.entry(tool), &input.args) {
                if let Some(Resolved::Inside(rel)) =
                    resolve_paths(io, wt, &input.directory, &[p.to_string()])
                        .await
                        .pop()
                {
                    if let Some((fp, _)) = fingerprint(io, &join(wt, &rel)).await {
                        gov.remember_read(&input.session_id, read_key(wt, &rel), fp);
                    }
                }
            }
        }
        return out;
    }

    if let Some(spelling) = guard::shell_names_governance(cfg.host, tool, &input.args) {
        out.block = Some(guard::names_block(tool, &spelling));
        out.rule = gate::rule::PROTECTED;
        gov.put_blocked(&input.call_id);
        return out;
    }
    // The other governance paths (hookwise's configuration, SOPs, install; issue 38) are not
    // read for here: under governance a shell runs only confined by the kernel, which makes
    // them read-only (or not at all), so a command that merely names one (`cat
    // .hookwise/hookwise.json`, `ls sops`) runs. Enforcement-only projects, where no kernel
    // confines the shell, still read for them (`protected::enforcement_block`).
    let active = gov.active_intent(&input.session_id);
    out.intent = active.clone();
    let scope = active.as_deref().and_then(|id| gov.scope(wt, &file, id));
    let tgts: Vec<Target> = targets(cfg.host, tool, &input.args).unwrap_or_default();
    let raws: Vec<String> = tgts.iter().map(|t| t.path.clone()).collect();
    let intent_ok = active
        .as_deref()
        .and_then(|id| file.get(id))
        .map(|i| i.status == Status::InProgress)
        .unwrap_or(false);
    let resolved = if intent_ok && !raws.is_empty() {
        resolve_writes(io, wt, &input.directory, &raws).await
    } else {
        Vec::new()
    };
    let map: HashMap<&str, &Resolved> = raws
        .iter()
        .map(String::as_str)
        .zip(resolved.iter())
        .collect();
    let state = GateState {
        host: cfg.host,
        gated: &|t| cfg.gated(t),
        intents: &file,
        active: active.as_deref(),
        scope: scope.as_deref(),
    };
    let shell = cfg.host.entry(tool).role == Role::Shell;
    let (decision, rule, classes) = gate::gate_ruled(tool, &input.args, &state, &mut |p| {
        map.get(p)
            .map(|r| (*r).clone())
            .unwrap_or_else(|| Resolved::Invalid("could not be resolved".into()))
    });
    out.classes = classes;
    if shell && decision == Decision::Allow {
        out.shell = Some(super::super::confine::ShellCall {
            scope: active
                .as_deref()
                .and_then(|id| file.get(id))
                .map(|i| i.owned_scope.clone())
                .unwrap_or_default(),
            intent: active.clone(),
            enforcement_only: false,
        });
    }
    if let Decision::Block(mut msg) = decision {
        out.rule = rule;
        if let Some(n) = gov
            .take_notice(wt)
            .or_else(|| problems_text(&file.problems))
        {
            msg.push_str("\n\n");
            msg.push_str(&n);
        }
        out.block = Some(msg);
        gov.put_blocked(&input.call_id);
        return out;
    }

    // Allowed by the gate, but no change without its record: records that could not be
    // written are written first, or the call is blocked.
    if let Some(msg) = trace_io::gate_unwritten(io, gov, wt, tool, &mut out.logs).await {
        out.block = Some(msg);
        out.rule = "trace_unwritten";
        gov.put_blocked(&input.call_id);
        return out;
    }

    // Allowed: stale-write check, and the earlier text of each file for the record.
    let mut files: Vec<(Target, String)> = Vec::new();
    for (t, r) in tgts.iter().zip(resolved.iter()) {
        if let Some(rel) = r.file() {
            if !files.iter().any(|(_, x)| x == rel) || t.op == TargetOp::MoveTo {
                files.push((t.clone(), rel.to_string()));
            }
        }
    }
    let abs: Vec<String> = files.iter().map(|(_, rel)| join(wt, rel)).collect();
    let fps = join_all(abs.iter().map(|p| fingerprint(io, p)).collect()).await;
    let mut stale = Vec::new();
    let mut pending_files = Vec::new();
    for ((t, rel), fp) in files.iter().zip(fps) {
        let (fp, before) = fp.unwrap_or_else(|| ("dir".into(), Before::Unknown));
        if cfg.stale_writes && t.op != TargetOp::MoveTo {
            if let Some(known) = gov.known_read(&input.session_id, &read_key(wt, rel)) {
                if known != fp {
                    stale.push(format!("`{rel}`"));
                }
            }
        }
        pending_files.push(PendingFile {
            raw: t.path.clone(),
            rel: rel.clone(),
            before,
        });
    }
    if !stale.is_empty() {
        let (what, it) = if stale.len() == 1 {
            (format!("{} has", stale[0]), "it")
        } else {
            (format!("{} have", stale.join(", ")), "them")
        };
        out.rule = "stale_write";
        out.block = Some(format!(
            "hookwise blocked `{tool}`: {what} changed on disk since this session last read {it} (another session or process wrote to {it}). Read {it} again, then make the change on the current content."
        ));
        gov.put_blocked(&input.call_id);
        return out;
    }
    let guard = if cfg.host.entry(tool).role == Role::Shell {
        Some(guard::snapshot(io, gov, wt).await)
    } else {
        None
    };
    let notice = gov.take_notice(wt);
    if !pending_files.is_empty() || notice.is_some() || guard.is_some() {
        gov.put_pending(
            &input.call_id,
            Pending {
                blocked: false,
                intent: active,
                files: pending_files,
                notice,
                guard,
                enforcement: None,
            },
        );
        out.follow_up = true;
    }
    out
}

/// The governance path beyond `.orchestration/` a shell call of `tool` names, if it does.
pub fn shell_names_protected(host: &Profile, tool: &str, args: &Value) -> Option<&'static str> {
    if host.entry(tool).role != Role::Shell {
        return None;
    }
    host::args::command_lines(host, tool, args)?
        .iter()
        .find_map(|l| crate::governance::protected::names_protected(l))
}

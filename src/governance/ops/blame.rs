//! `hookwise trace blame FILE` / `engine.blame(path)` (policy build): the file, the trace log,
//! its head and the intents read here; the attribution itself is [`crate::governance::blame`].
//!
//! Blame reads only what governance would let a read tool name: a path that resolves (through
//! the host's realpath) inside the project, a regular file of at most [`MAX_BLAME_BYTES`], text
//! without NUL bytes. Anything else is answered with `ok: false` and the reason; a log that
//! does not verify is still blamed, and `verify` says so.

use super::*;
use crate::governance::blame::{self, Attribution};

/// The largest file blamed (the size governance reads a written file up to).
pub const MAX_BLAME_BYTES: u64 = MAX_FILE_BYTES;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BlameInput {
    pub worktree: String,
    /// The file: absolute, or relative to the worktree.
    pub path: String,
    /// Also render the terminal table (`table`).
    pub table: bool,
}

/// The chain's verdict as blame gives it (the same as `trace verify`'s).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainVerdict {
    pub ok: bool,
    /// The log's lines (records or not).
    pub lines: usize,
    pub problems: Vec<chain_problem::ChainProblem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Segments read (the single-file log counts as one).
    pub segments: usize,
}

mod chain_problem {
    pub use crate::governance::chain::ChainProblem;
}

/// `{path, ok, error?, verify, records, summary, lines, table?}` (see docs/engine-api.md).
pub async fn trace_blame(io: &Io, gov: &Governance, input: &BlameInput) -> Value {
    let wt = input.worktree.trim_end_matches('/');
    let fail = |path: &str, e: String| {
        serde_json::json!({"path": path, "ok": false, "error": e, "lines": [], "records": 0,
            "summary": {"agent": 0, "changed": 0, "unattributed": 0}})
    };
    if wt.is_empty() {
        return fail(&input.path, "no project folder given".into());
    }
    let rel = match resolve_paths(io, wt, wt, std::slice::from_ref(&input.path))
        .await
        .pop()
    {
        Some(Resolved::Inside(rel)) => rel,
        Some(Resolved::Outside(p)) => {
            return fail(
                &input.path,
                format!("{p} is outside the project ({wt}): blame reads only the project's files"),
            )
        }
        Some(Resolved::Invalid(why) | Resolved::Refused(why)) => return fail(&input.path, why),
        Some(Resolved::Linked { real, .. }) => real,
        None => return fail(&input.path, "no path given".into()),
    };
    let abs = join(wt, &rel);
    let st = stat(io, &abs).await;
    if !st.exists {
        return fail(&rel, format!("{rel}: no such file"));
    }
    if !st.is_file {
        return fail(&rel, format!("{rel} is not a regular file"));
    }
    // a file with more than one name may be the same bytes as a file outside the project
    // (issue 38): refused, as a write to it is
    let facts = io
        .request(Request::Lstat {
            paths: vec![abs.clone()],
        })
        .await;
    let nlink = facts
        .get("facts")
        .and_then(|f| f.get(0))
        .and_then(|e| e.get(2))
        .and_then(Value::as_u64)
        .unwrap_or(1);
    if nlink > 1 {
        return fail(
            &rel,
            format!("{rel} is a hard link (the file has {nlink} names, which may lie outside the project): blame reads only files the project alone holds"),
        );
    }
    if st.size > MAX_BLAME_BYTES {
        return fail(
            &rel,
            format!(
                "{rel} is {} bytes: blame reads files up to {MAX_BLAME_BYTES} bytes",
                st.size
            ),
        );
    }
    let file = read_text(io, &abs, MAX_BLAME_BYTES).await;
    let Some(text) = file.text else {
        if file.error == Some(crate::protocol::ReplyError::NotUtf8) {
            return fail(&rel, format!("{rel} is not UTF-8 text (a binary file?)"));
        }
        return fail(
            &rel,
            format!("cannot read {rel}: {}", file.describe_error()),
        );
    };
    if text.contains('\0') {
        return fail(&rel, format!("{rel} is a binary file (it holds NUL bytes)"));
    }
    let mut logs = Vec::new();
    let intents = refresh(io, gov, wt, &mut logs).await;
    // every segment, verified as `trace verify` does, then their records merged by time
    let (v, set) = trace_io::read_and_verify(
        io,
        gov,
        &VerifyInput {
            worktree: wt.to_string(),
            anchor: None,
        },
    )
    .await;
    let verify = ChainVerdict {
        ok: v.report.ok,
        lines: v.report.lines,
        problems: v.report.problems,
        error: v.error,
        segments: v.segments.len(),
    };
    let merged = crate::governance::segments::merge(&set.texts());
    let name = |id: &str| {
        intents
            .as_ref()
            .and_then(|f| f.get(id).map(|i| i.name.clone()))
    };
    let mut att = blame::blame(&rel, &text, &merged.text, &name);
    // each writer's line of the merged log back to its segment and line there
    let multi = set.names.len() > 1
        || set
            .names
            .first()
            .is_some_and(|n| n != crate::governance::segments::LEGACY_NAME);
    for w in &mut att.writers {
        if let Some(&(s, line)) = w
            .trace_line
            .checked_sub(1)
            .and_then(|i| merged.origin.get(i))
        {
            w.trace_line = line;
            if multi {
                w.segment = crate::governance::segments::log_rel(&set.names[s]);
            }
        }
    }
    answer(&rel, &text, &att, verify, input.table)
}

fn answer(rel: &str, text: &str, att: &Attribution, verify: ChainVerdict, table: bool) -> Value {
    let (agent, changed, unattributed) = att.counts();
    let chain = if verify.ok && verify.segments > 1 {
        format!(
            "verified ({} record line(s) in {} segments)",
            verify.lines, verify.segments
        )
    } else if verify.ok {
        format!("verified ({} record line(s))", verify.lines)
    } else if let Some(e) = &verify.error {
        format!("NOT VERIFIED ({e})")
    } else {
        format!(
            "DOES NOT VERIFY ({} problem(s), see `hookwise trace verify`)",
            verify.problems.len()
        )
    };
    let mut v = serde_json::json!({
        "path": rel,
        "ok": true,
        "verify": verify,
        "records": att.records,
        "summary": {"agent": agent, "changed": changed, "unattributed": unattributed},
        "lines": att.lines(),
    });
    if table {
        v["table"] = Value::String(blame::table(rel, text, att, &chain));
    }
    v
}

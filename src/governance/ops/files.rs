//! Reading the project through the host: the intents file, a file's text and fingerprint,
//! realpath-resolved paths.

use super::*;
use crate::governance::reading::{read_write_path, Node};
use crate::protocol::{LstatResult, ReplyError};

pub(super) use crate::paths::join;

pub(super) fn read_key(worktree: &str, rel: &str) -> String {
    format!("{worktree}\u{0}{rel}")
}

pub(super) fn problems_text(problems: &[Problem]) -> Option<String> {
    if problems.is_empty() {
        return None;
    }
    let mut s = format!("Problems in {INTENTS_FILE} (entries with errors were not loaded):");
    for p in problems {
        s.push_str(&format!("\n- {p}"));
    }
    Some(s)
}

pub(super) async fn read_text(io: &Io, path: &str, max: u64) -> ReadResult {
    let v = io
        .request(Request::ReadFile {
            path: path.to_string(),
            max_bytes: max,
        })
        .await;
    serde_json::from_value(v)
        .unwrap_or_else(|e| ReadResult::failed(ReplyError::Other, format!("bad reply: {e}")))
}

pub(super) async fn stat(io: &Io, path: &str) -> StatResult {
    let v = io
        .request(Request::Stat {
            path: path.to_string(),
        })
        .await;
    serde_json::from_value(v).unwrap_or_default()
}

pub(super) fn is_missing(err: Option<ReplyError>) -> bool {
    err == Some(ReplyError::NotFound)
}

/// Load (or reuse) the intents of `worktree`. `None`: governance is off there.
pub(super) async fn refresh(
    io: &Io,
    gov: &Governance,
    worktree: &str,
    logs: &mut Vec<Log>,
) -> Option<Rc<IntentFile>> {
    let enabled = gov.config().enabled;
    if enabled == Enabled::Off || worktree.is_empty() {
        return None;
    }
    let path = join(worktree, INTENTS_FILE);
    let st = stat(io, &path).await;
    let seen = (st.exists && st.is_file && st.mtime_ms > 0.0).then_some((st.size, st.mtime_ms));
    if seen.is_some() {
        let g = gov.inner.borrow();
        if let Some(p) = g.projects.get(worktree) {
            if p.yaml_stat == seen && p.file.is_some() {
                return p.file.clone();
            }
        }
    }
    let r = if st.exists || st.error.is_some_and(|e| e != ReplyError::NotFound) {
        read_text(io, &path, MAX_INTENTS_BYTES).await
    } else {
        ReadResult {
            error: Some(ReplyError::NotFound),
            ..Default::default()
        }
    };
    let size = r.size;
    let (key, text, failed) = match (r.text, r.error) {
        (Some(text), _) => (sha256_hex(text.as_bytes()), Some(text), None),
        (None, code) => {
            let err = code.map_or_else(|| "no reply".into(), |e| e.describe(r.detail.as_deref()));
            let dangling = is_missing(code) && st.is_symlink;
            if is_missing(code) && enabled == Enabled::Auto && !dangling {
                let mut st = gov.inner.borrow_mut();
                if let Some(p) = st.projects.get_mut(worktree) {
                    p.file = None;
                    p.yaml_key = None;
                    p.yaml_stat = None;
                }
                return None;
            }
            let message = if dangling {
                "the file is a symlink whose target does not exist, so the intents cannot be read; changes are blocked until it is a readable file again (ask the user)".to_string()
            } else if is_missing(code) {
                "the file does not exist; governance is on by option, so changes are blocked until intents are added (hookwise init creates the file)".to_string()
            } else {
                intents::unreadable(&err, size)
            };
            let f = IntentFile {
                intents: Vec::new(),
                problems: vec![Problem {
                    file: INTENTS_FILE.into(),
                    line: 1,
                    severity: Severity::Error,
                    message,
                }],
            };
            (format!("error:{err}"), None, Some(f))
        }
    };
    let mut st = gov.inner.borrow_mut();
    let p = st.projects.entry(worktree.to_string()).or_default();
    p.yaml_stat = seen;
    if p.yaml_key.as_deref() == Some(key.as_str()) {
        if let Some(f) = &p.file {
            return Some(f.clone());
        }
    }
    let parsed = match (text, failed) {
        (Some(t), _) => intents::parse(INTENTS_FILE, &t),
        (None, f) => f.unwrap_or_default(),
    };
    for prob in &parsed.problems {
        logs.push(Log::warn(prob.to_string()));
    }
    p.problems_unsurfaced = !parsed.problems.is_empty();
    p.yaml_key = Some(key);
    p.scopes.clear();
    let f = Rc::new(parsed);
    p.file = Some(f.clone());
    Some(f)
}

/// Run `read` on every raw path with the facts known so far, ask the host (`ask`, one batch)
/// for every fact it missed, and run it again until nothing new is asked; after `max` rounds
/// every path is `exhausted`. A run that missed a fact is not taken.
async fn in_rounds<N: Clone, F: std::future::Future<Output = Vec<N>>>(
    raws: &[String],
    max: usize,
    read: impl Fn(&str, &mut dyn FnMut(&str) -> Option<N>) -> Resolved,
    ask: impl Fn(Vec<String>) -> F,
    exhausted: &str,
) -> Vec<Resolved> {
    let mut known: HashMap<String, N> = HashMap::new();
    for _ in 0..max {
        let mut misses: Vec<String> = Vec::new();
        let mut out = Vec::with_capacity(raws.len());
        for raw in raws {
            let mut look = |q: &str| {
                let v = known.get(q).cloned();
                if v.is_none() && !misses.iter().any(|m| m == q) {
                    misses.push(q.to_string());
                }
                v
            };
            out.push(read(raw, &mut look));
        }
        if misses.is_empty() {
            return out;
        }
        let facts = ask(misses.clone()).await;
        known.extend(misses.into_iter().zip(facts));
    }
    raws.iter()
        .map(|_| Resolved::Invalid(exhausted.into()))
        .collect()
}

/// Resolve paths with the host's realpaths (one batch of stats per round; a second round only
/// after `..`): the reading of reads.
pub async fn resolve_paths(io: &Io, worktree: &str, base: &str, raws: &[String]) -> Vec<Resolved> {
    let read = |raw: &str, look: &mut dyn FnMut(&str) -> Option<Option<String>>| {
        resolve_from(worktree, base, raw, &mut |q| look(q).flatten())
    };
    let ask = |misses: Vec<String>| async move {
        let stats = join_all(misses.iter().map(|m| stat(io, m)).collect()).await;
        stats
            .into_iter()
            .map(|s| if s.exists { s.realpath } else { None })
            .collect()
    };
    in_rounds(raws, 8, read, ask, "too many levels of symlinks").await
}

/// Where writes to `raws` land ([`crate::governance::reading`]): the host's `lstat` of every
/// component the two readings walk through, one batched `Lstat` per round (a second round only
/// to follow symlinks' targets), until nothing new is asked.
pub async fn resolve_writes(io: &Io, worktree: &str, base: &str, raws: &[String]) -> Vec<Resolved> {
    let read = |raw: &str, look: &mut dyn FnMut(&str) -> Option<Node>| {
        read_write_path(worktree, base, raw, look)
    };
    let ask = |misses: Vec<String>| async move {
        let n = misses.len();
        let v = io.request(Request::Lstat { paths: misses }).await;
        let reply: LstatResult = serde_json::from_value(v).unwrap_or_default();
        let mut facts = reply.facts.into_iter();
        (0..n)
            .map(|_| match facts.next() {
                Some((kind, target, nlink)) => Node::from_entry(&kind, target, nlink),
                None => Node::Unreadable("the host did not answer".into()),
            })
            .collect()
    };
    in_rounds(raws, 16, read, ask, "too many levels of symlinks").await
}

/// A file's content fingerprint and text. `None` for a folder or an unreadable path.
pub(super) async fn fingerprint(io: &Io, path: &str) -> Option<(String, Before)> {
    let r = read_text(io, path, MAX_FILE_BYTES).await;
    match (r.text, r.error) {
        (Some(t), _) => {
            let fp = format!("sha256:{}", sha256_hex(t.as_bytes()));
            // Large files are not kept for the record (ranges then fall back; see `ranges`).
            let before = if t.len() > MAX_KEPT_TEXT {
                Before::Unknown
            } else {
                Before::Text(t)
            };
            Some((fp, before))
        }
        (None, e) if is_missing(e) => Some(("absent".into(), Before::Absent)),
        (None, _) => {
            let s = stat(io, path).await;
            if !s.exists {
                Some(("absent".into(), Before::Absent))
            } else if s.is_dir {
                None
            } else {
                Some((format!("stat:{}:{}", s.size, s.mtime_ms), Before::Unknown))
            }
        }
    }
}

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

/// Resolve paths with the host's realpaths: run the resolver, stat what it asked about, and
/// run it again until it asks nothing new (one batch per round; a second round only after `..`).
pub async fn resolve_paths(io: &Io, worktree: &str, base: &str, raws: &[String]) -> Vec<Resolved> {
    let mut known: HashMap<String, Option<String>> = HashMap::new();
    for _ in 0..8 {
        let mut misses: Vec<String> = Vec::new();
        let mut out = Vec::with_capacity(raws.len());
        for raw in raws {
            let mut look = |q: &str| match known.get(q) {
                Some(v) => v.clone(),
                None => {
                    if !misses.iter().any(|m| m == q) {
                        misses.push(q.to_string());
                    }
                    None
                }
            };
            out.push(resolve_from(worktree, base, raw, &mut look));
        }
        if misses.is_empty() {
            return out;
        }
        let stats = join_all(misses.iter().map(|m| stat(io, m)).collect()).await;
        for (m, s) in misses.into_iter().zip(stats) {
            let real = if s.exists { s.realpath } else { None };
            known.insert(m, real);
        }
    }
    raws.iter()
        .map(|_| Resolved::Invalid("too many levels of symlinks".into()))
        .collect()
}

/// Where writes to `raws` land ([`crate::governance::reading`]): the host's `lstat` of every
/// component the two readings walk through, one batched `Lstat` per round (a second round only
/// to follow symlinks' targets), until nothing new is asked.
pub async fn resolve_writes(io: &Io, worktree: &str, base: &str, raws: &[String]) -> Vec<Resolved> {
    let mut known: HashMap<String, Node> = HashMap::new();
    for _ in 0..16 {
        let mut misses: Vec<String> = Vec::new();
        let mut out = Vec::with_capacity(raws.len());
        for raw in raws {
            let mut look = |q: &str| match known.get(q) {
                Some(n) => Some(n.clone()),
                None => {
                    if !misses.iter().any(|m| m == q) {
                        misses.push(q.to_string());
                    }
                    None
                }
            };
            out.push(read_write_path(worktree, base, raw, &mut look));
        }
        if misses.is_empty() {
            return out;
        }
        let v = io
            .request(Request::Lstat {
                paths: misses.clone(),
            })
            .await;
        let reply: LstatResult = serde_json::from_value(v).unwrap_or_default();
        let mut entries = reply.facts.into_iter();
        for m in misses {
            let n = match entries.next() {
                Some((kind, target, nlink)) => Node::from_entry(&kind, target, nlink),
                None => Node::Unreadable("the host did not answer".into()),
            };
            known.insert(m, n);
        }
    }
    raws.iter()
        .map(|_| Resolved::Refused("too many levels of symlinks".into()))
        .collect()
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

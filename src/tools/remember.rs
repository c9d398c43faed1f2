//! `knowledge_remember {title, text, concepts?}` (option `knowledgeRemember`, off by default):
//! a new note in the vault's `hookwise/` folder (never overwriting: a name that exists gets a
//! suffix), indexed at once; or maenifold's WriteMemory into its `hookwise` folder. Title, text
//! and concepts are redacted first ([`crate::redact`]).
//!
//! In the policy build only: it is opt-in, and the lean wasm every project loads stays under
//! its size budget (with the option on, the lean build's `init` asks for the policy build).

use serde_json::{json, Map, Value};

use super::knowledge::{
    ask, check_keys, missing, one_line, text_arg, MAX_CONCEPTS, MAX_CONCEPT_CHARS, MAX_TEXT_CHARS,
    MAX_TITLE_CHARS, REMEMBER,
};
use super::{clip, Answer};
use crate::knowledge::{Source, VaultIndex};
use crate::protocol::{ReplyError, Request};
use crate::runtime::Io;

/// The folder (of the vault, or maenifold's memory) new notes go to.
pub const REMEMBER_FOLDER: &str = "hookwise";
/// Names tried for one note (`slug`, `slug-2`, … `slug-50`) before giving up.
const MAX_SUFFIX: u32 = 50;

pub async fn knowledge_remember(
    io: &Io,
    source: &Source,
    input: &Map<String, Value>,
    governed_root: Option<&str>,
) -> Result<Answer, String> {
    check_keys(REMEMBER, input, &["title", "text", "concepts"])?;
    // With intent governance on, a note inside the project would be a change no intent covers:
    // refused before anything is read or written (fail closed).
    if let (Source::Vault(v), Some(root)) = (source, governed_root) {
        if !root.is_empty() && crate::paths::inside(&v.root, root) {
            return Err(format!(
                "{REMEMBER}: intent governance is on and the vault lies inside the project, so a new note would be a change no intent covers; nothing was written. Put the note in a file through an intent instead."
            ));
        }
    }
    let title = text_arg(REMEMBER, input, "title", MAX_TITLE_CHARS)?;
    let text = text_arg(REMEMBER, input, "text", MAX_TEXT_CHARS)?;
    let concepts: Vec<String> = match input.get("concepts") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) if a.len() <= MAX_CONCEPTS => {
            let mut out = Vec::new();
            for v in a {
                let s = v
                    .as_str()
                    .ok_or_else(|| format!("{REMEMBER}: `concepts` must be a list of strings."))?;
                let s = s.trim();
                let s = s.strip_prefix("[[").unwrap_or(s);
                let s = s.strip_suffix("]]").unwrap_or(s).trim();
                if s.chars().count() > MAX_CONCEPT_CHARS {
                    return Err(format!("{REMEMBER}: a concept is too long (at most {MAX_CONCEPT_CHARS} characters)."));
                }
                if !s.is_empty() && !s.contains(['[', ']', '\n', '\r']) {
                    out.push(s.to_string());
                }
            }
            out
        }
        Some(_) => {
            return Err(format!(
                "{REMEMBER}: `concepts` must be a list of at most {MAX_CONCEPTS} strings."
            ))
        }
    };
    // Secrets never reach the knowledge base.
    let title = one_line(&crate::redact::redact(&title), MAX_TITLE_CHARS);
    let text = crate::redact::redact(&text).into_owned();
    let concepts: Vec<String> = concepts
        .iter()
        .map(|c| crate::redact::redact(c).into_owned())
        .collect();
    let mut body = format!("# {title}\n\n{}\n", text.trim_end());
    if !concepts.is_empty() {
        let links: Vec<String> = concepts.iter().map(|c| format!("[[{c}]]")).collect();
        body.push_str(&format!("\nConcepts: {}\n", links.join(", ")));
    }
    match source {
        Source::Vault(v) => remember_in_vault(io, v, &title, &body).await,
        _ => remember_in_maenifold(io, source, &title, &body).await,
    }
}

/// A file name from a title: lowercase letters, digits and dashes (maenifold's slug rule),
/// with no secret in it.
pub fn slug(title: &str) -> String {
    let mut s = String::new();
    for ch in title.chars().flat_map(char::to_lowercase) {
        if ch.is_ascii_alphanumeric() {
            s.push(ch);
        } else if (ch.is_whitespace() || ch == '-' || ch == '_')
            && !s.ends_with('-')
            && !s.is_empty()
        {
            s.push('-');
        }
        if s.len() >= 80 {
            break;
        }
    }
    // no secret in a file name, even one the slug reshaped (case, `_`): [`crate::redact::safe_name`]
    let s = crate::redact::safe_name(s.trim_matches('-'));
    if s.is_empty() {
        "note".into()
    } else {
        s
    }
}

async fn remember_in_vault(
    io: &Io,
    v: &VaultIndex,
    title: &str,
    body: &str,
) -> Result<Answer, String> {
    let base = slug(title);
    let root = v.root.trim_end_matches('/');
    // The notes' folder must lie in the vault: a `hookwise` symlink leading out of it (into
    // the project, anywhere) would have the note written there. (`root` is resolved; a
    // dangling link fails the create below.)
    let folder = format!("{root}/{REMEMBER_FOLDER}");
    let st = Box::pin(io.request(Request::Stat { path: folder })).await;
    let st: crate::protocol::StatResult = serde_json::from_value(st).unwrap_or_default();
    if st.exists {
        let real = st.realpath.as_deref().unwrap_or("");
        if !st.is_dir || real == root || !crate::paths::inside(real, root) {
            return Err(format!(
                "{REMEMBER}: the vault's `{REMEMBER_FOLDER}` folder leads out of the vault (to {real}); nothing was written. Tell the user."
            ));
        }
    }
    for n in 1..=MAX_SUFFIX {
        let rel = if n == 1 {
            format!("{REMEMBER_FOLDER}/{base}.md")
        } else {
            format!("{REMEMBER_FOLDER}/{base}-{n}.md")
        };
        let reply = Box::pin(io.request(Request::CreateFile {
            path: format!("{root}/{rel}"),
            text: body.to_string(),
        }))
        .await;
        if reply.get("ok").and_then(Value::as_bool) == Some(true) {
            // indexed now: the next search finds it without waiting for a refresh
            // (through the refresh's own entry, which the wasm already carries)
            let opened = (body.len() as u64, v.clock.get() as f64);
            v.vault
                .borrow_mut()
                .ingest_opened(&rel, Ok(body.to_string()), Some(opened));
            let uri = crate::vault::memory_uri(&rel);
            return Ok(Answer::ok(format!(
                "Saved as {uri} (\"{title}\"); knowledge_search finds it now."
            )));
        }
        match ReplyError::in_reply(&reply) {
            Some(ReplyError::Exists) => continue,
            _ => {
                return Err(format!(
                    "{REMEMBER}: the note could not be written ({}).",
                    ReplyError::describe_reply(&reply, "no answer")
                ))
            }
        }
    }
    Err(format!(
        "{REMEMBER}: {MAX_SUFFIX} notes named like this exist already; choose another title."
    ))
}

async fn remember_in_maenifold(
    io: &Io,
    source: &Source,
    title: &str,
    body: &str,
) -> Result<Answer, String> {
    // maenifold's WriteMemory replaces a note of the same name: find a free one first. Both
    // answers are read in their markdown form (the same from the CLI and over MCP).
    let base = slug(title);
    let mut chosen = None;
    for n in 1..=MAX_SUFFIX {
        let (t, s) = if n == 1 {
            (title.to_string(), base.clone())
        } else {
            (format!("{title} {n}"), format!("{base}-{n}"))
        };
        let id = format!("memory://{REMEMBER_FOLDER}/{s}");
        match ask(io, source, "ReadMemory", json!({"identifier": id}), false).await {
            Ok(t2) if !t2.starts_with("ERROR") => continue,
            Err(e) if !missing(&e) => {
                return Err(format!(
                    "{REMEMBER}: could not ask the knowledge source: {e}"
                ))
            }
            _ => {
                chosen = Some(t);
                break;
            }
        }
    }
    let Some(title) = chosen else {
        return Err(format!(
            "{REMEMBER}: {MAX_SUFFIX} notes named like this exist already; choose another title."
        ));
    };
    let payload = json!({"title": title, "content": body, "folder": REMEMBER_FOLDER});
    let text = ask(io, source, "WriteMemory", payload, false)
        .await
        .map_err(|e| format!("{REMEMBER}: the note could not be written: {e}"))?;
    // `Created memory FILE: memory://…`; anything else is maenifold's reason
    let uri = text
        .split_whitespace()
        .find(|w| w.starts_with("memory://"))
        .ok_or_else(|| {
            format!(
                "{REMEMBER}: the note could not be written: {}",
                clip(text.trim(), 300)
            )
        })?;
    Ok(Answer::ok(format!(
        "Saved as {uri} (\"{title}\"); knowledge_search finds it now."
    )))
}

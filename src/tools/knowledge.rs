//! The knowledge tools: the model asks the knowledge source itself.
//!
//! - `knowledge_search {query, limit?}`: ranked notes, a snippet and an id (`memory://…`) each
//!   (the vault's index, or maenifold's SearchMemories).
//! - `knowledge_context {concept, depth?}`: what `[[concept]]` in a tool call brings: related
//!   concepts with counts, the notes that mention it, excerpts (BuildContext).
//! - `knowledge_read {id}`: one note's text, front matter and links kept (ReadMemory).
//! - `knowledge_remember {title, text, concepts?}` (option `knowledgeRemember`): a new note in
//!   the vault's `hookwise/` folder (never overwriting: a name that exists gets a suffix),
//!   indexed at once; or maenifold's WriteMemory into its `hookwise` folder. Redacted first.
//!
//! Every answer fits the budget (option `knowledgeToolsBudget`, else `tokenBudget`, ≈4
//! characters a token) and says when it was cut. Bad input is an `isError` answer naming
//! what to change.

use serde_json::{json, Map, Value};

use super::{clip, Answer, Env};
use crate::context::{section_lines, CHARS_PER_TOKEN};
use crate::knowledge::{ContextQuery, Source};
use crate::maenifold::{memory, search};
use crate::runtime::Io;

pub const SEARCH: &str = "knowledge_search";
pub const CONTEXT: &str = "knowledge_context";
pub const READ: &str = "knowledge_read";
pub const REMEMBER: &str = "knowledge_remember";
/// Every knowledge tool, in the order they are offered.
pub const NAMES: &[&str] = &[SEARCH, CONTEXT, READ, REMEMBER];

pub const MAX_QUERY_CHARS: usize = 500;
pub const MAX_LIMIT: u64 = 20;
pub const DEFAULT_LIMIT: u64 = 5;
pub const MAX_CONCEPT_CHARS: usize = 200;
pub const MAX_ID_CHARS: usize = 1000;
pub const MAX_TITLE_CHARS: usize = 200;
pub const MAX_TEXT_CHARS: usize = 20_000;
pub const MAX_CONCEPTS: usize = 16;

pub async fn call(io: &Io, env: &Env, name: &str, input: &Map<String, Value>) -> Answer {
    let Some(source) = &env.source else {
        return Answer::error("hookwise has no knowledge source in this session.");
    };
    let budget = env.registry.settings.token_budget;
    let r = match name {
        SEARCH => knowledge_search(io, source, input, budget).await,
        CONTEXT => knowledge_context(io, env, source, input, budget).await,
        READ => knowledge_read(io, source, input, budget).await,
        #[cfg(feature = "policy")]
        REMEMBER => {
            super::remember::knowledge_remember(io, source, input, env.governed_root.as_deref())
                .await
        }
        // never offered by the lean build: `init` asks for the policy build when it is on
        #[cfg(not(feature = "policy"))]
        REMEMBER => Err(format!("{REMEMBER} needs hookwise's policy build")),
        other => Err(format!("`{}` is not a hookwise tool.", clip(other, 80))),
    };
    r.unwrap_or_else(Answer::error)
}

type Asked<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<String, String>> + 'a>>;

/// One question to the source in maenifold's terms (the vault answers them in maenifold's
/// shapes; `json_out`: `--json` from the CLI, markdown over MCP either way). Boxed: each caller
/// awaits one small future instead of carrying the whole question inline (lean wasm size).
pub(super) fn ask<'a>(
    io: &'a Io,
    source: &'a Source,
    tool: &'static str,
    payload: Value,
    json_out: bool,
) -> Asked<'a> {
    Box::pin(async move { source.cli_call(io, tool, &payload, json_out).await })
}

/// A ReadMemory error that says the note does not exist (maenifold's, or the vault's).
pub(super) fn missing(e: &str) -> bool {
    e.contains("not found") || e.contains("NOT_FOUND") || e.contains("is not in the vault")
}

// --- input ---------------------------------------------------------------------------------

pub(super) fn check_keys(
    name: &str,
    input: &Map<String, Value>,
    allowed: &[&str],
) -> Result<(), String> {
    match input.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!(
            "{name}: unknown argument `{}`; it takes {}.",
            clip(k, 40),
            allowed.join(", ")
        )),
        None => Ok(()),
    }
}

/// A required, non-blank string of at most `max` characters (trimmed).
pub(super) fn text_arg(
    name: &str,
    input: &Map<String, Value>,
    key: &str,
    max: usize,
) -> Result<String, String> {
    let s = match input.get(key) {
        Some(Value::String(s)) => s.trim(),
        None | Some(Value::Null) => return Err(format!("{name} needs `{key}`.")),
        Some(_) => return Err(format!("{name}: `{key}` must be a string.")),
    };
    if s.is_empty() {
        return Err(format!("{name}: `{key}` is empty."));
    }
    let n = s.chars().count();
    if n > max {
        return Err(format!(
            "{name}: `{key}` is too long ({n} characters; at most {max})."
        ));
    }
    Ok(s.to_string())
}

/// An optional whole number within `min..=max` (a numeric string is read too).
fn int_arg(
    name: &str,
    input: &Map<String, Value>,
    key: &str,
    min: u64,
    max: u64,
    default: u64,
) -> Result<u64, String> {
    let v = match input.get(key) {
        None | Some(Value::Null) => return Ok(default),
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => crate::decimal::parse_f64(s.trim()),
        Some(_) => None,
    };
    match v {
        Some(x) if x.fract() == 0.0 && x >= min as f64 && x <= max as f64 => Ok(x as u64),
        _ => Err(format!(
            "{name}: `{key}` must be a whole number from {min} to {max}."
        )),
    }
}

// --- budget --------------------------------------------------------------------------------

/// `text` within `tokens` (≈4 characters a token): cut at a line when it can be, with a last
/// line saying it was cut and what to do about it.
pub fn fit(text: &str, tokens: usize, hint: &str) -> (String, bool) {
    let max = tokens.saturating_mul(CHARS_PER_TOKEN);
    if text.chars().count() <= max {
        return (text.to_string(), false);
    }
    let note = format!("[hookwise: cut to fit the budget of {tokens} tokens; {hint}]");
    let room = max.saturating_sub(note.chars().count() + 2);
    let end = text.char_indices().nth(room).map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    // at the last line break in the second half of what fits, else inside the line
    let head = match head.rfind('\n') {
        Some(i) if i >= end / 2 => &head[..i],
        _ => head,
    };
    (format!("{}…\n{note}", head.trim_end()), true)
}

fn answer(text: String, tokens: usize, hint: &str) -> Answer {
    let (text, cut) = fit(&text, tokens, hint);
    Answer {
        text,
        is_error: false,
        cut,
    }
}

// --- the tools -----------------------------------------------------------------------------

async fn knowledge_search(
    io: &Io,
    source: &Source,
    input: &Map<String, Value>,
    budget: usize,
) -> Result<Answer, String> {
    check_keys(SEARCH, input, &["query", "limit"])?;
    let query = text_arg(SEARCH, input, "query", MAX_QUERY_CHARS)?;
    let limit = int_arg(SEARCH, input, "limit", 1, MAX_LIMIT, DEFAULT_LIMIT)?;
    // One path for every source: the vault answers in maenifold's own text shapes.
    let payload = json!({"query": query, "mode": "Hybrid", "pageSize": limit});
    let text = match ask(io, source, "SearchMemories", payload, false).await {
        Ok(t) => t,
        Err(e) if e.contains("no informative keywords") => String::new(),
        Err(e) => return Err(format!("{SEARCH} could not ask the knowledge source: {e}")),
    };
    let hits = if text.trim().is_empty() || text.starts_with("No memories found") {
        Vec::new()
    } else {
        search::parse(&text)
            .map_err(|e| {
                format!(
                    "{SEARCH}: the knowledge source answered in a form hookwise cannot read ({e})"
                )
            })?
            .hits
    };
    let q = clip(&query, 80);
    if hits.is_empty() {
        return Ok(Answer::ok(format!(
            "No notes match \"{q}\". Try other words, or knowledge_context with a concept."
        )));
    }
    let n = hits.len().min(limit as usize);
    let mut out = format!(
        "{n} note{} for \"{q}\", most relevant first (open one with knowledge_read and its id):\n",
        if n == 1 { "" } else { "s" }
    );
    for (i, h) in hits.iter().take(limit as usize).enumerate() {
        let title = if h.title.is_empty() { &h.uri } else { &h.title };
        out.push_str(&format!(
            "\n{}. {} — {}",
            i + 1,
            one_line(title, 160),
            h.uri
        ));
        if let Some(s) = h.score {
            out.push_str(&format!(" (score {})", crate::maenifold::fixed(s, 3)));
        }
        let snippet = one_line(&h.snippet, 300);
        if !snippet.is_empty() {
            out.push_str(&format!("\n   {snippet}"));
        }
    }
    Ok(answer(out, budget, "ask for fewer notes (limit)"))
}

/// On one line, at most `max` characters.
pub(super) fn one_line(s: &str, max: usize) -> String {
    let joined: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    clip(&joined, max)
}

async fn knowledge_context(
    io: &Io,
    env: &Env,
    source: &Source,
    input: &Map<String, Value>,
    budget: usize,
) -> Result<Answer, String> {
    check_keys(CONTEXT, input, &["concept", "depth"])?;
    let raw = text_arg(CONTEXT, input, "concept", MAX_CONCEPT_CHARS)?;
    let depth = int_arg(CONTEXT, input, "depth", 1, 2, 1)? as u32;
    let bare = raw.strip_prefix("[[").unwrap_or(&raw);
    let bare = bare.strip_suffix("]]").unwrap_or(bare);
    // `[[Note#Heading]]` asks for that section of the note.
    let concept = crate::wikilink::concept_with_section(bare);
    if crate::wikilink::split_section(&concept).0.is_empty() {
        return Err(format!("{CONTEXT}: `concept` has no name in it."));
    }
    let q = ContextQuery {
        depth,
        max_entities: env.max_entities,
        include_content: env.include_content,
    };
    let b = Box::pin(source.build_context(io, &concept, q))
        .await
        .map_err(|e| format!("{CONTEXT} could not ask the knowledge source: {e}"))?;
    if b.is_empty() {
        return Ok(Answer::ok(format!(
            "The knowledge base has nothing on [[{concept}]] yet. Try knowledge_search with other words."
        )));
    }
    Ok(answer(
        section_lines(&b).join("\n"),
        budget,
        "depth 1 or a narrower concept says less",
    ))
}

async fn knowledge_read(
    io: &Io,
    source: &Source,
    input: &Map<String, Value>,
    budget: usize,
) -> Result<Answer, String> {
    check_keys(READ, input, &["id"])?;
    let id = text_arg(READ, input, "id", MAX_ID_CHARS)?;
    if id.contains('\0') || id.split('/').any(|c| c == "..") {
        return Err(format!(
            "{READ}: `{}` is not a note id; use one knowledge_search returned (memory://…).",
            clip(&id, 120)
        ));
    }
    let not_found = || {
        format!(
            "{READ}: no note `{}`; use an id knowledge_search returned (memory://…).",
            clip(&id, 120)
        )
    };
    // One path for every source (the vault answers ReadMemory in maenifold's JSON shape, with
    // the whole file: front matter kept).
    let r = ask(io, source, "ReadMemory", json!({"identifier": id}), true).await;
    let m = match r.and_then(|t| memory::parse_read(&t)) {
        Ok(m) => m,
        Err(e) if missing(&e) => return Err(not_found()),
        Err(e) => return Err(format!("{READ} could not ask the knowledge source: {e}")),
    };
    let (uri, title, text) = (
        if m.uri.is_empty() { id.clone() } else { m.uri },
        m.title,
        m.content,
    );
    let head = if title.is_empty() {
        uri.clone()
    } else {
        format!("{title} — {uri}")
    };
    Ok(answer(
        format!("{head}\n\n{text}"),
        budget,
        "the rest of the note was left out",
    ))
}

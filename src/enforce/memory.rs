//! Memories: knowledge looked up by the call's keywords. One enum of sources so the embedded
//! vault can join the maenifold CLI later without touching the decision code.
//!
//! maenifold: `SearchMemories --json` (Hybrid by default). Its results carry no tags, so a
//! memory's category comes from the folders of its `memory://` path (`memory://security/…`,
//! `memory://ops/gotchas/…`; deepest first), else `general`. A source that does give `tags`
//! has them looked at first. Confidence: a result's `score` (Semantic / FullText), else the
//! larger of its `semanticScore` and `textScore` (Hybrid; the fused score is a rank-fusion
//! number near 0.03 and says nothing absolute), clamped to 0–1.
//!
//! The embedded vault ([`MemorySource::Vault`]) ranks with BM25, whose scores have no upper
//! bound and depend on the vault's size and the query's length, so they are calibrated per
//! query ([`vault_confidence`]): `confidence = 1 − e^(−S/R)`, where `S` is the note's BM25
//! score and `R` the score of a note holding each query word once at average length (the sum
//! of the words' idf; a word the vault never uses counts as a common word, idf ln 2). A note
//! with every query word once scores 0.63; with them in its title (weight 3) about 0.8; one
//! holding a third of the query's weight about 0.3. Its category: the note's front matter
//! `tags`, else its folders.

use serde::Serialize;
use serde_json::{json, Value};

use std::rc::Rc;

use super::config::Category;
use crate::knowledge::{Source, VaultIndex};
use crate::maenifold::{self, CliFailure, SpawnResult};
use crate::runtime::Io;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    pub title: String,
    pub uri: String,
    pub snippet: String,
    pub confidence: f64,
    pub category: Category,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MemoryQuery {
    /// The call's keywords, most telling first.
    pub keywords: Vec<String>,
    /// `Hybrid`, `Semantic` or `FullText`.
    pub mode: String,
    pub max_results: u32,
}

/// Where memories come from.
#[derive(Debug, Clone)]
pub enum MemorySource {
    /// maenifold (CLI today; a warm MCP session is a variant of [`Source`]). A
    /// `Source::Vault` given here is searched as [`MemorySource::Vault`].
    Maenifold(Source),
    /// The embedded markdown vault, searched in process; scores calibrated per query.
    Vault(Rc<VaultIndex>),
    /// A fixed set (tests, benchmarks, hosts that search themselves): every memory whose
    /// title or snippet holds a keyword. Each search costs `delay_ms` of host time.
    Fixed {
        memories: Vec<Memory>,
        delay_ms: u64,
    },
}

/// Words per query: more dilutes a semantic search.
const QUERY_WORDS: usize = 8;

impl MemorySource {
    pub fn name(&self) -> &'static str {
        match self {
            MemorySource::Maenifold(s) => s.name(),
            MemorySource::Vault(_) => "vault",
            MemorySource::Fixed { .. } => "fixed",
        }
    }

    /// Search; `Ok(vec![])` is "nothing relevant".
    pub async fn search(&self, io: &Io, q: &MemoryQuery) -> Result<Vec<Memory>, String> {
        if q.keywords.is_empty() {
            return Ok(Vec::new());
        }
        let query = q
            .keywords
            .iter()
            .take(QUERY_WORDS)
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        match self {
            #[cfg(feature = "policy")]
            MemorySource::Vault(v) | MemorySource::Maenifold(Source::Vault(v)) => {
                v.ensure_fresh(io).await;
                let (hits, reference) = v
                    .vault
                    .borrow()
                    .search_for_enforcement(&query, q.max_results as usize);
                Ok(vault_memories(hits, reference))
            }
            // (enforcement runs in the policy build only; the lean one never gets here)
            #[cfg(not(feature = "policy"))]
            MemorySource::Vault(_) | MemorySource::Maenifold(Source::Vault(_)) => {
                Err("vault memories need the policy build".into())
            }
            MemorySource::Maenifold(src) => {
                let payload = json!({
                    "query": query,
                    "mode": q.mode,
                    "pageSize": q.max_results,
                });
                let text = match src.cli_call(io, "SearchMemories", &payload, true).await {
                    Ok(t) => t,
                    Err(e) if e.contains("no informative keywords") => return Ok(Vec::new()),
                    Err(e) => return Err(e),
                };
                // Over the warm MCP session the answer is the markdown form (`--json` is
                // CLI-only): the same results, read from the text.
                if !text.trim_start().starts_with('{') && !text.starts_with("No memories found") {
                    return maenifold::search::parse(&text)
                        .map(|r| parse_results(&markdown_data(&r), q.max_results as usize))
                        .map_err(|e| format!("SearchMemories: {e}"));
                }
                let judged = maenifold::judge_json(&SpawnResult {
                    success: true,
                    stdout: text.clone(),
                    exit_code: Some(0),
                    ..Default::default()
                });
                match judged {
                    Ok(data) => Ok(parse_results(&data, q.max_results as usize)),
                    Err(_) if text.starts_with("No memories found") => Ok(Vec::new()),
                    Err(CliFailure::JsonError { code, message }) => {
                        Err(format!("SearchMemories: {code}: {message}"))
                    }
                    Err(e) => Err(format!("SearchMemories: {e}")),
                }
            }
            MemorySource::Fixed { memories, delay_ms } => {
                if *delay_ms > 0 {
                    io.sleep(*delay_ms).await;
                }
                let kws: Vec<String> = q.keywords.iter().map(|k| k.to_lowercase()).collect();
                let mut out: Vec<Memory> = memories
                    .iter()
                    .filter(|m| {
                        let t = format!("{} {}", m.title, m.snippet).to_lowercase();
                        kws.iter().any(|k| t.contains(k.as_str()))
                    })
                    .cloned()
                    .collect();
                out.truncate(q.max_results as usize);
                Ok(out)
            }
        }
    }
}

/// A vault note's BM25 `score` as a confidence in 0–1, against the query's `reference` score
/// (see the module docs): `1 − e^(−score/reference)`, to three decimals.
pub fn vault_confidence(score: f64, reference: f64) -> f64 {
    if !(score > 0.0 && reference > 0.0 && score.is_finite() && reference.is_finite()) {
        return 0.0;
    }
    ((1.0 - (-score / reference).exp()) * 1000.0).round() / 1000.0
}

/// Vault hits (with their notes' tags) → memories, best first.
#[cfg(feature = "policy")]
fn vault_memories(hits: Vec<(crate::vault::Hit, Vec<String>)>, reference: f64) -> Vec<Memory> {
    hits.into_iter()
        .map(|(h, tags)| {
            let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
            Memory {
                category: category_of(&h.uri, &tags),
                confidence: vault_confidence(h.score, reference),
                title: if h.title.is_empty() {
                    h.uri.clone()
                } else {
                    h.title
                },
                snippet: h.snippet.split_whitespace().collect::<Vec<_>>().join(" "),
                uri: h.uri,
            }
        })
        .collect()
}

/// Parsed markdown results in the `--json` data shape (Hybrid: text and semantic scores; the
/// other modes: one score).
fn markdown_data(r: &maenifold::search::SearchResults) -> Value {
    let results: Vec<Value> = r
        .hits
        .iter()
        .map(|h| {
            if h.text_score.is_some() || h.semantic_score.is_some() {
                json!({"title": h.title, "path": h.uri, "snippet": h.snippet,
                    "textScore": h.text_score, "semanticScore": h.semantic_score})
            } else {
                json!({"title": h.title, "path": h.uri, "snippet": h.snippet, "score": h.score})
            }
        })
        .collect();
    json!({ "results": results })
}

/// SearchMemories `--json` data → memories, best first.
pub fn parse_results(data: &Value, max: usize) -> Vec<Memory> {
    let Some(results) = data.get("results").and_then(Value::as_array) else {
        return Vec::new();
    };
    let out: Vec<Memory> = results
        .iter()
        .filter_map(|r| {
            let uri = r.get("path").and_then(Value::as_str)?.to_string();
            let num = |k: &str| r.get(k).and_then(Value::as_f64).filter(|f| f.is_finite());
            let confidence = num("score")
                .or_else(|| match (num("semanticScore"), num("textScore")) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                })
                .unwrap_or(0.0)
                .clamp(0.0, 1.0);
            let tags: Vec<&str> = r
                .get("tags")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            Some(Memory {
                title: r
                    .get("title")
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                    .unwrap_or(&uri)
                    .to_string(),
                snippet: r
                    .get("snippet")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
                category: category_of(&uri, &tags),
                confidence,
                uri,
            })
        })
        .collect();
    let o = super::order(out.len(), &|a, b| {
        out[b].confidence.total_cmp(&out[a].confidence)
    });
    let mut out = super::arrange(out, &o);
    out.truncate(max);
    out
}

/// A memory's category: its tags, else the folders of its URI (deepest first).
pub fn category_of(uri: &str, tags: &[&str]) -> Category {
    if let Some(c) = tags.iter().find_map(|t| Category::from_word(t)) {
        return c;
    }
    let path = uri.strip_prefix("memory://").unwrap_or(uri);
    let mut folders: Vec<&str> = path.split('/').collect();
    folders.pop(); // the file itself
    folders
        .iter()
        .rev()
        .find_map(|f| Category::from_word(f))
        .unwrap_or(Category::General)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hybrid_and_single_score_results() {
        let data = json!({
            "mode": "Hybrid", "query": "git push", "totalCount": 3,
            "results": [
                {"title": "Auth Design", "path": "memory://security/auth-design", "fusedScore": 0.033, "textScore": 0.05, "semanticScore": 0.712, "snippet": "Tokens  are\nRS256"},
                {"title": "", "path": "memory://ops/gotchas/force-push", "fusedScore": 0.03, "textScore": 0.9, "semanticScore": 0.4, "snippet": "x"},
                {"title": "no path"},
                {"title": "Weird", "path": "memory://notes/w", "textScore": 7.5}
            ]
        });
        let m = parse_results(&data, 10);
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].title, "Weird");
        assert_eq!(m[0].confidence, 1.0, "clamped");
        assert_eq!(m[1].uri, "memory://ops/gotchas/force-push");
        assert_eq!(m[1].title, "memory://ops/gotchas/force-push");
        assert_eq!((m[1].confidence, m[1].category), (0.9, Category::Gotchas));
        assert_eq!(
            (m[2].confidence, m[2].category),
            (0.712, Category::Security)
        );
        assert_eq!(m[2].snippet, "Tokens are RS256");
        let sem = json!({"results": [{"title": "t", "path": "memory://a/b", "score": 0.81, "snippet": ""}]});
        assert_eq!(parse_results(&sem, 10)[0].confidence, 0.81);
        assert!(parse_results(&json!({}), 10).is_empty());
        assert_eq!(parse_results(&data, 1).len(), 1);
    }

    #[test]
    fn vault_scores_are_calibrated_against_the_query() {
        // a note with every query word once at average length scores the reference
        assert_eq!(vault_confidence(4.2, 4.2), 0.632);
        assert_eq!(vault_confidence(8.4, 4.2), 0.865);
        assert_eq!(vault_confidence(1.4, 4.2), 0.283);
        // the same BM25 score means less against a longer, more telling query
        assert!(vault_confidence(3.0, 9.0) < vault_confidence(3.0, 3.0));
        let mut last = 0.0;
        for i in 1..100 {
            let c = vault_confidence(i as f64 * 0.25, 5.0);
            assert!(c >= last && c <= 1.0, "monotone, at most 1: {c}");
            assert!(
                i > 40 || c > last,
                "strictly while it is not saturated: {c}"
            );
            last = c;
        }
        for (s, r) in [
            (0.0, 3.0),
            (-1.0, 3.0),
            (2.0, 0.0),
            (f64::NAN, 1.0),
            (1.0, f64::INFINITY),
        ] {
            assert_eq!(vault_confidence(s, r), 0.0, "{s} {r}");
        }
    }

    #[test]
    fn markdown_results_over_mcp_read_like_the_json_ones() {
        // SearchMemories over MCP is the CLI's markdown (no `--json`).
        let md = "🔍 **Hybrid Search** (combining text + semantic similarity)\nFound 1 matches (page 1):\nText results: 1, Semantic results: 1\n\n📄 **Auth Design** (memory://security/auth-design)\n   📊 Scores - Fused: 0.033 | Text: 0.050 | Semantic: 0.712\n   📝 Tokens are RS256\n";
        let r = maenifold::search::parse(md).unwrap();
        let m = parse_results(&markdown_data(&r), 10);
        assert_eq!(m.len(), 1);
        assert_eq!(
            (
                m[0].title.as_str(),
                m[0].uri.as_str(),
                m[0].confidence,
                m[0].category
            ),
            (
                "Auth Design",
                "memory://security/auth-design",
                0.712,
                Category::Security
            )
        );
        assert_eq!(m[0].snippet, "Tokens are RS256");
    }

    #[test]
    fn categories_from_tags_and_folders() {
        assert_eq!(
            category_of("memory://runbooks/deploy", &[]),
            Category::Process
        );
        assert_eq!(
            category_of("memory://x/secrets/y/z", &[]),
            Category::Credentials
        );
        assert_eq!(
            category_of("memory://notes/deploy", &["gotcha"]),
            Category::Gotchas
        );
        assert_eq!(
            category_of("memory://security", &[]),
            Category::General,
            "the file name is no folder"
        );
        assert_eq!(
            category_of("memory://projects/shop/api", &[]),
            Category::General
        );
    }
}

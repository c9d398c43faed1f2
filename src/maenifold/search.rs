//! SearchMemories: the markdown the CLI prints and the data of its `--json` envelope
//! (`docs/maenifold-cli.md`), parsed into one value.
//!
//! Markdown (Hybrid; Semantic and FullText differ in the header and the score line):
//! ```text
//! 🔍 **Hybrid Search** (combining text + semantic similarity)
//! Found 2 matches (page 1):
//! Text results: 2, Semantic results: 1
//!
//! 📄 **Auth Design** (memory://notes/auth-design)
//!    📊 Scores - Fused: 0.033 | Text: 0.050 | Semantic: 0.712
//!    📝 <snippet>
//! ```
//! `--json` data: Hybrid `{mode,query,totalCount,page,pageSize,textResultCount,
//! semanticResultCount,results:[{title,path,fusedScore,textScore,semanticScore,snippet}]}`;
//! Semantic / FullText results are `{title,path,score,snippet}`.
//! Two answers are plain text even with `--json`: `ERROR: Query contains no informative
//! keywords…` (an error, caught by [`super::judge`]) and `No memories found in specified
//! folder` (no results, not an error).

use serde::Serialize;
use serde_json::Value;

use super::{judge_json, CliFailure, SpawnResult};

/// The plain answer for a folder that does not exist: no results.
pub const NO_MEMORIES_IN_FOLDER: &str = "No memories found in specified folder";
/// At most this many hits are kept from one answer (the CLI is asked for a handful).
pub const MAX_HITS: usize = 200;
/// Snippets are at most 200 characters in maenifold; anything longer is clipped.
pub const MAX_SNIPPET_CHARS: usize = 1000;
const MAX_TITLE_CHARS: usize = 300;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SearchMode {
    Hybrid,
    Semantic,
    FullText,
}

impl SearchMode {
    fn from_name(s: &str) -> Option<SearchMode> {
        match s.to_ascii_lowercase().as_str() {
            "hybrid" => Some(SearchMode::Hybrid),
            "semantic" => Some(SearchMode::Semantic),
            "fulltext" | "full-text" => Some(SearchMode::FullText),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub title: String,
    /// The memory:// URI (`path` in maenifold's output).
    pub uri: String,
    /// The fused score (Hybrid) or the mode's single score (Semantic / FullText).
    pub score: Option<f64>,
    pub text_score: Option<f64>,
    pub semantic_score: Option<f64>,
    pub snippet: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    /// `None` for the "no memories in folder" answer.
    pub mode: Option<SearchMode>,
    pub total: Option<u64>,
    pub page: Option<u64>,
    pub text_count: Option<u64>,
    pub semantic_count: Option<u64>,
    pub hits: Vec<SearchHit>,
}

/// Judge and parse one SearchMemories answer, markdown or `--json`.
pub fn judge_search(r: &SpawnResult) -> Result<SearchResults, String> {
    let text = super::judge(r).map_err(|e| e.to_string())?;
    if text.starts_with('{') {
        let data = judge_json(r).map_err(|e| e.to_string())?;
        return from_json_data(&data);
    }
    parse(text)
}

/// Parse an answer already judged a success: the markdown, a `--json` envelope, or the
/// "no memories in folder" text.
pub fn parse(text: &str) -> Result<SearchResults, String> {
    let t = text.trim();
    if t.starts_with('{') {
        let r = SpawnResult {
            stdout: t.to_string(),
            exit_code: Some(0),
            ..Default::default()
        };
        let data = judge_json(&r).map_err(|e: CliFailure| e.to_string())?;
        return from_json_data(&data);
    }
    if t == NO_MEMORIES_IN_FOLDER {
        return Ok(SearchResults::default());
    }
    parse_markdown(t)
}

/// Strip a leading icon (an emoji, or any non-ASCII run) and the space after it.
fn after_icon(t: &str) -> (Option<char>, &str) {
    let mut chars = t.char_indices();
    match chars.next() {
        Some((_, c)) if !c.is_ascii() => {
            let rest = match t.find(' ') {
                Some(i) => &t[i..],
                None => "",
            };
            (Some(c), rest.trim_start())
        }
        _ => (None, t),
    }
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn num_after(s: &str, key: &str) -> Option<f64> {
    let from = s.find(key)? + key.len();
    let rest = s[from..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'E' || c == 'e'))
        .unwrap_or(rest.len());
    crate::decimal::parse_f64(&rest[..end])
}

fn int_after(s: &str, key: &str) -> Option<u64> {
    let from = s.find(key)? + key.len();
    let rest = s[from..].trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Parse the markdown form. Unknown lines are ignored; a text whose first line is not one of
/// the three headers is an error.
pub fn parse_markdown(text: &str) -> Result<SearchResults, String> {
    let mut lines = text.lines();
    let first = lines.by_ref().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mode = if first.contains("**Hybrid Search**") {
        SearchMode::Hybrid
    } else if first.contains("**Semantic Search**") {
        SearchMode::Semantic
    } else if first.contains("**Full-Text Search**") {
        SearchMode::FullText
    } else {
        return Err(format!(
            "not a SearchMemories answer: {}",
            clip(first.trim(), 80)
        ));
    };
    let mut out = SearchResults {
        mode: Some(mode),
        ..Default::default()
    };
    let mut dropped = false;
    for raw in lines {
        let line = raw.trim_end();
        let t = line.trim_start();
        if t.is_empty() {
            continue;
        }
        let indented = line.len() != t.len();
        if !indented {
            if t.starts_with("Found ") && t.contains(" matches") {
                out.total = int_after(t, "Found ");
                out.page = int_after(t, "(page ");
                continue;
            }
            if t.starts_with("Text results:") {
                out.text_count = int_after(t, "Text results:");
                out.semantic_count = int_after(t, "Semantic results:");
                continue;
            }
        }
        let (icon, body) = after_icon(t);
        if !indented && body.starts_with("**") && icon != Some('💡') {
            if out.hits.len() >= MAX_HITS {
                dropped = true;
                continue;
            }
            dropped = false;
            let inner = &body[2..];
            let (title, uri) = match inner.rfind("** (") {
                Some(i) => (
                    &inner[..i],
                    inner[i + 4..].strip_suffix(')').unwrap_or(&inner[i + 4..]),
                ),
                None => (inner.trim_end_matches('*'), ""),
            };
            out.hits.push(SearchHit {
                title: clip(title.trim(), MAX_TITLE_CHARS),
                uri: uri.trim().to_string(),
                ..Default::default()
            });
            continue;
        }
        if !indented || dropped {
            continue; // the closing hint, or lines of a hit over the cap
        }
        let Some(hit) = out.hits.last_mut() else {
            continue;
        };
        if icon == Some('📝') || (icon.is_none() && hit.score.is_some() && hit.snippet.is_empty())
        {
            if hit.snippet.is_empty() {
                hit.snippet = clip(body, MAX_SNIPPET_CHARS);
            }
        } else if body.starts_with("Scores") {
            hit.score = num_after(body, "Fused:");
            hit.text_score = num_after(body, "Text:");
            hit.semantic_score = num_after(body, "Semantic:");
        } else if body.starts_with("Semantic similarity:") {
            hit.score = num_after(body, "Semantic similarity:");
            hit.semantic_score = hit.score;
        } else if body.starts_with("Text relevance:") {
            hit.score = num_after(body, "Text relevance:");
            hit.text_score = hit.score;
        }
    }
    Ok(out)
}

fn get_str<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn get_u64(v: &Value, k: &str) -> Option<u64> {
    v.get(k).and_then(Value::as_u64)
}

fn get_f64(v: &Value, k: &str) -> Option<f64> {
    v.get(k).and_then(Value::as_f64)
}

/// Parse the `data` of a successful `--json` envelope.
pub fn from_json_data(data: &Value) -> Result<SearchResults, String> {
    let Some(results) = data.get("results").and_then(Value::as_array) else {
        return Err("SearchMemories JSON has no results array".into());
    };
    let mut out = SearchResults {
        mode: get_str(data, "mode").and_then(SearchMode::from_name),
        total: get_u64(data, "totalCount"),
        page: get_u64(data, "page"),
        text_count: get_u64(data, "textResultCount"),
        semantic_count: get_u64(data, "semanticResultCount"),
        hits: Vec::new(),
    };
    for r in results.iter().take(MAX_HITS) {
        let uri = get_str(r, "path").unwrap_or("").trim().to_string();
        let title = get_str(r, "title").unwrap_or("").trim();
        if uri.is_empty() && title.is_empty() {
            continue;
        }
        let fused = get_f64(r, "fusedScore");
        let single = get_f64(r, "score");
        out.hits.push(SearchHit {
            title: clip(title, MAX_TITLE_CHARS),
            uri,
            score: fused.or(single),
            text_score: get_f64(r, "textScore"),
            semantic_score: get_f64(r, "semanticScore"),
            snippet: clip(
                get_str(r, "snippet").unwrap_or("").trim(),
                MAX_SNIPPET_CHARS,
            ),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub const HYBRID: &str = "🔍 **Hybrid Search** (combining text + semantic similarity)
Found 2 matches (page 1):
Text results: 2, Semantic results: 1

📄 **Auth Design** (memory://notes/auth-design)
   📊 Scores - Fused: 0.033 | Text: 0.050 | Semantic: 0.712
   📝 We use [[JWT]] for [[authentication]]; tokens rotate daily.

📄 **API** (memory://notes/api)
   📊 Scores - Fused: 0.016 | Text: 0.025 | Semantic: 0.000
   📝 The [[REST API]] uses [[json]].


💡 Next: Consider using ReadMemory, BuildContext for related operations.
";

    fn ok(s: &str) -> SpawnResult {
        SpawnResult {
            success: true,
            stdout: s.into(),
            exit_code: Some(0),
            ..Default::default()
        }
    }

    #[test]
    fn hybrid_markdown() {
        let r = parse(HYBRID).unwrap();
        assert_eq!(r.mode, Some(SearchMode::Hybrid));
        assert_eq!((r.total, r.page), (Some(2), Some(1)));
        assert_eq!((r.text_count, r.semantic_count), (Some(2), Some(1)));
        assert_eq!(r.hits.len(), 2);
        let h = &r.hits[0];
        assert_eq!(h.title, "Auth Design");
        assert_eq!(h.uri, "memory://notes/auth-design");
        assert_eq!(h.score, Some(0.033));
        assert_eq!(h.text_score, Some(0.05));
        assert_eq!(h.semantic_score, Some(0.712));
        assert_eq!(
            h.snippet,
            "We use [[JWT]] for [[authentication]]; tokens rotate daily."
        );
        assert_eq!(r.hits[1].uri, "memory://notes/api");
        assert_eq!(r.hits[1].semantic_score, Some(0.0));
    }

    #[test]
    fn semantic_and_fulltext_markdown() {
        let sem = "🧠 **Semantic Search** (concept similarity)\nFound 1 matches (page 1):\n\n📄 **Deployment Runbook** (memory://notes/deployment-runbook)\n   🎯 Semantic similarity: 0.812\n   📝 Blue/green with [[kubernetes]].\n\n\n💡 Next: Consider using ReadMemory, BuildContext, FindSimilarConcepts for related operations.\n";
        let r = parse(sem).unwrap();
        assert_eq!(r.mode, Some(SearchMode::Semantic));
        assert_eq!(r.total, Some(1));
        assert_eq!(r.text_count, None);
        assert_eq!(r.hits[0].score, Some(0.812));
        assert_eq!(r.hits[0].semantic_score, Some(0.812));
        assert_eq!(r.hits[0].snippet, "Blue/green with [[kubernetes]].");

        let ft = "📝 **Full-Text Search** (keyword matching)\nFound 2 matches (page 1):\n\n📄 **Rate Limiting** (memory://notes/rate-limiting)\n   📊 Text relevance: 1.00\n   📝 Token bucket per [[api-key]].\n\n📄 **API** (memory://notes/api)\n   📊 Text relevance: 0.42\n   📝 \n";
        let r = parse(ft).unwrap();
        assert_eq!(r.mode, Some(SearchMode::FullText));
        assert_eq!(r.hits.len(), 2);
        assert_eq!(r.hits[0].score, Some(1.0));
        assert_eq!(r.hits[0].text_score, Some(1.0));
        assert_eq!(r.hits[0].snippet, "Token bucket per [[api-key]].");
        assert_eq!(r.hits[1].score, Some(0.42));
        assert_eq!(r.hits[1].snippet, "");
    }

    #[test]
    fn zero_matches_and_odd_titles() {
        let r = parse("🔍 **Hybrid Search** (combining text + semantic similarity)\nFound 0 matches (page 1):\nText results: 0, Semantic results: 0\n\n\n💡 Next: Consider using ReadMemory, BuildContext for related operations.").unwrap();
        assert_eq!(r.total, Some(0));
        assert!(r.hits.is_empty());
        let t = "🔍 **Hybrid Search** (x)\n\n📄 **A **bold** (note) title** (memory://a/b)\n   📊 Scores - Fused: 0.1 | Text: 0.2 | Semantic: 0.3\n   📝 s\n";
        let r = parse(t).unwrap();
        assert_eq!(r.hits[0].title, "A **bold** (note) title");
        assert_eq!(r.hits[0].uri, "memory://a/b");
    }

    #[test]
    fn json_envelopes_hybrid_and_single_score() {
        let hybrid = json!({"success": true, "error": null, "data": {
            "mode": "Hybrid", "query": "hookwise", "totalCount": 1, "page": 1, "pageSize": 5,
            "textResultCount": 1, "semanticResultCount": 0,
            "results": [{"title": "Auth Design", "path": "memory://notes/auth-design",
                "fusedScore": 0.033, "textScore": 0.05, "semanticScore": 0.712,
                "snippet": "[[JWT]] everywhere"}]}});
        let r = judge_search(&ok(&hybrid.to_string())).unwrap();
        assert_eq!(r.mode, Some(SearchMode::Hybrid));
        assert_eq!(
            (r.total, r.text_count, r.semantic_count),
            (Some(1), Some(1), Some(0))
        );
        assert_eq!(r.hits[0].uri, "memory://notes/auth-design");
        assert_eq!(r.hits[0].score, Some(0.033));
        assert_eq!(r.hits[0].semantic_score, Some(0.712));
        assert_eq!(r.hits[0].snippet, "[[JWT]] everywhere");

        let ft = json!({"success": true, "error": null, "data": {"mode": "FullText",
            "results": [{"title": "API", "path": "memory://notes/api", "score": 1.0, "snippet": "x"},
                        {"title": "", "path": ""}]}});
        let r = parse(&ft.to_string()).unwrap();
        assert_eq!(r.mode, Some(SearchMode::FullText));
        assert_eq!(
            r.hits.len(),
            1,
            "a result with neither title nor path is skipped"
        );
        assert_eq!(r.hits[0].score, Some(1.0));
        assert_eq!(r.hits[0].text_score, None);
    }

    #[test]
    fn errors_and_plain_answers() {
        let fail = r#"{"success":false,"data":null,"error":{"code":"INVALID_ARGUMENT","message":"bad mode"}}"#;
        let e = judge_search(&ok(fail)).unwrap_err();
        assert!(
            e.contains("INVALID_ARGUMENT") && e.contains("bad mode"),
            "{e}"
        );
        let e = judge_search(&ok("ERROR: Query contains no informative keywords. Try adding specific terms (e.g. \"machine learning\", \"NLP\").\n\n💡 Provide at least one non-stopword keyword\n")).unwrap_err();
        assert!(e.contains("no informative keywords"), "{e}");
        let r = judge_search(&ok("No memories found in specified folder\n")).unwrap();
        assert!(r.hits.is_empty() && r.mode.is_none());
        assert!(judge_search(&ok("")).unwrap_err().contains("empty"));
        assert!(judge_search(&ok("Unknown tool: SearchMemorie")).is_err());
        assert!(judge_search(&ok(r#"{"success":true,"data":{}}"#))
            .unwrap_err()
            .contains("no results"));
        assert!(judge_search(&ok("{not json")).is_err());
    }

    #[test]
    fn garbage_replacement_chars_and_huge_outputs() {
        assert!(parse("lorem ipsum\n📄 **x** (memory://y)").is_err());
        assert!(parse("\u{FFFD}\u{FFFD}\u{FFFD}PNG\u{FFFD}").is_err());
        // replacement characters inside a valid answer are kept as text, never a panic
        let r = parse("🔍 **Hybrid Search** (x)\n📄 **Bad \u{FFFD} title** (memory://n/\u{FFFD})\n   📝 \u{FFFD}\u{FFFD}[[ok]]\n").unwrap();
        assert_eq!(r.hits[0].title, "Bad \u{FFFD} title");
        assert_eq!(r.hits[0].snippet, "\u{FFFD}\u{FFFD}[[ok]]");
        // 10 MB of garbage: an error, quickly
        let big = "x".repeat(10 * 1024 * 1024);
        assert!(parse(&big).is_err());
        // 10 MB that looks valid: capped hits, capped snippets
        let mut s = String::from("🔍 **Hybrid Search** (x)\n");
        let long = "y".repeat(5000);
        while s.len() < 10 * 1024 * 1024 {
            s.push_str(&format!("📄 **T** (memory://n/t)\n   📊 Scores - Fused: 1 | Text: 1 | Semantic: 1\n   📝 {long}\n"));
        }
        let r = parse(&s).unwrap();
        assert_eq!(r.hits.len(), MAX_HITS);
        assert!(r.hits[0].snippet.chars().count() <= MAX_SNIPPET_CHARS + 1);
    }
}

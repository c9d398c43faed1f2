//! maenifold over MCP: tool names, and BuildContext's JSON form turned into the same
//! [`BuildContext`] value the CLI's text form parses to, so the context text, the cache and
//! everything downstream do not depend on the transport.
//!
//! The JSON (`build_context` result text, camelCase, nulls omitted):
//! `{"conceptName","depth","directRelations":[{"name","coOccurrenceCount","files",
//! "contentPreview","decayWeight","weightedScore","communityId"}],"expandedRelations":[...],
//! "communityId","communitySiblings":[{"name","communityId","sharedNeighborCount",
//! "normalizedOverlap"}]}`.
//!
//! To give the value the text form gives, the conversion keeps what the CLI prints:
//! - relations in the server's order; `files` as given (the server already keeps 3);
//! - `contentPreview`: a map uri → text (maenifold's form), a single string (filed under the
//!   relation's first file), or a list of `[uri, text]` / `{uri|file, text|preview}`; in the
//!   order of `files` (maenifold fills the map by walking `files`, so this is the CLI's order;
//!   uris not in `files` follow, sorted). Preview text has its lines trimmed and joined by one
//!   space (how a multi-line preview reads back from the text form);
//! - `expandedRelations` only when `depth` > 1, at most 20 (the CLI prints `Take(20)`);
//!   items may be names or `{name}` objects;
//! - the concept's own `communityId` only together with siblings (the text form shows it only
//!   in the `Community siblings (… in community N)` header);
//! - sibling overlap rounded to 3 decimals (as printed).
//!
//! `decayWeight` and `weightedScore` are not part of the value (the CLI does not print them).
//! Numbers may be JSON numbers or numeric strings. Unknown fields are ignored.

use serde_json::Value;

use crate::maenifold::{BuildContext, Relation, Sibling};

/// The CLI prints at most this many expanded relations.
pub const CLI_EXPANDED_SHOWN: usize = 20;

/// MCP tool names (exact, case-sensitive) for the CLI tool names (case-insensitive).
pub fn mcp_tool_name(cli_tool: &str) -> Option<&'static str> {
    const NAMES: [(&str, &str); 7] = [
        ("buildcontext", "build_context"),
        ("searchmemories", "search_memories"),
        ("recentactivity", "recent_activity"),
        ("readmemory", "read_memory"),
        ("writememory", "write_memory"),
        ("sync", "sync"),
        ("sequentialthinking", "sequential_thinking"),
    ];
    let key: String = cli_tool
        .chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    NAMES.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError(pub String);

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not a BuildContext answer: {}", self.0)
    }
}

/// `(uri, text)` pairs from any accepted `contentPreview` shape; an empty uri means "the
/// relation's first file".
fn previews(v: &Value) -> Vec<(String, String)> {
    let s = |v: &Value| v.as_str().map(str::to_string);
    match v {
        Value::Object(m) => m
            .iter()
            .filter_map(|(k, t)| Some((k.clone(), s(t)?)))
            .collect(),
        Value::String(t) => vec![(String::new(), t.clone())],
        Value::Array(items) => items
            .iter()
            .filter_map(|i| match i {
                Value::Array(pair) if pair.len() == 2 => Some((s(&pair[0])?, s(&pair[1])?)),
                Value::Object(o) => {
                    let field = |keys: &[&str]| keys.iter().find_map(|k| o.get(*k).and_then(s));
                    Some((
                        field(&["uri", "file", "path"]).unwrap_or_default(),
                        field(&["text", "preview", "content"])?,
                    ))
                }
                Value::String(t) => Some((String::new(), t.clone())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => crate::decimal::parse_f64(s.trim()),
        _ => None,
    }
}

fn uint(v: &Value) -> Option<u32> {
    num(v)
        .filter(|n| n.is_finite() && *n >= 0.0)
        .map(|n| n.min(f64::from(u32::MAX)) as u32)
}

fn name_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Object(o) => o
            .get("name")
            .and_then(Value::as_str)
            .map(|s| s.trim().to_string()),
        _ => None,
    }
    .filter(|s| !s.is_empty())
}

fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a
            .iter()
            .filter_map(|x| {
                x.as_str()
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
            })
            .collect(),
        Value::String(s) => s
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// A preview as it reads back from the CLI text form: lines trimmed, blank ones dropped,
/// joined by one space.
fn flat(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Convert the `build_context` result text. It is JSON for maenifold over MCP; a text in the
/// CLI form (an older server) is parsed as such.
pub fn build_context_from_text(text: &str) -> Result<BuildContext, ConvertError> {
    let t = text.trim_start();
    if t.starts_with('{') {
        let v: Value =
            serde_json::from_slice(t.as_bytes()).map_err(|e| ConvertError(e.to_string()))?;
        return build_context_from_value(&v);
    }
    BuildContext::parse(text).map_err(|e| ConvertError(e.to_string()))
}

/// Convert BuildContext's JSON, parsed (the result text, or a `structuredContent`).
pub fn build_context_from_value(v: &Value) -> Result<BuildContext, ConvertError> {
    let Value::Object(o) = v else {
        return Err(ConvertError(format!("expected an object, got {}", kind(v))));
    };
    let null = Value::Null;
    let get = |k: &str| o.get(k).unwrap_or(&null);
    let concept =
        name_of(get("conceptName")).ok_or_else(|| ConvertError("conceptName is missing".into()))?;
    let depth = uint(get("depth"));
    let direct = match get("directRelations") {
        Value::Array(a) => a.iter().filter_map(relation).collect(),
        Value::Null => Vec::new(),
        other => {
            return Err(ConvertError(format!(
                "directRelations is {}, not a list",
                kind(other)
            )))
        }
    };
    // Expanded relations: printed only when depth > 1 (an unknown depth keeps them).
    let expanded = match (depth, get("expandedRelations")) {
        (Some(d), _) if d <= 1 => Vec::new(),
        (_, Value::Array(a)) => a
            .iter()
            .filter_map(name_of)
            .take(CLI_EXPANDED_SHOWN)
            .collect(),
        _ => Vec::new(),
    };
    let sibling_values: &[Value] = get("communitySiblings")
        .as_array()
        .map_or(&[], Vec::as_slice);
    let siblings: Vec<Sibling> = sibling_values
        .iter()
        .filter_map(|s| {
            let field = |keys: &[&str]| keys.iter().find_map(|k| s.get(*k));
            Some(Sibling {
                name: name_of(s)?,
                shared_neighbors: field(&["sharedNeighborCount", "sharedNeighbors"])
                    .and_then(uint)
                    .unwrap_or(0),
                overlap: field(&["normalizedOverlap", "overlap"])
                    .and_then(num)
                    .filter(|x| x.is_finite())
                    .map(round3)
                    .unwrap_or(0.0),
            })
        })
        .collect();
    let community = if siblings.is_empty() {
        None
    } else {
        uint(get("communityId")).or_else(|| {
            sibling_values
                .iter()
                .find_map(|s| s.get("communityId").and_then(uint))
        })
    };
    Ok(BuildContext {
        concept,
        direct,
        expanded,
        community,
        siblings,
        ..Default::default()
    })
}

fn relation(r: &Value) -> Option<Relation> {
    let name = name_of(r.get("name")?)?;
    let null = Value::Null;
    let files = strings(r.get("files").unwrap_or(&null));
    let mut previews: Vec<(String, String)> = previews(r.get("contentPreview").unwrap_or(&null))
        .into_iter()
        .map(|(uri, text)| {
            let uri = if uri.is_empty() {
                files.first().cloned().unwrap_or_default()
            } else {
                uri
            };
            (uri, flat(&text))
        })
        .filter(|(uri, text)| !uri.is_empty() && !text.is_empty())
        .collect();
    // The order of `files` (a stable sort keeps the rest as they came).
    crate::sort::sort_by_key(&mut previews, |(uri, _)| {
        files.iter().position(|f| f == uri).unwrap_or(usize::MAX)
    });
    Some(Relation {
        name,
        co_occurrence: r.get("coOccurrenceCount").and_then(uint).unwrap_or(0),
        community: r.get("communityId").and_then(uint),
        files,
        previews,
    })
}

use crate::bounded::json_kind as kind;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{self, Style};
    use serde_json::json;

    /// The documented CLI sample, and the JSON maenifold gives over MCP for the same graph.
    const SAMPLE_TEXT: &str = "Context for CONCEPT: rest-api

Direct relations (2 CONCEPTS):
  • authentication (co-occurs in 3 files) [community 1]
    Files: memory://notes/auth-design, memory://notes/api
  • json (co-occurs in 1 files)
    Files: memory://notes/api

Expanded relations (2 hops):
  • jwt

Community siblings (1 concepts in community 1):
  • oauth (shared neighbors: 4, overlap: 0.512)
";
    const SAMPLE_JSON: &str = r#"{"conceptName":"rest-api","depth":2,"directRelations":[{"name":"authentication","coOccurrenceCount":3,"files":["memory://notes/auth-design","memory://notes/api"],"contentPreview":{},"decayWeight":0.93,"weightedScore":2.79,"communityId":1},{"name":"json","coOccurrenceCount":1,"files":["memory://notes/api"],"contentPreview":{},"decayWeight":1.0,"weightedScore":1.0}],"expandedRelations":["jwt"],"communityId":1,"communitySiblings":[{"name":"oauth","communityId":1,"sharedNeighborCount":4,"normalizedOverlap":0.51234}]}"#;

    /// With `includeContent`: previews in an order that is not alphabetical, one of them two
    /// lines long (the note's second line is indented, so the CLI text keeps it under the
    /// first).
    const PREVIEW_TEXT: &str = "Context for CONCEPT: auth

Direct relations (1 CONCEPTS):
  • jwt (co-occurs in 2 files)
    Files: memory://notes/zeta, memory://notes/alpha
    Content preview:
      memory://notes/zeta: Tokens are RS256-signed.
        Rotation every 24h.
      memory://notes/alpha: Refresh tokens live 30 days.
";
    const PREVIEW_JSON: &str = r#"{"conceptName":"auth","depth":1,"directRelations":[{"name":"jwt","coOccurrenceCount":2,"files":["memory://notes/zeta","memory://notes/alpha"],"contentPreview":{"memory://notes/zeta":"Tokens are RS256-signed.\n  Rotation every 24h.","memory://notes/alpha":"Refresh tokens live 30 days."},"decayWeight":1.0,"weightedScore":2.0}],"expandedRelations":[]}"#;

    const NONE_TEXT: &str = "Context for CONCEPT: nothing\n\nDirect relations (0 CONCEPTS):\n";
    const NONE_JSON: &str =
        r#"{"conceptName":"nothing","depth":2,"directRelations":[],"expandedRelations":[]}"#;

    fn both(text: &str, json: &str) -> (BuildContext, BuildContext) {
        (
            BuildContext::parse(text).unwrap(),
            build_context_from_text(json).unwrap(),
        )
    }

    #[test]
    fn the_same_graph_gives_the_same_value_and_context_text_in_both_forms() {
        for (text, json) in [
            (SAMPLE_TEXT, SAMPLE_JSON),
            (PREVIEW_TEXT, PREVIEW_JSON),
            (NONE_TEXT, NONE_JSON),
        ] {
            let (cli, mcp) = both(text, json);
            assert_eq!(mcp, cli, "for {json}");
            for style in [Style::Markdown, Style::ShellComment] {
                assert_eq!(
                    context::render(std::slice::from_ref(&mcp), style, 2000),
                    context::render(std::slice::from_ref(&cli), style, 2000)
                );
            }
        }
        let (_, mcp) = both(PREVIEW_TEXT, PREVIEW_JSON);
        assert_eq!(
            mcp.direct[0].previews[0].0, "memory://notes/zeta",
            "the order of files, as the CLI prints (a parsed map would sort alpha first)"
        );
        assert_eq!(
            mcp.direct[0].previews[0].1,
            "Tokens are RS256-signed. Rotation every 24h."
        );
        let (_, none) = both(NONE_TEXT, NONE_JSON);
        assert!(none.is_empty(), "no knowledge stays no knowledge");
        let block =
            context::render(&[both(SAMPLE_TEXT, SAMPLE_JSON).1], Style::Markdown, 2000).unwrap();
        assert!(block.contains("[[authentication]]") && block.contains("[[jwt]]"));
    }

    #[test]
    fn community_shows_only_with_siblings_and_expanded_only_past_depth_one() {
        let j = json!({"conceptName": "a", "depth": 1, "communityId": 4,
            "directRelations": [{"name": "b", "coOccurrenceCount": 1, "communityId": 4}],
            "expandedRelations": ["c"]});
        let b = build_context_from_value(&j).unwrap();
        assert_eq!(b.community, None);
        assert_eq!(b.direct[0].community, Some(4));
        assert!(
            b.expanded.is_empty(),
            "the CLI prints no expanded section at depth 1"
        );
        let many: Vec<String> = (0..30).map(|i| format!("e{i}")).collect();
        let j = json!({"conceptName": "a", "depth": 2, "expandedRelations": many});
        let b = build_context_from_value(&j).unwrap();
        assert_eq!(b.expanded.len(), CLI_EXPANDED_SHOWN);
        assert_eq!(BuildContext::parse(&b.to_text()).unwrap(), b);
    }

    #[test]
    fn lenient_about_optional_fields_and_shapes() {
        let j = json!({
            "conceptName": "a",
            "directRelations": [
                {"name": "b", "coOccurrenceCount": "3", "files": ["memory://x"], "contentPreview": "Just one preview."},
                {"name": "c", "contentPreview": [["memory://y", "Y text"], {"file": "memory://z", "preview": "Z text"}]},
                {"name": "", "coOccurrenceCount": 9},
                null,
                {"name": "d", "contentPreview": null, "files": null, "communityId": null}
            ],
            "expandedRelations": [{"name": "e"}, 7, "f"],
            "communitySiblings": [{"name": "s", "communityId": 2, "sharedNeighbors": 3, "overlap": "0.4444"}, {"nope": 1}]
        });
        let b = build_context_from_value(&j).unwrap();
        let names: Vec<&str> = b.direct.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, vec!["b", "c", "d"]);
        assert_eq!(b.direct[0].co_occurrence, 3);
        assert_eq!(
            b.direct[0].previews,
            vec![("memory://x".into(), "Just one preview.".into())]
        );
        assert_eq!(
            b.direct[1].previews,
            vec![
                ("memory://y".into(), "Y text".into()),
                ("memory://z".into(), "Z text".into())
            ]
        );
        assert!(b.direct[2].files.is_empty() && b.direct[2].community.is_none());
        assert_eq!(b.expanded, vec!["e", "f"], "unknown depth keeps them");
        assert_eq!(b.siblings.len(), 1);
        assert_eq!(b.siblings[0].shared_neighbors, 3);
        assert!((b.siblings[0].overlap - 0.444).abs() < 1e-12);
        assert_eq!(
            b.community,
            Some(2),
            "from the siblings when the top level has none"
        );
    }

    #[test]
    fn errors_are_reported_not_panicked() {
        assert!(build_context_from_text("{").is_err());
        assert!(build_context_from_text("[1]").is_err());
        assert!(
            build_context_from_text(r#"{"depth":1}"#).is_err(),
            "no concept"
        );
        assert!(build_context_from_text("An error occurred invoking 'build_context'").is_err());
        assert!(build_context_from_value(&json!("x")).is_err());
        assert!(
            build_context_from_text(r#"{"conceptName":"a","directRelations":"oops"}"#).is_err()
        );
        // the CLI form over MCP (an older server) is accepted
        assert_eq!(
            build_context_from_text(SAMPLE_TEXT).unwrap(),
            BuildContext::parse(SAMPLE_TEXT).unwrap()
        );
    }

    #[test]
    fn tool_names_are_snake_case_and_exact() {
        assert_eq!(mcp_tool_name("BuildContext"), Some("build_context"));
        assert_eq!(mcp_tool_name("buildcontext"), Some("build_context"));
        assert_eq!(mcp_tool_name("SearchMemories"), Some("search_memories"));
        assert_eq!(mcp_tool_name("RecentActivity"), Some("recent_activity"));
        assert_eq!(mcp_tool_name("ReadMemory"), Some("read_memory"));
        assert_eq!(mcp_tool_name("WriteMemory"), Some("write_memory"));
        assert_eq!(mcp_tool_name("Sync"), Some("sync"));
        assert_eq!(mcp_tool_name("write_memory"), Some("write_memory"));
        assert_eq!(mcp_tool_name("Visualize"), None);
    }
}

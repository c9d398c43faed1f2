//! Validation of the configuration against the JSON Schema shipped in the package
//! (`schema/hookwise.schema.json`, embedded at build time so the two cannot drift).
//!
//! A small validator for the subset of JSON Schema that file uses: `type`, `enum`, `minimum`,
//! `maximum`, `exclusiveMinimum`, `minLength`, `maxItems`, `items`, `properties`,
//! `additionalProperties` (false or a schema), `required`, `$ref` to `#/$defs/…`, and
//! `format: "regex"` (compiled with the same regex engine the patterns run on). Unknown
//! keywords (`description`, `default`, …) are ignored.
//!
//! Validation does not stop at the first problem: every invalid part is reported (file, key,
//! why) and removed, so that it falls back to its default while the rest applies.

use serde::Serialize;
use serde_json::{Map, Value};

/// The schema file, as shipped.
pub const SCHEMA_TEXT: &str = include_str!("../../schema/hookwise.schema.json");

/// One configuration problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// Where the value came from (`.opencode/hookwise.json`, `plugin options`).
    pub file: String,
    /// The key's path (`enforcement.riskPatterns[2].pattern`); empty for the whole document.
    pub key: String,
    pub why: String,
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file, self.why)
        } else {
            write!(f, "{}: '{}' {}", self.file, self.key, self.why)
        }
    }
}

thread_local! {
    static SCHEMA: Value = serde_json::from_str(SCHEMA_TEXT).unwrap_or(Value::Null);
}

/// Validate `value` against the shipped schema. Returns what is valid (invalid keys and
/// array items removed) and the problems found.
pub fn validate(value: &Value, file: &str) -> (Value, Vec<Issue>) {
    SCHEMA.with(|schema| validate_with(schema, value, file))
}

/// Validate against any schema of the supported subset.
pub fn validate_with(schema: &Value, value: &Value, file: &str) -> (Value, Vec<Issue>) {
    let mut v = Validator {
        root: schema,
        file,
        issues: Vec::new(),
    };
    let out = v
        .check(schema, value, "", 0)
        .unwrap_or(Value::Object(Map::new()));
    (out, v.issues)
}

struct Validator<'a> {
    root: &'a Value,
    file: &'a str,
    issues: Vec<Issue>,
}

/// [`crate::bounded::json_kind`], with whole numbers named as JSON Schema's `integer`.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        other => crate::bounded::json_kind(other),
    }
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => true,
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl Validator<'_> {
    fn issue(&mut self, key: &str, why: String) {
        self.issues.push(Issue {
            file: self.file.to_string(),
            key: key.to_string(),
            why,
        });
    }

    /// The valid part of `value`, or `None` (reported) when it must be dropped whole.
    fn check(&mut self, schema: &Value, value: &Value, path: &str, depth: u32) -> Option<Value> {
        if depth > 32 {
            self.issue(path, "is nested too deeply".into());
            return None;
        }
        let schema = match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => match r
                .strip_prefix("#/$defs/")
                .and_then(|n| self.root.get("$defs")?.get(n))
            {
                Some(s) => s.clone(),
                None => {
                    self.issue(path, format!("has an unresolvable schema reference {r}"));
                    return None;
                }
            },
            None => schema.clone(),
        };
        if let Some(t) = schema.get("type") {
            let types: Vec<&str> = match t {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            if !types.is_empty() && !types.iter().any(|t| is_type(value, t)) {
                let want = types
                    .iter()
                    .map(|t| match *t {
                        "object" => "an object",
                        "array" => "an array",
                        "string" => "a string",
                        "boolean" => "a boolean (true or false)",
                        "integer" => "an integer",
                        "number" => "a number",
                        other => other,
                    })
                    .collect::<Vec<_>>()
                    .join(" or ");
                self.issue(
                    path,
                    format!(
                        "must be {want}, got {} ({})",
                        type_name(value),
                        brief(value)
                    ),
                );
                return None;
            }
        }
        if let Some(Value::Array(allowed)) = schema.get("enum") {
            if !allowed.contains(value) {
                let list = allowed
                    .iter()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                self.issue(path, format!("must be one of {list}, got {}", brief(value)));
                return None;
            }
        }
        if let Some(n) = value.as_f64() {
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
                if n < min {
                    self.issue(path, format!("must be at least {min}, got {n}"));
                    return None;
                }
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
                if n > max {
                    self.issue(path, format!("must be at most {max}, got {n}"));
                    return None;
                }
            }
            if let Some(min) = schema.get("exclusiveMinimum").and_then(Value::as_f64) {
                if n <= min {
                    self.issue(path, format!("must be more than {min}, got {n}"));
                    return None;
                }
            }
        }
        if let Some(s) = value.as_str() {
            if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
                if (s.chars().count() as u64) < min {
                    self.issue(path, format!("must have at least {min} character(s)"));
                    return None;
                }
            }
            if schema.get("format").and_then(Value::as_str) == Some("regex") {
                if let Err(e) = super::re::Regex::new(s) {
                    self.issue(
                        path,
                        format!("is not a valid regex ({s}): {}", regex_error(&e)),
                    );
                    return None;
                }
            }
        }
        match value {
            Value::Object(m) => self.object(&schema, m, path, depth).map(Value::Object),
            Value::Array(a) => {
                if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
                    if a.len() as u64 > max {
                        self.issue(
                            path,
                            format!("may have at most {max} items, got {}", a.len()),
                        );
                        return None;
                    }
                }
                match schema.get("items") {
                    Some(items) => {
                        let mut out = Vec::new();
                        for (i, x) in a.iter().enumerate() {
                            if let Some(ok) =
                                self.check(items, x, &format!("{path}[{i}]"), depth + 1)
                            {
                                out.push(ok);
                            }
                        }
                        if out.is_empty() && !a.is_empty() {
                            // nothing valid is left: the default applies, not an empty list
                            return None;
                        }
                        Some(Value::Array(out))
                    }
                    None => Some(value.clone()),
                }
            }
            _ => Some(value.clone()),
        }
    }

    /// The valid keys of an object; `None` when a required key is missing or invalid (the
    /// entry cannot stand without it).
    fn object(
        &mut self,
        schema: &Value,
        m: &Map<String, Value>,
        path: &str,
        depth: u32,
    ) -> Option<Map<String, Value>> {
        let props = schema.get("properties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        let mut out = Map::new();
        for (k, v) in m {
            let p = child(path, k);
            match props.and_then(|p| p.get(k)) {
                Some(s) => {
                    if let Some(ok) = self.check(s, v, &p, depth + 1) {
                        out.insert(k.clone(), ok);
                    }
                }
                None => match additional {
                    Some(Value::Bool(false)) => {
                        let hint = props
                            .and_then(|p| closest(k, p.keys().map(String::as_str)))
                            .map(|c| format!(" (did you mean '{c}'?)"))
                            .unwrap_or_default();
                        self.issue(&p, format!("is not a known key; ignored{hint}"));
                    }
                    Some(s @ Value::Object(_)) => {
                        if let Some(ok) = self.check(s, v, &p, depth + 1) {
                            out.insert(k.clone(), ok);
                        }
                    }
                    _ => {
                        out.insert(k.clone(), v.clone());
                    }
                },
            }
        }
        if let Some(Value::Array(req)) = schema.get("required") {
            for r in req.iter().filter_map(Value::as_str) {
                if !out.contains_key(r) {
                    if !m.contains_key(r) {
                        // (a present but invalid one was reported already)
                        self.issue(
                            &child(path, r),
                            "is required here; the whole entry is ignored".into(),
                        );
                    }
                    return None;
                }
            }
        }
        Some(out)
    }
}

/// The telling line of a regex error (the full text repeats the pattern with a caret).
pub fn regex_error(e: &super::re::Error) -> String {
    let msg = e.to_string();
    msg.lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// A short rendering of a value for messages.
fn brief(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

/// The known key nearest to a misspelt one (edit distance ≤ 2).
fn closest<'k>(k: &str, known: impl Iterator<Item = &'k str>) -> Option<&'k str> {
    known
        .map(|c| {
            (
                distance(&k.to_ascii_lowercase(), &c.to_ascii_lowercase()),
                c,
            )
        })
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, c)| c)
}

fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_shipped_schema_parses() {
        let s: Value = serde_json::from_str(SCHEMA_TEXT).expect("schema is JSON");
        assert_eq!(s["type"], "object");
        assert!(
            s["$defs"]["enforcement"]["properties"]
                .as_object()
                .unwrap()
                .len()
                > 15
        );
    }

    #[test]
    fn foundation_keys_are_covered() {
        // every key src/config.rs knows is in the schema
        let s: Value = serde_json::from_str(SCHEMA_TEXT).unwrap();
        for k in [
            "cliPath",
            "timeoutMs",
            "deadlineMs",
            "tokenBudget",
            "maxConcepts",
            "depth",
            "maxEntities",
            "includeContent",
            "promptFields",
            "enforcement",
        ] {
            assert!(s["properties"].get(k).is_some(), "{k}");
        }
        let (out, issues) = validate(
            &json!({"cliPath": "/bin/m", "timeoutMs": 2000, "deadlineMs": 300, "tokenBudget": 500,
                    "maxConcepts": 3, "depth": 2, "maxEntities": 9, "includeContent": false,
                    "promptFields": ["prompt"]}),
            "f",
        );
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(out["depth"], 2);
    }

    #[test]
    fn valid_config_passes_whole() {
        let cfg = json!({
            "$schema": "./node_modules/hookwise/dist/hookwise.schema.json",
            "enforcement": {
                "level": "strict",
                "categories": {"gotchas": "strict"},
                "thresholds": {"strict": 0.6},
                "deadlineMs": 200,
                "riskPatterns": [{"pattern": "^make deploy", "level": "high", "scope": "command"}],
                "services": {"billing": ["stripe", "invoice"]},
                "memory": {"mode": "Semantic"}
            }
        });
        let (out, issues) = validate(&cfg, "f");
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(out, cfg);
    }

    #[test]
    fn bad_parts_are_reported_precisely_and_dropped() {
        let cfg = json!({
            "tokenBudgt": 5,
            "depth": 7,
            "enforcement": {
                "level": "paranoid",
                "deadlineMs": "fast",
                "cooldownMs": 1000,
                "thresholds": {"strict": 1.5, "advisory": 0.2},
                "riskPatterns": [
                    {"pattern": "ok", "level": "high"},
                    {"pattern": "(unclosed", "level": "high"},
                    {"pattern": "x", "level": "extreme"},
                    {"level": "low"}
                ],
                "prodHosts": ["prod", "[bad"],
                "services": {"db": "psql"}
            }
        });
        let (out, issues) = validate(&cfg, ".opencode/hookwise.json");
        let mut keys: Vec<&str> = issues.iter().map(|i| i.key.as_str()).collect();
        crate::sort::sort(&mut keys);
        assert_eq!(
            keys,
            vec![
                "depth",
                "enforcement.deadlineMs",
                "enforcement.level",
                "enforcement.prodHosts[1]",
                "enforcement.riskPatterns[1].pattern",
                "enforcement.riskPatterns[2].level",
                "enforcement.riskPatterns[3].pattern",
                "enforcement.services.db",
                "enforcement.thresholds.strict",
                "tokenBudgt",
            ]
        );
        let msg = |k: &str| issues.iter().find(|i| i.key == k).unwrap().to_string();
        assert!(msg("tokenBudgt").contains("did you mean 'tokenBudget'"));
        assert!(msg("enforcement.level").contains("\"paranoid\""));
        assert!(msg("enforcement.deadlineMs").contains("must be an integer, got a string"));
        assert!(
            msg("enforcement.riskPatterns[1].pattern").contains("not a valid regex ((unclosed)")
        );
        assert!(msg("depth").starts_with(".opencode/hookwise.json: 'depth' must be at most 2"));
        // what stays
        let e = &out["enforcement"];
        assert_eq!(e["cooldownMs"], 1000);
        assert_eq!(e["thresholds"], json!({"advisory": 0.2}));
        assert_eq!(
            e["riskPatterns"],
            json!([{"pattern": "ok", "level": "high"}])
        );
        assert_eq!(e["prodHosts"], json!(["prod"]));
        assert!(e.get("level").is_none() && e.get("services").unwrap().get("db").is_none());
        assert!(out.get("depth").is_none());
    }

    #[test]
    fn wrong_document_type() {
        let (out, issues) = validate(&json!([1]), "plugin options");
        assert_eq!(out, json!({}));
        assert_eq!(
            issues[0].to_string(),
            "plugin options: must be an object, got an array ([1])"
        );
    }

    #[test]
    fn the_schema_knows_every_option_the_foundation_reads() {
        // With enforcement on, the options pass this schema before the foundation reads them:
        // a key missing here would be reported unknown and dropped (the vault, session start).
        let schema: Value = serde_json::from_str(SCHEMA_TEXT).unwrap();
        let props = schema["properties"].as_object().unwrap();
        let read: Vec<&str> = crate::config::KNOWN
            .iter()
            .chain(crate::session::config::OPTION_KEYS)
            .chain(crate::mcp::McpOptions::KEYS)
            .chain(crate::tools::OPTION_KEYS)
            .copied()
            .collect();
        for k in &read {
            assert!(props.contains_key(*k), "schema lacks option '{k}'");
        }
        for k in props.keys() {
            assert!(
                read.contains(&k.as_str()),
                "schema has '{k}', which nothing reads"
            );
        }
        let opts = serde_json::json!({
            "knowledge": "vault", "vault": "/notes", "vaultRefreshMs": 500,
            "sessionStartEnabled": false, "tokenLimit": 2000, "sessionStartTimeoutMs": "8000",
            "sessionContextChannel": "prompt", "compactionTimeoutMs": 2500
        });
        let (valid, issues) = validate(&opts, "plugin options");
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(valid, opts);
        let (_, issues) = validate(&serde_json::json!({"knowledge": "both"}), "f");
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].key, "knowledge");
    }
}

//! The excerpt shown for an SOP: markdown sections by heading, YAML sections as text.

use super::*;

/// The sections of a markdown body whose heading starts with one of `wanted` (normalized),
/// in `wanted` order. A section runs to the next heading of the same or a higher level.
pub fn markdown_sections(body: &str, wanted: &[String]) -> Vec<Section> {
    // (level, normalized heading, start line index)
    let lines: Vec<&str> = body.lines().collect();
    let mut heads: Vec<(usize, String, usize)> = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") {
            fence = Some("```");
            continue;
        }
        if t.starts_with("~~~") {
            fence = Some("~~~");
            continue;
        }
        let level = t.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&level) && t[level..].starts_with([' ', '\t']) {
            heads.push((level, norm(&t[level..]), i));
        }
    }
    let mut out = Vec::new();
    let mut used = Vec::new();
    for name in wanted {
        let n = norm(name);
        if n.is_empty() {
            continue;
        }
        if let Some(k) = heads.iter().position(|(_, h, _)| h.starts_with(&n)) {
            // the same heading asked for twice: its text is already in
            if used.contains(&k) {
                continue;
            }
            used.push(k);
            let (level, _, start) = heads[k];
            let end = heads[k + 1..]
                .iter()
                .find(|(l, _, _)| *l <= level)
                .map(|(_, _, i)| *i)
                .unwrap_or(lines.len());
            let text = lines[start..end].join("\n");
            if !out.iter().any(|s: &Section| s.text == text) {
                out.push(Section {
                    name: name.clone(),
                    text: text.trim_end().to_string(),
                });
            }
        }
    }
    out
}

/// A YAML section as readable text: preflight steps, lists, mappings.
pub(super) fn render_yaml_section(v: &Value) -> String {
    let mut out = String::new();
    render_value(v, 0, &mut out);
    out
}

pub(super) fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        _ => None,
    }
}

pub(super) fn render_value(v: &Value, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match v {
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                match x {
                    Value::Object(o)
                        if o.contains_key("action")
                            || o.contains_key("command")
                            || o.contains_key("check") =>
                    {
                        // a step: {id, action, command, check, reason}
                        let id = o.get("id").and_then(scalar).filter(|s| !s.is_empty());
                        let action = o.get("action").and_then(scalar).unwrap_or_default();
                        let head = match id {
                            Some(id) => format!("{pad}{}. [{id}] {action}", i + 1),
                            None => format!("{pad}{}. {action}", i + 1),
                        };
                        out.push_str(head.trim_end());
                        out.push('\n');
                        for (k, label) in [
                            ("command", "run"),
                            ("check", "check"),
                            ("expect", "expect"),
                            ("reason", "why"),
                        ] {
                            if let Some(s) = o.get(k).and_then(scalar).filter(|s| !s.is_empty()) {
                                out.push_str(&format!("{pad}   {label}: {s}\n"));
                            }
                        }
                        for (k, x) in o {
                            if !matches!(
                                k.as_str(),
                                "id" | "action" | "command" | "check" | "expect" | "reason"
                            ) {
                                inline_pair(k, x, &format!("{pad}   "), out);
                            }
                        }
                    }
                    Value::Object(o) => {
                        let mut first = true;
                        for (k, x) in o {
                            let p = if first {
                                format!("{pad}- ")
                            } else {
                                format!("{pad}  ")
                            };
                            first = false;
                            inline_pair(k, x, &p, out);
                        }
                    }
                    other => match scalar(other) {
                        Some(s) => out.push_str(&format!("{pad}- {s}\n")),
                        None => render_value(other, indent + 1, out),
                    },
                }
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                inline_pair(k, x, &pad, out);
            }
        }
        other => {
            if let Some(s) = scalar(other) {
                for l in s.lines() {
                    out.push_str(&format!("{pad}{l}\n"));
                }
            }
        }
    }
}

pub(super) fn inline_pair(k: &str, x: &Value, prefix: &str, out: &mut String) {
    match scalar(x) {
        Some(s) => out.push_str(&format!("{prefix}{k}: {s}\n")),
        None => {
            out.push_str(&format!("{prefix}{k}:\n"));
            let depth = prefix.len() / 2 + 1;
            render_value(x, depth, out);
        }
    }
}

pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

//! Reading an SOP file: which names are SOPs, front matter and YAML, the match rules and
//! the sections to show. Bounded: see the limits in [`super`].

use super::*;

pub fn format_of(path: &str) -> Option<Format> {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    if name == "readme.md" || name.starts_with('.') {
        return None;
    }
    if name.ends_with(".ai.sop") || name.ends_with(".sop.yaml") || name.ends_with(".sop.yml") {
        Some(Format::Yaml)
    } else if name.ends_with(".md") || name.ends_with(".markdown") {
        Some(Format::Markdown)
    } else {
        None
    }
}

pub(super) fn stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    for ext in [".ai.sop", ".sop.yaml", ".sop.yml", ".markdown", ".md"] {
        if name.len() > ext.len() && name.to_ascii_lowercase().ends_with(ext) {
            return name[..name.len() - ext.len()].to_string();
        }
    }
    name.to_string()
}

/// Parse one SOP file. `Err` names the problem (the caller names the file). Warnings are
/// non-fatal oddities (an unknown category).
pub fn parse(
    path: &str,
    text: &str,
    default_sections: &[String],
) -> Result<(Sop, Vec<String>), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err("the file is empty".into());
    }
    match format_of(path) {
        Some(Format::Markdown) => parse_markdown(path, text, default_sections),
        Some(Format::Yaml) => parse_yaml(path, text, default_sections),
        None => Err("not an SOP file name (*.md, *.ai.sop, *.sop.yaml)".into()),
    }
}

pub(super) fn yaml(text: &str) -> Result<Value, YamlError> {
    bounded::yaml::<Value>(text, MAX_SOP_BYTES)
}

/// Why a size limit was passed, as the log says it (`it is 300 KiB, over the 256 KiB limit`).
pub(super) fn too_large(bytes: Option<u64>) -> String {
    let r = Refusal::TooLarge {
        bytes: bytes.filter(|b| *b > MAX_SOP_BYTES),
        limit: MAX_SOP_BYTES,
    };
    format!("it {r}")
}

/// The section names asked for: the SOP's own list (at most [`MAX_SECTIONS`]), else the
/// configured ones.
pub(super) fn wanted_sections(
    meta: &Value,
    default_sections: &[String],
    warnings: &mut Vec<String>,
) -> Result<Vec<String>, String> {
    Ok(match string_list(meta, "sections")? {
        Some(mut s) => {
            if s.len() > MAX_SECTIONS {
                warnings.push(format!(
                    "'sections' names {} sections; only the first {MAX_SECTIONS} are used",
                    s.len()
                ));
                s.truncate(MAX_SECTIONS);
            }
            s
        }
        None => default_sections.to_vec(),
    })
}

/// Split `---` front matter from a markdown text.
pub(super) fn front_matter(text: &str) -> Result<Option<(&str, &str)>, String> {
    let first_end = text.find('\n').unwrap_or(text.len());
    if text[..first_end].trim_end() != "---" {
        return Ok(None);
    }
    let mut pos = first_end + 1;
    while pos <= text.len() {
        let end = text[pos..]
            .find('\n')
            .map(|i| pos + i)
            .unwrap_or(text.len());
        let line = text[pos..end].trim_end();
        if line == "---" || line == "..." {
            let fm = &text[first_end + 1..pos];
            let body = if end < text.len() {
                &text[end + 1..]
            } else {
                ""
            };
            return Ok(Some((fm, body)));
        }
        if end >= text.len() {
            break;
        }
        pos = end + 1;
    }
    Err("the front matter is not closed (no '---' line after the opening one)".into())
}

pub(super) fn parse_markdown(
    path: &str,
    text: &str,
    default_sections: &[String],
) -> Result<(Sop, Vec<String>), String> {
    let Some((fm, body)) = front_matter(text)? else {
        return Err("no front matter: an SOP needs match rules (see the SOP format)".into());
    };
    let meta = yaml(fm).map_err(|e| match e {
        // the front matter starts on the file's second line
        YamlError::Refused(Refusal::TooDeep { line, limit }) => {
            let r = Refusal::TooDeep {
                line: line + 1,
                limit,
            };
            format!("the front matter {r}")
        }
        YamlError::Refused(r) => format!("the front matter {r}"),
        YamlError::Syntax(e) => format!("the front matter is not valid YAML: {e}"),
    })?;
    let meta = match meta {
        Value::Object(_) => meta,
        Value::Null => return Err("the front matter is empty: an SOP needs match rules".into()),
        other => {
            return Err(format!(
                "the front matter must be a mapping, not {}",
                yaml_kind(&other)
            ))
        }
    };
    let mut warnings = Vec::new();
    let m = meta.get("match").unwrap_or(&meta);
    let matcher = matcher(m, &meta)?;
    if !matcher.has_rules() {
        return Err(
            "no match rules (match.patterns, keywords, commands, services, hosts or tools)".into(),
        );
    }
    let title = str_field(&meta, "title")?
        .or_else(|| {
            body.lines()
                .find_map(|l| l.strip_prefix("# ").map(|t| t.trim().to_string()))
        })
        .unwrap_or_else(|| stem(path));
    let wanted = wanted_sections(&meta, default_sections, &mut warnings)?;
    let sections = markdown_sections(body, &wanted);
    let category = category(&meta, path, &mut warnings)?;
    Ok((
        Sop {
            id: str_field(&meta, "id")?.unwrap_or_else(|| stem(path)),
            path: path.to_string(),
            title,
            category,
            priority: priority(&meta)?,
            matcher,
            sections,
            excerpt: clip(body.trim(), EXCERPT_CHARS),
        },
        warnings,
    ))
}

pub(super) fn parse_yaml(
    path: &str,
    text: &str,
    default_sections: &[String],
) -> Result<(Sop, Vec<String>), String> {
    let doc = yaml(text).map_err(|e| match e {
        YamlError::Refused(r) => format!("it {r}"),
        YamlError::Syntax(e) => format!("not valid YAML: {e}"),
    })?;
    if !doc.is_object() {
        return Err(format!(
            "the document must be a mapping, not {}",
            yaml_kind(&doc)
        ));
    }
    let empty = Value::Object(Default::default());
    let meta = match doc.get("meta") {
        Some(m @ Value::Object(_)) => m,
        Some(Value::Null) | None => &empty,
        Some(other) => {
            return Err(format!(
                "'meta' must be a mapping, not {}",
                yaml_kind(other)
            ))
        }
    };
    let mut warnings = Vec::new();
    let explicit = meta.get("match").or_else(|| doc.get("match"));
    let mut matcher = match explicit {
        Some(m) => matcher(m, meta)?,
        None => matcher(meta, meta)?,
    };
    if explicit.is_none() {
        // implicit rules from the sections the SOP is about
        if let Some(hosts) = doc.get("hosts") {
            matcher.hosts.extend(host_names(hosts));
        }
        if let Some(cmds) = doc.get("commands") {
            matcher.commands.extend(command_prefixes(cmds));
        }
    }
    if !matcher.has_rules() {
        return Err(
            "no match rules (meta.match, meta.service, meta.keywords, a hosts or commands section)"
                .into(),
        );
    }
    let wanted = wanted_sections(meta, default_sections, &mut warnings)?;
    // each key normalized once (the first of equal ones wins, as a search in order would)
    let mut keys: std::collections::HashMap<String, &String> = std::collections::HashMap::new();
    for k in doc.as_object().into_iter().flat_map(|o| o.keys()) {
        keys.entry(norm(k)).or_insert(k);
    }
    let mut sections = Vec::new();
    for name in &wanted {
        let key = keys.get(&norm(name)).map(|k| (*k).clone());
        if let Some(k) = key {
            let rendered = render_yaml_section(&doc[&k]);
            if !rendered.trim().is_empty() {
                sections.push(Section {
                    name: name.clone(),
                    text: format!("### {}\n{}", heading_case(&k), rendered.trim_end()),
                });
            }
        }
    }
    let title = str_field(meta, "title")?
        .or(str_field(meta, "name")?)
        .unwrap_or_else(|| stem(path));
    let category = category(meta, path, &mut warnings)?;
    Ok((
        Sop {
            id: str_field(meta, "id")?.unwrap_or_else(|| stem(path)),
            path: path.to_string(),
            title,
            category,
            priority: priority(meta)?,
            matcher,
            sections,
            excerpt: clip(text.trim(), EXCERPT_CHARS),
        },
        warnings,
    ))
}

/// The kind of a value in YAML's words (`a list`, `a mapping`, `empty`): an SOP's author
/// wrote YAML, so its messages do not use JSON's ([`crate::bounded::json_kind`]).
pub(super) fn yaml_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

pub(super) fn str_field(v: &Value, key: &str) -> Result<Option<String>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        Some(Value::String(_)) => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(other) => Err(format!(
            "'{key}' must be a string, not {}",
            yaml_kind(other)
        )),
    }
}

/// A list of strings (a single string is a list of one).
pub(super) fn string_list(v: &Value, key: &str) -> Result<Option<Vec<String>>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| match x {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(format!(
                    "'{key}' must be a list of strings; it holds {}",
                    yaml_kind(other)
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(format!(
            "'{key}' must be a list of strings, not {}",
            yaml_kind(other)
        )),
    }
}

pub(super) fn priority(v: &Value) -> Result<i64, String> {
    match v.get("priority") {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .ok_or_else(|| "'priority' must be an integer".to_string()),
        Some(other) => Err(format!(
            "'priority' must be an integer, not {}",
            yaml_kind(other)
        )),
    }
}

pub(super) fn category(
    meta: &Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<Category, String> {
    if let Some(c) = str_field(meta, "category")? {
        return Ok(match Category::from_word(&c) {
            Some(cat) => cat,
            None => {
                warnings.push(format!("unknown category '{c}'; using general"));
                Category::General
            }
        });
    }
    if let Some(tags) = string_list(meta, "tags")? {
        if let Some(c) = tags.iter().find_map(|t| Category::from_word(t)) {
            return Ok(c);
        }
    }
    // the folder it sits in (`sops/security/x.md`), except the SOP folder itself
    let folders: Vec<&str> = path.split('/').rev().skip(1).collect();
    Ok(folders
        .iter()
        .take_while(|f| !matches!(f.to_ascii_lowercase().as_str(), "sops" | "sop"))
        .find_map(|f| Category::from_word(f))
        .unwrap_or(Category::General))
}

pub(super) fn matcher(m: &Value, meta: &Value) -> Result<Matcher, String> {
    if !m.is_object() {
        return Err(format!("'match' must be a mapping, not {}", yaml_kind(m)));
    }
    let mut out = Matcher {
        tools: string_list(m, "tools")?.unwrap_or_default(),
        keywords: string_list(m, "keywords")?
            .unwrap_or_default()
            .into_iter()
            .chain(string_list(m, "triggers")?.unwrap_or_default())
            .map(|k| k.trim().to_lowercase())
            .filter(|k| !k.is_empty())
            .collect(),
        services: string_list(m, "services")?
            .unwrap_or_default()
            .into_iter()
            .chain(string_list(m, "service")?.unwrap_or_default())
            .map(|s| s.to_lowercase())
            .collect(),
        hosts: string_list(m, "hosts")
            .ok()
            .flatten()
            .unwrap_or_default()
            .into_iter()
            .map(|h| h.to_ascii_lowercase())
            .collect(),
        projects: string_list(m, "projects")?.unwrap_or_default(),
        ..Default::default()
    };
    for (i, p) in string_list(m, "patterns")?
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let re = Regex::new(p).map_err(|e| {
            format!(
                "pattern {} ('{p}') is not a valid regex: {}",
                i + 1,
                crate::enforce::schema::regex_error(&e)
            )
        })?;
        out.patterns.push(re);
    }
    if let Some(cmds) = m.get("commands") {
        out.commands = command_prefixes(cmds);
    }
    let risk_field = m.get("minRisk").or_else(|| meta.get("minRisk"));
    if let Some(r) = risk_field {
        match r.as_str().and_then(Risk::parse) {
            Some(r) => out.min_risk = Some(r),
            None => return Err("'minRisk' must be low, medium, high or critical".into()),
        }
    }
    Ok(out)
}

/// Host names in a `hosts` section: strings, or mappings with name/host/hostname/ip/address,
/// or a mapping whose keys are host names.
pub(super) fn host_names(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    match v {
        Value::String(s) => out.push(s.to_ascii_lowercase()),
        Value::Array(a) => {
            for x in a {
                match x {
                    Value::String(s) => out.push(s.to_ascii_lowercase()),
                    Value::Object(o) => {
                        for k in ["host", "hostname", "name", "ip", "address", "fqdn"] {
                            if let Some(s) = o.get(k).and_then(Value::as_str) {
                                out.push(s.to_ascii_lowercase());
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                out.push(k.to_ascii_lowercase());
                out.extend(host_names(x));
            }
        }
        _ => {}
    }
    out.retain(|h| !h.is_empty() && !h.contains(' '));
    out.dedup();
    out
}

/// Program + subcommand prefixes of a `commands` list (strings or `{command|cmd|run}`).
pub(super) fn command_prefixes(v: &Value) -> Vec<Vec<String>> {
    let texts: Vec<String> = match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|x| match x {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => ["command", "cmd", "run"]
                    .iter()
                    .find_map(|k| o.get(*k).and_then(Value::as_str).map(str::to_string)),
                _ => None,
            })
            .collect(),
        Value::Object(o) => o
            .values()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        _ => vec![],
    };
    let mut out: Vec<Vec<String>> = Vec::new();
    for t in texts {
        for seg in shell::split(&t) {
            if let Some((start, _)) = seg.command_start() {
                let prog = shell::basename(&seg.words[start]).to_string();
                let mut words = vec![prog.clone()];
                if let Some(sub) = extract::subcommand(&prog, &seg.words[start + 1..]) {
                    words.extend(sub.split(' ').map(str::to_string));
                }
                if !out.contains(&words) {
                    out.push(words);
                }
            }
        }
    }
    out
}

/// Lowercase letters and digits only: `Pre-flight Checks` → `preflightchecks`.
pub(super) fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

pub(super) fn heading_case(k: &str) -> String {
    let mut c = k.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

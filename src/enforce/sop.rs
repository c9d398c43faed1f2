//! Standard operating procedures: parsing, matching a call, and the cache.
//!
//! Two formats:
//!
//! * **Markdown** (`*.md`, `*.markdown`) with YAML front matter:
//!   ```yaml
//!   ---
//!   id: git-force-push            # default: the file name without extension
//!   title: Force-pushing          # default: the first `# ` heading, else the id
//!   category: process             # process|security|credentials|gotchas|technical|general
//!   priority: 10                  # higher first among equal confidence (default 0)
//!   match:
//!     tools: [bash]               # only these tools (default: any)
//!     patterns: ['git\s+push\s.*--force']   # regexes over the call text
//!     keywords: [force push, rebase]        # words or phrases in the call text
//!     commands: [git push]        # command prefixes (program, subcommand, …)
//!     services: [git]             # extracted services
//!     hosts: ['*.prod.example.com']         # target hosts (`*` wildcards)
//!     projects: [shop]            # only in these projects
//!     minRisk: medium             # only for actions at least this risky
//!   sections: [preflight, rollback]         # headings to show (default: the configured list)
//!   ---
//!   ```
//!   `patterns`, `keywords`, `commands`, `tools`, `services`, `hosts` are also accepted at
//!   the top level. Sections are headings (any level) whose text starts with the name,
//!   compared without case and punctuation (`## Pre-flight checks` is `preflight`).
//! * **YAML** (`*.ai.sop`, `*.sop.yaml`, `*.sop.yml`): `meta {id, title|name, category,
//!   priority, service(s), keywords, tags, match {…}, sections}`, and sections as top-level
//!   keys: `preflight[{id, action, command, check, reason}]`, `gotchas`, `credentials`,
//!   `rollback`, `hosts`, `commands`, … Without explicit match rules, `meta.service(s)`,
//!   `meta.keywords`, the `hosts` section (names / `host` / `ip` fields) and the `commands`
//!   section (their program and subcommand) are the rules.
//!
//! With none of the named sections present, the excerpt is the first 1500 characters.
//!
//! Bounded (an SOP folder may hold hostile files): a file over [`MAX_SOP_BYTES`] is skipped
//! unread; its YAML (front matter or whole file) may nest at most
//! [`crate::bounded::MAX_DEPTH`] levels and its aliases expand it at most
//! [`crate::bounded::EXPANSION`] times; at most [`MAX_SECTIONS`] section names are used.
//! Over a limit the SOP is skipped with the reason in the log, as any broken SOP is.
//! Confidence of a match: pattern 1.0, command 0.95, host 0.9, service 0.8, keywords
//! 0.5 + 0.1 per further keyword (at most 0.9); the best applies.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::re::Regex;
use serde_json::Value;

use super::config::Category;
use super::extract::{self, ActionContext, Risk};
use super::shell;
use crate::bounded::{self, Refusal, YamlError};
use crate::protocol::{Log, ReadResult, ReplyError, Request};
use crate::runtime::{join_all, Io};

/// Characters of the fallback excerpt.
pub const EXCERPT_CHARS: usize = 1500;
/// SOP files larger than this are skipped.
pub const MAX_SOP_BYTES: u64 = 256 * 1024;
/// Section names an SOP may ask for (`sections:`); the rest are ignored, with a warning.
pub const MAX_SECTIONS: usize = 64;
const MAX_LIST_ENTRIES: u64 = 2000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub text: String,
}

#[derive(Debug, Clone, Default)]
pub struct Matcher {
    pub tools: Vec<String>,
    pub patterns: Vec<Regex>,
    pub keywords: Vec<String>,
    /// Command prefixes as words (`["git", "push"]`).
    pub commands: Vec<Vec<String>>,
    pub services: Vec<String>,
    pub hosts: Vec<String>,
    pub projects: Vec<String>,
    pub min_risk: Option<Risk>,
}

impl Matcher {
    fn has_rules(&self) -> bool {
        !(self.patterns.is_empty()
            && self.keywords.is_empty()
            && self.commands.is_empty()
            && self.services.is_empty()
            && self.hosts.is_empty()
            && self.tools.is_empty())
    }
}

#[derive(Debug, Clone)]
pub struct Sop {
    pub id: String,
    /// The file, as shown to people (`.opencode/sops/git.md`).
    pub path: String,
    pub title: String,
    pub category: Category,
    pub priority: i64,
    pub matcher: Matcher,
    /// The named sections found, in the order asked for.
    pub sections: Vec<Section>,
    /// The first [`EXCERPT_CHARS`] characters, used when no named section exists.
    pub excerpt: String,
}

impl Sop {
    /// The text shown for this SOP: its sections, else the excerpt.
    pub fn body(&self) -> String {
        if self.sections.is_empty() {
            self.excerpt.clone()
        } else {
            self.sections
                .iter()
                .map(|s| s.text.trim_end().to_string())
                .collect::<Vec<_>>()
                .join("\n\n")
        }
    }
}

/// Which file names are SOPs, and which format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Yaml,
}

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

fn stem(path: &str) -> String {
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

fn yaml(text: &str) -> Result<Value, YamlError> {
    bounded::yaml::<Value>(text, MAX_SOP_BYTES)
}

/// Why a size limit was passed, as the log says it (`it is 300 KiB, over the 256 KiB limit`).
fn too_large(bytes: Option<u64>) -> String {
    let r = Refusal::TooLarge {
        bytes: bytes.filter(|b| *b > MAX_SOP_BYTES),
        limit: MAX_SOP_BYTES,
    };
    format!("it {r}")
}

/// The section names asked for: the SOP's own list (at most [`MAX_SECTIONS`]), else the
/// configured ones.
fn wanted_sections(
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
fn front_matter(text: &str) -> Result<Option<(&str, &str)>, String> {
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

fn parse_markdown(
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
                kind(&other)
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

fn parse_yaml(
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
            kind(&doc)
        ));
    }
    let empty = Value::Object(Default::default());
    let meta = match doc.get("meta") {
        Some(m @ Value::Object(_)) => m,
        Some(Value::Null) | None => &empty,
        Some(other) => return Err(format!("'meta' must be a mapping, not {}", kind(other))),
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

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn str_field(v: &Value, key: &str) -> Result<Option<String>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        Some(Value::String(_)) => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(other) => Err(format!("'{key}' must be a string, not {}", kind(other))),
    }
}

/// A list of strings (a single string is a list of one).
fn string_list(v: &Value, key: &str) -> Result<Option<Vec<String>>, String> {
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
                    kind(other)
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(format!(
            "'{key}' must be a list of strings, not {}",
            kind(other)
        )),
    }
}

fn priority(v: &Value) -> Result<i64, String> {
    match v.get("priority") {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .ok_or_else(|| "'priority' must be an integer".to_string()),
        Some(other) => Err(format!(
            "'priority' must be an integer, not {}",
            kind(other)
        )),
    }
}

fn category(meta: &Value, path: &str, warnings: &mut Vec<String>) -> Result<Category, String> {
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

fn matcher(m: &Value, meta: &Value) -> Result<Matcher, String> {
    if !m.is_object() {
        return Err(format!("'match' must be a mapping, not {}", kind(m)));
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
                super::schema::regex_error(&e)
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
fn host_names(v: &Value) -> Vec<String> {
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
fn command_prefixes(v: &Value) -> Vec<Vec<String>> {
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
fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn heading_case(k: &str) -> String {
    let mut c = k.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

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
fn render_yaml_section(v: &Value) -> String {
    let mut out = String::new();
    render_value(v, 0, &mut out);
    out
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        _ => None,
    }
}

fn render_value(v: &Value, indent: usize, out: &mut String) {
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

fn inline_pair(k: &str, x: &Value, prefix: &str, out: &mut String) {
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

// ---------------------------------------------------------------------------------------
// Matching

/// One SOP that applies to a call.
#[derive(Debug, Clone)]
pub struct SopMatch {
    pub sop: Rc<Sop>,
    pub confidence: f64,
    /// What matched (`pattern 'git\s+push'`, `keyword 'deploy'`).
    pub why: String,
}

/// Does `hay` (lowercase) contain `kw` (lowercase) as whole words?
fn contains_word(hay: &str, kw: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(pos) = hay[from..].find(kw) {
        let at = from + pos;
        let before = hay[..at].chars().next_back();
        let after = hay[at + kw.len()..].chars().next();
        let starts_ok =
            before.is_none_or(|c| !is_word(c)) || !kw.chars().next().is_some_and(is_word);
        let ends_ok =
            after.is_none_or(|c| !is_word(c)) || !kw.chars().next_back().is_some_and(is_word);
        if starts_ok && ends_ok {
            return true;
        }
        from = at + kw.len().max(1);
        while from < hay.len() && !hay.is_char_boundary(from) {
            from += 1;
        }
        if from >= hay.len() {
            break;
        }
    }
    false
}

fn host_matches(pattern: &str, host: &str) -> bool {
    if let Some(suffix) = pattern.strip_prefix("*.") {
        return host.ends_with(&format!(".{suffix}")) || host == suffix;
    }
    if pattern.contains('*') {
        let parts: Vec<&str> = pattern.split('*').collect();
        let mut rest = host;
        for (i, p) in parts.iter().enumerate() {
            if i == 0 {
                match rest.strip_prefix(p) {
                    Some(r) => rest = r,
                    None => return false,
                }
            } else if i == parts.len() - 1 {
                return rest.ends_with(p);
            } else {
                match rest.find(p) {
                    Some(k) => rest = &rest[k + p.len()..],
                    None => return false,
                }
            }
        }
        return rest.is_empty();
    }
    pattern == host
}

/// How well `sop` applies to the call; `None` when it does not.
pub fn match_sop(sop: &Rc<Sop>, ctx: &ActionContext, hay_lower: &str) -> Option<SopMatch> {
    let m = &sop.matcher;
    if !m.tools.is_empty() && !m.tools.iter().any(|t| t == &ctx.tool) {
        return None;
    }
    if !m.projects.is_empty() && !ctx.project.as_ref().is_some_and(|p| m.projects.contains(p)) {
        return None;
    }
    if m.min_risk.is_some_and(|r| ctx.risk < r) {
        return None;
    }
    let mut best: Option<(f64, String)> = None;
    let mut consider = |c: f64, why: String| {
        if best.as_ref().is_none_or(|(b, _)| c > *b) {
            best = Some((c, why));
        }
    };
    if let Some(p) = m.patterns.iter().find(|p| p.is_match(&ctx.haystack)) {
        consider(1.0, format!("pattern '{}'", p.as_str()));
    }
    if !m.commands.is_empty() {
        for line in ctx.haystack.lines().skip(1) {
            let words: Vec<&str> = line.split(' ').collect();
            if let Some(c) = m
                .commands
                .iter()
                .find(|c| c.len() <= words.len() && c.iter().zip(&words).all(|(a, b)| a == b))
            {
                consider(0.95, format!("command '{}'", c.join(" ")));
                break;
            }
        }
    }
    if let Some((h, host)) = m.hosts.iter().find_map(|h| {
        ctx.hosts
            .iter()
            .find(|x| host_matches(h, x))
            .map(|x| (h, x))
    }) {
        consider(0.9, format!("host {host} ({h})"));
    }
    if let Some(s) = m.services.iter().find(|s| ctx.services.contains(s)) {
        consider(0.8, format!("service {s}"));
    }
    let hits: Vec<&String> = m
        .keywords
        .iter()
        .filter(|k| contains_word(hay_lower, k))
        .collect();
    if !hits.is_empty() {
        let c = (0.5 + 0.1 * (hits.len() as f64 - 1.0)).min(0.9);
        let list = hits
            .iter()
            .map(|k| format!("'{k}'"))
            .collect::<Vec<_>>()
            .join(", ");
        consider(
            c,
            format!("keyword{} {list}", if hits.len() == 1 { "" } else { "s" }),
        );
    }
    let only_tools = m.patterns.is_empty()
        && m.keywords.is_empty()
        && m.commands.is_empty()
        && m.services.is_empty()
        && m.hosts.is_empty();
    if only_tools {
        consider(0.8, format!("tool {}", ctx.tool));
    }
    best.map(|(confidence, why)| SopMatch {
        sop: sop.clone(),
        confidence,
        why,
    })
}

/// Every SOP in the cache that applies, best first (confidence, then priority, then id).
pub fn match_all(cache: &SopCache, ctx: &ActionContext) -> Vec<SopMatch> {
    let hay = ctx.haystack.to_lowercase();
    let out: Vec<SopMatch> = cache
        .sops()
        .filter_map(|s| match_sop(s, ctx, &hay))
        .collect();
    let o = super::order(out.len(), &|a, b| {
        let (x, y) = (&out[a], &out[b]);
        y.confidence
            .total_cmp(&x.confidence)
            .then(y.sop.priority.cmp(&x.sop.priority))
            .then(x.sop.id.cmp(&y.sop.id))
    });
    super::arrange(out, &o)
}

// ---------------------------------------------------------------------------------------
// The cache

#[derive(Debug, Clone)]
struct Cached {
    mtime_ms: f64,
    size: u64,
    /// `None`: the file is broken (a warning was given when it was read).
    sop: Option<Rc<Sop>>,
}

/// Parsed SOPs by file, refreshed when a file's size or mtime changes.
#[derive(Debug, Default)]
pub struct SopCache {
    /// By (folder index, shown path).
    files: BTreeMap<String, Cached>,
    /// When the folders were last listed (host ms).
    pub listed_at: Option<f64>,
    /// Warnings produced while refreshing, for the next decision to hand out.
    pub logs: Vec<Log>,
    /// Parse counts (for tests and the benchmark).
    pub parsed: u64,
}

impl SopCache {
    pub fn sops(&self) -> impl Iterator<Item = &Rc<Sop>> {
        self.files.values().filter_map(|c| c.sop.as_ref())
    }
    pub fn len(&self) -> usize {
        self.sops().count()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Put a parsed SOP in directly (tests, benchmarks, hosts with SOPs of their own).
    pub fn insert(&mut self, sop: Sop) {
        self.files.insert(
            sop.path.clone(),
            Cached {
                mtime_ms: 0.0,
                size: 0,
                sop: Some(Rc::new(sop)),
            },
        );
    }
    fn store(
        &mut self,
        shown: &str,
        mtime_ms: f64,
        size: u64,
        text: Result<String, String>,
        sections: &[String],
    ) {
        self.parsed += 1;
        let sop = match text.and_then(|t| parse(shown, &t, sections)) {
            Ok((sop, warnings)) => {
                for w in warnings {
                    self.logs.push(Log::warn(format!("SOP {shown}: {w}")));
                }
                Some(Rc::new(sop))
            }
            Err(e) => {
                self.logs
                    .push(Log::warn(format!("SOP {shown} skipped: {e}")));
                None
            }
        };
        self.files.insert(
            shown.to_string(),
            Cached {
                mtime_ms,
                size,
                sop,
            },
        );
    }
}

/// A folder to read SOPs from: the path the host lists, and how files are shown.
#[derive(Debug, Clone)]
pub struct Folder {
    pub abs: String,
    pub shown: String,
}

/// List the folders and read the files that changed, updating `cache` as each answer comes
/// in (so a refresh cut short by the deadline keeps what it finished).
pub async fn refresh(
    io: &Io,
    cache: &Rc<RefCell<SopCache>>,
    folders: &[Folder],
    sections: &[String],
    now_ms: f64,
) {
    cache.borrow_mut().listed_at = Some(now_ms);
    let listings = join_all(
        folders
            .iter()
            .map(|f| {
                io.request(Request::ListDir {
                    path: f.abs.clone(),
                    recursive: true,
                    max_entries: MAX_LIST_ENTRIES,
                    skip_hidden: true,
                    types_only: false,
                })
            })
            .collect(),
    )
    .await;
    let mut reads = Vec::new();
    for (f, reply) in folders.iter().zip(listings) {
        let listing: crate::protocol::ListDirResult = match serde_json::from_value(reply) {
            Ok(l) => l,
            Err(e) => {
                cache.borrow_mut().logs.push(Log::warn(format!(
                    "SOP folder {}: bad listing reply: {e}",
                    f.shown
                )));
                continue;
            }
        };
        if let Some(code) = listing.error {
            if listing.entries.is_empty() {
                let mut c = cache.borrow_mut();
                let prefix = format!("{}/", f.shown);
                c.files.retain(|k, _| !k.starts_with(&prefix));
                if code != ReplyError::NotFound {
                    let e = code.describe(listing.detail.as_deref());
                    c.logs.push(Log::warn(format!(
                        "SOP folder {} could not be listed: {e}",
                        f.shown
                    )));
                }
                continue;
            }
        }
        if listing.truncated {
            cache.borrow_mut().logs.push(Log::warn(format!(
                "SOP folder {} has more than {MAX_LIST_ENTRIES} entries; only the first were read",
                f.shown
            )));
        }
        let mut seen = Vec::new();
        for e in listing
            .entries
            .iter()
            .filter(|e| e.is_file && format_of(&e.path).is_some())
        {
            let rel = e.path.trim_start_matches("./");
            let shown = format!("{}/{}", f.shown, rel);
            let abs = format!("{}/{}", f.abs.trim_end_matches('/'), rel);
            seen.push(shown.clone());
            let unchanged = cache
                .borrow()
                .files
                .get(&shown)
                .is_some_and(|c| c.mtime_ms == e.mtime_ms && c.size == e.size);
            if unchanged {
                continue;
            }
            if e.size > MAX_SOP_BYTES {
                cache.borrow_mut().store(
                    &shown,
                    e.mtime_ms,
                    e.size,
                    Err(too_large(Some(e.size))),
                    sections,
                );
                continue;
            }
            reads.push((abs, shown, e.mtime_ms, e.size));
        }
        if !listing.truncated {
            let prefix = format!("{}/", f.shown);
            cache
                .borrow_mut()
                .files
                .retain(|k, _| !k.starts_with(&prefix) || seen.contains(k));
        }
    }
    join_all(
        reads
            .into_iter()
            .map(|(abs, shown, mtime, size)| {
                let cache = cache.clone();
                async move {
                    let reply = io
                        .request(Request::ReadFile {
                            path: abs,
                            max_bytes: MAX_SOP_BYTES,
                        })
                        .await;
                    let r: ReadResult = serde_json::from_value(reply).unwrap_or_default();
                    let text = match (r.text, r.error) {
                        (Some(t), None) => Ok(t),
                        (_, Some(ReplyError::TooLarge)) => Err(too_large(r.size)),
                        (_, Some(e)) => Err(format!(
                            "could not be read: {}",
                            e.describe(r.detail.as_deref())
                        )),
                        (None, None) => Err("could not be read: empty reply".to_string()),
                    };
                    cache
                        .borrow_mut()
                        .store(&shown, mtime, size, text, sections);
                }
            })
            .collect(),
    )
    .await;
}

#[cfg(test)]
#[path = "sop_tests.rs"]
mod hostile_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enforce::config::Settings;
    use crate::enforce::extract::{extract, Situation};
    use serde_json::json;

    fn sections() -> Vec<String> {
        Settings::default().sections
    }

    const MD: &str = "---\nid: git-force-push\ncategory: process\npriority: 5\nmatch:\n  tools: [bash]\n  patterns: ['git\\s+push\\s.*(--force|-f\\b)']\n  keywords: [force push]\n---\n# Force-pushing shared branches\n\nIntro text.\n\n## Pre-flight checks\n1. Tell the team.\n2. `git fetch` first.\n\n### Detail\nnested stays in\n\n## Rollback\nUse the reflog.\n\n## Unrelated\nnot shown\n\n```sh\n## not a heading\n```\n";

    #[test]
    fn markdown_with_front_matter() {
        let (sop, warnings) = parse(".opencode/sops/git/force.md", MD, &sections()).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(sop.id, "git-force-push");
        assert_eq!(sop.title, "Force-pushing shared branches");
        assert_eq!(sop.category, Category::Process);
        assert_eq!(sop.priority, 5);
        assert_eq!(sop.sections.len(), 2);
        assert_eq!(sop.sections[0].name, "preflight");
        assert!(sop.sections[0]
            .text
            .starts_with("## Pre-flight checks\n1. Tell the team."));
        assert!(sop.sections[0].text.contains("nested stays in"));
        assert!(!sop.sections[0].text.contains("Use the reflog"));
        assert_eq!(sop.sections[1].text, "## Rollback\nUse the reflog.");
        assert!(!sop.body().contains("not shown"));
    }

    #[test]
    fn markdown_fallback_excerpt_and_own_sections() {
        let long = format!(
            "---\nkeywords: deploy\nsections: [Verification]\n---\n{}",
            "x".repeat(3000)
        );
        let (sop, _) = parse("sops/deploy.md", &long, &sections()).unwrap();
        assert!(sop.sections.is_empty());
        assert_eq!(
            sop.body().chars().count(),
            EXCERPT_CHARS + 1,
            "1500 chars and an ellipsis"
        );
        assert_eq!(sop.id, "deploy");
        assert_eq!(sop.matcher.keywords, vec!["deploy"]);
        let (sop, _) = parse(
            "sops/v.md",
            "---\nkeywords: [deploy]\nsections: [verification]\n---\n## Verification\ncurl /health\n## Preflight\nno\n",
            &sections(),
        )
        .unwrap();
        assert_eq!(sop.body(), "## Verification\ncurl /health");
    }

    const YAML: &str = r#"
meta:
  id: nginx-restart
  name: Restarting nginx
  category: security
  service: nginx
  priority: 3
preflight:
  - id: config-test
    action: Test the configuration
    command: nginx -t
    check: "syntax is ok"
    reason: A bad config takes every site down
  - id: notify
    action: Post in the ops channel
hosts:
  - name: web1.prod.example.com
    role: primary
  - 10.0.0.7
commands:
  - systemctl reload nginx
  - cmd: nginx -s reload
gotchas:
  - reload, not restart, keeps connections
credentials:
  vault: secret/ops/nginx
rollback: |
  Restore /etc/nginx from the last backup.
"#;

    #[test]
    fn yaml_ai_sop() {
        let (sop, _) = parse(".opencode/sops/nginx.ai.sop", YAML, &sections()).unwrap();
        assert_eq!(sop.id, "nginx-restart");
        assert_eq!(sop.title, "Restarting nginx");
        assert_eq!(sop.category, Category::Security);
        assert_eq!(sop.matcher.services, vec!["nginx"]);
        assert_eq!(sop.matcher.hosts, vec!["web1.prod.example.com", "10.0.0.7"]);
        assert_eq!(
            sop.matcher.commands,
            vec![
                vec!["systemctl".to_string(), "reload".into()],
                vec!["nginx".to_string()]
            ]
        );
        let names: Vec<&str> = sop.sections.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["preflight", "gotchas", "credentials", "rollback"]
        );
        let pre = &sop.sections[0].text;
        assert!(pre.starts_with("### Preflight\n1. [config-test] Test the configuration\n   run: nginx -t\n   check: syntax is ok\n   why: A bad config"), "{pre}");
        assert!(pre.contains("2. [notify] Post in the ops channel"));
        assert_eq!(
            sop.sections[1].text,
            "### Gotchas\n- reload, not restart, keeps connections"
        );
        assert_eq!(
            sop.sections[2].text,
            "### Credentials\nvault: secret/ops/nginx"
        );
        assert!(sop.sections[3].text.contains("Restore /etc/nginx"));
    }

    #[test]
    fn broken_sops_name_the_problem() {
        let cases: &[(&str, &str, &str)] = &[
            ("a.md", "", "empty"),
            ("a.md", "# Just notes\n", "no front matter"),
            ("a.md", "---\nkeywords: [x]\n", "not closed"),
            ("a.md", "---\nkeywords: [x\n---\nbody", "not valid YAML"),
            ("a.md", "---\ntitle: t\n---\nbody", "no match rules"),
            (
                "a.md",
                "---\npatterns: ['(oops']\n---\n",
                "pattern 1 ('(oops') is not a valid regex",
            ),
            (
                "a.md",
                "---\nkeywords: {a: 1}\n---\n",
                "'keywords' must be a list of strings",
            ),
            (
                "a.md",
                "---\n- a\n- b\n---\n",
                "must be a mapping, not a list",
            ),
            (
                "a.md",
                "---\nkeywords: x\npriority: high\n---\n",
                "'priority' must be an integer",
            ),
            (
                "a.md",
                "---\nkeywords: x\nminRisk: huge\n---\n",
                "'minRisk' must be",
            ),
            ("b.ai.sop", "meta: [1]\n", "'meta' must be a mapping"),
            ("b.ai.sop", "meta:\n  id: x\n  bad: [\n", "not valid YAML"),
            (
                "b.ai.sop",
                "meta:\n  id: x\ngotchas: [a]\n",
                "no match rules",
            ),
            ("b.ai.sop", "just a string", "must be a mapping"),
        ];
        for (path, text, want) in cases {
            let e = parse(path, text, &sections())
                .err()
                .unwrap_or_else(|| panic!("{path}: {text:?} parsed"));
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn unknown_category_warns_and_folder_categories() {
        let (sop, w) = parse(
            "s.md",
            "---\nkeywords: x\ncategory: spicy\n---\n",
            &sections(),
        )
        .unwrap();
        assert_eq!(sop.category, Category::General);
        assert!(w[0].contains("spicy"));
        let (sop, _) = parse(
            ".opencode/sops/gotchas/s.md",
            "---\nkeywords: x\n---\n",
            &sections(),
        )
        .unwrap();
        assert_eq!(sop.category, Category::Gotchas);
        let (sop, _) = parse(
            "s.ai.sop",
            "meta:\n  keywords: [x]\n  tags: [infra, credentials]\n",
            &sections(),
        )
        .unwrap();
        assert_eq!(sop.category, Category::Credentials);
    }

    fn ctx(cmd: &str) -> ActionContext {
        extract(
            "bash",
            &json!({ "command": cmd }),
            &Situation {
                cwd: "/w/shop",
                worktree: "shop",
            },
            &Settings::default().rules,
        )
    }

    #[test]
    fn matching_and_confidence() {
        let md = Rc::new(parse("sops/force.md", MD, &sections()).unwrap().0);
        let y = Rc::new(parse("sops/nginx.ai.sop", YAML, &sections()).unwrap().0);
        let m = |sop: &Rc<Sop>, c: &str| {
            let cx = ctx(c);
            match_sop(sop, &cx, &cx.haystack.to_lowercase()).map(|m| (m.confidence, m.why))
        };
        assert_eq!(m(&md, "git push --force origin main").unwrap().0, 1.0);
        assert_eq!(m(&md, "git push -f").unwrap().0, 1.0);
        assert!(m(&md, "git push origin main").is_none());
        assert_eq!(
            m(&md, "echo 'about to force push' && git push").unwrap().0,
            0.5
        );
        assert!(m(&md, "echo forcepush").is_none(), "whole words only");
        assert_eq!(m(&y, "sudo systemctl reload nginx").unwrap().0, 0.95);
        assert_eq!(
            m(&y, "ssh admin@web1.prod.example.com uptime").unwrap().0,
            0.9
        );
        let (c, why) = m(&y, "cat /etc/nginx/nginx.conf | grep server > out").unwrap();
        assert_eq!((c, why.as_str()), (0.8, "service nginx"));
        // tool filter
        let cx = extract(
            "write",
            &json!({"content": "git push --force"}),
            &Situation::default(),
            &Settings::default().rules,
        );
        assert!(match_sop(&md, &cx, &cx.haystack.to_lowercase()).is_none());
    }

    #[test]
    fn filters_and_wildcards() {
        let sop = Rc::new(
            parse(
                "s.md",
                "---\nmatch:\n  hosts: ['*.example.com']\n  projects: [shop]\n  minRisk: high\n---\n",
                &sections(),
            )
            .unwrap()
            .0,
        );
        let m = |c: &str| {
            let cx = ctx(c);
            match_sop(&sop, &cx, &cx.haystack.to_lowercase()).is_some()
        };
        assert!(
            m("ssh db.prod.example.com"),
            "a production host makes it high"
        );
        assert!(!m("ssh db.staging.example.com"), "medium: below minRisk");
        assert!(!m("ssh db.prod.example.org"), "host does not match");
        assert!(
            !m("cd /x/Projects/other && ssh db.prod.example.com"),
            "another project"
        );
        assert!(host_matches("web-*.example.com", "web-3.example.com"));
        assert!(!host_matches("web-*.example.com", "db-3.example.com"));
        assert!(contains_word("a force push b", "force push"));
        assert!(!contains_word("forces", "force"));
        assert!(contains_word("x --force", "--force"));
    }
}

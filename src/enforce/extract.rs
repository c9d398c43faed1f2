//! What a tool call is about: keywords, project, service, target hosts, URLs, the shell
//! command and subcommand, the working directory and a risk level. Pure; no I/O.
//!
//! Shell commands (the host profile's shell tools, [`crate::host`]: OpenCode's `bash`, Roo's
//! `execute_command`, OpenClaw's `exec`, Claude Code's `Bash`, each from its own command key)
//! are read with [`super::shell`]: every
//! segment of a chain is looked at and the riskiest one describes the call. A command whose
//! every segment is read-only (`ls`, `cat`, `git status`, …, no output redirection to a file,
//! no command substitution, no option that runs a program or writes a file: `git -c`,
//! `tree -o`, `GIT_PAGER=…`) takes the fast path and is never blocked. SOPs see commands, not
//! the text they carry: a quoted argument of a program that does not run it is `'…'`
//! ([`command_line`]); what a program does run is read as a command of its own.

use super::re::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::shell::{self, basename, Segment};
use crate::host::Profile;

mod command;
mod tables;
mod targets;

pub use command::{
    arguments_are_data, canonical, command_line, command_read_only, segment_read_only, subcommand,
};
use command::{salient_flags, segment_risk, subcommand_at};
use tables::*;
pub use targets::{find_urls, host_of_destination, project_in};
use targets::{ip_in, looks_like_host, segment_hosts};

/// How dangerous an action looks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    #[default]
    Low,
    Medium,
    High,
    Critical,
}

impl Risk {
    pub fn parse(s: &str) -> Option<Risk> {
        match s {
            "low" => Some(Risk::Low),
            "medium" => Some(Risk::Medium),
            "high" => Some(Risk::High),
            "critical" => Some(Risk::Critical),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Critical => "critical",
        }
    }
}

/// Where a risk pattern is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Each shell command segment, as `program args…` (after `sudo`, `env`, assignments),
    /// then its here-document body on the following lines.
    Command,
    /// The whole call text ([`ActionContext::haystack`]) of any tool.
    Any,
}

#[derive(Debug, Clone)]
pub struct RiskPattern {
    pub name: String,
    pub regex: Regex,
    pub level: Risk,
    pub scope: Scope,
}

/// The compiled extraction rules (built from the configuration).
#[derive(Debug, Clone)]
pub struct Rules {
    /// service name → keywords (lowercase); order is the configuration's.
    pub services: Vec<(String, Vec<String>)>,
    pub risk_patterns: Vec<RiskPattern>,
    /// A target host matching one of these makes the call at least `high`.
    pub prod_hosts: Vec<Regex>,
    /// Extra read-only command prefixes, as words (`["make", "help"]`).
    pub read_only: Vec<Vec<String>>,
}

/// A URL named in the call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UrlRef {
    pub scheme: String,
    pub host: String,
    pub path: String,
}

/// What the call is about. Serialized (camelCase) as the `detected` part of a decision.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionContext {
    pub tool: String,
    /// `git push -f`, `docker compose up`, `rm -rf`, `ssh`: program, subcommand, salient flags.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subcommand: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sudo: bool,
    /// Part of the command line nests deeper than the shell reader follows: its commands
    /// cannot be checked, so every SOP that names commands applies ([`super::sop`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unread: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The primary service (of the riskiest command, else the first one named).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub urls: Vec<UrlRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workdir: Option<String>,
    pub risk: Risk,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub risk_reasons: Vec<String>,
    pub read_only: bool,
    pub keywords: Vec<String>,
    /// The text SOP patterns and keywords are matched against: the tool's name on the first
    /// line, then for shell tools each command segment (as for [`Scope::Command`]) and
    /// here-document, else each argument as `key: value` (nested keys dotted).
    #[serde(skip)]
    pub haystack: String,
}

/// Inputs besides the tool call.
#[derive(Debug, Clone, Default)]
pub struct Situation<'a> {
    /// The session's working directory (the project root).
    pub cwd: &'a str,
    /// The worktree name: the project when no `/Projects/<name>` is named.
    pub worktree: &'a str,
}

/// Extract the context of one tool call on the engine API's default host.
pub fn extract(tool: &str, args: &Value, sit: &Situation, rules: &Rules) -> ActionContext {
    extract_on(crate::hosts::default_profile(), tool, args, sit, rules)
}

/// Extract the context of one tool call on `host`: its shell tools' command key, its
/// read-only tools (the fast path).
pub fn extract_on(
    host: &Profile,
    tool: &str,
    args: &Value,
    sit: &Situation,
    rules: &Rules,
) -> ActionContext {
    let mut ctx = ActionContext {
        tool: tool.to_string(),
        ..Default::default()
    };
    // every command the call runs, each split on its own (a list's items run apart)
    let lines = crate::host::args::command_lines(host, tool, args);
    let mut tokens: Vec<String> = Vec::new(); // lowercase, for services and keywords
    let mut hosts: Vec<String> = Vec::new();

    // Explicit working directory arguments.
    for key in super::action::WORKDIR_KEYS {
        if let Some(s) = args
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            ctx.workdir = Some(s.to_string());
            break;
        }
    }

    let mut texts: Vec<String> = Vec::new(); // every string, for projects and URLs
    if let Some(lines) = lines {
        let segs: Vec<_> = lines.iter().flat_map(|line| shell::split(line)).collect();
        let mut hay = vec![tool.to_string()];
        let mut best: Option<(Risk, usize)> = None;
        let mut all_read_only = true;
        let mut reasons: Vec<String> = Vec::new();
        let mut risks: Vec<Risk> = Vec::new();
        let data = arguments_are_data(&segs);
        for (i, seg) in segs.iter().enumerate() {
            let canon = command_line(seg, data);
            hay.push(canon.clone());
            // a here-document fed to `cat` is data like a quoted argument; fed to `sh`, code
            if !seg.heredoc.is_empty() && !data {
                hay.push(seg.heredoc.trim_end().to_string());
            }
            texts.extend(seg.words.iter().cloned());
            let (mut risk, mut why) = segment_risk(seg, &canon, !data, rules);
            if seg.truncated {
                ctx.unread = true;
                raise(
                    &mut risk,
                    &mut why,
                    Risk::Critical,
                    "commands nested deeper than hookwise reads",
                );
            }
            reasons.extend(why);
            risks.push(risk);
            if !segment_read_only(seg, rules) {
                all_read_only = false;
            }
            if let Some((start, _)) = seg.command_start() {
                let prog = basename(&seg.words[start]);
                if prog == "cd" && !seg.nested && ctx.workdir.is_none() {
                    if let Some(d) = seg.words.get(start + 1) {
                        ctx.workdir = Some(d.clone());
                    }
                }
                hosts.extend(segment_hosts(seg));
            }
            for w in &seg.words {
                push_tokens(&mut tokens, w);
            }
            // the riskiest segment describes the call; ties: the first whose program is not
            // read-only (`echo $(curl …)` is about curl)
            let ro = command_read_only(seg, rules);
            let better = match best {
                None => true,
                Some((r, j)) => {
                    risk > r || (risk == r && command_read_only(&segs[j], rules) && !ro)
                }
            };
            if better && seg.command_start().is_some() {
                best = Some((risk, i));
            }
        }
        ctx.read_only = all_read_only;
        if let Some((_, i)) = best {
            let seg = &segs[i];
            if let Some((start, sudo)) = seg.command_start() {
                let prog = basename(&seg.words[start]).to_string();
                let rest = &seg.words[start + 1..];
                let (sub, after) = subcommand_at(&prog, rest);
                let flags = salient_flags(&prog, &rest[after.min(rest.len())..]);
                let mut cmd = prog.clone();
                if let Some(s) = &sub {
                    cmd.push(' ');
                    cmd.push_str(s);
                }
                for f in &flags {
                    cmd.push(' ');
                    cmd.push_str(f);
                }
                ctx.command = Some(cmd);
                ctx.program = Some(prog);
                ctx.subcommand = sub;
                ctx.sudo = sudo
                    || segs
                        .iter()
                        .any(|s| s.command_start().is_some_and(|(_, su)| su));
            }
        }
        ctx.haystack = hay.join("\n");
        ctx.risk = risks.into_iter().max().unwrap_or(Risk::Low);
        ctx.risk_reasons = dedup(reasons);
    } else {
        ctx.read_only = host.read_only(tool);
        let mut lines = vec![tool.to_string()];
        flatten(args, "", &mut lines, &mut texts, &mut hosts);
        ctx.haystack = lines.join("\n");
        for t in &texts {
            if t.len() <= 200 {
                push_tokens(&mut tokens, t);
            } else if let Some(first) = t.lines().next() {
                push_tokens(&mut tokens, &first.chars().take(120).collect::<String>());
            }
        }
        push_tokens(&mut tokens, tool);
    }

    // Patterns that apply to any tool, on the whole text.
    for p in rules.risk_patterns.iter().filter(|p| p.scope == Scope::Any) {
        if p.regex.is_match(&ctx.haystack) && p.level > Risk::Low {
            raise(&mut ctx.risk, &mut ctx.risk_reasons, p.level, &p.name);
        }
    }

    // URLs and addresses anywhere.
    for t in &texts {
        for u in find_urls(t) {
            if !u.host.is_empty() {
                hosts.push(u.host.clone());
            }
            if !ctx.urls.contains(&u) {
                ctx.urls.push(u);
            }
        }
        for w in t.split(|c: char| c.is_whitespace() || matches!(c, ',' | '"' | '\'' | '(' | ')')) {
            if let Some(ip) = ip_in(w) {
                hosts.push(ip);
            }
        }
    }
    ctx.hosts = dedup(hosts.into_iter().map(|h| h.to_ascii_lowercase()).collect());
    for h in ctx.hosts.clone() {
        if rules.prod_hosts.iter().any(|r| r.is_match(&h)) {
            raise(
                &mut ctx.risk,
                &mut ctx.risk_reasons,
                Risk::High,
                &format!("production host {h}"),
            );
        }
    }
    if ctx.sudo {
        raise(&mut ctx.risk, &mut ctx.risk_reasons, Risk::Medium, "sudo");
    }

    // Project: /Projects/<name> anywhere, else the worktree.
    let project_texts = texts
        .iter()
        .map(String::as_str)
        .chain(ctx.workdir.as_deref())
        .chain([sit.cwd]);
    ctx.project = project_texts
        .filter_map(project_in)
        .next()
        .or_else(|| Some(sit.worktree.to_string()).filter(|w| !w.is_empty()));
    if ctx.workdir.is_none() && !sit.cwd.is_empty() {
        ctx.workdir = Some(sit.cwd.to_string());
    }

    // Services by keyword; the primary one is the riskiest command's when it names one.
    let mut services: Vec<(usize, String)> = Vec::new();
    for (name, kws) in &rules.services {
        if let Some(pos) = tokens.iter().position(|t| kws.iter().any(|k| k == t)) {
            services.push((pos, name.clone()));
        }
    }
    let o = super::order(services.len(), &|a, b| services[a].0.cmp(&services[b].0));
    ctx.services = super::arrange(services, &o)
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    let prog_service = ctx.program.as_deref().and_then(|p| {
        let p = p.to_ascii_lowercase();
        rules
            .services
            .iter()
            .find(|(_, kws)| kws.contains(&p))
            .map(|(n, _)| n.clone())
    });
    ctx.service = prog_service.or_else(|| ctx.services.first().cloned());

    // Keywords: the command, service, project and host first, then salient words.
    let mut kw: Vec<String> = Vec::new();
    if let Some(p) = &ctx.program {
        kw.push(p.to_ascii_lowercase());
    }
    if let Some(s) = &ctx.subcommand {
        kw.extend(s.split(' ').map(|w| w.to_ascii_lowercase()));
    }
    kw.extend(ctx.services.iter().cloned());
    if let Some(p) = &ctx.project {
        kw.push(p.to_ascii_lowercase());
    }
    kw.extend(ctx.hosts.iter().take(2).cloned());
    for t in &tokens {
        if t.len() >= 3
            && t.chars().any(|c| c.is_ascii_alphabetic())
            && !t.starts_with('-')
            && !STOPWORDS.contains(&t.as_str())
        {
            kw.push(t.clone());
        }
    }
    let mut kw = dedup(kw);
    kw.truncate(MAX_KEYWORDS);
    ctx.keywords = kw;
    ctx
}

fn raise(risk: &mut Risk, reasons: &mut Vec<String>, level: Risk, why: &str) {
    if level > *risk {
        *risk = level;
    }
    if level > Risk::Low && !reasons.iter().any(|r| r == why) {
        reasons.push(why.to_string());
    }
}

/// First occurrences only, in order (the lists are short).
fn dedup(v: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(v.len());
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Lowercase word tokens (`[a-z0-9_-]`, plus dots inside) of a text, appended in order.
fn push_tokens(out: &mut Vec<String>, text: &str) {
    for t in text
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map(|t| t.trim_matches(|c| c == '.' || c == '-'))
        .filter(|t| !t.is_empty() && t.len() <= 64)
    {
        let t = t.to_lowercase();
        // `nginx.conf` also names `nginx`
        if t.contains('.') && !t.chars().all(|c| c.is_ascii_digit() || c == '.') {
            for part in t.split('.').filter(|p| !p.is_empty()) {
                if !FILE_EXTENSIONS.contains(&part) {
                    out.push(part.to_string());
                }
            }
        }
        out.push(t);
    }
}

/// Flatten non-shell arguments to `key: value` lines; collect strings and host-ish values.
fn flatten(
    v: &Value,
    prefix: &str,
    lines: &mut Vec<String>,
    texts: &mut Vec<String>,
    hosts: &mut Vec<String>,
) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                if let Value::String(s) = x {
                    let lk = k.to_ascii_lowercase();
                    if matches!(
                        lk.as_str(),
                        "host" | "hostname" | "server" | "endpoint" | "target"
                    ) {
                        let h = host_of_destination(s.split("://").last().unwrap_or(s));
                        if looks_like_host(&h) {
                            hosts.push(h);
                        }
                    }
                }
                flatten(x, &key, lines, texts, hosts);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                flatten(x, &format!("{prefix}.{i}"), lines, texts, hosts);
            }
        }
        Value::String(s) => {
            lines.push(format!("{prefix}: {s}"));
            texts.push(s.clone());
        }
        Value::Null => {}
        other => lines.push(format!("{prefix}: {other}")),
    }
}

#[cfg(test)]
#[path = "extract_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "classify_tests.rs"]
mod classify_tests;

//! What a call points at: destination hosts (ssh/scp/curl/… arguments, IP addresses),
//! URLs and the project named in a path.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::tables::*;
use super::*;

/// `user@host:path` → `host`; `[v6]:22` → `v6`.
pub fn host_of_destination(d: &str) -> String {
    let d = d.strip_prefix("ssh://").unwrap_or(d);
    let d = d.rsplit('@').next().unwrap_or(d);
    if let Some(rest) = d.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest).to_string();
    }
    if d.parse::<Ipv6Addr>().is_ok() {
        return d.to_string();
    }
    d.split([':', '/']).next().unwrap_or(d).to_string()
}

pub(super) fn looks_like_host(h: &str) -> bool {
    if h.is_empty() || h.len() > 253 {
        return false;
    }
    if h.parse::<Ipv4Addr>().is_ok() || h.parse::<Ipv6Addr>().is_ok() {
        return true;
    }
    if !h
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        || h.starts_with(['-', '.'])
    {
        return false;
    }
    match h.rsplit_once('.') {
        Some((_, tld)) => {
            tld.len() >= 2
                && tld.chars().all(|c| c.is_ascii_alphabetic())
                && !FILE_EXTENSIONS.contains(&tld.to_ascii_lowercase().as_str())
        }
        // a bare name (`db1`, `localhost`) only where a host is expected
        None => h.chars().any(|c| c.is_ascii_alphabetic()),
    }
}

/// Hosts named by a segment: network programs' destinations, `-h` of database clients,
/// `--host`-style options, `user@host` destinations, `host:path` of scp/rsync.
pub(super) fn segment_hosts(seg: &Segment) -> Vec<String> {
    let mut out = Vec::new();
    let Some((start, _)) = seg.command_start() else {
        return out;
    };
    let prog = basename(&seg.words[start]);
    let rest = &seg.words[start + 1..];
    if let Some(h) = &seg.remote_host {
        out.push(host_of_destination(h));
    }
    let mut i = 0;
    while i < rest.len() {
        let w = &rest[i];
        if let Some(l) = w.strip_prefix("--") {
            let (name, val) = match l.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (l, None),
            };
            if HOST_OPTIONS_LONG.contains(&name) {
                let v = val.or_else(|| rest.get(i + 1).cloned());
                if let Some(v) = v {
                    let h = host_of_destination(v.split("://").last().unwrap_or(&v));
                    if looks_like_host(&h) {
                        out.push(h);
                    }
                }
            }
        } else if H_IS_HOST.contains(&prog) && w.starts_with("-h") {
            let v = if w.len() > 2 {
                Some(w[2..].to_string())
            } else {
                rest.get(i + 1).cloned()
            };
            if let Some(v) = v.filter(|v| looks_like_host(v)) {
                out.push(v);
            }
        }
        i += 1;
    }
    match prog {
        "ssh" | "mosh" | "ssh-copy-id" => {
            if let (Some(d), _) = shell::ssh_parts(rest) {
                let h = host_of_destination(&d);
                if looks_like_host(&h) {
                    out.push(h);
                }
            }
        }
        "scp" | "rsync" | "sftp" => {
            for a in rest.iter().filter(|a| !a.starts_with('-')) {
                let dest = a.strip_prefix("rsync://").unwrap_or(a);
                if dest.contains('@') || (dest.contains(':') && !dest.starts_with('/')) {
                    let h = host_of_destination(dest);
                    if looks_like_host(&h) && !h.contains('/') {
                        out.push(h);
                    }
                }
            }
        }
        p if NETWORK_PROGRAMS.contains(&p) => {
            for a in rest
                .iter()
                .filter(|a| !a.starts_with('-') && !a.contains("://"))
            {
                let h = host_of_destination(a);
                if looks_like_host(&h) && h.contains('.') {
                    out.push(h);
                }
            }
        }
        "git" => {
            // scp-like remotes: git@github.com:org/repo.git
            for a in rest
                .iter()
                .filter(|a| a.contains('@') && a.contains(':') && !a.contains("://"))
            {
                let h = host_of_destination(a);
                if looks_like_host(&h) {
                    out.push(h);
                }
            }
        }
        _ => {}
    }
    out
}

/// An IPv4 or IPv6 address (optionally `:port`, `[v6]:port`, `user@`) in a word.
pub(super) fn ip_in(w: &str) -> Option<String> {
    let w = w.trim_matches(|c: char| matches!(c, ',' | ';' | '.' | ')' | '(' | '"' | '\''));
    let w = w.rsplit('@').next().unwrap_or(w);
    if let Some(rest) = w.strip_prefix('[') {
        let inner = rest.split(']').next()?;
        return inner.parse::<Ipv6Addr>().ok().map(|a| a.to_string());
    }
    if w.matches(':').count() >= 2 {
        return w.parse::<Ipv6Addr>().ok().map(|a| a.to_string());
    }
    let host = w.split([':', '/']).next()?;
    host.parse::<Ipv4Addr>().ok().map(|a| a.to_string())
}

/// Every `scheme://host/path` in a text.
pub fn find_urls(text: &str) -> Vec<UrlRef> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = text[from..].find("://") {
        let at = from + pos;
        let scheme_start = text[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
            .last()
            .map(|(i, _)| i)
            .unwrap_or(at);
        let scheme = &text[scheme_start..at];
        let rest = &text[at + 3..];
        let end = rest
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | ')' | ']' | ',')
            })
            .unwrap_or(rest.len());
        let url = &rest[..end];
        from = at + 3 + end;
        if scheme.is_empty()
            || !scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
        {
            continue;
        }
        let auth_end = url.find(['/', '?', '#']).unwrap_or(url.len());
        let authority = &url[..auth_end];
        let host = host_of_destination(authority);
        let path_part = &url[auth_end..];
        let path = path_part.split(['?', '#']).next().unwrap_or("");
        let path = if path.is_empty() { "/" } else { path };
        let host = host.to_ascii_lowercase();
        // a URL's authority is a host whatever its last label (`docs.rs`)
        let valid = !host.is_empty()
            && (host.parse::<Ipv6Addr>().is_ok()
                || host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_'));
        if !valid {
            continue; // `file:///x`, `a://` or garbage
        }
        out.push(UrlRef {
            scheme: scheme.to_ascii_lowercase(),
            host,
            path: path.to_string(),
        });
    }
    out
}

/// `/Projects/<name>` in a path or command (case-insensitive `projects`).
pub fn project_in(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("/projects/") {
        let start = from + pos + "/projects/".len();
        let name: String = text[start..]
            .chars()
            .take_while(|c| {
                !matches!(
                    c,
                    '/' | '\\' | '"' | '\'' | ' ' | '\n' | '\t' | ':' | ';' | ')'
                )
            })
            .collect();
        if !name.is_empty() && name != "." && name != ".." {
            return Some(name);
        }
        from = start;
    }
    None
}

//! Matching a call's [`ActionContext`] against the SOPs: patterns, commands, hosts,
//! services, keywords, with the confidence of the best rule.

use super::*;

/// One SOP that applies to a call.
#[derive(Debug, Clone)]
pub struct SopMatch {
    pub sop: Rc<Sop>,
    pub confidence: f64,
    /// What matched (`pattern 'git\s+push'`, `keyword 'deploy'`).
    pub why: String,
}

/// Does `hay` (lowercase) contain `kw` (lowercase) as whole words?
pub(super) fn contains_word(hay: &str, kw: &str) -> bool {
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

pub(super) fn host_matches(pattern: &str, host: &str) -> bool {
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
    if ctx.unread && !(m.patterns.is_empty() && m.commands.is_empty()) {
        // fail closed: a command the reader could not reach may be the one the SOP names
        consider(1.0, "commands nested deeper than hookwise reads".into());
    }
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
    let o = crate::enforce::order(out.len(), &|a, b| {
        let (x, y) = (&out[a], &out[b]);
        y.confidence
            .total_cmp(&x.confidence)
            .then(y.sop.priority.cmp(&x.sop.priority))
            .then(x.sop.id.cmp(&y.sop.id))
    });
    crate::enforce::arrange(out, &o)
}

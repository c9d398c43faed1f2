//! The texts the model reads: the block message (the hook throws it; the model sees it as the
//! tool's error) and advice (delivered without blocking). Both are capped in characters; the
//! block message always keeps its "how to proceed" part.
//!
//! ```text
//! hookwise paused this call: read the knowledge below, then retry.
//! Detected: bash `git push --force` · project shop · service git · host github.com · risk high (git push --force)
//!
//! ## SOPs
//! ### 1. Force-pushing shared branches [process · .opencode/sops/git.md · pattern '…' · confidence 1.00]
//! <the SOP's sections, or its first 1500 characters>
//!
//! ## Memories
//! - security (0.71) Auth Design — memory://security/auth-design: <snippet>
//!
//! ## How to proceed
//! Follow the steps above …, then retry the same call unchanged to acknowledge: it will run.
//! ```

#[cfg(test)]
use super::config::Category;
use super::extract::ActionContext;
use super::memory::Memory;
use super::sop::SopMatch;
#[cfg(test)]
use std::collections::BTreeMap;

/// SOP excerpts shown at most.
pub const TOP_SOPS: usize = 3;
/// Memories shown per category, and in all.
pub const MEMORIES_PER_CATEGORY: usize = 2;
pub const MAX_MEMORIES: usize = 6;
const MEMORY_LINE_CHARS: usize = 260;

fn chars(s: &str) -> usize {
    s.chars().count()
}

fn clip(s: &str, max: usize) -> String {
    if chars(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let cut: String = s.chars().take(max - 1).collect();
    format!("{}…", cut.trim_end())
}

/// `Detected: …` — what the call was read as.
pub fn detected_line(ctx: &ActionContext) -> String {
    let mut parts = vec![ctx.tool.clone()];
    if let Some(c) = &ctx.command {
        parts[0] = format!("{} `{c}`", ctx.tool);
    }
    if let Some(p) = &ctx.project {
        parts.push(format!("project {p}"));
    }
    if let Some(s) = &ctx.service {
        parts.push(format!("service {s}"));
    }
    match ctx.hosts.len() {
        0 => {}
        1 => parts.push(format!("host {}", ctx.hosts[0])),
        _ => parts.push(format!(
            "hosts {}",
            ctx.hosts
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
    if let Some(u) = ctx.urls.first() {
        if !ctx.hosts.contains(&u.host) {
            parts.push(format!("url {}{}", u.host, u.path));
        }
    }
    let mut risk = format!("risk {}", ctx.risk.as_str());
    if !ctx.risk_reasons.is_empty() {
        risk.push_str(&format!(
            " ({})",
            ctx.risk_reasons
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    parts.push(risk);
    clip(&format!("Detected: {}", parts.join(" · ")), 400)
}

/// The memories worth showing: best first, at most [`MEMORIES_PER_CATEGORY`] per category.
fn memory_lines(memories: &[&Memory]) -> Vec<String> {
    let mut per = [0usize; 6];
    let o = super::order(memories.len(), &|a, b| {
        memories[b].confidence.total_cmp(&memories[a].confidence)
    });
    let mut out = Vec::new();
    for m in o.into_iter().map(|i| memories[i]) {
        let n = &mut per[m.category as usize];
        if *n >= MEMORIES_PER_CATEGORY || out.len() >= MAX_MEMORIES {
            continue;
        }
        *n += 1;
        let snippet = if m.snippet.is_empty() {
            String::new()
        } else {
            format!(": {}", m.snippet)
        };
        out.push(clip(
            &format!(
                "- {} ({:.2}) {} — {}{}",
                m.category.as_str(),
                m.confidence,
                m.title,
                m.uri,
                snippet
            ),
            MEMORY_LINE_CHARS,
        ));
    }
    out
}

fn sop_head(i: usize, m: &SopMatch) -> String {
    clip(
        &format!(
            "### {}. {} [{} · {} · {} · confidence {:.2}]",
            i + 1,
            m.sop.title,
            m.sop.category.as_str(),
            m.sop.path,
            m.why,
            m.confidence
        ),
        300,
    )
}

/// Share `budget` characters among texts: each gets what it needs up to an equal share, the
/// rest is handed on. Returns each text's allowance.
fn share(needs: &[usize], budget: usize) -> Vec<usize> {
    let mut alloc = vec![0; needs.len()];
    let order = super::order(needs.len(), &|a, b| needs[a].cmp(&needs[b]));
    let mut left = budget;
    for (k, &i) in order.iter().enumerate() {
        let fair = left / (needs.len() - k);
        alloc[i] = needs[i].min(fair);
        left -= alloc[i];
    }
    alloc
}

/// The knowledge part: SOP excerpts and memories within `budget` characters.
fn knowledge(sops: &[&SopMatch], memories: &[&Memory], budget: usize) -> String {
    let mems = memory_lines(memories);
    let mem_block = if mems.is_empty() {
        String::new()
    } else {
        format!("## Memories\n{}", mems.join("\n"))
    };
    let top: Vec<&&SopMatch> = sops.iter().take(TOP_SOPS).collect();
    let heads: Vec<String> = top
        .iter()
        .enumerate()
        .map(|(i, m)| sop_head(i, m))
        .collect();
    let bodies: Vec<String> = top.iter().map(|m| m.sop.body()).collect();
    let sop_title = if top.is_empty() { "" } else { "## SOPs\n" };
    // memories get at most a third when SOPs are there too
    let mem_budget = if top.is_empty() { budget } else { budget / 3 };
    let mem_block = clip_lines(&mem_block, mem_budget);
    let fixed: usize = chars(sop_title)
        + heads.iter().map(|h| chars(h) + 1).sum::<usize>()
        + top.len().saturating_sub(1) * 2
        + if mem_block.is_empty() {
            0
        } else {
            chars(&mem_block) + 2
        };
    let body_budget = budget.saturating_sub(fixed);
    let needs: Vec<usize> = bodies.iter().map(|b| chars(b)).collect();
    let alloc = share(&needs, body_budget);
    let mut parts: Vec<String> = Vec::new();
    for (i, h) in heads.iter().enumerate() {
        let body = clip(&bodies[i], alloc[i]);
        parts.push(if body.is_empty() {
            h.clone()
        } else {
            format!("{h}\n{body}")
        });
    }
    let mut out = String::new();
    if !parts.is_empty() {
        out.push_str(sop_title);
        out.push_str(&parts.join("\n\n"));
    }
    if !mem_block.is_empty() {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&mem_block);
    }
    clip(&out, budget)
}

/// Whole lines of `s` within `max` characters.
fn clip_lines(s: &str, max: usize) -> String {
    let mut out = String::new();
    for l in s.lines() {
        let need = chars(l) + usize::from(!out.is_empty());
        if chars(&out) + need > max {
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(l);
    }
    if out.lines().count() <= 1 {
        return String::new(); // a heading alone says nothing
    }
    out
}

fn minutes(ms: u64) -> String {
    let m = ms as f64 / 60_000.0;
    if ms < 60_000 {
        format!("{} s", ms / 1000)
    } else if m.fract() == 0.0 {
        format!("{m:.0} min")
    } else {
        format!("{m:.1} min")
    }
}

/// The block message, at most `cap` characters.
pub fn block_message(
    ctx: &ActionContext,
    sops: &[&SopMatch],
    memories: &[&Memory],
    cap: usize,
    cooldown_ms: u64,
) -> String {
    let head = "hookwise paused this call: read the knowledge below, then retry.";
    let detected = detected_line(ctx);
    let window = if cooldown_ms > 0 {
        format!(
            " It will not be paused again for {} for the same action.",
            minutes(cooldown_ms)
        )
    } else {
        String::new()
    };
    let how = format!(
        "## How to proceed\nFollow the steps above (or tell the user why they do not apply), then retry the same call unchanged to acknowledge: it will run.{window}"
    );
    let fixed = chars(head) + 1 + chars(&detected) + 2 + 2 + chars(&how);
    let body = knowledge(sops, memories, cap.saturating_sub(fixed));
    let top = if body.is_empty() {
        format!("{head}\n{detected}")
    } else {
        format!("{head}\n{detected}\n\n{body}")
    };
    // whatever gives, "how to proceed" stays whole
    match cap.checked_sub(chars(&how) + 2) {
        Some(room) if room > 0 => format!("{}\n\n{how}", clip(&top, room)),
        _ => clip(&how, cap),
    }
}

/// Advice (the call runs), at most `cap` characters.
pub fn advice_message(
    ctx: &ActionContext,
    sops: &[&SopMatch],
    memories: &[&Memory],
    cap: usize,
) -> String {
    let head = "hookwise advisory (the call runs as is): knowledge that applies to it.";
    let detected = detected_line(ctx);
    let fixed = chars(head) + 1 + chars(&detected) + 2;
    let body = knowledge(sops, memories, cap.saturating_sub(fixed));
    clip(&format!("{head}\n{detected}\n\n{body}"), cap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enforce::extract::Risk;
    use crate::enforce::sop::{Matcher, Section, Sop};
    use std::rc::Rc;

    fn sop(id: &str, body_len: usize) -> SopMatch {
        SopMatch {
            sop: Rc::new(Sop {
                id: id.into(),
                path: format!(".opencode/sops/{id}.md"),
                title: format!("Title {id}"),
                category: Category::Process,
                priority: 0,
                matcher: Matcher::default(),
                sections: vec![Section {
                    name: "preflight".into(),
                    text: format!("## Preflight\n{}", "step ".repeat(body_len / 5)),
                }],
                excerpt: String::new(),
            }),
            confidence: 1.0,
            why: "pattern 'git push'".into(),
        }
    }

    fn mem(cat: Category, conf: f64, title: &str) -> Memory {
        Memory {
            title: title.into(),
            uri: format!("memory://{}/{title}", cat.as_str()),
            snippet: "snippet ".repeat(10),
            confidence: conf,
            category: cat,
        }
    }

    fn ctx() -> ActionContext {
        ActionContext {
            tool: "bash".into(),
            command: Some("git push --force".into()),
            project: Some("shop".into()),
            service: Some("git".into()),
            hosts: vec!["github.com".into()],
            risk: Risk::High,
            risk_reasons: vec!["git push --force".into()],
            ..Default::default()
        }
    }

    #[test]
    fn block_message_format() {
        let s = [sop("force", 100)];
        let m = [mem(Category::Security, 0.712, "auth")];
        let msg = block_message(
            &ctx(),
            &s.iter().collect::<Vec<_>>(),
            &m.iter().collect::<Vec<_>>(),
            4000,
            600_000,
        );
        let lines: Vec<&str> = msg.lines().collect();
        assert_eq!(
            lines[0],
            "hookwise paused this call: read the knowledge below, then retry."
        );
        assert_eq!(
            lines[1],
            "Detected: bash `git push --force` · project shop · service git · host github.com · risk high (git push --force)"
        );
        assert!(msg.contains("## SOPs\n### 1. Title force [process · .opencode/sops/force.md · pattern 'git push' · confidence 1.00]\n## Preflight\nstep"));
        assert!(
            msg.contains("## Memories\n- security (0.71) auth — memory://security/auth: snippet")
        );
        assert!(msg.ends_with("retry the same call unchanged to acknowledge: it will run. It will not be paused again for 10 min for the same action."));
    }

    #[test]
    fn cap_holds_and_how_to_proceed_survives() {
        let s: Vec<SopMatch> = (0..5).map(|i| sop(&format!("s{i}"), 5000)).collect();
        let m: Vec<Memory> = (0..20)
            .map(|i| {
                mem(
                    Category::ALL[i % 6],
                    0.5 + i as f64 / 100.0,
                    &format!("m{i}"),
                )
            })
            .collect();
        for cap in [300, 500, 1000, 2500, 4000] {
            let msg = block_message(
                &ctx(),
                &s.iter().collect::<Vec<_>>(),
                &m.iter().collect::<Vec<_>>(),
                cap,
                60_000,
            );
            assert!(msg.chars().count() <= cap, "{cap}: {}", msg.chars().count());
            assert!(msg.contains("retry the same call unchanged"), "{cap}");
            if cap >= 2500 {
                assert!(msg.contains("### 3. Title s2"), "top three SOPs: {cap}");
                assert!(!msg.contains("### 4."), "only three");
                assert!(
                    msg.chars().count() > cap - 200,
                    "the budget is used: {}",
                    msg.chars().count()
                );
            }
        }
        let msg = block_message(
            &ctx(),
            &s.iter().collect::<Vec<_>>(),
            &m.iter().collect::<Vec<_>>(),
            4000,
            60_000,
        );
        // at most two memories per category, six in all, best first
        let mem_lines: Vec<&str> = msg.lines().filter(|l| l.starts_with("- ")).collect();
        assert!(mem_lines.len() <= MAX_MEMORIES);
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for l in &mem_lines {
            *seen.entry(l.split(' ').nth(1).unwrap()).or_default() += 1;
        }
        assert!(seen.values().all(|n| *n <= MEMORIES_PER_CATEGORY));
        assert!(mem_lines[0].contains("(0.69)"), "{mem_lines:?}");
    }

    #[test]
    fn multibyte_text_is_cut_on_characters() {
        let mut s = sop("ü", 0);
        Rc::get_mut(&mut s.sop).unwrap().sections[0].text = "ü€😀".repeat(3000);
        let msg = block_message(&ctx(), &[&s], &[], 1000, 0);
        assert!(msg.chars().count() <= 1000);
        assert!(msg.contains('😀'));
        assert!(!msg.contains("paused again"));
    }

    #[test]
    fn advice_has_no_retry_instruction() {
        let m = [mem(Category::Technical, 0.9, "pool sizes")];
        let msg = advice_message(&ctx(), &[], &m.iter().collect::<Vec<_>>(), 1500);
        assert!(msg.starts_with("hookwise advisory (the call runs as is)"));
        assert!(msg.contains("- technical (0.90) pool sizes"));
        assert!(!msg.contains("retry"));
        assert!(msg.chars().count() <= 1500);
    }

    #[test]
    fn sharing_hands_unused_room_on() {
        assert_eq!(share(&[100, 5000, 5000], 3000), vec![100, 1450, 1450]);
        assert_eq!(share(&[10, 20], 1000), vec![10, 20]);
        assert_eq!(share(&[], 10), Vec::<usize>::new());
    }
}

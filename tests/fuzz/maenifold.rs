//! maenifold's outputs (a process the host runs; its text may be anything): the CLI judge
//! (`maenifold::judge`, `judge_json`), BuildContext (`BuildContext::parse`, and the MCP form
//! `mcp::convert::build_context_from_text` / `_from_value`), SearchMemories
//! (`maenifold::search::parse`, `from_json_data`), RecentActivity (`maenifold::recent::parse`),
//! ReadMemory / WriteMemory (`maenifold::memory::parse_read`, `parse_write`). Parsing is total,
//! what comes out is bounded as documented, and a BuildContext reads back what it renders.

use hookwise::maenifold::{
    self, memory, recent, search, BuildContext, Relation, Sibling, SpawnResult,
};
use hookwise::mcp::convert::{self, build_context_from_text, build_context_from_value};
use proptest::prelude::*;
use serde_json::Value;

use crate::common::{check, json_with, lines_from, mutate_str, nasty_string, text_of, LOWER};

const BC_WORDS: &[&str] = &[
    "Context for CONCEPT: auth",
    "Direct relations (2 CONCEPTS):",
    "Expanded relations (2 hops):",
    "Community siblings (1 concepts in community 3):",
    "  • jwt (co-occurs in 4 files) [community 3]",
    "  • ",
    "    Files: a.md, b.md",
    "    Content preview:",
    "      memory://notes/a: text",
    "(shared neighbors: 2, overlap: 0.500)",
    "co-occurs in ",
    "99999999999999999999",
    "[community ",
    "•",
];

const SEARCH_WORDS: &[&str] = &[
    "🔍 **Hybrid Search** (combining text + semantic similarity)",
    "**Semantic Search**",
    "**Full-Text Search**",
    "Found 2 matches (page 1):",
    "Text results: 2, Semantic results: 1",
    "📄 **Auth Design** (memory://notes/auth-design)",
    "   📊 Scores - Fused: 0.033 | Text: 0.050 | Semantic: 0.712",
    "   📝 snippet",
    "   Semantic similarity: 1e999",
    "   Text relevance: -0",
    "💡 **hint**",
    "**",
    "** (",
    "No memories found in specified folder",
    "{\"success\":true,\"data\":{\"results\":[]}}",
];

const RECENT_WORDS: &[&str] = &[
    "# Recent Activity",
    "No recent activity found",
    "No database found",
    "**session-1** (sequential)",
    "**auth-design** (memory)",
    "**x** (a b)",
    "  Modified: 2026-02-18 20:13",
    "  Thoughts: 3",
    "  Sections: 99999999999",
    "  Status: active",
    "  First: \"…\"",
    "  Last: \"",
    "  First H2 Content: ",
    "  Last H2 Content:",
    "  Current: x",
    "    continued",
    ":",
];

const MEMORY_WORDS: &[&str] = &[
    "# Auth Design",
    "URI: memory://notes/auth-design",
    "URI: file:///etc/passwd",
    "Location: notes/auth-design.md",
    "Created: 2026-02-18 19:00",
    "Checksum: 3f2a",
    "---",
    "Created memory FILE: memory://x",
    "{\"success\":true,\"data\":{\"uri\":\"memory://x\",\"content\":\"[[a]]\"}}",
    "{\"success\":false,\"error\":{\"code\":\"NOT_FOUND\"}}",
    "ERROR: Memory file not found: x",
    "[[concept]]",
];

fn text(words: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => lines_from(words),
        2 => mutate_str(lines_from(words)),
        1 => json_with(&["success", "data", "results", "uri", "content", "conceptName", "directRelations"], nasty_string())
            .prop_map(|j| j.text()),
        1 => any::<String>(),
    ]
}

fn spawn_result() -> impl Strategy<Value = SpawnResult> {
    (
        text(SEARCH_WORDS),
        nasty_string(),
        prop::option::of(prop_oneof![Just(0), any::<i32>()]),
        prop::bool::weighted(0.1),
        prop::option::weighted(0.1, nasty_string()),
    )
        .prop_map(
            |(stdout, stderr, exit_code, timed_out, error)| SpawnResult {
                success: exit_code == Some(0),
                stdout,
                stderr,
                exit_code,
                timed_out,
                duration_ms: 1.0,
                error,
            },
        )
}

#[test]
fn the_cli_judge_takes_any_answer() {
    check("maenifold: judge / judge_json", 256, spawn_result(), |r| {
        if let Ok(t) = maenifold::judge(&r) {
            prop_assert!(!t.is_empty() && r.stdout.contains(t));
            prop_assert!(!r.timed_out && r.error.is_none());
        }
        let _ = maenifold::judge_json(&r);
        let _ = search::judge_search(&r);
        let _ = recent::judge_recent(&r);
        let _ = memory::judge_read(&r);
        let _ = memory::judge_write(&r);
        Ok(())
    });
}

#[test]
fn build_context_text_parses() {
    check(
        "maenifold: BuildContext::parse / convert (any text)",
        384,
        text(BC_WORDS),
        |t| {
            if let Ok(bc) = BuildContext::parse(&t) {
                prop_assert!(t.contains(bc.concept.as_str()));
                for r in &bc.direct {
                    prop_assert!(t.contains(r.name.as_str()), "{:?}", r.name);
                }
                // what parses renders and reads back the same
                let again = BuildContext::parse(&bc.to_text());
                prop_assert!(again.is_ok());
            }
            if let Ok(bc) = build_context_from_text(&t) {
                let json = t.trim_start().starts_with('{');
                prop_assert!(
                    !json || bc.expanded.len() <= convert::CLI_EXPANDED_SHOWN,
                    "{:?}",
                    bc.expanded
                );
            }
            Ok(())
        },
    );
}

fn name() -> impl Strategy<Value = String> {
    text_of(LOWER, 1..8)
}

fn build_context() -> impl Strategy<Value = BuildContext> {
    let relation = (
        name(),
        0u32..1000,
        prop::option::of(0u32..50),
        prop::collection::vec(name().prop_map(|n| format!("{n}.md")), 0..3),
        prop::collection::vec(
            (name(), prop::collection::vec(name(), 1..4))
                .prop_map(|(u, w)| (format!("memory://notes/{u}"), w.join(" "))),
            0..3,
        ),
    )
        .prop_map(
            |(name, co_occurrence, community, files, previews)| Relation {
                name,
                co_occurrence,
                community,
                files,
                previews,
            },
        );
    let sibling = (name(), 0u32..100, 0u32..1000).prop_map(|(name, shared_neighbors, o)| Sibling {
        name,
        shared_neighbors,
        overlap: f64::from(o) / 1000.0,
    });
    (
        name(),
        prop::collection::vec(relation, 0..4),
        prop::collection::vec(name(), 0..4),
        prop::option::of(0u32..50),
        prop::collection::vec(sibling, 0..3),
    )
        .prop_map(
            |(concept, direct, expanded, community, siblings)| BuildContext {
                concept,
                direct,
                expanded,
                community: if siblings.is_empty() { None } else { community },
                siblings,
                // the vault's own (the note, its backlinks): not in maenifold's text form
                ..Default::default()
            },
        )
}

#[test]
fn build_context_reads_back_what_it_renders() {
    check(
        "maenifold: BuildContext round trip",
        256,
        build_context(),
        |bc| {
            let text = bc.to_text();
            let back =
                BuildContext::parse(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(back, bc, "{}", text);
            Ok(())
        },
    );
}

#[test]
fn build_context_json_converts() {
    check(
        "maenifold: build_context_from_value (any JSON)",
        256,
        json_with(
            &[
                "conceptName",
                "depth",
                "directRelations",
                "expandedRelations",
                "communitySiblings",
                "name",
                "coOccurrenceCount",
                "files",
                "contentPreview",
                "uri",
                "text",
                "communityId",
                "sharedNeighbors",
                "overlap",
            ],
            nasty_string(),
        ),
        |j| {
            let Ok(v) = serde_json::from_str::<Value>(&j.text()) else {
                return Ok(());
            };
            if let Ok(bc) = build_context_from_value(&v) {
                prop_assert!(!bc.concept.is_empty());
                prop_assert!(bc.expanded.len() <= convert::CLI_EXPANDED_SHOWN);
                let _ = BuildContext::parse(&bc.to_text());
            }
            Ok(())
        },
    );
}

#[test]
fn search_answers_parse_within_bounds() {
    check(
        "maenifold: search::parse (any text)",
        384,
        text(SEARCH_WORDS),
        |t| {
            if let Ok(r) = search::parse(&t) {
                prop_assert!(r.hits.len() <= search::MAX_HITS);
                for h in &r.hits {
                    prop_assert!(h.snippet.chars().count() <= search::MAX_SNIPPET_CHARS + 1);
                    prop_assert!(h.title.chars().count() <= 301);
                }
            }
            Ok(())
        },
    );
}

#[test]
fn recent_activity_parses_within_bounds() {
    check(
        "maenifold: recent::parse (any text)",
        384,
        text(RECENT_WORDS),
        |t| {
            if let Ok(r) = recent::parse(&t) {
                prop_assert!(r.entries().len() <= recent::MAX_ENTRIES);
                for e in r.entries() {
                    for f in [&e.first, &e.last].into_iter().flatten() {
                        prop_assert!(f.chars().count() <= recent::MAX_FIELD_CHARS + 1);
                    }
                    prop_assert!(!e.name.is_empty() && !e.kind.contains(' '));
                }
            }
            Ok(())
        },
    );
}

#[test]
fn memory_answers_parse() {
    check(
        "maenifold: memory::parse_read / parse_write (any text)",
        384,
        text(MEMORY_WORDS),
        |t| {
            if let Ok(m) = memory::parse_read(&t) {
                prop_assert!(m.uri.starts_with("memory://"), "{:?}", m.uri);
                prop_assert!(m.content.chars().count() <= memory::MAX_CONTENT_CHARS);
            }
            if let Ok(w) = memory::parse_write(&t) {
                prop_assert!(w.uri.starts_with("memory://"), "{:?}", w.uri);
            }
            Ok(())
        },
    );
}

/// Long answers: a snippet, a preview and a field far over their bounds are clipped.
#[test]
fn long_answers_are_clipped() {
    let big = "x".repeat(3 << 20);
    let s = search::parse(&format!(
        "🔍 **Hybrid Search**\n📄 **{big}** (memory://a)\n   📝 {big}\n"
    ))
    .unwrap();
    assert!(s.hits[0].snippet.chars().count() <= search::MAX_SNIPPET_CHARS + 1);
    let r = recent::parse(&format!(
        "# Recent Activity\n**a** (memory)\n  First H2 Content: {big}\n{}",
        "  more\n".repeat(100_000)
    ))
    .unwrap();
    assert!(r.entries()[0].first.as_ref().unwrap().chars().count() <= recent::MAX_FIELD_CHARS + 1);
    let many = "**a** (memory)\n".repeat(10_000);
    let r = recent::parse(&format!("# Recent Activity\n{many}")).unwrap();
    assert_eq!(r.entries().len(), recent::MAX_ENTRIES);
}

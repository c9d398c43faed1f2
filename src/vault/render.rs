//! The vault's answers in maenifold's own markdown shapes (`docs/maenifold-cli.md`),
//! for places that show or parse the CLI's text: SearchMemories in FullText mode and
//! RecentActivity. (BuildContext renders through [`crate::maenifold::BuildContext::to_text`].)

use super::markdown::format_utc_minutes;
use super::{Activity, Hit};

/// SearchMemories, FullText mode. Scores are shown relative to the best hit (1.00).
pub fn search_markdown(hits: &[Hit]) -> String {
    if hits.is_empty() {
        return "No memories found matching the query".to_string();
    }
    let top = hits.iter().map(|h| h.score).fold(0.0f64, f64::max);
    let mut s = format!(
        "📝 **Full-Text Search** (keyword matching)\nFound {} matches (page 1):\n\n",
        hits.len()
    );
    for h in hits {
        let rel = if top > 0.0 { h.score / top } else { 0.0 };
        s.push_str(&format!(
            "📄 **{}** ({})\n   📊 Text relevance: {}\n   📝 {}\n\n",
            h.title,
            h.uri,
            crate::maenifold::fixed(rel, 2),
            h.snippet.replace('\n', " ")
        ));
    }
    s.push_str("\n💡 Next: Consider using ReadMemory, BuildContext for related operations.");
    s
}

/// RecentActivity, memory entries.
pub fn recent_markdown(items: &[Activity]) -> String {
    if items.is_empty() {
        return "No recent activity found".to_string();
    }
    let mut s = String::from("# Recent Activity\n");
    for a in items {
        s.push_str(&format!(
            "\n**{}** (memory)\n  Modified: {}\n  Title: {}\n  Sections: {}\n",
            a.name,
            format_utc_minutes(a.modified_ms),
            a.title,
            a.sections
        ));
        if !a.summary.is_empty() {
            s.push_str(&format!("  First: \"{}\"\n", a.summary.replace('"', "'")));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let hits = vec![
            Hit {
                title: "Auth Design".into(),
                uri: "memory://notes/auth-design".into(),
                score: 4.0,
                snippet: "line one\nline two".into(),
            },
            Hit {
                title: "API".into(),
                uri: "memory://notes/api".into(),
                score: 1.0,
                snippet: "x".into(),
            },
        ];
        let t = search_markdown(&hits);
        assert!(t.starts_with("📝 **Full-Text Search** (keyword matching)\nFound 2 matches (page 1):\n\n📄 **Auth Design** (memory://notes/auth-design)\n   📊 Text relevance: 1.00\n   📝 line one line two\n"));
        assert!(t.contains("Text relevance: 0.25"));
        assert_eq!(search_markdown(&[]), "No memories found matching the query");

        let a = Activity {
            name: "auth-design".into(),
            title: "Auth Design".into(),
            uri: "memory://notes/auth-design".into(),
            modified_ms: 1_771_441_320_000.0,
            summary: "We use \"JWT\".".into(),
            sections: 2,
            tags: vec![],
        };
        assert_eq!(
            recent_markdown(&[a]),
            "# Recent Activity\n\n**auth-design** (memory)\n  Modified: 2026-02-18 19:02\n  Title: Auth Design\n  Sections: 2\n  First: \"We use 'JWT'.\"\n"
        );
        assert_eq!(recent_markdown(&[]), "No recent activity found");
    }
}

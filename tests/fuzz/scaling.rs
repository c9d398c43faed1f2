//! How each parser's time grows with its input, on the shapes an attacker would pick: a
//! report, not a test (`#[ignore]`; `scripts/fuzz.sh` runs it in release). Each line gives
//! the time at n, 2n, 4n, 8n and the growth `t(8n) / (8 t(n))`: about 1 is linear, about 8
//! quadratic. Times are the best of three runs on a shared machine: compare shapes, not
//! milliseconds.

use std::time::Instant;

use hookwise::config;
use hookwise::enforce::shell;
use hookwise::enforce::sop;
use hookwise::governance::glob::Glob;
use hookwise::governance::{intents, patch, ranges, scope};
use hookwise::maenifold::{recent, search, BuildContext};
use hookwise::mcp::LineBuffer;
use hookwise::wikilink::{self, ScanMode};
use serde_json::json;

use crate::engine::project_fs;
use hookwise::testing::bound::Bounded;

/// `head`, then `line(i)` for i in 0..k.
fn lines(head: &str, k: usize, line: impl Fn(usize) -> String) -> String {
    (0..k).fold(head.to_string(), |t, i| t + &line(i))
}

fn best_ms(mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..3)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[0]
}

/// Time `run(input(k))` for k = n, 2n, 4n, 8n and print the report line.
fn scale<T>(name: &str, n: usize, input: impl Fn(usize) -> T, mut run: impl FnMut(&T)) {
    let mut out = Vec::new();
    let mut bytes = Vec::new();
    for k in [n, 2 * n, 4 * n, 8 * n] {
        let x = input(k);
        out.push(best_ms(|| run(&x)));
        bytes.push(k);
    }
    let growth = out[3] / (8.0 * out[0].max(1e-6));
    let cells: Vec<String> = bytes
        .iter()
        .zip(&out)
        .map(|(k, ms)| format!("n={k}: {ms:.2} ms"))
        .collect();
    let flag = if growth > 3.0 {
        "  <-- superlinear"
    } else {
        ""
    };
    eprintln!(
        "scale: {name}: {}; growth {growth:.1}{flag}",
        cells.join(", ")
    );
}

#[test]
#[ignore = "a timing report: scripts/fuzz.sh runs it"]
fn scaling_report() {
    // the hook call, to an engine started in the project (governed in the policy build)
    let started = || {
        let mut h = Bounded::on(project_fs());
        h.call_json(
            &json!({"hook": "init", "env": {"PATH": "/nowhere"}, "cwd": "/w",
            "worktree": "/w", "directory": "/w", "options": {}}),
        );
        h.call(br#"{"hook":"intent.select","sessionId":"s","intentId":"INT-1"}"#)
            .ok();
        h
    };
    let mut h = started();
    scale(
        "hook call: tool.before write, n KB content with links",
        256,
        |k| {
            json!({"hook": "tool.before", "tool": "write", "sessionId": "s", "callId": "c",
                   "args": {"filePath": "src/auth/a.ts", "content": "[[a]] x ".repeat(k * 128)}})
            .to_string()
        },
        |call| {
            let _ = h.call(call.as_bytes());
        },
    );
    scale(
        "hook call: tool.before apply_patch of n file operations",
        500,
        |k| {
            json!({"hook": "tool.before", "tool": "apply_patch", "sessionId": "s", "callId": "c",
                   "args": {"patchText": "*** Add File: src/auth/x.ts\n+x\n".repeat(k)}})
            .to_string()
        },
        |call| {
            let _ = h.call(call.as_bytes());
        },
    );
    scale(
        "hook call: n-deep args",
        1000,
        |k| {
            format!(
                "{{\"hook\":\"tool.before\",\"tool\":\"write\",\"sessionId\":\"s\",\"args\":{{\"filePath\":\"src/auth/a.ts\",\"content\":{}1{}}}}}",
                "[".repeat(k),
                "]".repeat(k)
            )
        },
        |call| {
            let _ = h.call(call.as_bytes());
        },
    );
    scale(
        "WikiLinks: concepts of n distinct links",
        20_000,
        |k| (0..k).map(|i| format!("[[c{i}]] ")).collect::<String>(),
        |t| {
            let _ = wikilink::concepts(t, ScanMode::Prose);
        },
    );
    scale(
        "patch: parse n file operations",
        40_000,
        |k| "*** Update File: src/a.ts\n*** Move to: src/b.ts\n@@\n-a\n+b\n".repeat(k),
        |t| {
            let _ = patch::parse(t);
        },
    );
    let fs = project_fs();
    scale(
        "paths: resolve n components then n+2 '..' (realpath per question)",
        50,
        |k| format!("{}{}", "a/".repeat(k), "../".repeat(k + 2)),
        |p| {
            let _ = scope::resolve("/w", p, &mut |q| fs.realpath(q));
        },
    );
    scale(
        "ranges: edit, replaceAll of one character in an n-byte file",
        20_000,
        |k| ("a\n".repeat(k / 2), "b\n".repeat(k / 2)),
        |(before, after)| {
            let _ = ranges::edit(Some(before), after, "a", "b", true);
        },
    );
    scale(
        "ranges: patch_update, n equal lines and an n/2-line hunk",
        10_000,
        |k| {
            let text = format!("*** Update File: x\n@@\n{}+b\n", " a\n".repeat(k / 2));
            let hunks = match patch::parse(&text).remove(0) {
                patch::FileOp::Update { hunks, .. } => hunks,
                _ => Vec::new(),
            };
            ("a\n".repeat(k), hunks)
        },
        |(after, hunks)| {
            let _ = ranges::patch_update(None, after, hunks);
        },
    );
    scale(
        "glob: 'a/**/a/**/x' against n/2 components",
        4_000,
        |k| "a/".repeat(k / 2),
        |p| {
            let _ = Glob::new("a/**/a/**/x", false).unwrap().is_match(p);
        },
    );
    scale(
        "active_intents.yaml: n valid entries",
        200,
        |k| {
            lines("active_intents:\n", k, |i| {
                format!("  - id: I-{i}\n    name: n\n    status: IN_PROGRESS\n    owned_scope: [src/**]\n")
            })
        },
        |t| {
            let _ = intents::parse("f", t);
        },
    );
    scale(
        "active_intents.yaml: n entries, the file not YAML (per-entry reparse)",
        200,
        |k| {
            lines("active_intents:\n", k, |i| {
                format!("  - id: I-{i}\n    name: [\n")
            })
        },
        |t| {
            let _ = intents::parse("f", t);
        },
    );
    scale(
        "active_intents.yaml: n-deep flow sequence",
        2_000,
        |k| format!("active_intents: {}{}\n", "[".repeat(k), "]".repeat(k)),
        |t| {
            let _ = intents::parse("f", t);
        },
    );
    scale(
        "SOP: n sections in the body",
        2_000,
        |k| {
            format!(
                "---\nkeywords: [x]\n---\n{}",
                "## Preflight\nstep\n### Rollback\nundo\n".repeat(k)
            )
        },
        |t| {
            let _ = sop::parse(
                "x.md",
                t,
                &["preflight".to_string(), "rollback".to_string()],
            );
        },
    );
    scale(
        "SOP: n-deep YAML flow sequence",
        2_000,
        |k| {
            format!(
                "meta:\n  service: x\ngotchas: {}x{}\n",
                "[".repeat(k),
                "]".repeat(k)
            )
        },
        |t| {
            let _ = sop::parse("x.ai.sop", t, &[]);
        },
    );
    scale(
        "hookwise.json: n keys",
        20_000,
        |k| {
            let m: serde_json::Map<String, serde_json::Value> =
                (0..k).map(|i| (format!("k{i}"), json!(i))).collect();
            serde_json::Value::Object(m).to_string()
        },
        |t| {
            let _ = config::merge_file_options(&json!({}), &Ok(Some(t.clone())), "f");
        },
    );
    scale(
        "maenifold: BuildContext text, n relations",
        5_000,
        |k| {
            lines(
                "Context for CONCEPT: a\n\nDirect relations (1 CONCEPTS):\n",
                k,
                |i| {
                    format!("  • r{i} (co-occurs in 2 files)\n    Files: a.md\n    Content preview:\n      memory://a: x\n")
                },
            )
        },
        |t| {
            let _ = BuildContext::parse(t);
        },
    );
    scale(
        "maenifold: search markdown, n hits",
        5_000,
        |k| {
            format!(
                "🔍 **Hybrid Search**\n{}",
                "📄 **T** (memory://a)\n   📊 Scores - Fused: 0.1 | Text: 0.1 | Semantic: 0.1\n   📝 s\n"
                    .repeat(k)
            )
        },
        |t| {
            let _ = search::parse(t);
        },
    );
    scale(
        "maenifold: recent activity, n continuation lines",
        20_000,
        |k| {
            format!(
                "# Recent Activity\n**a** (memory)\n  First H2 Content: x\n{}",
                "  more text\n".repeat(k)
            )
        },
        |t| {
            let _ = recent::parse(t);
        },
    );
    scale(
        "MCP frames: n KB in 1-byte chunks",
        64,
        |k| {
            "{\"jsonrpc\":\"2.0\",\"id\":1}\n"
                .repeat(k * 40)
                .into_bytes()
        },
        |b| {
            let mut lb = LineBuffer::new(4 << 20);
            for c in b.chunks(1) {
                let _ = lb.feed(c);
            }
        },
    );
    scale(
        "MCP frames: one n KB line without a newline, 4 KB chunks",
        1024,
        |k| vec![b'x'; k * 1024],
        |b| {
            let mut lb = LineBuffer::new(4 << 20);
            for c in b.chunks(4096) {
                let _ = lb.feed(c);
            }
        },
    );
    scale(
        "shell: n commands",
        5_000,
        |k| "git push --force origin main && echo $(date) ; ".repeat(k),
        |t| {
            let _ = shell::split(t);
        },
    );
    scale(
        "shell: n-deep substitutions",
        2_000,
        |k| format!("{}x{}", "$(".repeat(k), ")".repeat(k)),
        |t| {
            let _ = shell::split(t);
        },
    );
    scale(
        "shell: here-document of n lines",
        20_000,
        |k| format!("cat <<EOF > out\n{}EOF\n", "line\n".repeat(k)),
        |t| {
            let _ = shell::split(t);
        },
    );
}

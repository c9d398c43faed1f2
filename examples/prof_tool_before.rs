//! Profiles one tool.before with three concepts through the engine, natively:
//! `cargo run --release --example prof_tool_before` (or under callgrind).
use hookwise::engine::Engine;
use hookwise::runtime::Step;
use serde_json::json;
use std::time::Instant;

const ANSWER: &str = "Context for CONCEPT: x\n\nDirect relations (2 CONCEPTS):\n  • jwt (co-occurs in 3 files)\n    Files: memory://notes/auth-design, memory://notes/api\n    Content preview:\n      memory://notes/auth-design: Tokens are RS256-signed and rotated daily.\n  • session-tokens (co-occurs in 1 files)\n    Files: memory://notes/api\n";

fn main() {
    let mut e = Engine::new();
    let Step::Pending { op, requests, .. } = e
        .start_json(json!({"hook":"init","options":{"cliPath":"/m"}}).to_string())
        .unwrap()
    else {
        panic!()
    };
    e.resume(
        op,
        requests[0].id,
        json!({"exists":true,"realpath":"/m","isFile":true,"executable":true}),
    );
    let prompt = format!(
        "{} [[auth]] [[REST API]] [[rate-limiting]]",
        "x".repeat(1000)
    );
    let call = json!({"hook":"tool.before","tool":"task","callId":"c","args":{"prompt":prompt}})
        .to_string();
    let reply = json!({"success": true, "exitCode": 0, "stdout": ANSWER});
    let n = 5000;
    let t = Instant::now();
    for _ in 0..n {
        let Step::Pending { op, requests, .. } = e.start_json(&call).unwrap() else {
            panic!()
        };
        let replies: Vec<_> = requests.iter().map(|r| (r.id, reply.clone())).collect();
        let done = e.ops_resume_many(op, replies);
        assert!(matches!(done, Some(Step::Done { .. })));
    }
    println!(
        "tool.before with 3 concepts: {:.1} µs",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}

//! The operations driven end to end against the scripted host, and records checked against
//! the Agent Trace schema. The shared set-up (a project, the driver `T`) lives here; the cases
//! are split by role into sibling files: the schema checker, the gate, the trace chain and the
//! hosts' own tool names.

use serde_json::{json, Value};

use super::chain;
use super::ops::*;
use super::ranges::{content_hash, sha256_hex};
use super::trace::GENESIS;
use crate::protocol::Request;
use crate::testing::TestHost;

pub(super) const WT: &str = "/w";
pub(super) const YAML: &str = "\
active_intents:
  - id: INT-1
    name: Auth
    status: IN_PROGRESS
    owned_scope: [src/**, \"!src/secrets/**\"]
    constraints: [Keep the public API]
    acceptance_criteria: [Tests pass]
  - id: INT-2
    name: Docs
    status: IN_PROGRESS
    owned_scope: [docs/**]
  - id: INT-3
    name: Billing
    status: COMPLETE
    owned_scope: [billing/**]
";

pub(super) fn project() -> TestHost {
    let mut fs = TestHost::default();
    fs.file("/w/.orchestration/active_intents.yaml", YAML);
    fs.dir("/w/src");
    fs
}

pub(super) struct T {
    fs: TestHost,
    gov: Governance,
    calls: u32,
    /// Where relative paths start (empty: the worktree).
    dir: String,
}

impl T {
    pub(super) fn new(fs: TestHost) -> T {
        T {
            fs,
            gov: Governance::default(),
            calls: 0,
            dir: String::new(),
        }
    }

    pub(super) fn before(&mut self, session: &str, tool: &str, args: Value) -> GateOutput {
        self.calls += 1;
        let input = ToolCallInput {
            tool: tool.into(),
            session_id: session.into(),
            call_id: format!("call{}", self.calls),
            args,
            worktree: WT.into(),
            directory: self.dir.clone(),
        };
        let gov = self.gov.clone();
        self.fs
            .run(move |io| async move { tool_before(&io, &gov, &input).await })
    }

    pub(super) fn after(&mut self, session: &str, tool: &str, args: Value) -> AfterOutput {
        let input = AfterInput {
            tool: tool.into(),
            session_id: session.into(),
            call_id: format!("call{}", self.calls),
            args,
            worktree: WT.into(),
            directory: self.dir.clone(),
            now_ms: 1_763_781_123_456.0 + f64::from(self.calls),
            random: format!(
                "{:032x}",
                0x1234_5678_9abc_def0_u128 * u128::from(self.calls)
            ),
            head: None,
            model_id: Some("anthropic/claude-test".into()),
            #[cfg(feature = "policy")]
            model_log: None,
            failed: false,
        };
        let gov = self.gov.clone();
        self.fs
            .run(move |io| async move { tool_after(&io, &gov, &input).await })
    }

    /// before → (the tool runs: `apply`) → after, as a host does.
    pub(super) fn call(
        &mut self,
        session: &str,
        tool: &str,
        args: Value,
        apply: impl FnOnce(&mut TestHost),
    ) -> Result<AfterOutput, String> {
        let b = self.before(session, tool, args.clone());
        if let Some(m) = b.block {
            return Err(m);
        }
        apply(&mut self.fs);
        Ok(self.after(session, tool, args))
    }

    pub(super) fn select(&mut self, session: &str, id: &str) -> SelectOutput {
        let input = SelectInput {
            session_id: session.into(),
            intent_id: id.into(),
            worktree: WT.into(),
        };
        let gov = self.gov.clone();
        self.fs
            .run(move |io| async move { select_intent(&io, &gov, &input).await })
    }

    pub(super) fn system(&mut self, session: &str) -> SystemOutput {
        let input = SystemInput {
            session_id: session.into(),
            worktree: WT.into(),
            model_id: None,
        };
        let gov = self.gov.clone();
        self.fs
            .run(move |io| async move { system_context(&io, &gov, &input).await })
    }

    pub(super) fn scaffold(&mut self) -> InitOutput {
        self.fs.run(|io| async move {
            init_scaffold(
                &io,
                &InitInput {
                    worktree: WT.into(),
                },
            )
            .await
        })
    }

    pub(super) fn verify(&mut self) -> VerifyOutput {
        self.verify_as(self.gov.clone())
    }

    /// Verification by a fresh process: nothing remembered but what the files say.
    pub(super) fn verify_fresh(&mut self) -> VerifyOutput {
        self.verify_as(Governance::default())
    }

    fn verify_as(&mut self, gov: Governance) -> VerifyOutput {
        self.fs.run(move |io| async move {
            trace_verify(
                &io,
                &gov,
                &VerifyInput {
                    worktree: WT.into(),
                    ..Default::default()
                },
            )
            .await
        })
    }

    pub(super) fn trace_lines(&self) -> Vec<Value> {
        self.fs
            .trace("/w")
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

#[path = "schema_check_tests.rs"]
mod schema_check;
use schema_check::schema_errors;

#[path = "ops_gate_tests.rs"]
mod gate_cases;

#[path = "ops_paths_tests.rs"]
mod path_cases;

#[path = "ops_trace_tests.rs"]
mod trace_cases;

#[path = "host_tools_tests.rs"]
mod host_tools;

#[path = "guard_tests.rs"]
mod guard_cases;

#[test]
fn options() {
    let (c, l) = GovConfig::from_options(None);
    assert_eq!((c.enabled, l.len()), (Enabled::Auto, 0));
    assert!(
        c.watched_tools().contains(&"read".to_string())
            && c.watched_tools().contains(&"bash".to_string())
    );
    let (c, _) = GovConfig::from_options(Some(&json!(false)));
    assert_eq!(c.enabled, Enabled::Off);
    let (c, l) = GovConfig::from_options(Some(
        &json!({"enabled": true, "mutatingTools": ["write"], "staleWrites": false, "x": 1}),
    ));
    assert_eq!(
        (c.enabled, c.mutating_tools.clone(), c.stale_writes),
        (Enabled::On, vec!["write".to_string()], false)
    );
    assert_eq!(l.len(), 1);
    let (c, l) = GovConfig::from_options(Some(&json!({"enabled": "yes", "readTools": "read"})));
    assert_eq!((c, l.len()), (GovConfig::default(), 2));
}

/// Gate decision latency with 50 intents × 20 globs (run with `cargo test --release --lib
/// bench_gate -- --ignored --nocapture`). Measured on the 2-core dev machine: native p50
/// ~3 µs, p99 ~6 µs; the same decision in the wasm under node 20, including the JS→wasm
/// call, p50 5.1 µs, p99 10.1 µs (target: p50 ≤ 50 µs).
#[test]
#[ignore]
fn bench_gate_decision() {
    use super::gate::{gate, GateState};
    use super::intents;
    use super::scope::{resolve, Scope};
    use std::time::Instant;

    let mut yaml = String::from("active_intents:\n");
    for i in 0..50 {
        yaml.push_str(&format!(
            "  - id: INT-{i}\n    name: n{i}\n    status: IN_PROGRESS\n    owned_scope:\n"
        ));
        for g in 0..19 {
            yaml.push_str(&format!("      - \"pkg{i}/mod{g}/**/*.{{ts,tsx}}\"\n"));
        }
        yaml.push_str(&format!("      - \"!pkg{i}/**/generated/**\"\n"));
    }
    let t0 = Instant::now();
    let file = intents::parse("f", &yaml);
    let parse = t0.elapsed();
    assert_eq!(file.intents.len(), 50);
    let t0 = Instant::now();
    let scopes: Vec<Scope> = file
        .intents
        .iter()
        .map(|i| Scope::compile(&i.owned_scope).unwrap())
        .collect();
    let compile = t0.elapsed() / 50;
    let mutating: Vec<String> = crate::hosts::default_profile().mutating();
    let paths = [
        "pkg25/mod7/deep/x/file.tsx",
        "pkg25/other/file.ts",
        "/w/pkg25/mod3/a.ts",
        "pkg25/mod1/generated/x.ts",
        "pkg25/../pkg26/mod1/a.ts",
    ];
    let mut samples = Vec::new();
    let scope = Ok(scopes[25].clone());
    for round in 0..20_000 {
        let path = paths[round % paths.len()];
        let args = json!({"filePath": path, "content": "x"});
        let st = GateState {
            host: crate::hosts::default_profile(),
            gated: &|t| mutating.iter().any(|x| x == t),
            intents: &file,
            active: Some("INT-25"),
            scope: Some(&scope),
        };
        let t0 = Instant::now();
        let d = gate("write", &args, &st, &mut |p| {
            resolve("/w", p, &mut |q: &str| Some(q.to_string()))
        });
        samples.push(t0.elapsed().as_nanos() as u64);
        std::hint::black_box(d);
    }
    samples.sort_unstable();
    let p = |q: f64| samples[((samples.len() as f64 - 1.0) * q) as usize] as f64 / 1000.0;
    println!("intents.yaml 50×20 parse: {parse:?}; scope compile per intent: {compile:?}");
    println!(
        "gate decision (resolve + match, 50 intents × 20 globs): p50 {:.2} µs, p99 {:.2} µs",
        p(0.5),
        p(0.99)
    );

    // record building and chaining (the core side of a trace append)
    let mut fs = project();
    fs.file("/w/src/a.ts", &"line\n".repeat(200));
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    let n = 150; // the file has 200 lines to replace
    let t0 = Instant::now();
    for i in 0..n {
        let args =
            json!({"filePath": "src/a.ts", "oldString": "line", "newString": format!("edit{i}")});
        let r = t
            .call("s", "edit", args, |fs| {
                let cur = fs
                    .read("/w/src/a.ts")
                    .unwrap()
                    .replacen("line", &format!("edit{i}"), 1);
                fs.file("/w/src/a.ts", &cur)
            })
            .unwrap();
        assert!(r.recorded, "{i}: {r:?}");
    }
    let per = t0.elapsed() / n;
    println!("tool.before + tool.after with a 200-line file against the in-memory host: {per:?} per call");
    assert!(t.verify().report.ok);
}

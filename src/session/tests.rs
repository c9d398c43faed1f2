//! The session operations driven natively by the one test driver ([`crate::testing`]) on
//! its host with the virtual clock from 0: the scripted maenifold CLI's answers take a set
//! time (or hang until the host's own timeout kills them), sleeps take theirs, the session's
//! messages 5 ms, several operations run at once, cancellations are honoured.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};
use std::rc::Rc;

use serde_json::{json, Value};

use super::*;
use crate::testing::drive::{Driver, Routed};
use crate::testing::procs::Proc;
use crate::testing::TestHost;

/// One run of the CLI, as the host saw it.
#[derive(Debug, Clone)]
struct Call {
    tool: String,
    payload: Value,
    json: bool,
    at: u64,
    id: u64,
}

struct Sim(Driver<Routed, TestHost>);

impl Deref for Sim {
    type Target = Driver<Routed, TestHost>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for Sim {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

const CLI_TIMEOUT_MS: u64 = 5000;

fn source() -> Source {
    Source::Cli {
        path: "/bin/maenifold".into(),
        timeout_ms: CLI_TIMEOUT_MS,
        max_bytes: 1 << 20,
    }
}

/// The CLI's arguments: tool, payload, and whether JSON output was asked for.
fn cli_args(argv: &[String]) -> (String, Value, bool) {
    assert_eq!(argv[0], "/bin/maenifold");
    assert_eq!(
        (argv[1].as_str(), argv[3].as_str()),
        ("--tool", "--payload")
    );
    let payload: Value = serde_json::from_str(&argv[4]).unwrap();
    (
        argv[2].clone(),
        payload,
        argv.get(5).is_some_and(|a| a == "--json"),
    )
}

impl Sim {
    /// A host whose maenifold CLI does what `cli` says for each (tool, payload).
    fn new(cli: impl Fn(&str, &Value) -> Proc + 'static) -> Sim {
        let host = TestHost {
            now: 0.0,
            messages: Some(json!({"messages": []})),
            procs: Some(Box::new(move |argv: &[String]| {
                let (tool, payload, _) = cli_args(argv);
                cli(&tool, &payload)
            })),
            expect: Some(|r| {
                matches!(
                    r,
                    Request::Sleep { .. } | Request::SessionMessages { .. } | Request::Spawn { .. }
                )
            }),
            ..TestHost::default()
        };
        Sim(Driver::new(Routed::default(), host))
    }

    /// Run until nothing is left to do.
    fn run(&mut self) {
        self.drain();
        assert_eq!(self.runner.ops.in_flight(), 0, "an operation is stuck");
    }

    fn now(&self) -> u64 {
        self.host.now as u64
    }

    /// When operation `op` finished.
    fn done_at(&self, op: u64) -> u64 {
        self.done[&op].0 as u64
    }

    /// The runs of the CLI, in the order made.
    fn calls(&self) -> Vec<Call> {
        let h = &self.host;
        h.log
            .iter()
            .zip(&h.sent)
            .filter_map(|(r, &(at, _, id))| match r {
                Request::Spawn { argv, .. } => {
                    let (tool, payload, json) = cli_args(argv);
                    Some(Call {
                        tool,
                        payload,
                        json,
                        at: at as u64,
                        id,
                    })
                }
                _ => None,
            })
            .collect()
    }

    /// The runs of the CLI for `tool`.
    fn calls_of(&self, tool: &str) -> Vec<Call> {
        let mut calls = self.calls();
        calls.retain(|c| c.tool == tool);
        calls
    }

    /// The first run of the CLI for `tool`.
    fn first(&self, tool: &str) -> Call {
        let c = self.calls_of(tool).into_iter().next();
        c.unwrap_or_else(|| panic!("no call of {tool}"))
    }

    fn tools(&self) -> Vec<String> {
        self.calls().into_iter().map(|c| c.tool).collect()
    }
}

fn to_value<T: serde::Serialize>(t: T) -> Value {
    serde_json::to_value(t).unwrap()
}

// ---- a small maenifold world ----

const BC_AUTH: &str = "Context for CONCEPT: authentication\n\nDirect relations (2 CONCEPTS):\n  • jwt (co-occurs in 3 files) [community 1]\n    Files: memory://notes/auth-design, memory://notes/api\n  • oauth (co-occurs in 1 files)\n    Files: memory://notes/api\n";

fn search_json() -> String {
    json!({"success": true, "error": null, "data": {
        "mode": "Hybrid", "query": "hookwise", "totalCount": 3, "page": 1, "pageSize": 5,
        "textResultCount": 3, "semanticResultCount": 2,
        "results": [
            {"title": "Auth Design", "path": "memory://notes/auth-design", "fusedScore": 0.03,
             "textScore": 0.05, "semanticScore": 0.7, "snippet": "We use [[JWT]] for [[authentication]]."},
            {"title": "API", "path": "memory://notes/api", "fusedScore": 0.02,
             "textScore": 0.02, "semanticScore": 0.1, "snippet": "The [[REST API]] uses [[json]] and [[authentication]]."},
            {"title": "Postgres over MySQL", "path": "memory://decisions/postgres-over-mysql",
             "fusedScore": 0.01, "textScore": 0.01, "semanticScore": 0.0, "snippet": ""}
        ]}})
    .to_string()
}

const RECENT: &str = "# Recent Activity\n\n**auth-design** (memory)\n  Modified: 2026-02-18 19:02\n  Title: Auth Design\n  Sections: 2\n  First: \"Tokens\"\n\n**rate-limiting** (memory)\n  Modified: 2026-02-18 18:40\n  Title: Rate Limiting\n  Sections: 1\n  First: \"Token bucket\"\n\n**deployment-runbook** (memory)\n  Modified: 2026-02-18 17:00\n  Title: Deployment Runbook\n  Sections: 1\n  First: \"Blue/green to [[kubernetes]]\"\n";

fn read(title: &str, uri: &str, body: &str) -> String {
    format!("# {title}\nURI: {uri}\nLocation: x.md\nModified: 2026-02-18 19:02\n\n---\n\n# {title}\n\n{body}\n")
}

/// The fake maenifold: every call takes `ms`.
fn world(ms: u64) -> impl Fn(&str, &Value) -> Proc {
    move |tool, p| {
        let out = |s: String| Proc::after(ms, s);
        match tool {
            "SearchMemories" => out(search_json()),
            "RecentActivity" => out(RECENT.into()),
            "ReadMemory" => match p["identifier"].as_str().unwrap() {
                "memory://notes/auth-design" => out(read(
                    "Auth Design",
                    "memory://notes/auth-design",
                    "[[JWT]] signs [[authentication]] with [[session-tokens]].\n```\n[[not-a-concept]]\n```",
                )),
                "memory://notes/api" => out(read(
                    "API",
                    "memory://notes/api",
                    "The [[REST API]] needs [[authentication]].",
                )),
                "memory://decisions/postgres-over-mysql" => out(read(
                    "Postgres over MySQL",
                    "memory://decisions/postgres-over-mysql",
                    "We chose [[postgres]] over [[mysql]].",
                )),
                "rate-limiting" => out(read(
                    "Rate Limiting",
                    "memory://notes/rate-limiting",
                    "Per [[api-key]] limits in [[rate-limiting]] protect [[authentication]].",
                )),
                other => out(format!("ERROR: Memory file not found: {other}")),
            },
            "BuildContext" => {
                let c = p["conceptName"].as_str().unwrap();
                match c {
                    "authentication" => out(BC_AUTH.into()),
                    "jwt" => out("Context for CONCEPT: jwt\n\nDirect relations (1 CONCEPTS):\n  • session-tokens (co-occurs in 1 files)\n".into()),
                    _ => out(format!("Context for CONCEPT: {c}\n\nDirect relations (0 CONCEPTS):\n")),
                }
            }
            "WriteMemory" => out(json!({"success": true, "error": null, "data": {
                "uri": format!("memory://{}/x", p["folder"].as_str().unwrap()), "checksum": "c",
                "title": p["title"], "folder": p["folder"]}}).to_string()),
            t => Proc::after(ms, format!("Unknown tool: {t}")),
        }
    }
}

fn cfg() -> SessionConfig {
    SessionConfig::default()
}

fn start_op(sim: &mut Sim, cfg: SessionConfig, strategy: Strategy) -> u64 {
    let src = source();
    sim.start(move |io| async move {
        to_value(session_start(&io, &src, "hookwise", &cfg, strategy).await)
    })
}

// ---- session start ----

#[test]
fn session_start_finds_ranks_and_formats() {
    let mut sim = Sim::new(world(20));
    let op = start_op(&mut sim, cfg(), Strategy::Parallel);
    sim.run();
    let r = sim.result(op).clone();
    let calls = sim.calls();

    // stage 1: the two calls at once, with the issue's payloads
    assert_eq!(calls[0].tool, "SearchMemories");
    assert_eq!(
        calls[0].payload,
        json!({"query": "hookwise", "mode": "Hybrid", "pageSize": 5})
    );
    assert!(calls[0].json);
    assert_eq!(calls[1].tool, "RecentActivity");
    assert_eq!(
        calls[1].payload,
        json!({"timespan": "1.00:00:00", "limit": 10, "filter": "memory"})
    );
    assert!(!calls[1].json);
    assert_eq!((calls[0].at, calls[1].at), (0, 0));
    // stage 2: the three top results by URI and the two recent memories not among them, by slug
    let read_calls = sim.calls_of("ReadMemory");
    let reads: Vec<&str> = read_calls
        .iter()
        .map(|c| c.payload["identifier"].as_str().unwrap())
        .collect();
    assert_eq!(
        reads,
        vec![
            "memory://notes/auth-design",
            "memory://notes/api",
            "memory://decisions/postgres-over-mysql",
            "rate-limiting",
            "deployment-runbook"
        ]
    );
    assert!(read_calls.iter().all(|c| c.at == 20));
    // stage 3: the top five concepts, BuildContext depth 1, maxEntities 10, all at once
    let bc = sim.calls_of("BuildContext");
    let names: Vec<&str> = bc
        .iter()
        .map(|c| c.payload["conceptName"].as_str().unwrap())
        .collect();
    // authentication: links in 3 files; jwt and rest-api: 1 file, 2 mentions; rate-limiting:
    // 1 file, 1 mention, also its title; json: 1 file, 1 mention, seen first of the rest
    assert_eq!(
        names,
        vec!["authentication", "jwt", "rest-api", "rate-limiting", "json"]
    );
    assert!(bc.iter().all(|c| c.at == 40
        && c.payload["depth"] == 1
        && c.payload["maxEntities"] == 10
        && c.payload["includeContent"] == false));
    assert_eq!(r["calls"], 12);
    assert_eq!(sim.now(), 60, "three stages of 20 ms");

    let ctx = r["context"].as_str().unwrap();
    assert!(
        ctx.starts_with("## Knowledge Graph Context\n\nProject: **hookwise**\n"),
        "{ctx}"
    );
    assert!(
        ctx.contains("### Related concepts\n- [[authentication]] (3 files)\n- [[jwt]] (1 file)\n")
    );
    assert!(
        !ctx.contains("not-a-concept"),
        "links in code are not concepts"
    );
    assert!(ctx.contains("- Auth Design — memory://notes/auth-design\n"));
    assert!(ctx.contains(
        "### Recent activity (24 h)\n- Auth Design — memory://notes/auth-design (modified 2026-02-18 19:02)\n- Rate Limiting — memory://notes/rate-limiting (modified 2026-02-18 18:40)\n- Deployment Runbook (modified 2026-02-18 17:00)\n"
    ), "{ctx}");
    assert!(ctx.contains("### Graph connections\n- [[authentication]] → [[jwt]], [[oauth]]\n- [[jwt]] → [[session-tokens]]\n"));
    assert!(ctx.ends_with(format::HINT));
    assert!(ctx.chars().count() <= 4000 * 4);
    // the one failure (deployment-runbook is not found) is one warning
    let logs = r["logs"].as_array().unwrap();
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0]["level"], "warn");
    let m = logs[0]["message"].as_str().unwrap();
    assert!(
        m.contains("1 of 12") && m.contains("Memory file not found: deployment-runbook"),
        "{m}"
    );
}

#[test]
fn sequential_baseline_makes_the_same_calls_one_by_one() {
    let slow = SessionConfig {
        start_timeout_ms: 60_000,
        ..cfg()
    };
    let mut par = Sim::new(world(1820));
    let p = start_op(&mut par, slow.clone(), Strategy::Parallel);
    par.run();
    let mut seq = Sim::new(world(1820));
    let s = start_op(&mut seq, slow, Strategy::Sequential);
    seq.run();
    assert_eq!(par.result(p)["context"], seq.result(s)["context"]);
    assert_eq!(par.tools(), seq.tools());
    assert_eq!(par.now(), 3 * 1820);
    assert_eq!(seq.now(), 12 * 1820);
    let starts: Vec<u64> = seq.calls().iter().map(|c| c.at).collect();
    assert!(starts.windows(2).all(|w| w[1] == w[0] + 1820), "{starts:?}");
}

#[test]
fn the_seed_baseline_skips_the_reads_and_waits_for_each_call() {
    let slow = SessionConfig {
        start_timeout_ms: 60_000,
        ..cfg()
    };
    let mut sim = Sim::new(world(1820));
    let op = start_op(&mut sim, slow, Strategy::SeedSequential);
    sim.run();
    let r = sim.result(op);
    assert_eq!(
        sim.tools(),
        vec![
            "SearchMemories",
            "RecentActivity",
            "BuildContext",
            "BuildContext",
            "BuildContext",
            "BuildContext",
            "BuildContext"
        ]
    );
    assert_eq!(r["calls"], 7);
    assert_eq!(sim.now(), 7 * 1820);
    // concepts from the snippets and titles only
    let names: Vec<&str> = r["concepts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["authentication", "jwt", "rest-api", "json", "kubernetes"]
    );
}

#[test]
fn token_limit_truncates_the_context() {
    let mut sim = Sim::new(world(20));
    let op = start_op(
        &mut sim,
        SessionConfig {
            token_limit: 100,
            ..cfg()
        },
        Strategy::Parallel,
    );
    sim.run();
    let ctx = sim.result(op)["context"].as_str().unwrap().to_string();
    assert!(ctx.chars().count() <= 400, "{}", ctx.chars().count());
    assert!(ctx.contains("context truncated"));
    assert!(ctx.starts_with(format::HEADER));
}

#[test]
fn partial_failures_keep_what_answered() {
    // search refuses the query, one BuildContext hangs until the CLI timeout
    let base = world(20);
    let mut sim = Sim::new(move |tool, p| match tool {
        "SearchMemories" => Proc::after(
            20,
            "ERROR: Query contains no informative keywords. Try adding specific terms.",
        ),
        "BuildContext" if p["conceptName"] == "rate-limiting" => Proc::Hang,
        _ => base(tool, p),
    });
    let op = start_op(&mut sim, cfg(), Strategy::Parallel);
    sim.run();
    let r = sim.result(op).clone();
    let ctx = r["context"].as_str().unwrap();
    assert!(!ctx.contains("### Relevant memories"));
    assert!(ctx.contains("- Rate Limiting — memory://notes/rate-limiting"));
    assert!(ctx.contains("[[rate-limiting]]"), "{ctx}");
    let logs = r["logs"].as_array().unwrap();
    assert_eq!(logs.len(), 1);
    let m = logs[0]["message"].as_str().unwrap();
    assert_eq!(logs[0]["level"], "warn");
    assert!(
        m.contains("no informative keywords") && m.contains("timed out"),
        "{m}"
    );
    assert_eq!(
        sim.now(),
        40 + CLI_TIMEOUT_MS,
        "the host's timeout ended the hung call"
    );
}

#[test]
fn the_deadline_keeps_finished_lookups_and_cancels_the_rest() {
    let base = world(20);
    let mut sim = Sim::new(move |tool, p| match tool {
        "BuildContext" if p["conceptName"] == "jwt" => Proc::Hang,
        _ => base(tool, p),
    });
    let op = start_op(
        &mut sim,
        SessionConfig {
            start_timeout_ms: 1000,
            ..cfg()
        },
        Strategy::Parallel,
    );
    sim.run();
    let r = sim.result(op).clone();
    assert_eq!(sim.done_at(op), 1000, "finished at the deadline");
    let hung = sim
        .calls()
        .into_iter()
        .find(|c| c.payload["conceptName"] == "jwt")
        .unwrap();
    assert!(
        sim.host.cancelled.contains(&hung.id),
        "the hung call is cancelled"
    );
    let ctx = r["context"].as_str().unwrap();
    assert!(ctx.contains("- [[authentication]] → [[jwt]], [[oauth]]"));
    assert!(!ctx.contains("- [[jwt]] →"));
    let m = r["logs"][0]["message"].as_str().unwrap();
    assert!(
        m.contains("over the 1000 ms session-start deadline: BuildContext jwt"),
        "{m}"
    );
}

/// Every way the CLI can fail, for every call.
fn failing_answers() -> Vec<(&'static str, Proc)> {
    let big = "\u{FFFD}".repeat(4 * 1024 * 1024);
    vec![
        ("missing", Proc::Fails("spawn /bin/maenifold ENOENT".into())),
        ("hanging", Proc::Hang),
        ("ERROR", Proc::after(10, "ERROR: database is locked")),
        (
            "Error invoking",
            Proc::after(
                10,
                "Error invoking SearchMemories: Required property 'query' is missing from payload.",
            ),
        ),
        (
            "Unknown tool",
            Proc::after(10, "Unknown tool: SearchMemories"),
        ),
        ("empty", Proc::after(10, "")),
        ("garbage", Proc::after(10, "<html>502 Bad Gateway</html>")),
        (
            "non-UTF-8",
            Proc::after(10, "\u{FFFD}\u{FFFD}PNG\r\n\u{1A}\n\u{FFFD}"),
        ),
        ("10 MB", Proc::after(10, big)),
        (
            "over the cap",
            Proc::Fails("output over 1048576 bytes".into()),
        ),
        (
            "success:false",
            Proc::after(
                10,
                r#"{"success":false,"data":null,"error":{"code":"INTERNAL_ERROR","message":"boom"}}"#,
            ),
        ),
    ]
}

#[test]
fn an_all_failing_cli_gives_no_context_and_one_warning() {
    for (name, answer) in failing_answers() {
        let mut sim = Sim::new(move |_, _| answer.clone());
        let state = Rc::new(RefCell::new(SessionState::default()));
        let st = state.clone();
        let src = source();
        let op = sim.start(move |io| async move {
            let info = SessionInfo {
                id: "ses_1".into(),
                parent_id: None,
            };
            to_value(session_created(&io, &st, Some(&src), &info, "hookwise", &cfg()).await)
        });
        sim.run();
        let r = sim.result(op);
        assert!(
            r.get("sessionContext").is_none() && r.get("prompt").is_none(),
            "{name}: {r}"
        );
        let logs = r["logs"].as_array().unwrap();
        assert_eq!(logs.len(), 1, "{name}");
        assert_eq!(logs[0]["level"], "warn", "{name}");
        assert_eq!(
            sim.tools(),
            vec!["SearchMemories", "RecentActivity"],
            "{name}"
        );
        assert_eq!(state.borrow().context("ses_1"), None);
        assert!(!state.borrow().is_pending("ses_1"));
    }
}

#[test]
fn no_database_and_no_results_is_no_context() {
    let mut sim = Sim::new(|tool, _| {
        match tool {
        "SearchMemories" => Proc::after(10, "No memories found in specified folder"),
        _ => Proc::after(10, "# Recent Activity\n\nNo database found. Run the `Sync` command first to index memory files."),
    }
    });
    let op = start_op(&mut sim, cfg(), Strategy::Parallel);
    sim.run();
    let r = sim.result(op);
    assert!(r.get("context").is_none());
    assert_eq!(r["logs"][0]["level"], "warn");
    assert!(r["logs"][0]["message"]
        .as_str()
        .unwrap()
        .contains("run Sync"));
    // nothing at all found, nothing failed: no context, no warning
    let mut sim = Sim::new(|tool, _| match tool {
        "SearchMemories" => {
            Proc::after(10, "🔍 **Hybrid Search** (x)\nFound 0 matches (page 1):\n")
        }
        _ => Proc::after(10, "No recent activity found"),
    });
    let op = start_op(&mut sim, cfg(), Strategy::Parallel);
    sim.run();
    let r = sim.result(op);
    assert!(r.get("context").is_none());
    assert_eq!(r["logs"][0]["level"], "debug");
}

// ---- bookkeeping and delivery ----

struct World {
    sim: Sim,
    state: Rc<RefCell<SessionState>>,
}

impl World {
    fn new(ms: u64) -> World {
        World {
            sim: Sim::new(world(ms)),
            state: Rc::new(RefCell::new(SessionState::default())),
        }
    }

    fn created(&mut self, id: &str, parent: Option<&str>, cfg: SessionConfig) -> u64 {
        let st = self.state.clone();
        let info = SessionInfo {
            id: id.into(),
            parent_id: parent.map(str::to_string),
        };
        let src = source();
        self.sim.start(move |io| async move {
            to_value(session_created(&io, &st, Some(&src), &info, "hookwise", &cfg).await)
        })
    }

    fn transform(&mut self, id: Option<&str>, existing: &[&str], cfg: SessionConfig) -> u64 {
        let st = self.state.clone();
        let id = id.map(str::to_string);
        let existing: Vec<String> = existing.iter().map(|s| s.to_string()).collect();
        self.sim.start(move |io| async move {
            to_value(system_transform(&io, &st, id.as_deref(), &existing, &cfg).await)
        })
    }

    fn compact(&mut self, source: Option<Source>, id: &str, cfg: SessionConfig) -> u64 {
        let st = self.state.clone();
        let id = id.to_string();
        self.sim.start(move |io| async move {
            to_value(
                compaction(
                    &io,
                    &st,
                    source.as_ref(),
                    &id,
                    "hookwise",
                    1_771_445_585_000.0,
                    &cfg,
                )
                .await,
            )
        })
    }
}

#[path = "delivery_tests.rs"]
mod delivery;

#[path = "compaction_tests.rs"]
mod compaction_cases;

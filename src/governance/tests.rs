//! The operations driven end to end against the scripted host, and records checked against
//! the Agent Trace schema.

use serde_json::{json, Value};

use super::chain;
use super::ops::*;
use super::ranges::{content_hash, sha256_hex};
use super::trace::GENESIS;
use crate::protocol::Request;
use crate::testing::TestHost;

const WT: &str = "/w";
const YAML: &str = "\
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

/// The shared schema, vendored (CC BY 4.0, agent-trace.dev).
const SCHEMA: &str = include_str!("agent-trace-record-v0.1.0.schema.json");

fn project() -> TestHost {
    let mut fs = TestHost::default();
    fs.file("/w/.orchestration/active_intents.yaml", YAML);
    fs.dir("/w/src");
    fs
}

struct T {
    fs: TestHost,
    gov: Governance,
    calls: u32,
    /// Where relative paths start (empty: the worktree).
    dir: String,
}

impl T {
    fn new(fs: TestHost) -> T {
        T {
            fs,
            gov: Governance::default(),
            calls: 0,
            dir: String::new(),
        }
    }

    fn before(&mut self, session: &str, tool: &str, args: Value) -> GateOutput {
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

    fn after(&mut self, session: &str, tool: &str, args: Value) -> AfterOutput {
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
            failed: false,
        };
        let gov = self.gov.clone();
        self.fs
            .run(move |io| async move { tool_after(&io, &gov, &input).await })
    }

    /// before → (the tool runs: `apply`) → after, as a host does.
    fn call(
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

    fn select(&mut self, session: &str, id: &str) -> SelectOutput {
        let input = SelectInput {
            session_id: session.into(),
            intent_id: id.into(),
            worktree: WT.into(),
        };
        let gov = self.gov.clone();
        self.fs
            .run(move |io| async move { select_intent(&io, &gov, &input).await })
    }

    fn system(&mut self, session: &str) -> SystemOutput {
        let input = SystemInput {
            session_id: session.into(),
            worktree: WT.into(),
            model_id: None,
        };
        let gov = self.gov.clone();
        self.fs
            .run(move |io| async move { system_context(&io, &gov, &input).await })
    }

    fn verify(&mut self) -> VerifyOutput {
        let gov = self.gov.clone();
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

    fn trace_lines(&self) -> Vec<Value> {
        self.fs
            .read("/w/.orchestration/agent_trace.jsonl")
            .unwrap_or("")
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

// ---- a small JSON Schema checker for the keywords the Agent Trace schema uses ----

fn is_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|x| x.iter().all(u8::is_ascii_digit))
    };
    if b.len() < 20
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
    {
        return false;
    }
    if !matches!(b[10], b'T' | b't')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match b.get(i) {
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            i + 6 == b.len() && digits(i + 1..i + 3) && b[i + 3] == b':' && digits(i + 4..i + 6)
        }
        _ => false,
    }
}

fn check(root: &Value, schema: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    for (k, s) in obj {
        match k.as_str() {
            "$ref" => {
                let name = s
                    .as_str()
                    .unwrap()
                    .strip_prefix("#/$defs/")
                    .expect("local $ref");
                check(root, &root["$defs"][name], v, at, errs);
            }
            "type" => {
                let ok = match s.as_str().unwrap() {
                    "object" => v.is_object(),
                    "array" => v.is_array(),
                    "string" => v.is_string(),
                    "integer" => v.is_i64() || v.is_u64(),
                    t => panic!("type {t} not supported"),
                };
                if !ok {
                    errs.push(format!("{at}: not {s}"));
                }
            }
            "required" => {
                for r in s.as_array().unwrap() {
                    let r = r.as_str().unwrap();
                    if v.get(r).is_none() {
                        errs.push(format!("{at}: missing {r}"));
                    }
                }
            }
            "properties" => {
                for (p, ps) in s.as_object().unwrap() {
                    if let Some(x) = v.get(p) {
                        check(root, ps, x, &format!("{at}.{p}"), errs);
                    }
                }
            }
            "items" => {
                for (i, x) in v.as_array().into_iter().flatten().enumerate() {
                    check(root, s, x, &format!("{at}[{i}]"), errs);
                }
            }
            "enum" => {
                if !s.as_array().unwrap().contains(v) {
                    errs.push(format!("{at}: {v} not in {s}"));
                }
            }
            "minimum" => {
                if v.as_f64().is_some_and(|n| n < s.as_f64().unwrap()) {
                    errs.push(format!("{at}: below {s}"));
                }
            }
            "maxLength" => {
                if v.as_str()
                    .is_some_and(|x| x.chars().count() as u64 > s.as_u64().unwrap())
                {
                    errs.push(format!("{at}: longer than {s}"));
                }
            }
            "pattern" => {
                assert_eq!(
                    s, "^[0-9]+\\.[0-9]+\\.[0-9]+$",
                    "only the version pattern is supported"
                );
                let x = v.as_str().unwrap_or("");
                let parts: Vec<&str> = x.split('.').collect();
                if parts.len() != 3
                    || parts
                        .iter()
                        .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
                {
                    errs.push(format!("{at}: {x} does not match {s}"));
                }
            }
            "format" => {
                let x = v.as_str().unwrap_or("");
                let ok = match s.as_str().unwrap() {
                    "uuid" => is_uuid(x),
                    "date-time" => is_date_time(x),
                    "uri" => x.contains(':'),
                    f => panic!("format {f} not supported"),
                };
                if !ok {
                    errs.push(format!("{at}: {x} is not a {s}"));
                }
            }
            "$schema" | "$id" | "title" | "description" | "$defs" => {}
            other => panic!("schema keyword {other} not supported by the test checker"),
        }
    }
}

fn schema_errors(record: &Value) -> Vec<String> {
    let root: Value = serde_json::from_str(SCHEMA).unwrap();
    let mut errs = Vec::new();
    check(&root, &root, record, "$", &mut errs);
    errs
}

/// The vendored copy is the shared schema (checked wherever `shared/` sits beside the repo,
/// as in CI and the worktrees).
#[test]
fn vendored_schema_matches_the_shared_one() {
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/schemas/agent-trace-record-v0.1.0.schema.json");
    if let Ok(text) = std::fs::read_to_string(&shared) {
        assert_eq!(
            text,
            SCHEMA,
            "update src/governance/ from {}",
            shared.display()
        );
    }
    let v: Value = serde_json::from_str(SCHEMA).unwrap();
    assert_eq!(
        v["required"],
        json!(["version", "id", "timestamp", "files"])
    );
}

#[test]
fn the_checker_catches_bad_records() {
    assert!(is_date_time("2026-11-22T03:12:03.456Z") && is_date_time("2026-11-22T03:12:03+01:00"));
    assert!(!is_date_time("2026-11-22 03:12:03Z") && !is_date_time("2026-11-22T03:12:03.Z"));
    assert!(is_uuid("00010203-0405-4607-8809-0a0b0c0d0e0f") && !is_uuid("0001020304054607"));
    let bad = json!({"version": "1.0", "id": "x", "timestamp": "now",
        "files": [{"path": "a", "conversations": [{"contributor": {"type": "robot"}, "ranges": [{"start_line": 0, "end_line": 1}]}]}],
        "vcs": {"type": "cvs"}});
    let e = schema_errors(&bad);
    for frag in [
        "$.version",
        "$.id",
        "$.timestamp",
        "contributor.type",
        "start_line",
        "$.vcs: missing revision",
        "$.vcs.type",
    ] {
        assert!(
            e.iter().any(|x| x.contains(frag)),
            "{frag} not flagged in {e:?}"
        );
    }
    assert!(!schema_errors(&json!({"version": "0.1.0"})).is_empty());
}

// ---- the operations ----

#[test]
fn governance_off_changes_nothing() {
    let mut fs = TestHost::default();
    fs.dir("/w/src");
    let mut t = T::new(fs);
    let r = t
        .call(
            "s",
            "write",
            json!({"filePath": "/etc/x", "content": "x"}),
            |_| {},
        )
        .unwrap();
    assert_eq!(r, AfterOutput::default());
    assert_eq!(
        t.before("s", "bash", json!({"command": "rm -rf /"})),
        GateOutput::default()
    );
    assert!(t.system("s").system.is_empty());
    assert!(!t.select("s", "INT-1").ok);
    // only the intents file was looked at; nothing was written
    assert!(
        t.fs.log.iter().all(
            |r| matches!(r, Request::ReadFile { path, .. } | Request::Stat { path } if path.ends_with("active_intents.yaml"))
        ),
        "{:?}",
        t.fs.log
    );
    assert!(t.fs.read("/w/.orchestration/agent_trace.jsonl").is_none());
    // tools that are not watched do not even read it
    let n = t.fs.log.len();
    t.before("s", "grep", json!({"pattern": "x"}));
    assert_eq!(t.fs.log.len(), n);
    // the option can force it off with a yaml present
    let mut t = T::new(project());
    t.gov.set_config(GovConfig {
        enabled: Enabled::Off,
        ..GovConfig::default()
    });
    assert!(t
        .before("s", "write", json!({"filePath": "src/a"}))
        .block
        .is_none());
}

#[test]
fn no_intent_blocks_then_select_then_write_leaves_a_valid_record() {
    let mut t = T::new(project());
    let m = t
        .call(
            "s",
            "write",
            json!({"filePath": "src/a.ts", "content": "x"}),
            |_| {},
        )
        .unwrap_err();
    assert!(
        m.contains("select_active_intent")
            && m.contains("INT-1 (Auth)")
            && m.contains("INT-2 (Docs)"),
        "{m}"
    );
    assert!(!m.contains("INT-3"));
    let m = t
        .call("s", "bash", json!({"command": "ls"}), |_| {})
        .unwrap_err();
    assert!(m.contains("select_active_intent"));

    let r = t.select("s", "NOPE");
    assert!(
        !r.ok && r.text.contains("Unknown intent id 'NOPE'") && r.text.contains("INT-1"),
        "{}",
        r.text
    );
    let r = t.select("s", "INT-3");
    assert!(
        !r.ok && r.text.contains("COMPLETE") && r.text.contains("cannot be activated"),
        "{}",
        r.text
    );
    let r = t.select("s", "INT-1");
    assert!(r.ok, "{}", r.text);
    for frag in [
        "INT-1 — Auth",
        "- src/**",
        "- !src/secrets/** (excluded)",
        "Keep the public API",
        "Tests pass",
    ] {
        assert!(r.text.contains(frag), "{frag}: {}", r.text);
    }

    let content = "export function login() {\n  return true;\n}\n";
    let b = t.before(
        "s",
        "write",
        json!({"filePath": "src/a.ts", "content": content}),
    );
    assert_eq!((b.block.as_deref(), b.follow_up), (None, true));
    t.fs.file("/w/src/a.ts", content);
    let r = t.after(
        "s",
        "write",
        json!({"filePath": "src/a.ts", "content": content}),
    );
    assert!(r.recorded, "{r:?}");
    let lines = t.trace_lines();
    assert_eq!(lines.len(), 1);
    let rec = &lines[0];
    assert_eq!(schema_errors(rec), Vec::<String>::new());
    assert_eq!(rec["id"], r.id.unwrap());
    assert_eq!(rec["timestamp"], "2025-11-22T03:12:03.459Z");
    assert!(rec.get("vcs").is_none(), "no .git here");
    assert_eq!(
        rec["tool"],
        json!({"name": "hookwise", "version": env!("CARGO_PKG_VERSION")})
    );
    let f = &rec["files"][0];
    assert_eq!(f["path"], "src/a.ts");
    assert_eq!(
        f["conversations"][0]["contributor"],
        json!({"type": "ai", "model_id": "anthropic/claude-test"})
    );
    assert_eq!(
        f["conversations"][0]["ranges"],
        json!([{"start_line": 1, "end_line": 3, "content_hash": content_hash(&["export function login() {", "  return true;", "}"])}])
    );
    let meta = &rec["metadata"]["dev.hookwise"];
    assert_eq!(meta["intent_id"], "INT-1");
    assert_eq!(meta["mutation_class"], "INTENT_EVOLUTION");
    assert_eq!(meta["session_id"], "s");
    assert_eq!(meta["tool"], "write");
    assert_eq!(meta["prev_hash"], format!("sha256:{GENESIS}"));

    // an edit that keeps the symbols: AST_REFACTOR, the replaced region, chained
    let args = json!({"filePath": "src/a.ts", "oldString": "return true;", "newString": "// checked\n  return 1 === 1;"});
    let r = t
        .call("s", "edit", args, |fs| {
            fs.file(
                "/w/src/a.ts",
                "export function login() {\n  // checked\n  return 1 === 1;\n}\n",
            )
        })
        .unwrap();
    assert!(r.recorded);
    let lines = t.trace_lines();
    let rec = &lines[1];
    assert_eq!(schema_errors(rec), Vec::<String>::new());
    assert_eq!(
        rec["metadata"]["dev.hookwise"]["mutation_class"],
        "AST_REFACTOR"
    );
    let range = &rec["files"][0]["conversations"][0]["ranges"][0];
    assert_eq!(
        (range["start_line"].as_u64(), range["end_line"].as_u64()),
        (Some(2), Some(3))
    );
    let text =
        t.fs.read("/w/.orchestration/agent_trace.jsonl")
            .unwrap()
            .to_string();
    let first = text.lines().next().unwrap();
    assert_eq!(
        rec["metadata"]["dev.hookwise"]["prev_hash"],
        format!("sha256:{}", sha256_hex(first.as_bytes()))
    );
    let v = t.verify();
    assert!(v.report.ok && v.report.lines == 2, "{v:?}");
    // bash under an intent runs and leaves no record
    assert_eq!(
        t.call("s", "bash", json!({"command": "make"}), |_| {})
            .unwrap(),
        AfterOutput::default()
    );
    assert_eq!(t.trace_lines().len(), 2);
}

#[test]
fn out_of_scope_writes_and_patches_are_blocked() {
    let mut fs = project();
    fs.dir("/outside");
    fs.link("/w/src/out", "/outside");
    fs.file("/w/README.md", "hi\n");
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    let cases = [
        ("write", json!({"filePath": "README.md"}), "`README.md`"),
        (
            "write",
            json!({"filePath": "src/../README.md"}),
            "resolves to `README.md`",
        ),
        (
            "write",
            json!({"filePath": "/etc/passwd"}),
            "outside the worktree",
        ),
        (
            "write",
            json!({"filePath": "src/out/x.ts"}),
            "/outside/x.ts, outside the worktree",
        ),
        (
            "write",
            json!({"filePath": "src/secrets/key"}),
            "`src/secrets/key`",
        ),
        ("edit", json!({"filePath": "SRC/a.ts"}), "`SRC/a.ts`"),
        (
            "write",
            json!({"filePath": "src\\..\\README.md"}),
            "backslash",
        ),
        (
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Add File: src/ok.ts\n+x\n*** Update File: README.md\n@@\n-hi\n+ho\n*** End Patch"}),
            "`README.md`",
        ),
        (
            "apply_patch",
            json!({"patchText": "*** Update File: src/a.ts\n*** Move to: docs/a.ts\n"}),
            "`docs/a.ts`",
        ),
    ];
    for (tool, args, frag) in cases {
        let m = t.call("s", tool, args.clone(), |_| {}).unwrap_err();
        assert!(
            m.contains(frag) && m.contains("outside the scope of the active intent INT-1 (Auth)"),
            "{tool} {args}: {m}"
        );
        assert!(m.contains("src/**, !src/secrets/**"), "{m}");
    }
    assert!(t.trace_lines().is_empty());
    // the scope follows the session's choice
    t.select("s", "INT-2");
    assert!(t
        .call("s", "write", json!({"filePath": "docs/x.md"}), |fs| fs
            .file("/w/docs/x.md", "x"))
        .is_ok());
    assert!(t
        .call("s", "write", json!({"filePath": "src/a.ts"}), |_| {})
        .is_err());
}

#[test]
fn relative_paths_start_in_the_agents_directory() {
    let mut t = T::new(project());
    t.dir = "/w/src".into();
    t.select("s", "INT-1");
    t.call("s", "write", json!({"filePath": "a.ts"}), |fs| {
        fs.file("/w/src/a.ts", "a\n")
    })
    .unwrap();
    assert_eq!(t.trace_lines()[0]["files"][0]["path"], "src/a.ts");
    let m = t
        .call("s", "write", json!({"filePath": "../README.md"}), |_| {})
        .unwrap_err();
    assert!(m.contains("resolves to `README.md`"), "{m}");
}

#[test]
fn subagents_inherit_their_parents_intent() {
    let mut t = T::new(project());
    t.gov.session_created("parent", None);
    t.gov.session_created("child", Some("parent"));
    t.gov.session_created("grandchild", Some("child"));
    assert!(t
        .before("grandchild", "write", json!({"filePath": "src/a"}))
        .block
        .is_some());
    t.select("parent", "INT-1");
    assert_eq!(t.gov.active_intent("grandchild").as_deref(), Some("INT-1"));
    assert!(t
        .before("grandchild", "write", json!({"filePath": "src/a"}))
        .block
        .is_none());
    // a child's own choice wins for it (and its children), not for the parent
    t.select("child", "INT-2");
    assert_eq!(t.gov.active_intent("grandchild").as_deref(), Some("INT-2"));
    assert_eq!(t.gov.active_intent("parent").as_deref(), Some("INT-1"));
    assert!(t
        .before("other", "write", json!({"filePath": "src/a"}))
        .block
        .is_some());
    // a cycle does not hang
    t.gov.session_created("a", Some("b"));
    t.gov.session_created("b", Some("a"));
    assert_eq!(t.gov.active_intent("a"), None);
}

#[test]
fn stale_writes_are_blocked_until_reread() {
    let mut fs = project();
    fs.file("/w/src/a.ts", "v1\n");
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    t.select("other", "INT-1");
    t.before("s", "read", json!({"filePath": "src/a.ts"}));
    // another process changes the file
    t.fs.file("/w/src/a.ts", "v2 from elsewhere\n");
    let args = json!({"filePath": "src/a.ts", "oldString": "v1", "newString": "v3"});
    let m = t.call("s", "edit", args.clone(), |_| {}).unwrap_err();
    assert!(
        m.contains("`src/a.ts` has changed on disk since this session last read it")
            && m.contains("Read it again"),
        "{m}"
    );
    // a session that never read it is not blocked by this check
    assert!(t
        .before("other", "write", json!({"filePath": "src/a.ts"}))
        .block
        .is_none());
    // after reading again, the edit goes through; the session's own write keeps it current
    t.before("s", "read", json!({"filePath": "src/a.ts"}));
    let args = json!({"filePath": "src/a.ts", "oldString": "v2", "newString": "v3"});
    t.call("s", "edit", args, |fs| {
        fs.file("/w/src/a.ts", "v3 from elsewhere\n")
    })
    .unwrap();
    let args = json!({"filePath": "src/a.ts", "oldString": "v3", "newString": "v4"});
    t.call("s", "edit", args, |fs| {
        fs.file("/w/src/a.ts", "v4 from elsewhere\n")
    })
    .unwrap();
    // deleted since the read: stale too
    t.fs.files.remove("/w/src/a.ts");
    assert!(t
        .before("s", "write", json!({"filePath": "src/a.ts"}))
        .block
        .unwrap()
        .contains("changed on disk"));
    // the option turns the check off
    t.gov.set_config(GovConfig {
        stale_writes: false,
        ..GovConfig::default()
    });
    assert!(t
        .before("s", "write", json!({"filePath": "src/a.ts"}))
        .block
        .is_none());
}

#[test]
fn apply_patch_records_every_file_and_hunk() {
    let mut fs = project();
    fs.file(
        "/w/src/old.ts",
        "fn a() {}\nfn b() {\n  one();\n}\nfn c() {}\n",
    );
    fs.file("/w/src/gone.ts", "fn z() {}\n");
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    let patch = "*** Begin Patch
*** Add File: src/new.ts
+fn n() {}
+fn m() {}
*** Update File: src/old.ts
*** Move to: src/moved.ts
@@ fn b() {
 fn b() {
-  one();
+  two();
+  three();
 }
*** Delete File: src/gone.ts
*** End Patch";
    let r = t
        .call("s", "apply_patch", json!({"patchText": patch}), |fs| {
            fs.file("/w/src/new.ts", "fn n() {}\nfn m() {}\n");
            fs.files.remove("/w/src/old.ts");
            fs.file(
                "/w/src/moved.ts",
                "fn a() {}\nfn b() {\n  two();\n  three();\n}\nfn c() {}\n",
            );
            fs.files.remove("/w/src/gone.ts");
        })
        .unwrap();
    assert!(r.recorded, "{r:?}");
    let rec = &t.trace_lines()[0];
    assert_eq!(schema_errors(rec), Vec::<String>::new());
    let files: Vec<(String, Value)> = rec["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["conversations"][0]["ranges"].clone(),
            )
        })
        .collect();
    assert_eq!(files[0].0, "src/new.ts");
    assert_eq!(files[0].1[0]["end_line"], 2);
    assert_eq!(files[1].0, "src/moved.ts");
    assert_eq!(
        files[1].1,
        json!([{"start_line": 3, "end_line": 4, "content_hash": content_hash(&["  two();", "  three();"])}])
    );
    assert_eq!(files[2], ("src/gone.ts".to_string(), json!([])));
    assert_eq!(
        rec["metadata"]["dev.hookwise"]["mutation_class"],
        "INTENT_EVOLUTION"
    );
}

#[test]
fn system_prompt_block_before_and_after_selection() {
    let mut t = T::new(project());
    let s = t.system("s").system.join("");
    assert!(
        s.starts_with("<intent_context>") && s.ends_with("</intent_context>"),
        "{s}"
    );
    for frag in [
        "call the `select_active_intent` tool",
        "INT-1: Auth — scope: src/**, !src/secrets/**",
        "INT-2: Docs",
        "Not selectable:\n- INT-3: Billing (COMPLETE)",
    ] {
        assert!(s.contains(frag), "{frag}: {s}");
    }
    t.select("s", "INT-1");
    t.select("d", "INT-2");
    for i in 0..7 {
        let p = format!("src/f{i}.ts");
        t.call("s", "write", json!({"filePath": p, "content": "x"}), |fs| {
            fs.file(&format!("/w/{p}"), "x\n")
        })
        .unwrap();
    }
    t.call("d", "write", json!({"filePath": "docs/d.md"}), |fs| {
        fs.file("/w/docs/d.md", "d\n")
    })
    .unwrap();
    let s = t.system("s").system.join("");
    for frag in [
        "Active intent: INT-1 — Auth",
        "<owned_scope>\n- src/**\n- !src/secrets/** (excluded)\n</owned_scope>",
        "<constraints>\n- Keep the public API\n</constraints>",
        "<acceptance_criteria>\n- Tests pass\n</acceptance_criteria>",
    ] {
        assert!(s.contains(frag), "{frag}: {s}");
    }
    let recent = s
        .split("<recent_changes>")
        .nth(1)
        .unwrap()
        .split("</recent_changes>")
        .next()
        .unwrap();
    let lines: Vec<&str> = recent.trim().lines().collect();
    assert_eq!(lines.len(), 5, "{recent}");
    assert!(
        lines[0].contains("src/f2.ts (line 1)")
            && lines[4].contains("src/f6.ts")
            && lines[4].contains("write"),
        "{recent}"
    );
    assert!(!recent.contains("docs/d.md"));
    // the cache is refreshed when the file changes
    t.call("s", "write", json!({"filePath": "src/f9.ts"}), |fs| {
        fs.file("/w/src/f9.ts", "x\n")
    })
    .unwrap();
    assert!(t.system("s").system[0].contains("src/f9.ts"));
    let d = t.system("d").system.join("");
    assert!(d.contains("docs/d.md") && !d.contains("src/f6.ts"));
}

#[test]
fn the_intents_file_is_reread_and_its_problems_reach_the_model() {
    let mut t = T::new(project());
    t.select("s", "INT-1");
    // INT-1 completes: writes stop; the system prompt says so
    let done = YAML.replacen("status: IN_PROGRESS", "status: COMPLETE", 1);
    t.fs.file("/w/.orchestration/active_intents.yaml", &done);
    let m = t
        .before("s", "write", json!({"filePath": "src/a"}))
        .block
        .unwrap();
    assert!(
        m.contains("INT-1 is now COMPLETE") && m.contains("INT-2"),
        "{m}"
    );
    assert!(t.system("s").system[0].contains("The intent this session had, INT-1, is now COMPLETE"));
    // a new intent appears without a restart; a broken entry is reported with its line
    let more = format!("{YAML}  - id: INT-4\n    name: New\n    status: IN_PROGRESS\n    owned_scope: [new/**]\n  - id: BAD\n    status: WHATEVER\n    owned_scope: [x]\n");
    t.fs.file("/w/.orchestration/active_intents.yaml", &more);
    let r = t.select("s", "INT-4");
    assert!(r.ok, "{}", r.text);
    let b = t.before("s", "write", json!({"filePath": "new/a.ts"}));
    assert!(b.block.is_none() && b.follow_up);
    assert!(
        b.logs.is_empty(),
        "logged once, at the first read: {:?}",
        b.logs
    );
    t.fs.file("/w/new/a.ts", "a\n");
    let a = t.after("s", "write", json!({"filePath": "new/a.ts"}));
    let notice = a.mutations[0].append.as_deref().unwrap();
    assert!(
        notice.contains(
            ".orchestration/active_intents.yaml:21: error: intent BAD: unknown status 'WHATEVER'"
        ),
        "{notice}"
    );
    assert_eq!(
        a.mutations[0].path,
        vec![crate::protocol::PathKey::Key("output".into())]
    );
    // told once; the system prompt keeps listing it
    t.before("s", "write", json!({"filePath": "new/a.ts"}));
    assert!(t
        .after("s", "write", json!({"filePath": "new/a.ts"}))
        .mutations
        .is_empty());
    assert!(t.system("s").system[0].contains("unknown status 'WHATEVER'"));
    // blocks carry the problems
    let m = t
        .before("x", "write", json!({"filePath": "new/a.ts"}))
        .block
        .unwrap();
    assert!(m.contains("unknown status 'WHATEVER'"), "{m}");
}

#[test]
fn problems_are_logged_when_the_file_changes() {
    let mut fs = project();
    fs.file(
        "/w/.orchestration/active_intents.yaml",
        "active_intents:\n  - id: A\n    name: a\n    status: DONE\n    owned_scope: [a]\n",
    );
    let mut t = T::new(fs);
    let b = t.before("s", "write", json!({"filePath": "a"}));
    assert_eq!(b.logs.len(), 1);
    assert!(b.logs[0].message.contains(":4: error:"), "{:?}", b.logs);
    assert!(b
        .block
        .unwrap()
        .contains("no intent in .orchestration/active_intents.yaml is IN_PROGRESS"));
}

#[test]
fn init_scaffolds_once_and_never_overwrites() {
    let mut t = T::new(TestHost::default());
    let r = t.fs.run(|io| async move {
        init_scaffold(
            &io,
            &InitInput {
                worktree: WT.into(),
            },
        )
        .await
    });
    assert!(r.created, "{r:?}");
    assert_eq!(r.path, "/w/.orchestration/active_intents.yaml");
    let text = t.fs.read(&r.path).unwrap().to_string();
    let parsed = super::intents::parse("f", &text);
    assert!(
        parsed.intents.is_empty() && parsed.problems.is_empty(),
        "{parsed:?}"
    );
    // now governance is on, with nothing selectable
    let m = t
        .before("s", "write", json!({"filePath": "a"}))
        .block
        .unwrap();
    assert!(
        m.contains("no intent in .orchestration/active_intents.yaml is IN_PROGRESS"),
        "{m}"
    );
    t.fs.file(&r.path, YAML);
    let r = t.fs.run(|io| async move {
        init_scaffold(
            &io,
            &InitInput {
                worktree: WT.into(),
            },
        )
        .await
    });
    assert!(!r.created && r.message.contains("already exists"));
    assert_eq!(t.fs.read(&r.path), Some(YAML));
}

#[test]
fn forced_on_without_a_file_blocks_with_a_reason() {
    let mut fs = TestHost::default();
    fs.dir("/w");
    let mut t = T::new(fs);
    t.gov.set_config(GovConfig {
        enabled: Enabled::On,
        ..GovConfig::default()
    });
    let m = t
        .before("s", "write", json!({"filePath": "a"}))
        .block
        .unwrap();
    assert!(
        m.contains("does not exist") && m.contains("hookwise init"),
        "{m}"
    );
}

#[test]
fn a_failed_append_is_logged_and_never_fails_the_call_itself() {
    let mut t = T::new(project());
    t.select("s", "INT-1");
    t.fs.fail_append = true;
    let r = t
        .call("s", "write", json!({"filePath": "src/a"}), |fs| {
            fs.file("/w/src/a", "a\n")
        })
        .unwrap();
    assert!(!r.recorded);
    assert!(
        r.logs
            .iter()
            .any(|l| l.message.contains("could not append") && l.message.contains("EROFS")),
        "{r:?}"
    );
    t.fs.fail_append = false;
    // a blocked call that the host reports anyway leaves no record
    t.before("nobody", "write", json!({"filePath": "src/a"}));
    t.fs.file("/w/src/a", "changed\n");
    assert!(
        !t.after("nobody", "write", json!({"filePath": "src/a"}))
            .recorded
    );
    // without tool.before (a host that only reports after), the change is still recorded,
    // after the record that failed earlier (kept, not lost: see trace_io_tests)
    t.calls += 1;
    t.fs.file("/w/src/a", "a\n");
    let r = t.after("s", "write", json!({"filePath": "src/a"}));
    assert!(r.recorded, "{r:?}");
    assert_eq!(t.trace_lines().len(), 2);
    // a failed tool or a no-op change leaves no record
    t.before("s", "write", json!({"filePath": "src/a"}));
    t.fs.file("/w/src/a", "half-written\n");
    let input = AfterInput {
        tool: "write".into(),
        session_id: "s".into(),
        call_id: format!("call{}", t.calls),
        args: json!({"filePath": "src/a"}),
        worktree: WT.into(),
        failed: true,
        ..AfterInput::default()
    };
    let gov = t.gov.clone();
    let r =
        t.fs.run(move |io| async move { tool_after(&io, &gov, &input).await });
    assert!(!r.recorded);
    assert_eq!(t.trace_lines().len(), 2);
    t.before("s", "read", json!({"filePath": "src/a"}));
    t.before("s", "write", json!({"filePath": "src/a"}));
    let r = t.after("s", "write", json!({"filePath": "src/a"}));
    assert!(
        !r.recorded && r.logs[0].message.contains("changed nothing"),
        "{r:?}"
    );
}

/// Records appended concurrently (answered in any order) still form one valid chain: the
/// previous line's hash is taken by the host at append time, not by the core.
#[test]
fn concurrent_appends_keep_one_chain() {
    let mut fs = project();
    for i in 0..6 {
        fs.file(&format!("/w/src/f{i}"), &format!("{i}\n"));
    }
    fs.shuffle_seed = 0x5eed;
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    let gov = t.gov.clone();
    let ids = t.fs.run(move |io| async move {
        let inputs: Vec<AfterInput> = (0..6)
            .map(|i| AfterInput {
                tool: "write".into(),
                session_id: "s".into(),
                call_id: format!("c{i}"),
                args: json!({ "filePath": format!("src/f{i}") }),
                worktree: WT.into(),
                random: format!("{i:032x}"),
                ..AfterInput::default()
            })
            .collect();
        let outs =
            crate::runtime::join_all(inputs.iter().map(|x| tool_after(&io, &gov, x)).collect())
                .await;
        outs.into_iter().map(|o| o.id).collect::<Vec<_>>()
    });
    assert!(ids.iter().all(Option::is_some));
    let lines = t.trace_lines();
    assert_eq!(lines.len(), 6);
    // appended in another order than the calls were made, and still one chain
    let order: Vec<&str> = lines
        .iter()
        .map(|l| l["metadata"]["dev.hookwise"]["call_id"].as_str().unwrap())
        .collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["c0", "c1", "c2", "c3", "c4", "c5"]);
    assert_ne!(
        order, sorted,
        "the host answered in call order; the test proves nothing"
    );
    let v = t.verify();
    assert!(v.report.ok, "{v:?}");
}

#[test]
fn verify_reports_tampering_and_truncation() {
    let mut t = T::new(project());
    t.select("s", "INT-1");
    for i in 0..4 {
        let p = format!("src/f{i}");
        t.call("s", "write", json!({"filePath": p}), |fs| {
            fs.file(&format!("/w/{p}"), "x\n")
        })
        .unwrap();
    }
    assert!(t.verify().report.ok);
    let path = "/w/.orchestration/agent_trace.jsonl";
    let orig = t.fs.read(path).unwrap().to_string();
    let lines: Vec<&str> = orig.lines().collect();
    // edited
    let edited = orig.replacen("src/f1", "src/fX", 1);
    t.fs.file(path, &edited);
    let v = t.verify();
    assert!(
        !v.report.ok
            && v.report.problems[0].line == 3
            && v.report.problems[0].kind == "broken-link",
        "{v:?}"
    );
    // truncated at the end: the chain is valid, but this process remembers its last line,
    // and the head says how long the log was
    t.fs.file(path, &format!("{}\n", lines[..3].join("\n")));
    let v = t.verify();
    assert_eq!(
        v.report.problems.iter().map(|p| p.kind).collect::<Vec<_>>(),
        vec!["truncated", "cut"]
    );
    // a fresh process knows it from the head alone
    let fresh = Governance::default();
    let v = t.fs.run(move |io| async move {
        trace_verify(
            &io,
            &fresh,
            &VerifyInput {
                worktree: WT.into(),
                ..Default::default()
            },
        )
        .await
    });
    assert!(!v.report.ok && v.report.lines == 3);
    assert_eq!(v.report.problems[0].kind, "cut");
    let j = serde_json::to_value(&v).unwrap();
    assert_eq!(j["path"], path);
    assert!(j["head"].as_str().unwrap().starts_with("sha256:"));
    // no trace yet: fine
    t.fs.files.remove(path);
    t.fs.files.remove("/w/.orchestration/agent_trace.head");
    let fresh = Governance::default();
    let v = t.fs.run(move |io| async move {
        trace_verify(
            &io,
            &fresh,
            &VerifyInput {
                worktree: WT.into(),
                ..Default::default()
            },
        )
        .await
    });
    assert!(v.report.ok && v.report.lines == 0 && v.error.is_none());
    let _ = chain::verify("");
}

#[test]
fn records_carry_git_head_when_there_is_a_repository() {
    let mut fs = project();
    fs.file("/w/.git/HEAD", "ref: refs/heads/main\n");
    fs.file(
        "/w/.git/refs/heads/main",
        "0123456789abcdef0123456789abcdef01234567\n",
    );
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    t.call("s", "write", json!({"filePath": "src/a"}), |fs| {
        fs.file("/w/src/a", "a\n")
    })
    .unwrap();
    let rec = &t.trace_lines()[0];
    assert_eq!(
        rec["vcs"],
        json!({"type": "git", "revision": "0123456789abcdef0123456789abcdef01234567"})
    );
    assert_eq!(schema_errors(rec), Vec::<String>::new());
}

#[test]
fn roo_tool_names_and_arguments_are_recorded() {
    let mut fs = project();
    fs.file("/w/src/r.ts", "const a = 1;\nconst b = 2;\n");
    let mut t = T::new(fs);
    t.select("s", "INT-1");
    t.call(
        "s",
        "write_to_file",
        json!({"path": "src/w.ts", "content": "w\n"}),
        |fs| fs.file("/w/src/w.ts", "w\n"),
    )
    .unwrap();
    t.call(
        "s",
        "search_replace",
        json!({"file_path": "src/r.ts", "old_string": "2", "new_string": "3"}),
        |fs| fs.file("/w/src/r.ts", "const a = 1;\nconst b = 3;\n"),
    )
    .unwrap();
    t.call(
        "s",
        "apply_diff",
        json!({"path": "src/r.ts", "diff": "..."}),
        |fs| fs.file("/w/src/r.ts", "const a = 1;\nconst b = 3;\nconst c = 4;\n"),
    )
    .unwrap();
    let recs = t.trace_lines();
    assert_eq!(recs.len(), 3);
    let span = |r: &Value| {
        let x = &r["files"][0]["conversations"][0]["ranges"][0];
        (
            x["start_line"].as_u64().unwrap(),
            x["end_line"].as_u64().unwrap(),
        )
    };
    assert_eq!(span(&recs[1]), (2, 2));
    assert_eq!(
        recs[1]["metadata"]["dev.hookwise"]["mutation_class"],
        "AST_REFACTOR"
    );
    assert_eq!(span(&recs[2]), (3, 3));
    assert_eq!(
        recs[2]["metadata"]["dev.hookwise"]["mutation_class"],
        "INTENT_EVOLUTION"
    );
    for r in &recs {
        assert_eq!(schema_errors(r), Vec::<String>::new());
    }
    assert!(t.verify().report.ok);
}

/// OpenClaw's tools as its gateway sends them (openclaw 2026.9.6): `write {path, content}`,
/// `edit {path, edits: [{oldText, newText}]}`, `exec {command}`, `apply_patch {input}`.
#[test]
fn openclaw_tool_names_and_arguments_are_gated_and_recorded() {
    let mut fs = project();
    fs.file(
        "/w/src/r.ts",
        "const a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\n",
    );
    let mut t = T::new(fs);
    t.gov
        .set_config(GovConfig::for_host(&crate::host::profiles::OPENCLAW));
    // no intent yet: exec and write are blocked alike
    let m = t
        .before("s", "exec", json!({"command": "ls"}))
        .block
        .unwrap();
    assert!(m.contains("select_active_intent"), "{m}");
    t.select("s", "INT-1");
    assert!(t
        .before("s", "exec", json!({"command": "ls"}))
        .block
        .is_none());
    let m = t
        .call(
            "s",
            "write",
            json!({"path": "docs/x.md", "content": "x\n"}),
            |_| {},
        )
        .unwrap_err();
    assert!(m.contains("`docs/x.md`"), "{m}");
    t.call(
        "s",
        "write",
        json!({"path": "src/w.ts", "content": "w\n"}),
        |fs| fs.file("/w/src/w.ts", "w\n"),
    )
    .unwrap();
    // one replacement: located like an OpenCode edit
    t.call(
        "s",
        "edit",
        json!({"path": "src/r.ts", "edits": [{"oldText": "b = 2", "newText": "b = 20"}]}),
        |fs| {
            fs.file(
                "/w/src/r.ts",
                "const a = 1;\nconst b = 20;\nconst c = 3;\nconst d = 4;\n",
            )
        },
    )
    .unwrap();
    // two replacements: each new text where it landed
    t.call(
        "s",
        "edit",
        json!({"path": "src/r.ts", "edits": [
            {"oldText": "a = 1", "newText": "a = 10"},
            {"oldText": "d = 4", "newText": "d = 40"}
        ]}),
        |fs| {
            fs.file(
                "/w/src/r.ts",
                "const a = 10;\nconst b = 20;\nconst c = 3;\nconst d = 40;\n",
            )
        },
    )
    .unwrap();
    t.call(
        "s",
        "apply_patch",
        json!({"input": "*** Begin Patch\n*** Add File: src/p.ts\n+p\n*** End Patch"}),
        |fs| fs.file("/w/src/p.ts", "p\n"),
    )
    .unwrap();
    let recs = t.trace_lines();
    assert_eq!(recs.len(), 4, "{recs:?}");
    let spans = |r: &Value| -> Vec<(u64, u64)> {
        r["files"][0]["conversations"][0]["ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x["start_line"].as_u64().unwrap(),
                    x["end_line"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(recs[0]["files"][0]["path"], "src/w.ts");
    assert_eq!(spans(&recs[1]), vec![(2, 2)]);
    assert_eq!(spans(&recs[2]), vec![(1, 1), (4, 4)]);
    assert_eq!(recs[3]["files"][0]["path"], "src/p.ts");
    for r in &recs {
        assert_eq!(schema_errors(r), Vec::<String>::new());
    }
    assert!(t.verify().report.ok);
}

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
    let mutating: Vec<String> = crate::host::default_profile().mutating();
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
            host: crate::host::default_profile(),
            mutating: &mutating,
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

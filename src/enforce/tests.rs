//! The operations driven by a scripted host with a virtual clock: every request gets a due
//! time (a slow source answers late, a hung one never), the host answers in due order, and
//! cancelled requests are dropped — so deadlines are exact and tests are deterministic.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::*;
use crate::knowledge::Source;
use crate::protocol::Request;
use crate::testing::procs::Proc;
use crate::testing::TestHost;

pub(crate) const ROOT: &str = "/w/shop";

pub(crate) const FORCE_SOP: &str = "---\nid: git-force-push\ncategory: process\nmatch:\n  tools: [bash]\n  patterns: ['git\\s+push\\s.*(--force|-f\\b)']\n---\n# Force-pushing\n\n## Preflight\n1. Announce it in the team channel.\n2. Run `git fetch` and compare with the remote first.\n\n## Rollback\nThe old head is in the reflog of the server.\n";

pub(crate) const NGINX_SOP: &str = "meta:\n  id: nginx\n  category: technical\n  service: nginx\ngotchas:\n  - reload keeps connections, restart drops them\n";

/// What a scripted maenifold CLI answers an argv with: `(ms, stdout)`, or `None`: never.
type SpawnFn = Box<dyn Fn(&[String]) -> Option<(f64, String)>>;

/// The test host (`crate::testing`) with a project at [`ROOT`], and the enforcer's calls.
pub(crate) struct Host {
    pub host: TestHost,
    pub spawn: SpawnFn,
}

impl std::ops::Deref for Host {
    type Target = TestHost;
    fn deref(&self) -> &TestHost {
        &self.host
    }
}

impl std::ops::DerefMut for Host {
    fn deref_mut(&mut self) -> &mut TestHost {
        &mut self.host
    }
}

impl Host {
    pub fn new() -> Host {
        Host {
            host: TestHost::default(),
            spawn: Box::new(|_| None),
        }
    }

    /// A file of the project, modified now.
    pub fn file(&mut self, rel: &str, text: &str) {
        let t = self.host.now;
        self.host.file_at(&join(ROOT, rel), text, t);
    }

    pub fn text(&self, rel: &str) -> Option<&str> {
        self.host.read(&join(ROOT, rel))
    }

    /// The metrics log, checked as `hookwise metrics --verify` checks it (with the state).
    pub fn verified_metrics(&self) -> String {
        let m = self
            .text(".opencode/hookwise/metrics.jsonl")
            .unwrap()
            .to_string();
        let (ok, report) = cli_metrics_verify(&m, self.text(".opencode/hookwise/state.json"));
        assert!(ok, "{report}");
        m
    }

    /// Run one operation to its end; returns its result and the virtual time it took.
    pub fn run<F, Fut>(&mut self, make: F) -> (Value, f64)
    where
        F: FnOnce(Io) -> Fut,
        Fut: Future<Output = Value> + 'static,
    {
        let start = self.host.now;
        let spawn = std::rc::Rc::new(std::mem::replace(&mut self.spawn, Box::new(|_| None)));
        let cli = spawn.clone();
        self.host.procs = Some(Box::new(move |argv: &[String]| match cli(argv) {
            Some((ms, stdout)) => Proc::Exit { ms, stdout },
            None => Proc::Never,
        }));
        let result = crate::testing::run(&mut self.host, make);
        self.host.procs = None;
        self.spawn = std::rc::Rc::try_unwrap(spawn)
            .ok()
            .expect("the host's only");
        (result, self.host.now - start)
    }

    pub fn load(&mut self, options: Value) -> LoadedConfig {
        let slot = std::rc::Rc::new(RefCell::new(None));
        let s2 = slot.clone();
        self.run(move |io| async move {
            *s2.borrow_mut() = Some(load_config(&io, ROOT, &options).await);
            Value::Null
        });
        let c = slot.borrow_mut().take();
        c.expect("loaded")
    }

    pub fn start(
        &mut self,
        settings: Settings,
        env: &[(&str, &str)],
        memory: Option<MemorySource>,
    ) -> (Enforcer, Vec<Log>) {
        let env: BTreeMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let slot = std::rc::Rc::new(RefCell::new(None));
        let s2 = slot.clone();
        self.run(move |io| async move {
            *s2.borrow_mut() = Some(Enforcer::start(&io, settings, ROOT, &env, memory).await);
            Value::Null
        });
        let r = slot.borrow_mut().take();
        r.expect("started")
    }

    /// `tool.before` in session "s".
    pub fn before(&mut self, e: &Enforcer, tool: &str, args: Value) -> (Value, f64) {
        self.before_in(e, "s", tool, args)
    }

    pub fn before_in(
        &mut self,
        e: &Enforcer,
        session: &str,
        tool: &str,
        args: Value,
    ) -> (Value, f64) {
        let e = e.clone();
        let tool = tool.to_string();
        let session = session.to_string();
        self.run(move |io| async move {
            serde_json::to_value(e.before(&io, &tool, &session, &args).await).unwrap()
        })
    }
}

fn bash(cmd: &str) -> Value {
    json!({"command": cmd, "description": "d"})
}

fn cli() -> MemorySource {
    MemorySource::Maenifold(Source::Cli {
        path: "/bin/maenifold".into(),
        timeout_ms: 5000,
        max_bytes: 1 << 20,
    })
}

fn search_reply(results: Value) -> String {
    json!({"success": true, "data": {"mode": "Hybrid", "query": "q", "totalCount": 1, "results": results}, "error": null}).to_string()
}

fn messages(d: &Value) -> Vec<String> {
    d["logs"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|l| {
                    format!(
                        "{}: {}",
                        l["level"].as_str().unwrap(),
                        l["message"].as_str().unwrap()
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn with_sops() -> Host {
    let mut h = Host::new();
    h.file(".opencode/sops/git/force.md", FORCE_SOP);
    h.file(".opencode/sops/nginx.ai.sop", NGINX_SOP);
    h
}

#[test]
fn force_push_is_blocked_once_then_the_retry_runs() {
    let mut h = with_sops();
    let (e, logs) = h.start(Settings::default(), &[], None);
    assert!(
        logs.iter()
            .any(|l| l.message.contains("level category, 2 SOP(s)")),
        "{logs:?}"
    );

    let (d, _) = h.before(&e, "bash", bash("git push --force origin main"));
    assert_eq!(d["decision"], "block");
    let block = d["block"].as_str().unwrap();
    assert!(
        block.contains("Detected: bash `git push --force`"),
        "{block}"
    );
    assert!(block.contains("Announce it in the team channel"));
    assert!(block.contains("The old head is in the reflog"));
    assert!(block.contains("retry the same call unchanged"));
    assert!(block.chars().count() <= 4000);
    assert_eq!(d["sops"], json!(["git-force-push"]));
    assert_eq!(d["detected"]["risk"], "high");

    let (d2, _) = h.before(&e, "bash", bash("git push --force origin main"));
    assert_eq!(d2["decision"], "acknowledged");
    assert_eq!(d2["cooldownHit"], true);
    assert!(d2.get("block").is_none());

    // metrics: two chained lines; the state file holds the cooldown and the head
    let m = h
        .text(".opencode/hookwise/metrics.jsonl")
        .unwrap()
        .to_string();
    assert_eq!(m.lines().count(), 2);
    let state = h.text(".opencode/hookwise/state.json").unwrap().to_string();
    let (ok, report) = cli_metrics_verify(&m, Some(&state));
    assert!(ok, "{report}");
    assert!(state.contains("\"v2|block|bash|git-force-push|"), "{state}");
    let summary = cli_metrics_summary(&m);
    assert!(
        summary.contains("block: 1") && summary.contains("acknowledged: 1"),
        "{summary}"
    );
}

#[test]
fn the_cooldown_survives_a_restart() {
    let mut h = with_sops();
    let (e, _) = h.start(Settings::default(), &[], None);
    assert_eq!(
        h.before(&e, "bash", bash("git push -f")).0["decision"].clone(),
        "block"
    );
    drop(e);
    h.now += 60_000.0;
    let (e2, _) = h.start(Settings::default(), &[], None);
    let (d, _) = h.before(&e2, "bash", bash("git push -f"));
    assert_eq!(d["decision"], "acknowledged");
    // and the metrics chain continued across the restart
    let m = h.verified_metrics();
    assert_eq!(m.lines().count(), 2);
}

#[test]
fn read_only_calls_take_the_fast_path_without_io() {
    let mut h = with_sops();
    let (e, _) = h.start(Settings::default(), &[], Some(cli()));
    let before = h.log.len();
    for cmd in [
        "git status",
        "ls -la && cat README.md",
        "git log --oneline | head -5",
        "kubectl get pods",
    ] {
        let (d, t) = h.before(&e, "bash", bash(cmd));
        assert_eq!(d["decision"], "readOnly", "{cmd}");
        assert_eq!(t, 0.0);
    }
    let (d, _) = h.before(&e, "read", json!({"filePath": "/etc/hosts"}));
    assert_eq!(d["decision"], "readOnly");
    assert_eq!(h.log.len(), before, "no host request at all");
    assert!(h.text(".opencode/hookwise/metrics.jsonl").is_none());
}

#[test]
fn advisory_runs_with_the_knowledge_as_advice() {
    let mut h = with_sops();
    let s = Settings {
        level: Level::Advisory,
        ..Settings::default()
    };
    let (e, _) = h.start(s, &[], None);
    let (d, _) = h.before(&e, "bash", bash("git push --force"));
    assert_eq!(d["decision"], "advise");
    assert!(d.get("block").is_none());
    let advice = d["advice"].as_str().unwrap();
    assert!(advice.starts_with("hookwise advisory (the call runs as is)"));
    assert!(advice.contains("Announce it in the team channel"));
    // a technical SOP under category level also advises
    let (e, _) = h.start(Settings::default(), &[], None);
    let (d, _) = h.before(&e, "bash", bash("sudo systemctl restart nginx"));
    assert_eq!(d["decision"], "advise", "{d}");
    assert!(d["advice"]
        .as_str()
        .unwrap()
        .contains("reload keeps connections"));
    // and once per cooldown window
    let (d, _) = h.before(&e, "bash", bash("sudo systemctl restart nginx"));
    assert_eq!(
        (d["decision"].as_str(), d["cooldownHit"].as_bool()),
        (Some("allow"), Some(true))
    );
}

#[test]
fn the_deadline_is_honoured_against_a_slow_memory_source() {
    let mut h = with_sops();
    h.spawn = Box::new(|_| Some((2000.0, search_reply(json!([])))));
    let (e, _) = h.start(Settings::default(), &[], Some(cli()));
    h.now += 5000.0; // the SOP cache is due for a refresh too
    let (d, took) = h.before(&e, "bash", bash("git push --force"));
    assert!(took <= 150.0 + 1e-9, "took {took} ms");
    assert_eq!(d["timedOut"], true);
    assert_eq!(d["decision"], "block", "decided on the SOPs in hand");
    assert!((d["lookupMs"].as_f64().unwrap() - 150.0).abs() < 1e-9);
    let spawn_ids: Vec<usize> = h
        .log
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, Request::Spawn { .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(spawn_ids.len(), 1);
    assert!(!h.cancelled.is_empty(), "the slow search is cancelled");
    let logs = messages(&d);
    assert!(
        logs.iter()
            .any(|l| l.starts_with("warn: memory search did not finish within the 150 ms")),
        "{logs:?}"
    );
    // the second time it is a debug line, not another warning
    let (d, _) = h.before(&e, "bash", bash("git push --force origin other"));
    assert!(
        messages(&d).iter().all(|l| !l.starts_with("warn")),
        "{:?}",
        messages(&d)
    );
}

#[test]
fn memories_found_in_time_take_part() {
    let mut h = Host::new();
    h.spawn = Box::new(|argv| {
        assert_eq!(argv[2], "SearchMemories");
        assert_eq!(argv.last().unwrap(), "--json");
        let p: Value = serde_json::from_str(&argv[4]).unwrap();
        assert_eq!(p["mode"], "Hybrid");
        assert!(p["query"].as_str().unwrap().starts_with("psql"), "{p}");
        Some((
            20.0,
            search_reply(json!([
                {"title": "Prod DB access", "path": "memory://security/prod-db", "fusedScore": 0.03, "textScore": 0.4, "semanticScore": 0.82, "snippet": "Use the bastion; never connect directly."},
                {"title": "Pool sizes", "path": "memory://technical/pools", "fusedScore": 0.02, "textScore": 0.6, "semanticScore": 0.1, "snippet": "max 20"}
            ])),
        ))
    });
    let (e, _) = h.start(Settings::default(), &[], Some(cli()));
    let (d, took) = h.before(&e, "bash", bash("psql -h db.prod.internal -U app shop"));
    assert_eq!(took, 20.0);
    assert_eq!(d["decision"], "block");
    assert_eq!(d["memories"], 2);
    assert_eq!(d["categories"], json!(["security", "technical"]));
    let block = d["block"].as_str().unwrap();
    assert!(
        block.contains(
            "- security (0.82) Prod DB access — memory://security/prod-db: Use the bastion"
        ),
        "{block}"
    );
    assert!(block.contains("- technical (0.60) Pool sizes"));
    // low-risk calls do not search memories
    let n = h.log.len();
    let (d, _) = h.before(&e, "bash", bash("npm test"));
    assert_eq!(d["decision"], "allow");
    assert!(!h.log[n..]
        .iter()
        .any(|r| matches!(r, Request::Spawn { .. })));
}

#[test]
fn every_fault_fails_open_with_one_warning() {
    // the listing fails, reads fail, writes fail, the CLI errors
    let mut h = with_sops();
    h.faults.list_error = Some("EACCES: permission denied".into());
    h.faults.write_error = Some("EROFS: read-only file system".into());
    h.spawn = Box::new(|_| Some((1.0, "ERROR: database is locked".into())));
    let (e, logs) = h.start(Settings::default(), &[], Some(cli()));
    assert!(
        logs.iter()
            .any(|l| l.message.contains("could not be listed: EACCES")),
        "{logs:?}"
    );
    let (d, _) = h.before(&e, "bash", bash("git push --force"));
    assert_eq!(d["decision"], "allow", "no SOPs in hand: the call runs");
    let logs = messages(&d);
    assert!(
        logs.iter().any(
            |l| l.starts_with("warn: memory search failed") && l.contains("database is locked")
        ),
        "{logs:?}"
    );
    assert!(
        logs.iter()
            .any(|l| l.starts_with("warn: could not write the metrics file")),
        "{logs:?}"
    );
    assert!(
        logs.iter()
            .any(|l| l.starts_with("warn: could not write the state file")),
        "{logs:?}"
    );
    let (d, _) = h.before(&e, "bash", bash("git push --force"));
    assert!(
        messages(&d).iter().all(|l| !l.starts_with("warn")),
        "warned once: {:?}",
        messages(&d)
    );

    // garbage replies everywhere
    let mut h = with_sops();
    h.faults.garbage = true;
    let (e, _) = h.start(Settings::default(), &[], Some(cli()));
    let (d, _) = h.before(&e, "bash", bash("git push --force && rm -rf /"));
    assert_eq!(d["decision"], "allow");
    assert_eq!(d["detected"]["risk"], "critical");

    // unreadable SOP files
    let mut h = with_sops();
    h.faults.read_error = Some("not-utf8".into());
    let (e, logs) = h.start(Settings::default(), &[], None);
    assert!(
        logs.iter().any(|l| l
            .message
            .contains("SOP .opencode/sops/git/force.md skipped: could not be read: not-utf8")),
        "{logs:?}"
    );
    assert_eq!(
        h.before(&e, "bash", bash("git push -f")).0["decision"].clone(),
        "allow"
    );

    // a hung SOP listing: the deadline holds and the cached SOPs decide
    let mut h = with_sops();
    let (e, _) = h.start(Settings::default(), &[], None);
    h.now += 10_000.0;
    h.faults.hang_list = true;
    let (d, took) = h.before(&e, "bash", bash("git push -f"));
    assert_eq!(took, 150.0);
    assert_eq!(d["decision"], "block");
    assert_eq!(d["timedOut"], true);
}

#[test]
fn a_broken_sop_is_skipped_with_its_name_and_the_rest_work() {
    let mut h = with_sops();
    h.file(
        ".opencode/sops/broken.md",
        "---\npatterns: ['(unclosed']\n---\n",
    );
    h.file(".opencode/sops/notes.txt", "not an SOP");
    h.file(".opencode/sops/README.md", "# About these SOPs");
    let (e, logs) = h.start(Settings::default(), &[], None);
    let warns: Vec<&Log> = logs
        .iter()
        .filter(|l| l.level == crate::protocol::Level::Warn)
        .collect();
    assert_eq!(warns.len(), 1, "{logs:?}");
    assert!(warns[0].message.starts_with(
        "SOP .opencode/sops/broken.md skipped: pattern 1 ('(unclosed') is not a valid regex"
    ));
    assert_eq!(e.sop_cache().borrow().len(), 2);
    assert_eq!(
        h.before(&e, "bash", bash("git push -f")).0["decision"].clone(),
        "block"
    );
}

#[test]
fn the_sop_cache_reparses_only_what_changed() {
    let mut h = with_sops();
    let (e, _) = h.start(Settings::default(), &[], None);
    let parsed = e.sop_cache().borrow().parsed;
    assert_eq!(parsed, 2);
    let reads = |h: &Host| {
        h.log
            .iter()
            .filter(|r| matches!(r, Request::ReadFile { path, .. } if path.contains("/sops/")))
            .count()
    };
    let r0 = reads(&h);
    // within the refresh interval: not even listed
    let lists = h
        .log
        .iter()
        .filter(|r| matches!(r, Request::ListDir { .. }))
        .count();
    h.before(&e, "bash", bash("npm run build"));
    assert_eq!(
        h.log
            .iter()
            .filter(|r| matches!(r, Request::ListDir { .. }))
            .count(),
        lists
    );
    // later: listed again, nothing re-read
    h.now += 2000.0;
    h.before(&e, "bash", bash("npm run build"));
    assert_eq!(reads(&h), r0);
    // a changed file is re-read and the change applies
    h.now += 2000.0;
    h.file(
        ".opencode/sops/git/force.md",
        &FORCE_SOP.replace("Announce it", "Ask the lead"),
    );
    let (d, _) = h.before(&e, "bash", bash("git push -f"));
    assert_eq!(reads(&h), r0 + 1);
    assert!(d["block"].as_str().unwrap().contains("Ask the lead"));
    // a deleted file is forgotten
    h.now += 2000.0;
    h.files.remove(&join(ROOT, ".opencode/sops/git/force.md"));
    let (d, _) = h.before(&e, "bash", bash("git push -f origin x"));
    assert_eq!(d["decision"], "allow");
}

#[test]
fn bypass_is_loud_and_blocks_nothing() {
    let mut h = with_sops();
    let (e, logs) = h.start(Settings::default(), &[("HOOKWISE_BYPASS", "1")], None);
    assert!(logs.iter().any(|l| l.level == crate::protocol::Level::Warn
        && l.message
            .starts_with("EMERGENCY BYPASS IS ON (HOOKWISE_BYPASS=1)")));
    let (d, _) = h.before(&e, "bash", bash("git push --force"));
    assert_eq!(d["decision"], "bypass");
    assert_eq!(d["bypass"], true);
    assert!(d["advice"].as_str().unwrap().contains("Announce it"));
    assert!(messages(&d).iter().any(|l| l.starts_with("warn: BYPASS (HOOKWISE_BYPASS=1): bash `git push --force` would have been blocked by git-force-push")));
    let m = h.text(".opencode/hookwise/metrics.jsonl").unwrap();
    assert!(m.contains("\"decision\":\"bypass\"") && m.contains("\"bypass\":true"));
    // the option works too
    let s = Settings {
        bypass: true,
        ..Settings::default()
    };
    let (e, _) = h.start(s, &[], None);
    assert_eq!(
        h.before(&e, "bash", bash("git push --force x")).0["decision"].clone(),
        "bypass"
    );
}

#[test]
fn disabled_does_nothing() {
    let mut h = with_sops();
    let s = Settings {
        level: Level::Disabled,
        ..Settings::default()
    };
    let (e, _) = h.start(s, &[], Some(cli()));
    assert!(h.log.is_empty(), "no I/O at start");
    let (d, _) = h.before(&e, "bash", bash("rm -rf /"));
    assert_eq!(d["decision"], "disabled");
    assert!(h.log.is_empty());
}

#[test]
fn config_file_and_options_are_validated_and_merged() {
    let mut h = Host::new();
    h.file(
        ".opencode/hookwise.json",
        r#"{"cliPath": "/opt/m", "enforcement": {"level": "strict", "deadlineMs": 250, "cooldownMs": "soon", "riskPatterns": [{"pattern": "^make deploy", "level": "critical"}], "sopFolders": ["ops/sops"]}}"#,
    );
    let c = h.load(json!({"maxConcepts": 3, "enforcement": {"level": "advisory", "prodHosts": ["[x"]}, "typo": 1}));
    let issues: Vec<String> = c.issues.iter().map(|i| i.to_string()).collect();
    assert_eq!(
        issues,
        vec![
            ".opencode/hookwise.json: 'enforcement.cooldownMs' must be an integer, got a string (\"soon\")".to_string(),
            "plugin options: 'enforcement.prodHosts[0]' is not a valid regex ([x): non-empty character class has no closing bracket".to_string(),
            "plugin options: 'typo' is not a known key; ignored".to_string(),
        ]
    );
    assert_eq!(c.options["cliPath"], "/opt/m");
    assert_eq!(c.options["maxConcepts"], 3);
    assert_eq!(c.settings.level, Level::Advisory, "options win");
    assert_eq!(c.settings.deadline_ms, 250, "the file's valid keys apply");
    assert_eq!(c.settings.cooldown_ms, 600_000, "the bad one falls back");
    assert_eq!(c.settings.sop_folders, vec!["ops/sops"]);
    assert_eq!(c.settings.rules.risk_patterns[0].name, "^make deploy");
    assert!(
        !c.settings.rules.prod_hosts.is_empty(),
        "bad prodHosts: the default list stays"
    );

    let mut h = Host::new();
    h.file(".opencode/hookwise.json", "{ not json");
    let c = h.load(Value::Null);
    assert_eq!(c.issues.len(), 1);
    assert!(c.issues[0]
        .to_string()
        .starts_with(".opencode/hookwise.json: is not valid JSON"));
    assert_eq!(c.settings.level, Level::Category);
    let mut h = Host::new();
    assert!(h.load(json!({})).issues.is_empty(), "no file is fine");
}

#[test]
fn a_lost_state_file_continues_the_chain_from_the_metrics_file() {
    let mut h = with_sops();
    let (e, _) = h.start(Settings::default(), &[], None);
    h.before(&e, "bash", bash("npm publish"));
    h.files.remove(&join(ROOT, ".opencode/hookwise/state.json"));
    let (e, _) = h.start(Settings::default(), &[], None);
    h.before(&e, "bash", bash("npm publish"));
    let m = h.verified_metrics();
    assert_eq!(m.lines().count(), 2);
    // a corrupt state file is reported, and the decision still works
    h.file(
        ".opencode/hookwise/state.json",
        "{\"version\": 1, \"cooldowns\": 7}",
    );
    let (e, logs) = h.start(Settings::default(), &[], None);
    assert!(logs.iter().any(|l| l
        .message
        .starts_with("state file .opencode/hookwise/state.json is unusable")));
    assert_eq!(
        h.before(&e, "bash", bash("git push -f")).0["decision"].clone(),
        "block"
    );
}

#[test]
fn non_shell_tools_are_matched_on_their_arguments() {
    let mut h = Host::new();
    h.file(
        ".opencode/sops/migrations.md",
        "---\ncategory: gotchas\nmatch:\n  tools: [write, edit]\n  patterns: ['migrations/.*\\.sql']\n---\n## Gotchas\nNever edit an applied migration; add a new one.\n",
    );
    let (e, _) = h.start(Settings::default(), &[], None);
    let (d, _) = h.before(
        &e,
        "edit",
        json!({"filePath": "db/migrations/001_init.sql", "oldString": "a", "newString": "b"}),
    );
    // gotchas under category level block only at risk ≥ medium: an edit is low, so it advises
    assert_eq!(d["decision"], "advise", "{d}");
    assert!(d["advice"]
        .as_str()
        .unwrap()
        .contains("Never edit an applied migration"));
}

#[test]
fn a_dry_run_decides_against_the_real_cooldowns_and_records_nothing() {
    let mut h = with_sops();
    let (e, _) = h.start(Settings::default(), &[], None);
    let dry = |h: &mut Host, cmd: &str| {
        let e = e.clone();
        let args = bash(cmd);
        h.run(move |io| async move {
            serde_json::to_value(e.dry_run(&io, "bash", "s", &args).await).unwrap()
        })
        .0
    };
    let d = dry(&mut h, "git push --force origin main");
    assert_eq!(d["decision"], "block");
    assert_eq!(d["dryRun"], true);
    assert!(d["block"].as_str().unwrap().contains("Announce it"));
    let d = dry(&mut h, "git push --force origin main");
    assert_eq!(d["decision"], "block", "the dry run consumed no cooldown");
    assert!(h.text(".opencode/hookwise/metrics.jsonl").is_none());
    assert!(h.text(".opencode/hookwise/state.json").is_none());
    assert!(!h
        .log
        .iter()
        .any(|r| matches!(r, Request::WriteFile { .. } | Request::AppendLine { .. })));

    // the real hook blocks; a dry run now reports what the retry would get, and takes
    // nothing from it
    let (d, _) = h.before(&e, "bash", bash("git push --force origin main"));
    assert_eq!(d["decision"], "block");
    assert!(d.get("dryRun").is_none());
    let state = h.text(".opencode/hookwise/state.json").unwrap().to_string();
    let d = dry(&mut h, "git push --force origin main");
    assert_eq!(
        (d["decision"].clone(), d["cooldownHit"].clone()),
        (json!("acknowledged"), json!(true))
    );
    assert_eq!(h.text(".opencode/hookwise/state.json").unwrap(), state);
    let (d, _) = h.before(&e, "bash", bash("git push --force origin main"));
    assert_eq!(d["decision"], "acknowledged");
    let lines = h
        .text(".opencode/hookwise/metrics.jsonl")
        .unwrap()
        .lines()
        .count();
    assert_eq!(lines, 2, "the real calls only");
}

/// Every kind of secret in a command enforcement judges (blocked, bypassed, advised, allowed),
/// and in what a failing tool prints: no file enforcement writes (metrics, state), no write or
/// append it asks for, and no log line holds it. A tool name the host made up holds one too.
#[test]
fn no_secret_reaches_the_metrics_the_state_or_the_log() {
    for (plant, secret) in crate::redact::tests::plants() {
        for (env, cmd) in [
            (
                None,
                format!("git push --force https://x.io/r {plant} main"),
            ),
            (
                Some(("HOOKWISE_BYPASS", "1")),
                format!("git push -f {plant}"),
            ),
            (None, format!("echo {plant} | deploy")),
        ] {
            let mut h = with_sops();
            let echo = format!("ERROR: bad query near {plant}");
            h.spawn = Box::new(move |_| Some((1.0, echo.clone())));
            let env: Vec<(&str, &str)> = env.into_iter().collect();
            let (e, start_logs) = h.start(Settings::default(), &env, Some(cli()));
            let (d, _) = h.before(&e, "bash", bash(&cmd));
            // a tool name is one word: a token-shaped secret in it
            let tool = if plant.contains(char::is_whitespace) {
                "mcp_deploy".to_string()
            } else {
                format!("mcp_{plant}")
            };
            let (d2, _) = h.before(&e, &tool, bash(&cmd));
            let logs: Vec<String> = messages(&d)
                .into_iter()
                .chain(messages(&d2))
                .chain(start_logs.iter().map(|l| l.message.clone()))
                .collect();
            if cmd.starts_with("git") {
                // (a risky call: memories were searched, and the failure logged)
                assert!(
                    logs.iter().any(|l| l.contains("memory search failed")),
                    "{cmd}: {logs:?}"
                );
            }
            for l in &logs {
                assert!(!l.contains(&secret), "{plant}: log {l}");
            }
            for (path, text) in &h.files {
                assert!(!text.contains(&secret), "{plant}: {path}: {text}");
            }
            for r in &h.log {
                if let Request::WriteFile { text, .. } | Request::AppendLine { line: text, .. } = r
                {
                    assert!(!text.contains(&secret), "{plant}: {r:?}");
                }
            }
            let m = h.text(".opencode/hookwise/metrics.jsonl").unwrap();
            assert_eq!(m.lines().count(), 2, "both decisions recorded");
            let (ok, report) = cli_metrics_verify(m, h.text(".opencode/hookwise/state.json"));
            assert!(ok, "{report}");
        }
    }
}

#[cfg(feature = "policy")]
#[path = "vault_memory_tests.rs"]
mod vault_memory;

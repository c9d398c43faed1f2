use super::*;
use crate::protocol::Request;
use crate::testing::procs::Proc;
use crate::testing::TestHost;

const AUTH: &str = "Context for CONCEPT: auth\n\nDirect relations (1 CONCEPTS):\n  • jwt (co-occurs in 2 files)\n    Files: memory://notes/auth-design\n    Content preview:\n      memory://notes/auth-design: Tokens are RS256-signed.\n";

/// The test host with maenifold at `/bin/maenifold`, run by `cli` (`None`: it hangs until the
/// host kills it at its timeout).
struct Host {
    engine: Engine,
    host: TestHost,
    spawned: Vec<Vec<String>>,
}

impl Host {
    fn new(cli: &'static dyn Fn(&[String]) -> Option<String>) -> Self {
        Self::of(cli, None)
    }

    /// The same, for the host profile `id` (`None`: the test host's default).
    fn of(cli: &'static dyn Fn(&[String]) -> Option<String>, id: Option<&str>) -> Self {
        let mut host = TestHost::default();
        host.program("/bin/maenifold");
        host.procs = Some(Box::new(move |argv: &[String]| match cli(argv) {
            Some(out) => Proc::out(out),
            None => Proc::Hang,
        }));
        let mut h = Host {
            engine: Engine::new(),
            host,
            spawned: vec![],
        };
        // This host runs maenifold per call only (the MCP path has its own tests).
        let init =
            json!({"hook": "init", "host": id, "env": {"PATH": "/bin"}, "cwd": "/w", "mcp": false})
                .to_string();
        let r = h.drive(&init);
        assert_eq!(r["discovery"]["path"], "/bin/maenifold");
        h
    }

    fn drive(&mut self, call: &str) -> Value {
        let seen = self.host.log.len();
        let r = crate::testing::drive(&mut self.engine, call, &mut self.host);
        self.spawned
            .extend(self.host.log[seen..].iter().filter_map(|q| match q {
                Request::Spawn { argv, .. } => Some(argv.clone()),
                _ => None,
            }));
        r
    }
}

fn answer(argv: &[String]) -> Option<String> {
    let payload: Value = serde_json::from_str(&argv[4]).unwrap();
    match payload["conceptName"].as_str().unwrap() {
        "auth" => Some(AUTH.into()),
        "slow" => None,
        "broken" => Some("ERROR: database is locked\n".into()),
        c => Some(format!(
            "Context for CONCEPT: {c}\n\nDirect relations (0 CONCEPTS):\n"
        )),
    }
}

#[test]
fn bash_gets_comment_lines_and_runs_the_same_command() {
    let mut h = Host::new(&answer);
    let r = h.drive(&json!({"hook": "tool.before", "tool": "bash", "callId": "c1", "args": {"command": "echo '[[auth]]'"}}).to_string());
    let m = &r["edits"][0];
    assert_eq!(m["path"], json!(["command"]));
    let pre = m["prepend"].as_str().unwrap();
    assert!(pre.lines().all(|l| l.starts_with('#')), "{pre}");
    assert!(pre.contains("[[jwt]]"));
    assert!(r.get("followUp").is_none());
    assert_eq!(h.spawned[0][1..4], ["--tool", "BuildContext", "--payload"]);
    let p: Value = serde_json::from_str(&h.spawned[0][4]).unwrap();
    assert_eq!(
        p,
        json!({"conceptName": "auth", "depth": 1, "maxEntities": 5, "includeContent": true})
    );
}

#[test]
fn write_content_is_never_altered_and_context_comes_with_the_result() {
    let mut h = Host::new(&answer);
    let r = h.drive(&json!({"hook": "tool.before", "tool": "write", "callId": "w1", "args": {"filePath": "a.md", "content": "see [[auth]]"}}).to_string());
    assert!(r.get("edits").is_none());
    assert_eq!(r["followUp"], true);
    let a = h.drive(&json!({"hook": "tool.after", "tool": "write", "callId": "w1"}).to_string());
    assert!(a["withResult"].as_str().unwrap().contains(context::OPEN));
    // delivered once
    let again =
        h.drive(&json!({"hook": "tool.after", "tool": "write", "callId": "w1"}).to_string());
    assert_eq!(again, json!({}));
}

#[test]
fn result_only_hosts_get_the_markdown_block_with_the_result_and_unchanged_arguments() {
    // OpenClaw runs a `params` rewrite but replays the model's original call: the comment
    // lines would never be read, so `resultOnly` sends everything with the result.
    let mut h = Host::new(&answer);
    let r = h.drive(&json!({"hook": "tool.before", "tool": "exec", "callId": "e1", "resultOnly": true, "args": {"command": "echo '[[auth]]'"}}).to_string());
    assert!(r.get("edits").is_none(), "{r}");
    assert_eq!(r["followUp"], true);
    assert_eq!(r["concepts"], json!(["auth"]));
    let a = h.drive(&json!({"hook": "tool.after", "tool": "exec", "callId": "e1"}).to_string());
    let text = a["withResult"].as_str().unwrap();
    assert!(
        text.starts_with(context::OPEN) && text.contains("## [[auth]]"),
        "{text}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("# ")),
        "markdown, not comment lines: {text}"
    );
    // without the flag the same call is placed as before
    let b = h.drive(&json!({"hook": "tool.before", "tool": "exec", "callId": "e2", "args": {"command": "echo '[[auth]]'"}}).to_string());
    assert_eq!(b["edits"][0]["path"], json!(["command"]));
}

#[test]
fn kilo_bash_context_comes_with_the_result_and_the_command_is_unchanged() {
    // Kilo replays a call as stored before the plugin hook's first `await` (docs/kilo.md): its
    // profile, not the adapter, says that the shell's context goes with the result there.
    let mut h = Host::of(&answer, Some("kilo"));
    let r = h.drive(&json!({"hook": "tool.before", "tool": "bash", "callId": "k1", "args": {"command": "echo '[[auth]]'", "description": "d"}}).to_string());
    assert!(r.get("edits").is_none(), "{r}");
    assert_eq!(
        (&r["followUp"], &r["concepts"]),
        (&json!(true), &json!(["auth"]))
    );
    let a = h.drive(&json!({"hook": "tool.after", "tool": "bash", "callId": "k1"}).to_string());
    let text = a["withResult"].as_str().unwrap();
    assert!(
        text.contains(context::OPEN) && text.contains("## [[auth]]"),
        "{text}"
    );
    // the task prompt, which Kilo's subagent reads from the changed arguments, keeps its block
    let t = h.drive(&json!({"hook": "tool.before", "tool": "task", "callId": "k2", "args": {"prompt": "fix [[auth]]", "description": "d"}}).to_string());
    assert_eq!(t["edits"][0]["path"], json!(["prompt"]));
    // and in OpenCode 1.x, which replays the changed call, the comment lines stay
    let mut o = Host::of(&answer, Some("opencode"));
    let b = o.drive(&json!({"hook": "tool.before", "tool": "bash", "callId": "o1", "args": {"command": "echo '[[auth]]'"}}).to_string());
    assert_eq!(b["edits"][0]["path"], json!(["command"]));
}

#[test]
fn task_prompt_gets_the_markdown_block() {
    let mut h = Host::new(&answer);
    let r = h.drive(&json!({"hook": "tool.before", "tool": "task", "callId": "t", "args": {"prompt": "fix [[auth]]", "description": "d"}}).to_string());
    let pre = r["edits"][0]["prepend"].as_str().unwrap();
    assert!(pre.starts_with(context::OPEN));
    assert!(pre.contains("## [[auth]]"));
    assert_eq!(r["edits"][0]["path"], json!(["prompt"]));
}

#[test]
fn knowledge_alone_reads_what_it_can_of_hostile_arguments() {
    // knowledge context fails open: a lone surrogate or a cut-off subtree does not stop it
    let mut h = Host::new(&answer);
    let deep = format!("{}0{}", "[".repeat(5_000), "]".repeat(5_000));
    let call = format!(
        r#"{{"hook":"tool.before","tool":"task","callId":"t","args":{{"prompt":"fix [[auth]] \ud800","x":{deep}}}}}"#
    );
    let r = h.drive(&call);
    assert!(r.get("block").is_none(), "{r}");
    assert!(r["edits"][0]["prepend"]
        .as_str()
        .unwrap()
        .contains("## [[auth]]"));
    // the host could not encode the arguments: nothing to read, nothing blocked
    let r = h.drive(r#"{"hook":"tool.before","tool":"bash","callId":"u","unreadable":"cycle"}"#);
    assert_eq!(r, json!({}));
}

#[test]
fn slow_and_failed_concepts_are_dropped_the_rest_used() {
    let mut h = Host::new(&answer);
    let r = h.drive(&json!({"hook": "tool.before", "tool": "task", "callId": "t", "args": {"prompt": "[[slow]] [[broken]] [[auth]] [[unknown]]"}}).to_string());
    assert_eq!(r["concepts"], json!(["slow", "broken", "auth", "unknown"]));
    let pre = r["edits"][0]["prepend"].as_str().unwrap();
    assert!(pre.contains("## [[auth]]"));
    assert!(!pre.contains("[[unknown]]"), "no knowledge: no section");
    let logs = r["logs"][0]["message"].as_str().unwrap();
    assert!(
        logs.contains("slow: over the") && logs.contains("database is locked"),
        "{logs}"
    );
}

#[test]
fn no_concepts_means_no_lookup() {
    let mut h = Host::new(&answer);
    let r = h.drive(&json!({"hook": "tool.before", "tool": "bash", "callId": "x", "args": {"command": "[[ -f a ]] && ls"}}).to_string());
    assert_eq!(r, json!({}));
    assert!(h.spawned.is_empty());
}

#[test]
fn without_a_cli_every_hook_is_a_quiet_no_op() {
    let mut e = Engine::new();
    let step = e
        .start_json(json!({"hook": "init", "env": {}}).to_string())
        .unwrap();
    let Step::Done { result, .. } = step else {
        panic!("no requests without PATH/HOME: {step:?}")
    };
    assert_eq!(result["plan"]["toolBefore"], Value::Null);
    assert_eq!(result["logs"].as_array().unwrap().len(), 1);
    let step = e
        .start_json(
            json!({"hook": "tool.before", "tool": "bash", "args": {"command": "[[auth]]"}})
                .to_string(),
        )
        .unwrap();
    assert!(matches!(step, Step::Done { result, .. } if result == json!({})));
}

#[test]
fn bad_calls_are_typed_errors() {
    let mut e = Engine::new();
    assert_eq!(e.start_json("{").unwrap_err().kind, "BadCall");
    assert_eq!(
        e.start_json(r#"{"hook":"nope"}"#).unwrap_err().kind,
        "BadCall"
    );
    assert_eq!(e.resume_json(1, "nah").unwrap_err().kind, "BadReply");
}

/// A long-lived engine (the warm hook server, `hookwise mcp`): every concept of one call reads
/// the vault as it is now. The lookups of a call start together and a lookup does not wait for
/// a refresh another one started, so the vault is brought up to date once before them.
#[test]
fn every_concept_of_a_call_sees_a_note_deleted_since_the_last_call() {
    let mut host = TestHost::default();
    host.watcher.watching = Some(true);
    host.file(
        "/w/kb/notes.md",
        "See [[alpha]] and [[beta]] with [[delta]].\n",
    );
    host.file(
        "/w/kb/alpha.md",
        "ALPHA-TEXT is how [[alpha]] works with [[delta]].\n",
    );
    host.file(
        "/w/kb/beta.md",
        "BETA-TEXT is how [[beta]] works with [[delta]].\n",
    );
    let mut engine = Engine::new();
    let init = json!({"hook": "init", "env": {"PATH": "/none", "HOOKWISE_VAULT": "/w/kb"}, "cwd": "/w",
        "mcp": false, "options": {"vaultRefreshMs": 0}});
    let r = crate::testing::drive(&mut engine, &init.to_string(), &mut host);
    assert!(r["plan"]["toolBefore"].is_object(), "{r}");
    let call = |id: &str| {
        json!({"hook": "tool.before", "tool": "task", "sessionId": "s", "callId": id,
            "args": {"prompt": "[[alpha]] and [[beta]]"}})
        .to_string()
    };
    let r = crate::testing::drive(&mut engine, &call("c1"), &mut host);
    assert!(
        r.to_string().contains("ALPHA-TEXT") && r.to_string().contains("BETA-TEXT"),
        "{r}"
    );
    host.files.remove("/w/kb/beta.md");
    host.watcher.changed.insert("beta.md".into());
    let r = crate::testing::drive(&mut engine, &call("c2"), &mut host);
    assert!(r.to_string().contains("ALPHA-TEXT"), "{r}");
    assert!(
        !r.to_string().contains("BETA-TEXT"),
        "a deleted note still answers: {r}"
    );
}

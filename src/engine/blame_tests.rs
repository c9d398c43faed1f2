//! `trace.blame` through the engine's hook calls (policy build): records written by the engine's
//! own `tool.before`/`tool.after` against the test host's files, then blamed; what blame refuses
//! to read.

use serde_json::{json, Value};

use crate::engine::Engine;
use crate::testing::TestHost;

const INTENTS: &str = "\
active_intents:
  - id: INT-1
    name: Auth
    status: IN_PROGRESS
    owned_scope: [src/**]
  - id: INT-2
    name: Billing
    status: IN_PROGRESS
    owned_scope: [src/**]
";

const SOP: &str = "---\nid: auth-review\ncategory: technical\nmatch:\n  patterns: ['token']\n---\n## Gotchas\nTokens expire (ADVICE).\n";

struct P {
    e: Engine,
    fs: TestHost,
    n: u32,
}

impl P {
    fn new(files: &[(&str, &str)]) -> P {
        let mut fs = TestHost::default();
        fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
        for (p, t) in files {
            fs.file(&format!("/w/{p}"), t);
        }
        let mut p = P {
            e: Engine::new(),
            fs,
            n: 0,
        };
        let r = p.drive(json!({"hook": "init", "env": {}, "cwd": "/w", "worktree": "/w", "directory": "/w", "options": {}}));
        assert!(r.get("plan").is_some(), "{r}");
        p
    }

    fn drive(&mut self, call: Value) -> Value {
        crate::testing::drive(&mut self.e, &call.to_string(), &mut self.fs)
    }

    /// A governed call under `intent` that leaves `path` as `after` (the tool "runs" between
    /// the hooks, as the host's would).
    fn call(&mut self, intent: &str, tool: &str, args: Value, writes: &[(&str, Option<&str>)]) {
        self.n += 1;
        // each change a second after the last (records of two sessions are ordered by time)
        self.fs.now += 1000.0;
        let session = format!("s-{intent}");
        let id = format!("c{}", self.n);
        let s =
            self.drive(json!({"hook": "intent.select", "sessionId": session, "intentId": intent}));
        assert_eq!(s["ok"], true, "{s}");
        let b = self.drive(json!({"hook": "tool.before", "tool": tool, "sessionId": session, "callId": id, "args": args}));
        assert!(b.get("block").is_none(), "{b}");
        for (p, t) in writes {
            match t {
                Some(t) => self.fs.file(&format!("/w/{p}"), t),
                None => {
                    self.fs.files.remove(&format!("/w/{p}"));
                }
            }
        }
        let a = self.drive(json!({"hook": "tool.after", "tool": tool, "sessionId": session, "callId": id, "args": args,
            "random": format!("{:032x}", self.n)}));
        assert!(a.get("recorded").is_some(), "{a}");
    }

    fn write(&mut self, intent: &str, path: &str, text: &str) {
        let args = json!({"filePath": path, "content": text});
        self.call(intent, "write", args, &[(path, Some(text))]);
    }

    fn blame(&mut self, path: &str) -> Value {
        self.drive(json!({"hook": "trace.blame", "path": path, "table": true}))
    }
}

/// Each line as `state:intent`.
fn shape(b: &Value) -> Vec<String> {
    b["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| match l["state"].as_str().unwrap() {
            "unattributed" => "-".to_string(),
            s => format!("{}:{}", &s[..1], l["intent"]["id"].as_str().unwrap_or("?")),
        })
        .collect()
}

#[test]
fn two_intents_then_a_human_edit() {
    let mut p = P::new(&[]);
    p.write("INT-1", "src/a.ts", "one\ntwo\nthree\n");
    let after = "one\ntwo\nTWO-B\nthree\n";
    let args = json!({"filePath": "src/a.ts", "oldString": "two\n", "newString": "two\nTWO-B\n"});
    p.call("INT-2", "edit", args, &[("src/a.ts", Some(after))]);
    // a person edits line 1 and adds a line at the end
    p.fs.file("/w/src/a.ts", "ONE (by hand)\ntwo\nTWO-B\nthree\nfour\n");
    let b = p.blame("src/a.ts");
    assert_eq!(b["ok"], true, "{b}");
    // the edit wrote `two` again (its new text spans it): the newest record that put a line's
    // text there is its writer
    assert_eq!(
        shape(&b),
        ["c:INT-1", "a:INT-2", "a:INT-2", "a:INT-1", "-"],
        "{b}"
    );
    let l = &b["lines"][2];
    assert_eq!(l["intent"], json!({"id": "INT-2", "name": "Billing"}));
    assert_eq!(l["host"], "vscode"); // the test host's profile
    assert_eq!(l["tool"], "edit");
    assert_eq!(l["granularity"], "line");
    assert_eq!(l["session"], "s-INT-2");
    assert_eq!(
        l["decisions"],
        json!([{"by": "governance", "decision": "allow"}])
    );
    assert!(l["time"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        b["summary"],
        json!({"agent": 3, "changed": 1, "unattributed": 1})
    );
    assert_eq!(b["records"], 2);
    assert_eq!(b["verify"]["ok"], true, "{b}");
    assert!(
        b["table"].as_str().unwrap().contains("chain: verified"),
        "{b}"
    );
    // an absolute path names the same file
    let abs = p.blame("/w/src/a.ts");
    assert_eq!(abs["lines"], b["lines"]);
    // the record carries the line hashes in its vendor data, and still verifies
    let log = p.fs.trace("/w").unwrap().to_string();
    let rec: Value = serde_json::from_str(log.lines().nth(1).unwrap()).unwrap();
    let bl = &rec["metadata"]["dev.hookwise"]["blame"][0];
    assert_eq!(bl["path"], "src/a.ts");
    assert_eq!(bl["ranges"][0]["lines"].as_str().unwrap().len(), 12, "{bl}");
    assert_eq!(bl["ranges"][0]["pre"].as_str().unwrap().len(), 6, "{bl}");
}

#[test]
fn a_rename_by_patch_keeps_the_history() {
    let mut p = P::new(&[]);
    p.write("INT-1", "src/old.ts", "a\nb\nc\n");
    let patch = "*** Begin Patch\n*** Update File: src/old.ts\n*** Move to: src/new.ts\n@@\n a\n b\n-c\n+C\n*** End Patch";
    p.call(
        "INT-2",
        "apply_patch",
        json!({"patchText": patch}),
        &[("src/old.ts", None), ("src/new.ts", Some("a\nb\nC\n"))],
    );
    let log = p.fs.trace("/w").unwrap().to_string();
    assert!(log.contains("\"from\":\"src/old.ts\""), "{log}");
    let b = p.blame("src/new.ts");
    assert_eq!(shape(&b), ["a:INT-1", "a:INT-1", "a:INT-2"], "{b}");
}

#[test]
fn enforcement_decisions_are_named_on_the_line() {
    let mut p = P::new(&[(".opencode/sops/auth.md", SOP)]);
    p.write("INT-1", "src/t.ts", "const token = 1;\n");
    let b = p.blame("src/t.ts");
    let d = &b["lines"][0]["decisions"];
    assert_eq!(d[1]["by"], "enforcement", "{b}");
    assert_eq!(d[1]["decision"], "advise", "{b}");
    assert_eq!(d[1]["sops"], json!(["auth-review"]), "{b}");
}

#[test]
fn a_tampered_log_is_still_blamed_and_says_so() {
    let mut p = P::new(&[]);
    p.write("INT-1", "src/a.ts", "x\ny\n");
    p.write("INT-2", "src/b.ts", "z\n");
    let segs = p.fs.trace_segments("/w");
    assert_eq!(segs.len(), 2, "one segment per session");
    let of = |p: &P, intent: &str| {
        segs.iter()
            .find(|s| p.fs.read(s).unwrap().contains(&format!("\"{intent}\"")))
            .unwrap()
            .clone()
    };
    let (s1, s2) = (of(&p, "INT-1"), of(&p, "INT-2"));
    let log2 = p.fs.read(&s2).unwrap().to_string();
    let edited = log2.replacen("\"INT-2\"", "\"INT-9\"", 1);
    p.fs.file(&s2, &edited);
    let b = p.blame("src/a.ts");
    assert_eq!(b["ok"], true);
    assert_eq!(shape(&b), ["a:INT-1", "a:INT-1"]);
    assert_eq!(b["verify"]["ok"], false, "{b}");
    assert!(
        b["table"].as_str().unwrap().contains("DOES NOT VERIFY"),
        "{b}"
    );
    // torn: a half line at the end
    p.fs.file(&s2, &log2);
    let log1 = p.fs.read(&s1).unwrap().to_string();
    p.fs.file(&s1, &format!("{log1}{{\"files\":[{{\"pa"));
    let b = p.blame("src/a.ts");
    assert_eq!(shape(&b), ["a:INT-1", "a:INT-1"]);
    assert!(
        b["verify"]["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["kind"] == "torn"),
        "{b}"
    );
    // no log at all: every line unattributed, and the verdict says what is wrong
    for s in &segs {
        p.fs.files.remove(s);
        p.fs.files.remove(&s.replace(".jsonl", ".head"));
    }
    let b = p.blame("src/a.ts");
    assert_eq!(shape(&b), ["-", "-"]);
}

#[test]
fn blame_reads_only_what_governance_would() {
    let mut p = P::new(&[("src/ok.ts", "fine\n")]);
    p.fs.file("/etc/secret", "root\n");
    p.fs.link("/w/src/out", "/etc/secret");
    p.fs.file("/w/src/bin.dat", "a\0b\n");
    p.fs.file("/w/src/huge.txt", &"x\n".repeat(5 * 1024 * 1024));
    p.fs.dir("/w/src/dir");
    // issue 38: a hard link to a file outside the project
    p.fs.hard_link("/w/src/hard.ts", "/etc/secret");
    for (path, why) in [
        ("src/hard.ts", "hard link"),
        ("src/out", "outside the project"),
        ("/etc/secret", "outside the project"),
        ("../etc/secret", "outside the project"),
        ("src/bin.dat", "binary"),
        ("src/huge.txt", "bytes"),
        ("src/dir", "not a regular file"),
        ("src/missing.ts", "no such file"),
        ("", ""),
    ] {
        let b = p.blame(path);
        assert_eq!(b["ok"], false, "{path}: {b}");
        assert!(b["error"].as_str().unwrap().contains(why), "{path}: {b}");
        assert_eq!(b["lines"], json!([]));
    }
    // a symlink that stays inside is blamed as the file it names
    p.fs.link("/w/src/alias.ts", "/w/src/ok.ts");
    let b = p.blame("src/alias.ts");
    assert_eq!(b["ok"], true, "{b}");
    assert_eq!(b["path"], "src/ok.ts");
    assert_eq!(shape(&b), ["-"]);
}

//! The shell cannot edit governance ([`crate::governance::ops::guard`]), as a model under an
//! intent would try: every spelling of the folder the reader can see is blocked before; what it
//! cannot see is caught after, and governance stays locked until a person re-initialises it.

use super::*;
use crate::governance::ops::guard::{names_governance, LOCK_FILE};

const INTENTS: &str = "/w/.orchestration/active_intents.yaml";

#[test]
fn every_visible_spelling_of_the_folder_is_named() {
    for line in [
        "sed -i 's/src/**/' .orchestration/active_intents.yaml",
        "yq -i '.active_intents[0].owned_scope = [\"**\"]' .orchestration/active_intents.yaml",
        "rm -rf .orchestration",
        "rm -rf ./.orchestration/",
        "rm -rf $PWD/.orchestration",
        "rm -rf ${PWD}/.ORCHESTRATION",
        "rm -rf src/../.orchestration",
        "rm -rf .orch*",
        "rm -rf .[o]rchestr?tion",
        "rm -rf .{orch,x}estration",
        "rm -rf .*",
        "cd .orch* && rm -f *",
        "rm -rf \".orch\"'estration'",
        "rm -rf .orch\\estration",
        "a=.orch; b=estration; rm -rf $a$b",
        "d=.or; rm -rf ${d}chestration",
        "rm -rf .$(echo orch)estration",
        "rm -rf .`printf orch`estration",
        "find . -name 'active_*' -delete",
        "cp /tmp/x agent_trace.jsonl",
        "python3 -c \"import shutil; shutil.rmtree('.orchestration')\"",
        "bash -c 'rm -rf .orch*'",
        "cat <<EOF > x.sh\nrm -rf .orchestration\nEOF",
        "git checkout -- .orchestration",
        "cat .orchestration/active_intents.yaml",
        "echo x > .orch''estration/active_intents.yaml",
    ] {
        assert!(names_governance(line).is_some(), "not named: {line}");
    }
}

#[test]
fn ordinary_commands_do_not_name_it() {
    for line in [
        "git status",
        "git log --oneline",
        "git add -A && git commit -m 'fix: auth'",
        "grep -r x src",
        "rm -rf build dist *.o",
        "ls -la",
        "cat src/*.ts | wc -l",
        "find . -name '*.yaml'",
        "echo $HOME && cd $DIR",
        "cp .env.example .env",
        "ls .github .vscode",
        "git diff -- '*.yaml'",
        "npm test",
    ] {
        assert_eq!(names_governance(line), None, "{line}");
    }
}

fn selected() -> T {
    let mut t = T::new(project());
    assert!(t.select("s", "INT-1").ok);
    t
}

#[test]
fn a_shell_command_naming_the_folder_is_blocked_with_or_without_an_intent() {
    let mut t = T::new(project());
    let m = t
        .before("s", "bash", json!({"command": "rm -rf .orchestration"}))
        .block
        .unwrap();
    assert!(
        m.contains("`.orchestration/`") && m.contains("read tool"),
        "{m}"
    );
    let mut t = selected();
    for cmd in [
        "sed -i 's/src/**/' .orchestration/active_intents.yaml",
        "a=.orch; b=estration; rm -rf $a$b",
        "cat .orchestration/active_intents.yaml",
    ] {
        let m = t.before("s", "bash", json!({ "command": cmd })).block;
        assert!(m.is_some_and(|m| m.contains("names")), "{cmd}");
    }
    // the read tool still reads it
    assert!(t
        .before(
            "s",
            "read",
            json!({"filePath": ".orchestration/active_intents.yaml"})
        )
        .block
        .is_none());
}

#[test]
fn a_change_the_reader_could_not_see_locks_governance_until_a_person_resets_it() {
    let mut t = selected();
    // an obfuscated sed -i widens the scope
    let out = t
        .call(
            "s",
            "bash",
            json!({"command": "sed -i \"s/src/$(printf '\\x2a\\x2a')/\" \"$(ls -a | grep orch)/x\""}),
            |fs| fs.file(INTENTS, &YAML.replace("[src/**, ", "[\"**\", ")),
        )
        .unwrap();
    let notice = format!("{:?}", out.notices);
    assert!(
        notice.contains("changed .orchestration/active_intents.yaml") && notice.contains("locked"),
        "{notice}"
    );
    assert!(t
        .fs
        .read(&format!("/w/{LOCK_FILE}"))
        .unwrap()
        .starts_with("locked: a shell command changed"));
    // the next write, in the widened scope, is blocked; so is the shell, and so is a fresh process
    for (tool, args) in [
        ("write", json!({"filePath": "README.md", "content": "x"})),
        ("write", json!({"filePath": "src/a.ts", "content": "x"})),
        ("bash", json!({"command": "ls"})),
    ] {
        let m = t.before("s", tool, args.clone()).block.unwrap();
        assert!(
            m.contains("governance is locked") && m.contains("hookwise init --governance"),
            "{m}"
        );
    }
    let mut fresh = T::new(std::mem::take(&mut t.fs));
    assert!(fresh.select("s", "INT-1").ok);
    assert!(fresh
        .before(
            "s",
            "write",
            json!({"filePath": "src/a.ts", "content": "x"})
        )
        .block
        .is_some_and(|m| m.contains("locked")));
    // deleting the lock file is not a reset (the process remembers); `init --governance` is
    let mut t = fresh;
    t.fs.files.remove(&format!("/w/{LOCK_FILE}"));
    assert!(t
        .before("s", "bash", json!({"command": "ls"}))
        .block
        .is_some());
    let gov = t.gov.clone();
    let reset =
        t.fs.run(move |io| async move { crate::governance::ops::guard::reset(&io, "/w").await });
    assert_eq!(reset, None, "no lock file: nothing to reset");
    t.fs.file(&format!("/w/{LOCK_FILE}"), "locked: x\n");
    let reset =
        t.fs.run(move |io| async move { crate::governance::ops::guard::reset(&io, "/w").await });
    assert_eq!(reset.as_deref(), Some("x"));
    drop(gov);
    assert!(t
        .before("s", "bash", json!({"command": "ls"}))
        .block
        .is_none());
}

#[test]
fn removing_the_folder_or_cutting_the_trace_locks_too() {
    let mut t = selected();
    t.call(
        "s",
        "write",
        json!({"filePath": "src/a.ts", "content": "x"}),
        |fs| fs.file("/w/src/a.ts", "x"),
    )
    .unwrap();
    let seg = t.fs.trace_segments("/w")[0].clone();
    assert!(t.fs.read(&seg).is_some());
    let cut = seg.clone();
    t.call("s", "bash", json!({"command": "true"}), move |fs| {
        fs.file(&cut, "")
    })
    .unwrap();
    assert!(t
        .before(
            "s",
            "write",
            json!({"filePath": "src/a.ts", "content": "y"})
        )
        .block
        .is_some_and(|m| m.contains("cut .orchestration/trace/")));

    let mut t = selected();
    t.call("s", "bash", json!({"command": "sh ./clean.sh"}), |fs| {
        fs.files.retain(|p, _| !p.starts_with("/w/.orchestration"));
    })
    .unwrap();
    // governance would be off without the intents file; the lock keeps it closed
    let m = t
        .before(
            "s",
            "write",
            json!({"filePath": "README.md", "content": "x"}),
        )
        .block
        .unwrap();
    assert!(
        m.contains("removed .orchestration/active_intents.yaml"),
        "{m}"
    );
}

#[test]
fn a_shell_call_that_leaves_the_folder_alone_changes_nothing() {
    let mut t = selected();
    let out = t
        .call("s", "bash", json!({"command": "npm test"}), |fs| {
            fs.file("/w/src/b.ts", "y")
        })
        .unwrap();
    assert!(out.notices.is_empty());
    assert!(t.fs.read(&format!("/w/{LOCK_FILE}")).is_none());
    assert!(t
        .before(
            "s",
            "write",
            json!({"filePath": "src/a.ts", "content": "x"})
        )
        .block
        .is_none());
}

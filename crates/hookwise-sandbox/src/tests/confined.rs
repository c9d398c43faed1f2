//! The confined shell as an attacker uses it (Linux, Landlock): every write the model could try
//! from inside, after the call returned, through another program or a link — and what a build
//! needs still works. Each case runs the real launcher (this test binary, re-run as
//! `sandbox …`) around `bash -c`.

use super::*;
use std::process::Command;
use std::time::Duration;

const SEP: char = '\u{1f}';

/// Re-run as the launcher: `HOOKWISE_SANDBOX_TEST_ARGS` holds the arguments after `sandbox`.
#[test]
fn launcher_entry() {
    if let Ok(a) = std::env::var("HOOKWISE_SANDBOX_TEST_ARGS") {
        let args: Vec<OsString> = a.split(SEP).map(OsString::from).collect();
        std::process::exit(run(&args));
    }
}

struct Out {
    code: i32,
    stderr: String,
}

fn sandboxed(f: &Fixture, write: &[&str], script: &str) -> Out {
    let mut args: Vec<String> = Vec::new();
    for w in write {
        args.push("--write".into());
        args.push(f.proj.join(w).to_string_lossy().into_owned());
    }
    for d in [
        ".git",
        ".orchestration",
        ".hookwise",
        ".claude",
        "node_modules/hookwise",
    ] {
        args.push("--deny".into());
        args.push(f.proj.join(d).to_string_lossy().into_owned());
    }
    args.extend(["--project".into(), f.proj.to_string_lossy().into_owned()]);
    args.extend(["--".into(), "bash".into(), "-c".into(), script.into()]);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "tests::confined::launcher_entry",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("HOOKWISE_SANDBOX_TEST_ARGS", args.join(&SEP.to_string()))
        .current_dir(&f.proj)
        .output()
        .unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_else(|_| "<missing>".into())
}

/// The files an attack must leave as they were.
fn untouched(f: &Fixture) {
    assert_eq!(read(&f.proj.join(".git/config")), "g");
    assert_eq!(
        read(&f.proj.join(".orchestration/active_intents.yaml")),
        "i"
    );
    assert_eq!(read(&f.proj.join(".hookwise/hookwise.json")), "{}");
    assert_eq!(read(&f.proj.join(".claude/settings.json")), "{}");
    assert_eq!(read(&f.proj.join("node_modules/hookwise/index.js")), "h");
    assert_eq!(read(&f.base.join("outside.txt")), "o");
    assert_eq!(read(&f.proj.join("docs/d.md")), "d");
    assert!(!f.proj.join(".hookwise/x").exists());
}

fn has_landlock() -> bool {
    crate::linux::abi_version() >= 1
}

#[test]
fn direct_writes_after_cd_and_through_interpreters_are_refused() {
    if !has_landlock() {
        return;
    }
    let f = Fixture::new("direct");
    let attacks = [
        "echo x > .git/config",
        "echo x >> .orchestration/active_intents.yaml",
        "printf '{\"governance\":false}' > .hookwise/hookwise.json",
        "echo x > .hookwise/x",
        "echo x > .claude/settings.json",
        "echo x > node_modules/hookwise/index.js",
        "echo x > docs/d.md",
        "cd .. && echo x > outside.txt",
        "cd src && echo x > ../../outside.txt",
        "cd /; echo x > \"$OLDPWD/.git/config\"",
        "python3 -c \"open('.git/config','w').write('x')\"",
        "python3 -c \"import os; os.truncate('.orchestration/active_intents.yaml', 0)\"",
        "node -e \"require('fs').writeFileSync('.hookwise/hookwise.json','x')\"",
        "truncate -s 0 .git/config",
        ": > .orchestration/active_intents.yaml",
        "rm -f .git/config",
        "rm -rf .orchestration",
        "mv .git/config src/stolen",
        "mv .orchestration .o2",
        "mv src/a.txt ../moved.txt",
        "cp src/a.txt .git/config",
        "ln -s ../.git/config src/l && echo x > src/l",
        "ln .git/config src/h; echo x > src/h",
        "ln .orchestration/active_intents.yaml src/h2; echo x > src/h2",
        "sed -i s/g/x/ .git/config",
        "dd if=/dev/zero of=.git/config bs=1 count=1 conv=notrunc",
        "mkdir .hookwise2 && echo x > newtop.txt",
    ];
    for a in attacks {
        let out = sandboxed(&f, &["src"], a);
        untouched(&f);
        assert!(!f.proj.join("newtop.txt").exists(), "{a}");
        assert!(!f.base.join("moved.txt").exists(), "{a}");
        let _ = out.code;
        assert!(
            !out.stderr.contains("nothing was run"),
            "{a}: {}",
            out.stderr
        );
    }
    // the symlink and the hard links: the link may be made in scope, the file behind it is
    // not written
    assert_eq!(read(&f.proj.join("src/a.txt")), "a");
}

#[test]
fn a_background_job_still_running_after_the_call_is_confined() {
    if !has_landlock() {
        return;
    }
    let f = Fixture::new("background");
    let marker = f.proj.join("src/bg-done");
    let script = format!(
        "(sleep 0.4; echo x > .orchestration/active_intents.yaml; echo x > .git/config; echo done > {m}) >/dev/null 2>&1 &
         nohup bash -c 'sleep 0.4; echo x > .hookwise/hookwise.json' >/dev/null 2>&1 &
         setsid bash -c 'sleep 0.4; echo x > ../outside.txt' >/dev/null 2>&1 < /dev/null &
         disown -a; exit 0",
        m = marker.display()
    );
    let out = sandboxed(&f, &["src"], &script);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // the call returned; the jobs run on
    for _ in 0..40 {
        if marker.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(read(&marker), "done\n", "the background job ran, in scope");
    untouched(&f);
}

#[test]
fn an_in_scope_build_works() {
    if !has_landlock() {
        return;
    }
    let f = Fixture::new("build");
    let out = sandboxed(
        &f,
        &["src"],
        "set -e; echo ok > src/new.txt; mkdir -p src/d/e; mv src/new.txt src/d/e/; ln -s e src/d/l; \
         ln src/d/e/new.txt src/lib/hard; rm src/lib/hard; truncate -s 0 src/a.txt; echo b >> src/a.txt; \
         echo ignored > /dev/null; python3 -c \"open('src/py.txt','w').write('p')\"",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(read(&f.proj.join("src/d/e/new.txt")), "ok\n");
    assert_eq!(read(&f.proj.join("src/a.txt")), "b\n");
    assert_eq!(read(&f.proj.join("src/py.txt")), "p");
    untouched(&f);
}

#[test]
fn the_whole_project_in_scope_keeps_governance_out() {
    if !has_landlock() {
        return;
    }
    let f = Fixture::new("whole");
    let out = sandboxed(&f, &[""], "echo r2 > README.md; echo x > src/b.txt; echo x > .git/config; echo x > new-top.txt; mkdir .hookwise2");
    assert_eq!(read(&f.proj.join("README.md")), "r2\n", "{}", out.stderr);
    assert_eq!(read(&f.proj.join("src/b.txt")), "x\n");
    assert!(!f.proj.join("new-top.txt").exists());
    assert!(!f.proj.join(".hookwise2").exists());
    assert_eq!(read(&f.proj.join(".git/config")), "g");
}

#[test]
fn no_scope_means_reads_only() {
    if !has_landlock() {
        return;
    }
    let f = Fixture::new("none");
    let out = sandboxed(&f, &[], "cat .git/config src/a.txt; echo x > src/a.txt");
    assert_eq!(read(&f.proj.join("src/a.txt")), "a");
    assert_ne!(out.code, 0);
    untouched(&f);
}

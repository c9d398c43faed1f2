//! The canonical action, tried as a model that wants one acknowledgment to cover another call.

use serde_json::{json, Value};

use super::*;
use crate::test_rng::{env_u64, xorshift};

const ROOT: &str = "/w/shop";

/// On the engine API's profile (Roo Code's, OpenCode's and OpenClaw's tool names).
fn target(tool: &str, args: &Value, cwd: &str) -> String {
    super::target(crate::hosts::default_profile(), tool, args, cwd)
}

fn same(a: &str, b: &str) {
    assert_eq!(
        command(a),
        command(b),
        "should be the same action:\n  {a:?}\n  {b:?}"
    );
}

fn differ(a: &str, b: &str) {
    assert_ne!(
        command(a),
        command(b),
        "should be different actions:\n  {a:?}\n  {b:?}"
    );
}

#[test]
fn blank_space_and_quote_style_do_not_change_the_action() {
    let base = "git push --force origin main";
    for alt in [
        "git  push --force origin main",
        "  git push\t--force   origin main  ",
        "git push --force origin main ",
        "git push \\\n  --force origin main",
    ] {
        same(base, alt);
    }
    same(
        "git commit -m 'fix the bug'",
        "git commit -m \"fix the bug\"",
    );
    same("echo 'a'\"b\"", "echo \"a\"'b'");
    same("echo '' x", "echo \"\" x");
    same("a && b", "a&&b");
    same("a ; b", "a;b");
    same("a | b", "a|b");
    same("a\nb", "a \nb");
    same("echo \"$(ls  -la)\"", "echo \"$(ls -la)\"");
    same("diff <(ls  a) b", "diff <(ls a) b");
    same("echo '$x'", "echo \"\\$x\"");
    differ("echo '\\$x'", "echo \"\\$x\"");
}

#[test]
fn anything_that_changes_what_runs_is_another_action() {
    let base = "git push --force origin scratch";
    for alt in [
        "git push --force origin main",
        "git push --force upstream scratch",
        "git push --force-with-lease=x origin release && rm -rf .git",
        "git push --force origin scratch && rm -rf .git",
        "git push --force origin scratch; true",
        "git push --force origin scratch & true",
        "git push --force origin scratch | tee log",
        "git push --force origin scratch # x",
        "# x\ngit push --force origin scratch",
        "GIT_DIR=/tmp/x git push --force origin scratch",
        "env GIT_DIR=/tmp/x git push --force origin scratch",
        "sudo git push --force origin scratch",
        "git push --force origin scratch > /dev/null",
        "git push --force origin scratch 2>&1",
        "git push --force origin scratch\nrm -rf .git",
        "(git push --force origin scratch)",
        "git push --force origin scratch <<EOF\nx\nEOF",
        "git push --force origin scr\\atch2",
        "git push --force origin scratc",
        "git push --force origin scratch ''",
    ] {
        differ(base, alt);
    }
    // control operators are not interchangeable
    differ("false && git push -f", "false; git push -f");
    differ("false && git push -f", "false || git push -f");
    differ("a | b", "a || b");
    differ("a & b", "a && b");
    differ("a > b", "a >> b");
    differ("a > b", "a < b");
    differ("a\nb", "a b");
}

#[test]
fn quoting_that_changes_expansion_is_another_action() {
    differ("rm -rf '$HOME'", "rm -rf $HOME");
    differ("rm -rf \"$HOME\"", "rm -rf $HOME");
    differ("rm -rf '$HOME'", "rm -rf \"$HOME\"");
    differ("rm -rf '*'", "rm -rf *");
    differ("rm -rf \\*", "rm -rf *");
    differ("ls '~root'", "ls ~root");
    differ("ls ~'root'", "ls ~root");
    differ("\"A\"=1 cmd", "A=1 cmd");
    differ("'if' true", "if true");
    differ("if'' true", "if true");
    differ("'git' push -f", "git push -f");
    differ("echo {a,b}", "echo '{a,b}'");
    differ("echo {a','b}", "echo {a,b}");
    differ("echo $'\\x41'", "echo A");
    differ("echo a\\ b", "echo a b");
    differ("echo \"a  b\"", "echo \"a b\"");
    differ("echo 'a  b'", "echo 'a b'");
    differ("echo \"$(echo \"a  b\")\"", "echo \"$(echo \"a b\")\"");
    differ("echo `echo a  b`", "echo `echo a b`");
    differ("echo ${x:-a  b}", "echo ${x:-a b}");
    differ("echo \"${x:-a  b}\"", "echo \"${x:-a b}\"");
    differ("cat <<EOF\na  b\nEOF", "cat <<EOF\na b\nEOF");
    differ("cat <<'EOF'\n$x\nEOF", "cat <<EOF\n$x\nEOF");
    differ("cat <<-EOF\n\tx\n\tEOF", "cat <<EOF\n\tx\n\tEOF");
    differ("echo x 2>y", "echo x 2 >y");
    differ("a # x", "a # y");
    differ("a #x", "a#x");
    // the here-document body is verbatim; a comment in it is content
    differ("cat <<EOF\n# a\nEOF", "cat <<EOF\n#  a\nEOF");
}

/// Tokens that could run together into each other's encoding stay apart.
#[test]
fn the_encoding_is_not_ambiguous() {
    differ("echo ab", "echo a b");
    differ("echo 'a b'", "echo a b");
    differ("echo a'w'", "echo a w");
    differ("echo 'Z'", "echo Z");
    differ("echo 'O;.'", "echo ;");
    differ("echo \"_\"", "echo _");
    differ("echo 'C1:x'", "echo #x");
    differ("echo $(a)b", "echo $(a) b");
    differ("echo $(a b)", "echo $(a)b");
    differ("echo `a`b", "echo `ab`");
}

/// Anything the lexer does not model in full is kept verbatim to the end (no blank folding).
#[test]
fn unbalanced_and_deep_input_never_folds_what_it_cannot_read() {
    differ("echo 'a  b", "echo 'a b");
    differ("echo \"a  b", "echo \"a b");
    differ("echo $(a  'b  c'", "echo $(a  'b c'");
    let deep_a = format!("{}echo a  b{}", "$(".repeat(40), ")".repeat(40));
    let deep_b = format!("{}echo a b{}", "$(".repeat(40), ")".repeat(40));
    differ(&deep_a, &deep_b);
    // a trailing backslash, an empty line, odd operators: no panic, a form
    for odd in [
        "\\", "", "   ", ";;&", "<<", "<<-", "a <<", "$(", "`", "${", "\"", "'", "#",
    ] {
        let _ = command(odd);
    }
}

#[test]
fn the_work_is_linear_in_the_line() {
    // 200,000 characters of nesting, quotes and operators: one pass each
    for unit in ["$(", "\"$(", "'a' ", "&& ", "<<E\n", "`a` ", "${"] {
        let line = unit.repeat(200_000 / unit.len());
        let t = std::time::Instant::now();
        let c = command(&line);
        assert!(c.len() < 8 * line.len() + 64, "{unit}: {}", c.len());
        // a very generous bound, not a benchmark: quadratic would take minutes
        assert!(t.elapsed().as_secs() < 20, "{unit}");
    }
}

#[test]
fn shell_tools_key_the_command_and_the_arguments_that_matter() {
    let t = |args| target("bash", &args, ROOT);
    assert_eq!(
        t(json!({"command": "git push -f", "description": "push it"})),
        t(json!({"command": "git  push -f", "description": "force push"}))
    );
    assert_ne!(
        t(json!({"command": "git push -f"})),
        t(json!({"command": "git push -f", "workdir": "/other/repo"}))
    );
    assert_eq!(
        t(json!({"command": "git push -f", "workdir": "./sub/"})),
        t(json!({"command": "git push -f", "workdir": "/w/shop/sub"}))
    );
    assert_ne!(
        t(json!({"command": "git push -f", "env": {"GIT_DIR": "/x"}})),
        t(json!({"command": "git push -f"}))
    );
    // the same command through another shell tool: the same target (the tool is a part of
    // the key of its own)
    assert_eq!(
        target("exec", &json!({"command": "git push -f"}), ROOT),
        target("bash", &json!({"command": "git push -f"}), ROOT)
    );
    // a command that is not a string: the arguments as they are
    assert_ne!(
        t(json!({"command": ["git", "push"]})),
        t(json!({"command": "git push"}))
    );
}

#[test]
fn file_tools_key_the_files_they_touch() {
    let w = |args| target("write", &args, ROOT);
    let a = w(json!({"filePath": "migrations/001.sql", "content": "drop table x;"}));
    assert_eq!(
        a,
        w(json!({"filePath": "./migrations//001.sql", "content": "create table y;"}))
    );
    assert_eq!(
        a,
        w(json!({"filePath": "/w/shop/migrations/001.sql", "content": ""}))
    );
    assert_ne!(
        a,
        w(json!({"filePath": "link/../migrations/001.sql"})),
        "`link` may point anywhere"
    );
    assert_ne!(a, w(json!({"filePath": "migrations/002.sql"})));
    // a decoy key naming another file is part of the action
    assert_ne!(
        a,
        w(json!({"filePath": "migrations/001.sql", "path": "docs/leak.md"}))
    );
    // (another file tool on the same file: the same target; the tool is in the key)
    assert_eq!(
        a,
        target("edit", &json!({"filePath": "migrations/001.sql"}), ROOT)
    );
    // edits: the path in each edit counts, the text does not
    let m = |args| target("multiedit", &args, ROOT);
    assert_eq!(
        m(json!({"filePath": "a.ts", "edits": [{"oldString": "x", "newString": "y"}]})),
        m(json!({"filePath": "a.ts", "edits": [{"oldString": "p", "newString": "q"}]}))
    );
    assert_ne!(
        m(json!({"filePath": "a.ts", "edits": [{"filePath": "a.ts", "oldString": "x"}]})),
        m(json!({"filePath": "a.ts", "edits": [{"filePath": "b.ts", "oldString": "x"}]}))
    );
    // a patch: the files it names, in order, not the lines it writes
    let p = |text: &str| target("apply_patch", &json!({ "patchText": text }), ROOT);
    let one = "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** End Patch";
    assert_eq!(
        p(one),
        p("*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+z\n*** End Patch")
    );
    assert_ne!(
        p(one),
        p("*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: docs/evil.md\n+e\n*** End Patch")
    );
    assert_ne!(
        p(one),
        p("*** Begin Patch\n*** Update File: src/a.ts\n*** Move to: src/b.ts\n@@\n-x\n+y\n*** End Patch")
    );
    assert_ne!(
        p(one),
        p("*** Begin Patch\n   *** Delete File: src/a.ts\n*** End Patch")
    );
    assert_ne!(
        p(one),
        target("apply_patch", &json!({ "input": one }), ROOT)
    );
}

#[test]
fn other_tools_key_every_argument_but_the_description() {
    let t = |args| target("deploy", &args, ROOT);
    assert_eq!(
        t(json!({"env": "prod", "version": 3, "description": "a"})),
        t(json!({"version": 3, "env": "prod", "description": "b"}))
    );
    assert_ne!(t(json!({"env": "prod"})), t(json!({"env": "staging"})));
    assert_ne!(
        t(json!({"env": "prod"})),
        t(json!({"env": "prod", "force": true}))
    );
    // `text` is content only for file tools; here it is what the tool sends
    assert_ne!(
        target("slack_post", &json!({"text": "a"}), ROOT),
        target("slack_post", &json!({"text": "b"}), ROOT)
    );
    // keys and values cannot run together
    assert_ne!(t(json!({"a": "b,c:d"})), t(json!({"a": "b", "c": "d"})));
    assert_ne!(t(json!({"a": [1, 2]})), t(json!({"a": "[1,2]"})));
}

#[test]
fn any_nesting_depth_is_read_without_recursion() {
    let deep = |leaf: &str| {
        let mut v = json!(leaf);
        for _ in 0..100_000 {
            let mut m = serde_json::Map::new();
            m.insert("a".into(), v);
            v = Value::Object(m);
        }
        v
    };
    let v = deep("x");
    let a = target("deploy", &v, ROOT);
    assert!(a.len() > 500_000);
    let w = deep("y");
    assert_ne!(a, target("deploy", &w, ROOT));
    // dropping the deep values without overflowing the stack is the caller's affair
    std::mem::forget(v);
    std::mem::forget(w);
}

#[test]
fn paths_join_the_root_and_keep_their_dot_dots() {
    assert_eq!(resolve(ROOT, "a/./b//c/../d"), "/w/shop/a/b/c/../d");
    assert_eq!(resolve(ROOT, "./a"), "/w/shop/a");
    assert_eq!(resolve(ROOT, "/abs/x/"), "/abs/x");
    assert_eq!(resolve("", "rel/./x"), "rel/x");
    assert_eq!(resolve(ROOT, "/"), "/");
}

/// Random command lines over the shell's special characters: inserting or deleting any one
/// character that is not blank space (or a backslash: `"\("` and `"\\("` are both `\(`)
/// changes the form, and nothing panics.
#[test]
fn one_character_more_or_less_is_another_action() {
    const ALPHABET: &[char] = &[
        'a', 'b', '1', '2', '$', '\'', '"', '\\', '\n', '(', ')', ';', '&', '|', '<', '>', '#',
        '{', '}', '=', '*', '~', '`', '-', ' ', ' ', '\t',
    ];
    // ROUNDS and SEED make a longer run: `ROUNDS=3000000 SEED=7 cargo test --release …`
    let mut next = xorshift(0x2545_f491_4f6c_dd1d ^ env_u64("SEED").unwrap_or(0));
    for _ in 0..env_u64("ROUNDS").unwrap_or(20_000) {
        let len = next(24);
        let line: Vec<char> = (0..len).map(|_| ALPHABET[next(ALPHABET.len())]).collect();
        let mut other = line.clone();
        // a backslash next to the change can make it an equivalent spelling (`"\<nl>\x"`
        // and `"\\x"` are both `\x`): not a case for this property
        let near_backslash =
            |v: &[char], at: usize| v[at.saturating_sub(1)..(at + 2).min(v.len())].contains(&'\\');
        if !other.is_empty() && next(2) == 0 {
            let at = next(other.len());
            if matches!(other[at], ' ' | '\t' | '\\') || near_backslash(&other, at) {
                continue;
            }
            other.remove(at);
        } else {
            let c = ALPHABET[next(ALPHABET.len() - 3)]; // not blank
            let at = next(other.len() + 1);
            if c == '\\' || near_backslash(&other, at) {
                continue;
            }
            other.insert(at, c);
        }
        let (a, b): (String, String) = (line.iter().collect(), other.iter().collect());
        differ(&a, &b);
    }
}

/// Against the real bash (run by hand: `cargo test --release -- --ignored folded`): random
/// lines of words, quotes and expansions that the form folds together — one with blank
/// space added somewhere — make bash print the same arguments.
#[test]
#[ignore]
fn folded_lines_print_the_same_arguments_in_bash() {
    const ALPHABET: &[char] = &[
        'a', 'b', '$', '\'', '"', '\\', '#', '{', '}', ',', '=', '*', '~', '-', ' ', '\t', '\n',
    ];
    let dir = std::env::temp_dir().join("hookwise-folded");
    std::fs::create_dir_all(&dir).unwrap();
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15 ^ env_u64("SEED").unwrap_or(0));
    let argv = |line: &str| {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "a=1; b='x  y'; p() {{ printf '[%s]' \"$@\"; echo; }}\np {line}"
            ))
            .current_dir(&dir)
            .env("HOME", "/home/h")
            .output()
            .unwrap();
        (out.stdout, out.status.code())
    };
    let mut checked = 0;
    for _ in 0..env_u64("ROUNDS").unwrap_or(3000) {
        let len = 1 + next(12);
        let line: String = (0..len).map(|_| ALPHABET[next(ALPHABET.len())]).collect();
        let joined = line.replace("\\\n", "");
        if joined.contains("$$") || joined.contains("${$") {
            continue; // the shell's pid
        }
        let mut other: Vec<char> = line.chars().collect();
        other.insert(next(other.len() + 1), if next(2) == 0 { ' ' } else { '\t' });
        let other: String = other.into_iter().collect();
        if command(&line) != command(&other) {
            continue;
        }
        checked += 1;
        assert_eq!(argv(&line), argv(&other), "{line:?} vs {other:?}");
    }
    assert!(checked > 500, "{checked}");
}

//! macOS: a Seatbelt profile run by `/usr/bin/sandbox-exec` (the one in `/usr/bin` only: a
//! `sandbox-exec` earlier on PATH could be anyone's). Everything is allowed but writing; writes
//! are allowed beneath the roots, except beneath the denied paths — Seatbelt can say "except"
//! (`require-not`), so nothing is split as for Landlock. Paths are canonical (`/private/var`,
//! not `/var`), as Seatbelt matches the resolved path. The profile's text is built here on
//! every platform and tested as text (macOS cannot run in this project's CI).

use std::path::Path;

use super::{Plan, Rule, DEVICES};

/// The `sandbox-exec` hookwise trusts.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// A path as an SBPL string literal.
fn lit(p: &Path) -> String {
    let s = p.to_string_lossy();
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn matcher(r: &Rule) -> String {
    if r.dir {
        format!("(subpath {})", lit(&r.path))
    } else {
        format!("(literal {})", lit(&r.path))
    }
}

/// The profile for `plan`: the roots as asked (before any split), minus the denied paths.
pub fn profile(plan: &Plan) -> String {
    let mut s = String::from(
        "(version 1)\n\
         ; hookwise: a governed shell. Reads and execution are free; writes only where the intent's scope and the build's temp and cache folders are, never in a governance path.\n\
         (allow default)\n\
         (deny file-write*)\n",
    );
    let allows: Vec<String> = plan.roots.iter().map(matcher).collect();
    let denies: Vec<String> = plan
        .deny
        .iter()
        .map(|d| format!("(subpath {})", lit(d)))
        .collect();
    if !allows.is_empty() {
        s.push_str("(allow file-write*\n  (require-all\n    (require-any\n");
        for a in &allows {
            s.push_str("      ");
            s.push_str(a);
            s.push('\n');
        }
        s.push_str("    )\n");
        for d in &denies {
            s.push_str("    (require-not ");
            s.push_str(d);
            s.push_str(")\n");
        }
        s.push_str("  )\n)\n");
    }
    if let Some(t) = &plan.tmpdir {
        s.push_str(&format!("(allow file-write* (subpath {}))\n", lit(t)));
    }
    s.push_str("(allow file-write-data\n");
    for d in DEVICES {
        s.push_str(&format!("  (literal {})\n", lit(Path::new(d))));
    }
    s.push_str("  (regex #\"^/dev/ttys[0-9]+$\")\n)\n");
    s
}

/// `sandbox --check`, or exec `sandbox-exec -p PROFILE -- command`.
#[cfg(target_os = "macos")]
pub fn run(spec: &super::Spec) -> i32 {
    use std::os::unix::process::CommandExt;
    if !Path::new(SANDBOX_EXEC).is_file() {
        eprintln!("hookwise sandbox: {SANDBOX_EXEC} is missing, so hookwise cannot confine the shell; nothing was run");
        return super::REFUSED;
    }
    if spec.check {
        println!("seatbelt");
        return 0;
    }
    let plan = super::plan(spec);
    super::close_inherited();
    let mut cmd = std::process::Command::new(SANDBOX_EXEC);
    cmd.arg("-p")
        .arg(profile(&plan))
        .arg("--")
        .args(&spec.command);
    if let Some(t) = &plan.tmpdir {
        cmd.env("TMPDIR", t);
    }
    let e = cmd.exec();
    eprintln!("hookwise sandbox: could not run {SANDBOX_EXEC}: {e}; nothing was run");
    super::REFUSED
}

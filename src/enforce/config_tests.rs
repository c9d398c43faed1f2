//! `.opencode/hookwise.json` as an attacker would write it, read by enforcement's loader:
//! each hostile file is ignored with an issue that says why (logged as a warning), and the
//! plugin options still apply.

use serde_json::json;

use crate::enforce::tests::Host;

fn issues_for(h: &mut Host) -> Vec<String> {
    let c = h.load(json!({"enforcement": {"level": "strict"}}));
    assert_eq!(
        c.settings.level,
        super::Level::Strict,
        "the options still apply"
    );
    c.issues.iter().map(|i| i.to_string()).collect()
}

#[test]
fn hostile_config_files_are_reported() {
    // too large: the host refused to read it
    let mut h = Host::new();
    h.file(".opencode/hookwise.json", "{}");
    h.faults.read_error = Some("too-large".into());
    assert_eq!(
        issues_for(&mut h),
        vec![".opencode/hookwise.json: is over the 1 MiB limit; ignored"]
    );
    // too large: a host that read it anyway
    let mut h = Host::new();
    let big = format!("{{\"cliPath\": \"{}\"}}", "x".repeat(2 << 20));
    h.file(".opencode/hookwise.json", &big);
    h.faults.read_past_limit = true;
    assert_eq!(
        issues_for(&mut h),
        vec![
            ".opencode/hookwise.json: is 2049 KiB, over the 1 MiB limit; the whole file is ignored"
        ]
    );
    // deep: refused at its line, before serde_json's own limit
    let mut h = Host::new();
    let deep = format!("{{\"enforcement\":\n{}", "[".repeat(100_000));
    h.file(".opencode/hookwise.json", &deep);
    assert_eq!(
        issues_for(&mut h),
        vec![".opencode/hookwise.json: nests deeper than 64 levels at line 2; the whole file is ignored"]
    );
    // brackets and quotes inside strings do not count
    let mut h = Host::new();
    let fine = format!(
        "{{\"cliPath\": \"/opt/{}\\\"{}\"}}",
        "[".repeat(300),
        "{".repeat(300)
    );
    h.file(".opencode/hookwise.json", &fine);
    assert!(issues_for(&mut h).is_empty());
}

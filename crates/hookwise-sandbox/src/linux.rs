//! Linux: Landlock. Only write-side rights are handled, so reads and execution stay free; the
//! domain is inherited by every process the command starts and cannot be left (a process can
//! only add layers, never remove one), and `no_new_privs` keeps set-uid programs from running
//! as anyone else.
//!
//! What each Landlock ABI gives (the kernel here has ABI 7; each is taken as far as the running
//! kernel goes, best effort above ABI 1):
//!
//! | ABI (kernel) | what hookwise's confinement gets |
//! |---|---|
//! | 1 (5.13) | writing, creating, removing and renaming files and folders only beneath the allowed roots; a file moved or linked to another folder is always refused (so a link cannot carry a file out of its rights) |
//! | 2 (5.19) | `REFER`: moving or linking a file between two allowed folders works (`mv`, `git mv`, compilers' rename-into-place across folders) — never into more rights than it had |
//! | 3 (6.2) | `TRUNCATE`: `truncate(2)` and `O_TRUNC` outside the roots are refused too (below 3, a file outside could be emptied, not written) |
//! | 4, 5 (6.7, 6.10) | network ports and device ioctls: not used (writes only) |
//! | 6 (6.12) | scopes: no signal to a process outside the sandbox (the host, hookwise's warm server), no connection to an abstract UNIX socket made outside it |
//! | 7 (6.15) | audit logging of denials: not used |
//!
//! No Landlock at all (ABI 0: not built in, or off at boot): refused, nothing runs.

use std::os::unix::process::CommandExt;

use landlock::{
    AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

use super::{plan, Plan, Spec, REFUSED};

/// The kernel's Landlock ABI version (0: none).
pub fn abi_version() -> i32 {
    // landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32,
        )
    };
    if v < 0 {
        0
    } else {
        v as i32
    }
}

/// The write-side rights hookwise handles (all the ABI knows but device ioctls).
fn write_rights() -> landlock::BitFlags<AccessFs> {
    AccessFs::from_write(ABI::V7) & !AccessFs::IoctlDev
}

/// Confines this process (and what it will start) to `plan`. Err: why it could not.
pub fn confine(plan: &Plan) -> Result<i32, String> {
    let abi = abi_version();
    if abi < 1 {
        return Err(
            "this kernel has no Landlock (it is not built in or not enabled at boot: `lsm=landlock,…`), so hookwise cannot confine the shell"
                .into(),
        );
    }
    let rights = write_rights();
    let err = |e: landlock::RulesetError| format!("Landlock refused the rules: {e}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(rights)
        .map_err(err)?;
    if abi >= 6 {
        ruleset = ruleset
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(err)?;
    }
    let mut created = ruleset.create().map_err(err)?;
    for r in &plan.rules {
        let Ok(fd) = PathFd::new(&r.path) else {
            continue; // gone since the plan: nothing to allow
        };
        let access = if r.dir {
            rights
        } else {
            rights & AccessFs::from_file(ABI::V7)
        };
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(err)?;
    }
    let status = created.restrict_self().map_err(err)?;
    if status.ruleset == RulesetStatus::NotEnforced || !status.no_new_privs {
        return Err("the kernel did not enforce the Landlock rules".into());
    }
    Ok(abi)
}

/// `sandbox --check`, or confine and exec.
pub fn run(spec: &Spec) -> i32 {
    if spec.check {
        let abi = abi_version();
        return if abi >= 1 {
            println!("landlock abi {abi}");
            0
        } else {
            eprintln!("hookwise sandbox: this kernel has no Landlock; a governed shell cannot be confined");
            REFUSED
        };
    }
    let plan = plan(spec);
    if let Err(why) = confine(&plan) {
        eprintln!("hookwise sandbox: {why}; nothing was run");
        return REFUSED;
    }
    super::close_inherited();
    let mut cmd = std::process::Command::new(&spec.command[0]);
    cmd.args(&spec.command[1..]);
    if let Some(t) = &plan.tmpdir {
        cmd.env("TMPDIR", t);
    }
    let e = cmd.exec();
    eprintln!(
        "hookwise sandbox: could not run `{}`: {e}",
        spec.command[0].to_string_lossy()
    );
    127
}

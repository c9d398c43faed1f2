//! The confined shell (issue 38): `hookwise-native sandbox …` confines its own process (and so
//! every process it starts: children, background jobs, `nohup`/`setsid` daemons, a terminal's
//! shell) with the kernel, then execs the command. It never runs a command unconfined: where
//! the kernel cannot confine, it says why on stderr and exits 126 without running anything.
//!
//! ```text
//! hookwise-native sandbox [--write PATH]… [--scratch PATH]… [--deny PATH]… [--project DIR]
//!                         [--tmpdir] -- COMMAND [ARG]…
//! hookwise-native sandbox --check
//! ```
//!
//! - `--write PATH`: writes allowed beneath PATH (a folder) or to PATH (a file). A PATH that does
//!   not exist stands for its nearest existing ancestor (a new file needs its folder).
//! - `--write-dir PATH`: a folder the scope names by a pattern (`src/new/**`): made (`mkdir
//!   -p`) when missing, then as `--write`.
//! - `--build PATH`: a build folder (`target`): made when missing and its parent exists, then
//!   as `--write`; nothing when its parent is missing.
//! - Every `--write`, `--write-dir` and `--build` root must lie inside `--project` once links
//!   are resolved (a scope folder that is a link out of the project is dropped).
//! - `--scratch PATH`: a temp or cache folder a build needs (TMPDIR, `~/.cache`, …): like
//!   `--write`, but never reaching into `--project`: a temp folder that holds the project is
//!   left out (with `--tmpdir`, the command gets a private one inside it).
//! - `--deny PATH`: never writable, whatever the other options say (governance paths: the
//!   project's `.git/`, `.orchestration/`, `.hookwise/`, the hosts' config folders, hookwise's
//!   install). The kernels' rules are allow-lists (Landlock cannot carve a folder out of an
//!   allowed one), so an allowed folder that holds a denied path is replaced by its entries
//!   except that path, recursively ([`plan`]); entries that are symbolic links are dropped.
//! - `--tmpdir`: when the command's `TMPDIR` (inherited, or `/tmp`) is not writable under the
//!   rules (the project lives in the temp folder, or the host gives its commands a `TMPDIR`
//!   hookwise was not started with), give it a private temp folder inside it
//!   (`hookwise-tmp-<uid>`, 0700) as `TMPDIR`.
//! - `--check`: say whether this kernel can confine, run nothing (exit 0: it can).
//!
//! What the policy is — which folders, which paths are governance — is decided by the core
//! (`src/governance/confine.rs`); this crate only carries it out. Reads and execution stay free:
//! only write-side rights are handled.
//!
//! Linux: Landlock ([`linux`]); macOS: a Seatbelt profile for `sandbox-exec` ([`seatbelt`]);
//! anywhere else: refused.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[cfg(target_os = "linux")]
pub mod linux;
pub mod seatbelt;

/// The exit code when nothing was run (the shell's "cannot execute").
pub const REFUSED: i32 = 126;

/// What the command line asked for.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Spec {
    pub write: Vec<PathBuf>,
    pub write_dir: Vec<PathBuf>,
    pub build: Vec<PathBuf>,
    pub scratch: Vec<PathBuf>,
    pub deny: Vec<PathBuf>,
    pub project: Option<PathBuf>,
    pub tmpdir: bool,
    pub check: bool,
    pub command: Vec<OsString>,
}

/// Reads the arguments after `sandbox`.
pub fn parse(args: &[OsString]) -> Result<Spec, String> {
    let mut s = Spec::default();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_str().unwrap_or("");
        let mut value = |name: &str| -> Result<PathBuf, String> {
            i += 1;
            let v = args.get(i).ok_or_else(|| format!("{name} needs a path"))?;
            let p = PathBuf::from(v);
            if !p.is_absolute() {
                return Err(format!(
                    "{name} needs an absolute path, not {}",
                    p.display()
                ));
            }
            Ok(p)
        };
        match a {
            "--write" => s.write.push(value("--write")?),
            "--write-dir" => s.write_dir.push(value("--write-dir")?),
            "--build" => s.build.push(value("--build")?),
            "--scratch" => s.scratch.push(value("--scratch")?),
            "--deny" => s.deny.push(value("--deny")?),
            "--project" => s.project = Some(value("--project")?),
            "--tmpdir" => s.tmpdir = true,
            "--check" => s.check = true,
            "--" => {
                s.command = args[i + 1..].to_vec();
                break;
            }
            other => return Err(format!("unknown option `{other}`")),
        }
        i += 1;
    }
    if !s.check && s.command.is_empty() {
        return Err("no command after `--`".into());
    }
    Ok(s)
}

/// One rule the kernel is given: writes beneath a folder, or to one file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rule {
    pub path: PathBuf,
    pub dir: bool,
}

/// What the kernel will be told.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Plan {
    /// Where writes are allowed (no denied path is at or beneath any of them).
    pub rules: Vec<Rule>,
    /// The denied paths, canonical (for Seatbelt, which can say "except").
    pub deny: Vec<PathBuf>,
    /// The roots as asked (canonical), before splitting (for Seatbelt).
    pub roots: Vec<Rule>,
    /// The private temp folder the command gets as `TMPDIR`, if one was made.
    pub tmpdir: Option<PathBuf>,
}

/// Device files every shell writes to (`> /dev/null`, the terminal).
pub const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
];

/// The canonical form of `p`, or of its nearest existing ancestor when it does not exist.
fn existing(p: &Path) -> Option<PathBuf> {
    let mut cur = p.to_path_buf();
    loop {
        if let Ok(c) = std::fs::canonicalize(&cur) {
            return Some(c);
        }
        if !cur.pop() {
            return None;
        }
    }
}

/// The canonical form of `p`; for a path that does not exist yet, its nearest existing
/// ancestor's canonical form with the rest appended (where it would be created).
fn canonical_or_planned(p: &Path) -> PathBuf {
    let mut base = p.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&base) {
            return rest.iter().rev().fold(c, |acc: PathBuf, n| acc.join(n));
        }
        match (base.file_name().map(|n| n.to_os_string()), base.pop()) {
            (Some(n), true) => rest.push(n),
            _ => return p.to_path_buf(),
        }
    }
}

fn beneath(p: &Path, root: &Path) -> bool {
    p.starts_with(root)
}

/// Computes the rules: every root canonical, split around the denied paths (and, for scratch
/// roots, around the project). Reads the file system (lstat, listings); makes the private temp
/// folder when asked.
pub fn plan(spec: &Spec) -> Plan {
    let deny: Vec<PathBuf> = spec.deny.iter().map(|d| canonical_or_planned(d)).collect();
    let project = spec
        .project
        .as_ref()
        .and_then(|p| std::fs::canonicalize(p).ok());
    let mut out = Plan {
        deny: deny.clone(),
        ..Default::default()
    };
    let add = |root: &Path, outside: &[PathBuf], out: &mut Plan| -> bool {
        let Ok(md) = std::fs::metadata(root) else {
            return false;
        };
        out.roots.push(Rule {
            path: root.to_path_buf(),
            dir: md.is_dir(),
        });
        split(root, md.is_dir(), outside, &mut out.rules, 0)
    };
    let inside = |root: &Path| project.as_ref().is_none_or(|p| beneath(root, p));
    for d in &spec.write_dir {
        if !deny.iter().any(|x| beneath(&canonical_or_planned(d), x)) {
            let _ = std::fs::create_dir_all(d);
        }
    }
    for b in &spec.build {
        if b.parent().is_some_and(Path::is_dir)
            && !deny.iter().any(|x| beneath(&canonical_or_planned(b), x))
        {
            let _ = std::fs::create_dir(b);
        }
    }
    for w in spec.write.iter().chain(&spec.write_dir) {
        let Some(root) = existing(w) else { continue };
        if inside(&root) {
            add(&root, &deny, &mut out);
        }
    }
    for b in &spec.build {
        if let Ok(root) = std::fs::canonicalize(b) {
            if inside(&root) {
                add(&root, &deny, &mut out);
            }
        }
    }
    let mut split_scratch: Option<PathBuf> = None;
    for s in &spec.scratch {
        let Ok(root) = std::fs::canonicalize(s) else {
            continue;
        };
        // a temp folder that holds the project (a project in /tmp) is not split around it
        // (listing a shared /tmp costs tens of ms and gives rules for other users' entries):
        // the command gets a private temp folder in it instead (`--tmpdir`)
        if project.as_ref().is_some_and(|p| beneath(p, &root)) {
            if split_scratch.is_none() {
                split_scratch = Some(root);
            }
            continue;
        }
        add(&root, &deny, &mut out);
    }
    // the command's TMPDIR (inherited, or /tmp) must be writable: else a private one
    let inherited = std::env::var_os("TMPDIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    let inherited = std::fs::canonicalize(&inherited).unwrap_or(inherited);
    let writable = out
        .rules
        .iter()
        .any(|r| r.dir && beneath(&inherited, &r.path));
    if spec.tmpdir && !writable {
        let base = split_scratch
            .or_else(|| inherited.is_dir().then(|| inherited.clone()))
            .filter(|b| !deny.iter().any(|d| beneath(b, d)));
        if let Some(root) = base {
            if let Some(t) = private_tmp(&root) {
                if !out.rules.iter().any(|r| beneath(&t, &r.path)) {
                    out.rules.push(Rule {
                        path: t.clone(),
                        dir: true,
                    });
                }
                out.tmpdir = Some(t);
            }
        }
    }
    for d in DEVICES {
        let p = Path::new(d);
        if let Ok(md) = std::fs::metadata(p) {
            out.rules.push(Rule {
                path: p.to_path_buf(),
                dir: md.is_dir(),
            });
        }
    }
    out.rules.sort();
    out.rules.dedup();
    out
}

/// Adds `root` (or, when it holds a path of `outside`, its entries but that path) to `rules`.
/// Returns whether it had to be split.
fn split(root: &Path, dir: bool, outside: &[PathBuf], rules: &mut Vec<Rule>, depth: usize) -> bool {
    if outside.iter().any(|d| beneath(root, d)) {
        return true; // the root is itself denied (or inside a denied folder)
    }
    if !outside.iter().any(|d| beneath(d, root)) {
        rules.push(Rule {
            path: root.to_path_buf(),
            dir,
        });
        return false;
    }
    if !dir || depth > 32 {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return true;
    };
    for e in entries.flatten() {
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_symlink() {
            continue; // a link planted here could name anything
        }
        split(&e.path(), ft.is_dir(), outside, rules, depth + 1);
    }
    true
}

/// `<root>/hookwise-tmp-<uid>`, made 0700 if missing; refused when it is not this user's own
/// folder (a link, another owner).
#[cfg(unix)]
fn private_tmp(root: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let uid = unsafe { libc::getuid() };
    let p = root.join(format!("hookwise-tmp-{uid}"));
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&p);
    let md = std::fs::symlink_metadata(&p).ok()?;
    (md.is_dir() && md.uid() == uid && md.mode() & 0o077 == 0).then_some(p)
}

#[cfg(not(unix))]
fn private_tmp(_root: &Path) -> Option<PathBuf> {
    None
}

/// Runs `args` (the arguments after `sandbox`) confined; returns the exit code when it cannot
/// (it execs the command otherwise). Never runs a command unconfined.
pub fn run(args: &[OsString]) -> i32 {
    let spec = match parse(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hookwise sandbox: {e}; nothing was run");
            return 2;
        }
    };
    platform::run(&spec)
}

#[cfg(target_os = "linux")]
mod platform {
    pub fn run(spec: &super::Spec) -> i32 {
        super::linux::run(spec)
    }
}

#[cfg(target_os = "macos")]
mod platform {
    pub fn run(spec: &super::Spec) -> i32 {
        super::seatbelt::run(spec)
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod platform {
    pub fn run(_spec: &super::Spec) -> i32 {
        eprintln!(
            "hookwise sandbox: this platform has no kernel confinement hookwise can use (Linux Landlock, macOS Seatbelt); nothing was run"
        );
        super::REFUSED
    }
}

/// Marks every inherited descriptor above stderr close-on-exec: an open file the confined
/// command inherited would be written without the kernel asking.
#[cfg(unix)]
pub fn close_inherited() {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd").or_else(|_| std::fs::read_dir("/dev/fd"))
    else {
        return;
    };
    let fds: Vec<i32> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|fd| *fd > 2)
        .collect();
    for fd in fds {
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests;

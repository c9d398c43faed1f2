//! Governed shells run confined by the kernel (issue 38). A shell is a general-purpose
//! computer: no reading of its text bounds what it does. So, under governance, a host's shell
//! call is answered with an argument change: the command runs as
//!
//! ```text
//! '<hookwise-native>' sandbox --project <root> --write <folder>… --scratch <temp>… --deny <path>… --tmpdir -- "${BASH:-/bin/sh}" -c '<command>'
//! ```
//!
//! and the launcher (`crates/hookwise-sandbox`) confines the process tree before the command
//! starts: Landlock on Linux, Seatbelt on macOS. Everything the command starts — children,
//! background jobs, `nohup`/`setsid` daemons, the shell a terminal opens (Codex's
//! `exec_command {tty: true}`: what `write_stdin` types later runs in that shell) — inherits it.
//!
//! The policy, decided here:
//! - **Writes**: beneath the narrowest folders that cover the intent's `owned_scope` (for each
//!   include pattern, its literal folder prefix: `src/**/*.rs` → `src/`, `README.md` → that
//!   file, `*.md` or `**` → the project root); the build folders in the project (`target/`,
//!   `node_modules/.cache/`); the temp and cache folders a build needs (`$TMPDIR` or `/tmp`,
//!   `$XDG_CACHE_HOME` or `~/.cache`, `~/.npm`, `~/.cargo/registry`, `~/.cargo/git`). The
//!   user (never the project) changes the last list: `HOOKWISE_SANDBOX_WRITABLE` (folders
//!   separated by `:`, added) and `HOOKWISE_SANDBOX_DEFAULTS=0` (the defaults dropped), read
//!   from the environment hookwise was started in. The exact globs (excludes included) are
//!   still checked by reading ([`super::guard`], the records).
//! - **Never**: the governance paths ([`GOVERNANCE_PATHS`]: `.orchestration/`, `.hookwise/`,
//!   `.git/`, every host's project config, `node_modules/hookwise`, the platform package),
//!   hookwise's install, the warm servers' folder and the hosts' plugin caches — whatever the
//!   scope says. Landlock's rules are allow-lists: a folder that holds one of them (the root,
//!   when the scope is `**`) is given as its entries minus that path, so under a whole-project
//!   scope the shell may change every existing top-level file and folder but create none at
//!   the top level (the file tools can).
//! - **No intent**: the shell runs confined with no write root in the project: it reads,
//!   builds into the temp folders, and cannot change a project file.
//! - **Refused** (the model reads why and what to do): a host that cannot rewrite a pre-tool
//!   call (Qwen Code), a platform without kernel confinement (Windows, …), no native binary
//!   for this platform, a binary that does not answer `sandbox --check` (a damaged install, a
//!   kernel without Landlock), or a command the launcher cannot be put around.

use std::rc::Rc;

use serde::Deserialize;
use serde_json::Value;

use crate::host::{Profile, Role};
use crate::protocol::{ArgEdit, PathKey, Request};
use crate::runtime::Io;

/// Project paths no confined shell may write, whatever the scope: governance, hookwise's
/// configuration and SOPs, every host's project configuration (where hookwise's hooks and
/// plugin entries live) and hookwise's install in the project.
pub const GOVERNANCE_PATHS: &[&str] = &[
    ".orchestration",
    ".hookwise",
    ".git",
    ".claude",
    ".mcp.json",
    ".codex",
    ".gemini",
    ".qwen",
    ".opencode",
    "opencode.json",
    "opencode.jsonc",
    ".kilo",
    ".kilocode",
    "kilo.json",
    "kilo.jsonc",
    ".pi",
    ".cline",
    ".clinerules",
    ".github/hooks",
    ".kimi-code",
    ".vibe",
    ".openhands",
    "node_modules/hookwise",
    "node_modules/@hookwise",
];

/// Per-user folders no confined shell may write even when a scratch folder holds them: the
/// hosts' plugin caches (OpenCode installs npm plugins there) and hookwise's own.
const USER_DENY: &[&str] = &[".cache/opencode", ".cache/kilo", ".cache/hookwise"];

/// Build folders in the project a build writes whatever the scope (still never a governance
/// path).
pub const BUILD_DIRS: &[&str] = &["target", "node_modules/.cache"];

/// What the JS glue tells the core at `init` (`js/native.cjs` finds the binary beside this
/// hookwise install only; nothing the project holds names it).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Launcher {
    /// The native binary, or none installed for this platform.
    pub binary: Option<String>,
    /// `process.platform`.
    pub platform: String,
    /// hookwise's installed package folder and its platform package's (never writable).
    pub install: Vec<String>,
    /// The warm hook servers' private folders (never writable: a shell that could write there
    /// could answer hooks).
    pub runtime: Vec<String>,
}

/// The confinement set-up of an engine: the launcher and the user's environment.
#[derive(Debug, Default)]
pub struct Setup {
    pub launcher: Launcher,
    pub home: Option<String>,
    /// `$XDG_CACHE_HOME`, when set (the hosts' plugin caches are there).
    pub cache: Option<String>,
    pub scratch: Vec<String>,
    /// `sandbox --check` answered (its first line), once per engine.
    checked: std::cell::RefCell<Option<String>>,
    /// The sessions (and scopes) already told what the confinement allows.
    told: std::cell::RefCell<std::collections::HashSet<String>>,
}

impl Setup {
    pub fn new(launcher: &Value, env: &std::collections::BTreeMap<String, String>) -> Rc<Setup> {
        let launcher: Launcher = serde_json::from_value(launcher.clone()).unwrap_or_default();
        let get = |k: &str| env.get(k).filter(|v| v.starts_with('/')).cloned();
        let home = get("HOME");
        let mut scratch = Vec::new();
        if env.get("HOOKWISE_SANDBOX_DEFAULTS").map(String::as_str) != Some("0") {
            scratch.push(get("TMPDIR").unwrap_or_else(|| "/tmp".into()));
            if let Some(c) = get("XDG_CACHE_HOME") {
                scratch.push(c);
            }
            if let Some(h) = &home {
                for d in [".cache", ".npm", ".cargo/registry", ".cargo/git"] {
                    scratch.push(format!("{}/{d}", h.trim_end_matches('/')));
                }
            }
        }
        if let Some(extra) = env.get("HOOKWISE_SANDBOX_WRITABLE") {
            scratch.extend(
                extra
                    .split(':')
                    .filter(|p| p.starts_with('/') && !p.contains('\0'))
                    .map(str::to_string),
            );
        }
        scratch.dedup();
        Rc::new(Setup {
            launcher,
            home,
            cache: get("XDG_CACHE_HOME"),
            scratch,
            ..Default::default()
        })
    }
}

/// What governance's gate hands over for an allowed shell call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShellCall {
    /// The active intent, if any.
    pub intent: Option<String>,
    /// Its `owned_scope` patterns as written.
    pub scope: Vec<String>,
    /// An enforcement-only project (no intent governance): the whole project but the
    /// governance paths is writable (`scope` is `**`).
    pub enforcement_only: bool,
}

impl ShellCall {
    /// A shell call in an enforcement-only project: every project file but the governance
    /// paths is writable (the kernel keeps hookwise's configuration, SOPs and install).
    pub fn enforcement() -> ShellCall {
        ShellCall {
            intent: None,
            scope: vec!["**".into()],
            enforcement_only: true,
        }
    }
}

/// The answer for a governed shell call.
#[derive(Debug, Clone, PartialEq)]
pub enum Confined {
    /// Rewrite the command: these mutations, and the note for the model (once per session and
    /// scope; `None` when it was said already).
    Run {
        mutations: Vec<ArgEdit>,
        note: Option<String>,
    },
    /// The call must not run: the message the model reads.
    Refuse(String),
}

/// The hosts whose pre-tool hook can change a shell's arguments (the facts of each host:
/// Claude Code, Codex, Gemini CLI, Copilot CLI `updatedInput`/`tool_input`/`modifiedArgs`;
/// OpenCode 1/2, Kilo, pi, Cline, OpenClaw, the engine API: the plugin's arguments changed in
/// place or returned; Mistral Vibe `hook_specific_output.tool_input`). Qwen Code documents
/// `updatedInput` and does not apply it; Kimi Code and OpenHands have no rewrite.
pub fn can_rewrite(host: &Profile) -> bool {
    !host.keeps_args
}

/// The literal folder (or file) a scope pattern's include stands for, relative to the project
/// (`""`: the project root), and whether it is a folder for sure (a pattern's literal prefix)
/// rather than a plain path (a file or a folder). Excludes stand for nothing (the kernel
/// cannot say "except"; the reading checks them).
pub fn root_of(pattern: &str) -> Option<(String, bool)> {
    let p = super::scope::normalize_pattern(pattern).ok()?;
    if p.exclude {
        return None;
    }
    let g = p.globs.first()?;
    let mut parts = Vec::new();
    let comps: Vec<&str> = g.split('/').collect();
    for (i, c) in comps.iter().enumerate() {
        if c.contains(['*', '?', '[', '{', '\\']) {
            return Some((parts.join("/"), true));
        }
        if i + 1 == comps.len() {
            parts.push(*c); // a plain path: itself (a file or a folder)
            break;
        }
        parts.push(c);
    }
    Some((parts.join("/"), false))
}

/// The write roots of a scope, relative to the project: one per include, none beneath another
/// (`true`: a folder for sure).
pub fn roots(scope: &[String]) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = scope.iter().filter_map(|p| root_of(p)).collect();
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    let all: Vec<String> = out.iter().map(|r| r.0.clone()).collect();
    out.retain(|(r, _)| {
        !all.iter()
            .any(|o| o != r && (o.is_empty() || r.starts_with(&format!("{o}/"))))
    });
    out
}

/// A word for a POSIX shell: single-quoted.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn join(root: &str, rel: &str) -> String {
    if rel.is_empty() {
        root.to_string()
    } else {
        format!("{}/{rel}", root.trim_end_matches('/'))
    }
}

/// The launcher's arguments (after `sandbox`) for a call in `worktree` under `scope`.
/// `git_writable`: an enforcement-only project's shell, where `.git` stays writable (issue 38
/// names hookwise's configuration, SOPs, `.orchestration/` and its install there, not `.git`;
/// an agent's `git commit` must work) — under an intent `.git` is read-only with the rest.
pub fn launcher_args(setup: &Setup, worktree: &str, scope: &[String], git_writable: bool) -> Vec<String> {
    let mut a = vec!["--project".to_string(), worktree.to_string()];
    for (r, dir) in roots(scope) {
        a.push(
            if dir && !r.is_empty() {
                "--write-dir"
            } else {
                "--write"
            }
            .into(),
        );
        a.push(join(worktree, &r));
    }
    for b in BUILD_DIRS {
        a.push("--build".into());
        a.push(join(worktree, b));
    }
    for s in &setup.scratch {
        a.push("--scratch".into());
        a.push(s.clone());
    }
    for d in GOVERNANCE_PATHS {
        if git_writable && *d == ".git" {
            continue;
        }
        a.push("--deny".into());
        a.push(join(worktree, d));
    }
    let l = &setup.launcher;
    let mut extra: Vec<String> = l.install.clone();
    extra.extend(l.runtime.clone());
    if let Some(h) = &setup.home {
        extra.extend(USER_DENY.iter().map(|d| join(h, d)));
    }
    if let Some(c) = &setup.cache {
        extra.extend(
            USER_DENY
                .iter()
                .map(|d| join(c, d.trim_start_matches(".cache/"))),
        );
    }
    for d in extra.into_iter().filter(|d| d.starts_with('/')) {
        a.push("--deny".into());
        a.push(d);
    }
    a.push("--tmpdir".into());
    a
}

/// The command line the host's shell runs instead of `command`.
pub fn wrap(binary: &str, args: &[String], command: &str) -> String {
    let mut s = quote(binary);
    s.push_str(" sandbox");
    for a in args {
        s.push(' ');
        s.push_str(&quote(a));
    }
    s.push_str(" -- \"${BASH:-/bin/sh}\" -c ");
    s.push_str(&quote(command));
    s
}

/// What [`wrap`] put between the launcher's arguments and the quoted command.
const WRAP_TAIL: &str = " -- \"${BASH:-/bin/sh}\" -c '";

/// The command a [`wrap`]ped command line runs, or `None` when `s` is not one. Hosts that
/// name no call id (Gemini CLI, Copilot CLI) hand their post-tool hook the rewritten input:
/// the call is keyed by what the model asked for, so the two events still meet.
pub fn unwrap(s: &str) -> Option<String> {
    if !s.starts_with('\'') {
        return None;
    }
    let at = s.find("' sandbox ")?;
    let tail = s[at..].find(WRAP_TAIL)? + at + WRAP_TAIL.len();
    let quoted = s.get(tail..)?.strip_suffix('\'')?;
    // the inverse of `quote`: `'\''` stands for one quote; no other quote may be there
    let inner = quoted.replace("'\\''", "\u{0}");
    if inner.contains('\'') || quoted.contains('\u{0}') {
        return None;
    }
    Some(inner.replace('\u{0}', "'"))
}

/// `input` with every wrapped command line (a string, or a string in a list, at the top level)
/// given back as the command it runs.
pub fn unwrapped_input(input: &Value) -> Option<Value> {
    let Value::Object(map) = input else {
        return None;
    };
    let mut changed = false;
    let mut out = map.clone();
    for v in out.values_mut() {
        match v {
            Value::String(s) => {
                if let Some(c) = unwrap(s) {
                    *s = c;
                    changed = true;
                }
            }
            Value::Array(items) => {
                for i in items.iter_mut() {
                    if let Value::String(s) = i {
                        if let Some(c) = unwrap(s) {
                            *s = c;
                            changed = true;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    changed.then_some(Value::Object(out))
}

/// The note for the model: what the confinement allows.
pub fn note(worktree: &str, call: &ShellCall, kernel: &str) -> String {
    let rs = roots(&call.scope);
    let writes = match (&call.intent, rs.is_empty()) {
        _ if call.enforcement_only => "every existing top-level file and folder of the project (`.git/` too) but hookwise's governance paths (no new top-level entry)".to_string(),
        (None, _) => {
            "no project file (no intent is selected: select one to change files)".to_string()
        }
        (Some(_), true) => "no project file (the intent's owned_scope names none)".to_string(),
        (Some(id), false) => {
            let list: Vec<String> = rs
                .iter()
                .map(|(r, _)| {
                    if r.is_empty() {
                        "every existing top-level file and folder of the project (no new top-level entry)".to_string()
                    } else {
                        format!("`{r}`")
                    }
                })
                .collect();
            format!("{} (intent {id}'s owned_scope)", list.join(", "))
        }
    };
    let _ = worktree;
    let read_only = if call.enforcement_only {
        "`.orchestration/`, `.hookwise/`, the hosts' config and hookwise's install are read-only"
    } else {
        "`.git/`, `.orchestration/`, `.hookwise/`, the hosts' config and hookwise's install are read-only"
    };
    format!(
        "hookwise: this shell runs confined by the kernel ({kernel}). It may write only to {writes}, the build folders `target/` and `node_modules/.cache/`, and the temp and cache folders (TMPDIR, ~/.cache, ~/.npm, ~/.cargo); {read_only}. Reads are free; any other write fails with \"Permission denied\", also from background jobs and programs it starts. The owned_scope's exact globs still apply."
    )
}

/// `sandbox --check` once per engine: `Ok(kernel)` (`landlock abi 7`, `seatbelt`) or why not.
async fn check(io: &Io, setup: &Setup, binary: &str) -> Result<String, String> {
    if let Some(k) = setup.checked.borrow().clone() {
        return Ok(k);
    }
    let reply = io
        .request(Request::Spawn {
            argv: vec![binary.to_string(), "sandbox".into(), "--check".into()],
            timeout_ms: 5_000,
            max_bytes: 4_096,
        })
        .await;
    let ok = reply.get("success").and_then(Value::as_bool) == Some(true);
    let out = reply
        .get("stdout")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    if ok && (out.starts_with("landlock abi ") || out == "seatbelt") {
        *setup.checked.borrow_mut() = Some(out.clone());
        return Ok(out);
    }
    let why = reply
        .get("stderr")
        .and_then(Value::as_str)
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .or_else(|| reply.get("error").and_then(Value::as_str))
        .unwrap_or("it did not answer")
        .chars()
        .take(300)
        .collect::<String>();
    Err(crate::redact::redact_string(why))
}

fn refusal(call: &ShellCall, tool: &str, why: &str, todo: &str) -> Confined {
    let (under, todo) = if call.enforcement_only {
        // an enforcement-only project: the file tools stay, and the scope is no intent's
        (
            "pre-action enforcement (so that no command can change hookwise's configuration or SOPs)",
            todo.replace(" inside the intent's owned_scope", ""),
        )
    } else {
        ("intent governance", todo.to_string())
    };
    Confined::Refuse(format!(
        "hookwise blocked `{tool}`: under {under} a shell runs only confined by the kernel, and {why}. Nothing was run. {todo}"
    ))
}

/// The answer for an allowed, governed shell call of `tool` with `args`.
#[allow(clippy::too_many_arguments)]
pub async fn confine(
    io: &Io,
    setup: &Setup,
    host: &Profile,
    worktree: &str,
    session: &str,
    tool: &str,
    args: &Value,
    call: &ShellCall,
    fixed_args: bool,
) -> Confined {
    const FILE_TOOLS: &str =
        "Use the file tools (write, edit, patch) for changes inside the intent's owned_scope, or ask the user to run the command.";
    if host.entry(tool).role != Role::Shell {
        return Confined::Run {
            mutations: Vec::new(),
            note: None,
        };
    }
    if !can_rewrite(host) {
        return refusal(
            call,
            tool,
            &format!("{} cannot change a shell call's command from a hook (its PreToolUse `updatedInput` is not applied), so hookwise cannot put the command in a sandbox", host.id),
            FILE_TOOLS,
        );
    }
    if fixed_args {
        return refusal(
            call,
            tool,
            "this host runs the command as it was given (the engine API's `executePreHook` hands back no arguments), so hookwise cannot put it in a sandbox",
            "The host should call `augmentToolCall` and run the arguments it returns; meanwhile use the file tools (write, edit, patch) for changes inside the intent's owned_scope.",
        );
    }
    let l = &setup.launcher;
    if !matches!(l.platform.as_str(), "linux" | "darwin") {
        return refusal(
            call,
            tool,
            &format!("this platform ({}) has no kernel confinement hookwise can use (Linux Landlock, macOS Seatbelt)", if l.platform.is_empty() { "unknown" } else { &l.platform }),
            FILE_TOOLS,
        );
    }
    let Some(binary) = l.binary.as_deref().filter(|b| b.starts_with('/')) else {
        return refusal(
            call,
            tool,
            "hookwise's native binary for this platform is not installed (the package `@hookwise/cli-<platform>-<arch>` beside hookwise)",
            "Reinstall hookwise with its optional dependencies (`npm install hookwise`), or use the file tools (write, edit, patch) for changes inside the intent's owned_scope.",
        );
    };
    let kernel = match check(io, setup, binary).await {
        Ok(k) => k,
        Err(why) => {
            return refusal(
                call,
                tool,
                &format!("its launcher cannot confine here ({why})"),
                "On Linux, Landlock must be on (kernel 5.13 or later, `lsm=…,landlock`); reinstall hookwise if its native binary is damaged. Meanwhile use the file tools (write, edit, patch) for changes inside the intent's owned_scope.",
            );
        }
    };
    // the command line(s) and where each is
    let keys: Vec<(Vec<PathKey>, String)> = match command_slots(host, tool, args) {
        Some(k) if !k.is_empty() => k,
        _ => {
            return refusal(
                call,
                tool,
                "its command is not one command line hookwise can put the launcher around",
                "Give the command as one string.",
            )
        }
    };
    let largs = launcher_args(setup, worktree, &call.scope, call.enforcement_only);
    let mutations = keys
        .into_iter()
        .map(|(path, cmd)| ArgEdit {
            path,
            prepend: None,
            strip: None,
            set: Some(wrap(binary, &largs, &cmd)),
        })
        .collect();
    let first = setup.told.borrow_mut().insert(told_key(session, call));
    Confined::Run {
        mutations,
        note: first.then(|| note(worktree, call, &kernel)),
    }
}

fn told_key(session: &str, call: &ShellCall) -> String {
    format!("{session}\u{1f}{:?}\u{1f}{:?}", call.intent, call.scope)
}

impl Setup {
    /// The note of `call` was not delivered (the call was blocked after all): tell it with the
    /// next confined call of the session.
    pub fn untell(&self, session: &str, call: &ShellCall) {
        self.told.borrow_mut().remove(&told_key(session, call));
    }
}

/// Each command string of a shell call and its path in the arguments.
fn command_slots(host: &Profile, tool: &str, args: &Value) -> Option<Vec<(Vec<PathKey>, String)>> {
    let key = host.shell_key(tool)?;
    match args.get(key)? {
        Value::String(s) => Some(vec![(vec![PathKey::Key(key.into())], s.clone())]),
        // a list of command lines (Cline's `run_commands {commands: [...]}`): each wrapped
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(|s| {
                    (
                        vec![PathKey::Key(key.into()), PathKey::Index(i)],
                        s.to_string(),
                    )
                })
            })
            .collect(),
        _ => None,
    }
}

#[cfg(test)]
#[path = "confine_tests.rs"]
mod tests;

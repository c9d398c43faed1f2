//! The hosts: one file per host, and this registry (one line per host).
//!
//! A host's file holds everything the core and the tooling know about it: its [`Profile`]
//! (its tools, the argument keys each really reads, where context reaches the model), for a
//! command-hook host its [`Dialect`] (event names, payload fields, set-up) and the answer shape
//! it honours (its own `Serialize` types), and its [`Facts`] (kind, `init` flag, the files
//! `init` writes, the verified CLI, its set-up step and end-to-end suite), from which
//! `js/hosts.json` is generated for the CLI, `doctor`, the build and the scripts. The words
//! these are written in — `Profile`, `Dialect`, `Answer`, the tool-table builders — are the
//! host kit, [`crate::host`].
//!
//! # Adding a command-hook host (one that runs `hookwise hook --host <id> <Event>`)
//!
//! 1. **`src/hosts/<id>.rs`**: copy the closest one (`qwen.rs`: Claude's nested hook shape;
//!    `gemini.rs`: its own event names and a top-level deny; `codex.rs`: a host that validates
//!    its answers) and change what differs, each from the real CLI (its source, or a probe hook),
//!    never guessed: `PROFILE` (the tools as its hook payload names them; only tools known to
//!    change nothing as `reader`s — every other tool is gated under governance), `DIALECT`
//!    (`events`, `call_id`, `pre_context`, `compact_start`, `mcp_prefix`, `project_dir_var`,
//!    `model_log`, `setup`: hooks file, matcher, timeout unit, MCP file and form, the trust
//!    step the user takes), `render` with one `Serialize` type per event holding only the keys
//!    the host reads, and `FACTS` (`kind: Kind::CommandHook`, `init` = the `init --<flag>`, the
//!    files `init` writes, the folders or program that say the agent is used, the npm package
//!    and version `scripts/setup-clis.sh` installs, the e2e folder).
//! 2. **One line in [`registry!`] below**: `#[cfg(feature = "policy")] <id>: DIALECT,` (the
//!    command-hook hosts are served by the policy core only). The order is the order `init`
//!    sets hosts up in.
//! 3. **Regenerate the tables the JS reads** and commit them:
//!    `HOOKWISE_BLESS=1 cargo test -q --all-features generated_tables` (rewrites
//!    `js/hosts.json` and `js/dialects.json`; without the variable the test fails when either is
//!    stale). `hookwise init --<flag>`, `hookwise hook --host <id>`, `hookwise mcp --host <id>`,
//!    `doctor`, `scripts/setup-clis.sh` and `scripts/test.sh` then know the host.
//! 4. **The proof**: `tests/e2e-<id>/hooks.test.mjs` on the shared harness (a recipe in
//!    `tests/e2e-shared/agents.mjs` — how the CLI runs offline against the scripted model — and
//!    `hookSuite("<id>")`), and `docs/hosts/<id>.md`.
//!
//! A plugin host (an in-process adapter in `js/`) is the same file without a dialect:
//! `<id>,` in the registry, `kind: Kind::Plugin`.

#[cfg(feature = "policy")]
use crate::host::dialect::Dialect;
use crate::host::Profile;
use crate::protocol::Log;

/// How hookwise reaches a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The host runs `hookwise hook` (or Claude Code's `mcp_tool` hooks) per event.
    CommandHook,
    /// An in-process plugin (an adapter in `js/`).
    Plugin,
    /// The engine API (`hookwise/engine`), embedded by an extension.
    Engine,
}

/// An npm package the real-host suites run, pinned (`scripts/setup-clis.sh` installs it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cli {
    pub package: &'static str,
    pub version: &'static str,
    /// `npm install` flags (`--ignore-scripts` where the install script fetches nothing the
    /// CLI needs offline).
    pub install_flags: &'static str,
    /// The entry point under `node_modules/`.
    pub entry: &'static str,
    /// The entry point is an executable (else a script node runs).
    pub native: bool,
}

/// What the tooling knows about a host (generated into `js/hosts.json`; not read by the core
/// at run time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    pub kind: Kind,
    /// `hookwise init --<init>` sets it up (`""`: `init` without a flag, or no set-up).
    pub init: &'static str,
    /// The project files `init` writes or merges into.
    pub config_files: &'static [&'static str],
    /// Folders or files in a project, and the program on PATH, that say the agent is used
    /// there (`hookwise init` with no flag sets up each one it finds).
    pub markers: &'static [&'static str],
    pub program: &'static str,
    /// The CLI the real-host suite runs, when it is an npm package `scripts/setup-clis.sh`
    /// installs.
    pub cli: Option<Cli>,
    /// The set-up step that installs the real host (`""`: none).
    pub setup: &'static str,
    /// The folder of its real-host suite (`""`: none).
    pub e2e: &'static str,
}

/// One line per host: `<module>` (a plugin or the engine API), `<module>: DIALECT` (with
/// command hooks), with a `#[cfg]` when only one build serves it.
macro_rules! registry {
    ($( $(#[$m:meta])* $id:ident $(: $dialect:ident)? ,)*) => {
        $( $(#[$m])* pub mod $id; )*

        /// Every host's profile, in registry order.
        pub static ALL: &[&Profile] = &[ $( $(#[$m])* &$id::PROFILE, )* ];

        /// Each host's dialect, if it has command hooks, in registry order ([`dialects`]).
        #[cfg(feature = "policy")]
        static DIALECT_OF: &[Option<&Dialect>] = &[ $( $(#[$m])* registry!(@dialect $id $($dialect)?), )* ];

        /// Every host's facts, in registry order (the generated `js/hosts.json`).
        pub static FACTS: &[(&Profile, &Facts)] = &[ $( $(#[$m])* (&$id::PROFILE, &$id::FACTS), )* ];
    };
    (@dialect $id:ident) => { None };
    (@dialect $id:ident $dialect:ident) => { Some(&$id::$dialect) };
}

registry! {
    opencode,
    opencode2,
    openclaw,
    claude: DIALECT,
    engine,
    pi,
    #[cfg(feature = "policy")] codex: DIALECT,
    #[cfg(feature = "policy")] gemini: DIALECT,
    #[cfg(feature = "policy")] copilot: DIALECT,
    #[cfg(feature = "policy")] qwen: DIALECT,
    #[cfg(feature = "policy")] kimi: DIALECT,
    #[cfg(feature = "policy")] vibe: DIALECT,
    #[cfg(feature = "policy")] openhands: DIALECT,
    #[cfg(feature = "policy")] cline,
    kilo,
    #[cfg(feature = "policy")] factory: DIALECT,
    #[cfg(feature = "policy")] letta: DIALECT,
    #[cfg(feature = "policy")] auggie: DIALECT,
}

/// The host when `init` names none: the engine API's.
pub const DEFAULT: &str = "vscode";

pub fn by_id(id: &str) -> Option<&'static Profile> {
    ALL.iter().copied().find(|p| p.id == id)
}

/// The engine API's profile.
pub fn default_profile() -> &'static Profile {
    &engine::PROFILE
}

/// The profile `init` asked for: none → the default; an unknown id → the default and a warning.
pub fn choose(id: Option<&str>) -> (&'static Profile, Option<Log>) {
    match id.map(str::trim).filter(|s| !s.is_empty()) {
        None => (default_profile(), None),
        Some(id) => match by_id(id) {
            Some(p) => (p, None),
            None => {
                let known: Vec<&str> = ALL.iter().map(|p| p.id).collect();
                let shown: String = id.chars().take(64).collect();
                (
                    default_profile(),
                    Some(Log::warn(format!(
                        "hookwise: unknown host {shown:?} (known: {}); using the {DEFAULT} profile",
                        known.join(", ")
                    ))),
                )
            }
        },
    }
}

/// Every command-hook host's dialect, in registry order.
#[cfg(feature = "policy")]
pub fn dialects() -> impl Iterator<Item = &'static Dialect> {
    DIALECT_OF.iter().flatten().copied()
}

/// The dialect of a host (`None`: the host has no command hooks).
#[cfg(feature = "policy")]
pub fn dialect_of(host: &str) -> Option<&'static Dialect> {
    dialects().find(|d| d.host == host)
}

/// The dialect `hookwise init --<flag>` sets up.
#[cfg(feature = "policy")]
pub fn by_flag(flag: &str) -> Option<&'static Dialect> {
    dialects().find(|d| d.setup.is_some_and(|s| s.flag == flag))
}

/// The facts of a host.
pub fn facts(host: &str) -> Option<&'static Facts> {
    FACTS.iter().find(|(p, _)| p.id == host).map(|(_, f)| *f)
}

/// The tables the JS reads when it cannot ask the core, generated from the host files.
#[cfg(feature = "policy")]
pub mod tables;

#[cfg(test)]
pub(crate) mod tests;

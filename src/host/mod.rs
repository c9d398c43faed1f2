//! Host profiles: what each host's tools are and which argument keys they really read.
//!
//! hookwise sits in the tool-call path of several hosts, and their tools differ: OpenCode's
//! `write` reads `filePath`, OpenClaw's reads `path`, Claude Code's `Write` reads `file_path`.
//! The core never guesses across hosts: the host names itself in the `init` call (`host`), and
//! the gate, the trace, pre-action enforcement and context placement read that host's
//! [`Profile`] ([`profiles`]). A new host is a profile here plus a thin JS adapter.
//!
//! - A tool the profile does not name has role [`Role::Other`]. Under intent governance it is
//!   gated like a write (**default deny**): only what the profile knows changes nothing by
//!   itself ([`Profile::ungated`]: [`Role::Read`], and [`Role::Subagent`], whose own calls are
//!   gated) and hookwise's own tools ([`Profile::own_tool`]) pass without an intent; every
//!   other tool — unknown, new in a host release, another MCP server's — needs one, and every
//!   string under its path keys is scope-checked ([`args::other_paths`]). A new profile only
//!   marks its read-only tools `Role::Read`; the default deny follows.
//! - Reading a call's file or patch ([`args::path`], [`args::patch_text`]) applies the
//!   **ambiguity rule**: the tool's own key gives the value; every other key that any profile
//!   uses for that purpose (any ASCII case, `_`/`-` ignored: `FilePath`, `file-path`) must be
//!   absent, `null` or hold the same string. Otherwise the call names two targets, and the gate
//!   blocks it naming both keys: one host would write one file, a check of the other key would
//!   pass another (the decoy-key bypass). Keys in other scripts (a Cyrillic `і` in `fіlePath`)
//!   are not path keys: no host reads them.

#[cfg(feature = "policy")]
pub mod answer;
pub mod args;
#[cfg(feature = "policy")]
pub mod dialect;
/// Where Gemini CLI and Copilot CLI, whose hooks carry no model id, log the model.
#[cfg(feature = "policy")]
pub mod model_log;
mod gated;
/// What a call really is: hidden shells and patches (issue 38; policy build).
#[cfg(feature = "policy")]
pub mod hidden;
/// Kilo CLI, an OpenCode fork (its own section: `profile_kilo.rs`).
pub mod profile_kilo;
pub mod profiles;
/// The command-hook hosts (Codex, Gemini CLI, Copilot CLI, Qwen Code): served by the policy
/// core only (their hooks are `hook.event` calls), so the lean wasm does not carry them.
#[cfg(feature = "policy")]
pub mod profiles_cli;
/// Kimi Code, Mistral Vibe, OpenHands: command-hook hosts, each one file (its tools, dialect
/// and answers; policy core only, like the other command-hook hosts).
#[cfg(feature = "policy")]
pub mod kimi;
#[cfg(feature = "policy")]
pub mod openhands;
#[cfg(feature = "policy")]
pub mod vibe;
/// pi's tools (an in-process extension host, like OpenCode: served by the lean core too).
pub mod profiles_pi;
/// Cline CLI's in-process plugin host (policy build: its adapter starts the policy core).
#[cfg(feature = "policy")]
pub mod profiles_cline;

use crate::protocol::Log;

/// What a tool does, as far as hookwise is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Runs a shell command line (`keys.command`). Cannot be scope-checked by path.
    Shell,
    /// Creates or replaces one file (`keys.path`, `keys.content`).
    Write,
    /// Changes one existing file (`keys.path`; old/new strings, an edits list, or neither).
    Edit,
    /// Applies a patch text naming its files (`keys.patch`).
    Patch,
    /// Changes nothing in the project (reads, searches, fetches, its own todo list). With
    /// `keys.path`, the file it reads is remembered for stale-write checks.
    Read,
    /// Starts a sub-agent with a prompt (`keys.prompt`). Not gated itself: the sub-agent's own
    /// tool calls pass through the same hooks and inherit the session's intent.
    Subagent,
    /// Anything else.
    Other,
}

/// Where context for a call can go without changing what the tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// `# ` comment lines before the command line in `keys.command` (the host shows the model
    /// its changed call later).
    ShellComment,
    /// A delimited markdown block before the prompt in `keys.prompt` (a model reads it).
    PromptBlock,
    /// With the tool's result (see [`Profile::result`]); the arguments are never changed.
    WithResult,
}

/// How a block reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// The hook throws; the error message is the tool result (OpenCode 1.x and 2.x).
    Thrown,
    /// The hook answers `{block: true, blockReason}` (OpenClaw) or `{block: true, reason}` (pi);
    /// the reason is the tool message.
    Reason,
    /// `permissionDecision: "deny"` with a reason (Claude Code's hook protocol).
    Deny,
    /// The engine API answers `{blocked, reason}`; the extension shows the reason.
    Answer,
}

/// Where context that goes "with the result" lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultChannel {
    /// Appended to the tool's output.
    Output,
    /// A separate context field beside the call (Claude Code's `additionalContext`).
    ContextField,
}

/// The argument keys a tool's role reads. Several keys for one purpose only where one tool
/// name stands for tools of several hosts (the `vscode` profile); the ambiguity rule then
/// decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keys {
    /// The file written, changed or read.
    pub path: &'static [&'static str],
    pub content: &'static [&'static str],
    /// An edit's old and new text, and whether every occurrence is replaced.
    pub old: &'static [&'static str],
    pub new: &'static [&'static str],
    pub replace_all: &'static [&'static str],
    /// An edit's list of replacements (`""`: none), and the keys inside each item.
    pub edits: &'static str,
    pub item_old: &'static [&'static str],
    pub item_new: &'static [&'static str],
    /// The patch text.
    pub patch: &'static [&'static str],
    /// The shell command line (`""`: none).
    pub command: &'static str,
    /// The prompt a model reads (`""`: none).
    pub prompt: &'static str,
}

/// No keys (the start of every table entry: `Keys { path: &["filePath"], ..NONE }`).
pub const NONE: Keys = Keys {
    path: &[],
    content: &[],
    old: &[],
    new: &[],
    replace_all: &[],
    edits: "",
    item_old: &[],
    item_new: &[],
    patch: &[],
    command: "",
    prompt: "",
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tool {
    pub name: &'static str,
    pub role: Role,
    pub keys: Keys,
    pub context: Context,
}

/// An unknown tool: role other, no keys, context by the `promptFields` option.
pub const UNKNOWN: Tool = Tool {
    name: "",
    role: Role::Other,
    keys: NONE,
    context: Context::WithResult,
};

/// One host.
#[derive(Debug, PartialEq, Eq)]
pub struct Profile {
    /// What the host sends in `init` (`host`).
    pub id: &'static str,
    pub title: &'static str,
    /// Tool tables; the first table naming a tool wins (the `vscode` profile puts its merged
    /// entries for shared names before the tables it combines).
    pub tools: &'static [&'static [Tool]],
    pub block: Block,
    pub result: ResultChannel,
    /// The host rewrites some paths before it writes them (OpenClaw: a leading `~` or `@`, a
    /// `file:` URL, a trailing `</arg_value>`, a `.docodex`-style extension): a path in such a
    /// form is refused ([`args::rewritten`]), as the file it names cannot be checked.
    pub rewrites_paths: bool,
}

impl Profile {
    /// The tool's entry, if this host has it.
    pub fn tool(&self, name: &str) -> Option<&'static Tool> {
        self.tools
            .iter()
            .find_map(|t| t.iter().find(|x| x.name == name))
    }

    /// The tool's entry, or [`UNKNOWN`].
    pub fn entry(&self, name: &str) -> &'static Tool {
        self.tool(name).unwrap_or(&UNKNOWN)
    }

    pub fn role(&self, name: &str) -> Role {
        self.entry(name).role
    }

    /// Every tool once (the first entry of a name), in table order.
    pub fn all(&self) -> Vec<&'static Tool> {
        let mut v: Vec<&'static Tool> = Vec::new();
        for t in self.tools.iter().flat_map(|t| t.iter()) {
            if !v.iter().any(|x| x.name == t.name) {
                v.push(t);
            }
        }
        v
    }

    /// The tools this profile knows to change the project (shell, write, edit, patch).
    pub fn mutating(&self) -> Vec<String> {
        self.all()
            .into_iter()
            .filter(|t| matches!(t.role, Role::Shell | Role::Write | Role::Edit | Role::Patch))
            .map(|t| t.name.to_string())
            .collect()
    }

    /// The tools that read one file: governance's default `readTools`.
    pub fn readers(&self) -> Vec<String> {
        self.all()
            .into_iter()
            .filter(|t| t.role == Role::Read && !t.keys.path.is_empty())
            .map(|t| t.name.to_string())
            .collect()
    }

    /// The tool only reads: enforcement's fast path.
    pub fn read_only(&self, name: &str) -> bool {
        self.role(name) == Role::Read
    }

    /// The key holding the tool's shell command line, for a shell tool.
    pub fn shell_key(&self, name: &str) -> Option<&'static str> {
        let t = self.entry(name);
        (t.role == Role::Shell && !t.keys.command.is_empty()).then_some(t.keys.command)
    }
}

/// The host when `init` names none: the engine API's.
pub const DEFAULT: &str = "vscode";

/// Every profile.
#[cfg(not(feature = "policy"))]
pub static ALL: &[&Profile] = &[
    &profiles::OPENCODE,
    &profiles::OPENCODE2,
    &profiles::OPENCLAW,
    &profiles::CLAUDE_CODE,
    &profiles::VSCODE,
    &profiles_pi::PI,
    &profile_kilo::KILO,
];

/// Every profile (the policy core adds the command-hook hosts).
#[cfg(feature = "policy")]
pub static ALL: &[&Profile] = &[
    &profiles::OPENCODE,
    &profiles::OPENCODE2,
    &profiles::OPENCLAW,
    &profiles::CLAUDE_CODE,
    &profiles::VSCODE,
    &profiles_pi::PI,
    &profiles_cli::CODEX,
    &profiles_cli::GEMINI,
    &profiles_cli::COPILOT,
    &profiles_cli::QWEN,
    &kimi::PROFILE,
    &vibe::PROFILE,
    &openhands::PROFILE,
    &profiles_cline::CLINE,
    &profile_kilo::KILO,
];

pub fn by_id(id: &str) -> Option<&'static Profile> {
    ALL.iter().copied().find(|p| p.id == id)
}

/// The engine API's profile.
pub fn default_profile() -> &'static Profile {
    &profiles::VSCODE
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

#[cfg(test)]
#[path = "tests.rs"]
mod tests;

#[cfg(all(test, feature = "policy"))]
#[path = "engine_tests.rs"]
mod engine_tests;

#[cfg(all(test, feature = "policy"))]
#[path = "cline_tests.rs"]
mod cline_tests;

#[cfg(test)]
#[path = "opencode2_tests.rs"]
mod opencode2_tests;

#[cfg(test)]
#[path = "pi_tests.rs"]
mod pi_tests;

//! The host kit: the words every host is described in — a [`Profile`] (its tools and the
//! argument keys they really read, [`table`]), a command-hook host's [`dialect`] and
//! [`answer`] — and reading a call's arguments as the host's tool reads them ([`args`]). The
//! hosts themselves, one file each, and their registry are [`crate::hosts`].
//!
//! hookwise sits in the tool-call path of several hosts, and their tools differ: OpenCode's
//! `write` reads `filePath`, OpenClaw's reads `path`, Claude Code's `Write` reads `file_path`.
//! The core never guesses across hosts: the host names itself in the `init` call (`host`), and
//! the gate, the trace, pre-action enforcement and context placement read that host's
//! [`Profile`].
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
/// The words a tool table is written in.
pub mod table;

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
    /// With the tool's result; the arguments are never changed.
    WithResult,
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
#[derive(Debug)]
pub struct Profile {
    /// What the host sends in `init` (`host`).
    pub id: &'static str,
    pub title: &'static str,
    /// Tool tables; the first table naming a tool wins (the `vscode` profile puts its merged
    /// entries for shared names before the tables it combines).
    pub tools: &'static [&'static [Tool]],
    /// The host rewrites some paths before it writes them (OpenClaw: a leading `~` or `@`, a
    /// `file:` URL, a trailing `</arg_value>`, a `.docodex`-style extension): a path in such a
    /// form is refused ([`args::rewritten`]), as the file it names cannot be checked.
    pub rewrites_paths: bool,
    /// The host's shell tools take a list of commands (Cline's `run_commands`): the command
    /// lines a call runs, each to be read on its own (`None` from it: no form the host runs).
    /// `None`: one command line under the tool's command key.
    pub command_list: Option<fn(&serde_json::Value) -> Option<Vec<String>>>,
    /// A read tool whose input names several files (Cline's `read_files`), and the files a
    /// call of it reads.
    pub multi_read: Option<(&'static str, fn(&serde_json::Value) -> Vec<&str>)>,
    /// The host runs a call as the model wrote it, whatever a pre-tool hook answers (Qwen Code
    /// documents `updatedInput` and does not apply it; Kimi Code and OpenHands offer none): no
    /// shell can be put under the confining launcher there.
    pub keeps_args: bool,
}

/// The rest of a profile when only its id, title and tools are given (`..PLAIN`).
pub const PLAIN: Profile = Profile {
    id: "",
    title: "",
    tools: &[],
    rewrites_paths: false,
    command_list: None,
    multi_read: None,
    keeps_args: false,
};

/// Profiles are one per host: equal when they are the same host.
impl PartialEq for Profile {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Profile {}

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

#[cfg(test)]
mod tests;

//! What `hookwise init --codex | --gemini | --copilot | --qwen` writes (the `hook.event` event
//! `setup.host`): each host's hook entries and its MCP server entry, from the host's dialect
//! ([`crate::host::dialect`]). The JS only merges them into the project's files.
//!
//! What is written is portable: no path of the machine that ran `init`. Every hook entry is a
//! short line of POSIX shell ([`hook_entry`]) a person can read: it finds the project's
//! `node_modules/hookwise/dist/hook.sh` from wherever the host starts the process — the host's
//! project-folder variable where it sets one (`GEMINI_PROJECT_DIR`, `QWEN_PROJECT_DIR`,
//! `CLAUDE_PROJECT_DIR`), else the folder it runs in — walking up to the project's top (its
//! `.git`) and, from a linked git worktree, on to its main checkout, as
//! [`crate::governance::root`] finds the governed project, and runs it; the script runs the
//! native client for this platform, else Node (js/hook.sh). A session started in a sub-folder
//! or in a worktree (whose `node_modules` is the main checkout's) thus runs the project's
//! hookwise. A folder another user can write (owned by neither this user nor root, writable by
//! others, or by a group not this user's own) ends the search: a `node_modules/hookwise`
//! planted in a shared parent folder is never run (issue 38). Where none is found, the entry
//! says so on stderr, and the gate event's hook of a project that governs or enforces answers
//! with the host's deny carrying [`NOT_FOUND`] (fail closed). The MCP server entry is `sh -c`
//! with the same search ([`mcp_entry`]), running the project's `dist/cli.mjs mcp` with `node`. A clone plus `npm install`
//! works as it is; `--global` (`command: "hookwise"`) runs the `hookwise` on PATH instead, the
//! user's explicit choice.

use serde_json::{json, Map, Value};

use crate::host::dialect::{self, Dialect, HooksForm, McpFile, Setup};

/// The MCP server's name in every host's project configuration.
pub const SERVER: &str = "hookwise";

/// The model-facing sentence when the project's hookwise is not found where the host started
/// the hook (a deny's reason). No `'`: the entry single-quotes it for the shell.
pub const NOT_FOUND: &str = "hookwise blocked this call: hookwise is not installed where this session runs (no node_modules/hookwise in its folder, in the folders above it up to the top of the project, or in the main checkout of its git worktree; a folder another user can write is not looked in), and this project configures intent governance or pre-action enforcement. Tell the user to run npm install in the project (or hookwise init --global to use the hookwise on PATH); do not try to work around the block.";

/// The hook script in the installed package that every hook entry runs (js/hook.sh): the
/// native client for this platform when it is installed, else Node.
pub const HOOK_SCRIPT: &str = "node_modules/hookwise/dist/hook.sh";

/// What the entry prints on stderr when the project's hookwise is not found.
pub const NOT_INSTALLED: &str = "hookwise is not installed here (a folder another user can write is not looked in): run npm install";

/// A hook entry as `init` writes it for a host (project-folder variable `var`, `""`: none): a
/// line of POSIX shell a person can read, run by the host's shell, that finds [`HOOK_SCRIPT`]
/// as the Node launcher finds the project's hookwise — from `$VAR` or the folder the hook runs
/// in, up to the project's top (its `.git`), and from a linked worktree (a `.git` file naming
/// `<main>/.git/worktrees/<name>`, absolute or relative to the worktree) in its main checkout — and runs it for `host` and `event`.
/// A folder that is not this user's (`test -O`) or is a shared one (sticky: `/tmp`) ends the
/// search, and the script runs only from such a folder of this user's and only when it is this
/// user's file: a `node_modules/hookwise` planted in a parent folder another user can write is
/// never run (issue 38; the Node launcher's rule, as far as the shell's own tests can say it).
/// Not found: [`NOT_INSTALLED`] on stderr, and `deny` (the gate event's, when governance or
/// enforcement is on) on stdout; exit 0. Only builtins: no process but the host's shell until
/// the script runs (`sh`, then the native client or Node).
pub fn hook_entry(var: &str, host: &str, event: &str, deny: Option<&str>) -> String {
    entry(var, host, event, deny, false)
}

/// [`hook_entry`], or with `quiet` the entry of a hook the user's own configuration runs in
/// every project (Kimi Code): where no hookwise is found it says nothing and answers nothing
/// (exit 0, no output), as if hookwise were not there.
fn entry(var: &str, host: &str, event: &str, deny: Option<&str>, quiet: bool) -> String {
    let run = format!("exec /bin/sh \"$d/$h\" {host} {event}");
    let mut s = if quiet {
        walk(var, HOOK_SCRIPT, &run, ":")
    } else {
        find_and_run(var, HOOK_SCRIPT, &run)
    };
    if let Some(deny) = deny.filter(|_| !quiet) {
        debug_assert!(!deny.contains('\''));
        s.push_str(&format!("; printf '%s\\n' '{deny}'"));
    }
    s
}

/// The walk every portable entry makes (see [`hook_entry`]): `h` is `file` (relative to a
/// project folder), `d` the folder found, and `run` (which names `"$d/$h"`) runs only where
/// `$d/$h` is this user's file in a folder of this user's; else [`NOT_INSTALLED`] on stderr.
fn find_and_run(var: &str, file: &str, run: &str) -> String {
    walk(var, file, run, &format!("echo '{NOT_INSTALLED}' >&2"))
}

/// [`find_and_run`] with `missing` (shell) run where nothing is found.
fn walk(var: &str, file: &str, run: &str, missing: &str) -> String {
    let start = if var.is_empty() {
        "$PWD".to_string()
    } else {
        format!("${{{var}:-$PWD}}")
    };
    format!(
        concat!(
            "h={file}; d={start}; ",
            "while [ -n \"$d\" ] && [ -O \"$d\" ] && [ ! -k \"$d\" ] && [ ! -e \"$d/$h\" ] && [ ! -e \"$d/.git\" ]; do d=${{d%/*}}; done; ",
            "[ -f \"$d/.git\" ] && [ ! -e \"$d/$h\" ] && read -r g < \"$d/.git\" && g=${{g#gitdir: }} && {{ [ -z \"${{g%%/*}}\" ] || g=$d/$g; }} && d=${{g%/.git/worktrees/*}}; ",
            "[ -O \"$d\" ] && [ ! -k \"$d\" ] && [ -O \"$d/$h\" ] && {run}; ",
            "{missing}"
        ),
        file = file,
        start = start,
        run = run,
        missing = missing,
    )
}

/// The installed CLI every MCP server entry runs ([`mcp_entry`]).
pub const CLI_SCRIPT: &str = "node_modules/hookwise/dist/cli.mjs";

/// An MCP server entry's `sh -c` script for `host` (project-folder variable `var`): the same
/// walk as [`hook_entry`] to the project's [`CLI_SCRIPT`], run by `node` as `mcp` for the host;
/// not found, [`NOT_INSTALLED`] on stderr and exit 1 (the host reports the server as failed).
/// Like the hook entry, no machine path and a line a person can read.
pub fn mcp_entry(var: &str, host: &str) -> String {
    let tail = if host == "claude-code" {
        String::new()
    } else {
        format!(" --host {host}")
    };
    let mut s = find_and_run(var, CLI_SCRIPT, &format!("exec node \"$d/$h\" mcp{tail}"));
    s.push_str("; exit 1");
    s
}

/// [`hook_entry`] for a host that blocks only on exit code 2 (Letta Code): the hook runs the
/// Node client (`HOOKWISE_NATIVE=0`: the native client answers with exit 0 or 1 only), and where
/// hookwise is not found the gate's `reason` goes to stderr with exit 2.
pub fn hook_entry_exit(var: &str, host: &str, event: &str, reason: Option<&str>) -> String {
    let s = hook_entry(var, host, event, None).replacen(
        "&& exec /bin/sh",
        "&& HOOKWISE_NATIVE=0 exec /bin/sh",
        1,
    );
    match reason {
        Some(r) => {
            debug_assert!(!r.contains('\''));
            format!("{s}; echo '{r}' >&2; exit 2")
        }
        None => s,
    }
}

/// How a hook of the host (project-folder variable `var`) runs hookwise for `event`: `global`,
/// `hookwise hook [--host H] <Event>` on PATH; else [`hook_entry`] (`deny`: the answer when the
/// project's hookwise is not found — the gate event's, when governance or enforcement is on).
pub fn hook_command(
    var: &str,
    host: &str,
    event: &str,
    global: bool,
    deny: Option<&str>,
) -> String {
    command_for(var, host, event, global, deny, false)
}

fn command_for(
    var: &str,
    host: &str,
    event: &str,
    global: bool,
    deny: Option<&str>,
    quiet: bool,
) -> String {
    if global {
        return if host == "claude-code" {
            format!("hookwise hook {event}")
        } else {
            format!("hookwise hook --host {host} {event}")
        };
    }
    entry(var, host, event, deny, quiet)
}

/// The MCP server entry's command and arguments (not found: exit 1, the host reports the
/// server as failed).
fn server_argv(host: &str, global: bool) -> (String, Vec<String>) {
    if !global {
        let var = crate::hosts::dialect_of(host).map_or("", |d| d.project_dir_var);
        return ("sh".to_string(), vec!["-c".into(), mcp_entry(var, host)]);
    }
    let mut args: Vec<String> = vec!["mcp".into()];
    if host != "claude-code" {
        args.push("--host".into());
        args.push(host.into());
    }
    ("hookwise".to_string(), args)
}

/// The `.mcp.json` entry of Claude Code's server (`hookwise init --claude`).
pub fn claude_server(global: bool) -> Value {
    let (command, args) = server_argv("claude-code", global);
    json!({"type": "stdio", "command": command, "args": args})
}

/// The hook entries of a host (`{Event: [entry]}`, Claude's nested shape). `fail_closed`: the
/// project governs or enforces, so the gate event's hook denies when hookwise is not found.
pub fn hooks(d: &Dialect, s: &Setup, global: bool, fail_closed: bool) -> Value {
    let deny = fail_closed.then(|| {
        if d.deny_exit {
            NOT_FOUND.to_string()
        } else {
            crate::host::answer::deny(d, NOT_FOUND)
        }
    });
    let mut out = Map::new();
    for (name, kind) in d.events {
        let gate = if *kind == dialect::Event::PreTool {
            deny.as_deref()
        } else {
            None
        };
        let command = if d.deny_exit && !global {
            hook_entry_exit(d.project_dir_var, d.host, name, gate)
        } else {
            hook_command(d.project_dir_var, d.host, name, global, gate)
        };
        let mut h = json!({
            "type": "command",
            "command": command,
            "timeout": s.timeout,
        });
        if s.named {
            h["name"] = json!(format!("hookwise-{name}"));
        }
        let mut entry = json!({ "hooks": [h] });
        if matches!(kind, dialect::Event::PreTool | dialect::Event::PostTool) {
            entry["matcher"] = json!(s.tool_matcher);
        }
        out.insert(name.to_string(), json!([entry]));
    }
    Value::Object(out)
}

/// The hook entries of a host whose hooks are TOML tables (`[[hooks]]`, [`HooksForm`]): one
/// `{event, text}` per event, `text` the table as written. Kimi Code's entries are quiet where
/// no hookwise is found (its user's configuration runs them in every project) and cannot be
/// told the project's policy: they never deny for a missing hookwise. Mistral Vibe's gate hook
/// is `strict` (a hook that fails blocks the call; exit 2 alone would let it through).
pub fn toml_hooks(d: &Dialect, s: &Setup, global: bool, fail_closed: bool) -> Vec<Value> {
    let deny = fail_closed.then(|| crate::host::answer::deny(d, NOT_FOUND));
    let quiet = matches!(s.form, HooksForm::KimiUser { .. });
    d.events
        .iter()
        .map(|(name, kind)| {
            let gate = *kind == dialect::Event::PreTool;
            let deny = if gate { deny.as_deref() } else { None };
            let command = command_for(d.project_dir_var, d.host, name, global, deny, quiet);
            let tool = matches!(kind, dialect::Event::PreTool | dialect::Event::PostTool);
            let mut t = String::from("[[hooks]]\n");
            match s.form {
                HooksForm::VibeToml => {
                    t.push_str(&format!("name = {}\n", toml_str(&format!("hookwise-{name}"))));
                    t.push_str(&format!("type = {}\n", toml_str(name)));
                    t.push_str(&format!("command = {}\n", toml_str(&command)));
                    t.push_str(&format!("timeout = {}.0\n", s.timeout));
                    if gate {
                        t.push_str("strict = true\n");
                    }
                }
                _ => {
                    t.push_str(&format!("event = {}\n", toml_str(name)));
                    if tool {
                        t.push_str(&format!("matcher = {}\n", toml_str(s.tool_matcher)));
                    }
                    t.push_str(&format!("command = {}\n", toml_str(&command)));
                    t.push_str(&format!("timeout = {}\n", s.timeout));
                }
            }
            json!({"event": name, "text": t})
        })
        .collect()
}

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => o.push_str(&format!("\\u{:04X}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// The `setup.host` answer. Input: `{host?: flag, global?: bool, failClosed?: bool}`. Without a host: every host
/// `init` can set up, with the folder or program that says it is used.
pub fn answer(input: &Value) -> Value {
    let global = input.get("global").and_then(Value::as_bool) == Some(true);
    let fail_closed = input.get("failClosed").and_then(Value::as_bool) == Some(true);
    let Some(flag) = input.get("host").and_then(Value::as_str) else {
        let hosts: Vec<Value> = crate::hosts::dialects()
            .map(|d| {
                let flag = d.setup.map_or("claude", |s| s.flag);
                let f = crate::hosts::facts(d.host);
                let marker = f.and_then(|f| f.markers.first().copied()).unwrap_or("");
                let program = f.map_or("", |f| f.program);
                json!({"host": d.host, "flag": flag, "marker": marker, "program": program,
                       "hooksFile": d.setup.map_or(".claude/settings.json", |s| s.hooks_file),
                       "hooksForm": d.setup.map_or("json", |s| form_name(s.form)),
                       "userHome": d.setup.and_then(|s| user_home(s.form)),
                       // the event doctor answers once (a prompt's; else a tool's result)
                       "promptEvent": d.name_of(dialect::Event::Prompt).or(d.name_of(dialect::Event::PostTool)),
                       // what `doctor` adds to the host's line (""): what it cannot check
                       "doctor": d.setup.map_or("", |s| s.doctor)})
            })
            .collect();
        return json!({"hosts": hosts, "logs": []});
    };
    let Some(d) = crate::hosts::by_flag(flag) else {
        return json!({"error": format!("no command-hook host {:?}", flag.chars().take(32).collect::<String>()), "logs": []});
    };
    let s = d.setup.expect("a host init sets up");
    let (command, args) = server_argv(d.host, global);
    let mut server = json!({"command": command, "args": args});
    let mcp = match s.mcp {
        McpFile::Json { server_type } => {
            if let Some(t) = server_type {
                server["type"] = json!(t);
                if t == "local" {
                    // Copilot CLI: every tool of the server
                    server["tools"] = json!(["*"]);
                }
            }
            json!({"format": "json", "key": "mcpServers", "entry": server})
        }
        McpFile::None => json!({"format": "none"}),
        McpFile::VibeToml => {
            let args: Vec<String> = args.iter().map(|a| toml_str(a)).collect();
            let text = format!(
                "[[mcp_servers]]\nname = {}\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\n",
                toml_str(SERVER),
                toml_str(&command),
                args.join(", ")
            );
            json!({"format": "toml-array", "table": "mcp_servers", "name": SERVER, "text": text, "entry": server})
        }
        McpFile::Toml => {
            let args: Vec<String> = args.iter().map(|a| toml_str(a)).collect();
            let table = format!(
                "[mcp_servers.{SERVER}]\ncommand = {}\nargs = [{}]\n",
                toml_str(&command),
                args.join(", ")
            );
            json!({"format": "toml", "table": format!("mcp_servers.{SERVER}"), "text": table, "entry": server})
        }
    };
    json!({
        "host": d.host,
        "flag": s.flag,
        "server": SERVER,
        "hooksFile": s.hooks_file,
        "hooksForm": form_name(s.form),
        "userHome": user_home(s.form),
        "hooks": if s.form == HooksForm::Claude { hooks(d, &s, global, fail_closed) } else { json!({}) },
        "hooksToml": if s.form == HooksForm::Claude { json!([]) } else { json!(toml_hooks(d, &s, global, fail_closed)) },
        "mcpFile": s.mcp_file,
        "mcp": mcp,
        "trust": s.trust,
        "deny": crate::host::answer::deny(d, "{reason}"),
        "logs": [],
    })
}

/// The hooks file's form as `init` and `doctor` (JS) read it.
fn form_name(f: HooksForm) -> &'static str {
    match f {
        HooksForm::Claude => "json",
        HooksForm::KimiUser { .. } => "kimi-user-toml",
        HooksForm::VibeToml => "vibe-toml",
    }
}

/// Where a user-level hooks file lives: `$var`, else `~/<dir>`.
fn user_home(f: HooksForm) -> Option<Value> {
    match f {
        HooksForm::KimiUser { var, dir } => Some(json!({"var": var, "dir": dir})),
        _ => None,
    }
}

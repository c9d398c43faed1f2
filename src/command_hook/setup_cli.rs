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
//! with the host's deny carrying [`NOT_FOUND`] (fail closed). The MCP server entry runs
//! `node -e <launcher> mcp` ([`launcher`]: the same search in Node). A clone plus `npm install`
//! works as it is; `--global` (`command: "hookwise"`) runs the `hookwise` on PATH instead, the
//! user's explicit choice.

use serde_json::{json, Map, Value};

use crate::host::dialect::{self, Dialect, HooksForm, McpFile, Setup};

/// The MCP server's name in every host's project configuration.
pub const SERVER: &str = "hookwise";

/// The model-facing sentence when the project's hookwise is not found where the host started
/// the hook (a deny's reason), and what the launcher writes on stderr then. No `'`: the
/// launcher is single-quoted for the shell.
pub const NOT_FOUND: &str = "hookwise blocked this call: hookwise is not installed where this session runs (no node_modules/hookwise in its folder, in the folders above it up to the top of the project, or in the main checkout of its git worktree; a folder another user can write is not looked in), and this project configures intent governance or pre-action enforcement. Tell the user to run npm install in the project (or hookwise init --global to use the hookwise on PATH); do not try to work around the block.";

/// The launcher's Node code: finds the project's `node_modules/hookwise/dist/cli.mjs` from
/// `process.env[VAR]` (where the host sets its project-folder variable) or the folder the
/// process runs in, up to the first `.git` (a folder: the project's top; a file: a linked
/// worktree, whose main checkout is looked at too), and runs it with the arguments given after
/// the code — a `hook` through `dist/hook.cjs` beside it where there is one (CommonJS, builtins
/// only: a command hook runs once per tool call, and an ES module's loader is a tenth of
/// Node's start). Not found: `NOT_FOUND` on stderr, `OUT` on stdout (a deny or nothing), exit
/// `CODE`. Only Node's builtins; `V`, `S`, `O`, `X` are filled in by [`launcher`].
const LAUNCHER: &str = concat!(
    r#"const f=require("fs"),p=require("path"),c="node_modules/hookwise/dist/cli.mjs";"#,
    r#"let d=V||process.cwd(),m=null;"#,
    // issue 38: a folder another user can write (not this user's or root's, or writable by
    // others, or by a group not this user's own) is never looked in, nor any folder above it
    r#"const w=process.getuid?process.getuid():-1,q=process.getgid?process.getgid():-1,o=x=>{try{const s=f.statSync(x);return w<0||(s.uid===w||s.uid===0)&&!(s.mode&2)&&!(s.mode&16&&s.gid!==q)}catch{return false}};"#,
    r#"for(let i=0;i<64&&!m&&o(d);i++){if(f.existsSync(p.join(d,c))){m=p.join(d,c);break}"#,
    r#"let g=null;try{g=f.readFileSync(p.join(d,".git"),"utf8")}catch{}"#,
    r#"if(g!==null||f.existsSync(p.join(d,".git"))){const r=/^gitdir:\s*(.+)$/m.exec(g||"");"#,
    r#"if(r)try{const x=p.resolve(d,r[1].trim()),y=p.dirname(p.resolve(x,f.readFileSync(p.join(x,"commondir"),"utf8").trim()));"#,
    r#"if(o(y)&&f.existsSync(p.join(y,c)))m=p.join(y,c)}catch{}break}"#,
    r#"const u=p.dirname(d);if(u===d)break;d=u}"#,
    r#"if(m){const h=p.join(p.dirname(m),"hook.cjs");"#,
    r#"if(process.argv[1]==="hook"&&f.existsSync(h)){process.argv.splice(1,0,h);require(h).main(process.argv.slice(3))}"#,
    r#"else{process.argv.splice(1,0,m);import(require("url").pathToFileURL(m))}}"#,
    r#"else{process.stderr.write(S+"\n");process.stdout.write(O);process.exitCode=X}"#,
);

/// The launcher's code for the host whose project-folder variable is `var` (`""`: none), with
/// what it answers when hookwise is not found: `out` on stdout, exit `code`.
pub fn launcher(var: &str, out: &str, code: u8) -> String {
    let lit = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let v = if var.is_empty() {
        "\"\"".to_string()
    } else {
        format!("process.env.{var}")
    };
    LAUNCHER
        .replacen("V||", &format!("{v}||"), 1)
        .replacen("write(S+", &format!("write({}+", lit(NOT_FOUND)), 1)
        .replacen("write(O)", &format!("write({})", lit(out)), 1)
        .replacen("exitCode=X", &format!("exitCode={code}"), 1)
}

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
    let start = if var.is_empty() {
        "$PWD".to_string()
    } else {
        format!("${{{var}:-$PWD}}")
    };
    let mut s = format!(
        concat!(
            "h={script}; d={start}; ",
            "while [ -n \"$d\" ] && [ -O \"$d\" ] && [ ! -k \"$d\" ] && [ ! -e \"$d/$h\" ] && [ ! -e \"$d/.git\" ]; do d=${{d%/*}}; done; ",
            "[ -f \"$d/.git\" ] && [ ! -e \"$d/$h\" ] && read -r g < \"$d/.git\" && g=${{g#gitdir: }} && {{ [ -z \"${{g%%/*}}\" ] || g=$d/$g; }} && d=${{g%/.git/worktrees/*}}; ",
            "[ -O \"$d\" ] && [ ! -k \"$d\" ] && [ -O \"$d/$h\" ] && exec /bin/sh \"$d/$h\" {host} {event}; ",
            "{missing}"
        ),
        script = HOOK_SCRIPT,
        start = start,
        host = host,
        event = event,
        missing = if quiet {
            ":".to_string()
        } else {
            format!("echo '{NOT_INSTALLED}' >&2")
        },
    );
    if let Some(deny) = deny.filter(|_| !quiet) {
        debug_assert!(!deny.contains('\''));
        s.push_str(&format!("; printf '%s\\n' '{deny}'"));
    }
    s
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
    let mut args: Vec<String> = Vec::new();
    let command = if global {
        "hookwise".to_string()
    } else {
        args.push("-e".into());
        let var = crate::hosts::dialect_of(host).map_or("", |d| d.project_dir_var);
        args.push(launcher(var, "", 1));
        "node".to_string()
    };
    args.push("mcp".into());
    if host != "claude-code" {
        args.push("--host".into());
        args.push(host.into());
    }
    (command, args)
}

/// The `.mcp.json` entry of Claude Code's server (`hookwise init --claude`).
pub fn claude_server(global: bool) -> Value {
    let (command, args) = server_argv("claude-code", global);
    json!({"type": "stdio", "command": command, "args": args})
}

/// The hook entries of a host (`{Event: [entry]}`, Claude's nested shape). `fail_closed`: the
/// project governs or enforces, so the gate event's hook denies when hookwise is not found.
pub fn hooks(d: &Dialect, s: &Setup, global: bool, fail_closed: bool) -> Value {
    let deny = fail_closed.then(|| crate::host::answer::deny(d, NOT_FOUND));
    let mut out = Map::new();
    for (name, kind) in d.events {
        let gate = if *kind == dialect::Event::PreTool {
            deny.as_deref()
        } else {
            None
        };
        let command = hook_command(d.project_dir_var, d.host, name, global, gate);
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
                       // what `doctor` says beside the entry where the host loads it in its own way
                       "doctor": d.setup
                           .filter(|s| s.form != HooksForm::Claude || s.mcp == McpFile::None)
                           .map(|s| s.trust),
                       "promptEvent": d.name_of(dialect::Event::Prompt)
                           .or_else(|| d.name_of(dialect::Event::PostTool))})
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
                // Copilot CLI: every tool of the server
                server["tools"] = json!(["*"]);
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

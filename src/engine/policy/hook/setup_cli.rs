//! What `hookwise init --codex | --gemini | --copilot | --qwen` writes (the `hook.event` event
//! `setup.host`): each host's hook entries and its MCP server entry, from the host's dialect
//! ([`crate::host::dialect`]). The JS only merges them into the project's files.
//!
//! What is written is portable: no path of the machine that ran `init`. A hook runs `node
//! <project>/node_modules/hookwise/dist/cli.mjs hook --host <host> <Event>` with `<project>` the
//! host's project-folder variable where it sets one (`"$GEMINI_PROJECT_DIR"`,
//! `"$QWEN_PROJECT_DIR"`, `"$CLAUDE_PROJECT_DIR"`), else relative to the folder the hook runs
//! in (Codex and Copilot CLI run hooks in the session's folder); the MCP server is `node
//! node_modules/hookwise/dist/cli.mjs mcp --host <host>`, started in the project. A clone plus
//! `npm install` works as it is; `--global` (`command: "hookwise"`) runs the `hookwise` on PATH
//! instead, the user's explicit choice.

use serde_json::{json, Map, Value};

use crate::host::dialect::{self, Dialect, McpFile, Setup};

/// The MCP server's name in every host's project configuration.
pub const SERVER: &str = "hookwise";

/// The package's command line, relative to the project (`node_modules/…`).
pub const CLI: &str = "node_modules/hookwise/dist/cli.mjs";

/// How a hook runs hookwise: `global` (the `hookwise` on PATH), else `node` with the package's
/// cli under the host's project folder variable (`var`; none: relative).
pub fn command_base(var: &str, global: bool) -> String {
    match (global, var) {
        (true, _) => "hookwise".into(),
        (false, "") => format!("node {CLI}"),
        (false, v) => format!("node \"${v}/{CLI}\""),
    }
}

/// The MCP server entry's command and arguments.
fn server_argv(host: &str, global: bool) -> (String, Vec<String>) {
    let mut args: Vec<String> = Vec::new();
    let command = if global {
        "hookwise".to_string()
    } else {
        args.push(CLI.into());
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

/// The hook entries of a host (`{Event: [entry]}`, Claude's nested shape).
pub fn hooks(d: &Dialect, s: &Setup, global: bool) -> Value {
    let base = command_base(d.project_dir_var, global);
    let mut out = Map::new();
    for (name, kind) in d.events {
        let mut h = json!({
            "type": "command",
            "command": format!("{base} hook --host {} {name}", d.host),
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

/// The `setup.host` answer. Input: `{host?: flag, global?: bool}`. Without a host: every host
/// `init` can set up, with the folder or program that says it is used.
pub fn answer(input: &Value) -> Value {
    let global = input.get("global").and_then(Value::as_bool) == Some(true);
    let Some(flag) = input.get("host").and_then(Value::as_str) else {
        let hosts: Vec<Value> = dialect::ALL
            .iter()
            .map(|d| {
                let flag = d.setup.map_or("claude", |s| s.flag);
                json!({"host": d.host, "flag": flag, "marker": d.marker, "program": d.program,
                       "hooksFile": d.setup.map_or(".claude/settings.json", |s| s.hooks_file),
                       "promptEvent": d.name_of(dialect::Event::Prompt)})
            })
            .collect();
        return json!({"hosts": hosts, "logs": []});
    };
    let Some(d) = dialect::by_flag(flag) else {
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
        "hooks": hooks(d, &s, global),
        "mcpFile": s.mcp_file,
        "mcp": mcp,
        "trust": s.trust,
        "deny": crate::host::answer::deny(d, "{reason}"),
        "logs": [],
    })
}

//! Hosts' hidden shells and patches (issue 38): a call is judged by what it does, not by the
//! name the host gives it. Before governance and enforcement look at a call, [`read_call`]
//! says what the call really is:
//!
//! - **A wrapper that names another tool** (Qwen Code's deferred `tool_call {name, arguments}`,
//!   reached through `tool_search`): the named tool with those arguments, when this host's
//!   profile knows it; else it goes on through the rules below with the inner arguments.
//! - **A tool whose arguments carry a command is a shell**: a tool the profile does not know,
//!   whose arguments (or the arguments it wraps) hold a command under a command key
//!   ([`COMMAND_KEYS`]), is read as the profile's shell with that command (Qwen's `monitor
//!   {command}` today; the next host's next one tomorrow) — so every rule for shells applies
//!   to it: the shell reader, enforcement's SOPs, and the confined-or-refused rule of a
//!   governed shell. A host with no shell in its profile refuses it.
//! - **A patch in a shell** (Codex runs `apply_patch <<'EOF' … EOF` given to its shell itself,
//!   outside any process a hook or the kernel could watch): a shell command that is exactly one
//!   `apply_patch` (or `applypatch`) with the patch as a here-document or one quoted argument
//!   is judged as the host's patch tool with that patch — so the scope applies; where the gate
//!   would let it run, it is refused with a sentence naming the patch tool (Codex runs no hook
//!   after such a patch: its record could not be written, and no change goes unrecorded). A
//!   command that holds a patch for `apply_patch` in any other form is refused.
//! - **A patch under another name** (Copilot CLI sends its freeform `apply_patch` to hooks as
//!   `Edit` with the raw patch): a call of a tool the profile does not know whose input is a
//!   `*** Begin Patch` text (the input itself, or under `input`, `patch` or `command`) is read
//!   as the host's patch tool.

use serde_json::{json, Map, Value};

use super::{Profile, Role};

/// Argument keys under which a tool carries a shell command.
pub const COMMAND_KEYS: &[&str] = &["command", "cmd", "commandLine", "command_line", "script", "shell_command"];
/// Keys under which a wrapper carries the wrapped tool's arguments.
const WRAPPED: &[&str] = &["arguments", "args", "input", "params", "parameters", "tool_input"];
/// Keys under which a patch tool's freeform input arrives.
const PATCH_KEYS: &[&str] = &["input", "patch", "command", "patchText"];
const BEGIN: &str = "*** Begin Patch";

/// What a call is, when it is not what its name says.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    /// Judge it as `tool` of this profile with `args`.
    As(&'static str, Value),
    /// Refuse it (the model's sentence).
    Refuse(String),
    /// A patch given to the host's shell, judged as `tool` with `args` (its scope); where the
    /// gate would let it run and record it, refused instead: the host applies it itself and
    /// runs no hook after it (Codex 0.171), so its record could not be written.
    ShellPatch(&'static str, Value),
}

/// The model's sentence for a patch given to the shell that the gate would allow.
pub fn shell_patch_block(tool: &str, patch_tool: &str) -> String {
    format!(
        "hookwise blocked `{tool}`: the command gives a patch to `apply_patch`, which this host applies itself with no hook after it, so its Agent Trace record could not be written. Make the same change with the `{patch_tool}` tool: it is checked against the intent's scope and recorded."
    )
}

/// What the call of `tool` with `args` really is on `host`, when its name does not say it.
pub fn read_call(host: &Profile, tool: &str, args: &Value) -> Option<Seen> {
    let known = host.tool(tool);
    match known.map(|t| t.role) {
        Some(Role::Shell) => shell_patch(host, tool, args),
        Some(_) => None,
        None => unknown(host, tool, args, 0),
    }
}

fn unknown(host: &Profile, tool: &str, args: &Value, depth: u8) -> Option<Seen> {
    // a wrapper naming a tool this host has: that tool
    if let Some(obj) = args.as_object() {
        let name = ["name", "tool", "tool_name", "toolName"]
            .iter()
            .find_map(|k| obj.get(*k).and_then(Value::as_str));
        let inner = WRAPPED.iter().find_map(|k| obj.get(*k));
        if let (Some(name), Some(inner), 0) = (name, inner, depth) {
            if let Some(t) = host.tool(name) {
                let inner = match inner {
                    // a wrapper's arguments may come as JSON text
                    Value::String(s) => serde_json::from_str(s).unwrap_or(Value::Null),
                    v => v.clone(),
                };
                return match read_call(host, t.name, &inner) {
                    Some(seen) => Some(seen),
                    None => Some(Seen::As(t.name, inner)),
                };
            }
            if let Some(seen) = unknown(host, name, inner, depth + 1) {
                return Some(seen);
            }
        }
    }
    if let Some(patch) = freeform_patch(args) {
        return as_patch(host, tool, patch);
    }
    let command = command_in(args).or_else(|| {
        let obj = args.as_object()?;
        WRAPPED.iter().find_map(|k| obj.get(*k).and_then(command_in))
    })?;
    match host.all().into_iter().find(|t| t.role == Role::Shell && !t.keys.command.is_empty()) {
        Some(sh) => {
            let mut m = Map::new();
            m.insert(sh.keys.command.to_string(), Value::String(command.to_string()));
            Some(Seen::As(sh.name, Value::Object(m)))
        }
        None => Some(Seen::Refuse(format!(
            "hookwise blocked `{tool}`: its arguments carry a command, so it runs a shell, and hookwise knows no shell of this host it could check it as. Use the host's own shell tool."
        ))),
    }
}

/// The command a tool's arguments carry at their top level, if any.
fn command_in(args: &Value) -> Option<&str> {
    let obj = args.as_object()?;
    COMMAND_KEYS
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
        .filter(|c| !c.trim().is_empty())
}

/// A `*** Begin Patch` text given as the input or under one of [`PATCH_KEYS`].
fn freeform_patch(args: &Value) -> Option<&str> {
    let text = match args {
        Value::String(s) => s.as_str(),
        Value::Object(o) => PATCH_KEYS.iter().find_map(|k| o.get(*k).and_then(Value::as_str))?,
        _ => return None,
    };
    text.trim_start().starts_with(BEGIN).then_some(text)
}

fn as_patch(host: &Profile, tool: &str, patch: &str) -> Option<Seen> {
    match host.all().into_iter().find(|t| t.role == Role::Patch && !t.keys.patch.is_empty()) {
        Some(p) => Some(Seen::As(p.name, json!({ p.keys.patch[0]: patch }))),
        None => Some(Seen::Refuse(format!(
            "hookwise blocked `{tool}`: its input is a patch, and this host has no patch tool hookwise can check it as. Make the change with the host's file tools."
        ))),
    }
}

/// A shell command that is a patch for `apply_patch`.
fn shell_patch(host: &Profile, tool: &str, args: &Value) -> Option<Seen> {
    let lines = super::args::command_lines(host, tool, args)?;
    for line in &lines {
        let lower = line.to_ascii_lowercase();
        if !(lower.contains("apply_patch") || lower.contains("applypatch")) || !line.contains(BEGIN) {
            continue;
        }
        return Some(match exact_apply_patch(line) {
            Some(patch) => match as_patch(host, tool, &patch)? {
                Seen::As(name, a) => Seen::ShellPatch(name, a),
                r => r,
            },
            None => Seen::Refuse(format!(
                "hookwise blocked `{tool}`: the command gives a patch to `apply_patch` in a form hookwise cannot read as the patch it is. Run `apply_patch` alone with the patch as a here-document (`apply_patch <<'EOF'` … `EOF`), or use the apply_patch tool."
            )),
        });
    }
    None
}

/// `apply_patch <<'EOF'\n…\nEOF` (any delimiter, quoted or not) or `apply_patch '<patch>'` /
/// `"<patch>"`, as the whole command: the patch.
fn exact_apply_patch(line: &str) -> Option<String> {
    let t = line.trim();
    let rest = t
        .strip_prefix("apply_patch")
        .or_else(|| t.strip_prefix("applypatch"))?;
    if !rest.starts_with([' ', '\t', '<']) {
        return None;
    }
    let rest = rest.trim_start_matches([' ', '\t']);
    if let Some(h) = rest.strip_prefix("<<") {
        let h = h.strip_prefix('-').unwrap_or(h).trim_start_matches([' ', '\t']);
        let (first, body) = h.split_once('\n')?;
        let delim = first.trim().trim_matches(['\'', '"']);
        if delim.is_empty() || delim.contains([' ', ';', '&', '|', '<', '>']) {
            return None;
        }
        // the body up to the delimiter's own line, and nothing after it
        let mut out = Vec::new();
        let mut lines = body.split('\n');
        for l in lines.by_ref() {
            if l.trim_end() == delim {
                return lines.all(|x| x.trim().is_empty()).then(|| out.join("\n"));
            }
            out.push(l);
        }
        return None;
    }
    for q in ['\'', '"'] {
        if let Some(inner) = rest.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            if !inner.contains(q) && (q == '\'' || !inner.contains(['$', '`', '\\'])) {
                return Some(inner.to_string());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Role;
    use crate::hosts::choose;

    fn p(id: &str) -> &'static Profile {
        choose(Some(id)).0
    }

    #[test]
    fn qwens_deferred_monitor_is_its_shell() {
        let q = p("qwen");
        // in the profile: a shell of its own
        assert_eq!(q.entry("monitor").role, Role::Shell);
        assert_eq!(read_call(q, "monitor", &json!({"command": "tail -f x"})), None);
        let inner = json!({"command": "printf x > .orchestration/active_intents.yaml"});
        let wrapped = json!({"name": "monitor", "arguments": inner});
        assert_eq!(read_call(q, "tool_call", &wrapped), Some(Seen::As("monitor", inner.clone())));
        // the next deferred tool nobody listed yet, wrapped or not: the shell
        let wrapped = json!({"name": "watcher", "arguments": inner});
        assert_eq!(read_call(q, "tool_call", &wrapped), Some(Seen::As("run_shell_command", inner.clone())));
        // a wrapper of a tool the host has: that tool, with its arguments (as JSON text too)
        let w = json!({"name": "write_file", "arguments": "{\"file_path\": \"a.txt\", \"content\": \"x\"}"});
        assert_eq!(read_call(q, "tool_call", &w), Some(Seen::As("write_file", json!({"file_path": "a.txt", "content": "x"}))));
        // a known reader stays what it is; an unknown tool without a command is not a shell
        assert_eq!(read_call(q, "glob", &json!({"pattern": "*"})), None);
        assert_eq!(read_call(q, "cron_list", &json!({})), None);
        for k in COMMAND_KEYS {
            let s = read_call(q, "some_new_tool", &json!({ *k: "rm -rf src" }));
            assert!(matches!(s, Some(Seen::As(name, _)) if q.entry(name).role == Role::Shell), "{k}");
        }
    }

    #[test]
    fn codex_apply_patch_through_the_shell_is_the_patch() {
        let c = p("codex");
        let patch = "*** Begin Patch\n*** Update File: README.md\n@@\n-a\n+b\n*** End Patch";
        for cmd in [
            format!("apply_patch <<'EOF'\n{patch}\nEOF"),
            format!("apply_patch <<EOF\n{patch}\nEOF\n"),
            format!("applypatch <<\"PATCH\"\n{patch}\nPATCH"),
            format!("apply_patch '{patch}'"),
        ] {
            assert_eq!(
                read_call(c, "Bash", &json!({"command": cmd})),
                Some(Seen::ShellPatch("apply_patch", json!({"command": patch}))),
                "{cmd}"
            );
        }
        for cmd in [
            format!("apply_patch <<'EOF'\n{patch}\nEOF\nrm -rf /tmp/x"),
            format!("cd sub && apply_patch <<'EOF'\n{patch}\nEOF"),
            format!("bash -lc \"apply_patch <<'EOF'\n{patch}\nEOF\""),
            format!("apply_patch \"$(cat p)\" # {patch}"),
        ] {
            assert!(matches!(read_call(c, "Bash", &json!({"command": cmd})), Some(Seen::Refuse(_))), "{cmd}");
        }
        assert_eq!(read_call(c, "Bash", &json!({"command": "ls"})), None);
        // Codex's hidden typed input is its shell
        assert_eq!(c.entry("write_stdin").role, Role::Shell);
    }

    #[test]
    fn copilots_freeform_apply_patch_is_read_as_a_patch() {
        let c = p("copilot");
        let patch = "*** Begin Patch\n*** Add File: src/a.ts\n+x\n*** End Patch\n";
        for args in [json!(patch), json!({"input": patch}), json!({"patch": patch})] {
            assert_eq!(read_call(c, "Edit", &args), Some(Seen::As("apply_patch", json!({"patch": patch}))), "{args}");
        }
    }
}

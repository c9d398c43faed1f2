//! Where the context for a tool call goes. It must never change what the tool does. The host's
//! profile ([`crate::host`]) says, per tool:
//!
//! * a shell command (OpenCode's `bash`, Roo's `execute_command`) gets it as `# ` comment
//!   lines before the command, which runs exactly as before;
//! * a prompt for a model (OpenCode's `task.prompt`, Roo's `new_task.message`, Claude Code's
//!   `Agent.prompt`) gets the delimited markdown block;
//! * everything else the host has — file contents, patches, paths, URLs, patterns, queries,
//!   todo lists — is never altered: the context is delivered with the tool's result instead
//!   (OpenClaw and Claude Code: for every tool, shell commands too, as the model never reads
//!   its changed call there);
//! * a tool the profile does not name (custom and MCP tools): the configured prompt fields
//!   (`promptFields`) get the markdown block, else the result.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::context::{strip_blocks, Style};
use crate::host::{Context, Profile};
use crate::protocol::PathKey;
use crate::wikilink::{ConceptSet, ScanMode};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Prepend the block to this top-level string field, in this style.
    Prepend { field: String, style: Style },
    /// Deliver the block with the tool's result (`tool.execute.after`).
    WithResult,
}

/// Where the tool's arguments are seen from: the whole value, or — for large arguments — only
/// the top-level field types and excerpts around each `[[` that the host found (the host ships
/// `needle`-led excerpts so a 1 MB argument does not cross the boundary; the core still
/// decides what is a link).
pub enum ArgsView<'a> {
    Full(&'a Value),
    Excerpts {
        fields: &'a BTreeMap<String, String>,
        excerpts: &'a [Excerpt],
    },
}

/// A piece of one string argument: `path` names the string, `text` runs from one character
/// before a `[[` to one character after the `]]` that closes it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Excerpt {
    pub path: Vec<PathKey>,
    pub text: String,
}

impl ArgsView<'_> {
    /// Is `field` a top-level string argument?
    pub fn has_string(&self, field: &str) -> bool {
        match self {
            ArgsView::Full(v) => v.get(field).is_some_and(Value::is_string),
            ArgsView::Excerpts { fields, .. } => fields.get(field).is_some_and(|t| t == "string"),
        }
    }

    /// The concepts named in the arguments, first seen first, deduplicated.
    pub fn concepts(&self, host: &Profile, tool: &str) -> Vec<String> {
        match self {
            ArgsView::Full(v) => concepts_in_args(host, tool, v),
            ArgsView::Excerpts { excerpts, .. } => {
                let shell_field = host.shell_key(tool);
                let mut set = ConceptSet::default();
                for e in excerpts.iter() {
                    let shell = matches!((e.path.as_slice(), shell_field), ([PathKey::Key(k)], Some(f)) if k == f);
                    set.add_text_sections(
                        &e.text,
                        if shell {
                            ScanMode::Shell
                        } else {
                            ScanMode::Prose
                        },
                    );
                }
                set.into_vec()
            }
        }
    }
}

pub fn placement(
    host: &Profile,
    tool: &str,
    args: &ArgsView,
    prompt_fields: &[String],
) -> Placement {
    let has_string = |f: &str| !f.is_empty() && args.has_string(f);
    let Some(t) = host.tool(tool) else {
        return match prompt_fields.iter().find(|f| has_string(f)) {
            Some(f) => Placement::Prepend {
                field: f.clone(),
                style: Style::Markdown,
            },
            None => Placement::WithResult,
        };
    };
    match t.context {
        Context::ShellComment if has_string(t.keys.command) => Placement::Prepend {
            field: t.keys.command.to_string(),
            style: Style::ShellComment,
        },
        Context::PromptBlock if has_string(t.keys.prompt) => Placement::Prepend {
            field: t.keys.prompt.to_string(),
            style: Style::Markdown,
        },
        _ => Placement::WithResult,
    }
}

/// The concepts named in every string anywhere in `args` (nested objects and arrays), in
/// first-seen order, deduplicated. Non-strings are ignored. A shell command's `[[ … ]]` tests
/// are not links.
pub fn concepts_in_args(host: &Profile, tool: &str, args: &Value) -> Vec<String> {
    let mut set = ConceptSet::default();
    let shell_field = host.shell_key(tool);
    match args {
        Value::Object(m) => {
            for (k, v) in m {
                match v {
                    Value::String(s) if Some(k.as_str()) == shell_field => {
                        set.add_text_sections(&strip_blocks(s), ScanMode::Shell)
                    }
                    _ => walk(v, &mut set),
                }
            }
        }
        other => walk(other, &mut set),
    }
    set.into_vec()
}

fn walk(v: &Value, set: &mut ConceptSet) {
    match v {
        Value::String(s) => set.add_text_sections(&strip_blocks(s), ScanMode::Prose),
        Value::Array(a) => a.iter().for_each(|x| walk(x, set)),
        Value::Object(m) => m.values().for_each(|x| walk(x, set)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vs() -> &'static Profile {
        crate::hosts::default_profile()
    }

    fn pf() -> Vec<String> {
        vec!["prompt".into(), "instructions".into()]
    }

    #[test]
    fn per_tool_placement() {
        let p = |tool: &str, args: Value| placement(vs(), tool, &ArgsView::Full(&args), &pf());
        assert_eq!(
            p("bash", json!({"command": "ls"})),
            Placement::Prepend {
                field: "command".into(),
                style: Style::ShellComment
            }
        );
        assert_eq!(
            p("task", json!({"prompt": "x", "description": "d"})),
            Placement::Prepend {
                field: "prompt".into(),
                style: Style::Markdown
            }
        );
        for t in [
            "write",
            "edit",
            "apply_patch",
            "read",
            "glob",
            "grep",
            "webfetch",
            "websearch",
            "todowrite",
            "write_to_file",
        ] {
            assert_eq!(
                p(t, json!({"content": "[[a]]", "prompt": "[[a]]"})),
                Placement::WithResult,
                "{t}"
            );
        }
        assert_eq!(
            p("myserver_ask", json!({"instructions": "x"})),
            Placement::Prepend {
                field: "instructions".into(),
                style: Style::Markdown
            }
        );
        assert_eq!(
            p(
                "github_create_issue",
                json!({"title": "t", "body": "[[a]]"})
            ),
            Placement::WithResult
        );
        assert_eq!(p("bash", json!({"command": 3})), Placement::WithResult);
    }

    #[test]
    fn seed_extraction_table() {
        let c = |args: Value| concepts_in_args(vs(), "custom", &args);
        assert_eq!(c(json!({"prompt": "about [[auth]]"})), vec!["auth"]);
        assert_eq!(c(json!({"a": "[[x]] [[y]]", "b": "[[x]]"})), vec!["x", "y"]);
        assert_eq!(
            c(json!({"outer": {"inner": {"deep": "[[Nested Thing]]"}}})),
            vec!["nested-thing"]
        );
        assert_eq!(
            c(json!({"list": ["[[one]]", {"k": "[[two]]"}, 3, null]})),
            vec!["one", "two"]
        );
        assert_eq!(c(json!({"a": "plain", "n": 42})), Vec::<String>::new());
        assert_eq!(c(json!({})), Vec::<String>::new());
        assert_eq!(
            c(json!({"n": 12, "b": true, "f": 1.5})),
            Vec::<String>::new()
        );
        assert_eq!(c(json!({"a": "[[]] [x] [[unclosed"})), Vec::<String>::new());
        assert_eq!(c(json!("top-level [[string]]")), vec!["string"]);
    }

    #[test]
    fn excerpts_give_the_same_concepts_and_placement_as_the_full_arguments() {
        let fields: BTreeMap<String, String> = [
            ("command".into(), "string".into()),
            ("n".into(), "number".into()),
        ]
        .into();
        let ex = vec![
            Excerpt {
                path: vec!["command".into()],
                text: " [[ -f x ]] && [[auth]] ".into(),
            },
            Excerpt {
                path: vec!["meta".into(), PathKey::Index(0)],
                text: "x[[REST API]]]".into(),
            },
            Excerpt {
                path: vec!["meta".into(), PathKey::Index(1)],
                text: " [[jwt]]".into(),
            },
        ];
        let view = ArgsView::Excerpts {
            fields: &fields,
            excerpts: &ex,
        };
        assert_eq!(view.concepts(vs(), "bash"), vec!["auth", "jwt"]);
        assert_eq!(
            placement(vs(), "bash", &view, &pf()),
            Placement::Prepend {
                field: "command".into(),
                style: Style::ShellComment
            }
        );
        assert!(!view.has_string("n"));
    }

    #[test]
    fn a_reissued_call_does_not_snowball() {
        let block = crate::context::fit(
            &["## [[auth]]".into(), "Related: [[jwt]] (3 files)".into()],
            Style::ShellComment,
            8000,
        );
        let args = json!({"command": format!("{block}\necho [[auth]] [[mine]]")});
        assert_eq!(concepts_in_args(vs(), "bash", &args), vec!["auth", "mine"]);
    }

    #[test]
    fn shell_tests_in_commands_are_not_concepts() {
        let args = json!({"command": "[[ -d src ]] && grep -r '[[auth]]' src", "description": "[[ not a test ]]"});
        assert_eq!(
            concepts_in_args(vs(), "bash", &args),
            vec!["auth", "not-a-test"]
        );
    }

    #[test]
    fn each_host_places_by_its_own_profile() {
        let at = |h: &Profile, tool: &str, args: Value| {
            placement(h, tool, &ArgsView::Full(&args), &pf())
        };
        let comment = Placement::Prepend {
            field: "command".into(),
            style: Style::ShellComment,
        };
        let prompt = |f: &str| Placement::Prepend {
            field: f.into(),
            style: Style::Markdown,
        };
        let cmd = json!({"command": "echo [[a]]"});
        assert_eq!(at(&crate::hosts::opencode::PROFILE, "bash", cmd.clone()), comment);
        assert_eq!(at(vs(), "execute_command", cmd.clone()), comment);
        // OpenClaw and Claude Code: the model never reads its changed call
        assert_eq!(
            at(&crate::hosts::openclaw::PROFILE, "exec", cmd.clone()),
            Placement::WithResult
        );
        assert_eq!(
            at(&crate::hosts::claude::PROFILE, "Bash", cmd.clone()),
            Placement::WithResult
        );
        // a tool of another host is a custom tool here: only the prompt fields count
        assert_eq!(
            at(&crate::hosts::opencode::PROFILE, "execute_command", cmd),
            Placement::WithResult
        );
        assert_eq!(
            at(&crate::hosts::claude::PROFILE, "Agent", json!({"prompt": "x"})),
            prompt("prompt")
        );
        assert_eq!(
            at(vs(), "new_task", json!({"message": "x", "mode": "code"})),
            prompt("message")
        );
        // a host's own tool is never a custom tool, whatever its argument names
        assert_eq!(
            at(
                &crate::hosts::claude::PROFILE,
                "Write",
                json!({"file_path": "a", "prompt": "x"})
            ),
            Placement::WithResult
        );
        assert_eq!(
            at(&crate::hosts::opencode::PROFILE, "my_mcp_tool", json!({"prompt": "x"})),
            prompt("prompt")
        );
        // OpenClaw's exec: a `[[ … ]]` test in its command is no concept
        assert_eq!(
            concepts_in_args(
                &crate::hosts::openclaw::PROFILE,
                "exec",
                &json!({"command": "[[ -f x ]] && echo [[auth]]"})
            ),
            vec!["auth"]
        );
    }
}

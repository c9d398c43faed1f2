//! Where the context for a tool call goes. It must never change what the tool does:
//!
//! * a shell command (`bash`, Roo's `execute_command`, OpenClaw's `exec`) gets it as `# `
//!   comment lines before the command, which runs exactly as before;
//! * a prompt for a model (`task.prompt`, Roo's `new_task.message`, and the configured prompt
//!   fields of custom and MCP tools) gets the delimited markdown block;
//! * everything else — file contents, patches, paths, URLs, patterns, queries, todo lists —
//!   is never altered: the context is delivered with the tool's result instead.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::context::{strip_blocks, Style};
use crate::protocol::PathKey;
use crate::wikilink::{ConceptSet, ScanMode};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Prepend the block to this top-level string field, in this style.
    Prepend { field: String, style: Style },
    /// Deliver the block with the tool's result (`tool.execute.after`).
    WithResult,
}

/// Tools whose command field is a shell command line.
const SHELL_TOOLS: &[(&str, &str)] = &[
    ("bash", "command"),
    ("execute_command", "command"),
    ("exec", "command"),
];
/// Tools whose prompt field is read by a model (sub-agents).
const PROMPT_TOOLS: &[(&str, &str)] = &[("task", "prompt"), ("new_task", "message")];
/// Built-in tools none of whose arguments may ever be altered.
const RESULT_ONLY_TOOLS: &[&str] = &[
    // OpenCode
    "read",
    "write",
    "edit",
    "multiedit",
    "apply_patch",
    "patch",
    "glob",
    "grep",
    "list",
    "ls",
    "webfetch",
    "websearch",
    "codesearch",
    "todowrite",
    "todoread",
    "skill",
    "question",
    "lsp",
    "invalid",
    // Roo Code and forks
    "write_to_file",
    "write_file",
    "apply_diff",
    "search_replace",
    "search_and_replace",
    "edit_file",
    "read_file",
    "list_files",
    "search_files",
    "insert_content",
];

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
    pub fn concepts(&self, tool: &str) -> Vec<String> {
        match self {
            ArgsView::Full(v) => concepts_in_args(tool, v),
            ArgsView::Excerpts { excerpts, .. } => {
                let shell_field = SHELL_TOOLS
                    .iter()
                    .find(|(t, _)| *t == tool)
                    .map(|(_, f)| *f);
                let mut set = ConceptSet::default();
                for e in excerpts.iter() {
                    let shell = matches!((e.path.as_slice(), shell_field), ([PathKey::Key(k)], Some(f)) if k == f);
                    set.add_text(
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

pub fn placement(tool: &str, args: &ArgsView, prompt_fields: &[String]) -> Placement {
    let has_string = |f: &str| args.has_string(f);
    if let Some((_, f)) = SHELL_TOOLS.iter().find(|(t, _)| *t == tool) {
        if has_string(f) {
            return Placement::Prepend {
                field: f.to_string(),
                style: Style::ShellComment,
            };
        }
        return Placement::WithResult;
    }
    if let Some((_, f)) = PROMPT_TOOLS.iter().find(|(t, _)| *t == tool) {
        if has_string(f) {
            return Placement::Prepend {
                field: f.to_string(),
                style: Style::Markdown,
            };
        }
        return Placement::WithResult;
    }
    if RESULT_ONLY_TOOLS.contains(&tool) {
        return Placement::WithResult;
    }
    match prompt_fields.iter().find(|f| has_string(f)) {
        Some(f) => Placement::Prepend {
            field: f.clone(),
            style: Style::Markdown,
        },
        None => Placement::WithResult,
    }
}

/// The concepts named in every string anywhere in `args` (nested objects and arrays), in
/// first-seen order, deduplicated. Non-strings are ignored. A shell command's `[[ … ]]` tests
/// are not links.
pub fn concepts_in_args(tool: &str, args: &Value) -> Vec<String> {
    let mut set = ConceptSet::default();
    let shell_field = SHELL_TOOLS
        .iter()
        .find(|(t, _)| *t == tool)
        .map(|(_, f)| *f);
    match args {
        Value::Object(m) => {
            for (k, v) in m {
                match v {
                    Value::String(s) if Some(k.as_str()) == shell_field => {
                        set.add_text(&strip_blocks(s), ScanMode::Shell)
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
        Value::String(s) => set.add_text(&strip_blocks(s), ScanMode::Prose),
        Value::Array(a) => a.iter().for_each(|x| walk(x, set)),
        Value::Object(m) => m.values().for_each(|x| walk(x, set)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pf() -> Vec<String> {
        vec!["prompt".into(), "instructions".into()]
    }

    #[test]
    fn per_tool_placement() {
        let p = |tool: &str, args: Value| placement(tool, &ArgsView::Full(&args), &pf());
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
        let c = |args: Value| concepts_in_args("custom", &args);
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
        assert_eq!(view.concepts("bash"), vec!["auth", "jwt"]);
        assert_eq!(
            placement("bash", &view, &pf()),
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
        assert_eq!(concepts_in_args("bash", &args), vec!["auth", "mine"]);
    }

    #[test]
    fn shell_tests_in_commands_are_not_concepts() {
        let args = json!({"command": "[[ -d src ]] && grep -r '[[auth]]' src", "description": "[[ not a test ]]"});
        assert_eq!(concepts_in_args("bash", &args), vec!["auth", "not-a-test"]);
    }
}

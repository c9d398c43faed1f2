//! The `apply_patch` text (OpenCode `patchText`, Roo `patch`, OpenClaw `input`):
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path          then `+line` lines: the new file
//! *** Update File: path
//! *** Move to: new/path       optional, right after Update
//! @@ optional context         then ` ctx`, `-old`, `+new` lines; `*** End of File` may close
//! *** Delete File: path
//! *** End Patch
//! ```
//!
//! Parsing is lenient (no Begin/End markers needed, `\r\n` accepted, paths trimmed): the gate
//! must see every path the patch touches even when the tool would reject the patch itself.

/// One line of an update hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    Context(String),
    Add(String),
    Remove(String),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hunk {
    pub lines: Vec<HunkLine>,
}

impl Hunk {
    /// The hunk's lines as they read after it is applied (context and added lines).
    pub fn new_side(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(s) | HunkLine::Add(s) => Some(s.as_str()),
                HunkLine::Remove(_) => None,
            })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    Add {
        path: String,
        lines: Vec<String>,
    },
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
    Delete {
        path: String,
    },
}

impl FileOp {
    /// The path the file has after the patch (the Move to target, if any).
    pub fn final_path(&self) -> &str {
        match self {
            FileOp::Add { path, .. } | FileOp::Delete { path } => path,
            FileOp::Update { path, move_to, .. } => move_to.as_deref().unwrap_or(path),
        }
    }
}

/// Parse a patch into its file operations.
pub fn parse(text: &str) -> Vec<FileOp> {
    let mut ops: Vec<FileOp> = Vec::new();
    for raw in text.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        // OpenClaw (and Codex-style parsers) trim a header line before reading it (JS `trim`:
        // Unicode white space and U+FEFF): an indented `*** Add File:` still adds a file.
        let head = line.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if let Some(p) = head.strip_prefix("*** Add File:") {
            ops.push(FileOp::Add {
                path: p.trim().to_string(),
                lines: Vec::new(),
            });
        } else if let Some(p) = head.strip_prefix("*** Update File:") {
            ops.push(FileOp::Update {
                path: p.trim().to_string(),
                move_to: None,
                hunks: Vec::new(),
            });
        } else if let Some(p) = head.strip_prefix("*** Delete File:") {
            ops.push(FileOp::Delete {
                path: p.trim().to_string(),
            });
        } else if let Some(p) = head.strip_prefix("*** Move to:") {
            if let Some(FileOp::Update {
                move_to: move_to @ None,
                ..
            }) = ops.last_mut()
            {
                *move_to = Some(p.trim().to_string());
            } else {
                // A stray Move to still names a path the gate must check; so does a second
                // one after an Update (OpenCode moves to the first and skips the rest, so
                // keeping only the last would let the first go unchecked).
                ops.push(FileOp::Update {
                    path: p.trim().to_string(),
                    move_to: None,
                    hunks: Vec::new(),
                });
            }
        } else if line.starts_with("*** ") {
            // Begin/End Patch, End of File: structure only.
            continue;
        } else {
            match ops.last_mut() {
                Some(FileOp::Add { lines, .. }) => {
                    if let Some(s) = line.strip_prefix('+') {
                        lines.push(s.to_string());
                    }
                }
                Some(FileOp::Update { hunks, .. }) => {
                    if line.starts_with("@@") {
                        hunks.push(Hunk::default());
                        continue;
                    }
                    let hl = if let Some(s) = line.strip_prefix('+') {
                        HunkLine::Add(s.to_string())
                    } else if let Some(s) = line.strip_prefix('-') {
                        HunkLine::Remove(s.to_string())
                    } else if let Some(s) = line.strip_prefix(' ') {
                        HunkLine::Context(s.to_string())
                    } else if line.is_empty() {
                        // an empty context line whose leading space was stripped
                        HunkLine::Context(String::new())
                    } else {
                        continue;
                    };
                    if hunks.is_empty() {
                        hunks.push(Hunk::default());
                    }
                    hunks.last_mut().expect("a hunk exists").lines.push(hl);
                }
                _ => {}
            }
        }
    }
    // A trailing empty "context" line is usually the text's final newline.
    for op in &mut ops {
        if let FileOp::Update { hunks, .. } = op {
            for h in hunks.iter_mut() {
                while matches!(h.lines.last(), Some(HunkLine::Context(s)) if s.is_empty()) {
                    h.lines.pop();
                }
            }
            hunks.retain(|h| !h.lines.is_empty());
        }
    }
    ops
}

/// Every path the patch touches: Add, Update, Delete and Move to targets, in order.
pub fn paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for op in parse(text) {
        match op {
            FileOp::Add { path, .. } | FileOp::Delete { path } => out.push(path),
            FileOp::Update { path, move_to, .. } => {
                out.push(path);
                out.extend(move_to);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "*** Begin Patch\r
*** Add File: src/new.ts\r
+export const a = 1;\r
+export const b = 2;\r
*** Update File: src/old.ts\r
*** Move to: src/renamed.ts\r
@@ function f() {\r
 keep\r
-gone\r
+added\r
 keep2\r
@@\r
 x\r
+y\r
*** End of File\r
*** Delete File:   docs/obsolete.md  \r
*** End Patch\r
";

    #[test]
    fn every_path_is_found() {
        assert_eq!(
            paths(PATCH),
            vec![
                "src/new.ts",
                "src/old.ts",
                "src/renamed.ts",
                "docs/obsolete.md"
            ]
        );
        assert!(paths("no patch here").is_empty());
        assert_eq!(paths("*** Move to: ../escape"), vec!["../escape"]);
    }

    /// OpenCode's apply_patch moves to the first `*** Move to:` after an Update and skips
    /// the others: every one of them is a path the gate checks, the first is the move.
    #[test]
    fn a_second_move_to_is_a_path_too() {
        let text = "*** Update File: src/auth/a.ts\n*** Move to: docs/evil.md\n*** Move to: src/auth/b.ts\n@@\n-a\n+b\n";
        assert_eq!(
            paths(text),
            vec!["src/auth/a.ts", "docs/evil.md", "src/auth/b.ts"]
        );
        assert_eq!(parse(text)[0].final_path(), "docs/evil.md");
    }

    #[test]
    fn operations_and_hunks() {
        let ops = parse(PATCH);
        assert_eq!(
            ops[0],
            FileOp::Add {
                path: "src/new.ts".into(),
                lines: vec!["export const a = 1;".into(), "export const b = 2;".into()]
            }
        );
        let FileOp::Update { move_to, hunks, .. } = &ops[1] else {
            panic!()
        };
        assert_eq!(move_to.as_deref(), Some("src/renamed.ts"));
        assert_eq!(ops[1].final_path(), "src/renamed.ts");
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].new_side(), vec!["keep", "added", "keep2"]);
        assert_eq!(hunks[1].new_side(), vec!["x", "y"]);
        assert_eq!(hunks[0].lines[1], HunkLine::Remove("gone".into()));
        assert_eq!(
            ops[2],
            FileOp::Delete {
                path: "docs/obsolete.md".into()
            }
        );
    }

    #[test]
    fn hunk_without_header() {
        let ops = parse("*** Update File: a\n line\n+new\n");
        let FileOp::Update { hunks, .. } = &ops[0] else {
            panic!()
        };
        assert_eq!(hunks[0].new_side(), vec!["line", "new"]);
    }
}

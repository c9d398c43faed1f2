//! `apply_patch` text (`governance::patch::parse`, `paths`): every path it reports is in the
//! text, trimmed; every header line the text holds is reported; parsing is total.

use hookwise::governance::patch::{self, FileOp};
use proptest::prelude::*;

use crate::common::{check, lines_from, mutate_str};

const WORDS: &[&str] = &[
    "*** Begin Patch",
    "*** End Patch",
    "*** Add File: ",
    "*** Update File: ",
    "*** Delete File: ",
    "*** Move to: ",
    "*** End of File",
    "***",
    "*** ",
    "@@",
    "@@ fn a()",
    "+",
    "-",
    " ",
    "src/auth/a.ts",
    "../x",
    "\t",
];

fn patch_like() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => lines_from(WORDS),
        2 => mutate_str(lines_from(WORDS)),
        1 => any::<String>(),
    ]
}

const HEADERS: &[&str] = &[
    "*** Add File:",
    "*** Update File:",
    "*** Delete File:",
    "*** Move to:",
];

#[test]
fn patch_paths_are_the_headers_of_the_text() {
    check("patch: parse / paths", 512, patch_like(), |text| {
        let ops = patch::parse(&text);
        let paths = patch::paths(&text);
        // each header line gives exactly one path, in order, trimmed (a header may be indented:
        // OpenClaw trims each line before reading it)
        let want: Vec<String> = text
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .map(|l| l.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}'))
            .filter_map(|l| {
                HEADERS
                    .iter()
                    .find_map(|h| l.strip_prefix(h))
                    .map(|p| p.trim().to_string())
            })
            .collect();
        prop_assert_eq!(&paths, &want);
        for p in &paths {
            prop_assert!(text.contains(p.as_str()), "{p:?} is not in the text");
            prop_assert_eq!(p.trim(), p.as_str());
        }
        // the operations' paths are those paths
        let mut from_ops = Vec::new();
        for op in &ops {
            match op {
                FileOp::Add { path, lines } => {
                    from_ops.push(path.clone());
                    for l in lines {
                        prop_assert!(text.contains(&format!("+{}", l)), "line {:?}", l);
                    }
                }
                FileOp::Delete { path } => from_ops.push(path.clone()),
                FileOp::Update {
                    path,
                    move_to,
                    hunks,
                } => {
                    from_ops.push(path.clone());
                    from_ops.extend(move_to.iter().cloned());
                    prop_assert!(hunks.iter().all(|h| !h.lines.is_empty()));
                }
            }
            prop_assert!(paths.iter().any(|p| p == op.final_path()));
        }
        prop_assert_eq!(from_ops, paths);
        Ok(())
    });
}

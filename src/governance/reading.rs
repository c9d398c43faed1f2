//! Paths as the host means them: where a write through a file tool lands, read two ways.
//!
//! A host turns a tool's path into a file in one of two ways, and hookwise does not bet on
//! which:
//! - **on the text**: the path is joined to the working folder and folded lexically (`..`
//!   removes the component written before it: Node's `path.resolve`/`path.join`/
//!   `path.normalize`, which OpenCode 1.x, Claude Code and OpenClaw use), then the OS follows
//!   the symlinks of what remains — `src/auth/l/../../../README.md` is `README.md` whatever
//!   `src/auth/l` points to;
//! - **on disk**: the path goes to the OS as written (OpenCode's `write` passes an absolute
//!   path unchanged), which follows each symlink before the `..` after it — the same text is
//!   then a file beside `l`'s target.
//!
//! A write is judged on both readings ([`read_write_path`]), with the host's `lstat` of each
//! component (`Request::Lstat`: kind, link target, link count), walked here as the kernel
//! walks a path:
//! - the **lexical** path (folded text) and the **real** file (every symlink followed,
//!   the last component's too, and a *dangling* link's target: `open(O_CREAT)` creates the
//!   file where the link points) must both lie inside the worktree, and both be in scope (the
//!   gate checks both: [`Resolved::Linked`]);
//! - the two readings must name the **same file**; when they do not (a `..` after a symlink)
//!   the write is refused whatever the scope says;
//! - a regular file with more than one name (**hard link**, `nlink > 1`) is refused: a write
//!   changes the file under every name, wherever the others are;
//! - **`.git`** (a component named `.git`, any case: the repository, a worktree's or a
//!   submodule's `.git` file, the git dir it points to when that lies inside) is refused, as
//!   `.orchestration/` is: git's hooks and config run code;
//! - a symlink that stays inside the worktree and the scope is allowed (`src/cur -> v2`).
//!
//! Out of reach, and said so in docs/governance.md: a link swapped between the check and the
//! write (the host writes after hookwise answers; no path check closes that race — only a
//! sandbox does), bind mounts, and case-insensitive file systems (macOS, Windows) where two
//! spellings name one file: on those, exclude patterns already match ignoring case, and
//! `.git`/`.orchestration` are refused in any case.

use super::scope::{
    joined, same_comp, slashes, Abs, Resolved, MAX_PATH_BYTES, MAX_PATH_COMPONENTS,
};

/// What the host's `lstat` says of one path (a reply entry of `Request::Lstat`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Nothing there (ENOENT, ENOTDIR).
    Missing,
    /// A regular file and how many names it has.
    File {
        nlink: u64,
    },
    Dir,
    /// A symlink and its target as `readlink` gives it (relative to the link's folder, or absolute).
    Link(String),
    /// A FIFO, socket or device.
    Other,
    /// The host could not look (permissions…): refused, never guessed.
    Unreadable(String),
}

impl Node {
    /// A reply entry `[kind, target, nlink]` (`kind`: file, dir, link, other, missing, error;
    /// `target`: the link's target, or the error's words).
    pub fn from_entry(kind: &str, target: Option<String>, nlink: u64) -> Node {
        match (kind, target) {
            ("missing", _) => Node::Missing,
            ("file", _) => Node::File { nlink },
            ("dir", _) => Node::Dir,
            ("other", _) => Node::Other,
            ("link", Some(t)) if !t.is_empty() => Node::Link(t),
            (_, t) => Node::Unreadable(t.unwrap_or_else(|| format!("the host answered {kind:?}"))),
        }
    }
}

/// The most symlinks one path may pass through (Linux's `MAXSYMLINKS`).
const MAX_HOPS: usize = 40;

/// Where the kernel's walk of a path ended: the absolute path with every symlink followed,
/// and what is there (`None`: nothing yet — the write creates it).
struct Walked {
    abs: Abs,
    last: Option<Node>,
}

/// Walk `start` as the kernel does: each component is looked at (`facts`), a symlink is
/// replaced by its target (the last one too, dangling or not), `..` goes to the parent of the
/// folder reached so far. Below a missing component nothing exists, so the rest is folded on
/// its text (the host's `mkdir -p` makes real folders). A fact not known yet sets `need` and
/// the walk goes on as if it were a folder, so that one round asks for every component.
fn walk(
    start: &Abs,
    windows: bool,
    facts: &mut dyn FnMut(&str) -> Option<Node>,
    need: &mut bool,
) -> Result<Walked, String> {
    let mut cur = Abs {
        root: start.root.clone(),
        comps: Vec::new(),
    };
    let mut todo: Vec<String> = start.comps.iter().rev().cloned().collect();
    let mut missing_from: Option<usize> = None;
    let mut hops = 0;
    let mut last = Some(Node::Dir);
    while let Some(c) = todo.pop() {
        if c == ".." {
            cur.comps.pop();
            if missing_from.is_some_and(|m| cur.comps.len() <= m) {
                missing_from = None;
            }
            last = Some(Node::Dir);
            continue;
        }
        cur.comps.push(c);
        if missing_from.is_some() {
            last = None;
            continue;
        }
        let here = cur.render();
        let node = facts(&here).unwrap_or_else(|| {
            *need = true;
            Node::Dir
        });
        match node {
            Node::Link(target) => {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err("too many levels of symlinks".into());
                }
                cur.comps.pop();
                let target = slashes(&target, windows);
                let rest = match Abs::parse(&target) {
                    Some(a) => {
                        cur = Abs {
                            root: a.root,
                            comps: Vec::new(),
                        };
                        a.comps
                    }
                    None => target
                        .split('/')
                        .filter(|c| !c.is_empty() && *c != ".")
                        .map(str::to_string)
                        .collect(),
                };
                todo.extend(rest.into_iter().rev());
                last = Some(Node::Dir);
            }
            Node::Unreadable(why) => return Err(format!("{here} could not be looked at ({why})")),
            // Nothing there, or a file with more components after it (ENOTDIR): from here on
            // the path does not exist yet.
            Node::Missing => {
                missing_from = Some(cur.comps.len() - 1);
                last = None;
            }
            Node::File { .. } | Node::Other if !todo.is_empty() => {
                missing_from = Some(cur.comps.len() - 1);
                last = None;
            }
            n => last = Some(n),
        }
    }
    Ok(Walked { abs: cur, last })
}

/// `p` with `..` folded on its text (at the root a `..` stays at the root).
fn fold(p: &Abs) -> Abs {
    let mut comps: Vec<String> = Vec::with_capacity(p.comps.len());
    for c in &p.comps {
        if c == ".." {
            comps.pop();
        } else {
            comps.push(c.clone());
        }
    }
    Abs {
        root: p.root.clone(),
        comps,
    }
}

/// `p` relative to `root` (whole components; ignoring ASCII case on Windows).
fn below(p: &Abs, root: &Abs, windows: bool) -> Option<String> {
    let inside = same_comp(&p.root, &root.root, windows)
        && p.comps.len() >= root.comps.len()
        && p.comps
            .iter()
            .zip(&root.comps)
            .all(|(a, b)| same_comp(a, b, windows));
    inside.then(|| p.comps[root.comps.len()..].join("/"))
}

/// A component named `.git`, in any case.
pub fn is_git_path(rel: &str) -> bool {
    rel.split('/').any(|c| c.eq_ignore_ascii_case(".git"))
}

/// Where a write to `path` (relative to `base`, else to the worktree) lands, read on its text
/// and on disk (see the module's docs). `facts(p)` is the host's `lstat` of `p`, `None` when
/// not known yet: the caller asks the host for every path `facts` was asked about and runs this
/// again (the answer of a run that asked something unknown is meaningless).
///
/// Bounded like [`super::scope::resolve`]: a path over the limits is refused before anything is
/// asked; the walk looks at each component once per reading, plus the links' targets (at most
/// 40 links).
pub fn read_write_path(
    worktree: &str,
    base: &str,
    path: &str,
    facts: &mut dyn FnMut(&str) -> Option<Node>,
) -> Resolved {
    let (wt, raw, windows) =
        match joined(worktree, base, path, (MAX_PATH_BYTES, MAX_PATH_COMPONENTS)) {
            Ok(j) => j,
            Err(r) => return r,
        };
    let lexical = fold(&raw);
    let mut need = false;
    let walked = (|| {
        let wt_real = walk(&wt, windows, facts, &mut need)?;
        let on_text = walk(&lexical, windows, facts, &mut need)?;
        let on_disk = if raw.comps.iter().any(|c| c == "..") {
            Some(walk(&raw, windows, facts, &mut need)?)
        } else {
            None
        };
        Ok::<_, String>((wt_real, on_text, on_disk))
    })();
    let (wt_real, file, on_disk) = match walked {
        Ok(w) => w,
        Err(why) => return Resolved::Refused(why),
    };
    if need {
        return Resolved::Invalid("not looked at yet".into());
    }
    let wt_text = fold(&wt);
    let Some(rel_text) =
        below(&lexical, &wt_text, windows).or_else(|| below(&lexical, &wt_real.abs, windows))
    else {
        return Resolved::Outside(lexical.render());
    };
    let Some(rel_real) = below(&file.abs, &wt_real.abs, windows) else {
        return Resolved::Outside(file.abs.render());
    };
    if let Some(d) = on_disk.filter(|d| d.abs != file.abs) {
        return Resolved::Refused(format!(
            "its `..` comes after a symlink, so it names two files: {} read on the text, {} with the symlink followed first",
            file.abs.render(),
            d.abs.render()
        ));
    }
    if rel_text.is_empty() || rel_real.is_empty() {
        return Resolved::Invalid("the path is the worktree itself, not a file".into());
    }
    if is_git_path(&rel_text) || is_git_path(&rel_real) {
        return Resolved::Refused(
            "it is in `.git`, which holds git's hooks and configuration; file tools never write it (use git)".into(),
        );
    }
    if let Some(Node::File { nlink }) = file.last {
        if nlink > 1 {
            return Resolved::Refused(format!(
                "it is a hard link (the file has {nlink} names), so a write would change it under its other names too, wherever they are"
            ));
        }
    }
    if rel_text == rel_real {
        Resolved::Inside(rel_real)
    } else {
        Resolved::Linked {
            lexical: rel_text,
            real: rel_real,
        }
    }
}

/// What the gate makes of one target (see [`verdict`]).
pub enum Verdict {
    /// In scope.
    Allow,
    /// In `.orchestration/` (the text for the model's message).
    Governance(String),
    /// Outside the scope or the worktree, or unreadable.
    OutOfScope(String),
    /// Refused whatever the scope says.
    Refused(String),
}

/// The gate's judgement of target `raw`, read as `r`, under `in_scope` (the active intent's
/// scope): every reading of the path must be in scope, none in `.orchestration/`.
pub fn verdict(raw: &str, r: Resolved, in_scope: &dyn Fn(&str) -> bool) -> Verdict {
    let governance = |rel: &str| super::gate::is_governance_path(rel);
    match r {
        Resolved::Inside(rel) if governance(&rel) => Verdict::Governance(format!("`{rel}`")),
        Resolved::Linked { lexical, real } if governance(&lexical) || governance(&real) => {
            Verdict::Governance(format!("`{raw}` (resolves to `{real}`)"))
        }
        Resolved::Inside(rel) if in_scope(&rel) => Verdict::Allow,
        Resolved::Linked { lexical, real } if in_scope(&lexical) && in_scope(&real) => {
            Verdict::Allow
        }
        Resolved::Inside(rel) if rel == raw => Verdict::OutOfScope(format!("`{rel}`")),
        Resolved::Inside(rel) | Resolved::Linked { real: rel, .. } => {
            Verdict::OutOfScope(format!("`{raw}` (resolves to `{rel}`)"))
        }
        Resolved::Outside(real) => Verdict::OutOfScope(format!(
            "`{raw}` (resolves to {real}, outside the worktree)"
        )),
        Resolved::Invalid(why) => Verdict::OutOfScope(format!("`{raw}` ({why})")),
        Resolved::Refused(why) => Verdict::Refused(format!("`{raw}`: {why}")),
    }
}

/// The model's message for targets refused whatever the scope says.
pub fn refused_message(tool: &str, refused: &[String]) -> String {
    format!(
        "hookwise blocked `{tool}`: {}. No intent's scope allows this; write the file by its own path inside the worktree, or ask the user.",
        refused.join("; ")
    )
}

#[cfg(test)]
#[path = "reading_tests.rs"]
mod tests;

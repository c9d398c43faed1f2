//! The governed project of a process that starts somewhere inside it (a command hook: one
//! process per event, started in the session's current folder).
//!
//! The root is fixed when the project is set up, never taken from a hook's payload: a
//! session that moved into a sub-folder, or into a git worktree of the project
//! (`.claude/worktrees/w1` after Claude Code's `EnterWorktree`), is still governed by the
//! project's `.orchestration/active_intents.yaml`. From the start folder upwards, the first
//! folder that has the intents file is the root; else the first that has `.git`: a `.git`
//! folder is the project's top, a `.git` file (`gitdir: …`) is a linked worktree whose main
//! checkout (the parent of its `commondir`) is the root when it has the intents file. Nothing
//! found: the start folder.

use super::git::parse_gitdir;
use crate::paths;
use crate::protocol::{ReadResult, Request, StatResult};
use crate::runtime::{join_all, Io};

/// How many folders up the walk looks at most.
const MAX_UP: usize = 64;

async fn stat(io: &Io, path: String) -> StatResult {
    serde_json::from_value(io.request(Request::Stat { path }).await).unwrap_or_default()
}

async fn read(io: &Io, path: String) -> Option<String> {
    let v = io
        .request(Request::ReadFile {
            path,
            max_bytes: 64 * 1024,
        })
        .await;
    serde_json::from_value::<ReadResult>(v).ok()?.text
}

/// The folder above `dir` (`None` at the top).
fn parent(dir: &str) -> Option<String> {
    let t = dir.trim_end_matches('/');
    let (up, _) = t.rsplit_once('/')?;
    Some(if up.is_empty() { "/".into() } else { up.into() })
}

fn at(dir: &str, rel: &str) -> String {
    paths::normalize(&paths::join(dir, rel))
}

/// The main checkout of the linked worktree at `dir` (its `.git` is a file), if any.
async fn main_checkout(io: &Io, dir: &str) -> Option<String> {
    let text = read(io, at(dir, ".git")).await?;
    let gitdir = at(dir, parse_gitdir(&text)?);
    let common = read(io, at(&gitdir, "commondir")).await?;
    let common = at(&gitdir, common.trim());
    let main = common.strip_suffix("/.git")?;
    (!main.is_empty()).then(|| main.to_string())
}

/// The governed project for a process started in `start` (absolute).
pub async fn governed_root(io: &Io, start: &str) -> String {
    let start = paths::normalize(start);
    if !paths::is_absolute(&start) {
        return start;
    }
    // as the host names folders (a payload's `cwd` is compared with it): links resolved
    let st = stat(io, start.clone()).await;
    let start = st.realpath.filter(|_| st.is_dir).unwrap_or(start);
    let mut dir = start.clone();
    for _ in 0..MAX_UP {
        let r = join_all(vec![
            stat(io, at(&dir, super::INTENTS_FILE)),
            stat(io, at(&dir, ".git")),
        ])
        .await;
        if r[0].exists {
            return dir;
        }
        if r[1].exists {
            if r[1].is_file {
                if let Some(main) = main_checkout(io, &dir).await {
                    if stat(io, at(&main, super::INTENTS_FILE)).await.exists {
                        return main;
                    }
                }
            }
            return dir;
        }
        match parent(&dir) {
            Some(up) if up != dir => dir = up,
            _ => break,
        }
    }
    start
}

#[cfg(test)]
#[path = "root_tests.rs"]
mod tests;

//! The commit `HEAD` points at, read from `.git` files (no git process): for the `vcs` field
//! of trace records when the host does not supply it. Handles a `.git` folder or a `.git`
//! file (`gitdir: …`, linked worktrees and submodules), a detached HEAD, loose refs, the
//! worktree's `commondir`, and `packed-refs`. Anything else (no repository, an unborn
//! branch, a reftable repository) gives `None`: the record simply has no `vcs`.

use crate::paths;
use crate::protocol::{ReadResult, Request};
use crate::runtime::Io;

use super::trace::is_git_sha;

async fn read(io: &Io, path: &str) -> Option<String> {
    let v = io
        .request(Request::ReadFile {
            path: path.to_string(),
            max_bytes: 4 * 1024 * 1024,
        })
        .await;
    serde_json::from_value::<ReadResult>(v).ok()?.text
}

/// `rel` against `dir` (an absolute `rel` stands alone), `.`/`..` folded lexically as git does
/// for `gitdir:` and `commondir` paths ([`crate::paths`]).
fn join(dir: &str, rel: &str) -> String {
    paths::normalize(&paths::join(dir, rel))
}

/// `gitdir: <path>` from a `.git` file.
pub fn parse_gitdir(text: &str) -> Option<&str> {
    text.lines()
        .find_map(|l| l.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// What HEAD holds: a commit, or the ref it points to.
#[derive(Debug, PartialEq, Eq)]
pub enum Head<'a> {
    Commit(String),
    Ref(&'a str),
}

pub fn parse_head(text: &str) -> Option<Head<'_>> {
    let t = text.trim();
    if let Some(r) = t.strip_prefix("ref:") {
        let r = r.trim();
        return (r.starts_with("refs/") && !r.contains("..")).then_some(Head::Ref(r));
    }
    is_git_sha(t).then(|| Head::Commit(t.to_ascii_lowercase()))
}

/// The commit of `refname` in a `packed-refs` file.
pub fn packed_ref(text: &str, refname: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (sha, name) = l.split_once(' ')?;
        (name.trim() == refname && is_git_sha(sha)).then(|| sha.to_ascii_lowercase())
    })
}

/// Resolve HEAD of the repository at `worktree`.
pub async fn head(io: &Io, worktree: &str) -> Option<String> {
    resolve(io, worktree).await.commit
}

/// What HEAD says: the commit, and the branch checked out (`None`: detached, or no
/// repository).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checkout {
    pub commit: Option<String>,
    pub branch: Option<String>,
}

/// The branch a ref names: `refs/heads/x` is `x`; another ref is named whole.
fn branch_of(refname: &str) -> String {
    refname
        .strip_prefix("refs/heads/")
        .unwrap_or(refname)
        .to_string()
}

/// HEAD's commit and branch of the repository at `worktree`.
pub async fn resolve(io: &Io, worktree: &str) -> Checkout {
    let dotgit = join(worktree, ".git");
    let (gitdir, head_text) = match read(io, &join(&dotgit, "HEAD")).await {
        Some(t) => (dotgit, t),
        None => {
            let Some(f) = read(io, &dotgit).await else {
                return Checkout::default();
            };
            let Some(gd) = parse_gitdir(&f).map(|g| join(worktree, g)) else {
                return Checkout::default();
            };
            let Some(t) = read(io, &join(&gd, "HEAD")).await else {
                return Checkout::default();
            };
            (gd, t)
        }
    };
    let refname = match parse_head(&head_text) {
        None => return Checkout::default(),
        Some(Head::Commit(c)) => {
            return Checkout {
                commit: Some(c),
                branch: None,
            }
        }
        Some(Head::Ref(r)) => r.to_string(),
    };
    let branch = Some(branch_of(&refname));
    Checkout {
        commit: ref_commit(io, &gitdir, &refname).await,
        branch,
    }
}

async fn ref_commit(io: &Io, gitdir: &str, refname: &str) -> Option<String> {
    if let Some(t) = read(io, &join(gitdir, refname)).await {
        let t = t.trim();
        if is_git_sha(t) {
            return Some(t.to_ascii_lowercase());
        }
    }
    let common = match read(io, &join(gitdir, "commondir")).await {
        Some(c) => join(gitdir, c.trim()),
        None => gitdir.to_string(),
    };
    if common != gitdir {
        if let Some(t) = read(io, &join(&common, refname)).await {
            let t = t.trim();
            if is_git_sha(t) {
                return Some(t.to_ascii_lowercase());
            }
        }
    }
    let packed = read(io, &join(&common, "packed-refs")).await?;
    packed_ref(&packed, refname)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestHost;

    const A: &str = "0123456789abcdef0123456789abcdef01234567";
    const B: &str = "89abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn parsers() {
        assert_eq!(
            parse_head("ref: refs/heads/main\n"),
            Some(Head::Ref("refs/heads/main"))
        );
        assert_eq!(
            parse_head(&format!("{}\n", A.to_uppercase())),
            Some(Head::Commit(A.into()))
        );
        assert_eq!(parse_head("ref: ../../etc"), None);
        assert_eq!(
            parse_gitdir("gitdir: ../.git/worktrees/x\n"),
            Some("../.git/worktrees/x")
        );
        let packed =
            format!("# pack-refs with: peeled\n{A} refs/heads/main\n^{B}\n{B} refs/tags/v1\n");
        assert_eq!(packed_ref(&packed, "refs/heads/main").as_deref(), Some(A));
        assert_eq!(packed_ref(&packed, "refs/heads/nope"), None);
    }

    #[test]
    fn loose_packed_detached_and_linked_worktrees() {
        let mut fs = TestHost::default();
        fs.file("/r/.git/HEAD", "ref: refs/heads/main\n");
        fs.file("/r/.git/refs/heads/main", &format!("{A}\n"));
        assert_eq!(
            fs.run(|io| async move { head(&io, "/r").await }),
            Some(A.into())
        );

        let mut fs = TestHost::default();
        fs.file("/r/.git/HEAD", "ref: refs/heads/main\n");
        fs.file("/r/.git/packed-refs", &format!("{B} refs/heads/main\n"));
        assert_eq!(
            fs.run(|io| async move { head(&io, "/r").await }),
            Some(B.into())
        );

        let mut fs = TestHost::default();
        fs.file("/r/.git/HEAD", A);
        assert_eq!(
            fs.run(|io| async move { head(&io, "/r").await }),
            Some(A.into())
        );

        // linked worktree: .git file, own HEAD, refs in the common dir
        let mut fs = TestHost::default();
        fs.file("/wt/.git", "gitdir: /r/.git/worktrees/wt\n");
        fs.file("/r/.git/worktrees/wt/HEAD", "ref: refs/heads/feature\n");
        fs.file("/r/.git/worktrees/wt/commondir", "../..\n");
        fs.file("/r/.git/refs/heads/feature", B);
        assert_eq!(
            fs.run(|io| async move { head(&io, "/wt").await }),
            Some(B.into())
        );

        let mut fs = TestHost::default();
        assert_eq!(fs.run(|io| async move { head(&io, "/none").await }), None);
    }
}

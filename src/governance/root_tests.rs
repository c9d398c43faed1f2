//! The governed root as a hook process finds it: never the payload's folder, always the
//! project's, from a sub-folder or a git worktree of the project.

use super::governed_root;
use crate::testing::TestHost;

const INTENTS: &str = "/p/.orchestration/active_intents.yaml";

fn root(h: &mut TestHost, start: &str) -> String {
    let s = start.to_string();
    h.run(move |io| async move { governed_root(&io, &s).await })
}

fn project() -> TestHost {
    let mut h = TestHost::default();
    h.file(INTENTS, "active_intents: []\n");
    h.file("/p/.git/HEAD", "ref: refs/heads/main\n");
    h.file("/p/src/auth/a.ts", "");
    h
}

#[test]
fn the_project_itself_and_its_sub_folders_are_governed_by_it() {
    let mut h = project();
    assert_eq!(root(&mut h, "/p"), "/p");
    assert_eq!(root(&mut h, "/p/src/auth"), "/p");
    assert_eq!(root(&mut h, "/p/src/auth/../auth/./"), "/p");
}

#[test]
fn a_linked_worktree_inside_or_outside_the_project_is_governed_by_the_main_checkout() {
    let mut h = project();
    // Claude Code's EnterWorktree: .claude/worktrees/w1, with its own checkout and no intents
    h.file("/p/.claude/worktrees/w1/.git", "gitdir: /p/.git/worktrees/w1\n");
    h.file("/p/.git/worktrees/w1/commondir", "../..\n");
    h.file("/p/.claude/worktrees/w1/src/auth/a.ts", "");
    assert_eq!(root(&mut h, "/p/.claude/worktrees/w1"), "/p");
    assert_eq!(root(&mut h, "/p/.claude/worktrees/w1/src/auth"), "/p");
    // `git worktree add ../elsewhere` (a relative gitdir, too)
    h.file("/elsewhere/.git", "gitdir: ../p/.git/worktrees/e\n");
    h.file("/p/.git/worktrees/e/commondir", "../..");
    assert_eq!(root(&mut h, "/elsewhere"), "/p");
}

#[test]
fn a_worktree_with_intents_of_its_own_and_other_repositories_stay_themselves() {
    let mut h = project();
    h.file("/p/.claude/worktrees/w2/.git", "gitdir: /p/.git/worktrees/w2\n");
    h.file("/p/.git/worktrees/w2/commondir", "../..\n");
    h.file("/p/.claude/worktrees/w2/.orchestration/active_intents.yaml", "");
    assert_eq!(root(&mut h, "/p/.claude/worktrees/w2"), "/p/.claude/worktrees/w2");
    // a submodule (no commondir), a bare `.git` file, an ungoverned repository, no repository
    h.file("/p/vendor/sub/.git", "gitdir: ../../.git/modules/sub\n");
    h.file("/p/.git/modules/sub/HEAD", "");
    assert_eq!(root(&mut h, "/p/vendor/sub"), "/p/vendor/sub");
    h.file("/q/.git", "garbage");
    assert_eq!(root(&mut h, "/q/x"), "/q");
    h.file("/r/.git/HEAD", "");
    assert_eq!(root(&mut h, "/r/deep/er"), "/r");
    h.dir("/none/here");
    assert_eq!(root(&mut h, "/none/here"), "/none/here");
    assert_eq!(root(&mut h, "relative"), "relative");
}

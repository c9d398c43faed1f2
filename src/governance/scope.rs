//! Where a tool call writes, and whether that is inside an intent's `owned_scope`.
//!
//! # Paths
//! A path from a tool call (absolute, or relative to the directory the agent runs in — the
//! worktree unless the host says otherwise) is turned into the path of the file it really
//! names, relative to the worktree:
//! - `.` and empty components are dropped; `..` pops a component **after** the part before it
//!   has been resolved through the host's realpath, as the OS does (`link/../x` where `link`
//!   points elsewhere is *not* `x`).
//! - Symlinks are resolved with the host's realpath of the deepest part of the path that
//!   exists (a file being created does not exist yet; its folder does). The worktree itself is
//!   resolved the same way, so a worktree reached through a symlink still works.
//! - The result must lie inside the (resolved) worktree, compared component by component
//!   (`/w-evil` is not inside `/w`); otherwise the path is **out of scope**, whatever the
//!   globs say. The worktree itself is not a file: out of scope.
//! - Backslashes: on a POSIX worktree (`/…`) a backslash is an ordinary file-name character,
//!   which makes `src\..\x` ambiguous between hosts; such a path is refused (out of scope, the
//!   message asks for forward slashes). On a Windows worktree (`C:\…`, `C:/…`) backslashes are
//!   separators and are turned into `/` before anything else, and the worktree prefix is
//!   compared ignoring ASCII case.
//! - A NUL byte or an empty path is refused.
//! - Bounded: a path longer than [`MAX_PATH_BYTES`] (4096, Linux's `PATH_MAX`) or with more
//!   than [`MAX_PATH_COMPONENTS`] (256) components is refused before anything is asked. Below
//!   that, the host is asked at most once per component (plus the worktree), and the work is
//!   linear in the path's length: each component is verified or found missing once, and
//!   every question is a slice of one rendered path.
//! - This is the reading of reads (stale-write checks, the record of a `tool.after` without
//!   its `tool.before`): a *dangling* symlink looks missing to the host's stat here. A
//!   **write** is judged by [`super::reading`] instead: on the text and on disk, a dangling
//!   link by its target, hard links and `.git` refused.
//!
//! # Globs (`owned_scope`)
//! Patterns use globset's syntax and semantics (with `literal_separator`), matched by
//! [`super::glob`] — a regex-free implementation checked against globset itself — with
//! these choices, tested row by row (see the tests at the bottom):
//! - Patterns are anchored at the worktree root and matched against the whole relative path:
//!   `*.ts` matches `a.ts` but not `src/a.ts` (write `**/*.ts` for any depth).
//! - `*`, `?` and `[...]` never match `/` (globset `literal_separator`); `**` matches any
//!   number of whole components: `src/**` matches `src/a` and `src/a/b` but not `src` itself.
//! - `{a,b}` alternates (not nested), `[a-z]` classes, `\` escapes the next character.
//! - A leading `./` (repeated) or `/` is dropped: `./src/**` = `/src/**` = `src/**`.
//! - A trailing `/` means "everything below": `src/` = `src/**`.
//! - A pattern without glob metacharacters (`*?[{`) names a path and everything below it:
//!   `src/auth` matches `src/auth` and `src/auth/x.ts`.
//! - Dotfiles are ordinary: `src/**` matches `src/.env` (exclude them with `!src/**/.*`).
//! - `!pattern` excludes: a path is in scope when it matches at least one include pattern and
//!   no exclude pattern, whatever their order. An `owned_scope` with no include pattern has
//!   nothing in scope (use `**` for everything).
//! - Case: include patterns match case-sensitively (`SRC/a` is not in `src/**`); exclude
//!   patterns match **ignoring case**, so on a case-insensitive file system (macOS, Windows)
//!   `src/SECRETS/k` cannot slip past `!src/secrets/**`. Both choices fail closed.
//! - A pattern with a `..` component, an empty pattern or one globset cannot parse is an error
//!   (the intent is not loaded), because dropping it silently could widen the scope.

use super::glob::Glob;

/// What a tool-call path turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// Inside the worktree: the path relative to it, `/`-separated, no `.`/`..`.
    Inside(String),
    /// Outside the worktree: the resolved absolute path.
    Outside(String),
    /// Refused before resolution (over the length limits, NUL, backslash on POSIX, empty, the
    /// worktree itself).
    Invalid(String),
    /// Inside the worktree through a symlink that stays inside it ([`super::reading`]): the
    /// path folded on its text, and the file it names. Both must be in scope.
    Linked { lexical: String, real: String },
    /// Never written through a file tool, whatever the scope says ([`super::reading`]): a
    /// hard-linked file, `.git`, a path that names two files. The text says why.
    Refused(String),
}

impl Resolved {
    /// The file, relative to the worktree, when it is inside it.
    pub fn file(&self) -> Option<&str> {
        match self {
            Resolved::Inside(rel) | Resolved::Linked { real: rel, .. } => Some(rel),
            _ => None,
        }
    }
}

/// The longest path a tool call may name, in bytes (Linux's `PATH_MAX`). A longer one is
/// refused before anything is asked of the host.
pub const MAX_PATH_BYTES: usize = 4096;
/// The most components (`a`, `..`, `.` — whatever lies between separators) a tool-call path
/// may have. Real paths have a few dozen; more is refused before anything is asked of the host.
pub const MAX_PATH_COMPONENTS: usize = 256;

/// An absolute path: its root (`/`, `C:/` or `//` for UNC) and its components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Abs {
    pub(super) root: String,
    pub(super) comps: Vec<String>,
}

impl Abs {
    pub(super) fn parse(p: &str) -> Option<Abs> {
        let (root, rest) = if let Some(rest) = p.strip_prefix("//") {
            ("//".to_string(), rest)
        } else if let Some(rest) = p.strip_prefix('/') {
            ("/".to_string(), rest)
        } else if is_drive(p) {
            (format!("{}/", &p[..2].to_ascii_uppercase()), &p[2..])
        } else {
            return None;
        };
        Some(Abs {
            root,
            comps: rest
                .split('/')
                .filter(|c| !c.is_empty() && *c != ".")
                .map(str::to_string)
                .collect(),
        })
    }

    pub(super) fn render(&self) -> String {
        let mut s = self.root.clone();
        s.push_str(&self.comps.join("/"));
        s
    }
}

/// `C:` followed by `/` (backslashes are already turned into `/` here) or the end.
fn is_drive(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b.len() == 2 || b[2] == b'/')
}

/// A Windows worktree: `C:\…`, `C:/…` or `\\server\share`.
pub fn is_windows_path(p: &str) -> bool {
    let b = p.as_bytes();
    (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':') || p.starts_with("\\\\")
}

pub(super) fn slashes(p: &str, windows: bool) -> String {
    if windows {
        p.replace('\\', "/")
    } else {
        p.to_string()
    }
}

/// The path being walked, kept rendered (`buf`, with the end of each component in `ends`) so
/// that every prefix the host is asked about is a slice of it, not a new string.
///
/// What is known about it, so that nothing is asked twice:
/// - `comps[..verified]` came from a realpath answer: they exist and hold no symlink (nor does
///   any prefix of them: the parent of a real path is real).
/// - `missing`: the component after them is known not to exist, so nothing below it does.
///
/// Every component pushed is part of at most one question batch ([`Walk::settle`]): after it,
/// it is either verified or known missing. So a walk asks at most one question per component
/// of the path, and its work is linear in the path's length plus the length of the answers.
struct Walk {
    root_len: usize,
    buf: String,
    ends: Vec<usize>,
    verified: usize,
    missing: bool,
    windows: bool,
}

impl Walk {
    fn new(root: &str, windows: bool) -> Walk {
        Walk {
            root_len: root.len(),
            buf: root.to_string(),
            ends: Vec::new(),
            verified: 0,
            missing: false,
            windows,
        }
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn prefix(&self, k: usize) -> &str {
        if k == 0 {
            &self.buf[..self.root_len]
        } else {
            &self.buf[..self.ends[k - 1]]
        }
    }

    fn comp(&self, k: usize) -> &str {
        let start = if k == 0 {
            self.root_len
        } else {
            self.ends[k - 1] + 1
        };
        &self.buf[start..self.ends[k]]
    }

    fn push(&mut self, c: &str) {
        if !self.ends.is_empty() {
            self.buf.push('/');
        }
        self.buf.push_str(c);
        self.ends.push(self.buf.len());
    }

    /// `..`: drop the last component (the root's parent is the root).
    fn pop(&mut self) {
        if self.ends.pop().is_some() {
            let end = self.ends.last().copied().unwrap_or(self.root_len);
            self.buf.truncate(end);
            if self.verified >= self.ends.len() {
                self.verified = self.ends.len();
                self.missing = false;
            }
        }
    }

    /// Replace the path by the realpath answer `real` for its first `k` components, keeping
    /// the rest (which does not exist).
    fn relocate(&mut self, real: Abs, k: usize) {
        let rest: Vec<String> = (k..self.len()).map(|j| self.comp(j).to_string()).collect();
        self.root_len = real.root.len();
        self.buf = real.root;
        self.ends.clear();
        for c in &real.comps {
            self.push(c);
        }
        self.verified = self.len();
        self.missing = !rest.is_empty();
        for c in &rest {
            self.push(c);
        }
    }

    /// Resolve symlinks: ask the host for the realpath of the deepest existing prefix among
    /// the components not yet known (deepest first, as the first answers are all "unknown"
    /// and the host then learns every prefix in one batch), and take its answer.
    fn settle(&mut self, realpath: &mut dyn FnMut(&str) -> Option<String>) {
        if self.missing || self.verified == self.len() {
            return;
        }
        for k in (self.verified + 1..=self.len()).rev() {
            let Some(r) = realpath(self.prefix(k)) else {
                continue;
            };
            let r = slashes(&r, self.windows);
            if r == self.prefix(k) {
                self.verified = k;
                self.missing = k < self.len();
                return;
            }
            if let Some(real) = Abs::parse(&r) {
                self.relocate(real, k);
                return;
            }
        }
        self.missing = true;
    }

    fn into_abs(self) -> Abs {
        let comps = (0..self.len()).map(|k| self.comp(k).to_string()).collect();
        Abs {
            root: self.buf[..self.root_len].to_string(),
            comps,
        }
    }
}

pub(super) fn same_comp(a: &str, b: &str, windows: bool) -> bool {
    if windows {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// Resolve `path` against `worktree`. `realpath(p)` answers the resolved absolute path of `p`
/// when `p` exists, `None` otherwise (the host's `Stat.realpath`). Every question is about a
/// path without `.`/`..` components.
pub fn resolve(
    worktree: &str,
    path: &str,
    realpath: &mut dyn FnMut(&str) -> Option<String>,
) -> Resolved {
    resolve_from(worktree, "", path, realpath)
}

/// [`resolve`], with relative paths taken from `base` (an absolute folder, e.g. the
/// directory the agent runs in, below the worktree); an empty `base` is the worktree.
///
/// Bounded: a path over [`MAX_PATH_BYTES`] or [`MAX_PATH_COMPONENTS`] is refused before
/// anything is asked; otherwise `realpath` is called at most once per component of the base
/// (or worktree) and the path, plus twice, and the work is linear in their length.
pub fn resolve_from(
    worktree: &str,
    base: &str,
    path: &str,
    realpath: &mut dyn FnMut(&str) -> Option<String>,
) -> Resolved {
    resolve_bounded(
        worktree,
        base,
        path,
        (MAX_PATH_BYTES, MAX_PATH_COMPONENTS),
        realpath,
    )
}

/// Why `path` is over the limits, if it is (`limits`: bytes, components).
fn over_limits(path: &str, windows: bool, limits: (usize, usize)) -> Option<String> {
    let (max_bytes, max_comps) = limits;
    if path.len() > max_bytes {
        return Some(format!(
            "the path is {} bytes long, over the limit of {max_bytes} bytes",
            path.len()
        ));
    }
    let sep = |c: char| c == '/' || (windows && c == '\\');
    let n = path.split(sep).filter(|c| !c.is_empty()).count();
    if n > max_comps {
        return Some(format!(
            "the path has {n} components, over the limit of {max_comps}"
        ));
    }
    None
}

/// The worktree and the path joined to it (or to `base`), both absolute, with `.` and empty
/// components dropped (`..` kept); `Err` when the path is refused before anything is asked
/// (over the limits, NUL, empty, a backslash on POSIX, a drive-relative path). Shared by both
/// readings ([`resolve`] and [`super::reading`]).
pub(super) fn joined(
    worktree: &str,
    base: &str,
    path: &str,
    limits: (usize, usize),
) -> Result<(Abs, Abs, bool), Resolved> {
    let windows = is_windows_path(worktree);
    if let Some(why) = over_limits(path, windows, limits) {
        return Err(Resolved::Invalid(why));
    }
    if path.contains('\0') || worktree.contains('\0') || base.contains('\0') {
        return Err(Resolved::Invalid("the path contains a NUL byte".into()));
    }
    if path.trim().is_empty() {
        return Err(Resolved::Invalid("the path is empty".into()));
    }
    if !windows && path.contains('\\') {
        return Err(Resolved::Invalid(
            "the path contains a backslash; use forward slashes".into(),
        ));
    }
    let wt = slashes(worktree, windows);
    let p = slashes(path, windows);
    let Some(wt_abs) = Abs::parse(&wt) else {
        return Err(Resolved::Invalid(format!(
            "the worktree {worktree} is not an absolute path"
        )));
    };
    let joined = match Abs::parse(&p) {
        Some(a) => a,
        None if windows && p.len() >= 2 && p.as_bytes()[1] == b':' => {
            // `C:foo` (drive-relative) is not something a tool should send.
            return Err(Resolved::Invalid(format!(
                "{path} is a drive-relative path"
            )));
        }
        None => {
            let mut a = if base.is_empty() {
                wt_abs.clone()
            } else {
                match Abs::parse(&slashes(base, windows)) {
                    Some(b) => b,
                    None => {
                        return Err(Resolved::Invalid(format!(
                            "the directory {base} is not absolute"
                        )))
                    }
                }
            };
            a.comps.extend(
                p.split('/')
                    .filter(|c| !c.is_empty() && *c != ".")
                    .map(str::to_string),
            );
            a
        }
    };
    Ok((wt_abs, joined, windows))
}

fn resolve_bounded(
    worktree: &str,
    base: &str,
    path: &str,
    limits: (usize, usize),
    realpath: &mut dyn FnMut(&str) -> Option<String>,
) -> Resolved {
    let (wt_abs, joined, windows) = match joined(worktree, base, path, limits) {
        Ok(j) => j,
        Err(r) => return r,
    };

    // Walk the components; resolve what came before each `..` first.
    let mut walk = Walk::new(&joined.root, windows);
    for c in &joined.comps {
        if c == ".." {
            walk.settle(realpath);
            walk.pop();
        } else {
            walk.push(c);
        }
    }
    walk.settle(realpath);
    let real = walk.into_abs();
    let wt_real = realpath(&wt_abs.render())
        .and_then(|r| Abs::parse(&slashes(&r, windows)))
        .unwrap_or(wt_abs);

    let inside = same_comp(&real.root, &wt_real.root, windows)
        && real.comps.len() >= wt_real.comps.len()
        && real
            .comps
            .iter()
            .zip(&wt_real.comps)
            .all(|(a, b)| same_comp(a, b, windows));
    if !inside {
        return Resolved::Outside(real.render());
    }
    let rel = real.comps[wt_real.comps.len()..].join("/");
    if rel.is_empty() {
        return Resolved::Invalid("the path is the worktree itself, not a file".into());
    }
    Resolved::Inside(rel)
}

/// One `owned_scope` entry after normalization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    pub exclude: bool,
    /// The globs it stands for (a plain path stands for itself and everything below it).
    pub globs: Vec<String>,
}

/// Normalize one pattern (see the module docs). `Err` says what is wrong with it.
pub fn normalize_pattern(raw: &str) -> Result<Pattern, String> {
    let t = raw.trim();
    let (exclude, mut p) = match t.strip_prefix('!') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, t),
    };
    loop {
        if let Some(rest) = p.strip_prefix("./") {
            p = rest;
        } else if let Some(rest) = p.strip_prefix('/') {
            p = rest;
        } else {
            break;
        }
    }
    if p.is_empty() || p == "." {
        return Err(format!("'{raw}' is an empty pattern"));
    }
    if p.split('/').any(|c| c == "..") {
        return Err(format!(
            "'{raw}' has a '..' component; patterns are relative to the worktree root"
        ));
    }
    let globs = if let Some(dir) = p.strip_suffix('/') {
        vec![format!("{}/**", dir.trim_end_matches('/'))]
    } else if !p.contains(['*', '?', '[', '{']) {
        vec![p.to_string(), format!("{p}/**")]
    } else {
        vec![p.to_string()]
    };
    for g in &globs {
        build_glob(g, exclude).map_err(|e| format!("'{raw}' is not a valid glob: {e}"))?;
    }
    Ok(Pattern { exclude, globs })
}

fn build_glob(g: &str, exclude: bool) -> Result<Glob, String> {
    Glob::new(g, exclude)
}

/// A compiled `owned_scope`.
#[derive(Debug, Clone)]
pub struct Scope {
    include: Vec<Glob>,
    exclude: Vec<Glob>,
}

impl Scope {
    /// Compile the patterns. `Err` names the first bad pattern.
    pub fn compile<S: AsRef<str>>(patterns: &[S]) -> Result<Scope, String> {
        let mut include = Vec::new();
        let mut exclude = Vec::new();
        for raw in patterns {
            let p = normalize_pattern(raw.as_ref())?;
            for g in &p.globs {
                let glob = build_glob(g, p.exclude)
                    .map_err(|e| format!("'{}' is not a valid glob: {e}", raw.as_ref()))?;
                if p.exclude {
                    exclude.push(glob);
                } else {
                    include.push(glob);
                }
            }
        }
        Ok(Scope { include, exclude })
    }

    /// Whether the worktree-relative path `rel` is in scope.
    pub fn matches(&self, rel: &str) -> bool {
        let mut scratch = Vec::new();
        self.include
            .iter()
            .any(|g| g.is_match_with(rel, &mut scratch))
            && !self
                .exclude
                .iter()
                .any(|g| g.is_match_with(rel, &mut scratch))
    }
}

#[cfg(test)]
#[path = "scope_tests.rs"]
mod hostile_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn scope(p: &[&str]) -> Scope {
        Scope::compile(p).unwrap()
    }

    /// Every row of the glob table (OpenCode's permission globs, checked against the real OpenCode), with the project's answer.
    #[test]
    fn glob_table_rows() {
        // | `src/**` | `src` | no
        assert!(!scope(&["src/**"]).matches("src"));
        // | `src/**` | `src/.env` | yes (dotfiles included)
        assert!(scope(&["src/**"]).matches("src/.env"));
        // | `src/*` | `src/a/b.ts` | no (separator-aware `*`)
        assert!(!scope(&["src/*"]).matches("src/a/b.ts"));
        assert!(scope(&["src/*"]).matches("src/a"));
        // | `*.ts` | `src/a.ts` | no (anchored, not basename matching)
        assert!(!scope(&["*.ts"]).matches("src/a.ts"));
        assert!(scope(&["*.ts"]).matches("a.ts"));
        assert!(scope(&["**/*.ts"]).matches("src/a.ts"));
        // | `src/*.{ts,tsx}` | `src/a.tsx` | yes (braces)
        assert!(scope(&["src/*.{ts,tsx}"]).matches("src/a.tsx"));
        assert!(!scope(&["src/*.{ts,tsx}"]).matches("src/a.js"));
        // | `!src/**` | `lib/a` | an exclude alone has nothing in scope
        assert!(!scope(&["!src/**"]).matches("lib/a"));
        assert!(scope(&["**", "!src/**"]).matches("lib/a"));
        assert!(!scope(&["**", "!src/**"]).matches("src/a"));
        // | `./src/**` | `src/a` | yes (leading ./ dropped)
        assert!(scope(&["./src/**"]).matches("src/a"));
    }

    #[test]
    fn pattern_normalization() {
        assert!(scope(&["/src/**"]).matches("src/a"));
        assert!(scope(&["././src/**"]).matches("src/a"));
        assert!(scope(&["src/"]).matches("src/a/b"));
        assert!(!scope(&["src/"]).matches("src"));
        // plain path: itself and below, not a sibling with the same prefix
        let s = scope(&["src/auth"]);
        assert!(s.matches("src/auth") && s.matches("src/auth/x.ts"));
        assert!(!s.matches("src/authz/x.ts"));
        assert!(scope(&["src/a[bc].ts"]).matches("src/ab.ts"));
        assert!(!scope(&["src/a?.ts"]).matches("src/a/.ts"));
        // excludes win whatever the order
        let s = scope(&["!src/gen/**", "src/**"]);
        assert!(s.matches("src/a.ts") && !s.matches("src/gen/x.ts"));
        let s = scope(&["src/**", "!src/**/.*"]);
        assert!(!s.matches("src/.env") && s.matches("src/a.ts"));
        assert!(!scope(&[] as &[&str]).matches("a"));
    }

    #[test]
    fn bad_patterns_are_errors() {
        for bad in [
            "", "  ", "!", "./", "../x/**", "src/../x", "src/[", "src/{a",
        ] {
            assert!(Scope::compile(&[bad]).is_err(), "{bad:?} should be refused");
        }
        let e = Scope::compile(&["src/**", "src/["]).unwrap_err();
        assert!(e.contains("src/["), "{e}");
    }

    #[test]
    fn case_tricks() {
        let s = scope(&["src/**", "!src/secrets/**"]);
        assert!(!s.matches("SRC/a.ts"), "include is case-sensitive");
        assert!(!s.matches("src/SECRETS/key"), "exclude ignores case");
        assert!(!s.matches("src/Secrets/key"));
        assert!(s.matches("src/secretsx/key"));
    }

    /// A fake file system: existing paths and their realpaths.
    fn fs(entries: &[(&str, &str)]) -> impl FnMut(&str) -> Option<String> {
        let m: HashMap<String, String> = entries
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        move |p: &str| m.get(p).cloned()
    }

    fn base() -> Vec<(&'static str, &'static str)> {
        vec![
            ("/", "/"),
            ("/w", "/w"),
            ("/w/src", "/w/src"),
            ("/w/src/a.ts", "/w/src/a.ts"),
            ("/w/secrets", "/w/secrets"),
            ("/w/src/out", "/outside"), // symlink to a folder outside
            ("/outside", "/outside"),
            ("/w/src/in", "/w/src"),       // symlink inside
            ("/w/lnk", "/elsewhere/deep"), // symlink: lnk/.. is /elsewhere
            ("/elsewhere", "/elsewhere"),
            ("/elsewhere/deep", "/elsewhere/deep"),
        ]
    }

    fn r(path: &str) -> Resolved {
        resolve("/w", path, &mut fs(&base()))
    }

    #[test]
    fn paths_relative_absolute_dot_and_dotdot() {
        assert_eq!(r("src/a.ts"), Resolved::Inside("src/a.ts".into()));
        assert_eq!(r("./src/./a.ts"), Resolved::Inside("src/a.ts".into()));
        assert_eq!(r("/w/src/a.ts"), Resolved::Inside("src/a.ts".into()));
        assert_eq!(r("src//new/b.ts"), Resolved::Inside("src/new/b.ts".into()));
        assert_eq!(r("src/../secrets/k"), Resolved::Inside("secrets/k".into()));
        assert_eq!(
            r("src/x/../../secrets/k"),
            Resolved::Inside("secrets/k".into())
        );
        assert_eq!(r("../w/src/a.ts"), Resolved::Inside("src/a.ts".into()));
    }

    #[test]
    fn bypass_attempts() {
        let s = scope(&["src/**"]);
        let in_scope = |p: &str| matches!(r(p), Resolved::Inside(rel) if s.matches(&rel));
        // src/../secrets leaves src
        assert!(!in_scope("src/../secrets/k"));
        // absolute path outside the worktree
        assert_eq!(r("/abs/outside"), Resolved::Outside("/abs/outside".into()));
        assert_eq!(r("/w-evil/x"), Resolved::Outside("/w-evil/x".into()));
        assert!(matches!(r("../../etc/passwd"), Resolved::Outside(p) if p == "/etc/passwd"));
        // symlinked folder leading out
        assert_eq!(r("src/out/x.ts"), Resolved::Outside("/outside/x.ts".into()));
        // symlink then `..`: the OS resolves the link first
        assert_eq!(r("lnk/../x"), Resolved::Outside("/elsewhere/x".into()));
        // symlink that stays inside resolves to the real file
        assert_eq!(r("src/in/a.ts"), Resolved::Inside("src/a.ts".into()));
        // case tricks: on Linux `SRC` is another folder
        assert!(!in_scope("SRC/a.ts"));
        // backslashes on a POSIX worktree are refused
        assert!(
            matches!(r("src\\..\\secrets\\k"), Resolved::Invalid(m) if m.contains("backslash"))
        );
        assert!(matches!(r("src/a\0.ts"), Resolved::Invalid(_)));
        assert!(matches!(r(""), Resolved::Invalid(_)));
        assert!(matches!(r("."), Resolved::Invalid(_)));
        assert!(matches!(r("src/.."), Resolved::Invalid(_)));
    }

    #[test]
    fn relative_paths_from_a_subdirectory() {
        let mut f = fs(&base());
        assert_eq!(
            resolve_from("/w", "/w/src", "a.ts", &mut f),
            Resolved::Inside("src/a.ts".into())
        );
        assert_eq!(
            resolve_from("/w", "/w/src", "../secrets/k", &mut f),
            Resolved::Inside("secrets/k".into())
        );
        assert_eq!(
            resolve_from("/w", "/w/src", "/w/x", &mut f),
            Resolved::Inside("x".into())
        );
        assert!(matches!(
            resolve_from("/w", "rel", "a", &mut f),
            Resolved::Invalid(_)
        ));
    }

    #[test]
    fn worktree_reached_through_a_symlink() {
        let mut f = fs(&[
            ("/link", "/real"),
            ("/real", "/real"),
            ("/real/src", "/real/src"),
        ]);
        assert_eq!(
            resolve("/link", "src/a.ts", &mut f),
            Resolved::Inside("src/a.ts".into())
        );
        assert_eq!(
            resolve("/link", "/real/src/a.ts", &mut f),
            Resolved::Inside("src/a.ts".into())
        );
    }

    #[test]
    fn windows_worktrees_normalize_backslashes() {
        let mut f = fs(&[("C:/repo", "C:\\repo"), ("C:/repo/src", "C:\\repo\\src")]);
        assert_eq!(
            resolve("C:\\repo", "src\\a.ts", &mut f),
            Resolved::Inside("src/a.ts".into())
        );
        assert_eq!(
            resolve("C:\\repo", "c:\\REPO\\src\\a.ts", &mut f),
            Resolved::Inside("src/a.ts".into())
        );
        assert_eq!(
            resolve("C:\\repo", "src\\..\\..\\x", &mut f),
            Resolved::Outside("C:/x".into())
        );
        assert!(matches!(
            resolve("C:\\repo", "D:x", &mut f),
            Resolved::Invalid(_)
        ));
    }
}

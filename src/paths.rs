//! Paths as the core writes them for the host: one set of rules for joining, folding and
//! comparing, used by every module that builds a path (governance, enforcement, the vault,
//! CLI discovery, git).
//!
//! The rules:
//! - **Separator**: the core writes `/` (Node accepts it on Windows too). A base's trailing
//!   separators (`/` or `\`) are dropped before the one `/` that joins.
//! - **Absolute**: a path starting with `/`, or a drive letter, `:` and a separator (`C:\x`,
//!   `C:/x`). An absolute path joined to a base stands alone (the base is not consulted).
//!   `C:x` (relative to drive C's current folder) is not absolute.
//! - **Relative part**: leading `./` are dropped (`./a` and `a` join the same).
//! - **Empty base**: the path stays as it is (relative to the host's working folder); an
//!   empty base never makes a path absolute.
//! - **Folding** ([`normalize`]) is lexical: `.` and empty components go, `..` removes the
//!   component before it (at the top it is dropped, as git does for `gitdir:` paths). Links
//!   are not followed: where that matters the host's realpath answers
//!   (`crate::governance::scope`).
//! - **Inside** ([`inside`], [`relative`]) compares whole components: `/safe-evil` is not
//!   inside `/safe`.

/// `p` is absolute: `/…`, or `X:\…` / `X:/…` with a drive letter `X`.
pub fn is_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || (b.len() > 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'/' | b'\\'))
}

/// `rel` under `base`: `base` without its trailing separators, `/`, `rel` without its leading
/// `./`. An absolute `rel`, or an empty `base`, gives `rel` itself.
pub fn join(base: &str, rel: &str) -> String {
    if is_absolute(rel) || base.is_empty() {
        return rel.to_string();
    }
    let base = base.trim_end_matches(['/', '\\']);
    let rel = rel.trim_start_matches("./");
    let mut out = String::with_capacity(base.len() + 1 + rel.len());
    out.push_str(base);
    out.push('/');
    out.push_str(rel);
    out
}

/// `p` with `.`, empty components and `..` folded lexically (`/a/./b/../c` → `/a/c`). A
/// leading `/` is kept; a `..` above the top is dropped.
pub fn normalize(p: &str) -> String {
    let (root, rest) = match p.strip_prefix('/') {
        Some(r) => ("/", r),
        None => ("", p),
    };
    let mut out: Vec<&str> = Vec::new();
    for c in rest.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    format!("{root}{}", out.join("/"))
}

/// True when `path` is `root` or lies below it, comparing whole components (a trailing `/`
/// on `root` is ignored; an empty root is `/`).
pub fn inside(path: &str, root: &str) -> bool {
    relative(path, root).is_some()
}

/// `path` relative to `root` when it is `root` (`""`) or below it (`a/b`); `None` otherwise.
/// Whole components are compared, as in [`inside`].
pub fn relative<'a>(path: &'a str, root: &str) -> Option<&'a str> {
    let root = root.trim_end_matches('/');
    if root.is_empty() {
        return path.strip_prefix('/');
    }
    let rest = path.strip_prefix(root)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths() {
        for p in ["/", "/a", "C:\\x", "c:/x", "Z:\\"] {
            assert!(is_absolute(p), "{p}");
        }
        for p in ["", "a", "./a", "C:x", "1:/x", "::/x", "\\\\srv"] {
            assert!(!is_absolute(p), "{p}");
        }
    }

    #[test]
    fn join_rules() {
        assert_eq!(join("/w", "a/b"), "/w/a/b");
        assert_eq!(join("/w/", "a"), "/w/a");
        assert_eq!(join("/w//", "a"), "/w/a");
        assert_eq!(join("C:\\w\\", "a"), "C:\\w/a");
        assert_eq!(join("/", "a"), "/a");
        assert_eq!(join("/w", "./a"), "/w/a");
        assert_eq!(join("/w", "././a"), "/w/a");
        assert_eq!(join("/w", "../a"), "/w/../a", "join does not fold");
        assert_eq!(join("/w", "/etc/x"), "/etc/x");
        assert_eq!(join("/w", "D:/x"), "D:/x");
        assert_eq!(join("", "a"), "a");
        assert_eq!(join("/w", ""), "/w/");
    }

    #[test]
    fn normalize_rules() {
        assert_eq!(normalize("/a/./b/../c"), "/a/c");
        assert_eq!(normalize("/a//b/"), "/a/b");
        assert_eq!(normalize("/../a"), "/a");
        assert_eq!(normalize("a/../../b"), "b");
        assert_eq!(normalize("/"), "/");
        assert_eq!(normalize(""), "");
    }

    #[test]
    fn inside_and_relative() {
        assert!(inside("/safe/bin/m", "/safe"));
        assert!(inside("/safe", "/safe/"));
        assert!(!inside("/safe-evil/m", "/safe"));
        assert!(!inside("/saf", "/safe"));
        assert!(inside("/x", ""));
        assert_eq!(relative("/w/a/b", "/w"), Some("a/b"));
        assert_eq!(relative("/w", "/w/"), Some(""));
        assert_eq!(relative("/wx/a", "/w"), None);
        assert_eq!(relative("/a", "/"), Some("a"));
    }
}

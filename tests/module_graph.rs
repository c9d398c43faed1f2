//! The crate's top-level modules form no cycle.
//!
//! Reads `src/` (no build needed): the top-level modules are the `mod` lines of `src/lib.rs`;
//! module `m` is `src/m.rs` and every file under `src/m/`. An edge `m → n` is any `crate::n`
//! (or `crate::{…, n, …}`) in `m`'s code outside comments and outside test code: files
//! declared `#[cfg(test)] mod …;` anywhere, and `#[cfg(test)]` items within a file, are left
//! out, as are test-only top-level modules. A cycle makes each module of it depend on all the
//! others: a change anywhere in it can break any of them, and none can be read on its own.
//! When this fails, move the shared type or constant down into the lower module (or a new
//! one) rather than reaching back up.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Code without comments, string and char literals blanked (so `"crate::x"` in a message and
/// `// see crate::x` are not edges).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == b'\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == b'r' && matches!(b.get(i + 1), Some(b'#') | Some(b'"')) && {
            // a raw string: r"…", r#"…"#, … (not an identifier ending in r)
            i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
        } {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(c as char);
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                if b[j] == b'\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j + close.len();
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                if i < b.len() && b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == b'\'' {
            // a char literal ('x', '\n', '\u{..}') or a lifetime ('a): only the former is skipped
            let lit_end = if b.get(i + 1) == Some(&b'\\') {
                b.get(i + 3..)
                    .and_then(|t| t.iter().position(|&x| x == b'\''))
                    .map(|p| i + 3 + p)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 2)
            } else {
                // a multi-byte character
                let s = &text[i + 1..];
                s.chars()
                    .next()
                    .filter(|ch| s[ch.len_utf8()..].starts_with('\''))
                    .map(|ch| i + 1 + ch.len_utf8())
            };
            match lit_end {
                Some(e) => {
                    out.push_str("' '");
                    i = e + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// `code` without the items marked `#[cfg(test)]` (a `mod x;` line, or an item up to its
/// matching closing brace), given comments and literals are already gone.
fn without_test_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(") {
        let Some(len) = test_cfg_len(&rest[at..]) else {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
            continue;
        };
        out.push_str(&rest[..at]);
        let item = &rest[at + len..];
        // the item ends at the first `;` before any `{`, else at the brace matching the first `{`
        let semi = item.find(';');
        let brace = item.find('{');
        let end = match (semi, brace) {
            (Some(s), Some(b)) if s < b => s + 1,
            (_, Some(b)) => {
                let mut depth = 0usize;
                let mut end = item.len();
                for (k, ch) in item[b..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (Some(s), None) => s + 1,
            (None, None) => item.len(),
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// A `#[cfg(…)]` attribute that holds only under test: `test`, `all(test, …)`.
fn test_only_cfg(attr: &str) -> bool {
    let Some(pred) = attr.trim().strip_prefix("#[cfg(") else {
        return false;
    };
    pred == "test)]"
        || (pred.starts_with("all(") && pred.contains("test") && !pred.contains("not("))
}

/// The length of the `#[cfg(…)]` attribute at the start of `s`, if it holds only under test.
fn test_cfg_len(s: &str) -> Option<usize> {
    if !s.starts_with("#[cfg(") {
        return None;
    }
    let end = s.find(")]")? + 2;
    test_only_cfg(&s[..end]).then_some(end)
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn ident_at(s: &str) -> &str {
    let s = s.trim_start();
    &s[..s.find(|c: char| !is_ident(c)).unwrap_or(s.len())]
}

/// The top-level names a file's code reaches with `crate::`.
fn crate_refs(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("crate::") {
        let at = from + p;
        from = at + "crate::".len();
        if at > 0 && code[..at].ends_with(|c: char| is_ident(c) || c == ':' || c == '$') {
            continue; // `$crate::`, `foo_crate::`, `::crate::`
        }
        let after = &code[from..];
        if let Some(group) = after.strip_prefix('{') {
            // crate::{a, b::c, d::{e, f}}: the first name of each item at depth 0
            let mut depth = 0usize;
            let mut item_start = true;
            for (k, ch) in group.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && is_ident(c) => {
                        out.insert(ident_at(&group[k..]).to_string());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident_at(after);
            if !name.is_empty() {
                out.insert(name.to_string());
            }
        }
    }
    out
}

/// `(name, test_only)` for each `mod name;` declared in `code` (a `#[cfg(test)]` or
/// `#[path = "…"]` on the lines just before it is taken into account), with its file.
fn declared_mods(file: &Path, text: &str) -> Vec<(String, bool, PathBuf)> {
    let dir = file.parent().unwrap();
    let stem = file.file_stem().unwrap().to_str().unwrap();
    let owns_dir = matches!(stem, "mod" | "lib" | "main");
    let mut out = Vec::new();
    let mut test = false;
    let mut path: Option<String> = None;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("#[") {
            if test_only_cfg(l) {
                test = true;
            }
            if let Some(p) = l.strip_prefix("#[path = \"") {
                path = p.strip_suffix("\"]").map(str::to_string);
            }
            continue;
        }
        let decl = l
            .strip_prefix("pub mod ")
            .or_else(|| l.strip_prefix("pub(crate) mod "))
            .or_else(|| l.strip_prefix("mod "));
        if let Some(name) = decl.and_then(|d| d.strip_suffix(';')) {
            let f = match path.take() {
                Some(p) => dir.join(p),
                None => {
                    let base = if owns_dir {
                        dir.to_path_buf()
                    } else {
                        dir.join(stem)
                    };
                    let flat = base.join(format!("{name}.rs"));
                    if flat.exists() {
                        flat
                    } else {
                        base.join(name).join("mod.rs")
                    }
                }
            };
            out.push((name.to_string(), test, f));
        }
        if !l.is_empty() {
            test = false;
            path = None;
        }
    }
    out
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Each top-level module's edges to the others, with the files that make them.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let lib = src.join("lib.rs");
    let top = declared_mods(&lib, &fs::read_to_string(&lib).unwrap());
    let modules: BTreeSet<String> = top
        .iter()
        .filter(|(_, test, _)| !test)
        .map(|(n, _, _)| n.clone())
        .collect();
    let mut all = Vec::new();
    rs_files(src, &mut all);
    // every file some module declares test-only, wherever it sits
    let mut test_files = BTreeSet::new();
    for f in &all {
        let text = fs::read_to_string(f).unwrap();
        for (_, test, file) in declared_mods(f, &text) {
            if test {
                test_files.insert(file);
            }
        }
    }
    let mut graph = BTreeMap::new();
    for m in &modules {
        let mut files = vec![src.join(format!("{m}.rs"))];
        rs_files(&src.join(m), &mut files);
        let edges: &mut BTreeMap<String, BTreeSet<String>> = graph.entry(m.clone()).or_default();
        for f in files
            .iter()
            .filter(|f| f.exists() && !test_files.contains(*f))
        {
            let code = without_test_items(&code_only(&fs::read_to_string(f).unwrap()));
            for n in crate_refs(&code) {
                if &n != m && modules.contains(&n) {
                    let shown = f.strip_prefix(src.parent().unwrap()).unwrap_or(f);
                    edges
                        .entry(n)
                        .or_default()
                        .insert(shown.display().to_string());
                }
            }
        }
    }
    graph
}

/// The strongly connected components with more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Vec<Vec<String>> {
    struct T<'g> {
        g: &'g BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(t: &mut T<'g>, v: &'g str) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g[v].keys() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut scc = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                scc.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                t.out.push(scc);
            }
        }
    }
    let mut t = T {
        g: graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_cycles_between_top_level_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    assert!(graph.len() > 10, "the module list was not read: {graph:?}");
    let found = cycles(&graph);
    let mut report = String::new();
    for scc in &found {
        report.push_str(&format!("cycle among {scc:?}:\n"));
        for a in scc {
            for (b, files) in &graph[a] {
                if scc.contains(b) {
                    report.push_str(&format!("  {a} -> {b}: {files:?}\n"));
                }
            }
        }
    }
    assert!(found.is_empty(), "module cycles:\n{report}");
}

#[test]
fn the_reader_sees_edges_and_cycles() {
    let code = without_test_items(&code_only(
        "use crate::a::X;\n// crate::b in a comment\nlet s = \"crate::c\";\n\
         use crate::{d, e::{f, g}, h};\nfn x() -> $crate::i {}\n\
         #[cfg(test)]\nmod tests { use crate::j; }\n#[cfg(test)]\nmod more;\n\
         #[cfg(all(test, feature = \"policy\"))]\nfn t() { crate::n::f(); }\n\
         #[cfg(not(test))]\nfn u() { crate::o::f(); }\n\
         let c = '\"'; let q = '\\''; let r = r#\"crate::k\"#; crate::l::m();\n",
    ));
    let refs: Vec<String> = crate_refs(&code).into_iter().collect();
    assert_eq!(refs, ["a", "d", "e", "h", "l", "o"]);

    let mut g: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (a, b) in [("x", "y"), ("y", "z"), ("z", "x"), ("z", "w"), ("w", "v")] {
        g.entry(a.into()).or_default().entry(b.into()).or_default();
        g.entry(b.into()).or_default();
    }
    assert_eq!(cycles(&g), vec![vec!["x", "y", "z"]]);
    g.get_mut("z").unwrap().remove("x");
    assert!(cycles(&g).is_empty());
}

//! Load a vault folder from disk into the core and print what hooks would see — the native
//! stand-in for `hookwise context`, useful while working on the core.
//!
//!     cargo run --example vault_demo -- [FOLDER] [CONCEPT] [QUERY]
//!
//! Defaults: `examples/vault`, `jwt`, `rotate signing keys`.

use std::path::Path;

use hookwise::protocol::DirEntry;
use hookwise::vault::{markdown, ReadError, Vault};

fn walk(root: &Path, dir: &Path, out: &mut Vec<DirEntry>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let Ok(meta) = std::fs::metadata(&p) else {
            continue;
        };
        let rel = p
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if meta.is_dir() {
            walk(root, &p, out);
        } else {
            let mtime_ms = meta
                .modified()
                .ok()
                .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0.0, |d| d.as_millis() as f64);
            out.push(DirEntry {
                path: rel,
                is_file: true,
                is_symlink: e.file_type().map(|t| t.is_symlink()).unwrap_or(false),
                realpath: std::fs::canonicalize(&p)
                    .ok()
                    .map(|r| r.to_string_lossy().into_owned()),
                size: meta.len(),
                mtime_ms,
                ..Default::default()
            });
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let folder = args.first().map_or("examples/vault", String::as_str);
    let concept = args.get(1).map_or("jwt", String::as_str);
    let query = args.get(2).map_or("rotate signing keys", String::as_str);
    let root = std::fs::canonicalize(folder).expect("vault folder");
    let mut listing = Vec::new();
    walk(&root, &root, &mut listing);
    let mut vault = Vault::new();
    let t = std::time::Instant::now();
    for path in vault.plan(&root.to_string_lossy(), &listing, true) {
        let r = match std::fs::read(root.join(&path)) {
            Ok(bytes) => String::from_utf8(bytes).map_err(|_| ReadError::NotUtf8),
            Err(e) => Err(ReadError::from_host(
                match e.kind() {
                    std::io::ErrorKind::NotFound => hookwise::protocol::ReplyError::NotFound,
                    std::io::ErrorKind::PermissionDenied => hookwise::protocol::ReplyError::Denied,
                    _ => hookwise::protocol::ReplyError::Other,
                },
                Some(&e.to_string()),
            )),
        };
        vault.ingest(&path, r);
    }
    println!(
        "indexed {} in {:.1} ms: {}\n",
        root.display(),
        t.elapsed().as_secs_f64() * 1e3,
        serde_json::to_string(&vault.stats()).unwrap()
    );
    println!("{}", vault.build_context(concept, 2, 8, true).to_text());
    println!("Search: {query}");
    for h in vault.search(query, 5) {
        println!(
            "  {:>6.2}  {}  ({})\n          {}",
            h.score, h.title, h.uri, h.snippet
        );
    }
    println!("\nRecent activity:");
    for a in vault.recent(5, None) {
        println!(
            "  {}  {}  ({})\n          {}",
            markdown::format_utc_minutes(a.modified_ms),
            a.title,
            a.uri,
            a.summary
        );
    }
}

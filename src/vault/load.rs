//! Loading the vault through the host: list, plan, read in batches, ingest.

use super::*;

/// Before a bulk load of `text_bytes` of notes, grow the heap once by about what the load will
/// hold: twice the text (the 10,000-note bench vault holds 1.8×; 2.5× left 16 MiB unused, and
/// no reservation at all costs +4 % instructions and ~0.2 s); nothing below 16 MiB.
/// On wasm every `memory.grow` is expensive (V8 collects garbage on each), and the allocator
/// would otherwise grow the memory in thousands of small steps; the freed block stays with
/// the allocator and is carved up by the load. Native allocators need no help.
pub(super) fn reserve_heap(text_bytes: u64) {
    #[cfg(target_arch = "wasm32")]
    {
        const MIN: u64 = 16 << 20;
        const MAX: u64 = 1 << 30;
        let bytes = text_bytes.saturating_mul(2);
        if bytes >= MIN {
            let v: Vec<u8> = Vec::with_capacity(bytes.min(MAX) as usize);
            drop(std::hint::black_box(v));
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = text_bytes;
}

pub(super) use crate::paths::join as join_path;

/// List the vault at `root` through the host, read what changed (in batches of
/// [`READ_BATCH`]) and bring `vault` up to date. Never fails: problems are counted or reported
/// in `error`. The borrow of `vault` is never held across an await.
pub async fn refresh(io: &Io, vault: &RefCell<Vault>, root: &str) -> RefreshStats {
    let types_only = vault.borrow().is_blank();
    let replies = join_all(vec![
        io.request(Request::Stat {
            path: root.to_string(),
        }),
        io.request(Request::ListDir {
            path: root.to_string(),
            recursive: true,
            max_entries: MAX_LIST_ENTRIES,
            skip_hidden: true,
            types_only,
        }),
    ])
    .await;
    let mut replies = replies.into_iter();
    let mut out = RefreshStats::default();
    // A reply that does not decode says nothing about the vault: the index is kept as it is
    // (decoded to defaults it would read as "no vault" or "every note deleted").
    let st: StatResult = match serde_json::from_value(replies.next().unwrap_or_default()) {
        Ok(st) => st,
        Err(e) => {
            out.stats = vault.borrow().stats();
            out.error = Some(format!(
                "vault {root}: the host's stat reply is malformed: {e}"
            ));
            return out;
        }
    };
    let list: ListDirResult = serde_json::from_value(replies.next().unwrap_or_default())
        .unwrap_or_else(|e| ListDirResult {
            error: Some(ReplyError::Other),
            detail: Some(format!("the host's reply is malformed: {e}")),
            ..Default::default()
        });
    if !st.exists || !st.is_dir {
        vault.borrow_mut().clear();
        out.stats = vault.borrow().stats();
        out.error = Some(match st.error {
            Some(e) => format!("vault {root}: {}", e.describe(st.detail.as_deref())),
            None if st.exists => format!("vault {root} is not a folder"),
            None => format!("vault {root} does not exist"),
        });
        return out;
    }
    if let Some(e) = list.error {
        let e = e.describe(list.detail.as_deref());
        if list.entries.is_empty() {
            out.stats = vault.borrow().stats();
            out.error = Some(format!("listing {root}: {e}"));
            return out;
        }
        out.error = Some(format!("listing {root} (partial): {e}"));
    }
    // What tells the vault's family: an app's folder (hidden: not listed; reading a folder
    // fails, but not as "not found") or its configuration's text.
    let mut batched = true;
    let files: Vec<String> = FAMILY_FILES.iter().map(|f| f.to_string()).collect();
    let found = read_batch(io, root, &files, &mut batched).await;
    family(vault, &list.entries, &found);
    let root_real = st.realpath.clone().unwrap_or_else(|| root.to_string());
    let complete = !list.truncated && list.error.is_none();
    out.truncated = list.truncated;
    let before = vault.borrow().stats().files;
    let to_read = vault.borrow_mut().plan(&root_real, &list.entries, complete);
    let after_plan = vault.borrow().stats().files;
    out.removed = before.saturating_sub(after_plan);
    let changed_known = to_read
        .iter()
        .filter(|p| vault.borrow().by_path.contains_key(p.as_str()))
        .count() as u32;
    out.unchanged = after_plan.saturating_sub(changed_known);

    read_planned(io, vault, root, &to_read, &mut out).await;
    out.stats = vault.borrow().stats();
    out
}

/// Read the planned paths through the host in batches of [`READ_BATCH`] and ingest them,
/// counting reads and drops in `out`.
pub(super) async fn read_planned(
    io: &Io,
    vault: &RefCell<Vault>,
    root: &str,
    to_read: &[String],
    out: &mut RefreshStats,
) {
    // Room for what the reads will hold, grown once: from the listed sizes, or — a listing of
    // types only — from the first batch's median size (one big note among them must not make
    // the estimate huge).
    let listed = vault.borrow().pending_bytes();
    reserve_heap(listed);
    let mut batched = true;
    for (i, chunk) in to_read.chunks(READ_BATCH).enumerate() {
        let results = read_batch(io, root, chunk, &mut batched).await;
        let mut v = vault.borrow_mut();
        let mut sizes: Vec<u64> = Vec::new();
        for (p, r) in chunk.iter().zip(results) {
            let opened = r.size.zip(r.mtime_ms);
            if i == 0 && listed == 0 {
                sizes.push(r.text.as_ref().map_or(0, |t| t.len() as u64));
            }
            let result = match (r.text, r.error) {
                (_, Some(e)) => Err(ReadError::from_host(e, r.detail.as_deref())),
                (Some(t), None) => Ok(t),
                (None, None) => Err(ReadError::Unreadable("no text in the reply".into())),
            };
            let was = v.by_path.contains_key(p.as_str());
            if v.ingest_opened(p, result, opened) {
                out.read += 1;
            } else if was {
                out.removed += 1;
            }
        }
        if !sizes.is_empty() {
            crate::sort::sort(&mut sizes);
            let rest = (to_read.len() - chunk.len()) as u64;
            reserve_heap(sizes[sizes.len() / 2].saturating_mul(rest));
        }
    }
}

/// One batch of reads: a single `ReadFiles` request while the host answers it (`batched`),
/// else — from the first reply that is not a list of as many files — a `ReadFile` per path.
pub(super) async fn read_batch(
    io: &Io,
    root: &str,
    chunk: &[String],
    batched: &mut bool,
) -> Vec<ReadResult> {
    if *batched {
        let mut reply = io
            .request(Request::ReadFiles {
                dir: join_path(root, ""),
                paths: chunk.to_vec(),
                max_bytes: MAX_FILE_BYTES,
            })
            .await;
        match reply.get_mut("files") {
            Some(Value::Array(files)) if files.len() == chunk.len() => {
                let files = std::mem::take(files);
                return files
                    .into_iter()
                    .map(crate::protocol::file_result)
                    .collect();
            }
            _ => *batched = false,
        }
    }
    let reqs = chunk
        .iter()
        .map(|p| {
            io.request(Request::ReadFile {
                path: join_path(root, p),
                max_bytes: MAX_FILE_BYTES,
            })
        })
        .collect();
    join_all(reqs)
        .await
        .into_iter()
        .map(|r| serde_json::from_value(r).unwrap_or_default())
        .collect()
}

/// What [`family`] looks at in the vault's root.
pub const FAMILY_FILES: [&str; 4] = [".obsidian", ".foam", "logseq/config.edn", "dendron.yml"];

/// Recognise the vault's family from what its root holds — `logseq/config.edn` (or a Logseq
/// graph's `pages/` and `journals/` without one), `dendron.yml`, `.obsidian/`, `.foam/` (`found`:
/// the reads of [`FAMILY_FILES`]) — and read it as that app does from now on
/// ([`Vault::set_family`]).
fn family(vault: &RefCell<Vault>, entries: &[DirEntry], found: &[ReadResult]) {
    let has = |p: &str| entries.iter().any(|e| e.path == p);
    let mut scope = Vec::new();
    let mut why = String::from("logseq (logseq/config.edn, file names ");
    let family = if let Some(cfg) = &found[2].text {
        let triple = cfg.split('\n').any(|l| {
            !l.trim_start().starts_with(';')
                && l.contains(":file/name-format")
                && l.contains(":triple-lowbar")
        });
        why += if triple {
            ":triple-lowbar)"
        } else {
            ":legacy)"
        };
        Family::Logseq { legacy: !triple }
    } else if let Some(yml) = &found[3].text {
        // `workspace.vaults[].fsPath`: each vault's folder, relative to the workspace root.
        why = "dendron (dendron.yml, vaults:".into();
        for l in yml.split('\n') {
            if let Some(v) = markdown::trim_marks(l).strip_prefix("fsPath:") {
                let v = markdown::trim_marks(v);
                if !v.is_empty() && !v.starts_with('.') && !v.contains("..") {
                    why = why + " " + v;
                    scope.push(v.to_string());
                }
            }
        }
        why += ")";
        Family::Dendron
    } else if has("pages") && has("journals") {
        why = "logseq (pages/ and journals/, no logseq/config.edn)".into();
        Family::Logseq { legacy: false }
    } else {
        let app = ["obsidian (.obsidian/)", "foam (.foam/)"];
        why = found
            .iter()
            .zip(app)
            .find(|m| m.0.error.is_some_and(|e| e != ReplyError::NotFound))
            .map_or(
                "none (no .obsidian/, .foam/, logseq/config.edn, dendron.yml)",
                |m| m.1,
            )
            .into();
        Family::Plain
    };
    vault.borrow_mut().set_family(family, why, scope);
}

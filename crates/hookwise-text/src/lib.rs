//! The text work of hookwise's core: WikiLinks and concept names, markdown notes, and the
//! vault's full-text search index. These are the hot paths of indexing a vault (every byte of
//! every note goes through them), so this crate is built for speed (`opt-level = 2` in the
//! workspace's release profile, like pulldown-cmark) while the rest of the core is built for
//! size. What is only needed when answering (previews, snippets, ranking) stays in the main
//! crate. No I/O and no wasm-bindgen, like the rest of the core.

pub mod fx;
pub mod markdown;
pub mod search;
pub mod wikilink;

/// A note's id in the vault (its index in the vault's file table).
pub type FileId = u32;

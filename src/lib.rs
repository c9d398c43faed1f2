//! hookwise: knowledge context, intent governance and pre-action enforcement for AI coding
//! agents. This crate is the whole policy; it does no I/O. Hosts (the JS glue for OpenCode,
//! VS Code extensions, …) drive an [`engine::Engine`]: a hook call goes in, and out come
//! either requests to carry out (spawn, stat, read, append, sleep) or the hook's result.

pub mod bounded;
/// The command-hook translator: a host's hook events, in its dialect, over the engine (policy
/// build).
#[cfg(feature = "policy")]
pub mod command_hook;
pub mod config;
pub mod context;
pub mod decimal;
pub mod discovery;
pub mod enforce;
pub mod engine;
/// What the host does when the core cannot start (data the JS glue reads: `js/failsafe.json`).
pub mod failsafe;
pub mod governance;
pub mod host;
/// The hosts, one file each, and their registry.
pub mod hosts;
pub mod knowledge;
pub mod maenifold;
pub mod mcp;
pub mod paths;
pub mod placement;
pub mod protocol;
pub mod redact;
/// `hookwise trace report`: the governed project as one HTML page (policy build).
#[cfg(feature = "policy")]
pub mod report;
pub mod runtime;
pub mod session;
pub mod sort;
#[cfg(test)]
mod test_rng;
/// The one in-memory test host (tests only: the crate's own, and through the `testing` feature
/// the integration tests'; never in a build that ships).
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod testing;
pub mod tools;
/// Nothing in a repository names a program hookwise runs (issue 38).
pub mod trust;
pub mod vault;
pub mod wire;
pub use hookwise_text::wikilink;

/// The wasm-bindgen adapters (wasm32 only).
#[cfg(target_arch = "wasm32")]
pub mod wasm_api;

/// Talc instead of the default dlmalloc on wasm: 3 KB gzipped smaller, as fast on a cold index
/// (about a million allocations: texts, parse trees, postings).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

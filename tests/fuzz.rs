//! Fuzzing on stable Rust: property tests (proptest) of every parser that reads model or host
//! input, through its public API. Each property asserts more than "no panic" where that is
//! cheap. `cargo test` runs a bounded number of cases (seconds); `scripts/fuzz.sh` runs the
//! long one and prints the cases per parser. See `fuzz/common.rs` for seeds and case counts.
//! Hook calls run against the crate's one test host (`hookwise::testing`, the `testing`
//! feature) through its one driver, bounded by `testing::bound`. Native only (`tests/wasm.rs` is the wasm-pack target).
#![cfg(not(target_arch = "wasm32"))]

#[path = "fuzz/commands.rs"]
mod commands;
#[path = "fuzz/common.rs"]
mod common;
#[path = "fuzz/config.rs"]
mod config;
#[path = "fuzz/engine.rs"]
mod engine;
#[path = "fuzz/intents.rs"]
mod intents;
#[path = "fuzz/maenifold.rs"]
mod maenifold;
#[path = "fuzz/mcp.rs"]
mod mcp;
#[path = "fuzz/patch.rs"]
mod patch;
#[path = "fuzz/paths.rs"]
mod paths;
#[path = "fuzz/reading.rs"]
mod reading;
#[path = "fuzz/records.rs"]
mod records;
#[path = "fuzz/redact.rs"]
mod redact;
#[path = "fuzz/scaling.rs"]
mod scaling;
#[path = "fuzz/sop.rs"]
mod sop;
#[path = "fuzz/text.rs"]
mod text;

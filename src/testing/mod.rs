//! The one in-memory test host every Rust test drives the core with. It answers the core's
//! requests as `js/host.cjs` does — the same reply shapes, failed replies as
//! [`ReplyError`](crate::protocol::ReplyError) codes — over:
//! - a file system with folders, symlinks and mtimes ([`fs`]; the trace's `AppendChained` and
//!   head with the JS host's exact algorithm),
//! - a virtual clock: `Now` answers it, a `Sleep` or a slow process is a timer that fires when
//!   the operation waits on nothing else, the clock then moving to its time ([`drive`]),
//! - scripted processes (`Spawn`: a closure per argv; [`procs`]),
//! - faults to inject (a failing listing, read or write; a garbage reply).
//!
//! [`drive`] runs an engine's hook call, or any operation of the runtime, to its end against it.
//! The MCP peer (a maenifold MCP server speaking JSON-RPC) is `crate::mcp::sim`.
//! `tests/host_shapes.json` pins the reply shapes this host and the JS host share.

pub mod bound;
pub mod drive;
pub mod fs;
pub mod globs;
pub mod procs;
#[cfg(test)]
mod shapes_tests;

pub use drive::drive;
#[allow(unused_imports)]
pub use drive::{run, Reply};
pub use fs::TestHost;

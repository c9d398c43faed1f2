//! The one in-memory test host every Rust test drives the core with. It answers the core's
//! requests as `js/host.cjs` does — the same reply shapes, failed replies as
//! [`ReplyError`](crate::protocol::ReplyError) codes — over:
//! - a file system with folders, symlinks and mtimes ([`fs`]; the trace's `AppendChained` and
//!   head with the JS host's exact algorithm),
//! - a virtual clock: `Now` answers it, a `Sleep` or a slow process is a timer that fires when
//!   the operation waits on nothing else, the clock then moving to its time ([`drive`]),
//! - scripted processes (`Spawn`: a closure per argv; [`procs`]),
//! - an MCP peer: scripted `maenifold --mcp` servers speaking JSON-RPC (`McpStart`, `McpWrite`,
//!   `McpStop`; what they print and their exits come back as events; [`mcp`]),
//! - the OpenCode client's session messages (`SessionMessages`),
//! - faults to inject (a failing listing, read or write; a garbage reply).
//!
//! [`drive`] is the one driver: it runs an engine's hook call, or operations of the runtime
//! (several at once, with the MCP router in the loop), to their end against it, on the
//! virtual clock ([`sides`]: what runs the operations, and the host). `crate::mcp::sim`, the
//! session tests (`crate::session`'s) and the fuzz crate's [`bound`] (the driver with a
//! request bound, calls given as any bytes, an MCP server the test plays itself) are
//! set-ups over it: there is no other event loop, timer queue or dispatcher here.
//! `tests/host_shapes.json` pins the reply shapes this host and the JS host share.

pub mod bound;
pub mod drive;
#[cfg(test)]
mod drive_tests;
pub mod fs;
pub mod globs;
pub mod mcp;
pub mod procs;
#[cfg(test)]
mod shapes_tests;
pub mod sides;

pub use drive::drive;
#[allow(unused_imports)]
pub use drive::{run, Reply};
pub use fs::TestHost;

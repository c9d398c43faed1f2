//! Pre-action knowledge enforcement.

pub mod config;
pub mod extract;
pub mod schema;
pub mod shell;

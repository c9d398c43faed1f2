//! `hookwise-native`: the native binary shipped per platform beside the npm package.
//!
//! - `hookwise-native hook [--dist DIR] [--host HOST] <Event>`: the warm command-hook client
//!   (issue 37); anything it cannot answer warm it hands to the Node path.
//! - `hookwise-native warm-key [--dist DIR] [--host HOST] <Event>`: the socket that hook would
//!   ask (the tests pin it against js/warm-client.cjs).
//! - `hookwise-native sandbox …`: runs a governed shell confined by the kernel (issue 38);
//!   see `hookwise-sandbox`.

use std::ffi::OsString;

// the warm hook client: POSIX (a Unix socket) and Windows (a named pipe); the workspace's
// wasm32 build has neither
#[cfg(any(unix, windows))]
mod hook;
#[cfg(any(unix, windows))]
mod key;
#[cfg(any(unix, windows))]
mod sys;

fn main() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let code = match args.first().and_then(|a| a.to_str()) {
        Some("sandbox") => hookwise_sandbox::run(&args[1..]),
        #[cfg(any(unix, windows))]
        Some("hook") => hook::run(&args[1..]),
        #[cfg(any(unix, windows))]
        Some("warm-key") => hook::print_key(&args[1..]),
        Some("--version") => {
            println!("hookwise-native {}", env!("CARGO_PKG_VERSION"));
            0
        }
        _ => {
            eprintln!("usage: hookwise-native hook [--dist DIR] [--host HOST] <Event> | hookwise-native sandbox …");
            2
        }
    };
    std::process::exit(code)
}

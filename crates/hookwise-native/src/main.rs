//! `hookwise-native`: the native binary shipped per platform beside the npm package.
//!
//! - `hookwise-native hook [--host HOST] <Event>`: the warm command-hook client (issue 37);
//!   anything it cannot answer warm it hands to the Node path.
//! - `hookwise-native sandbox …`: runs a governed shell confined by the kernel (issue 38);
//!   see `hookwise-sandbox`.

use std::ffi::OsString;

mod hook;

fn main() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let code = match args.first().and_then(|a| a.to_str()) {
        Some("sandbox") => hookwise_sandbox::run(&args[1..]),
        Some("hook") => hook::run(&args[1..]),
        _ => {
            eprintln!("usage: hookwise-native hook [--host HOST] <Event> | hookwise-native sandbox …");
            2
        }
    };
    std::process::exit(code)
}

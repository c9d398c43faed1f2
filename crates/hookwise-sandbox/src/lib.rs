//! The confined shell (issue 38): `hookwise-native sandbox …` runs a command whose process
//! tree the kernel confines before it starts. Not written yet: it refuses to run anything.

use std::ffi::OsString;

/// Runs `args` (the arguments after `sandbox`) confined; returns the exit code when it cannot
/// (it execs the command otherwise). Never runs a command unconfined.
pub fn run(_args: &[OsString]) -> i32 {
    eprintln!("hookwise sandbox: not available in this build; nothing was run");
    126
}

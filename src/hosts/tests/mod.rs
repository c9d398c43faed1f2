//! The hosts' tests: each host's profile as an attacker uses it, through the engine; every
//! answer each dialect can write; the registry and the tables generated from it.

#[allow(unused_imports)]
use crate::host::*;

#[cfg(all(test, feature = "policy"))]
pub(crate) mod answers;
#[cfg(all(test, feature = "policy"))]
mod cline;
#[cfg(all(test, feature = "policy"))]
pub(crate) mod engine;
#[cfg(all(test, feature = "policy"))]
mod model_logs;
#[cfg(test)]
mod opencode2;
#[cfg(test)]
mod pi;
#[cfg(test)]
mod registry;

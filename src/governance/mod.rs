pub mod chain;
pub mod classify;
pub mod gate;
pub mod git;
pub mod glob;
pub mod intents;
pub mod ops;
pub mod patch;
pub mod ranges;
pub mod scope;
#[cfg(test)]
pub(crate) mod testhost;
#[cfg(test)]
mod tests;
pub mod trace;

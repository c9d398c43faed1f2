pub mod chain;
pub mod classify;
pub mod intents;
pub mod patch;
pub mod ranges;
pub mod scope;
pub mod trace;

//! The MCP session's test set-up over the one test driver ([`crate::testing`]): the runtime
//! with the router in the loop exactly as the engine uses it, the test host running scripted
//! `maenifold --mcp` servers ([`Fake`], the host's MCP peer) and a scripted CLI, the virtual
//! clock from 0. The driver checks the host-side invariants on every step: the host never
//! sees `McpAwait`, and every cancel names a request the host was given.

use std::collections::{BTreeMap, HashMap};
use std::ops::{Deref, DerefMut};

use serde_json::Value;

use super::session::{McpHandle, McpSetup};
use super::McpOptions;
use crate::knowledge::Source;
use crate::protocol::Request;
use crate::testing::drive::{Driver, Routed};
use crate::testing::mcp::Peers;
pub use crate::testing::mcp::{Fake, Handshake};
use crate::testing::procs::Proc;
use crate::testing::TestHost;

/// How long the scripted CLI takes for a call.
pub const CLI_MS: u64 = 1800;

pub struct Sim {
    d: Driver<Routed, TestHost>,
    pub h: McpHandle,
}

impl Deref for Sim {
    type Target = Driver<Routed, TestHost>;
    fn deref(&self) -> &Self::Target {
        &self.d
    }
}

impl DerefMut for Sim {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.d
    }
}

pub fn cli_source() -> Source {
    Source::Cli {
        path: "/bin/maenifold".into(),
        timeout_ms: 5000,
        max_bytes: 1 << 20,
    }
}

impl Sim {
    /// `make` makes the server for the n-th start (`None`: the start fails); the CLI answers
    /// `BuildContext` of a concept with `cli_text`'s text (or no relations) after [`CLI_MS`].
    pub fn new(
        options: McpOptions,
        cli_text: HashMap<String, String>,
        make: impl Fn(usize) -> Option<Fake> + 'static,
    ) -> Sim {
        let h = McpHandle::new(McpSetup {
            cli_path: Some("/bin/maenifold".into()),
            env: BTreeMap::new(),
            options,
            source: "maenifold:/bin/maenifold".into(),
        });
        let host = TestHost {
            now: 0.0,
            mcp: Some(Peers::new(make)),
            procs: Some(Box::new(move |argv: &[String]| {
                let payload: Value = serde_json::from_str(&argv[4]).unwrap();
                let c = payload["conceptName"].as_str().unwrap_or("");
                let stdout = cli_text.get(c).cloned().unwrap_or_else(|| {
                    format!("Context for CONCEPT: {c}\n\nDirect relations (0 CONCEPTS):\n")
                });
                Proc::Exit {
                    ms: CLI_MS as f64,
                    stdout,
                }
            })),
            expect: Some(|r| {
                matches!(
                    r,
                    Request::Sleep { .. }
                        | Request::McpStart { .. }
                        | Request::McpWrite { .. }
                        | Request::McpStop { .. }
                        | Request::Spawn { .. }
                )
            }),
            ..TestHost::default()
        };
        Sim {
            d: Driver::new(Routed::new(h.clone()), host),
            h,
        }
    }

    pub fn now(&self) -> u64 {
        self.host.now as u64
    }

    /// When operation `op` finished.
    pub fn done_at(&self, op: u64) -> u64 {
        self.done[&op].0 as u64
    }

    /// The MCP servers run.
    pub fn peers(&self) -> &Peers {
        self.host.mcp.as_ref().expect("a host with an MCP peer")
    }

    pub fn peers_mut(&mut self) -> &mut Peers {
        self.d.host.mcp.as_mut().expect("a host with an MCP peer")
    }

    /// How many times the CLI was run.
    pub fn cli_calls(&self) -> usize {
        let spawn = |r: &&Request| matches!(r, Request::Spawn { .. });
        self.host.log.iter().filter(spawn).count()
    }
}

#[cfg(test)]
#[path = "sim_tests.rs"]
mod tests;

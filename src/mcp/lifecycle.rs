//! When to start, restart or give up on the MCP process: pure decisions from incidents and
//! host time.
//!
//! - `transport: "cli"`: never started.
//! - `"auto"`: a process that cannot be started, or that does not complete the MCP handshake
//!   (exits first, prints garbage, refuses `initialize`, stays silent past the start timeout),
//!   does not speak MCP: the per-call CLI path is used from then on, logged once.
//! - A session that worked and then crashed or hung is replaced: the first restart at once,
//!   then with doubling backoff (`backoffBaseMs` · 2^(n-2), at most `backoffMaxMs`). More than
//!   `maxRestarts` incidents within `windowMs` → give up (auto: the CLI path; mcp: no
//!   knowledge context), logged once. While a restart waits, `auto` answers through the CLI
//!   and `mcp` fails the lookup at once (fail open, no waiting).
//! - `"mcp"`: start and handshake failures count as incidents too (retried with backoff up to
//!   the same bound), as there is no CLI path to fall back to.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::protocol::Log;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// A warm MCP session, the CLI when MCP is not available.
    #[default]
    Auto,
    /// Only MCP.
    Mcp,
    /// Only the per-call CLI.
    Cli,
}

impl Transport {
    pub fn parse(s: &str) -> Option<Transport> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Transport::Auto),
            "mcp" => Some(Transport::Mcp),
            "cli" => Some(Transport::Cli),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartPolicy {
    pub max_restarts: u32,
    pub window_ms: u64,
    pub backoff_base_ms: u64,
    pub backoff_max_ms: u64,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            max_restarts: 3,
            window_ms: 10 * 60 * 1000,
            backoff_base_ms: 1000,
            backoff_max_ms: 30_000,
        }
    }
}

impl RestartPolicy {
    /// The wait before restart number `n` (1-based) within the window.
    pub fn backoff(&self, n: u32) -> u64 {
        if n <= 1 {
            return 0;
        }
        let shift = (n - 2).min(30);
        self.backoff_base_ms
            .saturating_mul(1u64 << shift)
            .min(self.backoff_max_ms)
    }
}

/// Something that went wrong with a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incident {
    /// The host could not start it.
    SpawnFailed(String),
    /// It never completed the handshake.
    HandshakeFailed(String),
    /// It exited or closed its stdout after the handshake.
    Crashed(String),
    /// A request timed out and nothing at all came out of it meanwhile.
    Hung(String),
}

impl Incident {
    fn describe(&self) -> String {
        match self {
            Incident::SpawnFailed(m) => format!("could not be started ({m})"),
            Incident::HandshakeFailed(m) => format!("did not complete the MCP handshake ({m})"),
            Incident::Crashed(m) => format!("ended ({m})"),
            Incident::Hung(m) => format!("hung ({m})"),
        }
    }
    fn before_ready(&self) -> bool {
        matches!(
            self,
            Incident::SpawnFailed(_) | Incident::HandshakeFailed(_)
        )
    }
}

/// May a process be started now?
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    Start,
    /// Not before `until_ms` (host time).
    Backoff {
        until_ms: u64,
    },
    /// Never again in this plugin instance.
    Off {
        reason: String,
    },
}

/// What follows an incident.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Start a new process after `after_ms` (0: at the next lookup).
    Restart { after_ms: u64 },
    /// MCP is off for good.
    GiveUp,
}

#[derive(Debug, Clone)]
pub struct Lifecycle {
    transport: Transport,
    policy: RestartPolicy,
    incidents: VecDeque<u64>,
    backoff_until: u64,
    off: Option<String>,
    /// Processes started (for the "one process for the whole session" check).
    pub starts: u32,
}

impl Lifecycle {
    pub fn new(transport: Transport, policy: RestartPolicy) -> Lifecycle {
        Lifecycle {
            transport,
            policy,
            incidents: VecDeque::new(),
            backoff_until: 0,
            off: (transport == Transport::Cli).then(|| "transport is cli".to_string()),
            starts: 0,
        }
    }

    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// Whether a lookup that cannot use MCP goes to the CLI.
    pub fn falls_back_to_cli(&self) -> bool {
        self.transport != Transport::Mcp
    }

    pub fn gate(&self, now_ms: u64) -> Gate {
        if let Some(r) = &self.off {
            return Gate::Off { reason: r.clone() };
        }
        if now_ms < self.backoff_until {
            return Gate::Backoff {
                until_ms: self.backoff_until,
            };
        }
        Gate::Start
    }

    pub fn on_start(&mut self) {
        self.starts += 1;
    }

    /// Switch MCP off (dispose): no more starts.
    pub fn turn_off(&mut self, reason: &str) {
        self.off.get_or_insert_with(|| reason.to_string());
    }

    /// Record an incident; the verdict and the one warning for it.
    pub fn on_incident(&mut self, now_ms: u64, incident: &Incident) -> (Verdict, Log) {
        let what = incident.describe();
        if self.off.is_some() {
            return (
                Verdict::GiveUp,
                Log::debug(format!("maenifold MCP process {what}")),
            );
        }
        let after = if self.transport == Transport::Mcp {
            "knowledge context is off until the plugin restarts"
        } else {
            "using the maenifold CLI per call from now on"
        };
        if self.transport == Transport::Auto && incident.before_ready() {
            self.off = Some(what.clone());
            return (
                Verdict::GiveUp,
                Log::warn(format!("maenifold MCP server {what}; {after}")),
            );
        }
        while self
            .incidents
            .front()
            .is_some_and(|t| now_ms.saturating_sub(*t) >= self.policy.window_ms)
        {
            self.incidents.pop_front();
        }
        self.incidents.push_back(now_ms);
        let n = self.incidents.len() as u32;
        if n > self.policy.max_restarts {
            self.off = Some(what.clone());
            let mins = self.policy.window_ms / 60_000;
            return (
                Verdict::GiveUp,
                Log::warn(format!(
                    "maenifold MCP server {what}: {n} failures within {mins} min; {after}"
                )),
            );
        }
        let wait = self.policy.backoff(n);
        self.backoff_until = now_ms + wait;
        let when = if wait == 0 {
            "at the next lookup".to_string()
        } else {
            format!("in {wait} ms")
        };
        (
            Verdict::Restart { after_ms: wait },
            Log::warn(format!("maenifold MCP server {what}; restarting it {when}")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Level;

    fn crash() -> Incident {
        Incident::Crashed("exit code 134".into())
    }

    #[test]
    fn auto_falls_back_to_the_cli_when_the_server_does_not_speak_mcp() {
        for inc in [
            Incident::SpawnFailed("ENOENT".into()),
            Incident::HandshakeFailed("no answer to initialize within 15000 ms".into()),
        ] {
            let mut l = Lifecycle::new(Transport::Auto, RestartPolicy::default());
            assert_eq!(l.gate(0), Gate::Start);
            let (v, log) = l.on_incident(10, &inc);
            assert_eq!(v, Verdict::GiveUp);
            assert_eq!(log.level, Level::Warn);
            assert!(log.message.contains("CLI per call"), "{}", log.message);
            assert!(matches!(l.gate(1_000_000), Gate::Off { .. }), "for good");
            assert!(l.falls_back_to_cli());
            // later incidents are not warned again
            assert_eq!(l.on_incident(20, &crash()).1.level, Level::Debug);
        }
    }

    #[test]
    fn crashes_restart_with_doubling_backoff_then_give_up() {
        let p = RestartPolicy {
            max_restarts: 3,
            window_ms: 600_000,
            backoff_base_ms: 1000,
            backoff_max_ms: 30_000,
        };
        let mut l = Lifecycle::new(Transport::Auto, p);
        assert_eq!(
            l.on_incident(100, &crash()).0,
            Verdict::Restart { after_ms: 0 }
        );
        assert_eq!(l.gate(100), Gate::Start, "the first restart is immediate");
        let (v, log) = l.on_incident(200, &Incident::Hung("no output for 5000 ms".into()));
        assert_eq!(v, Verdict::Restart { after_ms: 1000 });
        assert!(log.message.contains("in 1000 ms"));
        assert_eq!(l.gate(1199), Gate::Backoff { until_ms: 1200 });
        assert_eq!(l.gate(1200), Gate::Start);
        assert_eq!(
            l.on_incident(1300, &crash()).0,
            Verdict::Restart { after_ms: 2000 }
        );
        let (v, log) = l.on_incident(3400, &crash());
        assert_eq!(v, Verdict::GiveUp);
        assert!(log.message.contains("4 failures"), "{}", log.message);
        assert!(matches!(l.gate(10_000_000), Gate::Off { .. }));
    }

    #[test]
    fn incidents_older_than_the_window_are_forgotten() {
        let p = RestartPolicy {
            max_restarts: 2,
            window_ms: 1000,
            ..RestartPolicy::default()
        };
        let mut l = Lifecycle::new(Transport::Auto, p);
        for t in [0, 1500, 3000, 4500, 6000] {
            assert_eq!(
                l.on_incident(t, &crash()).0,
                Verdict::Restart { after_ms: 0 },
                "at {t}"
            );
        }
        assert_eq!(
            l.on_incident(6500, &crash()).0,
            Verdict::Restart { after_ms: 1000 }
        );
        assert_eq!(l.on_incident(6600, &crash()).0, Verdict::GiveUp);
    }

    #[test]
    fn mcp_only_retries_start_failures_and_never_mentions_the_cli() {
        let mut l = Lifecycle::new(Transport::Mcp, RestartPolicy::default());
        let spawn = Incident::SpawnFailed("ENOENT".into());
        assert_eq!(l.on_incident(0, &spawn).0, Verdict::Restart { after_ms: 0 });
        assert_eq!(
            l.on_incident(1, &spawn).0,
            Verdict::Restart { after_ms: 1000 }
        );
        assert_eq!(
            l.on_incident(2000, &spawn).0,
            Verdict::Restart { after_ms: 2000 }
        );
        let (v, log) = l.on_incident(5000, &spawn);
        assert_eq!(v, Verdict::GiveUp);
        assert!(log.message.contains("knowledge context is off"));
        assert!(!l.falls_back_to_cli());
    }

    #[test]
    fn cli_transport_never_starts_and_parsing_is_strict() {
        let l = Lifecycle::new(Transport::Cli, RestartPolicy::default());
        assert!(matches!(l.gate(0), Gate::Off { .. }));
        assert_eq!(Transport::parse(" MCP "), Some(Transport::Mcp));
        assert_eq!(Transport::parse("auto"), Some(Transport::Auto));
        assert_eq!(Transport::parse("stdio"), None);
        let p = RestartPolicy::default();
        assert_eq!(
            (
                p.backoff(1),
                p.backoff(2),
                p.backoff(3),
                p.backoff(7),
                p.backoff(90)
            ),
            (0, 1000, 2000, 30_000, 30_000)
        );
    }
}

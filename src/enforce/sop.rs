//! Standard operating procedures: parsing, matching a call, and the cache.
//!
//! Two formats:
//!
//! * **Markdown** (`*.md`, `*.markdown`) with YAML front matter:
//!   ```yaml
//!   ---
//!   id: git-force-push            # default: the file name without extension
//!   title: Force-pushing          # default: the first `# ` heading, else the id
//!   category: process             # process|security|credentials|gotchas|technical|general
//!   priority: 10                  # higher first among equal confidence (default 0)
//!   match:
//!     tools: [bash]               # only these tools (default: any)
//!     patterns: ['git\s+push\s.*--force']   # regexes over the call text
//!     keywords: [force push, rebase]        # words or phrases in the call text
//!     commands: [git push]        # command prefixes (program, subcommand, …)
//!     services: [git]             # extracted services
//!     hosts: ['*.prod.example.com']         # target hosts (`*` wildcards)
//!     projects: [shop]            # only in these projects
//!     minRisk: medium             # only for actions at least this risky
//!   sections: [preflight, rollback]         # headings to show (default: the configured list)
//!   ---
//!   ```
//!   `patterns`, `keywords`, `commands`, `tools`, `services`, `hosts` are also accepted at
//!   the top level. Sections are headings (any level) whose text starts with the name,
//!   compared without case and punctuation (`## Pre-flight checks` is `preflight`).
//! * **YAML** (`*.ai.sop`, `*.sop.yaml`, `*.sop.yml`): `meta {id, title|name, category,
//!   priority, service(s), keywords, tags, match {…}, sections}`, and sections as top-level
//!   keys: `preflight[{id, action, command, check, reason}]`, `gotchas`, `credentials`,
//!   `rollback`, `hosts`, `commands`, … Without explicit match rules, `meta.service(s)`,
//!   `meta.keywords`, the `hosts` section (names / `host` / `ip` fields) and the `commands`
//!   section (their program and subcommand) are the rules.
//!
//! With none of the named sections present, the excerpt is the first 1500 characters.
//!
//! Bounded (an SOP folder may hold hostile files): a file over [`MAX_SOP_BYTES`] is skipped
//! unread; its YAML (front matter or whole file) may nest at most
//! [`crate::bounded::MAX_DEPTH`] levels and its aliases expand it at most
//! [`crate::bounded::EXPANSION`] times; at most [`MAX_SECTIONS`] section names are used.
//! Over a limit the SOP is skipped with the reason in the log, as any broken SOP is.
//! Confidence of a match: pattern 1.0, command 0.95, host 0.9, service 0.8, keywords
//! 0.5 + 0.1 per further keyword (at most 0.9); the best applies.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::re::Regex;
use serde_json::Value;

use super::config::Category;
use super::extract::{self, ActionContext, Risk};
use super::shell;
use crate::bounded::{self, Refusal, YamlError};
use crate::protocol::{Log, ReadResult, Request};
use crate::runtime::{join_all, Io};

/// Characters of the fallback excerpt.
pub const EXCERPT_CHARS: usize = 1500;
/// SOP files larger than this are skipped.
pub const MAX_SOP_BYTES: u64 = 256 * 1024;
/// Section names an SOP may ask for (`sections:`); the rest are ignored, with a warning.
pub const MAX_SECTIONS: usize = 64;
const MAX_LIST_ENTRIES: u64 = 2000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub text: String,
}

#[derive(Debug, Clone, Default)]
pub struct Matcher {
    pub tools: Vec<String>,
    pub patterns: Vec<Regex>,
    pub keywords: Vec<String>,
    /// Command prefixes as words (`["git", "push"]`).
    pub commands: Vec<Vec<String>>,
    pub services: Vec<String>,
    pub hosts: Vec<String>,
    pub projects: Vec<String>,
    pub min_risk: Option<Risk>,
}

impl Matcher {
    fn has_rules(&self) -> bool {
        !(self.patterns.is_empty()
            && self.keywords.is_empty()
            && self.commands.is_empty()
            && self.services.is_empty()
            && self.hosts.is_empty()
            && self.tools.is_empty())
    }
}

#[derive(Debug, Clone)]
pub struct Sop {
    pub id: String,
    /// The file, as shown to people (`.opencode/sops/git.md`).
    pub path: String,
    pub title: String,
    pub category: Category,
    pub priority: i64,
    pub matcher: Matcher,
    /// The named sections found, in the order asked for.
    pub sections: Vec<Section>,
    /// The first [`EXCERPT_CHARS`] characters, used when no named section exists.
    pub excerpt: String,
}

impl Sop {
    /// The text shown for this SOP: its sections, else the excerpt.
    pub fn body(&self) -> String {
        if self.sections.is_empty() {
            self.excerpt.clone()
        } else {
            self.sections
                .iter()
                .map(|s| s.text.trim_end().to_string())
                .collect::<Vec<_>>()
                .join("\n\n")
        }
    }
}

/// Which file names are SOPs, and which format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Yaml,
}

mod cache;
mod matching;
mod parse;
mod render;

pub use cache::*;
pub use matching::*;
pub use parse::*;
pub use render::*;

#[cfg(test)]
#[path = "sop_tests.rs"]
mod hostile_tests;

#[cfg(test)]
#[path = "sop_unit_tests.rs"]
mod tests;

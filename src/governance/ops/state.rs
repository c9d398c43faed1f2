//! The state the operations share: sessions (selected intent, model, the reads they know),
//! projects (their intents and recent records) and the calls between `tool.before` and
//! `tool.after`.

use super::*;

#[derive(Debug, Default)]
pub(super) struct Session {
    pub(super) intent: Option<String>,
    pub(super) parent: Option<String>,
    pub(super) model: Option<String>,
}

#[derive(Debug, Clone)]
pub(super) struct RecentEntry {
    pub(super) intent: Option<String>,
    pub(super) summary: String,
}

#[derive(Default)]
pub(super) struct Project {
    /// Hash of the intents file text last parsed (or of the read error).
    pub(super) yaml_key: Option<String>,
    /// Size and mtime of the intents file when it was last read: while they stay the same
    /// the file is not read again (a stat instead of a read and a hash on every gated call).
    pub(super) yaml_stat: Option<(u64, f64)>,
    pub(super) file: Option<Rc<IntentFile>>,
    pub(super) scopes: HashMap<String, Rc<Result<Scope, String>>>,
    pub(super) problems_unsurfaced: bool,
    pub(super) trace_key: Option<(u64, u64)>,
    pub(super) recent: Vec<RecentEntry>,
    /// SHA-256 hex of the last line this process appended.
    pub(super) last_appended: Option<String>,
    /// Records that could not be appended yet, oldest first: changes are blocked while any wait.
    pub(super) unwritten: VecDeque<Unwritten>,
    /// Why the last append failed, while records wait.
    pub(super) trace_error: Option<String>,
    /// An operation is writing the records that wait.
    pub(super) flushing: bool,
    /// The last head status warned about (once per status).
    pub(super) head_warned: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Before {
    Absent,
    Text(String),
    Unknown,
}

#[derive(Debug, Clone)]
pub(super) struct PendingFile {
    pub(super) raw: String,
    pub(super) rel: String,
    pub(super) before: Before,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Pending {
    /// The gate blocked this call: a late `tool.after` for it records nothing.
    pub(super) blocked: bool,
    pub(super) intent: Option<String>,
    pub(super) files: Vec<PendingFile>,
    pub(super) notice: Option<String>,
    /// A shell call under governance: what the core knew of `.orchestration/` before it.
    pub(super) guard: Option<guard::Snapshot>,
    /// Enforcement's decision on the call, for its record.
    pub(super) enforcement: Option<trace::Enforcement>,
}

#[derive(Default)]
pub(super) struct State {
    pub(super) config: GovConfig,
    pub(super) projects: HashMap<String, Project>,
    pub(super) sessions: HashMap<String, Session>,
    /// (session, worktree-relative key) → fingerprint of the file when the session last saw it.
    pub(super) reads: HashMap<(String, String), String>,
    pub(super) read_order: VecDeque<(String, String)>,
    pub(super) pending: VecDeque<(String, Pending)>,
    /// Worktree → why governance is locked there ([`guard`]): every gated call is blocked.
    pub(super) locks: HashMap<String, String>,
}

/// The governance state of one engine: a cheap handle to share with operations.
#[derive(Clone, Default)]
pub struct Governance {
    pub(super) inner: Rc<RefCell<State>>,
}

impl Governance {
    pub fn new(config: GovConfig) -> Governance {
        let g = Governance::default();
        g.set_config(config);
        g
    }

    pub fn set_config(&self, config: GovConfig) {
        self.inner.borrow_mut().config = config;
    }

    pub fn config(&self) -> GovConfig {
        self.inner.borrow().config.clone()
    }

    /// A session started; `parent` for subagent sessions (OpenCode `session.created`
    /// `info.parentID`). A child without an intent of its own uses its parent's.
    pub fn session_created(&self, session: &str, parent: Option<&str>) {
        let mut st = self.inner.borrow_mut();
        let s = st.sessions.entry(session.to_string()).or_default();
        s.parent = parent
            .filter(|p| !p.is_empty() && *p != session)
            .map(str::to_string);
    }

    /// The model a session uses (`provider/model`), for `contributor.model_id`.
    pub fn set_model(&self, session: &str, model: &str) {
        if model.is_empty() {
            return;
        }
        let mut st = self.inner.borrow_mut();
        st.sessions.entry(session.to_string()).or_default().model = Some(model.to_string());
    }

    /// The session's intent, or the nearest ancestor's.
    pub fn active_intent(&self, session: &str) -> Option<String> {
        let st = self.inner.borrow();
        let mut cur = session.to_string();
        for _ in 0..32 {
            let s = st.sessions.get(&cur)?;
            if let Some(i) = &s.intent {
                return Some(i.clone());
            }
            cur = s.parent.clone()?;
        }
        None
    }

    pub(super) fn model(&self, session: &str) -> Option<String> {
        let st = self.inner.borrow();
        let mut cur = session.to_string();
        for _ in 0..32 {
            let s = st.sessions.get(&cur)?;
            if let Some(m) = &s.model {
                return Some(m.clone());
            }
            cur = s.parent.clone()?;
        }
        None
    }

    pub(super) fn select(&self, session: &str, id: &str) {
        let mut st = self.inner.borrow_mut();
        st.sessions.entry(session.to_string()).or_default().intent = Some(id.to_string());
    }

    pub(super) fn scope(
        &self,
        worktree: &str,
        file: &IntentFile,
        id: &str,
    ) -> Option<Rc<Result<Scope, String>>> {
        let intent = file.get(id)?;
        let mut st = self.inner.borrow_mut();
        let p = st.projects.entry(worktree.to_string()).or_default();
        Some(
            p.scopes
                .entry(id.to_string())
                .or_insert_with(|| Rc::new(Scope::compile(&intent.owned_scope)))
                .clone(),
        )
    }

    pub(super) fn remember_read(&self, session: &str, key: String, fp: String) {
        let mut st = self.inner.borrow_mut();
        let k = (session.to_string(), key);
        if st.reads.insert(k.clone(), fp).is_none() {
            st.read_order.push_back(k);
            while st.read_order.len() > MAX_READS {
                if let Some(old) = st.read_order.pop_front() {
                    st.reads.remove(&old);
                }
            }
        }
    }

    pub(super) fn known_read(&self, session: &str, key: &str) -> Option<String> {
        self.inner
            .borrow()
            .reads
            .get(&(session.to_string(), key.to_string()))
            .cloned()
    }

    /// The call was blocked: its late `tool.after` records nothing.
    pub(super) fn put_blocked(&self, call_id: &str) {
        self.put_pending(
            call_id,
            Pending {
                blocked: true,
                ..Pending::default()
            },
        );
    }

    pub(super) fn put_pending(&self, call_id: &str, p: Pending) {
        let mut st = self.inner.borrow_mut();
        st.pending.retain(|(id, _)| id != call_id);
        if st.pending.len() >= MAX_PENDING {
            st.pending.pop_front();
        }
        st.pending.push_back((call_id.to_string(), p));
    }

    /// SHA-256 hex of the last record line this process appended in `worktree`.
    pub(super) fn last_appended(&self, worktree: &str) -> Option<String> {
        let st = self.inner.borrow();
        st.projects.get(worktree).and_then(|p| p.last_appended.clone())
    }

    /// Enforcement decided on a call the gate let through: its record names the decision.
    pub fn note_enforcement(&self, call_id: &str, e: trace::Enforcement) {
        let mut st = self.inner.borrow_mut();
        if let Some((_, p)) = st.pending.iter_mut().find(|(id, _)| id == call_id) {
            p.enforcement = Some(e);
        }
    }

    pub(super) fn take_pending(&self, call_id: &str) -> Option<Pending> {
        let mut st = self.inner.borrow_mut();
        let i = st.pending.iter().position(|(id, _)| id == call_id)?;
        st.pending.remove(i).map(|(_, p)| p)
    }

    /// The problems text, once per change of the file (then `None`).
    pub(super) fn take_notice(&self, worktree: &str) -> Option<String> {
        let mut st = self.inner.borrow_mut();
        let p = st.projects.get_mut(worktree)?;
        if !p.problems_unsurfaced {
            return None;
        }
        p.problems_unsurfaced = false;
        p.file.as_ref().and_then(|f| problems_text(&f.problems))
    }
}

//! Intent governance and Agent Trace: scoped, traceable changes.
//!
//! # Opt-in
//! Governance is on for a worktree while `.orchestration/active_intents.yaml` exists (option
//! `governance: true` forces it on, `false` off; see [`ops::GovConfig::from_options`]).
//! While it is off every operation here is a quiet no-op that reads nothing but that file:
//! no block, no folder created, no system-prompt text.
//!
//! While it is on:
//! - mutating tools ([`gate`]) need an active intent for the session; file changes must stay
//!   inside its `owned_scope` ([`scope`]); `bash`-like tools need an active intent only —
//!   **a shell command cannot be scope-checked by path**;
//! - a session that read a file and then writes it after someone else changed it is
//!   blocked and told to re-read (stale writes);
//! - every file mutation appends one Agent Trace v0.1.0 record ([`trace`]) to
//!   `.orchestration/agent_trace.jsonl`, hash-chained ([`chain`]);
//! - the system prompt carries an `<intent_context>` block.
//!
//! Where to read the rules: path resolution and glob semantics in [`scope`] (matcher in
//! [`glob`]), the YAML format and its error reporting in [`intents`], which tools and
//! arguments are gated in [`gate`], patch parsing in [`patch`], ranges and hashing in
//! [`ranges`], the mutation class rule in [`classify`], the record format in [`trace`],
//! chain verification in [`chain`], HEAD lookup in [`git`].
//!
//! # Operations (engine-ready)
//! Each takes `&Io`, the shared [`ops::Governance`] handle and a plain input struct, and
//! returns a serializable result. Inputs are deserializable from camelCase JSON (every field
//! optional); `worktree` is the absolute worktree path (OpenCode `worktree`, VS Code
//! `workspaceRoot`) — the engine can fill it from `init`'s `cwd`; `directory` (optional) is
//! where relative tool paths start when the agent runs below the worktree (OpenCode
//! `directory`).
//!
//! | operation | hook | input | output |
//! |---|---|---|---|
//! | [`ops::tool_before`] | `tool.execute.before` / `executePreHook` | `{tool, sessionId, callId, args, worktree, directory?}` | `{block?: string, followUp?: true, logs?}` |
//! | [`ops::tool_after`] | `tool.execute.after` / `executePostHook` | `{tool, sessionId, callId, args, worktree, directory?, nowMs, random, head?, modelId?, failed?}` | `{recorded?: true, id?, notices?, logs?}` |
//! | [`ops::select_intent`] | custom tool `select_active_intent` | `{sessionId, intentId, worktree}` | `{ok, intentId?, text, logs?}` |
//! | [`ops::system_context`] | `experimental.chat.system.transform` | `{sessionId, worktree, modelId?}` | `{system: [string], logs?}` |
//! | [`ops::init_scaffold`] | `hookwise init` / engine call | `{worktree}` | `{created, path, message}` |
//! | [`ops::trace_verify`] | `hookwise trace verify` / engine call | `{worktree, anchor?}` | `{path, headPath, error?, ok, lines, head?, logHead?, storedHead?, problems: [{line, kind, message}]}` |
//! | [`ops::trace_head`] | `hookwise trace head [--init]` / engine call | `{worktree, init?}` | `{ok, written?, text?, message, verify}` |
//!
//! Synchronous calls on the handle: [`ops::Governance::session_created`]`(id, parentId)` for
//! OpenCode's `session.created` event (subagent sessions inherit their parent's intent until
//! they select their own), [`ops::Governance::set_model`], and
//! [`ops::GovConfig::watched_tools`] (the tools whose `tool.before`/`tool.after` must reach
//! the engine while governance is on: the mutating tools and the host profile's file readers).
//!
//! Details:
//! - `tool_before`: `block` is the message the model reads (throw it / `{blocked: true,
//!   reason}`); check it before any other `tool.before` work. `followUp: true` means a record
//!   is expected: call `tool_after` with the same `callId` once the tool has run. For read
//!   tools it only remembers the file's content hash for the session.
//! - `tool_after`: `args` are the tool's arguments (OpenCode passes them in the after hook's
//!   input); `nowMs` = `Date.now()`; `random` = 16 random bytes as 32 hex characters
//!   (`crypto.randomBytes(16).toString("hex")`; without them the id is derived from the call);
//!   `head` = the git commit when the host knows it (else it is read from `.git`); `failed`:
//!   the tool failed, record nothing. `notices` carries a one-time notice about problems in
//!   the intents file for the tool result (the engine hands it on as `withResult`). A failed append
//!   is a `warn` log, never an error. Shell tools leave no record (their changes are not
//!   known file by file).
//! - `select_intent.text` is the tool result for the model in both cases (`ok: false`: unknown
//!   id with the valid ids listed, or a COMPLETE/BLOCKED intent, or governance off).
//! - The active intent lives in memory per session (a restart asks the model to select again).
//!
//! # Host requests used
//! `Stat` + `ReadFile` (the intents file: stat'ed on each operation, read when its size or
//! mtime changed, re-parsed when its text changed; files before and after a mutation), `Stat` (realpaths: all prefixes of a path in
//! one batch), and four requests added for governance at the end of
//! [`crate::protocol::Request`]:
//!
//! - `{"kind":"appendChained", path, lockPath, before, after, staleMs, waitMs, breakMs,
//!   headPath, headParts}` → `{ok: true, prevHash, head?}` | `{ok: false, error}`. The host
//!   appends the record line whose `prev_hash` is the hash of the file's real last line, and
//!   keeps the head beside the log ([`head`]), atomically with respect to other processes:
//!   1. `mkdir -p dirname(path)`.
//!   2. Take the lock: `open(lockPath, "wx")` (O_CREAT|O_EXCL) and write into it
//!      `{"pid", "host", "token", "ms"}` (this process, `os.hostname()`, random hex, now). On
//!      EEXIST look at the lock in the way (lstat; its content if it is a regular file, opened
//!      without blocking) and remove it (ignore ENOENT), then retry at once, when: its mtime is
//!      older than `staleMs` (a crashed process), or its owner is gone (its `host` is this host
//!      and its `pid` is this process or not running: `kill(pid, 0)` fails with ESRCH), or —
//!      its content naming no owner (not JSON with a positive integer `pid` and a string
//!      `host`) — it has stayed the same file (device + inode) with the same content for more
//!      than `breakMs` of this wait (a process that only `touch`es it; 0: never). A lock naming
//!      a live owner is never broken while its file is kept fresh. Else sleep 1–5 ms
//!      (random) and retry; after `waitMs` in total reply `{ok: false, error: "lock timeout"}`.
//!      A lock that cannot be removed (a folder) is waited on until then.
//!   3. With no `await` until the lock is released: `fd = open(path, "a+")` (not a regular
//!      file: `{ok: false}`); `size` = its size; read the last line: the bytes after the last
//!      `\n` that comes before the file's final byte (read backwards in 64 KiB chunks until a
//!      `\n` or the start); if the file is non-empty and does not end with `\n`, the last
//!      line is the bytes after its last `\n` and the write below starts with `"\n"`.
//!   4. `prevHash` = hex SHA-256 of those bytes (of nothing for an empty file).
//!   5. ONE `write(fd, [maybe "\n"] + line + "\n")` with `line = before + prevHash + after`;
//!      close.
//!   6. With `headPath` (and four `headParts`): `fill(n, b, h) = parts[0] + n + parts[1] + b +
//!      parts[2] + h + parts[3]`. Read the head file (a regular file, opened without blocking;
//!      4 KiB at most). The old head is good when it is absent and `size` is 0 (`n` = 0), or
//!      when it starts with `parts[0]` followed by 1–15 digits `n` and its bytes equal
//!      `fill(n, size, prevHash)`. Good: replace the head file (write a temporary file beside
//!      it, rename it over the head) with `fill(n + 1, <the log's size now>, <hex SHA-256 of
//!      line>)`, `head: "written"`. Not good: leave it as it is, `head: "missing"` (absent) or
//!      `"mismatch"`. An error: `head: <its text>`. The record is appended in every case.
//!   7. Remove the lock if its content is still this append's (in a `finally`), reply
//!      `{ok: true, prevHash, head}`.
//!
//!   The core never sees the file; the line is `before + prevHash + after` exactly (the
//!   core keeps it to remember the chain's head). The critical section is synchronous and
//!   takes well under a millisecond per record. When the append fails, the core keeps the
//!   record, writes it before the next one, and blocks changes until it is written
//!   ([`ops::tool_before`]). The reference implementation is `appendChained` in
//!   `js/host.cjs`; checked with 8 processes × 500 records appending to one file: 4000 whole
//!   lines, one valid chain, its head matching.
//! - `{"kind":"writeHead", path, lockPath, headPath, text, expectBytes, expectLast, staleMs,
//!   waitMs, breakMs}` → `{ok: true}` | `{ok: false, error}`: under the same lock (step 2),
//!   when the log is a regular file of `expectBytes` bytes whose last line (step 3) hashes to
//!   `expectLast`, replace the head file with `text` (temporary file, rename); else `error:
//!   "changed"` (a missing log too). Used by `hookwise trace head --init`.
//!
//!   A reference implementation of the two below, for Node:
//!
//!   ```js
//!   /** Request `readTail`. */
//!   async function readTail({ path: p, maxBytes }) {
//!     let fd;
//!     try {
//!       fd = await fsp.open(p, "r");
//!     } catch (e) {
//!       return failed(e); // { error: "not-found" | "denied" | … , detail } (protocol::ReplyError)
//!     }
//!     try {
//!       const { size } = await fd.stat();
//!       const start = Math.max(0, size - maxBytes);
//!       let buf = Buffer.alloc(size - start);
//!       await fd.read(buf, 0, buf.length, start);
//!       if (start > 0) {
//!         const i = buf.indexOf(0x0a);
//!         buf = i < 0 ? Buffer.alloc(0) : buf.subarray(i + 1);
//!       }
//!       return { text: buf.toString("utf8") };
//!     } finally {
//!       await fd.close();
//!     }
//!   }
//!   /** Request `createFile`. */
//!   async function createFile({ path: p, text }) {
//!     try {
//!       await fsp.mkdir(path.dirname(p), { recursive: true });
//!       await fsp.writeFile(p, text, { flag: "wx" });
//!       return { ok: true };
//!     } catch (e) {
//!       return { ok: false, ...failed(e) }; // EEXIST → error: "exists"
//!     }
//!   }
//!   ```
//!
//! - `{"kind":"readTail", path, maxBytes}` → `ReadResult`: the last `maxBytes` bytes as UTF-8,
//!   starting after the first `\n` when the read started mid-file; `error: "not-found"` when
//!   missing. Used for `<recent_changes>` (the last 256 KiB, re-read when the trace's size or
//!   mtime changes).
//! - `{"kind":"createFile", path, text}` → `{ok: true}` | `{ok: false, error: "exists" | code,
//!   detail}`: `mkdir -p` then `writeFile(path, text, {flag: "wx"})` — never overwrites.
//!
//! # Decisions where the issue was silent
//! - Globs follow globset's syntax; `!` excludes win; dotfiles are included; a leading `./`
//!   or `/` is dropped; a trailing `/` or a plain path covers everything below; excludes
//!   ignore case and includes do not (both fail closed) — see [`scope`].
//! - Backslashes: refused on POSIX worktrees, separators on Windows worktrees.
//! - Ranges: changed lines located in the file as written (fallback: the block between the
//!   common prefix and suffix, or the whole file) — see [`ranges`].
//! - `.orchestration/` is never writable through file tools, whatever the scope (the model
//!   must not widen its own scope or rewrite the trace); the user edits it.
//! - The intents file is stat'ed on every gated call rather than watched, and read (and
//!   re-parsed when its text changed) only when its size or mtime changed.
//! - `prev_hash` of the first record is the SHA-256 of the empty string; verification
//!   cannot tell an edited line from removed lines (both break the same link) and says so.
//! - The end of the log is covered by a head file beside it ([`head`]); a log without one (an
//!   older hookwise wrote it) still gets records, and `trace verify` fails with "no head" until
//!   the user runs `hookwise trace head --init`: the next append does not create it silently,
//!   or deleting the head would hide a cut made before.
//! - A record that cannot be appended (lock timeout, unwritable file) is kept in memory and
//!   appended before the next one; until it is, every gated call in the project is blocked with
//!   the reason (governance fails closed). A process that exits meanwhile loses what it kept.

#[cfg(feature = "policy")]
pub mod blame;
pub mod chain;
pub mod classify;
pub mod confine;
pub mod gate;
pub mod git;
pub mod glob;
pub mod head;
pub mod intents;
pub mod ops;
pub mod patch;
/// Governance paths: what decides the policy, which no tool may change (issue 38).
pub mod protected;
pub mod ranges;
pub mod reading;
pub mod root;
pub mod scope;
pub mod segments;
pub mod trace;

/// The governance folder, relative to the worktree: the intents file and the trace live in it,
/// and the gate keeps the model out of it.
pub const DIR: &str = ".orchestration";
/// The intents file, relative to the worktree: while it exists, governance is on (`auto`).
pub const INTENTS_FILE: &str = ".orchestration/active_intents.yaml";
/// The Agent Trace, relative to the worktree.
pub const TRACE_FILE: &str = ".orchestration/agent_trace.jsonl";

pub use ops::{
    init_scaffold, select_intent, system_context, tool_after, tool_before, trace_head,
    trace_verify, AfterInput, AfterOutput, Enabled, GateOutput, GovConfig, Governance, HeadInput,
    HeadOutput, InitInput, InitOutput, SelectInput, SelectOutput, SystemInput, SystemOutput,
    ToolCallInput, VerifyInput, VerifyOutput,
};
#[cfg(feature = "policy")]
pub use ops::{trace_blame, BlameInput};

#[cfg(test)]
mod tests;

#[cfg(test)]
#[path = "default_deny_tests.rs"]
mod default_deny_tests;

#[cfg(all(test, feature = "policy"))]
#[path = "blame_tests.rs"]
mod blame_tests;

"use strict";
// What a long-lived engine's `init` read, so that a process that outlives one hook call (the
// warm hook server, `hookwise mcp`) can tell when its engine no longer answers as a fresh one
// would. No policy: the core decides at `init` what to read (the configuration files, the SOP
// folders, the intents file, the vault's root, where maenifold may be); this records the paths
// of those requests as the host carries them out, and later compares each path's stat with the
// one seen then. Anything different — a file created, deleted, rewritten or replaced, a folder
// gaining or losing an entry — means the engine must be made again.
//
// What the core re-reads on every call already (the intents file's text, each SOP file, the
// vault's notes through its watcher) needs nothing here; what it decided once at `init` (is
// governance on, is there an enforcement configuration, which knowledge source, the options)
// is what this guards.

const fs = require("node:fs");
const path = require("node:path");

/** More recorded paths than this and the record is not trusted (the engine is not kept warm). */
const MAX_INPUTS = 512;

/** `p` as init saw it: with `whole`, every detail of its stat; else only what it is. */
function statKey(p, whole) {
  let st;
  try {
    st = fs.statSync(p, { throwIfNoEntry: false });
  } catch (e) {
    return `error:${(e && e.code) || "?"}`;
  }
  if (!st) return "absent";
  const kind = st.isDirectory() ? "d" : st.isFile() ? "f" : "o";
  // ino + ctime catch a file replaced by rename or rewritten within the same mtime tick
  return whole ? `${kind}:${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : kind;
}

/** Requests that write: what the engine writes itself it knows (its own state). */
const WRITES = new Set(["writeFile", "appendLine", "appendChained", "writeHead", "createFile"]);

/**
 * Wrap `hw` (a `Hookwise`) so that the paths its core stats, reads or lists during `init` are
 * recorded: what init only stat'ed, by what it is (absent, file, folder: init asks a stat for
 * whether something is there); what it read or listed, by its whole stat (init used its
 * content). Call before `hw.init()`. Returns `{ready(): Promise<void>, changed(): string|null,
 * paths}`: `ready` settles once `init` has run and the record is taken; `changed` names the first
 * input that is no longer as it was (or why the record cannot be trusted), null otherwise.
 */
function watchInputs(hw) {
  const seen = new Map(); // path -> whole?
  const trees = new Map(); // folder listed recursively -> its listing's paths (once it came)
  const vaults = new Set(); // folders the host watches for the core: their files are the watcher's
  let recording = true;
  const host = hw.host;
  const run = host.run.bind(host);
  host.run = (req) => {
    if (!req || typeof req !== "object") return run(req);
    if (WRITES.has(req.kind) && typeof req.path === "string") {
      // the engine's own write (its enforcement state, its metrics): the file is taken as it
      // left it. Another process's write is a change (the engine would not see it).
      const handle = run(req);
      const again = () => {
        const r = record && record.get(req.path);
        if (r) r.key = statKey(req.path, r.whole);
      };
      Promise.resolve(handle && handle.promise).then(again, again);
      return handle;
    }
    if (!recording) return run(req);
    if (req.kind === "vaultChanges" && typeof req.root === "string") vaults.add(req.root);
    if (typeof req.path !== "string") return run(req);
    if (req.kind === "stat") seen.set(req.path, seen.get(req.path) || false);
    else if (req.kind === "readFile") seen.set(req.path, true);
    else if (req.kind === "listDir" && !req.recursive) seen.set(req.path, true);
    else if (req.kind === "listDir") {
      // a tree (the SOP folders, a vault): every entry, unless it turns out to be a vault
      const handle = run(req);
      const root = req.path;
      trees.set(root, null);
      Promise.resolve(handle && handle.promise).then(
        (r) => trees.set(root, r && Array.isArray(r.entries) && !r.truncated ? r.entries.map((e) => (Array.isArray(e) ? e[0] : e && e.path)) : false),
        () => trees.set(root, false),
      );
      return handle;
    }
    return run(req);
  };
  let record = null;
  let overflow = false;
  const ready = hw.init().then(() => {
    recording = false;
    const under = (p, root) => p === root || p.startsWith(root.replace(/\/+$/, "") + "/");
    const inputs = new Map([...seen].filter(([p]) => ![...vaults].some((v) => under(p, v))));
    for (const [root, entries] of trees) {
      if (vaults.has(root)) continue;
      if (!entries) {
        overflow = true; // a tree whose listing we did not see whole
        continue;
      }
      inputs.set(root, true);
      for (const rel of entries) if (typeof rel === "string") inputs.set(path.join(root, rel), true);
    }
    overflow = overflow || inputs.size > MAX_INPUTS;
    record = new Map([...inputs].slice(0, MAX_INPUTS).map(([p, whole]) => [p, { whole, key: statKey(p, whole) }]));
  });
  return {
    ready: () => ready,
    get paths() {
      return record ? [...record.keys()] : [];
    },
    /** Why this engine must never answer for a fresh one (null when it may). */
    untrusted() {
      if (!record) return "init has not finished";
      if (overflow) return `init read more than ${MAX_INPUTS} paths`;
      if (hw.startError) return "the core did not start";
      return null;
    },
    changed() {
      const bad = this.untrusted();
      if (bad) return bad;
      for (const [p, { whole, key }] of record) if (statKey(p, whole) !== key) return p;
      return null;
    },
  };
}

module.exports = { watchInputs, statKey, MAX_INPUTS };

"use strict";
// Vault watchers for the host: which paths below a vault changed since the core last asked
// (the `vaultChanges` request), each described as a listing entry as it is now. No policy: the
// core decides what an entry means and re-lists the vault when the answer is `truncated` or
// an `error`.
//
// One non-recursive fs.watch per folder (hidden folders skipped), the same on Node and Bun.
// Node 20's `recursive: true` on Linux is emulated in JS with one watcher and one statSync per
// FILE at start (10,000 of each for a 10,000-note vault) and reports every existing file as a
// change, so it is not used. Watchers are not persistent (they never keep the process alive),
// cost nothing while nothing changes (inotify / kqueue / ReadDirectoryChangesW, no polling),
// and are closed by `close()`.

const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");

/** Folders watched per vault at most; a larger tree is not watched (the core re-lists). */
const MAX_DIRS = 4096;
/** Changed paths remembered between two questions; more is an overflow. */
const MAX_PATHS = 4096;
/** After a vault could not be watched, the next attempt waits this long (the core re-lists meanwhile). */
const RETRY_MS = 60_000;

class VaultWatch {
  constructor(root) {
    this.root = root;
    this.dirs = new Map(); // relative folder ("" = root) -> fs.FSWatcher
    this.paths = new Set();
    this.overflow = false;
    this.error = null;
    this.closed = false;
  }

  /** Watch the root and every (non-hidden) folder below it. Rejects when the root cannot be watched. */
  start() {
    return this.watchTree("");
  }

  /** Watch folder `from` and every (non-hidden) folder below it. */
  async watchTree(from) {
    const queue = [from];
    while (queue.length) {
      const rel = queue.shift();
      if (!this.watchDir(rel)) {
        if (rel === "") throw this.error || new Error("cannot watch the vault");
        continue;
      }
      let names;
      try {
        names = await fsp.readdir(rel ? path.join(this.root, rel) : this.root, { withFileTypes: true });
      } catch {
        continue; // vanished meanwhile: its parent's watcher reports it
      }
      for (const d of names) {
        if (d.isDirectory() && !d.name.startsWith(".")) queue.push(rel ? `${rel}/${d.name}` : d.name);
      }
      if (from === "" && this.error) throw this.error;
    }
  }

  watchDir(rel) {
    if (this.closed || this.dirs.has(rel)) return !this.closed;
    if (this.dirs.size >= MAX_DIRS) {
      this.error = new Error(`more than ${MAX_DIRS} folders`);
      return false;
    }
    let w;
    try {
      w = fs.watch(rel ? path.join(this.root, rel) : this.root, { persistent: false }, (event, name) => this.event(rel, name));
    } catch (e) {
      if (rel === "") this.error = e;
      else this.overflow = true; // a folder we cannot watch: only a re-list sees its changes
      return false;
    }
    w.on("error", () => {
      // e.g. the folder was deleted: its parent reports the folder's own name
      this.unwatch(rel);
      if (rel === "") this.error = new Error("the vault folder is gone");
      else this.overflow = true;
    });
    this.dirs.set(rel, w);
    return true;
  }

  unwatch(rel) {
    for (const [d, w] of this.dirs) {
      if (d === rel || (rel === "" ? true : d.startsWith(rel + "/"))) {
        try {
          w.close();
        } catch {
          /* already closed */
        }
        this.dirs.delete(d);
      }
    }
  }

  event(dir, name) {
    if (this.closed) return;
    if (typeof name !== "string" || name === "") {
      this.overflow = true; // the platform did not say which entry changed
      return;
    }
    if (name.startsWith(".")) return; // hidden: never indexed (a rename out of hiding reports the new name)
    const rel = dir ? `${dir}/${name.replace(/\\/g, "/")}` : name.replace(/\\/g, "/");
    if (this.paths.size >= MAX_PATHS) this.overflow = true;
    else this.paths.add(rel);
    // A folder that appeared (created, renamed or moved in) is watched from now on; one that
    // went away stops being watched. The core re-lists in both cases (it sees a folder path).
    let isDir = false;
    try {
      isDir = fs.statSync(path.join(this.root, rel)).isDirectory();
    } catch {
      /* gone */
    }
    if (isDir && !this.dirs.has(rel)) {
      this.watchTree(rel).catch(() => {
        this.overflow = true;
      });
    } else if (!isDir && this.dirs.has(rel)) {
      this.unwatch(rel);
    }
  }

  /** What changed since the last call, each described now by `describe`, and forget it. */
  take(describe) {
    const entries = [];
    for (const rel of this.paths) {
      const full = path.join(this.root, rel);
      let isSymlink = false;
      try {
        isSymlink = fs.lstatSync(full).isSymbolicLink();
      } catch {
        /* gone */
      }
      entries.push(describe(full, rel, isSymlink));
    }
    const out = { entries, truncated: this.overflow };
    this.paths.clear();
    this.overflow = false;
    return out;
  }

  close() {
    this.closed = true;
    this.unwatch("");
    this.paths.clear();
  }
}

const isBun = typeof globalThis.Bun !== "undefined";
/** Bun delivers watcher events from a thread of its own, usually within a millisecond or two. */
const BUN_SETTLE_MS = 5;

/**
 * Let the events of writes that finished before a question arrive before answering it. Node
 * reads them in the event loop's poll phase: two turns through setImmediate pass one poll
 * phase whatever phase this runs in. Bun: a short wait (a later event is seen by the next
 * question).
 */
function settle() {
  if (isBun) return new Promise((resolve) => setTimeout(resolve, BUN_SETTLE_MS));
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/**
 * The host's watchers, one per vault root. `changes(root)` answers the `vaultChanges` request
 * in the shape of a listing: `{entries, truncated}`, an entry per path changed since the last
 * question (`describe(fullPath, relPath, isSymlink)` makes it; a deleted path is neither file
 * nor folder). The first question about a root starts its watcher and answers
 * `truncated: true` (nothing is known from before); `{entries: [], error: "other", detail}` when the folder
 * cannot be watched (the core re-lists instead, and asks again next time).
 */
function createWatchers({ enabled = true, describe }) {
  const watches = new Map(); // root -> VaultWatch
  const failed = new Map(); // root -> { error, until }: not watchable, not tried again before `until`
  const off = (detail) => ({ entries: [], truncated: true, error: "other", detail });
  const giveUp = (root, error) => {
    failed.set(root, { error, until: Date.now() + RETRY_MS });
    return off(error);
  };
  return {
    async changes(root) {
      if (!enabled) return off("watching is off");
      const f = failed.get(root);
      if (f && Date.now() < f.until) return off(f.error);
      failed.delete(root);
      const w = watches.get(root);
      if (!w) {
        const fresh = new VaultWatch(root);
        watches.set(root, fresh);
        try {
          await fresh.start();
        } catch (e) {
          fresh.close();
          if (watches.get(root) === fresh) watches.delete(root);
          return giveUp(root, String((e && e.code) || (e && e.message) || e));
        }
        fresh.paths.clear();
        fresh.overflow = false;
        return { entries: [], truncated: true };
      }
      if (w.error) {
        w.close();
        watches.delete(root);
        return giveUp(root, String(w.error.message || w.error));
      }
      await settle();
      return w.take(describe);
    },
    close() {
      for (const w of watches.values()) w.close();
      watches.clear();
      failed.clear();
    },
    get size() {
      return watches.size;
    },
  };
}

module.exports = { createWatchers, VaultWatch, MAX_PATHS, MAX_DIRS, RETRY_MS };

"use strict";
// The jobs every plugin adapter (opencode.cjs, opencode2.cjs, openclaw.cjs, pi.cjs, cline.cjs)
// needs, written once: a timeout guard, the block while the core is not up, a bounded map of
// calls awaiting their after-hook, once-per-session sets, model-tool registration. Transport
// only: no policy and no sentence for the model (those are the core's, or failsafe's data).

const { coldStart } = require("./failsafe.cjs");

/** Resolve `work()` or, after `ms`, `onTimeout()`; `work` rejecting resolves `onError(e)`. Never rejects. */
function guarded(ms, work, onTimeout, onError) {
  return new Promise((resolve) => {
    const settle = (f, x) => {
      try {
        resolve(f(x));
      } catch {
        resolve(undefined);
      }
    };
    const timer = setTimeout(() => settle(onTimeout), ms); // cleared when work settles
    Promise.resolve()
      .then(work)
      .then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e) => {
          clearTimeout(timer);
          settle(onError, e);
        },
      );
  });
}

/**
 * The block of a call hookwise could not decide (late, failed, or the core not up): from the
 * running core's plan (`failClosed`), else — no plan yet — from the project's files
 * (failsafe's `coldStart`). A string, or null when knowledge context alone is on (the call
 * proceeds). Never throws.
 */
function undecided({ hw, tool, error, cwd, options, host, log }) {
  try {
    if (hw && hw.started) {
      const r = hw.failClosed(tool, error);
      return (r && r.block) || null;
    }
    const cold = coldStart({ cwd, options, host, error });
    return (cold && cold.block(tool)) || null;
  } catch (e) {
    if (typeof log === "function") log("error", `fail-closed check: ${e && e.message}`);
    return null;
  }
}

/** Calls awaiting their after-hook (callId → what the after-hook needs), oldest out first past `max`. */
class Pending {
  constructor(max = 1024) {
    this.max = max;
    this.map = new Map();
  }
  add(callId, value) {
    if (!callId) return;
    this.map.delete(callId);
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value);
    this.map.set(callId, value);
  }
  has(callId) {
    return !!callId && this.map.has(callId);
  }
  /** The entry for `callId`, removed (a second after-hook finds nothing); undefined when none. */
  take(callId) {
    if (!callId || !this.map.has(callId)) return undefined;
    const v = this.map.get(callId);
    this.map.delete(callId);
    return v;
  }
  get size() {
    return this.map.size;
  }
}

/** A set of keys (sessions) each seen once: `first(key)` is true the first time only. Bounded. */
class Once {
  constructor(max = 4096) {
    this.max = max;
    this.set = new Set();
  }
  first(key) {
    if (this.set.has(key)) return false;
    if (this.set.size >= this.max) this.set.delete(this.set.values().next().value);
    this.set.add(key);
    return true;
  }
  has(key) {
    return this.set.has(key);
  }
  add(key) {
    this.first(key);
  }
  delete(key) {
    return this.set.delete(key);
  }
}

/**
 * Offer the core's model tools (`[{name, description, inputSchema}]`) to the host: `make(t)`
 * builds the host's tool from one and `register(tool, t)` hands it over; a tool the host
 * refuses is logged and skipped. Returns the names registered.
 */
function registerTools(list, make, register, log) {
  const done = [];
  for (const t of Array.isArray(list) ? list : []) {
    try {
      if (!t || typeof t.name !== "string") continue;
      register(make(t), t);
      done.push(t.name);
    } catch (e) {
      if (typeof log === "function") log("warn", `${t && t.name} not registered (${e && e.message})`);
    }
  }
  return done;
}

/** Every model tool the core may offer (src/tools/specs.json; the build copies it to dist/). */
function allTools() {
  for (const f of ["./tool-specs.json", "../src/tools/specs.json"]) {
    try {
      const list = require(f);
      if (Array.isArray(list)) return list;
    } catch {
      /* the next place */
    }
  }
  return [];
}

module.exports = { guarded, undecided, Pending, Once, registerTools, allTools };

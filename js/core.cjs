"use strict";
// Loads the wasm core and drives its request loop: start a hook call, carry out the requests
// it answers with (concurrently), hand each reply back, until it answers with a result.
// Generic: every hook of every host goes through `Core.call`.

const fs = require("node:fs");
const path = require("node:path");

class HookwiseError extends Error {
  constructor(kind, message, cause) {
    super(message);
    this.name = "HookwiseError";
    this.kind = kind;
    if (cause) this.cause = cause;
  }
}

const loaded = {}; // flavour -> instantiated module
let soon = null; // the lean wasm compiling in the background (compileSoon): a Promise of a Module, or null

/**
 * Start compiling the lean wasm from its usual place, in the background: an entry point calls
 * this first, so that the runtime compiles (V8 and JavaScriptCore validate and compile off the
 * main thread) while the rest of the glue loads, and `init` finds it compiled
 * (scripts/bench.mjs, "engine load + init"). Never throws and never rejects: a file that cannot
 * be read or compiled is left to `loadWasm`, which reports it as before.
 */
function compileSoon() {
  if (soon || loaded.lean || typeof WebAssembly.compile !== "function") return;
  try {
    soon = WebAssembly.compile(fs.readFileSync(path.join(__dirname, "hookwise_bg.wasm"))).catch(() => null);
  } catch {
    soon = null;
  }
}

/**
 * The lean wasm compileSoon started, once compiled (null when it was not started, failed, or
 * the engine is given its own wasm): a module that `loadWasm` instantiates without compiling.
 */
async function compiledSoon(opts = {}) {
  if (!soon || opts.flavor === "policy" || opts.wasmBytes || opts.wasmPath) return null;
  return soon;
}
/**
 * Load and instantiate a wasm flavour once (synchronously): "lean" (default) or "policy"
 * (with pre-action enforcement; in `policy/` next to the lean one).
 */
function loadWasm(opts = {}) {
  const flavor = opts.flavor === "policy" ? "policy" : "lean";
  if (loaded[flavor]) return loaded[flavor];
  const mod = flavor === "policy" ? require("./policy/wasm.cjs") : require("./wasm.cjs");
  let bytes = flavor === "policy" ? opts.policyWasmBytes : opts.wasmBytes;
  // compiled in the background (compileSoon): instantiated as it is
  if (!bytes && flavor === "lean" && opts.module instanceof WebAssembly.Module) bytes = opts.module;
  if (!bytes) {
    const file =
      flavor === "policy"
        ? path.join(opts.wasmPath ? path.dirname(opts.wasmPath) : __dirname, "policy", "hookwise_bg.wasm")
        : opts.wasmPath || path.join(__dirname, "hookwise_bg.wasm");
    try {
      bytes = fs.readFileSync(file);
    } catch (e) {
      // Typically a bundle (esbuild, webpack) that took the JS and left the .wasm behind.
      const fix = opts.wasmPath
        ? "the wasmPath option points at it"
        : "copy hookwise's dist/hookwise_bg.wasm (and dist/policy/hookwise_bg.wasm) beside the bundle, or pass the wasmPath option";
      const err = new HookwiseError("WasmMissing", `hookwise cannot read its WebAssembly file ${file} (${(e && e.code) || e}); ${fix}`, e);
      err.path = file;
      throw err;
    }
  }
  mod.initSync({ module: bytes });
  loaded[flavor] = mod;
  return mod;
}

const encoder = new TextEncoder();

const NO_BYTES = new Uint8Array(0);
const RECYCLE = Symbol.for("hookwise.recycle"); // js/host.cjs readFiles
/**
 * Replies carrying raw bytes (`{bytes}`: a file read by the host) cross beside the JSON: each
 * becomes `{blob: [offset, length, size?, mtimeMs?]}` into one buffer, returned (the core turns
 * it back into the file's text or a not-utf8 error); in a batched read's `{files}` a file read
 * becomes the bare array.
 */
function takeBytes(batch) {
  let total = 0;
  let parts = null;
  // the size and mtime the host saw, in the array: no keys of their own to decode
  const range = (r) => {
    (parts || (parts = [])).push(r.bytes);
    const at = total;
    total += r.bytes.length;
    return r.mtimeMs === undefined ? [at, r.bytes.length] : [at, r.bytes.length, r.size, r.mtimeMs];
  };
  for (const entry of batch) {
    const r = entry[1];
    if (!r) continue;
    if (r.bytes instanceof Uint8Array) entry[1] = { blob: range(r) };
    else if (Array.isArray(r.files)) {
      const files = r.files;
      for (let i = 0; i < files.length; i++) if (files[i] && files[i].bytes instanceof Uint8Array) files[i] = range(files[i]);
    }
  }
  if (!parts) return NO_BYTES;
  // Files read one after another into the same slab (js/host.cjs) lie back to back: one view.
  const first = parts[0];
  let end = first.byteOffset + first.length;
  for (let i = 1; i < parts.length && end >= 0; i++) {
    end = parts[i].buffer === first.buffer && parts[i].byteOffset === end ? end + parts[i].length : -1;
  }
  if (end >= 0) return new Uint8Array(first.buffer, first.byteOffset, total);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Turn anything the wasm threw into a HookwiseError (a Rust panic included). */
function wrap(e, wasm) {
  if (e instanceof HookwiseError) return e;
  const panic = wasm && safe(() => wasm.lastPanic());
  if (panic) return new HookwiseError("Panic", `hookwise core panicked: ${panic}`, e);
  const msg = e && e.message ? e.message : String(e);
  // the core's call errors carry their kind as a property (src/wasm_api.rs)
  if (e && typeof e.kind === "string" && !(e instanceof WebAssembly.RuntimeError)) return new HookwiseError(e.kind, msg, e);
  return new HookwiseError(e instanceof WebAssembly.RuntimeError ? "Trap" : "Internal", msg, e);
}

function safe(f) {
  try {
    return f();
  } catch {
    return null;
  }
}

class Core {
  constructor(host, opts = {}) {
    this.wasm = loadWasm(opts);
    this.flavor = opts.flavor === "policy" ? "policy" : "lean";
    this.host = host;
    this.engine = new this.wasm.Engine();
    this.broken = null;
    this.inboxes = new Map(); // op -> deliver(step) for calls in progress
  }

  /** Run one hook call to its result. Rejects only with a HookwiseError. */
  async call(callObject) {
    if (this.broken) throw this.broken;
    const running = new Map(); // request id -> { promise, cancel }
    const ready = []; // [id, reply] finished and not yet handed back
    const inbox = []; // steps of this operation that another crossing woke (MCP answers)
    let wake = null;
    const poke = () => {
      if (wake) {
        const w = wake;
        wake = null;
        w();
      }
    };
    const settle = (id, reply) => {
      if (!running.delete(id)) return; // cancelled meanwhile
      ready.push([id, reply]);
      poke();
    };
    const cancelAll = (ids) => {
      for (const id of ids) {
        const r = running.get(id);
        if (r) {
          running.delete(id);
          r.cancel();
        }
      }
    };
    let step, woken;
    try {
      // JSON.stringify writes a lone surrogate as an escape; the core reads it as the host
      // writes it. A value it cannot write (the caller did not check) rejects here.
      [step, woken] = this.split(this.engine.start(encoder.encode(JSON.stringify(callObject)), Date.now()));
    } catch (e) {
      throw this.fail(e);
    }
    const op = step.done ? step.done.op : step.pending.op;
    if (!step.done) this.inboxes.set(op, (s) => { inbox.push(s); poke(); });
    // Registered first: a start may wake this very operation again.
    this.dispatch(woken);
    try {
      for (;;) {
        if (step.done) {
          cancelAll(step.done.cancel);
          return step.done.result;
        }
        const { requests, cancel } = step.pending;
        cancelAll(cancel);
        // Timers first: a deadline must not start late because a process spawn in the same
        // batch blocked the thread for a while (fork and exec take tens of ms on a busy machine).
        for (const req of [...requests.filter((q) => q.kind === "sleep"), ...requests.filter((q) => q.kind !== "sleep")]) {
          const r = this.host.run(req);
          running.set(req.id, r);
          r.promise.then((reply) => settle(req.id, reply));
        }
        let next = null;
        while (!next) {
          while (ready.length === 0 && inbox.length === 0) {
            if (this.broken) throw this.broken;
            if (running.size === 0) {
              const stuck = safe(() => this.engine.abandon(op));
              this.dispatch(safe(() => this.engine.mcpWoken()));
              throw new HookwiseError("Stuck", `operation ${op} waits for nothing (abandoned: ${stuck})`);
            }
            await new Promise((resolve) => (wake = resolve));
          }
          if (inbox.length) {
            next = inbox.shift();
            if (!next) throw this.broken || new HookwiseError("Internal", "woken without a step");
            break;
          }
          // Everything that finished together goes back in one crossing.
          const batch = ready.splice(0);
          const bytes = takeBytes(batch);
          try {
            next = this.own(this.engine.resume(op, encoder.encode(JSON.stringify(batch)), bytes, Date.now()));
          } catch (e) {
            throw this.fail(e);
          } finally {
            // the core has copied the bytes in: a batched read's slabs may be reused
            for (const [, r] of batch) if (r && typeof r[RECYCLE] === "function") r[RECYCLE]();
          }
        }
        step = next;
      }
    } finally {
      this.inboxes.delete(op);
      cancelAll([...running.keys()]);
    }
  }

  /** A crossing's answer: its own step (or null), the steps it woke handed to their calls. */
  own(text) {
    const [step, woken] = this.split(text);
    this.dispatch(woken);
    return step;
  }

  /** A crossing's answer as [its own step or null, the steps it woke]. */
  split(text) {
    if (text === "") return [null, []];
    const v = JSON.parse(text);
    return [v.pending || v.done ? { pending: v.pending, done: v.done } : null, v.woken || []];
  }

  /** Steps woken by MCP data go to the calls waiting on them (in order). */
  dispatch(steps) {
    if (typeof steps === "string") steps = steps ? JSON.parse(steps) : [];
    if (!Array.isArray(steps)) return;
    for (const s of steps) {
      const op = s.done ? s.done.op : s.pending && s.pending.op;
      const deliver = this.inboxes.get(op);
      if (deliver) deliver(s);
    }
  }

  /** Stdout bytes of an MCP session: the core frames them and wakes what they answer. */
  mcpFeed(session, bytes) {
    if (this.broken) return;
    try {
      this.dispatch(this.engine.mcpFeed(session, bytes, Date.now()));
    } catch (e) {
      this.fail(e);
      this.wakeAll();
    }
  }

  /** An MCP session ended (`{code, signal, error?, stderr}`). */
  mcpClosed(session, info) {
    if (this.broken) return;
    try {
      this.dispatch(this.engine.mcpClosed(session, JSON.stringify(info || {}), Date.now()));
    } catch (e) {
      this.fail(e);
      this.wakeAll();
    }
  }

  /** After a trap: every waiting call looks again (and sees `broken`). */
  wakeAll() {
    for (const deliver of this.inboxes.values()) deliver(null);
  }

  fail(e) {
    const err = wrap(e, this.wasm);
    // After a trap the instance's state cannot be trusted: this core refuses further calls
    // and the owner makes a new one.
    if (err.kind === "Panic" || err.kind === "Trap") this.broken = err;
    return err;
  }
}

/**
 * Apply the core's argument edits (`edits` of a `tool.before` result) to `target` in place:
 * each names one string by its path; `set` replaces it, else `strip` removes an earlier block,
 * then `prepend` goes before it. For the hosts that run the object they handed over (OpenCode
 * ignores a reassigned `output.args`); the others take `edited`'s copy. Returns how many applied.
 */
function applyEdits(target, edits) {
  if (!Array.isArray(edits) || !target) return 0;
  let applied = 0;
  for (const m of edits) {
    let obj = target;
    const keys = m.path;
    for (let i = 0; i < keys.length - 1 && obj != null; i++) obj = obj[keys[i]];
    const last = keys[keys.length - 1];
    if (obj == null || typeof obj[last] !== "string") continue;
    // `set` first: a governed shell's command put under the confining launcher (the core's)
    const text = typeof m.set === "string" ? m.set : m.strip ? stripSpans(obj[last], m.strip[0], m.strip[1]) : obj[last];
    obj[last] = (m.prepend || "") + text;
    applied++;
  }
  return applied;
}

/** The arguments to run a tool with: `args` itself when the core changed nothing, else an edited copy. */
function edited(args, edits) {
  if (!Array.isArray(edits) || !edits.length || !args || typeof args !== "object") return args;
  const copy = structuredClone(args);
  applyEdits(copy, edits);
  return copy;
}

/**
 * What the core's plan asks to see of a tool's arguments instead of the whole value: the
 * top-level field types, and for every string the excerpts from one character before each
 * `needle` to one character after the next `close` within `window` characters. Large
 * arguments never cross the boundary; the core decides what the excerpts mean.
 */
function excerpts(args, plan, limits) {
  const out = [];
  walkStrings(args, null, plan, out, limits);
  const fields = {};
  if (out.length && args !== null && typeof args === "object" && !Array.isArray(args)) {
    for (const k in args) fields[k] = Array.isArray(args[k]) ? "array" : args[k] === null ? "null" : typeof args[k];
  }
  return { fields, excerpts: out };
}

// Iterative, so no nesting can overflow the stack; past `limits` it stops looking (knowledge
// context reads what it can). `at` is a linked list (parent, key), turned into a path only when
// an excerpt is found, so arguments with no needle cost one indexOf per string and nothing else.
function walkStrings(root, at0, plan, out, limits = DEFAULT_LIMITS) {
  const stack = [[root, at0, 0]];
  let budget = limits.values;
  while (stack.length && budget-- > 0) {
    const [v, at, depth] = stack.pop();
    if (typeof v === "string") stringExcerpts(v, at, plan, out);
    else if (v === null || typeof v !== "object" || depth >= limits.depth) continue;
    else if (Array.isArray(v)) for (let k = v.length - 1; k >= 0; k--) stack.push([v[k], { up: at, key: k }, depth + 1]);
    else {
      const keys = Object.keys(v);
      for (let k = keys.length - 1; k >= 0; k--) stack.push([v[keys[k]], { up: at, key: keys[k] }, depth + 1]);
    }
  }
}

/** The excerpts of one string (see `excerpts`). */
function stringExcerpts(v, at, plan, out) {
  const { needle, close, window } = plan;
  let i = v.indexOf(needle);
  if (i === -1) return;
  const spans = skipSpans(v, plan.skip);
  let path = null;
  while (i !== -1) {
    const inside = spans && spans.find(([a, b]) => i >= a && i < b);
    if (inside) {
      i = v.indexOf(needle, inside[1]);
      continue;
    }
    const end = v.indexOf(close, i + needle.length);
    if (end === -1) return;
    if (end - i > window) {
      i = v.indexOf(needle, i + needle.length);
      continue;
    }
    if (!path) path = pathOf(at);
    out.push({ path, text: v.slice(Math.max(0, i - 1), Math.min(v.length, end + close.length + 1)) });
    i = v.indexOf(needle, end + close.length);
  }
}

/** The core's bounds on a call's arguments until its plan says (the plan's `argsLimits`). */
const DEFAULT_LIMITS = { depth: 64, values: 100000 };

/**
 * Can `args` cross to the core as JSON exactly as the tool will see them? `null` when yes;
 * otherwise the code the core turns into its reason (`depth`, `cycle`, `size`,
 * `value:<type>`). One iterative walk, bounded by `limits` (a shared subtree counts each time
 * it is reached, as JSON would write it): nothing a host holds can overflow the stack or run
 * long. The core decides what an unreadable call means.
 */
function checkArgs(root, limits = DEFAULT_LIMITS) {
  if (root === undefined || root === null) return null;
  const ancestors = new Set(); // the objects on the current path: a cycle meets one again
  const stack = [[root, 1]]; // [value, depth]; a negative depth closes that object
  let budget = limits.values;
  while (stack.length) {
    const [v, depth] = stack.pop();
    if (depth < 0) {
      ancestors.delete(v);
      continue;
    }
    if (--budget < 0) return "size";
    const t = typeof v;
    if (t === "string" || t === "number" || t === "boolean" || v === null || t === "undefined") continue;
    if (t !== "object") return `value:${t}`;
    if (depth > limits.depth) return "depth";
    if (ancestors.has(v)) return "cycle";
    ancestors.add(v);
    stack.push([v, -1]);
    const keys = Array.isArray(v) ? null : Object.keys(v);
    const n = keys ? keys.length : v.length;
    if (stack.length + n > budget) return "size";
    if (!keys) for (let k = n - 1; k >= 0; k--) stack.push([v[k], depth + 1]);
    else for (const k of keys) stack.push([v[k], depth + 1]);
  }
  return null;
}

/** `s` without the spans from `open` to `close` (inclusive) and up to two newlines after. */
function stripSpans(s, open, close) {
  for (let i = s.indexOf(open); i !== -1; i = s.indexOf(open, i)) {
    const j = s.indexOf(close, i + open.length);
    if (j === -1) break;
    let e = j + close.length;
    for (let n = 0; n < 2 && s[e] === "\n"; n++) e++;
    s = s.slice(0, i) + s.slice(e);
  }
  return s;
}

/** The spans of `s` that the plan says to skip, as [start, end) pairs. */
function skipSpans(s, skip) {
  let spans = null;
  for (const [open, close] of skip || []) {
    for (let i = s.indexOf(open); i !== -1; ) {
      const j = s.indexOf(close, i + open.length);
      const end = j === -1 ? s.length : j + close.length;
      (spans || (spans = [])).push([i, end]);
      i = s.indexOf(open, end);
    }
  }
  return spans;
}

function pathOf(at) {
  const p = [];
  for (let n = at; n; n = n.up) p.unshift(n.key);
  return p;
}

/** The string-valued environment, for the core to pick from. */
function envObject(env = process.env) {
  const out = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === "string") out[k] = v;
  return out;
}

module.exports = { Core, HookwiseError, loadWasm, compileSoon, compiledSoon, applyEdits, edited, excerpts, checkArgs, DEFAULT_LIMITS, envObject, takeBytes };

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

let wasm = null;
/** Load and instantiate the wasm module once (synchronously). */
function loadWasm(opts = {}) {
  if (wasm) return wasm;
  const mod = require("./wasm.cjs");
  const bytes = opts.wasmBytes || fs.readFileSync(opts.wasmPath || path.join(__dirname, "hookwise_bg.wasm"));
  mod.initSync({ module: bytes });
  wasm = mod;
  return wasm;
}

const encoder = new TextEncoder();

/** Turn anything the wasm threw into a HookwiseError (a Rust panic included). */
function wrap(e) {
  if (e instanceof HookwiseError) return e;
  const panic = wasm && safe(() => wasm.lastPanic());
  if (panic) return new HookwiseError("Panic", `hookwise core panicked: ${panic}`, e);
  const msg = e && e.message ? e.message : String(e);
  const m = /^(\w+): ([\s\S]*)$/.exec(msg);
  if (m && !(e instanceof WebAssembly.RuntimeError)) return new HookwiseError(m[1], m[2], e);
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
    loadWasm(opts);
    this.host = host;
    this.engine = new wasm.Engine();
    this.broken = null;
  }

  /** Run one hook call to its result. Rejects only with a HookwiseError. */
  async call(callObject) {
    if (this.broken) throw this.broken;
    const running = new Map(); // request id -> { promise, cancel }
    const cancelAll = (ids) => {
      for (const id of ids) {
        const r = running.get(id);
        if (r) {
          r.cancel();
          running.delete(id);
        }
      }
    };
    let step;
    try {
      step = JSON.parse(this.engine.start(encoder.encode(JSON.stringify(callObject))));
    } catch (e) {
      throw this.fail(e);
    }
    try {
      for (;;) {
        if (step.done) {
          cancelAll(step.done.cancel);
          return step.done.result;
        }
        const { op, requests, cancel } = step.pending;
        cancelAll(cancel);
        for (const req of requests) {
          const r = this.host.run(req);
          r.promise = r.promise.then((reply) => [req.id, reply]);
          running.set(req.id, r);
        }
        let next = "";
        while (next === "") {
          if (running.size === 0) {
            const stuck = safe(() => this.engine.abandon(op));
            throw new HookwiseError("Stuck", `operation ${op} waits for nothing (abandoned: ${stuck})`);
          }
          const [id, reply] = await Promise.race([...running.values()].map((r) => r.promise));
          running.delete(id);
          try {
            next = this.engine.resume(op, id, encoder.encode(JSON.stringify(reply)));
          } catch (e) {
            throw this.fail(e);
          }
        }
        step = JSON.parse(next);
      }
    } finally {
      cancelAll([...running.keys()]);
    }
  }

  fail(e) {
    const err = wrap(e);
    // After a trap the instance's state cannot be trusted: this core refuses further calls
    // and the owner makes a new one.
    if (err.kind === "Panic" || err.kind === "Trap") this.broken = err;
    return err;
  }
}

/** Apply the core's mutations to `target` in place (OpenCode ignores a reassigned object). */
function applyMutations(target, mutations) {
  if (!mutations || !target) return 0;
  let applied = 0;
  for (const m of mutations) {
    let obj = target;
    const keys = m.path;
    for (let i = 0; i < keys.length - 1 && obj != null; i++) obj = obj[keys[i]];
    const last = keys[keys.length - 1];
    if (obj == null || typeof obj[last] !== "string") continue;
    obj[last] = (m.prepend || "") + obj[last] + (m.append || "");
    applied++;
  }
  return applied;
}

/** True when some string anywhere in `value` contains one of `needles`. */
function containsNeedle(value, needles) {
  if (typeof value === "string") {
    for (const n of needles) if (value.includes(n)) return true;
    return false;
  }
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) {
    for (const v of value) if (containsNeedle(v, needles)) return true;
    return false;
  }
  for (const k in value) if (containsNeedle(value[k], needles)) return true;
  return false;
}

/** The string-valued environment, for the core to pick from. */
function envObject(env = process.env) {
  const out = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === "string") out[k] = v;
  return out;
}

module.exports = { Core, HookwiseError, loadWasm, applyMutations, containsNeedle, envObject };

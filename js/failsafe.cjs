"use strict";
// When the core cannot start (its wasm deleted, truncated or garbage, a glue file broken): is
// intent governance or pre-action enforcement configured in this project? Read from the
// project's files alone, with the data src/failsafe.rs defines (failsafe.json, pinned by its
// tests). Configured: every call is blocked with the core's sentence (read-only tools still
// run when only governance is); not configured: knowledge context fails open. Node builtins
// only, nothing else of hookwise's is loaded here. It never allows because of an error: an
// exception anywhere in the check blocks.

const fs = require("node:fs");
const path = require("node:path");

// The last resort when failsafe.json is damaged too: the same markers, no read-only tools
// (every call is blocked). Pinned equal to src/failsafe.rs's `last_resort()` by its tests.
const LAST_RESORT = {"claudePreToolUse":"hook_pre_tool_use","configFiles":[".hookwise/hookwise.json",".opencode/hookwise.json"],"keys":[{"all":true,"key":"enforcement"},{"all":false,"key":"governance"}],"maxConfigBytes":1048576,"message":"hookwise blocked `{tool}`: hookwise could not start ({error}) and this project configures intent governance or pre-action enforcement ({marker}). Tell the user that hookwise's installation needs repair; do not try to work around the block.","off":[false,null,"auto"],"present":[{"all":false,"path":".orchestration/active_intents.yaml"},{"all":true,"path":".opencode/sops"},{"all":true,"path":".hookwise/sops"}]}; // pinned

let cached = null;
/** failsafe.json, or the last resort when it cannot be read or is not its shape. */
function data() {
  if (cached) return cached;
  let d = null;
  try {
    d = JSON.parse(fs.readFileSync(path.join(__dirname, "failsafe.json"), "utf8"));
    const ok =
      d && Array.isArray(d.present) && Array.isArray(d.configFiles) && Array.isArray(d.keys) && Array.isArray(d.off) &&
      typeof d.message === "string" && d.readOnly && typeof d.readOnly === "object" && typeof d.claudePreToolUse === "string";
    if (!ok) d = null;
  } catch {
    d = null;
  }
  cached = d || { ...LAST_RESORT, readOnly: {} };
  return cached;
}

/** The value turns nothing on (`data().off`). */
function isOff(d, v) {
  return d.off.some((o) => o === v) || v === undefined;
}

/** `{all, marker}` for the key of `obj` that turns governance or enforcement on (enforcement's
 * first), or null; `marker`: `where` (a file), else the key (the plugin's options). Markers are
 * names from the data, never words of ours: they go into the core's sentence. */
function keyIn(d, obj, where) {
  if (!obj || typeof obj !== "object") return null;
  let found = null;
  for (const k of d.keys) {
    if (Object.prototype.hasOwnProperty.call(obj, k.key) && !isOff(d, obj[k.key])) {
      if (!found || k.all) found = { all: !!k.all, marker: where || k.key };
    }
  }
  return found;
}

/** A configuration file's text: its keys; not JSON, a key named anywhere (in doubt: on). */
function keyInFile(d, text, rel) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    let found = null;
    for (const k of d.keys) if (text.includes(JSON.stringify(k.key)) && (!found || k.all)) found = { all: !!k.all, marker: rel };
    return found;
  }
  return keyIn(d, parsed, rel);
}

/**
 * What configures governance or enforcement in the project at `cwd` (with the plugin's
 * `options`): `null` when nothing does, else `{all, marker}` (`all`: enforcement, every tool
 * blocked). An exception is "configured, everything blocked".
 */
function configured(cwd, options) {
  try {
    const d = data();
    let found = keyIn(d, options, "");
    const root = typeof cwd === "string" && cwd ? cwd : process.cwd();
    const merge = (f) => {
      if (f && (!found || (f.all && !found.all))) found = f;
    };
    for (const m of d.present) {
      try {
        fs.lstatSync(path.join(root, m.path)); // any form: a dangling symlink too
        merge({ all: !!m.all, marker: m.path });
      } catch (e) {
        if (!e || e.code !== "ENOENT") merge({ all: true, marker: m.path });
      }
    }
    for (const rel of d.configFiles) {
      let text = null;
      try {
        const file = path.join(root, rel);
        const st = fs.statSync(file);
        if (st.size <= d.maxConfigBytes) text = fs.readFileSync(file, "utf8");
      } catch {
        /* none: the core reads nothing there either */
      }
      if (text !== null) merge(keyInFile(d, text, rel));
    }
    return found;
  } catch (e) {
    return { all: true, marker: String((e && e.code) || "error") };
  }
}

/**
 * The fail-closed state of a hookwise that could not start: `block(tool)` is the reason the
 * model reads (a string) or null when the call may run. `null` when nothing is configured.
 * @param {{cwd?: string, options?: object, host?: string, error?: unknown}} o
 */
function coldStart(o = {}) {
  let found;
  try {
    found = configured(o.cwd, o.options);
  } catch (e) {
    found = { all: true, marker: "error" };
  }
  if (!found) return null;
  // its first line: a require stack or a path list is for the log, not the model
  let error = "unknown error";
  try {
    error = String((o.error && o.error.message) || o.error || error).split("\n")[0].slice(0, 300);
  } catch {
    /* an error that cannot be read: "unknown error" */
  }
  return {
    marker: found.marker,
    all: found.all,
    block(tool) {
      try {
        const d = data();
        const name = typeof tool === "string" ? tool : "";
        const host = typeof o.host === "string" && d.readOnly[o.host] ? o.host : d.defaultHost;
        const ro = (!found.all && name && Array.isArray(d.readOnly[host]) && d.readOnly[host].includes(name)) || false;
        if (ro) return null;
        return fill(d.message, name, error, found.marker);
      } catch {
        return fill(LAST_RESORT.message, String(tool), error, found.marker);
      }
    },
  };
}

function fill(message, tool, error, marker) {
  return String(message).split("{tool}").join(tool).split("{error}").join(error).split("{marker}").join(marker);
}

/** The hook tool of Claude Code's PreToolUse (answered by `hookwise mcp` without a core). */
function claudePreToolUse() {
  try {
    return data().claudePreToolUse;
  } catch {
    return LAST_RESORT.claudePreToolUse;
  }
}

/**
 * `require` a piece of the glue; when it cannot load (a file deleted or broken), a stand-in
 * `Hookwise` that never started, which `coldStart` then governs.
 */
function loadHookwise(load) {
  try {
    return load();
  } catch (e) {
    return { Hookwise: standIn(e), loadError: e };
  }
}

/** A `Hookwise` whose core could not load: every hook does nothing except the cold block. */
function standIn(loadError) {
  const err = new Error(String((loadError && loadError.message) || loadError));
  err.kind = "GlueBroken";
  return class BrokenHookwise {
    constructor(o = {}) {
      this.o = o;
      this.startError = err;
      this.started = false;
      this.core = null;
      this.plan = {};
      this.watched = new Set();
      this.discovery = null;
      this.cold = coldStart({ cwd: o.cwd, options: o.options, host: o.host, error: err });
      try {
        if (typeof o.log === "function") o.log("error", `hookwise could not start: ${err.message}${this.cold ? `; governance or enforcement is configured (${this.cold.marker}): calls are blocked` : "; every hook is off"}`);
      } catch {
        /* a logger must not break a hook */
      }
    }
    get governanceOn() {
      return false;
    }
    get tools() {
      return [];
    }
    get limits() {
      return {};
    }
    async init() {}
    async dispose() {}
    async run() {
      return null;
    }
    async toolBefore({ tool }) {
      return this.failClosed(tool, err);
    }
    async toolAfter() {
      return null;
    }
    failClosed(tool) {
      const b = this.cold && this.cold.block(tool);
      return b ? { block: b } : null;
    }
    unreadable() {
      return null;
    }
    async sessionCreated() {
      return null;
    }
    async systemTransform() {
      return null;
    }
    async compacting() {
      return null;
    }
    async selectIntent() {
      return { ok: false, text: err.message };
    }
    async callTool(name) {
      return { text: `hookwise could not answer \`${name}\`: ${err.message}`, isError: true };
    }
    async intentContext() {
      return "";
    }
    async verifyTrace() {
      return { ok: false, lines: 0, problems: [], error: err.message };
    }
    async traceHead() {
      return { ok: false, message: err.message };
    }
    async traceReport() {
      return { ok: false, text: "", html: "", records: 0, files: 0, verify: { ok: false, lines: 0, problems: [], error: err.message } };
    }
  };
}

module.exports = { coldStart, configured, claudePreToolUse, loadHookwise, data };

"use strict";
// `hookwise init --cline` and what `hookwise doctor` says of Cline: the plugin file
// `.cline/plugins/hookwise.js` (Cline 3.x loads every `.cline/plugins/*.js` of the workspace),
// which loads the installed package's `hookwise/cline` (js/cline.cjs). Never overwrites: a file
// there that is not ours is left as it is and reported.

const fs = require("node:fs");
const path = require("node:path");

const REL = path.join(".cline", "plugins", "hookwise.js");
/** The first line of the file we write: how a later run knows the file is ours. */
const MARK = "// hookwise for Cline (written by `hookwise init --cline`";

/** The plugin file's text: the project's own hookwise, or (`global`) the one at `distDir`. */
function pluginText({ global, distDir }) {
  const spec = global ? JSON.stringify(path.join(distDir, "cline.cjs")) : JSON.stringify("hookwise/cline");
  return `${MARK}; safe to commit).
// Loads hookwise's Cline plugin from ${global ? "this machine's hookwise" : "the project's node_modules (npm install --save-dev hookwise)"}.
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
export default require(${spec}).createPlugin();
`;
}

/**
 * Write the plugin file in `cwd` unless one is there. `{host, file, changes, lines, error?}`.
 * @param {string} cwd
 * @param {{global?: boolean, distDir: string}} o
 */
function initCline(cwd, o) {
  const file = path.join(cwd, REL);
  const want = pluginText(o);
  const changes = [];
  const lines = [];
  let error;
  try {
    let have = null;
    try {
      have = fs.readFileSync(file, "utf8");
    } catch (e) {
      if (e.code !== "ENOENT") throw e;
    }
    if (have === null) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, want, { flag: "wx" });
      changes.push({ action: "created", file: REL, what: "the hookwise plugin" });
    } else if (have === want) {
      lines.push(`kept ${REL} (up to date)`);
    } else if (have.startsWith(MARK)) {
      lines.push(`kept ${REL} (written by an earlier hookwise init; delete it and run init --cline again to rewrite it)`);
    } else {
      lines.push(`kept ${REL} (not hookwise's: left as it is)`);
    }
  } catch (e) {
    error = `${REL}: ${e.message}`;
  }
  lines.unshift(...changes.map((c) => `${c.action} ${c.file}: ${c.what}`));
  if (error) lines.push(`failed: ${error}`);
  if (!o.global && !fs.existsSync(path.join(cwd, "node_modules", "hookwise", "dist", "cline.cjs"))) {
    lines.push("note: the plugin loads the project's own hookwise (node_modules/hookwise), which is not installed here: run npm install --save-dev hookwise (or init again with --global)");
  }
  lines.push("cline: Cline loads the plugin in its next session in this workspace (no trust step)");
  return { host: "cline", cwd, file: REL, changes, ...(error ? { error } : {}), lines };
}

/**
 * Doctor: is the plugin file ours, and does what it loads start? `null` when there is none.
 * `{host, file, ok, ms, error?}`: the file's package loaded and its plugin object made.
 */
async function clineDoctor(cwd) {
  const file = path.join(cwd, REL);
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  if (!text.startsWith(MARK)) return { host: "cline", file: REL, ok: true, ms: 0, note: "not hookwise's plugin file" };
  const t0 = performance.now();
  let error = "";
  try {
    // what the file requires, resolved from the file as Cline resolves it (the file itself is
    // ESM, which Node 20 does not import from a .js without a package type)
    const m = /require\(("(?:[^"\\]|\\.)*")\)\.createPlugin\(\)/.exec(text);
    if (!m) throw new Error("the plugin file names no hookwise to load");
    const { createRequire } = require("node:module");
    const p = createRequire(file)(JSON.parse(m[1])).createPlugin();
    if (!p || !p.hooks || typeof p.hooks.beforeTool !== "function") error = "the plugin file exports no hookwise plugin";
  } catch (e) {
    error = String((e && e.message) || e).split("\n")[0];
  }
  const ms = Math.round((performance.now() - t0) * 10) / 10;
  // Cline drops every plugin when its sandbox takes over 4 s to load them (docs/cline.md)
  const note = process.env.CLINE_PLUGIN_IMPORT_TIMEOUT_MS ? "" : "Cline runs without any plugin when loading them takes over 4 s: set CLINE_PLUGIN_IMPORT_TIMEOUT_MS=20000 where Cline runs";
  return { host: "cline", file: REL, event: "plugin load", ok: !error, ms, ...(error ? { error } : {}), ...(note ? { note } : {}) };
}

module.exports = { initCline, clineDoctor, pluginText, REL };

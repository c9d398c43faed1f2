"use strict";
// `hookwise init --cline` and what `hookwise doctor` says of Cline: the plugin file
// `.cline/plugins/hookwise.js` (Cline 3.x loads every `.cline/plugins/*.js` of the workspace),
// which loads the installed package's `hookwise/cline` (js/cline.cjs). Never overwrites: a file
// there that is not ours is left as it is and reported.

const fs = require("node:fs");
const path = require("node:path");

const { FIND_SOURCE, NOT_FOUND, findHookwise } = require("./own-install.cjs");

const REL = path.join(".cline", "plugins", "hookwise.js");
/** The first line of the file we write: how a later run knows the file is ours. */
const MARK = "// hookwise for Cline (written by `hookwise init --cline`";

/** The plugin file's text: the project's own hookwise, or (`global`) the one at `distDir`. */
function pluginText({ global, distDir }) {
  if (global) {
    return `${MARK}; safe to commit).
// Loads hookwise's Cline plugin from this machine's hookwise.
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
export default require(${JSON.stringify(path.join(distDir, "cline.cjs"))}).createPlugin();
`;
  }
  // never Node's resolution of "hookwise/cline", which walks up every parent folder (issue 38)
  return `${MARK}; safe to commit).
// Loads hookwise's Cline plugin from the project's node_modules (npm install --save-dev hookwise):
// this workspace, the folders above it up to its .git, or its git worktree's main checkout;
// never a folder another user can write.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
const require = createRequire(import.meta.url);
const at = (${FIND_SOURCE})(require("node:path").resolve(fileURLToPath(import.meta.url), "..", "..", ".."), "dist/cline.cjs");
if (!at) throw new Error(${JSON.stringify(`hookwise: ${NOT_FOUND}`)});
export default require(at).createPlugin();
`;
}

/** What an earlier hookwise wrote for the project's own hookwise: Node's resolution, which
 * walks up every parent folder. Replaced by init; doctor warns of it. */
const OLD_LOCAL = `${MARK}; safe to commit).
// Loads hookwise's Cline plugin from the project's node_modules (npm install --save-dev hookwise).
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
export default require("hookwise/cline").createPlugin();
`;

/** The file the plugin file loads, found as it finds it (never loaded here), or null. */
function clinePluginTarget(cwd, text) {
  if (text.includes("findHookwise(")) return findHookwise(path.resolve(cwd), "dist/cline.cjs");
  const m = /require\(("(?:[^"\\]|\\.)*")\)\.createPlugin\(\)/.exec(text);
  if (!m) return null;
  const spec = JSON.parse(m[1]);
  return path.isAbsolute(spec) ? spec : null;
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
    } else if (have === OLD_LOCAL) {
      // ours, from an earlier hookwise that let Node walk up every parent folder (issue 38)
      fs.writeFileSync(file, want);
      changes.push({ action: "updated", file: REL, what: "the hookwise plugin (it no longer looks for hookwise in the folders above the project)" });
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
  if (text === OLD_LOCAL) return { host: "cline", file: REL, event: "plugin load", ok: false, ms: 0, error: "written by an earlier hookwise: it loads whatever node_modules/hookwise Node finds in any folder above the project, one another user may have planted; run hookwise init --cline to rewrite it" };
  const t0 = performance.now();
  let error = "";
  try {
    // what the file loads, found as the file finds it — but never loaded here: doctor runs no
    // code a project names (issue 38); this hookwise's own plugin is made instead
    const at = clinePluginTarget(cwd, text);
    if (!at) throw new Error("the plugin file names no hookwise to load");
    if (!fs.existsSync(at)) throw new Error(`${at} does not exist`);
    const p = require("./cline.cjs").createPlugin();
    if (!p || !p.hooks || typeof p.hooks.beforeTool !== "function") error = "the plugin file exports no hookwise plugin";
  } catch (e) {
    error = String((e && e.message) || e).split("\n")[0];
  }
  const ms = Math.round((performance.now() - t0) * 10) / 10;
  // Cline drops every plugin when its sandbox takes over 4 s to load them (docs/cline.md)
  const note = process.env.CLINE_PLUGIN_IMPORT_TIMEOUT_MS ? "" : "Cline runs without any plugin when loading them takes over 4 s: set CLINE_PLUGIN_IMPORT_TIMEOUT_MS=20000 where Cline runs";
  return { host: "cline", file: REL, event: "plugin load", ok: !error, ms, ...(error ? { error } : {}), ...(note ? { note } : {}) };
}

module.exports = { initCline, clineDoctor, pluginText, clinePluginTarget, OLD_LOCAL, REL };

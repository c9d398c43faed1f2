"use strict";
// `hookwise init --pi` and pi's line in `hookwise doctor`. pi installs a package from a local
// folder as an entry of `packages` in the project's .pi/settings.json, relative to that file
// (`pi install ./node_modules/hookwise -l` writes "../node_modules/hookwise"); pi then loads the
// package's `pi.extensions` (dist/pi.ts). init writes that entry, merged into what is there:
// other keys and packages stay; an entry that already names hookwise is kept; a file that is
// not a JSON object is left alone (an error says what to add). --global names the hookwise
// that runs init, by its absolute path.

const fs = require("node:fs");
const path = require("node:path");

const SETTINGS = path.join(".pi", "settings.json");
/** The project's own hookwise, as pi resolves it from .pi/settings.json. */
const LOCAL = "../node_modules/hookwise";

/** The folder of the hookwise package this file belongs to (dist/..). */
const OWN = path.resolve(__dirname, "..");

/** The folder an entry of `packages` names, resolved as pi does (relative to .pi/), or null. */
function entryDir(cwd, entry) {
  const source = typeof entry === "string" ? entry : entry && typeof entry.source === "string" ? entry.source : null;
  if (!source || /^(npm|git|https?|ssh|git\+[a-z]+):/.test(source)) return null;
  const home = process.env.HOME || "";
  const p = source.startsWith("~/") && home ? path.join(home, source.slice(2)) : source;
  return path.resolve(cwd, ".pi", p);
}

/** The entry names hookwise: npm:hookwise[@…], or a folder that is a hookwise package. */
function namesHookwise(cwd, entry) {
  const source = typeof entry === "string" ? entry : entry && entry.source;
  if (typeof source === "string" && /^npm:hookwise(?:@|$)/.test(source)) return true;
  const dir = entryDir(cwd, entry);
  if (!dir) return false;
  if (path.basename(dir) === "hookwise") return true;
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).name === "hookwise";
  } catch {
    return false;
  }
}

/**
 * Add hookwise to `cwd`'s .pi/settings.json. Returns `{host, cwd, changes, lines, error?}` (the
 * shape of the other agents' init results).
 */
function initPi({ cwd, global = false } = {}) {
  const file = path.join(cwd, SETTINGS);
  const entry = global ? OWN : LOCAL;
  const result = (changes, lines, error) => ({ host: "pi", cwd, changes, ...(error ? { error } : {}), lines });
  let settings = {};
  let existed = false;
  try {
    const text = fs.readFileSync(file, "utf8");
    existed = true;
    settings = text.trim() ? JSON.parse(text) : {};
    if (!settings || typeof settings !== "object" || Array.isArray(settings)) throw new Error("not a JSON object");
  } catch (e) {
    if (!(e && e.code === "ENOENT")) {
      const error = `${SETTINGS} is ${e && e.code ? `unreadable (${e.code})` : `not a plain JSON object (${e && e.message})`}: left unchanged; add ${JSON.stringify(entry)} to its "packages"`;
      return result([], [`failed: ${error}`], error);
    }
  }
  if (settings.packages !== undefined && !Array.isArray(settings.packages)) {
    const error = `${SETTINGS}: "packages" is not a list: left unchanged; add ${JSON.stringify(entry)} to it`;
    return result([], [`failed: ${error}`], error);
  }
  const list = settings.packages || [];
  const had = list.find((p) => namesHookwise(cwd, p));
  if (had !== undefined) {
    const c = { file: SETTINGS, action: "kept", what: `the pi package ${JSON.stringify(typeof had === "string" ? had : had.source)} (it names hookwise)` };
    return result([c], [`kept ${SETTINGS}: ${c.what}`]);
  }
  const next = { ...settings, packages: [...list, entry] };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.hookwise-${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(next, null, 2) + "\n");
  fs.renameSync(tmp, file);
  const c = { file: SETTINGS, action: existed ? "updated" : "created", what: `the pi package ${JSON.stringify(entry)} (hookwise's extension)` };
  const lines = [`${c.action} ${c.file}: ${c.what}`];
  if (!global && !fs.existsSync(path.join(cwd, "node_modules", "hookwise", "package.json"))) {
    lines.push("note: the entry names the project's own hookwise (node_modules/hookwise), which is not installed here: run npm install --save-dev hookwise (or init again with --global)");
  }
  lines.push("pi: loads it at its next start in this folder (pi list shows it)");
  return result([c], lines);
}

/**
 * `hookwise doctor`'s line for pi, when .pi/settings.json names hookwise: the package it names,
 * and hookwise started there as pi starts it (host `pi`), timed. Null when not set up.
 */
async function piDoctor(cwd) {
  let list;
  try {
    list = JSON.parse(fs.readFileSync(path.join(cwd, SETTINGS), "utf8")).packages;
  } catch {
    return null;
  }
  const had = Array.isArray(list) ? list.find((p) => namesHookwise(cwd, p)) : undefined;
  if (had === undefined) return null;
  const source = typeof had === "string" ? had : had.source;
  const dir = entryDir(cwd, had);
  const out = { host: "pi", file: SETTINGS, event: "extension start", command: source };
  const t0 = performance.now();
  try {
    if (dir) {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
      const ext = pkg.pi && Array.isArray(pkg.pi.extensions) ? pkg.pi.extensions : [];
      if (!ext.length) throw new Error(`${source} has no pi extension (its package.json has no "pi.extensions"): a hookwise too old for pi`);
      for (const e of ext) if (!fs.existsSync(path.join(dir, e))) throw new Error(`${source}: ${e} is missing`);
    }
    // the extension as pi runs it, without pi: the events it subscribes to and the tools it
    // offers — only when the package named is this very hookwise, running no program: doctor
    // loads no code a project names (issue 38; the package's files were checked above)
    let same = !dir;
    try {
      same = same || fs.realpathSync(dir) === fs.realpathSync(OWN);
    } catch {
      /* not there: checked above */
    }
    if (!same) {
      out.ok = true;
      out.note = `not started: doctor starts only the hookwise it is (${OWN}); run ${path.join(source, "dist", "cli.mjs")} doctor to start that one`;
      out.ms = 0;
      return out;
    }
    const { extension } = require("./pi.cjs");
    const events = [];
    const tools = [];
    const fake = { on: (ev) => events.push(ev), registerTool: (t) => tools.push(t.name), getThinkingLevel: () => undefined };
    const hw = await extension(fake, { cwd, stderr: { write() {} }, runPrograms: false });
    const started = !!hw.started;
    const why = hw.startError && hw.startError.message;
    await hw.dispose();
    if (!started) throw new Error(`hookwise did not start: ${why || "unknown"}${hw.cold ? " (governance or enforcement is configured: pi's calls are blocked)" : ""}`);
    out.note = `${events.length} events; tools: ${tools.join(", ") || "none"}`;
    out.ok = true;
  } catch (e) {
    out.ok = false;
    out.error = (e && e.message) || String(e);
  }
  out.ms = Math.round((performance.now() - t0) * 10) / 10;
  return out;
}

module.exports = { initPi, piDoctor, namesHookwise, SETTINGS, LOCAL };

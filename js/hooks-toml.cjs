"use strict";
// `hookwise init --kimi | --vibe`: merge the TOML tables the core wrote — `[[hooks]]` entries
// (Kimi Code's user config.toml, Mistral Vibe's .vibe/hooks.toml) and Vibe's `[[mcp_servers]]`
// entry (.vibe/config.toml) — into the file, and read them back for `hookwise doctor`.
// Transport only: the tables' text is the core's (src/engine/policy/hook/setup_cli.rs). Never
// overwrites: every other table and line stays as it is; hookwise's own tables (a `[[hooks]]`
// whose command runs the package's dist/hook.sh or `hookwise hook --host`, the
// `[[mcp_servers]]` named `hookwise`) are replaced when they differ; every change is reported.

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { readIfThere } = require("./claude-init.cjs");

/** A table header line: `[name]` or `[[name]]` (`null`: not a header). */
function header(line) {
  const m = /^\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(line);
  return m ? { array: m[1] === "[[", name: m[2].replace(/\s*\.\s*/g, ".").replace(/"([A-Za-z0-9_-]+)"/g, "$1") } : null;
}

/** The file's lines cut into blocks: the preamble, then one block per table header. */
function blocks(src) {
  const out = [{ head: null, lines: [] }];
  for (const line of src.split("\n")) {
    const h = header(line);
    if (h) out.push({ head: h, lines: [line] });
    else out.at(-1).lines.push(line);
  }
  return out;
}

/** A `key = "value"` of a block (basic strings only), or null. */
function value(block, key) {
  for (const line of block.lines) {
    const m = new RegExp(`^\\s*${key}\\s*=\\s*("(?:[^"\\\\]|\\\\.)*")\\s*(?:#.*)?$`).exec(line);
    if (m) {
      try {
        return JSON.parse(m[1]);
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** hookwise's own `[[hooks]]` entry: its command runs the package's hook script or `hookwise hook`. */
const ourHook = (b) => {
  const c = value(b, "command");
  return typeof c === "string" && (/^h=node_modules\/hookwise\/dist\/hook\.sh; /.test(c) || /hookwise/.test(c) && / hook --host [a-z-]+ [A-Za-z_]+$/.test(c));
};

/**
 * Put `tables` (texts, each one `[[array]]` table) into the TOML file `file` (shown as `rel`):
 * the array's tables `isOurs` says are hookwise's are dropped, the new ones added at the end
 * (sub-tables of a dropped entry go with it). Returns the changes ([{file, action, what}]).
 */
function mergeArrayTables(file, rel, array, tables, isOurs, what) {
  const { src, existed } = readIfThere(file);
  const bs = blocks(src);
  const kept = [];
  const had = [];
  let dropping = false;
  for (const b of bs) {
    if (b.head && b.head.array && b.head.name === array) dropping = isOurs(b);
    else if (!(b.head && b.head.name.startsWith(`${array}.`))) dropping = false;
    (dropping ? had : kept).push(b);
  }
  const text = (list) => list.map((b) => b.lines.join("\n")).join("\n");
  const want = tables.map((t) => t.trimEnd()).join("\n\n");
  if (had.length && text(had).trim() === want.trim()) return [{ file: rel, action: "kept", what: `${what} are there already` }];
  const rest = text(kept).replace(/\s+$/, "");
  writeText(file, `${rest}${rest ? "\n\n" : ""}${want}\n`);
  return [...(existed ? [] : [{ file: rel, action: "created", what: "the file" }]), { file: rel, action: had.length ? "updated" : "added", what }];
}

function writeText(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.hookwise-${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** Where a user-level hooks file lives (`userHome` of the core's set-up: `$var`, else `~/dir`). */
function userFile(userHome, file, env = process.env) {
  const v = env[userHome.var];
  const home = typeof v === "string" && path.isAbsolute(v) ? v : path.join(env.HOME || os.homedir(), userHome.dir);
  return path.join(home, file);
}

/**
 * The hooks step of `init --<agent>` for a TOML host (`s`: the core's `setup.host` answer).
 * Returns the changes.
 */
function mergeTomlHooks(cwd, s) {
  const user = s.userHome ? userFile(s.userHome, s.hooksFile) : null;
  const file = user || path.join(cwd, s.hooksFile);
  const rel = user ? user.replace(os.homedir(), "~") : s.hooksFile;
  const what = `hookwise's hooks (${s.hooksToml.map((t) => t.event).join(", ")})`;
  return mergeArrayTables(file, rel, "hooks", s.hooksToml.map((t) => t.text), ourHook, what);
}

/** Vibe's `[[mcp_servers]]` entry named `s.mcp.name`. */
function mergeTomlServer(cwd, s) {
  const isOurs = (b) => value(b, "name") === s.mcp.name;
  return mergeArrayTables(path.join(cwd, s.mcpFile), s.mcpFile, s.mcp.table, [s.mcp.text], isOurs, `server ${s.mcp.name}`);
}

/** hookwise's `[[hooks]]` entry for `event` in a TOML hooks file (`type` or `event` names it), or null. */
function ourTomlHook(file, event) {
  let src;
  try {
    src = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const b = blocks(src).find((x) => x.head && x.head.array && x.head.name === "hooks" && ourHook(x) && (value(x, "event") === event || value(x, "type") === event));
  return b ? { type: "command", command: value(b, "command") } : null;
}

module.exports = { mergeTomlHooks, mergeTomlServer, ourTomlHook, userFile };

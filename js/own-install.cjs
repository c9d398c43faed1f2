"use strict";
// Where the plugin files `hookwise init` writes for Cline and Kilo find the project's own
// hookwise (issue 38): `node_modules/hookwise/<rel>` in the project folder, in the folders
// above it up to the project's top (its `.git`), or in the main checkout of its git worktree —
// the rule of the command hooks' launcher (src/command_hook/setup_cli.rs), never Node's
// or Bun's resolution, which walks up to `/`. A folder another user can write (owned by neither
// this user nor root, writable by others, or by a group not this user's own) is never looked
// in, nor any folder above it: a `node_modules/hookwise` planted in a shared parent folder
// (a temp folder) is never loaded. The function's text is written into the plugin files (they
// run before any hookwise is found), so it uses nothing but its arguments and Node's builtins.

const FIND_SOURCE = `function findHookwise(d, rel) {
  const f = require("node:fs"), p = require("node:path");
  const w = process.getuid ? process.getuid() : -1, q = process.getgid ? process.getgid() : -1;
  const ours = (x) => { try { const s = f.statSync(x); return w < 0 || ((s.uid === w || s.uid === 0) && !(s.mode & 2) && !(s.mode & 16 && s.gid !== q)); } catch { return false; } };
  const at = (x) => p.join(x, "node_modules", "hookwise", rel);
  for (let i = 0; i < 64 && ours(d); i++) {
    if (f.existsSync(at(d))) return at(d);
    let g = null;
    try { g = f.readFileSync(p.join(d, ".git"), "utf8"); } catch {}
    if (g !== null || f.existsSync(p.join(d, ".git"))) {
      const r = /^gitdir:\\s*(.+)$/m.exec(g || "");
      if (r) try {
        const x = p.resolve(d, r[1].trim()), y = p.dirname(p.resolve(x, f.readFileSync(p.join(x, "commondir"), "utf8").trim()));
        if (ours(y) && f.existsSync(at(y))) return at(y);
      } catch {}
      return null;
    }
    const u = p.dirname(d);
    if (u === d) break;
    d = u;
  }
  return null;
}`;

/** The sentence a plugin file throws when it finds no hookwise. */
const NOT_FOUND =
  "hookwise is not installed in this project (no node_modules/hookwise in it, in the folders above it up to its .git, or in the main checkout of its git worktree; a folder another user can write is not looked in): run npm install --save-dev hookwise, or hookwise init --global";

// eslint-disable-next-line no-new-func
const findHookwise = new Function("require", `return (${FIND_SOURCE})`)(require);

module.exports = { FIND_SOURCE, NOT_FOUND, findHookwise };

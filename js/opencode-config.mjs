// `hookwise init`: add hookwise to the project's OpenCode configuration, in the form the
// project's OpenCode generation reads (never removing or rewriting anything else):
//   - OpenCode 1.x: `"plugin": ["hookwise"]` (its config drops keys it does not know);
//   - OpenCode 2.x: `"plugins": [{"package": "hookwise"}]` (anomalyco/opencode,
//     packages/schema/src/config/plugin.ts: an entry is a package name or `{package, options?}`;
//     the config files are `opencode.json` / `opencode.jsonc`).
// The generation: `--opencode 1|2`; else the key an existing opencode.json already uses; else
// the major version `opencode --version` prints; else both keys, with a note.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const PACKAGE = "hookwise";

/** The OpenCode generation on PATH (1, 2) from `opencode --version`, or null. */
export function installedGeneration(env = process.env) {
  try {
    const r = spawnSync("opencode", ["--version"], { encoding: "utf8", timeout: 10_000, env, stdio: ["ignore", "pipe", "ignore"] });
    const m = r.status === 0 && /(?:^|\s|v)(\d+)\.\d+/.exec(r.stdout || "");
    const major = m ? Number(m[1]) : NaN;
    return major === 1 || major === 2 ? major : null;
  } catch {
    return null;
  }
}

const names1 = (list) => list.some((p) => (typeof p === "string" ? p === PACKAGE || p.startsWith(`${PACKAGE}@`) : Array.isArray(p) && typeof p[0] === "string" && (p[0] === PACKAGE || p[0].startsWith(`${PACKAGE}@`))));
const names2 = (list) => list.some((p) => (typeof p === "string" ? p === PACKAGE || p.startsWith(`${PACKAGE}@`) : p && typeof p.package === "string" && (p.package === PACKAGE || p.package.startsWith(`${PACKAGE}@`))));

/**
 * Register hookwise in `cwd`'s opencode.json. `generation`: "1", "2" or undefined (detect).
 * Returns `{file, generation, added: ["plugin"|"plugins"], kept, skipped, note?, snippet?}`; never
 * overwrites a file it cannot read as plain JSON (it says what to add instead).
 */
export function registerOpenCode(cwd, generation, { detect = installedGeneration } = {}) {
  if (generation !== undefined && generation !== "1" && generation !== "2") throw new Error(`--opencode must be 1 or 2, not ${JSON.stringify(generation)}`);
  const jsonFile = path.join(cwd, "opencode.json");
  const jsoncFile = path.join(cwd, "opencode.jsonc");
  const snippet = { 1: '"plugin": ["hookwise"]', 2: '"plugins": [{ "package": "hookwise" }]' };
  let config = null;
  let unreadable = null;
  if (fs.existsSync(jsonFile)) {
    try {
      config = JSON.parse(fs.readFileSync(jsonFile, "utf8"));
      if (config === null || typeof config !== "object" || Array.isArray(config)) unreadable = "not a JSON object";
    } catch (e) {
      unreadable = `not plain JSON (${e.message})`;
    }
  } else if (fs.existsSync(jsoncFile)) {
    unreadable = "a JSONC file (comments are kept only by hand)";
  }
  let gen = generation ? Number(generation) : null;
  let how = generation ? "--opencode" : null;
  if (!gen && config && !unreadable) {
    if (Array.isArray(config.plugins)) (gen = 2), (how = "opencode.json has `plugins`");
    else if (Array.isArray(config.plugin)) (gen = 1), (how = "opencode.json has `plugin`");
  }
  if (!gen) {
    gen = detect();
    if (gen) how = `opencode --version is ${gen}.x`;
  }
  const gens = gen ? [gen] : [1, 2];
  const file = unreadable && !fs.existsSync(jsonFile) ? jsoncFile : jsonFile;
  const note = gen ? undefined : "OpenCode's generation is unknown (no --opencode, no opencode on PATH): both forms are written — 1.x reads `plugin`, 2.x reads `plugins`; each ignores the other's key.";
  if (unreadable) {
    return { file, generation: gen, how, added: [], kept: [], skipped: [], unreadable, snippet: gens.map((g) => snippet[g]), note };
  }
  const next = config ? { ...config } : { $schema: "https://opencode.ai/config.json" };
  const added = [];
  const kept = [];
  const skipped = [];
  for (const g of gens) {
    const key = g === 1 ? "plugin" : "plugins";
    const list = Array.isArray(next[key]) ? next[key] : [];
    if (next[key] !== undefined && !Array.isArray(next[key])) {
      skipped.push(key);
      continue;
    }
    if ((g === 1 ? names1 : names2)(list)) {
      kept.push(key);
      continue;
    }
    next[key] = [...list, g === 1 ? PACKAGE : { package: PACKAGE }];
    added.push(key);
  }
  if (added.length) fs.writeFileSync(jsonFile, JSON.stringify(next, null, 2) + "\n");
  return { file: jsonFile, generation: gen, how, added, kept, skipped, note };
}

/** The lines `hookwise init` prints for the result of registerOpenCode. */
export function describeRegistration(r) {
  const rel = path.basename(r.file);
  const lines = [];
  if (r.unreadable) lines.push(`kept ${rel} (${r.unreadable}); add to it: ${r.snippet.join(" and ")}`);
  for (const k of r.added) lines.push(`added hookwise to \`${k}\` in ${rel} (OpenCode ${k === "plugin" ? "1.x" : "2.x"}${r.how ? `: ${r.how}` : ""})`);
  for (const k of r.kept) lines.push(`kept \`${k}\` in ${rel} (it names hookwise already)`);
  for (const k of r.skipped) lines.push(`kept \`${k}\` in ${rel} (not a list; add hookwise by hand)`);
  if (r.note) lines.push(`note: ${r.note}`);
  return lines;
}

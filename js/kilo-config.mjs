// `hookwise init --kilo`, and what `hookwise doctor` says about the hosts that load hookwise as
// an in-process plugin through a `setup` call (Kilo CLI, OpenCode 2).
//
// Kilo CLI (@kilocode/cli 7.7.7, an OpenCode fork; docs/kilo.md) loads every plugin file in the
// project's .kilo/plugin/ with OpenCode 1.x's loader (`default.server`), and calls the same
// module's `setup` from its second loader. An npm name in kilo.json `plugin` (what `kilo plugin
// hookwise` writes) is installed by Kilo from the registry into its own cache: offline it is not
// loaded at all, and it is another copy than the project's. So init writes
// .kilo/plugin/hookwise.js, one line that loads the project's own hookwise (or, with --global,
// the hookwise this command runs from) — committed with the project, it works after a clone and
// `npm install`, like the other agents' entries. It never overwrites a file, and writes none when
// a kilo.json already loads hookwise (two copies would run twice).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
const { FIND_SOURCE, NOT_FOUND, findHookwise } = createRequire(import.meta.url)("./own-install.cjs");

export const KILO_PLUGIN = ".kilo/plugin/hookwise.js";
/** Where else Kilo 7.7.7 reads project plugin files and configuration (its legacy `.kilocode/`). */
const PLUGIN_DIRS = [".kilo/plugin", ".kilo/plugins", ".kilocode/plugin", ".kilocode/plugins"];
const CONFIGS = ["kilo.json", "kilo.jsonc", ".kilo/kilo.json", ".kilo/kilo.jsonc", ".kilocode/kilo.json", ".kilocode/kilo.jsonc"];

const INIT_MARK = "written by `hookwise init --kilo`";

/** The plugin file's text: loads `spec` ("hookwise": the project's own, found as the command
 * hooks' launcher finds it — never Bun's resolution, which walks up every parent folder, issue
 * 38 —; or a file URL with --global). */
export function kiloPluginText(spec) {
  if (spec !== "hookwise") {
    return `// hookwise for Kilo CLI, ${INIT_MARK}: Kilo loads the plugins in .kilo/plugin/.\n// This one is the hookwise installed at this path (hookwise init --kilo --global).\nexport { default } from ${JSON.stringify(spec)};\n`;
  }
  return `// hookwise for Kilo CLI, ${INIT_MARK}: Kilo loads the plugins in .kilo/plugin/.
// This one is the project's own hookwise (npm install --save-dev hookwise): in this project, the
// folders above it up to its .git, or its git worktree's main checkout; never a folder another
// user can write.
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
const require = createRequire(import.meta.url);
const at = (${FIND_SOURCE})(require("node:path").resolve(fileURLToPath(import.meta.url), "..", "..", ".."), "dist/index.mjs");
if (!at) throw new Error(${JSON.stringify(`hookwise: ${NOT_FOUND}`)});
export default (await import(pathToFileURL(at).href)).default;
`;
}

/** What an earlier hookwise wrote for the project's own hookwise (Bun's resolution, which walks
 * up every parent folder): replaced by init, reported by doctor. */
const OLD_LOCAL = `// hookwise for Kilo CLI, ${INIT_MARK}: Kilo loads the plugins in .kilo/plugin/.\n// This one is the project's own hookwise (npm install --save-dev hookwise).\nexport { default } from "hookwise";\n`;

/** The package this command runs from, as the --global plugin file loads it. */
function ownEntry() {
  return pathToFileURL(fileURLToPath(new URL("./index.mjs", import.meta.url))).href;
}

/** The module a plugin file re-exports (`export … from "X"` / `import … from "X"`), or null. */
function specOf(text) {
  const m = /\b(?:export|import)\b[^;]*?\bfrom\s*(["'])([^"']+)\1/.exec(text);
  return m ? m[2] : null;
}

const namesHookwise = (spec) => typeof spec === "string" && (spec === "hookwise" || spec.startsWith("hookwise@") || /\/hookwise\/dist\/index\.mjs$/.test(spec));

/** The Kilo configuration files of `cwd` whose `plugin` list names hookwise. */
function configsNamingHookwise(cwd) {
  const out = [];
  for (const rel of CONFIGS) {
    let text;
    try {
      text = fs.readFileSync(path.join(cwd, rel), "utf8");
    } catch {
      continue;
    }
    let list = null;
    try {
      list = JSON.parse(text).plugin;
    } catch {
      // JSONC: a quoted hookwise spec anywhere counts (in doubt: named, so nothing is doubled)
      if (/"hookwise(?:@[^"]*)?"/.test(text)) out.push(rel);
      continue;
    }
    if (Array.isArray(list) && list.some((p) => namesHookwise(Array.isArray(p) ? p[0] : p))) out.push(rel);
  }
  return out;
}

/** The plugin files in Kilo's project folders that load hookwise: `[{rel, spec}]`. */
function pluginFiles(cwd) {
  const out = [];
  for (const dir of PLUGIN_DIRS) {
    let names;
    try {
      names = fs.readdirSync(path.join(cwd, dir));
    } catch {
      continue;
    }
    for (const n of names.filter((x) => /\.(?:[cm]?js|ts)$/.test(x))) {
      let text = "";
      try {
        text = fs.readFileSync(path.join(cwd, dir, n), "utf8");
      } catch {
        continue;
      }
      // the file init writes for the project's own hookwise: found, not resolved by Bun
      const spec = text.includes(INIT_MARK) && text.includes("findHookwise(") ? "hookwise" : specOf(text);
      const found = text.includes("findHookwise(");
      // the package by name or path, or the file init writes (--global: any path)
      if (spec && (namesHookwise(spec) || text.includes(INIT_MARK))) out.push({ rel: `${dir}/${n}`, spec, found, old: text === OLD_LOCAL });
    }
  }
  return out;
}

/**
 * `hookwise init --kilo` in `cwd`: `{host, cwd, changes, lines, error?}` (the shape of the other
 * agents' init results). `global`: the plugin file loads the hookwise this command runs from.
 */
export function initKilo(cwd, { global = false } = {}) {
  const changes = [];
  const lines = [];
  const configs = configsNamingHookwise(cwd);
  const files = pluginFiles(cwd);
  const file = path.join(cwd, KILO_PLUGIN);
  if (configs.length) {
    changes.push({ action: "kept", file: configs[0], what: "its `plugin` list loads hookwise already (from Kilo's cache); no plugin file written, so it does not run twice" });
  } else if (files.length && files[0].old) {
    // ours, from an earlier hookwise that let Bun walk up every parent folder (issue 38)
    fs.writeFileSync(path.join(cwd, files[0].rel), kiloPluginText(global ? ownEntry() : "hookwise"));
    changes.push({ action: "updated", file: files[0].rel, what: "it loads hookwise, no longer looking for it in the folders above the project" });
  } else if (files.length) {
    changes.push({ action: "kept", file: files[0].rel, what: `it loads hookwise (${files[0].spec})` });
  } else if (fs.existsSync(file)) {
    changes.push({ action: "kept", file: KILO_PLUGIN, what: `another plugin by that name; add to .kilo/plugin/ a file with: export { default } from "hookwise";` });
  } else {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, kiloPluginText(global ? ownEntry() : "hookwise"), { flag: "wx" });
      changes.push({ action: "created", file: KILO_PLUGIN, what: `Kilo loads ${global ? "this hookwise" : "the project's hookwise"} as a plugin` });
    } catch (e) {
      return { host: "kilo", cwd, changes, error: `${KILO_PLUGIN}: ${e.message}`, lines: [`failed ${KILO_PLUGIN}: ${e.message}`] };
    }
  }
  lines.push(...changes.map((c) => `${c.action} ${c.file}: ${c.what}`));
  if (!global && !configs.length && !fs.existsSync(path.join(cwd, "node_modules", "hookwise", "package.json"))) {
    lines.push("note: the plugin file loads the project's own hookwise (node_modules/hookwise), which is not installed here: run npm install --save-dev hookwise (or init again with --global)");
  }
  return { host: "kilo", cwd, changes, lines };
}

/** Where a plugin file's `spec` resolves from the file (as Kilo's runtime resolves it), or throws. */
function resolveSpec(cwd, rel, spec, found) {
  if (found) {
    const at = findHookwise(path.resolve(cwd), "package.json");
    if (!at) throw new Error(NOT_FOUND);
    return at;
  }
  if (spec.startsWith("file:")) {
    const p = fileURLToPath(spec);
    if (!fs.existsSync(p)) throw new Error(`${p} does not exist`);
    return p;
  }
  const name = spec.replace(/^(hookwise)@.*$/, "$1");
  return createRequire(path.join(cwd, rel)).resolve(`${name}/package.json`);
}

/**
 * What `hookwise doctor` says about the plugin hosts that call `setup` (`configured`: what
 * configures governance or enforcement here, from js/failsafe.cjs, or null): `{agents, warnings}`,
 * each agent `{host, file, ok, line}`.
 */
export function pluginHostsReport(cwd, configured, { opencodeVersion = installedOpenCode } = {}) {
  const agents = [];
  const warnings = [];
  const gated = configured ? `the intent governance or pre-action enforcement this project configures (${configured.marker})` : null;
  for (const f of pluginFiles(cwd)) {
    try {
      if (f.old) throw new Error("it was written by an earlier hookwise and loads whatever node_modules/hookwise Bun finds in any folder above the project, one another user may have planted; run hookwise init --kilo to rewrite it");
      const at = resolveSpec(cwd, f.rel, f.spec, f.found);
      agents.push({ host: "kilo", file: f.rel, ok: true, loads: at, line: `agent kilo: set up in ${f.rel} (loads ${path.dirname(at)}); Kilo runs its hooks through the OpenCode 1.x plugin (server); its setup() call registers nothing more` });
    } catch (e) {
      const why = `cannot load ${f.spec} from there (${String(e.message).split("\n")[0]}): Kilo starts without hookwise`;
      agents.push({ host: "kilo", file: f.rel, ok: false, error: why, line: `agent kilo: set up in ${f.rel}, but it ${why}` });
      if (gated) warnings.push(`Kilo CLI checks NO tool call here: ${f.rel} ${why}, and ${gated} needs it (npm install --save-dev hookwise)`);
    }
  }
  for (const rel of configsNamingHookwise(cwd)) {
    agents.push({ host: "kilo", file: rel, ok: true, line: `agent kilo: ${rel} names hookwise in \`plugin\` (Kilo installs it from the npm registry into its cache; offline it is not loaded)` });
  }
  // OpenCode 2 loads hookwise through `setup` alone (`plugins`): released 2.0.x builds' context has no tool hooks
  let oc = null;
  try {
    oc = JSON.parse(fs.readFileSync(path.join(cwd, "opencode.json"), "utf8"));
  } catch {
    /* none, or not plain JSON: init said so */
  }
  const v2 = oc && Array.isArray(oc.plugins) && oc.plugins.some((p) => namesHookwise(typeof p === "string" ? p : p && p.package));
  if (v2 && gated) {
    const version = opencodeVersion();
    const zero = version && /^2\.0\./.test(version);
    warnings.push(
      `opencode.json loads hookwise through OpenCode 2's \`plugins\` (setup() only)${version ? `, and the installed OpenCode is ${version}` : ""}: ${zero ? "this" : "a"} released OpenCode 2.0.x build gives that setup() no tool hooks, so there ${gated} checks NO tool call (hookwise says so in OpenCode's log as it starts). OpenCode 1.x (\`plugin\`) and Kilo CLI run hookwise's hooks.`,
    );
  }
  return { agents, warnings };
}

/** `opencode --version` (its first version number), or null. */
function installedOpenCode(env = process.env) {
  try {
    const r = spawnSync("opencode", ["--version"], { encoding: "utf8", timeout: 10_000, env, stdio: ["ignore", "pipe", "ignore"] });
    const m = r.status === 0 && /(\d+\.\d+\.\d+)/.exec(r.stdout || "");
    return m ? m[1] : null;
  } catch {
    return null;
  }
}

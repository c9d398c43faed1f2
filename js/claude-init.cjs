"use strict";
// `hookwise init --claude | --codex | --gemini | --copilot | --qwen`: merge the entries the core
// wrote (hooks, the MCP server) into the host's project files (.claude/settings.json and
// .mcp.json, .codex/hooks.json and .codex/config.toml, .gemini/settings.json,
// .github/hooks/hookwise.json and .github/mcp.json, .qwen/settings.json). Never overwrites:
// other keys, other hooks and other servers stay as they are; hookwise's own entries (an
// mcp_tool hook of its server, a command hook running `hook [--host H] <Event>` of a hookwise
// cli, its `[mcp_servers.hookwise]` table) are replaced when they differ; every change is
// reported. A file that is not a JSON object (JSON with comments included) or a TOML file
// naming hookwise's server another way is left alone (an error says so).

const fs = require("node:fs");
const path = require("node:path");

function readJson(file) {
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if (e && e.code === "ENOENT") return { value: {}, existed: false };
    throw new Error(`${file}: ${e && e.code ? e.code : e}`);
  }
  let value;
  try {
    value = text.trim() ? JSON.parse(text) : {};
  } catch (e) {
    throw new Error(`${file} is not plain JSON (${e.message}; comments are not kept by a merge): left unchanged. Fix it or move it away, then run init again`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error(`${file} is not a JSON object; left unchanged`);
  return { value, existed: true };
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.hookwise-${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + "\n");
  fs.renameSync(tmp, file);
}

/** hookwise's own hook (this server's mcp_tool, a command running `… hook <Event>` of a
 * hookwise cli, or the entry that runs the package's dist/hook.sh). */
function isOurs(h, server) {
  if (!h || typeof h !== "object") return false;
  if (h.type === "mcp_tool") return h.server === server;
  if (h.type !== "command" || typeof h.command !== "string") return false;
  return (/hookwise/.test(h.command) && / hook (?:--host [a-z-]+ )?[A-Za-z]+$/.test(h.command)) || /^h=node_modules\/hookwise\/dist\/hook\.sh; /.test(h.command);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Merge `hooks` ({Event: [entry]}) into the settings file. Returns the changes
 * ([{file, action, what}]).
 */
function mergeClaudeSettings(file, hooks, { server }) {
  return mergeHooks(file, path.join(".claude", "settings.json"), hooks, { server });
}

/** Merge `hooks` ({Event: [entry]}) under `"hooks"` of the JSON file `file` (shown as `rel`). */
function mergeHooks(file, rel, hooks, { server }) {
  const { value: settings, existed } = readJson(file);
  const changes = [];
  if (settings.hooks !== undefined && (typeof settings.hooks !== "object" || Array.isArray(settings.hooks) || settings.hooks === null)) throw new Error(`${file}: "hooks" is not an object; left unchanged`);
  const all = settings.hooks || {};
  for (const [event, entries] of Object.entries(hooks)) {
    const list = Array.isArray(all[event]) ? all[event] : [];
    if (all[event] !== undefined && !Array.isArray(all[event])) throw new Error(`${file}: hooks.${event} is not a list; left unchanged`);
    // hookwise's entries now, and the others as they are (an entry holding others' hooks too
    // keeps them)
    const kept = [];
    let had = null;
    for (const e of list) {
      const hs = e && Array.isArray(e.hooks) ? e.hooks : [];
      const ours = hs.filter((h) => isOurs(h, server));
      if (!ours.length) {
        kept.push(e);
        continue;
      }
      had = had || [];
      had.push({ ...e, hooks: ours });
      const rest = hs.filter((h) => !isOurs(h, server));
      if (rest.length) kept.push({ ...e, hooks: rest });
    }
    const next = [...kept, ...entries];
    if (had && same(had, entries)) continue;
    all[event] = next;
    changes.push({ file: rel, action: had ? "updated" : "added", what: `${event} hook (${entries.map((e) => e.hooks.map((h) => h.tool || h.command).join(", ")).join("; ")})` });
  }
  if (changes.length) {
    settings.hooks = all;
    writeJson(file, settings);
    if (!existed) changes.unshift({ file: rel, action: "created", what: "the file" });
  } else changes.push({ file: rel, action: "kept", what: "hookwise's hooks are there already" });
  return changes;
}

/**
 * Add permission rules (`permissions.allow` / `permissions.deny` lists) to a settings file,
 * keeping every rule there. Returns the changes.
 */
function mergePermissions(file, rel, rules) {
  const { value: settings, existed } = readJson(file);
  const p = settings.permissions;
  if (p !== undefined && (typeof p !== "object" || p === null || Array.isArray(p))) throw new Error(`${file}: "permissions" is not an object; left unchanged`);
  const perms = p || {};
  const changes = [];
  for (const [kind, list] of Object.entries(rules)) {
    if (perms[kind] !== undefined && !Array.isArray(perms[kind])) throw new Error(`${file}: permissions.${kind} is not a list; left unchanged`);
    const have = perms[kind] || [];
    const add = list.filter((r) => !have.includes(r));
    if (!add.length) continue;
    perms[kind] = [...have, ...add];
    changes.push({ file: rel, action: "added", what: `permissions.${kind}: ${add.join(", ")}` });
  }
  if (changes.length) {
    settings.permissions = perms;
    writeJson(file, settings);
    if (!existed) changes.unshift({ file: rel, action: "created", what: "the file" });
  }
  return changes;
}

/** The .mcp.json server entry: this node running this cli's `mcp`. */
function serverEntry(node, cli) {
  return { type: "stdio", command: node, args: [cli, "mcp"] };
}

function mergeMcpJson(file, server, entry) {
  return mergeMcpServers(file, ".mcp.json", server, entry);
}

/** The server entry under `mcpServers` of the JSON file `file` (shown as `rel`). */
function mergeMcpServers(file, rel, server, entry) {
  const { value: cfg, existed } = readJson(file);
  if (cfg.mcpServers !== undefined && (typeof cfg.mcpServers !== "object" || Array.isArray(cfg.mcpServers) || cfg.mcpServers === null)) throw new Error(`${file}: "mcpServers" is not an object; left unchanged`);
  const servers = cfg.mcpServers || {};
  const had = servers[server];
  if (had && same(had, entry)) return [{ file: rel, action: "kept", what: `server ${server} is there already` }];
  servers[server] = entry;
  cfg.mcpServers = servers;
  writeJson(file, cfg);
  return [
    ...(existed ? [] : [{ file: rel, action: "created", what: "the file" }]),
    { file: rel, action: had ? "updated" : "added", what: `server ${server}: ${entry.command} ${entry.args.join(" ")}` },
  ];
}

/** The header of hookwise's table in a TOML file, and of its sub-tables. */
const tableHeader = (line, table) => {
  const m = /^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$/.exec(line);
  if (!m) return null;
  const name = m[1].replace(/\s*\.\s*/g, ".").replace(/"([A-Za-z0-9_-]+)"/g, "$1");
  return name === table ? "own" : name.startsWith(`${table}.`) ? "sub" : "other";
};

/**
 * Put hookwise's table (`text`, starting with `[table]`) into a TOML file (Codex's
 * .codex/config.toml): added at the end, or the table hookwise wrote before replaced (with its
 * sub-tables); every other line kept as it is. A file that names the server in another form
 * (an inline table, dotted keys) is left alone.
 */
function mergeTomlTable(file, rel, table, text) {
  const { src, existed } = readIfThere(file);
  const lines = src.split("\n");
  let start = -1;
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const h = tableHeader(lines[i], table);
    if (start < 0 && h === "own") start = i;
    else if (start >= 0 && h === "other") {
      end = i;
      break;
    }
  }
  const [parent, name] = [table.slice(0, table.lastIndexOf(".")), table.slice(table.lastIndexOf(".") + 1)];
  if (start < 0 && new RegExp(`(^|\\n)\\s*(${parent}\\s*\\.\\s*"?${name}"?\\s*[.=]|"?${name}"?\\s*=\\s*\\{)`).test(src)) {
    throw new Error(`${file} names the ${name} server in a form init does not edit: left unchanged; replace it with this table:\n${text}`);
  }
  const want = text.trimEnd();
  if (start >= 0) {
    const had = lines.slice(start, end).join("\n").trimEnd();
    if (had === want) return [{ file: rel, action: "kept", what: `[${table}] is there already` }];
    const next = [...lines.slice(0, start), ...want.split("\n"), ...(end < lines.length ? ["", ...lines.slice(end)] : [""])];
    writeText(file, next.join("\n"));
    return [{ file: rel, action: "updated", what: `[${table}]` }];
  }
  const sep = src === "" ? "" : src.endsWith("\n\n") ? "" : src.endsWith("\n") ? "\n" : "\n\n";
  writeText(file, `${src}${sep}${want}\n`);
  return [...(existed ? [] : [{ file: rel, action: "created", what: "the file" }]), { file: rel, action: "added", what: `[${table}]` }];
}

function writeText(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.hookwise-${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** A config file's text, `""` when it does not exist; any other error throws, naming the file. */
function readIfThere(file) {
  try {
    return { src: fs.readFileSync(file, "utf8"), existed: true };
  } catch (e) {
    if (!e || e.code !== "ENOENT") throw new Error(`${file}: ${e && e.code ? e.code : e}`);
    return { src: "", existed: false };
  }
}

module.exports = { readIfThere, mergeClaudeSettings, mergeHooks, mergeMcpJson, mergeMcpServers, mergeTomlTable, mergePermissions, serverEntry, isOurs };

"use strict";
// `hookwise init --claude`: merge hookwise's entries into the project's .claude/settings.json
// and .mcp.json. Never overwrites: other keys, other hooks and other servers stay as they are;
// hookwise's own entries (an mcp_tool hook of its server, a command hook running `hook
// <Event>` of a hookwise cli) are replaced when they differ; every change is reported. A file
// that is not a JSON object is left alone (an error says so).

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
    throw new Error(`${file} is not JSON (${e.message}); fix it or move it away, then run init --claude again`);
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

/** hookwise's own hook (this server's mcp_tool, or a command running `… hook <Event>` of a
 * hookwise cli). */
function isOurs(h, server) {
  if (!h || typeof h !== "object") return false;
  if (h.type === "mcp_tool") return h.server === server;
  return h.type === "command" && typeof h.command === "string" && /hookwise/.test(h.command) && / hook [A-Za-z]+$/.test(h.command);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Merge `hooks` ({Event: [entry]}) into the settings file. Returns the changes
 * ([{file, action, what}]).
 */
function mergeClaudeSettings(file, hooks, { server }) {
  const { value: settings, existed } = readJson(file);
  const rel = path.join(".claude", "settings.json");
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
  const { value: cfg, existed } = readJson(file);
  const rel = ".mcp.json";
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

module.exports = { mergeClaudeSettings, mergeMcpJson, mergePermissions, serverEntry, isOurs };

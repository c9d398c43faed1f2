// Test knobs: latency, invocation log, fault injection. All read from environment variables.

import fs from 'node:fs';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export function msFromEnv(env, name) {
  const n = Number(env[name] ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** "Now" for time-dependent answers: FAKE_MAENIFOLD_NOW (ISO 8601 or epoch ms), else the clock. */
export function nowFromEnv(env) {
  const v = env.FAKE_MAENIFOLD_NOW;
  if (v) {
    const t = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
    if (Number.isFinite(t)) return t;
  }
  return Date.now();
}

/** Append one JSON line to FAKE_MAENIFOLD_LOG with a single write (O_APPEND keeps lines whole). */
export function logEvent(env, entry) {
  const file = env.FAKE_MAENIFOLD_LOG;
  if (!file) return;
  const line = JSON.stringify({ time: new Date().toISOString(), pid: process.pid, ...entry }) + '\n';
  try {
    fs.appendFileSync(file, line);
  } catch (e) {
    process.stderr.write(`[fake-maenifold] cannot write log ${file}: ${e.message}\n`);
  }
}

/**
 * FAKE_MAENIFOLD_FAULT="Tool:fault,*:fault,...". Faults: hang, error, invoking, unknown, empty,
 * garbage, huge, nonutf8, crash, jsonfail, slow:<ms>. Tool names match case-insensitively.
 * Returns { fault: first non-slow fault or null, slowMs: sum of matching slow:<ms> }.
 */
export function cliFaultFor(env, toolName) {
  const spec = env.FAKE_MAENIFOLD_FAULT || '';
  let fault = null;
  let slowMs = 0;
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    const colon = item.indexOf(':');
    if (colon <= 0) continue;
    const tool = item.slice(0, colon).trim();
    const what = item.slice(colon + 1).trim();
    if (tool !== '*' && tool.toLowerCase() !== String(toolName).toLowerCase()) continue;
    const slow = what.match(/^slow:(\d+)$/i);
    if (slow) slowMs += Number(slow[1]);
    else if (!fault && what) fault = what.toLowerCase();
  }
  return { fault, slowMs };
}

/**
 * FAKE_MAENIFOLD_MCP_FAULT="no-handshake,garbage,partial,close-stdout,exit,stderr-flood,iserror,
 * slow:<tool>:<ms>". Returns { flags: Set, slow: Map tool -> ms }.
 */
export function mcpFaults(env) {
  const flags = new Set();
  const slow = new Map();
  for (const raw of (env.FAKE_MAENIFOLD_MCP_FAULT || '').split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const m = item.match(/^slow:([^:]+):(\d+)$/i);
    if (m) slow.set(m[1], (slow.get(m[1]) || 0) + Number(m[2]));
    else flags.add(item.toLowerCase());
  }
  return { flags, slow };
}

/** Random printable text that is none of maenifold's output shapes. */
export function garbageText() {
  const words = ['zq', 'flarn', '0x1f', '%%', 'wub', '<<>>', 'qux', '~~', 'blorp', '§', 'nil', '::'];
  const lines = [];
  const n = 2 + Math.floor(Math.random() * 4);
  for (let i = 0; i < n; i++) {
    const k = 3 + Math.floor(Math.random() * 8);
    lines.push(Array.from({ length: k }, () => words[Math.floor(Math.random() * words.length)]).join(' '));
  }
  return `@@garbage@@ ${lines.join('\n')}`;
}

export const DOTNET_CRASH = (tool) =>
  [
    'Unhandled exception. System.InvalidOperationException: simulated crash (fake maenifold)',
    `   at Maenifold.Tools.ToolRegistry.Invoke(String name = ${tool}, JsonElement payload)`,
    '   at Program.<Main>$(String[] args) in /src/Program.cs:line 80',
    '   at Program.<Main>(String[] args)',
  ].join('\n') + '\n';

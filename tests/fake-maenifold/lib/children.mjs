// Children left behind (maenifold-spawning): background processes started by the fake, as a
// CLI or server that starts helpers would. Each is a `sleep` that outlives the fake unless its
// host ends it.
//
// FAKE_MAENIFOLD_CHILDREN="kind,kind,…", kinds:
//   sleep   a `sleep` in the fake's process group, no stdio;
//   pipes   the same, holding the fake's stdout and stderr open (a reader waiting for the
//           pipes' end waits for it);
//   noterm  the same, ignoring SIGTERM (only SIGKILL ends it);
//   stubborn  ignoring SIGTERM and holding the fake's stdout open;
//   setsid  a `sleep` in a session of its own (setsid): out of reach of the fake's group.
// FAKE_MAENIFOLD_CHILD_PIDS=/path/file: one JSON line per child, written before the fake
// answers: {pid, kind, mode: "cli"|"mcp", parent}.
// FAKE_MAENIFOLD_CHILD_SECONDS: how long each sleep lasts (default 300).

import fs from 'node:fs';
import { spawn } from 'node:child_process';

const KINDS = new Set(['sleep', 'pipes', 'noterm', 'stubborn', 'setsid']);

export async function startChildren(argv, env) {
  const kinds = String(env.FAKE_MAENIFOLD_CHILDREN || '')
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter((k) => KINDS.has(k));
  const seconds = String(Number(env.FAKE_MAENIFOLD_CHILD_SECONDS) > 0 ? Number(env.FAKE_MAENIFOLD_CHILD_SECONDS) : 300);
  const mode = argv.includes('--mcp') ? 'mcp' : 'cli';
  for (const kind of kinds) {
    // `trap '' TERM` before exec: an ignored signal stays ignored across exec. The fake goes on
    // only once the trap is set (the line on the child's stderr).
    const noterm = kind === 'noterm' || kind === 'stubborn';
    const cmd = noterm ? ['sh', ['-c', `trap '' TERM; echo ready >&2; exec sleep ${seconds}`]] : ['sleep', [seconds]];
    const stdio = { pipes: ['ignore', 'inherit', 'inherit'], noterm: ['ignore', 'ignore', 'pipe'], stubborn: ['ignore', 'inherit', 'pipe'] }[kind] || 'ignore';
    const child = spawn(cmd[0], cmd[1], { stdio, detached: kind === 'setsid' });
    child.on('error', (e) => process.stderr.write(`[fake-maenifold] cannot start ${kind}: ${e.message}\n`));
    if (noterm) {
      await new Promise((resolve) => {
        child.stderr.once('data', resolve);
        child.once('error', resolve);
      });
      child.stderr.destroy();
    }
    child.unref();
    if (env.FAKE_MAENIFOLD_CHILD_PIDS && child.pid) {
      fs.appendFileSync(env.FAKE_MAENIFOLD_CHILD_PIDS, JSON.stringify({ pid: child.pid, kind, mode, parent: process.pid }) + '\n');
    }
  }
}

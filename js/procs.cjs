"use strict";
// Ending a process together with everything it started. Every process hookwise starts (a
// maenifold CLI call, the MCP server) leads a process group of its own (spawned detached: on
// POSIX, setsid); its children and grandchildren are in that group unless they leave it. When
// the process ends, is timed out, cancelled or disposed of, the whole group gets SIGTERM, and
// SIGKILL after a grace if anything in it is left. Nobody waits for the grace: it runs on an
// unref'd timer, and a host that exits meanwhile SIGKILLs the groups still being ended.
// Out of reach: a process that left the group (setsid, setpgid: a daemon's double fork).
// Windows has no process groups: there only the process itself is killed (its caller's job).

const isWin = process.platform === "win32";
const KILL_GRACE_MS = 1000;

// The watchdog: a host killed by SIGKILL runs no exit hook (and Node has no
// PR_SET_PDEATHSIG), so one small `sh` per host process, started with the first group and in a
// group of its own, holds a pipe from the host and is told each group as it starts ("+pgid")
// and once it was SIGKILLed or found empty ("-pgid"). When the pipe closes — the host exited,
// however it died — it SIGKILLs every group it still knows. (The pgid of a group it was told
// is gone is never signalled: pids are reused.) With no group left it is let go (its pipe
// closed, its list empty) so that it never outlives what it watches.
const WATCHDOG = `pids=""
while IFS= read -r l; do
  case "$l" in
    +*) pids="$pids \${l#+}" ;;
    -*) g=\${l#-}; n=""; for x in $pids; do [ "$x" = "$g" ] || n="$n $x"; done; pids=$n ;;
  esac
done
for g in $pids; do kill -9 "-$g" 2>/dev/null; done`;
let watchdog = null;

/** Tell the watchdog a line (starting it first). Never throws. */
function tell(line) {
  if (isWin) return;
  try {
    if (!watchdog || watchdog.exitCode !== null || watchdog.signalCode !== null) {
      if (watchdog && watchdog.failed) return;
      const { spawn } = require("node:child_process");
      const w = spawn("/bin/sh", ["-c", WATCHDOG], { stdio: ["pipe", "ignore", "ignore"], detached: true, windowsHide: true });
      w.on("error", () => (w.failed = true));
      w.stdin.on("error", () => {});
      w.unref();
      if (w.stdin.unref) w.stdin.unref();
      watchdog = w;
      // groups already running when a watchdog (re)starts
      for (const g of live) w.stdin.write(`+${g}\n`);
      for (const g of ending.keys()) w.stdin.write(`+${g}\n`);
      if (line.startsWith("+") && (live.has(Number(line.slice(1))) || ending.has(Number(line.slice(1))))) return;
    }
    watchdog.stdin.write(`${line}\n`);
    // nothing left to watch: it goes (its list is empty); the next group starts another
    if (line[0] === "-" && live.size === 0 && ending.size === 0) {
      watchdog.stdin.end();
      watchdog = null;
    }
  } catch {
    /* no watchdog: the exit hook still covers a normal exit */
  }
}

/** The watchdog's pid (tests), or null. */
function watchdogPid() {
  return watchdog && watchdog.pid ? watchdog.pid : null;
}

/** Groups of processes still running (pgid), SIGKILLed if the host exits. */
const live = new Set();
/** Groups being ended: pgid -> the timer of their SIGKILL. */
const ending = new Map();

let exitHooked = false;
function hookExit() {
  if (exitHooked) return;
  exitHooked = true;
  // A normal exit: SIGKILL every group still running or being ended. A host killed by a
  // signal cannot run this (the MCP server then sees its stdin close and exits).
  process.on("exit", () => {
    for (const g of live) signalGroup(g, "SIGKILL");
    for (const g of ending.keys()) signalGroup(g, "SIGKILL");
  });
}

/** Signal the group `pgid`; false when no process is left in it. */
function signalGroup(pgid, sig) {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch (e) {
    // EPERM: someone in the group is not ours to signal (it changed its user): still there
    return !!e && e.code === "EPERM";
  }
}

/** A group now running (its leader `pgid` just started): killed if the host exits. */
function track(pgid) {
  if (isWin || !pgid) return;
  hookExit();
  // A pid in use again: the old group it led is empty (a pgid is never handed out while its
  // group lives), so its pending SIGKILL must not hit the new process.
  const t = ending.get(pgid);
  if (t) clearTimeout(t);
  ending.delete(pgid);
  live.add(pgid);
  tell(`+${pgid}`);
}

/**
 * End the group `pgid` (its leader may already be gone): SIGTERM now, SIGKILL after `graceMs`
 * if any process is left in it. Returns at once; a second call while the first's grace runs
 * only repeats the SIGTERM.
 */
function endGroup(pgid, graceMs = KILL_GRACE_MS) {
  if (isWin || !pgid) return;
  live.delete(pgid);
  if (!signalGroup(pgid, "SIGTERM")) return void tell(`-${pgid}`); // nothing left
  if (ending.has(pgid)) return;
  hookExit();
  const t = setTimeout(() => {
    ending.delete(pgid);
    signalGroup(pgid, "SIGKILL");
    tell(`-${pgid}`);
  }, Math.max(0, graceMs | 0));
  t.unref?.();
  ending.set(pgid, t);
}

/** SIGKILL the group `pgid` now (a start cancelled, a server hung past its grace). */
function killGroup(pgid) {
  if (isWin || !pgid) return;
  live.delete(pgid);
  const t = ending.get(pgid);
  if (t) clearTimeout(t);
  ending.delete(pgid);
  signalGroup(pgid, "SIGKILL");
  tell(`-${pgid}`);
}

module.exports = { isWin, KILL_GRACE_MS, track, endGroup, killGroup, signalGroup, watchdogPid };

"use strict";
// The warm hook server: one process per user, project, installed hookwise and environment (the
// key js/warm-client.cjs derives), started detached by the first `hookwise hook <Event>` that
// found none. It keeps one engine warm — the same `createClaude` engine `hookwise mcp` keeps, with
// the vault index and its watcher — and answers the command hooks' payloads over a Unix socket,
// one JSON line each way. Transport only: the payload goes to the engine untouched, the answer
// comes back untouched.
//
// It answers only requests that carry the per-user secret and name its own project. While its
// engine is being made — at start, or again because a file its `init` read has changed
// (js/fresh.cjs) — a request waits up to HOOKWISE_WARM_WAIT_MS (3 s), then is answered `busy`
// and the hook decides cold. It exits when idle
// (HOOKWISE_WARM_IDLE_MS, default 20 minutes), when its project folder is deleted or replaced,
// when its socket is no longer its own (another server took over), and on SIGTERM/SIGINT. One
// server per key: the lock file (its pid) is taken with O_EXCL; a lock whose process is gone is
// stale and replaced, and so is a socket nobody listens on.

const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");
const crypto = require("node:crypto");
const { runtimeDir, secret, serverPaths, serverFor, serverProof, lockHolder, PROTOCOL, MAX_NOTE } = require("./warm-client.cjs");

/** Windows: a named pipe (js/warm-client.cjs), which has no inode to check and no file to
 * remove; it is gone when its server is. */
const WIN = process.platform === "win32";

const DEFAULT_IDLE_MS = 20 * 60 * 1000;
/** How long a request waits for an engine being made before the hook is told to decide cold
 * (below the client's timeout, js/warm-client.cjs). */
const DEFAULT_WAIT_MS = 3000;
/** How often the server checks its project folder and its socket. */
const CHECK_MS = 2000;
const MAX_LINE = 64 * 1024 * 1024;
/** The most payloads kept to replay (answered cold while the engine was not ready). */
const MAX_NOTES = 16;

function takeLock(lock) {
  for (let attempt = 0; attempt < 3; attempt++) {
    // written whole, then linked into place: a lock is never seen without its pid
    const tmp = `${lock}.${process.pid}`;
    try {
      fs.writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600 });
      fs.linkSync(tmp, lock);
      return true;
    } catch (e) {
      if (!e || e.code !== "EEXIST") return false;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    if (lockHolder(lock)) return false; // a live server holds it
    // stale: its process is gone. Removed only if it is still the file we judged stale.
    try {
      const st = fs.statSync(lock);
      if (!lockHolder(lock) && fs.statSync(lock).ino === st.ino) fs.unlinkSync(lock);
    } catch {
      /* someone else replaced it */
    }
  }
  return false;
}

function inode(p) {
  try {
    return fs.statSync(p).ino;
  } catch {
    return null;
  }
}

/**
 * Run the server for `project` (absolute). Resolves once it has stopped. Options are for tests.
 * @param {string} project
 * @param {object} [o]
 * @param {object} [o.env]
 * @param {number} [o.idleMs]
 * @param {(level: string, message: string) => void} [o.log]
 * @param {Array<{event: string, payload: string}>} [o.notes] payloads to replay first (the
 *   hook that started the server answered them in its own process)
 */
async function run(project, o = {}) {
  const env = o.env || process.env;
  const host = typeof o.host === "string" && o.host ? o.host : "claude-code";
  const log = o.log || (() => {});
  const dir = runtimeDir(env);
  if (!dir) return { why: "no private runtime folder" };
  const key = secret(dir);
  if (!key) return { why: "no secret" };
  const keyBuf = Buffer.from(key);
  const paths = serverPaths(dir, serverFor(project, host), env, key);
  // the name a client's `hello` is answered for (the pipe's; a socket's file name)
  const helloName = paths.pipe || path.basename(paths.socket);
  if (!takeLock(paths.lock)) return { why: "another server holds the lock" };
  const lockIno = inode(paths.lock);
  const projectIno = inode(project);
  const idleMs = o.idleMs || Number(env.HOOKWISE_WARM_IDLE_MS) || DEFAULT_IDLE_MS;
  const waitMs = Number(env.HOOKWISE_WARM_WAIT_MS) >= 0 && env.HOOKWISE_WARM_WAIT_MS !== undefined ? Number(env.HOOKWISE_WARM_WAIT_MS) : DEFAULT_WAIT_MS;

  // The engine: made on start, made again when an input of its init changed.
  const { createClaude } = require("./claude.cjs");
  const { watchInputs } = require("./fresh.cjs");
  let engine = null; // {claude, inputs, ready: boolean}
  // OpenTelemetry: one exporter for this server's engines, made on their first events (js/otel.cjs)
  const otel = require("./otel.cjs").lazySink(env);
  function makeEngine() {
    // The vault's index brought up to date on every call (from the watcher's changes): a cold
    // hook reads the vault as it is, so must the warm one (the default, 2 s, is for hosts that
    // keep one engine per session and accept that much).
    // the host's dialect; the governed project found from `project` as a cold hook finds it
    const claude = createClaude({ host, cwd: project, findRoot: true, env, log, options: { vaultRefreshMs: 0 }, telemetry: otel });
    const inputs = watchInputs(claude.hw);
    const e = { claude, inputs, ready: false, done: inputs.ready() };
    e.done.then(() => (e.ready = true));
    return e;
  }
  async function readyWithin(e, ms) {
    if (!e.ready) {
      let t;
      await Promise.race([e.done, new Promise((r) => (t = setTimeout(r, ms)))]);
      clearTimeout(t);
    }
    return e.ready && e === engine;
  }
  function renew(why) {
    log("info", `hookwise warm: a new engine (${why})`);
    const old = engine;
    engine = makeEngine();
    if (old) Promise.resolve(old.claude.dispose()).catch(() => {});
  }

  // Payloads hooks answered in their own process while the engine was not ready (the first hook,
  // which started this server; a hook told `busy`), of events whose session state later hooks
  // need (the dialect's `keep`: the model id, the session's start and concepts). Replayed into
  // the engine, in order and before any request is answered; their answers are not used.
  const notes = [];
  const note = (event, payload) => {
    if (typeof event === "string" && typeof payload === "string" && payload.length <= MAX_NOTE && notes.length < MAX_NOTES) notes.push({ event, payload });
  };
  for (const n of Array.isArray(o.notes) ? o.notes : []) note(n && n.event, n && n.payload);
  let replaying = Promise.resolve();
  const replay = (e) =>
    (replaying = replaying.then(async () => {
      while (notes.length && e === engine) {
        const n = notes.shift();
        let payload = null;
        try {
          payload = JSON.parse(n.payload);
        } catch {
          continue;
        }
        try {
          await e.claude.hook(n.event, payload, null);
        } catch (err) {
          log("warn", `hookwise warm: a replayed ${n.event} failed: ${(err && err.message) || err}`);
        }
      }
    }));

  let stopping = null;
  let idleTimer = null;
  let inFlight = 0;
  const touch = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => inFlight === 0 && stop("idle"), idleMs);
  };

  async function answer(m) {
    if (!m || typeof m !== "object" || m.v !== PROTOCOL || typeof m.id !== "string") return { id: "", error: "bad request" };
    const given = Buffer.from(typeof m.secret === "string" ? m.secret : "");
    if (given.length !== keyBuf.length || !crypto.timingSafeEqual(given, keyBuf)) return { id: m.id, error: "bad secret" };
    if (m.project !== project) return { id: m.id, error: "another project" };
    if ((m.host || "claude-code") !== host) return { id: m.id, error: "another host" };
    if (typeof m.event !== "string" || typeof m.payload !== "string") return { id: m.id, error: "bad request" };
    // An engine being made (at start, or again after a change) is waited for a little: the
    // hooks that go cold meanwhile would themselves write what makes it stale again (the
    // enforcement state), and a small project's engine is ready sooner than a cold hook.
    const busy = () => {
      // the hook answers cold; what its event says about the session is replayed here
      if (m.keep === true) note(m.event, m.payload);
      return { id: m.id, busy: true };
    };
    if (!(await readyWithin(engine, waitMs))) return busy();
    const why = engine.inputs.changed();
    if (why) {
      if (!engine.inputs.untrusted()) renew(`changed: ${why}`);
      if (!(await readyWithin(engine, waitMs)) || engine.inputs.untrusted()) return busy();
    }
    await replay(engine);
    // read as the cold hook reads it (what cannot be read is said: the core blocks it under policy)
    let payload = null;
    let unreadable = m.payload.trim() === "" ? "empty" : null;
    if (!unreadable) {
      try {
        payload = JSON.parse(m.payload);
      } catch {
        unreadable = "not JSON";
      }
    }
    const r = await engine.claude.hook(m.event, payload, unreadable);
    // no answer from the core: the hook decides cold (it fails the same way, or better)
    if (!r || r.ok !== true || typeof r.text !== "string") return { id: m.id, error: (r && r.text) || "no answer" };
    return { id: m.id, ok: true, text: r.text, ...(r.exit ? { exit: r.exit, err: r.err } : {}) };
  }

  const server = net.createServer((sock) => {
    let buf = "";
    let hellos = 0;
    sock.setEncoding("utf8");
    sock.on("error", () => {});
    sock.on("data", (chunk) => {
      if (buf === null) return;
      buf += chunk;
      let nl = buf.indexOf("\n");
      let m = null;
      for (;;) {
        if (nl === -1) {
          if (buf.length > MAX_LINE) sock.destroy();
          return;
        }
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        m = null;
        try {
          m = JSON.parse(line);
        } catch {
          /* answered as a bad request */
        }
        // a client's `hello` (Windows: it checks this is its user's server before it sends the
        // secret): the proof that this server knows the secret, once a connection
        if (m && typeof m === "object" && m.v === PROTOCOL && typeof m.hello === "string" && /^[0-9a-f]{32}$/.test(m.hello) && hellos++ === 0) {
          sock.write(JSON.stringify({ proof: serverProof(key, helloName, m.hello) }) + "\n");
          nl = buf.indexOf("\n");
          continue;
        }
        break;
      }
      buf = null;
      inFlight++;
      touch();
      answer(m)
        .catch((e) => ({ id: (m && m.id) || "", error: String((e && e.message) || e) }))
        .then((r) => {
          inFlight--;
          touch();
          if (!sock.destroyed) sock.end(JSON.stringify(r) + "\n");
        });
    });
  });

  // The socket: one that exists under our lock is stale (its server is gone): replaced.
  if (!WIN) {
    try {
      fs.unlinkSync(paths.socket);
    } catch {
      /* none */
    }
  }
  const listening = await new Promise((resolve) => {
    server.once("error", (e) => resolve(e));
    server.listen(paths.socket, () => resolve(null));
  });
  if (listening) {
    try {
      fs.unlinkSync(paths.lock);
    } catch {
      /* gone */
    }
    return { why: `cannot listen: ${listening.code || listening.message}` };
  }
  if (!WIN) {
    try {
      fs.chmodSync(paths.socket, 0o600);
    } catch {
      /* the folder's 0700 still keeps others out */
    }
  }
  // (a pipe is not looked at: stat would connect to it)
  const socketIno = WIN ? null : inode(paths.socket);
  engine = makeEngine();
  engine.done.then(() => replay(engine)).catch(() => {});
  touch();

  let resolveStopped;
  const stopped = new Promise((r) => (resolveStopped = r));
  const check = setInterval(() => {
    if (inode(project) !== projectIno) stop("the project folder is gone");
    else if (!WIN && inode(paths.socket) !== socketIno) stop("the socket is no longer ours");
    else if (inode(paths.lock) !== lockIno) stop("the lock is no longer ours");
  }, CHECK_MS);

  function stop(why) {
    if (stopping) return stopping;
    log("info", `hookwise warm: stopping (${why})`);
    stopping = (async () => {
      clearInterval(check);
      clearTimeout(idleTimer);
      server.close();
      // only what is still ours is removed: a successor's socket and lock stay
      if (!WIN && inode(paths.socket) === socketIno) fs.rmSync(paths.socket, { force: true });
      if (inode(paths.lock) === lockIno) fs.rmSync(paths.lock, { force: true });
      try {
        await Promise.race([Promise.all([engine && engine.claude.dispose(), otel.shutdown(1500)]), new Promise((r) => setTimeout(r, 2000).unref())]);
      } catch {
        /* its children are ended with it */
      }
      resolveStopped({ why });
    })();
    return stopping;
  }
  const onSignal = (sig) => stop(sig).then(() => process.exit(0));
  if (o.signals !== false) {
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  }
  return { stop, stopped, paths, get engine() { return engine; } };
}

if (require.main === module) {
  const project = process.argv[2];
  const host = process.argv[3] || "claude-code";
  const debug = !!process.env.HOOKWISE_DEBUG;
  const log = (level, message) => {
    if (debug) process.stderr.write(`hookwise ${level}: ${message}\n`);
  };
  if (!project || !path.isAbsolute(project)) process.exit(2);
  // the payload handed over by the hook that started this server (js/warm-client.cjs), if any
  const handed = new Promise((resolve) => {
    if (process.stdin.isTTY) return resolve([]);
    let text = "";
    const done = () => {
      const out = [];
      for (const line of text.split("\n")) {
        try {
          const n = JSON.parse(line);
          if (n && typeof n === "object") out.push(n);
        } catch {
          /* not a note */
        }
      }
      resolve(out);
    };
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (c) => {
      text += c;
      if (text.length > MAX_NOTE + 4096) {
        text = "";
        process.stdin.destroy();
        resolve([]);
      }
    });
    process.stdin.on("end", done);
    process.stdin.on("error", () => resolve([]));
  });
  handed.then((notes) => run(project, { host, log, notes })).then(async (s) => {
    if (!s || !s.stopped) process.exit(0);
    await s.stopped;
    // a watcher, a timer or a child left behind must not keep the server alive
    process.exit(0);
  }, () => process.exit(1));
}

module.exports = { run, DEFAULT_IDLE_MS };

"use strict";
// The command hook's side of the warm hook server (js/warm-server.cjs): `hookwise hook <Event>`
// hands its payload, untouched, to the project's warm server over a Unix socket and prints the
// answer. Transport only, and never the only way: no server, a server still starting, one that
// does not answer in time or answers anything but a well-formed answer to this very request —
// the hook decides cold, in its own process, exactly as without a warm server (governance and
// enforcement stay fail-closed there). A missing server is started, detached, for the next call.
//
// Isolation: the socket lives in a per-user folder (mode 0700, owned by the user, not a symlink;
// anything else and the warm path is off), its name is a hash of the user, the project, the
// installed hookwise and the environment the core reads, and each request carries the per-user
// secret kept in that folder (mode 0600). The server checks both.
//
// Windows: a named pipe, `\\.\pipe\hookwise-<sha256(secret, key)>` — a name only a holder of the
// secret can work out — and the per-user folder is `%LOCALAPPDATA%\hookwise` (the profile's
// ACL: this user, SYSTEM, administrators). Pipe names are one namespace for every user of the
// machine, so before it sends anything the client makes the server prove it knows the secret
// (`hello`: an HMAC of a fresh nonce and the pipe's name); a pipe another user created under
// that name fails the proof and the hook decides cold. The server refuses a request without the
// secret, as on POSIX. docs/warm-hooks.md#windows.
//
// Only node: built-ins are loaded here: this runs in every hook process, before anything else.

const fs = require("node:fs");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");
// node:crypto (~3 ms to load, a tenth of Node's own start) only where a secret is made: the
// rest needs no cryptography (the socket's name is a name, the request id a tag)
const crypto = () => require("node:crypto");

/** Protocol version of a request line; a server speaking another answers nothing we accept. */
const PROTOCOL = 1;
/** How long a hook waits for a running server's answer before it decides cold. */
const DEFAULT_TIMEOUT_MS = 5000;
/** The environment the core reads (config.rs, discovery.rs, telemetry.rs), the exporter's
 * (OTEL_*) and the confined shell's temp and cache folders (TMPDIR, XDG_*): a different one is
 * another server. crates/hookwise-native/src/key.rs keeps the same list. */
const ENV_KEYS = /^(HOOKWISE_|MAENIFOLD_|OTEL_)|^(PATH|HOME|COPILOT_HOME|TMPDIR|XDG_CACHE_HOME|XDG_RUNTIME_DIR)$/;

const uid = () => (typeof process.getuid === "function" ? process.getuid() : -1);
const WIN = process.platform === "win32";

/**
 * The per-user folder of warm servers: `$XDG_RUNTIME_DIR/hookwise` when that is the user's own,
 * else `<tmpdir>/hookwise-<uid>`. Created 0700; refused (null) when it exists with another owner,
 * looser permissions or as a symlink — another user could then reach or replace the sockets.
 */
function runtimeDir(env = process.env) {
  if (WIN) return winRuntimeDir(env);
  const me = uid();
  const candidates = [];
  if (env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)) candidates.push(path.join(env.XDG_RUNTIME_DIR, "hookwise"));
  candidates.push(path.join(os.tmpdir(), `hookwise-${me}`));
  for (const dir of candidates) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if (!e || e.code !== "EEXIST") continue;
    }
    try {
      const st = fs.lstatSync(dir);
      if (st.isDirectory() && !st.isSymbolicLink() && st.uid === me && (st.mode & 0o077) === 0) return dir;
    } catch {
      /* next candidate */
    }
  }
  return null;
}

/**
 * Windows: `%LOCALAPPDATA%\hookwise`, a folder (not a link or junction) in the user's profile,
 * whose ACL the profile gives it (Node cannot read an ACL: the profile's is the guarantee).
 */
function winRuntimeDir(env) {
  const base = env.LOCALAPPDATA;
  if (!base || !path.win32.isAbsolute(base) || !/^[A-Za-z]:\\/.test(base)) return null;
  const dir = path.win32.join(base, "hookwise");
  try {
    fs.mkdirSync(dir);
  } catch (e) {
    if (!e || e.code !== "EEXIST") return null;
  }
  try {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && !st.isSymbolicLink() ? dir : null;
  } catch {
    return null;
  }
}

/** The per-user secret (created once, 0600, in `dir`); null when it cannot be read safely. */
function secret(dir) {
  const file = path.join(dir, "secret");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      // Windows: no O_NOFOLLOW; the entry itself must be a plain file (not a link)
      if (WIN && !fs.lstatSync(file).isFile()) return null;
      const fd = fs.openSync(file, fs.constants.O_RDONLY | (WIN ? 0 : fs.constants.O_NOFOLLOW));
      try {
        const st = fs.fstatSync(fd);
        if (!st.isFile() || (!WIN && (st.uid !== uid() || (st.mode & 0o077) !== 0))) return null;
        const s = fs.readFileSync(fd, "utf8").trim();
        return /^[0-9a-f]{64}$/.test(s) ? s : null;
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      if (!e || e.code !== "ENOENT") return null;
    }
    try {
      const tmp = path.join(dir, `secret.${process.pid}.${crypto().randomBytes(4).toString("hex")}`);
      fs.writeFileSync(tmp, crypto().randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
      try {
        fs.linkSync(tmp, file); // atomic: the first writer wins, everyone reads the same secret
      } catch {
        /* another process won */
      }
      fs.unlinkSync(tmp);
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * 128 bits of a string (four 32-bit multiply-xorshift lanes over its UTF-16 units): a name, not
 * a secret — the folder's mode and the per-user secret keep other users out, and every input
 * is the user's own.
 */
function hash128(s) {
  let a = 0x9e3779b1, b = 0x85ebca77, c = 0xc2b2ae3d, d = 0x27d4eb2f;
  for (let i = 0; i < s.length; i++) {
    const k = s.charCodeAt(i);
    a = Math.imul(a ^ k, 0x85ebca6b);
    b = Math.imul(b ^ k, 0xc2b2ae35);
    c = Math.imul(c ^ k, 0x27d4eb2d);
    d = Math.imul(d ^ k, 0x165667b1);
    a ^= b >>> 15; b ^= c >>> 13; c ^= d >>> 16; d ^= a >>> 11;
  }
  const fin = (x, y) => {
    x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) ^ y;
    x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
    return ((x ^ (x >>> 16)) >>> 0).toString(16).padStart(8, "0");
  };
  return fin(a, s.length) + fin(b, d) + fin(c, a) + fin(d, b);
}

/** What makes two hook processes answerable by the same server. The native client
 * (crates/hookwise-native/src/key.rs) computes this very key from the same inputs: change both
 * (tests/js/native-hook.test.mjs runs the two side by side and compares). */
function serverKey(project, env = process.env) {
  let k = `hookwise-warm\0${PROTOCOL}\0${uid()}\0${project}\0${__dirname}\0`;
  // the installed hookwise: an upgrade is another server (the old one idles out)
  for (const f of ["warm-server.cjs", "claude.cjs", "core.cjs", "hookwise_bg.wasm", "policy/hookwise_bg.wasm"]) {
    try {
      const st = fs.statSync(path.join(__dirname, f));
      k += `${f}:${st.size}:${st.mtimeMs}\0`;
    } catch {
      k += `${f}:-\0`;
    }
  }
  for (const e of Object.keys(env).filter((e) => ENV_KEYS.test(e)).sort()) k += `${e}=${env[e]}\0`;
  return hash128(k);
}

/** The socket, lock and log paths of the server for `project`. */
/** What a server is keyed by: its project and the host whose hooks it answers. */
function serverFor(project, host) {
  return host === "claude-code" ? project : `${project}\0${host}`;
}

/**
 * The socket (Windows: the named pipe), lock and key of the server for `project`. `secretKey`:
 * the per-user secret, which names a Windows pipe (a name another user cannot work out).
 */
function serverPaths(dir, project, env, secretKey) {
  const key = serverKey(project, env);
  const lock = path.join(dir, `${key}.lock`);
  if (WIN) {
    const pipe = pipeName(key, secretKey);
    return { key, pipe, socket: `\\\\.\\pipe\\${pipe}`, lock };
  }
  return { key, socket: path.join(dir, `${key}.sock`), lock };
}

/** A Windows pipe's name: `hookwise-` and 128 bits of SHA-256 of the secret and the key
 * (crates/hookwise-native/src/key.rs `pipe_name`). */
function pipeName(key, secretKey) {
  return "hookwise-" + crypto().createHash("sha256").update(`hookwise-pipe\0${secretKey}\0${key}`).digest("hex").slice(0, 32);
}

/** The server's answer to a client's `hello`: HMAC-SHA256, keyed by the secret, of the pipe's
 * (socket's) name and the client's nonce (key.rs `server_proof`). */
function serverProof(secretKey, name, nonce) {
  return crypto().createHmac("sha256", secretKey).update(`hookwise-warm-server\0${name}\0${nonce}`).digest("hex");
}

/** The pid in a lock file if that process is alive and is a warm server, else 0. */
function lockHolder(lock) {
  let pid = 0;
  try {
    pid = Number.parseInt(fs.readFileSync(lock, "utf8"), 10) || 0;
  } catch {
    return 0;
  }
  if (pid <= 0) return 0;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if (!e || e.code !== "EPERM") return 0;
  }
  try {
    // Linux: a pid reused by another program is not our server
    if (!fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("warm-server")) return 0;
  } catch {
    /* no /proc: trust the pid */
  }
  return pid;
}

/** The most of a payload handed to a server to replay (a session's start or a prompt). */
const MAX_NOTE = 1024 * 1024;

/**
 * Start the server for `project`, detached (it outlives this hook); never throws. `note`
 * (`{event, payload}`): the payload of a hook answered in its own process whose session state
 * later hooks need (the dialect's `keep` events), handed to the new server on its stdin to
 * replay before it answers anything.
 */
function startServer(project, host, env, paths, note = null) {
  try {
    if (lockHolder(paths.lock)) return false; // starting or running already
    const { spawn } = require("node:child_process");
    const give = note && typeof note.payload === "string" && note.payload.length <= MAX_NOTE;
    const child = spawn(process.execPath, [path.join(__dirname, "warm-server.cjs"), project, host], {
      detached: true,
      stdio: [give ? "pipe" : "ignore", "ignore", "ignore"],
      env,
      cwd: project,
      windowsHide: true,
    });
    child.on("error", () => {});
    if (give) {
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify({ event: String(note.event), payload: note.payload }) + "\n");
    }
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** Wait until `socket` exists (a server that is starting listens first), up to `ms`. */
async function socketWithin(socket, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (fs.existsSync(socket)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

/**
 * Ask the warm server of `project` to answer hook `event` with the payload `raw` (the hook's
 * stdin, as read). Resolves `{ok, text}` — the answer the server's engine gave — or null: decide
 * cold (the reason is in `why` of the `{null, why}` pair when `o.explain` is set). Never rejects.
 * @param {object} o
 * @param {string} o.event
 * @param {string} o.raw
 * @param {string} o.project  the project's folder, absolute
 * @param {object} [o.env]
 * @param {number} [o.timeoutMs]
 * @param {boolean} [o.start] start a server when none runs (default true)
 * @param {boolean} [o.keep] the event holds session state later hooks need: answered cold while
 *   the server is not ready, its payload is handed to the server to replay (at its start, or by
 *   the server itself when it answers `busy`)
 */
async function askWarm(o) {
  let r = await ask(o);
  // a server that is starting (its lock held, its socket not yet there): wait for its socket
  // once, and ask it (it lets the request wait for its engine)
  const within = Math.min(2000, o.timeoutMs || DEFAULT_TIMEOUT_MS);
  if (r.starting && WIN) {
    // a pipe cannot be looked at without connecting to it: ask again until it is there
    const until = Date.now() + within;
    while (r.why === "ENOENT" && Date.now() < until) {
      await new Promise((res) => setTimeout(res, 50));
      r = await ask({ ...o, start: false });
    }
  } else if (r.starting && (await socketWithin(r.starting, within))) r = await ask({ ...o, start: false });
  return o.explain ? { answer: r.answer, why: r.why } : r.answer;
}

function ask({ event, raw, project, host = "claude-code", env = process.env, timeoutMs, start = true, keep = false }) {
  const none = (why) => ({ answer: null, why });
  if (!project || !path.isAbsolute(project)) return Promise.resolve(none("no project"));
  const dir = runtimeDir(env);
  if (!dir) return Promise.resolve(none("no private runtime folder"));
  const key = secret(dir);
  if (!key) return Promise.resolve(none("no secret"));
  // one server a project and host: each host's hooks are answered in its own dialect
  const paths = serverPaths(dir, serverFor(project, host), env, key);
  const limit = Number(env.HOOKWISE_WARM_TIMEOUT_MS) > 0 ? Number(env.HOOKWISE_WARM_TIMEOUT_MS) : timeoutMs || DEFAULT_TIMEOUT_MS;
  // a tag that matches the answer to this request (the secret, not the id, is what authenticates)
  const id = `${process.pid.toString(36)}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  return new Promise((resolve) => {
    let done = false;
    let buf = "";
    const sock = net.createConnection(paths.socket);
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => {
      // Connected but silent: a hung server. It is ended so that the next hook starts a new one.
      const pid = lockHolder(paths.lock);
      if (pid) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone meanwhile */
        }
      }
      finish(none("timeout"));
    }, limit);
    sock.on("error", (e) => {
      const code = (e && e.code) || "error";
      if (start && (code === "ENOENT" || code === "ECONNREFUSED")) {
        if (!startServer(project, host, env, paths, keep ? { event, payload: raw } : null) && lockHolder(paths.lock)) return finish({ ...none(code), starting: paths.socket });
      }
      finish(none(code));
    });
    const request = () => sock.write(JSON.stringify({ v: PROTOCOL, id, secret: key, project, host, event: String(event), payload: raw, ...(keep ? { keep: true } : {}) }) + "\n");
    // Windows: the pipe's name is one every user may create; the server proves it knows the
    // secret before anything (the secret, the payload) is sent to it
    let nonce = WIN ? crypto().randomBytes(16).toString("hex") : null;
    sock.on("connect", () => {
      if (nonce) sock.write(JSON.stringify({ v: PROTOCOL, hello: nonce }) + "\n");
      else request();
    });
    sock.setEncoding("utf8");
    sock.on("data", (chunk) => {
      buf += chunk;
      const nl = buf.indexOf("\n");
      if (nl === -1) {
        if (buf.length > 64 * 1024 * 1024) finish(none("answer too long"));
        return;
      }
      let m;
      try {
        m = JSON.parse(buf.slice(0, nl));
      } catch {
        return finish(none("garbage"));
      }
      if (nonce) {
        const want = Buffer.from(serverProof(key, paths.pipe, nonce));
        const got = Buffer.from(m && typeof m.proof === "string" ? m.proof : "");
        if (got.length !== want.length || !crypto().timingSafeEqual(got, want)) return finish(none("not our server"));
        nonce = null;
        buf = buf.slice(nl + 1);
        return request();
      }
      // Only a well-formed answer to this request counts; anything else is decided cold.
      if (!m || typeof m !== "object" || m.id !== id) return finish(none("garbage"));
      if (m.busy) return finish(none("busy"));
      if (m.ok !== true || typeof m.text !== "string") return finish(none(typeof m.error === "string" ? m.error : "garbage"));
      // a block by exit code (Letta Code): the code and stderr as the server gave them
      const exit = Number.isInteger(m.exit) && m.exit > 0 && m.exit < 256 ? { exit: m.exit, err: typeof m.err === "string" ? m.err : "" } : {};
      finish({ answer: { ok: true, text: m.text, ...exit }, why: "warm" });
    });
    sock.on("end", () => finish(none("closed")));
  });
}

module.exports = { serverFor, askWarm, runtimeDir, secret, serverKey, serverPaths, serverProof, pipeName, lockHolder, startServer, PROTOCOL, DEFAULT_TIMEOUT_MS, MAX_NOTE };

//! The warm command-hook client: on the warm path, what js/hook.cjs with js/warm-client.cjs
//! does — hand the hook's payload, untouched, to the project's warm server (js/warm-server.cjs)
//! under the same isolation rules (the per-user 0700 folder and its 0600 secret; the socket
//! named by the key of [`crate::key`]) and print its answer. Transport only: it decides nothing.
//!
//! `hookwise-native hook [--dist DIR] [--host HOST] <Event>` (dist/hook.sh runs it with the
//! installed hookwise's `dist/`). Everything but a well-formed warm answer to this very request
//! goes to the Node path, `node <dist>/hook.cjs [--host HOST] <Event>`, which decides exactly as
//! it does without this binary (cold, fail-closed under governance and enforcement):
//! - before the payload is read (no server listening, no private folder or secret, another
//!   version of hookwise, an environment or path that is not text, `HOOKWISE_WARM=0`): this
//!   process becomes Node (exec), stdin untouched — Node then starts the server as it always did;
//! - after (busy, an error, garbage, another request's id, a closed connection, a timeout — a
//!   hung server is ended first, as the JS client does): Node is started with the payload as
//!   read on its stdin and told the warm path was tried (`--warm-tried WHY`: it answers cold at
//!   once), its stdout and stderr this process's, its exit code this process's.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::key;
use crate::sys;

/// Exit code of a usage error (no installed hookwise to hand over to).
pub const USAGE: i32 = 2;
/// `MAX_INPUT` of js/hook.cjs: past it the Node path answers as for unreadable input.
const MAX_INPUT: usize = 64 * 1024 * 1024;
/// `DEFAULT_TIMEOUT_MS` of js/warm-client.cjs.
const DEFAULT_TIMEOUT_MS: u64 = 5000;

/// The parsed command line.
struct Args {
    dist: PathBuf,
    host: Option<String>,
    event: String,
}

/// `[--dist DIR] [--host HOST] <Event>`, or None.
fn parse(args: &[OsString]) -> (Option<PathBuf>, Option<Args>) {
    let mut dist: Option<PathBuf> = None;
    let mut host: Option<String> = None;
    let mut rest: Vec<String> = Vec::new();
    let mut i = 0;
    let mut ok = true;
    while i < args.len() {
        let a = args[i].to_str();
        match a {
            Some("--dist") if i + 1 < args.len() => {
                dist = Some(PathBuf::from(&args[i + 1]));
                i += 2;
            }
            Some("--host") if i + 1 < args.len() => match args[i + 1].to_str() {
                Some(h) => {
                    host = Some(h.to_string());
                    i += 2;
                }
                None => {
                    ok = false;
                    i += 2;
                }
            },
            Some(s) => {
                rest.push(s.to_string());
                i += 1;
            }
            None => {
                ok = false;
                i += 1;
            }
        }
    }
    let dist = dist.or_else(dist_beside_binary);
    let parsed = match (ok, &dist, rest.as_slice()) {
        (true, Some(d), [event]) if !event.starts_with('-') => Some(Args {
            dist: d.clone(),
            host,
            event: event.clone(),
        }),
        _ => None,
    };
    (dist, parsed)
}

/// The installed hookwise's dist/ from this binary's place: `node_modules/@hookwise/cli-…/bin/`
/// beside `node_modules/hookwise/`, or nested in `node_modules/hookwise/node_modules/`.
fn dist_beside_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let scope = exe.parent()?.parent()?.parent()?; // node_modules/@hookwise
    let nm = scope.parent()?; // node_modules
    [nm.join("hookwise/dist"), nm.parent()?.join("dist")]
        .into_iter()
        .find(|d| d.join("hook.cjs").is_file())
}

/// The Node path: `node <dist>/hook.cjs [--warm-tried WHY] [--host HOST] <Event>`.
fn node(dist: &Path, host: Option<&str>, event: &str, tried: Option<&str>) -> Command {
    let mut c = Command::new("node");
    c.arg(dist.join("hook.cjs"));
    if let Some(why) = tried {
        c.args(["--warm-tried", why]);
    }
    if let Some(h) = host {
        c.args(["--host", h]);
    }
    c.arg(event);
    c
}

/// Become the Node path, stdin untouched. Returns only when Node cannot be started.
fn exec_node(dist: &Path, raw_args: &[OsString], args: Option<&Args>) -> i32 {
    let c = match args {
        Some(a) => node(dist, a.host.as_deref(), &a.event, None),
        None => {
            // anything but `[--host HOST] <Event>`: hook.cjs hands it to the whole CLI, which
            // says what is wrong
            let mut c = Command::new("node");
            c.arg(dist.join("hook.cjs"));
            let mut skip = false;
            for a in raw_args {
                if skip {
                    skip = false;
                    continue;
                }
                if a.to_str() == Some("--dist") {
                    skip = true;
                    continue;
                }
                c.arg(a);
            }
            c
        }
    };
    sys::become_cmd(c)
}

/// The Node path with the payload already read, told why the warm path did not answer.
fn relay_node(a: &Args, payload: &[u8], why: &str) -> i32 {
    let mut c = node(&a.dist, a.host.as_deref(), &a.event, Some(why));
    c.stdin(Stdio::piped());
    let mut child = match c.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("hookwise: cannot start node: {e}");
            return 127;
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        // a child that exits without reading all of it is its own answer
        let _ = stdin.write_all(payload);
    }
    match child.wait() {
        Ok(s) => sys::code(s),
        Err(_) => 1,
    }
}

/// The host's dialect as dist/dialects.json gives it: (project-folder variable, keep events).
fn dialect(dist: &Path, host: &str) -> Option<(String, Vec<String>)> {
    let text = std::fs::read(dist.join("dialects.json")).ok()?;
    let all: serde_json::Value = serde_json::from_slice(&text).ok()?;
    let d = all.get(host)?;
    let var = d.get("projectDirVar")?.as_str()?.to_string();
    let keep = d
        .get("keep")
        .and_then(|k| k.as_array())
        .map(|k| {
            k.iter()
                .filter_map(|e| e.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Some((var, keep))
}

/// The installed hookwise's version (its package.json beside dist/).
fn installed_version(dist: &Path) -> Option<String> {
    let text = std::fs::read(dist.parent()?.join("package.json")).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
    v.get("version")?.as_str().map(str::to_string)
}

/// The environment as text, or None when any of it is not (Node would read it otherwise).
fn env_text() -> Option<Vec<(String, String)>> {
    std::env::vars_os()
        .map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// Where the warm path stands once the socket is known.
struct Warm {
    socket: PathBuf,
    /// Windows: the pipe's name, for which the server must prove it knows the secret
    hello: Option<String>,
    lock: PathBuf,
    project: String,
    host: String,
    secret: String,
    keep: bool,
    timeout: Duration,
}

/// Everything the warm path needs, or why not (then Node, stdin untouched).
fn prepare(a: &Args) -> Result<Warm, &'static str> {
    if std::env::var_os("HOOKWISE_WARM").is_some_and(|v| v == "0") {
        return Err("off");
    }
    if installed_version(&a.dist).as_deref() != Some(env!("CARGO_PKG_VERSION")) {
        return Err("another version");
    }
    let host = a.host.clone().unwrap_or_else(|| "claude-code".to_string());
    let (var, keep) = dialect(&a.dist, &host).ok_or("unknown host")?;
    // the project as js/hook.cjs takes it: the host's project-folder variable (absolute), else
    // this process's folder; the server walks up to the governed project as a cold hook does
    let given = (!var.is_empty())
        .then(|| std::env::var(&var).ok())
        .flatten()
        .filter(|v| sys::absolute(v));
    let project = match given {
        Some(p) => p,
        None => std::env::current_dir()
            .ok()
            .and_then(|p| p.into_os_string().into_string().ok())
            .ok_or("no project")?,
    };
    let dir = sys::runtime_dir().ok_or("no private runtime folder")?;
    let secret = sys::secret(&dir).ok_or("no secret")?;
    // Node's __dirname of warm-client.cjs: the real path of dist/
    let dist = sys::real_dist(&a.dist).ok_or("no dist")?;
    let env = env_text().ok_or("environment not text")?;
    let limit = std::env::var("HOOKWISE_WARM_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| *v > 0.0 && v.is_finite())
        .map_or(DEFAULT_TIMEOUT_MS, |v| v.ceil() as u64);
    let k = key::server_key(&key::Inputs {
        uid: sys::key_uid(),
        server: key::server_for(&project, &host),
        dist: &dist,
        env,
    })
    .ok_or("dist not text")?;
    let (socket, hello) = sys::socket(&dir, &k, &secret);
    Ok(Warm {
        socket,
        hello,
        lock: dir.join(format!("{k}.lock")),
        keep: keep.contains(&a.event),
        project,
        host,
        secret,
        timeout: Duration::from_millis(limit),
    })
}

/// stdin, whole.
fn read_input() -> Vec<u8> {
    let mut buf = Vec::new();
    // unreadable: as an empty payload (js/hook.cjs)
    let _ = std::io::stdin().lock().read_to_end(&mut buf);
    buf
}

/// A tag matching the answer to this request (the secret, not the id, authenticates).
fn request_id() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}-{:x}-n", std::process::id(), t)
}

/// One line from the server (without its newline), read by `deadline`.
fn read_line(
    w: &Warm,
    sock: &mut sys::Conn,
    buf: &mut Vec<u8>,
    deadline: Instant,
) -> Result<Vec<u8>, String> {
    let mut chunk = [0u8; 64 * 1024];
    loop {
        if let Some(i) = buf.iter().position(|&b| b == b'\n') {
            let line = buf[..i].to_vec();
            buf.drain(..=i);
            return Ok(line);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timeout(w));
        }
        sys::limit(sock, left);
        match sock.read(&mut chunk) {
            Ok(0) => return Err("closed".into()),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > MAX_INPUT {
                    return Err("answer too long".into());
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(timeout(w))
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("read: {}", e.kind())),
        }
    }
}

/// A line to the server.
fn write_line(sock: &mut sys::Conn, v: &serde_json::Value) -> Result<(), String> {
    let mut line = serde_json::to_vec(v).map_err(|_| "request".to_string())?;
    line.push(b'\n');
    sock.write_all(&line)
        .map_err(|e| format!("write: {}", e.kind()))
}

/// A fresh nonce for `hello` (128 bits from the system's generator through the standard
/// library's randomly keyed hasher, and the time and pid: unpredictable to another user, which
/// is all a nonce needs here).
fn nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::new();
    for lane in 0..2u8 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u8(lane);
        h.write_u32(std::process::id());
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

/// Ask the server: Ok(answer text) or Err(why).
fn ask(w: &Warm, mut sock: sys::Conn, event: &str, payload: &str) -> Result<String, String> {
    let id = request_id();
    let deadline = Instant::now() + w.timeout;
    sys::limit(&sock, w.timeout);
    let mut buf: Vec<u8> = Vec::new();
    // Windows: the pipe's name is one any user may create; the server proves it knows the
    // secret before anything (the secret, the payload) is sent to it
    if let Some(name) = &w.hello {
        let n = nonce();
        write_line(
            &mut sock,
            &serde_json::json!({"v": key::PROTOCOL, "hello": n}),
        )?;
        let line = read_line(w, &mut sock, &mut buf, deadline)?;
        let m: serde_json::Value =
            serde_json::from_slice(&line).map_err(|_| "garbage".to_string())?;
        let proof = m.get("proof").and_then(|p| p.as_str()).unwrap_or("");
        if !key::same(proof, &key::server_proof(&w.secret, name, &n)) {
            return Err("not our server".into());
        }
    }
    let mut req = serde_json::json!({
        "v": key::PROTOCOL, "id": id, "secret": w.secret, "project": w.project,
        "host": w.host, "event": event, "payload": payload,
    });
    if w.keep {
        req["keep"] = serde_json::Value::Bool(true);
    }
    write_line(&mut sock, &req)?;
    let line = read_line(w, &mut sock, &mut buf, deadline)?;
    let m: serde_json::Value = serde_json::from_slice(&line).map_err(|_| "garbage".to_string())?;
    // only a well-formed answer to this request counts
    if !m.is_object() || m.get("id").and_then(|v| v.as_str()) != Some(id.as_str()) {
        return Err("garbage".into());
    }
    if m.get("busy").is_some_and(truthy) {
        return Err("busy".into());
    }
    match (m.get("ok"), m.get("text").and_then(|t| t.as_str())) {
        (Some(serde_json::Value::Bool(true)), Some(text)) => Ok(text.to_string()),
        _ => Err(m
            .get("error")
            .and_then(|e| e.as_str())
            .unwrap_or("garbage")
            .to_string()),
    }
}

/// [`ask`] within the timeout: on POSIX the socket's own timeouts bound it; a Windows pipe
/// opened synchronously has none, so the exchange runs on a thread that is given up on (a hung
/// server is ended) when the time is over.
fn ask_within(w: Warm, sock: sys::Conn, event: &str, payload: &str) -> Result<String, String> {
    if cfg!(unix) {
        return ask(&w, sock, event, payload);
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let limit = w.timeout;
    let lock = w.lock.clone();
    let (event, payload) = (event.to_string(), payload.to_string());
    std::thread::spawn(move || {
        let _ = tx.send(ask(&w, sock, &event, &payload));
    });
    match rx.recv_timeout(limit + Duration::from_millis(50)) {
        Ok(r) => r,
        Err(_) => {
            sys::end_server(&lock);
            Err("timeout".into())
        }
    }
}

/// JavaScript truthiness of a JSON value (`if (m.busy)`).
fn truthy(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Null => false,
        serde_json::Value::Bool(b) => *b,
        serde_json::Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        serde_json::Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// Connected but silent: a hung server, ended so that the next hook starts a new one.
fn timeout(w: &Warm) -> String {
    sys::end_server(&w.lock);
    "timeout".into()
}

/// `HOOKWISE_NATIVE_TRACE=<file>`: one line a hook appended there — `warm <Event>` or
/// `node <Event> <why>` — so that a run of a real host shows which hooks this client answered
/// (diagnostics; the file is the user's, written only when they name it).
fn trace(event: &str, what: &str) {
    if let Some(f) = std::env::var_os("HOOKWISE_NATIVE_TRACE").filter(|f| !f.is_empty()) {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(f)
        {
            let _ = f.write_all(format!("{what} {event}\n").as_bytes());
        }
    }
}

pub fn run(raw: &[OsString]) -> i32 {
    let (dist, args) = parse(raw);
    let Some(dist) = dist else {
        eprintln!("hookwise-native hook: no installed hookwise found (give --dist <node_modules/hookwise/dist>)");
        return USAGE;
    };
    let Some(a) = args else {
        return exec_node(&dist, raw, None);
    };
    let w = match prepare(&a) {
        Ok(w) => w,
        Err(why) => {
            if std::env::var_os("HOOKWISE_DEBUG").is_some_and(|v| !v.is_empty()) {
                eprintln!("hookwise debug: native: to node ({why})");
            }
            trace(&a.event, &format!("node ({why})"));
            return exec_node(&a.dist, raw, Some(&a));
        }
    };
    // no server listening (none yet, or gone): Node starts one, exactly as it does without us
    let sock = match sys::connect(&w.socket) {
        Ok(s) => s,
        Err(e) => {
            let why = format!("no server: {:?}", e.kind());
            if std::env::var_os("HOOKWISE_DEBUG").is_some_and(|v| !v.is_empty()) {
                eprintln!("hookwise debug: native: to node ({why})");
            }
            trace(&a.event, &format!("node ({why})"));
            return exec_node(&a.dist, raw, Some(&a));
        }
    };
    let bytes = read_input();
    if bytes.len() > MAX_INPUT {
        drop(sock);
        trace(&a.event, "node (too long)");
        return relay_node(&a, &bytes, "too long");
    }
    let text = String::from_utf8_lossy(&bytes);
    match ask_within(w, sock, &a.event, &text) {
        Ok(answer) => {
            if std::env::var_os("HOOKWISE_DEBUG").is_some_and(|v| !v.is_empty()) {
                eprintln!("hookwise debug: answered warm (native)");
            }
            trace(&a.event, "warm");
            let mut out = std::io::stdout().lock();
            if out
                .write_all(answer.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                return 1;
            }
            0
        }
        Err(why) => {
            trace(&a.event, &format!("node ({why})"));
            relay_node(&a, &bytes, &why)
        }
    }
}

/// `hookwise-native warm-key [--dist DIR] [--host HOST] <Event>`: the socket the hook would
/// ask, or why none (for the tests that pin the key against js/warm-client.cjs).
pub fn print_key(raw: &[OsString]) -> i32 {
    let (_, args) = parse(raw);
    let Some(a) = args else {
        eprintln!("usage: hookwise-native warm-key --dist DIR [--host HOST] <Event>");
        return USAGE;
    };
    match prepare(&a) {
        Ok(w) => {
            println!("{}", w.socket.display());
            0
        }
        Err(why) => {
            println!("none: {why}");
            1
        }
    }
}

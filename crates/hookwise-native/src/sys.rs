//! What the warm hook client ([`crate::hook`]) does differently per platform: the per-user
//! folder and secret, the server's socket (a Unix socket; on Windows a named pipe whose server
//! proves it knows the secret), becoming Node, ending a hung server. The JS client
//! (js/warm-client.cjs) is the reference for each.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

#[cfg(unix)]
pub use unix::*;
#[cfg(windows)]
pub use windows::*;

/// The exit code of a finished child (a signal: 128 + its number, as a shell says it).
pub fn code(s: ExitStatus) -> i32 {
    if let Some(c) = s.code() {
        return c;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        128 + s.signal().unwrap_or(0)
    }
    #[cfg(not(unix))]
    1
}

/// The 64 hex digits of a secret file's text, or None.
fn secret_text(s: &str) -> Option<String> {
    let s = s.trim();
    (s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then(|| s.to_string())
}

#[cfg(unix)]
mod unix {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::net::UnixStream;
    use std::os::unix::process::CommandExt;
    use std::time::Duration;

    extern "C" {
        fn getuid() -> u32;
        fn kill(pid: i32, sig: i32) -> i32;
        fn access(path: *const std::ffi::c_char, mode: i32) -> i32;
    }
    const SIGKILL: i32 = 9;

    fn uid() -> u32 {
        // SAFETY: getuid has no preconditions and cannot fail
        unsafe { getuid() }
    }

    /// `process.getuid()` as the key has it.
    pub fn key_uid() -> i64 {
        i64::from(uid())
    }

    /// A project folder as `path.isAbsolute` takes it on POSIX.
    pub fn absolute(p: &str) -> bool {
        p.starts_with('/')
    }

    /// The connection to a server.
    pub type Conn = UnixStream;

    /// The server's socket in `dir` for `key`; no `hello` on POSIX (the 0700 folder keeps
    /// other users from creating it).
    pub fn socket(dir: &Path, key: &str, _secret: &str) -> (PathBuf, Option<String>) {
        (dir.join(format!("{key}.sock")), None)
    }

    pub fn connect(p: &Path) -> std::io::Result<Conn> {
        UnixStream::connect(p)
    }

    /// Bounds the next read and write (the caller keeps the deadline).
    pub fn limit(c: &Conn, d: Duration) {
        let _ = c.set_read_timeout(Some(d));
        let _ = c.set_write_timeout(Some(d));
    }

    /// Become `c` (exec), stdin untouched. Returns only when it cannot be started.
    pub fn become_cmd(mut c: Command) -> i32 {
        let e = c.exec();
        eprintln!("hookwise: cannot start node: {e}");
        127
    }

    /// `runtimeDir` of js/warm-client.cjs, without creating anything: Some(dir) where a server
    /// may listen, None when the JS client would create the folder (no server can be there
    /// yet) or finds none fit.
    pub fn runtime_dir() -> Option<PathBuf> {
        let mut candidates: Vec<PathBuf> = Vec::new();
        if let Some(x) = std::env::var_os("XDG_RUNTIME_DIR") {
            let x = PathBuf::from(x);
            if x.is_absolute() {
                candidates.push(x.join("hookwise"));
            }
        }
        candidates.push(tmpdir().join(format!("hookwise-{}", uid())));
        let me = uid();
        for dir in candidates {
            match std::fs::symlink_metadata(&dir) {
                Ok(st) => {
                    if st.file_type().is_dir() && st.uid() == me && st.mode() & 0o077 == 0 {
                        return Some(dir);
                    }
                }
                // the JS client makes it where it can (its parent a folder it may write): no
                // server listens in it yet; where it cannot, it goes on to the next candidate
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if dir.parent().is_some_and(writable_dir) {
                        return None;
                    }
                }
                Err(_) => {}
            }
        }
        None
    }

    /// A folder this process may create entries in (`access(W_OK | X_OK)`).
    fn writable_dir(p: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: a NUL-terminated path; access(2) only reads it
        p.is_dir() && unsafe { access(c.as_ptr(), 2 | 1) } == 0
    }

    /// Node's `os.tmpdir()` on POSIX: TMPDIR, TMP, TEMP or /tmp, a trailing slash removed.
    fn tmpdir() -> PathBuf {
        for v in ["TMPDIR", "TMP", "TEMP"] {
            if let Some(s) = std::env::var_os(v) {
                if !s.is_empty() {
                    let s = s.to_string_lossy().into_owned();
                    let t = if s.len() > 1 && s.ends_with('/') {
                        &s[..s.len() - 1]
                    } else {
                        &s[..]
                    };
                    return PathBuf::from(t);
                }
            }
        }
        PathBuf::from("/tmp")
    }

    /// The per-user secret (`secret` of js/warm-client.cjs, read only): a regular file of this
    /// user, mode 0600 or stricter, not a symlink, 64 hex digits.
    pub fn secret(dir: &Path) -> Option<String> {
        // not followed through a symlink: the entry itself is looked at, then the file opened
        // is checked to be that very entry (device and inode), so nothing can be swapped in
        let file = dir.join("secret");
        let link = std::fs::symlink_metadata(&file).ok()?;
        if !link.file_type().is_file() {
            return None;
        }
        let mut f = std::fs::File::open(&file).ok()?;
        let st = f.metadata().ok()?;
        if (st.dev(), st.ino()) != (link.dev(), link.ino())
            || !st.is_file()
            || st.uid() != uid()
            || st.mode() & 0o077 != 0
            || st.len() > 4096
        {
            return None;
        }
        let mut s = String::new();
        f.read_to_string(&mut s).ok()?;
        secret_text(&s)
    }

    /// `lockHolder` of js/warm-client.cjs: the pid in the lock if that process is alive and
    /// is a warm server.
    fn lock_holder(lock: &Path) -> Option<i32> {
        let pid: i32 = std::fs::read_to_string(lock).ok()?.trim().parse().ok()?;
        if pid <= 0 {
            return None;
        }
        // SAFETY: signal 0 only checks the process exists
        if unsafe { kill(pid, 0) } != 0 && std::io::Error::last_os_error().raw_os_error() != Some(1)
        {
            return None;
        }
        match std::fs::read(format!("/proc/{pid}/cmdline")) {
            Ok(c) if !c.windows(11).any(|w| w == b"warm-server") => None,
            _ => Some(pid),
        }
    }

    /// End the server the lock names (a hung one), as the JS client does.
    pub fn end_server(lock: &Path) {
        if let Some(pid) = lock_holder(lock) {
            // SAFETY: a plain kill(2) of the pid the lock names, checked to be a warm server
            unsafe { kill(pid, SIGKILL) };
        }
    }
}

#[cfg(windows)]
mod windows {
    use super::*;
    use std::time::Duration;

    extern "system" {
        fn OpenProcess(access: u32, inherit: i32, pid: u32) -> isize;
        fn TerminateProcess(process: isize, code: u32) -> i32;
        fn CloseHandle(handle: isize) -> i32;
    }
    const PROCESS_TERMINATE: u32 = 0x0001;

    /// Windows has no uid: the JS client's key says `-1`.
    pub fn key_uid() -> i64 {
        -1
    }

    /// A project folder this client takes as given (a drive or UNC path; `path.isAbsolute`
    /// takes `\x` too, which then keys another server: the Node path answers).
    pub fn absolute(p: &str) -> bool {
        Path::new(p).is_absolute()
    }

    /// The connection to a server: the pipe opened as a file (synchronous; the caller's
    /// thread keeps the deadline).
    pub type Conn = std::fs::File;

    /// `\\.\pipe\hookwise-<sha256(secret, key)>` (`serverPaths` of js/warm-client.cjs), and
    /// the name the server's `hello` proof must be made for.
    pub fn socket(_dir: &Path, key: &str, secret: &str) -> (PathBuf, Option<String>) {
        let name = crate::key::pipe_name(key, secret);
        (PathBuf::from(format!(r"\\.\pipe\{name}")), Some(name))
    }

    pub fn connect(p: &Path) -> std::io::Result<Conn> {
        std::fs::OpenOptions::new().read(true).write(true).open(p)
    }

    /// A pipe opened synchronously has no timeouts of its own: [`crate::hook`] bounds the
    /// whole exchange from another thread.
    pub fn limit(_c: &Conn, _d: Duration) {}

    /// Windows has no exec: run `c` with this process's stdin, stdout and stderr, and exit
    /// with its code.
    pub fn become_cmd(mut c: Command) -> i32 {
        match c.status() {
            Ok(s) => code(s),
            Err(e) => {
                eprintln!("hookwise: cannot start node: {e}");
                127
            }
        }
    }

    /// `%LOCALAPPDATA%\hookwise`, a folder (not a link or junction), or None (the JS client
    /// would make it: no server can be there yet).
    pub fn runtime_dir() -> Option<PathBuf> {
        let base = PathBuf::from(std::env::var_os("LOCALAPPDATA")?);
        if !base.is_absolute() {
            return None;
        }
        let dir = base.join("hookwise");
        let st = std::fs::symlink_metadata(&dir).ok()?;
        (st.file_type().is_dir() && !st.file_type().is_symlink()).then_some(dir)
    }

    /// The per-user secret: `secret` in that folder, a plain file (not a link), 64 hex digits.
    pub fn secret(dir: &Path) -> Option<String> {
        let file = dir.join("secret");
        let st = std::fs::symlink_metadata(&file).ok()?;
        if !st.file_type().is_file() || st.len() > 4096 {
            return None;
        }
        secret_text(&std::fs::read_to_string(&file).ok()?)
    }

    /// End the server the lock names (a hung one). Windows cannot say what program a pid
    /// runs without more API: the pid is trusted, as the JS client trusts it without /proc.
    pub fn end_server(lock: &Path) {
        let Some(pid) = std::fs::read_to_string(lock)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
            .filter(|p| *p > 0)
        else {
            return;
        };
        // SAFETY: plain Win32 calls on a handle this function opens and closes
        unsafe {
            let h = OpenProcess(PROCESS_TERMINATE, 0, pid);
            if h != 0 {
                TerminateProcess(h, 1);
                CloseHandle(h);
            }
        }
    }
}

/// Node's `__dirname`: the real path, without the `\\?\` that `canonicalize` puts before a
/// Windows path.
pub fn real_dist(dist: &Path) -> Option<PathBuf> {
    let p = std::fs::canonicalize(dist).ok()?;
    #[cfg(windows)]
    {
        let s = p.to_str()?;
        if let Some(unc) = s.strip_prefix(r"\\?\UNC\") {
            return Some(PathBuf::from(format!(r"\\{unc}")));
        }
        if let Some(rest) = s.strip_prefix(r"\\?\") {
            return Some(PathBuf::from(rest));
        }
    }
    Some(p)
}

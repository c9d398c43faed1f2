//! The warm server's name: the same key `serverKey` computes in js/warm-client.cjs, from the
//! same inputs (the user, the project and host, the installed hookwise's folder and five of its
//! files' sizes and mtimes, the environment the core reads). The JS definition is the reference;
//! tests/js/native-hook.test.mjs runs both on the same inputs and compares.

use std::path::Path;

/// The request line's protocol version (`PROTOCOL` in js/warm-client.cjs).
pub const PROTOCOL: u32 = 1;

/// The installed files whose size and mtime are part of the key, in the JS order.
pub const KEYED_FILES: [&str; 5] = [
    "warm-server.cjs",
    "claude.cjs",
    "core.cjs",
    "hookwise_bg.wasm",
    "policy/hookwise_bg.wasm",
];

/// `ENV_KEYS` of js/warm-client.cjs:
/// `^(HOOKWISE_|MAENIFOLD_|OTEL_)|^(PATH|HOME|COPILOT_HOME|TMPDIR|XDG_CACHE_HOME|XDG_RUNTIME_DIR)$`.
pub fn keyed_env(name: &str) -> bool {
    name.starts_with("HOOKWISE_")
        || name.starts_with("MAENIFOLD_")
        || name.starts_with("OTEL_")
        || matches!(
            name,
            "PATH" | "HOME" | "COPILOT_HOME" | "TMPDIR" | "XDG_CACHE_HOME" | "XDG_RUNTIME_DIR"
        )
}

/// `hash128` of js/warm-client.cjs: four 32-bit multiply-xorshift lanes over the UTF-16 units.
pub fn hash128(s: &str) -> String {
    let (mut a, mut b, mut c, mut d): (u32, u32, u32, u32) =
        (0x9e37_79b1, 0x85eb_ca77, 0xc2b2_ae3d, 0x27d4_eb2f);
    let mut len: u32 = 0;
    for k in s.encode_utf16() {
        let k = u32::from(k);
        len = len.wrapping_add(1);
        a = (a ^ k).wrapping_mul(0x85eb_ca6b);
        b = (b ^ k).wrapping_mul(0xc2b2_ae35);
        c = (c ^ k).wrapping_mul(0x27d4_eb2d);
        d = (d ^ k).wrapping_mul(0x1656_67b1);
        a ^= b >> 15;
        b ^= c >> 13;
        c ^= d >> 16;
        d ^= a >> 11;
    }
    let fin = |x: u32, y: u32| -> String {
        let x = (x ^ (x >> 16)).wrapping_mul(0x85eb_ca6b) ^ y;
        let x = (x ^ (x >> 13)).wrapping_mul(0xc2b2_ae35);
        format!("{:08x}", x ^ (x >> 16))
    };
    let (fa, fb, fc, fd) = (fin(a, len), fin(b, d), fin(c, a), fin(d, b));
    format!("{fa}{fb}{fc}{fd}")
}

/// Node's `stat.mtimeMs` (`sec * 1e3 + nsec / 1e6`, a double) as `String(n)` prints it: the
/// shortest digits that read back as the same double, without an exponent (an mtime is far
/// inside the range where JavaScript prints none: 1e-7 ≤ n < 1e21).
pub fn js_mtime_ms(sec: i64, nsec: i64) -> String {
    let ms = sec as f64 * 1e3 + nsec as f64 / 1e6;
    js_number(ms)
}

/// A finite double as JavaScript's `String(n)` prints it in [1e-7, 1e21) (and 0).
pub fn js_number(n: f64) -> String {
    if n == 0.0 {
        return "0".into();
    }
    // Rust's Display is the shortest round-trip digits, positional: the same digits as
    // ECMAScript's Number::toString in this range
    format!("{n}")
}

/// What the key is made of.
pub struct Inputs<'a> {
    /// `process.getuid()` (Windows: none, `-1` as the JS client has it)
    pub uid: i64,
    /// `serverFor(project, host)`: the project, plus `\0host` for a host other than Claude Code
    pub server: String,
    /// the installed dist/ folder, as Node's `__dirname` of warm-client.cjs (a real path)
    pub dist: &'a Path,
    /// the environment's (name, value) pairs, all of them (filtered here)
    pub env: Vec<(String, String)>,
}

/// `serverFor(project, host)`.
pub fn server_for(project: &str, host: &str) -> String {
    if host == "claude-code" {
        project.to_string()
    } else {
        format!("{project}\0{host}")
    }
}

/// `serverKey(serverFor(project, host), env)`, or None when the dist path is not text.
pub fn server_key(i: &Inputs) -> Option<String> {
    let dist = i.dist.to_str()?;
    let mut k = format!(
        "hookwise-warm\0{PROTOCOL}\0{}\0{}\0{dist}\0",
        i.uid, i.server
    );
    for f in KEYED_FILES {
        match std::fs::metadata(i.dist.join(f))
            .ok()
            .and_then(|st| size_mtime(&st))
        {
            Some((size, mtime)) => k.push_str(&format!("{f}:{size}:{mtime}\0")),
            None => k.push_str(&format!("{f}:-\0")),
        }
    }
    let mut env: Vec<&(String, String)> = i.env.iter().filter(|(n, _)| keyed_env(n)).collect();
    // JavaScript's default sort: by UTF-16 code units
    env.sort_by(|x, y| x.0.encode_utf16().cmp(y.0.encode_utf16()));
    for (n, v) in env {
        k.push_str(&format!("{n}={v}\0"));
    }
    Some(hash128(&k))
}

/// A file's `stat.size` and `stat.mtimeMs` as Node prints them.
#[cfg(unix)]
fn size_mtime(st: &std::fs::Metadata) -> Option<(u64, String)> {
    use std::os::unix::fs::MetadataExt;
    Some((st.size(), js_mtime_ms(st.mtime(), st.mtime_nsec())))
}

/// Windows: libuv's stat from the FILETIME (100 ns since 1601), as seconds and nanoseconds
/// since 1970 — what `modified()` measures too.
#[cfg(not(unix))]
fn size_mtime(st: &std::fs::Metadata) -> Option<(u64, String)> {
    let d = st
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some((
        st.len(),
        js_mtime_ms(
            i64::try_from(d.as_secs()).ok()?,
            i64::from(d.subsec_nanos()),
        ),
    ))
}

/// A Windows pipe's name: `hookwise-` and the first 128 bits (hex) of SHA-256 of
/// `hookwise-pipe\0<secret>\0<key>` (`pipeName` of js/warm-client.cjs). Named by the secret,
/// another user cannot work it out; the proof below is what keeps a squatter out.
#[cfg_attr(unix, allow(dead_code))]
pub fn pipe_name(key: &str, secret: &str) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(format!("hookwise-pipe\0{secret}\0{key}").as_bytes());
    format!("hookwise-{}", hex(&d[..16]))
}

/// The server's answer to a client's `hello` (`serverProof` of js/warm-client.cjs):
/// HMAC-SHA256 keyed by the secret (its hex text) of `hookwise-warm-server\0<name>\0<nonce>`.
#[cfg_attr(unix, allow(dead_code))]
pub fn server_proof(secret: &str, name: &str, nonce: &str) -> String {
    use hmac::{Hmac, Mac};
    let mut m = <Hmac<sha2::Sha256> as Mac>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes a key of any length");
    m.update(format!("hookwise-warm-server\0{name}\0{nonce}").as_bytes());
    hex(&m.finalize().into_bytes())
}

/// Lower-case hex.
#[cfg_attr(unix, allow(dead_code))]
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Two strings equal, in time that depends only on their length.
#[cfg_attr(unix, allow(dead_code))]
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    // Pinned from js/warm-client.cjs's hash128 (node -e, see tests/js/native-hook.test.mjs for
    // the end-to-end comparison).
    #[test]
    fn hash128_matches_the_js_reference() {
        assert_eq!(hash128(""), "11fd02eb36bbd9c5bf9d9663e19f8b96");
        assert_eq!(
            hash128("hookwise-warm\0"),
            "c6f21b621df4fda3c8fe6b75f0dd5d23"
        );
        assert_eq!(hash128("é😀/π"), "ec92d241baf03e1917952f941db4ab04");
    }

    #[test]
    fn mtime_prints_as_javascript_does() {
        assert_eq!(js_mtime_ms(1_700_000_000, 0), "1700000000000");
        assert_eq!(
            js_mtime_ms(1_700_000_000, 123_456_789),
            "1700000000123.4568"
        );
        assert_eq!(js_mtime_ms(0, 0), "0");
        assert_eq!(js_mtime_ms(1, 500_000), "1000.5");
    }

    // Pinned from js/warm-client.cjs's pipeName and serverProof (node:crypto).
    const PIPE_PINNED: &str = "hookwise-d3ddd9a8c488ed9a57a1d4d07d41ead0";
    const PROOF_PINNED: &str = "edf54da5f74484c572da3ebae35d416498b320a2524db48dc88e9305982e69d4";

    #[test]
    fn pipe_name_and_proof_match_the_js_reference() {
        let secret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        assert_eq!(
            pipe_name("11fd02eb36bbd9c5bf9d9663e19f8b96", secret),
            PIPE_PINNED
        );
        assert_eq!(
            server_proof(secret, PIPE_PINNED, "00112233445566778899aabbccddeeff"),
            PROOF_PINNED
        );
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
    }

    #[test]
    fn env_filter_is_warm_clients() {
        for n in [
            "HOOKWISE_X",
            "MAENIFOLD_ROOT",
            "PATH",
            "HOME",
            "COPILOT_HOME",
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "TMPDIR",
            "XDG_CACHE_HOME",
            "XDG_RUNTIME_DIR",
        ] {
            assert!(keyed_env(n), "{n}");
        }
        for n in [
            "PATHX",
            "XPATH",
            "HOMES",
            "hookwise_x",
            "TMPDIRS",
            "XDG_CONFIG_HOME",
        ] {
            assert!(!keyed_env(n), "{n}");
        }
    }
}

//! The redactor's speed on compaction-sized text (prints figures, asserts nothing):
//!
//!   cargo test --release --lib redact_speed -- --ignored --nocapture
//!
//! (Both builds run the same redactor: gitleaks' rules and the structure readers included.)

use super::tests::noise;

/// About `mb` MB of what a session holds: prose, code, shell lines, YAML, JSON, trace records,
/// base64, and a secret every 4 KB or so.
fn session_text(mb: usize) -> String {
    let mut s = String::with_capacity(mb << 20);
    let mut k = 0u64;
    while s.len() < mb << 20 {
        k += 1;
        s.push_str("We decided to move the token refresh into the auth module; the tests pass.\n");
        s.push_str("fn main() { let password = read_password(); check(&password)?; }\n");
        s.push_str("git commit -m \"fix\" && git push origin main && mkdir -p build/out\n");
        s.push_str(
            "config:\n  name: app\n  replicas: 3\n  image: registry.example.com/app:1.2.3\n",
        );
        s.push_str(&format!(
            "{{\"id\":\"123e4567-e89b-12d3-a456-426614174000\",\"content_hash\":\"sha256:{}\",\"path\":\"src/auth/token.ts\"}}\n",
            noise(k, 64)
        ));
        s.push_str(&format!(
            "data:image/png;base64,iVBORw0KGgo{}==\n",
            noise(k + 1, 200)
        ));
        if k % 8 == 0 {
            s.push_str(&format!(
                "export GITHUB_TOKEN=ghp_{} and glpat-{}\n",
                noise(k + 2, 36),
                noise(k + 3, 20)
            ));
        }
    }
    s
}

#[test]
#[ignore = "a benchmark: prints figures"]
fn redact_speed() {
    let text = session_text(8);
    // with and without the general vendor rule (`redact_vendor.rs`), alternately, best of 5 each
    let mut best = [f64::MAX; 2];
    let mut markers = [0; 2];
    for _ in 0..5 {
        for (k, off) in [false, true].into_iter().enumerate() {
            super::VENDOR_OFF.with(|v| v.set(off));
            let t = std::time::Instant::now();
            let out = super::redact(&text);
            best[k] = best[k].min(t.elapsed().as_secs_f64());
            markers[k] = out.matches(super::MARKER).count();
        }
    }
    super::VENDOR_OFF.with(|v| v.set(false));
    for (k, what) in ["with the vendor rule", "without it"].into_iter().enumerate() {
        eprintln!(
            "redact ({what}): {:.1} MB in {:.1} ms (best of 5), {:.0} MB/s, {} markers",
            text.len() as f64 / 1e6,
            best[k] * 1e3,
            text.len() as f64 / 1e6 / best[k],
            markers[k]
        );
    }
}

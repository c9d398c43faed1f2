//! The redactor tested as an attacker would: every kind of secret in every form it is written
//! in, hostile inputs whose work is bounded by counting steps, and a corpus of ordinary text
//! (code, paths, trace records, hashes, base64) that must come out unchanged.
//!
//! The fake secrets are assembled at run time, so this file holds nothing a secret scanner
//! would flag.

use super::*;

pub(crate) fn r(s: &str) -> String {
    redact(s).into_owned()
}

/// 48 random-looking characters of base62 (deterministic).
pub(crate) fn noise(seed: u64, len: usize) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            A[(x % 62) as usize] as char
        })
        .collect()
}

/// Secrets of every kind the module knows, as (kind, secret text). Each is planted in many
/// places by the tests here and in the compaction, metrics and log tests.
pub(crate) fn secrets() -> Vec<(&'static str, String)> {
    let upper = |s: String| s.to_ascii_uppercase();
    vec![
        ("aws-access-key", format!("AKIA{}", upper(noise(1, 16)))),
        ("aws-access-key", format!("ASIA{}", upper(noise(2, 16)))),
        ("github-token", format!("ghp_{}", noise(3, 36))),
        ("github-token", format!("gho_{}", noise(4, 36))),
        ("github-token", format!("ghu_{}", noise(5, 36))),
        ("github-token", format!("ghs_{}", noise(6, 36))),
        ("github-token", format!("ghr_{}", noise(7, 36))),
        (
            "github-token",
            format!("github_pat_{}_{}", noise(8, 22), noise(9, 59)),
        ),
        ("openai-key", format!("sk-{}", noise(10, 48))),
        (
            "openai-key",
            format!(
                "sk-proj-{}-{}_{}",
                noise(11, 40),
                noise(12, 20),
                noise(13, 60)
            ),
        ),
        (
            "anthropic-key",
            format!("sk-ant-api03-{}-{}AA", noise(14, 60), noise(15, 30)),
        ),
        (
            "slack-token",
            format!("xoxb-{}-{}-{}", "1234567890", "0987654321", noise(16, 24)),
        ),
        (
            "slack-token",
            format!("xoxp-{}-{}", "12345678", noise(17, 32)),
        ),
        ("stripe-key", format!("sk_live_{}", noise(18, 24))),
        ("stripe-key", format!("rk_live_{}", noise(19, 24))),
        ("google-api-key", format!("AIza{}", noise(20, 35))),
        (
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{}.{}",
                noise(21, 40),
                noise(22, 43)
            ),
        ),
    ]
}

/// Every sample secret and its kind are gone, replaced by the kind's marker.
#[test]
fn each_token_shape_is_redacted_where_it_stands() {
    for (kind, s) in secrets() {
        for ctx in [
            s.clone(),
            format!("use {s} here"),
            format!("export KEY_X=\"{s}\""),
            format!("(\"{s}\")"),
            format!("`{s}`"),
            format!("curl -H x {s}\n"),
            format!("é{s}é"),
            format!("[[{s}]]"),
        ] {
            let out = r(&ctx);
            assert!(!out.contains(&s), "{kind}: {ctx:?} -> {out:?}");
            assert!(out.contains(MARKER), "{kind}: {ctx:?} -> {out:?}");
        }
        let out = r(&format!("a {s} b"));
        assert_eq!(out, format!("a [REDACTED:{kind}] b"), "{s}");
    }
}

#[test]
fn private_spans_whole_any_case_unclosed_to_the_end() {
    assert_eq!(
        r("keep <private>my pin is 1234\nand more</private> keep"),
        "keep [REDACTED:private] keep"
    );
    assert_eq!(r("a <PRIVATE>x</Private> b"), "a [REDACTED:private] b");
    assert_eq!(r("a <private>x\ny\nz"), "a [REDACTED:private]");
    assert_eq!(
        r("<private>a</private> b <private>c</private>"),
        "[REDACTED:private] b [REDACTED:private]"
    );
    // a span cut at its start (a message clipped to its most recent part)
    assert_eq!(r("the pin 1234</private> rest"), "[REDACTED:private] rest");
    // a span inside a word or a line is still a span
    assert_eq!(r("x<private>y</private>z"), "x[REDACTED:private]z");
    // `<privateer>` is not the tag
    assert_eq!(r("<privateer> ok"), "<privateer> ok");
}

#[test]
fn pem_private_key_blocks_whole() {
    let body = format!("{}\n{}\n{}", noise(30, 64), noise(31, 64), noise(32, 20));
    for label in [
        "PRIVATE KEY",
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ] {
        let pem = format!("-----BEGIN {label}-----\n{body}\n-----END {label}-----");
        assert_eq!(
            r(&format!("key:\n{pem}\ndone")),
            "key:\n[REDACTED:private-key]\ndone"
        );
        // JSON-escaped (a GCP service account file)
        let escaped = pem.replace('\n', "\\n");
        let gcp = format!(
            "{{\"type\": \"service_account\", \"private_key_id\": \"{}\", \"private_key\": \"{escaped}\\n\", \"client_email\": \"x@p.iam.gserviceaccount.com\"}}",
            "ab12".repeat(10)
        );
        let out = r(&gcp);
        assert!(!out.contains(&noise(30, 64)), "{out}");
        assert!(
            out.contains("\"private_key\": \"[REDACTED:private-key]\""),
            "{out}"
        );
        assert!(
            out.contains("\"client_email\": \"x@p.iam.gserviceaccount.com\""),
            "{out}"
        );
        // the block alone, escaped, after other text
        let out = r(&format!("cert: {escaped} end"));
        assert_eq!(out, "cert: [REDACTED:private-key] end");
        // unclosed: to the end
        let cut = format!("-----BEGIN {label}-----\n{}", noise(30, 64));
        assert_eq!(r(&format!("x {cut}")), "x [REDACTED:private-key]");
        // unopened (the text starts inside the block): from the start
        let tail = format!("{}\n-----END {label}-----\nafter", noise(31, 64));
        assert_eq!(r(&tail), "[REDACTED:private-key]\nafter");
    }
    // public material is kept
    let cert = format!(
        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----",
        noise(33, 64)
    );
    assert_eq!(r(&cert), cert);
    let public = format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----",
        noise(34, 64)
    );
    assert_eq!(r(&public), public);
}

/// `(input, expected)`: assignments in env, URL, YAML, JSON, headers and flags.
#[test]
fn sensitive_assignments_lose_their_value_only() {
    let v = noise(40, 24);
    let cases: Vec<(String, String)> = vec![
        (format!("DB_PASSWORD={v}"), "DB_PASSWORD=[REDACTED:password]".into()),
        (format!("export GITHUB_TOKEN={v}"), "export GITHUB_TOKEN=[REDACTED:token]".into()),
        (format!("password: {v}\nuser: bob"), "password: [REDACTED:password]\nuser: bob".into()),
        (format!("  client_secret: \"{v}\""), "  client_secret: \"[REDACTED:secret]\"".into()),
        (format!("{{\"apiKey\": \"{v}\", \"n\": 1}}"), "{\"apiKey\": \"[REDACTED:api-key]\", \"n\": 1}".into()),
        (format!("{{\"password\":\"a\\\"{v}\"}}"), "{\"password\":\"[REDACTED:password]\"}".into()),
        // JSON inside a JSON string
        (format!("\"{{\\\"token\\\": \\\"{v}\\\"}}\""), "\"{\\\"token\\\": \\\"[REDACTED:token]\\\"}\"".into()),
        (format!("https://api.x.io/v1?user=bob&token={v}&page=2"), "https://api.x.io/v1?user=bob&token=[REDACTED:token]&page=2".into()),
        (format!("https://x.io/?api_key={v}"), "https://x.io/?api_key=[REDACTED:api-key]".into()),
        (format!("aws_secret_access_key = {v}"), "aws_secret_access_key = [REDACTED:aws-secret-key]".into()),
        (format!("AWS_SECRET_ACCESS_KEY={v}"), "AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]".into()),
        (format!("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={v}==;EndpointSuffix=core.windows.net"),
         "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED:azure-key];EndpointSuffix=core.windows.net".into()),
        (format!("Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={v}="),
         "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=[REDACTED:azure-key]".into()),
        (format!("spring.datasource.password={v}"), "spring.datasource.password=[REDACTED:password]".into()),
        (format!("passwd: {v}"), "passwd: [REDACTED:password]".into()),
        (format!("secret={v}"), "secret=[REDACTED:secret]".into()),
        (format!("mytool --token {v} --verbose"), "mytool --token [REDACTED:token] --verbose".into()),
        (format!("mytool --password=\"{v}\""), "mytool --password=\"[REDACTED:password]\"".into()),
        (format!("$conf = ['password' => '{v}'];"), "$conf = ['password' => '[REDACTED:password]'];".into()),
        (format!("ENCRYPTION_KEY={v}"), "ENCRYPTION_KEY=[REDACTED:secret]".into()),
        (format!("DB_PASS={v} ./run"), "DB_PASS=[REDACTED:secret] ./run".into()),
        (format!("{{\"auths\":{{\"r.io\":{{\"auth\":\"{v}\"}}}}}}"), "{\"auths\":{\"r.io\":{\"auth\":\"[REDACTED:secret]\"}}}".into()),
        (format!("x-api-key: {v}"), "x-api-key: [REDACTED:api-key]".into()),
        (format!("password = \"{v}\""), "password = \"[REDACTED:password]\"".into()),
        (format!("PASSWORD := {v}"), "PASSWORD := [REDACTED:password]".into()),
        (format!("<add key=\"x\" password='{v}' />"), "<add key=\"x\" password='[REDACTED:password]' />".into()),
    ];
    for (input, want) in cases {
        assert_eq!(r(&input), want, "{input}");
    }
}

#[test]
fn authorization_and_bearer_values() {
    let t = noise(41, 32);
    assert_eq!(
        r(&format!(
            "curl -H \"Authorization: Bearer {t}\" https://x.io"
        )),
        "curl -H \"Authorization: Bearer [REDACTED:authorization]\" https://x.io"
    );
    assert_eq!(
        r(&format!("Authorization: Basic {t}==\r\nHost: x")),
        "Authorization: Basic [REDACTED:authorization]\r\nHost: x"
    );
    assert_eq!(
        r("authorization: token abc"),
        "authorization: token [REDACTED:authorization]"
    );
    assert_eq!(
        r(&format!(
            "{{\"Authorization\": \"Digest u=\\\"a\\\", r={t}\"}}"
        )),
        "{\"Authorization\": \"Digest [REDACTED:authorization]\"}"
    );
    assert_eq!(
        r(&format!("Proxy-Authorization: {t}")),
        "Proxy-Authorization: [REDACTED:authorization]"
    );
    // bearer tokens anywhere
    assert_eq!(
        r(&format!("use Bearer {t}.{t} for it")),
        "use Bearer [REDACTED:bearer] for it"
    );
    // prose and references stay
    for keep in [
        "Bearer authentication is described in RFC 6750",
        "-H \"Authorization: Bearer $TOKEN\"",
        "-H \"Authorization: Bearer ${GITHUB_TOKEN}\"",
        "the Authorization header",
        "Basic auth",
    ] {
        assert_eq!(r(keep), keep);
    }
}

#[test]
fn credentials_in_urls() {
    let p = noise(42, 16);
    assert_eq!(
        r(&format!("git clone https://bob:{p}@github.com/o/r.git")),
        "git clone https://[REDACTED:url-credentials]@github.com/o/r.git"
    );
    assert_eq!(
        r(&format!("DATABASE_URL=postgres://app:{p}@db:5432/x")),
        "DATABASE_URL=postgres://[REDACTED:url-credentials]@db:5432/x"
    );
    let tok = format!("ghp_{}", noise(43, 36));
    let out = r(&format!("https://x-access-token:{tok}@github.com/o/r"));
    assert!(!out.contains(&tok), "{out}");
    let out = r(&format!("https://{tok}@github.com/o/r"));
    assert!(!out.contains(&tok), "{out}");
    assert_eq!(
        r(&format!("curl -u admin:{p} https://x.io")),
        "curl -u admin:[REDACTED:password] https://x.io"
    );
    for keep in [
        "ssh://git@github.com/o/r.git",
        "https://github.com/o/r",
        "http://localhost:8080/a@b",
        "https://x.io/path?q=a:b@c",
        "postgres://app:${DB_PASS}@db/x",
        "mailto:bob@example.com",
    ] {
        assert_eq!(r(keep), keep);
    }
    assert_eq!(
        r("https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX"),
        "https://hooks.slack.com/services/[REDACTED:slack-webhook]"
    );
}

/// Ordinary text comes out byte for byte: code (with the sensitive words in it), paths,
/// hashes, commit ids, UUIDs, base64, prose, and hookwise's own trace and metrics records.
#[test]
fn ordinary_text_is_not_touched() {
    let corpus = [
        "fn main() { let password = read_password(); check(&password)?; }",
        "token = self.token",
        "password = config.password",
        "const token = tokens[i];",
        "password: string;",
        "token: Option<String>,",
        "def login(password=None, token=None):",
        "f(password=password, token=token)",
        "if password == other: pass",
        "secret = os.environ[\"SECRET\"]",
        "TOKEN = os.getenv(\"TOKEN\")",
        "let api_key = std::env::var(\"API_KEY\")?;",
        "password: ${DB_PASSWORD}",
        "token: {{ .Values.token }}",
        "export GITHUB_TOKEN=$(gh auth token)",
        "api_key: <your-api-key>",
        "secret: [REDACTED:secret]",
        "is_secret = True",
        "max_tokens: 4096",
        "num_tokens=12",
        "cat /etc/passwd",
        "PWD=/home/user/project",
        "OLDPWD=/home/user",
        "cd /home/user/.ssh && ls id_rsa.pub",
        "src/auth/token_store.rs:42:17",
        "C:\\Users\\me\\secret-notes\\todo.txt",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
        "123e4567-e89b-12d3-a456-426614174000",
        "ses_01JABCDEF0123456789ABCDEFG",
        "the sk-learn-tutorial-for-beginners-on-ml page",
        "ask-the-expert-session-notes-for-everyone",
        "task-runner-configuration-file-reference",
        "pip install scikit-learn",
        "Forgot your password? Reset it from the settings page.",
        "We decided to rotate the token monthly and keep secrets in the vault.",
        "The API key is stored in 1Password; the access key is rotated by CI.",
        "Use [[session-tokens]] and [[rest-api]].",
        "eyJ alone is not a token; nor is eyJhbGciOiJIUzI1NiJ9 without parts",
        "AKIA is a prefix; AKIAIOSFODNN7EXAMPL is 19 characters",
        "xoxb- is a prefix",
        "ghp_ is a prefix, ghp_short too",
        "https://example.com/a/b?c=d&e=f#g",
        "git@github.com:owner/repo.git",
        "-----BEGIN CERTIFICATE-----",
        "<privacy> policy and <private-notes>",
        "a: b\nc: d\n",
        "",
        "ünïcödé 日本語 🙂 — emoji and CJK",
    ];
    for text in corpus {
        assert_eq!(r(text), text, "{text}");
        assert!(matches!(redact(text), Cow::Borrowed(_)), "{text}");
    }
    // base64 image data
    let mut b64 = String::from("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA");
    for i in 0..200u64 {
        let n = noise(100 + i, 76);
        b64.push_str(&n);
        b64.push(['+', '/', 'x'][(i % 3) as usize]);
    }
    b64.push_str("==");
    assert_eq!(r(&b64), b64);
}

/// hookwise's own records: Agent Trace lines (content hashes, commit id, UUID, hash links) and
/// metrics lines pass unchanged, so redacting before a write never breaks a chain.
#[test]
fn trace_and_metrics_records_are_not_touched() {
    use crate::governance::trace;
    for k in 0..200u64 {
        let hex = |s: u64| {
            let n = noise(s, 64);
            n.bytes()
                .map(|c| b"0123456789abcdef"[(c % 16) as usize] as char)
                .collect::<String>()
        };
        let sha = hex(k * 3);
        let line = format!(
            "{{\"version\":\"0.1.0\",\"id\":\"{}\",\"timestamp\":\"2026-11-22T03:12:03.456Z\",\"vcs\":{{\"type\":\"git\",\"revision\":\"{}\"}},\"tool\":{{\"name\":\"hookwise\",\"version\":\"0.1.0\"}},\"files\":[{{\"path\":\"src/auth/token.ts\",\"conversations\":[{{\"contributor\":{{\"type\":\"ai\",\"model_id\":\"anthropic/claude-sonnet-4\"}},\"ranges\":[{{\"start_line\":3,\"end_line\":4,\"content_hash\":\"sha256:{sha}\"}}]}}]}}],\"metadata\":{{\"dev.hookwise\":{{\"intent_id\":\"INT-1\",\"mutation_class\":\"AST_REFACTOR\",\"session_id\":\"ses_{}\",\"call_id\":\"call_{}\",\"tool\":\"edit\",\"prev_hash\":\"sha256:{}\"}}}}}}",
            trace::uuid_v4([k as u8; 16]),
            &hex(k * 3 + 1)[..40],
            noise(k, 26),
            noise(k + 7, 24),
            hex(k * 3 + 2),
        );
        assert_eq!(r(&line), line);
        let metrics = format!(
            "{{\"seq\":{k},\"ts\":1700000000000.0,\"tool\":\"bash\",\"decision\":\"block\",\"level\":\"category\",\"risk\":\"high\",\"categories\":[\"process\"],\"sops\":[\"git-force-push\"],\"sources\":{{\"sops\":1,\"memories\":0}},\"lookupMs\":2.5,\"timedOut\":false,\"cooldownHit\":false,\"bypass\":false,\"prev\":\"{sha}\"}}"
        );
        assert_eq!(r(&metrics), metrics);
    }
}

#[test]
fn redacting_twice_changes_nothing() {
    let mut all = String::new();
    for (_, s) in secrets() {
        all.push_str(&format!("x {s}\n"));
    }
    all.push_str(
        "password=hunter2 <private>p</private> https://u:p@h/ Authorization: Bearer abc\n",
    );
    all.push_str("-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n");
    let once = r(&all);
    assert_eq!(r(&once), once);
    assert!(matches!(redact(&once), Cow::Borrowed(_)));
}

/// Hostile inputs of 256 KB (1 MB for the first ones): the work is counted (steps, not time)
/// and stays within a small constant per byte, where a quadratic scan would take thousands;
/// the output has the expected shape.
#[test]
fn hostile_inputs_take_linear_work() {
    const MB: usize = 1 << 20;
    let rep = |s: &str| s.repeat(MB / 4 / s.len());
    let rep_mb = |s: &str| s.repeat(MB / s.len());
    let cases: Vec<(String, &str)> = vec![
        (rep_mb("-----BEGIN "), "kept"),
        (rep_mb("-----BEGIN PRIVATE KEY-----"), "one marker"),
        (rep_mb("sk-"), "kept"),
        (rep_mb("<private>"), "one marker"),
        (rep("-----BEGIN "), "kept"),
        (rep("-----BEGIN PRIVATE KEY-----"), "one marker"),
        (rep("-----BEGIN PRIVATE KEY-----\n-----END"), "one marker"),
        (
            rep("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n"),
            "markers",
        ),
        (rep("-----END PRIVATE KEY-----"), "markers"),
        (rep("-----END "), "kept"),
        (rep("-"), "kept"),
        (rep("sk-"), "kept"),
        (rep("sk-a"), "kept"),
        (format!("sk-{}", "aB1".repeat(MB / 3)), "one marker"),
        (rep("<private>"), "one marker"),
        (rep("</private>"), "markers"),
        (rep("<private"), "kept"),
        (rep("<"), "kept"),
        (rep("://"), "kept"),
        (rep("://a:"), "kept"),
        (rep("://a:b"), "kept"),
        (rep("password="), "one marker"),
        (rep("password "), "kept"),
        (rep("password = password "), "kept"),
        (rep("token = a.b "), "kept"),
        (rep("token: \""), "markers"),
        (rep("\"token\":\\\""), "markers"),
        (rep("token=$"), "one marker"),
        (rep("eyJ"), "kept"),
        (rep("eyJaaaaaaaaaa."), "markers"),
        (rep("eyJaaaaaaaaaa.bbbbbbbbbb "), "kept"),
        (rep("Bearer "), "kept"),
        (rep("Bearer a/"), "kept"),
        (format!("Bearer {}", "a1/".repeat(MB / 3)), "one marker"),
        (rep("Authorization: "), "markers"),
        (rep("a-"), "kept"),
        (rep("_"), "kept"),
        (rep("x"), "kept"),
        (rep("ghp_"), "one marker"),
        (rep("_AKIA"), "kept"),
        (rep("x_sk-ant-"), "one marker"),
        (rep("-xoxb-"), "one marker"),
        (rep("_AIza "), "kept"),
        (rep("a_eyJaaaaaaaaaaaa"), "kept"),
        (
            format!("{}.{}.x", rep("a_eyJaaaaaaaaaaaa"), "b".repeat(MB / 4)),
            "one marker",
        ),
        (rep("-u "), "kept"),
        (rep("-u a:"), "markers"),
        (rep("\\"), "kept"),
        (rep("hooks.slack.com/services/"), "markers"),
        (rep("é"), "kept"),
    ];
    for (input, shape) in &cases {
        let before = steps();
        let out = r(input);
        let work = steps() - before;
        let per_byte = work as f64 / input.len() as f64;
        assert!(
            per_byte < 24.0, // a quadratic scan: about n / 2 per byte
            "{:?}…: {work} steps for {} bytes",
            &input[..20.min(input.len())],
            input.len()
        );
        let markers = out.matches(MARKER).count();
        eprintln!(
            "{:?}: {per_byte:.2} steps/byte, {markers} markers, {} -> {} bytes",
            &input[..12.min(input.len())],
            input.len(),
            out.len()
        );
        match *shape {
            "kept" => assert!(&out == input, "{:?}: changed", &input[..20]),
            "one marker" => assert_eq!(
                markers,
                1,
                "{:?}: {}",
                &input[..20],
                &out[..100.min(out.len())]
            ),
            _ => assert!(markers > 1, "{:?}: {markers}", &input[..20]),
        }
        assert!(out.len() <= input.len() + 32 * markers);
    }
}

/// Random mixtures of fragments (secrets, separators, quotes, tags, non-ASCII): no panic, valid
/// UTF-8 cut points, idempotent, and no planted secret survives.
#[test]
fn random_mixtures_never_leak_or_panic() {
    let secrets = secrets();
    let frags: Vec<String> = [
        "password",
        "token",
        "=",
        ": ",
        "\"",
        "'",
        "\\\"",
        " ",
        "\n",
        "<private>",
        "</private>",
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----END RSA PRIVATE KEY-----",
        "://",
        "@",
        ":",
        "Bearer ",
        "Authorization: ",
        "é",
        "日本",
        "🙂",
        "eyJ",
        ".",
        "sk-",
        "$",
        "{",
        "(",
        "-u ",
        "--token ",
        "/",
        "x",
        "AKIA",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut next = crate::test_rng::xorshift(0x2545_F491_4F6C_DD1D);
    for _ in 0..3000 {
        let mut text = String::new();
        let mut planted = Vec::new();
        for _ in 0..next(24) {
            if next(6) == 0 {
                let (_, s) = &secrets[next(secrets.len())];
                // a secret as a word of its own
                text.push(' ');
                text.push_str(s);
                text.push(' ');
                planted.push(s.clone());
            } else {
                text.push_str(&frags[next(frags.len())]);
            }
        }
        let out = r(&text);
        for s in &planted {
            assert!(!out.contains(s.as_str()), "{text:?} -> {out:?}");
        }
        assert_eq!(r(&out), out, "{text:?}");
    }
}

/// Secrets of every kind in the form they are written in, as (text to plant, the secret that
/// must not survive): the token shapes of [`secrets`], then the forms known by their context.
pub(crate) fn plants() -> Vec<(String, String)> {
    let v = |k: u64| noise(200 + k, 24);
    let body = format!("MIIEv{}\n{}", noise(300, 59), noise(301, 64));
    let mut out: Vec<(String, String)> =
        secrets().into_iter().map(|(_, s)| (s.clone(), s)).collect();
    out.extend([
        (format!("aws_secret_access_key = {}", v(1)), v(1)),
        (format!("AWS_SECRET_ACCESS_KEY={}", v(2)), v(2)),
        (
            format!("{{\"type\": \"service_account\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{}\\n-----END PRIVATE KEY-----\\n\"}}", body.replace('\n', "\\n")),
            noise(300, 59),
        ),
        (
            format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"),
            noise(301, 64),
        ),
        (
            format!("DefaultEndpointsProtocol=https;AccountName=a;AccountKey={}==;EndpointSuffix=core.windows.net", v(3)),
            v(3),
        ),
        (format!("https://hooks.slack.com/services/T0{}", v(4)), v(4)),
        (format!("password={}", v(5)), v(5)),
        (format!("passwd: {}", v(6)), v(6)),
        (format!("secret=\"{}\"", v(7)), v(7)),
        (format!("token: '{}'", v(8)), v(8)),
        (format!("api_key={}", v(9)), v(9)),
        (format!("{{\"password\": \"{}\"}}", v(10)), v(10)),
        (format!("https://x.io/cb?code=1&token={}&s=2", v(11)), v(11)),
        (format!("Authorization: Bearer {}", v(12)), v(12)),
        (format!("Authorization: Basic {}==", v(13)), v(13)),
        (format!("Bearer {}.{}", v(14), v(15)), v(14)),
        (format!("https://deploy:{}@git.example.com/r.git", v(16)), v(16)),
        (format!("<private>my bank pin is {}</private>", v(17)), v(17)),
        (format!("<PRIVATE>unclosed {}", v(18)), v(18)),
        (format!("curl -u admin:{} https://x.io", v(19)), v(19)),
        (format!("mytool --password {} --verbose", v(20)), v(20)),
    ]);
    out
}

/// The choke point for the log: every `Log` a module makes is redacted, at every level.
#[test]
fn log_lines_carry_no_secret() {
    use crate::protocol::Log;
    for (plant, secret) in plants() {
        let msg = format!("tool said: {plant} (exit 1)");
        for l in [
            Log::warn(msg.clone()),
            Log::debug(msg.clone()),
            Log::info(msg.clone()),
        ] {
            assert!(!l.message.contains(&secret), "{plant}: {}", l.message);
            assert!(l.message.starts_with("tool said: "), "{}", l.message);
            assert!(l.message.contains(MARKER), "{}", l.message);
            assert!(!l.message.contains('\n'), "still one line");
        }
    }
    // an ordinary message is untouched
    let ok = "memory search failed (timeout after 800 ms); decided without memories";
    assert_eq!(Log::warn(ok).message, ok);
}

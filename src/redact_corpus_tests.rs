//! The 51 secret forms of issue 29 (the 26 the redactor missed, the 25 that held), each with
//! what must remain, and the corpus it must not touch, in both builds (the lean one
//! persists text too). The fake secrets are assembled at run time.

use super::tests::{noise, r};
use super::*;

pub(crate) fn b64(s: &str) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in s.as_bytes().chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn hex(seed: u64, len: usize) -> String {
    noise(seed, len)
        .bytes()
        .map(|c| b"0123456789abcdef"[(c % 16) as usize] as char)
        .collect()
}

/// (form, text, the secrets that must go, what must remain).
pub(crate) fn forms() -> Vec<(&'static str, String, Vec<String>, Vec<&'static str>)> {
    let v = noise(500, 24);
    let v2 = noise(501, 24);
    let ghp = format!("ghp_{}", noise(502, 36));
    let aws_secret = format!("{}/{}+{}", noise(503, 18), noise(504, 10), noise(505, 10));
    let sg = format!("SG.{}.{}", noise(506, 22), noise(507, 43));
    let tg = format!("{}:AA{}", "123456789", noise(508, 33));
    let pem = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----",
        noise(509, 64)
    );
    let one = |s: &String| vec![s.clone()];
    vec![
        // ---- the 26 that were missed ----
        (
            "gitlab glpat-",
            format!("token glpat-{} here", noise(510, 20)),
            vec![noise(510, 20)],
            vec!["token ", " here"],
        ),
        (
            "gitlab glrt-",
            format!("runner: glrt-{}", noise(511, 20)),
            vec![noise(511, 20)],
            vec!["runner: "],
        ),
        (
            "yaml block scalar |",
            format!("password: |\n  {v}\n  {v2}\nuser: bob"),
            vec![v.clone(), v2.clone()],
            vec!["password: ", "\nuser: bob"],
        ),
        (
            "yaml block scalar >-",
            format!("- private_key: >-\n    {v}\n    {v2}\n  name: x"),
            vec![v.clone(), v2.clone()],
            vec!["private_key: ", "\n  name: x"],
        ),
        (
            "value on the next line",
            format!("DB_PASSWORD:\n{v}\nDB_USER: app"),
            one(&v),
            vec!["DB_PASSWORD:", "DB_USER: app"],
        ),
        (
            "base64 of key=value",
            format!("echo {} | base64 -d", b64(&format!("password={v}"))),
            vec![b64(&format!("password={v}"))[..16].to_string()],
            vec!["echo ", " | base64 -d"],
        ),
        (
            "base64 of a token",
            format!("GH_B64={} # ci", b64(&ghp)),
            vec![b64(&ghp)[..20].to_string()],
            vec!["GH_B64=", " # ci"],
        ),
        (
            "token split across lines",
            format!("{}\n{} next", &ghp[..20], &ghp[20..]),
            vec![ghp[4..20].to_string(), ghp[20..].to_string()],
            vec![" next"],
        ),
        (
            "mysql -pX",
            format!("mysql -u root -p{v} app_db"),
            one(&v),
            vec!["mysql -u root -p", " app_db"],
        ),
        (
            "sshpass -p",
            format!("sshpass -p {v} ssh deploy@host"),
            one(&v),
            vec!["sshpass -p ", " ssh deploy@host"],
        ),
        (
            "docker login -p",
            format!("docker login -u bob -p {v} registry.example.com"),
            one(&v),
            vec!["-u bob -p ", " registry.example.com"],
        ),
        (
            "SECRET_KEY_BASE",
            format!("SECRET_KEY_BASE={}", hex(512, 128)),
            vec![hex(512, 128)],
            vec!["SECRET_KEY_BASE="],
        ),
        (
            "API_KEY_2",
            format!("API_KEY_2={v}"),
            one(&v),
            vec!["API_KEY_2="],
        ),
        (
            "password1",
            format!("password1: {v}"),
            one(&v),
            vec!["password1: "],
        ),
        (
            "lowercase encryption_key",
            format!("encryption_key = \"{v}\""),
            one(&v),
            vec!["encryption_key = \""],
        ),
        (
            "SENTRY_DSN",
            format!(
                "SENTRY_DSN=https://{}@o12.ingest.sentry.io/34",
                hex(513, 32)
            ),
            vec![hex(513, 32)],
            vec!["SENTRY_DSN="],
        ),
        (
            "nested JSON secrets",
            format!("{{\"secrets\": {{\"db\": \"{v}\", \"api\": [\"{v2}\"]}}, \"name\": \"app\"}}"),
            vec![v.clone(), v2.clone()],
            vec!["{\"secrets\": ", ", \"name\": \"app\"}"],
        ),
        (
            "nested YAML secrets",
            format!("secrets:\n  db: {v}\n  api: {v2}\nname: app"),
            vec![v.clone(), v2.clone()],
            vec!["secrets:", "\nname: app"],
        ),
        (
            "bare AWS secret key",
            format!("the key is {aws_secret} ok"),
            one(&aws_secret),
            vec!["the key is ", " ok"],
        ),
        (
            "npm_",
            format!("use npm_{} now", noise(514, 36)),
            vec![noise(514, 36)],
            vec!["use ", " now"],
        ),
        ("SendGrid SG.", format!("key {sg}"), one(&sg), vec!["key "]),
        (
            "Vault hvs.",
            format!("VAULT hvs.{}", noise(515, 95)),
            vec![noise(515, 95)],
            vec!["VAULT "],
        ),
        (
            "DigitalOcean dop_v1_",
            format!("do dop_v1_{}", hex(516, 64)),
            vec![hex(516, 64)],
            vec!["do "],
        ),
        (
            "Telegram bot token",
            format!("bot {tg} and https://api.telegram.org/bot{tg}/getMe"),
            vec![tg[10..].to_string()],
            vec!["bot ", "https://api.telegram.org/", "/getMe"],
        ),
        (
            "key split by a zero-width character",
            format!("PASS\u{200b}WORD={v}"),
            one(&v),
            vec!["PASSWORD="],
        ),
        (
            "token in a note's title (file name)",
            String::new(),
            vec![noise(517, 20)],
            vec![],
        ),
        // ---- the 25 that held ----
        (
            "AWS access key id",
            format!("id AKIA{}", noise(518, 16).to_ascii_uppercase()),
            vec![noise(518, 16).to_ascii_uppercase()],
            vec!["id "],
        ),
        ("GitHub ghp_", format!("t {ghp}"), one(&ghp), vec!["t "]),
        (
            "GitHub github_pat_",
            format!("t github_pat_{}_{}", noise(519, 22), noise(520, 59)),
            vec![noise(520, 59)],
            vec!["t "],
        ),
        (
            "Anthropic sk-ant-",
            format!("k sk-ant-api03-{}AA", noise(521, 93)),
            vec![noise(521, 93)],
            vec!["k "],
        ),
        (
            "OpenAI sk-proj-",
            format!("k sk-proj-{}", noise(522, 48)),
            vec![noise(522, 48)],
            vec!["k "],
        ),
        (
            "Slack xoxb-",
            format!("s xoxb-1234567890-0987654321-{}", noise(523, 24)),
            vec![noise(523, 24)],
            vec!["s "],
        ),
        (
            "Stripe sk_live_",
            format!("s sk_live_{}", noise(524, 24)),
            vec![noise(524, 24)],
            vec!["s "],
        ),
        (
            "Google AIza",
            format!("g AIza{}", noise(525, 35)),
            vec![noise(525, 35)],
            vec!["g "],
        ),
        (
            "JWT",
            format!(
                "j eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}",
                noise(526, 30),
                noise(527, 43)
            ),
            vec![noise(527, 43)],
            vec!["j "],
        ),
        (
            "PEM private key",
            format!("k:\n{pem}\ndone"),
            vec![noise(509, 64)],
            vec!["k:\n", "\ndone"],
        ),
        (
            "<private> span",
            format!("a <private>pin {v}</private> b"),
            one(&v),
            vec!["a ", " b"],
        ),
        (
            "URL credentials",
            format!("git clone https://bob:{v}@h.io/r.git"),
            one(&v),
            vec!["git clone https://", "@h.io/r.git"],
        ),
        (
            "env password=",
            format!("password={v}"),
            one(&v),
            vec!["password="],
        ),
        (
            "YAML client_secret",
            format!("  client_secret: \"{v}\""),
            one(&v),
            vec!["client_secret: \""],
        ),
        (
            "JSON apiKey",
            format!("{{\"apiKey\": \"{v}\", \"n\": 1}}"),
            one(&v),
            vec!["{\"apiKey\": \"", "\", \"n\": 1}"],
        ),
        (
            "URL query token=",
            format!("https://x.io/?a=1&token={v}&p=2"),
            one(&v),
            vec!["https://x.io/?a=1&token=", "&p=2"],
        ),
        (
            "aws_secret_access_key",
            format!("aws_secret_access_key = {v}"),
            one(&v),
            vec!["aws_secret_access_key = "],
        ),
        (
            "Azure AccountKey",
            format!("AccountName=a;AccountKey={v}==;EndpointSuffix=x"),
            one(&v),
            vec!["AccountName=a;AccountKey=", ";EndpointSuffix=x"],
        ),
        (
            "Authorization header",
            format!("Authorization: Bearer {v}"),
            one(&v),
            vec!["Authorization: Bearer "],
        ),
        (
            "Bearer token in text",
            format!("use Bearer {v} for it"),
            one(&v),
            vec!["use Bearer ", " for it"],
        ),
        (
            "curl -u",
            format!("curl -u admin:{v} https://x.io"),
            one(&v),
            vec!["curl -u admin:", " https://x.io"],
        ),
        (
            "--token flag",
            format!("tool --token {v} --verbose"),
            one(&v),
            vec!["tool --token ", " --verbose"],
        ),
        (
            "Slack webhook",
            format!("https://hooks.slack.com/services/T0{v}"),
            one(&v),
            vec!["https://hooks.slack.com/services/"],
        ),
        (
            "GCP service account",
            format!(
                "{{\"private_key\": \"{}\", \"client_email\": \"x@p.iam\"}}",
                pem.replace('\n', "\\n")
            ),
            vec![noise(509, 64)],
            vec!["\"client_email\": \"x@p.iam\""],
        ),
        (
            "PHP array",
            format!("['password' => '{v}']"),
            one(&v),
            vec!["['password' => '", "']"],
        ),
    ]
}

#[test]
fn the_51_forms_are_redacted_and_the_rest_remains() {
    let forms = forms();
    assert_eq!(forms.len(), 51);
    let mut failed = Vec::new();
    for (form, text, secrets, remain) in &forms {
        if text.is_empty() {
            continue; // the file name: below
        }
        let out = r(text);
        let leaked: Vec<_> = secrets
            .iter()
            .filter(|s| out.contains(s.as_str()))
            .collect();
        let lost: Vec<_> = remain.iter().filter(|k| !out.contains(*k)).collect();
        if !leaked.is_empty() || !lost.is_empty() || !out.contains(MARKER) {
            failed.push(format!(
                "{form}: {text:?} -> {out:?} (leaked {leaked:?}, lost {lost:?})"
            ));
        }
        assert_eq!(r(&out), out, "{form}: redacting twice");
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// A note's title becomes its file name: no token in it, in any of the shapes the slug makes.
/// (`knowledge_remember` is the policy build's.)
#[cfg(feature = "policy")]
#[test]
fn a_token_in_a_title_is_not_a_file_name() {
    use crate::tools::remember::slug;
    for title in [
        format!("deploy with glpat-{}", noise(517, 20)),
        format!("key {}", noise(517, 20)),
        format!("ghp_{} rotated", noise(502, 36)),
        format!("do dop_v1_{}", hex(516, 64)),
        format!("password={}", noise(517, 20)),
    ] {
        let name = slug(&r(&title));
        let name2 = slug(&title);
        for n in [&name, &name2] {
            assert!(
                !n.contains(&noise(517, 20).to_lowercase()),
                "{title} -> {n}"
            );
            assert!(
                !n.contains(&noise(502, 36).to_lowercase()),
                "{title} -> {n}"
            );
            assert!(!n.contains(&hex(516, 64)), "{title} -> {n}");
            assert!(
                n.bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-'),
                "{n}"
            );
        }
    }
    // ordinary titles and commit ids keep their names
    assert_eq!(
        slug("Fix 9fceb02d0ae598e95dc970b74767f19372d61af8 regression"),
        "fix-9fceb02d0ae598e95dc970b74767f19372d61af8-regression"
    );
    assert_eq!(
        slug("Session tokens: the tokenizer"),
        "session-tokens-the-tokenizer"
    );
}

/// Over-redaction is a bug too: what the full redactor must leave byte for byte.
#[test]
fn the_full_redactor_leaves_ordinary_text_alone() {
    let corpus = [
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "9fceb02",
        "123e4567-e89b-12d3-a456-426614174000",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "\"content_hash\":\"sha256:4b1d0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b8\"",
        "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR",
        "password_field = form.fields[\"password\"]",
        "let password_field = \"pw\";",
        "tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")",
        "tokenizer: \"bert-base-uncased\"",
        "sort_key: createdAt",
        "cache_key = \"user:123:profile\"",
        "partition_key: created_at_2024_desc",
        "secretName: tls-cert",
        "keyboard_layout: us",
        "max_tokens: 4096",
        "MAX_TOKENS_2=100",
        "mkdir -p build/out",
        "ssh -p 2222 deploy@host",
        "docker run -p 8080:80 nginx",
        "gcc -pthread -o app main.c",
        "mysql -u root -p app_db",
        "if password:\n    check(password)\n",
        "def run(token):\n    return token\n",
        "Secrets management is described below.\nWe rotate keys monthly.",
        "The token:\nRefactor the parser next.",
        "README.md CONTRIBUTING.md package-lock.json",
        "See https://docs.example.com/api/v1/auth?lang=en",
        "PWD=/home/user/project",
        "x = base64.b64encode(data)",
        "SGVsbG8sIFdvcmxkIQ== is Hello, World!",
        "aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ= decodes to prose",
        "getUserAccountSettingsFromRemoteServer2 and other identifiers",
        "AbstractSingletonProxyFactoryBeanImpl42x",
        "ses_01JABCDEF0123456789ABCDEFG call_5f3a9b2c7d1e",
        "The hvs. prefix, the glpat- prefix and npm_ are token prefixes.",
        "Telegram uses ids like 123456789 and chats: 123456789:group",
        // a rule's prefix (ClickHouse's `4b1d`) in an id, then words or another id: not a token
        // flattened across spaces (found by the long fuzz run)
        "00000000-0000-4000-a000-4b1d00000000 aaaaaaaa aaaa eaa aaaaaaaa a commit",
        "4b1d0c44298fc1c149afbf4c8996fb92427ae41e 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "ghp_deadbeef and ghp_ then the rest of the sentence goes on for a while",
        "",
    ];
    for text in corpus {
        assert_eq!(r(text), text, "{text}");
    }
    // random hex and UUIDs
    for k in 0..300u64 {
        for text in [
            hex(k, 40),
            hex(k + 1000, 64),
            hex(k + 2000, 7),
            crate::governance::trace::uuid_v4([k as u8; 16]),
        ] {
            assert_eq!(r(&text), text);
            let line = format!(
                "{{\"revision\":\"{text}\",\"content_hash\":\"sha256:{}\"}}",
                hex(k + 3000, 64)
            );
            assert_eq!(r(&line), line);
        }
    }
}

/// Every kept gitleaks rule redacts a token of its own shape, planted in text.
#[test]
fn every_table_rule_redacts_its_own_shape() {
    for (k, rule) in super::rules::RULES.iter().enumerate() {
        let tok = super::table::example(rule, k as u64);
        let text = format!("before {tok} after");
        let out = r(&text);
        assert!(!out.contains(&tok), "rule {k}: {text:?} -> {out:?}");
        assert!(
            out.starts_with("before ") && out.ends_with(" after"),
            "{out:?}"
        );
    }
}

/// A block flattened onto one line, as in a note's title: the rest of the line goes.
#[test]
fn blocks_flattened_onto_one_line() {
    let (v, v2) = (noise(530, 24), noise(531, 24));
    for text in [
        format!("password: | {v} {v2}"),
        format!("private_key: >- {v} {v2}"),
        format!("secrets: db: {v} api: {v2}"),
    ] {
        let out = r(&text);
        assert!(
            !out.contains(&v) && !out.contains(&v2),
            "{text:?} -> {out:?}"
        );
    }
    // a wrapped token flattened onto one line
    let ghp = format!("ghp_{}", noise(532, 36));
    let out = r(&format!("{} {} next", &ghp[..20], &ghp[20..]));
    assert!(
        !out.contains(&ghp[4..20]) && !out.contains(&ghp[20..]),
        "{out}"
    );
    assert!(out.ends_with(" next"), "{out}");
    assert_eq!(
        r("ghp_short then we talked about the weather"),
        "ghp_short then we talked about the weather"
    );
    // a value that ends in `:` under an ordinary key stays
    assert_eq!(r("note: see: below"), "note: see: below");
}

//! Issue 38: the credential forms that persisted (gitleaks' keyword rules, rules with no
//! literal prefix, forms gitleaks has no rule for, four that regressed), each in every path
//! that persists text: a note's body, its title and file name, the compaction memory, and an
//! Agent Trace path; every gitleaks keyword rule with a value of its own shape; and what must
//! stay untouched. The fake secrets are assembled at run time.

use super::corpus_tests::b64;
use super::tests::{noise, r};
use super::*;

fn hex(seed: u64, len: usize) -> String {
    noise(seed, len)
        .bytes()
        .map(|c| b"0123456789abcdef"[(c % 16) as usize] as char)
        .collect()
}

fn lower(seed: u64, len: usize) -> String {
    noise(seed, len)
        .bytes()
        .map(|c| b"abcdefghijklmnopqrstuvwxyz0123456789"[(c % 36) as usize] as char)
        .collect()
}

/// (form, text, the secrets that must go, what must remain).
fn forms() -> Vec<(&'static str, String, Vec<String>, Vec<&'static str>)> {
    let v = noise(600, 24);
    let az = format!("{}8Q~{}", noise(601, 3), noise(602, 31));
    let aws = {
        // 40 of base62, no `/` or `+`, random-looking
        let mut s = noise(603, 40);
        s.replace_range(0..4, "Ab3D");
        s.replace_range(10..14, "x7Y9");
        s
    };
    let putty_lines = [noise(604, 64), noise(605, 64), noise(606, 20)];
    let k8s = [b64(&noise(607, 12)), b64(&noise(608, 18))];
    let discord_bot = format!("MT{}.{}.{}", noise(609, 22), noise(610, 6), noise(611, 27));
    let one = |s: &String| vec![s.clone()];
    vec![
        (
            "azure-ad-client-secret",
            format!("AZURE_CLIENT_SECRET_VALUE {az} end"),
            one(&az),
            vec![" end"],
        ),
        (
            "twilio-api-key",
            format!("twilio sid SK{} ok", hex(612, 32)),
            vec![hex(612, 32)],
            vec!["twilio sid ", " ok"],
        ),
        (
            "microsoft-teams-webhook",
            format!(
                "post to https://acme.webhook.office.com/webhookb2/{}-aaaa-bbbb-cccc-{}@{}-aaaa-bbbb-cccc-{}/IncomingWebhook/{}/{}-aaaa-bbbb-cccc-{} now",
                lower(613, 8), lower(614, 12), lower(615, 8), lower(616, 12), lower(617, 32), lower(618, 8), lower(619, 12)
            ),
            vec![lower(617, 32), lower(614, 12)],
            vec!["post to https://acme.webhook.office.com/webhookb2/", " now"],
        ),
        (
            "atlassian-api-token (keyword)",
            format!("JIRA_API_TOKEN_VALUE = \"{}{}\"", lower(620, 20), hex(621, 4)),
            vec![lower(620, 20)],
            vec!["JIRA_API_TOKEN_VALUE = \""],
        ),
        (
            "atlassian-api-token (ATATT3)",
            format!("token ATATT3{} here", noise(622, 186)),
            vec![noise(622, 186)],
            vec!["token ", " here"],
        ),
        (
            "mailgun-private-api-token",
            format!("mailgun_private: key-{}", hex(623, 32)),
            vec![hex(623, 32)],
            vec!["mailgun_private: "],
        ),
        (
            "new-relic-user-api-key",
            format!("NEW_RELIC_USER = 'NRAK-{}'", lower(624, 27).to_uppercase()),
            vec![lower(624, 27).to_uppercase()],
            vec!["NEW_RELIC_USER = '"],
        ),
        (
            "twitter-api-key",
            format!("twitter_consumer: {}", lower(625, 25)),
            vec![lower(625, 25)],
            vec!["twitter_consumer: "],
        ),
        (
            "Azure SAS sig=",
            format!(
                "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&ss=b&sig={}%2B{}%3D&se=x",
                noise(626, 30),
                noise(627, 12)
            ),
            vec![noise(626, 30), noise(627, 12)],
            vec!["https://acct.blob.core.windows.net/c/f?sv=2022-11-02&ss=b&sig=", "&se=x"],
        ),
        (
            "Google ya29.",
            format!("Authorization token ya29.{} expires", noise(628, 60)),
            vec![noise(628, 60)],
            vec![" expires"],
        ),
        (
            ".netrc (one line)",
            format!("machine api.example.com login bob password {v}"),
            one(&v),
            vec!["machine api.example.com login bob password "],
        ),
        (
            ".netrc (lines)",
            format!("machine api.example.com\n  login bob\n  password {v}\n"),
            one(&v),
            vec!["machine api.example.com\n  login bob\n  password "],
        ),
        (
            ".pgpass",
            format!("db.example.com:5432:app:admin:{v}\n*:*:*:ro:{}", noise(629, 16)),
            vec![v.clone(), noise(629, 16)],
            vec!["db.example.com:5432:app:admin:", "*:*:*:ro:"],
        ),
        (
            "PuTTY private key",
            format!(
                "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: k\nPublic-Lines: 1\nAAAAB3NzaC1yc2E\nPrivate-Lines: 3\n{}\n{}\n{}\nPrivate-MAC: {}\n",
                putty_lines[0], putty_lines[1], putty_lines[2], hex(630, 40)
            ),
            vec![putty_lines[0].clone(), putty_lines[2].clone(), hex(630, 40)],
            vec!["PuTTY-User-Key-File-2: ssh-rsa", "Private-Lines: 3\n"],
        ),
        (
            "Discord bot token",
            format!("DISCORD {discord_bot} ok"),
            one(&discord_bot),
            vec!["DISCORD ", " ok"],
        ),
        (
            "Discord webhook",
            format!("https://discord.com/api/webhooks/123456789012345678/{} go", noise(631, 68)),
            vec![noise(631, 68)],
            vec!["https://", " go"],
        ),
        (
            "WordPress define",
            format!("define( 'DB_PASSWORD', '{v}' );\ndefine('AUTH_SALT', '{}');", noise(632, 40)),
            vec![v.clone(), noise(632, 40)],
            vec!["define( 'DB_PASSWORD', '", "' );"],
        ),
        (
            "bare AWS secret key, no / or +",
            format!("the key is {aws} ok"),
            one(&aws),
            vec!["the key is ", " ok"],
        ),
        (
            "Kubernetes Secret data",
            format!(
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {}\n  token: {}\n",
                k8s[0], k8s[1]
            ),
            vec![k8s[0].clone(), k8s[1].clone()],
            vec!["kind: Secret", "name: db"],
        ),
        (
            "Vault hvs. (short)",
            format!("Root Token: hvs.{}", noise(633, 24)),
            vec![noise(633, 24)],
            vec!["Root Token: "],
        ),
        (
            "Telegram bot token (the documentation's shape)",
            format!("bot 123456:ABC{}", noise(634, 31)),
            vec![noise(634, 31)],
            vec!["bot "],
        ),
        (
            "XML value=",
            format!("<add key=\"ClearTextPassword\" value=\"{v}\" />"),
            one(&v),
            vec!["<add key=\"ClearTextPassword\" value=\"", "\" />"],
        ),
        (
            "HashiCorp Terraform token",
            format!("tf {}.atlasv1.{}", lower(635, 14), noise(636, 64)),
            vec![noise(636, 64)],
            vec!["tf "],
        ),
    ]
}

/// What persists of `text` in each path: (path, the texts written).
fn persisted(text: &str) -> Vec<(&'static str, Vec<String>)> {
    use crate::session::compaction::{memory_content, scan_texts, session_decisions, MessageText};
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let title: String = r(&flat).chars().take(200).collect();
    #[cfg_attr(not(feature = "policy"), allow(unused_mut))]
    let mut titles = vec![title.clone()];
    #[cfg(feature = "policy")]
    titles.push(crate::tools::remember::slug(&title));
    let msgs = vec![MessageText {
        role: "assistant".into(),
        text: format!("We decided to go with this: {flat}"),
    }];
    let d = session_decisions(&scan_texts(&msgs));
    vec![
        ("body", vec![r(text)]),
        ("title", titles),
        ("compaction", vec![memory_content("p", "s", 0.0, &[], &d)]),
    ]
}

#[test]
fn the_forms_of_issue_38_persist_nowhere() {
    let mut failed = Vec::new();
    for (form, text, secrets, remain) in forms() {
        for (path, outs) in persisted(&text) {
            for out in &outs {
                let low = out.to_lowercase();
                let leaked: Vec<_> = secrets
                    .iter()
                    .filter(|s| out.contains(s.as_str()) || low.contains(&s.to_lowercase()))
                    .collect();
                if !leaked.is_empty() {
                    failed.push(format!("{form} ({path}): {out:?} leaked {leaked:?}"));
                }
            }
        }
        let out = r(&text);
        let lost: Vec<_> = remain.iter().filter(|k| !out.contains(*k)).collect();
        if !lost.is_empty() {
            failed.push(format!("{form}: {text:?} -> {out:?} lost {lost:?}"));
        }
        assert_eq!(r(&out), out, "{form}: redacting twice");
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Every gitleaks keyword rule redacts a value of its own shape after a key that holds one of
/// its keywords, in env, YAML and JSON form.
#[test]
fn every_context_rule_redacts_its_own_shape() {
    use super::rules::{CTX, KEYWORDS};
    let mut k = 0;
    let mut n = 0;
    let mut failed = Vec::new();
    while k < KEYWORDS.len() {
        let len = KEYWORDS[k] as usize;
        let kw = String::from_utf8_lossy(&KEYWORDS[k + 1..k + 1 + len]).into_owned();
        let at16 = |x: usize| u16::from_le_bytes([KEYWORDS[x], KEYWORDS[x + 1]]) as usize;
        let (mut p, e) = (at16(k + 1 + len), at16(k + 3 + len));
        k += len + 5;
        while p < e {
            let rule = &CTX[p + 1..p + 1 + CTX[p] as usize];
            p += 1 + CTX[p] as usize;
            let tok = super::table::example(rule, (p * 7 + len) as u64);
            for text in [
                format!("my_{kw}_secret_value = {tok}\nnext"),
                format!("{kw}:\n  id: 1\n{kw}_key: \"{tok}\""),
                format!("{{\"{kw}\": \"{tok}\", \"n\": 1}}"),
            ] {
                n += 1;
                let out = r(&text);
                if out.contains(&tok) {
                    failed.push(format!("{kw}: {text:?} -> {out:?}"));
                }
            }
        }
    }
    assert!(n > 250, "{n}");
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// A token used as a file name: its segment redacted in the trace's paths; ordinary paths kept.
#[test]
fn trace_paths_lose_their_credential_segments() {
    let ghp = format!("ghp_{}", noise(640, 36));
    let glpat = format!("glpat-{}", noise(641, 20));
    for (path, gone, kept) in [
        (format!("notes/{ghp}.md"), ghp.clone(), "notes/"),
        (
            format!("{glpat}/config.json"),
            glpat.clone(),
            "/config.json",
        ),
        (format!("a\\b\\{ghp}"), ghp.clone(), "a\\b\\"),
    ] {
        let out = redact_path(&path);
        assert!(
            !out.contains(&gone) && out.contains(kept) && out.contains(MARKER),
            "{out}"
        );
    }
    for path in [
        "src/components/Button2/IndexPageFooterXY",
        "src/auth/token.ts",
        "docs/secrets-management.md",
        "tests/fixtures/password_field.json",
        ".orchestration/agent_trace.jsonl",
        "9fceb02d0ae598e95dc970b74767f19372d61af8/README.md",
        "src/AbstractSingletonProxyFactoryBeanImpl42x.java",
        "",
    ] {
        assert_eq!(redact_path(path), path);
    }
    // the record writer: every path of a record
    let mut paths = vec![format!("notes/{ghp}.md"), "src/a.ts".to_string()];
    redact_paths(paths.iter_mut());
    assert!(
        !paths[0].contains(&ghp) && paths[1] == "src/a.ts",
        "{paths:?}"
    );
}

/// Over-redaction is a bug too: the new readers leave these byte for byte.
#[test]
fn the_new_readers_leave_ordinary_text_alone() {
    let corpus = [
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  app.properties: bG9nPWRlYnVn\n  mode: fast\n",
        "data:\n  - 1\n  - 2\n",
        "the login form has a password field and a reset link",
        "Enter your login, then your password twice.",
        "linear: 0.5\nlinear_model: ridge",
        "twitter: @hookwise\ntwitter_handle: hookwise_dev",
        "define('WP_DEBUG', false);\ndefine('WP_HOME', 'https://example.com');",
        "<add key=\"Theme\" value=\"dark\" />",
        "at 12:30:45 the job ran; fe80::1 and 2001:db8::1 answered",
        "ping db.example.com:5432 and cache.example.com:6379",
        "the signature: John Smith",
        "Private-Lines are what PuTTY calls them.",
        "getUserAccountSettingsFromRemoteServer2 and other identifiers",
        "AbstractSingletonProxyFactoryBeanImpl42x",
        "MyComponentNameForTheSettingsPageV2.tsx and MyComponentName.test.tsx",
        "telegram: 123456789 and 123456:short",
        "global_settings = { blob: 'x' }",
        "heroku run rails console",
        "the sumo wrestler, the okta login page, the jira ticket PROJ-1234",
        "~/.config/app and C:\\Users\\me\\AppData and a~b~c",
        "facebook id 1234567890123456 in the text",
    ];
    for text in corpus {
        assert_eq!(r(text), text, "{text}");
    }
}

#[test]
#[ignore = "prints"]
fn print_forms() {
    for (form, text, _, _) in forms() {
        eprintln!(
            "{form}:\n  {}\n  {:?}",
            r(&text).replace('\n', "\n  "),
            persisted(&text)[1].1
        );
    }
}

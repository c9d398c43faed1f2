//! `.opencode/hookwise.json` and plugin options: `config::merge_file_options`,
//! `Config::from_sources`, the session, MCP and governance option readers, the enforcement
//! schema (`enforce::schema::validate`) and `enforce::Settings::from_value`; then the whole
//! path through the engine's `init` with a hostile file. Nothing fails start-up: bad values
//! warn and fall back, numbers stay within their documented bounds.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use hookwise::config::{self, Config, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS};
use hookwise::enforce::{schema, Settings};
use hookwise::governance::GovConfig;
use hookwise::mcp::McpOptions;
use hookwise::session::SessionConfig;
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::common::{check, json_with, mutate, nasty_string, number_text, J};
use hookwise::testing::bound::Bounded;
use hookwise::testing::TestHost;

/// Every option key the schema names, at any depth (the keys a hostile file would try).
fn keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    fn walk(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(p)) = m.get("properties") {
                    out.extend(p.keys().cloned());
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    KEYS.get_or_init(|| {
        let mut out = BTreeSet::new();
        walk(
            &serde_json::from_str(schema::SCHEMA_TEXT).unwrap(),
            &mut out,
        );
        out.into_iter()
            .map(|k| &*Box::leak(k.into_boxed_str()))
            .collect()
    })
}

fn value_text() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => Just("auto".to_string()),
        1 => Just("strict".to_string()),
        1 => Just("advisory".to_string()),
        1 => Just("cli".to_string()),
        1 => Just("(a+)+$".to_string()),
        1 => number_text(),
        3 => nasty_string(),
    ]
}

/// An options object (or something that should have been one) as JSON text.
fn options_text() -> impl Strategy<Value = J> {
    let v = json_with(keys(), value_text().boxed());
    prop_oneof![
        4 => prop::collection::vec((prop::sample::select(keys()), v.clone()), 0..8).prop_map(J::obj),
        1 => v,
    ]
}

fn parse(j: &J) -> Value {
    serde_json::from_str(&j.text()).unwrap_or(Value::Null)
}

fn env() -> impl Strategy<Value = BTreeMap<String, String>> {
    prop::collection::btree_map(
        prop::sample::select(
            &[
                "MAENIFOLD_CLI",
                "MAENIFOLD_TIMEOUT",
                "HOOKWISE_TRANSPORT",
                "HOOKWISE_VAULT",
                "HOOKWISE_BYPASS",
                "PATH",
            ][..],
        )
        .prop_map(str::to_string),
        prop_oneof![value_text(), Just("  250  ".to_string())],
        0..4,
    )
}

#[test]
fn file_options_merge_under_the_plugin_options() {
    check(
        "config: merge_file_options (any file text)",
        384,
        (
            options_text(),
            prop_oneof![
                2 => options_text().prop_map(|j| j.text().into_bytes()),
                1 => mutate(options_text().prop_map(|j| j.text().into_bytes())),
            ],
        ),
        |(opts, file)| {
            let opts = parse(&opts);
            let file = String::from_utf8_lossy(&file).into_owned();
            let (merged, logs) = config::merge_file_options(
                &opts,
                &Ok(Some(file.clone())),
                ".opencode/hookwise.json",
            );
            let Value::Object(m) = &merged else {
                return Err(TestCaseError::fail(format!("not an object: {merged}")));
            };
            if let Value::Object(o) = &opts {
                for (k, v) in o {
                    prop_assert_eq!(m.get(k), Some(v), "the plugin's {} wins", k);
                }
            }
            // a file nested past the bound is refused like an unusable one (src/bounded.rs)
            let refused = logs.iter().any(|l| l.message.contains("deeper than"));
            match serde_json::from_str::<Value>(&file) {
                Ok(Value::Object(_)) if refused => {}
                Ok(Value::Object(f)) => {
                    for k in f.keys() {
                        prop_assert!(m.contains_key(k));
                    }
                }
                _ => prop_assert!(!logs.is_empty(), "an unusable file is reported"),
            }
            Ok(())
        },
    );
}

#[test]
fn option_readers_take_anything_and_keep_their_bounds() {
    check(
        "config: Config/Session/MCP/governance options, schema, Settings",
        384,
        (options_text(), env()),
        |(opts, env)| {
            let opts = parse(&opts);
            let (c, _) = Config::from_sources(&opts, &env);
            prop_assert!((MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS).contains(&c.timeout_ms));
            prop_assert!((100..=60_000).contains(&c.deadline_ms));
            prop_assert!((50..=100_000).contains(&c.token_budget));
            prop_assert!((1..=50).contains(&c.max_concepts));
            prop_assert!((1..=2).contains(&c.depth));
            prop_assert!((1..=100).contains(&c.max_entities));
            prop_assert!(["auto", "maenifold", "vault"].contains(&c.knowledge.as_str()));
            let _ = SessionConfig::from_sources(&opts, &env);
            let _ = McpOptions::from_sources(&opts, &env, 5000);
            let _ = GovConfig::from_options(opts.get("governance"));
            let (valid, _issues) = schema::validate(&opts, "plugin options");
            let mut issues = Vec::new();
            let e = valid.get("enforcement").cloned().unwrap_or(Value::Null);
            let s = Settings::from_value(&e, ".opencode/hookwise.json", &mut issues);
            prop_assert!(s.thresholds.strict.is_finite() && s.thresholds.advisory.is_finite());
            // the schema's survivors validate again without a problem
            let (again, issues2) = schema::validate(&valid, "plugin options");
            prop_assert_eq!(&again, &valid);
            prop_assert!(issues2.is_empty(), "{:?}", issues2);
            // unvalidated values go to Settings too (it must not trust the schema)
            let raw = opts.get("enforcement").cloned().unwrap_or(Value::Null);
            let _ = Settings::from_value(&raw, "x", &mut Vec::new());
            Ok(())
        },
    );
}

/// The whole start: a hostile `.opencode/hookwise.json` and hostile plugin options through
/// the engine's `init`, then a tool call.
#[test]
fn init_with_any_configuration_returns() {
    check(
        "config: engine init with any hookwise.json",
        64,
        (
            options_text(),
            prop_oneof![
                2 => options_text().prop_map(|j| j.text().into_bytes()),
                1 => mutate(options_text().prop_map(|j| j.text().into_bytes())),
            ],
        ),
        |(opts, file)| {
            let mut fs = TestHost::default();
            fs.file(
                "/w/.opencode/hookwise.json",
                &String::from_utf8_lossy(&file),
            );
            fs.file(
                "/w/.opencode/sops/x.md",
                "---\nkeywords: [deploy]\n---\n# X\n",
            );
            let mut h = Bounded::on(fs);
            let call = J::obj(vec![
                ("hook", J::str("init")),
                ("cwd", J::str("/w")),
                ("worktree", J::str("/w")),
                ("directory", J::str("/w")),
                ("env", J::obj(vec![("PATH", J::str("/nowhere"))])),
                ("options", opts),
            ]);
            let r = h.call(call.text().as_bytes());
            if let Ok(r) = r {
                prop_assert!(r.is_object(), "{r}");
                let _ = h.call_json(&json!({"hook": "tool.before", "tool": "bash",
                    "sessionId": "s", "callId": "c", "args": {"command": "deploy now"}}));
                let _ = h.call_json(&json!({"hook": "doctor"}));
            }
            Ok(())
        },
    );
}

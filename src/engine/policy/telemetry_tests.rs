use super::*;

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

const EP: (&str, &str) = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");

#[test]
fn off_by_default_and_on_only_with_an_endpoint_from_the_environment() {
    let none = json!({});
    assert!(!Settings::from(&none, &env(&[])).on);
    // an endpoint alone (set for the agent's own telemetry) does not turn hookwise's on
    assert!(!Settings::from(&none, &env(&[EP])).on);
    assert!(Settings::from(&none, &env(&[EP, ("HOOKWISE_OTEL", "1")])).on);
    // the project's option turns it on, to the user's endpoint only
    let opt = json!({"telemetry": {"otlp": true}});
    assert!(Settings::from(&opt, &env(&[EP])).on);
    let s = Settings::from(&opt, &env(&[]));
    assert!(
        !s.on && s.why.contains("no OTEL_EXPORTER_OTLP_ENDPOINT"),
        "{}",
        s.why
    );
    // a per-signal endpoint counts
    let traces = (
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "http://127.0.0.1:4318/v1/traces",
    );
    assert!(Settings::from(&opt, &env(&[traces])).on);
    // the user's environment turns it off whatever the project says
    assert!(!Settings::from(&opt, &env(&[EP, ("OTEL_SDK_DISABLED", "true")])).on);
    assert!(!Settings::from(&opt, &env(&[EP, ("HOOKWISE_OTEL", "0")])).on);
    // the project cannot turn off what the user turned on
    let off = json!({"telemetry": {"otlp": false}});
    assert!(Settings::from(&off, &env(&[EP, ("HOOKWISE_OTEL", "1")])).on);
    // content only from the environment
    assert!(!Settings::from(&opt, &env(&[EP])).content);
    assert!(Settings::from(&opt, &env(&[EP, ("HOOKWISE_OTEL_CONTENT", "1")])).content);
}

fn blocked<'a>(args: &'a Value, concepts: &'a [String]) -> ToolDecision<'a> {
    ToolDecision {
        host: "claude-code",
        tool: "Write",
        call_id: "toolu_1",
        session_id: "s-1",
        decision: "blocked",
        rule: "scope",
        intent: Some("INT-1"),
        classes: &["out_of_scope"],
        concepts,
        args: Some(args),
        reason: Some("hookwise blocked `Write`: src/x.ts is outside the scope"),
        ..Default::default()
    }
}

#[test]
fn a_decision_is_an_execute_tool_span_with_the_gen_ai_and_hookwise_attributes() {
    let args = json!({"file_path": "/p/src/x.ts", "content": "AKIAIOSFODNN7EXAMPLE"});
    let concepts = vec!["auth".to_string()];
    let v = decision(&blocked(&args, &concepts), &Settings::default());
    assert_eq!(v["signal"], "span");
    assert_eq!(v["name"], "execute_tool Write");
    let a = &v["attrs"];
    assert_eq!(a["gen_ai.operation.name"], "execute_tool");
    assert_eq!(a["gen_ai.tool.name"], "Write");
    assert_eq!(a["gen_ai.tool.call.id"], "toolu_1");
    assert_eq!(a["hookwise.decision"], "blocked");
    assert_eq!(a["hookwise.rule"], "scope");
    assert_eq!(a["hookwise.intent.id"], "INT-1");
    assert_eq!(a["hookwise.path.classes"], json!(["out_of_scope"]));
    assert_eq!(a["hookwise.knowledge.concepts"], 1);
    assert_eq!(v["status"]["code"], "error");
    // no content without the option: neither the arguments, the reason nor the concept names
    let text = v.to_string();
    assert!(
        !text.contains("x.ts") && !text.contains("AKIA") && !text.contains("auth"),
        "{text}"
    );
    assert_eq!(v["count"][0]["name"], "hookwise.decisions");
    assert_eq!(v["count"][0]["attrs"]["hookwise.rule"], "scope");
    assert_eq!(v["latency"]["name"], "hookwise.hook.duration");
}

#[test]
fn content_goes_only_when_asked_and_redacted() {
    let args = json!({"file_path": "/p/src/x.ts", "content": "key AKIAIOSFODNN7EXAMPLE"});
    let concepts = vec!["auth".to_string()];
    let s = Settings {
        on: true,
        content: true,
        why: String::new(),
    };
    let v = decision(&blocked(&args, &concepts), &s);
    let a = v["attrs"]["gen_ai.tool.call.arguments"].as_str().unwrap();
    assert!(
        a.contains("x.ts") && !a.contains("AKIAIOSFODNN7EXAMPLE"),
        "{a}"
    );
    assert!(v["attrs"]["hookwise.block.reason"].is_string());
    assert_eq!(v["attrs"]["hookwise.knowledge.names"], json!(["auth"]));
}

#[test]
fn a_hook_without_a_decision_exports_its_latency_and_every_event_names_the_hook() {
    let t = HookTel {
        host: "claude-code",
        event: "UserPromptSubmit".into(),
        result: None,
    };
    let mut v = json!({"text": "{}"});
    t.finish(&mut v, Vec::new());
    assert_eq!(v["telemetry"][0]["signal"], "none");
    assert_eq!(
        v["telemetry"][0]["latency"]["attrs"]["hookwise.hook.event"],
        "UserPromptSubmit"
    );
    let r = recorded(&Recorded {
        host: "claude-code",
        tool: "Write",
        call_id: "c",
        session_id: "s",
        id: "rec-1",
        line_hash: Some("ab"),
        class: Some("INTENT_EVOLUTION"),
        intent: Some("INT-1"),
        model: Some("claude-x"),
    });
    let t = HookTel {
        host: "claude-code",
        event: "PostToolUse".into(),
        result: Some("password=hunter2hunter2".into()),
    };
    let mut v = json!({});
    t.finish(&mut v, vec![r]);
    let a = &v["telemetry"][0]["attrs"];
    assert_eq!(a["hookwise.hook.event"], "PostToolUse");
    assert_eq!(a["hookwise.record.id"], "rec-1");
    assert!(!a["gen_ai.tool.call.result"]
        .as_str()
        .unwrap()
        .contains("hunter2hunter2"));
}

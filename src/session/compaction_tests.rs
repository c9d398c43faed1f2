//! Compaction driven by the session tests' scripted host: concepts and decisions kept, the
//! budget honoured, fallbacks, and nothing secret persisted.

use serde_json::{json, Value};

use super::*;

// ---- compaction ----

fn conversation() -> Value {
    json!({"messages": [
        {"role": "user", "text": "## Knowledge Graph Context\n\n- [[injected-concept]]"},
        {"role": "user", "text": "Rework [[auth]] to use [[JWT]]. Should we keep cookies?"},
        {"role": "assistant", "text": "We decided to use RS256 for [[jwt]] signing. I chose [[redis]] over memcached for the [[session-store]].\n```\nwe will not see this\n```"},
        {"role": "user", "text": "Ok, going with that. Let's use [[redis]] streams instead of polling."},
    ]})
}

#[test]
fn compaction_keeps_concepts_and_decisions_and_writes_a_memory() {
    let mut w = World::new(20);
    w.sim.host.messages = Some(conversation());
    let op = w.compact(Some(source()), "ses_1", cfg());
    w.sim.run();
    let r = w.sim.result(op).clone();
    let block = r["context"][0].as_str().unwrap();
    assert_eq!(r["context"].as_array().unwrap().len(), 1);
    assert!(block.starts_with(compaction::BLOCK_TITLE));
    assert!(block.contains("lowercase, hyphen-separated"));
    assert!(
        block.contains("Session concepts: [[jwt]], [[redis]], [[auth]], [[session-store]]"),
        "{block}"
    );
    assert!(!block.contains("injected-concept"));
    assert!(block.contains("- We decided to use RS256 for [[jwt]] signing."));
    assert!(block.contains("- I chose [[redis]] over memcached for the [[session-store]]."));
    assert!(block.contains("- Let's use [[redis]] streams instead of polling."));
    assert!(!block.contains("we will not see this"));
    assert!(!block.contains("Should we keep cookies"));
    assert!(block.chars().count() / 4 < 500);

    let write = w.sim.first("WriteMemory");
    assert!(write.json);
    assert_eq!(write.payload["folder"], "sessions/compaction/2026/02/18");
    assert_eq!(
        write.payload["tags"],
        json!(["compaction", "session", "hookwise"])
    );
    let content = write.payload["content"].as_str().unwrap();
    assert!(
        content.contains("[[hookwise]]")
            && content.contains("- [[jwt]]")
            && content.contains("RS256")
    );
    assert_eq!(r["memory"], "memory://sessions/compaction/2026/02/18/x");
    assert_eq!(r["logs"][0]["level"], "debug");
    assert_eq!(w.sim.done_at(op), 25, "messages 5 ms, WriteMemory 20 ms");
}

#[test]
fn compaction_without_a_cli_still_gives_the_block() {
    let mut w = World::new(20);
    w.sim.host.messages = Some(conversation());
    let op = w.compact(None, "ses_1", cfg());
    w.sim.run();
    let r = w.sim.result(op);
    assert!(r["context"][0].as_str().unwrap().contains("[[redis]]"));
    assert!(w.sim.calls().is_empty());
    assert!(r.get("memory").is_none());
    assert_eq!(r["logs"][0]["level"], "debug");
}

#[test]
fn compaction_with_a_failing_cli_gives_the_block_and_one_warning() {
    for (name, answer) in failing_answers() {
        let mut w = World::new(20);
        w.sim = Sim::new(move |_, _| answer.clone());
        w.sim.host.messages = Some(conversation());
        let c = cfg();
        let op = w.compact(Some(source()), "ses_1", c.clone());
        w.sim.run();
        let r = w.sim.result(op);
        let block = r["context"][0].as_str().unwrap();
        assert!(block.starts_with(compaction::BLOCK_TITLE), "{name}");
        assert!(block.contains("[[jwt]]"), "{name}");
        assert!(r.get("memory").is_none(), "{name}");
        let logs = r["logs"].as_array().unwrap();
        assert_eq!(logs.len(), 1, "{name}");
        assert_eq!(logs[0]["level"], "warn", "{name}");
        assert!(
            w.sim.done_at(op) <= c.compaction_timeout_ms,
            "{name}: within the budget"
        );
    }
}

#[test]
fn compaction_never_outlasts_its_budget() {
    // the host never answers the messages request, and WriteMemory hangs: guidance only, on time
    let mut w = World::new(20);
    w.sim.host.faults.hang_messages = true;
    let c = SessionConfig {
        compaction_timeout_ms: 1500,
        ..cfg()
    };
    let op = w.compact(Some(source()), "ses_1", c.clone());
    w.sim.run();
    let r = w.sim.result(op).clone();
    assert_eq!(w.sim.done_at(op), 1500);
    let block = r["context"][0].as_str().unwrap();
    assert!(block.contains("[[WikiLinks]]") && !block.contains("Session concepts"));
    assert!(r["logs"][0]["message"]
        .as_str()
        .unwrap()
        .contains("fetching the session's messages"));

    let mut w = World::new(20);
    w.sim = Sim::new(|_, _| Proc::Hang);
    w.sim.host.messages = Some(conversation());
    let op = w.compact(Some(source()), "ses_1", c);
    w.sim.run();
    let r = w.sim.result(op).clone();
    assert_eq!(w.sim.done_at(op), 1500);
    assert!(
        r["context"][0].as_str().unwrap().contains("[[jwt]]"),
        "the block is kept"
    );
    assert!(r["logs"][0]["message"]
        .as_str()
        .unwrap()
        .contains("writing the compaction memory"));
    let write = w.sim.first("WriteMemory");
    assert!(w.sim.host.cancelled.contains(&write.id));
}

#[test]
fn compaction_falls_back_to_the_session_start_concepts() {
    let mut w = World::new(20);
    let created = w.created("ses_1", None, cfg());
    w.sim.run();
    let start_concepts = w.sim.result(created)["concepts"].clone();
    w.sim.host.messages = Some(json!({"error": "session not found"}));
    let op = w.compact(None, "ses_1", cfg());
    w.sim.run();
    let r = w.sim.result(op);
    assert_eq!(r["concepts"], start_concepts);
    assert!(r["context"][0]
        .as_str()
        .unwrap()
        .contains("[[authentication]]"));
    assert!(r["logs"][0]["message"]
        .as_str()
        .unwrap()
        .contains("session not found"));
    assert_eq!(r["logs"][0]["level"], "warn");
    // a reply that is not the documented shape is reported, not a panic
    w.sim.host.messages = Some(json!({"messages": "nope"}));
    let op = w.compact(None, "ses_2", cfg());
    w.sim.run();
    assert!(w.sim.result(op)["logs"][0]["message"]
        .as_str()
        .unwrap()
        .contains("bad session messages reply"));
}

// ---- nothing secret is persisted ----

/// Every kind of secret, planted as an attacker (or a careless user) would: pasted in a user
/// message, repeated in the assistant's decision, and as a WikiLink concept. What maenifold is
/// asked to persist (the WriteMemory request), the compaction's result (the block for the
/// summary prompt, concepts, decisions) and its log hold none of them; the decision itself is
/// kept, with a marker where the secret was.
#[test]
fn compaction_persists_no_secret() {
    for (plant, secret) in crate::redact::tests::plants() {
        let mut msgs = vec![
            json!({"role": "user", "text": format!("Deploy with this:\n{plant}\nthanks")}),
            json!({"role": "assistant", "text": format!("For the [[deploy]] step we decided to use {plant} as given.")}),
        ];
        if !plant.contains([' ', '\n']) {
            msgs.push(json!({"role": "user", "text": format!("Keep [[{plant}]] in mind.")}));
        }
        let mut w = World::new(20);
        w.sim.host.messages = Some(json!({ "messages": msgs }));
        let op = w.compact(Some(source()), "ses_1", cfg());
        w.sim.run();
        let r = w.sim.result(op).clone();
        let write = w.sim.first("WriteMemory");
        let persisted = write.payload.to_string();
        assert!(!persisted.contains(&secret), "{plant}: {persisted}");
        assert!(!r.to_string().contains(&secret), "{plant}: {r}");
        let content = write.payload["content"].as_str().unwrap();
        assert!(
            content.contains("- For the [[deploy]] step we decided to use ")
                && content.contains("[REDACTED:"),
            "{plant}: {content}"
        );
        assert!(
            !content.contains("[[[REDACTED"),
            "no marker as a concept: {content}"
        );
    }
}

/// maenifold refusing the memory with an error that echoes what it was given: the warning
/// logged for it carries no secret either.
#[test]
fn a_failed_memory_write_logs_no_secret() {
    for (plant, secret) in crate::redact::tests::plants() {
        let echo = json!({"success": false, "data": null,
            "error": {"code": "INVALID", "message": format!("refused content: {plant}")}})
        .to_string();
        let mut w = World::new(20);
        w.sim = Sim::new(move |_, _| Proc::after(10, echo.clone()));
        w.sim.host.messages = Some(json!({"messages": [
            {"role": "assistant", "text": "We decided to use [[redis]] for the cache."}]}));
        let op = w.compact(Some(source()), "ses_1", cfg());
        w.sim.run();
        let r = w.sim.result(op);
        assert_eq!(r["logs"][0]["level"], "warn", "{r}");
        assert!(!r.to_string().contains(&secret), "{plant}: {r}");
    }
}

/// A message longer than the scan budget is cut at its start; a `<private>` span or a key
/// block whose opening was cut off is still redacted (from the cut to its end), and no tail
/// of a token is left at the cut.
#[test]
fn a_message_cut_inside_a_private_span_keeps_the_span_private() {
    let pin = crate::redact::tests::noise(7, 20);
    let pad = "x".repeat(compaction::MAX_SCAN_CHARS);
    for (open, close) in [
        ("<private>", "</private>"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\n",
            "\n-----END RSA PRIVATE KEY-----",
        ),
    ] {
        let text = format!(
            "{open}{pad} We decided to use the pin {pin} for [[deploy]].{close} Then we decided to go with [[redis]]."
        );
        let m = vec![compaction::MessageText {
            role: "user".into(),
            text,
        }];
        let texts = compaction::scan_texts(&m);
        assert_eq!(texts.len(), 1);
        assert!(!texts[0].contains(&pin), "{open}");
        assert!(!texts[0].contains(open.trim()), "the opening was cut off");
        let d = compaction::session_decisions(&texts);
        let kind = if open.starts_with('<') {
            "private"
        } else {
            "private-key"
        };
        assert_eq!(
            d,
            vec![format!(
                "[REDACTED:{kind}] Then we decided to go with [[redis]]."
            )]
        );
        assert_eq!(compaction::session_concepts(&texts, 20), vec!["redis"]);
    }
    // a token cut in two at the budget leaves no tail
    let tok = format!("ghp_{}", crate::redact::tests::noise(8, 36));
    let text = format!("{tok} {}", "y".repeat(compaction::MAX_SCAN_CHARS - 10));
    let m = vec![compaction::MessageText {
        role: "user".into(),
        text,
    }];
    let texts = compaction::scan_texts(&m);
    assert!(!texts[0].contains(&tok[12..]), "a tail of the token");
}

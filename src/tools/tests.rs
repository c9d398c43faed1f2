use serde_json::json;

use super::*;

#[test]
fn governance_offers_select_active_intent_only() {
    let r = Registry::new(Settings::default(), false, true);
    let specs = r.specs();
    assert_eq!(specs.len(), 1);
    assert_eq!(specs[0]["name"], SELECT_INTENT);
    assert_eq!(specs[0]["inputSchema"]["required"], json!(["intent_id"]));
    let none = Registry::new(Settings::default(), false, false);
    assert!(none.specs().is_empty());
}

#[test]
fn specs_serialize_as_the_plan_carries_them() {
    let v = spec(SELECT_INTENT).unwrap();
    assert!(v["description"].as_str().unwrap().contains("owned_scope"));
    assert_eq!(v["inputSchema"]["type"], "object");
}

#[test]
fn a_knowledge_source_offers_the_read_tools_and_remember_only_when_turned_on() {
    let names = |s: Settings, src: bool, gov: bool| Registry::new(s, src, gov).offered;
    assert_eq!(
        names(Settings::default(), true, false),
        vec!["knowledge_search", "knowledge_context", "knowledge_read"]
    );
    assert_eq!(
        names(Settings::default(), true, true)[0],
        SELECT_INTENT,
        "governance's tool first"
    );
    assert!(
        names(Settings::default(), false, false).is_empty(),
        "no source: none"
    );
    let (on, logs) = Settings::from_options(&json!({"knowledgeRemember": true}), 2000);
    assert!(logs.is_empty());
    assert_eq!(names(on, true, false).len(), 4);
    let (off, _) = Settings::from_options(
        &json!({"knowledgeTools": false, "knowledgeRemember": true}),
        2000,
    );
    assert!(names(off, true, false).is_empty());
    let (some, logs) = Settings::from_options(
        &json!({"knowledgeTools": ["knowledge_read", "nope", "knowledge_remember"]}),
        2000,
    );
    assert_eq!(logs.len(), 1, "the unknown name is reported");
    assert_eq!(
        names(some, true, false),
        vec!["knowledge_read"],
        "remember listed but not turned on"
    );
    let (b, logs) = Settings::from_options(&json!({"knowledgeToolsBudget": 10}), 2000);
    assert_eq!((b.token_budget, logs.len()), (2000, 1));
    let (b, _) = Settings::from_options(&json!({"knowledgeToolsBudget": 300}), 2000);
    assert_eq!(b.token_budget, 300);
}

#[test]
fn every_spec_is_an_object_schema_with_its_required_keys_described() {
    for name in knowledge::NAMES.iter().chain([&SELECT_INTENT]) {
        let s = spec(name).unwrap();
        assert_eq!(
            s.as_object().unwrap().len(),
            3,
            "{name}: name, description, inputSchema"
        );
        let schema = &s["inputSchema"];
        assert_eq!(schema["type"], "object", "{name}");
        assert_eq!(schema["additionalProperties"], false);
        for (k, p) in schema["properties"].as_object().unwrap() {
            assert!(p["description"].is_string(), "{name}.{k}");
        }
        assert!(s["description"].as_str().unwrap().len() > 60);
    }
    assert_eq!(
        all_specs().len(),
        knowledge::NAMES.len() + 1,
        "nothing else in specs.json"
    );
}

/// The bounds the specs tell the model are the ones the tools check.
#[test]
fn the_specs_bounds_are_the_checked_ones() {
    use knowledge::*;
    let p = |tool: &str, key: &str| spec(tool).unwrap()["inputSchema"]["properties"][key].clone();
    assert_eq!(p(SEARCH, "query")["maxLength"], MAX_QUERY_CHARS);
    assert_eq!(p(SEARCH, "limit")["maximum"], MAX_LIMIT);
    assert!(p(SEARCH, "limit")["description"]
        .as_str()
        .unwrap()
        .contains(&format!("default {DEFAULT_LIMIT}")));
    assert_eq!(p(CONTEXT, "concept")["maxLength"], MAX_CONCEPT_CHARS);
    assert_eq!(p(CONTEXT, "depth")["maximum"], 2);
    assert_eq!(p(READ, "id")["maxLength"], MAX_ID_CHARS);
    assert_eq!(p(REMEMBER, "title")["maxLength"], MAX_TITLE_CHARS);
    assert_eq!(p(REMEMBER, "text")["maxLength"], MAX_TEXT_CHARS);
    assert_eq!(p(REMEMBER, "concepts")["maxItems"], MAX_CONCEPTS);
    assert_eq!(
        p(REMEMBER, "concepts")["items"]["maxLength"],
        MAX_CONCEPT_CHARS
    );
}

#[test]
fn answers_are_cut_to_the_budget_and_say_so() {
    let text: String = (0..500)
        .map(|i| format!("line {i} with some words\n"))
        .collect();
    let (out, cut) = knowledge::fit(&text, 100, "ask for less");
    assert!(cut);
    assert!(out.chars().count() <= 400, "{}", out.chars().count());
    assert!(out.ends_with("[hookwise: cut to fit the budget of 100 tokens; ask for less]"));
    // cut at a line
    assert!(out.contains("words…\n[hookwise"));
    let (same, cut) = knowledge::fit("short", 100, "x");
    assert_eq!((same.as_str(), cut), ("short", false));
    // multi-byte text is cut at a character boundary, within the budget in characters
    let wide = "é".repeat(1000);
    let (out, cut) = knowledge::fit(&wide, 50, "x");
    assert!(cut && out.chars().count() <= 200);
}

#[cfg(feature = "policy")]
#[test]
fn slugs_are_plain_file_names() {
    use super::remember as knowledge;
    assert_eq!(
        knowledge::slug("Kestrel cache decision"),
        "kestrel-cache-decision"
    );
    assert_eq!(knowledge::slug("../../etc/passwd"), "etcpasswd");
    assert_eq!(knowledge::slug("  ::  "), "note");
    assert_eq!(knowledge::slug("Ünïcode_and  spaces"), "ncode-and-spaces");
    assert!(knowledge::slug(&"a".repeat(500)).len() <= 80);
}

/// With intent governance on, `knowledge_remember` writes no note into a vault inside the
/// project (a change no intent covers and no record shows); with it off, it does.
#[cfg(feature = "policy")]
#[test]
fn remember_writes_no_note_inside_a_governed_project() {
    use crate::engine::Engine;
    use crate::testing::{drive, TestHost};
    const INTENTS: &str = "active_intents:\n  - id: INT-1\n    name: Docs\n    status: IN_PROGRESS\n    owned_scope: [docs/**]\n";
    let run = |governed: bool| {
        let mut fs = TestHost::default();
        fs.file(
            "/w/.hookwise/knowledge/auth.md",
            "# Auth\n\n[[auth]] uses [[jwt]].\n",
        );
        if governed {
            fs.file("/w/.orchestration/active_intents.yaml", INTENTS);
        }
        let mut e = Engine::new();
        let init = json!({"hook": "init", "env": {}, "cwd": "/w", "worktree": "/w", "directory": "/w",
                          "host": "claude-code", "options": {"knowledge": "vault", "knowledgeRemember": true}});
        let r = drive(&mut e, &init.to_string(), &mut fs);
        let offered: Vec<&str> = r["plan"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert!(offered.contains(&"knowledge_remember"), "{r}");
        let call = json!({"hook": "tool.call", "name": "knowledge_remember", "sessionId": "s",
                          "input": {"title": "Token rotation", "text": "Rotate [[jwt]] keys monthly."}});
        let a = drive(&mut e, &call.to_string(), &mut fs);
        let written = fs
            .files
            .keys()
            .any(|p| p.starts_with("/w/.hookwise/knowledge/hookwise/"));
        (a, written)
    };
    let (a, written) = run(true);
    assert_eq!(a["isError"], true, "{a}");
    assert!(
        a["text"]
            .as_str()
            .unwrap()
            .contains("intent governance is on"),
        "{a}"
    );
    assert!(!written);
    let (a, written) = run(false);
    assert_eq!(a["isError"], false, "{a}");
    assert!(written, "{a}");
}

/// A vault whose `hookwise/` folder is a symlink out of the vault (into the project, or
/// anywhere) gets no note through it; a link to a folder inside the vault is followed.
#[cfg(feature = "policy")]
#[test]
fn remember_writes_no_note_through_a_folder_linked_out_of_the_vault() {
    use crate::engine::Engine;
    use crate::testing::{drive, TestHost};
    let run = |target: &str| {
        let mut fs = TestHost::default();
        fs.file("/v/auth.md", "# Auth\n\n[[auth]] uses [[jwt]].\n");
        fs.dir("/w/src");
        fs.dir("/v/notes");
        fs.link("/v/hookwise", target);
        let mut e = Engine::new();
        let init = json!({"hook": "init", "env": {}, "cwd": "/w", "worktree": "/w", "directory": "/w",
                          "options": {"knowledge": "vault", "vault": "/v", "knowledgeRemember": true}});
        drive(&mut e, &init.to_string(), &mut fs);
        let call = json!({"hook": "tool.call", "name": "knowledge_remember", "sessionId": "s",
                          "input": {"title": "Token rotation", "text": "Rotate keys."}});
        let a = drive(&mut e, &call.to_string(), &mut fs);
        let written: Vec<String> = fs
            .files
            .keys()
            .filter(|p| p.contains("token-rotation"))
            .cloned()
            .collect();
        (a, written)
    };
    for out in ["/w/src", "/elsewhere", "/v"] {
        if out == "/elsewhere" {
            // dangling: the create fails on the host (no folder behind the link)
            continue;
        }
        let (a, written) = run(out);
        assert_eq!(a["isError"], true, "{out}: {a}");
        assert!(
            a["text"]
                .as_str()
                .unwrap()
                .contains("leads out of the vault"),
            "{a}"
        );
        assert!(written.is_empty(), "{out}: {written:?}");
    }
    let (a, written) = run("/v/notes");
    assert_eq!(a["isError"], false, "{a}");
    assert_eq!(written.len(), 1, "{written:?}");
}

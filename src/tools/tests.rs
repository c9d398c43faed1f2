use serde_json::json;

use super::*;

#[test]
fn governance_offers_select_active_intent_only() {
    let r = Registry::new(Settings::default(), false, true);
    let specs = r.specs();
    assert_eq!(specs.len(), 1);
    assert_eq!(specs[0].name, SELECT_INTENT);
    assert_eq!(specs[0].input_schema["required"], json!(["intent_id"]));
    let none = Registry::new(Settings::default(), false, false);
    assert!(none.specs().is_empty());
}

#[test]
fn specs_serialize_as_the_plan_carries_them() {
    let v = serde_json::to_value(spec(SELECT_INTENT).unwrap()).unwrap();
    assert!(v["description"].as_str().unwrap().contains("owned_scope"));
    assert_eq!(v["inputSchema"]["type"], "object");
}

//! `select_active_intent`: select an intent for a session and answer with its context.

use super::*;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SelectInput {
    pub session_id: String,
    pub intent_id: String,
    pub worktree: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectOutput {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intent_id: Option<String>,
    /// The tool result the model reads (the intent, or why not).
    pub text: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<Log>,
}

pub(super) fn bullets(items: &[String]) -> String {
    items.iter().map(|i| format!("\n- {i}")).collect()
}

pub(super) fn scope_bullets(scope: &[String]) -> String {
    scope
        .iter()
        .map(|p| {
            if p.trim_start().starts_with('!') {
                format!("\n- {p} (excluded)")
            } else {
                format!("\n- {p}")
            }
        })
        .collect()
}

/// `select_active_intent(intent_id)`.
pub async fn select_intent(io: &Io, gov: &Governance, input: &SelectInput) -> SelectOutput {
    let mut out = SelectOutput::default();
    let Some(file) = refresh(io, gov, &input.worktree, &mut out.logs).await else {
        out.text = format!("Intent governance is off in this project ({INTENTS_FILE} does not exist); there is nothing to select and changes are not gated.");
        return out;
    };
    let id = input.intent_id.trim();
    let valid = gate::choices(&file);
    let Some(intent) = file.get(id) else {
        out.text = if valid.is_empty() {
            format!("Unknown intent id '{id}'. No intent is IN_PROGRESS in {INTENTS_FILE}; ask the user to add one.")
        } else {
            format!("Unknown intent id '{id}'. Valid ids: {valid}.")
        };
        if let Some(p) = problems_text(&file.problems) {
            out.text.push_str("\n\n");
            out.text.push_str(&p);
        }
        return out;
    };
    if intent.status != Status::InProgress {
        out.text = format!(
            "Intent {id} ({}) is {} and cannot be activated. {}",
            intent.name,
            intent.status.as_str(),
            if valid.is_empty() {
                "No intent is IN_PROGRESS; ask the user.".to_string()
            } else {
                format!("Choose one of: {valid}.")
            }
        );
        return out;
    }
    if let Some(s) = gov.scope(&input.worktree, &file, id) {
        if let Err(e) = s.as_ref() {
            out.text =
                format!("Intent {id} cannot be activated: its owned_scope does not compile ({e}).");
            return out;
        }
    }
    gov.select(&input.session_id, id);
    out.ok = true;
    out.intent_id = Some(id.to_string());
    let mut t = format!(
        "Active intent for this session: {} — {} (IN_PROGRESS).\nOwned scope (changes to files outside it are blocked):{}",
        intent.id,
        intent.name,
        scope_bullets(&intent.owned_scope)
    );
    if !intent.constraints.is_empty() {
        t.push_str(&format!("\nConstraints:{}", bullets(&intent.constraints)));
    }
    if !intent.acceptance_criteria.is_empty() {
        t.push_str(&format!(
            "\nAcceptance criteria:{}",
            bullets(&intent.acceptance_criteria)
        ));
    }
    t.push_str("\nShell commands are allowed under this intent but are not scope-checked: keep them within the scope too.");
    out.text = t;
    out
}

//! OpenTelemetry export (policy build): **what** leaves the machine is decided here, as compact
//! events on a hook's answer (`telemetry`); the JS glue (`js/otel.cjs`) only times the hook,
//! batches the events and encodes them as OTLP/HTTP. Nothing here does I/O.
//!
//! - **Off by default.** On only when the user's environment names an OTLP endpoint
//!   (`OTEL_EXPORTER_OTLP_ENDPOINT` or a per-signal `OTEL_EXPORTER_OTLP_{TRACES,METRICS,LOGS}_ENDPOINT`)
//!   **and** asks for it: `HOOKWISE_OTEL=1`, or the option `telemetry.otlp: true` (plugin
//!   options or the project's `.opencode/hookwise.json`). A project file can turn export on,
//!   never off (an agent that writes it must not hide from its team's view), and it can never
//!   name where the data goes: the endpoint and its headers come from the environment only.
//!   `OTEL_SDK_DISABLED=true` or `HOOKWISE_OTEL=0` turns it off whatever the project says.
//! - **Names and values** follow the GenAI semantic conventions where they apply
//!   (`execute_tool` spans: `gen_ai.operation.name`, `gen_ai.tool.name`,
//!   `gen_ai.tool.call.id`, `gen_ai.conversation.id`, `gen_ai.request.model`) and `hookwise.*`
//!   where they do not. Every string goes through the redactor; tool arguments, results, block
//!   reasons and concept names only with `HOOKWISE_OTEL_CONTENT=1` (the user's environment),
//!   redacted and cut.
//!
//! An event: `{signal: "span"|"log", name, trace, span, status?, attrs, count: [{name,
//! attrs}], latency: {name, attrs}}` — `trace` and `span` are keys the glue hashes into the
//! trace and span ids (the session and the tool call: a call's PostToolUse record is a log on
//! its PreToolUse span), `count` the counters to add one to, `latency` the histogram the hook's
//! measured duration goes to.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::redact::redact_string;

/// The most of one content attribute (arguments, results, reasons), in characters.
const MAX_CONTENT: usize = 4096;
/// The most of one plain string attribute (ids, names).
const MAX_STR: usize = 256;

/// Whether export is on, and with content.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub on: bool,
    pub content: bool,
    /// Why it is off, or where it was turned on (for `doctor`).
    pub why: String,
}

fn truthy(v: Option<&String>) -> Option<bool> {
    match v.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        Some("1" | "true" | "on" | "yes") => Some(true),
        Some("0" | "false" | "off" | "no") => Some(false),
        _ => None,
    }
}

impl Settings {
    /// From the merged options and the environment (see the module's rules).
    pub fn from(options: &Value, env: &BTreeMap<String, String>) -> Settings {
        let off = |why: &str| Settings {
            on: false,
            content: false,
            why: why.into(),
        };
        if truthy(env.get("OTEL_SDK_DISABLED")) == Some(true) {
            return off("OTEL_SDK_DISABLED is true");
        }
        let asked = truthy(env.get("HOOKWISE_OTEL"));
        if asked == Some(false) {
            return off("HOOKWISE_OTEL is off");
        }
        let endpoint = [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
            "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
        ]
        .iter()
        .any(|k| env.get(*k).is_some_and(|v| !v.trim().is_empty()));
        let option = options
            .get("telemetry")
            .and_then(|t| t.get("otlp"))
            .and_then(Value::as_bool)
            == Some(true);
        let why = match (asked == Some(true), option) {
            (true, _) => "HOOKWISE_OTEL",
            (false, true) => "option telemetry.otlp",
            _ => return off("off (set HOOKWISE_OTEL=1 or the option telemetry.otlp)"),
        };
        if !endpoint {
            return off(&format!(
                "asked for by {why}, but no OTEL_EXPORTER_OTLP_ENDPOINT in the environment"
            ));
        }
        Settings {
            on: true,
            content: truthy(env.get("HOOKWISE_OTEL_CONTENT")) == Some(true),
            why: why.into(),
        }
    }
}

fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A string as it may leave the machine: redacted, then cut.
pub fn clean(s: &str, max: usize) -> String {
    cut(&redact_string(s.to_string()), max)
}

/// Attributes being built (strings cleaned as they go in).
#[derive(Default)]
pub struct Attrs(Map<String, Value>);

impl Attrs {
    pub fn s(&mut self, k: &str, v: &str) -> &mut Self {
        if !v.is_empty() {
            self.0.insert(k.into(), json!(clean(v, MAX_STR)));
        }
        self
    }
    pub fn content(&mut self, k: &str, v: &str) -> &mut Self {
        self.0.insert(k.into(), json!(clean(v, MAX_CONTENT)));
        self
    }
    pub fn opt(&mut self, k: &str, v: Option<&str>) -> &mut Self {
        if let Some(v) = v {
            self.s(k, v);
        }
        self
    }
    pub fn list(&mut self, k: &str, v: &[String]) -> &mut Self {
        if !v.is_empty() {
            let l: Vec<String> = v.iter().take(32).map(|s| clean(s, MAX_STR)).collect();
            self.0.insert(k.into(), json!(l));
        }
        self
    }
    pub fn int(&mut self, k: &str, v: usize) -> &mut Self {
        self.0.insert(k.into(), json!(v));
        self
    }
    pub fn flag(&mut self, k: &str, v: bool) -> &mut Self {
        self.0.insert(k.into(), json!(v));
        self
    }
    fn pick(&self, keys: &[&str]) -> Value {
        let m: Map<String, Value> = keys
            .iter()
            .filter_map(|k| self.0.get(*k).map(|v| ((*k).to_string(), v.clone())))
            .collect();
        Value::Object(m)
    }
}

/// What governance and enforcement decided on one tool call (`tool.before`).
#[derive(Default)]
pub struct ToolDecision<'a> {
    pub host: &'a str,
    pub tool: &'a str,
    pub call_id: &'a str,
    pub session_id: &'a str,
    /// `allowed`, `advised` or `blocked`.
    pub decision: &'static str,
    /// The rule of a block: governance's (`scope`, `no_intent`, `default_deny`, …), `sop`,
    /// `fail_closed`; empty when allowed.
    pub rule: &'a str,
    /// Enforcement's decision (`allow`, `advise`, `block`, `acknowledged`, …), when it ran.
    pub enforcement: Option<&'a str>,
    pub sops: &'a [String],
    /// Why a call was refused for what could not be read (the reason's code).
    pub fail_closed: Option<&'a str>,
    pub intent: Option<&'a str>,
    pub model: Option<&'a str>,
    pub classes: &'a [&'static str],
    pub concepts: &'a [String],
    /// Content (only with `Settings::content`).
    pub args: Option<&'a Value>,
    pub reason: Option<&'a str>,
}

fn common(a: &mut Attrs, host: &str, tool: &str, call_id: &str, session_id: &str) {
    a.s("gen_ai.operation.name", "execute_tool")
        .s("gen_ai.tool.name", tool)
        .s("gen_ai.tool.call.id", call_id)
        .s("gen_ai.conversation.id", session_id)
        .s("hookwise.host", host)
        .s("hookwise.version", env!("CARGO_PKG_VERSION"))
        .s("hookwise.session.id", session_id);
}

/// The `execute_tool` span of a decision, with its counter and latency histogram.
pub fn decision(d: &ToolDecision<'_>, s: &Settings) -> Value {
    let mut a = Attrs::default();
    common(&mut a, d.host, d.tool, d.call_id, d.session_id);
    a.s("hookwise.decision", d.decision)
        .s("hookwise.rule", d.rule)
        .opt("hookwise.enforcement.decision", d.enforcement)
        .list("hookwise.sop.ids", d.sops)
        .opt("hookwise.fail_closed.reason", d.fail_closed)
        .flag("hookwise.default_deny", d.rule == "default_deny")
        .opt("hookwise.intent.id", d.intent)
        .opt("gen_ai.request.model", d.model)
        .opt("hookwise.model", d.model);
    let classes: Vec<String> = d.classes.iter().map(|c| c.to_string()).collect();
    a.list("hookwise.path.classes", &classes);
    a.int("hookwise.knowledge.concepts", d.concepts.len());
    if s.content {
        a.list("hookwise.knowledge.names", d.concepts);
        if let Some(args) = d.args {
            a.content("gen_ai.tool.call.arguments", &args.to_string());
        }
        if let Some(r) = d.reason {
            a.content("hookwise.block.reason", r);
        }
    }
    let mut v = json!({
        "signal": "span",
        "name": format!("execute_tool {}", clean(d.tool, MAX_STR)),
        "trace": clean(d.session_id, MAX_STR),
        "span": clean(d.call_id, MAX_STR),
        "count": [{"name": "hookwise.decisions", "attrs": a.pick(&[
            "hookwise.host", "gen_ai.tool.name", "hookwise.decision", "hookwise.rule",
            "hookwise.sop.ids",
        ])}],
        "latency": {"name": "hookwise.hook.duration", "attrs": a.pick(&[
            "hookwise.host", "hookwise.decision",
        ])},
    });
    if d.decision == "blocked" {
        a.s("error.type", "hookwise.blocked");
        v["status"] = json!({"code": "error", "message": format!("blocked: {}", d.rule)});
    }
    v["attrs"] = Value::Object(a.0);
    v
}

/// An Agent Trace record appended (`tool.after`): a log on the call's span.
pub struct Recorded<'a> {
    pub host: &'a str,
    pub tool: &'a str,
    pub call_id: &'a str,
    pub session_id: &'a str,
    pub id: &'a str,
    pub line_hash: Option<&'a str>,
    pub class: Option<&'a str>,
    pub intent: Option<&'a str>,
    pub model: Option<&'a str>,
}

pub fn recorded(r: &Recorded<'_>) -> Value {
    let mut a = Attrs::default();
    common(&mut a, r.host, r.tool, r.call_id, r.session_id);
    a.s("hookwise.record.id", r.id)
        .opt("hookwise.record.sha256", r.line_hash)
        .opt("hookwise.record.class", r.class)
        .opt("hookwise.intent.id", r.intent)
        .opt("gen_ai.request.model", r.model)
        .opt("hookwise.model", r.model);
    json!({
        "signal": "log",
        "name": "hookwise.record",
        "severity": "INFO",
        "body": format!("Agent Trace record {} ({})", clean(r.id, MAX_STR), clean(r.tool, MAX_STR)),
        "trace": clean(r.session_id, MAX_STR),
        "span": clean(r.call_id, MAX_STR),
        "count": [{"name": "hookwise.records", "attrs": a.pick(&["hookwise.host", "gen_ai.tool.name", "hookwise.intent.id"])}],
        "latency": {"name": "hookwise.hook.duration", "attrs": a.pick(&["hookwise.host"])},
        "attrs": Value::Object(a.0),
    })
}

/// The latency of a hook that decided nothing to export (a read, a prompt): the histogram only.
pub fn latency(host: &str, event: &str) -> Value {
    let mut a = Attrs::default();
    a.s("hookwise.host", host).s("hookwise.hook.event", event);
    json!({"signal": "none", "latency": {"name": "hookwise.hook.duration", "attrs": Value::Object(a.0)}})
}

/// A command-hook host's event (`hook.event`) while export is on: its answer carries the
/// events of the engine calls it made, each with the host's event name, and a tool's result
/// when content is on; a hook that decided nothing exports its latency only.
pub struct HookTel {
    pub host: &'static str,
    pub event: String,
    /// `tool_response` (content on, PostToolUse), redacted and cut when it goes out.
    pub result: Option<String>,
}

impl HookTel {
    pub fn finish(self, v: &mut Value, events: Vec<Value>) {
        let e = clean(&self.event, 64);
        let mut events: Vec<Value> = events
            .into_iter()
            .flat_map(|x| match x {
                Value::Array(a) => a,
                x => vec![x],
            })
            .collect();
        if events.is_empty() {
            events.push(latency(self.host, &e));
        }
        for x in &mut events {
            if let Some(Value::Object(m)) = x.get_mut("attrs") {
                m.insert("hookwise.hook.event".into(), json!(e));
            }
            if let Some(Value::Object(m)) = x.get_mut("latency").and_then(|l| l.get_mut("attrs")) {
                m.insert("hookwise.hook.event".into(), json!(e));
            }
        }
        if let Some(r) = &self.result {
            if let Some(Value::Object(m)) = events
                .iter_mut()
                .find(|x| x.get("signal").and_then(Value::as_str) == Some("log"))
                .and_then(|x| x.get_mut("attrs"))
            {
                m.insert(
                    "gen_ai.tool.call.result".into(),
                    json!(clean(r, MAX_CONTENT)),
                );
            }
        }
        v["telemetry"] = Value::Array(events);
    }
}

#[cfg(test)]
#[path = "telemetry_tests.rs"]
mod tests;

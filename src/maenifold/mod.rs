//! The maenifold CLI contract as it really is (`docs/maenifold-cli.md`): how calls are
//! built, how success is judged (from the text: the exit code is 0 on errors too) and how the
//! text outputs are parsed.

pub mod build_context;
pub mod memory;
pub mod recent;
pub mod search;

pub use build_context::{BuildContext, NoteRef, Relation, Sibling};

use serde_json::Value;

/// The default time one maenifold CLI call (and one MCP request) may take, in milliseconds
/// (option `timeoutMs`).
pub const DEFAULT_TIMEOUT_MS: u64 = 5000;

/// Parameters of one BuildContext question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextQuery {
    pub depth: u32,
    pub max_entities: u32,
    pub include_content: bool,
}

/// Build the argv for one CLI call. The payload is passed as one argv element: no shell.
pub fn argv(cli: &str, tool: &str, payload: &Value, json: bool) -> Vec<String> {
    let mut v = vec![
        cli.to_string(),
        "--tool".to_string(),
        tool.to_string(),
        "--payload".to_string(),
        payload.to_string(),
    ];
    if json {
        v.push("--json".to_string());
    }
    v
}

/// `x` with `decimals` digits after the point, as maenifold prints scores. Integer
/// arithmetic only: float formatting (`{:.3}`) would pull several KB of code into the wasm.
pub fn fixed(x: f64, decimals: u32) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    let scale = 10i64.pow(decimals);
    let n = (x * scale as f64).round() as i64;
    let sign = if n < 0 { "-" } else { "" };
    let (int, frac) = (n.abs() / scale, n.abs() % scale);
    format!("{sign}{int}.{frac:0width$}", width = decimals as usize)
}

/// Why a CLI answer is not usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliFailure {
    /// The process did not finish in time (it was killed).
    TimedOut,
    /// The process could not be started, crashed, or printed more than the cap.
    Process(String),
    /// The process exited 0 but the text is one of maenifold's error forms.
    ToolError(String),
    /// Nothing was printed.
    Empty,
    /// `--json` answered `success:false`.
    JsonError { code: String, message: String },
}

impl std::fmt::Display for CliFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliFailure::TimedOut => write!(f, "timed out"),
            CliFailure::Process(m) => write!(f, "process failed: {m}"),
            CliFailure::ToolError(m) => write!(f, "maenifold error: {m}"),
            CliFailure::Empty => write!(f, "empty output"),
            CliFailure::JsonError { code, message } => {
                write!(f, "maenifold error {code}: {message}")
            }
        }
    }
}

/// What the host reports for one finished CLI process.
#[derive(Debug, Clone, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SpawnResult {
    /// The process ran and exited 0 within the limits (the host's view; the text still decides).
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub duration_ms: f64,
    /// Set by the host when the child could not be started or output went over the cap.
    pub error: Option<String>,
}

const ERROR_PREFIXES: [&str; 3] = ["Unknown tool:", "Error invoking", "ERROR:"];

/// Judge a CLI answer from its text, as maenifold exits 0 on every error.
/// Returns the trimmed stdout on success.
pub fn judge(r: &SpawnResult) -> Result<&str, CliFailure> {
    if r.timed_out {
        return Err(CliFailure::TimedOut);
    }
    if let Some(e) = &r.error {
        return Err(CliFailure::Process(e.clone()));
    }
    if r.exit_code.is_some_and(|c| c != 0) {
        let tail: String = r
            .stderr
            .lines()
            .last()
            .unwrap_or("")
            .chars()
            .take(200)
            .collect();
        return Err(CliFailure::Process(format!(
            "exit code {}: {}",
            r.exit_code.unwrap_or(-1),
            tail
        )));
    }
    let text = r.stdout.trim();
    if text.is_empty() {
        return Err(CliFailure::Empty);
    }
    let first = text.lines().next().unwrap_or("").trim_start();
    if let Some(p) = ERROR_PREFIXES.iter().find(|p| first.starts_with(**p)) {
        let _ = p;
        return Err(CliFailure::ToolError(first.chars().take(300).collect()));
    }
    if first.starts_with("Usage") || first.starts_with("usage") {
        return Err(CliFailure::ToolError(
            "the CLI printed its usage text".into(),
        ));
    }
    Ok(text)
}

/// Unwrap a `--json` envelope (`{"success":..,"data":..,"error":..}`). Tools that ignore
/// `--json` or print plain error text are judged by [`judge`] first.
pub fn judge_json(r: &SpawnResult) -> Result<Value, CliFailure> {
    let text = judge(r)?;
    let v: Value = serde_json::from_slice(text.as_bytes()).map_err(|_| {
        CliFailure::ToolError(format!(
            "not JSON: {}",
            text.chars().take(120).collect::<String>()
        ))
    })?;
    match v.get("success").and_then(Value::as_bool) {
        Some(true) => Ok(v.get("data").cloned().unwrap_or(Value::Null)),
        Some(false) => {
            let e = v.get("error").cloned().unwrap_or(Value::Null);
            Err(CliFailure::JsonError {
                code: e
                    .get("code")
                    .and_then(Value::as_str)
                    .unwrap_or("UNKNOWN")
                    .to_string(),
                message: e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            })
        }
        None => Err(CliFailure::ToolError("JSON without a success field".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(stdout: &str) -> SpawnResult {
        SpawnResult {
            success: true,
            stdout: stdout.into(),
            exit_code: Some(0),
            ..Default::default()
        }
    }

    #[test]
    fn errors_are_judged_from_text_not_exit_code() {
        assert!(matches!(
            judge(&ok("Unknown tool: Nope\n")),
            Err(CliFailure::ToolError(_))
        ));
        assert!(matches!(
            judge(&ok("Error invoking BuildContext: Required property 'conceptName' is missing from payload.\n")),
            Err(CliFailure::ToolError(_))
        ));
        assert!(matches!(
            judge(&ok("ERROR: Query contains no informative keywords\n")),
            Err(CliFailure::ToolError(_))
        ));
        assert_eq!(judge(&ok("   \n")), Err(CliFailure::Empty));
        assert_eq!(
            judge(&ok("Context for CONCEPT: a\n")),
            Ok("Context for CONCEPT: a")
        );
        let mut t = ok("");
        t.timed_out = true;
        assert_eq!(judge(&t), Err(CliFailure::TimedOut));
        let mut c = ok("partial");
        c.exit_code = Some(134);
        c.stderr = "Unhandled exception\n   at Main".into();
        assert!(matches!(judge(&c), Err(CliFailure::Process(m)) if m.contains("134")));
    }

    #[test]
    fn fixed_point_scores() {
        assert_eq!(fixed(0.512, 3), "0.512");
        assert_eq!(fixed(1.0, 2), "1.00");
        assert_eq!(fixed(0.0049, 2), "0.00");
        assert_eq!(fixed(-2.345, 2), "-2.35");
        assert_eq!(fixed(f64::NAN, 2), "0");
    }

    #[test]
    fn json_envelopes() {
        let good = ok(r#"{"success":true,"data":{"results":[]},"error":null}"#);
        assert_eq!(judge_json(&good).unwrap()["results"], serde_json::json!([]));
        let bad = ok(
            r#"{"success":false,"data":null,"error":{"code":"INVALID_PAYLOAD","message":"bad"}}"#,
        );
        assert_eq!(
            judge_json(&bad),
            Err(CliFailure::JsonError {
                code: "INVALID_PAYLOAD".into(),
                message: "bad".into()
            })
        );
        assert!(judge_json(&ok("No memories found in specified folder")).is_err());
    }

    #[test]
    fn argv_never_goes_through_a_shell() {
        let p = serde_json::json!({"conceptName": "a'; rm -rf / #"});
        let a = argv("/bin/maenifold", "BuildContext", &p, false);
        assert_eq!(a.len(), 5);
        assert_eq!(a[4], r#"{"conceptName":"a'; rm -rf / #"}"#);
    }
}

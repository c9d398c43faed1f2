//! ReadMemory and WriteMemory answers.
//!
//! ReadMemory markdown (maenifold's `MemoryTools.ReadMemory`):
//! ```text
//! # Auth Design
//! URI: memory://notes/auth-design
//! Location: notes/auth-design.md
//! Created: 2026-02-18 19:00
//! Modified: 2026-02-18 19:02
//! Checksum: 3f2a…            (only with includeChecksum)
//!
//! ---
//!
//! <the file's markdown, front matter removed>
//! ```
//! `--json` data: `{uri,title,location,created,modified,checksum,content}`.
//! A missing file: `ERROR: Memory file not found: <identifier>` (JSON: `NOT_FOUND`).
//!
//! WriteMemory: `Created memory FILE: memory://…` and `Checksum: …` (then a hint), or with
//! `--json` `{uri,checksum,title,folder}`. Content without a `[[link]]` is refused
//! (`ERROR: Content must contain at least one [[concept]]…`, JSON `VALIDATION_ERROR`).

use serde::Serialize;
use serde_json::Value;

use super::{judge, judge_json, SpawnResult};

/// Content beyond this many characters is dropped (a memory is read for its links).
pub const MAX_CONTENT_CHARS: usize = 1_000_000;

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    pub title: String,
    pub uri: String,
    pub location: Option<String>,
    pub created: Option<String>,
    pub modified: Option<String>,
    pub checksum: Option<String>,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Written {
    pub uri: String,
    pub checksum: Option<String>,
}

fn clip_content(s: &str) -> String {
    match s.char_indices().nth(MAX_CONTENT_CHARS) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

fn envelope(text: &str) -> Result<Value, String> {
    let r = SpawnResult {
        stdout: text.to_string(),
        exit_code: Some(0),
        ..Default::default()
    };
    judge_json(&r).map_err(|e| e.to_string())
}

/// Judge and parse a ReadMemory answer (markdown or `--json`).
pub fn judge_read(r: &SpawnResult) -> Result<Memory, String> {
    parse_read(judge(r).map_err(|e| e.to_string())?)
}

/// Parse a ReadMemory answer already judged a success.
pub fn parse_read(text: &str) -> Result<Memory, String> {
    let t = text.trim_start();
    if t.starts_with('{') {
        let d = envelope(t)?;
        let s = |k: &str| d.get(k).and_then(Value::as_str).map(str::to_string);
        let uri = s("uri").unwrap_or_default();
        if !uri.starts_with("memory://") {
            return Err("ReadMemory JSON has no memory:// uri".into());
        }
        return Ok(Memory {
            title: s("title").unwrap_or_default(),
            uri,
            location: s("location"),
            created: s("created"),
            modified: s("modified"),
            checksum: s("checksum"),
            content: clip_content(d.get("content").and_then(Value::as_str).unwrap_or("")),
        });
    }
    let Some(title) = t.lines().next().and_then(|l| l.strip_prefix("# ")) else {
        let shown: String = t.chars().take(80).collect();
        return Err(format!("not a ReadMemory answer: {shown}"));
    };
    let mut m = Memory {
        title: title.trim().chars().take(300).collect(),
        ..Default::default()
    };
    // The header block ends at the first `---` line; the content follows it.
    let mut offset = t.find('\n').map(|i| i + 1).unwrap_or(t.len());
    let mut found_rule = false;
    while offset < t.len() {
        let end = t[offset..]
            .find('\n')
            .map(|i| offset + i)
            .unwrap_or(t.len());
        let line = t[offset..end].trim_end_matches('\r');
        offset = (end + 1).min(t.len());
        if line.trim() == "---" {
            found_rule = true;
            break;
        }
        if let Some((k, v)) = line.split_once(": ") {
            let v = v.trim().to_string();
            match k {
                "URI" => m.uri = v,
                "Location" => m.location = Some(v),
                "Created" => m.created = Some(v),
                "Modified" => m.modified = Some(v),
                "Checksum" => m.checksum = Some(v),
                _ => {}
            }
        } else if !line.trim().is_empty() {
            break; // not a header line: no rule follows
        }
    }
    if !m.uri.starts_with("memory://") {
        return Err("ReadMemory answer has no URI: memory:// line".into());
    }
    if found_rule {
        let rest = &t[offset..];
        let rest = rest.strip_prefix('\n').unwrap_or(rest);
        m.content = clip_content(rest);
    }
    Ok(m)
}

/// Judge and parse a WriteMemory answer (text or `--json`).
pub fn judge_write(r: &SpawnResult) -> Result<Written, String> {
    parse_write(judge(r).map_err(|e| e.to_string())?)
}

pub fn parse_write(text: &str) -> Result<Written, String> {
    let t = text.trim();
    if t.starts_with('{') {
        let d = envelope(t)?;
        let uri = d.get("uri").and_then(Value::as_str).unwrap_or("");
        if !uri.starts_with("memory://") {
            return Err("WriteMemory JSON has no memory:// uri".into());
        }
        return Ok(Written {
            uri: uri.to_string(),
            checksum: d
                .get("checksum")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
    }
    let mut w = Written::default();
    for line in t.lines() {
        if let Some(u) = line.trim().strip_prefix("Created memory FILE:") {
            w.uri = u.trim().to_string();
        } else if let Some(c) = line.trim().strip_prefix("Checksum:") {
            w.checksum = Some(c.trim().to_string());
        }
    }
    if w.uri.starts_with("memory://") {
        Ok(w)
    } else {
        let shown: String = t.chars().take(120).collect();
        Err(format!("WriteMemory did not confirm a file: {shown}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub const READ: &str = "# Auth Design
URI: memory://notes/auth-design
Location: notes/auth-design.md
Created: 2026-02-18 19:00
Modified: 2026-02-18 19:02
Checksum: 3f2a9c

---

# Auth Design

We use [[JWT]] for [[authentication]].

---

A second rule inside the content stays content.";

    fn ok(s: &str) -> SpawnResult {
        SpawnResult {
            stdout: s.into(),
            exit_code: Some(0),
            ..Default::default()
        }
    }

    #[test]
    fn read_markdown() {
        let m = parse_read(READ).unwrap();
        assert_eq!(m.title, "Auth Design");
        assert_eq!(m.uri, "memory://notes/auth-design");
        assert_eq!(m.location.as_deref(), Some("notes/auth-design.md"));
        assert_eq!(m.created.as_deref(), Some("2026-02-18 19:00"));
        assert_eq!(m.modified.as_deref(), Some("2026-02-18 19:02"));
        assert_eq!(m.checksum.as_deref(), Some("3f2a9c"));
        assert!(m.content.starts_with("# Auth Design\n\nWe use [[JWT]]"));
        assert!(m.content.ends_with("stays content."));
        // without checksum and dates
        let m = parse_read("# X\nURI: memory://x\nLocation: x.md\n\n---\n\nbody [[y]]").unwrap();
        assert_eq!(m.checksum, None);
        assert_eq!(m.content, "body [[y]]");
        // a file with an empty body
        let m = parse_read("# X\nURI: memory://x\nLocation: x.md\n\n---").unwrap();
        assert_eq!(m.content, "");
    }

    #[test]
    fn read_json_and_errors() {
        let j = json!({"success": true, "error": null, "data": {"uri": "memory://notes/api",
            "title": "API", "location": "notes/api.md", "created": null, "modified": "2026-02-18T19:02:00Z",
            "checksum": null, "content": "The [[REST API]]."}});
        let m = judge_read(&ok(&j.to_string())).unwrap();
        assert_eq!(m.uri, "memory://notes/api");
        assert_eq!(m.created, None);
        assert_eq!(m.content, "The [[REST API]].");
        let nf = r#"{"success":false,"data":null,"error":{"code":"NOT_FOUND","message":"Memory file not found: x"}}"#;
        assert!(judge_read(&ok(nf)).unwrap_err().contains("NOT_FOUND"));
        assert!(judge_read(&ok("ERROR: Memory file not found: x"))
            .unwrap_err()
            .contains("not found"));
        assert!(parse_read("# Title only\nno uri here").is_err());
        assert!(parse_read("garbage").is_err());
        assert!(parse_read("\u{FFFD}\u{FFFD}").is_err());
        assert!(parse_read(&"# ".repeat(5 * 1024 * 1024)).is_err());
        let big = format!(
            "# B\nURI: memory://b\n\n---\n\n{}",
            "[[x]] ".repeat(2 * 1024 * 1024)
        );
        let m = parse_read(&big).unwrap();
        assert_eq!(m.content.chars().count(), MAX_CONTENT_CHARS);
    }

    #[test]
    fn write_answers() {
        let w = judge_write(&ok("Created memory FILE: memory://sessions/compaction/2026/02/18/x\nChecksum: abc\n\n💡 Use ReadMemory with this URI to access content")).unwrap();
        assert_eq!(w.uri, "memory://sessions/compaction/2026/02/18/x");
        assert_eq!(w.checksum.as_deref(), Some("abc"));
        let j = r#"{"success":true,"data":{"uri":"memory://a/b","checksum":"c","title":"B","folder":"a"},"error":null}"#;
        assert_eq!(judge_write(&ok(j)).unwrap().uri, "memory://a/b");
        let v = r#"{"success":false,"data":null,"error":{"code":"VALIDATION_ERROR","message":"Content must contain at least one [[concept]]"}}"#;
        assert!(judge_write(&ok(v))
            .unwrap_err()
            .contains("VALIDATION_ERROR"));
        assert!(judge_write(&ok(
            "ERROR: Content must contain at least one [[concept]] in double brackets"
        ))
        .is_err());
        assert!(judge_write(&ok("something else")).is_err());
    }
}

//! Agent Trace v0.1.0 records, one JSON line each in `.orchestration/agent_trace.jsonl`.
//!
//! ```json
//! {"version":"0.1.0","id":"<uuid v4>","timestamp":"2026-11-22T03:12:03.456Z",
//!  "vcs":{"type":"git","revision":"<40 hex>"},            // only when HEAD is known
//!  "tool":{"name":"hookwise","version":"0.1.0"},
//!  "files":[{"path":"src/a.ts","conversations":[{"contributor":{"type":"ai","model_id":"p/m"},
//!            "ranges":[{"start_line":3,"end_line":4,"content_hash":"sha256:<hex>"}]}]}],
//!  "metadata":{"dev.hookwise":{"intent_id":"INT-1","mutation_class":"AST_REFACTOR",
//!            "session_id":"s","call_id":"c","tool":"edit","host":"opencode",
//!            "prev_hash":"sha256:<hex>"}}}
//! ```
//! - `id`: UUID v4 made from 16 random bytes the host supplies (no getrandom in the core).
//! - `timestamp`: RFC 3339 in UTC with milliseconds, from the host's epoch milliseconds.
//! - `prev_hash`: `sha256:` + hex SHA-256 of the exact text of the previous line of the file
//!   (without its newline); the first line's is the SHA-256 of the empty string. The host
//!   fills it in at append time under a lock (see [`Chained`] and `Request::AppendChained`),
//!   because only then is the previous line known when several processes append.
//! - `model_id` is cut to 250 characters (the schema's limit).

use serde::{Deserialize, Serialize};

use super::classify::MutationClass;
use super::ranges::Range;

pub const VERSION: &str = "0.1.0";
pub const TOOL_NAME: &str = "hookwise";
/// `prev_hash` of the first line: SHA-256 of the empty string.
pub const GENESIS: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub version: &'static str,
    pub id: String,
    pub timestamp: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vcs: Option<Vcs>,
    pub tool: ToolInfo,
    pub files: Vec<FileEntry>,
    /// Last, so the chained template can split at its last field.
    pub metadata: Metadata,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vcs {
    #[serde(rename = "type")]
    pub kind: String,
    pub revision: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolInfo {
    pub name: &'static str,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileEntry {
    pub path: String,
    pub conversations: Vec<Conversation>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conversation {
    pub contributor: Contributor,
    pub ranges: Vec<Range>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contributor {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metadata {
    #[serde(rename = "dev.hookwise")]
    pub hookwise: HookwiseMeta,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookwiseMeta {
    pub intent_id: Option<String>,
    pub mutation_class: MutationClass,
    pub session_id: String,
    pub call_id: String,
    pub tool: String,
    /// The host whose agent made the change (its profile id: `claude-code`, `codex`, …).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host: String,
    /// What `trace blame` needs to follow the written lines later ([`LinesWritten`]): per file,
    /// the short hashes of the lines each range wrote and of the lines around them, and the
    /// path a file was moved from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blame: Vec<LinesWritten>,
    /// The enforcement decision taken on this call, when enforcement is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<Enforcement>,
    /// The git branch checked out when the change was made (absent: detached HEAD, or no
    /// repository).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The segment of the trace this record was appended to (its file's name without
    /// `.jsonl`, [`super::segments`]); absent in the single-file log of older versions.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub segment: String,
    /// A repair record: the torn last line the host found at this append, moved aside.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair: Option<Repair>,
    /// Must stay the last field (see [`chained`]).
    pub prev_hash: String,
}

/// What a repair record says: the bytes after the log's last newline (an interrupted write)
/// were moved to the file `quarantined` (beside the log), `bytes` long, with this SHA-256.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Repair {
    pub quarantined: String,
    pub bytes: u64,
    pub sha256: String,
}

/// One written file as `trace blame` follows it, in the record's vendor data
/// (`metadata["dev.hookwise"].blame`, where the Agent Trace spec puts implementation data):
/// `ranges[k]` belongs to the file entry's `k`-th range and holds three strings of
/// [`line_hash`]es, [`HASH_CHARS`] characters per line: `lines`, the lines the range wrote;
/// `pre` and `post`, up to [`CONTEXT_LINES`] lines before and after it (they anchor a short
/// range, a lone `}`, where it lies now). `from`: the file was moved from this path by the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinesWritten {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default)]
    pub ranges: Vec<RangeLines>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeLines {
    #[serde(default)]
    pub pre: String,
    #[serde(default)]
    pub lines: String,
    #[serde(default)]
    pub post: String,
}

/// Characters of one line's hash in [`RangeLines`].
pub const HASH_CHARS: usize = 6;
/// Lines of context kept before and after a written range.
pub const CONTEXT_LINES: usize = 3;
/// Lines one record keeps hashes of (a bigger write is blamed at range granularity).
pub const MAX_HASHED_LINES: usize = 200_000;

/// A line's short hash: the first 36 bits of the SHA-256 of its text (as [`super::ranges`]
/// splits lines: no newline, no trailing `\r`), as 6 base64url characters.
pub fn line_hash(line: &str) -> [u8; HASH_CHARS] {
    use sha2::{Digest, Sha256};
    const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let d = Sha256::digest(line.as_bytes());
    let bits = u64::from_be_bytes([0, 0, 0, d[0], d[1], d[2], d[3], d[4]]) >> 4;
    let mut out = [0u8; HASH_CHARS];
    for (i, o) in out.iter_mut().enumerate() {
        *o = B64[((bits >> (6 * (HASH_CHARS - 1 - i))) & 63) as usize];
    }
    out
}

fn hashes(lines: &[&str]) -> String {
    let mut s = String::with_capacity(lines.len() * HASH_CHARS);
    for l in lines {
        s.push_str(std::str::from_utf8(&line_hash(l)).unwrap_or("??????"));
    }
    s
}

/// The [`LinesWritten`] of a file written as `after` with these ranges (none past
/// [`MAX_HASHED_LINES`]: the record then blames at range granularity).
pub fn lines_written(
    path: &str,
    from: Option<&str>,
    after: &str,
    ranges: &[Range],
) -> LinesWritten {
    let lines = super::ranges::split_lines(after);
    let total: usize = ranges
        .iter()
        .map(|r| r.end_line + 1 - r.start_line.min(r.end_line + 1))
        .sum();
    let ranges = if total > MAX_HASHED_LINES {
        Vec::new()
    } else {
        ranges
            .iter()
            .map(|r| {
                let (s, e) = (r.start_line.max(1) - 1, r.end_line.min(lines.len()));
                if s >= e {
                    return RangeLines::default();
                }
                RangeLines {
                    pre: hashes(&lines[s.saturating_sub(CONTEXT_LINES)..s]),
                    lines: hashes(&lines[s..e]),
                    post: hashes(&lines[e..(e + CONTEXT_LINES).min(lines.len())]),
                }
            })
            .collect()
    };
    LinesWritten {
        path: path.to_string(),
        from: from.map(str::to_string),
        ranges,
    }
}

/// The enforcement decision on the call that made the change (`allow` or `advise`: a
/// blocked call changes nothing), with the SOPs and categories it named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Enforcement {
    pub decision: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sops: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
}

/// What one record is about; the ids, time and randomness come from the host.
#[derive(Debug, Clone, Default)]
pub struct RecordInput<'a> {
    pub random: [u8; 16],
    pub now_ms: i64,
    pub head: Option<&'a str>,
    pub tool_version: &'a str,
    pub model_id: Option<&'a str>,
    pub intent_id: Option<&'a str>,
    pub session_id: &'a str,
    pub call_id: &'a str,
    pub tool: &'a str,
    /// The host's profile id.
    pub host: &'a str,
    /// The git branch checked out, when known.
    pub branch: Option<&'a str>,
    /// The trace segment the record goes to.
    pub segment: &'a str,
}

/// Build a record for `files` (path, ranges) with the given class. `prev_hash` is empty:
/// [`chained`] turns the record into the two halves the host joins around the hash.
pub fn record(
    input: &RecordInput,
    class: MutationClass,
    files: Vec<(String, Vec<Range>)>,
) -> Record {
    let model_id = input
        .model_id
        .filter(|m| !m.is_empty())
        .map(|m| m.chars().take(250).collect());
    Record {
        version: VERSION,
        id: uuid_v4(input.random),
        timestamp: rfc3339(input.now_ms),
        vcs: input.head.filter(|h| is_git_sha(h)).map(|h| Vcs {
            kind: "git".into(),
            revision: h.to_ascii_lowercase(),
        }),
        tool: ToolInfo {
            name: TOOL_NAME,
            version: input.tool_version.to_string(),
        },
        files: files
            .into_iter()
            .map(|(path, ranges)| FileEntry {
                path,
                conversations: vec![Conversation {
                    contributor: Contributor {
                        kind: "ai",
                        model_id: model_id.clone(),
                    },
                    ranges,
                }],
            })
            .collect(),
        metadata: Metadata {
            hookwise: HookwiseMeta {
                intent_id: input.intent_id.map(str::to_string),
                mutation_class: class,
                session_id: input.session_id.to_string(),
                call_id: input.call_id.to_string(),
                tool: input.tool.to_string(),
                host: input.host.to_string(),
                blame: Vec::new(),
                enforcement: None,
                branch: input.branch.map(str::to_string),
                segment: input.segment.to_string(),
                repair: None,
                prev_hash: String::new(),
            },
        },
    }
}

/// A record line with a hole for the previous line's hash: the line is
/// `before + <64 hex> + after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chained {
    pub before: String,
    pub after: String,
}

impl Chained {
    /// The line with `prev_hex` filled in (what the host writes).
    pub fn line(&self, prev_hex: &str) -> String {
        format!("{}{prev_hex}{}", self.before, self.after)
    }
}

/// The repair record the host appends before `rec` when the log ends in a torn line: `rec`'s
/// time and session, no files, tool `hookwise`, the torn bytes moved to `quarantined`. As four
/// parts around the values only the host knows: `parts[0] + <bytes> + parts[1] + <hex SHA-256
/// of the torn bytes> + parts[2] + <hex SHA-256 of the previous line> + parts[3]`.
pub fn repair_parts(rec: &Record, quarantined: &str) -> Result<Vec<String>, String> {
    let mut r = rec.clone();
    // its own id: the record's, with its random part turned
    let mut random = [0u8; 16];
    for (i, b) in crate::governance::ranges::sha256_hex(format!("repair {}", rec.id).as_bytes())
        .as_bytes()
        .chunks(2)
        .take(16)
        .enumerate()
    {
        random[i] = u8::from_str_radix(std::str::from_utf8(b).unwrap_or("00"), 16).unwrap_or(0);
    }
    r.id = uuid_v4(random);
    r.files = Vec::new();
    r.metadata.hookwise.tool = TOOL_NAME.to_string();
    r.metadata.hookwise.call_id = format!("{}-repair", rec.metadata.hookwise.call_id);
    r.metadata.hookwise.repair = Some(Repair {
        quarantined: quarantined.to_string(),
        bytes: 0,
        sha256: String::new(),
    });
    r.metadata.hookwise.prev_hash = String::new();
    let s = serde_json::to_string(&r).map_err(|e| e.to_string())?;
    const TAIL: &str = "\"bytes\":0,\"sha256\":\"\"},\"prev_hash\":\"\"}}}";
    let head = s
        .strip_suffix(TAIL)
        .ok_or("the repair record does not end with its values")?;
    Ok(vec![
        format!("{head}\"bytes\":"),
        ",\"sha256\":\"".into(),
        "\"},\"prev_hash\":\"sha256:".into(),
        "\"}}}".into(),
    ])
}

/// Split the serialized record around its `prev_hash` value.
pub fn chained(rec: &Record) -> Result<Chained, String> {
    let mut r = rec.clone();
    crate::redact::redact_paths(r.files.iter_mut().map(|f| &mut f.path).chain(
        r.metadata.hookwise.blame.iter_mut().flat_map(|w| std::iter::once(&mut w.path).chain(&mut w.from)),
    ));
    r.metadata.hookwise.prev_hash = String::new();
    let s = serde_json::to_string(&r).map_err(|e| e.to_string())?;
    const TAIL: &str = "\"prev_hash\":\"\"}}}";
    let head = s
        .strip_suffix(TAIL)
        .ok_or("the record does not end with prev_hash")?;
    Ok(Chained {
        before: format!("{head}\"prev_hash\":\"sha256:"),
        after: "\"}}}".into(),
    })
}

pub fn is_git_sha(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// UUID v4 (RFC 9562) from 16 random bytes.
pub fn uuid_v4(mut b: [u8; 16]) -> String {
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let mut s = String::with_capacity(36);
    for (i, x) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{x:02x}"));
    }
    s
}

/// 16 bytes from 32 hex characters.
pub fn parse_random(hex: &str) -> Option<[u8; 16]> {
    if hex.len() != 32 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Largest time an RFC 3339 year can hold (9999-12-31T23:59:59.999Z).
pub const MAX_MS: i64 = 253_402_300_799_999;

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for epoch milliseconds, clamped to years 1970–9999.
pub fn rfc3339(ms: i64) -> String {
    let ms = ms.clamp(0, MAX_MS);
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::ranges::{content_hash, sha256_hex};

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339(68_169_600_000), "1972-02-29T00:00:00.000Z");
        assert_eq!(rfc3339(1_700_000_000_000), "2023-11-14T22:13:20.000Z");
        assert_eq!(rfc3339(1_763_781_123_456), "2025-11-22T03:12:03.456Z");
        assert_eq!(rfc3339(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
        assert_eq!(rfc3339(MAX_MS), "9999-12-31T23:59:59.999Z");
        assert_eq!(rfc3339(i64::MAX), "9999-12-31T23:59:59.999Z");
        assert_eq!(rfc3339(-5), "1970-01-01T00:00:00.000Z");
        // every day for 1200 years round-trips through a simple day counter
        let mut days = 0i64;
        for y in 1970..3170i64 {
            let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
            let lens = [
                31,
                if leap { 29 } else { 28 },
                31,
                30,
                31,
                30,
                31,
                31,
                30,
                31,
                30,
                31,
            ];
            for (mi, len) in lens.iter().enumerate() {
                for d in 1..=*len {
                    assert_eq!(civil_from_days(days), (y, mi as u32 + 1, d));
                    days += 1;
                }
            }
        }
    }

    #[test]
    fn uuids() {
        let u = uuid_v4([0xff; 16]);
        assert_eq!(u, "ffffffff-ffff-4fff-bfff-ffffffffffff");
        let u = uuid_v4([0; 16]);
        assert_eq!(u, "00000000-0000-4000-8000-000000000000");
        let b = parse_random("000102030405060708090a0b0c0d0e0f").unwrap();
        assert_eq!(uuid_v4(b), "00010203-0405-4607-8809-0a0b0c0d0e0f");
        assert!(parse_random("zz0102030405060708090a0b0c0d0e0f").is_none());
        assert!(parse_random("00").is_none());
        assert!(parse_random("é00102030405060708090a0b0c0d0e0").is_none());
    }

    fn sample() -> Record {
        let input = RecordInput {
            random: [7; 16],
            now_ms: 1_763_781_123_456,
            head: Some("0123456789ABCDEF0123456789abcdef01234567"),
            tool_version: "0.1.0",
            model_id: Some("anthropic/claude"),
            intent_id: Some("INT-1"),
            session_id: "ses_1",
            call_id: "call_1",
            tool: "edit",
            host: "opencode",
            branch: Some("main"),
            segment: "0123456789abcdef",
        };
        let r = crate::governance::ranges::whole("a\nb\n");
        record(
            &input,
            MutationClass::AstRefactor,
            vec![("src/a.ts".into(), r)],
        )
    }

    #[test]
    fn record_shape() {
        let rec = sample();
        let v = serde_json::to_value(&rec).unwrap();
        assert_eq!(v["version"], "0.1.0");
        assert_eq!(
            v["vcs"]["revision"],
            "0123456789abcdef0123456789abcdef01234567"
        );
        assert_eq!(v["tool"]["name"], "hookwise");
        let conv = &v["files"][0]["conversations"][0];
        assert_eq!(
            conv["contributor"],
            serde_json::json!({"type": "ai", "model_id": "anthropic/claude"})
        );
        assert_eq!(conv["ranges"][0]["content_hash"], content_hash(&["a", "b"]));
        assert_eq!(
            v["metadata"]["dev.hookwise"]["mutation_class"],
            "AST_REFACTOR"
        );
        // no HEAD or a bad one: no vcs; long model ids are cut
        let mut input = RecordInput {
            head: Some("main"),
            model_id: Some(&"m".repeat(300)),
            ..Default::default()
        };
        input.session_id = "s";
        let v =
            serde_json::to_value(record(&input, MutationClass::IntentEvolution, vec![])).unwrap();
        assert!(v.get("vcs").is_none());
        assert!(v["metadata"]["dev.hookwise"]["intent_id"].is_null());
    }

    #[test]
    fn chained_template_fills_the_hash() {
        let rec = sample();
        let c = chained(&rec).unwrap();
        let prev = sha256_hex(b"previous line");
        let line = c.line(&prev);
        assert!(!line.contains('\n'));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            v["metadata"]["dev.hookwise"]["prev_hash"],
            format!("sha256:{prev}")
        );
        assert_eq!(v["id"], rec.id);
        // a path that looks like the template's tail does not confuse it
        let mut tricky = sample();
        tricky.files[0].path = "\"prev_hash\":\"\"}}}".into();
        let line = chained(&tricky).unwrap().line(GENESIS);
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["files"][0]["path"], "\"prev_hash\":\"\"}}}");
        assert_eq!(GENESIS, sha256_hex(b""));
    }
}

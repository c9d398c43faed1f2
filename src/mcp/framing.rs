//! Newline-delimited framing of the server's stdout: one JSON-RPC message per line.
//!
//! The host hands over stdout exactly as it arrives (bytes, any chunking: a line split over
//! several chunks, several lines in one chunk, a multi-byte character cut in two). Bytes are
//! kept until a `\n` completes a line, and only complete lines are decoded, so a character cut
//! at a chunk boundary is never mis-decoded. The buffer is bounded: a line longer than
//! `max_line` is dropped as it streams in (its bytes are counted, not kept), so a flood without
//! newlines cannot grow memory without bound.

/// Default bound of one line: a BuildContext with content previews for 100 entities is well
/// under 1 MiB of JSON.
pub const DEFAULT_MAX_LINE: usize = 4 << 20;

/// How many leading bytes of an over-long line are kept to find its JSON-RPC id.
const ID_HINT_BYTES: usize = 64;

/// One unit out of the buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete line (without its `\n` / `\r\n`), not blank.
    Line(String),
    /// A line over the bound; its bytes were dropped. `id`: the JSON-RPC id found at its start
    /// (the SDK writes `{"jsonrpc":"2.0","id":N,...}`), so the waiting request can fail at once.
    Oversized { bytes: usize, id: Option<u64> },
    /// A complete line that is not UTF-8.
    Invalid { bytes: usize },
}

/// Counters for diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameStats {
    pub bytes: u64,
    pub lines: u64,
    pub oversized: u64,
    pub invalid: u64,
}

#[derive(Debug)]
pub struct LineBuffer {
    buf: Vec<u8>,
    max_line: usize,
    /// Dropping an over-long line: bytes seen so far and the id hint from its start.
    skipping: Option<(usize, Option<u64>)>,
    pub stats: FrameStats,
}

impl Default for LineBuffer {
    fn default() -> Self {
        LineBuffer::new(DEFAULT_MAX_LINE)
    }
}

impl LineBuffer {
    pub fn new(max_line: usize) -> LineBuffer {
        LineBuffer {
            buf: Vec::new(),
            max_line: max_line.max(16),
            skipping: None,
            stats: FrameStats::default(),
        }
    }

    /// Bytes held for an unfinished line (never more than `max_line`).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Feed a chunk as it came from the pipe; returns the frames it completed, in order.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Vec<Frame> {
        self.stats.bytes += chunk.len() as u64;
        let mut out = Vec::new();
        while !chunk.is_empty() {
            let nl = chunk.iter().position(|&b| b == b'\n');
            if let Some((seen, id)) = self.skipping.as_mut() {
                match nl {
                    Some(i) => {
                        let frame = Frame::Oversized {
                            bytes: *seen + i,
                            id: *id,
                        };
                        self.skipping = None;
                        self.stats.oversized += 1;
                        out.push(frame);
                        chunk = &chunk[i + 1..];
                        continue;
                    }
                    None => {
                        *seen += chunk.len();
                        return out;
                    }
                }
            }
            match nl {
                Some(i) if self.buf.len() + i <= self.max_line => {
                    self.buf.extend_from_slice(&chunk[..i]);
                    let line = std::mem::take(&mut self.buf);
                    if let Some(f) = self.decode(line) {
                        out.push(f);
                    }
                    chunk = &chunk[i + 1..];
                }
                Some(i) => {
                    let id = self.id_hint(&chunk[..i]);
                    let bytes = self.buf.len() + i;
                    self.buf = Vec::new();
                    self.stats.oversized += 1;
                    out.push(Frame::Oversized { bytes, id });
                    chunk = &chunk[i + 1..];
                }
                None if self.buf.len() + chunk.len() <= self.max_line => {
                    self.buf.extend_from_slice(chunk);
                    return out;
                }
                None => {
                    let id = self.id_hint(chunk);
                    self.skipping = Some((self.buf.len() + chunk.len(), id));
                    self.buf = Vec::new(); // give the memory back
                    return out;
                }
            }
        }
        out
    }

    /// Convenience for hosts that decode stdout to text themselves.
    pub fn feed_str(&mut self, chunk: &str) -> Vec<Frame> {
        self.feed(chunk.as_bytes())
    }

    fn decode(&mut self, mut line: Vec<u8>) -> Option<Frame> {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let bytes = line.len();
        match String::from_utf8(line) {
            Ok(s) => {
                self.stats.lines += 1;
                Some(Frame::Line(s))
            }
            Err(_) => {
                self.stats.invalid += 1;
                Some(Frame::Invalid { bytes })
            }
        }
    }

    /// The id of an over-long message, read from its first bytes (held ones, then `more`).
    fn id_hint(&self, more: &[u8]) -> Option<u64> {
        let mut head: Vec<u8> = self.buf.iter().take(ID_HINT_BYTES).copied().collect();
        let want = ID_HINT_BYTES.saturating_sub(head.len());
        head.extend(more.iter().take(want));
        id_in_prefix(&head)
    }
}

/// `"id":N` near the start of a JSON object (top level, as the server writes it).
fn id_in_prefix(head: &[u8]) -> Option<u64> {
    let s = String::from_utf8_lossy(head);
    let t = s.trim_start();
    if !t.starts_with('{') {
        return None;
    }
    let at = t.find("\"id\"")? + 4;
    let rest = t[at..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"').unwrap_or(rest);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = rest[digits.len()..].chars().next();
    // A number cut by the prefix window is not trusted.
    if digits.is_empty() || after.is_none() {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(frames: &[Frame]) -> Vec<&str> {
        frames
            .iter()
            .map(|f| match f {
                Frame::Line(s) => s.as_str(),
                other => panic!("expected a line, got {other:?}"),
            })
            .collect()
    }

    #[test]
    fn split_and_merged_lines() {
        let mut b = LineBuffer::default();
        assert!(b.feed(b"{\"a\":").is_empty());
        assert!(b.feed(b"1").is_empty());
        let f = b.feed(b"}\n{\"b\":2}\n{\"c\"");
        assert_eq!(lines(&f), vec![r#"{"a":1}"#, r#"{"b":2}"#]);
        assert_eq!(b.buffered(), 4);
        let f = b.feed(b":3}\r\n\n  \n");
        assert_eq!(
            lines(&f),
            vec![r#"{"c":3}"#],
            "CRLF stripped, blank lines skipped"
        );
        assert_eq!(b.stats.lines, 3);
    }

    #[test]
    fn a_character_cut_at_a_chunk_boundary_is_decoded_whole() {
        let text = "{\"t\":\"• é 😀\"}\n".as_bytes();
        // Cut at every position: the result never changes.
        for cut in 1..text.len() {
            let mut b = LineBuffer::default();
            let mut f = b.feed(&text[..cut]);
            f.extend(b.feed(&text[cut..]));
            assert_eq!(lines(&f), vec!["{\"t\":\"• é 😀\"}"], "cut at {cut}");
        }
        let mut b = LineBuffer::default();
        let mut all = Vec::new();
        for byte in text {
            all.extend(b.feed(std::slice::from_ref(byte)));
        }
        assert_eq!(lines(&all), vec!["{\"t\":\"• é 😀\"}"]);
    }

    #[test]
    fn invalid_utf8_is_a_frame_of_its_own() {
        let mut b = LineBuffer::default();
        let f = b.feed(b"\xff\xfe garbage\n{\"ok\":1}\n");
        assert_eq!(f[0], Frame::Invalid { bytes: 10 });
        assert_eq!(f[1], Frame::Line("{\"ok\":1}".into()));
        assert_eq!(b.stats.invalid, 1);
    }

    #[test]
    fn an_over_long_line_is_dropped_with_bounded_memory_and_its_id_kept() {
        let mut b = LineBuffer::new(1000);
        let mut f =
            b.feed(br#"{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":""#);
        let filler = vec![b'x'; 700];
        for _ in 0..50 {
            f.extend(b.feed(&filler));
            assert!(b.buffered() <= 1000, "memory stays bounded");
        }
        assert!(f.is_empty());
        f.extend(b.feed(b"\"}]}}\n{\"jsonrpc\":\"2.0\",\"id\":43,\"result\":{}}\n"));
        assert!(matches!(f[0], Frame::Oversized { id: Some(42), bytes } if bytes > 35_000));
        assert_eq!(
            f[1],
            Frame::Line(r#"{"jsonrpc":"2.0","id":43,"result":{}}"#.into())
        );
        assert_eq!(b.stats.oversized, 1);
    }

    #[test]
    fn a_flood_without_newlines_never_grows_the_buffer() {
        let mut b = LineBuffer::new(4096);
        let junk = vec![b'#'; 10_000];
        for _ in 0..100 {
            assert!(b.feed(&junk).is_empty());
            assert_eq!(b.buffered(), 0);
        }
        let f = b.feed(b"\nok\n");
        assert_eq!(
            f,
            vec![
                Frame::Oversized {
                    bytes: 1_000_000,
                    id: None
                },
                Frame::Line("ok".into())
            ]
        );
    }

    #[test]
    fn a_complete_over_long_line_in_one_chunk() {
        let mut b = LineBuffer::new(32);
        let long = r#"{"id":"7","result":"0123456789012345678901234"}"#;
        let f = b.feed(format!("{long}\nshort\n").as_bytes());
        assert_eq!(
            f[0],
            Frame::Oversized {
                bytes: long.len(),
                id: Some(7)
            }
        );
        assert_eq!(f[1], Frame::Line("short".into()));
    }

    #[test]
    fn id_hints_are_only_trusted_when_complete() {
        assert_eq!(id_in_prefix(br#"{"jsonrpc":"2.0","id":12,"#), Some(12));
        assert_eq!(
            id_in_prefix(br#"{"jsonrpc":"2.0","id":12"#),
            None,
            "could be 123"
        );
        assert_eq!(id_in_prefix(br#"garbage "id":1,"#), None);
        assert_eq!(id_in_prefix(br#"{"method":"x"}"#), None);
    }
}

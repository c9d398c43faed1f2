//! How deep a YAML text nests, found by following the decisions of the scanner that parses it
//! (libyaml 0.2.5 as ported in `unsafe-libyaml-norway` 0.2.15, which serde_norway uses) —
//! without building a single token.
//!
//! A cheap guess (counting brackets outside quotes) can be fooled: whether `[` opens a flow
//! collection depends on whether it starts a token, which depends on quotes, comments, block
//! scalars, plain scalars continued on the next line (and so on the indentation of the block
//! collections), tags (`!<[[[>`), anchors… So this walks the text exactly as libyaml's scanner
//! does: where each token starts and ends, the flow level, the block indentation stack and the
//! "simple key" that decides where a block mapping starts. It keeps no strings and no token
//! queue, so it is linear: every step consumes at least one character, and every indentation
//! level it pops it pushed once.
//!
//! Where libyaml would stop with an error, this carries on (the parser stops there, so
//! anything after it is never scanned; carrying on can only find more depth, not less).
//! The tests run it side by side with libyaml's own scanner on generated texts and require
//! the same tokens at the same places.

/// The tokens, for the side-by-side tests (libyaml's `yaml_token_type_t`); only tests record
/// them.
#[cfg_attr(not(test), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok {
    StreamStart,
    StreamEnd,
    Directive,
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias,
    Anchor,
    Tag,
    Scalar,
}

#[cfg(test)]
macro_rules! emit {
    ($s:expr, $tok:expr, $at:expr) => {
        if let Some(t) = $s.trace.as_mut() {
            t.push(($tok, $at));
        }
    };
}
#[cfg(not(test))]
macro_rules! emit {
    ($s:expr, $tok:expr, $at:expr) => {
        let _ = $at;
    };
}

/// A possible simple key (libyaml's `yaml_simple_key_t`): where the token that may turn out to
/// be a block mapping's key started.
#[derive(Clone, Copy, Default)]
struct SimpleKey {
    possible: bool,
    index: usize,
    line: usize,
    column: i64,
    /// Test trace position of its first token (where `KEY` goes).
    #[cfg(test)]
    pos: usize,
}

/// One block indentation level (libyaml pushes the previous indent on `roll_indent`).
struct Level {
    prev: i64,
    mapping: bool,
    /// A sequence written at the mapping's own column (`key:\n- a`): one level more.
    indentless: bool,
}

pub(crate) struct Scanner<'a> {
    b: &'a [u8],
    /// Byte offset (libyaml's `mark.index`), line (0-based) and column in characters.
    i: usize,
    line: usize,
    col: i64,
    flow: usize,
    indent: i64,
    levels: Vec<Level>,
    keys: Vec<SimpleKey>,
    allowed: bool,
    depth: usize,
    max: usize,
    /// The deepest nesting seen and the line (1-based) where the limit was first passed.
    pub(crate) deepest: usize,
    over_at: Option<usize>,
    aliases: usize,
    #[cfg(test)]
    pub(crate) trace: Option<Vec<(Tok, usize)>>,
    /// Work done: characters and line breaks consumed, tokens started, levels popped.
    #[cfg(test)]
    pub(crate) steps: usize,
}

/// What the scan found.
pub(crate) struct Found {
    /// The line (1-based) where the text first nests deeper than the limit (flow
    /// collections, block collections and indentless sequences counted alike).
    pub(crate) too_deep_at: Option<usize>,
    /// Alias tokens (`*name`): without one, nothing expands.
    pub(crate) aliases: usize,
}

/// Scan `text` as libyaml would, stopping where it nests deeper than `max` levels.
pub(crate) fn scan(text: &str, max: usize) -> Found {
    let mut s = Scanner::new(text, max);
    s.run();
    Found {
        too_deep_at: s.over_at,
        aliases: s.aliases,
    }
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(text: &'a str, max: usize) -> Scanner<'a> {
        Scanner {
            b: text.as_bytes(),
            i: 0,
            line: 0,
            col: 0,
            flow: 0,
            indent: -1,
            levels: Vec::new(),
            keys: Vec::new(),
            allowed: true,
            depth: 0,
            max,
            deepest: 0,
            over_at: None,
            aliases: 0,
            #[cfg(test)]
            trace: None,
            #[cfg(test)]
            steps: 0,
        }
    }

    // ---- characters (libyaml's buffer macros; past the end reads as NUL, its end mark) ----

    fn at(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }
    fn is_z(&self, k: usize) -> bool {
        self.at(k) == 0
    }
    fn is_blank(&self, k: usize) -> bool {
        matches!(self.at(k), b' ' | b'\t')
    }
    fn is_break(&self, k: usize) -> bool {
        match self.at(k) {
            b'\r' | b'\n' => true,
            0xC2 => self.at(k + 1) == 0x85,
            0xE2 => self.at(k + 1) == 0x80 && matches!(self.at(k + 2), 0xA8 | 0xA9),
            _ => false,
        }
    }
    fn is_breakz(&self, k: usize) -> bool {
        self.is_break(k) || self.is_z(k)
    }
    fn is_blankz(&self, k: usize) -> bool {
        self.is_blank(k) || self.is_breakz(k)
    }
    fn is_alpha(&self, k: usize) -> bool {
        matches!(self.at(k), b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' | b'_' | b'-')
    }
    /// `---` or `...` followed by a blank, a break or the end, at column 0.
    fn document_indicator(&self) -> bool {
        self.col == 0
            && ((self.at(0) == b'-' && self.at(1) == b'-' && self.at(2) == b'-')
                || (self.at(0) == b'.' && self.at(1) == b'.' && self.at(2) == b'.'))
            && self.is_blankz(3)
    }

    /// SKIP: one character.
    fn skip(&mut self) {
        #[cfg(test)]
        {
            self.steps += 1;
        }
        if self.i >= self.b.len() {
            return;
        }
        let c = self.b[self.i];
        let w = match c {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        self.i = (self.i + w).min(self.b.len());
        self.col += 1;
    }
    /// SKIP_LINE / READ_LINE: one line break (CR LF is one), nothing otherwise.
    fn skip_line(&mut self) {
        #[cfg(test)]
        {
            self.steps += 1;
        }
        if self.at(0) == b'\r' && self.at(1) == b'\n' {
            self.i += 2;
        } else if self.is_break(0) {
            self.i += match self.at(0) {
                b'\r' | b'\n' => 1,
                0xC2 => 2,
                _ => 3,
            };
        } else {
            return;
        }
        self.col = 0;
        self.line += 1;
    }

    // ---- depth ----

    fn deeper(&mut self) {
        self.depth += 1;
        if self.depth > self.deepest {
            self.deepest = self.depth;
        }
        if self.depth > self.max && self.over_at.is_none() {
            self.over_at = Some(self.line + 1);
        }
    }

    // ---- libyaml's scanner state ----

    fn top(&mut self) -> &mut SimpleKey {
        self.keys.last_mut().expect("the stream's own level")
    }

    fn save_simple_key(&mut self) {
        if self.allowed {
            let key = SimpleKey {
                possible: true,
                index: self.i,
                line: self.line,
                column: self.col,
                #[cfg(test)]
                pos: self.trace.as_ref().map_or(0, Vec::len),
            };
            *self.top() = key;
        }
    }

    fn remove_simple_key(&mut self) {
        self.top().possible = false;
    }

    fn roll_indent(&mut self, column: i64, mapping: bool, _insert_at: Option<usize>) {
        if self.flow == 0 && self.indent < column {
            self.levels.push(Level {
                prev: self.indent,
                mapping,
                indentless: false,
            });
            self.indent = column;
            self.deeper();
            #[cfg(test)]
            {
                let (tok, at) = if mapping {
                    (Tok::BlockMappingStart, self.keys_mark(_insert_at))
                } else {
                    (Tok::BlockSequenceStart, self.i)
                };
                let Some(t) = self.trace.as_mut() else {
                    return;
                };
                match _insert_at {
                    Some(p) => t.insert(p, (tok, at)),
                    None => t.push((tok, at)),
                }
            }
        }
    }

    #[cfg(test)]
    fn keys_mark(&self, insert_at: Option<usize>) -> usize {
        match insert_at {
            Some(_) => self.keys.last().map_or(self.i, |k| k.index),
            None => self.i,
        }
    }

    fn unroll_indent(&mut self, column: i64) {
        if self.flow != 0 {
            return;
        }
        while self.indent > column {
            #[cfg(test)]
            {
                self.steps += 1;
            }
            emit!(self, Tok::BlockEnd, self.i);
            let l = self.levels.pop().expect("an indent above -1 was pushed");
            self.depth -= 1 + usize::from(l.indentless);
            self.indent = l.prev;
        }
    }

    // ---- the scanner ----

    pub(crate) fn run(&mut self) {
        self.keys.push(SimpleKey::default());
        emit!(self, Tok::StreamStart, 0);
        loop {
            #[cfg(test)]
            {
                self.steps += 1;
            }
            self.scan_to_next_token();
            self.unroll_indent(self.col);
            if self.i >= self.b.len() || self.is_z(0) {
                self.unroll_indent(-1);
                emit!(self, Tok::StreamEnd, self.i);
                return;
            }
            if self.over_at.is_some() && self.trace_off() {
                return;
            }
            self.fetch_next_token();
        }
    }

    #[cfg(test)]
    fn trace_off(&self) -> bool {
        self.trace.is_none()
    }
    #[cfg(not(test))]
    fn trace_off(&self) -> bool {
        true
    }

    fn scan_to_next_token(&mut self) {
        loop {
            if self.col == 0 && self.at(0) == 0xEF && self.at(1) == 0xBB && self.at(2) == 0xBF {
                self.skip();
            }
            while self.at(0) == b' ' || ((self.flow != 0 || !self.allowed) && self.at(0) == b'\t') {
                self.skip();
            }
            if self.at(0) == b'#' {
                while !self.is_breakz(0) {
                    self.skip();
                }
            }
            if !self.is_break(0) {
                return;
            }
            self.skip_line();
            if self.flow == 0 {
                self.allowed = true;
            }
        }
    }

    fn fetch_next_token(&mut self) {
        let c = self.at(0);
        let start = self.i;
        if self.col == 0 && c == b'%' {
            // a directive: its name and value end at the line break (anything else is an error)
            self.unroll_indent(-1);
            self.remove_simple_key();
            self.allowed = false;
            emit!(self, Tok::Directive, start);
            while !self.is_breakz(0) {
                self.skip();
            }
            self.skip_line(); // a directive eats its line break
            return;
        }
        if self.document_indicator() {
            self.unroll_indent(-1);
            self.remove_simple_key();
            self.allowed = false;
            emit!(
                self,
                if c == b'-' {
                    Tok::DocumentStart
                } else {
                    Tok::DocumentEnd
                },
                start
            );
            self.skip();
            self.skip();
            self.skip();
            return;
        }
        match c {
            b'[' | b'{' => {
                self.save_simple_key();
                self.keys.push(SimpleKey::default());
                self.flow += 1;
                self.deeper();
                self.allowed = true;
                emit!(
                    self,
                    if c == b'[' {
                        Tok::FlowSequenceStart
                    } else {
                        Tok::FlowMappingStart
                    },
                    start
                );
                self.skip();
            }
            b']' | b'}' => {
                self.remove_simple_key();
                if self.flow != 0 {
                    self.flow -= 1;
                    self.depth -= 1;
                    self.keys.pop();
                }
                self.allowed = false;
                emit!(
                    self,
                    if c == b']' {
                        Tok::FlowSequenceEnd
                    } else {
                        Tok::FlowMappingEnd
                    },
                    start
                );
                self.skip();
            }
            b',' => {
                self.remove_simple_key();
                self.allowed = true;
                emit!(self, Tok::FlowEntry, start);
                self.skip();
            }
            b'-' if self.is_blankz(1) => {
                if self.flow == 0 {
                    let col = self.col;
                    self.roll_indent(col, false, None);
                    // `-` at a mapping's own column: an indentless sequence (one level more)
                    if self.indent == col {
                        if let Some(l) = self.levels.last_mut() {
                            if l.mapping && !l.indentless {
                                l.indentless = true;
                                self.deeper();
                            }
                        }
                    }
                }
                self.remove_simple_key();
                self.allowed = true;
                emit!(self, Tok::BlockEntry, start);
                self.skip();
            }
            b'?' if self.flow != 0 || self.is_blankz(1) => {
                if self.flow == 0 {
                    self.roll_indent(self.col, true, None);
                }
                self.remove_simple_key();
                self.allowed = self.flow == 0;
                emit!(self, Tok::Key, start);
                self.skip();
            }
            b':' if self.flow != 0 || self.is_blankz(1) => self.fetch_value(),
            b'*' | b'&' => {
                self.save_simple_key();
                self.allowed = false;
                self.aliases += usize::from(c == b'*');
                emit!(
                    self,
                    if c == b'*' { Tok::Alias } else { Tok::Anchor },
                    start
                );
                self.skip();
                while self.is_alpha(0) {
                    self.skip();
                }
            }
            b'!' => {
                self.save_simple_key();
                self.allowed = false;
                emit!(self, Tok::Tag, start);
                self.scan_tag();
            }
            b'|' | b'>' if self.flow == 0 => {
                self.remove_simple_key();
                self.allowed = true;
                emit!(self, Tok::Scalar, start);
                self.scan_block_scalar();
            }
            b'\'' | b'"' => {
                self.save_simple_key();
                self.allowed = false;
                emit!(self, Tok::Scalar, start);
                self.scan_flow_scalar(c == b'\'');
            }
            _ if self.plain_start() => {
                self.save_simple_key();
                self.allowed = false;
                emit!(self, Tok::Scalar, start);
                self.scan_plain_scalar();
            }
            // "found character that cannot start any token": libyaml stops here
            _ => self.skip(),
        }
    }

    fn plain_start(&self) -> bool {
        let c = self.at(0);
        !(self.is_blankz(0) || b"-?:,[]{}#&*!|>'\"%@`".contains(&c))
            || (c == b'-' && !self.is_blank(1))
            || (self.flow == 0 && (c == b'?' || c == b':') && !self.is_blankz(1))
    }

    fn fetch_value(&mut self) {
        let start = self.i;
        let (line, i) = (self.line, self.i);
        let key = *self.keys.last().expect("the stream's own level");
        // libyaml drops a simple key once it is on an earlier line or 1024 bytes back
        let stale = key.line < line || key.index + 1024 < i;
        if key.possible && !stale {
            #[cfg(test)]
            if let Some(t) = self.trace.as_mut() {
                t.insert(key.pos, (Tok::Key, key.index));
            }
            #[cfg(test)]
            self.roll_indent(key.column, true, Some(key.pos));
            #[cfg(not(test))]
            self.roll_indent(key.column, true, None);
            self.top().possible = false;
            self.allowed = false;
        } else {
            self.top().possible = false;
            if self.flow == 0 {
                self.roll_indent(self.col, true, None);
            }
            self.allowed = self.flow == 0;
        }
        emit!(self, Tok::Value, start);
        self.skip();
    }

    /// A URI character of a tag (`,`, `[` and `]` only inside `!<…>`).
    fn uri_char(&self, verbatim: bool) -> bool {
        self.is_alpha(0)
            || b";/?:@&=+$.%!~*'()".contains(&self.at(0))
            || (verbatim && matches!(self.at(0), b',' | b'[' | b']'))
    }

    fn scan_tag(&mut self) {
        self.skip(); // `!`
        if self.at(0) == b'<' {
            self.skip();
            while self.uri_char(true) {
                self.skip();
            }
            if self.at(0) == b'>' {
                self.skip();
            }
        } else {
            // handle (`!`, letters, `!`) and suffix: one run of URI characters
            while self.uri_char(false) {
                self.skip();
            }
        }
    }

    fn scan_flow_scalar(&mut self, single: bool) {
        let quote = if single { b'\'' } else { b'"' };
        self.skip();
        loop {
            if self.document_indicator() || self.i >= self.b.len() || self.is_z(0) {
                return; // an error in libyaml
            }
            while !self.is_blankz(0) {
                if single && self.at(0) == b'\'' && self.at(1) == b'\'' {
                    self.skip();
                    self.skip();
                } else if self.at(0) == quote {
                    break;
                } else if !single && self.at(0) == b'\\' && self.is_break(1) {
                    self.skip();
                    self.skip_line();
                    break;
                } else if !single && self.at(0) == b'\\' {
                    let hex = match self.at(1) {
                        b'x' => 2,
                        b'u' => 4,
                        b'U' => 8,
                        _ => 0,
                    };
                    self.skip();
                    self.skip();
                    for _ in 0..hex {
                        if !self.at(0).is_ascii_hexdigit() {
                            break; // an error in libyaml
                        }
                        self.skip();
                    }
                } else {
                    self.skip();
                }
            }
            if self.at(0) == quote {
                self.skip();
                return;
            }
            while self.is_blank(0) || self.is_break(0) {
                if self.is_blank(0) {
                    self.skip();
                } else {
                    self.skip_line();
                }
            }
        }
    }

    fn scan_plain_scalar(&mut self) {
        let indent = self.indent + 1;
        let mut leading_blanks = false;
        loop {
            if self.document_indicator() || self.at(0) == b'#' {
                break;
            }
            while !self.is_blankz(0) {
                let c = self.at(0);
                if self.flow != 0 && c == b':' && b",?[]{}".contains(&self.at(1)) {
                    break; // an error in libyaml
                }
                if (c == b':' && self.is_blankz(1))
                    || (self.flow != 0 && matches!(c, b',' | b'[' | b']' | b'{' | b'}'))
                {
                    break;
                }
                // text after the line break: the scalar goes on (only a scalar that ends at
                // a line break lets a simple key start after it)
                leading_blanks = false;
                self.skip();
            }
            if !(self.is_blank(0) || self.is_break(0)) {
                break;
            }
            while self.is_blank(0) || self.is_break(0) {
                if self.is_blank(0) {
                    self.skip();
                } else {
                    self.skip_line();
                    leading_blanks = true;
                }
            }
            if self.flow == 0 && self.col < indent {
                break;
            }
        }
        if leading_blanks {
            self.allowed = true;
        }
    }

    fn scan_block_scalar(&mut self) {
        self.skip(); // `|` or `>`
        let mut increment = 0i64;
        if matches!(self.at(0), b'+' | b'-') {
            self.skip();
            if self.at(0).is_ascii_digit() {
                if self.at(0) == b'0' {
                    return; // an error in libyaml
                }
                increment = i64::from(self.at(0) - b'0');
                self.skip();
            }
        } else if self.at(0).is_ascii_digit() {
            if self.at(0) == b'0' {
                return; // an error in libyaml
            }
            increment = i64::from(self.at(0) - b'0');
            self.skip();
            if matches!(self.at(0), b'+' | b'-') {
                self.skip();
            }
        }
        while self.is_blank(0) {
            self.skip();
        }
        if self.at(0) == b'#' {
            while !self.is_breakz(0) {
                self.skip();
            }
        }
        if !self.is_breakz(0) {
            return; // an error in libyaml
        }
        self.skip_line();
        let mut indent = if increment != 0 {
            if self.indent >= 0 {
                self.indent + increment
            } else {
                increment
            }
        } else {
            0
        };
        if !self.block_scalar_breaks(&mut indent) {
            return;
        }
        while self.col == indent && !(self.i >= self.b.len() || self.is_z(0)) {
            while !self.is_breakz(0) {
                self.skip();
            }
            self.skip_line();
            if !self.block_scalar_breaks(&mut indent) {
                return;
            }
        }
    }

    /// The indentation and empty lines of a block scalar; `false` where libyaml stops.
    fn block_scalar_breaks(&mut self, indent: &mut i64) -> bool {
        let mut max_indent = 0;
        loop {
            while (*indent == 0 || self.col < *indent) && self.at(0) == b' ' {
                self.skip();
            }
            max_indent = max_indent.max(self.col);
            if (*indent == 0 || self.col < *indent) && self.at(0) == b'\t' {
                return false;
            }
            if !self.is_break(0) {
                break;
            }
            self.skip_line();
        }
        if *indent == 0 {
            *indent = max_indent.max(self.indent + 1).max(1);
        }
        true
    }
}

//! Concepts derived from what maenifold's answers really carry (no concept lists): the
//! WikiLinks in snippets and memory files, and titles / slugs normalized as maenifold does.
//! Counted per file (or per message), ranked by frequency.

use std::collections::HashMap;

use serde::Serialize;

use crate::wikilink::{self, ScanMode};

/// `text` without fenced code blocks and inline code spans: maenifold ignores links there.
/// Line-based (a fence is a line starting with ``` or ~~~; a code span closes on its line).
pub fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<(u8, usize)> = None;
    for line in text.split('\n') {
        let t = line.trim_start();
        let run = |c: u8| t.bytes().take_while(|&b| b == c).count();
        let (tick, tilde) = (run(b'`'), run(b'~'));
        let opener = if tick >= 3 {
            Some((b'`', tick))
        } else if tilde >= 3 {
            Some((b'~', tilde))
        } else {
            None
        };
        match (fence, opener) {
            (None, Some(o)) => {
                fence = Some(o);
                out.push('\n');
                continue;
            }
            (Some((c, n)), Some((c2, n2))) if c == c2 && n2 >= n => {
                fence = None;
                out.push('\n');
                continue;
            }
            (Some(_), _) => {
                out.push('\n');
                continue;
            }
            (None, None) => {}
        }
        strip_code_spans(line, &mut out);
        out.push('\n');
    }
    out.pop();
    out
}

/// Copy `line` to `out` without its inline code spans (a run of n backticks up to the next run
/// of exactly n). Linear: the runs are indexed by length once.
fn strip_code_spans(line: &str, out: &mut String) {
    if !line.contains('`') {
        out.push_str(line);
        return;
    }
    let b = line.as_bytes();
    let mut runs: Vec<(usize, usize)> = Vec::new(); // (start, len)
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let s = i;
            while i < b.len() && b[i] == b'`' {
                i += 1;
            }
            runs.push((s, i - s));
        } else {
            i += 1;
        }
    }
    // For each run, the index of the next run of the same length.
    let mut next_same: Vec<Option<usize>> = vec![None; runs.len()];
    let mut last_of_len: HashMap<usize, usize> = HashMap::new();
    for (k, &(_, len)) in runs.iter().enumerate().rev() {
        next_same[k] = last_of_len.get(&len).copied();
        last_of_len.insert(len, k);
    }
    let mut pos = 0;
    let mut k = 0;
    while k < runs.len() {
        let (s, len) = runs[k];
        if s < pos {
            k += 1;
            continue;
        }
        match next_same[k] {
            Some(j) => {
                out.push_str(&line[pos..s]);
                out.push(' ');
                pos = runs[j].0 + len;
                k = j + 1;
            }
            None => k += 1, // unmatched: literal backticks
        }
    }
    out.push_str(&line[pos..]);
}

/// A concept with how often it was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConceptCount {
    pub name: String,
    /// Distinct files (or messages) it appears in, as a link or as the title.
    pub files: usize,
    /// WikiLink mentions in all.
    pub mentions: usize,
}

#[derive(Debug, Default, Clone)]
struct Item {
    name: String,
    link_files: Vec<u32>,
    title_files: Vec<u32>,
    mentions: usize,
}

/// Counts concepts by file. Files are named by any key (a memory:// URI, a message index).
#[derive(Debug, Default, Clone)]
pub struct Tally {
    files: HashMap<String, u32>,
    index: HashMap<String, usize>,
    items: Vec<Item>,
}

fn add_file(v: &mut Vec<u32>, f: u32) {
    if !v.contains(&f) {
        v.push(f);
    }
}

impl Tally {
    fn file_id(&mut self, file: &str) -> u32 {
        let n = self.files.len() as u32;
        *self.files.entry(file.to_string()).or_insert(n)
    }

    fn item(&mut self, name: String) -> &mut Item {
        let n = self.items.len();
        let i = *self.index.entry(name.clone()).or_insert(n);
        if i == n {
            self.items.push(Item {
                name,
                ..Default::default()
            });
        }
        &mut self.items[i]
    }

    /// Count the WikiLinks of `text` (outside code) as seen in `file`.
    pub fn add_links(&mut self, text: &str, file: &str) {
        let f = self.file_id(file);
        let text = prose(text);
        let mut names: Vec<String> = Vec::new();
        wikilink::for_each_link(&text, ScanMode::Prose, |body| {
            let c = wikilink::concept_of(body);
            if !c.is_empty() {
                names.push(c);
            }
        });
        for c in names {
            let it = self.item(c);
            it.mentions += 1;
            add_file(&mut it.link_files, f);
        }
    }

    /// Count a title or slug, normalized as a concept name, as seen in `file`. It ranks below
    /// any WikiLink seen in as many files.
    pub fn add_title(&mut self, title: &str, file: &str) {
        let c = wikilink::normalize(title);
        if c.is_empty() || c == "untitled" {
            return;
        }
        let f = self.file_id(file);
        add_file(&mut self.item(c).title_files, f);
    }

    /// All concepts, most frequent first: by files as a link, then mentions, then files as a
    /// title, then first seen.
    pub fn ranked(&self) -> Vec<ConceptCount> {
        let mut order: Vec<usize> = (0..self.items.len()).collect();
        crate::sort::sort_by(&mut order, |&a, &b| {
            let (x, y) = (&self.items[a], &self.items[b]);
            y.link_files
                .len()
                .cmp(&x.link_files.len())
                .then(y.mentions.cmp(&x.mentions))
                .then(y.title_files.len().cmp(&x.title_files.len()))
                .then(a.cmp(&b))
        });
        order
            .into_iter()
            .map(|i| {
                let it = &self.items[i];
                let mut files = it.link_files.clone();
                for f in &it.title_files {
                    add_file(&mut files, *f);
                }
                ConceptCount {
                    name: it.name.clone(),
                    files: files.len(),
                    mentions: it.mentions,
                }
            })
            .collect()
    }

    /// The first `n` of [`Tally::ranked`].
    pub fn top(&self, n: usize) -> Vec<ConceptCount> {
        let mut r = self.ranked();
        r.truncate(n);
        r
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_not_prose() {
        let t = "a [[x]]\n```rust\nlet v = [[y]];\n```\nb `[[z]]` c ``[[w]] ` `` [[v]]\n~~~\n[[u]]\n~~~";
        let p = prose(t);
        let found: Vec<String> = wikilink::concepts(&p, ScanMode::Prose);
        assert_eq!(found, vec!["x", "v"]);
        // an unclosed backtick is literal; an unclosed fence hides the rest
        assert_eq!(
            wikilink::concepts(&prose("it`s [[ok]]"), ScanMode::Prose),
            vec!["ok"]
        );
        assert!(wikilink::concepts(&prose("```\n[[hidden]]"), ScanMode::Prose).is_empty());
        assert_eq!(prose("plain\ntext"), "plain\ntext");
    }

    #[test]
    fn ranks_by_files_then_mentions_and_titles_last() {
        let mut t = Tally::default();
        t.add_links("[[JWT]] and [[auth]] and [[JWT]]", "memory://a");
        t.add_links("[[auth]] [[redis]]", "memory://b");
        t.add_links("[[Auth]] again [[auth]]", "memory://b"); // same file: files stay 2
        t.add_title("Auth Design", "memory://a");
        t.add_title("Redis", "memory://c");
        t.add_title("Untitled", "memory://d");
        let r = t.ranked();
        let names: Vec<&str> = r.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["auth", "jwt", "redis", "auth-design"]);
        assert_eq!(
            r[0],
            ConceptCount {
                name: "auth".into(),
                files: 2,
                mentions: 4
            }
        );
        assert_eq!(r[2].files, 2, "redis: a link in b, the title of c");
        assert_eq!(r[3].mentions, 0);
        assert_eq!(t.top(2).len(), 2);
    }

    #[test]
    fn huge_inputs_stay_linear() {
        let mut t = Tally::default();
        let mut s = String::new();
        for i in 0..200_000 {
            s.push_str(&format!("[[c{i}]] `{i}` "));
        }
        t.add_links(&s, "memory://big");
        assert_eq!(t.ranked().len(), 200_000);
        let ticks: String = (1..3000).map(|n| "`".repeat(n % 97 + 1) + "x").collect();
        let p = prose(&ticks);
        assert!(p.len() < ticks.len(), "matched code spans are removed");
        assert!(p.contains('x'));
    }
}

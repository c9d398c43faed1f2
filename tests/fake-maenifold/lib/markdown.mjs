// Markdown helpers for the fake maenifold: front matter, WikiLinks, slugs, sections, previews.
// Behaviour follows docs/maenifold-cli.md (the CLI contract, checked against the real program); this is an independent re-implementation.

import { createHash } from 'node:crypto';

/** trim, lowercase, space/_/'/' -> '-', collapse '-', trim '-' at both ends. */
export function normalizeConcept(concept) {
  return String(concept)
    .trim()
    .toLowerCase()
    .replace(/[ _/]/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** File slug: lowercase [a-z0-9-], else "untitled". */
export function slugify(text) {
  const s = String(text)
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s || 'untitled';
}

/** base64(sha256(utf8 text)), the checksum shape maenifold reports. */
export function checksum(text) {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

function unquote(v) {
  const t = v.trim();
  if (t.length >= 2 && ((t[0] === '"' && t.at(-1) === '"') || (t[0] === "'" && t.at(-1) === "'"))) {
    return t.slice(1, -1);
  }
  return t;
}

/** Tiny YAML subset: `key: value`, `key: [a, b]`, `key:` followed by `- item` lines. */
function parseYaml(text) {
  const out = {};
  let listKey = null;
  for (const raw of text.split(/\r?\n/)) {
    if (!raw.trim() || raw.trim().startsWith('#')) continue;
    const item = raw.match(/^\s*-\s+(.*)$/);
    if (item && listKey) {
      out[listKey].push(unquote(item[1]));
      continue;
    }
    const kv = raw.match(/^([A-Za-z0-9_-]+):\s*(.*)$/);
    if (!kv) continue;
    const [, key, value] = kv;
    if (value === '') {
      out[key] = [];
      listKey = key;
      continue;
    }
    listKey = null;
    if (value.startsWith('[') && value.endsWith(']')) {
      out[key] = value.slice(1, -1).split(',').map(unquote).filter((s) => s !== '');
    } else {
      out[key] = unquote(value);
    }
  }
  return out;
}

/**
 * Split a memory file into front matter and body. The body is the text after the closing
 * `---` with leading newlines removed (as maenifold's reader does).
 */
export function parseMarkdown(fullText) {
  const m = fullText.match(/^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/);
  if (!m) return { frontmatter: null, content: fullText };
  const frontmatter = parseYaml(m[1]);
  const content = fullText.slice(m[0].length).replace(/^[\r\n]+/, '');
  return { frontmatter, content };
}

function yamlScalar(v) {
  const s = String(v);
  if (s === '' || /^[\s]|[\s]$|: |^[-?:,[\]{}#&*!|>'"%@`]|#/.test(s) || /^(true|false|null|~|yes|no)$/i.test(s)) {
    return "'" + s.replace(/'/g, "''") + "'";
  }
  return s;
}

/** Front matter + body, in the block-style YAML maenifold writes. */
export function renderMarkdown(frontmatter, body) {
  const lines = ['---'];
  for (const [k, v] of Object.entries(frontmatter)) {
    if (Array.isArray(v)) {
      lines.push(`${k}:`);
      for (const item of v) lines.push(`- ${yamlScalar(item)}`);
    } else {
      lines.push(`${k}: ${yamlScalar(v)}`);
    }
  }
  lines.push('---', '', '');
  return lines.join('\n') + body;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * Split markdown into blocks: { kind: 'code' | 'text', lines }. Fenced code blocks (``` or ~~~,
 * closed by a fence of the same character at least as long, or running to the end) are 'code';
 * runs of non-blank lines between them are 'text' (ATX headings are their own block).
 */
export function blocks(markdown) {
  const out = [];
  const lines = markdown.split('\n').map((l) => l.replace(/\r$/, ''));
  let cur = null;
  const flush = () => {
    if (cur && cur.lines.length) out.push(cur);
    cur = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const open = line.match(FENCE_OPEN);
    if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
      flush();
      const ch = open[1][0];
      const len = open[1].length;
      const code = { kind: 'code', lines: [line] };
      for (i = i + 1; i < lines.length; i++) {
        code.lines.push(lines[i]);
        const close = lines[i].match(/^ {0,3}(`{3,}|~{3,})\s*$/);
        if (close && close[1][0] === ch && close[1].length >= len) break;
      }
      out.push(code);
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    if (/^ {0,3}#{1,6}(\s|$)/.test(line)) {
      flush();
      out.push({ kind: 'text', lines: [line] });
      continue;
    }
    if (!cur) cur = { kind: 'text', lines: [] };
    cur.lines.push(line);
  }
  flush();
  return out;
}

/** Replace inline code spans (matching backtick runs) with spaces; unmatched runs stay literal. */
export function blankInlineCode(text) {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\' && text[i + 1] === '`') {
      out += '\\`';
      i += 2;
      continue;
    }
    if (c !== '`') {
      out += c;
      i++;
      continue;
    }
    let n = 0;
    while (text[i + n] === '`') n++;
    // find a closing run of exactly n backticks
    let j = i + n;
    let close = -1;
    while (j < text.length) {
      if (text[j] === '`') {
        let m = 0;
        while (text[j + m] === '`') m++;
        if (m === n) {
          close = j;
          break;
        }
        j += m;
      } else {
        j++;
      }
    }
    if (close < 0) {
      out += '`'.repeat(n);
      i += n;
      continue;
    }
    const end = close + n;
    out += text.slice(i, end).replace(/[^\n]/g, ' ');
    i = end;
  }
  return out;
}

const WIKILINK = /(?<!\[)\[\[([^[\]]+)\]\](?!\])/g;

/**
 * Distinct normalized concepts in order of first appearance. Links in fenced code blocks and in
 * inline code are ignored; `[[[x]]]` is not a link.
 */
export function extractWikiLinks(markdown) {
  const seen = new Set();
  for (const b of blocks(markdown)) {
    if (b.kind !== 'text') continue;
    const text = blankInlineCode(b.lines.join('\n'));
    for (const m of text.matchAll(WIKILINK)) {
      const c = normalizeConcept(m[1]);
      if (c) seen.add(c);
    }
  }
  return [...seen];
}

/** H2 sections outside code fences: [{ heading, content }], content trimmed. */
export function h2Sections(markdown) {
  const sections = [];
  let cur = null;
  for (const b of blocks(markdown)) {
    if (b.kind === 'text' && b.lines.length === 1 && /^ {0,3}## /.test(b.lines[0])) {
      cur = { heading: b.lines[0].replace(/^ {0,3}## /, '').replace(/\s+#*\s*$/, '').trim(), parts: [] };
      sections.push(cur);
      continue;
    }
    if (cur) cur.parts.push(b.lines.join('\n'));
  }
  return sections.map((s) => ({ heading: s.heading, content: s.parts.join('\n').trim() }));
}

/** One-line snippet: non-empty lines not starting with '*', joined with spaces, capped. */
export function activitySnippet(content, maxLength = 100) {
  const lines = content.split('\n').filter((l) => l.length > 0);
  let keep = lines.filter((l) => !l.trimStart().startsWith('*'));
  if (keep.length === 0 && lines.length > 0) keep = lines;
  let s = keep.join(' ').replace(/\r/g, '').trim();
  if (s.length > maxLength) s = s.slice(0, maxLength - 3) + '...';
  return s;
}

function lastSentenceBoundary(text) {
  let last = -1;
  for (const p of ['. ', '.\n', '! ', '!\n', '? ', '?\n']) last = Math.max(last, text.lastIndexOf(p));
  if (/[.!?]$/.test(text)) last = Math.max(last, text.length - 1);
  return last;
}

/** Sentence-, paragraph-, then word-aware truncation to about targetLength characters. */
export function smartPreview(content, targetLength = 200, tolerance = 50) {
  if (content.length <= targetLength) return content;
  const space = content.slice(0, Math.min(targetLength + tolerance, content.length));
  const sentence = lastSentenceBoundary(space);
  if (sentence >= targetLength - tolerance) return content.slice(0, sentence + 1).trimEnd();
  const para = space.lastIndexOf('\n\n');
  if (para >= targetLength - tolerance) return content.slice(0, para).trimEnd() + '...';
  const word = space.lastIndexOf(' ');
  if (word > 0) return content.slice(0, word).trimEnd() + '...';
  return content.slice(0, targetLength) + '...';
}

/**
 * BuildContext content preview: the H2 section (or the H1 section when there is no H2) that
 * mentions the concept, at most ~500 characters; else a ~200 character preview of the file.
 * Previews keep their newlines, so a preview can span several output lines.
 */
export function conceptPreview(content, concept, maxLength = 500) {
  if (!content.trim()) return '';
  const needle = concept.replace(/^\[+|\]+$/g, '');
  const lines = content.split('\n');
  const starts = [];
  let pos = 0;
  let h1 = null;
  for (const line of lines) {
    if (h1 === null && line.startsWith('# ')) h1 = pos;
    if (line.startsWith('## ')) starts.push(pos);
    pos += line.length + 1;
  }
  const sections = starts.map((s, i) => [s, i + 1 < starts.length ? starts[i + 1] : content.length]);
  if (sections.length === 0 && h1 !== null) sections.push([h1, content.length]);
  const lowerNeedle = needle.toLowerCase();
  for (const [s, e] of sections) {
    const section = content.slice(s, e);
    const lower = section.toLowerCase();
    if (lower.includes(`[[${lowerNeedle}]]`) || lower.includes(lowerNeedle)) {
      return section.length <= maxLength ? section.trimEnd() : smartPreview(section, maxLength - 50, 50);
    }
  }
  return smartPreview(content, 200, 50);
}

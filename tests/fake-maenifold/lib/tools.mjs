// The tools the fake implements. Each tool: CLI name, MCP name, parameters (for tools/list and MCP
// binding), fromPayload (CLI PayloadReader rules) and run (shared by CLI and MCP).
// Output shapes follow docs/maenifold-cli.md (the CLI contract, checked against the real program).

import fs from 'node:fs';
import path from 'node:path';
import {
  ArgumentError,
  McpToolError,
  getBool,
  getDouble,
  getInt,
  getLearn,
  getOptString,
  getString,
  getStringArray,
  parseTimeSpan,
  valueKind,
} from './payload.mjs';
import {
  activitySnippet,
  checksum,
  conceptPreview,
  extractWikiLinks,
  h2Sections,
  normalizeConcept,
  parseMarkdown,
  renderMarkdown,
  slugify,
} from './markdown.mjs';

// ---------------------------------------------------------------------------------------------
// shared helpers

const pad = (n, w = 2) => String(n).padStart(w, '0');

/** "yyyy-MM-dd HH:mm" in local time (set TZ for stable output). */
export function localDisplay(date) {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function utcStamp(date) {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

function parseDate(s) {
  if (typeof s !== 'string' || !s.trim()) return null;
  const d = new Date(s.trim());
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Last-indexed time of a memory file: front matter `modified`, else the file's mtime. */
function lastIndexed(f) {
  return parseDate(f.frontmatter.modified) || f.mtime;
}

const withHint = (result, tool, hint) => `${result}\n💡 ${hint} Run GetHelp("${tool}") for complete documentation.`;
const withNextSteps = (result, ...tools) => `${result}\n💡 Next: Consider using ${tools.join(', ')} for related operations.`;

export const ok = (data) => JSON.stringify({ success: true, data, error: null });
export const fail = (code, message) => JSON.stringify({ success: false, data: null, error: { code, message } });

const STOPWORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with we you your our from'.split(
    ' ',
  ),
);

function informativeTerms(query) {
  if (!query || !query.trim()) return [];
  return query
    .toLowerCase()
    .split(' ')
    .map((t) => t.trim())
    .filter((t) => t && !STOPWORDS.has(t));
}

function helpText(tool) {
  const lines = [`# ${tool.name}`, '', tool.description, '', '## Parameters', ''];
  for (const p of tool.params) {
    const req = p.required ? 'required' : `optional, default ${JSON.stringify(p.default ?? null)}`;
    lines.push(`- \`${p.name}\` (${p.type === 'stringArray' ? 'string[]' : p.type}, ${req}): ${p.description}`);
  }
  lines.push('', '## Notes', '', 'This help text comes from the fake maenifold used in hookwise tests.');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// SearchMemories

function textResults(store, query, dir, maxResults, tags) {
  const terms = informativeTerms(query);
  const results = [];
  const files = store.listMarkdown(dir).slice(0, Math.max(0, maxResults * 2));
  for (const p of files) {
    let f;
    try {
      f = store.read(p);
    } catch {
      continue;
    }
    if (!matchesTags(f, tags)) continue;
    const content = f.content.toLowerCase();
    const title = typeof f.frontmatter.title === 'string' ? f.frontmatter.title.toLowerCase() : '';
    let score = 0;
    for (const t of terms) {
      score += content.split(t).length - 1;
      if (title && title.includes(t)) score += 5;
    }
    if (score > 0) results.push({ uri: f.uri, score, file: f });
  }
  return results.sort((a, b) => b.score - a.score).slice(0, Math.max(0, maxResults));
}

function matchesTags(f, tags) {
  if (!tags || tags.length === 0) return true;
  const fileTags = (Array.isArray(f.frontmatter.tags) ? f.frontmatter.tags : []).map((t) => String(t).toLowerCase());
  return tags.every((t) => fileTags.includes(t.toLowerCase()));
}

/** Stand-in for vector search: share of query terms found in the file's words and concepts. */
function semanticResults(store, query, dir, maxResults, tags) {
  const terms = informativeTerms(query);
  const results = [];
  for (const p of store.listMarkdown(dir)) {
    let f;
    try {
      f = store.read(p);
    } catch {
      continue;
    }
    if (!matchesTags(f, tags)) continue;
    const words = new Set(`${f.title}\n${f.content}`.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean));
    for (const c of f.concepts) for (const part of c.split(/[^a-z0-9]+/)) if (part) words.add(part);
    const concepts = new Set(f.concepts);
    let hits = 0;
    let conceptHits = 0;
    for (const t of terms) {
      const parts = t.split(/[^a-z0-9]+/).filter(Boolean);
      if (words.has(t) || concepts.has(t) || (parts.length && parts.every((x) => words.has(x)))) hits++;
      if (concepts.has(normalizeConcept(t))) conceptHits++;
    }
    if (hits === 0) continue;
    const score = Math.min(0.999, 0.5 + (0.4 * hits) / terms.length + (0.08 * conceptHits) / terms.length);
    results.push({ uri: f.uri, score: Math.round(score * 10000) / 10000, file: f });
  }
  return results
    .sort((a, b) => b.score - a.score || (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
    .slice(0, Math.max(0, maxResults));
}

/** Title and a 200-character snippet starting 20 characters before the first query term. */
function displayInfo(f, query) {
  const content = f.content;
  let first = -1;
  const lower = content.toLowerCase();
  for (const t of informativeTerms(query)) {
    const i = lower.indexOf(t);
    if (i >= 0 && (first === -1 || i < first)) first = i;
  }
  if (first < 0) first = 0;
  const start = Math.max(0, first - 20);
  const snippet = content
    .slice(start, start + Math.min(200, content.length - start))
    .replace(/\r\n/g, ' ')
    .replace(/\n/g, ' ')
    .trim();
  return { title: f.title, snippet };
}

function paginate(list, page, pageSize) {
  const skip = Math.max(0, (page - 1) * pageSize);
  return pageSize > 0 ? list.slice(skip, skip + pageSize) : [];
}

const NO_KEYWORDS = () =>
  withHint(
    'ERROR: Query contains no informative keywords. Try adding specific terms (e.g. "machine learning", "NLP").',
    'SearchMemories',
    'Provide at least one non-stopword keyword',
  );

function searchMemories({ query, mode, pageSize, page, folder, tags, minScore, learn }, ctx) {
  if (learn) return helpText(TOOL_BY_NAME.searchmemories);
  const { store } = ctx;
  const dir = folder !== null && folder !== undefined ? path.join(store.memoryDir, folder) : store.memoryDir;
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return 'No memories found in specified folder';
  if (informativeTerms(query).length === 0) return NO_KEYWORDS();

  const entry = (r) => `📄 **${r.title}** (${r.path})`;
  if (mode === 'Hybrid') {
    const vector = semanticResults(store, query, dir, pageSize * 3, tags);
    const text = textResults(store, query, dir, pageSize * 3, tags);
    const fused = new Map();
    const touch = (r) => {
      if (!fused.has(r.uri)) fused.set(r.uri, { path: r.uri, fusedScore: 0, textScore: 0, semanticScore: 0, ...displayInfo(r.file, query) });
      return fused.get(r.uri);
    };
    vector.forEach((r, i) => {
      const e = touch(r);
      e.fusedScore += 1 / (60 + i + 1);
      e.semanticScore = r.score;
    });
    text.forEach((r, i) => {
      const e = touch(r);
      e.fusedScore += 1 / (60 + i + 1);
      e.textScore = Math.min(r.score / 100, 1);
    });
    const all = [...fused.values()].sort((a, b) => b.fusedScore - a.fusedScore).filter((r) => r.fusedScore >= minScore);
    const shown = paginate(all, page, pageSize);
    if (ctx.json) {
      return ok({
        mode: 'Hybrid',
        query,
        totalCount: all.length,
        page,
        pageSize,
        textResultCount: text.length,
        semanticResultCount: vector.length,
        results: shown.map((r) => ({
          title: r.title,
          path: r.path,
          fusedScore: r.fusedScore,
          textScore: r.textScore,
          semanticScore: r.semanticScore,
          snippet: r.snippet,
        })),
      });
    }
    let out = '🔍 **Hybrid Search** (combining text + semantic similarity)\n';
    out += `Found ${all.length} matches (page ${page}):\n`;
    out += `Text results: ${text.length}, Semantic results: ${vector.length}\n\n`;
    for (const r of shown) {
      out += `${entry(r)}\n`;
      out += `   📊 Scores - Fused: ${r.fusedScore.toFixed(3)} | Text: ${r.textScore.toFixed(3)} | Semantic: ${r.semanticScore.toFixed(3)}\n`;
      out += `   📝 ${r.snippet}\n\n`;
    }
    return withNextSteps(out, 'ReadMemory', 'BuildContext');
  }

  let all;
  if (mode === 'Semantic') {
    all = semanticResults(store, query, dir, pageSize * 2, tags).filter((r) => r.score >= minScore);
  } else {
    const text = textResults(store, query, dir, pageSize * 2, tags);
    const max = text.length ? Math.max(...text.map((r) => r.score)) : 0;
    all = max > 0 ? text.map((r) => ({ ...r, score: r.score / max })).filter((r) => r.score >= minScore) : [];
  }
  all = all.map((r) => ({ path: r.uri, score: r.score, ...displayInfo(r.file, query) })).sort((a, b) => b.score - a.score);
  const shown = paginate(all, page, pageSize);
  if (ctx.json) {
    return ok({
      mode,
      query,
      totalCount: all.length,
      page,
      pageSize,
      results: shown.map((r) => ({ title: r.title, path: r.path, score: r.score, snippet: r.snippet })),
    });
  }
  let out =
    mode === 'Semantic' ? '🧠 **Semantic Search** (concept similarity)\n' : '📝 **Full-Text Search** (keyword matching)\n';
  out += `Found ${all.length} matches (page ${page}):\n\n`;
  for (const r of shown) {
    out += `${entry(r)}\n`;
    out += mode === 'Semantic' ? `   🎯 Semantic similarity: ${r.score.toFixed(3)}\n` : `   📊 Text relevance: ${r.score.toFixed(2)}\n`;
    out += `   📝 ${r.snippet}\n\n`;
  }
  return mode === 'Semantic'
    ? withNextSteps(out, 'ReadMemory', 'BuildContext', 'FindSimilarConcepts')
    : withNextSteps(out, 'ReadMemory', 'BuildContext');
}

const SEARCH_MODES = ['Hybrid', 'Semantic', 'FullText'];

function parseSearchMode(s) {
  const t = s.trim();
  if (/^\d+$/.test(t) && Number(t) < SEARCH_MODES.length) return SEARCH_MODES[Number(t)];
  const hit = SEARCH_MODES.find((m) => m.toLowerCase() === t.toLowerCase());
  if (!hit) throw new ArgumentError(`Requested value '${s}' was not found.`);
  return hit;
}

// ---------------------------------------------------------------------------------------------
// RecentActivity

function activityType(uri) {
  if (uri.includes('memory://thinking/')) {
    if (uri.includes('/sequential/')) return 'sequential';
    if (uri.includes('/workflow/')) return 'workflow';
    return 'thinking';
  }
  return 'memory';
}

function matchesFilter(uri, filter) {
  switch (filter) {
    case 'thinking':
      return uri.startsWith('memory://thinking/');
    case 'chat':
      return uri.startsWith('memory://chat/');
    case 'assumptions':
      return uri.startsWith('memory://assumptions/');
    case 'memory':
      return !uri.startsWith('memory://thinking/') && !uri.startsWith('memory://chat/') && !uri.startsWith('memory://assumptions/');
    default:
      return true; // null, "all" or unknown: no filter
  }
}

function recentActivity({ limit, filter, timespan, includeContent, learn }, ctx) {
  if (learn) return helpText(TOOL_BY_NAME.recentactivity);
  if (timespan !== null && timespan < 0) return "ERROR: timespan parameter must be positive. Example: '24.00:00:00' for 24 hours.";
  const { store } = ctx;
  if (!store.hasDatabase() || ctx.env.FAKE_MAENIFOLD_NO_DB === '1') {
    return '# Recent Activity\n\nNo database found. Run the `Sync` command first to index memory files.';
  }
  const cutoff = timespan !== null ? ctx.now - timespan : null;
  const entries = store
    .files()
    .map((f) => ({ f, at: lastIndexed(f) }))
    .filter(({ f, at }) => matchesFilter(f.uri, filter) && (cutoff === null || at.getTime() >= cutoff))
    .sort((a, b) => b.at - a.at)
    .slice(0, Math.max(0, limit));
  if (entries.length === 0) return 'No recent activity found';

  const blocks = entries.map(({ f, at }) => {
    const type = activityType(f.uri);
    const sections = h2Sections(f.content);
    const lines = [`**${f.slug}** (${type})`, `  Modified: ${localDisplay(at)}`];
    const status = typeof f.frontmatter.status === 'string' ? f.frontmatter.status : 'active';
    const firstLast = (list, withLast) => {
      if (list.length === 0) return;
      const first = list[0];
      const last = list[list.length - 1];
      if (includeContent) {
        lines.push(`  First H2: ${first.heading}`, `  First H2 Content: ${first.content}`);
        if (withLast) lines.push(`  Last H2: ${last.heading}`, `  Last H2 Content: ${last.content}`);
      } else {
        lines.push(`  First: "${activitySnippet(first.content)}"`);
        if (withLast) lines.push(`  Last: "${activitySnippet(last.content)}"`);
      }
    };
    if (type === 'sequential') {
      const thoughts = sections.filter((s) => /^Thought\b/.test(s.heading));
      lines.push(`  Thoughts: ${thoughts.length}`, `  Status: ${status}`);
      firstLast(thoughts, true);
    } else if (type === 'workflow') {
      lines.push(`  Steps: ${sections.length}`, `  Status: ${status}`);
      if (sections.length) {
        const cur = sections[sections.length - 1];
        lines.push(includeContent ? `  Current: ${cur.heading}\n${cur.content}` : `  Current: "${activitySnippet(cur.content)}"`);
      }
    } else {
      lines.push(`  Title: ${f.title}`, `  Sections: ${sections.length}`);
      if (sections.length) firstLast(sections, includeContent);
      else if (!includeContent) lines.push(`  First: "${activitySnippet(f.content.replace(/^# .*\n?/, ''))}"`);
    }
    return lines.join('\n');
  });
  return `# Recent Activity\n\n${blocks.join('\n\n')}`;
}

// ---------------------------------------------------------------------------------------------
// BuildContext

export class BuildContextResult {
  constructor(conceptName, depth) {
    this.conceptName = conceptName;
    this.depth = depth;
    this.directRelations = []; // { name, coOccurrenceCount, files, contentPreview: {uri: text}, communityId? }
    this.expandedRelations = [];
    this.communityId = null;
    this.communitySiblings = null; // [{ name, sharedNeighbors, overlap }]
  }

  /** CLI text form. */
  toText() {
    const out = [`Context for CONCEPT: ${this.conceptName}`, '', `Direct relations (${this.directRelations.length} CONCEPTS):`];
    for (const r of this.directRelations) {
      const community = r.communityId !== null && r.communityId !== undefined ? ` [community ${r.communityId}]` : '';
      out.push(`  • ${r.name} (co-occurs in ${r.coOccurrenceCount} files)${community}`);
      if (r.files.length) out.push(`    Files: ${r.files.slice(0, 3).join(', ')}`);
      const previews = Object.entries(r.contentPreview);
      if (previews.length) {
        out.push('    Content preview:');
        for (const [uri, text] of previews) out.push(`      ${uri}: ${text}`);
      }
    }
    if (this.directRelations.length === 0) return out.join('\n');
    if (this.depth > 1) {
      out.push('', `Expanded relations (${this.depth} hops):`);
      for (const c of this.expandedRelations.slice(0, 20)) out.push(`  • ${c}`);
    }
    if (this.communitySiblings && this.communitySiblings.length) {
      out.push('', `Community siblings (${this.communitySiblings.length} concepts in community ${this.communityId}):`);
      for (const s of this.communitySiblings) {
        out.push(`  • ${s.name} (shared neighbors: ${s.sharedNeighbors}, overlap: ${s.overlap.toFixed(3)})`);
      }
    }
    return out.join('\n');
  }

  /** MCP form: compact camelCase JSON, nulls omitted. */
  toJSON() {
    const o = {
      conceptName: this.conceptName,
      depth: this.depth,
      directRelations: this.directRelations.map((r) => {
        const x = {
          name: r.name,
          coOccurrenceCount: r.coOccurrenceCount,
          files: r.files,
          contentPreview: r.contentPreview,
          decayWeight: 1,
          weightedScore: r.coOccurrenceCount,
        };
        if (r.communityId !== null && r.communityId !== undefined) x.communityId = r.communityId;
        return x;
      }),
      expandedRelations: this.expandedRelations,
    };
    if (this.communityId !== null) o.communityId = this.communityId;
    if (this.communitySiblings) o.communitySiblings = this.communitySiblings;
    return o;
  }
}

function buildContext({ conceptName, depth, maxEntities, includeContent, learn }, ctx) {
  if (learn) return helpText(TOOL_BY_NAME.buildcontext);
  if (depth < 0) throw new McpToolError('depth must be >= 0');
  const name = normalizeConcept(conceptName);
  const { store } = ctx;
  const result = new BuildContextResult(name, depth);
  if (!store.graph().concepts.has(name)) return result;

  const all = store.neighbours(name);
  // SQLite LIMIT: a negative limit means no limit.
  const direct = maxEntities < 0 ? all : all.slice(0, maxEntities);
  const communities = ctx.env.FAKE_MAENIFOLD_COMMUNITIES === '1' ? store.communities() : null;
  const byUri = new Map(store.files().map((f) => [f.uri, f]));
  for (const n of direct) {
    const rel = { name: n.name, coOccurrenceCount: n.count, files: n.files.slice(0, 3), contentPreview: {} };
    if (includeContent) {
      for (const uri of rel.files) {
        const f = byUri.get(uri);
        if (f) rel.contentPreview[uri] = conceptPreview(f.content, name, 500);
      }
    }
    if (communities) rel.communityId = communities.get(n.name) ?? null;
    result.directRelations.push(rel);
  }

  if (depth > 1) {
    const expanded = [];
    const visited = new Set([name]);
    const traverse = (current, level) => {
      if (level >= depth) return;
      for (const next of store.neighbours(current).map((x) => x.name).sort()) {
        if (!visited.has(next)) {
          visited.add(next);
          expanded.push(next);
          traverse(next, level + 1);
        }
      }
    };
    for (const n of direct.slice(0, 5)) traverse(n.name, 1);
    result.expandedRelations = maxEntities < 0 ? [] : expanded.slice(0, maxEntities);
  }

  if (communities) {
    const cid = communities.get(name);
    result.communityId = cid ?? null;
    const mine = new Set(store.neighbours(name).map((x) => x.name));
    const siblings = [];
    for (const [c, id] of communities) {
      if (id !== cid || c === name || mine.has(c)) continue;
      const theirs = new Set(store.neighbours(c).map((x) => x.name));
      const shared = [...theirs].filter((x) => mine.has(x)).length;
      if (shared === 0) continue;
      const union = new Set([...mine, ...theirs]).size;
      siblings.push({ name: c, sharedNeighbors: shared, overlap: Math.round((shared / union) * 1000) / 1000 });
    }
    siblings.sort((a, b) => b.overlap - a.overlap || (a.name < b.name ? -1 : 1));
    result.communitySiblings = siblings.slice(0, 10);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// ReadMemory / WriteMemory

function findByTitle(store, identifier) {
  if (!identifier || !identifier.trim()) return null;
  const normalized = identifier.replace(/\\/g, '/').replace(/^\/+|\/+$/g, '');
  if (!normalized) return null;
  const direct = path.join(store.memoryDir, normalized);
  const isFile = (p) => fs.existsSync(p) && fs.statSync(p).isFile();
  if (isFile(direct)) return direct;
  const ext = path.extname(normalized);
  if (!ext) {
    if (isFile(direct + '.md')) return direct + '.md';
  } else if (ext.toLowerCase() !== '.md') {
    const withMd = direct.slice(0, -ext.length) + '.md';
    if (isFile(withMd)) return withMd;
  }
  const slug = slugify(identifier);
  return store.listMarkdown().find((f) => path.basename(f).replace(/\.md$/i, '').toLowerCase() === slug) || null;
}

function readMemory({ identifier, includeChecksum, learn }, ctx) {
  if (learn) return helpText(TOOL_BY_NAME.readmemory);
  const { store } = ctx;
  const p = identifier.startsWith('memory://') ? store.uriToPath(identifier) : findByTitle(store, identifier);
  if (!p || !fs.existsSync(p)) {
    return ctx.json ? fail('NOT_FOUND', `Memory file not found: ${identifier}`) : `ERROR: Memory file not found: ${identifier}`;
  }
  const f = store.read(p);
  const location = path.relative(store.memoryDir, p);
  const created = typeof f.frontmatter.created === 'string' ? f.frontmatter.created : null;
  const modified = typeof f.frontmatter.modified === 'string' ? f.frontmatter.modified : null;
  if (ctx.json) {
    return ok({
      uri: f.uri,
      title: f.title,
      location,
      created,
      modified,
      checksum: includeChecksum ? f.checksum : null,
      content: f.content,
    });
  }
  const show = (s) => {
    const d = parseDate(s);
    return d ? localDisplay(d) : s;
  };
  const lines = [`# ${f.title}`, `URI: ${f.uri}`, `Location: ${location}`];
  if (created !== null) lines.push(`Created: ${show(created)}`);
  if (modified !== null) lines.push(`Modified: ${show(modified)}`);
  if (includeChecksum) lines.push(`Checksum: ${f.checksum}`);
  return `${lines.join('\n')}\n\n---\n\n${f.content}`;
}

function sanitizeTitle(input) {
  if (!input || !input.trim()) return 'Untitled';
  let s = input.length > 255 ? input.slice(0, 255) : input;
  try {
    s = decodeURIComponent(s);
  } catch {
    /* malformed escapes stay as they are */
  }
  s = s.replace(/<[^>]*>/g, '');
  s = s.replace(/[:|>\-[\]{}#&*!@`']/g, '');
  s = s.replace(/[$();&|`\\<>"]/g, '');
  s = s.split('..').join('').split('/').join('').split('\\').join('');
  s = s.replace(/[\x00-\x1F\x7F-\x9F]/g, '');
  s = s.replace(/\s+/g, ' ').trim();
  return s || 'Untitled';
}

function folderError(folder) {
  if (path.isAbsolute(folder) || /^[A-Za-z]:[\\/]/.test(folder)) return 'Absolute paths are not allowed. Use relative paths only.';
  for (const seg of folder.replace(/\\/g, '/').split('/')) {
    if (seg && /^\.+$/.test(seg)) return 'Path traversal components (dot sequences) are not allowed.';
  }
  return null;
}

function writeMemory({ title, content, folder, tags, learn }, ctx) {
  if (learn) return helpText(TOOL_BY_NAME.writememory);
  const { store } = ctx;
  title = sanitizeTitle(title);
  if (extractWikiLinks(content).length === 0) {
    if (ctx.json) {
      return fail('VALIDATION_ERROR', 'Content must contain at least one [[concept]] in double brackets to connect to the knowledge graph.');
    }
    return (
      'ERROR: Content must contain at least one [[concept]] in double brackets to connect to the knowledge graph.\n' +
      "Example: 'Learning about [[Machine Learning]] and [[Data Science]]'\n" +
      'This ensures your note is connected to the knowledge graph and not orphaned.'
    );
  }
  if (folder) {
    const err = folderError(folder);
    if (err) return ctx.json ? fail('PATH_VALIDATION_ERROR', err) : `ERROR: Invalid folder path - ${err}`;
  }
  const slug = slugify(title);
  const dir = folder ? path.join(store.memoryDir, folder) : store.memoryDir;
  const file = path.join(dir, `${slug}.md`);
  const now = new Date(ctx.now).toISOString();
  const fm = { title, permalink: slug, type: 'memory', status: 'saved', created: now, modified: now };
  if (tags && tags.length) fm.tags = tags;
  const body = content.trimStart().startsWith('# ') ? content : `# ${title}\n\n${content}`;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, renderMarkdown(fm, body));
  const sum = checksum(fs.readFileSync(file, 'utf8'));
  const uri = store.pathToUri(file);
  if (ctx.json) return ok({ uri, checksum: sum, title, folder: folder || null });
  return withHint(`Created memory FILE: ${uri}\nChecksum: ${sum}`, 'WriteMemory', 'Use ReadMemory with this URI to access content');
}

// ---------------------------------------------------------------------------------------------
// Sync

function sync({ learn }, ctx) {
  if (learn) return helpText(TOOL_BY_NAME.sync);
  const { store } = ctx;
  const files = store.files();
  ctx.stderr(`[SYNC TELEMETRY] Processing ${files.length} files`);
  const mentions = files.reduce((n, f) => n + f.concepts.length, 0);
  const relations = store.graph().edges.size;
  fs.mkdirSync(path.dirname(store.dbPath), { recursive: true });
  const t = new Date();
  if (fs.existsSync(store.dbPath)) fs.utimesSync(store.dbPath, t, t);
  else fs.writeFileSync(store.dbPath, '');
  ctx.stderr(`[SYNC TELEMETRY] Extracted ${store.graph().concepts.size} unique concepts in 1ms`);
  ctx.stderr('[SYNC TELEMETRY] Total sync completed in 2ms');
  return ['Sync complete:', `- ${files.length} FILES processed`, `- ${mentions} CONCEPT mentions found`, `- ${relations} CONCEPT relations created`].join(
    '\n',
  );
}

// ---------------------------------------------------------------------------------------------
// SequentialThinking (enough of it to create and extend sessions)

function sessionPath(store, kind, sessionId) {
  const ms = Number(sessionId.slice(sessionId.lastIndexOf('-') + 1));
  const d = new Date(ms);
  if (!/^\d+$/.test(sessionId.slice(sessionId.lastIndexOf('-') + 1)) || Number.isNaN(d.getTime())) return null;
  return path.join(store.memoryDir, 'thinking', kind, String(d.getUTCFullYear()), pad(d.getUTCMonth() + 1), pad(d.getUTCDate()), `${sessionId}.md`);
}

function updateFrontmatter(file, changes) {
  const { frontmatter, content } = parseMarkdown(fs.readFileSync(file, 'utf8'));
  fs.writeFileSync(file, renderMarkdown({ ...(frontmatter || {}), ...changes }, content));
}

function appendH2(file, heading, content) {
  let existing = fs.readFileSync(file, 'utf8');
  if (existing && !existing.endsWith('\n')) existing += '\n';
  fs.writeFileSync(file, `${existing}\n## ${heading}\n\n${content}\n`);
}

function sequentialThinking(a, ctx) {
  if (a.learn) return helpText(TOOL_BY_NAME.sequentialthinking);
  const { store } = ctx;
  if (!a.cancel) {
    const n = (a.response ? extractWikiLinks(a.response).length : 0) + (a.thoughts ? extractWikiLinks(a.thoughts).length : 0);
    if (n === 0) return "ERROR: Must include [[concepts]]. Example: 'Analyzing [[Machine Learning]] algorithms'";
  }
  const sessionId = a.sessionId ?? `session-${ctx.now}`;
  const dash = sessionId.lastIndexOf('-');
  if (dash < 0 || dash === sessionId.length - 1 || !/^[+-]?\d+$/.test(sessionId.slice(dash + 1))) {
    return 'ERROR: Invalid sessionId format. Use maenifold-generated values (session-{unix-milliseconds}) or omit sessionId to start a new session.';
  }
  const file = sessionPath(store, 'sequential', sessionId);
  const exists = !!file && fs.existsSync(file);
  if (a.thoughtNumber === 1 && !exists && !a.isRevision) {
    return `ERROR: Session ${sessionId} not found. To start new session, don't provide sessionId.`;
  }
  if (a.parentWorkflowId) {
    if (a.thoughtNumber !== 1) return 'ERROR: Parent workflow can only be set on first thought.';
    const wf = sessionPath(store, 'workflow', a.parentWorkflowId);
    if (!wf || !fs.existsSync(wf)) return `ERROR: Parent workflow '${a.parentWorkflowId}' not found.`;
  }
  if (a.branchFromThought !== null && !a.branchId) return 'ERROR: branchId required when branchFromThought is specified for multi-agent coordination';
  if (a.thoughtNumber === 1 && !a.branchId && exists && !a.isRevision) {
    return `ERROR: Session ${sessionId} exists. Use different sessionId or continue existing.`;
  }
  if (a.thoughtNumber > 1 && !exists && !a.isRevision) return `ERROR: Session ${sessionId} missing. Start with thoughtNumber=0.`;
  if (a.isRevision && !exists) return `ERROR: Cannot revise - session ${sessionId} doesn't exist.`;
  if (!file) return `ERROR: Invalid sessionId format. Use maenifold-generated values (session-{unix-milliseconds}) or omit sessionId to start a new session.`;

  if (!exists) {
    const fm = { title: `Sequential Thinking Session ${sessionId}`, permalink: sessionId, type: 'sequential', status: 'active' };
    if (a.analysisType) fm.analysisType = a.analysisType;
    if (a.parentWorkflowId) fm.parent = `[[workflow/${a.parentWorkflowId}]]`;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, renderMarkdown(fm, '# Sequential Thinking Session\n\n'));
  }
  if (!a.cancel && a.response !== null) {
    const total = a.needsMoreThoughts && a.thoughtNumber >= a.totalThoughts ? a.thoughtNumber + 1 : a.totalThoughts;
    let heading = `Thought ${a.thoughtNumber}/${total} [${ctx.env.AGENT_ID || 'agent'}]`;
    if (a.branchId) heading += ` (Branch: ${a.branchId})`;
    else if (a.isRevision && a.revisesThought !== null) heading += ` (Revises: ${a.revisesThought})`;
    let body = `${a.response}\n`;
    if (a.thoughts) body += `\n*Thoughts: ${a.thoughts}*\n`;
    body += `\n*${utcStamp(new Date(ctx.now))}*\n`;
    appendH2(file, heading, body);
  }
  const complete = !a.nextThoughtNeeded;
  if (complete && !a.cancel) {
    if (!a.conclusion) return 'ERROR: Conclusion required when completing session. Must synthesize findings with [[concepts]].';
    if (extractWikiLinks(a.conclusion).length === 0) return 'ERROR: Conclusion must include [[concepts]] for knowledge graph integration.';
  }
  const stamp = new Date(ctx.now).toISOString();
  if (a.cancel) {
    updateFrontmatter(file, { status: 'cancelled', cancelled: stamp, ...(a.thoughtNumber > 0 ? { thoughtCount: a.thoughtNumber } : {}) });
  } else if (complete) {
    appendH2(file, 'Conclusion', a.conclusion);
    updateFrontmatter(file, { status: 'completed', completed: stamp, thoughtCount: a.thoughtNumber });
  }
  let msg = a.thoughtNumber === 1 ? `Created session: ${sessionId}` : `Added thought ${a.thoughtNumber} to session: ${sessionId}`;
  if (a.cancel) msg += '\n\n❌ Thinking cancelled';
  else if (complete) msg += '\n\n✅ Thinking complete';
  else {
    const extending = a.needsMoreThoughts && a.thoughtNumber >= a.totalThoughts;
    msg += `\n\n💭 Continue with thought ${a.thoughtNumber + 1}/${extending ? '?' : a.totalThoughts}`;
    if (extending) msg += ' (extending beyond initial estimate)';
    if (a.thoughtNumber === 1 || a.thoughtNumber % 3 === 0) {
      msg +=
        '\n\n💡 **CHECK YOUR MEMORY:** `search_memories` for what exists and `build_context` on [[concepts]] | `sync` new findings to add them to the graph';
    }
  }
  return msg;
}

// ---------------------------------------------------------------------------------------------
// registry

const P = (name, type, description, extra = {}) => ({ name, type, description, required: false, ...extra });
const LEARN = P('learn', 'boolean', 'Return help documentation instead of executing', { default: false });

export const TOOLS = [
  {
    name: 'SearchMemories',
    mcpName: 'search_memories',
    description:
      'Discovers existing knowledge files through Hybrid (default), Semantic or FullText search. Returns ranked results with scores and snippets.',
    params: [
      P('query', 'string', 'Search query - looks in FILE contents', { required: true }),
      P('mode', 'enum', 'Search mode: Hybrid (default), Semantic, or FullText', { values: SEARCH_MODES, default: 'Hybrid' }),
      P('pageSize', 'integer', 'Max FILES to return', { default: 10 }),
      P('page', 'integer', 'Page number for results', { default: 1 }),
      P('folder', 'string', 'Filter by folder path', { default: null }),
      P('tags', 'stringArray', 'Filter by tags', { default: null }),
      P('minScore', 'number', 'Minimum similarity score threshold (0.0-1.0)', { default: 0 }),
      LEARN,
    ],
    fromPayload(p) {
      const query = getString(p, 'query');
      const mode = typeof p.mode === 'string' ? parseSearchMode(p.mode) : 'Hybrid';
      return {
        query,
        mode,
        pageSize: getInt(p, 'pageSize', 10),
        page: getInt(p, 'page', 1),
        folder: getOptString(p, 'folder'),
        tags: getStringArray(p, 'tags'),
        minScore: getDouble(p, 'minScore', 0),
        learn: getLearn(p),
      };
    },
    run: searchMemories,
  },
  {
    name: 'RecentActivity',
    mcpName: 'recent_activity',
    description:
      'Lists recently modified memory files and thinking sessions, newest first, with optional type filter and time span.',
    params: [
      P('limit', 'integer', 'Max results (default 10)', { default: 10 }),
      P('filter', 'string', 'Filter: thinking, memory, assumptions, or all (default all)', { default: null }),
      P('timespan', 'timespan', 'Time span for filtering (e.g. 1.00:00:00 for 24 hours). Must be positive.', { default: null }),
      P('includeContent', 'boolean', 'Include full section content (true) or headers only (false, default)', { default: false }),
      LEARN,
    ],
    fromPayload(p) {
      const limit = getInt(p, 'limit', 10);
      const filter = getOptString(p, 'filter');
      let timespan = null;
      if (Object.prototype.hasOwnProperty.call(p, 'timespan')) {
        const v = p.timespan;
        if (v !== null && typeof v !== 'string') {
          throw new Error(`The requested operation requires an element of type 'String', but the target element has type '${valueKind(v)}'.`);
        }
        timespan = parseTimeSpan(v); // unparseable: silently ignored
      }
      return { limit, filter, timespan, includeContent: getBool(p, 'includeContent', false), learn: getLearn(p) };
    },
    run: recentActivity,
  },
  {
    name: 'BuildContext',
    mcpName: 'build_context',
    description:
      "Traverses concept relationships in the concept graph: direct co-occurrence relations with their files, and concepts reachable within 'depth' hops.",
    params: [
      P('conceptName', 'string', 'CONCEPT name to build context around (NOT a file!)', { required: true }),
      P('depth', 'integer', 'How many hops in the CONCEPT GRAPH', { default: 2 }),
      P('maxEntities', 'integer', 'Max entities to return', { default: 20 }),
      P('includeContent', 'boolean', 'Include full content', { default: false }),
    ],
    fromPayload(p) {
      return {
        conceptName: getString(p, 'conceptName'),
        depth: getInt(p, 'depth', 2),
        maxEntities: getInt(p, 'maxEntities', 20),
        includeContent: getBool(p, 'includeContent', false),
        learn: getLearn(p),
      };
    },
    run: buildContext,
  },
  {
    name: 'ReadMemory',
    mcpName: 'read_memory',
    description: 'Retrieves a memory file by memory:// URI or title, with its metadata, checksum and full markdown content.',
    params: [
      P('identifier', 'string', 'Memory FILE identifier (memory://uri points to a FILE, or title of a FILE)', { required: true }),
      P('includeChecksum', 'boolean', 'Return checksum with content for safe editing', { default: true }),
      LEARN,
    ],
    fromPayload(p) {
      return { identifier: getString(p, 'identifier'), includeChecksum: getBool(p, 'includeChecksum', true), learn: getLearn(p) };
    },
    run: readMemory,
  },
  {
    name: 'WriteMemory',
    mcpName: 'write_memory',
    description: 'Creates a memory file; the content must contain at least one [[WikiLink]]. Returns the memory:// URI and checksum.',
    params: [
      P('title', 'string', 'Title for this MEMORY FILE', { required: true }),
      P('content', 'string', 'Content with [[Concept Names]] in brackets - REQUIRED: at least one [[concept]]!', { required: true }),
      P('folder', 'string', 'Optional folder path for organizing FILES', { default: null }),
      P('tags', 'stringArray', 'Optional tags for categorizing this FILE', { default: null }),
      LEARN,
    ],
    fromPayload(p) {
      const title = getString(p, 'title');
      const content = getString(p, 'content');
      const folder = getOptString(p, 'folder');
      return { title, content, folder: folder ? folder : null, tags: getStringArray(p, 'tags'), learn: getLearn(p) };
    },
    run: writeMemory,
  },
  {
    name: 'Sync',
    mcpName: 'sync',
    description: 'Synchronizes [[WikiLink]] concepts from memory files into the graph database.',
    params: [LEARN],
    fromPayload(p) {
      return { learn: getLearn(p) };
    },
    run: sync,
  },
  {
    name: 'SequentialThinking',
    mcpName: 'sequential_thinking',
    description: 'Creates structured thinking sessions with [[concept]] integration, stored as markdown under thinking/sequential/.',
    params: [
      P('response', 'string', 'Main response/thought - MUST include [[concepts]] to build knowledge', { default: null }),
      P('nextThoughtNeeded', 'boolean', 'Need another thought?', { default: false }),
      P('thoughtNumber', 'integer', 'Current thought number', { default: 0 }),
      P('totalThoughts', 'integer', 'Total thoughts estimate', { default: 0 }),
      P('sessionId', 'string', 'Session ID', { default: null }),
      P('cancel', 'boolean', 'Cancel session (set to true to cancel)', { default: false }),
      P('thoughts', 'string', 'Ambient/meta thoughts with [[concepts]] (use liberally)', { default: null }),
      P('isRevision', 'boolean', 'Is this a revision?', { default: false }),
      P('revisesThought', 'integer', 'Which thought to revise', { default: null, nullable: true }),
      P('branchFromThought', 'integer', 'Branch from thought', { default: null, nullable: true }),
      P('branchId', 'string', 'Branch ID', { default: null }),
      P('needsMoreThoughts', 'boolean', 'Need more thoughts than estimated?', { default: false }),
      P('analysisType', 'string', 'Analysis type: bug, architecture, retrospective, or complex', { default: null }),
      P('parentWorkflowId', 'string', 'Parent workflow session ID (creates bidirectional link)', { default: null }),
      P('conclusion', 'string', 'Required conclusion/synthesis when nextThoughtNeeded=false - MUST include [[concepts]]', { default: null }),
      LEARN,
    ],
    fromPayload(p) {
      const intOrNull = (name) => (typeof p[name] === 'number' ? getInt(p, name, 0) : null);
      return {
        response: getOptString(p, 'response'),
        nextThoughtNeeded: getBool(p, 'nextThoughtNeeded', false),
        thoughtNumber: getInt(p, 'thoughtNumber', 0),
        totalThoughts: getInt(p, 'totalThoughts', 0),
        sessionId: getOptString(p, 'sessionId'),
        cancel: getBool(p, 'cancel', false),
        thoughts: getOptString(p, 'thoughts'),
        isRevision: getBool(p, 'isRevision', false),
        revisesThought: intOrNull('revisesThought'),
        branchFromThought: intOrNull('branchFromThought'),
        branchId: getOptString(p, 'branchId'),
        needsMoreThoughts: getBool(p, 'needsMoreThoughts', false),
        analysisType: getOptString(p, 'analysisType'),
        parentWorkflowId: getOptString(p, 'parentWorkflowId'),
        conclusion: getOptString(p, 'conclusion'),
        learn: getLearn(p),
      };
    },
    run: sequentialThinking,
  },
];

export const TOOL_BY_NAME = Object.fromEntries(TOOLS.map((t) => [t.name.toLowerCase(), t]));
export const TOOL_BY_MCP_NAME = Object.fromEntries(TOOLS.map((t) => [t.mcpName, t]));

/** JSON Schema for tools/list. */
export function inputSchema(tool) {
  const properties = {};
  const required = [];
  for (const p of tool.params) {
    let s;
    switch (p.type) {
      case 'stringArray':
        s = { type: ['array', 'null'], items: { type: 'string' } };
        break;
      case 'enum':
        s = { type: 'string', enum: p.values };
        break;
      case 'timespan':
        s = { type: ['string', 'null'], pattern: '^-?(\\d+\\.)?\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,7})?$' };
        break;
      case 'string':
        s = { type: p.required ? 'string' : ['string', 'null'] };
        break;
      case 'integer':
        s = { type: p.nullable ? ['integer', 'null'] : 'integer' };
        break;
      default:
        s = { type: p.type };
    }
    s.description = p.description;
    if (!p.required) s.default = p.default ?? null;
    properties[p.name] = s;
    if (p.required) required.push(p.name);
  }
  const schema = { type: 'object', properties };
  if (required.length) schema.required = required;
  return schema;
}

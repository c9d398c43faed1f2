// SearchMemories: full-text, stand-in semantic and hybrid search over the memory files.

import fs from 'node:fs';
import path from 'node:path';
import { ArgumentError, getDouble, getInt, getLearn, getOptString, getString, getStringArray } from './payload.mjs';
import { normalizeConcept } from './markdown.mjs';
import { withHint, withNextSteps, ok, informativeTerms, helpText, P, LEARN } from './tools-common.mjs';

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
  if (learn) return helpText(SEARCH_MEMORIES);
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

export const SEARCH_MEMORIES = {
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
};

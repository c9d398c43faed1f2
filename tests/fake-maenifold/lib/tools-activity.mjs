// RecentActivity and BuildContext: what changed lately, and a concept's neighbourhood in the graph.

import { McpToolError, getBool, getInt, getLearn, getOptString, getString, parseTimeSpan, valueKind } from './payload.mjs';
import { activitySnippet, conceptPreview, h2Sections, normalizeConcept } from './markdown.mjs';
import { localDisplay, lastIndexed, helpText, P, LEARN } from './tools-common.mjs';

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
  if (learn) return helpText(RECENT_ACTIVITY);
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
  if (learn) return helpText(BUILD_CONTEXT);
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

export const RECENT_ACTIVITY = {
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
};

export const BUILD_CONTEXT = {
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
};

// The memory store: files under $MAENIFOLD_ROOT/memory, their concepts and the co-occurrence graph.
// The fake computes the graph from the files on every call (as if the MCP auto-sync watcher had
// always run); there is no SQLite database, memory.db is only checked for existence.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { extractWikiLinks, parseMarkdown, checksum } from './markdown.mjs';
import { ArgumentError } from './payload.mjs';

export class Store {
  constructor(env = process.env) {
    this.root = env.MAENIFOLD_ROOT || path.join(os.homedir(), 'maenifold');
    this.memoryDir = path.join(this.root, 'memory');
    this.dbPath = env.MAENIFOLD_DATABASE_PATH || path.join(this.root, 'memory.db');
    this._files = null;
    this._graph = null;
  }

  ensureDirectories() {
    fs.mkdirSync(this.memoryDir, { recursive: true });
  }

  hasDatabase() {
    return fs.existsSync(this.dbPath);
  }

  /** memory:// URI for an absolute path: relative to the memory folder, '/' separators, no .md */
  pathToUri(p) {
    let rel = path.relative(this.memoryDir, p).split(path.sep).join('/');
    if (rel.toLowerCase().endsWith('.md')) rel = rel.slice(0, -3);
    return `memory://${rel}`;
  }

  /** Absolute path for a memory:// URI; throws when the URI escapes the memory folder. */
  uriToPath(uri) {
    const rest = uri.replace('memory://', '');
    let p = path.join(this.memoryDir, rest);
    if (!p.toLowerCase().endsWith('.md')) p += '.md';
    const full = path.resolve(p);
    const base = path.resolve(this.memoryDir) + path.sep;
    if (!full.startsWith(base)) {
      throw new ArgumentError(`Invalid URI attempts to escape memory directory: ${rest}`);
    }
    return p;
  }

  /** Every *.md under dir (default: the memory folder), sorted by relative path. */
  listMarkdown(dir = this.memoryDir) {
    const out = [];
    const walk = (d) => {
      let entries;
      try {
        entries = fs.readdirSync(d, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile() && e.name.toLowerCase().endsWith('.md')) out.push(p);
      }
    };
    walk(dir);
    return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Parsed memory file: { path, uri, slug, title, frontmatter, content, concepts, checksum, mtime, full }. */
  read(p) {
    const full = fs.readFileSync(p, 'utf8');
    const { frontmatter, content } = parseMarkdown(full);
    const slug = path.basename(p).replace(/\.md$/i, '');
    const fm = frontmatter || {};
    const title = typeof fm.title === 'string' && fm.title.trim() ? fm.title : slug;
    return {
      path: p,
      uri: this.pathToUri(p),
      slug,
      title,
      frontmatter: fm,
      content,
      concepts: extractWikiLinks(content),
      checksum: checksum(full),
      mtime: fs.statSync(p).mtime,
      full,
    };
  }

  files() {
    if (!this._files) {
      this._files = [];
      for (const p of this.listMarkdown()) {
        try {
          this._files.push(this.read(p));
        } catch {
          /* unreadable file: skipped, as Sync does */
        }
      }
    }
    return this._files;
  }

  /**
   * Co-occurrence graph. concepts: Set of every concept mentioned; edges: Map "a\u0000b" (a < b,
   * ordinal) -> { a, b, files: [uri...] } where files are distinct, in file order; weight = files.length.
   * adjacency: Map concept -> Map neighbour -> edge.
   */
  graph() {
    if (this._graph) return this._graph;
    const concepts = new Set();
    const edges = new Map();
    const adjacency = new Map();
    for (const f of this.files()) {
      const cs = f.concepts;
      for (const c of cs) {
        concepts.add(c);
        if (!adjacency.has(c)) adjacency.set(c, new Map());
      }
      for (let i = 0; i < cs.length - 1; i++) {
        for (let j = i + 1; j < cs.length; j++) {
          const [a, b] = cs[i] < cs[j] ? [cs[i], cs[j]] : [cs[j], cs[i]];
          const key = `${a}\u0000${b}`;
          let e = edges.get(key);
          if (!e) {
            e = { a, b, files: [] };
            edges.set(key, e);
            adjacency.get(a).set(b, e);
            adjacency.get(b).set(a, e);
          }
          if (!e.files.includes(f.uri)) e.files.push(f.uri);
        }
      }
    }
    this._graph = { concepts, edges, adjacency };
    return this._graph;
  }

  /** Neighbours of a concept: [{ name, count, files }] by count desc, then name. */
  neighbours(concept) {
    const adj = this.graph().adjacency.get(concept);
    if (!adj) return [];
    return [...adj.entries()]
      .map(([name, e]) => ({ name, count: e.files.length, files: e.files }))
      .sort((x, y) => y.count - x.count || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }

  /**
   * Made-up but stable communities (weighted label propagation, not Louvain):
   * Map concept -> community id (0..k-1, numbered by first concept in sorted order).
   */
  communities() {
    if (this._communities) return this._communities;
    const { adjacency } = this.graph();
    const nodes = [...adjacency.keys()].sort();
    const label = new Map(nodes.map((n) => [n, n]));
    for (let round = 0; round < 20; round++) {
      let changed = false;
      for (const n of nodes) {
        const score = new Map();
        for (const [m, e] of adjacency.get(n)) score.set(label.get(m), (score.get(label.get(m)) || 0) + e.files.length);
        if (score.size === 0) continue;
        let best = null;
        let bestW = -1;
        for (const [l, w] of [...score.entries()].sort((x, y) => (x[0] < y[0] ? -1 : 1))) {
          if (w > bestW) {
            best = l;
            bestW = w;
          }
        }
        if (best !== label.get(n) && (score.get(label.get(n)) || 0) < bestW) {
          label.set(n, best);
          changed = true;
        }
      }
      if (!changed) break;
    }
    const ids = new Map();
    const result = new Map();
    for (const n of nodes) {
      const l = label.get(n);
      if (!ids.has(l)) ids.set(l, ids.size);
      result.set(n, ids.get(l));
    }
    this._communities = result;
    return result;
  }
}

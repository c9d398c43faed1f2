// ReadMemory, WriteMemory and Sync: one memory file in or out, and the index refresh.

import fs from 'node:fs';
import path from 'node:path';
import { getBool, getLearn, getOptString, getString, getStringArray } from './payload.mjs';
import { checksum, extractWikiLinks, renderMarkdown, slugify } from './markdown.mjs';
import { localDisplay, parseDate, withHint, ok, fail, helpText, P, LEARN } from './tools-common.mjs';

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
  if (learn) return helpText(READ_MEMORY);
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
  if (learn) return helpText(WRITE_MEMORY);
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
  if (learn) return helpText(SYNC);
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

export const READ_MEMORY = {
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
};

export const WRITE_MEMORY = {
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
};

export const SYNC = {
  name: 'Sync',
  mcpName: 'sync',
  description: 'Synchronizes [[WikiLink]] concepts from memory files into the graph database.',
  params: [LEARN],
  fromPayload(p) {
    return { learn: getLearn(p) };
  },
  run: sync,
};

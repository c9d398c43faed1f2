// Self-test of the fake maenifold against docs/maenifold-cli.md (the CLI contract, checked against the real program).
// Run: node --test tests/fake-maenifold/   (or: node --test tests/fake-maenifold/selftest.mjs)

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(HERE, 'maenifold');
const FIXTURE = path.join(HERE, 'fixtures', 'root');
const NOW = '2026-11-22T00:00:00Z';

const temps = [];
function freshRoot({ withDb = true } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-maenifold-'));
  temps.push(dir);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  if (!withDb) fs.rmSync(path.join(dir, 'memory.db'));
  return dir;
}

let RO; // shared root for tests that only read
before(() => {
  RO = freshRoot();
});
const children = new Set();
after(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true });
});

// Tests run concurrently, but only a few CLI processes at a time: start-up is CPU-bound.
const SLOTS = Math.max(2, (os.availableParallelism ? os.availableParallelism() : os.cpus().length) + 1);
let active = 0;
const waiting = [];
async function acquire() {
  while (active >= SLOTS) await new Promise((resolve) => waiting.push(resolve));
  active++;
}
function release() {
  active--;
  waiting.shift()?.();
}

function baseEnv(root, extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('FAKE_MAENIFOLD_') && !k.startsWith('MAENIFOLD_')) env[k] = v;
  }
  return { ...env, HOME: root, MAENIFOLD_ROOT: root, TZ: 'UTC', FAKE_MAENIFOLD_NOW: NOW, ...extra };
}

/** Run the fake once; resolves { code, signal, stdout, stderr, raw, ms }. */
async function run(args, opts = {}) {
  await acquire();
  try {
    return await runNow(args, opts);
  } finally {
    release();
  }
}

function runNow(args, { root = RO, env = {}, direct = false, timeoutMs = 20000 } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = direct
      ? spawn(BIN, args, { env: baseEnv(root, env) })
      : spawn(process.execPath, [BIN, ...args], { env: baseEnv(root, env) });
    children.add(child);
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${args.join(' ')}`));
    }, timeoutMs);
    child.on('close', (code, signal) => {
      children.delete(child);
      clearTimeout(timer);
      const raw = Buffer.concat(out);
      resolve({ code, signal, raw, stdout: raw.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), ms: Date.now() - t0 });
    });
    child.on('error', reject);
  });
}

const cli = (tool, payload, opts = {}) =>
  run(['--tool', tool, '--payload', typeof payload === 'string' ? payload : JSON.stringify(payload), ...(opts.flags || [])], opts);

/** stdout is one block ending in exactly one newline; returns it without that newline. */
function block(r) {
  assert.equal(r.code, 0, `exit code 0 expected, stderr: ${r.stderr}`);
  assert.ok(r.stdout.endsWith('\n') && !r.stdout.endsWith('\n\n'), `one trailing newline: ${JSON.stringify(r.stdout.slice(-20))}`);
  return r.stdout.slice(0, -1);
}

// All suites run concurrently: each call spawns a process, and most of the time is process start-up.
describe('fake maenifold', { concurrency: true }, () => {
// -------------------------------------------------------------------------------------------
describe('CLI invocation', { concurrency: true }, () => {
  test('no arguments: usage on stdout, exit 0 (run as an executable)', async () => {
    const r = await run([], { direct: true });
    const text = block(r);
    assert.match(text, /^maenifold CLI\n\nUsage:\n/);
    assert.match(text, /--tool <name> --payload '<json>' \[--json\]/);
  });

  test('--tool without a --payload value: usage, exit 0', async () => {
    assert.match(block(await run(['--tool', 'BuildContext', '--payload'])), /^maenifold CLI\n/);
  });

  test('unknown tool: plain line, and UNKNOWN_TOOL with --json; exit 0', async () => {
    assert.equal(block(await cli('Frobnicate', {})), 'Unknown tool: Frobnicate');
    const j = JSON.parse(block(await cli('Frobnicate', {}, { flags: ['--json'] })));
    assert.deepEqual(j, { success: false, data: null, error: { code: 'UNKNOWN_TOOL', message: 'Unknown tool: Frobnicate' } });
  });

  test('tool names are case-insensitive, payload names case-sensitive', async () => {
    const a = await cli('BuildContext', { conceptName: 'auth' });
    const b = await cli('buildcontext', { conceptName: 'auth' });
    assert.equal(a.stdout, b.stdout);
    assert.equal(
      block(await cli('BuildContext', { ConceptName: 'auth' })),
      "Error invoking BuildContext: Required property 'conceptName' is missing from payload.",
    );
  });

  test('invalid payloads: Error invoking ..., exit 0, INVALID_PAYLOAD / INVALID_ARGUMENT with --json', async () => {
    assert.match(block(await cli('BuildContext', '{bad')), /^Error invoking BuildContext: .+BytePositionInLine: \d+\.$/);
    assert.equal(
      block(await cli('BuildContext', { conceptName: '   ' })),
      "Error invoking BuildContext: Required property 'conceptName' cannot be empty or whitespace.",
    );
    const j1 = JSON.parse(block(await cli('BuildContext', 'nope', { flags: ['--json'] })));
    assert.equal(j1.success, false);
    assert.equal(j1.error.code, 'INVALID_PAYLOAD');
    assert.match(j1.error.message, /^Error invoking BuildContext: /);
    const j2 = JSON.parse(block(await cli('BuildContext', {}, { flags: ['--json'] })));
    assert.deepEqual(j2.error, {
      code: 'INVALID_ARGUMENT',
      message: "Error invoking BuildContext: Required property 'conceptName' is missing from payload.",
    });
  });

  test('"learn": true prints help; a non-boolean learn is an error', async () => {
    assert.match(block(await cli('BuildContext', { conceptName: 'x', learn: true })), /^# BuildContext\n/);
    assert.match(block(await cli('Sync', { learn: 'yes' })), /^Error invoking Sync: .*'Boolean'/);
  });
});

// -------------------------------------------------------------------------------------------
describe('BuildContext', { concurrency: true }, () => {
  test('exact text for a concept (normalized names, files as memory:// URIs)', async () => {
    const text = block(await cli('BuildContext', { conceptName: 'Kubernetes', depth: 1 }));
    const rel = (n) => [`  • ${n} (co-occurs in 1 files)`, '    Files: memory://notes/deployment-runbook'];
    assert.equal(
      text,
      [
        'Context for CONCEPT: kubernetes',
        '',
        'Direct relations (6 CONCEPTS):',
        ...rel('blue-green-deploys'), // [[Blue_Green  Deploys]]
        ...rel('ci-cd'), // [[CI/CD]]
        ...rel('deployment'),
        ...rel('migrations'),
        ...rel('postgres'),
        ...rel('rate-limiting'),
      ].join('\n'),
    );
  });

  test('weights count distinct shared files, sorted by weight; at most 3 files listed', async () => {
    const text = block(await cli('BuildContext', { conceptName: 'postgres', depth: 1, maxEntities: 2 }));
    assert.equal(
      text,
      [
        'Context for CONCEPT: postgres',
        '',
        'Direct relations (2 CONCEPTS):',
        '  • deployment (co-occurs in 3 files)',
        '    Files: memory://decisions/postgres-over-mysql, memory://notes/database, memory://notes/deployment-runbook',
        '  • migrations (co-occurs in 3 files)',
        '    Files: memory://decisions/postgres-over-mysql, memory://notes/database, memory://notes/deployment-runbook',
      ].join('\n'),
    );
  });

  test('Expanded relations only when depth > 1, with the depth in the header', async () => {
    const d2 = block(await cli('BuildContext', { conceptName: 'auth' }));
    assert.match(d2, /\n\nExpanded relations \(2 hops\):\n(  • [^\n]+\n?)+$/);
    assert.match(block(await cli('BuildContext', { conceptName: 'auth', depth: 3 })), /\nExpanded relations \(3 hops\):\n/);
    assert.doesNotMatch(block(await cli('BuildContext', { conceptName: 'auth', depth: '1' })), /Expanded/); // numeric string accepted
    assert.match(d2, /^Context for CONCEPT: auth\n\nDirect relations \(7 CONCEPTS\):\n  • jwt \(co-occurs in 3 files\)\n/);
  });

  test('REST API normalizes to rest-api; punctuation stays', async () => {
    assert.match(block(await cli('BuildContext', { conceptName: 'REST API', depth: 0 })), /^Context for CONCEPT: rest-api\n\nDirect relations \(7 CONCEPTS\):/);
    assert.match(block(await cli('BuildContext', { conceptName: 'Node.js', depth: 0 })), /^Context for CONCEPT: node\.js\n\nDirect relations \(4 CONCEPTS\):/);
  });

  test('links in fenced code, inline code and [[[triple]]] brackets are not concepts', async () => {
    assert.equal(block(await cli('BuildContext', { conceptName: 'code-fence-concept' })), 'Context for CONCEPT: code-fence-concept\n\nDirect relations (0 CONCEPTS):');
    for (const c of ['auth', 'migrations']) {
      assert.doesNotMatch(block(await cli('BuildContext', { conceptName: c, depth: 1 })), /code-concept|tilde|triple/);
    }
  });

  test('unknown concept: header and "Direct relations (0 CONCEPTS):" only; --json ignored', async () => {
    const r = await cli('BuildContext', { conceptName: 'No Such Thing' }, { flags: ['--json'] });
    assert.equal(block(r), 'Context for CONCEPT: no-such-thing\n\nDirect relations (0 CONCEPTS):');
  });

  test('negative depth is an error (exit 0)', async () => {
    assert.equal(block(await cli('BuildContext', { conceptName: 'auth', depth: -1 })), 'Error invoking BuildContext: depth must be >= 0');
  });

  test('includeContent adds Content preview lines (previews may span lines, <= 500 chars)', async () => {
    const text = block(await cli('BuildContext', { conceptName: 'migrations', depth: 1, includeContent: 'true' }));
    const relations = text.match(/^  • /gm).length;
    assert.equal(text.match(/^    Content preview:$/gm).length, relations);
    assert.match(text, /^      memory:\/\/notes\/database: ## Pooling|^      memory:\/\/notes\/database: # Database Notes/m);
    // every preview starts on a "      <uri>: " line and is at most 500 characters
    const previews = text.split(/^      (memory:\/\/\S+): /m).slice(1);
    for (let i = 0; i < previews.length; i += 2) {
      const body = previews[i + 1].split(/\n  • |\n    Content preview:/)[0];
      assert.ok(body.length <= 500, `preview of ${previews[i]} is ${body.length} chars`);
    }
  });

  test('FAKE_MAENIFOLD_COMMUNITIES=1 adds [community N] and the siblings section', async () => {
    const text = block(await cli('BuildContext', { conceptName: 'json', depth: 1 }, { env: { FAKE_MAENIFOLD_COMMUNITIES: '1' } }));
    assert.match(text, /^  • auth \(co-occurs in 1 files\) \[community \d+\]$/m);
    assert.match(text, /\n\nCommunity siblings \(3 concepts in community \d+\):\n  • jwt \(shared neighbors: 3, overlap: 0\.500\)\n/);
  });
});

// -------------------------------------------------------------------------------------------
describe('SearchMemories', { concurrency: true }, () => {
  const RESULT = /^📄 \*\*[^*]+\*\* \(memory:\/\/[^)]+\)$/;

  test('Hybrid markdown shape', async () => {
    const lines = block(await cli('SearchMemories', { query: 'jwt refresh tokens' })).split('\n');
    assert.equal(lines[0], '🔍 **Hybrid Search** (combining text + semantic similarity)');
    assert.match(lines[1], /^Found 3 matches \(page 1\):$/);
    assert.match(lines[2], /^Text results: \d+, Semantic results: \d+$/);
    assert.equal(lines[3], '');
    assert.match(lines[4], RESULT);
    assert.match(lines[5], /^   📊 Scores - Fused: \d\.\d{3} \| Text: \d\.\d{3} \| Semantic: \d\.\d{3}$/);
    assert.match(lines[6], /^   📝 .{1,200}$/);
    assert.equal(lines[7], '');
    assert.deepEqual(lines.slice(-3), ['', '', '💡 Next: Consider using ReadMemory, BuildContext for related operations.']);
  });

  test('Hybrid --json envelope', async () => {
    const j = JSON.parse(block(await cli('SearchMemories', { query: 'postgres migrations', pageSize: 2 }, { flags: ['--json'] })));
    assert.equal(j.success, true);
    assert.equal(j.error, null);
    assert.deepEqual(Object.keys(j.data), ['mode', 'query', 'totalCount', 'page', 'pageSize', 'textResultCount', 'semanticResultCount', 'results']);
    assert.equal(j.data.mode, 'Hybrid');
    assert.equal(j.data.pageSize, 2);
    assert.equal(j.data.results.length, 2);
    assert.ok(j.data.totalCount >= 3);
    for (const r of j.data.results) {
      assert.deepEqual(Object.keys(r), ['title', 'path', 'fusedScore', 'textScore', 'semanticScore', 'snippet']);
      assert.match(r.path, /^memory:\/\/[a-z0-9/-]+$/);
    }
  });

  test('Semantic and FullText shapes (case-insensitive mode), JSON {title,path,score,snippet}', async () => {
    const sem = block(await cli('SearchMemories', { query: 'postgres', mode: 'semantic' })).split('\n');
    assert.equal(sem[0], '🧠 **Semantic Search** (concept similarity)');
    assert.match(sem[1], /^Found \d+ matches \(page 1\):$/);
    assert.equal(sem[2], '');
    assert.match(sem[3], RESULT);
    assert.match(sem[4], /^   🎯 Semantic similarity: \d\.\d{3}$/);
    assert.equal(sem.at(-1), '💡 Next: Consider using ReadMemory, BuildContext, FindSimilarConcepts for related operations.');
    const ft = block(await cli('SearchMemories', { query: 'redis', mode: 'FullText' })).split('\n');
    assert.equal(ft[0], '📝 **Full-Text Search** (keyword matching)');
    assert.match(ft[4], /^   📊 Text relevance: 1\.00$/);
    const j = JSON.parse(block(await cli('SearchMemories', { query: 'redis', mode: 'FULLTEXT' }, { flags: ['--json'] })));
    assert.deepEqual(Object.keys(j.data), ['mode', 'query', 'totalCount', 'page', 'pageSize', 'results']);
    assert.equal(j.data.mode, 'FullText');
    assert.deepEqual(Object.keys(j.data.results[0]), ['title', 'path', 'score', 'snippet']);
    assert.equal(j.data.results[0].score, 1);
  });

  test('stopword-only query and unknown folder: plain text even with --json', async () => {
    const t = block(await cli('SearchMemories', { query: 'the and of' }, { flags: ['--json'] }));
    assert.match(t, /^ERROR: Query contains no informative keywords/);
    assert.throws(() => JSON.parse(t));
    assert.equal(block(await cli('SearchMemories', { query: 'auth', folder: 'nowhere' }, { flags: ['--json'] })), 'No memories found in specified folder');
  });

  test('folder and tags filter; invalid mode is an error', async () => {
    const j = JSON.parse(block(await cli('SearchMemories', { query: 'postgres', folder: 'decisions' }, { flags: ['--json'] })));
    assert.ok(j.data.results.length > 0 && j.data.results.every((r) => r.path.startsWith('memory://decisions/')));
    const t = JSON.parse(block(await cli('SearchMemories', { query: 'redis', tags: ['decision', 'AUTH'] }, { flags: ['--json'] })));
    assert.deepEqual(t.data.results.map((r) => r.path), ['memory://decisions/use-jwt-for-sessions']);
    assert.equal(
      block(await cli('SearchMemories', { query: 'auth', mode: 'Fuzzy' })),
      "Error invoking SearchMemories: Requested value 'Fuzzy' was not found.",
    );
  });
});

// -------------------------------------------------------------------------------------------
describe('RecentActivity', { concurrency: true }, () => {
  test('markdown entries, newest first', async () => {
    const text = block(await cli('RecentActivity', { limit: 2 }, { flags: ['--json'] })); // --json ignored
    assert.equal(
      text,
      [
        '# Recent Activity',
        '',
        '**auth-design** (memory)',
        '  Modified: 2026-11-21 16:40',
        '  Title: Auth Design',
        '  Sections: 2',
        '  First: "Access tokens live 15 minutes. Refresh tokens live 30 days and rotate on use, so a stolen refresh..."',
        '',
        '**session-1795168800000** (sequential)',
        '  Modified: 2026-11-21 11:15',
        '  Thoughts: 3',
        '  Status: completed',
        '  First: "Login latency spikes line up with [[rate-limiting]] rejections on the [[auth]] endpoint."',
        '  Last: "Exempt the refresh endpoint from per-key [[rate-limiting]]; keep a per-IP limit."',
      ].join('\n'),
    );
  });

  test('filter is exact and case-sensitive; unknown filter means no filter', async () => {
    const thinking = block(await cli('RecentActivity', { filter: 'thinking' }));
    assert.deepEqual(thinking.match(/^\*\*.+$/gm), ['**session-1795168800000** (sequential)']);
    const memory = block(await cli('RecentActivity', { filter: 'memory' }));
    assert.equal(memory.match(/^\*\*/gm).length, 7);
    assert.doesNotMatch(memory, /sequential/);
  });

  test('timespan: .NET TimeSpan strings; unparseable ignored; a number is an error', async () => {
    assert.equal(block(await cli('RecentActivity', { timespan: '1.00:00:00' })).match(/^\*\*/gm).length, 2);
    assert.equal(block(await cli('RecentActivity', { timespan: '02:00:00' })), 'No recent activity found');
    assert.equal(block(await cli('RecentActivity', { timespan: 'yesterday', limit: '3' })).match(/^\*\*/gm).length, 3);
    assert.match(block(await cli('RecentActivity', { timespan: 24 })), /^Error invoking RecentActivity: .*'String'.*'Number'/);
    assert.match(block(await cli('RecentActivity', { timespan: '-1.00:00:00' })), /^ERROR: timespan parameter must be positive/);
  });

  test('includeContent uses First H2 / Last H2 lines', async () => {
    const text = block(await cli('RecentActivity', { filter: 'thinking', includeContent: true }));
    assert.match(text, /^  First H2: Thought 1\/3 \[agent\]$/m);
    assert.match(text, /^  First H2 Content: Login latency/m);
    assert.match(text, /^  Last H2: Thought 3\/3 \[agent\]$/m);
  });

  test('no database: the Sync-first message; Sync creates it', async () => {
    const root = freshRoot({ withDb: false });
    const expected = '# Recent Activity\n\nNo database found. Run the `Sync` command first to index memory files.';
    assert.equal(block(await cli('RecentActivity', {}, { root })), expected);
    assert.equal(block(await cli('RecentActivity', {}, { env: { FAKE_MAENIFOLD_NO_DB: '1' } })), expected);
    const sync = await cli('Sync', {}, { root });
    assert.equal(block(sync), 'Sync complete:\n- 8 FILES processed\n- 36 CONCEPT mentions found\n- 49 CONCEPT relations created');
    assert.match(sync.stderr, /^\[SYNC TELEMETRY\] Processing 8 files$/m);
    assert.match(block(await cli('RecentActivity', { limit: 1 }, { root })), /^# Recent Activity\n\n\*\*auth-design\*\* \(memory\)/);
  });
});

// -------------------------------------------------------------------------------------------
describe('ReadMemory and WriteMemory', { concurrency: true }, () => {
  test('ReadMemory by URI: header lines, checksum, then the body', async () => {
    const file = fs.readFileSync(path.join(RO, 'memory', 'notes', 'api.md'), 'utf8');
    const sum = createHash('sha256').update(file).digest('base64');
    const text = block(await cli('ReadMemory', { identifier: 'memory://notes/api' }));
    assert.ok(
      text.startsWith(
        [
          '# API Overview',
          'URI: memory://notes/api',
          'Location: notes/api.md',
          'Created: 2026-11-15 10:00',
          'Modified: 2026-11-19 08:30',
          `Checksum: ${sum}`,
          '',
          '---',
          '',
          '# API Overview',
          '',
        ].join('\n'),
      ),
      text,
    );
  });

  test('ReadMemory by title or slug, --json, not found', async () => {
    const byTitle = block(await cli('ReadMemory', { identifier: 'Rate Limiting' }));
    assert.match(byTitle, /^# Rate Limiting\nURI: memory:\/\/notes\/rate-limiting\n/);
    const j = JSON.parse(block(await cli('ReadMemory', { identifier: 'use-jwt-for-sessions', includeChecksum: false }, { flags: ['--json'] })));
    assert.deepEqual(Object.keys(j.data), ['uri', 'title', 'location', 'created', 'modified', 'checksum', 'content']);
    assert.equal(j.data.uri, 'memory://decisions/use-jwt-for-sessions');
    assert.equal(j.data.checksum, null);
    assert.match(j.data.content, /^# Use JWT for Sessions\n/);
    assert.equal(block(await cli('ReadMemory', { identifier: 'nope' })), 'ERROR: Memory file not found: nope');
    assert.deepEqual(JSON.parse(block(await cli('ReadMemory', { identifier: 'nope' }, { flags: ['--json'] }))).error, {
      code: 'NOT_FOUND',
      message: 'Memory file not found: nope',
    });
  });

  test('WriteMemory writes <folder>/<slug>.md with front matter; the graph sees it', async () => {
    const root = freshRoot();
    const folder = 'sessions/compaction/2026/11/22';
    const text = block(
      await cli('WriteMemory', { title: 'Compaction Summary', content: 'Kept [[auth]] and [[OAuth2 Flows]].', folder, tags: ['compaction', 'session'] }, { root }),
    );
    const lines = text.split('\n');
    assert.equal(lines[0], `Created memory FILE: memory://${folder}/compaction-summary`);
    assert.match(lines[1], /^Checksum: [A-Za-z0-9+/]{43}=$/);
    assert.match(lines[2], /^💡 /);
    const file = fs.readFileSync(path.join(root, 'memory', folder, 'compaction-summary.md'), 'utf8');
    assert.match(file, /^---\ntitle: Compaction Summary\npermalink: compaction-summary\ntype: memory\nstatus: saved\ncreated: \S+\nmodified: \S+\ntags:\n- compaction\n- session\n---\n\n# Compaction Summary\n\nKept \[\[auth\]\]/);
    assert.equal(lines[1], `Checksum: ${createHash('sha256').update(file).digest('base64')}`);
    const ctx = block(await cli('BuildContext', { conceptName: 'oauth2 flows', depth: 1 }, { root }));
    assert.equal(ctx, `Context for CONCEPT: oauth2-flows\n\nDirect relations (1 CONCEPTS):\n  • auth (co-occurs in 1 files)\n    Files: memory://${folder}/compaction-summary`);
  });

  test('WriteMemory --json, missing link, bad folder', async () => {
    const root = freshRoot();
    const j = JSON.parse(block(await cli('WriteMemory', { title: 'Note A', content: 'about [[jwt]]' }, { root, flags: ['--json'] })));
    assert.deepEqual(Object.keys(j.data), ['uri', 'checksum', 'title', 'folder']);
    assert.deepEqual([j.data.uri, j.data.title, j.data.folder], ['memory://note-a', 'Note A', null]);
    const noLink = block(await cli('WriteMemory', { title: 'B', content: 'no links `[[in code]]`' }, { root }));
    assert.match(noLink, /^ERROR: Content must contain at least one \[\[concept\]\]/);
    assert.equal(JSON.parse(block(await cli('WriteMemory', { title: 'B', content: 'none' }, { root, flags: ['--json'] }))).error.code, 'VALIDATION_ERROR');
    assert.equal(
      block(await cli('WriteMemory', { title: 'C', content: '[[x]]', folder: 'a/../../b' }, { root })),
      'ERROR: Invalid folder path - Path traversal components (dot sequences) are not allowed.',
    );
  });
});

// -------------------------------------------------------------------------------------------
describe('knobs', { concurrency: true }, () => {
  test('FAKE_MAENIFOLD_STARTUP_MS and FAKE_MAENIFOLD_ANSWER_MS add latency', async () => {
    const r = await cli('BuildContext', { conceptName: 'auth' }, { env: { FAKE_MAENIFOLD_STARTUP_MS: '300', FAKE_MAENIFOLD_ANSWER_MS: '250' } });
    assert.ok(r.ms >= 550, `${r.ms} ms`);
    assert.match(block(r), /^Context for CONCEPT: auth/);
  });

  test('FAKE_MAENIFOLD_LOG: one JSON line per invocation, concurrent appends stay whole', async () => {
    const log = path.join(freshRoot(), 'calls.jsonl');
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => cli('BuildContext', { conceptName: `c${i}` }, { env: { FAKE_MAENIFOLD_LOG: log } })),
    );
    const lines = fs.readFileSync(log, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 4);
    for (const l of lines) {
      assert.deepEqual(Object.keys(l).sort(), ['argv', 'event', 'mode', 'payload', 'pid', 'time', 'tool']);
      assert.equal(l.mode, 'cli');
      assert.equal(l.event, 'call');
      assert.equal(l.tool, 'BuildContext');
      assert.match(l.payload.conceptName, /^c\d$/);
    }
    assert.deepEqual(lines.map((l) => l.payload.conceptName).sort(), ['c0', 'c1', 'c2', 'c3']);
  });

  const fault = (spec, tool = 'BuildContext', flags = [], extra = {}) =>
    cli(tool, { conceptName: 'auth' }, { flags, env: { FAKE_MAENIFOLD_FAULT: spec, ...extra } });

  test('faults: error, invoking, unknown, empty, garbage, jsonfail', async () => {
    assert.equal(block(await fault('BuildContext:error')), 'ERROR: simulated failure');
    assert.equal(block(await fault('buildcontext:invoking')), 'Error invoking BuildContext: simulated');
    assert.equal(block(await fault('*:unknown')), 'Unknown tool: BuildContext');
    const empty = await fault('*:empty');
    assert.equal(empty.code, 0);
    assert.equal(empty.raw.length, 0);
    const garbage = block(await fault('*:garbage'));
    assert.doesNotMatch(garbage, /^(Context for|ERROR|Error invoking|Unknown tool|\{)/);
    const jf = JSON.parse(block(await fault('*:jsonfail', 'BuildContext', ['--json'])));
    assert.equal(jf.success, false);
    assert.equal(jf.data, null);
    assert.equal(block(await fault('SearchMemories:error')).split('\n')[0], 'Context for CONCEPT: auth'); // other tool: no effect
  });

  test('faults: nonutf8, huge, crash, slow, hang', async () => {
    const bad = await fault('*:nonutf8');
    assert.equal(bad.code, 0);
    assert.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(bad.raw));
    const huge = await fault('*:huge');
    assert.equal(huge.code, 0);
    assert.ok(huge.raw.length >= 10 * 1024 * 1024, `${huge.raw.length} bytes`);
    const crash = await fault('*:crash');
    assert.equal(crash.code, 134);
    assert.equal(crash.raw.length, 0);
    assert.match(crash.stderr, /^Unhandled exception\. System\.\w+Exception: /);
    const slow = await fault('BuildContext:slow:400');
    assert.ok(slow.ms >= 400, `${slow.ms} ms`);
    assert.match(block(slow), /^Context for CONCEPT: auth/);
    await assert.rejects(run(['--tool', 'BuildContext', '--payload', '{}'], { env: { FAKE_MAENIFOLD_FAULT: '*:hang' }, timeoutMs: 400 }), /timed out/);
  });
});

// -------------------------------------------------------------------------------------------
// MCP

class Session {
  constructor(env = {}, root = RO) {
    this.child = spawn(process.execPath, [BIN, '--mcp'], { env: baseEnv(root, env) });
    children.add(this.child);
    this.child.on('exit', () => children.delete(this.child));
    this.messages = [];
    this.junk = [];
    this.chunks = [];
    this.stderrBytes = 0;
    this.waiters = [];
    this.stdoutEnded = false;
    let buf = '';
    this.child.stdout.on('data', (b) => {
      this.chunks.push(b);
      buf += b.toString('latin1'); // split on bytes; decode whole lines only
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = Buffer.from(buf.slice(0, nl), 'latin1').toString('utf8');
        buf = buf.slice(nl + 1);
        try {
          this.messages.push(JSON.parse(line));
        } catch {
          this.junk.push(line);
        }
      }
      this.poke();
    });
    this.child.stdout.on('end', () => {
      this.stdoutEnded = true;
      this.poke();
    });
    this.child.stderr.on('data', (b) => (this.stderrBytes += b.length));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    this.nextId = 1;
  }
  poke() {
    for (const w of this.waiters.splice(0)) w();
  }
  send(msg) {
    this.child.stdin.write(JSON.stringify(msg) + '\n');
  }
  request(method, params, timeoutMs = 15000) {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.response(id, timeoutMs);
  }
  response(id, timeoutMs = 15000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no response to ${id}`)), timeoutMs);
      const check = () => {
        const m = this.messages.find((x) => x.id === id);
        if (m) {
          clearTimeout(timer);
          resolve(m);
        } else this.waiters.push(check);
      };
      check();
    });
  }
  async handshake(protocolVersion = '2025-06-18') {
    const r = await this.request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'selftest', version: '0' } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }
  call(name, args, timeoutMs) {
    return this.request('tools/call', { name, arguments: args }, timeoutMs);
  }
  async close() {
    this.child.stdin.end();
    const r = await Promise.race([this.exited, new Promise((res) => setTimeout(() => res(null), 2000))]);
    if (!r) this.child.kill('SIGKILL');
    return r;
  }
}

const hasNull = (v) => v === null || (typeof v === 'object' && Object.values(v).some(hasNull));

describe('MCP mode', { concurrency: true }, () => {
  test('handshake, tools/list, build_context JSON, markdown tools, exit on stdin close', async () => {
    const log = path.join(freshRoot(), 'mcp.jsonl');
    const s = new Session({ FAKE_MAENIFOLD_LOG: log });
    const init = await s.handshake('2025-06-18');
    assert.deepEqual(init.result, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'maenifold', version: '1.0.3.0' } });

    const list = await s.request('tools/list', {});
    const names = list.result.tools.map((t) => t.name);
    assert.deepEqual(names, ['search_memories', 'recent_activity', 'build_context', 'read_memory', 'write_memory', 'sync', 'sequential_thinking']);
    const bc = list.result.tools.find((t) => t.name === 'build_context');
    assert.equal(bc.inputSchema.type, 'object');
    assert.deepEqual(bc.inputSchema.required, ['conceptName']);
    assert.deepEqual(Object.keys(bc.inputSchema.properties), ['conceptName', 'depth', 'maxEntities', 'includeContent']);

    const r = await s.call('build_context', { conceptName: 'Kubernetes', depth: 1 });
    assert.equal(r.result.isError, undefined);
    assert.equal(r.result.content[0].type, 'text');
    const ctx = JSON.parse(r.result.content[0].text);
    assert.equal(ctx.conceptName, 'kubernetes');
    assert.equal(ctx.depth, 1);
    assert.deepEqual(ctx.expandedRelations, []);
    assert.deepEqual(ctx.directRelations.map((d) => d.name), ['blue-green-deploys', 'ci-cd', 'deployment', 'migrations', 'postgres', 'rate-limiting']);
    assert.deepEqual(ctx.directRelations[0].files, ['memory://notes/deployment-runbook']);
    assert.equal(ctx.directRelations[0].coOccurrenceCount, 1);
    assert.equal(hasNull(ctx), false);
    assert.equal(r.result.content[0].text, JSON.stringify(ctx)); // compact

    const sm = await s.call('search_memories', { query: 'redis', mode: 'FullText' });
    assert.match(sm.result.content[0].text, /^📝 \*\*Full-Text Search\*\* \(keyword matching\)\n/);
    assert.ok(!sm.result.content[0].text.endsWith('\n'));
    const ra = await s.call('recent_activity', { limit: 1, timespan: '7.00:00:00' });
    assert.match(ra.result.content[0].text, /^# Recent Activity\n\n\*\*auth-design\*\* \(memory\)/);

    const exit = await s.close();
    assert.deepEqual(exit, { code: 0, signal: null });
    const events = fs.readFileSync(log, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(events.map((e) => `${e.mode}:${e.event}:${e.tool}`), ['mcp:start:null', 'mcp:call:build_context', 'mcp:call:search_memories', 'mcp:call:recent_activity']);
    assert.deepEqual(events[1].payload, { conceptName: 'Kubernetes', depth: 1 });
  });

  test('unsupported protocol version gets 2025-11-25', async () => {
    const s = new Session();
    assert.equal((await s.handshake('1999-01-01')).result.protocolVersion, '2025-11-25');
    await s.close();
  });

  test('tool names are exact snake_case: others are JSON-RPC errors -32602', async () => {
    const s = new Session();
    await s.handshake();
    for (const name of ['BuildContext', 'Build_Context', 'buildcontext']) {
      const r = await s.call(name, { conceptName: 'auth' });
      assert.deepEqual(r.error, { code: -32602, message: `Unknown tool: '${name}'` });
    }
    await s.close();
  });

  test('tool errors are isError results', async () => {
    const s = new Session();
    await s.handshake();
    const neg = await s.call('build_context', { conceptName: 'auth', depth: -1 });
    assert.deepEqual(neg.result, { content: [{ type: 'text', text: "An error occurred invoking 'build_context': depth must be >= 0" }], isError: true });
    const missing = await s.call('build_context', { ConceptName: 'auth' }); // argument names are exact
    assert.deepEqual(missing.result, { content: [{ type: 'text', text: "An error occurred invoking 'build_context'." }], isError: true });
    await s.close();
  });

  test('requests run concurrently: a slow call answers after a later fast one; startup once', async () => {
    const s = new Session({ FAKE_MAENIFOLD_MCP_FAULT: 'slow:build_context:1000', FAKE_MAENIFOLD_STARTUP_MS: '1500' });
    const t0 = Date.now();
    await s.handshake();
    assert.ok(Date.now() - t0 >= 1500);
    const t1 = Date.now();
    await s.request('tools/list', {});
    assert.ok(Date.now() - t1 < 1500, 'startup delay applies once');
    const slow = s.call('build_context', { conceptName: 'auth' });
    const fast = s.call('recent_activity', { limit: 1 });
    await Promise.all([slow, fast]);
    const order = s.messages.filter((m) => m.id >= 3).map((m) => m.id);
    assert.deepEqual(order, [4, 3]);
    await s.close();
  });

  test('faults: iserror, garbage, partial', async () => {
    const a = new Session({ FAKE_MAENIFOLD_MCP_FAULT: 'iserror' });
    await a.handshake();
    const r = await a.call('build_context', { conceptName: 'auth' });
    assert.equal(r.result.isError, true);
    assert.match(r.result.content[0].text, /^An error occurred invoking 'build_context'/);
    await a.close();

    const b = new Session({ FAKE_MAENIFOLD_MCP_FAULT: 'garbage' });
    await b.handshake();
    await b.call('build_context', { conceptName: 'auth' });
    assert.equal(b.junk.length, 2); // one before each response
    await b.close();

    const c = new Session({ FAKE_MAENIFOLD_MCP_FAULT: 'partial' });
    await c.handshake();
    const p = await c.call('build_context', { conceptName: 'auth', depth: 1 });
    assert.equal(JSON.parse(p.result.content[0].text).conceptName, 'auth');
    assert.ok(c.chunks.some((ch) => ch.at(-1) !== 0x0a), 'a response line arrived in pieces');
    await c.close();
  });

  test('faults: no-handshake, exit, close-stdout, stderr-flood', async () => {
    const a = new Session({ FAKE_MAENIFOLD_MCP_FAULT: 'no-handshake' });
    await assert.rejects(a.request('initialize', { protocolVersion: '2025-06-18', capabilities: {} }, 300), /no response/);
    await a.close();

    const b = new Session({ FAKE_MAENIFOLD_MCP_FAULT: 'exit' });
    await b.handshake();
    b.call('build_context', { conceptName: 'auth' }).catch(() => {});
    const exited = await b.exited;
    assert.equal(exited.code, 1);
    assert.equal(b.messages.length, 1);

    const c = new Session({ FAKE_MAENIFOLD_MCP_FAULT: 'close-stdout' });
    await c.handshake();
    await assert.rejects(c.call('build_context', { conceptName: 'auth' }, 500), /no response/);
    assert.equal(c.stdoutEnded, true);
    assert.equal(c.child.exitCode, null, 'still running with stdout closed');
    await c.close();

    const d = new Session({ FAKE_MAENIFOLD_MCP_FAULT: 'stderr-flood' });
    await d.handshake();
    const deadline = Date.now() + 5000; // it writes continuously; under load timers fire late
    while (d.stderrBytes <= 100_000 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
    assert.ok(d.stderrBytes > 100_000, `${d.stderrBytes} bytes on stderr`);
    assert.equal((await d.call('build_context', { conceptName: 'auth' })).result.content[0].type, 'text');
    await d.close();
  });
});
}); // fake maenifold

// SequentialThinking (enough of it to create and extend sessions).

import fs from 'node:fs';
import path from 'node:path';
import { getBool, getInt, getLearn, getOptString } from './payload.mjs';
import { extractWikiLinks, parseMarkdown, renderMarkdown } from './markdown.mjs';
import { utcStamp, helpText, P, LEARN } from './tools-common.mjs';

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
  if (a.learn) return helpText(SEQUENTIAL_THINKING);
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

export const SEQUENTIAL_THINKING = {
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
};

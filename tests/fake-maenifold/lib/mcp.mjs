// MCP mode (`--mcp`): newline-delimited JSON-RPC 2.0 on stdio, one compact message per line.
// Requests are handled concurrently; responses go out in completion order, one whole line at a time.

import fs from 'node:fs';
import { Store } from './store.mjs';
import { BuildContextResult, TOOLS, TOOL_BY_MCP_NAME, inputSchema } from './tools.mjs';
import { McpToolError, bindMcpArguments } from './payload.mjs';
import { logEvent, mcpFaults, msFromEnv, nowFromEnv, sleep } from './knobs.mjs';

export const SUPPORTED_PROTOCOLS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
export const LATEST_PROTOCOL = '2025-11-25';
export const SERVER_INFO = { name: 'maenifold', version: '1.0.3.0' };

export async function runMcp(argv, env) {
  logEvent(env, { mode: 'mcp', argv, tool: null, payload: null, event: 'start' });
  const { flags, slow } = mcpFaults(env);
  const answerMs = msFromEnv(env, 'FAKE_MAENIFOLD_ANSWER_MS');
  const log = (msg) => process.stderr.write(`[fake-maenifold] ${msg}\n`);

  let stdoutClosed = false;
  process.stdout.on('error', () => {
    stdoutClosed = true;
  });
  const writeRaw = (data) =>
    new Promise((resolve) => {
      if (stdoutClosed) return resolve();
      try {
        process.stdout.write(data, () => resolve());
      } catch {
        stdoutClosed = true;
        resolve();
      }
    });

  // One line at a time, whole lines never interleave (the SDK serialises its writes too).
  let chain = Promise.resolve();
  const send = (message) => {
    const line = Buffer.from(JSON.stringify(message) + '\n');
    chain = chain.then(async () => {
      if (stdoutClosed) return;
      if (flags.has('garbage')) await writeRaw('fake-maenifold: this line is not JSON <<garbage>>\n');
      if (flags.has('partial')) {
        const cut = Math.max(1, Math.floor(line.length / 2)); // may split a UTF-8 sequence: intended
        await writeRaw(line.subarray(0, cut));
        await sleep(100);
        await writeRaw(line.subarray(cut));
      } else {
        await writeRaw(line);
      }
    });
    return chain;
  };
  const reply = (id, result) => send({ jsonrpc: '2.0', id, result });
  const replyError = (id, code, message) => send({ jsonrpc: '2.0', id, error: { code, message } });

  if (flags.has('stderr-flood')) {
    const junk = `[flood] ${'warn: lorem ipsum dolor sit amet '.repeat(120)}\n`;
    setInterval(() => process.stderr.write(junk), 2).unref();
  }

  let inflight = 0;
  let stdinEnded = false;
  let firstCall = true;
  const maybeExit = async () => {
    if (!stdinEnded || inflight > 0) return;
    await chain;
    process.exit(0);
  };

  async function toolsCall(id, params) {
    const name = params && typeof params === 'object' ? params.name : undefined;
    const args = params && typeof params === 'object' ? params.arguments : undefined;
    logEvent(env, { mode: 'mcp', argv, tool: name ?? null, payload: args ?? null, event: 'call' });
    if (firstCall) {
      firstCall = false;
      if (flags.has('exit')) {
        log('exiting on first tools/call (FAKE_MAENIFOLD_MCP_FAULT=exit)');
        process.exit(1);
      }
      if (flags.has('close-stdout')) {
        await chain;
        stdoutClosed = true;
        try {
          fs.closeSync(1);
        } catch {
          /* already closed */
        }
        log('stdout closed (FAKE_MAENIFOLD_MCP_FAULT=close-stdout)');
      }
    }
    if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(TOOL_BY_MCP_NAME, name)) {
      return replyError(id, -32602, `Unknown tool: '${name}'`);
    }
    const tool = TOOL_BY_MCP_NAME[name];
    await sleep(answerMs + (slow.get(name) || 0));
    if (flags.has('iserror')) {
      return reply(id, { content: [{ type: 'text', text: `An error occurred invoking '${name}': simulated failure` }], isError: true });
    }
    const ctx = { store: new Store(env), json: false, mode: 'mcp', env, now: nowFromEnv(env), stderr: log };
    try {
      const result = tool.run(bindMcpArguments(args, tool.params), ctx);
      const text = result instanceof BuildContextResult ? JSON.stringify(result.toJSON()) : String(result).replace(/\n+$/, '');
      return reply(id, { content: [{ type: 'text', text }] });
    } catch (e) {
      const text = e instanceof McpToolError ? `An error occurred invoking '${name}': ${e.message}` : `An error occurred invoking '${name}'.`;
      if (!(e instanceof McpToolError)) log(`tool ${name} failed: ${e.message}`);
      return reply(id, { content: [{ type: 'text', text }], isError: true });
    }
  }

  async function handle(msg) {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.method !== 'string') return; // responses, junk
    const isRequest = Object.prototype.hasOwnProperty.call(msg, 'id');
    const { id, method, params } = msg;
    switch (method) {
      case 'initialize': {
        if (flags.has('no-handshake')) return;
        const asked = params && params.protocolVersion;
        return reply(id, {
          protocolVersion: SUPPORTED_PROTOCOLS.includes(asked) ? asked : LATEST_PROTOCOL,
          capabilities: { tools: {} },
          serverInfo: SERVER_INFO,
        });
      }
      case 'ping':
        return isRequest && reply(id, {});
      case 'tools/list':
        return reply(id, {
          tools: TOOLS.map((t) => ({ name: t.mcpName, description: t.description, inputSchema: inputSchema(t) })),
        });
      case 'tools/call':
        return toolsCall(id, params);
      default:
        if (method.startsWith('notifications/') || !isRequest) return;
        return replyError(id, -32601, `Method '${method}' is not available.`);
    }
  }

  const dispatch = (line) => {
    if (!line.trim()) return;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      log(`ignoring a line that is not JSON: ${line.slice(0, 80)}`);
      return;
    }
    inflight++;
    Promise.resolve()
      .then(() => handle(msg))
      .catch((e) => log(`handler failed: ${e.stack || e}`))
      .finally(() => {
        inflight--;
        maybeExit();
      });
  };

  let ready = false;
  const backlog = [];
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (ready) dispatch(line);
      else backlog.push(line);
    }
  });
  process.stdin.on('end', () => {
    if (buffer.trim()) {
      if (ready) dispatch(buffer);
      else backlog.push(buffer);
    }
    buffer = '';
    stdinEnded = true;
    if (ready) maybeExit();
  });

  await sleep(msFromEnv(env, 'FAKE_MAENIFOLD_STARTUP_MS')); // .NET start-up, once per process
  ready = true;
  for (const line of backlog.splice(0)) dispatch(line);
  maybeExit();
  return new Promise(() => {}); // lives until stdin closes
}

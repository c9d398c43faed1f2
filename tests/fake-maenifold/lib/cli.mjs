// CLI mode: `maenifold --tool <Name> --payload '<json>' [--json]`. Exit code 0 unless a crash.

import { Store } from './store.mjs';
import { TOOL_BY_NAME, fail, BuildContextResult } from './tools.mjs';
import { ArgumentError, PayloadJsonError, requireObject } from './payload.mjs';
import { DOTNET_CRASH, cliFaultFor, garbageText, logEvent, msFromEnv, nowFromEnv, sleep } from './knobs.mjs';

export const USAGE = `maenifold CLI

Usage:
  MCP Server mode:   maenifold --mcp
  Direct tool mode:  maenifold --tool <name> --payload '<json>' [--json]

  (For development from source: dotnet run -- --tool <name> --payload '<json>')

Options:
  --json             Output structured JSON instead of markdown (FR-8.1)

Examples:
  maenifold --tool WriteMemory --payload '{"title":"Test","content":"Content with [[WikiLink]]"}'
  maenifold --tool SearchMemories --payload '{"query":"authentication","mode":"Hybrid"}'
  maenifold --tool BuildContext --payload '{"conceptName":"Machine Learning","depth":2}'

Available tools:
  Memory: WriteMemory, ReadMemory, EditMemory, DeleteMemory, MoveMemory
          SearchMemories, ExtractConceptsFromFile, RecentActivity
  Vector: FindSimilarConcepts
  Graph:  Sync, BuildContext, Visualize
  Think:  SequentialThinking
  Flow:   Workflow
  System: MemoryStatus, ListMemories, GetConfig, GetHelp
  Sync:   StartWatcher, StopWatcher
  Repair: RepairConcepts, AnalyzeConceptCorruption
  MCP:    ListAssets, ReadMcpResource
  Bench:  RunFullBenchmark`;

// ---------------------------------------------------------------------------------------------
// JSON parsing with System.Text.Json-like error messages

function jsonErrorMessage(s) {
  let i = 0;
  const where = (pos) => {
    const before = s.slice(0, pos);
    const line = (before.match(/\n/g) || []).length;
    const col = Buffer.byteLength(before.slice(before.lastIndexOf('\n') + 1));
    return `Path: $ | LineNumber: ${line} | BytePositionInLine: ${col}.`;
  };
  class Bad extends Error {}
  const bad = (msg, pos) => {
    throw new Bad(`${msg} ${where(pos)}`);
  };
  const eof = () =>
    bad('Expected depth to be zero at the end of the JSON payload. There is an open JSON object or array that should be closed.', s.length);
  const ws = () => {
    while (i < s.length && ' \t\r\n'.includes(s[i])) i++;
  };
  const string = () => {
    i++;
    while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
    if (i >= s.length) eof();
    i++;
  };
  const value = () => {
    ws();
    if (i >= s.length) eof();
    const c = s[i];
    if (c === '{') {
      i++;
      ws();
      if (s[i] === '}') return i++;
      for (;;) {
        ws();
        if (i >= s.length) eof();
        if (s[i] !== '"') bad(`'${s[i]}' is an invalid start of a property name. Expected a '"'.`, i);
        string();
        ws();
        if (i >= s.length) eof();
        if (s[i] !== ':') bad(`'${s[i]}' is invalid after a property name. Expected a ':'.`, i);
        i++;
        value();
        ws();
        if (i >= s.length) eof();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === '}') return i++;
        bad(`'${s[i]}' is invalid after a value. Expected either ',', '}', or ']'.`, i);
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (s[i] === ']') return i++;
      for (;;) {
        value();
        ws();
        if (i >= s.length) eof();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ']') return i++;
        bad(`'${s[i]}' is invalid after a value. Expected either ',', '}', or ']'.`, i);
      }
    }
    if (c === '"') return string();
    const lit = s.slice(i).match(/^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/);
    if (lit) {
      i += lit[0].length;
      return;
    }
    bad(`'${c}' is an invalid start of a value.`, i);
  };
  try {
    if (!s.trim()) {
      return `The input does not contain any JSON tokens. Expected the input to start with a valid JSON token, while reading a value. ${where(0)}`;
    }
    value();
    ws();
    if (i < s.length) bad(`'${s[i]}' is invalid after a single JSON value. Expected end of data.`, i);
    return `The JSON value could not be parsed. ${where(0)}`;
  } catch (e) {
    if (e instanceof Bad) return e.message;
    throw e;
  }
}

function parsePayload(text) {
  try {
    return JSON.parse(text);
  } catch {
    throw new PayloadJsonError(jsonErrorMessage(text));
  }
}

// ---------------------------------------------------------------------------------------------

function write(stream, data) {
  return new Promise((resolve) => {
    if (!stream.write(data)) stream.once('drain', resolve);
    else resolve();
  });
}

/** Invoke one tool the way Program.cs does; returns the stdout text (without trailing newline). */
export function invoke(toolName, payloadJson, json, env, extra = {}) {
  const store = new Store(env);
  const ctx = {
    store,
    json,
    mode: 'cli',
    env,
    now: nowFromEnv(env),
    stderr: extra.stderr || ((line) => process.stderr.write(line + '\n')),
  };
  try {
    const payload = parsePayload(payloadJson);
    const tool = TOOL_BY_NAME[String(toolName).toLowerCase()];
    if (!tool) return json ? fail('UNKNOWN_TOOL', `Unknown tool: ${toolName}`) : `Unknown tool: ${toolName}`;
    requireObject(payload);
    const result = tool.run(tool.fromPayload(payload), ctx);
    return result instanceof BuildContextResult ? result.toText() : String(result);
  } catch (e) {
    const code = e instanceof PayloadJsonError ? 'INVALID_PAYLOAD' : e instanceof ArgumentError ? 'INVALID_ARGUMENT' : 'INTERNAL_ERROR';
    const message = `Error invoking ${toolName}: ${e.message}`;
    return json ? fail(code, message) : message;
  }
}

export async function runCli(argv, env) {
  const toolIndex = argv.indexOf('--tool');
  const payloadIndex = argv.indexOf('--payload');
  const toolName = toolIndex >= 0 && toolIndex + 1 < argv.length ? argv[toolIndex + 1] : null;
  const payloadJson = payloadIndex >= 0 && payloadIndex + 1 < argv.length ? argv[payloadIndex + 1] : null;
  let logged = payloadJson;
  try {
    logged = payloadJson === null ? null : JSON.parse(payloadJson);
  } catch {
    /* log the raw string */
  }
  logEvent(env, { mode: 'cli', argv, tool: toolName, payload: logged, event: 'call' });

  await sleep(msFromEnv(env, 'FAKE_MAENIFOLD_STARTUP_MS'));

  if (toolIndex < 0 || payloadIndex < 0 || toolIndex + 1 >= argv.length || payloadIndex + 1 >= argv.length) {
    await write(process.stdout, USAGE + '\n');
    return 0;
  }
  new Store(env).ensureDirectories();
  const json = argv.includes('--json');
  const { fault, slowMs } = cliFaultFor(env, toolName);
  await sleep(msFromEnv(env, 'FAKE_MAENIFOLD_ANSWER_MS') + slowMs);

  const out = (text) => write(process.stdout, text + '\n');
  switch (fault) {
    case null:
      break;
    case 'hang':
      setInterval(() => {}, 1 << 30);
      return new Promise(() => {});
    case 'error':
      await out('ERROR: simulated failure');
      return 0;
    case 'invoking':
      await out(`Error invoking ${toolName}: simulated`);
      return 0;
    case 'unknown':
      await out(`Unknown tool: ${toolName}`);
      return 0;
    case 'empty':
      return 0;
    case 'garbage':
      await out(garbageText());
      return 0;
    case 'nonutf8':
      await write(
        process.stdout,
        Buffer.concat([Buffer.from('Context for CONCEPT: '), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]), Buffer.from('\n\n'), Buffer.from([0xf0, 0x28, 0x8c, 0x28, 0x0a])]),
      );
      return 0;
    case 'crash':
      await write(process.stderr, DOTNET_CRASH(toolName));
      return 134;
    case 'jsonfail':
      await out(json ? fail('INTERNAL_ERROR', `Error invoking ${toolName}: simulated`) : `Error invoking ${toolName}: simulated`);
      return 0;
    case 'huge': {
      const head = invoke(toolName, argv[payloadIndex + 1], json, env);
      await write(process.stdout, head + '\n');
      const target = 10 * 1024 * 1024;
      let written = Buffer.byteLength(head) + 1;
      let n = 0;
      while (written < target) {
        const lines = [];
        for (let k = 0; k < 2000; k++) lines.push(`  filler line ${++n} lorem ipsum dolor sit amet consectetur adipiscing elit`);
        const chunk = lines.join('\n') + '\n';
        written += Buffer.byteLength(chunk);
        await write(process.stdout, chunk);
      }
      return 0;
    }
    default:
      process.stderr.write(`[fake-maenifold] unknown fault '${fault}' ignored\n`);
  }

  await out(invoke(toolName, argv[payloadIndex + 1], json, env).replace(/\n+$/, ''));
  return 0;
}


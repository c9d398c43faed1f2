// The tools the fake implements. Each tool: CLI name, MCP name, parameters (for tools/list and MCP
// binding), fromPayload (CLI PayloadReader rules) and run (shared by CLI and MCP).
// Output shapes follow docs/maenifold-cli.md (the CLI contract, checked against the real program).
// The tools themselves live by group in tools-*.mjs; this file is their registry.

import { SEARCH_MEMORIES } from './tools-search.mjs';
import { RECENT_ACTIVITY, BUILD_CONTEXT } from './tools-activity.mjs';
import { READ_MEMORY, WRITE_MEMORY, SYNC } from './tools-memory.mjs';
import { SEQUENTIAL_THINKING } from './tools-thinking.mjs';

export { localDisplay, ok, fail } from './tools-common.mjs';
export { BuildContextResult } from './tools-activity.mjs';

export const TOOLS = [SEARCH_MEMORIES, RECENT_ACTIVITY, BUILD_CONTEXT, READ_MEMORY, WRITE_MEMORY, SYNC, SEQUENTIAL_THINKING];

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

// Entry point: `--mcp` anywhere starts the MCP server, otherwise one CLI invocation.
import { runCli } from './cli.mjs';
import { runMcp } from './mcp.mjs';

export async function main(argv, env) {
  if (argv.includes('--mcp')) return runMcp(argv, env);
  return runCli(argv, env);
}

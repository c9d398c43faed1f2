// A reference stdio MCP server for the harness tests (newline-delimited JSON-RPC): two tools,
// `pre_tool_use` (answers a PreToolUse hook's JSON: allow + additionalContext "REF-CTX <command>")
// and `model_tool` (answers "model tool ran"). REF_LOG: append every message received.
import fs from "node:fs";
import readline from "node:readline";

const log = (m) => process.env.REF_LOG && fs.appendFileSync(process.env.REF_LOG, m + "\n");
const send = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const object = { type: "object", properties: {} };
const tools = [
  { name: "pre_tool_use", description: "Hook endpoint", inputSchema: object },
  { name: "model_tool", description: "A tool for the model", inputSchema: object },
];
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  log(line);
  if (m.id === undefined) return;
  if (m.method === "initialize")
    return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "ref", version: "1" } } });
  if (m.method === "tools/list") return send({ jsonrpc: "2.0", id: m.id, result: { tools } });
  if (m.method === "tools/call") {
    const text =
      m.params.name === "pre_tool_use"
        ? JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", additionalContext: `REF-CTX ${m.params.arguments?.command ?? ""}` } })
        : "model tool ran";
    return send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text }] } });
  }
  if (m.method === "ping") return send({ jsonrpc: "2.0", id: m.id, result: {} });
  send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "method not found" } });
});

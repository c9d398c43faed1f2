/** Options of the OpenCode plugin and of the engine (the same keys). */
export interface HookwisePluginOptions {
  /** Path of the maenifold CLI (else env MAENIFOLD_CLI, $MAENIFOLD_ROOT/bin/maenifold, PATH). */
  cliPath?: string;
  /** One CLI call's timeout in ms (1000–30000; env MAENIFOLD_TIMEOUT; default 5000). */
  timeoutMs?: number;
  /** One deadline for all the concepts of a tool call, in ms (default 5000). */
  deadlineMs?: number;
  /** How maenifold is asked: one warm `maenifold --mcp` session ("mcp"), the per-call CLI ("cli"), or the session with the CLI when MCP is not available ("auto", the default; env HOOKWISE_TRANSPORT). */
  transport?: "auto" | "mcp" | "cli";
  /** From starting `maenifold --mcp` to a completed handshake, in ms (default 15000). */
  mcpStartTimeoutMs?: number;
  /** Crashed or hung MCP sessions replaced within 10 minutes before giving up (default 3). */
  mcpMaxRestarts?: number;
  /** How long a BuildContext answer of the MCP session is reused, in ms (default 300000; 0: off). */
  cacheTtlMs?: number;
  /** Cached BuildContext answers at most, LRU (default 512; 0: off). */
  cacheMaxEntries?: number;
  /** Token budget of the context added to one tool call (≈4 characters a token; default 2000). */
  tokenBudget?: number;
  /** Concepts looked up per tool call at most (default 8). */
  maxConcepts?: number;
  /** BuildContext depth (1–2, default 1). */
  depth?: number;
  /** BuildContext maxEntities (default 5). */
  maxEntities?: number;
  /** Include content previews (default true). */
  includeContent?: boolean;
  /** Top-level fields of custom/MCP tools that are prompts for a model (default ["prompt", "instructions"]). */
  promptFields?: string[];
  /** Pre-action enforcement (schema: hookwise.schema.json, `enforcement`); also read from .opencode/hookwise.json. */
  enforcement?: Record<string, unknown>;
  /** Intent governance: on while .orchestration/active_intents.yaml exists ("auto", the default); true forces it on, false off. */
  governance?: boolean | "auto" | { enabled?: boolean | "auto"; mutatingTools?: string[]; readTools?: string[]; staleWrites?: boolean };
}

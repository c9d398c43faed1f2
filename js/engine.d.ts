import type { HookwisePluginOptions } from "./options.cjs";
export type { HookwisePluginOptions };

export interface SpawnResult {
  success: boolean;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Set when the process could not start, was cancelled, or printed over the cap. */
  error?: string;
}

export type Runner = (argv: string[], o: { timeoutMs: number; maxBytes: number }) => Promise<SpawnResult>;

export interface EngineOptions {
  options?: HookwisePluginOptions;
  /** The workspace root. */
  cwd?: string;
  /** Environment (default process.env). */
  env?: Record<string, string | undefined>;
  /** Runs the maenifold CLI (default: Bun.spawn or child_process, argv only, never a shell). */
  runner?: Runner;
  log?: (level: "debug" | "info" | "warn" | "error", message: string) => void;
  /** Where hookwise_bg.wasm is, when the package was bundled. */
  wasmPath?: string;
  wasmBytes?: Uint8Array;
  /** The policy (enforcement) build's bytes, when bundled; else read from `policy/` beside wasmPath. */
  policyWasmBytes?: Uint8Array;
  /** `false`: do not watch the vault folder for changes; it is re-listed when its index is
   * older than `vaultRefreshMs` instead. Default: watched. */
  watch?: boolean;
  /** Whose tool names and argument keys the calls use (the gate reads exactly those keys):
   * `"vscode"` (default: Roo Code's, OpenCode's and OpenClaw's names), `"opencode"`, `"openclaw"`,
   * `"claude-code"`. */
  host?: "vscode" | "opencode" | "opencode2" | "openclaw" | "claude-code";
}

export interface Discovery {
  path: string | null;
  source: "option" | "env" | "root" | "path" | "none";
  error?: string;
}

export interface Augmented<A = unknown> {
  /** Arguments to run the tool with: a changed copy, or the caller's object when unchanged. */
  args: A;
  /** The context text, if any knowledge was found. */
  context: string | null;
  concepts: string[];
  callId: string;
  /** The context could not go into the arguments: pass the result to completeToolCall. */
  deliverWithResult: boolean;
  /** Pre-action enforcement blocked the call: do not run it; give `reason` to the model. */
  blocked: boolean;
  reason?: string;
  /** Enforcement advice (already placed: comment lines, or with the result). */
  advice: string | null;
  /** The enforcement decision, when enforcement is on. */
  enforcement: EnforcementDecision | null;
}

export interface EnforcementDecision {
  decision: "allow" | "advise" | "block" | "acknowledged" | "bypass" | "readOnly" | "disabled";
  sops?: string[];
  memories: number;
  categories?: string[];
  lookupMs: number;
  timedOut: boolean;
  cooldownHit: boolean;
  bypass: boolean;
  /** A dry run: nothing was recorded. */
  dryRun?: boolean;
  detected?: Record<string, unknown>;
}

export interface PreHookResult {
  /** Do not run the tool; show `reason` to the model. Enforcement: the same call retried
   * within the cooldown passes. Intent governance: no active intent, a path out of the
   * intent's scope, or a stale write. */
  blocked: boolean;
  /** Pass it to executePostHook (intent governance records the change). */
  callId: string;
  reason?: string;
  /** Advice and knowledge context to give the model with this call. */
  contextInjection?: string;
  decision?: EnforcementDecision;
}

export interface TraceHead {
  records: number;
  bytes: number;
  /** `sha256:<hex>` of the log's last line. */
  last: string;
}

export interface TraceReport {
  ok: boolean;
  path: string;
  /** The head file beside the log. */
  headPath: string;
  lines: number;
  /** The log could not be read, or the project folder does not exist. */
  error?: string;
  /** The head of the log as it is now. */
  logHead?: TraceHead;
  /** The head file's head. */
  storedHead?: TraceHead;
  /** Each problem; `segment`: the segment file it is in (absent for the single-file log). */
  problems: { line: number; kind: string; message: string; segment?: string }[];
  /** Records in all segments. */
  records: number;
  /** Each segment (the single-file log of older versions counts as one). */
  segments: { name: string; path: string; records: number; ok: boolean; branch?: string }[];
  /** The verdict in one sentence ("ok: N record(s) in K segment(s), all chains whole, heads match"). */
  text: string;
}

/** A tool hookwise offers the model: its input is described by a JSON Schema. */
export interface ModelTool {
  name: string;
  /** Written for the model. */
  description: string;
  inputSchema: Record<string, unknown>;
}

/** The answer to a model's tool call: `text` is the tool result the model reads. */
export interface ToolAnswer {
  text: string;
  isError: boolean;
}

/** The writer of a line: the Agent Trace record that put its text there. */
export interface BlameWriter {
  recordId: string;
  /** RFC 3339, UTC. */
  time: string;
  /** The intent the change was made under; `name` is its name in the intents file now (null: gone). */
  intent: { id: string; name: string | null } | null;
  /** The host's profile id: "opencode", "claude-code", "codex", … ("" in records that did not name it). */
  host: string;
  model: string | null;
  session: string;
  tool: string;
  mutationClass: string;
  /** The decisions taken on that call: governance's gate, and enforcement's when it was on. */
  decisions: { by: "governance" | "enforcement"; decision: string; sops?: string[]; categories?: string[] }[];
  /** The 1-based line of the trace log holding the record (of its segment). */
  traceLine: number;
  /** The segment file holding the record (absent for the single-file log of older versions). */
  segment?: string;
  /** The branch the record was written on. */
  branch?: string;
}

/** One line of the file as it is now. Agent and changed lines carry their writer's fields. */
export interface BlameLine extends Partial<BlameWriter> {
  line: number;
  /** agent: the text is what a recorded write put there; changed: an agent wrote there and the text changed since. */
  state: "agent" | "changed" | "unattributed";
  /** "range": the record predates line hashes (or was too large): matched by its ranges. */
  granularity?: "line" | "range";
}

export interface BlameResult {
  /** The file, relative to the project. */
  path: string;
  /** false: the file could not be blamed (`error` says why: outside the project, binary, too large…). */
  ok: boolean;
  error?: string;
  /** The chain's verdict, as `verifyTrace` gives it: blame answers either way. */
  verify?: { ok: boolean; lines: number; problems: { line: number; kind: string; message: string }[]; error?: string };
  /** Records that named the file (or a path it was moved from). */
  records: number;
  summary: { agent: number; changed: number; unattributed: number };
  lines: BlameLine[];
  /** With `{table: true}`: the terminal table `hookwise trace blame` prints. */
  table?: string;
}

export declare class Engine {
  readonly discovery: Discovery | null;
  /** `dryRun`: enforcement decides as the hook would (real cooldowns) but records nothing. */
  augmentToolCall<A = unknown>(call: { tool: string; args: A; callId?: string; sessionId?: string; dryRun?: boolean }): Promise<Augmented<A>>;
  /** Pre-action enforcement and context for hosts that place text themselves. Never throws.
   * `workspaceRoot` is accepted and not used: an engine's project is the `cwd` it was created
   * with (a host with several workspace folders creates one engine per folder). */
  executePreHook(call: { toolName: string; params: unknown; sessionId?: string; workspaceRoot?: string; callId?: string }): Promise<PreHookResult>;
  /** After the tool ran: intent governance appends the Agent Trace record. Never throws. */
  executePostHook(call: { toolName: string; params: unknown; result?: unknown; sessionId?: string; callId?: string; failed?: boolean }): Promise<{ recorded: boolean; id?: string; notice?: string }>;
  /** Intent governance: the `select_active_intent` tool. `text` is what the model reads. */
  selectIntent(sessionId: string, intentId: string): Promise<{ ok: boolean; intentId?: string; text: string }>;
  /** The tools to offer the model now (`select_active_intent` while governance is on, the
   * knowledge tools while a knowledge source answers), as the core defines them. */
  tools(): ModelTool[];
  /** The model called one of `tools()`: `text` is what it reads; never throws. */
  callTool(name: string, input: unknown, sessionId?: string): Promise<ToolAnswer>;
  /** Intent governance: the `<intent_context>` system-prompt text ("" when governance is off). */
  intentContext(sessionId: string): Promise<string>;
  /** Intent governance is on for this workspace. */
  readonly governance: boolean;
  /** Intent governance: check the Agent Trace: every segment's hash chain and head (`.orchestration/trace/`, and the single-file log of older versions). */
  verifyTrace(o?: { anchor?: string }): Promise<TraceReport>;
  /** Intent governance: the trace's head to anchor (`text`); `init` writes it for the log as it is. */
  traceHead(o?: { init?: boolean }): Promise<{ ok: boolean; written?: boolean; text?: string; message: string; verify?: TraceReport }>;
  /** Intent governance: who wrote each line of `path` (absolute or relative to the workspace); policy core, loaded on demand. Never throws. */
  blame(path: string, o?: { table?: boolean }): Promise<BlameResult>;
  /** Intent governance: the project as one self-contained HTML page (`html`: the trace's
   * verification at the top, the intents, the changed files' lines by intent and agent, a
   * timeline, enforcement by SOP); `ok`: the trace verifies. */
  traceReport(): Promise<{ ok: boolean; text: string; html: string; records: number; files: number; verify: TraceReport }>;
  /** Enforcement metrics: a summary, or the hash chain verified. */
  metrics(o?: { verify?: boolean }): Promise<{ ok: boolean; text: string; found?: boolean; metricsFile?: string; stateFile?: string }>;
  completeToolCall(call: { tool: string; callId: string; sessionId?: string; output: string; args?: unknown }): Promise<{ output: string }>;
  /** The context a new session would start with, computed now. */
  sessionPreview(o?: { project?: string; strategy?: "parallel" | "sequential" | "seed" }): Promise<{
    project: string;
    context?: string;
    concepts: { name: string; files: number; mentions: number }[];
    calls: number;
    failures: string[];
  }>;
  /** Knowledge source, CLI discovery, configuration warnings, cache statistics. */
  doctor(): Promise<Record<string, unknown>>;
  /** Create hookwise's configuration files in the workspace (never overwriting). */
  scaffold(o?: { governance?: boolean }): Promise<{ created: string[]; kept: string[]; failed: string[] }>;
  /** Stop the warm maenifold MCP session, kill every process this engine started and close the vault watcher. */
  dispose(): Promise<void>;
}

export declare class HookwiseError extends Error {
  /** What went wrong, as a name to test against (e.g. "WasmMissing"; "Panic", "Trap", "Internal"). */
  kind: string;
  /** With kind "WasmMissing": the .wasm file that could not be read. */
  path?: string;
}

/**
 * Create an engine. Rejects with a HookwiseError of kind "WasmMissing" (its message names the
 * file and the `wasmPath` option) when the WebAssembly cannot be read — e.g. a bundle that left
 * `hookwise_bg.wasm` behind; every other start-up problem is logged and the engine runs.
 */
export declare function createEngine(opts?: EngineOptions): Promise<Engine>;

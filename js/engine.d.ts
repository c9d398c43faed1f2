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
  detected?: Record<string, unknown>;
}

export interface PreHookResult {
  /** Do not run the tool; show `reason` to the model. The same call retried within the cooldown passes. */
  blocked: boolean;
  reason?: string;
  /** Advice and knowledge context to give the model with this call. */
  contextInjection?: string;
  decision?: EnforcementDecision;
}

export declare class Engine {
  readonly discovery: Discovery | null;
  augmentToolCall<A = unknown>(call: { tool: string; args: A; callId?: string; sessionId?: string }): Promise<Augmented<A>>;
  /** Pre-action enforcement and context for hosts that place text themselves. Never throws. */
  executePreHook(call: { toolName: string; params: unknown; sessionId?: string; workspaceRoot?: string }): Promise<PreHookResult>;
  /** Enforcement metrics: a summary, or the hash chain verified. */
  metrics(o?: { verify?: boolean }): Promise<{ ok: boolean; text: string; found?: boolean; metricsFile?: string; stateFile?: string }>;
  completeToolCall(call: { tool: string; callId: string; sessionId?: string; output: string }): Promise<{ output: string }>;
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
  scaffold(): Promise<{ created: string[]; kept: string[]; failed: string[] }>;
  /** Stop the warm maenifold MCP session and kill every process this engine started. */
  dispose(): Promise<void>;
}

export declare class HookwiseError extends Error {
  kind: string;
}

export declare function createEngine(opts?: EngineOptions): Promise<Engine>;

"use strict";
// One hookwise instance: the core, the host that carries out its requests, and the plan of
// which calls need the core at all. Shared by the OpenCode plugin and the engine API.
// It never throws from a hook: a failure is logged and the call proceeds unchanged.

// node:crypto (~3 ms to load) when governance first records a change, not at start-up
const randomBytes = (n) => require("node:crypto").randomBytes(n);
const { sandboxLauncher } = require("./sandbox-launcher.cjs");
const { Core, applyEdits, edited, excerpts, checkArgs, DEFAULT_LIMITS, envObject, compiledSoon } = require("./core.cjs");
const { createHost } = require("./host.cjs");
const { createMcpHost } = require("./mcp.cjs");
const { coldStart } = require("./failsafe.cjs");

const MAX_FOLLOW_UPS = 1024;

class Hookwise {
  /**
   * @param {object} o
   * @param {object} [o.options]  plugin options
   * @param {object} [o.env]      environment (default process.env)
   * @param {string} [o.cwd]      the project's worktree
   * @param {(level: string, message: string) => void} [o.log]
   * @param {Function} [o.runner] host-supplied process runner
   * @param {object} [o.extra]    host-specific request carriers, by request kind
   * @param {boolean} [o.watch]   false: no vault watcher (the vault is re-listed instead)
   * @param {string} [o.flavor]   "policy": start with the policy core
   */
  constructor(o = {}) {
    this.o = o;
    // The environment given to an engine is also the environment of the processes it starts.
    this.env = o.env ? envObject(o.env) : undefined;
    this.host = createHost({ runner: o.runner, extra: o.extra, env: this.env, watch: o.watch });
    // A host-supplied runner means maenifold runs only through it: no MCP process then.
    this.mcpCapable = !o.runner;
    this.mcp = null; // the current core's MCP processes
    this.logFn = typeof o.log === "function" ? o.log : () => {};
    this.core = null;
    this.plan = {};
    this.watched = new Set();
    this.ungated = null;
    this.discovery = null;
    this.followUps = new Set();
    this.ready = null;
  }

  log(level, message) {
    try {
      this.logFn(level, message);
    } catch {
      /* a logger must not break a hook */
    }
  }

  emit(logs) {
    if (Array.isArray(logs)) for (const l of logs) this.log(l.level, l.message);
  }

  /** Load the core and run `init` (CLI discovery, options). Never rejects. */
  init() {
    if (!this.ready) {
      this.ready = (async () => {
        try {
          const init = {
            hook: "init",
            options: this.o.options ?? {},
            env: envObject(this.o.env ?? process.env),
            cwd: this.o.cwd ?? process.cwd(),
            worktree: this.o.worktree ?? "",
            directory: this.o.directory ?? "",
            mcp: this.mcpCapable,
            host: this.o.host, // which host's tool names and argument keys (core default: "vscode")
            ...(this.o.findRoot ? { findRoot: true } : {}), // started in a folder of the project: the core finds it
            // the confined shell's launcher (issue 38): found beside this install only — or beside
            // the install the host names (OpenClaw runs a copy of the plugin's files without its
            // dependencies: `api.rootDir` is where the user installed it)
            sandbox: sandboxLauncher(this.o.installDir ? require("node:path").join(this.o.installDir, "dist") : undefined),
            ...(this.o.runPrograms === false ? { runPrograms: false } : {}), // a reading command: maenifold reported, never run
          };
          this.initCall = init;
          // a host whose calls only the policy core answers (Claude Code's `claude.hook`)
          // starts with it: one core compiled, not two
          // the lean wasm an entry point started compiling (core.cjs compileSoon), if any
          this.module = await compiledSoon({ flavor: this.o.flavor, wasmBytes: this.o.wasmBytes, wasmPath: this.o.wasmPath });
          this.core = this.newCore(this.o.flavor === "policy" ? "policy" : "lean");
          let r = await this.core.call(init);
          // The project wants pre-action enforcement: the core with it starts instead.
          if (r && r.needs === "policy") r = await this.startPolicyCore();
          this.setPlan(r.plan);
          this.started = true;
          this.discovery = r.discovery || null;
          this.emit(r.logs);
          // Session-start context is on: the MCP session starts now, in the background, so
          // the first session is answered by a warm process.
          if (r.warmMcp) this.warmup = this.run({ hook: "mcp.warmup" });
        } catch (e) {
          this.startError = e;
          // a lean core whose policy core could not start answers nothing it should
          if (this.mcp) this.mcp.killAll();
          this.core = null;
          this.setPlan({});
          // No core to ask: the project's files alone say whether governance or enforcement
          // is configured here (src/failsafe.rs's data); if so, calls are blocked.
          this.cold = coldStart({ cwd: this.o.cwd ?? process.cwd(), options: this.o.options, host: this.o.host, error: e });
          this.log("error", `hookwise could not start; ${this.cold ? `governance or enforcement is configured (${this.cold.marker}): calls are blocked` : "every hook is off"}: ${e && e.message}`);
        }
      })();
    }
    return this.ready;
  }

  setPlan(plan) {
    this.plan = plan || {};
    // Intent governance: these tools reach the core with their whole arguments, and (default
    // deny) every tool the plan does not list as ungated.
    this.watched = new Set(Array.isArray(this.plan.toolBeforeTools) ? this.plan.toolBeforeTools : []);
    this.ungated = Array.isArray(this.plan.ungatedTools) ? new Set(this.plan.ungatedTools) : null;
  }

  /** Intent governance is on (the plan watches tools). */
  get governanceOn() {
    return this.watched.size > 0 || this.ungated !== null;
  }

  /** Governance reads this tool's calls whole (the plan's lists; a nameless call could be any tool). */
  gates(tool) {
    return this.watched.has(tool) || (this.ungated !== null && !(tool && this.ungated.has(tool))) || (!tool && this.governanceOn);
  }

  /** Replace the lean core with the policy one and run `init` on it again. */
  async startPolicyCore() {
    this.core = this.newCore("policy");
    return this.core.call(this.initCall);
  }

  newCore(flavor) {
    // Each core owns its MCP processes (their session ids are its own); a replaced core's
    // processes are killed with it.
    if (this.mcp) this.mcp.killAll();
    let core = null;
    const mcp = this.mcpCapable ? createMcpHost({ env: this.env, sink: () => core }) : null;
    const pipes = mcp && createHost({ mcp, watch: false });
    const host = mcp ? { run: (req) => (req.kind.startsWith("mcp") ? pipes.run(req) : this.host.run(req)) } : this.host;
    core = new Core(host, { flavor, wasmPath: this.o.wasmPath, wasmBytes: this.o.wasmBytes, policyWasmBytes: this.o.policyWasmBytes, module: this.module });
    this.mcp = mcp;
    return core;
  }

  /**
   * Stop the MCP session (if any) and kill every process this instance started. Idempotent;
   * never rejects.
   */
  async dispose() {
    // the vault watchers (a later hook call watches again)
    this.host.dispose();
    if (this.disposed) return;
    this.disposed = true;
    try {
      if (this.core && !this.core.broken) await this.core.call({ hook: "dispose" });
    } catch {
      /* killed below anyway */
    }
    if (this.mcp) this.mcp.killAll();
  }

  /** Run one hook call; `null` when it failed (logged; `onError` gets the error). */
  async run(call, onError) {
    if (this.disposed && call.hook !== "dispose") {
      // used again after dispose: processes may start again
      this.disposed = false;
      this.host.reopen();
    }
    await this.init();
    if (!this.core) return null;
    const t0 = Date.now();
    const p0 = performance.now();
    try {
      let r = await this.core.call(call);
      if (r && r.needs === "policy" && this.core.flavor === "lean") {
        // A call only the policy core answers (e.g. metrics): start it and ask again.
        const init = await this.startPolicyCore();
        this.setPlan(init && init.plan);
        this.emit(init && init.logs);
        r = await this.core.call(call);
      }
      this.emit(r && r.logs);
      // OpenTelemetry: the core's events (it decided them), timed here, handed to the exporter
      if (r && r.telemetry) this.telemetry(r.telemetry, { startMs: t0, durationMs: performance.now() - p0 });
      return r;
    } catch (e) {
      if (onError) onError(e);
      this.log("error", `hookwise ${call.hook} failed: ${e.message}`);
      if (this.core.broken) {
        // A trapped instance is replaced; the next call starts from a fresh core.
        this.ready = null;
        this.started = false;
        this.core = null;
      }
      return null;
    }
  }

  /** Hand the core's telemetry events to the sink (js/otel.cjs); never throws. */
  telemetry(events, t) {
    try {
      const sink = typeof this.o.telemetry === "function" ? this.o.telemetry : require("./otel.cjs").processSink(this.o.env || process.env);
      sink(events, t);
    } catch (e) {
      this.log("debug", `hookwise telemetry: ${(e && e.message) || e}`);
    }
  }

  /**
   * `tool.execute.before`: the core's answer, in neutral terms — `block` (the call must not
   * run: the caller blocks with it; this never throws), `edits` (the arguments to run instead:
   * `core.cjs`'s `applyEdits` / `edited`), `followUp` (call `toolAfter`). `args` is not changed.
   * `dryRun`: enforcement decides against the real cooldowns but records nothing.
   * `resultOnly`: the host's model never sees changed arguments (OpenClaw), so nothing is
   * placed in them and the text waits for `toolAfter`.
   */
  async toolBefore({ tool, sessionId, callId, args, dryRun, resultOnly, unreadable, fixedArgs }) {
    if (!this.started) await this.init();
    if (!this.core && this.startError) return this.failClosed(tool, this.startError);
    let call;
    // Governance or enforcement reads this call whole: what cannot cross is said, not dropped.
    // A call whose tool name could not be read could be any tool: governance looks at it.
    const whole = this.plan.toolBeforeAll || this.gates(tool);
    if (whole) {
      const bad = unreadable || this.unreadable(args);
      call = { hook: "tool.before", tool, sessionId, callId, ...(bad ? { unreadable: bad } : { args }), ...(dryRun ? { dryRun: true } : {}) };
    } else {
      const plan = this.plan.toolBefore;
      if (!plan || unreadable) return null;
      let seen;
      try {
        seen = excerpts(args, plan, this.limits);
      } catch (e) {
        this.log("debug", `hookwise tool.before: arguments not read (${e && e.message})`);
        return null; // knowledge context fails open
      }
      if (seen.excerpts.length === 0) return null;
      call = { hook: "tool.before", tool, sessionId, callId, ...seen };
    }
    // a host whose model never sees changed arguments: the core places everything with the result
    if (resultOnly) call.resultOnly = true;
    // a host that runs its own arguments whatever the core changes (engine API executePreHook)
    if (fixedArgs) call.fixedArgs = true;
    let failure = null;
    const r = await this.run(call, (e) => (failure = e));
    if (!r) return whole ? this.failClosed(tool, failure) : null;
    if (typeof r.block === "string") return r;
    if (r.followUp && callId) {
      if (this.followUps.size >= MAX_FOLLOW_UPS) this.followUps.delete(this.followUps.values().next().value);
      this.followUps.add(callId);
    }
    return r;
  }

  /**
   * `tool.execute.after`: the core's answer — `withResult`, the text for the model with the
   * tool's result (after it), and `recorded`, governance's record id. `args`: the tool's
   * arguments (governance records the change from them); `failed`: the tool did not succeed
   * (nothing is recorded).
   */
  async toolAfter({ tool, sessionId, callId, args, failed }) {
    if (!callId || !this.followUps.has(callId)) return null;
    this.followUps.delete(callId);
    const call = { hook: "tool.after", tool, sessionId, callId };
    if (args !== undefined && this.gates(tool)) {
      const bad = this.unreadable(args);
      if (bad) call.unreadable = bad;
      else call.args = args;
      call.random = randomBytes(16).toString("hex");
      call.failed = !!failed;
    }
    return this.run(call);
  }

  /**
   * A `tool.before` result's argument edits applied to `target` in place: for the hosts that
   * run the object they handed over (OpenCode 1.x). Returns how many applied.
   */
  applyEdits(target, r) {
    return applyEdits(target, r && r.edits);
  }

  /** The arguments to run the tool with after `tool.before`'s result `r`: `args`, or an edited copy. */
  edited(args, r) {
    return edited(args, r && r.edits);
  }

  /** The core's bounds on arguments (from its plan). */
  get limits() {
    return this.plan.argsLimits || DEFAULT_LIMITS;
  }

  /** Why `args` cannot cross whole (a code for the core), or null. Never throws. */
  unreadable(args) {
    try {
      return checkArgs(args, this.limits);
    } catch (e) {
      return String((e && e.message) || e).slice(0, 200) || "error";
    }
  }

  /**
   * The core could not answer a call that governance or enforcement must check: the plan's
   * `failClosed` says whether to block it and with what words (the core's, filled in).
   */
  failClosed(tool, error) {
    if (!this.core && this.cold) {
      // the core never started: the failsafe's data decides (src/failsafe.rs)
      const b = this.cold.block(tool);
      return b ? { block: b } : null;
    }
    const fc = this.plan.failClosed;
    // a call without a tool name could be any tool
    const except = fc && fc.all && tool && Array.isArray(fc.except) && fc.except.includes(tool);
    if (!fc || !((fc.all && !except) || !tool || (Array.isArray(fc.tools) && fc.tools.includes(tool)))) return null;
    const why = (error && error.message) || "hookwise is not running";
    return { block: String(fc.message).split("{tool}").join(tool).split("{error}").join(why) };
  }

  /** A session was created: `{ id, parentID? }`. Returns the core's result (or null). */
  async sessionCreated(session) {
    if (!this.started) await this.init();
    if (!this.plan.sessionCreated || !session || !session.id) return null;
    return this.run({ hook: "session.created", session: { id: session.id, parentID: session.parentID ?? null } });
  }

  /** Before a model request: pushes the session's context onto `system` (an array) in place. */
  async systemTransform(sessionId, system, modelId) {
    if (!this.started) await this.init();
    if (!this.plan.systemTransform || !Array.isArray(system)) return null;
    const r = await this.run({ hook: "system.transform", sessionId: sessionId ?? null, system, ...(modelId ? { modelId } : {}) });
    if (r && Array.isArray(r.system)) system.push(...r.system);
    return r;
  }

  /** Intent governance: make `intentId` the session's active intent. `{ok, intentId?, text}`. */
  async selectIntent(sessionId, intentId) {
    const r = await this.run({ hook: "intent.select", sessionId: String(sessionId ?? ""), intentId: String(intentId ?? "") });
    return r || { ok: false, text: "hookwise is not running" };
  }

  /** The tools the host offers the model now (`[{name, description, inputSchema}]`, from the core). */
  get tools() {
    return Array.isArray(this.plan.tools) ? this.plan.tools : [];
  }

  /**
   * A model called one of `tools`: `{text, isError}`, `text` being what the model reads.
   * Never rejects: a failure is an `isError` text.
   */
  async callTool(name, input, sessionId) {
    let failure = null;
    const r = await this.run(
      { hook: "tool.call", name: String(name ?? ""), input: input && typeof input === "object" ? input : {}, sessionId: String(sessionId ?? "") },
      (e) => (failure = e),
    );
    if (r && typeof r.text === "string") return { text: r.text, isError: !!r.isError };
    return { text: `hookwise could not answer \`${name}\`: ${(failure && failure.message) || "hookwise is not running"}`, isError: true };
  }

  /** Intent governance: the `<intent_context>` text for a session (empty when off). */
  async intentContext(sessionId, modelId) {
    const r = await this.run({ hook: "intent.context", sessionId: String(sessionId ?? ""), ...(modelId ? { modelId } : {}) });
    return (r && Array.isArray(r.system) && r.system.join("\n\n")) || "";
  }

  /** Intent governance: check the Agent Trace chain and head (`anchor`: a head printed earlier). */
  async verifyTrace({ anchor } = {}) {
    return (await this.run({ hook: "trace.verify", ...(typeof anchor === "string" ? { anchor } : {}) })) || { ok: false, lines: 0, problems: [], error: "hookwise is not running" };
  }

  /** Intent governance: the project as one HTML page (`{ok, html, records, files, verify}`). */
  async traceReport() {
    return (await this.run({ hook: "trace.verify", report: true })) || { ok: false, text: "", html: "", records: 0, files: 0, verify: { ok: false, lines: 0, problems: [], error: "hookwise is not running" } };
  }

  /** Intent governance: the Agent Trace's head to anchor; `init` writes it for the log as it is. */
  async traceHead({ init = false } = {}) {
    return (await this.run({ hook: "trace.head", init: init === true })) || { ok: false, message: "hookwise is not running" };
  }

  /**
   * Intent governance: who wrote each line of `path` (absolute, or relative to the project),
   * from the Agent Trace (policy core; the lean one hands over). `table`: also the terminal table.
   */
  async blame(path, { table = false } = {}) {
    const r = await this.run({ hook: "trace.blame", path: String(path ?? ""), table: table === true });
    return r || { path: String(path ?? ""), ok: false, error: "hookwise is not running", lines: [], records: 0, summary: { agent: 0, changed: 0, unattributed: 0 } };
  }

  /** Before compaction: pushes the preservation block onto `context` (an array) in place. */
  async compacting(sessionId, context) {
    if (!this.started) await this.init();
    if (!this.plan.compaction || !Array.isArray(context)) return null;
    const r = await this.run({ hook: "session.compacting", sessionId: String(sessionId ?? ""), nowMs: Date.now() });
    if (r && Array.isArray(r.context)) context.push(...r.context);
    return r;
  }
}

module.exports = { Hookwise };

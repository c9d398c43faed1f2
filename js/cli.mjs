#!/usr/bin/env node
// The `hookwise` command: what the hooks would do, from a terminal. Works under Node and Bun.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
// The engine and OpenCode's configuration are loaded by the commands that need them: a command
// hook answered by the warm server (js/warm-client.cjs) loads neither.

const require = createRequire(import.meta.url);

const HELP = {
  main: `hookwise — knowledge context, governance and enforcement for AI coding agents

usage: hookwise <command> [options]

commands:
  context "<text>"              the context a tool call with that text would get
  session [--project NAME]      the context a new session would start with
  check --tool NAME --args JSON what the hooks would do with that tool call
  doctor                        which knowledge source is active and why, discovery, timings
  metrics [verify]              enforcement decisions summary; verify checks the hash chain
  trace verify [--anchor HEAD]  check the Agent Trace log (.orchestration/agent_trace.jsonl): chain and head
  trace head [--init]           print the trace's head to anchor (a commit message, a CI log)
  init [--governance]           scaffold hookwise's configuration in this project (never overwrites);
                                --governance also creates .orchestration/active_intents.yaml;
                                adds hookwise to opencode.json for OpenCode 1.x or 2.x (--opencode 1|2)
  init --claude [--command]     set hookwise up for Claude Code: hooks in .claude/settings.json and
                                the server in .mcp.json (merged into what is there)
  mcp                           the stdio MCP server Claude Code runs (hook tools, model tools)
  hook <Event>                  a Claude Code command hook: the payload on stdin, the answer on stdout

options (every command):
  --vault DIR    read knowledge from this markdown vault
  --cwd DIR      the project (default: the current directory)
  --json         machine-readable output
  --help         help for a command`,
  context: `usage: hookwise context "<text with [[links]]>" [--vault DIR] [--json]

Prints the knowledge block a tool call whose prompt is that text would get.`,
  session: `usage: hookwise session [--project NAME] [--vault DIR] [--json]

Prints the context a new session of the project would start with (default project: the
folder's name).`,
  check: `usage: hookwise check --tool NAME --args JSON [--intent ID] [--host HOST] [--vault DIR] [--json]

Shows what the hooks would do with that tool call, with the project's own configuration: the
intent governance gate (with --intent, as a session that selected that intent; without, as one
that has none), the pre-action enforcement decision ("off" when the project has none; against
its current cooldowns, recording nothing: no metrics line, no cooldown), the arguments it would
run with and where the context goes. --host: whose tool names and argument keys the call uses
(opencode, the default; opencode2, openclaw, claude-code, vscode).`,
  trace: `usage: hookwise trace verify [--anchor HEAD] [--cwd DIR] [--json]
       hookwise trace head [--init] [--cwd DIR] [--json]

verify checks .orchestration/agent_trace.jsonl (intent governance's Agent Trace records): every
line whole and valid, each carrying the hash of the line before, and the log's end against its
head (.orchestration/agent_trace.head: record count, size, last line's hash, kept with every
append). It names the line and the kind of each problem: edited, removed, inserted or
reordered lines, lines cut from the end, an emptied or deleted log, a byte order mark or a
stray line, a missing or edited head, a missing project folder. Exits 1 when it finds any.

What it cannot see without a key: both files rewritten consistently (the head is computed from
the log alone). To catch that, anchor the head: head prints it as one line for a commit message
or a CI log; verify --anchor '<that line>' later checks that the log still holds that record at
that place.

head --init writes the head for the log as it is now: for a log written before hookwise kept a
head, or after you have looked into a problem verify reported. It refuses a log whose chain
itself is broken.`,
  metrics: `usage: hookwise metrics [verify] [--cwd DIR] [--json]

Summarises the pre-action enforcement metrics (decisions by kind, lookup time p50/p95, top
SOPs). With verify: checks the file's hash chain (edits, deletions, reordering); exits 1 when
it finds problems.`,
  doctor: `usage: hookwise doctor [--vault DIR] [--json]

Which knowledge source is active and why, how the maenifold CLI was found, configuration
warnings, and a timing of each hook.`,
  mcp: `usage: hookwise mcp [--cwd DIR]

The stdio MCP server (newline-delimited JSON-RPC) that Claude Code starts from the project's
.mcp.json, once per claude process: one warm engine answers every mcp_tool hook (hook_* tools)
and offers the model hookwise's tools (select_active_intent while intent governance is on).
Exits when stdin closes or on SIGINT/SIGTERM, killing every process it started.`,
  hook: `usage: hookwise hook <Event>

A Claude Code command hook (PreToolUse, PostToolUse, UserPromptSubmit, PreCompact,
SessionStart): reads the hook's JSON payload on stdin and prints the answer on stdout (exit 0).
A fallback for hosts without mcp_tool hooks: it starts a process per event (init --claude
--command writes these entries).`,
  init: `usage: hookwise init [--governance] [--opencode 1|2] [--cwd DIR] [--json]
       hookwise init --claude [--command] [--cwd DIR] [--json]

Creates hookwise's configuration files in the project when they do not exist yet. With
--governance also .orchestration/active_intents.yaml (active_intents: []): intent governance
is then on — file changes and shell commands need an active intent — so it is never created
without the flag.

Adds hookwise to the project's opencode.json in the form its OpenCode reads: 1.x
"plugin": ["hookwise"], 2.x "plugins": [{"package": "hookwise"}]. The generation: --opencode;
else the key opencode.json already uses; else \`opencode --version\`; else both forms (each
generation ignores the other's key). An opencode.jsonc or unreadable file is left as it is
and the line to add is printed.

--claude: sets hookwise up for Claude Code in the project, merging into the files there (never
overwriting them, reporting each change): .claude/settings.json gets mcp_tool hooks
(PreToolUse, PostToolUse, UserPromptSubmit, PreCompact, SessionStart after compaction) and
.mcp.json the hookwise server, run by this installed hookwise (no network install). With
intent governance or enforcement on, the PreToolUse hook blocks when hookwise cannot answer
("onFailure": "block"); run it again after turning either on. --command writes command hooks
(hookwise hook <Event>, a process per event) and no server; opencode.json is left alone.`,
};

class UsageError extends Error {}
class ExitCode extends Error {
  constructor(code) {
    super(`exit ${code}`);
    this.code = code;
  }
}

function parseArgs(argv) {
  const out = { _: [], flags: {} };
  const takesValue = new Set(["vault", "cwd", "project", "tool", "args", "intent", "anchor", "host", "opencode"]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const [k, inline] = a.slice(2).split(/=(.*)/s);
      if (takesValue.has(k)) {
        const v = inline ?? argv[++i];
        if (v === undefined) throw new UsageError(`--${k} needs a value`);
        out.flags[k] = v;
      } else if (["json", "help", "governance", "init", "claude", "command"].includes(k)) out.flags[k] = true;
      else throw new UsageError(`unknown option --${k}`);
    } else out._.push(a);
  }
  return out;
}

async function engineFor(flags, { quiet, options: extra, host } = {}) {
  const cwd = path.resolve(flags.cwd || process.cwd());
  const env = { ...process.env };
  if (flags.vault) env.HOOKWISE_VAULT = path.resolve(flags.vault);
  const warnings = [];
  const timer = quiet ? null : setTimeout(() => process.stderr.write("hookwise: indexing…\n"), 1000);
  const t0 = performance.now();
  const { createEngine } = require("./engine.cjs");
  const engine = await createEngine({
    cwd,
    env,
    host,
    options: { ...(flags.vault ? { vault: path.resolve(flags.vault) } : {}), ...(extra || {}) },
    log: (level, message) => {
      if (level === "warn" || level === "error") warnings.push(`${level}: ${message}`);
    },
  });
  if (timer) clearTimeout(timer);
  return { engine, cwd, warnings, initMs: performance.now() - t0 };
}

function print(flags, json, text) {
  process.stdout.write(flags.json ? JSON.stringify(json, null, 2) + "\n" : text.endsWith("\n") ? text : text + "\n");
}

const commands = {
  async context({ _, flags }) {
    const text = _.slice(1).join(" ");
    if (!text) throw new UsageError('context needs the text, e.g. hookwise context "how does [[auth]] work?"');
    const { engine, warnings } = await engineFor(flags);
    const r = await engine.augmentToolCall({ tool: "task", args: { prompt: text } });
    warnings.forEach((w) => process.stderr.write(w + "\n"));
    // With no knowledge source the hooks never look at the text: say that, not "no concepts".
    const off = !r.concepts.length && !(await engine.doctor()).source;
    const body =
      r.context ??
      (r.concepts.length ? `(no knowledge for: ${r.concepts.join(", ")})` : off ? "(no knowledge source: see hookwise doctor)" : "(no [[concepts]] in the text)");
    print(flags, { concepts: r.concepts, context: r.context }, body);
  },

  async session({ flags }) {
    const { engine, cwd, warnings } = await engineFor(flags);
    const r = await engine.sessionPreview({ project: flags.project || path.basename(cwd) });
    warnings.forEach((w) => process.stderr.write(w + "\n"));
    print(flags, r, r.context ?? `(no context for project ${r.project}${r.failures && r.failures.length ? `: ${r.failures.join("; ")}` : ""})`);
  },

  async check({ flags }) {
    if (!flags.tool) throw new UsageError("check needs --tool NAME");
    let args;
    try {
      args = JSON.parse(flags.args ?? "{}");
    } catch (e) {
      throw new UsageError(`--args is not JSON: ${e.message}`);
    }
    // The project's real configuration; a dry run, so the check consumes no cooldown and adds
    // nothing to the metrics.
    const { engine, warnings } = await engineFor(flags, { host: flags.host || "opencode" });
    const governance = engine.governance;
    const sessionId = "hookwise-check";
    if (flags.intent !== undefined) {
      const selected = await engine.selectIntent(sessionId, flags.intent);
      if (!selected.ok) throw new UsageError(`--intent ${flags.intent}: ${selected.text}`);
    }
    const r = await engine.augmentToolCall({ tool: flags.tool, args, sessionId, dryRun: true });
    warnings.forEach((w) => process.stderr.write(w + "\n"));
    const d = r.enforcement;
    const decision = d
      ? `${d.decision}${d.sops && d.sops.length ? ` (SOPs: ${d.sops.join(", ")})` : ""}${d.memories ? ` (${d.memories} memor${d.memories === 1 ? "y" : "ies"})` : ""}${d.detected ? `, risk ${d.detected.risk}` : ""}${d.cooldownHit ? ", within the cooldown of an earlier block" : ""}`
      : "off";
    const where = !r.context ? "nowhere (no knowledge)" : r.deliverWithResult ? "with the tool's result (arguments unchanged)" : "into the arguments";
    // A block without an enforcement decision is intent governance's gate.
    const gate = !governance ? "off" : r.blocked && !d ? "blocked" : `allowed${flags.intent ? ` (intent ${flags.intent})` : ""}`;
    const json = { tool: flags.tool, governance: gate, enforcement: d, blocked: r.blocked, ...(r.blocked ? { reason: r.reason } : {}), advice: r.advice, concepts: r.concepts, context: r.context, contextGoes: r.deliverWithResult ? "result" : r.context ? "arguments" : "none", args: r.args };
    const extra = r.blocked ? `\n\nblocked with:\n${r.reason}` : r.advice ? `\n\nadvice:\n${r.advice}` : "";
    // Governance off: the output is what it always was (nothing about governance).
    print(flags, json, `tool: ${flags.tool}\n${governance ? `intent governance: ${gate}\n` : ""}enforcement: ${decision}${extra}\nconcepts: ${r.concepts.join(", ") || "(none)"}\ncontext goes: ${where}\nargs:\n${JSON.stringify(r.args, null, 2)}${r.context ? `\n\ncontext:\n${r.context}` : ""}`);
  },

  async metrics({ _, flags }) {
    const sub = _[1];
    if (sub && sub !== "verify") throw new UsageError(`unknown metrics subcommand '${sub}'`);
    const { engine, warnings } = await engineFor(flags, { quiet: true });
    const r = await engine.metrics({ verify: sub === "verify" });
    warnings.forEach((w) => process.stderr.write(w + "\n"));
    print(flags, r, r.text);
    if (!r.ok) throw new ExitCode(1);
  },

  async doctor({ flags }) {
    const { engine, warnings, initMs } = await engineFor(flags, { quiet: true });
    const report = await engine.doctor();
    const timings = {};
    const time = async (name, f) => {
      const t0 = performance.now();
      await f();
      timings[name] = Math.round((performance.now() - t0) * 10) / 10;
    };
    timings.init = Math.round(initMs * 10) / 10;
    // dry runs: timing the hooks must not record enforcement decisions in the project
    await time("tool.execute.before (no links)", () => engine.augmentToolCall({ tool: "bash", args: { command: "ls -la" }, dryRun: true }));
    await time("tool.execute.before ([[hookwise]])", () => engine.augmentToolCall({ tool: "bash", args: { command: "echo [[hookwise]]" }, dryRun: true }));
    await time("session start", () => engine.sessionPreview({}));
    const json = { ...report, timingsMs: timings, warnings: [...(report.warnings || []), ...warnings] };
    const d = report.discovery || {};
    const lines = [
      `knowledge source: ${report.source || "none"}`,
      `maenifold CLI: ${d.path ? `${d.path} (${d.source})` : "not found"}${d.error ? ` — ${d.error}` : ""}`,
      `project: ${report.project || "(none)"}`,
      ...(report.vault ? [`vault: ${JSON.stringify(report.vault)}`] : []),
      `timings (ms): ${Object.entries(timings).map(([k, v]) => `${k} ${v}`).join("; ")}`,
      ...json.warnings.map((w) => `warning: ${w}`),
    ];
    print(flags, json, lines.join("\n"));
  },

  async trace({ _, flags }) {
    const sub = _[1];
    if (sub !== "verify" && sub !== "head") throw new UsageError(sub ? `unknown trace subcommand '${sub}'` : "trace needs a subcommand: verify or head");
    if (flags.init && sub !== "head") throw new UsageError("--init goes with trace head");
    if (flags.anchor !== undefined && sub !== "verify") throw new UsageError("--anchor goes with trace verify");
    const { engine, warnings } = await engineFor(flags, { quiet: true });
    const problems = (v) => (v.problems || []).map((p) => `${p.line ? `line ${p.line}: ` : ""}${p.kind}: ${p.message}`);
    if (sub === "head") {
      const r = await engine.traceHead({ init: !!flags.init });
      warnings.forEach((w) => process.stderr.write(w + "\n"));
      const v = r.verify || {};
      const lines = [...(r.text ? [r.text] : []), ...(r.ok ? [] : problems(v)), r.message];
      print(flags, r, lines.join("\n"));
      if (!r.ok) throw new ExitCode(1);
      return;
    }
    const r = await engine.verifyTrace(flags.anchor !== undefined ? { anchor: flags.anchor } : {});
    warnings.forEach((w) => process.stderr.write(w + "\n"));
    const lines = [];
    if (r.error) lines.push(`error: ${r.error}`);
    lines.push(...problems(r));
    lines.push(
      r.ok && !r.lines
        ? `ok: no trace records at ${r.path}`
        : r.ok
          ? `ok: ${r.lines} record(s), the chain is whole and ends where its head says${flags.anchor !== undefined ? "; the anchored record is in place" : ""}`
          : r.error
            ? `cannot verify ${r.path}`
            : `the trace does not verify: ${(r.problems || []).length} problem(s) in ${r.path}`,
    );
    print(flags, r, lines.join("\n"));
    if (!r.ok) throw new ExitCode(1);
  },

  async mcp({ flags }) {
    const { serve } = require("./mcp-server.cjs");
    const cwd = flags.cwd ? path.resolve(flags.cwd) : undefined;
    const { closed } = serve({ cwd, version: packageVersion() });
    await closed;
    // a watcher or a timer left behind must not keep a server Claude Code has left
    process.exit(0);
  },

  async hook({ _, flags }) {
    const event = _[1];
    if (!event) throw new UsageError("hook needs the event name, e.g. hookwise hook PreToolUse");
    const raw = await readStdin(64 * 1024 * 1024);
    let payload = null;
    try {
      payload = JSON.parse(raw);
    } catch {
      /* read as nothing: the core answers what it can */
    }
    const cwd = flags.cwd ? path.resolve(flags.cwd) : payload && typeof payload.cwd === "string" && path.isAbsolute(payload.cwd) ? payload.cwd : undefined;
    // The project's warm server answers when it can (the payload as read); else this process does.
    if (process.env.HOOKWISE_WARM !== "0") {
      // the project as createClaude resolves it
      const project = cwd || process.env.CLAUDE_PROJECT_DIR || process.cwd();
      const w = await require("./warm-client.cjs").askWarm({ event, raw, project, explain: true });
      if (process.env.HOOKWISE_DEBUG) process.stderr.write(`hookwise debug: ${w.answer ? "answered warm" : `cold (${w.why})`}\n`);
      if (w.answer) return void process.stdout.write(w.answer.text);
    }
    const { createClaude } = require("./claude.cjs");
    const claude = createClaude({ cwd, log: (level, message) => level === "error" && process.stderr.write(`hookwise ${level}: ${message}\n`) });
    const r = await claude.hook(event, payload);
    await claude.dispose();
    if (!r.ok) {
      // non-blocking: Claude Code goes on without hookwise
      process.stderr.write(`hookwise: ${r.text}\n`);
      throw new ExitCode(1);
    }
    process.stdout.write(r.text);
  },

  async init({ flags }) {
    if (flags.claude) return initClaude(flags);
    if (flags.command) throw new UsageError("--command goes with --claude");
    const cwd = path.resolve(flags.cwd || process.cwd());
    if (flags.opencode !== undefined && flags.opencode !== "1" && flags.opencode !== "2") throw new UsageError(`--opencode must be 1 or 2, not ${JSON.stringify(flags.opencode)}`);
    const { engine } = await engineFor(flags, { quiet: true });
    const { registerOpenCode, describeRegistration } = await import("./opencode-config.mjs");
    const r = await engine.scaffold({ governance: !!flags.governance });
    let opencode;
    try {
      opencode = registerOpenCode(cwd, flags.opencode);
    } catch (e) {
      opencode = { error: e.message };
    }
    const oc = opencode.error ? [`failed opencode.json: ${opencode.error}`] : describeRegistration(opencode);
    print(flags, { ...r, opencode }, [...r.created.map((f) => `created ${f}`), ...r.kept.map((f) => `kept ${f} (it exists)`), ...r.failed.map((f) => `failed ${f}`), ...oc].join("\n") || "nothing to do");
    if (r.failed.length) throw new Error(`could not create: ${r.failed.join("; ")} (in ${cwd})`);
    if (opencode.error) throw new Error(`could not add hookwise to opencode.json: ${opencode.error} (in ${cwd})`);
  },
};

function packageVersion() {
  try {
    return JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
  } catch {
    return "0.0.0";
  }
}

function readStdin(max) {
  return new Promise((resolve) => {
    const parts = [];
    let n = 0;
    process.stdin.on("data", (c) => {
      n += c.length;
      if (n <= max) parts.push(c);
    });
    process.stdin.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    process.stdin.on("error", () => resolve(""));
  });
}

/** `hookwise init --claude`: hooks in .claude/settings.json, the server in .mcp.json. */
async function initClaude(flags) {
  const cwd = path.resolve(flags.cwd || process.cwd());
  const { createClaude } = require("./claude.cjs");
  const { mergeClaudeSettings, mergeMcpJson, mergePermissions, serverEntry } = require("./claude-init.cjs");
  const claude = createClaude({ cwd, log: () => {} });
  await claude.hw.init();
  const failClosed = !!claude.hw.plan.failClosed;
  const cli = fileURLToPath(import.meta.url);
  const command = flags.command ? `${shellQuote(process.execPath)} ${shellQuote(cli)}` : undefined;
  const modelTools = (await claude.modelTools()).map((t) => t && t.name).filter((n) => typeof n === "string");
  const setup = await claude.setup({ failClosed, modelTools, ...(command ? { command } : {}) });
  await claude.dispose();
  const changes = [];
  const settingsPath = path.join(cwd, ".claude", "settings.json");
  changes.push(...mergeClaudeSettings(settingsPath, setup.hooks, { server: setup.server, cli }));
  if (!flags.command) {
    changes.push(...mergeMcpJson(path.join(cwd, ".mcp.json"), setup.server, serverEntry(process.execPath, cli)));
    // the hook tools hidden from the model (their hooks still run); hookwise's own tools
    // allowed without a prompt (in -p, Claude Code reads MCP allow rules only from the local file)
    changes.push(...mergePermissions(settingsPath, path.join(".claude", "settings.json"), { deny: setup.permissions.deny }));
    changes.push(...mergePermissions(path.join(cwd, ".claude", "settings.local.json"), path.join(".claude", "settings.local.json"), { allow: setup.permissions.allow }));
  }
  const json = { cwd, failClosed, mode: flags.command ? "command" : "mcp_tool", changes };
  print(flags, json, [...changes.map((c) => `${c.action} ${c.file}: ${c.what}`), failClosed ? "intent governance or enforcement is on: the PreToolUse hook blocks calls when hookwise cannot answer" : "", ].filter(Boolean).join("\n"));
}

function shellQuote(s) {
  return /^[A-Za-z0-9_\/.:@%+=-]+$/.test(s) ? s : `'${s.split("'").join(`'\\''`)}'`;
}

async function main(argv) {
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`hookwise: ${e.message}\n\n${HELP.main}\n`);
    return 2;
  }
  const cmd = parsed._[0];
  if (!cmd || cmd === "help") {
    // Asked for: stdout, exit 0. No command at all is a usage error: stderr, exit 2.
    if (cmd || parsed.flags.help) {
      process.stdout.write(HELP.main + "\n");
      return 0;
    }
    process.stderr.write(HELP.main + "\n");
    return 2;
  }
  if (!commands[cmd]) {
    process.stderr.write(`hookwise: unknown command '${cmd}'\n\n${HELP.main}\n`);
    return 2;
  }
  if (parsed.flags.help) {
    process.stdout.write(HELP[cmd] + "\n");
    return 0;
  }
  if (parsed.flags.vault !== undefined) {
    let st = null;
    try {
      st = fs.statSync(parsed.flags.vault);
    } catch {
      /* reported below */
    }
    if (!st || !st.isDirectory()) {
      process.stderr.write(`hookwise: --vault ${parsed.flags.vault}: ${st ? "not a folder" : "no such folder"}\n`);
      return 2;
    }
  }
  try {
    await commands[cmd](parsed);
    return 0;
  } catch (e) {
    if (e instanceof ExitCode) return e.code;
    if (e instanceof UsageError) {
      process.stderr.write(`hookwise ${cmd}: ${e.message}\n\n${HELP[cmd]}\n`);
      return 2;
    }
    process.stderr.write(`hookwise ${cmd}: ${e && e.stack ? e.stack : e}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

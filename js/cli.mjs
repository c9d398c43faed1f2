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
  trace verify [--anchor HEAD]  check the Agent Trace (.orchestration/trace/): every segment's chain and head
  trace head [--init]           print the trace's head to anchor (a commit message, a CI log)
  trace blame FILE              who wrote each line of FILE: intent, host, model, time (from the trace)
  trace report [--out FILE]     the project as one HTML page: verification, intents, files by intent, timeline
  init [--governance]           scaffold hookwise's configuration in this project (never overwrites);
                                --governance also creates .orchestration/active_intents.yaml;
                                adds hookwise to opencode.json for OpenCode 1.x or 2.x (--opencode 1|2)
                                and sets up every coding agent it finds (below)
  init --claude [--command]     set hookwise up for Claude Code: hooks in .claude/settings.json and
                                the server in .mcp.json (merged into what is there)
  init --codex | --gemini | --copilot | --qwen | --factory | --letta | --auggie
                                set hookwise up for that agent: its hooks and MCP server in its
                                project files (merged into what is there)
  init --pi                     set hookwise up for pi: its extension as a pi package in .pi/settings.json
  init --cline                  set hookwise up for Cline: the plugin .cline/plugins/hookwise.js
  init --kilo                   set hookwise up for Kilo CLI: .kilo/plugin/hookwise.js
  mcp [--host HOST]             the stdio MCP server an agent runs (model tools; Claude Code's hook tools)
  hook [--host HOST] <Event>    a command hook: the payload on stdin, the answer on stdout

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
(opencode, the default; opencode2, openclaw, claude-code, vscode, kilo).`,
  trace: `usage: hookwise trace verify [--anchor HEAD] [--cwd DIR] [--json]
       hookwise trace head [--init] [--cwd DIR] [--json]
       hookwise trace blame FILE [--cwd DIR] [--json]
       hookwise trace report [--out FILE] [--cwd DIR] [--json]

verify checks the Agent Trace (intent governance's records): every segment in
.orchestration/trace/ (one per session and base commit, so that branches merge without a
conflict) and the single-file log of older versions (.orchestration/agent_trace.jsonl): every
line whole and valid, each carrying the hash of the line before, each segment's end against its
head (<segment>.head: record count, size, last line's hash, kept with every append), each record
in its own segment and found once. It names the line and the kind of each problem: edited, removed, inserted or
reordered lines, lines cut from the end, an emptied or deleted log, a byte order mark or a
stray line, a missing or edited head, a missing project folder. Exits 1 when it finds any.

What it cannot see without a key: both files rewritten consistently (the head is computed from
the log alone). To catch that, anchor the head: head prints it as one line for a commit message
or a CI log; verify --anchor '<that line>' later checks that the log still holds that record at
that place.

head --init writes the head for the log as it is now: for a log written before hookwise kept a
head, or after you have looked into a problem verify reported. It refuses a log whose chain
itself is broken.

report writes the project as one self-contained HTML page (default
.orchestration/trace-report.html; --out FILE, or - for stdout): at the top the verdict of
trace verify (red when it fails), then the intents with their scope, status, files and
changes, each changed file with its lines coloured by intent and agent (the record on hover),
a timeline, and enforcement's blocks and advice by SOP. Redacted like everything hookwise
keeps; it runs no script and loads nothing (open it from disk). Exits 1 when the trace does
not verify (the page is written all the same).

blame prints, for every line of FILE as it is now, the record that wrote it: the intent, the
host, the model, the time and the tool (a ~ before the intent: an agent wrote the line and its
text has changed since), or nothing when no record did. It follows the content, not commits:
lines moved by edits above keep their writer, rebases and squashes change nothing. --json gives
each line's state (agent, changed, unattributed), record, session, mutation class and the
decisions taken on the call. It answers when the chain does not verify, and says so; exits 1
when FILE cannot be blamed (outside the project, binary, too large).`,
  metrics: `usage: hookwise metrics [verify] [--cwd DIR] [--json]

Summarises the pre-action enforcement metrics (decisions by kind, lookup time p50/p95, top
SOPs). With verify: checks the file's hash chain (edits, deletions, reordering); exits 1 when
it finds problems.`,
  doctor: `usage: hookwise doctor [--vault DIR] [--json]

Which knowledge source is active and why, how the maenifold CLI was found, configuration
warnings, and a timing of each hook; then each coding agent set up in the project (its hooks
file names hookwise) with one hook round trip run as the agent runs it.`,
  mcp: `usage: hookwise mcp [--host HOST] [--cwd DIR]

The stdio MCP server (newline-delimited JSON-RPC) an agent starts from the project's
configuration, once per agent process: it offers the model hookwise's tools
(select_active_intent while intent governance is on, the knowledge tools). For Claude Code (the
default host) one warm engine also answers every mcp_tool hook (hook_* tools). HOST: codex,
gemini, copilot, qwen, claude-code. Exits when stdin closes or on SIGINT/SIGTERM, killing every
process it started.`,
  hook: `usage: hookwise hook [--host HOST] <Event>

A command hook of a coding agent: reads the hook's JSON payload on stdin and prints the answer
on stdout in that agent's form (exit 0). HOST: claude-code (the default: PreToolUse,
PostToolUse, UserPromptSubmit, PreCompact, SessionStart), codex (the same and PostCompact),
gemini (BeforeTool, AfterTool, BeforeAgent, SessionStart), copilot and qwen (Claude Code's
events). init --<host> writes these entries.`,
  init: `usage: hookwise init [--governance] [--opencode 1|2] [--global] [--cwd DIR] [--json]
       hookwise init --claude [--command] [--global] [--cwd DIR] [--json]
       hookwise init --codex | --gemini | --copilot | --qwen | --factory | --letta | --auggie [--global] [--cwd DIR] [--json]
       hookwise init --pi [--global] [--cwd DIR] [--json]
       hookwise init --cline [--global] [--cwd DIR] [--json]
       hookwise init --kilo [--global] [--cwd DIR] [--json]

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
.mcp.json the hookwise server (no network install). With intent governance or enforcement on,
the PreToolUse hook blocks when hookwise cannot answer ("onFailure": "block"); run it again
after turning either on. --command writes command hooks (hookwise hook <Event>, a process per
event) and no server; opencode.json is left alone.

--codex, --gemini, --copilot, --qwen: the same for that agent: its hooks (every event hookwise
answers) and the hookwise MCP server in its project files: .codex/hooks.json and
.codex/config.toml; .gemini/settings.json; .github/hooks/hookwise.json and .github/mcp.json;
.qwen/settings.json. The trust step the agent needs before it loads them is printed: you take
it. --factory: .factory/settings.json and .factory/mcp.json; --letta: .letta/settings.json (no
MCP server: Letta Code has no project MCP file); --auggie: .augment/settings.json (hooks and
server; Auggie runs hooks only where the Augment account enables them). Without any agent flag,
init sets up every agent it finds in the project (.claude, .codex, .gemini, .github/hooks, .qwen,
.factory, .letta, .augment, .pi, .cline, .kilo) or on PATH (claude, codex, gemini, copilot, qwen,
droid, letta, auggie, pi, cline, kilo).

--kilo: Kilo CLI loads the plugin files in .kilo/plugin/: init writes .kilo/plugin/hookwise.js,
which loads the project's hookwise (--global: this hookwise). Kept when it exists, and not
written when a kilo.json \`plugin\` list names hookwise already.

--pi: adds hookwise's pi extension to the project's .pi/settings.json as a pi package, the
entry \`pi install ./node_modules/hookwise -l\` writes ("../node_modules/hookwise"), merged into
what is there; pi loads it at its next start in the project folder.

--cline: writes Cline's plugin file .cline/plugins/hookwise.js, which loads the project's
hookwise (never overwriting a file there).

What init writes is portable: the project's own hookwise (a hook is a line of shell that finds
node_modules/hookwise/dist/hook.sh, an MCP server node -e with a few lines that find
node_modules/hookwise/dist/cli.mjs, from where the agent starts it: its project folder, a
sub-folder, or a git worktree of the project, whose main checkout holds node_modules), never a
path of this machine; commit the files, and a clone plus npm install works. Where it is not
found, a project that governs or enforces blocks tool calls with a reason saying so. --global
writes the hookwise on PATH instead.`,
};

/** Every host, from the registry (js/hosts.json, generated from src/hosts/). */
const HOSTS = require("./hosts.json").hosts;
/** The agents `init --<flag>` sets up with command hooks (Claude Code has its own `--claude`). */
const AGENT_FLAGS = HOSTS.filter((h) => h.kind === "command-hook" && h.init && h.init !== "claude").map((h) => h.init);
/** Each in-process plugin host's set-up (its init module). */
const PLUGIN_INIT = { pi: (flags) => initPi(flags), cline: (flags) => initClineHere(flags), kilo: (flags) => initKilo(flags) };
/** The plugin hosts whose set-up `doctor` checks with a module of their own (Kilo's and OpenCode 2's: `pluginHostsReport`). */
const PLUGIN_DOCTOR = { pi: (cwd) => require("./pi-init.cjs").piDoctor(cwd), cline: (cwd) => require("./cline-init.cjs").clineDoctor(cwd) };
/**
 * The in-process plugin hosts `init` sets up: the flag, the project files that say the host is
 * used there, its program on PATH (the registry's), and the set-up.
 */
const PLUGIN_HOSTS = HOSTS.filter((h) => h.kind === "plugin" && h.init && PLUGIN_INIT[h.init]).map((h) => ({
  flag: h.init,
  markers: h.markers,
  program: h.program,
  init: PLUGIN_INIT[h.init],
}));
const PLUGIN_FLAGS = PLUGIN_HOSTS.map((h) => h.flag);

class UsageError extends Error {}
class ExitCode extends Error {
  constructor(code) {
    super(`exit ${code}`);
    this.code = code;
  }
}

function parseArgs(argv) {
  const out = { _: [], flags: {} };
  const takesValue = new Set(["vault", "cwd", "project", "tool", "args", "intent", "anchor", "host", "opencode", "out"]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const [k, inline] = a.slice(2).split(/=(.*)/s);
      if (takesValue.has(k)) {
        const v = inline ?? argv[++i];
        if (v === undefined) throw new UsageError(`--${k} needs a value`);
        out.flags[k] = v;
      } else if (["json", "help", "governance", "init", "claude", "command", "global", ...AGENT_FLAGS, ...PLUGIN_FLAGS].includes(k)) out.flags[k] = true;
      else throw new UsageError(`unknown option --${k}`);
    } else out._.push(a);
  }
  return out;
}

async function engineFor(flags, { quiet, options: extra, host, runPrograms = true } = {}) {
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
    runPrograms,
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
    const { engine, warnings } = await engineFor(flags, { quiet: true, runPrograms: false });
    const r = await engine.metrics({ verify: sub === "verify" });
    warnings.forEach((w) => process.stderr.write(w + "\n"));
    print(flags, r, r.text);
    if (!r.ok) throw new ExitCode(1);
  },

  async doctor({ flags }) {
    const { engine, warnings, initMs } = await engineFor(flags, { quiet: true, runPrograms: false });
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
    const cwd = path.resolve(flags.cwd || process.cwd());
    // the plugin hosts that call setup(): Kilo CLI's plugin file, OpenCode 2's `plugins`
    const { pluginHostsReport } = await import("./kilo-config.mjs");
    // no `opencode --version`: doctor runs no program (issue 38)
    const plugins = pluginHostsReport(cwd, require("./failsafe.cjs").configured(cwd, {}), { opencodeVersion: () => null });
    // a damaged install cannot list the command-hook agents: said, not thrown
    const hooked = await agentsSetUp(cwd).catch((e) => (warnings.push(`error: the command-hook agents could not be checked: ${e && e.message}`), []));
    const agents = [...hooked, ...plugins.agents];
    // the plugin hosts with a doctor of their own, in the registry's order
    for (const h of HOSTS) {
      const r = PLUGIN_DOCTOR[h.id] && (await PLUGIN_DOCTOR[h.id](cwd));
      if (r) agents.push(r);
    }
    // OpenTelemetry export: the core says whether it is on (its hook.event `telemetry`: the policy core's)
    const otel = require("./otel.cjs").doctorReport(process.env, await engine._hw.run({ hook: "hook.event", event: "telemetry", input: {} }).catch(() => null));
    const json = { ...report, timingsMs: timings, agents, telemetry: otel.json, warnings: [...(report.warnings || []), ...warnings, ...plugins.warnings] };
    const d = report.discovery || {};
    const lines = [
      `knowledge source: ${report.source || "none"}`,
      `maenifold CLI: ${d.path ? `${d.path} (${d.source})` : "not found"}${d.error ? ` — ${d.error}` : ""}`,
      `project: ${report.project || "(none)"}`,
      ...(report.vault ? [`vault: ${JSON.stringify(report.vault)}`] : []),
      `timings (ms): ${Object.entries(timings).map(([k, v]) => `${k} ${v}`).join("; ")}`,
      ...otel.lines,
      ...(agents.length ? agents.map((a) => a.line || `agent ${a.host}: set up in ${a.file}; ${a.event} round trip ${a.ok ? `${a.ms} ms` : `FAILED after ${a.ms} ms: ${a.error}`}${a.note ? ` (${a.note})` : ""}`) : ["agents: none set up in this project (hookwise init --<agent>)"]),
      ...json.warnings.map((w) => `warning: ${w}`),
    ];
    print(flags, json, lines.join("\n"));
  },

  async trace({ _, flags }) {
    const sub = _[1];
    if (!["verify", "head", "blame", "report"].includes(sub)) throw new UsageError(sub ? `unknown trace subcommand '${sub}'` : "trace needs a subcommand: verify, head, blame or report");
    if (sub === "blame" && !_[2]) throw new UsageError("trace blame needs the file, e.g. hookwise trace blame src/a.ts");
    if (flags.init && sub !== "head") throw new UsageError("--init goes with trace head");
    if (flags.anchor !== undefined && sub !== "verify") throw new UsageError("--anchor goes with trace verify");
    if (flags.out !== undefined && sub !== "report") throw new UsageError("--out goes with trace report");
    // the trace commands use no knowledge source (none is looked for, none is talked about) and
    // run no program (issue 38)
    const { engine, warnings } = await engineFor(flags, { quiet: true, runPrograms: false, options: { knowledge: "off" } });
    if (sub === "report") return traceReport(engine, flags, warnings);
    const problems = (v) => (v.problems || []).map((p) => `${p.segment ? `${p.segment} ` : ""}${p.line ? `line ${p.line}: ` : ""}${p.kind}: ${p.message}`);
    if (sub === "blame") {
      const r = await engine.blame(path.resolve(process.cwd(), _[2]), { table: !flags.json });
      warnings.forEach((w) => process.stderr.write(w + "\n"));
      print(flags, r, r.ok ? r.table || "" : `error: ${r.error}`);
      if (!r.ok) throw new ExitCode(1);
      return;
    }
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
    lines.push(r.text);
    print(flags, r, lines.join("\n"));
    if (!r.ok) throw new ExitCode(1);
  },

  async mcp({ flags }) {
    const { serve } = require("./mcp-server.cjs");
    const cwd = flags.cwd ? path.resolve(flags.cwd) : undefined;
    const { closed } = serve({ cwd, host: flags.host, version: packageVersion() });
    await closed;
    // a watcher or a timer left behind must not keep a server Claude Code has left
    process.exit(0);
  },

  async hook({ _, flags }) {
    const event = _[1];
    if (!event) throw new UsageError("hook needs the event name, e.g. hookwise hook PreToolUse");
    const DIALECTS = require("./dialects.json");
    const host = flags.host === undefined ? "claude-code" : flags.host;
    if (!Object.prototype.hasOwnProperty.call(DIALECTS, host)) throw new UsageError(`unknown --host ${JSON.stringify(host)} (${Object.keys(DIALECTS).join(", ")})`);
    const hook = require("./hook.cjs");
    const r = await hook.answer({ event, host, cwd: flags.cwd ? path.resolve(flags.cwd) : undefined, raw: await hook.readInput() });
    if (r.err) process.stderr.write(r.err);
    if (r.code) throw new ExitCode(r.code);
    process.stdout.write(r.out);
  },

  async init({ flags }) {
    const asked = AGENT_FLAGS.filter((f) => flags[f]);
    if (flags.claude || asked.length || PLUGIN_FLAGS.some((f) => flags[f])) {
      const out = [];
      if (flags.claude) out.push(await initClaude(flags));
      for (const f of asked) out.push(await initAgent(f, flags));
      for (const h of PLUGIN_HOSTS) if (flags[h.flag]) out.push(await h.init(flags));
      return report(flags, out);
    }
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
    // every coding agent found in the project or on PATH, set up as init --<agent> would
    const agents = [];
    for (const a of await agentsFound(cwd)) {
      try {
        agents.push(a.flag === "claude" ? await initClaude(flags) : await initAgent(a.flag, flags));
      } catch (e) {
        agents.push({ host: a.host, error: e.message, changes: [], lines: [`failed ${a.flag}: ${e.message}`] });
      }
    }
    for (const h of PLUGIN_HOSTS) {
      if (h.markers.some((m) => fs.existsSync(path.join(cwd, m))) || onPath(h.program)) agents.push(await h.init(flags));
    }
    const lines = [...r.created.map((f) => `created ${f}`), ...r.kept.map((f) => `kept ${f} (it exists)`), ...r.failed.map((f) => `failed ${f}`), ...oc, ...agents.flatMap((a) => a.lines)];
    print(flags, { ...r, opencode, agents: agents.map(({ lines, ...a }) => a) }, lines.join("\n") || "nothing to do");
    if (r.failed.length) throw new Error(`could not create: ${r.failed.join("; ")} (in ${cwd})`);
    if (opencode.error) throw new Error(`could not add hookwise to opencode.json: ${opencode.error} (in ${cwd})`);
    const failed = agents.filter((a) => a.error);
    if (failed.length) throw new Error(failed.map((a) => `${a.host}: ${a.error}`).join("; "));
  },
};

/** `hookwise trace report`: the page the core made, written where asked. */
async function traceReport(engine, flags, warnings) {
  const r = await engine.traceReport();
  warnings.forEach((w) => process.stderr.write(w + "\n"));
  if (!r.html) {
    process.stderr.write(`hookwise trace: no report: ${(r.verify && r.verify.error) || "hookwise could not make it"}\n`);
    throw new ExitCode(1);
  }
  const cwd = path.resolve(flags.cwd || process.cwd());
  if (flags.out === "-") process.stdout.write(r.html);
  else {
    const out = path.resolve(flags.out !== undefined ? flags.out : path.join(cwd, ".orchestration", "trace-report.html"));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, r.html);
    const { html, ...rest } = r;
    print(flags, { ...rest, out, bytes: Buffer.byteLength(html) }, `wrote ${out} (${Buffer.byteLength(html)} bytes, ${r.records} record(s), ${r.files} file(s))\n${r.text}`);
  }
  if (!r.ok) throw new ExitCode(1);
}

/** The agents the core knows (`setup.host`), each with the folder and program that say it is used. */
async function agentHosts(cwd) {
  const { createClaude } = require("./claude.cjs");
  const h = createClaude({ cwd, log: () => {} });
  try {
    return (await h.hostSetup({})).hosts;
  } finally {
    await h.dispose();
  }
}

/** The program is on PATH. */
const onPath = (p) => (process.env.PATH || "").split(path.delimiter).some((d) => d && isExecutable(path.join(d, p)));

/** `hookwise init --cline`: the plugin file (js/cline-init.cjs). */
function initClineHere(flags) {
  const { initCline } = require("./cline-init.cjs");
  return initCline(path.resolve(flags.cwd || process.cwd()), { global: !!flags.global, distDir: path.dirname(fileURLToPath(import.meta.url)) });
}

/** The agents used in the project (their folder) or installed (their program on PATH). */
async function agentsFound(cwd) {
  return (await agentHosts(cwd)).filter((a) => fs.existsSync(path.join(cwd, a.marker)) || onPath(a.program));
}

function isExecutable(f) {
  try {
    fs.accessSync(f, fs.constants.X_OK);
    return fs.statSync(f).isFile();
  } catch {
    return false;
  }
}

/**
 * The agents set up in the project (their hooks file names a hookwise hook), each with one hook
 * round trip run as the agent runs it: its prompt event's command through the shell, in the
 * project, with the agent's project-folder variable, a small payload on stdin. An `mcp_tool`
 * set-up (Claude Code's default) is timed through the command form.
 */
async function agentsSetUp(cwd) {
  // Runs nothing the project names (issue 38: a cloned repository's hook entry is its own
  // program): the entry is shown, and the round trip is this hookwise answering the agent's
  // event in this process, as the entry would, running no program either.
  const { isOurs } = require("./claude-init.cjs");
  const { runHook } = require("./claude.cjs");
  const out = [];
  for (const a of await agentHosts(cwd)) {
    let hooks;
    let ours;
    if (a.hooksForm && a.hooksForm !== "json") {
      // Kimi Code (the user's own config.toml), Mistral Vibe (.vibe/hooks.toml)
      const t = require("./hooks-toml.cjs");
      a.hooksFile = a.userHome ? t.userFile(a.userHome, a.hooksFile) : a.hooksFile;
      ours = t.ourTomlHook(path.resolve(cwd, a.hooksFile), a.promptEvent);
      if (!ours) continue;
    } else {
      try {
        hooks = JSON.parse(fs.readFileSync(path.join(cwd, a.hooksFile), "utf8")).hooks;
      } catch {
        continue;
      }
      const entries = hooks && Array.isArray(hooks[a.promptEvent]) ? hooks[a.promptEvent] : [];
      ours = entries.flatMap((e) => (e && Array.isArray(e.hooks) ? e.hooks : [])).find((h) => isOurs(h, "hookwise"));
    }
    if (!ours) continue;
    const command = typeof ours.command === "string" ? ours.command : "";
    const note = [ours.type !== "command" ? "mcp_tool hooks: timed through the command form" : "the entry is shown, not run: doctor runs no program", a.doctor].filter(Boolean).join("; ");
    const payload = JSON.stringify({ hook_event_name: a.promptEvent, session_id: "hookwise-doctor", cwd, prompt: "hookwise doctor" });
    const t0 = performance.now();
    let error = "";
    try {
      const r = await runHook({ host: a.host, event: a.promptEvent, raw: { text: payload, over: false }, cwd, runPrograms: false, log: () => {}, exportTelemetry: false });
      if (!r.ok) error = String(r.text || "no answer");
      else JSON.parse(r.text || "{}");
    } catch (e) {
      error = `the answer is not JSON: ${String((e && e.message) || e).slice(0, 120)}`;
    }
    const ms = Math.round((performance.now() - t0) * 10) / 10;
    out.push({ host: a.host, file: a.hooksFile, event: a.promptEvent, command, ms, ok: !error, ...(error ? { error } : {}), note });
  }
  return out;
}

/** Print what one or more `init --<agent>` did; a failure of any is an error (after the report). */
function report(flags, results) {
  print(flags, results.length === 1 ? strip(results[0]) : { agents: results.map(strip) }, results.flatMap((r) => r.lines).join("\n"));
  const failed = results.filter((r) => r.error);
  if (failed.length) throw new Error(failed.map((r) => r.error).join("; "));
}

const strip = ({ lines, ...r }) => r;

/** A note when the project has no hookwise of its own for the portable entries to run. */
function installNote(cwd, flags) {
  if (flags.global || fs.existsSync(path.join(cwd, "node_modules", "hookwise", "dist", "cli.mjs"))) return [];
  return ["note: the entries run the project's own hookwise (node_modules/hookwise), which is not installed here: run npm install --save-dev hookwise (or init again with --global to run the hookwise on PATH)"];
}

/** `hookwise init --<agent>` for a command-hook agent: its hooks and MCP server in its project files. */
async function initAgent(flag, flags) {
  const cwd = path.resolve(flags.cwd || process.cwd());
  const { createClaude } = require("./claude.cjs");
  const { mergeHooks, mergeMcpServers, mergeTomlTable } = require("./claude-init.cjs");
  const hooks = createClaude({ host: flag, cwd, log: () => {} });
  let s;
  let failClosed = false;
  try {
    await hooks.hw.init();
    failClosed = !!(hooks.hw.plan && hooks.hw.plan.failClosed);
    s = await hooks.hostSetup({ host: flag, global: !!flags.global, failClosed });
  } finally {
    await hooks.dispose();
  }
  const changes = [];
  const errors = [];
  const step = (f) => {
    try {
      changes.push(...f());
    } catch (e) {
      errors.push(e.message);
    }
  };
  // Kimi Code and Mistral Vibe: TOML hook tables (Kimi's in the user's own config.toml)
  const toml = s.hooksForm && s.hooksForm !== "json" ? require("./hooks-toml.cjs") : null;
  step(() => (toml ? toml.mergeTomlHooks(cwd, s) : mergeHooks(path.join(cwd, s.hooksFile), s.hooksFile, s.hooks, { server: s.server })));
  step(() =>
    s.mcp.format === "none"
      ? []
      : s.mcp.format === "toml-array"
        ? require("./hooks-toml.cjs").mergeTomlServer(cwd, s)
        : s.mcp.format === "toml"
          ? mergeTomlTable(path.join(cwd, s.mcpFile), s.mcpFile, s.mcp.table, s.mcp.text)
          : mergeMcpServers(path.join(cwd, s.mcpFile), s.mcpFile, s.server, s.mcp.entry),
  );
  const lines = [...changes.map((c) => `${c.action} ${c.file}: ${c.what}`), ...errors.map((e) => `failed: ${e}`), ...installNote(cwd, flags), `${flag}: ${s.trust}`];
  return { host: s.host, cwd, failClosed, changes, trust: s.trust, ...(errors.length ? { error: errors.join("; ") } : {}), lines };
}

function packageVersion() {
  try {
    return JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
  } catch {
    return "0.0.0";
  }
}

/** `hookwise init --pi`: hookwise's extension as a pi package in .pi/settings.json. */
function initPi(flags) {
  return require("./pi-init.cjs").initPi({ cwd: path.resolve(flags.cwd || process.cwd()), global: !!flags.global });
}

/** `hookwise init --kilo`: .kilo/plugin/hookwise.js, which loads the project's hookwise. */
async function initKilo(flags) {
  const { initKilo } = await import("./kilo-config.mjs");
  return initKilo(path.resolve(flags.cwd || process.cwd()), { global: !!flags.global });
}

/** `hookwise init --claude`: hooks in .claude/settings.json, the server in .mcp.json. */
async function initClaude(flags) {
  const cwd = path.resolve(flags.cwd || process.cwd());
  const { createClaude } = require("./claude.cjs");
  const { mergeClaudeSettings, mergeMcpJson, mergePermissions } = require("./claude-init.cjs");
  const claude = createClaude({ cwd, log: () => {} });
  await claude.hw.init();
  const failClosed = !!claude.hw.plan.failClosed;
  const modelTools = (await claude.modelTools()).map((t) => t && t.name).filter((n) => typeof n === "string");
  // portable entries: the project's own hookwise (or, with --global, the one on PATH)
  const setup = await claude.setup({ failClosed, modelTools, commandHooks: !!flags.command, global: !!flags.global });
  await claude.dispose();
  const changes = [];
  const settingsPath = path.join(cwd, ".claude", "settings.json");
  changes.push(...mergeClaudeSettings(settingsPath, setup.hooks, { server: setup.server }));
  if (!flags.command) {
    changes.push(...mergeMcpJson(path.join(cwd, ".mcp.json"), setup.server, setup.mcpServer));
    // the hook tools hidden from the model (their hooks still run); hookwise's own tools
    // allowed without a prompt (in -p, Claude Code reads MCP allow rules only from the local file)
    changes.push(...mergePermissions(settingsPath, path.join(".claude", "settings.json"), { deny: setup.permissions.deny }));
    changes.push(...mergePermissions(path.join(cwd, ".claude", "settings.local.json"), path.join(".claude", "settings.local.json"), { allow: setup.permissions.allow }));
  }
  const lines = [...changes.map((c) => `${c.action} ${c.file}: ${c.what}`), failClosed ? "intent governance or enforcement is on: the PreToolUse hook blocks calls when hookwise cannot answer" : "", ...installNote(cwd, flags)].filter(Boolean);
  return { host: "claude-code", cwd, failClosed, mode: flags.command ? "command" : "mcp_tool", changes, lines };
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

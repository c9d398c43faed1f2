// Kilo CLI (@kilocode/cli, pinned by scripts/setup-clis.sh) as the real-host suite runs it:
// headless (`kilo run --format json`), offline, in a throwaway project and home, against the one
// scripted model of ../../e2e-shared/model.mjs (OpenAI chat completions), with hookwise packed,
// installed into the project and set up by `hookwise init --kilo` — the user's path. The recipe
// follows what was checked against Kilo 7.7.7 (../../../docs/kilo.md): the provider in the
// user's kilo.json, Kilo's background services off by its own KILO_* variables.
//
// const gate = kiloGate();                              // { bin, skip } | { bin, error } | { bin }
// const sb = kiloProject({ files, git });               // packed hookwise installed, `init --kilo` run
// const r = await sb.run({ prompt, script, env?, timeoutMs? });
//   r.code, r.stdout, r.stderr, r.model, r.procs, r.leftovers, r.hookwiseLog() (hookwise's lines
//   in Kilo's log), r.describe()
import fs from "node:fs";
import path from "node:path";
import { startModel } from "../../e2e-shared/model.mjs";
import { runWatched } from "../../e2e-shared/procs.mjs";
import { makeSandbox } from "../../e2e-shared/sandbox.mjs";
import { pathWithoutMaenifold } from "../../e2e-shared/env.mjs";
import { cliBin, tarball } from "../../e2e-shared/agents.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../../e2e-shared/trace-files.mjs";

export const MODEL = "mock/mock-1";

/** `{ bin, skip, error }`: skip without Kilo, except under CI where its absence is an error. */
export function kiloGate() {
  const bin = cliBin("kilo");
  if (bin && fs.existsSync(bin)) return { bin };
  const msg = "no Kilo CLI (run scripts/setup-clis.sh kilo, or set KILO_BIN)";
  return process.env.CI ? { bin, error: msg } : { bin, skip: msg };
}

/** Kilo's own switches for a headless, offline run (each named in Kilo 7.7.7's binary). */
const KILO_ENV = {
  KILO_DISABLE_AUTOUPDATE: "1",
  KILO_DISABLE_MODELS_FETCH: "1",
  KILO_DISABLE_SHARE: "1",
  KILO_DISABLE_LSP_DOWNLOAD: "1",
  KILO_DISABLE_DEFAULT_PLUGINS: "1",
  KILO_DISABLE_CLAUDE_CODE: "1",
  KILO_DISABLE_EXTERNAL_SKILLS: "1",
  KILO_DISABLE_SESSION_INGEST: "1",
  KILO_DISABLE_CODEBASE_INDEXING: "1",
  KILO_TELEMETRY_LEVEL: "off",
  KILO_NO_DAEMON: "1",
};

/** The user's kilo.json: the scripted model as the only provider, every tool allowed. */
function userConfig(model) {
  return {
    autoupdate: false,
    share: "disabled",
    model: MODEL,
    small_model: MODEL,
    enabled_providers: ["mock"],
    permission: { "*": "allow" },
    provider: {
      mock: {
        npm: "@ai-sdk/openai-compatible",
        name: "mock",
        options: { baseURL: model.baseURL, apiKey: "x" },
        models: { "mock-1": { name: "mock-1", tool_call: true, limit: { context: 200000, output: 4096 } } },
      },
    },
  };
}

/** A throwaway project with `files` (in git when `git`), hookwise installed and `init --kilo` run. */
export function kiloProject({ files = {}, git = true, env = {} } = {}) {
  const sb = makeSandbox({ files, git, name: "hookwise-e2e-kilo-", env: { PATH: pathWithoutMaenifold(), ...env } });
  sb.traces = () => {
    return traceRecordsOf(sb.dir);
  };
  sb.installHookwise(tarball(), { initArgs: ["--kilo"] });
  sb.run = (opts) => runKilo(sb, opts);
  return sb;
}

/** Kilo's log lines from hookwise (`client.app.log`, service hookwise), as printed by --print-logs. */
function hookwiseLines(stderr) {
  return stderr.split("\n").filter((l) => /service=hookwise\b/.test(l));
}

/** One headless run of Kilo in the sandbox, against its own scripted model. */
async function runKilo(sb, { prompt, script = [], env = {}, timeoutMs = 300_000, modelOpts = {}, logLevel = "INFO" }) {
  const bin = kiloGate().bin;
  const model = await startModel(script, modelOpts);
  const cfgDir = path.join(sb.env.XDG_CONFIG_HOME, "kilo");
  fs.mkdirSync(cfgDir, { recursive: true });
  fs.writeFileSync(path.join(cfgDir, "kilo.json"), JSON.stringify(userConfig(model), null, 2) + "\n");
  const args = ["run", "--model", MODEL, "--format", "json", "--print-logs", "--log-level", logLevel, prompt];
  const run = await runWatched(sb.root, bin, args, { cwd: sb.dir, env: { ...sb.env, ...KILO_ENV, ...env }, timeoutMs });
  await model.close();
  const r = {
    ...run,
    model,
    hookwiseLog: () => hookwiseLines(run.stderr),
    /** The tool results the model read, in call order (the last main request holds them all). */
    results: () => model.mainRequests().at(-1)?.toolResults().map((t) => t.content) ?? [],
    describe() {
      const reqs = model
        .requests()
        .map((q) => `  #${q.seq} ${q.kind}: tools ${q.tools.length}; results ${JSON.stringify(q.toolResults().map((t) => t.content.slice(0, 300)))}; last user ${JSON.stringify(q.lastUserText().slice(-200))}`)
        .join("\n");
      const errs = run.stderr.split("\n").filter((l) => /ERROR|WARN|hookwise/.test(l)).slice(-30).join("\n");
      return `kilo exit ${run.code}${run.signal ? ` (${run.signal})` : ""}${run.timedOut ? " TIMED OUT" : ""} in ${run.durationMs} ms\nstdout: ${run.stdout.slice(-1200)}\nstderr (errors, warnings, hookwise):\n${errs}\nrequests:\n${reqs}\nmodel errors: ${JSON.stringify(model.errors())}\nleft: ${JSON.stringify(run.leftovers.map((p) => p.cmdline.join(" ").slice(0, 140)))}`;
    },
  };
  return r;
}

/** A call of Kilo's `bash` tool as its model makes it. */
export const bash = (command) => ({ tool: "bash", args: { command, description: "run it" } });
/** A call of Kilo's `write` tool (an absolute path, as its description asks). */
export const write = (sb, rel, content) => ({ tool: "write", args: { filePath: sb.abs(rel), content } });

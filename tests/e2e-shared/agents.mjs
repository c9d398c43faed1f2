// The command-hook agent CLIs (Codex, Gemini CLI, Copilot CLI, Qwen Code) as the real-host suites
// run them: each pinned CLI from scripts/setup-clis.sh, headless, offline, in a throwaway project
// and home, against the one scripted model of ./model.mjs, with hookwise packed, installed into the
// project and set up by `hookwise init --<host>` — the user's path. The recipes follow what was
// checked against each CLI offline with a probe hook (what it sends, what it honours).
//
// const gate = cliGate("codex");                     // { bin, skip } | { bin, error } (under CI) | { bin }
// const sb = agentProject("codex", { files, git });  // packed hookwise installed, `init --codex` run
// const r = await sb.run({ prompt, script, modelName?, env?, timeoutMs? });
//   r.code, r.stdout, r.stderr, r.model (the scripted model: requests(), mainRequests()),
//   r.result(n) (the text of the n-th tool result the model read), r.procs, r.leftovers,
//   r.hookwiseProcs(), r.describe()
// HOSTS[host]: shell(cmd), write(rel, content, { exists, old }, sb) → a step; mcp(tool, args) →
// the steps (Codex searches first) — each a call as this host's model makes it.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startModel } from "./model.mjs";
import { isHookwise, runWatched } from "./procs.mjs";
import { makeSandbox } from "./sandbox.mjs";
import { pathWithoutMaenifold } from "./env.mjs";
import { packHookwise } from "../e2e/lib/pack.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "./trace-files.mjs";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const toml = (s) => JSON.stringify(s);
const writeJson = (file, value) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
};

/** How each CLI runs offline. `model` is the scripted model, `o` the run's options. */
export const HOSTS = {
  codex: {
    label: "Codex",
    defaultModel: "mock-1",
    user(sb, model, o) {
      const codexHome = path.join(sb.home, ".codex");
      fs.mkdirSync(codexHome, { recursive: true });
      // The user's own config: the provider, no approvals, and the project trusted (a user step).
      fs.writeFileSync(
        path.join(codexHome, "config.toml"),
        `model = ${toml(o.modelName)}\nmodel_provider = "mock"\napproval_policy = "never"\nsandbox_mode = "danger-full-access"\n` +
          `[model_providers.mock]\nname = "mock"\nbase_url = ${toml(model.baseURL)}\nwire_api = "responses"\nenv_key = "MOCK_API_KEY"\n` +
          `${o.codexConfig ?? ""}\n[projects.${toml(sb.dir)}]\ntrust_level = "trusted"\n` +
          (o.cwd && o.cwd !== sb.dir ? `[projects.${toml(o.cwd)}]\ntrust_level = "trusted"\n` : ""),
      );
      return { CODEX_HOME: codexHome, MOCK_API_KEY: "x" };
    },
    // Hook trust is a user step too (`codex` asks once per hook); the flag stands for it.
    argv: (bin, prompt) => [bin, ["exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", prompt]],
    shell: (command) => ({ tool: "exec_command", args: { cmd: command } }),
    // apply_patch is offered to gpt-5.5 (not to mock-1); its paths are relative to the project
    writeModel: "gpt-5.5",
    write: (rel, content, { exists = false, old = "" } = {}) => ({
      custom: "apply_patch",
      input: exists
        ? `*** Begin Patch\n*** Update File: ${rel}\n@@\n${old.split("\n").filter(Boolean).map((l) => `-${l}`).join("\n")}\n${content.split("\n").filter(Boolean).map((l) => `+${l}`).join("\n")}\n*** End Patch\n`
        : `*** Begin Patch\n*** Add File: ${rel}\n${content.split("\n").filter(Boolean).map((l) => `+${l}`).join("\n")}\n*** End Patch\n`,
    }),
    // MCP tools sit behind tool_search: the model searches, then calls the tool in its namespace
    // auto-compaction past a token limit the user's config sets low
    compact: { usage: 250000, codexConfig: "model_auto_compact_token_limit = 2000\nmodel_context_window = 8000" },
    mcp: (tool, args) => [
      { item: { type: "tool_search_call", execution: "client", call_id: `search_${tool}`, arguments: { query: tool } } },
      { item: { type: "function_call", namespace: "mcp__hookwise", name: tool, call_id: `call_${tool}`, arguments: JSON.stringify(args) } },
    ],
  },
  gemini: {
    label: "Gemini CLI",
    defaultModel: "gemini-2.5-flash",
    user(sb, model, o) {
      writeJson(path.join(sb.home, ".gemini", "settings.json"), {
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        telemetry: { enabled: false },
        ...(o.userSettings ?? {}),
      });
      // GEMINI_CLI_TRUST_WORKSPACE: the user's "trust this folder" answer.
      return { GEMINI_API_KEY: "x", GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_CLI_TRUST_WORKSPACE: "true", CI: "1" };
    },
    argv: (bin, prompt, o) => [process.execPath, [bin, "-p", prompt, "-m", o.modelName, "--output-format", "json", "--approval-mode", "yolo"]],
    shell: (command) => ({ tool: "run_shell_command", args: { command, description: "run it" } }),
    write: (rel, content, _o, sb) => ({ tool: "write_file", args: { file_path: sb.abs(rel), content } }),
    mcp: (tool, args) => [{ tool: `mcp_hookwise_${tool}`, args }],
  },
  copilot: {
    label: "Copilot CLI",
    defaultModel: "mock-1",
    user(sb, model, o) {
      // COPILOT_ALLOW_ALL=true: the user's folder trust (and tool approval) for this run.
      return {
        COPILOT_OFFLINE: "true",
        COPILOT_PROVIDER_BASE_URL: model.baseURL,
        COPILOT_PROVIDER_TYPE: "openai",
        COPILOT_PROVIDER_API_KEY: "x",
        COPILOT_MODEL: o.modelName,
        COPILOT_ALLOW_ALL: "true",
        // the CLI unpacks itself (235 MB) into its cache on first run: share one across sandboxes
        XDG_CACHE_HOME: path.join(os.homedir(), ".cache", "hookwise-clis", "copilot-xdg-cache"),
      };
    },
    argv: (bin, prompt) => [bin, ["-p", prompt, "--allow-all", "--no-ask-user", "--disable-builtin-mcps", "--output-format", "json"]],
    shell: (command) => ({ tool: "bash", args: { command, description: "run it", mode: "sync", initial_wait: 30 } }),
    write: (rel, content, { exists = false, old = "" } = {}, sb) =>
      exists ? { tool: "edit", args: { path: sb.abs(rel), old_str: old, new_str: content } } : { tool: "create", args: { path: sb.abs(rel), file_text: content } },
    mcp: (tool, args) => [{ tool: `hookwise-${tool}`, args }],
    // auto-compaction near the prompt limit the provider's env sets
    compact: { usage: 38000, env: { COPILOT_PROVIDER_MAX_PROMPT_TOKENS: "40000" } },
  },
  qwen: {
    label: "Qwen Code",
    defaultModel: "mock-1",
    user(sb, model, o) {
      // folderTrust off: the user's trust of this folder.
      writeJson(path.join(sb.home, ".qwen", "settings.json"), {
        security: { auth: { selectedType: "openai" }, folderTrust: { enabled: false } },
        privacy: { usageStatisticsEnabled: false },
        general: { enableAutoUpdate: false, disableAutoUpdate: true },
        telemetry: { enabled: false },
        ...(o.userSettings ?? {}),
      });
      return { OPENAI_API_KEY: "x", OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: o.modelName, CI: "1" };
    },
    argv: (bin, prompt) => [process.execPath, [bin, "-p", prompt, "--yolo", "--output-format", "json"]],
    shell: (command) => ({ tool: "run_shell_command", args: { command, description: "run it", is_background: false } }),
    write: (rel, content, _o, sb) => ({ tool: "write_file", args: { file_path: sb.abs(rel), content } }),
    mcp: (tool, args) => [{ tool: `mcp__hookwise__${tool}`, args }],
    // auto-compaction past the fraction of the window the user's settings set
    compact: { usage: 40000, userSettings: { context: { autoCompactThreshold: 0.1 } } },
  },
  // Kimi Code (tests/e2e-kimi): hooks only in the user's ~/.kimi-code/config.toml (init --kimi
  // writes them there: HOME is the sandbox's); the model from KIMI_MODEL_* (chat completions);
  // Node >= 22.19 (scripts/setup-clis.sh node22). `kimi -p` refuses --auto: its -p runs tools.
  kimi: {
    label: "Kimi Code",
    defaultModel: "mock-1",
    user(sb, model, o) {
      // the user's "trust this folder" answer (Kimi's workspace-trust store): the project's
      // .kimi-code/mcp.json loads only in a trusted folder
      trustKimiFolder(path.join(sb.home, ".kimi-code"), o.cwd);
      return { KIMI_MODEL_NAME: o.modelName, KIMI_MODEL_API_KEY: "x", KIMI_MODEL_PROVIDER_TYPE: "openai", KIMI_MODEL_BASE_URL: model.baseURL, KIMI_CODE_NO_AUTO_UPDATE: "1" };
    },
    argv: (bin, prompt) => [cliBin("node22"), [bin, "-p", prompt, "--output-format", "stream-json"]],
    shell: (command) => ({ tool: "Bash", args: { command } }),
    write: (rel, content, { exists = false, old = "" } = {}, sb) =>
      exists ? { tool: "Edit", args: { path: sb.abs(rel), old_string: old, new_string: content } } : { tool: "Write", args: { path: sb.abs(rel), content } },
    mcp: (tool, args) => [{ tool: `mcp__hookwise__${tool}`, args }],
  },
  // Mistral Vibe (tests/e2e-vibe): the model from $VIBE_HOME/config.toml ([[providers]] backend
  // "generic", chat completions); --trust is the user's trust of the folder (-p never asks), without
  // which the project's .vibe/hooks.toml is not loaded.
  vibe: {
    label: "Mistral Vibe",
    defaultModel: "mock-1",
    user(sb, model, o) {
      const vh = path.join(sb.home, ".vibe");
      fs.mkdirSync(vh, { recursive: true });
      fs.writeFileSync(
        path.join(vh, "config.toml"),
        `active_model = "mock"\n\n[[providers]]\nname = "mock"\napi_base = ${toml(model.baseURL)}\napi_key_env_var = "MOCK_API_KEY"\nbackend = "generic"\n\n` +
          `[[models]]\nname = ${toml(o.modelName)}\nprovider = "mock"\nalias = "mock"\n`,
      );
      return { VIBE_HOME: vh, MOCK_API_KEY: "x", PYTHONUNBUFFERED: "1" };
    },
    argv: (bin, prompt) => [bin, ["-p", prompt, "--auto-approve", "--trust", "--output", "json"]],
    shell: (command) => ({ tool: "bash", args: { command } }),
    write: (rel, content, { exists = false, old = "" } = {}, sb) =>
      exists ? { tool: "edit", args: { file_path: sb.abs(rel), old_string: old, new_string: content } } : { tool: "write_file", args: { path: sb.abs(rel), content } },
    // Vibe 3's model calls MCP tools from the TypeScript it runs (each call hooked as mcp_hookwise.<tool>)
    mcp: (tool, args) => [{ tool: "run_typescript", args: { code: `async function main() { return await tools.mcp_hookwise.${tool}(${JSON.stringify(args)}); }` } }],
  },
  // OpenHands (no suite yet: not verified in the real CLI, docs/hosts/openhands.md): the model
  // from LLM_* with --override-with-envs (LiteLLM, chat
  // completions); MCP servers only in the user's ~/.openhands/mcp.json: the user adds hookwise's
  // there (docs/hosts/openhands.md), its tools keep their own names.
  openhands: {
    label: "OpenHands",
    defaultModel: "mock-1",
    user(sb, model, o) {
      writeJson(path.join(sb.home, ".openhands", "mcp.json"), {
        mcpServers: { hookwise: { command: path.join(sb.dir, "node_modules", ".bin", "hookwise"), args: ["mcp", "--host", "openhands"] } },
      });
      return { LLM_MODEL: `openai/${o.modelName}`, LLM_API_KEY: "x", LLM_BASE_URL: model.baseURL, LITELLM_LOCAL_MODEL_COST_MAP: "True", OPENHANDS_SUPPRESS_BANNER: "1", PYTHONUNBUFFERED: "1" };
    },
    argv: (bin, prompt) => [bin, ["--headless", "--json", "--override-with-envs", "-t", prompt]],
    shell: (command) => ({ tool: "terminal", args: { command, security_risk: "LOW" } }),
    write: (rel, content, { exists = false, old = "" } = {}, sb) =>
      exists
        ? { tool: "file_editor", args: { command: "str_replace", path: sb.abs(rel), old_str: old, new_str: content, security_risk: "LOW" } }
        : { tool: "file_editor", args: { command: "create", path: sb.abs(rel), file_text: content, security_risk: "LOW" } },
    mcp: (tool, args) => [{ tool, args }],
  },
  // Factory droid: a BYOK model in the user's ~/.factory/settings.json (no Factory login), run
  // as `droid exec` with its permission prompts off (the user's choice for a headless run).
  factory: {
    label: "Factory droid",
    // droid's own name of the BYOK model (`custom:<displayName>-<index>`): what its log and the
    // record name
    defaultModel: "custom:Mock-0",
    user(sb, model, o) {
      writeJson(path.join(sb.home, ".factory", "settings.json"), {
        customModels: [{ model: "mock-1", displayName: "Mock", baseUrl: model.baseURL, apiKey: "x", provider: "generic-chat-completion-api", maxOutputTokens: 4096 }],
      });
      return {};
    },
    argv: (bin, prompt) => [bin, ["exec", "-m", "custom:Mock-0", "--skip-permissions-unsafe", "-o", "json", prompt]],
    shell: (command) => ({ tool: "Execute", args: { command, summary: "run it" } }),
    write: (rel, content, { exists = false, old = "" } = {}, sb) =>
      exists ? { tool: "Edit", args: { file_path: sb.abs(rel), old_str: old, new_str: content } } : { tool: "Create", args: { file_path: sb.abs(rel), content } },
    mcp: (tool, args) => [{ tool: `hookwise___${tool}`, args }],
  },
  // Letta Code on its local backend (no Letta server): `letta connect` stores the provider in the
  // user's ~/.letta, then `letta -p` on a new agent; Node 22 (the node22 row of setup-clis.sh).
  letta: {
    label: "Letta Code",
    defaultModel: "mock-1",
    user(sb, model, o) {
      const env = { ...sb.env, PATH: process.env.PATH, LETTA_DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1" };
      execFileSync(cliBin("node22"), [cliBin("letta"), "connect", "openai-compatible", "--base-url", model.baseURL, "--api-key", "x", "--backend", "local"], { cwd: sb.dir, env, timeout: 60_000, stdio: "ignore" });
      return { LETTA_DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1" };
    },
    argv: (bin, prompt, o) => [cliBin("node22"), [bin, "-p", prompt, "--backend", "local", "-m", `openai-compatible/${o.modelName}`, "--new-agent", "--yolo", "--output-format", "json"]],
    shell: (command) => ({ tool: "Bash", args: { command, description: "run it" } }),
    write: (rel, content, { exists = false, old = "" } = {}, sb) =>
      exists ? { tool: "Edit", args: { file_path: sb.abs(rel), old_string: old, new_string: content } } : { tool: "Write", args: { file_path: sb.abs(rel), content } },
    // no project MCP configuration in Letta Code: hookwise's tools are not offered
    mcp: () => [],
  },
  // Auggie against the scripted model playing an Augment tenant (AUGMENT_SESSION_AUTH names it;
  // its get-models turns the enable_hooks flag on, as an account with hooks enabled has it).
  auggie: {
    label: "Auggie",
    defaultModel: "mock-1",
    user(sb, model) {
      return { AUGMENT_SESSION_AUTH: JSON.stringify({ accessToken: "x", tenantURL: `${model.url}/`, scopes: ["email"] }) };
    },
    argv: (bin, prompt, o) => [process.execPath, [bin, "-p", prompt, "--output-format", "json", "-w", o.cwd]],
    modelOpts: { quietRoutes: true },
    shell: (command) => ({ tool: "launch-process", args: { command, wait: true, max_wait_seconds: 30, cwd: "." } }),
    write: (rel, content, { exists = false, old = "" } = {}) =>
      exists
        ? { tool: "str-replace-editor", args: { command: "str_replace", path: rel, str_replace_entries: [{ old_str: old, new_str: content }] } }
        : { tool: "save-file", args: { path: rel, file_content: content } },
    mcp: (tool, args) => [{ tool, args }],
  },
  // pi (tests/e2e-pi): an in-process extension host, not a command-hook one; the same recipe
  // shape. `prompt` may be a list: pi -p runs each as its own prompt, in one session.
  pi: {
    label: "pi",
    defaultModel: "mock-1",
    user(sb, model, o) {
      writeJson(path.join(sb.home, ".pi", "agent", "models.json"), {
        providers: {
          mock: {
            baseUrl: model.baseURL,
            api: "openai-completions",
            apiKey: "x",
            compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
            models: [{ id: o.modelName, contextWindow: 200000, maxTokens: 4096 }],
          },
        },
      });
      return { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1" };
    },
    argv: (bin, prompt, o) => [process.execPath, [bin, "-p", "--provider", "mock", "--model", o.modelName, ...[prompt].flat()]],
    shell: (command) => ({ tool: "bash", args: { command } }),
    // relative paths: pi resolves them against its folder, the project
    write: (rel, content, { exists = false, old = "" } = {}) =>
      exists ? { tool: "edit", args: { path: rel, edits: [{ oldText: old, newText: content }] } } : { tool: "write", args: { path: rel, content } },
    // no MCP in pi: hookwise's tools are pi tools, under their own names
    mcp: (tool, args) => [{ tool, args }],
  },
};

/** Kimi Code's record that the user trusted `folder` (`<home>/workspace-trust/<key>`, its
 * encodeWorkDirKey in dist/main.mjs 2.1.0: `wd_<slug of the folder's name>_<sha256 of the path, 12
 * hex>`, holding `{root, trustedAt}`). */
function trustKimiFolder(home, folder) {
  const norm = path.resolve(folder).replace(/\/+$/, "");
  const slug = (path.basename(norm).toLowerCase().replaceAll(/[^a-z0-9._-]+/g, "-").replaceAll(/^-+|-+$/g, "").slice(0, 40).replaceAll(/^-+|-+$/g, "")) || "workspace";
  const key = `wd_${slug}_${createHash("sha256").update(norm).digest("hex").slice(0, 12)}`;
  writeJson(path.join(home, "workspace-trust", key), { root: norm, trustedAt: Date.now() });
}

/** Where scripts/setup-clis.sh installed `name` (its `--where`), or null. */
export function cliBin(name) {
  const env = `${name.toUpperCase()}_BIN`;
  if (process.env[env]) return process.env[env];
  try {
    const out = execFileSync("bash", [path.join(repoRoot, "scripts/setup-clis.sh"), "--where", name], { encoding: "utf8" });
    return out.trim().split(" ").slice(1).join(" ") || null;
  } catch {
    return null;
  }
}

/** `{ bin, skip, error }`: skip without the CLI, except under CI where its absence is an error. */
export function cliGate(name) {
  const bin = cliBin(name);
  if (bin && fs.existsSync(bin)) return { bin };
  const msg = `no ${HOSTS[name].label} (run scripts/setup-clis.sh ${name}, or set ${name.toUpperCase()}_BIN)`;
  return process.env.CI ? { bin, error: msg } : { bin, skip: msg };
}

let packed = null;
/** The packed tarball of pkg/ (once per test process). */
export function tarball() {
  if (packed) return packed;
  if (!fs.existsSync(path.join(repoRoot, "pkg", "package.json"))) throw new Error("no built package at pkg/: run `npm run build` first");
  const { packDir, packed: info } = packHookwise("hookwise-e2e-agents-pack-");
  process.on("exit", () => fs.rmSync(packDir, { recursive: true, force: true }));
  packed = path.join(packDir, info[0].filename);
  return packed;
}

/**
 * A throwaway project for `host` with `files` (./sandbox.mjs), in git when `git`; hookwise packed,
 * installed offline and set up by `hookwise init --<host>` unless `init` is false.
 */
export function agentProject(host, { files = {}, git = true, init = true, initArgs = [], env = {} } = {}) {
  const sb = makeSandbox({ files, git, name: `hookwise-e2e-${host}-`, env: { PATH: pathWithoutMaenifold(), ...env } });
  sb.host = host;
  sb.recipe = HOSTS[host];
  /** The Agent Trace records of the project, parsed. */
  sb.traces = () => {
    return traceRecordsOf(sb.dir);
  };
  sb.run = (opts) => runAgent(sb, opts);
  /** A linked git worktree of the project beside it (outside the project), holding what `init`
   * wrote as if committed, and no node_modules: a teammate's second checkout. */
  sb.worktree = () => {
    const wt = path.join(sb.root, "wt");
    execFileSync("git", ["add", "-A", "--", ".", ":!node_modules"], { cwd: sb.dir, env: sb.gitEnv });
    execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "hookwise set up"], { cwd: sb.dir, env: sb.gitEnv });
    execFileSync("git", ["worktree", "add", "-q", "-b", "wt", wt], { cwd: sb.dir, env: sb.gitEnv });
    return wt;
  };
  sb.installHookwise(tarball(), { initArgs: init ? [`--${host}`, ...initArgs] : null });
  return sb;
}

/** One headless run of the host's CLI in the sandbox (in `cwd`, default the project), against its
 * own scripted model (`sb.host` and `sb.recipe` name the CLI: a project another host's suite set
 * up can run this one too). */
export async function runAgent(sb, { prompt, script = [], modelOpts = {}, modelName, env = {}, timeoutMs = 120_000, cwd, ...more } = {}) {
  const recipe = sb.recipe;
  const gate = cliGate(sb.host);
  if (!gate.bin) throw new Error(gate.skip ?? gate.error);
  const model = await startModel(script, { ...recipe.modelOpts, ...modelOpts });
  const o = { ...more, cwd: cwd ?? sb.dir, modelName: modelName ?? recipe.defaultModel };
  let childEnv, cmd, args;
  try {
    childEnv = { ...sb.env, ...recipe.user(sb, model, o), ...env };
    [cmd, args] = recipe.argv(gate.bin, prompt, o);
  } catch (e) {
    await model.close();
    throw e;
  }
  const run = await runWatched(sb.root, cmd, args, { cwd: o.cwd, env: childEnv, timeoutMs });
  const { code, signal, timedOut, durationMs, stdout, stderr, leftovers } = run;
  await model.close();
  const main = () => model.mainRequests();
  const r = {
    code,
    signal,
    timedOut,
    durationMs,
    stdout,
    stderr,
    model,
    procs: run.procs,
    leftovers,
    pid: run.pid,
    hookwiseProcs: () => run.procs.filter(isHookwise),
    /** The text of the n-th tool result (0-based) as the model read it, from the last main request. */
    result(n) {
      return main().at(-1)?.toolResults()[n]?.content;
    },
    describe() {
      const reqs = model
        .requests()
        .map((q) => `  #${q.seq} ${q.wire} ${q.kind}: tools ${q.tools.length}; results ${JSON.stringify(q.toolResults().map((t) => t.content.slice(0, 300)))}; last user ${JSON.stringify(q.lastUserText().slice(-300))}`)
        .join("\n");
      return `${sb.host} exit ${code}${signal ? ` (${signal})` : ""}${timedOut ? " TIMED OUT" : ""} in ${durationMs} ms\nstdout: ${stdout.slice(-1500)}\nstderr: ${stderr.slice(-2000)}\nrequests:\n${reqs}\nmodel errors: ${JSON.stringify(model.errors())}\nprocs: ${JSON.stringify(r.procs.map((p) => [p.pid, p.ppid, p.cmdline.join(" ").slice(0, 140)]))}`;
    },
  };
  return r;
}

/** The run ended well: no timeout, exit 0, the model understood every request. */
export function assertRunOk(assert, r) {
  assert.equal(r.timedOut, false, `timed out\n${r.describe()}`);
  assert.equal(r.code, 0, `exit ${r.code}\n${r.describe()}`);
  assert.deepEqual(r.model.errors(), [], `the scripted model saw errors\n${r.describe()}`);
}

/** (f): no process of the sandbox (hookwise's MCP server, a hook, a child of either) outlived the CLI. */
export function assertNothingLeft(assert, r) {
  // The warm hook server the first command hook started outlives the CLI by design: it serves
  // the project's next session and exits when idle or when the project goes
  // (tests/js/warm.test.mjs); one at most, and nothing else.
  // (with what it runs: the warm maenifold session, the watchdog of its process groups)
  const warm = r.leftovers.filter((p) => p.cmdline.some((a) => a.endsWith("warm-server.cjs")));
  const byPid = new Map(r.leftovers.map((p) => [p.pid, p]));
  const underWarm = (p) => {
    for (let q = p, i = 0; q && i < 16; q = byPid.get(q.ppid), i++) if (warm.includes(q)) return true;
    return false;
  };
  assert.deepEqual(r.leftovers.filter((p) => !underWarm(p)).map((p) => p.cmdline.join(" ")), [], `left after the CLI exited\n${r.describe()}`);
  assert.ok(warm.length <= 1, `one warm hook server at most: ${JSON.stringify(warm.map((p) => p.cmdline))}`);
}

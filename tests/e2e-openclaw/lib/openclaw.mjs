// Run the real OpenClaw gateway (openclaw@2026.9.6 under Node 24, both from the npm registry,
// installed by scripts/setup-openclaw.sh into a cache outside the repository) offline, against
// the scripted OpenAI-compatible model of ../../e2e/lib/model.mjs on loopback. Node built-ins.
//
//   const gw = await startGateway({ plugins: [dir], pluginConfig: {...}, files: {...}, script });
//   const reply = await gw.chat("do the thing");     // POST /v1/chat/completions, one agent turn
//   gw.model.mainRequests()                          // what the model saw
//   await gw.stop();
//
// Everything lives in one temp folder: HOME, XDG dirs, OpenClaw's state and config, the agent's
// workspace (`gw.workspace`, where `files` are written and exec runs).

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startModel } from "../../e2e/lib/model.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "..", "..", "..");
export const OPENCLAW_VERSION = "2026.9.6";

/**
 * Where the installs are: `{ dir, node, openclaw }`, or `{ error }`. `OPENCLAW_E2E_DIR` names a
 * folder laid out as scripts/setup-openclaw.sh makes it; else the script is asked (it installs
 * when the cache is empty, prints the folder when it is not) only if `install` is true, else
 * the default cache folder is looked at.
 */
export function locateOpenclaw({ install = false } = {}) {
  let dir = process.env.OPENCLAW_E2E_DIR;
  if (!dir) {
    if (install) {
      try {
        dir = execFileSync("bash", [path.join(repoRoot, "scripts/setup-openclaw.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
      } catch (e) {
        return { error: `scripts/setup-openclaw.sh failed: ${e.message}` };
      }
    } else {
      const root = process.env.HOOKWISE_OPENCLAW_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "hookwise-openclaw");
      const found = fs.existsSync(root) ? fs.readdirSync(root).filter((d) => d.startsWith(`openclaw-${OPENCLAW_VERSION}-node`) && fs.existsSync(path.join(root, d, ".ready"))) : [];
      if (!found.length) return { error: `no OpenClaw install in ${root}: run \`bash scripts/setup-openclaw.sh\`` };
      dir = path.join(root, found.sort().at(-1));
    }
  }
  const node = path.join(dir, "node/node_modules/.bin/node");
  const openclaw = path.join(dir, "openclaw/node_modules/openclaw/openclaw.mjs");
  for (const f of [node, openclaw]) if (!fs.existsSync(f)) return { error: `${f} is missing (OPENCLAW_E2E_DIR=${dir})` };
  return { dir, node, openclaw };
}

/** `{ skip }` (reason) without the installs, `{ error }` under CI, else `{ install }`. */
export function openclawGate() {
  const install = locateOpenclaw();
  if (!install.error) return { install, skip: false };
  if (process.env.CI) return { skip: false, error: install.error };
  return { skip: `skipped: ${install.error}` };
}

async function freePort() {
  return new Promise((ok, fail) => {
    const s = net.createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

const live = new Set();
process.on("exit", () => {
  for (const g of live) g.kill();
});

/**
 * Start a gateway.
 * @param {object} o
 * @param {string[]} o.plugins          plugin folders (each: package.json + openclaw.plugin.json)
 * @param {string[]} [o.allow]          plugin ids allowed and enabled (default: every folder's manifest id)
 * @param {object} [o.pluginConfig]     per plugin id: `plugins.entries.<id>.config`
 * @param {object} [o.entries]          per plugin id: more of `plugins.entries.<id>` (e.g. `hooks`)
 * @param {object} [o.files]            workspace files, path → text
 * @param {string} [o.workspaceName]    the workspace folder's name (hookwise's project name)
 * @param {Array|Function} o.script     the scripted model (../../e2e/lib/model.mjs)
 * @param {object} [o.modelOpts]
 * @param {object} [o.env]              extra environment for the gateway
 * @param {number} [o.readyTimeoutMs]
 */
export async function startGateway(o) {
  const inst = locateOpenclaw();
  if (inst.error) throw new Error(inst.error);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-openclaw-e2e-"));
  const home = path.join(root, "home");
  const state = path.join(root, "state");
  const workspace = path.join(root, o.workspaceName ?? "workspace");
  for (const d of [home, state, workspace, path.join(root, "xdg-config"), path.join(root, "xdg-cache"), path.join(root, "xdg-data")]) fs.mkdirSync(d, { recursive: true });
  for (const [rel, text] of Object.entries(o.files ?? {})) {
    const f = path.join(workspace, rel);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
  }
  if (o.git) {
    // the workspace in git, as a project is (the confined-shell suite checks .git is untouched)
    const genv = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
    for (const a of [["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "--allow-empty", "-m", "initial"]]) execFileSync("git", a, { cwd: workspace, env: genv });
  }
  const model = await startModel(o.script, o.modelOpts ?? {});
  const port = await freePort();
  const token = `e2e-${process.pid}-${Date.now()}`;
  const ids = o.allow ?? o.plugins.map((p) => JSON.parse(fs.readFileSync(path.join(p, "openclaw.plugin.json"), "utf8")).id);
  const entries = {};
  for (const id of ids) entries[id] = { enabled: true, ...(o.pluginConfig?.[id] ? { config: o.pluginConfig[id] } : {}), ...(o.entries?.[id] ?? {}) };
  const logFile = path.join(root, "openclaw.log");
  const config = {
    gateway: { mode: "local", port, bind: "loopback", auth: { mode: "token", token }, http: { endpoints: { chatCompletions: { enabled: true } } } },
    logging: { file: logFile, level: "debug" },
    discovery: { mdns: { mode: "off" } },
    agents: { defaults: { workspace, model: { primary: "mock/mock-1" } } },
    models: {
      providers: {
        mock: {
          baseUrl: model.baseURL,
          apiKey: "e2e",
          api: "openai-completions",
          models: [{ id: "mock-1", name: "Mock", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 4096 }],
        },
      },
    },
    plugins: { allow: ids, load: { paths: o.plugins }, entries },
  };
  const configPath = path.join(root, "openclaw.json");
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2));
  const env = {
    PATH: `${path.dirname(inst.node)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: home,
    USERPROFILE: home,
    TMPDIR: process.env.TMPDIR ?? os.tmpdir(),
    XDG_CONFIG_HOME: path.join(root, "xdg-config"),
    XDG_CACHE_HOME: path.join(root, "xdg-cache"),
    XDG_DATA_HOME: path.join(root, "xdg-data"),
    OPENCLAW_HOME: home,
    OPENCLAW_STATE_DIR: state,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_DISABLE_BONJOUR: "1",
    OPENCLAW_NO_RESPAWN: "1",
    OPENCLAW_EXEC_SHELL_SNAPSHOT: "0",
    OPENCLAW_SKIP_CHANNELS: "1",
    OPENCLAW_GATEWAY_TOKEN: token,
    NO_COLOR: "1",
    ...(o.env ?? {}),
  };
  const started = Date.now();
  const child = spawn(inst.node, [inst.openclaw, "gateway", "run", "--port", String(port), "--bind", "loopback"], { cwd: workspace, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const kill = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      /* gone */
    }
  };
  const gw = { kill };
  live.add(gw);
  const exited = new Promise((ok) => child.once("exit", (code, sig) => ok({ code, sig })));

  // ready: /v1/models answers with the token
  const deadline = Date.now() + (o.readyTimeoutMs ?? 180_000);
  let ready = false;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const r = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2000) });
      if (r.ok) {
        ready = true;
        break;
      }
    } catch {
      /* not yet */
    }
    await new Promise((ok) => setTimeout(ok, 250));
  }
  const readyMs = Date.now() - started;
  const logText = () => {
    let t = "";
    try {
      t = fs.readFileSync(logFile, "utf8");
    } catch {
      /* none yet */
    }
    return t;
  };
  const cleanup = async () => {
    live.delete(gw);
    kill();
    await Promise.race([exited, new Promise((ok) => setTimeout(ok, 3000))]);
    await model.close();
    if (!process.env.HOOKWISE_E2E_KEEP) fs.rmSync(root, { recursive: true, force: true });
  };
  if (!ready) {
    const why = `gateway not ready after ${readyMs} ms (exit ${child.exitCode})\n--- output ---\n${out.slice(-4000)}\n--- log ---\n${logText().slice(-4000)}`;
    await cleanup();
    throw new Error(why);
  }
  return {
    root,
    workspace,
    port,
    token,
    model,
    readyMs,
    output: () => out,
    log: logText,
    /** One agent turn: POST /v1/chat/completions (non-streaming). `user` keeps a session. */
    async chat(text, { user, timeoutMs = 180_000 } = {}) {
      const r = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "openclaw", stream: false, messages: [{ role: "user", content: text }], ...(user ? { user } : {}) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = await r.text();
      let json;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      return { status: r.status, body, json, text: json?.choices?.[0]?.message?.content ?? "" };
    },
    describe() {
      const reqs = model.requests().map((q) => `#${q.seq} ${q.kind}: ${JSON.stringify(q.body.messages ?? []).slice(-1500)}`);
      return `requests:\n${reqs.join("\n")}\n--- output ---\n${out.slice(-3000)}\n--- log (tail) ---\n${logText().slice(-3000)}`;
    },
    stop: cleanup,
  };
}

/**
 * `openclaw config validate --json` on a config that loads these plugin folders with this
 * per-plugin config: `{ code, json }` (no gateway is started; a few seconds).
 */
export function validateConfig({ plugins, pluginConfig = {} }) {
  const inst = locateOpenclaw();
  if (inst.error) throw new Error(inst.error);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-openclaw-validate-"));
  try {
    const ids = plugins.map((p) => JSON.parse(fs.readFileSync(path.join(p, "openclaw.plugin.json"), "utf8")).id);
    const entries = {};
    for (const id of ids) entries[id] = { enabled: true, ...(pluginConfig[id] ? { config: pluginConfig[id] } : {}) };
    const configPath = path.join(root, "openclaw.json");
    fs.writeFileSync(configPath, JSON.stringify({ gateway: { mode: "local" }, plugins: { allow: ids, load: { paths: plugins }, entries } }));
    fs.mkdirSync(path.join(root, "home"));
    const env = { PATH: `${path.dirname(inst.node)}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: path.join(root, "home"), OPENCLAW_STATE_DIR: path.join(root, "state"), OPENCLAW_CONFIG_PATH: configPath, NO_COLOR: "1" };
    let out;
    let code = 0;
    try {
      out = execFileSync(inst.node, [inst.openclaw, "config", "validate", "--json"], { env, encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      code = e.status ?? 1;
      out = e.stdout ?? "";
    }
    return { code, json: JSON.parse(out) };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

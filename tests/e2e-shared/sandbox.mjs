// A throwaway project and home for one real-host suite: the project's files (in git when asked),
// an env built from scratch (PATH and the locale kept; HOME, XDG_* and TMPDIR inside the sandbox;
// npm offline; HOOKWISE_E2E_SANDBOX=<root> so every process it starts can be found, ./procs.mjs),
// the packed hookwise installed as a user installs it, and a cleanup that kills what is left.
//
// const sb = makeSandbox({ files?, env?, git?, name? });
// sb.installHookwise(tarball, { initArgs? })   // npm install --offline the packed package, then
//                                              // `hookwise init …initArgs` when given (its output)
// sb.root, sb.dir (the project), sb.home, sb.env, sb.gitEnv, sb.writeFiles(f), sb.read(rel),
// sb.exists(rel), sb.abs(rel), sb.cleanup()
import { installNative } from "./native.mjs";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sandboxProcesses } from "./procs.mjs";

const KEEP = process.env.HOOKWISE_E2E_KEEP === "1";

const childEnvBase = () => {
  const keep = ["PATH", "LANG", "LC_ALL", "TERM", "SHELL"];
  return Object.fromEntries(keep.filter((k) => process.env[k] != null).map((k) => [k, process.env[k]]));
};

function writeFiles(dir, files) {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, typeof content === "string" ? content : JSON.stringify(content, null, 2) + "\n");
  }
}

export function makeSandbox({ files = {}, env = {}, git = false, name = "hookwise-e2e-" } = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), name));
  const dir = path.join(root, "project");
  const home = path.join(root, "state");
  const tmp = path.join(home, "tmp");
  for (const d of [dir, home, tmp, path.join(home, ".config"), path.join(home, ".local/share"), path.join(home, ".cache"), path.join(home, ".local/state")]) {
    fs.mkdirSync(d, { recursive: true });
  }
  const sbEnv = {
    ...childEnvBase(),
    TZ: "UTC",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local/state"),
    TMPDIR: tmp,
    NO_COLOR: "1",
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    HOOKWISE_E2E_SANDBOX: root,
    ...env,
  };
  writeFiles(dir, files);
  const gitEnv = { ...sbEnv, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
  if (git) {
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir, env: gitEnv });
    execFileSync("git", ["add", "-A"], { cwd: dir, env: gitEnv });
    execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "initial"], { cwd: dir, env: gitEnv });
  }
  const sb = {
    root,
    dir,
    home,
    tmp,
    env: sbEnv,
    gitEnv,
    writeFiles: (f) => writeFiles(dir, f),
    read: (rel) => fs.readFileSync(path.join(dir, rel), "utf8"),
    exists: (rel) => fs.existsSync(path.join(dir, rel)),
    abs: (rel) => path.join(dir, rel),
    /** Install the packed hookwise into the project (offline, no scripts); then `hookwise init …initArgs`. */
    installHookwise(tarball, { initArgs = null } = {}) {
      if (!fs.existsSync(path.join(dir, "package.json"))) fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "e2e-project", private: true, version: "1.0.0" }, null, 2) + "\n");
      execFileSync("npm", ["install", "--ignore-scripts", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], {
        cwd: dir,
        env: { ...sbEnv, npm_config_cache: path.join(root, "npm-cache") },
        encoding: "utf8",
        timeout: 120_000,
      });
      installNative(path.join(dir, "node_modules")); // the confined shell's launcher (issue 38)
      if (!initArgs) return null;
      const bin = path.join(dir, "node_modules", ".bin", "hookwise");
      sb.initOutput = execFileSync(bin, ["init", ...initArgs], { cwd: dir, env: sbEnv, encoding: "utf8", timeout: 60_000 });
      return sb.initOutput;
    },
    cleanup() {
      if (KEEP) return console.log(`# kept sandbox ${root}`);
      for (const p of sandboxProcesses(root)) {
        try {
          process.kill(p.pid, "SIGKILL");
        } catch {}
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return sb;
}

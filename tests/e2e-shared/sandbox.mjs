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
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sandboxProcesses } from "./procs.mjs";
import { packNative } from "../e2e/lib/pack.mjs";

/**
 * HOOKWISE_E2E_NATIVE: how the native client (issue 37) is installed beside the packed hookwise —
 * `installed` (this platform's package installed with it, as npm installs the optional
 * dependency; the default when `npm run build` built one), `removed` (not installed: the Node
 * path), `corrupt` (installed, then its binary cut to half: the Node path, governed calls still
 * blocked).
 */
export const NATIVE_MODE = process.env.HOOKWISE_E2E_NATIVE || "installed";
let nativeTgz;
function nativeTarball() {
  if (nativeTgz !== undefined) return nativeTgz;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-e2e-native-"));
  process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  nativeTgz = packNative(dir);
  if (!nativeTgz) console.log(`# no native package for ${process.platform}-${process.arch} in pkg-native/: hookwise is installed without it`);
  return nativeTgz;
}

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
    // which hooks the native client answered (crates/hookwise-native: one line a hook)
    HOOKWISE_NATIVE_TRACE: path.join(root, "native-trace.log"),
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
    /** What the native client did, `{warm, node}` hooks (and `lines`), from its trace. */
    nativeTrace() {
      let lines = [];
      try {
        lines = fs.readFileSync(path.join(root, "native-trace.log"), "utf8").trim().split("\n").filter(Boolean);
      } catch {}
      return { warm: lines.filter((l) => l.startsWith("warm ")).length, node: lines.filter((l) => l.startsWith("node ")).length, lines };
    },
    /** Install the packed hookwise into the project (offline, no scripts); then `hookwise init …initArgs`. */
    installHookwise(tarball, { initArgs = null } = {}) {
      if (!fs.existsSync(path.join(dir, "package.json"))) fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "e2e-project", private: true, version: "1.0.0" }, null, 2) + "\n");
      const native = NATIVE_MODE === "removed" ? null : nativeTarball();
      if (!native && NATIVE_MODE !== "removed" && process.env.CI) throw new Error(`HOOKWISE_E2E_NATIVE=${NATIVE_MODE} needs pkg-native/ (npm run build)`);
      execFileSync("npm", ["install", "--ignore-scripts", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball, ...(native ? [native] : [])], {
        cwd: dir,
        env: { ...sbEnv, npm_config_cache: path.join(root, "npm-cache") },
        encoding: "utf8",
        timeout: 120_000,
      });
      const nb = path.join(dir, "node_modules/@hookwise", `cli-${process.platform}-${process.arch}`, "bin/hookwise-native");
      if (native && NATIVE_MODE === "corrupt") fs.writeFileSync(nb, fs.readFileSync(nb).subarray(0, fs.statSync(nb).size >> 1));
      sb.native = native ? NATIVE_MODE : "removed";
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

// The native binary (crates/hookwise-native: the confined shell's launcher, issue 38) where an
// installed hookwise finds it (js/native.cjs binaryPath(): the platform package beside
// hookwise). Until the platform packages are published and installed with hookwise (issue 37),
// the suites build it with cargo and put it there, as `npm install` will.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The binary of this platform's package as `npm run build` made it (pkg-native/), else the
 * release build of hookwise-native (built once if missing). */
export function nativeBinary() {
  const exe = process.platform === "win32" ? "hookwise-native.exe" : "hookwise-native";
  const built = path.join(repoRoot, "pkg-native", `cli-${process.platform}-${process.arch}`, "bin", exe);
  if (fs.existsSync(built)) return built;
  const bin = path.join(repoRoot, "target", "release", exe);
  if (!fs.existsSync(bin)) {
    execFileSync("cargo", ["build", "-q", "--release", "-p", "hookwise-native"], { cwd: repoRoot, stdio: "inherit", timeout: 900_000 });
  }
  return bin;
}

/** Put the binary into `nodeModules` (the folder that holds `hookwise/`), unless an install
 * already put one there (the platform package). Returns its path. */
export function installNative(nodeModules) {
  const exe = process.platform === "win32" ? "hookwise-native.exe" : "hookwise-native";
  const dir = path.join(nodeModules, "@hookwise", `cli-${process.platform}-${process.arch}`, "bin");
  fs.mkdirSync(dir, { recursive: true });
  const to = path.join(dir, exe);
  if (fs.existsSync(to)) return to;
  fs.copyFileSync(nativeBinary(), to);
  fs.chmodSync(to, 0o755);
  return to;
}

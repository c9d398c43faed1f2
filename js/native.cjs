"use strict";
// The native binary for this platform (crates/hookwise-native): the warm command-hook client
// (issue 37) and the confined-shell launcher `hookwise-native sandbox …` (issue 38).
//
// Contract shared by both (the build and the packages are issue 37's; this file is the one place
// that finds the binary): `binaryPath()` is the absolute path of the installed binary for this
// process's platform and architecture, or null when none is installed or it is not a file. It
// looks only beside this hookwise install (its platform package in the same node_modules, or in
// hookwise's own nested node_modules) — never up parent folders, never a path from the project's
// configuration. Callers that need the binary for governance fail closed when it is null.

const fs = require("node:fs");
const path = require("node:path");

/** The platform package's name for this process: `@hookwise/cli-<platform>-<arch>`. */
function packageName(platform = process.platform, arch = process.arch) {
  return `@hookwise/cli-${platform}-${arch}`;
}

/** The binary's absolute path, or null. `from`: the folder of the installed dist/ (this file's). */
function binaryPath(from = __dirname) {
  const exe = process.platform === "win32" ? "hookwise-native.exe" : "hookwise-native";
  const pkgRoot = path.dirname(from); // node_modules/hookwise
  const name = packageName();
  const candidates = [
    path.join(pkgRoot, "node_modules", name, "bin", exe), // nested install
    path.join(path.dirname(pkgRoot), name, "bin", exe), // beside hookwise (node_modules/@hookwise/…)
  ];
  for (const c of candidates) {
    try {
      if (fs.statSync(c).isFile()) return c;
    } catch {
      /* not there */
    }
  }
  return null;
}

module.exports = { binaryPath, packageName };

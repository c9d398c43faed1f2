"use strict";
// What the core needs to put a governed shell under the confining launcher (issue 38;
// src/governance/confine.rs decides everything): the native binary (js/native.cjs: beside this
// hookwise install only, never a path from the project), the platform, and the folders a
// confined shell must never write although a temp or cache folder may hold them — this
// hookwise install, its platform package, the warm hook servers' private folders. Facts only.

const os = require("node:os");
const path = require("node:path");
const { binaryPath } = require("./native.cjs");

function sandboxLauncher(from = __dirname) {
  try {
    const binary = binaryPath(from);
    const install = [path.dirname(from)]; // node_modules/hookwise (dist/'s parent)
    if (binary) install.push(path.dirname(path.dirname(binary))); // the platform package
    const uid = typeof process.getuid === "function" ? process.getuid() : "";
    const runtime = [path.join(os.tmpdir(), `hookwise-${uid}`)];
    if (process.env.XDG_RUNTIME_DIR && path.isAbsolute(process.env.XDG_RUNTIME_DIR)) runtime.push(path.join(process.env.XDG_RUNTIME_DIR, "hookwise"));
    return { binary, platform: process.platform, install, runtime };
  } catch {
    return { binary: null, platform: process.platform, install: [], runtime: [] };
  }
}

module.exports = { sandboxLauncher };

// npm run build: the wasm (release, wasm32-unknown-unknown), wasm-bindgen at the version pinned
// in Cargo.toml, wasm-opt when binaryen is installed, then the publishable package in pkg/
// from pkg-template/, js/ and the wasm-bindgen output.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { optionsTypes } from "./options-types.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: root, stdio: "inherit", ...opts });
const out = (cmd, args) => execFileSync(cmd, args, { cwd: root, encoding: "utf8" }).trim();

const cargoToml = fs.readFileSync(path.join(root, "Cargo.toml"), "utf8");
const version = /^version\s*=\s*"([^"]+)"/m.exec(cargoToml)[1];
const pinned = /wasm-bindgen\s*=\s*"=([^"]+)"/.exec(cargoToml)[1];

let have = "";
try {
  have = out("wasm-bindgen", ["--version"]).split(/\s+/)[1];
} catch {
  /* not installed */
}
if (have !== pinned) {
  console.error(`wasm-bindgen ${pinned} is needed (found: ${have || "none"}). Install it with:\n  cargo install wasm-bindgen-cli --version ${pinned}`);
  process.exit(1);
}

const pkg = path.join(root, "pkg");
const dist = path.join(pkg, "dist");
fs.rmSync(pkg, { recursive: true, force: true });
fs.mkdirSync(dist, { recursive: true });
const esbuild = await import(path.join(root, "node_modules/esbuild/lib/main.js")).then((m) => m.default ?? m);

// Two flavours of the core: the lean one (knowledge, sessions) that every project loads, and
// the `policy` one with pre-action enforcement, loaded only when a project wants it (the lean
// init answers `needs: "policy"`), so the common case stays under the size budget.
const sizes = [];
function flavour(name, features, outDir) {
  // one target dir: the dependencies are shared, and cargo keeps both builds of the crate
  run("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown", ...features]);
  const built = path.join(root, "target/wasm32-unknown-unknown/release/hookwise.wasm");
  const gen = path.join(root, "build", name === "lean" ? "wasm" : `wasm-${name}`);
  fs.rmSync(gen, { recursive: true, force: true });
  run("wasm-bindgen", ["--target", "web", "--out-dir", gen, built]);

  const wasmFile = path.join(gen, "hookwise_bg.wasm");
  const wasmOpt = path.join(root, "node_modules/.bin/wasm-opt");
  if (fs.existsSync(wasmOpt) && process.env.HOOKWISE_NO_WASM_OPT !== "1") {
    // --low-memory-unused: the low 1 KB of memory is never used (the stack is the first 1 MiB,
    // growing down from its top; data starts above it), so loads and stores may fold constant
    // offsets: −1.6 KB gzipped.
    // -ocimfs 40: a function with one caller is inlined into it only when small. By default
    // wasm-opt inlines every such function, however big: the vault's read loop swallowed the
    // markdown parse, pulldown-cmark's passes and the search index's add, an 80 KB function
    // that V8's optimizing tier took ~0.3 s to compile while the first cold index ran in the
    // baseline tier. Capped: −17 KB gzipped, −5.6 % instructions (callgrind, steady state), and
    // the first index of a process ~0.1 s faster (README, "Measured").
    // -Os -ocimfs 30 rather than -Oz -ocimfs 40: 1.7 KB gzipped smaller on this code (the
    // knowledge tools, the split engine and the Claude Code wiring had taken the lean wasm to
    // 301,325 with -Oz; -Os 299,653), and -Os keeps the speed passes -Oz gives up.
    // -Os twice: the second pipeline finds what the first one's inlining and merging left
    // (−332 bytes gzipped lean, 299,350; a third pass, --converge or --gufa gain ≤ 73 more;
    // -Oz or --merge-similar-functions as the second pass are larger). The lean wasm only: on the
    // policy wasm (no size budget) the second pass saves 371 bytes gzipped but costs +6 %
    // instructions a pre-action decision (callgrind: 3,876 k -> 4,107 k; docs/benchmarks.md).
    const passes = name === "lean" ? ["-Os", "-Os"] : ["-Os"];
    run(wasmOpt, [...passes, "--low-memory-unused", "-ocimfs", "30", "--strip-debug", "--strip-producers", "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals", "--enable-reference-types", "--enable-multivalue", wasmFile, "-o", wasmFile]);
  }
  fs.mkdirSync(outDir, { recursive: true });
  // wasm-bindgen's web target is ESM; the core must also load through require(), so it is
  // converted to CommonJS once here. Loading goes through initSync with bytes we read
  // ourselves, so a bundled copy can point at its .wasm (engine option wasmPath).
  esbuild.buildSync({
    entryPoints: [path.join(gen, "hookwise.js")],
    outfile: path.join(outDir, "wasm.cjs"),
    format: "cjs",
    platform: "node",
    target: "node20",
    logLevel: "warning",
    // only the async default-init path reads import.meta.url; we always initSync with bytes
    logOverride: { "empty-import-meta": "silent" },
  });
  fs.copyFileSync(wasmFile, path.join(outDir, "hookwise_bg.wasm"));
  const bytes = fs.readFileSync(wasmFile);
  sizes.push(`${name} wasm ${bytes.length} bytes, ${zlib.gzipSync(bytes, { level: 9 }).length} gzipped`);
}
flavour("lean", [], dist);
// HOOKWISE_BUILD=lean (the demo's set-up): the lean core only, about half the build. Enough for
// knowledge context; a project that needs governance or enforcement is blocked by the failsafe
// (the policy core is missing), so the full build (`npm run build`) is what ships and is tested.
if (process.env.HOOKWISE_BUILD === "lean") {
  fs.rmSync(path.join(dist, "policy"), { recursive: true, force: true });
  sizes.push("policy wasm not built (HOOKWISE_BUILD=lean)");
} else {
  flavour("policy", ["--features", "policy"], path.join(dist, "policy"));
}
for (const f of fs.readdirSync(path.join(root, "js"))) {
  fs.copyFileSync(path.join(root, "js", f), path.join(dist, f));
}
// zod 4 for the OpenCode custom tool's argument schema (OpenCode wraps plugin tool args in its
// own zod 4): bundled, so the package keeps no runtime dependencies and installs offline.
esbuild.buildSync({
  // only what the tools' JSON Schema translation uses: the whole `z` namespace (every locale)
  // is 407 KB minified
  stdin: { contents: 'export { string, number, boolean, array, object, enum } from "zod";', resolveDir: root, loader: "js" },
  bundle: true,
  minify: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  outfile: path.join(dist, "zod.cjs"),
  legalComments: "inline",
  logLevel: "warning",
});
// The option types, generated from the schema (the options' one source of truth).
fs.writeFileSync(path.join(dist, "options.d.cts"), await optionsTypes());
// The same declarations for the require condition: TypeScript reads a .d.ts in a
// "type": "module" package as ESM, so CommonJS consumers get their own .d.cts.
fs.copyFileSync(path.join(dist, "engine.d.ts"), path.join(dist, "engine.d.cts"));

const tpl = JSON.parse(fs.readFileSync(path.join(root, "pkg-template/package.json"), "utf8"));
tpl.version = version;
// the native binary per platform (its own packages, beside pkg/): scripts/build-native.mjs
sizes.push(...(await import("./build-native.mjs")).buildNative(root, tpl, version));
fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify(tpl, null, 2) + "\n");
fs.copyFileSync(path.join(root, "README.md"), path.join(pkg, "README.md"));
fs.copyFileSync(path.join(root, "LICENSE"), path.join(pkg, "LICENSE"));
// The configuration schema the core validates against, for editors ("$schema") and tools.
fs.copyFileSync(path.join(root, "schema/hookwise.schema.json"), path.join(dist, "hookwise.schema.json"));
// Every model tool the core may offer, for a host that registers tools before the core runs (Cline).
fs.copyFileSync(path.join(root, "src/tools/specs.json"), path.join(dist, "tool-specs.json"));
// The OpenClaw manifest: its configSchema IS that schema, read at build time, so the options
// OpenClaw validates and the ones the core validates cannot drift apart.
const schema = JSON.parse(fs.readFileSync(path.join(root, "schema/hookwise.schema.json"), "utf8"));
/** Every tool the core's registry (src/tools/) may offer; tests/js checks they agree. */
const MODEL_TOOLS = ["select_active_intent", "knowledge_search", "knowledge_context", "knowledge_read", "knowledge_remember"];
const manifest = {
  id: "hookwise",
  name: "hookwise",
  description: tpl.description,
  version,
  activation: { onStartup: true },
  // the context for the model goes with the tool's result, through tool-result middleware
  // and the model tools of the core's registry (intent governance's while governance is on,
  // the knowledge tools while a knowledge source answers): every name it may offer
  contracts: { agentToolResultMiddleware: ["openclaw"], tools: MODEL_TOOLS },
  configSchema: schema,
};
fs.writeFileSync(path.join(pkg, "openclaw.plugin.json"), JSON.stringify(manifest, null, 2) + "\n");

// The Claude Code plugin (.claude-plugin/plugin.json): the MCP server run from the plugin's
// folder and its mcp_tool hooks; the hook tools, their inputs and the entries come from the
// core just built (a plugin's server is known to Claude Code as plugin:<plugin>:<server>). The
// policy core writes them: not in the lean-only build (the demo's).
if (process.env.HOOKWISE_BUILD !== "lean") {
  const { createRequire } = await import("node:module");
  const req = createRequire(import.meta.url);
  const { createClaude } = req(path.join(dist, "claude.cjs"));
  const claude = createClaude({ cwd: fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-build-")), env: { PATH: "" }, log: () => {} });
  const setup = await claude.setup({ server: "plugin:hookwise:hookwise" });
  await claude.dispose();
  const plugin = {
    name: "hookwise",
    version,
    description: tpl.description,
    mcpServers: { [setup.server]: { type: "stdio", command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/dist/cli.mjs", "mcp"] } },
  };
  fs.mkdirSync(path.join(pkg, ".claude-plugin"), { recursive: true });
  fs.writeFileSync(path.join(pkg, ".claude-plugin", "plugin.json"), JSON.stringify(plugin, null, 2) + "\n");
  // the hooks at the plugin's default place (hooks/hooks.json)
  fs.mkdirSync(path.join(pkg, "hooks"), { recursive: true });
  fs.writeFileSync(path.join(pkg, "hooks", "hooks.json"), JSON.stringify({ description: "hookwise: knowledge context, intent governance and pre-action enforcement", hooks: setup.hooks }, null, 2) + "\n");
}

console.log(`hookwise ${version}: pkg/ assembled; ${sizes.join("; ")}`);

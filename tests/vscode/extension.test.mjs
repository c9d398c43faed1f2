// The VS Code example extension (examples/vscode-extension) in a real VS Code extension host:
// code-server (VS Code's own server, from the npm registry, under Node 24; scripts/setup-code-server.sh)
// with the extension installed beside the packed hookwise package, opened in headless Chromium
// (puppeteer-core). The extension's agent writes a file under an intent (gated by
// executePreHook, recorded by executePostHook) and tries one out of scope (blocked); its gutter
// must show the blame of the written file. A screenshot is kept in tests/vscode/artifacts/.
//
// Without code-server or Chromium the suite skips; under CI it fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { repo, tmpdir, intentsYaml } from "../js/helpers.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const T = { timeout: 300_000 };
const ARTIFACTS = path.join(repo, "tests/vscode/artifacts");
const CACHE = process.env.HOOKWISE_CODE_SERVER_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "hookwise-code-server");
const SERVER = fs.existsSync(CACHE) ? fs.readdirSync(CACHE).map((d) => path.join(CACHE, d)).find((d) => fs.existsSync(path.join(d, ".ready"))) : undefined;
const CHROMIUM = [process.env.HOOKWISE_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && fs.existsSync(p));
const skip = (!SERVER || !CHROMIUM) && !process.env.CI ? `needs code-server (bash scripts/setup-code-server.sh) and Chromium` : false;

const AUTH = `export function login(user: string) {\n  const token = sign(user);\n  return { token, expires: 3600 };\n}\n`;

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The extension as a user installs it: its folder with the packed hookwise in node_modules. */
function installExtension(extensionsDir) {
  const pack = tmpdir("hookwise-vsix-pack-");
  const out = execFileSync("npm", ["pack", path.join(repo, "pkg"), "--pack-destination", pack, "--json"], { encoding: "utf8" });
  const tgz = path.join(pack, JSON.parse(out)[0].filename);
  const ext = path.join(extensionsDir, "hookwise-example.hookwise-example-0.1.0");
  fs.cpSync(path.join(repo, "examples/vscode-extension"), ext, { recursive: true, filter: (f) => !f.includes("node_modules") });
  const pkg = JSON.parse(fs.readFileSync(path.join(ext, "package.json"), "utf8"));
  pkg.dependencies.hookwise = `file:${tgz}`;
  fs.writeFileSync(path.join(ext, "package.json"), JSON.stringify(pkg, null, 2));
  execFileSync("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { cwd: ext, stdio: "pipe" });
  return ext;
}

function workspace() {
  const d = fs.realpathSync(tmpdir("hookwise-vscode-ws-"));
  fs.mkdirSync(path.join(d, ".orchestration"));
  fs.mkdirSync(path.join(d, ".vscode"));
  fs.writeFileSync(path.join(d, ".orchestration/active_intents.yaml"), intentsYaml(["INT-1", "JWT login", ["src/**"]]));
  fs.writeFileSync(
    path.join(d, "agent-script.json"),
    JSON.stringify([
      { intent: "INT-1", tool: "write_to_file", params: { path: "README.md", content: "# out of scope\n" } },
      { intent: "INT-1", tool: "write_to_file", params: { path: "src/auth.ts", content: AUTH } },
    ]),
  );
  fs.writeFileSync(path.join(d, ".vscode/settings.json"), JSON.stringify({ "hookwiseExample.script": "agent-script.json", "workbench.startupEditor": "none", "security.workspace.trust.enabled": false, "workbench.tips.enabled": false, "chat.disableAIFeatures": true }));
  return d;
}

test("the example extension activates in code-server's extension host, gates its tool calls and draws blame in the gutter", { ...T, skip }, async () => {
  const home = tmpdir("hookwise-vscode-home-");
  const extensionsDir = path.join(home, "extensions");
  fs.mkdirSync(extensionsDir);
  installExtension(extensionsDir);
  const ws = workspace();
  const status = path.join(home, "status.json");
  const port = await freePort();
  const node = path.join(SERVER, "node/node_modules/.bin/node");
  const entry = path.join(SERVER, "code-server/node_modules/code-server/out/node/entry.js");
  const server = spawn(node, [entry, "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--user-data-dir", path.join(home, "data"), "--extensions-dir", extensionsDir, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override", ws], {
    env: { PATH: `${path.dirname(node)}:/usr/bin:/bin`, HOME: home, HOOKWISE_EXAMPLE_STATUS: status, MAENIFOLD_ROOT: path.join(home, "none") },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let serverLog = "";
  server.stdout.on("data", (c) => (serverLog += c));
  server.stderr.on("data", (c) => (serverLog += c));
  const { default: puppeteer } = await import("puppeteer-core");
  const b = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
  try {
    for (let i = 0; i < 120 && !/HTTP server listening/.test(serverLog); i++) await new Promise((r) => setTimeout(r, 250));
    assert.match(serverLog, /HTTP server listening/, serverLog);
    const page = await b.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: "domcontentloaded" });
    // the extension ran its agent: one call blocked (out of scope), one written and recorded
    // (the extension rewrites it at each drawing: read it whole)
    let drawn = null;
    for (let i = 0; i < 240 && !drawn; i++) {
      await new Promise((r) => setTimeout(r, 250));
      try {
        drawn = JSON.parse(fs.readFileSync(status, "utf8"));
      } catch {
        /* not there yet, or being written */
      }
    }
    assert.ok(drawn, `the extension drew no blame\n${serverLog}`);
    assert.deepEqual(drawn, { file: "src/auth.ts", ok: true, summary: { agent: 4, changed: 0, unattributed: 0 }, agent: 4, changed: 0 });
    assert.equal(fs.readFileSync(path.join(ws, "src/auth.ts"), "utf8"), AUTH);
    assert.ok(!fs.existsSync(path.join(ws, "README.md")), "the out-of-scope write was blocked and did not run");
    const log = traceText(ws).trim().split("\n");
    assert.equal(log.length, 1);
    assert.equal(JSON.parse(log[0]).metadata["dev.hookwise"].intent_id, "INT-1");
    // in the browser: the editor shows the file, its gutter one blame mark per line
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const shot = () => page.screenshot({ path: path.join(ARTIFACTS, "vscode-failure.png") }).catch(() => {});
    try {
      // (the editor renders spaces as no-break spaces)
      await page.waitForFunction(() => [...document.querySelectorAll(".monaco-editor .view-lines")].some((v) => v.textContent.replace(/\u00a0/g, " ").includes("export function login")), { timeout: 60_000 });
      await page.waitForFunction(() => document.querySelectorAll(".monaco-editor .cgmr").length >= 4, { timeout: 30_000 });
    } catch (e) {
      await shot();
      fs.writeFileSync(path.join(ARTIFACTS, "vscode-failure.html"), await page.evaluate(() => (document.querySelector(".monaco-editor .margin") || document.body).outerHTML));
      throw e;
    }
    const gutter = await page.evaluate(() => {
      const marks = [...document.querySelectorAll(".monaco-editor .cgmr")];
      const lines = [...document.querySelectorAll(".monaco-editor .view-line")].map((l) => l.textContent.replace(/\u00a0/g, " "));
      const before = [...document.querySelectorAll(".monaco-editor .view-lines span")].map((s) => getComputedStyle(s, "::before").content).filter((c) => c && c !== "none" && c !== "normal");
      return { marks: marks.length, icon: marks.length ? getComputedStyle(marks[0]).backgroundImage : "", lines, before };
    });
    assert.equal(gutter.marks, 4, JSON.stringify(gutter));
    assert.match(gutter.icon, /agent\.svg/);
    // the blame before each written line: as injected text, or a ::before (VS Code versions differ)
    const annotated = gutter.lines.filter((l) => l.includes("INT-1 · vscode")).length + gutter.before.filter((c) => c.includes("INT-1 · vscode")).length;
    assert.equal(annotated, 4, JSON.stringify(gutter));
    await page.waitForFunction(() => [...document.querySelectorAll(".monaco-editor .cgmr")].every((m) => m.getBoundingClientRect().width > 0), { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 1000)); // the gutter's icons painted
    await page.screenshot({ path: path.join(ARTIFACTS, "vscode-blame.png") });
  } finally {
    await b.close();
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      /* gone */
    }
  }
});

// `hookwise trace report` opened in a real headless browser (Chromium from the system's
// packages, driven with puppeteer-core): a project written under two intents through the
// engine API's hooks, an SOP block in the metrics, and a model that put markup everywhere it
// could (an intent's name, a file's text, a path). The page must show the verdict, the intents
// and the files, run nothing, load nothing, log no error; a tampered log turns it red at the
// top. Screenshots go to tests/browser/artifacts/ (gitignored).
//
// Without Chromium the suite skips; under CI it fails. HOOKWISE_CHROMIUM names another binary.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { repo, dist, tmpdir, forceSop, intentsYaml, nodeBinary } from "../js/helpers.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const require = createRequire(import.meta.url);
const T = { timeout: 180_000 };
const NODE = nodeBinary();
const HOME = tmpdir("hookwise-browser-home-");
const ENV = { PATH: path.dirname(NODE), HOME, MAENIFOLD_ROOT: path.join(HOME, "none") };
const CLI = path.join(dist, "cli.mjs");
export const ARTIFACTS = path.join(repo, "tests/browser/artifacts");
const CHROMIUM = [process.env.HOOKWISE_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && fs.existsSync(p));
const skip = !CHROMIUM && !process.env.CI ? "no Chromium (apt-get install chromium; HOOKWISE_CHROMIUM)" : false;

/** What a hostile model writes wherever it can: each would run or fetch if it became markup. */
const EVIL = (n) => `<script>window.__pwned=${n}</script><img src="http://127.0.0.1:9/${n}" onerror="window.__pwned=${n}">`;

function run(args, cwd) {
  return new Promise((resolve) => {
    execFile(NODE, [CLI, ...args, "--cwd", cwd], { env: ENV, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
  });
}

/** A project written by two sessions under two intents through the engine's hooks. */
async function project() {
  const d = fs.realpathSync(tmpdir("hookwise-report-"));
  fs.mkdirSync(path.join(d, ".orchestration"), { recursive: true });
  fs.mkdirSync(path.join(d, ".opencode/sops"), { recursive: true });
  fs.writeFileSync(path.join(d, ".opencode/sops/force.md"), forceSop("Announce it first."));
  fs.writeFileSync(path.join(d, ".orchestration/active_intents.yaml"), intentsYaml(["INT-1", JSON.stringify(`Auth ${EVIL(1)}`), ["src/**"]], ["INT-2", "Docs", ["docs/**", "src/util.ts"]]));
  const { createEngine } = require(path.join(dist, "engine.cjs"));
  const engine = await createEngine({ cwd: d, env: ENV });
  assert.equal((await engine.selectIntent("s1", "INT-1")).ok, true);
  assert.equal((await engine.selectIntent("s2", "INT-2")).ok, true);
  const write = async (sessionId, rel, content) => {
    const params = { path: rel, content };
    const pre = await engine.executePreHook({ toolName: "write_to_file", params, sessionId });
    assert.equal(pre.blocked, false, pre.reason);
    fs.mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
    fs.writeFileSync(path.join(d, rel), content);
    const post = await engine.executePostHook({ toolName: "write_to_file", params, sessionId, callId: pre.callId });
    assert.equal(post.recorded, true);
  };
  await write("s1", "src/auth.ts", `export function login(user: string) {\n  // ${EVIL(2)}\n  return user.length > 0;\n}\n`);
  await write("s2", "docs/guide.md", "# Guide\n\nHow to log in.\n");
  await write("s2", "src/util.ts", "export const id = <T,>(x: T) => x;\n");
  // a human adds a line above the agent's code afterwards, and changes one of the guide's
  fs.writeFileSync(path.join(d, "src/auth.ts"), "// reviewed by a human\n" + fs.readFileSync(path.join(d, "src/auth.ts"), "utf8"));
  fs.writeFileSync(path.join(d, "docs/guide.md"), "# Guide\n\nHow to sign in.\n");
  // a shell call through augmentToolCall, which hands back the arguments to run: a governed shell
  // runs confined (issue 38), and executePreHook, which hands back none, is refused before any SOP
  const push = await engine.augmentToolCall({ tool: "bash", args: { command: "git push --force origin main" }, sessionId: "s1" });
  assert.equal(push.blocked, true, "the SOP blocks the force-push (a block in the metrics)");
  await engine.dispose();
  return d;
}

async function browser() {
  const { default: puppeteer } = await import("puppeteer-core");
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
}

/**
 * Open `file` with every request other than the page itself intercepted and counted, console
 * errors and page errors collected.
 */
async function open(b, file) {
  const page = await b.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const url = pathToFileURL(file).href;
  const requests = [];
  const errors = [];
  await page.setRequestInterception(true);
  page.on("request", (r) => {
    if (r.url() === url) return void r.continue();
    requests.push(r.url());
    r.abort();
  });
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  const t0 = performance.now();
  await page.goto(url, { waitUntil: "load" });
  const loadMs = performance.now() - t0;
  return { page, requests, errors, loadMs };
}

test("the report opens in Chromium: the verdict, the intents and the files visible; nothing runs, nothing loads", { ...T, skip }, async () => {
  const d = await project();
  const out = path.join(d, "report.html");
  const r = await run(["trace", "report", "--out", out], d);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /The Agent Trace verifies: 3 record\(s\)/);
  const b = await browser();
  try {
    const { page, requests, errors, loadMs } = await open(b, out);
    assert.deepEqual(requests, [], "no network request");
    assert.deepEqual(errors, [], "no console error (a blocked script would log one)");
    assert.equal(await page.evaluate(() => window.__pwned), undefined, "no injected script or handler ran");
    assert.equal(await page.evaluate(() => document.querySelectorAll("script, img, iframe, object, embed").length), 0);
    const verdict = await page.$eval("#verdict", (e) => ({ cls: e.className, text: e.innerText, top: e.getBoundingClientRect().top, bg: getComputedStyle(e).backgroundColor }));
    assert.equal(verdict.cls, "verdict ok");
    assert.equal(verdict.top, 0, "the verdict is at the top");
    assert.match(verdict.text, /verifies: 3 record/);
    const intents = await page.$$eval("#intents tr.intent", (rows) => rows.map((r) => r.innerText));
    assert.equal(intents.length, 2, intents.join("\n"));
    assert.ok(intents[0].includes(`INT-1 Auth ${EVIL(1)}`), `the injected name shows as text: ${intents[0]}`);
    assert.match(intents[1], /INT-2 Docs/);
    const files = await page.$$eval("#files details.file > summary", (s) => s.map((e) => e.innerText));
    assert.deepEqual(files.map((f) => f.split(" ")[0]).sort(), ["docs/guide.md", "src/auth.ts", "src/util.ts"]);
    // files opened: their lines visible, coloured, the record on hover (its title)
    const openFile = async (name) => {
      const summary = await page.evaluateHandle((n) => [...document.querySelectorAll("#files details.file > summary")].find((s) => s.innerText.startsWith(n)), name);
      await summary.click();
      return page.evaluate((n) => {
        const d = [...document.querySelectorAll("#files details.file")].find((x) => x.open && x.innerText.startsWith(n));
        return [...d.querySelectorAll(".l")].map((l) => ({ text: l.textContent, title: l.parentElement.title, visible: l.getBoundingClientRect().height > 0 }));
      }, name);
    };
    const lines = await openFile("src/auth.ts");
    assert.ok(lines.length === 5 && lines.every((l) => l.visible), JSON.stringify(lines));
    assert.equal(lines[0].title, "", "the line the human added is nobody's");
    assert.ok(lines.slice(1).every((l) => /^written by an agent\nintent: INT-1 Auth/.test(l.title)), JSON.stringify(lines));
    assert.ok(lines.some((l) => l.text.includes("<script>window.__pwned=2</script>")), "the file's markup shows as text");
    const guide = await openFile("docs/guide.md");
    assert.match(guide[2].title, /^written by an agent, changed since\nintent: INT-2 Docs/, JSON.stringify(guide));
    assert.match(guide[0].title, /^written by an agent\n/);
    assert.match(await page.$eval("#enforcement", (e) => e.innerText), /git-force-push\s+1\s+0/);
    assert.match(await page.$eval("#timeline", (e) => e.innerText), /3 change\(s\)/);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "report.png"), fullPage: true });
    console.log(`report: ${fs.statSync(out).size} bytes, loaded in ${loadMs.toFixed(0)} ms`);

    // the log tampered with: the same page, red at the top, the problem named
    const log = path.join(d, traceFiles(d).find((f) => fs.readFileSync(path.join(d, f), "utf8").includes('"intent_id":"INT-2"')));
    fs.writeFileSync(log, fs.readFileSync(log, "utf8").replace('"intent_id":"INT-2"', '"intent_id":"INT-1"'));
    const t = await run(["trace", "report", "--out", out], d);
    assert.equal(t.code, 1, "exit 1 when the trace does not verify (the page is written)");
    assert.match(t.stdout, /does NOT verify/);
    const bad = await open(b, out);
    assert.deepEqual(bad.requests, []);
    assert.deepEqual(bad.errors, []);
    const v = await bad.page.$eval("#verdict", (e) => ({ cls: e.className, text: e.innerText, top: e.getBoundingClientRect().top, bg: getComputedStyle(e).backgroundColor }));
    assert.equal(v.cls, "verdict fail");
    assert.equal(v.top, 0);
    assert.match(v.text, /does NOT verify/);
    assert.match(v.text, /broken-link|edited/);
    const [red, green] = v.bg.match(/\d+/g).map(Number);
    assert.ok(red > green, `red, not green: ${v.bg}`);
    await bad.page.screenshot({ path: path.join(ARTIFACTS, "report-tampered.png") });
  } finally {
    await b.close();
  }
});

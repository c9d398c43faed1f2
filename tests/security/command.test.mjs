// The `hookwise` command of the installed package, attacked through files a hostile model or
// process could leave behind:
//   - trace tampering (issue 18, item 4): after real recorded writes, `hookwise trace verify`
//     must exit non-zero when the last line is edited, the last 1-3 lines are removed, the log
//     is emptied or deleted, a BOM is prepended or a stray line added; 0 on the untouched log;
//     non-zero for a project that does not exist;
//   - `hookwise check` must not report a lone-surrogate or deeply nested call as allowed (item 1);
//   - `hookwise doctor` on a note with 100,000 distinct links must print the true edge count,
//     4,999,950,000 pairs, not a 32-bit wrap (item 9);
//   - a 50 MB .opencode/hookwise.json must give a warning (item 10).
//
//   npm run build && node --test --test-concurrency=1 tests/security/command.test.mjs

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { installPacked, runCommand, quietEnv, tmp, writeFiles } from "./lib/pkg.mjs";
import { GOVERNED, deepJson } from "./lib/fixtures.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

let pkg;
before(() => {
  pkg = installPacked("hookwise-sec-cmd-");
});
after(() => pkg?.cleanup());

/** The baseline's one segment (one session wrote it). */
const TRACE = (dir) => traceFiles(dir)[0];

describe("hookwise trace verify: a tampered trace exits non-zero (issue 18, item 4)", () => {
  let baseline; // a project with 5 real records
  const env = quietEnv();

  before(async () => {
    const { createEngine } = await pkg.engine();
    baseline = writeFiles(tmp("hookwise-sec-trace-"), GOVERNED);
    const engine = await createEngine({ cwd: baseline, env, watch: false });
    const s = await engine.selectIntent("s", "INT-1");
    assert.ok(s.ok, s.text);
    for (let i = 1; i <= 5; i++) {
      const params = { filePath: `src/billing/f${i}.ts`, content: `export const f${i} = ${i};\n` };
      const pre = await engine.executePreHook({ toolName: "write", params, sessionId: "s" });
      assert.equal(pre.blocked, false, pre.reason);
      fs.writeFileSync(path.join(baseline, params.filePath), params.content);
      const post = await engine.executePostHook({ toolName: "write", params, sessionId: "s", callId: pre.callId });
      assert.equal(post.recorded, true, `record ${i}`);
    }
    await engine.dispose();
    assert.equal(fs.readFileSync(path.join(baseline, TRACE(baseline)), "utf8").trim().split("\n").length, 5);
  });

  /** A copy of the baseline project (with whatever hookwise keeps beside the log), tampered. */
  function tampered(f) {
    const dir = tmp("hookwise-sec-tamper-");
    fs.cpSync(baseline, dir, { recursive: true });
    const file = path.join(dir, TRACE(dir));
    f(file, () => fs.readFileSync(file, "utf8").split("\n").filter((l, i, a) => !(i === a.length - 1 && l === "")));
    return dir;
  }
  const put = (file, lines) => fs.writeFileSync(file, lines.map((l) => l + "\n").join(""));
  const verify = (cwd) => runCommand(pkg, ["trace", "verify", "--cwd", cwd], { env });

  test("the untouched log verifies: exit 0", async () => {
    const r = await verify(tampered(() => {}));
    assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /5/, "it counts the 5 records");
  });

  const CASES = {
    "the last line edited (the intent id changed)": (file, lines) => {
      const l = lines();
      l[l.length - 1] = l[l.length - 1].replace('"INT-1"', '"INT-2"');
      assert.ok(l[l.length - 1].includes('"INT-2"'), "the edit took");
      put(file, l);
    },
    "the last line edited (a content hash changed)": (file, lines) => {
      const l = lines();
      l[l.length - 1] = l[l.length - 1].replace(/sha256:([0-9a-f])/, (m, c) => `sha256:${c === "0" ? "1" : "0"}`);
      put(file, l);
    },
    "the last line removed": (file, lines) => put(file, lines().slice(0, -1)),
    "the last 2 lines removed": (file, lines) => put(file, lines().slice(0, -2)),
    "the last 3 lines removed": (file, lines) => put(file, lines().slice(0, -3)),
    "the log emptied": (file) => fs.writeFileSync(file, ""),
    "the log deleted": (file) => fs.rmSync(file),
    "a BOM prepended": (file) => fs.writeFileSync(file, "\uFEFF" + fs.readFileSync(file, "utf8")),
    "a stray line appended": (file) => fs.appendFileSync(file, '{"stray":true}\n'),
    "a stray blank line inserted": (file, lines) => {
      const l = lines();
      put(file, [...l.slice(0, 2), "", ...l.slice(2)]);
    },
    "a middle line removed (control: detected today too)": (file, lines) => {
      const l = lines();
      put(file, [...l.slice(0, 2), ...l.slice(3)]);
    },
  };
  for (const [name, f] of Object.entries(CASES)) {
    test(`${name}: exit non-zero`, async () => {
      const dir = tampered(f);
      const r = await verify(dir);
      assert.notEqual(r.code, 0, `hookwise trace verify exited 0 after ${name}:\n${r.stdout}${r.stderr}`);
      assert.ok(r.code !== null, `it exited (signal ${r.signal})`);
    });
  }

  test("hookwise trace head prints the head to anchor (record count and the last line's hash)", async () => {
    const r = await runCommand(pkg, ["trace", "head", "--cwd", baseline], { env });
    assert.equal(r.code, 0, `hookwise trace head failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /\b5\b/, `the record count: ${r.stdout}`);
    assert.match(r.stdout, /[0-9a-f]{64}/, `a SHA-256 of the last line: ${r.stdout}`);
  });

  test("--cwd /nonexistent: exit non-zero", async () => {
    const r = await runCommand(pkg, ["trace", "verify", "--cwd", "/nonexistent/hookwise-sec"], { env });
    assert.notEqual(r.code, 0, `a project that does not exist verified:\n${r.stdout}${r.stderr}`);
  });
});

describe("hookwise check reports hostile calls as blocked, not allowed (issue 18, item 1)", () => {
  let cwd;
  const env = quietEnv();
  before(() => {
    cwd = writeFiles(tmp("hookwise-sec-check-"), GOVERNED);
  });
  async function check(args, intent = "INT-1") {
    const r = await runCommand(pkg, ["check", "--tool", "write", "--args", args, ...(intent ? ["--intent", intent] : []), "--json", "--cwd", cwd], { env });
    let json = null;
    try {
      json = JSON.parse(r.stdout);
    } catch {
      /* reported below */
    }
    assert.ok(json, `hookwise check printed no JSON (exit ${r.code}):\n${r.stdout}${r.stderr}`);
    return json;
  }

  test("control: an honest in-scope write is allowed, an honest out-of-scope one blocked", async () => {
    assert.equal((await check('{"filePath":"src/billing/ok.ts","content":"ok"}')).blocked, false);
    assert.equal((await check('{"filePath":"docs/leak.md","content":"leak"}')).blocked, true);
  });
  test("an out-of-scope write with a lone surrogate in its content is reported blocked", async () => {
    const j = await check('{"filePath":"docs/leak.md","content":"leak \\ud800"}');
    assert.equal(j.blocked, true, `hookwise check says governance ${j.governance}: the call would run unchecked`);
    assert.ok(j.reason, "with the reason");
  });
  test("an out-of-scope write with a lone surrogate in its path is reported blocked", async () => {
    const j = await check('{"filePath":"docs/leak-\\udfff.md","content":"leak"}');
    assert.equal(j.blocked, true, `hookwise check says governance ${j.governance}`);
  });
  test("an out-of-scope write with a 200-deep extra argument is reported blocked", async () => {
    const j = await check(`{"filePath":"docs/leak.md","content":"leak","extra":${deepJson(200)}}`);
    assert.equal(j.blocked, true, `hookwise check says governance ${j.governance}`);
  });
  test("a write with no intent and a lone surrogate is reported blocked", async () => {
    const j = await check('{"filePath":"src/billing/ok.ts","content":"\\ud800"}', null);
    assert.equal(j.blocked, true, `hookwise check says governance ${j.governance} with no intent selected`);
  });
});

describe("hookwise doctor on a note with 100,000 distinct links (issue 18, item 9)", () => {
  test("it returns and prints the true 64-bit edge count (C(100000, 2) = 4,999,950,000)", async (t) => {
    const vault = tmp("hookwise-sec-bigvault-");
    const links = Array.from({ length: 100_000 }, (_, i) => `[[c${i}]]`).join(" ");
    fs.writeFileSync(path.join(vault, "all.md"), `# Everything\n\n${links}\n`);
    const cwd = tmp("hookwise-sec-doctor-");
    const timeoutMs = 180_000;
    const r = await runCommand(pkg, ["doctor", "--vault", vault, "--cwd", cwd], { env: quietEnv(), timeoutMs });
    t.diagnostic(`hookwise doctor took ${r.ms} ms (exit ${r.code})`);
    assert.ok(!r.timedOut, `hookwise doctor did not return within ${timeoutMs / 1000} s`);
    assert.equal(r.code, 0, r.stderr);
    // doctor prints the vault's index as JSON on its `vault:` line; edges are pairs of concepts
    // sharing a file (src/vault/graph.rs): one note linking n concepts has n(n-1)/2 of them
    const line = r.stdout.split("\n").find((l) => l.startsWith("vault: "));
    assert.ok(line, `no vault line:\n${r.stdout}`);
    const concepts = /"concepts":(\d+)/.exec(line)?.[1];
    const edges = /"edges":(\d+)/.exec(line)?.[1];
    assert.equal(concepts, "100000", `every link is a concept: ${line}`);
    assert.equal(edges, "4999950000", `the edge count is wrong (4,999,950,000 mod 2^32 = 704,982,704): ${line}`);
  });
});

describe("a 50 MB .opencode/hookwise.json gives a warning (issue 18, item 10)", () => {
  test("hookwise doctor names the file in a warning", async () => {
    const cwd = tmp("hookwise-sec-bigcfg-");
    fs.mkdirSync(path.join(cwd, ".opencode"));
    const fd = fs.openSync(path.join(cwd, ".opencode/hookwise.json"), "w");
    fs.writeSync(fd, '{"tokenBudget": 1500');
    const spaces = Buffer.alloc(1 << 20, 0x20);
    for (let i = 0; i < 50; i++) fs.writeSync(fd, spaces);
    fs.writeSync(fd, "}\n");
    fs.closeSync(fd);
    const r = await runCommand(pkg, ["doctor", "--cwd", cwd], { env: quietEnv() });
    const out = r.stdout + r.stderr;
    assert.ok(/warn.*hookwise\.json|hookwise\.json.*(too large|large|size|limit|bytes)/i.test(out), `no warning about the 50 MB hookwise.json:\n${out}`);
  });
});

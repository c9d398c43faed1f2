// Nothing secret is persisted (issue 18), through the installed package's engine API with
// governance and enforcement both on: commands full of credentials are blocked by a strict SOP,
// acknowledged, allowed; a write whose content holds credentials is recorded. No secret may
// appear in any file hookwise wrote (metrics, enforcement state, the Agent Trace and whatever
// it keeps beside it) nor in anything it logged. (The compaction memory is checked in the real
// OpenCode: opencode.test.mjs, run C.)
//
//   npm run build && node --test --test-concurrency=1 tests/security/redaction.test.mjs

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { installPacked, quietEnv, tmp, writeFiles, walk } from "./lib/pkg.mjs";
import { GOVERNED, ENFORCED, SECRETS, SECRET_COMMAND, PEM, secretsIn } from "./lib/fixtures.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

let pkg;
let cwd;
const logs = [];
const ours = new Set(); // files the test itself wrote (the user's own files may hold anything)
const steps = {};

before(async () => {
  pkg = installPacked("hookwise-sec-redact-");
  const { createEngine } = await pkg.engine();
  const files = { ...GOVERNED, ...ENFORCED };
  cwd = writeFiles(tmp("hookwise-sec-redact-proj-"), files);
  for (const f of Object.keys(files)) ours.add(f);
  const engine = await createEngine({ cwd, env: quietEnv(), watch: false, log: (level, message) => logs.push(`${level}: ${message}`) });
  const s = await engine.selectIntent("s", "INT-1");
  assert.ok(s.ok, s.text);
  // shell calls through augmentToolCall, which hands back what to run: a governed shell runs
  // confined (issue 38), and executePreHook's (no arguments handed back) is refused before any SOP
  const bash = (command) => engine.augmentToolCall({ tool: "bash", args: { command, description: "deploy" }, sessionId: "s" });
  steps.blocked = await bash(SECRET_COMMAND);
  steps.acknowledged = await bash(SECRET_COMMAND);
  steps.plain = await bash(`export GITHUB_TOKEN=${SECRETS.github} OPENAI_API_KEY=${SECRETS.openai} && echo password=${SECRETS.password}`);
  steps.dry = await engine.augmentToolCall({ tool: "bash", args: { command: `git push --force https://x:${SECRETS.github}@example.invalid/r.git` }, sessionId: "s", dryRun: true });
  // a write of the user's own file that holds secrets: recorded by governance
  const params = { filePath: "src/billing/config.ts", content: `export const key = "${SECRETS.aws}";\nexport const pem = \`${PEM}\`;\n// password=${SECRETS.password}\n` };
  const pre = await engine.executePreHook({ toolName: "write", params, sessionId: "s" });
  steps.write = pre;
  if (!pre.blocked) {
    fs.writeFileSync(path.join(cwd, params.filePath), params.content);
    ours.add(params.filePath);
    steps.post = await engine.executePostHook({ toolName: "write", params, sessionId: "s", callId: pre.callId });
  }
  await engine.metrics({ verify: true });
  await engine.dispose();
});
after(() => pkg?.cleanup());

test("control: the strict SOP blocked the secret-laden force push, its retry passed, the write was recorded", () => {
  assert.equal(steps.blocked.blocked, true, JSON.stringify(steps.blocked));
  assert.equal(steps.acknowledged.blocked, false, steps.acknowledged.reason);
  assert.equal(steps.write.blocked, false, steps.write.reason);
  assert.equal(steps.post?.recorded, true);
  assert.ok(fs.existsSync(path.join(cwd, ".opencode/hookwise/metrics.jsonl")), "enforcement recorded its decisions");
  assert.ok(traceExists(cwd), "governance recorded the write");
});

test("no secret in any file hookwise wrote (metrics, enforcement state, trace and its neighbours)", () => {
  const written = walk(cwd).filter((f) => !ours.has(f));
  assert.ok(written.length >= 2, `hookwise wrote: ${written.join(", ")}`);
  const found = [];
  for (const f of written) {
    const hits = secretsIn(fs.readFileSync(path.join(cwd, f), "utf8"));
    if (hits.length) found.push(`${f}: ${hits.join(", ")}`);
  }
  assert.deepEqual(found, [], `secrets persisted by hookwise:\n  ${found.join("\n  ")}`);
});

test("no secret in hookwise's log messages", () => {
  const found = logs.filter((l) => secretsIn(l).length).map((l) => `${secretsIn(l).join(", ")}: ${l.slice(0, 300)}`);
  assert.deepEqual(found, [], `secrets in the logs:\n  ${found.join("\n  ")}`);
});

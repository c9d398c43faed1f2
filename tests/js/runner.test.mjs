// The process runner: argv only, timeouts kill the whole process group, output is capped.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, tmpdir, isBun } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const { spawnProcess } = require(path.join(dist, "host.cjs"));
const node = process.execPath;
const modes = isBun ? [{ forceNode: false, name: "Bun.spawn" }, { forceNode: true, name: "child_process" }] : [{ forceNode: true, name: "child_process" }];

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const zombie = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].startsWith("Z");
  } catch {
    return false;
  }
};
const waitGone = async (pid, ms = 3000) => {
  const end = Date.now() + ms;
  while (Date.now() < end && alive(pid) && !zombie(pid)) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid) || zombie(pid);
};

for (const mode of modes) {
  test(`${mode.name}: shell metacharacters reach the program verbatim`, async () => {
    const nasty = [`'; rm -rf / #`, "$(whoami) `id` $HOME", '{"a":"b\\"c"} | tee x', "new\nline", "* ? [[auth]] && ||"];
    const { promise } = spawnProcess({ argv: [node, "-e", "process.stdout.write(JSON.stringify(process.argv.slice(1)))", ...nasty], timeoutMs: 10000, maxBytes: 1 << 20 }, mode);
    const r = await promise;
    assert.equal(r.success, true, JSON.stringify(r));
    assert.deepEqual(JSON.parse(r.stdout), nasty);
    assert.equal(r.exitCode, 0);
  });

  test(`${mode.name}: a hung child is killed at the timeout, with what it started, and leaves no zombie`, async () => {
    const d = tmpdir();
    const pidFile = path.join(d, "grandchild");
    const script = `const {spawn}=require("child_process");const c=spawn("sleep",["60"],{stdio:"ignore"});require("fs").writeFileSync(${JSON.stringify(pidFile)},String(c.pid));process.on("SIGTERM",()=>{});setInterval(()=>{},1000);`;
    const t0 = Date.now();
    const { promise } = spawnProcess({ argv: [node, "-e", script], timeoutMs: 400, maxBytes: 1 << 20 }, mode);
    const r = await promise;
    const took = Date.now() - t0;
    assert.equal(r.timedOut, true);
    assert.equal(r.success, false);
    // SIGTERM is ignored by the child, so SIGKILL after the 1 s grace ends it
    assert.ok(took >= 1300 && took < 8000, `took ${took} ms`);
    const gc = Number(fs.readFileSync(pidFile, "utf8"));
    // Bun.spawn too: its child leads a group of its own (detached), ended as a whole
    assert.ok(await waitGone(gc), "the grandchild was killed with the group");
  });

  test(`${mode.name}: output over the cap fails the call and kills the process`, async () => {
    const { promise } = spawnProcess({ argv: [node, "-e", "const b='x'.repeat(1<<16);setInterval(()=>process.stdout.write(b),1)"], timeoutMs: 20000, maxBytes: 1 << 20 }, mode);
    const r = await promise;
    assert.equal(r.success, false);
    assert.match(r.error, /output over 1048576 bytes/);
    assert.ok(r.stdout.length <= 1 << 20);
    assert.equal(r.timedOut, false);
  });

  test(`${mode.name}: non-UTF-8 output is decoded with replacement characters, exit codes are reported`, async () => {
    const { promise } = spawnProcess({ argv: [node, "-e", "process.stdout.write(Buffer.from([0x41,0xff,0xfe,0x42]));process.exitCode=3"], timeoutMs: 10000, maxBytes: 1 << 20 }, mode);
    const r = await promise;
    assert.equal(r.stdout, "A\uFFFD\uFFFDB");
    assert.equal(r.exitCode, 3);
    assert.equal(r.success, false);
  });

  test(`${mode.name}: a missing program is a failure, not an exception`, async () => {
    const r = await spawnProcess({ argv: ["/nonexistent/maenifold", "--tool", "x"], timeoutMs: 1000, maxBytes: 100 }, mode).promise;
    assert.equal(r.success, false);
    assert.ok(r.error || r.exitCode !== 0, JSON.stringify(r));
  });
}

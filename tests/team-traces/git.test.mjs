// Issue 39: the Agent Trace travels with the code. A team with real git — a bare remote, clones,
// agents writing under intents through the engine API (each its own session) on branches —
// merges (fast-forward and not), rebases, cherry-picks, squash-merges, reverts and pulls both
// ways: no conflict in .orchestration/, `trace verify` passes and says so, blame names the
// right agent across segments. Then the tamper classes fail verify after a merge, an old
// single-file log keeps verifying and blaming, and concurrent writers stay whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { team, agent, git, gitTry, commit, assertClean, assertVerifies, verify, verifyText, blame, shape, segments, records, writeOldLog, cli } from "./lib.mjs";
import { validate } from "../js/agent-trace-schema.mjs";

const T = { timeout: 300_000 };

/** main: alice writes auth.ts; branch billing: bob writes billing.ts; main moves on. */
async function twoBranches() {
  const t = team();
  const { a } = t;
  const alice = await agent(a, "alice", "INT-1");
  const bob = await agent(a, "bob", "INT-2");
  await alice.write("src/auth.ts", "export function login() {\n  return 1;\n}\n");
  commit(a, "auth");
  git(a, "checkout", "-q", "-b", "billing");
  await bob.write("src/billing.ts", "export const price = 10;\nexport const tax = 2;\n");
  const billing1 = commit(a, "billing");
  await bob.write("src/tax.ts", "export const total = 12;\n");
  const billing2 = commit(a, "billing total");
  git(a, "checkout", "-q", "main");
  await alice.write("src/session.ts", "export const ttl = 3600;\n");
  commit(a, "session");
  return { ...t, alice, bob, billing1, billing2 };
}

const BILLING = ["a:INT-2:bob", "a:INT-2:bob"];

test("merge, fast-forward and not: no conflict, verify passes, blame names each agent", T, async () => {
  const { a, alice } = await twoBranches();
  // a fast-forward: a fix branch merged back
  git(a, "checkout", "-q", "-b", "fix");
  await alice.write("src/fix.ts", "export const fixed = true;\n");
  commit(a, "fix");
  git(a, "checkout", "-q", "main");
  git(a, "merge", "-q", "--ff-only", "fix");
  assertClean(a);
  await assertVerifies(a, 3);
  // a real merge
  const m = gitTry(a, "merge", "--no-edit", "billing");
  assert.equal(m.code, 0, m.out);
  assertClean(a);
  const v = await assertVerifies(a, 5);
  assert.ok(v.segments.length >= 3, JSON.stringify(v.segments));
  assert.ok(v.segments.some((s) => s.branch === "billing"));
  const b = await blame(a, "src/billing.ts");
  assert.deepEqual(shape(b), BILLING);
  assert.equal(b.lines[0].branch, "billing");
  assert.match(b.lines[0].segment, /^\.orchestration\/trace\/[0-9a-f]{16}\.jsonl$/);
  assert.equal(b.verify.ok, true);
  assert.deepEqual(shape(await blame(a, "src/auth.ts")), ["a:INT-1:alice", "a:INT-1:alice", "a:INT-1:alice"]);
  // every record is still an Agent Trace record
  for (const r of records(a)) assert.deepEqual(validate(r), []);
});

test("rebase onto a main that moved on: no conflict, verify passes, blame right", T, async () => {
  const { a, bob } = await twoBranches();
  git(a, "checkout", "-q", "billing");
  const r = gitTry(a, "rebase", "main");
  assert.equal(r.code, 0, r.out);
  assertClean(a);
  await assertVerifies(a, 4);
  // bob goes on after the rebase, then main takes the branch
  await bob.write("src/billing2.ts", "export const discount = 1;\n");
  commit(a, "discount");
  git(a, "checkout", "-q", "main");
  git(a, "merge", "-q", "--ff-only", "billing");
  await assertVerifies(a, 5);
  assert.deepEqual(shape(await blame(a, "src/billing.ts")), BILLING);
});

test("cherry-pick one agent commit, then merge the branch anyway: no conflict, no duplicate", T, async () => {
  const { a, billing1 } = await twoBranches(); // billing1 adds src/billing.ts, billing2 src/tax.ts
  const r = gitTry(a, "cherry-pick", billing1);
  assert.equal(r.code, 0, r.out);
  assertClean(a);
  await assertVerifies(a, 3);
  assert.deepEqual(shape(await blame(a, "src/billing.ts")), BILLING);
  const m = gitTry(a, "merge", "--no-edit", "billing");
  assert.equal(m.code, 0, m.out);
  assertClean(a);
  await assertVerifies(a, 4);
  assert.deepEqual(shape(await blame(a, "src/billing.ts")), BILLING);
  assert.deepEqual(shape(await blame(a, "src/tax.ts")), ["a:INT-2:bob"]);
});

test("squash merge of a pull request: no conflict, verify passes, blame right", T, async () => {
  const { a } = await twoBranches();
  const r = gitTry(a, "merge", "--squash", "billing");
  assert.equal(r.code, 0, r.out);
  commit(a, "billing (squashed)");
  assertClean(a);
  await assertVerifies(a, 4);
  assert.deepEqual(shape(await blame(a, "src/billing.ts")), BILLING);
});

test("revert an agent commit: no conflict, verify passes, blame right", T, async () => {
  const { a, alice } = await twoBranches();
  git(a, "merge", "-q", "--no-edit", "billing");
  await alice.write("src/auth.ts", "export function login() {\n  return 2;\n}\n");
  const c = commit(a, "auth v2");
  const r = gitTry(a, "revert", "--no-edit", c);
  assert.equal(r.code, 0, r.out);
  assertClean(a);
  // the revert took the commit's records with its change
  await assertVerifies(a, 4);
  assert.deepEqual(shape(await blame(a, "src/auth.ts")), ["a:INT-1:alice", "a:INT-1:alice", "a:INT-1:alice"]);
  assert.deepEqual(shape(await blame(a, "src/billing.ts")), BILLING);
  // revert a merge of a branch
  const merged = git(a, "rev-parse", "HEAD~2").trim();
  const r2 = gitTry(a, "revert", "--no-edit", "-m", "1", merged);
  assert.equal(r2.code, 0, r2.out);
  assertClean(a);
  await assertVerifies(a, 2);
});

test("two clones of one remote, agents in both, git pull both ways: no conflict, verify passes in both", T, async () => {
  const t = team();
  const b = t.clone("b");
  const alice = await agent(t.a, "alice", "INT-1");
  const carol = await agent(b, "carol", "INT-2");
  await alice.write("src/auth.ts", "export const a = 1;\n");
  commit(t.a, "alice 1");
  await carol.write("src/billing.ts", "export const b = 1;\n");
  commit(b, "carol 1");
  git(t.a, "push", "-q", "origin", "main");
  // b pulls a's work into its own (a real merge)
  let p = gitTry(b, "pull", "--no-edit", "origin", "main");
  assert.equal(p.code, 0, p.out);
  assertClean(b);
  await assertVerifies(b, 2);
  git(b, "push", "-q", "origin", "main");
  // a pulls back (fast-forward)
  p = gitTry(t.a, "pull", "--no-edit", "origin", "main");
  assert.equal(p.code, 0, p.out);
  await assertVerifies(t.a, 2);
  // both write again, b pushes first, a pulls (a real merge the other way)
  await alice.write("src/auth.ts", "export const a = 2;\n");
  commit(t.a, "alice 2");
  await carol.write("src/billing.ts", "export const b = 2;\n");
  commit(b, "carol 2");
  git(b, "push", "-q", "origin", "main");
  p = gitTry(t.a, "pull", "--no-edit", "origin", "main");
  assert.equal(p.code, 0, p.out);
  assertClean(t.a);
  await assertVerifies(t.a, 4);
  git(t.a, "push", "-q", "origin", "main");
  p = gitTry(b, "pull", "--no-edit", "--rebase", "origin", "main");
  assert.equal(p.code, 0, p.out);
  await assertVerifies(b, 4);
  assert.deepEqual(shape(await blame(t.a, "src/billing.ts")), ["a:INT-2:carol"]);
  assert.deepEqual(shape(await blame(b, "src/auth.ts")), ["a:INT-1:alice"]);
});

/** Lines of a segment, and a way to put them back. */
function seg(dir, rel) {
  const p = path.join(dir, rel);
  return {
    lines: fs.readFileSync(p, "utf8").split("\n").filter(Boolean),
    set(lines) {
      fs.writeFileSync(p, lines.map((l) => l + "\n").join(""));
    },
  };
}

test("after a merge, tampering still fails verify: edited, deleted, reordered, duplicated, forged, a dropped segment", T, async () => {
  const { a, alice, bob } = await twoBranches();
  git(a, "merge", "-q", "--no-edit", "billing");
  // a segment with several records
  for (let i = 0; i < 3; i++) await bob.write(`src/b${i}.ts`, `export const b${i} = ${i};\n`);
  await alice.write("src/z.ts", "export const z = 0;\n");
  commit(a, "more");
  await assertVerifies(a);
  const anchor = (await cli(a, "trace", "head")).stdout.split("\n")[0];
  assert.match(anchor, /^\{"records":\d+,"segments":\{/);
  const big = segments(a).find((s) => seg(a, s).lines.length === 3);
  assert.ok(big, "bob's segment of three records");
  const restore = () => {
    git(a, "checkout", "-q", "--", ".orchestration");
    git(a, "clean", "-q", "-fd", ".orchestration");
  };
  const fails = async (kind, what) => {
    const v = await verify(a);
    assert.equal(v.ok, false, `${what}: ${v.text}`);
    assert.equal(v.code, 1);
    assert.ok(
      v.problems.some((p) => p.kind === kind),
      `${what}: expected ${kind} in ${JSON.stringify(v.problems, null, 1)}`,
    );
    assert.match(v.text, /^the trace does not verify: \d+ problem/);
    restore();
    await assertVerifies(a);
    return v;
  };
  const s = seg(a, big);
  // edited: a record's text
  s.set([s.lines[0], s.lines[1].replace("b1", "bX"), s.lines[2]]);
  const e = await fails("broken-link", "an edited record");
  assert.equal(e.problems[0].segment, big);
  // edited: the last record (the head covers the end)
  s.set([s.lines[0], s.lines[1], s.lines[2].replace("b2", "bX")]);
  await fails("edited", "an edited last record");
  // deleted: a record in the middle, the last one
  s.set([s.lines[0], s.lines[2]]);
  await fails("broken-link", "a deleted record");
  s.set([s.lines[0], s.lines[1]]);
  await fails("cut", "a record cut from the end");
  // reordered
  s.set([s.lines[1], s.lines[0], s.lines[2]]);
  await fails("reordered", "reordered records");
  // duplicated: a record twice in its segment, a segment under a second name
  s.set([s.lines[0], s.lines[1], s.lines[1], s.lines[2]]);
  await fails("fork", "a duplicated record");
  const copy = big.replace(/[0-9a-f]{16}\.jsonl$/, "0000000000000000.jsonl");
  fs.copyFileSync(path.join(a, big), path.join(a, copy));
  fs.copyFileSync(path.join(a, big.replace(".jsonl", ".head")), path.join(a, copy.replace(".jsonl", ".head")));
  const d = await fails("duplicate", "a duplicated segment");
  assert.ok(d.problems.some((p) => p.kind === "misplaced"));
  // forged: a record of another segment moved in (the chain and its name catch it)
  const other = seg(a, segments(a).find((x) => x !== big));
  s.set([s.lines[0], other.lines[0], s.lines[1], s.lines[2]]);
  await fails("misplaced", "a record forged into a segment");
  // forged: a new record written in the middle with a valid link to the line before
  const crypto = await import("node:crypto");
  const forged = JSON.parse(s.lines[1]);
  forged.id = "00000000-0000-4000-8000-000000000000";
  forged.metadata["dev.hookwise"].prev_hash = `sha256:${crypto.createHash("sha256").update(s.lines[0]).digest("hex")}`;
  s.set([s.lines[0], JSON.stringify(forged), s.lines[1], s.lines[2]]);
  await fails("fork", "a forged record in the middle");
  // a segment dropped wholesale: unseen alone (nothing names it), told by the anchor
  fs.rmSync(path.join(a, big));
  fs.rmSync(path.join(a, big.replace(".jsonl", ".head")));
  assert.equal((await verify(a)).ok, true, "documented: a dropped segment nothing anchors is not seen");
  const dv = await verify(a, "--anchor", anchor);
  assert.equal(dv.ok, false);
  assert.ok(dv.problems.some((p) => p.kind === "dropped" && p.segment === big), JSON.stringify(dv.problems));
  // its head left behind tells it too
  restore();
  fs.rmSync(path.join(a, big));
  await fails("missing-log", "a segment's log deleted, its head kept");
  // the anchor holds while the trace only grows
  await alice.write("src/y.ts", "export const y = 0;\n");
  assert.equal((await verify(a, "--anchor", anchor)).ok, true);
});

test("a single-file log of an older hookwise keeps verifying and blaming, beside new segments", T, async () => {
  const t = team();
  const a = t.a;
  const alice = await agent(a, "alice", "INT-1");
  await alice.write("src/auth.ts", "export const a = 1;\nexport const b = 2;\n");
  await alice.write("src/old.ts", "export const old = true;\n");
  // what an older hookwise left: one log, one head, no segments
  writeOldLog(a, records(a));
  fs.rmSync(path.join(a, ".orchestration/trace"), { recursive: true });
  commit(a, "old trace");
  let v = await assertVerifies(a, 2, 1);
  assert.equal(v.segments[0].path, ".orchestration/agent_trace.jsonl");
  assert.deepEqual(shape(await blame(a, "src/old.ts")), ["a:INT-1:alice"]);
  const r = await verifyText(a);
  assert.match(r.stdout, /^ok: 2 record\(s\) in 1 segment\(s\), all chains whole, heads match$/m);
  // its head anchors as before (the old format)
  const h = (await cli(a, "trace", "head")).stdout.split("\n")[0];
  assert.match(h, /^\{"records":2,"bytes":\d+,"last":"sha256:[0-9a-f]{64}"\}$/);
  // a new agent after the upgrade: new segments, the old log untouched
  const before = fs.readFileSync(path.join(a, ".orchestration/agent_trace.jsonl"), "utf8");
  const bob = await agent(a, "bob", "INT-2");
  await bob.write("src/auth.ts", "export const a = 1;\nexport const b = 3;\n");
  assert.equal(fs.readFileSync(path.join(a, ".orchestration/agent_trace.jsonl"), "utf8"), before);
  v = await assertVerifies(a, 3, 2);
  assert.equal((await verify(a, "--anchor", h)).ok, true, "the old anchor still holds");
  assert.deepEqual(shape(await blame(a, "src/auth.ts")), ["a:INT-2:bob", "a:INT-2:bob"]);
  assert.deepEqual(shape(await blame(a, "src/old.ts")), ["a:INT-1:alice"]);
  // and tampering with the old log is still caught
  fs.appendFileSync(path.join(a, ".orchestration/agent_trace.jsonl"), before.split("\n")[0] + "\n");
  v = await verify(a);
  assert.equal(v.ok, false);
});

test("concurrent writers on one machine: several agents, one session in several engines, stay whole", T, async () => {
  const t = team();
  const a = t.a;
  const agents = [];
  for (const s of ["s1", "s2", "s3"]) agents.push(await agent(a, s, "INT-1"));
  // the same session in two more engines (a host's several processes)
  agents.push(await agent(a, "s1", "INT-1"), await agent(a, "s1", "INT-1"));
  await Promise.all(agents.map(async (g, k) => {
    for (let i = 0; i < 12; i++) await g.write(`src/w${k}-${i}.ts`, `export const v = ${i};\n`);
  }));
  const v = await assertVerifies(a, 60, 3);
  assert.deepEqual(v.segments.map((s) => s.records).sort((x, y) => x - y), [12, 12, 36]);
});

test("trace commands say nothing about knowledge sources", T, async () => {
  const { a } = await twoBranches();
  for (const args of [["trace", "verify"], ["trace", "head"], ["trace", "blame", "src/auth.ts"], ["trace", "report", "--out", "-"]]) {
    const r = await cli(a, ...args);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /knowledge|vault|maenifold/i, args.join(" "));
  }
  const r = await cli(a, "trace", "report", "--out", "-");
  assert.match(r.stdout, /branch main, segment [0-9a-f]{16}/);
});

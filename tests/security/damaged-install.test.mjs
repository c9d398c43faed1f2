// A damaged install in the real OpenCode 1.18.33 (issue 29, critical 5), and the host killed
// (issue 29: orphans). The packed package is installed into each sandbox's OpenCode cache and
// then damaged there: the policy wasm deleted, truncated or garbage, the lean wasm deleted, a
// glue file (core.cjs) broken. The core cannot start; the glue reads the project's files
// (js/failsafe.cjs, data from src/failsafe.rs) and, with governance or enforcement configured,
// blocks every call with the core's sentence — read-only tools still run under governance
// alone. Controls: a project with neither runs its tools with the same damage (knowledge
// fails open). Then OpenCode is SIGKILLed with the warm maenifold session running (the fake,
// through a wrapper that leaves a helper behind): nothing of hookwise's survives it; and the
// same for `hookwise mcp` (Claude Code's server) SIGKILLed. In the real Claude Code 2.1.330,
// both hook modes with a damaged install deny with hookwise's reason (`hookwise hook` used to
// exit 1, which Claude Code reads as "go on").
//
//   npm run build && node --test --test-concurrency=1 tests/security/damaged-install.test.mjs

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { e2eGate, makeSandbox, assertRunOk } from "../e2e/lib/opencode.mjs";
import { installPacked, quietEnv, tmp } from "./lib/pkg.mjs";
import { FAKE_ROOT, leakyMaenifold, processesWith, waitUntil, killMarked } from "./lib/procs.mjs";
import { GOVERNED, ENFORCED } from "./lib/fixtures.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { pathWithoutMaenifold } from "../e2e-shared/env.mjs";
import { e2eGate as claudeGate } from "../e2e-claude/lib/claude.mjs";
import { hookwiseProject } from "../e2e-claude/lib/hookwise.mjs";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../e2e-shared/trace-files.mjs";

const suiteSkip = suiteGate(e2eGate(), "security damaged install", "opencode");

/** The damage, applied to the installed package's dist/. */
const DAMAGE = {
  "policy wasm deleted": (d) => fs.rmSync(path.join(d, "policy/hookwise_bg.wasm")),
  "policy wasm truncated": (d) => fs.truncateSync(path.join(d, "policy/hookwise_bg.wasm"), 4096),
  "policy wasm garbage": (d) => fs.writeFileSync(path.join(d, "policy/hookwise_bg.wasm"), Buffer.alloc(400_000, 0x5a)),
  "lean wasm deleted": (d) => fs.rmSync(path.join(d, "hookwise_bg.wasm")),
  "glue broken (core.cjs)": (d) => fs.writeFileSync(path.join(d, "core.cjs"), "module.exports = {{ not javascript\n"),
};

/** The run's tool result for `callId` (what the model read). */
function resultOf(r, callId) {
  for (const req of r.mainRequests()) {
    const res = req.toolResults().find((t) => t.toolCallId === callId);
    if (res) return res.content;
  }
  const u = r.toolUses().find((x) => x.callID === callId);
  return u ? String(u.error ?? u.output ?? "") : "";
}
const statusOf = (r, id) => r.toolUses().find((u) => u.callID === id)?.status;

function assertBlocked(r, id, what) {
  const text = resultOf(r, id);
  assert.equal(statusOf(r, id), "error", `${what}: the tool ran; the model read:\n${text.slice(0, 600)}\n${r.describe()}`);
  assert.match(text, /hookwise blocked `\w+`: hookwise could not start \(.+\), and this project configures intent governance or pre-action enforcement/, `${what}: ${text.slice(0, 600)}`);
}

describe("a damaged install in the real OpenCode", { skip: suiteSkip }, () => {
  let pkg;
  const runs = {};
  const env = () => {
    const home = tmp("hookwise-sec-dmg-home-");
    return { PATH: pathWithoutMaenifold(), HOME: home, MAENIFOLD_ROOT: path.join(home, "none") };
  };
  /** A sandbox with the packed package installed in OpenCode's cache, then damaged. */
  function sandbox(files, damage) {
    const sb = makeSandbox({ plugins: [{ tarball: pkg.tarball, install: "cache" }], env: env(), git: true, files });
    const dist = path.join(sb.cacheHome, "opencode", "packages", "hookwise@latest", "node_modules", "hookwise", "dist");
    assert.ok(fs.existsSync(path.join(dist, "failsafe.json")), `the installed package is not where expected: ${dist}`);
    DAMAGE[damage](dist);
    return sb;
  }
  const SCRIPT = (p) => [
    { tool: "write", id: `${p}_write`, args: { filePath: "src/billing/x.ts", content: "export const x = 1;\n" } },
    { tool: "bash", id: `${p}_bash`, args: { command: `touch ${p}-bash-ran`, description: "touch" } },
    { tool: "read", id: `${p}_read`, args: { filePath: "README.md" } },
    "done",
  ];

  before(async () => {
    pkg = installPacked("hookwise-sec-damaged-");
    const plan = [];
    for (const damage of Object.keys(DAMAGE)) plan.push([`gov ${damage}`, GOVERNED, damage]);
    plan.push(["enforcement policy wasm deleted", { ...ENFORCED, "README.md": "# demo\n" }, "policy wasm deleted"]);
    plan.push(["none lean wasm deleted", { "README.md": "# demo\n", "src/billing/.keep": "" }, "lean wasm deleted"]);
    plan.push(["none policy wasm deleted", { "README.md": "# demo\n", "src/billing/.keep": "" }, "policy wasm deleted"]);
    plan.push(["none glue broken", { "README.md": "# demo\n", "src/billing/.keep": "" }, "glue broken (core.cjs)"]);
    const started = Date.now();
    // three at a time: each is a whole OpenCode
    for (let i = 0; i < plan.length; i += 3) {
      await Promise.all(
        plan.slice(i, i + 3).map(async ([name, files, damage], k) => {
          const sb = sandbox(files, damage);
          const p = `r${i + k}`;
          const r = await sb.run({ prompt: "Fix the billing module.", script: SCRIPT(p), timeoutMs: 120_000 });
          r.cleanup = sb.cleanup;
          r.p = p;
          runs[name] = r;
        }),
      );
    }
    console.log(`# ${plan.length} OpenCode runs in ${Date.now() - started} ms`);
    for (const r of Object.values(runs)) assertRunOk(r);
  });

  after(() => {
    for (const r of Object.values(runs)) r?.cleanup?.();
    pkg?.cleanup();
  });

  for (const damage of Object.keys(DAMAGE)) {
    test(`governance, ${damage}: write and bash blocked with the core's sentence, nothing written; read runs`, () => {
      const r = runs[`gov ${damage}`];
      assertBlocked(r, `${r.p}_write`, "write");
      assertBlocked(r, `${r.p}_bash`, "bash");
      assert.ok(!fs.existsSync(path.join(r.dir, "src/billing/x.ts")), "the write went through");
      assert.ok(!fs.existsSync(path.join(r.dir, `${r.p}-bash-ran`)), "the command ran");
      assert.equal(statusOf(r, `${r.p}_read`), "completed", resultOf(r, `${r.p}_read`));
      assert.match(resultOf(r, `${r.p}_write`), /\.orchestration\/active_intents\.yaml/, "the model reads what configures governance");
    });
  }

  test("enforcement (SOPs), policy wasm deleted: every call blocked, the read too", () => {
    const r = runs["enforcement policy wasm deleted"];
    for (const t of ["write", "bash", "read"]) assertBlocked(r, `${r.p}_${t}`, t);
    assert.match(resultOf(r, `${r.p}_bash`), /\.opencode\/sops/);
  });

  for (const name of ["none lean wasm deleted", "none policy wasm deleted", "none glue broken"]) {
    test(`nothing legitimate is newly blocked: no governance, ${name.slice(5)}: write, bash and read run`, () => {
      const r = runs[name];
      for (const t of ["write", "bash", "read"]) assert.equal(statusOf(r, `${r.p}_${t}`), "completed", `${t}: ${resultOf(r, `${r.p}_${t}`)}`);
      assert.equal(fs.readFileSync(path.join(r.dir, "src/billing/x.ts"), "utf8"), "export const x = 1;\n");
      assert.ok(fs.existsSync(path.join(r.dir, `${r.p}-bash-ran`)));
    });
  }
});

/** The parent pid of `pid` (/proc). */
function ppidOf(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(s.slice(s.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0;
  }
}

describe("the host SIGKILLed: nothing of hookwise's survives it", { skip: suiteSkip }, () => {
  let pkg;
  const markers = [];
  before(() => {
    pkg = installPacked("hookwise-sec-kill-");
  });
  after(() => {
    for (const m of markers) killMarked(m);
    pkg?.cleanup();
  });

  /** A maenifold (the leaky wrapper) and its marker, on a PATH of its own. */
  function maenifold() {
    const marker = `hwsec${randomBytes(6).toString("hex")}`;
    markers.push(marker);
    const bin = tmp("hookwise-sec-kbin-");
    leakyMaenifold(bin);
    const root = path.join(tmp("hookwise-sec-kroot-"), "root");
    fs.cpSync(FAKE_ROOT, root, { recursive: true });
    return { marker, env: { PATH: `${bin}:${pathWithoutMaenifold()}`, MAENIFOLD_ROOT: root, HWSEC_MARKER: marker, HOOKWISE_TRANSPORT: "mcp", TZ: "UTC" } };
  }

  async function assertNoneLeft(marker, when) {
    await waitUntil(() => processesWith(marker).length === 0, 5000);
    const left = processesWith(marker);
    assert.deepEqual(left.map((p) => p.cmdline), [], `${when}: left behind:\n  ${left.map((p) => `${p.pid} ${p.cmdline}`).join("\n  ")}`);
  }

  test("OpenCode SIGKILLed with the warm maenifold session and its helper running", { timeout: 180_000 }, async () => {
    const { marker, env } = maenifold();
    const sb = makeSandbox({ plugins: [{ tarball: pkg.tarball, install: "cache" }], env: { ...env, HOME: tmp("hookwise-sec-khome-") }, files: { "README.md": "# demo\n" } });
    let killed = null;
    const script = async () => {
      // the model is asked: OpenCode runs, its plugin's MCP session and the helper with it
      const mcp = await waitUntil(() => processesWith(`maenifold-${marker}`)[0], 20_000);
      assert.ok(mcp, "the warm maenifold session did not start");
      await waitUntil(() => processesWith(`hwsec-sleeper-${marker}`).length > 0, 5000);
      const host = ppidOf(mcp.pid);
      killed = { host, before: processesWith(marker).map((p) => p.cmdline) };
      process.kill(host, "SIGKILL"); // the real parent only, not its group
      return "done";
    };
    const r = await sb.run({ prompt: "hello", script: [script], timeoutMs: 60_000 }).catch((e) => ({ error: e }));
    try {
      assert.ok(killed, `the run never reached the model: ${r && (r.error || r.describe?.())}`);
      console.log(`# SIGKILLed OpenCode ${killed.host}; its hookwise processes were: ${killed.before.join(" | ")}`);
      assert.ok(killed.before.some((c) => c.includes("hwsec-sleeper")), "the helper was running");
      await assertNoneLeft(marker, "after OpenCode was SIGKILLed");
    } finally {
      sb.cleanup();
    }
  });

  test("`hookwise mcp` SIGKILLed with its maenifold session and helper running", { timeout: 120_000 }, async () => {
    const { marker, env } = maenifold();
    const project = tmp("hookwise-sec-kproj-");
    const child = spawn(process.execPath, [pkg.bin, "mcp", "--cwd", project], { env: quietEnv({ ...env, HOME: tmp("hookwise-sec-khome-") }), stdio: ["pipe", "pipe", "ignore"] });
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25" } }) + "\n");
    const mcp = await waitUntil(() => processesWith(`maenifold-${marker}`)[0], 30_000);
    assert.ok(mcp, "the warm maenifold session did not start");
    assert.equal(ppidOf(mcp.pid), child.pid);
    await waitUntil(() => processesWith(`hwsec-sleeper-${marker}`).length > 0, 5000);
    child.kill("SIGKILL");
    await assertNoneLeft(marker, "after hookwise mcp was SIGKILLed");
  });
});

describe("a damaged install in the real Claude Code", { skip: suiteGate(claudeGate(), "security damaged install (claude)", "claude") }, () => {
  const runs = {};
  const script = [
    { tool: "Write", id: "toolu_write", input: { file_path: "src/billing/x.ts", content: "export const x = 1;\n" } },
    { tool: "Read", id: "toolu_read", input: { file_path: "README.md" } },
    "done",
  ];
  before(async () => {
    const made = [];
    for (const [mode, initArgs] of [["command", ["--command"]], ["mcp_tool", []]]) {
      const sb = hookwiseProject({ files: GOVERNED, initArgs });
      DAMAGE["policy wasm garbage"](path.join(sb.dir, "node_modules", "hookwise", "dist"));
      made.push([mode, sb]);
    }
    await Promise.all(
      made.map(async ([mode, sb]) => {
        runs[mode] = { sb, r: await sb.run({ prompt: "Fix the billing module.", script }) };
      }),
    );
  });
  after(() => {
    for (const { sb } of Object.values(runs)) sb?.cleanup();
  });
  for (const mode of ["command", "mcp_tool"]) {
    test(`${mode} hooks, policy wasm garbage: Write denied with hookwise's reason, nothing written; Read runs`, () => {
      const { sb, r } = runs[mode];
      const w = r.afterTool("toolu_write").result;
      assert.equal(w.isError, true, r.describe());
      assert.match(w.content, /hookwise blocked `Write`: hookwise could not start .*intent governance/s, w.content);
      assert.ok(!fs.existsSync(path.join(sb.dir, "src/billing/x.ts")), "the write went through");
      const rd = r.afterTool("toolu_read").result;
      assert.ok(!rd.isError, rd.content);
    });
  }
});

describe("the trace's torn last line and a vault folder linked out, in the real OpenCode", { skip: suiteSkip }, () => {
  let pkg;
  const runs = {};
  const TORN = '{"version":"0.1.0","id":"interrupted-wri';
  before(async () => {
    pkg = installPacked("hookwise-sec-torn-");
    const home = tmp("hookwise-sec-torn-home-");
    const env = { PATH: pathWithoutMaenifold(), HOME: home, MAENIFOLD_ROOT: path.join(home, "none") };
    const sbT = makeSandbox({ plugins: [{ tarball: pkg.tarball, install: "cache" }], env, git: true, files: GOVERNED });
    const scriptT = [
      { tool: "select_active_intent", id: "t_select", args: { intent_id: "INT-1" } },
      { tool: "write", id: "t_a", args: { filePath: "src/billing/a.ts", content: "export const a = 1;\n" } },
      () => {
        // a write interrupted by a crash: bytes without their newline at the end of the log
        fs.appendFileSync(path.join(sbT.dir, traceFiles(sbT.dir)[0]), TORN);
        return { tool: "write", id: "t_b", args: { filePath: "src/billing/b.ts", content: "export const b = 1;\n" } };
      },
      { tool: "write", id: "t_c", args: { filePath: "src/billing/c.ts", content: "export const c = 1;\n" } },
      "done",
    ];
    // a vault whose hookwise/ folder is a symlink into the project
    const vault = tmp("hookwise-sec-vault-");
    fs.writeFileSync(path.join(vault, "auth.md"), "# Auth\n\n[[auth]] uses [[jwt]].\n");
    const sbV = makeSandbox({
      plugins: [{ tarball: pkg.tarball, install: "cache", options: { knowledge: "vault", vault, knowledgeRemember: true } }],
      env,
      files: { "README.md": "# demo\n", "src/.keep": "" },
    });
    fs.symlinkSync(path.join(sbV.dir, "src"), path.join(vault, "hookwise"));
    const scriptV = [{ tool: "knowledge_remember", id: "v_remember", args: { title: "Token rotation", text: "Rotate keys monthly." } }, "done"];
    [runs.t, runs.v] = await Promise.all([
      sbT.run({ prompt: "Fix the billing module.", script: scriptT, timeoutMs: 120_000 }),
      sbV.run({ prompt: "Remember this.", script: scriptV, timeoutMs: 120_000 }),
    ]);
    runs.t.cleanup = sbT.cleanup;
    runs.v.cleanup = sbV.cleanup;
    runs.v.vault = vault;
    for (const r of Object.values(runs)) assertRunOk(r);
  });
  after(() => {
    for (const r of Object.values(runs)) r?.cleanup?.();
    pkg?.cleanup();
  });

  test("the next append quarantines the torn bytes, records the move, and `trace verify` passes; the chain goes on", async () => {
    const r = runs.t;
    for (const id of ["t_a", "t_b", "t_c"]) assert.equal(statusOf(r, id), "completed", resultOf(r, id));
    const lines = traceRecordsOf(r.dir);
    assert.deepEqual(lines.map((l) => (l.files[0] ? l.files[0].path : `repair ${l.metadata["dev.hookwise"].repair?.bytes}`)), ["src/billing/a.ts", `repair ${TORN.length}`, "src/billing/b.ts", "src/billing/c.ts"]);
    const q = lines[1].metadata["dev.hookwise"].repair.quarantined;
    assert.equal(fs.readFileSync(path.join(r.dir, ".orchestration/trace", q), "utf8"), TORN);
    const { execFileSync } = await import("node:child_process");
    const out = execFileSync(process.execPath, [pkg.bin, "trace", "verify", "--cwd", r.dir], { encoding: "utf8", env: quietEnv() });
    assert.match(out, /^ok: 4 record\(s\)/, out);
  });

  test("knowledge_remember refuses a vault folder linked into the project; nothing written there", () => {
    const r = runs.v;
    assert.match(resultOf(r, "v_remember"), /leads out of the vault/, resultOf(r, "v_remember"));
    assert.deepEqual(fs.readdirSync(path.join(r.dir, "src")), [".keep"]);
  });
});

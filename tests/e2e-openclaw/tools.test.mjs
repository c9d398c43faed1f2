// The knowledge tools in the real OpenClaw gateway (see openclaw.test.mjs for the set-up): the
// example vault as knowledge, no maenifold. One agent turn in which the scripted model calls
// knowledge_search, then knowledge_read on an id the search returned, then knowledge_context;
// each answer must be the tool result the model reads next.
//
//   bash scripts/setup-openclaw.sh && npm run build && node --test tests/e2e-openclaw/

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openclawGate, startGateway, repoRoot } from "./lib/openclaw.mjs";
import { packHookwise } from "../e2e/lib/pack.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { requestWithResult } from "../e2e-shared/runs.mjs";

const suiteSkip = suiteGate(openclawGate(), "e2e-openclaw tools", "openclaw");

describe("the knowledge tools in the real OpenClaw gateway", { skip: suiteSkip }, () => {
  let gw;
  let reply;
  let packDir;

  before(async () => {
    assert.ok(fs.existsSync(path.join(repoRoot, "pkg/openclaw.plugin.json")), "no built package: run `npm run build` first");
    const { packDir: d, packed } = packHookwise("hookwise-e2e-openclaw-tools-");
    packDir = d;
    execFileSync("tar", ["xzf", path.join(packDir, packed[0].filename), "-C", packDir]);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-e2e-openclaw-none-"));
    gw = await startGateway({
      plugins: [path.join(packDir, "package")],
      env: { HOOKWISE_VAULT: path.join(repoRoot, "examples/vault"), MAENIFOLD_ROOT: path.join(home, "none") },
      files: {},
      workspaceName: "larkspur",
      pluginConfig: { hookwise: { knowledgeToolsBudget: 1500 } },
      script: (req) => {
        const results = req.toolResults();
        switch (results.length) {
          case 0:
            return { tool: "knowledge_search", id: "hwsearch", args: { query: "session tokens", limit: 3 } };
          case 1: {
            const found = /memory:\/\/[\w./-]+/.exec(results[0].content);
            return found ? { tool: "knowledge_read", id: "hwread", args: { id: found[0] } } : "no id";
          }
          case 2:
            return { tool: "knowledge_context", id: "hwctx", args: { concept: "jwt" } };
          default:
            return "all done";
        }
      },
    });
    reply = await gw.chat("What do the notes say about session tokens?");
  });

  after(async () => {
    await gw?.stop();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  const resultOf = (callId) => requestWithResult(gw.model.mainRequests(), callId, () => gw.describe()).result;

  test("the model is offered the three knowledge tools (not remember: off by default)", () => {
    assert.equal(reply.status, 200, reply.body);
    assert.equal(reply.text, "all done", gw.describe());
    const [first] = gw.model.mainRequests();
    for (const t of ["knowledge_search", "knowledge_context", "knowledge_read"]) assert.ok(first.tools.includes(t), `${t} in ${first.tools.join(", ")}`);
    assert.ok(!first.tools.includes("knowledge_remember"));
  });

  test("search → read on a returned id → context: each answer is the tool result the model reads", () => {
    const search = resultOf("hwsearch");
    assert.match(search, /most relevant first/, search);
    assert.match(search, /memory:\/\/auth\/session-tokens/, search);
    const id = /memory:\/\/[\w./-]+/.exec(search)[0];
    const read = resultOf("hwread");
    assert.ok(read.includes(id), read.slice(0, 300));
    assert.match(read, /\[\[[^\]]+\]\]/, "links kept");
    const ctx = resultOf("hwctx");
    assert.match(ctx, /^## \[\[jwt\]\]$/m, ctx);
    assert.match(ctx, /Related: \[\[[^\]]+\]\] \(\d+ files?\)/);
  });
});

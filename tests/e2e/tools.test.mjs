// The knowledge tools in the REAL OpenCode 1.18.33: hookwise packed and loaded by package name,
// offline; a scripted model calls the tools hookwise registered and reads their answers.
//
//   node --test tests/e2e/tools.test.mjs     (needs pkg/: run `npm run build` first)
//
// Three runs start together:
//   vault    — the example vault (HOOKWISE_VAULT), no maenifold: knowledge_search, then
//              knowledge_read on an id the search returned, then knowledge_context;
//   remember — the same vault (a copy) with knowledgeRemember on: knowledge_remember, then a
//              knowledge_search that must find the new note in the same session;
//   mcp      — the fake maenifold on PATH (transport auto: the warm MCP session): the same
//              three calls as `vault`, answered over MCP.
// Skips like smoke.test.mjs without the OpenCode binary (fails under CI).

import { packHookwise } from "./lib/pack.mjs";
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { e2eGate, makeSandbox, assertRunOk, repoRoot } from "./lib/opencode.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";
import { pathWithoutMaenifold } from "../e2e-shared/env.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e tools", "opencode");

const EXAMPLE_VAULT = path.join(repoRoot, "examples", "vault");
const FAKE_DIR = path.join(repoRoot, "tests", "fake-maenifold");
const FIXTURE_ROOT = path.join(FAKE_DIR, "fixtures", "root");
const KNOWLEDGE = ["knowledge_search", "knowledge_context", "knowledge_read"];

/** search → read the first id the search returned → context; then done. */
function readingScript(query, concept) {
  return (req) => {
    const results = req.toolResults();
    switch (results.length) {
      case 0:
        return { tool: "knowledge_search", id: "call_search", args: { query, limit: 3 } };
      case 1: {
        const found = /memory:\/\/[\w./-]+/.exec(results[0].content);
        if (!found) return "no id in the search answer";
        return { tool: "knowledge_read", id: "call_read", args: { id: found[0] } };
      }
      case 2:
        return { tool: "knowledge_context", id: "call_context", args: { concept } };
      default:
        return "done";
    }
  };
}

function rememberScript(req) {
  switch (req.toolResults().length) {
    case 0:
      return {
        tool: "knowledge_remember",
        id: "call_remember",
        args: { title: "Kestrel cache decision", text: "We put the zanzibar lookups behind [[kestrel-cache]]; password=hunter2hunter2 stays out.", concepts: ["caching"] },
      };
    case 1:
      return { tool: "knowledge_search", id: "call_search", args: { query: "zanzibar kestrel" } };
    default:
      return "done";
  }
}

/** The content of the tool result `id` as the model read it in its next request. */
function resultOf(r, id) {
  for (const req of r.mainRequests()) {
    const res = req.toolResults().find((t) => t.toolCallId === id);
    if (res) return res.content;
  }
  assert.fail(`no request carries the result of ${id}\n${r.describe()}`);
}

describe("the knowledge tools in the real OpenCode", { skip: suiteSkip }, () => {
  let packDir;
  const runs = {};
  let vaultCopy;

  before(async () => {
    const pack = packHookwise("hookwise-e2e-tools-");
    packDir = pack.packDir;
    const tarball = path.join(packDir, pack.packed[0].filename);
    const vault = path.join(packDir, "vault");
    fs.cpSync(EXAMPLE_VAULT, vault, { recursive: true });
    vaultCopy = path.join(packDir, "vault-remember");
    fs.cpSync(EXAMPLE_VAULT, vaultCopy, { recursive: true });
    const root = path.join(packDir, "root");
    fs.cpSync(FIXTURE_ROOT, root, { recursive: true });

    const go = async ({ env, options, script }) => {
      const sb = makeSandbox({ plugins: [{ tarball, install: "cache", ...(options ? { options } : {}) }], env });
      const cwd = path.join(sb.dir, "proj");
      fs.mkdirSync(cwd, { recursive: true });
      const r = await sb.run({ cwd, prompt: "Look up what the notes say.", script, timeoutMs: 90_000 });
      r.cleanup = sb.cleanup;
      return r;
    };
    [runs.vault, runs.remember, runs.mcp] = await Promise.all([
      go({ env: { PATH: pathWithoutMaenifold(), HOOKWISE_VAULT: vault }, script: readingScript("session tokens", "session-tokens") }),
      go({ env: { PATH: pathWithoutMaenifold(), HOOKWISE_VAULT: vaultCopy }, options: { knowledgeRemember: true }, script: rememberScript }),
      go({
        env: { PATH: `${FAKE_DIR}:${pathWithoutMaenifold()}`, MAENIFOLD_ROOT: root, FAKE_MAENIFOLD_LOG: path.join(packDir, "fake.log"), TZ: "UTC" },
        script: readingScript("JWT refresh token", "jwt"),
      }),
    ]);
    for (const r of Object.values(runs)) assertRunOk(r);
  });

  after(() => {
    for (const r of Object.values(runs)) r?.cleanup();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  for (const name of ["vault", "mcp"]) {
    test(`${name}: the model is offered the three knowledge tools (remember is off by default)`, () => {
      const first = runs[name].mainRequests()[0];
      for (const t of KNOWLEDGE) assert.ok(first.tools.includes(t), `${t} in ${first.tools.join(", ")}`);
      assert.ok(!first.tools.includes("knowledge_remember"));
    });

    test(`${name}: search → read on a returned id → context, each answer reaches the model`, () => {
      const r = runs[name];
      const search = resultOf(r, "call_search");
      assert.match(search, /most relevant first/, search);
      assert.match(search, /^1\. .+ — memory:\/\/[\w./-]+/m, search);
      const read = resultOf(r, "call_read");
      const id = /memory:\/\/[\w./-]+/.exec(search)[0];
      assert.ok(read.includes(id), `the note read is the one the search returned (${id}):\n${read.slice(0, 400)}`);
      assert.match(read, /\[\[[^\]]+\]\]/, "its links are kept");
      const context = resultOf(r, "call_context");
      assert.match(context, /^## \[\[(session-tokens|jwt)\]\]$/m, context);
      assert.match(context, /Related: \[\[[^\]]+\]\] \(\d+ files?\)/, context);
      const uses = r.toolUses().filter((u) => u.tool.startsWith("knowledge_"));
      assert.deepEqual(uses.map((u) => u.status), ["completed", "completed", "completed"], r.describe());
    });
  }

  test("mcp: the answers came over the warm MCP session (SearchMemories, ReadMemory, BuildContext)", () => {
    const log = path.join(packDir, "fake.log");
    const calls = fs.readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const mcp = calls.filter((c) => c.mode === "mcp" && c.event === "call").map((c) => c.tool);
    for (const t of ["search_memories", "read_memory", "build_context"]) assert.ok(mcp.includes(t), `${t} over MCP: ${mcp.join(", ")}`);
    assert.equal(calls.filter((c) => c.mode === "cli").length, 0, "no CLI process");
  });

  test("remember on: the note is written (redacted) into hookwise/ and the next search in the session finds it", () => {
    const r = runs.remember;
    assert.ok(r.mainRequests()[0].tools.includes("knowledge_remember"));
    const saved = resultOf(r, "call_remember");
    assert.match(saved, /memory:\/\/hookwise\/kestrel-cache-decision/, saved);
    const file = path.join(vaultCopy, "hookwise", "kestrel-cache-decision.md");
    const text = fs.readFileSync(file, "utf8");
    assert.match(text, /\[\[kestrel-cache\]\]/);
    assert.match(text, /\[\[caching\]\]/);
    assert.ok(!text.includes("hunter2hunter2"), `the secret is redacted:\n${text}`);
    const search = resultOf(r, "call_search");
    assert.match(search, /memory:\/\/hookwise\/kestrel-cache-decision/, search);
  });
});

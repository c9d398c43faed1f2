// The core's model-tool registry through the engine API (`tools()`, `callTool`) and the
// OpenCode plugin's `tool` map: `select_active_intent` while governance is on, the knowledge
// tools while a knowledge source answers (a markdown vault here; the fake maenifold over the
// warm MCP session below). Runs under node --test and bun test.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, fakeEnv, noCliEnv, recordingClient, tmpdir, writeFiles } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const T = { timeout: 30_000 };
const { createEngine } = await import(path.join(dist, "engine.mjs"));

const INTENTS = `active_intents:
  - id: INT-1
    name: Login form
    status: IN_PROGRESS
    owned_scope: ["src/**"]
`;

test("governance on: tools() lists select_active_intent; callTool selects, bad input is an isError text", T, async () => {
  const dir = writeFiles(tmpdir("hookwise-tools-gov-"), { ".orchestration/active_intents.yaml": INTENTS });
  const e = await createEngine({ cwd: dir, env: noCliEnv() });
  const tools = e.tools();
  assert.deepEqual(tools.map((t) => t.name), ["select_active_intent"]);
  assert.deepEqual(tools[0].inputSchema.required, ["intent_id"]);
  assert.match(tools[0].description, /owned_scope/);
  const bad = await e.callTool("select_active_intent", { intent_id: "INT-404" }, "s1");
  assert.equal(bad.isError, true);
  assert.match(bad.text, /INT-1/, "an unknown id lists the valid ones");
  const missing = await e.callTool("select_active_intent", {}, "s1");
  assert.equal(missing.isError, true);
  assert.match(missing.text, /intent_id/);
  const ok = await e.callTool("select_active_intent", { intent_id: "INT-1" }, "s1");
  assert.equal(ok.isError, false);
  assert.match(ok.text, /src\/\*\*/);
  const unknown = await e.callTool("rm_rf", {}, "s1");
  assert.equal(unknown.isError, true);
  assert.match(unknown.text, /no tool `rm_rf`[\s\S]*select_active_intent/);
  const notObject = await e.callTool("select_active_intent", "INT-1", "s1");
  assert.equal(notObject.isError, true);
});

test("no governance, no knowledge source: no tools at all", T, async () => {
  const e = await createEngine({ cwd: tmpdir("hookwise-tools-none-"), env: noCliEnv() });
  assert.deepEqual(e.tools(), []);
  const r = await e.callTool("knowledge_search", { query: "x" });
  assert.equal(r.isError, true);
});

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

// ---------------------------------------------------------------------------------------------
// The knowledge tools

const NOTES = {
  "auth/session-tokens.md": "---\ntitle: Session Tokens\ntags: [auth]\n---\n# Session Tokens\n\nRefresh tokens are stored server side; the [[jwt]] lives 15 minutes. See [[auth]].\n",
  "auth/login.md": "# Login\n\nThe login form posts to [[auth]] and gets a [[jwt]] and a refresh token.\n",
  "ops/deploy.md": "# Deploy\n\nBlue-green deploys behind the [[load-balancer]].\n",
};

async function vaultEngine(options = {}, files = NOTES) {
  const dir = writeFiles(tmpdir("hookwise-tools-vault-"), files);
  const e = await createEngine({ cwd: tmpdir("hookwise-tools-proj-"), env: noCliEnv(), options: { knowledge: "vault", vault: dir, ...options } });
  return { e, dir };
}

test("a vault: the three read tools are offered (remember off); search → read → context answer the model", T, async () => {
  const { e } = await vaultEngine();
  assert.deepEqual(e.tools().map((t) => t.name), ["knowledge_search", "knowledge_context", "knowledge_read"]);
  const search = await e.callTool("knowledge_search", { query: "refresh token" });
  assert.equal(search.isError, false, search.text);
  assert.match(search.text, /^2 notes for "refresh token", most relevant first/);
  assert.match(search.text, /^1\. Session Tokens — memory:\/\/auth\/session-tokens \(score [\d.]+\)$/m);
  const id = /memory:\/\/[\w./-]+/.exec(search.text)[0];
  const read = await e.callTool("knowledge_read", { id });
  assert.equal(read.isError, false);
  assert.match(read.text, /^Session Tokens — memory:\/\/auth\/session-tokens\n\n---\ntitle: Session Tokens/, "front matter kept");
  assert.match(read.text, /\[\[jwt\]\]/, "links kept");
  const bySlug = await e.callTool("knowledge_read", { id: "login" });
  assert.match(bySlug.text, /memory:\/\/auth\/login/);
  const ctx = await e.callTool("knowledge_context", { concept: "[[JWT]]" });
  assert.equal(ctx.isError, false);
  assert.match(ctx.text, /^## \[\[jwt\]\]$/m);
  assert.match(ctx.text, /Related: .*\[\[auth\]\] \(2 files\)/);
  // the same as [[jwt]] in a tool call brings
  const aug = await e.augmentToolCall({ tool: "bash", args: { command: "echo [[jwt]]" } });
  for (const line of ctx.text.split("\n").filter((l) => l.startsWith("Related:"))) assert.ok(aug.context.includes(line), line);
  const nothing = await e.callTool("knowledge_context", { concept: "unheard-of" });
  assert.equal(nothing.isError, false);
  assert.match(nothing.text, /nothing on \[\[unheard-of\]\]/);
  const none = await e.callTool("knowledge_search", { query: "zebra" });
  assert.match(none.text, /^No notes match "zebra"/);
});

test("a vault kept the Obsidian/Foam way: [[Title]], an alias, a path or [[T#Heading]] names the note; read and context take the same names", T, async () => {
  const files = {
    "app/Offline Sync.md": "---\naliases: [sync engine]\n---\n# Offline Sync\n\nSightings are written to SQLite first. ^batches\n\n## Conflict resolution\n\nThe last write wins per field.\n",
    "app/photo-pipeline.md": "---\ntitle: Photo Pipeline\n---\n# Photo pipeline\n\nPhotos wait for Wi-Fi; see [[Offline Sync]].\n",
    "journal/outage.md": "# Outage\n\nNothing was lost, thanks to [[sync engine]].\n",
  };
  const { e } = await vaultEngine({}, files);
  for (const link of ["Offline Sync", "offline_sync", "sync engine", "app/Offline Sync"]) {
    const aug = await e.augmentToolCall({ tool: "bash", args: { command: `echo [[${link}]]` } });
    assert.match(aug.context, /# Note memory:\/\/app\/Offline Sync \(Offline Sync\): Sightings are written to SQLite first\./, link);
    assert.match(aug.context, /# Linked from: .*memory:\/\/journal\/outage/, `${link}: a note whose only link is this one counts`);
  }
  const section = await e.augmentToolCall({ tool: "task", args: { prompt: "see [[Offline Sync#Conflict resolution]]" } });
  assert.match(section.context, /Note memory:\/\/app\/Offline Sync#Conflict resolution \(Offline Sync\): The last write wins per field\./);
  const block = await e.augmentToolCall({ tool: "task", args: { prompt: "see [[Offline Sync#^batches]]" } });
  assert.match(block.context, /Offline Sync#\^batches \(Offline Sync\): Sightings are written to SQLite first\.\n/);
  const ctx = await e.callTool("knowledge_context", { concept: "[[Photo Pipeline]]" });
  assert.match(ctx.text, /^Note memory:\/\/app\/photo-pipeline \(Photo Pipeline\): Photos wait for Wi-Fi/m);
  const byTitle = await e.callTool("knowledge_read", { id: "Photo Pipeline" });
  assert.equal(byTitle.isError, false, byTitle.text);
  assert.match(byTitle.text, /^Photo Pipeline — memory:\/\/app\/photo-pipeline/);
  const byAlias = await e.callTool("knowledge_read", { id: "sync engine" });
  assert.match(byAlias.text, /^Offline Sync — memory:\/\/app\/Offline Sync/);
  const none = await e.callTool("knowledge_read", { id: "No Such Note" });
  assert.equal(none.isError, true);
});

test("bad input is an isError text the model can read, never a throw", T, async () => {
  const { e } = await vaultEngine();
  const cases = [
    ["knowledge_search", {}, /needs `query`/],
    ["knowledge_search", { query: "   " }, /`query` is empty/],
    ["knowledge_search", { query: "x".repeat(501) }, /too long \(501 characters; at most 500\)/],
    ["knowledge_search", { query: "a", limit: 0 }, /`limit` must be a whole number from 1 to 20/],
    ["knowledge_search", { query: "a", limit: 2.5 }, /`limit`/],
    ["knowledge_search", { query: 7 }, /`query` must be a string/],
    ["knowledge_search", { query: "a", extra: 1 }, /unknown argument `extra`/],
    ["knowledge_context", { concept: "a", depth: 3 }, /`depth` must be a whole number from 1 to 2/],
    ["knowledge_context", { concept: "[[]]" }, /no name/],
    ["knowledge_read", { id: "memory://nope" }, /no note `memory:\/\/nope`/],
    ["knowledge_read", { id: "memory://../../etc/passwd" }, /not a note id/],
    ["knowledge_remember", { title: "t", text: "x" }, /no tool `knowledge_remember`/],
  ];
  for (const [name, input, want] of cases) {
    const r = await e.callTool(name, input);
    assert.equal(r.isError, true, `${name} ${JSON.stringify(input).slice(0, 60)}: ${r.text}`);
    assert.match(r.text, want);
  }
  const deep = await e.callTool("knowledge_search", JSON.parse("[".repeat(5000) + "]".repeat(5000)));
  assert.equal(deep.isError, true);
});

test("answers fit the budget (knowledgeToolsBudget) and say they were cut", T, async () => {
  const long = { "big.md": `# Big\n\n${Array.from({ length: 400 }, (_, i) => `Line ${i} about [[bigness]] and more words.`).join("\n")}\n` };
  const { e } = await vaultEngine({ knowledgeToolsBudget: 100 }, long);
  const r = await e.callTool("knowledge_read", { id: "memory://big" });
  assert.equal(r.isError, false);
  assert.ok(r.text.length <= 400, `${r.text.length} characters`);
  assert.match(r.text, /\[hookwise: cut to fit the budget of 100 tokens; the rest of the note was left out\]$/);
  const small = await e.callTool("knowledge_search", { query: "bigness" });
  assert.ok(!small.text.includes("cut to fit"));
});

test("options: knowledgeTools false offers none, a list picks; knowledgeRemember adds remember", T, async () => {
  assert.deepEqual((await vaultEngine({ knowledgeTools: false })).e.tools(), []);
  assert.deepEqual((await vaultEngine({ knowledgeTools: ["knowledge_search"] })).e.tools().map((t) => t.name), ["knowledge_search"]);
  const on = await vaultEngine({ knowledgeRemember: true });
  assert.deepEqual(on.e.tools().map((t) => t.name), ["knowledge_search", "knowledge_context", "knowledge_read", "knowledge_remember"]);
});

test("knowledge_remember: a new note in hookwise/, redacted, never overwriting, found by the next search", T, async () => {
  const { e, dir } = await vaultEngine({ knowledgeRemember: true, vaultRefreshMs: 3_600_000 });
  const input = { title: "Kestrel cache decision", text: "The zanzibar lookups go behind [[kestrel-cache]]. DB_PASSWORD=hunter2hunter2", concepts: ["caching"] };
  const first = await e.callTool("knowledge_remember", input);
  assert.equal(first.isError, false, first.text);
  assert.match(first.text, /memory:\/\/hookwise\/kestrel-cache-decision\b/);
  const second = await e.callTool("knowledge_remember", input);
  assert.match(second.text, /memory:\/\/hookwise\/kestrel-cache-decision-2\b/, "a name that exists gets a suffix");
  const text = fs.readFileSync(path.join(dir, "hookwise/kestrel-cache-decision.md"), "utf8");
  assert.ok(!text.includes("hunter2hunter2"), text);
  assert.match(text, /\[REDACTED:/);
  assert.match(text, /\[\[caching\]\]/);
  // indexed at once (the vault is not re-listed for an hour)
  const search = await e.callTool("knowledge_search", { query: "zanzibar" });
  assert.match(search.text, /memory:\/\/hookwise\/kestrel-cache-decision/);
  const ctx = await e.callTool("knowledge_context", { concept: "kestrel-cache" });
  assert.match(ctx.text, /caching/);
  const bad = await e.callTool("knowledge_remember", { title: "t", text: "x", concepts: "caching" });
  assert.equal(bad.isError, true);
});

test("the fake maenifold over the warm MCP session: search → read → context, and remember via WriteMemory", T, async () => {
  const f = fakeEnv();
  const e = await createEngine({ cwd: tmpdir("hookwise-tools-mcp-"), env: { ...process.env, HOOKWISE_TRANSPORT: "", ...f.env }, options: { knowledgeRemember: true } });
  try {
    assert.deepEqual(e.tools().map((t) => t.name), ["knowledge_search", "knowledge_context", "knowledge_read", "knowledge_remember"]);
    const search = await e.callTool("knowledge_search", { query: "JWT refresh token" });
    assert.equal(search.isError, false, search.text);
    const id = /memory:\/\/[\w./-]+/.exec(search.text)[0];
    const read = await e.callTool("knowledge_read", { id });
    assert.equal(read.isError, false, read.text);
    assert.ok(read.text.includes(id));
    const ctx = await e.callTool("knowledge_context", { concept: "jwt" });
    assert.match(ctx.text, /^## \[\[jwt\]\]$/m);
    const saved = await e.callTool("knowledge_remember", { title: "Kestrel cache", text: "Lookups behind [[kestrel-cache]]." });
    assert.equal(saved.isError, false, saved.text);
    assert.match(saved.text, /memory:\/\/hookwise\/kestrel-cache/);
    const again = await e.callTool("knowledge_remember", { title: "Kestrel cache", text: "Again [[kestrel-cache]]." });
    assert.match(again.text, /memory:\/\/hookwise\/kestrel-cache-2/, again.text);
    const found = await e.callTool("knowledge_search", { query: "kestrel lookups" });
    assert.match(found.text, /memory:\/\/hookwise\/kestrel-cache/);
    const calls = f.calls().filter((c) => c.mode === "mcp" && c.event === "call").map((c) => c.tool);
    for (const t of ["search_memories", "read_memory", "build_context", "write_memory"]) assert.ok(calls.includes(t), `${t}: ${calls.join(", ")}`);
  } finally {
    await e.dispose?.();
  }
});

test("the OpenCode plugin registers the plan's tools with zod 4 args; execute answers the text", T, async () => {
  const dir = writeFiles(tmpdir("hookwise-tools-oc-"), Object.fromEntries(Object.entries(NOTES).map(([k, v]) => [`.opencode/knowledge/${k}`, v])));
  const saved = { ...process.env };
  Object.assign(process.env, noCliEnv());
  try {
    const { server } = require(path.join(dist, "opencode.cjs"));
    const hooks = await server({ client: recordingClient().client, worktree: dir, directory: dir }, {});
    assert.deepEqual(Object.keys(hooks.tool), ["knowledge_search", "knowledge_context", "knowledge_read"]);
    const { z } = require("zod");
    const js = z.toJSONSchema(z.object(hooks.tool.knowledge_search.args));
    assert.deepEqual(js.required, ["query"]);
    assert.equal(js.properties.limit.type, "number");
    const text = await hooks.tool.knowledge_search.execute({ query: "refresh token" }, { sessionID: "s" });
    assert.match(text, /memory:\/\/auth\/session-tokens/);
    await hooks.dispose();
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
});

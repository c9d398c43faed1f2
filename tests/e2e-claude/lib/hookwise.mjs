// hookwise as a Claude Code user gets it: `npm pack` of the built pkg/, installed offline into the
// project (no install scripts), then `hookwise init --claude`, which writes `.mcp.json` and the
// hooks of `.claude/settings.json`.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { packHookwise } from "../../e2e/lib/pack.mjs";
import { makeSandbox, repoRoot } from "./claude.mjs";
import { pathWithoutMaenifold } from "../../e2e-shared/env.mjs";

export const PKG_DIR = path.join(repoRoot, "pkg");
export const FAKE_DIR = path.join(repoRoot, "tests", "fake-maenifold");
export const FIXTURE_ROOT = path.join(FAKE_DIR, "fixtures", "root");
export const EXAMPLE_VAULT = path.join(repoRoot, "examples", "vault");
/** The MCP server's name `hookwise init --claude` writes, and the hook tools' names. */
export const SERVER = "hookwise";
export const HOOK_TOOLS = ["hook_pre_tool_use", "hook_post_tool_use", "hook_user_prompt_submit", "hook_pre_compact", "hook_session_start"];

let packed = null;
/** The packed tarball (once per test process). */
export function tarball() {
  if (packed) return packed.path;
  assert.ok(fs.existsSync(path.join(PKG_DIR, "package.json")), `no built package at ${PKG_DIR}: run \`npm run build\` first`);
  const { packDir, packed: info } = packHookwise("hookwise-e2e-claude-pack-");
  packed = { dir: packDir, path: path.join(packDir, info[0].filename) };
  process.on("exit", () => fs.rmSync(packDir, { recursive: true, force: true }));
  return packed.path;
}

/** PATH entries with no `maenifold` in them. */
export { pathWithoutMaenifold };

/** The env for the fake maenifold on PATH, answering from a private copy of its fixture root. */
export function fakeMaenifold(dir, extra = {}) {
  const root = path.join(dir, "maenifold-root");
  fs.cpSync(FIXTURE_ROOT, root, { recursive: true });
  const log = path.join(dir, "maenifold.log");
  return {
    root,
    log,
    env: {
      PATH: `${FAKE_DIR}:${pathWithoutMaenifold()}`,
      MAENIFOLD_ROOT: root,
      FAKE_MAENIFOLD_LOG: log,
      // RecentActivity's "last 24 h" is relative to this; the fixture's newest note is 2026-11-21 16:40.
      FAKE_MAENIFOLD_NOW: "2026-11-21T20:00:00Z",
      ...extra,
    },
    calls: () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []),
  };
}

export { vaultFiles } from "../../e2e-shared/fixtures.mjs";

/** A sandbox project with `files`, hookwise installed from the tarball and set up by `hookwise init --claude`. */
export function hookwiseProject({ files = {}, env = {}, git = false, initArgs = [] } = {}) {
  const sb = makeSandbox({ files, env: { PATH: pathWithoutMaenifold(), ...env }, git });
  sb.installHookwise(tarball(), { initArgs });
  sb.settings = () => JSON.parse(sb.read(".claude/settings.json"));
  sb.mcpConfig = () => JSON.parse(sb.read(".mcp.json"));
  return sb;
}

/** The `role: "system"` message texts of a request that carry a hook's additionalContext for `event`. */
export function hookContext(req, event) {
  const prefix = `${event} hook additional context: `;
  return req
    .systemMessages()
    .flatMap((s) => s.split(/\n\n(?=\S+ hook additional context: )/))
    .filter((s) => s.includes(prefix))
    .map((s) => s.slice(s.indexOf(prefix) + prefix.length));
}

/** `(f)`: one hookwise MCP server, a child of this run's claude, and nothing left after it exited. */
export function assertOneServer(r) {
  // A process the server forks carries the server's command line until it execs (the poll can
  // catch a maenifold child in that instant): only servers whose parent is not a server count.
  const all = r.mcpServers();
  const pids = new Set(all.map((p) => p.pid));
  const servers = all.filter((p) => !pids.has(p.ppid));
  assert.equal(servers.length, 1, `one hookwise MCP server per claude process, saw ${JSON.stringify(servers.map((p) => [p.pid, p.ppid, p.cmdline]))}\n${r.describe()}`);
  const procs = () => JSON.stringify(r.procs.map((p) => [p.pid, p.ppid, p.firstSeen, p.cmdline.join(" ").slice(0, 100)]));
  assert.equal(servers[0].ppid, r.claudePid, `the server is claude's own child: ${procs()}`);
  assert.deepEqual(r.leftovers, [], `nothing of the sandbox outlives claude: ${JSON.stringify(r.leftovers)}`);
  return servers[0];
}

/** The hook context Claude Code placed right after the tool_result of `toolUseId` (the
 * `role: "system"` messages that follow that user turn), for `event` (e.g. "PreToolUse:Bash"). */
export function contextAfter(req, toolUseId, event) {
  const i = req.messages.findIndex((m) => m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b?.type === "tool_result" && b.tool_use_id === toolUseId));
  if (i < 0) return [];
  const following = [];
  for (let j = i + 1; j < req.messages.length && req.messages[j].role === "system"; j++) following.push(req.messages[j]);
  return hookContext({ systemMessages: () => following.map((m) => (typeof m.content === "string" ? m.content : m.content.map((b) => b.text ?? "").join("\n"))) }, event);
}

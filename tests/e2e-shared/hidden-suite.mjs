// Issue 38 in the real command-hook CLIs: a host's hidden shells and patches are judged as what
// they are. Codex: `apply_patch <<'EOF' … EOF` given to its shell (Codex applies it itself, with
// no hook after it) — out of the intent's scope blocked, in scope refused for the apply_patch tool. Qwen Code: the deferred
// `monitor {command}` reached through `tool_search` + `tool_call` — a shell, so a command that
// writes the intents file is blocked and the file is unchanged.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { HOSTS, agentProject, cliGate } from "./agents.mjs";
import { suiteGate } from "./gate.mjs";

const INTENTS = `active_intents:
  - id: INT-1
    name: Login form
    status: IN_PROGRESS
    owned_scope: ["src/auth/**"]
`;

const patch = (rel, old, now) => `*** Begin Patch\n*** Update File: ${rel}\n@@\n-${old}\n+${now}\n*** End Patch`;

export function hiddenSuite(host, calls, { modelName } = {}) {
  const h = HOSTS[host];
  const skip = suiteGate(cliGate(host), `e2e-${host}`, host);
  const ctx = {};
  describe(`hidden shells and patches in the real ${h.label} (issue 38)`, { skip }, () => {
    before(async () => {
      ctx.sb = agentProject(host, { files: { ".orchestration/active_intents.yaml": INTENTS, "src/auth/login.ts": "old\n", "README.md": "# demo\n" } });
      ctx.r = await ctx.sb.run({
        prompt: "Change the login.",
        ...(modelName ? { modelName } : {}),
        script: [...h.mcp("select_active_intent", { intent_id: "INT-1" }), ...calls(ctx.sb), "done"],
        timeoutMs: 180_000,
      });
    });
    after(() => ctx.sb?.cleanup());
    const results = () => ctx.r.model.mainRequests().at(-1)?.toolResults().map((t) => t.content) ?? [];
    test("each hidden call is judged as what it is", () => {
      const { r, sb } = ctx;
      const texts = results();
      console.log(`# ${h.label} results: ${JSON.stringify(texts.map((t) => t.slice(0, 160)))}`);
      ctx.check(texts, sb, r);
    });
  });
  return ctx;
}

export { INTENTS, patch, fs, path, assert };

// A governed shell in a command-hook host that applies a rewritten input (PreToolUse
// `updatedInput`): under INT-1 (src/auth/**) the host runs the call as hookwise rewrote it, in
// the confined shell — an in-scope write lands, a write outside the scope is refused by the
// kernel (Linux: Landlock), whatever the command line says. Used by hosts whose suites have no
// other confined-shell check (tests/e2e-factory, tests/e2e-auggie).
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { HOSTS, agentProject, cliGate, assertRunOk, assertNothingLeft } from "./agents.mjs";
import { suiteGate } from "./gate.mjs";
import { INTENTS } from "./fixtures.mjs";

export function confinedSuite(host) {
  const h = HOSTS[host];
  const skip = process.platform !== "linux" ? "Linux only (Landlock)" : suiteGate(cliGate(host), `e2e-${host}`, host);
  const ctx = {};
  describe(`a governed shell runs confined in the real ${h.label}`, { skip }, () => {
    before(async () => {
      ctx.sb = agentProject(host, { files: { ".orchestration/active_intents.yaml": INTENTS, "src/auth/.keep": "", "README.md": "# demo\n" } });
      // the file outside the scope is named at run time: the kernel, not the reader, refuses it
      const outside = "$(printf 'READ%s' ME.md)";
      ctx.r = await ctx.sb.run({
        prompt: "Write the files.",
        script: [...h.mcp("select_active_intent", { intent_id: "INT-1" }), h.shell(`echo in > src/auth/in.txt; echo out > ${outside}; echo exit=$?`), "done"],
      });
    });
    after(() => ctx.sb?.cleanup());

    test("the in-scope write lands, the write outside the scope is refused by the kernel", () => {
      const { r, sb } = ctx;
      assertRunOk(assert, r);
      assert.equal(sb.read("src/auth/in.txt"), "in\n", r.describe());
      assert.equal(sb.read("README.md"), "# demo\n", `README.md unchanged\n${r.describe()}`);
      const last = r.model.mainRequests().at(-1).toolResults().map((t) => t.content).join("\n");
      assert.match(last, /exit=[1-9]/, `the shell saw the write fail\n${r.describe()}`);
      assertNothingLeft(assert, r);
    });
  });
}

// Knowledge context in the REAL Claude Code (pinned, offline, scripted API), hookwise packed with
// `npm pack`, installed into the project and set up by `hookwise init --claude`:
//   vault     — the example vault (examples/vault, "Larkspur") in the project's `.hookwise/knowledge/`,
//               no maenifold anywhere: a Bash call naming [[Session Tokens]] runs unchanged and the
//               concept's context reaches the model (issue 22 (a));
//   maenifold — the fake maenifold (tests/fake-maenifold) on PATH, over its warm MCP session: the
//               first request carries the session-start context (d); two Bash calls naming [[auth]]
//               and [[jwt]] run unchanged and their context reaches the model (a); ONE maenifold
//               process answered everything; then a second turn (`--resume`).
//   agent     — the same vault: an Agent (sub-agent) call whose prompt names [[Session Tokens]]: the
//               sub-agent's own first request carries the context block (hookwise's updatedInput),
//               the main history keeps the model's original prompt;
//   command   — the same vault, set up by `hookwise init --claude --command` (the `command` fallback:
//               `hookwise hook <Event>`, one process per event): the same context, and no MCP server.
// In every MCP run: one hookwise MCP server per `claude` process, its child, none left after exit (f).
//
//   node --test tests/e2e-claude/knowledge.test.mjs     (needs pkg/: run `npm run build` first)
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { e2eGate, assertRunOk, processAlive } from "./lib/claude.mjs";
import { contentText } from "./lib/api.mjs";
import { hookwiseProject, fakeMaenifold, vaultFiles, hookContext, contextAfter, assertOneServer, SERVER, HOOK_TOOLS } from "./lib/hookwise.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";

const suiteSkip = suiteGate(e2eGate(), "e2e-claude knowledge", "claude");

const VAULT_COMMAND = `printf 'result:%s\\n' "[[Session Tokens]]"`;
const VAULT_SCRIPT = [{ tool: "Bash", id: "toolu_vault", input: { command: VAULT_COMMAND, description: "Print a result" } }, "all done"];

const AGENT_TASK = "SUBAGENT-TASK";
const AGENT_PROMPT = `${AGENT_TASK}: look into [[Session Tokens]]`;
const firstUserText = (req) => contentText(req.messages.find((m) => m.role === "user")?.content);

function maenifoldScript(req) {
  switch (req.toolResults().length) {
    case 0:
      return { tool: "Bash", id: "toolu_one", input: { command: `printf 'one:%s\\n' "[[auth]]"`, description: "one" } };
    case 1:
      return { tool: "Bash", id: "toolu_two", input: { command: `printf 'two:%s\\n' "[[jwt]] [[auth]]"`, description: "two" } };
    default:
      return "done";
  }
}

describe("knowledge context in the real Claude Code", { skip: suiteSkip }, () => {
  const sandboxes = [];
  let vault, mae, resumed, fake, command, vsbRef, agent, commandDir;

  before(async () => {
    const vsb = hookwiseProject({ files: vaultFiles(".hookwise/knowledge") });
    sandboxes.push(vsb);
    vsbRef = vsb;
    const asb = hookwiseProject({ files: vaultFiles(".hookwise/knowledge") });
    sandboxes.push(asb);
    const csb = hookwiseProject({ files: vaultFiles(".hookwise/knowledge"), initArgs: ["--command"] });
    sandboxes.push(csb);
    commandDir = csb.dir;
    const msb = hookwiseProject();
    sandboxes.push(msb);
    fake = fakeMaenifold(msb.root, { FAKE_MAENIFOLD_STARTUP_MS: "300" });
    Object.assign(msb.env, fake.env);
    [vault, command, mae, agent] = await Promise.all([
      vsb.run({ prompt: "Check the [[Session Tokens]] notes.", script: VAULT_SCRIPT }),
      csb.run({ prompt: "Check the [[Session Tokens]] notes.", script: VAULT_SCRIPT }),
      msb.run({ prompt: "Check [[auth]].", script: maenifoldScript }),
      asb.run({
        prompt: "Delegate it.",
        allowedTools: "Bash Write Edit Read Agent",
        script: (req) => {
          if (firstUserText(req).includes(AGENT_TASK)) return "sub-agent finished";
          return req.toolResults().length === 0 ? { tool: "Agent", id: "toolu_agent", input: { description: "Look it up", prompt: AGENT_PROMPT, subagent_type: "claude" } } : "main done";
        },
      }),
    ]);
    resumed = await msb.run({ prompt: "And once more [[auth]].", resume: mae.sessionId, script: [{ tool: "Bash", id: "toolu_three", input: { command: "printf 'three:%s\\n' '[[auth]]'", description: "three" } }, "done again"] });
  });

  after(() => sandboxes.forEach((s) => s.cleanup()));

  test("vault: the Bash call runs unchanged and the concept's context reaches the model", () => {
    assertRunOk(assert, vault);
    const at = vault.afterTool("toolu_vault");
    assert.ok(at, vault.describe());
    assert.deepEqual(at.result, { toolUseId: "toolu_vault", content: "result:[[Session Tokens]]", isError: false }, "the command ran as the model wrote it");
    assert.equal(at.req.toolUses().find((u) => u.id === "toolu_vault").input.command, VAULT_COMMAND);
    const ctx = contextAfter(at.req, "toolu_vault", "PreToolUse:Bash").join("\n");
    assert.ok(ctx.includes("[[session-tokens]]"), `the concept's context in a system message after the tool result\n${vault.describe()}`);
    assert.ok(ctx.includes("SHA-256 hash of each refresh token"), `a passage of the note itself\n${ctx}`);
  });

  test("agent: the sub-agent's prompt carries the context block; the main history keeps the original", () => {
    assertRunOk(assert, agent);
    const sub = agent.requests().filter((q) => firstUserText(q).includes(AGENT_TASK));
    assert.ok(sub.length >= 1, `the sub-agent made its own request\n${agent.describe()}`);
    const prompt = firstUserText(sub[0]);
    assert.ok(prompt.includes("<!-- Knowledge Graph Context (hookwise) -->") && prompt.includes("[[session-tokens]]"), `context block in the sub-agent's prompt:\n${prompt.slice(-2500)}`);
    assert.ok(prompt.includes(AGENT_PROMPT), "the task itself is still there");
    const main = agent.mainRequests().filter((q) => !firstUserText(q).includes(AGENT_TASK)).at(-1);
    assert.deepEqual(main.toolUses().find((u) => u.id === "toolu_agent").input.prompt, AGENT_PROMPT, "the main history keeps the model's own prompt");
  });

  test("command fallback: the same context through `hookwise hook PreToolUse`, and no MCP server", () => {
    assertRunOk(assert, command);
    const at = command.afterTool("toolu_vault");
    assert.deepEqual(at.result, { toolUseId: "toolu_vault", content: "result:[[Session Tokens]]", isError: false });
    const ctx = contextAfter(at.req, "toolu_vault", "PreToolUse:Bash").join("\n");
    assert.ok(ctx.includes("[[session-tokens]]") && ctx.includes("SHA-256 hash of each refresh token"), command.describe());
    assert.deepEqual(command.mcpServers(), [], "no hookwise MCP server in command mode");
    // the entry's hook script (dist/hook.sh), the native client (`hookwise-native hook …`) or Node (dist/hook.cjs)
    // (a native hook answers in a few ms, often between two samples of the process list: the
    // context above with no MCP server is what shows the command hook answered; the sample is told)
    const seen = command.procs.some((p) => p.cmdline.includes("PreToolUse") && p.cmdline.some((a) => a === "hook" || /\/hookwise\/dist\/hook\.(?:sh|cjs)$/.test(a)));
    console.log(`# a hook process was ${seen ? "" : "not "}seen by the process sampler`);
    // The warm hook server the first hook started outlives claude by design (it serves the next
    // session; it exits when idle or when the project goes: tests/js/warm.test.mjs); nothing else.
    const warm = command.leftovers.filter((p) => p.cmdline.some((a) => a.endsWith("warm-server.cjs")));
    assert.deepEqual(command.leftovers.filter((p) => !warm.includes(p)), []);
    assert.ok(warm.length <= 1 && warm.every((p) => p.cmdline.includes(commandDir)), JSON.stringify(warm));
  });

  test("maenifold: the first request carries the session-start context", () => {
    assertRunOk(assert, mae);
    const [first] = mae.mainRequests();
    const ctx = hookContext(first, "UserPromptSubmit").join("\n");
    assert.ok(ctx.length > 0, `UserPromptSubmit context in the first request\n${mae.describe()}`);
    assert.match(ctx, /Knowledge Graph/, ctx);
    assert.ok(first.systemMessages()[0].includes("UserPromptSubmit hook additional context: "), "in the first system message, before the model's first answer");
  });

  test("maenifold: both Bash calls run unchanged and their context reaches the model", () => {
    for (const [id, out, concept] of [
      ["toolu_one", "one:[[auth]]", "[[auth]]"],
      ["toolu_two", "two:[[jwt]] [[auth]]", "[[jwt]]"],
    ]) {
      const at = mae.afterTool(id);
      assert.ok(at, mae.describe());
      assert.deepEqual(at.result, { toolUseId: id, content: out, isError: false });
      const ctx = contextAfter(at.req, id, "PreToolUse:Bash").join("\n");
      assert.ok(ctx.includes(concept), `${id}: context for ${concept}\n${mae.describe()}`);
    }
  });

  test("maenifold: ONE maenifold process (its warm MCP session) answered every lookup of a claude process, and it is gone", async () => {
    const calls = fake.calls();
    const starts = calls.filter((c) => c.event === "start");
    // two claude processes (the turn and its --resume): one maenifold session each
    assert.equal(starts.length, 2, JSON.stringify(calls.map((c) => [c.mode, c.event, c.tool, c.pid])));
    assert.ok(starts.every((s) => s.mode === "mcp"), "over MCP");
    assert.deepEqual(calls.filter((c) => c.mode === "cli"), [], "no CLI process at all");
    const first = calls.filter((c) => c.pid === starts[0].pid && c.event === "call").map((c) => c.tool);
    assert.ok(first.filter((t) => t === "build_context").length >= 2, first.join(","));
    for (const s of starts) assert.equal(processAlive(s.pid), false, `maenifold --mcp (pid ${s.pid}) outlived claude`);
  });

  test("one hookwise MCP server per claude process, its child, none left after exit", () => {
    assertOneServer(vault);
    const a = assertOneServer(mae);
    assertRunOk(assert, resumed);
    const b = assertOneServer(resumed);
    assert.notEqual(a.pid, b.pid, "the --resume turn is another claude process with its own server");
    assert.ok(contextAfter(resumed.afterTool("toolu_three").req, "toolu_three", "PreToolUse:Bash").join("").includes("[[auth]]"), resumed.describe());
  });

  test("the hook tools are hidden from the model (init denies them); what it is offered is reported", () => {
    const first = vault.requests()[0];
    const text = first.systemMessages().join("\n");
    const offered = [...text.matchAll(new RegExp(`mcp__${SERVER}__[a-z_]+`, "g"))].map((m) => m[0]);
    const hookTools = HOOK_TOOLS.map((t) => `mcp__${SERVER}__${t}`);
    const denied = vsbRef.settings().permissions?.deny ?? [];
    const shown = hookTools.filter((t) => offered.includes(t));
    console.log(`# the model is offered from hookwise's server (deferred): ${[...new Set(offered)].join(", ") || "nothing"}`);
    // a permissions.deny rule hides a tool from the model while its mcp_tool hook still runs
    // (harness.test.mjs checks that in this CLI); init --claude writes one per hook tool
    assert.deepEqual(hookTools.filter((t) => !denied.includes(t)), [], "init --claude denies every hook tool");
    assert.deepEqual(shown, [], "so the model is offered none of them");
  });
});

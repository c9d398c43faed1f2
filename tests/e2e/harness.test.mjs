// Harness behaviours beyond the smoke checks: automatic compaction driven by
// the scripted usage, a git project, and a hard timeout that leaves no
// processes behind. Real OpenCode; skips like smoke.test.mjs.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { e2eGate, runOpencode, assertRunOk, processAlive } from "./lib/opencode.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";

// Under CI a missing binary is a failure, not a skip.
const suiteSkip = suiteGate(e2eGate(), "e2e harness", "opencode");

const COMPACT_PLUGIN = `
export default {
  id: "compact-probe",
  server: async ({ client }, options) => {
    const log = (message, extra = {}) =>
      client.app.log({ body: { service: "compact-probe", level: "info", message, extra: { service: "compact-probe", ...extra } } });
    return {
      "experimental.session.compacting": async (input, output) => {
        output.context.push(options.marker);
        await log("compacting", { sessionID: input.sessionID });
      },
      event: async ({ event }) => {
        if (event.type === "session.compacted") await log("compacted");
      },
    };
  },
};
`;

describe("e2e harness: compaction, git, timeout", { skip: suiteSkip }, () => {
  let compacted;
  let hung;

  before(async () => {
    [compacted, hung] = await Promise.all([
      runOpencode({
        prompt: "Start the long task.",
        git: true,
        files: { "README.md": "# demo\n" },
        plugins: [{ code: COMPACT_PLUGIN }],
        pluginOptions: { marker: "COMPACTION-CONTEXT-MARKER" },
        script: [
          // Report a near-full context: OpenCode compacts before the next step.
          { tool: "bash", id: "call_ls", args: { command: "ls", description: "list" }, usage: { prompt_tokens: 199000 } },
          "continued after compaction",
        ],
        modelOptions: { summary: "## Objective\n- scripted summary" },
      }),
      runOpencode({
        prompt: "Hang.",
        script: [{ tool: "bash", id: "call_sleep", args: { command: "sleep 91; echo never", description: "hang" } }],
        timeoutMs: 12_000,
      }),
    ]);
    assertRunOk(compacted);
  });

  after(() => {
    compacted?.cleanup();
    hung?.cleanup();
  });

  test("huge usage.prompt_tokens triggers compaction; the hook's context reaches the summary request", () => {
    const kinds = compacted.requests().map((r) => r.kind).filter((k) => k !== "title");
    assert.deepEqual(kinds, ["main", "compaction", "main"], compacted.describe());
    const summaryReq = compacted.model.compactionRequests()[0];
    assert.ok(summaryReq.findText("COMPACTION-CONTEXT-MARKER"));
    assert.equal(summaryReq.tools.length, 0);
    const after = compacted.mainRequests()[1];
    assert.ok(after.findText("scripted summary"), "the summary replaces the history");
    assert.ok(!after.findText("Start the long task."), "the original prompt is compacted away");
    assert.ok(compacted.logs.find({ service: "compact-probe", message: "compacting" }));
    assert.ok(compacted.logs.find({ service: "compact-probe", message: "compacted" }));
    assert.ok(fs.existsSync(`${compacted.dir}/.git`));
  });

  test("a hung run is killed at timeoutMs, tool processes included", () => {
    assert.equal(hung.timedOut, true, hung.describe());
    assert.equal(hung.code, null);
    assert.ok(hung.durationMs < 20_000);
    assert.equal(processAlive(hung.pid), false);
    // Once the model has answered the bash call, the sleep was running in its
    // own process group and only the harness's sweep could end it.
    if (hung.mainRequests().length > 0) assert.ok(hung.strays.length > 0, "expected the sleeping tool shell to be swept");
    for (const pid of hung.strays) assert.equal(processAlive(pid), false, `stray ${pid} still alive`);
  });
});

// Proves the e2e harness against the real OpenCode binary with throwaway
// plugins (not hookwise). Run: node --test tests/e2e/smoke.test.mjs
// Needs OPENCODE_BIN or <repo>/node_modules/.bin/opencode; skips without it,
// and fails without it when CI is set.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { e2eGate, runOpencode, assertRunOk } from "./lib/opencode.mjs";
import { suiteGate } from "../e2e-shared/gate.mjs";

// Under CI a missing binary is a failure, not a skip.
const suiteSkip = suiteGate(e2eGate(), "e2e smoke", "opencode");

const SYSTEM_MARKER = "SMOKE-SYSTEM-MARKER: be brief.";
const NOTE = "# note: checked by the smoke plugin";
const APPENDED = "\n[smoke: appended by tool.execute.after]";
const BLOCK_MESSAGE = "Blocked by smoke plugin: this command is not allowed.";

// A throwaway plugin exercising the hooks the project relies on. Loaded by
// path, so it default-exports { id, server } (every other export would be
// called as a plugin function).
const SMOKE_PLUGIN = `
const SERVICE = "smoke-plugin";
export default {
  id: "smoke-plugin",
  server: async ({ client }, options) => {
    const log = (level, message, extra = {}) =>
      client.app.log({ body: { service: SERVICE, level, message, extra: { service: SERVICE, ...extra } } });
    await log("info", "smoke plugin ready", { options: JSON.stringify(options ?? null) });
    return {
      "experimental.chat.system.transform": async (_input, output) => {
        output.system.push(${JSON.stringify(SYSTEM_MARKER)});
      },
      "tool.execute.before": async (input, output) => {
        if (input.tool !== "bash") return;
        const cmd = String(output.args.command ?? "");
        await log("debug", "before bash", { command: cmd });
        if (cmd.includes("blocked-case")) throw new Error(${JSON.stringify(BLOCK_MESSAGE)});
        if (cmd.includes("note-case")) output.args.command = ${JSON.stringify(NOTE)} + "\\n" + cmd;
      },
      "tool.execute.after": async (input, output) => {
        if (input.tool !== "bash") return;
        if (String(input.args?.command ?? "").includes("after-case")) output.output += ${JSON.stringify(APPENDED)};
      },
    };
  },
};
`;

/** The tool result with this call id, as the model saw it in `req`. */
function resultFor(req, callId) {
  return req.toolResults().find((r) => r.toolCallId === callId)?.content;
}

describe("e2e harness smoke (real OpenCode, scripted model)", { skip: suiteSkip }, () => {
  let plain; // no plugin
  let hooked; // the smoke plugin
  let packaged; // npm-packed plugins, three install modes
  let packDir;

  before(async () => {
    packDir = fs.mkdtempSync(path.join(os.tmpdir(), "hookwise-e2e-pack-"));
    const tarballs = ["cache", "opencode", "project"].map((mode) => packPlugin(packDir, `e2e-smoke-${mode}`));
    // Three OpenCode runs at once: on 2 cores this is faster than in a row.
    [plain, hooked, packaged] = await Promise.all([
      runOpencode({
        prompt: "Run printf for me.",
        script: [{ tool: "bash", id: "call_plain", args: { command: "printf 'plain-case\\n'", description: "print" } }, "ok"],
      }),
      runOpencode({
        prompt: "Exercise the hooks.",
        plugins: [{ code: SMOKE_PLUGIN, name: "smoke-plugin.mjs", options: { flavour: "smoke" } }],
        script: [
          { tool: "bash", id: "call_note", args: { command: "printf 'note-case\\n'", description: "note" } },
          { tool: "bash", id: "call_after", args: { command: "printf 'after-case\\n'", description: "after" } },
          { tool: "bash", id: "call_block", args: { command: "printf 'blocked-case\\n' > blocked.txt", description: "block" } },
          "all done",
        ],
      }),
      runOpencode({
        prompt: "hello",
        plugins: [
          { tarball: tarballs[0], install: "cache", options: { mode: "cache" } },
          { tarball: tarballs[1], install: "opencode", options: { mode: "opencode" } },
          { tarball: tarballs[2], install: "project", options: { mode: "project" } },
        ],
        script: ["hi"],
      }),
    ]);
    for (const r of [plain, hooked, packaged]) assertRunOk(r);
  });

  after(() => {
    for (const r of [plain, hooked, packaged]) r?.cleanup();
    if (packDir) fs.rmSync(packDir, { recursive: true, force: true });
  });

  test("(a) a scripted bash call runs and its output reaches the next request", () => {
    const main = plain.mainRequests();
    assert.equal(main.length, 2, plain.describe());
    assert.equal(resultFor(main[1], "call_plain"), "plain-case\n");
    assert.equal(main[1].assistantToolCalls()[0].args.command, "printf 'plain-case\\n'");
    const use = plain.toolUses().find((u) => u.callID === "call_plain");
    assert.equal(use?.status, "completed");
    assert.equal(plain.text().trim(), "ok");
  });

  test("(b) tool.execute.before prepending a # comment leaves output alone and rewrites the model's own call", () => {
    const next = hooked.mainRequests()[1];
    assert.equal(resultFor(next, "call_note"), "note-case\n");
    const call = next.assistantToolCalls().find((c) => c.id === "call_note");
    assert.equal(call.args.command, `${NOTE}\nprintf 'note-case\\n'`);
  });

  test("(c) tool.execute.after appending to output.output is what the model reads", () => {
    const next = hooked.mainRequests()[2];
    assert.equal(resultFor(next, "call_after"), `after-case\n${APPENDED}`);
  });

  test("(d) throwing in tool.execute.before blocks the tool and the model gets exactly the message", () => {
    const last = hooked.mainRequests()[3];
    assert.equal(resultFor(last, "call_block"), BLOCK_MESSAGE);
    assert.equal(fs.existsSync(path.join(hooked.dir, "blocked.txt")), false, "blocked command must not run");
    const use = hooked.toolUses().find((u) => u.callID === "call_block");
    assert.equal(use?.status, "error");
    assert.equal(hooked.text().trim(), "all done");
  });

  test("(e) experimental.chat.system.transform reaches the FIRST request's system prompt", () => {
    const first = hooked.mainRequests()[0];
    assert.ok(first.system.includes(SYSTEM_MARKER), "marker missing from first system prompt");
    assert.ok(!plain.mainRequests()[0].system.includes(SYSTEM_MARKER));
  });

  test("(f) client.app.log lines from the plugin are in OpenCode's log file", () => {
    const ready = hooked.logs.find({ message: "smoke plugin ready" });
    assert.ok(ready, `no plugin log line\n${hooked.describe()}`);
    assert.equal(ready.service, "smoke-plugin");
    assert.equal(ready.options, JSON.stringify({ flavour: "smoke" }));
    const before = hooked.logs.filter({ service: "smoke-plugin", message: "before bash" });
    assert.equal(before.length, 3);
    assert.equal(before[0].level, "DEBUG");
  });

  test("npm-packed plugins load offline in all three install modes, with options", () => {
    for (const mode of ["cache", "opencode", "project"]) {
      const line = packaged.logs.find({ message: "packed plugin loaded", service: `e2e-smoke-${mode}` });
      assert.ok(line, `e2e-smoke-${mode} did not load\n${packaged.describe()}`);
      assert.equal(line.options, JSON.stringify({ mode }));
      assert.equal(line.postinstall, "false", "install scripts must not run");
    }
    const cache = packaged.logs.find({ service: "e2e-smoke-cache" });
    assert.match(cache.url, /\/opencode\/packages\/e2e-smoke-cache@latest\/node_modules\/e2e-smoke-cache\//);
    const project = packaged.logs.find({ service: "e2e-smoke-project" });
    assert.ok(project.url.startsWith(`file://${packaged.dir}/node_modules/e2e-smoke-project/`));
    assert.deepEqual(packaged.sandbox.config.plugin.map((p) => p[0]).slice(0, 2), [
      "e2e-smoke-cache",
      `e2e-smoke-opencode@file:${path.join(packDir, "e2e-smoke-opencode-0.0.1.tgz")}`,
    ]);
  });
});

/** `npm pack` a tiny plugin package whose postinstall would leave a marker file. */
function packPlugin(dir, name) {
  const src = path.join(dir, name);
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(
    path.join(src, "package.json"),
    JSON.stringify({
      name,
      version: "0.0.1",
      type: "module",
      exports: { "./server": "./server.mjs" },
      main: "./server.mjs",
      scripts: { postinstall: "node -e \"require('fs').writeFileSync('postinstall-ran','')\"" },
    }),
  );
  fs.writeFileSync(
    path.join(src, "server.mjs"),
    `import fs from "node:fs";
export default {
  id: ${JSON.stringify(name)},
  server: async ({ client }, options) => {
    const postinstall = fs.existsSync(new URL("./postinstall-ran", import.meta.url));
    await client.app.log({ body: { service: ${JSON.stringify(name)}, level: "info", message: "packed plugin loaded",
      extra: { service: ${JSON.stringify(name)}, options: JSON.stringify(options ?? null), url: import.meta.url, postinstall } } });
    return {};
  },
};
`,
  );
  const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], {
    cwd: src,
    encoding: "utf8",
    env: { ...process.env, npm_config_offline: "true", npm_config_update_notifier: "false" },
  });
  const tgz = path.join(dir, out.trim().split("\n").pop());
  // Remove the source so a file:// spec cannot fall back to it by accident.
  fs.rmSync(src, { recursive: true, force: true });
  return tgz;
}

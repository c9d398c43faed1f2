// What the model does in each case, against the double (host.mjs). Each returns what the
// model would have seen; tests/opencode2/opencode2.test.mjs asserts on it.
import fs from "node:fs";
import path from "node:path";
import { traceText, traceExists, traceFiles, traceRecords as traceRecordsOf } from "../../e2e-shared/trace-files.mjs";

const systemTexts = (event) => event.system.map((p) => p.text);
const exists = (dir, f) => fs.existsSync(path.join(dir, f));

/** Loading only: the tools offered and a request's system prompt. */
export async function load(host) {
  host.createSession("ses_load");
  const req = await host.request("ses_load");
  return { system: systemTexts(req), selectSchema: host.toolSchema("select_active_intent") || null };
}

/** Knowledge context: session start, a shell call with a WikiLink, a sub-agent, compaction. */
export async function knowledge(host, { directory }) {
  host.createSession("ses_k");
  const first = await host.request("ses_k");
  const second = await host.request("ses_k");
  const shell = await host.call("ses_k", "shell", { command: "echo '[[auth]] checked'" });
  const plain = await host.call("ses_k", "shell", { command: "echo plain" });
  const compacted = await host.compact("ses_k", {
    messages: [
      { role: "user", content: [{ type: "text", text: "Work on [[auth]] and [[rate-limiting]]." }] },
      { role: "assistant", content: [{ type: "text", text: "We decided to use [[session-tokens]] for [[auth]]." }] },
    ],
  });
  // a sub-agent session gets no session-start context
  host.createSession("ses_child", "ses_k");
  const child = await host.request("ses_child");
  return {
    first: systemTexts(first),
    second: systemTexts(second),
    shell,
    plain,
    compaction: systemTexts(compacted),
    child: systemTexts(child),
    files: fs.readdirSync(directory).sort(),
  };
}

/** Intent governance: blocked before an intent, inside the scope after, outside blocked. */
export async function governance(host, { directory }) {
  host.createSession("ses_g");
  const LOGIN = "export const login = () => fetch('/login', { method: 'POST' });\n";
  const early = await host.call("ses_g", "write", { path: "src/auth/login.ts", content: LOGIN });
  const earlyWritten = exists(directory, "src/auth/login.ts");
  const selected = await host.call("ses_g", "select_active_intent", { intent_id: "INT-1" });
  const req = await host.request("ses_g");
  const inside = await host.call("ses_g", "write", { path: "src/auth/login.ts", content: LOGIN });
  const insideWritten = exists(directory, "src/auth/login.ts");
  const outside = await host.call("ses_g", "write", { path: "docs/leak.md", content: "x" });
  const outsideWritten = exists(directory, "docs/leak.md");
  const decoy = await host.call("ses_g", "write", { path: "src/auth/ok.ts", filePath: "docs/leak.md", content: "x" });
  const edit = await host.call("ses_g", "edit", { path: "README.md", oldString: "demo", newString: "owned" });
  const unknownIntent = await host.call("ses_g", "select_active_intent", { intent_id: "INT-404" });
  const trace = traceRecordsOf(directory);
  return { selectSchema: host.toolSchema("select_active_intent") || null, early, earlyWritten, selected, system: systemTexts(req), inside, insideWritten, outside, outsideWritten, decoy, edit, readme: fs.readFileSync(path.join(directory, "README.md"), "utf8"), unknownIntent, trace };
}

/** Pre-action enforcement: a strict SOP blocks the first call, lets the retry through. */
export async function enforcement(host, { command }) {
  host.createSession("ses_e");
  const first = await host.call("ses_e", "shell", { command, workdir: "." });
  const retry = await host.call("ses_e", "shell", { command, workdir: "." });
  const readOnly = await host.call("ses_e", "shell", { command: "ls" });
  return { first, retry, readOnly };
}

/** The model as an attacker, governance on and INT-1 selected: odd inputs never slip through. */
export async function hostile(host, { directory }) {
  host.createSession("ses_h");
  await host.call("ses_h", "select_active_intent", { intent_id: "INT-1" });
  let deep = { path: "docs/deep.md", content: "x" };
  for (let i = 0; i < 5000; i++) deep = { path: "src/auth/ok.ts", nested: deep };
  const calls = {
    string: await host.call("ses_h", "write", "docs/leak.md"),
    array: await host.call("ses_h", "write", ["docs/leak.md", "x"]),
    nullInput: await host.call("ses_h", "write", null),
    deep: await host.call("ses_h", "write", deep),
    dotdot: await host.call("ses_h", "write", { path: "src/auth/../../docs/leak.md", content: "x" }),
    absolute: await host.call("ses_h", "write", { path: path.join(directory, "docs/leak.md"), content: "x" }),
    patch: await host.call("ses_h", "patch", { patchText: "*** Begin Patch\n*** Add File: docs/leak.md\n+x\n*** End Patch" }),
    shellNoCommand: await host.call("ses_h", "shell", { cmd: "touch docs-leak" }),
    filePathOnly: await host.call("ses_h", "write", { filePath: "docs/leak.md", content: "x" }),
  };
  // a context request with odd parts does not break the session
  const odd = await host.request("ses_h", { messages: [{ role: "user", content: "[[x]]".repeat(10_000) }] });
  return { calls, leaked: fs.existsSync(path.join(directory, "docs")) || fs.existsSync(path.join(directory, "docs-leak")), oddSystem: odd.system.length };
}

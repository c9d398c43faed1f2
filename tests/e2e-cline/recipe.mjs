// How the real Cline CLI runs offline (facts: plugin-hosts.md, checked against cline 3.0.65):
// `cline auth` writes the provider into a config and data folder of the sandbox's home, then
// `cline --json … -c <project> PROMPT` runs one task headless; stdout is JSONL. The recipe is
// added to the shared harness's HOSTS, so agentProject("cline") installs the packed hookwise and
// runs `hookwise init --cline` (the plugin file .cline/plugins/hookwise.js), as a user would.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { HOSTS, cliGate } from "../e2e-shared/agents.mjs";

const dirs = (sb) => ({ config: path.join(sb.home, ".cline"), data: path.join(sb.home, ".cline", "data") });

HOSTS.cline = {
  label: "Cline CLI",
  defaultModel: "mock-1",
  user(sb, model, o) {
    const { config, data } = dirs(sb);
    execFileSync(process.execPath, [cliGate("cline").bin, "auth", "-p", "openai-compatible", "-k", "x", "-m", o.modelName, "-b", model.baseURL, "--config", config, "--data-dir", data], {
      cwd: sb.dir,
      env: sb.env,
      encoding: "utf8",
      timeout: 60_000,
    });
    o.sb = sb;
    // Cline drops every plugin when its sandbox takes over 4 s to load them (jiti alone takes
    // 2-3 s of that on a busy machine): the documented knob, raised as the README advises
    return { NO_COLOR: "1", CLINE_PLUGIN_IMPORT_TIMEOUT_MS: "20000" };
  },
  argv: (bin, prompt, o) => {
    const { config, data } = dirs(o.sb);
    return [process.execPath, [bin, "--json", "-P", "openai-compatible", "-m", o.modelName, "-k", "x", "--config", config, "--data-dir", data, "-c", o.sb.dir, "-t", "90", prompt]];
  },
  // the shell takes a list of commands
  shell: (command) => ({ tool: "run_commands", args: { commands: [command] } }),
  commands: (commands) => ({ tool: "run_commands", args: { commands } }),
  // editor creates a missing file with new_text, or replaces old_text
  write: (rel, content, { exists = false, old = "" } = {}, sb) =>
    ({ tool: "editor", args: exists ? { path: sb.abs(rel), old_text: old, new_text: content } : { path: sb.abs(rel), new_text: content } }),
  // hookwise's tools are the plugin's own Cline tools
  mcp: (tool, args) => [{ tool, args }],
};

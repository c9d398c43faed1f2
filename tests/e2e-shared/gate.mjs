// The gate every real-host suite opens with (tests/e2e, tests/e2e-claude, tests/e2e-openclaw,
// tests/e2e-{codex,gemini,copilot,qwen}, tests/security): given its host's gate (`{skip}` when the host is not installed, `{error}`
// when CI needs it and it is missing), it says why the suite is skipped, or adds a failing test
// that names what is missing. Returns the suite's `skip` option.
import { test } from "node:test";
import assert from "node:assert/strict";

const HOSTS = {
  opencode: { needed: "OpenCode binary is available", missing: "OpenCode binary missing" },
  claude: { needed: "Claude Code is available", missing: "Claude Code missing" },
  openclaw: { needed: "OpenClaw install is available", missing: "OpenClaw install missing" },
  codex: { needed: "Codex is available", missing: "Codex missing" },
  gemini: { needed: "Gemini CLI is available", missing: "Gemini CLI missing" },
  copilot: { needed: "Copilot CLI is available", missing: "Copilot CLI missing" },
  qwen: { needed: "Qwen Code is available", missing: "Qwen Code missing" },
  pi: { needed: "pi is available", missing: "pi missing" },
  kilo: { needed: "Kilo CLI is available", missing: "Kilo CLI missing" },
};

/** `gate`: the host lib's gate; `label`: the suite's name in the skip line; `host`: a key of HOSTS. */
export function suiteGate(gate, label, host) {
  const { needed, missing } = HOSTS[host] ?? { needed: `${host} is available`, missing: `${host} missing` };
  if (gate.skip) console.log(`# ${label} ${gate.skip}`);
  if (gate.error) test(`${needed} (required when CI is set)`, () => assert.fail(gate.error));
  return gate.skip || (gate.error ? missing : false);
}

// The gate every real-host suite opens with (tests/e2e, tests/e2e-claude, tests/e2e-openclaw,
// tests/e2e-{codex,gemini,copilot,qwen}, tests/security): given its host's gate (`{skip}` when the host is not installed, `{error}`
// when CI needs it and it is missing), it says why the suite is skipped, or adds a failing test
// that names what is missing. Returns the suite's `skip` option.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** Every host of the registry (js/hosts.json, generated from src/hosts/), by its id or `init` flag. */
const HOSTS = require("../../js/hosts.json").hosts;
const named = (host) => {
  const h = HOSTS.find((x) => x.id === host || x.init === host);
  if (!h) throw new Error(`no host ${JSON.stringify(host)} in js/hosts.json`);
  return { needed: `${h.title} is available`, missing: `${h.title} missing` };
};

/** `gate`: the host lib's gate; `label`: the suite's name in the skip line; `host`: its id or `init` flag. */
export function suiteGate(gate, label, host) {
  const { needed, missing } = named(host);
  if (gate.skip) console.log(`# ${label} ${gate.skip}`);
  if (gate.error) test(`${needed} (required when CI is set)`, () => assert.fail(gate.error));
  return gate.skip || (gate.error ? missing : false);
}

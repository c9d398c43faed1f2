// The projects the real-host suites run every host on alike (OpenCode 1.x in tests/e2e, Claude
// Code in tests/e2e-claude, the OpenCode 2 double in tests/opencode2): the governed project's
// intents and the file written under one, and the enforcement project's two SOPs and the four
// bash calls a scripted model makes against them; the example vault as project files.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const EXAMPLE_VAULT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../examples/vault");

/** The example vault (examples/vault) as a `files` map under `prefix`. */
export function vaultFiles(prefix) {
  const out = {};
  for (const rel of fs.readdirSync(EXAMPLE_VAULT, { recursive: true })) {
    const p = path.join(EXAMPLE_VAULT, rel);
    if (fs.statSync(p).isFile()) out[path.posix.join(prefix, rel.split(path.sep).join("/"))] = fs.readFileSync(p, "utf8");
  }
  return out;
}

/** INT-1, in progress: the login form under src/auth/. */
const INT_1 = `  - id: INT-1
    name: Login form
    status: IN_PROGRESS
    owned_scope: [src/auth/**]
    constraints: [No new dependencies]
    acceptance_criteria: [The form posts to /login]
`;

/** active_intents.yaml with INT-1 alone. */
export const INTENTS_ONE = `active_intents:\n${INT_1}`;

/** active_intents.yaml with INT-1 and INT-2 (complete: docs/**). */
export const INTENTS = `${INTENTS_ONE}  - id: INT-2
    name: Old docs
    status: COMPLETE
    owned_scope: [docs/**]
`;

/** The file a model writes under INT-1 (src/auth/login.ts). */
export const LOGIN = "export function login(user: string) {\n  return fetch('/login', { method: 'POST', body: user });\n}\n";

export const FORCE = "git push --force --dry-run /nonexistent/hookwise-e2e.git HEAD";
// in a folder the project has: an enforcement-only project's shell runs confined by the kernel and
// makes no new top-level entry (issue 38)
export const ADVISED = "mkdir -p conf/nginx-conf";
export const READ_ONLY = "ls -la";
export const FORCE_MARKER = "E2E-FORCE-MARKER";
export const ADVICE_MARKER = "E2E-ADVICE-MARKER";

/**
 * The two SOPs in `dir` (`.opencode/sops` or `.hookwise/sops`): a strict one (process) for
 * `git push --force`, an advisory one (technical) for `nginx-conf`; `tools`, when given, the
 * `match.tools` line (`[bash]`).
 */
export function enforceSops(dir, tools) {
  const match = tools ? `  tools: ${tools}\n` : "";
  return {
    "conf/.keep": "",
    [`${dir}/force-push.md`]: `---
id: force-push
category: process
match:
${match}  patterns: ['git\\s+push\\s.*--force']
---
# Force-pushing

## Preflight
1. Announce it in the team channel (${FORCE_MARKER}).
2. Compare with the remote first.
`,
    [`${dir}/nginx.md`]: `---
id: nginx-advice
category: technical
match:
${match}  patterns: ['nginx-conf']
---
# nginx configuration

## Gotchas
Reload keeps connections; restart drops them (${ADVICE_MARKER}).
`,
  };
}

/**
 * The scripted model of the enforcement run: force push, the same again, the advised command,
 * a read-only one, then done. `call(id, command, description)` shapes one bash call as the host's
 * API does; the ids are `force1`, `force2`, `advised`, `ro`.
 */
export function enforceScript(call) {
  const calls = [
    ["force1", FORCE, "Force push"],
    ["force2", FORCE, "Force push again"],
    ["advised", ADVISED, "Make the folder"],
    ["ro", READ_ONLY, "List"],
  ];
  return (req) => {
    const c = calls[req.toolResults().length];
    return c ? call(...c) : "all done";
  };
}

// hookwise in the REAL Kimi Code (pinned by scripts/setup-clis.sh, on its Node 22), offline, against
// ../e2e-shared/model.mjs, set up by `hookwise init --kimi` (hooks in the user's config.toml, the MCP
// server in .kimi-code/mcp.json, the folder trusted as the user would): context only at prompt time,
// no model named, user-level hooks quiet outside hookwise projects (docs/hosts/kimi.md).
import { test } from "node:test";
import fs from "node:fs";
import { hookSuite } from "../e2e-shared/hook-suite.mjs";
import { assertQuietOutside } from "../e2e-shared/user-hooks.mjs";

const todo = { record: "Kimi Code's hooks name no model (its SessionStart says __kimi_env_model__)" };
hookSuite("kimi", { toolContext: false, todo, extra: ({ gov }) => test("the user-level hooks do nothing outside a hookwise project", () => {
  const commands = [...fs.readFileSync(`${gov.sb.home}/.kimi-code/config.toml`, "utf8").matchAll(/^command = (".*")$/gm)].map((m) => JSON.parse(m[1]));
  console.log(`# Kimi Code hooks outside a hookwise project: ${assertQuietOutside(gov.sb, commands, { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } }).join(", ")} ms`);
}) });

// hookwise in the REAL Letta Code (@letta-ai/letta-code 0.32.18 on Node 22, pinned by
// scripts/setup-clis.sh), offline on its local backend against the scripted chat completions of
// ../e2e-shared/model.mjs, set up by `hookwise init --letta`: the one command-hook suite. Letta
// blocks by exit code 2 only, runs no start hook under -p and reads no project MCP server
// (docs/hosts/letta.md).
//
//   node --test --test-concurrency=1 tests/e2e-letta/     (needs pkg/: run `npm run build` first)
import { hookSuite } from "../e2e-shared/hook-suite.mjs";

hookSuite("letta", { mcp: false, sessionStart: false, native: false });

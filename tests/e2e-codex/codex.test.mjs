// hookwise in the REAL Codex CLI (@openai/codex, pinned by scripts/setup-clis.sh), offline, against
// the scripted Responses API of ../e2e-shared/model.mjs, set up by `hookwise init --codex`: the one
// command-hook suite of ../e2e-shared/hook-suite.mjs. Writes go through apply_patch (offered to
// gpt-5.5), hookwise's MCP tools through tool_search and their namespace.
//
//   node --test --test-concurrency=1 tests/e2e-codex/     (needs pkg/: run `npm run build` first)
import { hookSuite } from "../e2e-shared/hook-suite.mjs";

hookSuite("codex");

// hookwise in the REAL Qwen Code (@qwen-code/qwen-code, pinned by scripts/setup-clis.sh), offline,
// against the scripted chat completions of ../e2e-shared/model.mjs, set up by
// `hookwise init --qwen`: the one command-hook suite of ../e2e-shared/hook-suite.mjs.
//
//   node --test --test-concurrency=1 tests/e2e-qwen/     (needs pkg/: run `npm run build` first)
import { hookSuite } from "../e2e-shared/hook-suite.mjs";

// Qwen names the model only in SessionStart, the project's first hook: answered in its own
// process, it hands its payload to the warm server it starts, so the record names the model.
hookSuite("qwen");

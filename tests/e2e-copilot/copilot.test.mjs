// hookwise in the REAL GitHub Copilot CLI (@github/copilot, pinned by scripts/setup-clis.sh),
// offline (COPILOT_OFFLINE, a custom provider), against the scripted chat completions of
// ../e2e-shared/model.mjs, set up by `hookwise init --copilot`: the one command-hook suite of
// ../e2e-shared/hook-suite.mjs.
//
//   node --test --test-concurrency=1 tests/e2e-copilot/     (needs pkg/: run `npm run build` first)
import { hookSuite } from "../e2e-shared/hook-suite.mjs";

hookSuite("copilot");

// hookwise in the REAL GitHub Copilot CLI (@github/copilot, pinned by scripts/setup-clis.sh),
// offline (COPILOT_OFFLINE, a custom provider), against the scripted chat completions of
// ../e2e-shared/model.mjs, set up by `hookwise init --copilot`: the one command-hook suite of
// ../e2e-shared/hook-suite.mjs.
//
//   node --test --test-concurrency=1 tests/e2e-copilot/     (needs pkg/: run `npm run build` first)
import { hookSuite } from "../e2e-shared/hook-suite.mjs";

// Copilot CLI starts no session after it compacts (no SessionStart, no hook that reaches the
// next request): what was kept cannot be handed back there (checked with a probe hook).
hookSuite("copilot", {
  contextAfterCompaction: false,
});

// hookwise in the REAL Gemini CLI (@google/gemini-cli, pinned by scripts/setup-clis.sh), offline,
// against the scripted streamGenerateContent of ../e2e-shared/model.mjs, set up by
// `hookwise init --gemini`: the one command-hook suite of ../e2e-shared/hook-suite.mjs.
//
//   node --test --test-concurrency=1 tests/e2e-gemini/     (needs pkg/: run `npm run build` first)
import { hookSuite } from "../e2e-shared/hook-suite.mjs";

// Gemini CLI sends hooks no model id: the record takes it from the session's transcript.
hookSuite("gemini");

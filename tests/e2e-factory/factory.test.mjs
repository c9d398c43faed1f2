// hookwise in the REAL Factory droid (@factory/cli 0.225.1 + @factory/cli-linux-x64 0.225.2,
// pinned by scripts/setup-clis.sh), offline, `droid exec` with a BYOK model on the scripted chat
// completions of ../e2e-shared/model.mjs, set up by `hookwise init --factory`: the one
// command-hook suite of ../e2e-shared/hook-suite.mjs (docs/hosts/factory.md).
//
//   node --test --test-concurrency=1 tests/e2e-factory/     (needs pkg/: run `npm run build` first)
import { hookSuite } from "../e2e-shared/hook-suite.mjs";

hookSuite("factory");

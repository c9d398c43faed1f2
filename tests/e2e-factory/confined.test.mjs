// A governed shell in the REAL Factory droid runs in hookwise's confined shell (droid applies
// the PreToolUse `updatedInput`): ../e2e-shared/confined-suite.mjs.
import { confinedSuite } from "../e2e-shared/confined-suite.mjs";

confinedSuite("factory");

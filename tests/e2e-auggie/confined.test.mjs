// A governed shell in the REAL Auggie runs in hookwise's confined shell (Auggie applies the
// PreToolUse `updatedInput`): ../e2e-shared/confined-suite.mjs.
import { confinedSuite } from "../e2e-shared/confined-suite.mjs";

confinedSuite("auggie");

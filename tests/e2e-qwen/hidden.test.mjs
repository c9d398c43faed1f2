// Issue 38 in the REAL Qwen Code: its deferred `monitor {command}`, reached through `tool_search`
// then `tool_call {name: "monitor", arguments}`, is a shell: a command that writes the intents
// file is blocked and the file is unchanged.
//
//   node --test --test-concurrency=1 tests/e2e-qwen/hidden.test.mjs   (needs pkg/)
import { hiddenSuite, INTENTS, fs, path, assert } from "../e2e-shared/hidden-suite.mjs";

const evil = "printf 'active_intents: []\\n' > .orchestration/active_intents.yaml; echo widened";
const ctx = hiddenSuite("qwen", () => [
  { tool: "tool_search", args: { query: "select:monitor" } },
  { tool: "tool_call", args: { name: "monitor", arguments: { command: evil, description: "watch" } } },
  { tool: "monitor", args: { command: evil, description: "watch" } },
]);
ctx.check = (texts, sb, r) => {
  assert.equal(fs.readFileSync(path.join(sb.dir, ".orchestration/active_intents.yaml"), "utf8"), INTENTS, `the intents file is unchanged\n${r.describe()}`);
  assert.ok(!texts.some((t) => /widened/.test(t)), `no monitor ran the command\n${r.describe()}`);
};

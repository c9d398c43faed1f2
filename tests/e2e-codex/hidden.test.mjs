// Issue 38 in the REAL Codex CLI: `apply_patch <<'EOF' … EOF` given to its shell is read as the
// patch it is: out of the intent's scope blocked (README.md unchanged, the model reads why); in
// scope refused too, naming the apply_patch tool — Codex applies such a patch itself and runs
// no PostToolUse after it (seen with a probe hook), so its record could not be written — and the
// apply_patch tool then makes the change, recorded.
//
//   node --test --test-concurrency=1 tests/e2e-codex/hidden.test.mjs   (needs pkg/)
import { hiddenSuite, patch, fs, path, assert } from "../e2e-shared/hidden-suite.mjs";
import { HOSTS } from "../e2e-shared/agents.mjs";
import { traceText } from "../e2e-shared/trace-files.mjs";

const ctx = hiddenSuite("codex", () => [
  HOSTS.codex.shell(`apply_patch <<'EOF'\n${patch("README.md", "# demo", "# changed")}\nEOF`),
  HOSTS.codex.shell(`apply_patch <<'EOF'\n${patch("src/auth/login.ts", "old", "new")}\nEOF`),
  { custom: "apply_patch", input: patch("src/auth/login.ts", "old", "new") + "\n" },
], { modelName: HOSTS.codex.writeModel });
ctx.check = (texts, sb, r) => {
  assert.equal(fs.readFileSync(path.join(sb.dir, "README.md"), "utf8"), "# demo\n", `README.md unchanged\n${r.describe()}`);
  assert.ok(texts.some((t) => /README\.md/.test(t) && /outside the scope/.test(t)), `the model reads the scope block\n${r.describe()}`);
  assert.ok(texts.some((t) => /`apply_patch` tool/.test(t) && /record/.test(t)), `the in-scope shell patch is refused, naming the tool\n${r.describe()}`);
  assert.equal(fs.readFileSync(path.join(sb.dir, "src/auth/login.ts"), "utf8"), "new\n", `the apply_patch tool made the change\n${r.describe()}`);
  const trace = traceText(sb.dir);
  assert.match(trace, /src\/auth\/login\.ts/, "its record");
};

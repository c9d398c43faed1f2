// The wasm boundary: a Rust panic and a bad call surface as caught, typed JS errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, tmpdir } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const { Core, HookwiseError, loadWasm } = require(path.join(dist, "core.cjs"));
const { createHost } = require(path.join(dist, "host.cjs"));
const { createEngine } = require(path.join(dist, "engine.cjs"));

test("a panic in the core is a caught HookwiseError, and the module still works after", async () => {
  const wasm = loadWasm();
  let caught;
  try {
    wasm.__panicForTests("boom at the boundary");
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof WebAssembly.RuntimeError, String(caught));
  assert.match(wasm.lastPanic(), /boom at the boundary/);
  // A fresh engine in the same module still answers.
  const core = new Core(createHost());
  const r = await core.call({ hook: "init", env: {}, cwd: "/" });
  assert.equal(r.discovery.source, "none");
});

test("a malformed call is a typed error, not a crash", async () => {
  const core = new Core(createHost());
  await assert.rejects(core.call({ hook: "no-such-hook" }), (e) => e instanceof HookwiseError && e.kind === "BadCall");
  await assert.rejects(core.call({ hook: "tool.before" }), (e) => e.kind === "BadCall" && /tool/.test(e.message));
  // the kind crosses from the wasm as a property of the thrown Error, not as text in its message
  await assert.rejects(core.call({ hook: "no-such-hook" }), (e) => e.cause instanceof Error && e.cause.kind === "BadCall" && !/^BadCall/.test(e.message));
});

test("the engine API never throws for a tool call, even with odd arguments", async () => {
  const e = await createEngine({ env: { PATH: tmpdir() }, cwd: "/" });
  for (const args of [undefined, null, 42, "[[x]]", [], { a: { b: [1, "[[y]]"] } }]) {
    const r = await e.augmentToolCall({ tool: "bash", args });
    assert.equal(r.args, args);
    assert.equal(r.context, null);
  }
});

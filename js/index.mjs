// The OpenCode plugin entry, for both plugin generations. OpenCode 1.x calls every export of a
// plugin module, so this module exports exactly one thing: the default `{ id, server, setup }`.
// OpenCode 1.18.29+ takes `server` (js/opencode.cjs); OpenCode 2.x decodes the default as
// `{ id, setup }` and runs `setup(ctx)` (js/opencode2.cjs). Each ignores the other's key.
// Kilo CLI calls both on this one module: `server` does the work, and `setup`, whose context
// has no tool hooks there, registers nothing (docs/kilo.md).
import opencode from "./opencode.cjs";
import opencode2 from "./opencode2.cjs";

export default { id: "hookwise", server: opencode.server, setup: opencode2.setup };

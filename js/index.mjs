// The OpenCode plugin entry. OpenCode calls every export of a plugin module, so this module
// exports exactly one thing: the default `{ id, server }`.
import opencode from "./opencode.cjs";

export default { id: "hookwise", server: opencode.server };

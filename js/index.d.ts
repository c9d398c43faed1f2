/** The OpenCode plugin: `{ id: "hookwise", server }`. */
import type { HookwisePluginOptions } from "./options.cjs";
export type { HookwisePluginOptions };

declare const plugin: {
  id: "hookwise";
  server: (input: any, options?: HookwisePluginOptions) => Promise<Record<string, (...args: any[]) => Promise<void>>>;
};
export default plugin;

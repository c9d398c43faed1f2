/** The OpenCode plugin: `{ id: "hookwise", server, setup }` (1.x takes `server`, 2.x `setup`). */
import type { HookwisePluginOptions } from "./options.cjs";
export type { HookwisePluginOptions };

declare const plugin: {
  id: "hookwise";
  server: (input: any, options?: HookwisePluginOptions) => Promise<Record<string, (...args: any[]) => Promise<void>>>;
  /** OpenCode 2.x: registers the hooks and tools on `ctx` (options: `ctx.options`); resolves to the cleanup. */
  setup: (ctx: { readonly options?: HookwisePluginOptions; readonly [domain: string]: any }) => Promise<() => Promise<void>>;
};
export default plugin;

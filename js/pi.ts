// The pi extension entry (package.json "pi.extensions"; `hookwise init --pi` names the package
// in .pi/settings.json). pi loads extensions with its own TypeScript loader, which resolves
// `@mariozechner/pi-coding-agent` to the running pi: the one import that needs it (its
// `compact`, for compaction) is made here, lazily. The extension itself is ./pi.cjs; when that
// cannot load (a damaged install), the project's files decide whether calls are blocked
// (./failsafe.cjs, the core's data).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export default async function hookwise(pi: any): Promise<void> {
  let adapter: any;
  try {
    adapter = require("./pi.cjs");
  } catch (e) {
    const cold = require("./failsafe.cjs").coldStart({ cwd: process.cwd(), options: {}, host: "pi", error: e });
    process.stderr.write(`hookwise error: could not load its pi extension (${(e as Error)?.message}); ${cold ? "governance or enforcement is configured: calls are blocked" : "every hook is off"}\n`);
    if (cold) {
      pi.on("tool_call", async (event: any) => {
        const reason = cold.block(event?.toolName);
        return reason ? { block: true, reason } : undefined;
      });
    }
    return;
  }
  await adapter.extension(pi, { piModule: () => import("@mariozechner/pi-coding-agent") });
}

// One scenario in its own process (its own environment, as OpenCode's server has one): start
// the double with the packed package, run the scenario, unload the plugin, and report what was
// seen and which processes this process still has afterwards.
//
//   node run.mjs '<json: {scenario, projectDir, directory, config}>'
import { execFileSync } from "node:child_process";
import { startHost } from "./host.mjs";
import * as scenarios from "./scenarios.mjs";

/** Every live descendant of `root` (pid and command line), `ps` itself left out. */
function descendants(root) {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/))
    .filter(Boolean)
    .map((m) => ({ pid: +m[1], ppid: +m[2], stat: m[3], args: m[4] }));
  const out = [];
  const frontier = [root];
  while (frontier.length) {
    const p = frontier.pop();
    for (const r of rows) if (r.ppid === p && !r.args.startsWith("ps -eo")) (out.push(r), frontier.push(r.pid));
  }
  return out.filter((r) => !r.stat.startsWith("Z"));
}

const spec = JSON.parse(process.argv[2]);
const host = await startHost(spec);
const out = { plugins: host.plugins(), loadErrors: host.loadErrors.map((e) => `${e.target}: ${e.error && e.error.message}`), skipped: host.skipped, tools: host.tools() };
try {
  Object.assign(out, await scenarios[spec.scenario](host, spec));
} catch (e) {
  out.error = String((e && e.stack) || e);
}
out.beforeStop = descendants(process.pid).map((r) => r.args);
await host.stop();
// killed children take a moment to go
let left = descendants(process.pid);
for (let i = 0; i < 50 && left.length; i++) {
  await new Promise((r) => setTimeout(r, 100));
  left = descendants(process.pid);
}
out.afterStop = left.map((r) => r.args);
process.stdout.write(JSON.stringify(out));
// nothing of the plugin may keep this process alive: exit on our own only if it would not
setTimeout(() => {
  process.stderr.write("the process did not end by itself after the plugin unloaded\n");
  process.exit(3);
}, 5000).unref();

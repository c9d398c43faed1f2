// The environment the real-host suites start a host in.
import fs from "node:fs";
import path from "node:path";

/** PATH entries with no `maenifold` in them (so a run without the CLI is independent of the machine). */
export function pathWithoutMaenifold() {
  return (process.env.PATH ?? "")
    .split(":")
    .filter((d) => d && !fs.existsSync(path.join(d, "maenifold")))
    .join(":");
}

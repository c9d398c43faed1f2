// Pack the built hookwise package (pkg/) the way a user's registry would ship it, offline.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const PKG_DIR = path.join(repoRoot, "pkg");

/** `npm pack` pkg/ into a fresh temp folder named with `prefix`: `{ packDir, packed }`, where
 * `packed` is npm's `--json` answer (`packed[0].filename`, `packed[0].files`). */
export function packHookwise(prefix) {
  const packDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", PKG_DIR, "--pack-destination", packDir], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, npm_config_offline: "true", npm_config_update_notifier: "false", npm_config_loglevel: "error" },
    }),
  );
  return { packDir, packed };
}

/** `npm pack` this platform's native package (pkg-native/cli-<platform>-<arch>, built by
 * `npm run build`) into `packDir`: the tarball's path, or null when it was not built. */
export function packNative(packDir) {
  const dir = path.join(repoRoot, "pkg-native", `cli-${process.platform}-${process.arch}`);
  if (!fs.existsSync(path.join(dir, "package.json"))) return null;
  const [info] = JSON.parse(
    execFileSync("npm", ["pack", "--json", dir, "--pack-destination", packDir], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, npm_config_offline: "true", npm_config_update_notifier: "false", npm_config_loglevel: "error" },
    }),
  );
  return path.join(packDir, info.filename);
}

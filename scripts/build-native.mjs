// The native binary (crates/hookwise-native: the warm command-hook client and the confined
// shell) built per platform into npm packages of their own, as esbuild and biome ship theirs:
// `@hookwise/cli-<platform>-<arch>` (js/native.cjs names them), each with `bin/hookwise-native`,
// `os` and `cpu` set so npm installs only the one that fits, no install script. They land in
// pkg-native/cli-<platform>-<arch>/ beside pkg/; hookwise's package.json lists them all as
// optionalDependencies at the same version. For the repository's own tests the one for this
// machine is also copied into pkg/node_modules/@hookwise/cli-<platform>-<arch>/ (where
// binaryPath() and dist/hook.sh look first; `npm pack` leaves node_modules out).
//
// Linux: musl, statically linked (one binary for every glibc and musl distribution, no
// dependency on the system's libc version), linked with rust-lld from the Rust toolchain: no
// cross toolchain needed. macOS: cargo-zigbuild. Windows: x86_64-pc-windows-gnu linked by
// MinGW-w64's gcc (Debian's `mingw-w64`; only system DLLs at run time). HOOKWISE_NATIVE_TARGETS: `host` (default: this
// machine's), `linux` (x64 and arm64), `all`, or a comma-separated list of names below.
// HOOKWISE_NATIVE=0: none.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** Every platform package hookwise lists (name suffix → Rust target, npm os/cpu, how to link). */
export const PLATFORMS = {
  "linux-x64": { target: "x86_64-unknown-linux-musl", os: "linux", cpu: "x64", linker: "rust-lld" },
  "linux-arm64": { target: "aarch64-unknown-linux-musl", os: "linux", cpu: "arm64", linker: "rust-lld" },
  // macOS: Mach-O linked by zig (`pip install ziglang cargo-zigbuild`), no Apple SDK needed for
  // a binary that uses only the system library; minutes of CI per target, so built for a
  // release (HOOKWISE_NATIVE_TARGETS=all), not in every CI run
  "darwin-x64": { target: "x86_64-apple-darwin", os: "darwin", cpu: "x64", zig: true },
  "darwin-arm64": { target: "aarch64-apple-darwin", os: "darwin", cpu: "arm64", zig: true },
  // Windows: the warm hook client over a named pipe (docs/warm-hooks.md#windows); the confined
  // shell refuses there (no kernel confinement hookwise can use). A PE32+ console program that
  // needs only Windows' own DLLs; run here under Wine (tests/windows, opt-in)
  "win32-x64": { target: "x86_64-pc-windows-gnu", os: "win32", cpu: "x64", linker: "x86_64-w64-mingw32-gcc", exe: ".exe", needs: "x86_64-w64-mingw32-gcc (apt-get install mingw-w64)" },
};

const envVar = (target) => `CARGO_TARGET_${target.toUpperCase().replace(/-/g, "_")}_LINKER`;

/**
 * Build the platform packages into `<root>/pkg-native/` and list them in `pkgJson`
 * (optionalDependencies). Returns lines for the build's summary.
 */
export function buildNative(root, pkgJson, version) {
  const lines = [];
  // every platform package, built here or not, is a dependency of the published package
  pkgJson.optionalDependencies = Object.fromEntries(Object.keys(PLATFORMS).map((p) => [`@hookwise/cli-${p}`, version]));
  const crateVersion = /^version\s*=\s*"([^"]+)"/m.exec(fs.readFileSync(path.join(root, "crates/hookwise-native/Cargo.toml"), "utf8"))[1];
  if (crateVersion !== version) throw new Error(`crates/hookwise-native is ${crateVersion}, hookwise ${version}: the native client refuses another version, keep them equal`);
  if (process.env.HOOKWISE_NATIVE === "0") return ["native: not built (HOOKWISE_NATIVE=0)"];
  const host = `${process.platform}-${process.arch}`;
  const want = (process.env.HOOKWISE_NATIVE_TARGETS || "host").split(",").flatMap((t) => (t === "host" ? [host] : t === "linux" ? ["linux-x64", "linux-arm64"] : t === "all" ? Object.keys(PLATFORMS) : [t.trim()]));
  const out = path.join(root, "pkg-native");
  fs.rmSync(out, { recursive: true, force: true });
  for (const name of [...new Set(want)]) {
    const p = PLATFORMS[name];
    if (!p) {
      lines.push(`native ${name}: no build for this platform (the Node path answers there)`);
      continue;
    }
    let installed = "";
    try {
      installed = execFileSync("rustup", ["target", "list", "--installed"], { encoding: "utf8" });
    } catch {
      /* no rustup: cargo says what is missing */
    }
    if (installed && !installed.split("\n").includes(p.target)) {
      try {
        execFileSync("rustup", ["target", "add", p.target], { stdio: "inherit" });
      } catch {
        lines.push(`native ${name}: NOT built (rustup target add ${p.target} failed; hooks answer through Node)`);
        continue;
      }
    }
    if (p.needs) {
      try {
        execFileSync(p.linker, ["--version"], { stdio: "ignore" });
      } catch {
        lines.push(`native ${name}: NOT built (needs ${p.needs})`);
        continue;
      }
    }
    if (p.zig) {
      try {
        execFileSync("cargo-zigbuild", ["--version"], { stdio: "ignore" });
      } catch {
        lines.push(`native ${name}: NOT built (needs cargo-zigbuild and ziglang: pip install ziglang cargo-zigbuild)`);
        continue;
      }
    }
    execFileSync("cargo", [p.zig ? "zigbuild" : "build", "--release", "-p", "hookwise-native", "--target", p.target], {
      cwd: root,
      stdio: "inherit",
      // stripped at link time on Linux; not for macOS, where rustc would run a `strip` of this
      // machine over the Mach-O after zig has signed it (Apple silicon runs only signed code)
      env: { ...process.env, ...(p.linker ? { [envVar(p.target)]: p.linker, CARGO_PROFILE_RELEASE_STRIP: "symbols" } : {}) },
    });
    const dir = path.join(out, `cli-${name}`);
    fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
    const bin = path.join(dir, "bin", `hookwise-native${p.exe || ""}`);
    fs.copyFileSync(path.join(root, "target", p.target, "release", `hookwise-native${p.exe || ""}`), bin);
    fs.chmodSync(bin, 0o755);
    const manifest = {
      name: `@hookwise/cli-${name}`,
      version,
      description: `hookwise's native binary for ${p.os} ${p.cpu} (the warm command-hook client and the confined shell); installed by hookwise as an optional dependency`,
      license: "MIT",
      os: [p.os],
      cpu: [p.cpu],
      files: ["bin"],
      preferUnplugged: true,
    };
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
    fs.writeFileSync(path.join(dir, "README.md"), `# ${manifest.name}\n\n${manifest.description}. Linux builds are static (musl); the Windows one needs only Windows' own DLLs. Not meant to be installed on its own: install \`hookwise\`.\n`);
    fs.copyFileSync(path.join(root, "LICENSE"), path.join(dir, "LICENSE"));
    lines.push(`native ${name}: ${fs.statSync(bin).size} bytes (${p.target})`);
    if (name === host) {
      // the repository's tests: beside pkg/dist as a nested install
      const nested = path.join(root, "pkg", "node_modules", "@hookwise", `cli-${name}`);
      fs.mkdirSync(path.dirname(nested), { recursive: true });
      fs.cpSync(dir, nested, { recursive: true });
    }
  }
  return lines;
}

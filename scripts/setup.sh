#!/usr/bin/env bash
# Installs what hookwise needs to build and test on a fresh machine that has the Rust
# toolchain, node 20 and npm — and skips whatever is already there. Idempotent.
#
#   bash scripts/setup.sh          # build + every test's needs (the agent CLIs, OpenClaw, wasm-pack,
#                                  # Chromium)
#   bash scripts/setup.sh --demo   # the build's needs only (scripts/demo.sh): the wasm toolchain
#                                  # and the npm dev dependencies; no agent CLI, no wasm-pack
set -euo pipefail
cd "$(dirname "$0")/.."
demo=0
[ "${1:-}" = "--demo" ] && demo=1

pinned=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
wasm_pack_version=0.15.1

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || rustup target add wasm32-unknown-unknown
# the native binary's Linux builds (scripts/build-native.mjs: static musl, linked by rust-lld)
rustup target add x86_64-unknown-linux-musl aarch64-unknown-linux-musl >/dev/null 2>&1 || echo "setup: no musl targets: the native client is not built (hooks answer through Node)"

version_of() { "$1" --version 2>/dev/null | awk '{print $2}'; }
# wasm-bindgen-cli, at the version Cargo.toml pins. --locked can fail on a pinned dependency
# missing from the registry; without it, it builds.
install_bindgen() {
  cargo install wasm-bindgen-cli --version "$pinned" --locked "$@" 2>/dev/null ||
    cargo install wasm-bindgen-cli --version "$pinned" "$@"
}
bindgen_pid=""
if [ $demo = 1 ]; then
  # The demo: the `wasm-bindgen` command only, without the test runner's TLS stack, built in
  # the debug profile (it runs for about a second a build): 97 s of compiling instead of 204 s
  # on 2 cores. It builds while the core builds (below), which its serial stretches leave room for.
  if [ "$(version_of wasm-bindgen)" != "$pinned" ]; then
    echo "setup: installing wasm-bindgen $pinned (about a minute and a half, once), while the core builds"
    install_bindgen --bin wasm-bindgen --no-default-features --debug --quiet &
    bindgen_pid=$!
  fi
elif [ "$(version_of wasm-bindgen)" != "$pinned" ] || [ "$(version_of wasm-bindgen-test-runner)" != "$pinned" ]; then
  # the tests: every command of it (wasm-pack test runs wasm-bindgen-test-runner), optimized;
  # --force replaces the demo's debug build of the one command
  echo "setup: installing wasm-bindgen-cli $pinned (a few minutes, once)"
  install_bindgen --force
fi
# wasm-pack runs the wasm tests only (the build calls wasm-bindgen itself).
if [ $demo = 0 ] && [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$wasm_pack_version" ]; then
  echo "setup: installing wasm-pack $wasm_pack_version (about two minutes, once)"
  cargo install wasm-pack --version "$wasm_pack_version" --locked
fi

# npm packages: the build's in `dependencies` (esbuild, binaryen's wasm-opt, zod and
# json-schema-to-typescript), the tests' in `devDependencies` (bun, typescript: 126 of 271 MB).
# --demo installs the build's only (half the time from an empty npm cache). The agent CLIs are
# not among them: they are cached below.
stamp=node_modules/.hookwise-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  if [ $demo = 1 ]; then
    if [ ! -f "$stamp-build" ] || ! cmp -s package-lock.json "$stamp-build"; then
      npm install --omit=dev --no-audit --no-fund
      cp package-lock.json "$stamp-build"
    fi
  else
    npm install --no-audit --no-fund
    cp package-lock.json "$stamp"
  fi
fi

# The real OpenClaw gateway for tests/e2e-openclaw: Node 24 + openclaw from the npm registry,
# cached outside the repository (~850 MB, about a minute once; nothing when cached).
if [ $demo = 0 ] && [ "${HOOKWISE_SKIP_OPENCLAW:-}" != "1" ]; then
  bash scripts/setup-openclaw.sh >/dev/null
fi

# The real Claude Code for tests/e2e-claude: @anthropic-ai/claude-code, pinned, from the npm
# registry, cached outside the repository (~370 MB, seconds once; nothing when cached).
if [ $demo = 0 ] && [ "${HOOKWISE_SKIP_CLAUDE:-}" != "1" ]; then
  bash scripts/setup-claude.sh >/dev/null
fi

# The agent CLIs for tests/e2e-{codex,gemini,copilot,qwen} and tests/e2e: Codex, Gemini CLI,
# Copilot CLI, Qwen Code and OpenCode 1.x, pinned, from the npm registry, cached outside the
# repository (~1.2 GB, well under a minute once; nothing when cached).
if [ $demo = 0 ] && [ "${HOOKWISE_SKIP_CLIS:-}" != "1" ]; then
  bash scripts/setup-clis.sh >/dev/null
fi

# The real OpenTelemetry backends for tests/otel: Arize Phoenix and rotel, pinned, from PyPI, in
# Python venvs cached outside the repository (~900 MB, about 90 s once; nothing when cached).
# HOOKWISE_SKIP_OTEL=1 skips it.
if [ $demo = 0 ] && [ "${HOOKWISE_SKIP_OTEL:-}" != "1" ]; then
  bash scripts/setup-otel.sh >/dev/null
fi

# From the system's packages (apt-get; nothing when present): Chromium for tests/browser and
# tests/vscode (driven by puppeteer-core), and the Kerberos headers code-server's native build
# needs. HOOKWISE_SKIP_CHROMIUM=1 skips both.
if [ $demo = 0 ] && [ "${HOOKWISE_SKIP_CHROMIUM:-}" != "1" ]; then
  want=()
  command -v chromium >/dev/null || command -v chromium-browser >/dev/null || want+=(chromium)
  [ -f /usr/include/gssapi/gssapi.h ] || want+=(libkrb5-dev)
  if [ ${#want[@]} -gt 0 ]; then
    echo "setup: installing ${want[*]} from the system's packages (apt-get)"
    sudo=""
    [ "$(id -u)" != 0 ] && sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${want[@]}" >/dev/null
  fi
fi

# VS Code's own server and extension host for tests/vscode: code-server under Node 24, both from
# the npm registry, cached outside the repository (~700 MB; builds native modules, about 15
# minutes once on 2 cores; nothing when cached). HOOKWISE_SKIP_CODE_SERVER=1 skips it.
if [ $demo = 0 ] && [ "${HOOKWISE_SKIP_CODE_SERVER:-}" != "1" ]; then
  bash scripts/setup-code-server.sh >/dev/null
fi

# the demo needs the lean core only (knowledge context); everything else builds both cores
if [ $demo = 1 ]; then
  if [ -n "$bindgen_pid" ]; then
    # the core's cargo build, the build's first step, while wasm-bindgen-cli compiles
    cargo build --quiet --release --target wasm32-unknown-unknown
    wait "$bindgen_pid" || { echo "setup: installing wasm-bindgen-cli failed" >&2; exit 1; }
  fi
  # nor the native hook client (hooks are not part of the demo): no musl target, no second crate
  HOOKWISE_BUILD=lean HOOKWISE_NATIVE="${HOOKWISE_NATIVE:-0}" npm run build --silent
else
  npm run build --silent
fi

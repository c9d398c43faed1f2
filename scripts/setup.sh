#!/usr/bin/env bash
# Installs what hookwise needs to build and test on a fresh machine that has the Rust
# toolchain, node 20 and npm — and skips whatever is already there. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

pinned=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
wasm_pack_version=0.15.1

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || rustup target add wasm32-unknown-unknown

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$pinned" ]; then
  echo "setup: installing wasm-bindgen-cli $pinned (a few minutes, once)"
  # --locked can fail on a pinned dependency missing from the registry; without it, it builds.
  cargo install wasm-bindgen-cli --version "$pinned" --locked || cargo install wasm-bindgen-cli --version "$pinned"
fi
if [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$wasm_pack_version" ]; then
  echo "setup: installing wasm-pack $wasm_pack_version (about two minutes, once)"
  cargo install wasm-pack --version "$wasm_pack_version" --locked
fi

# npm packages (bun, esbuild, binaryen's wasm-opt, opencode-ai for the end-to-end tests)
stamp=node_modules/.hookwise-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  # npm ci refuses this lockfile (the optional per-platform opencode binaries are not all
  # recorded), so install from it with npm install.
  npm install --no-audit --no-fund
  cp package-lock.json "$stamp"
fi

# The real OpenClaw gateway for tests/e2e-openclaw: Node 24 + openclaw from the npm registry,
# cached outside the repository (~850 MB, about a minute once; nothing when cached).
if [ "${HOOKWISE_SKIP_OPENCLAW:-}" != "1" ]; then
  bash scripts/setup-openclaw.sh >/dev/null
fi

# The real Claude Code for tests/e2e-claude: @anthropic-ai/claude-code, pinned, from the npm
# registry, cached outside the repository (~370 MB, seconds once; nothing when cached).
if [ "${HOOKWISE_SKIP_CLAUDE:-}" != "1" ]; then
  bash scripts/setup-claude.sh >/dev/null
fi

# The command-hook agent CLIs for tests/e2e-{codex,gemini,copilot,qwen}: Codex, Gemini CLI,
# Copilot CLI and Qwen Code, pinned, from the npm registry, cached outside the repository
# (~860 MB, about 20 s once; nothing when cached).
if [ "${HOOKWISE_SKIP_CLIS:-}" != "1" ]; then
  bash scripts/setup-clis.sh >/dev/null
fi

npm run build --silent

#!/usr/bin/env bash
# Every test: native core, wasm adapters, JS under Node and Bun, packaging, the real hosts
# (OpenCode, OpenClaw, Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen Code, Kilo CLI), and the
# security suite (hostile input against the packed package).
# Expects scripts/setup.sh to have run (the README's test command does both).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

step() { printf '\n== %s\n' "$*"; }

step "core (native cargo test)"
cargo test --quiet 2>&1 | grep -E "^test result|FAILED|panicked"; test "${PIPESTATUS[0]}" -eq 0

step "core with every feature (cargo test --all-features: the policy wiring)"
cargo test --quiet --all-features 2>&1 | grep -E "^test result|FAILED|panicked"; test "${PIPESTATUS[0]}" -eq 0

step "wasm adapters (wasm-pack test --node)"
wasm-pack test --node 2>&1 | grep -vE "^\[INFO\]|^\s*$"; test "${PIPESTATUS[0]}" -eq 0

step "wasm adapters, full build (wasm-pack test --node --features policy: the MCP session)"
wasm-pack test --node --features policy 2>&1 | grep -vE "^\[INFO\]|^\s*$"; test "${PIPESTATUS[0]}" -eq 0

step "JS under Node (node:test)"
node --test tests/js/ tests/fake-maenifold/

step "JS under Bun"
bun test tests/js/

# every host's real-host suite, from the registry (js/hosts.json, generated from src/hosts/)
mapfile -t host_suites < <(node -e 'for (const h of require("./js/hosts.json").hosts) if (h.e2e) console.log(h.e2e)')
for dir in tests/pack tests/browser tests/e2e-shared "${host_suites[@]}" tests/team-traces tests/otel tests/security; do
  if [ -d "$dir" ]; then
    step "$dir (node:test)"
    node --test --test-concurrency=1 "$dir"/
  fi
done

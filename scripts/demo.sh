#!/usr/bin/env bash
# The main job on the embedded default: build what is needed, then show what an agent gets
# from the example vault (examples/vault) — for a tool call and for a session start.
set -euo pipefail
cd "$(dirname "$0")/.."
# the build's needs only: no agent CLI (they are for the end-to-end tests), no wasm-pack
bash scripts/setup.sh --demo >&2
hw() { node pkg/dist/cli.mjs "$@"; }

echo '$ hookwise context "Before the deploy, check how we rotate [[Session Tokens]] and what [[rate-limiting]] protects." --vault examples/vault'
hw context "Before the deploy, check how we rotate [[Session Tokens]] and what [[rate-limiting]] protects." --vault examples/vault
echo
echo '$ hookwise session --project larkspur --vault examples/vault'
hw session --project larkspur --vault examples/vault
